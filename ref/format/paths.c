/* paths.c: resolving manifest paths through base_paths; implements
 * FA-STORE-6 (see lfa/paths.h). */
#include "lfa/paths.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lfa/limits.h"

static const Lance__Table__BasePath *find_base(const Lance__Table__Manifest *m, uint32_t id) {
  for (size_t i = 0; i < m->n_base_paths; i++)
    if (m->base_paths[i]->id == id) return m->base_paths[i];
  return NULL;
}

/* [FA-STORE-9] segments joined by '/', none empty, "." or "..", no '\\':
 * a hostile manifest must not make a reader open files outside the base.
 * (A C string cannot hold a NUL byte, the rule's last clause.) */
static bool stays_inside(const char *rel) {
  if (strchr(rel, '\\') != NULL) return false;
  for (const char *p = rel;;) {
    size_t n = strcspn(p, "/");
    if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) return false;
    p += n;
    if (*p == '\0') return true;
    p++; /* past '/': a trailing '/' leaves an empty last segment */
  }
}

static lfa_status base_dir(const char **out, const char *dataset_dir, const Lance__Table__Manifest *m, lfa_anchor a,
                           bool need_dataset_root, lfa_error *err) {
  const Lance__Table__BasePath *b = find_base(m, a.base_id);
  if (b == NULL)
    return lfa_fail(err, LFA_ERR_RULE, "FA-STORE-6", "base_id %u is not in the manifest's base_paths",
                    (unsigned)a.base_id);
  if (need_dataset_root && !b->is_dataset_root)
    return lfa_fail(err, LFA_ERR_RULE, "FA-STORE-6", "base path %u ('%s') is not a dataset root",
                    (unsigned)a.base_id, b->path);
  const char *p = b->path;
  if (strncmp(p, "file://", 7) == 0) p += 7;
  bool remote_base = strncmp(p, "s3://", 5) == 0, remote_dataset = strncmp(dataset_dir, "s3://", 5) == 0;
  /* a base is read where the dataset is: on the local file system, or on
   * the object store (the same client: s3:// URLs of any bucket there) */
  if (remote_dataset && !remote_base)
    return lfa_fail(err, LFA_ERR_IO, NULL, "base path %u ('%s') is not on the object store the dataset is on",
                    (unsigned)a.base_id, b->path);
  if (!remote_dataset && strstr(p, "://") != NULL)
    return lfa_fail(err, LFA_ERR_IO, NULL, "base path %u ('%s') is not on the local file system",
                    (unsigned)a.base_id, b->path);
  if (remote_base && strstr(p + 5, "://") != NULL)
    return lfa_fail(err, LFA_ERR_IO, NULL, "base path %u ('%s') is not an s3:// URL", (unsigned)a.base_id, b->path);
  *out = p;
  return LFA_OK;
}

lfa_status lfa_path_resolve(char *out, size_t cap, const char *dataset_dir,
                            const Lance__Table__Manifest *manifest, lfa_anchor anchor,
                            bool need_dataset_root, const char *subdir, const char *rel,
                            lfa_error *err) {
  if (rel == NULL || !stays_inside(rel))
    return lfa_fail(err, LFA_ERR_RULE, "FA-STORE-9", "path '%s' is not a plain relative path (empty, absolute, '.', '..', '//' or '\\')",
                    rel ? rel : "");
  const char *root = dataset_dir;
  if (anchor.has_base_id) {
    lfa_status st = base_dir(&root, dataset_dir, manifest, anchor, need_dataset_root, err);
    if (st != LFA_OK) return st;
  }
  int n = snprintf(out, cap, "%s/%s%s%s", root, subdir, subdir[0] ? "/" : "", rel);
  if (n < 0 || (size_t)n >= cap || (size_t)n >= LFA_PATH_BYTES_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "resolved path of '%s' is too long", rel);
  return LFA_OK;
}
