/* cleanup.c: the cleanup planner and its executor (lfa/cleanup.h), in the
 * order of spec/09-cleanup.md: which versions are kept, which files are
 * candidates [FA-CLEAN-6], which other datasets' versions count
 * [FA-CLEAN-2], what kept and removed versions reach [FA-CLEAN-1]
 * [FA-CLEAN-3] [FA-CLEAN-4], the verdicts [FA-CLEAN-5], the clone rules
 * [FA-CLEAN-7] [FA-CLEAN-8], and the deletion [FA-CLEAN-9]. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "lfa/cleanup.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/fs.h"
#include "lfa/hash.h"
#include "lfa/json.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/objects.h"
#include "lfa/paths.h"
#include "lfa/pb_types.h"
#include "lfa/root.h"
#include "lfa/search.h"
#include "lfa/transaction.h"
#include "lfa/versions.h"

/* What a visit of a version does with the objects it reaches. */
typedef enum visit_kind {
  VISIT_KEPT,    /* a kept version, or any version of another dataset: what it reaches stays */
  VISIT_REMOVED, /* a version being removed: what only it reaches may go at once */
  VISIT_SOURCE   /* the version a clone was made from: marks what it reaches [FA-CLEAN-7] */
} visit_kind;

typedef struct tag {
  uint64_t version;
  char *file; /* "_refs/tags/<name>.json" */
} tag;

/* A reference already followed in a pass: its resolved path, the dataset
 * whose version made it and how it was visited. */
typedef struct seen_ref {
  const char *path; /* owned (the allocation holds the struct and the path) */
  size_t dataset;
  visit_kind kind;
} seen_ref;

typedef struct planner {
  const char *dir;
  const lfa_fs *fs; /* where the dataset, its branches and the clones named are read */
  const lfa_cleanup_options *o;
  lfa_cleanup_plan *plan;
  size_t cap_notes, cap_objects, cap_datasets, n_tags, cap_tags;
  tag *tags;
  size_t listed;        /* entries listed under `_field_assignments/` and `tree/` */
  struct identity *by_identity; /* every candidate, sorted by (dev, ino) */
  size_t *source_mark;  /* per object: 1 + the dataset whose source version reaches it */
  bool *source_checked; /* per dataset: its source version was read, so its reuse is checked */
  char *self_real;      /* the one name of dir (lfa_fs_real_path_in), or NULL */
  size_t marking;       /* the dataset a VISIT_SOURCE marks for */
  bool marking_failed;  /* ... and a part of the source could not be read */
  lfa_hash seen;        /* seen_ref: references already followed (not those of VISIT_SOURCE) */
  bool nomem;           /* a note could not be recorded */
} planner;

/* One version to visit: where its manifest is and what it is. */
typedef struct visit {
  size_t dataset;
  const char *ddir; /* that dataset's directory */
  const char *name; /* file name under `_versions/` */
  bool has_version; /* false for a manifest that is not a listed version (detached) */
  uint64_t version;
  visit_kind kind;
} visit;

/* ---- small tools ------------------------------------------------------------------ */

static lfa_status grow(void **items, size_t *cap, size_t count, size_t size, lfa_error *err) {
  if (count < *cap) return LFA_OK;
  size_t more = *cap ? *cap * 2 : 16;
  void *p = realloc(*items, more * size);
  if (p == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory planning a cleanup");
  *items = p;
  *cap = more;
  return LFA_OK;
}

/* Records a note; an allocation failure is remembered and fails the plan. */
__attribute__((format(printf, 5, 6))) static void note(planner *p, const char *rule, lfa_cleanup_level level,
                                                      const visit *at, const char *fmt, ...) {
  lfa_cleanup_plan *pl = p->plan;
  if (pl->n_notes >= LFA_CLEANUP_NOTES_MAX) {
    pl->notes_dropped++;
    return;
  }
  if (grow((void **)&pl->notes, &p->cap_notes, pl->n_notes, sizeof *pl->notes, NULL) != LFA_OK) {
    p->nomem = true;
    return;
  }
  char buf[LFA_ERROR_MSG_MAX + LFA_PATH_BYTES_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  lfa_cleanup_note *n = &pl->notes[pl->n_notes++];
  *n = (lfa_cleanup_note){rule, level, 0, false, 0, NULL, strdup(buf)};
  if (at != NULL) n->dataset = at->dataset, n->has_version = at->has_version, n->version = at->version;
  if (at != NULL && at->name != NULL) {
    char file[LFA_PATH_BYTES_MAX];
    snprintf(file, sizeof file, "_versions/%s", at->name);
    n->file = strdup(file);
    p->nomem |= n->file == NULL;
  }
  p->nomem |= n->message == NULL;
}

/* The names in a directory, sorted, counted against the planner's budget
 * of listed entries. A missing directory is an empty list. */
static lfa_status list_dir(lfa_names *out, planner *p, const char *path, lfa_error *err) {
  lfa_status st = lfa_fs_list_in(out, p->fs, path, 1, err);
  if (st == LFA_OK && (p->listed += out->count) > LFA_CLEANUP_OBJECTS_MAX) {
    lfa_fs_names_free(out);
    st = lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "%s: more than LFA_CLEANUP_OBJECTS_MAX (%u) entries listed", path,
                  LFA_CLEANUP_OBJECTS_MAX);
  }
  return st;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* *is: a directory (a link to one only when `follow`). A look that fails
 * (a listing refused [FA-CLEAN-12], a request that failed) fails the
 * plan: taken for "no directory", it would hide what is there. */
static lfa_status dir_at(bool *is, const planner *p, const char *path, int follow, lfa_error *err) {
  lfa_fs_stat s;
  lfa_status st = lfa_fs_stat_in(p->fs, path, follow, &s, err);
  *is = st == LFA_OK && s.kind == LFA_FS_DIR;
  return st;
}

/* A directory, and not a link to one. */
static bool is_real_dir(const planner *p, const char *path) {
  bool is = false;
  return dir_at(&is, p, path, 0, NULL) == LFA_OK && is;
}

/* ---- which versions are kept --------------------------------------------------------- */

/* One tag file: {"version": N, "branch": null or absent or a name, ...}.
 * A tag of a branch names a version of that branch, not of this dataset;
 * "main" is this dataset's own branch, so its tags keep. */
static lfa_status read_tag(planner *p, const char *rel, lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_buf bytes = {0};
  lfa_json_doc doc = {0};
  const lfa_json *branch = NULL;
  uint64_t version = 0;
  lfa_status st = lfa_fs_join(path, sizeof path, p->dir, rel, err);
  if (st == LFA_OK) st = lfa_fs_read_in(&bytes, p->fs, path, LFA_JSON_DOCUMENT_BYTES_MAX, err);
  if (st == LFA_OK) st = lfa_json_parse(&doc, bytes.data, bytes.len, err);
  if (st == LFA_OK) st = lfa_json_want(doc.root, LFA_JSON_OBJECT, "the tag", err);
  if (st == LFA_OK) st = lfa_json_u64(&version, lfa_json_find(doc.root, "version"), "\"version\"", err);
  if (st == LFA_OK) branch = lfa_json_find(doc.root, "branch");
  bool main_branch = branch == NULL || branch->kind == LFA_JSON_NULL ||
                     (branch->kind == LFA_JSON_STRING && branch->length == 4 && memcmp(branch->text, "main", 4) == 0);
  if (st == LFA_OK && main_branch) st = grow((void **)&p->tags, &p->cap_tags, p->n_tags, sizeof *p->tags, err);
  if (st == LFA_OK && main_branch) {
    p->tags[p->n_tags] = (tag){version, strdup(rel)};
    if (p->tags[p->n_tags++].file == NULL) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  }
  lfa_json_free(&doc);
  lfa_buf_free(&bytes);
  if (st != LFA_OK)
    lfa_error_prefix(err, "%s (a tag: the versions it keeps cannot be known)", rel), lfa_error_at_file(err, rel);
  return st;
}

/* Lance's tags: `_refs/tags/<name>.json`, one version each. */
static lfa_status read_tags(planner *p, lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX], rel[LFA_PATH_BYTES_MAX];
  lfa_names names = {0};
  lfa_status st = lfa_fs_join(path, sizeof path, p->dir, "_refs/tags", err);
  if (st == LFA_OK) st = list_dir(&names, p, path, err);
  for (size_t i = 0; st == LFA_OK && i < names.count; i++) {
    if (!ends_with(names.names[i], ".json")) continue;
    snprintf(rel, sizeof rel, "_refs/tags/%s", names.names[i]);
    st = read_tag(p, rel, err);
  }
  lfa_fs_names_free(&names);
  return st;
}

static const tag *tag_of(const planner *p, uint64_t version) {
  for (size_t i = 0; i < p->n_tags; i++)
    if (p->tags[i].version == version) return &p->tags[i];
  return NULL;
}

static bool listed_keep(const lfa_cleanup_options *o, uint64_t version) {
  for (size_t i = 0; i < o->n_keep; i++)
    if (o->keep[i] == version) return true;
  return false;
}

static lfa_status check_keep_requests(const planner *p, const lfa_version_list *l, lfa_error *err) {
  const lfa_cleanup_options *o = p->o;
  uint64_t newest = l->entries[l->count - 1].version;
  if (o->has_keep_from && o->keep_from > newest)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "keep_from %" PRIu64 " is past the newest version, %" PRIu64,
                    o->keep_from, newest);
  for (size_t i = 0; i < o->n_keep; i++) {
    bool found = false;
    for (size_t k = 0; k < l->count && !found; k++) found = l->entries[k].version == o->keep[i];
    if (!found) return lfa_fail(err, LFA_ERR_USAGE, NULL, "version %" PRIu64 " to keep is not in _versions/", o->keep[i]);
  }
  return LFA_OK;
}

/* The kept versions: the newest, the tagged, the listed, and the
 * retention window (every version from keep_from; all without it). */
static lfa_status decide_versions(planner *p, const lfa_version_list *l, lfa_error *err) {
  lfa_cleanup_plan *pl = p->plan;
  lfa_status st = check_keep_requests(p, l, err);
  if (st == LFA_OK && (pl->versions = calloc(l->count, sizeof *pl->versions)) == NULL)
    st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; st == LFA_OK && i < l->count; i++) {
    lfa_cleanup_version *v = &pl->versions[pl->n_versions++];
    v->version = l->entries[i].version;
    const tag *t = tag_of(p, v->version);
    if (i + 1 == l->count) v->keep = LFA_CLEANUP_LATEST;
    else if (t != NULL) v->keep = LFA_CLEANUP_TAGGED;
    else if (listed_keep(p->o, v->version)) v->keep = LFA_CLEANUP_LISTED;
    else if (!p->o->has_keep_from || v->version >= p->o->keep_from) v->keep = LFA_CLEANUP_RETAINED;
    else v->keep = LFA_CLEANUP_REMOVED;
    char file[LFA_PATH_BYTES_MAX];
    snprintf(file, sizeof file, "_versions/%s", l->entries[i].name);
    v->file = strdup(file);
    v->tag = t && v->keep == LFA_CLEANUP_TAGGED ? strdup(t->file) : NULL;
    if (v->file == NULL || (v->keep == LFA_CLEANUP_TAGGED && v->tag == NULL))
      st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  }
  for (size_t i = 0; st == LFA_OK && i < p->n_tags; i++) {
    bool found = false;
    for (size_t k = 0; k < l->count && !found; k++) found = l->entries[k].version == p->tags[i].version;
    if (!found) {
      note(p, "FA-CLEAN-1", LFA_CLEANUP_WARNING, NULL, "%s: tags version %" PRIu64 ", which is not in _versions/",
           p->tags[i].file, p->tags[i].version);
    }
  }
  return st;
}

/* ---- candidates: files under this dataset's own _field_assignments/ [FA-CLEAN-6] ---- */

static lfa_status add_object(planner *p, const char *rel, const lfa_fs_stat *s, lfa_error *err) {
  lfa_cleanup_plan *pl = p->plan;
  lfa_status st = grow((void **)&pl->objects, &p->cap_objects, pl->n_objects, sizeof *pl->objects, err);
  if (st != LFA_OK) return st;
  lfa_cleanup_object *o = &pl->objects[pl->n_objects];
  *o = (lfa_cleanup_object){.path = strdup(rel), .size = s->size, .mtime = s->mtime, .dev = s->dev, .ino = s->ino,
                            .tag = s->tag};
  if (o->path == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  pl->n_objects++;
  return LFA_OK;
}

/* Regular files are candidates; directories are walked; symbolic links
 * and anything else are neither followed nor deleted: they could lead out
 * of this dataset's `_field_assignments/`. */
static lfa_status walk_objects(planner *p, const char *rel, unsigned depth, lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX], child[LFA_PATH_BYTES_MAX], full[LFA_PATH_BYTES_MAX];
  lfa_names names = {0};
  if (depth > LFA_CLEANUP_DEPTH_MAX) { /* [FA-LIMIT-1] not listed, so nothing there is deleted: safe */
    note(p, "FA-LIMIT-1", LFA_CLEANUP_INFO, NULL,
         "%s is deeper than LFA_CLEANUP_DEPTH_MAX (%u): not listed, nothing under it is deleted", rel,
         LFA_CLEANUP_DEPTH_MAX);
    return LFA_OK;
  }
  lfa_status st = lfa_fs_join(path, sizeof path, p->dir, rel, err);
  if (st == LFA_OK) st = list_dir(&names, p, path, err);
  for (size_t i = 0; st == LFA_OK && i < names.count; i++) {
    st = lfa_fs_join(child, sizeof child, rel, names.names[i], err);
    if (st == LFA_OK) st = lfa_fs_join(full, sizeof full, p->dir, child, err);
    lfa_fs_stat s;
    if (st != LFA_OK) break;
    st = lfa_fs_stat_in(p->fs, full, 0, &s, err); /* a link is not followed, nor deleted */
    if (st == LFA_OK && s.kind == LFA_FS_DIR) st = walk_objects(p, child, depth + 1, err);
    else if (st == LFA_OK && s.kind == LFA_FS_FILE) st = add_object(p, child, &s, err);
  }
  lfa_fs_names_free(&names);
  return st;
}

static int by_path(const void *a, const void *b) {
  return strcmp(((const lfa_cleanup_object *)a)->path, ((const lfa_cleanup_object *)b)->path);
}

/* A file's identity, for matching references to candidates. */
typedef struct identity {
  uint64_t dev, ino;
  size_t index; /* into plan->objects */
} identity;

static int by_dev_ino(const void *a, const void *b) {
  const identity *x = a, *y = b;
  if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
  return (x->ino > y->ino) - (x->ino < y->ino);
}

static lfa_status index_objects(planner *p, lfa_error *err) {
  lfa_cleanup_plan *pl = p->plan;
  size_t n = pl->n_objects ? pl->n_objects : 1;
  if (pl->n_objects > 1) qsort(pl->objects, pl->n_objects, sizeof *pl->objects, by_path);
  p->by_identity = malloc(n * sizeof *p->by_identity);
  p->source_mark = calloc(n, sizeof *p->source_mark);
  if (p->by_identity == NULL || p->source_mark == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; i < pl->n_objects; i++)
    p->by_identity[i] = (identity){pl->objects[i].dev, pl->objects[i].ino, i};
  if (pl->n_objects > 1) qsort(p->by_identity, pl->n_objects, sizeof *p->by_identity, by_dev_ino);
  return LFA_OK;
}

/* The candidates with this file's identity (several when hard-linked):
 * [*first, *first + *count) of by_identity. */
static void find_identity(size_t *first, size_t *count, const planner *p, uint64_t dev, uint64_t ino) {
  identity key = {dev, ino, 0};
  size_t lo = lfa_lower_bound(&key, p->by_identity, p->plan->n_objects, sizeof *p->by_identity, by_dev_ino), hi;
  *first = lo;
  for (hi = lo; hi < p->plan->n_objects && by_dev_ino(&p->by_identity[hi], &key) == 0;) hi++;
  *count = hi - lo;
}

/* ---- references already followed ---------------------------------------------------------- */

/* Most versions list the bitmaps the version before them listed: once a
 * reference of a dataset's kept (or removed) versions has been followed to
 * an existing file, following it again changes nothing. (A reference to a
 * missing file is not remembered: each version that makes it is said,
 * FA-CLEAN-9.) At most LFA_CLEANUP_OBJECTS_MAX are remembered; past that,
 * references are simply followed again. */
static uint64_t seen_hash(const seen_ref *r) {
  return lfa_hash_text(lfa_hash_u64(lfa_hash_u64(LFA_HASH_START, r->dataset), (uint64_t)r->kind), r->path);
}

static bool same_ref(const void *item, const void *key) {
  const seen_ref *a = item, *b = key;
  return a->dataset == b->dataset && a->kind == b->kind && strcmp(a->path, b->path) == 0;
}

static bool followed_before(const planner *p, const char *path, const visit *v) {
  if (v->kind == VISIT_SOURCE) return false;
  seen_ref r = {path, v->dataset, v->kind};
  return lfa_hash_find(&p->seen, seen_hash(&r), same_ref, &r) != NULL;
}

static void remember(planner *p, const char *path, const visit *v) {
  if (v->kind == VISIT_SOURCE || followed_before(p, path, v)) return;
  size_t n = strlen(path) + 1;
  seen_ref *r = malloc(sizeof *r + n);
  if (r == NULL) return; /* only costs time */
  memcpy(r + 1, path, n);
  *r = (seen_ref){(const char *)(r + 1), v->dataset, v->kind};
  if (lfa_hash_add(&p->seen, seen_hash(r), r, LFA_CLEANUP_OBJECTS_MAX, NULL) != LFA_OK) free(r);
}

static void seen_free(lfa_hash *seen) {
  size_t at = 0;
  for (void *r; (r = lfa_hash_next(seen, &at)) != NULL;) free(r);
  lfa_hash_free(seen);
}

/* ---- whose versions count: this dataset, its branches, the clones named [FA-CLEAN-2] ---- */

static lfa_status add_dataset(planner *p, const char *dir, lfa_cleanup_dataset_kind kind, lfa_error *err) {
  lfa_cleanup_plan *pl = p->plan;
  if (pl->n_datasets >= LFA_CLEANUP_DATASETS_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "%s: more than LFA_CLEANUP_DATASETS_MAX (%u) datasets", dir,
                    LFA_CLEANUP_DATASETS_MAX);
  lfa_status st = grow((void **)&pl->datasets, &p->cap_datasets, pl->n_datasets, sizeof *pl->datasets, err);
  if (st != LFA_OK) return st;
  pl->datasets[pl->n_datasets] = (lfa_cleanup_dataset){.dir = strdup(dir), .kind = kind};
  if (pl->datasets[pl->n_datasets].dir == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  pl->n_datasets++;
  return LFA_OK;
}

/* Names a branch dataset holds beside its own branches' directories. */
static bool dataset_layout_name(const char *name) {
  static const char *const LAYOUT[] = {"_versions", "_transactions", "_deletions", "_indices",
                                       "_field_assignments", "_refs", "data", "tree"};
  for (size_t i = 0; i < sizeof LAYOUT / sizeof LAYOUT[0]; i++)
    if (strcmp(name, LAYOUT[i]) == 0) return true;
  return false;
}

/* Lance keeps branch `a/b` at `tree/a/b/`, a dataset of its own (a shallow
 * clone of its parent): a directory under `tree/` holding `_versions/` is
 * one. Links are followed: branches are only read, and reading one more
 * can only keep more (a loop of links ends at LFA_CLEANUP_DEPTH_MAX). */
static lfa_status walk_branches(planner *p, const char *path, unsigned depth, lfa_error *err) {
  char child[LFA_PATH_BYTES_MAX], versions[LFA_PATH_BYTES_MAX];
  lfa_names names = {0};
  if (depth > LFA_CLEANUP_DEPTH_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "%s: deeper than LFA_CLEANUP_DEPTH_MAX (%u)", path,
                    LFA_CLEANUP_DEPTH_MAX);
  bool branch = false;
  lfa_status st = lfa_fs_join(versions, sizeof versions, path, "_versions", err);
  bool is = false;
  if (st == LFA_OK && depth > 0) st = dir_at(&is, p, versions, 1, err);
  if (st == LFA_OK && is) {
    branch = true;
    st = add_dataset(p, path, LFA_CLEANUP_BRANCH, err);
  }
  if (st == LFA_OK) st = list_dir(&names, p, path, err);
  for (size_t i = 0; st == LFA_OK && i < names.count; i++) {
    if (branch && dataset_layout_name(names.names[i])) continue;
    st = lfa_fs_join(child, sizeof child, path, names.names[i], err);
    if (st == LFA_OK) st = dir_at(&is, p, child, 1, err);
    if (st == LFA_OK && is) st = walk_branches(p, child, depth + 1, err);
  }
  lfa_fs_names_free(&names);
  return st;
}

/* The clones the caller names: each once, and never this dataset itself
 * (its removed versions must not count as kept). */
static lfa_status add_given(planner *p, lfa_error *err) {
  lfa_status st = LFA_OK;
  for (size_t i = 0; st == LFA_OK && i < p->o->n_datasets; i++) {
    const char *d = p->o->datasets[i];
    char *real = lfa_fs_real_path_in(p->fs, d);
    bool seen = real != NULL && p->self_real != NULL && strcmp(real, p->self_real) == 0;
    for (size_t k = 1; real != NULL && !seen && k < p->plan->n_datasets; k++) {
      char *other = lfa_fs_real_path_in(p->fs, p->plan->datasets[k].dir);
      seen = other != NULL && strcmp(other, real) == 0;
      free(other);
    }
    free(real);
    if (!seen) st = add_dataset(p, d, LFA_CLEANUP_GIVEN, err);
  }
  return st;
}

static lfa_status find_datasets(planner *p, lfa_error *err) {
  char tree[LFA_PATH_BYTES_MAX];
  lfa_status st = add_dataset(p, p->dir, LFA_CLEANUP_SELF, err);
  if (st == LFA_OK) st = lfa_fs_join(tree, sizeof tree, p->dir, "tree", err);
  bool is = false;
  if (st == LFA_OK) st = dir_at(&is, p, tree, 1, err);
  if (st == LFA_OK && is) st = walk_branches(p, tree, 0, err);
  if (st == LFA_OK) st = add_given(p, err);
  if (st == LFA_OK && (p->source_checked = calloc(p->plan->n_datasets, sizeof *p->source_checked)) == NULL)
    st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  return st;
}

/* ---- what a version reaches [FA-CLEAN-1] [FA-CLEAN-2] ----------------------------------- */

/* A root, a manifest or a base that cannot be read or resolved. In a kept
 * version it hides which bitmaps are reachable, so nothing is deleted in
 * this run, not even manifests [FA-CLEAN-3]; in a removed version it only leaves the
 * bitmaps it listed unreferenced [FA-CLEAN-4]. */
static void unreadable(planner *p, const visit *v, const char *what, const lfa_error *e) {
  const char *whose = v->dataset == 0 ? "this dataset" : p->plan->datasets[v->dataset].dir;
  char ver[48] = "a manifest outside the version list";
  if (v->has_version) snprintf(ver, sizeof ver, "version %" PRIu64, v->version);
  if (v->kind == VISIT_KEPT) {
    p->plan->blocked = true;
    note(p, "FA-CLEAN-3", LFA_CLEANUP_ERROR, v,
         "%s of %s (kept) cannot be read: %s: %s; nothing is deleted in this run", ver, whose, what,
         e->msg);
  } else if (v->kind == VISIT_REMOVED) {
    note(p, "FA-CLEAN-4", LFA_CLEANUP_INFO, v,
         "%s (removed) cannot be read: %s: %s; the objects only it listed wait for the grace period", ver, what,
         e->msg);
  } else {
    p->marking_failed = true;
    note(p, "FA-CLEAN-7", LFA_CLEANUP_INFO, v, "%s, the source of %s, cannot be read: %s: %s; its reuse is not checked",
         ver, p->plan->datasets[p->marking].dir, what, e->msg);
  }
}

static void reached_by_kept(planner *p, const visit *v, size_t i) {
  lfa_cleanup_object *o = &p->plan->objects[i];
  if (!o->reached_kept) {
    o->reached_kept = o->has_ref = true;
    o->ref_dataset = v->dataset, o->ref_version = v->version;
  }
  /* [FA-CLEAN-7] a clone reuses only what the version it was made from reaches */
  if (v->dataset == 0 || !p->source_checked[v->dataset] || p->source_mark[i] == v->dataset + 1) return;
  p->source_mark[i] = v->dataset + 1; /* said once per object and clone */
  note(p, "FA-CLEAN-7", LFA_CLEANUP_ERROR, v,
       "version %" PRIu64 " of %s reuses %s of this dataset, which version %" PRIu64
       " (the one it was made from) does not reach: only this run's reading of %s keeps it",
       v->version, p->plan->datasets[v->dataset].dir, o->path, p->plan->datasets[v->dataset].source_version,
       p->plan->datasets[v->dataset].dir);
}

/* One reference, resolved to `path`: marks the candidates that are the
 * same file. A reference to a file elsewhere (another dataset's) marks
 * nothing [FA-CLEAN-6]. Says so when a kept version's object is missing
 * [FA-CLEAN-9] and `missing_matters`. */
static void reach(planner *p, const visit *v, const char *path, const char *rel, bool missing_matters) {
  lfa_fs_stat s;
  if (followed_before(p, path, v)) return;
  if (lfa_fs_stat_in(p->fs, path, 1, &s, NULL) != LFA_OK || s.kind != LFA_FS_FILE) {
    /* [FA-CLEAN-3] which file was meant is unknown (a base that moved, a
     * dataset mounted elsewhere): it may be one of ours under another name */
    if (missing_matters && v->kind == VISIT_KEPT) {
      p->plan->blocked = true;
      note(p, "FA-CLEAN-9", LFA_CLEANUP_ERROR, v,
           "references %s, which is not a file here (%s); nothing is deleted in this run [FA-CLEAN-3]", rel, path);
    }
    return;
  }
  remember(p, path, v);
  size_t first, count;
  find_identity(&first, &count, p, s.dev, s.ino);
  for (size_t k = first; k < first + count; k++) {
    size_t i = p->by_identity[k].index;
    lfa_cleanup_object *o = &p->plan->objects[i];
    if (v->kind == VISIT_SOURCE) {
      p->source_mark[i] = p->marking + 1;
    } else if (v->kind == VISIT_KEPT) {
      reached_by_kept(p, v, i);
    } else {
      o->reached_removed = true;
      if (!o->has_ref) o->has_ref = true, o->ref_dataset = v->dataset, o->ref_version = v->version;
    }
  }
}

/* lfa_path_resolve, refusing a base path that is not absolute: it would be
 * resolved against the working directory, which says nothing about where
 * the dataset is, so `cd` alone would change what is deleted [FA-CLEAN-3]. */
static lfa_status resolve(char *path, const visit *v, const Manifest *m, lfa_anchor a, const char *rel,
                          lfa_error *err) {
  for (size_t i = 0; a.has_base_id && i < m->n_base_paths; i++) {
    const char *base = m->base_paths[i]->path;
    if (m->base_paths[i]->id != a.base_id) continue;
    if (strncmp(base, "file://", 7) == 0) base += 7;
    if (base[0] != '/' && strncmp(base, "s3://", 5) != 0)
      return lfa_fail(err, LFA_ERR_IO, "FA-CLEAN-3", "base path %u ('%s') is relative: where it leads is unknown",
                      (unsigned)a.base_id, m->base_paths[i]->path);
  }
  return lfa_path_resolve(path, LFA_PATH_BYTES_MAX, v->ddir, m, a, true, "", rel, err);
}

/* A descriptor's root and every partial it lists, each resolved through
 * bases [FA-STORE-6]: a partial without a base_id inherits its root's, one
 * with a base_id names an entry of this manifest's base_paths [FA-STORE-12]. */
static void visit_root(planner *p, const visit *v, const Manifest *m, const AssignmentFile *rf) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_error e = {0};
  lfa_anchor anchor = {rf->has_base_id, rf->base_id};
  if (resolve(path, v, m, anchor, rf->path, &e) != LFA_OK) {
    unreadable(p, v, rf->path, &e);
    return;
  }
  reach(p, v, path, rf->path, false); /* a missing root is unreadable just below */
  lfa_root *root = NULL;
  /* the one object loader, on the file system cleanup deletes from: the
   * size is checked [FA-STORE-5], and the run's cache lends what it holds */
  lfa_objects at = {p->fs, p->o->cache};
  if (lfa_object_load_root(&root, NULL, at, path, rf, &e) != LFA_OK) {
    unreadable(p, v, rf->path, &e);
    return;
  }
  for (size_t k = 0; k < root->n_fragments; k++) {
    const lfa_root_entry *entry = root->fragments[k];
    if (entry->state_case != LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL) continue; /* all_assigned */
    const AssignmentFile *pf = entry->partial; /* the decoder admits no partial without its file */
    lfa_anchor a = pf->has_base_id ? (lfa_anchor){true, pf->base_id} : anchor;
    if (resolve(path, v, m, a, pf->path, &e) != LFA_OK) {
      lfa_error_prefix(&e, "a partial of root %s", rf->path);
      unreadable(p, v, pf->path, &e);
      continue;
    }
    reach(p, v, path, pf->path, true);
  }
  lfa_object_release(p->o->cache, LFA_OBJECT_ROOT, root);
}

static bool same_file_ref(const AssignmentFile *a, const AssignmentFile *b) {
  return a->size_bytes == b->size_bytes && a->has_base_id == b->has_base_id &&
         (!a->has_base_id || a->base_id == b->base_id) && strcmp(a->path, b->path) == 0;
}

static bool same_bases(const Manifest *a, const Manifest *b) {
  if (a->n_base_paths != b->n_base_paths) return false;
  for (size_t i = 0; i < a->n_base_paths; i++) {
    const Lance__Table__BasePath *x = a->base_paths[i], *y = b->base_paths[i];
    if (x->id != y->id || x->is_dataset_root != y->is_dataset_root || strcmp(x->path, y->path) != 0) return false;
  }
  return true;
}

/* Descriptor i of `m` resolves exactly as the same one of the previous
 * version visited in this pass: nothing new to reach (most commits keep
 * most roots, FA-STORE-10). */
static bool same_root_as_before(const Manifest *prev, const Manifest *m, size_t i) {
  if (prev == NULL || i >= prev->n_field_assignment_states || !same_bases(prev, m)) return false;
  return same_file_ref(prev->field_assignment_states[i]->root, m->field_assignment_states[i]->root);
}

/* The manifest of version file `name`, beside `prev` (NULL: none), the
 * one visited before: what the two share is decoded once (10§5). */
static lfa_status read_manifest(lfa_manifest_file *out, const planner *p, const char *ddir, const char *name,
                                const lfa_manifest_file *prev, lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX], rel[LFA_PATH_BYTES_MAX];
  lfa_buf bytes = {0};
  uint64_t unread = 0;
  memset(out, 0, sizeof *out);
  snprintf(rel, sizeof rel, "_versions/%s", name);
  lfa_status st = lfa_fs_join(path, sizeof path, ddir, rel, err);
  if (st == LFA_OK) st = lfa_manifest_fetch(&bytes, &unread, p->fs, path, NULL, err);
  if (st == LFA_OK) st = lfa_manifest_file_decode_after(out, &bytes, prev, err);
  lfa_buf_free(&bytes);
  return st;
}

/* ---- the version a clone was made from [FA-CLEAN-7] [FA-CLEAN-8] ------------------------- */

/* The Clone operation of a version, from its inline transaction or its
 * `_transactions/` file; NULL when it has none or it cannot be read. */
static const Lance__Table__Transaction__Clone *clone_of(Lance__Table__Transaction **owned, const planner *p,
                                                        const lfa_manifest_file *mf, const char *ddir) {
  const Lance__Table__Transaction *t = mf->transaction;
  *owned = NULL;
  const char *file = mf->manifest->transaction_file;
  if (t == NULL && file != NULL && file[0] != '\0') {
    char path[LFA_PATH_BYTES_MAX];
    lfa_buf bytes = {0};
    lfa_anchor here = {false, 0}; /* [FA-STORE-9] the name stays inside `_transactions/` */
    if (lfa_path_resolve(path, sizeof path, ddir, mf->manifest, here, false, "_transactions", file, NULL) == LFA_OK &&
        lfa_fs_read_in(&bytes, p->fs, path, LFA_TRANSACTION_BYTES_MAX, NULL) == LFA_OK &&
        lfa_transaction_decode(owned, bytes.data, bytes.len, NULL) == LFA_OK)
      t = *owned;
    lfa_buf_free(&bytes);
  }
  return t != NULL && t->operation_case == LANCE__TABLE__TRANSACTION__OPERATION_CLONE ? t->clone : NULL;
}

static void visit_version(planner *p, const visit *v, lfa_manifest_file *prev, const lfa_version_list *own);

/* Marks what version `source` of this dataset reaches, for dataset d's
 * reuse check. Unreadable parts leave the check off: a reuse could not be
 * told from a gap in the marking. */
static void mark_source(planner *p, size_t d, uint64_t source, const lfa_version_list *own) {
  const lfa_version_entry *e = NULL;
  for (size_t i = 0; i < own->count && e == NULL; i++)
    if (own->entries[i].version == source) e = &own->entries[i];
  if (e == NULL) {
    visit at = {d, p->plan->datasets[d].dir, NULL, false, 0, VISIT_SOURCE};
    note(p, "FA-CLEAN-7", LFA_CLEANUP_INFO, &at,
         "%s was made from version %" PRIu64 ", which is no longer in _versions/: its reuse is not checked",
         p->plan->datasets[d].dir, source);
    return;
  }
  visit sv = {0, p->dir, e->name, true, source, VISIT_SOURCE};
  p->marking = d, p->marking_failed = false;
  visit_version(p, &sv, NULL, own);
  p->source_checked[d] = !p->marking_failed;
}

/* Recognizes dataset d as a shallow clone (or branch) of this dataset from
 * its Clone transaction. A deep clone depends on nothing. */
static void find_source(planner *p, const visit *v, const lfa_manifest_file *mf, const lfa_version_list *own) {
  lfa_cleanup_dataset *d = &p->plan->datasets[v->dataset];
  if (d->has_source_version) return;
  Lance__Table__Transaction *owned = NULL;
  const Lance__Table__Transaction__Clone *c = clone_of(&owned, p, mf, v->ddir);
  char *real = c != NULL && c->is_shallow && c->ref_path != NULL ? lfa_fs_real_path_in(p->fs, c->ref_path) : NULL;
  bool ours = real != NULL && p->self_real != NULL && strcmp(real, p->self_real) == 0;
  free(real);
  if (ours) d->has_source_version = true, d->source_version = c->ref_version;
  lfa_transaction_free(owned);
  if (!ours) return;
  /* [FA-CLEAN-8] a clone this dataset does not know is safe only from a tagged version */
  if (d->kind == LFA_CLEANUP_GIVEN && tag_of(p, d->source_version) == NULL)
    note(p, "FA-CLEAN-8", LFA_CLEANUP_WARNING, v,
         "%s is a shallow clone of version %" PRIu64 ", which no tag keeps: a cleanup not told about the clone "
         "may remove what it reads",
         d->dir, d->source_version);
  mark_source(p, v->dataset, d->source_version, own);
}

/* ---- visiting versions ---------------------------------------------------------------------- */

/* Reads one version's manifest and visits its roots. `prev` (may be NULL)
 * holds the manifest visited before in this pass, and is replaced. */
static void visit_version(planner *p, const visit *v, lfa_manifest_file *prev, const lfa_version_list *own) {
  lfa_manifest_file mf;
  lfa_error e = {0};
  if (read_manifest(&mf, p, v->ddir, v->name, prev, &e) != LFA_OK) {
    unreadable(p, v, "its manifest", &e);
    return;
  }
  if (v->dataset > 0 && v->kind == VISIT_KEPT) find_source(p, v, &mf, own);
  const Manifest *m = mf.manifest, *pm = prev != NULL ? prev->manifest : NULL;
  for (size_t i = 0; i < m->n_field_assignment_states; i++)
    if (!same_root_as_before(pm, m, i)) visit_root(p, v, m, m->field_assignment_states[i]->root);
  if (prev == NULL) {
    lfa_manifest_file_free(&mf);
    return;
  }
  lfa_manifest_file_free(prev);
  *prev = mf;
}

/* Manifests under `_versions/` that are not listed versions (detached
 * versions `d<n>.manifest`, a legacy `_latest.manifest`) are never
 * removed here, and what they reach is kept. */
static void visit_unlisted(planner *p, size_t d, const char *ddir, const lfa_names *names,
                           const lfa_version_list *own) {
  for (size_t i = 0; i < names->count; i++) {
    uint64_t ignored;
    const char *name = names->names[i];
    if (!ends_with(name, ".manifest") || lfa_version_parse_name(&ignored, name) != LFA_NAMING_NONE) continue;
    visit v = {d, ddir, name, false, 0, VISIT_KEPT};
    visit_version(p, &v, NULL, own);
  }
}

/* Which versions a pass over this dataset visits: kept ones, or removed. */
typedef struct pass {
  const planner *p;
  visit_kind kind;
} pass;

static bool in_pass(const void *arg, size_t i) {
  const pass *x = arg;
  return (x->p->plan->versions[i].keep == LFA_CLEANUP_REMOVED) == (x->kind == VISIT_REMOVED);
}

/* This dataset's kept versions, or its removed ones. */
static void visit_self(planner *p, const lfa_version_list *l, const lfa_names *names, visit_kind kind) {
  lfa_manifest_file prev = {0};
  pass x = {p, kind};
  for (size_t i = 0; i < l->count; i++) {
    if (i % LFA_MANIFEST_PREFETCH_BATCH == 0) /* fetched ahead, on an object store several at a time */
      lfa_dataset_prefetch_manifests(p->fs, p->dir, l, i, LFA_MANIFEST_PREFETCH_BATCH, in_pass, &x);
    if ((p->plan->versions[i].keep == LFA_CLEANUP_REMOVED) != (kind == VISIT_REMOVED)) continue;
    visit v = {0, p->dir, l->entries[i].name, true, l->entries[i].version, kind};
    visit_version(p, &v, &prev, l);
  }
  lfa_manifest_file_free(&prev);
  if (kind == VISIT_KEPT) visit_unlisted(p, 0, p->dir, names, l);
}

/* Every version of a branch or clone counts as kept: cleaning this
 * dataset removes none of them [FA-CLEAN-1] [FA-CLEAN-2]. */
static lfa_status visit_other(planner *p, size_t d, const lfa_version_list *own, lfa_error *err) {
  lfa_version_list l;
  lfa_names names;
  lfa_error e = {0};
  const char *ddir = p->plan->datasets[d].dir;
  if (lfa_dataset_versions(&l, &names, p->fs, ddir, &e) != LFA_OK) {
    if (e.status == LFA_ERR_NOMEM) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "%s", e.msg);
    visit at = {d, ddir, NULL, false, 0, VISIT_KEPT};
    p->plan->blocked = true;
    note(p, "FA-CLEAN-3", LFA_CLEANUP_ERROR, &at,
         "the versions of %s cannot be listed: %s; nothing is deleted in this run", ddir, e.msg);
    return LFA_OK;
  }
  p->plan->datasets[d].n_versions = l.count;
  lfa_manifest_file prev = {0};
  for (size_t i = 0; i < l.count; i++) {
    if (i % LFA_MANIFEST_PREFETCH_BATCH == 0)
      lfa_dataset_prefetch_manifests(p->fs, ddir, &l, i, LFA_MANIFEST_PREFETCH_BATCH, NULL, NULL);
    visit v = {d, ddir, l.entries[i].name, true, l.entries[i].version, VISIT_KEPT};
    visit_version(p, &v, &prev, own);
  }
  lfa_manifest_file_free(&prev);
  visit_unlisted(p, d, ddir, &names, own);
  lfa_version_list_free(&l);
  lfa_fs_names_free(&names);
  return LFA_OK;
}

/* ---- verdicts [FA-CLEAN-5] [FA-CLEAN-3] ------------------------------------------------------ */

/* Older than the grace period: now - mtime > grace (an mtime in the
 * future is young). */
static bool expired(const lfa_cleanup_plan *pl, int64_t mtime) {
  if (mtime >= pl->now) return false;
  uint64_t age = (uint64_t)pl->now - (uint64_t)mtime; /* exact: 0 < now - mtime < 2^64 */
  return age > pl->grace_seconds;
}

/* [FA-CLEAN-3] a blocked plan deletes nothing: the versions it would
 * remove are held too, so that what the plan says is what a run does. */
static void decide_versions_held(lfa_cleanup_plan *pl) {
  for (size_t i = 0; pl->blocked && i < pl->n_versions; i++)
    if (pl->versions[i].keep == LFA_CLEANUP_REMOVED) pl->versions[i].keep = LFA_CLEANUP_HELD;
}

static void decide_objects(lfa_cleanup_plan *pl) {
  for (size_t i = 0; i < pl->n_objects; i++) {
    lfa_cleanup_object *o = &pl->objects[i];
    if (o->reached_kept) o->verdict = LFA_CLEANUP_KEEP_REACHABLE;
    else if (o->reached_removed) o->verdict = LFA_CLEANUP_DELETE_REMOVED; /* no attempt can be about to use it */
    else o->verdict = expired(pl, o->mtime) ? LFA_CLEANUP_DELETE_EXPIRED : LFA_CLEANUP_KEEP_YOUNG;
    if (pl->blocked && lfa_cleanup_deletes(o->verdict)) o->verdict = LFA_CLEANUP_KEEP_BLOCKED;
  }
}

/* ---- the plan -------------------------------------------------------------------------------- */

/* [FA-CLEAN-6] Manifests are deleted only in this dataset's own
 * `_versions/`: a link in its place leads to another dataset's versions. */
static void check_versions_dir(planner *p) {
  char path[LFA_PATH_BYTES_MAX];
  if (lfa_fs_join(path, sizeof path, p->dir, "_versions", NULL) == LFA_OK && is_real_dir(p, path)) return;
  p->plan->blocked = true;
  note(p, "FA-CLEAN-6", LFA_CLEANUP_ERROR, NULL,
       "_versions is not a directory of this dataset (a symbolic link?): nothing is deleted through it");
}

static lfa_status find_objects(planner *p, lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_status st = lfa_fs_join(path, sizeof path, p->dir, "_field_assignments", err);
  /* a link in place of the directory leads elsewhere: nothing there is this dataset's */
  bool is = false;
  if (st == LFA_OK) st = dir_at(&is, p, path, 0, err);
  if (st == LFA_OK && is) st = walk_objects(p, "_field_assignments", 0, err);
  if (st == LFA_OK) st = index_objects(p, err);
  return st;
}

/* [FA-CLEAN-14] lfa's own temporaries among the names of `_versions/`:
 * regular files only (a link is neither followed nor deleted). Their age
 * is known only where the file system keeps times; elsewhere none expires. */
static lfa_status find_temporaries(planner *p, const lfa_names *names, lfa_error *err) {
  lfa_cleanup_plan *pl = p->plan;
  char rel[LFA_PATH_BYTES_MAX], path[LFA_PATH_BYTES_MAX];
  lfa_status st = LFA_OK;
  bool ages = (lfa_fs_caps(p->fs) & LFA_FS_CAP_MTIME) != 0;
  for (size_t i = 0; st == LFA_OK && i < names->count; i++) {
    if (!lfa_version_is_lfa_temporary(names->names[i])) continue;
    lfa_fs_stat s;
    snprintf(rel, sizeof rel, "_versions/%s", names->names[i]);
    st = lfa_fs_join(path, sizeof path, p->dir, rel, err);
    if (st == LFA_OK) st = lfa_fs_stat_in(p->fs, path, 0, &s, err);
    if (st != LFA_OK || s.kind != LFA_FS_FILE) continue;
    lfa_cleanup_temporary *g = realloc(pl->temporaries, (pl->n_temporaries + 1) * sizeof *g);
    if (g == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
    pl->temporaries = g;
    g[pl->n_temporaries] = (lfa_cleanup_temporary){strdup(rel), s.size, s.mtime, s.dev, s.ino, s.tag,
                                                   ages && expired(pl, s.mtime)};
    if (g[pl->n_temporaries].path == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
    pl->n_temporaries++;
  }
  return st;
}

static void planner_free(planner *p) {
  for (size_t i = 0; i < p->n_tags; i++) free(p->tags[i].file);
  free(p->tags);
  free(p->by_identity);
  free(p->source_mark);
  free(p->source_checked);
  free(p->self_real);
  seen_free(&p->seen);
}

lfa_status lfa_cleanup_plan_make(lfa_cleanup_plan *out, const char *dir, const lfa_cleanup_options *options,
                                 lfa_error *err) {
  memset(out, 0, sizeof *out);
  planner p = {.dir = dir, .fs = options->fs != NULL ? options->fs : lfa_fs_posix(), .o = options, .plan = out};
  lfa_version_list l = {0};
  lfa_names names = {0};
  out->now = options->now, out->grace_seconds = options->grace_seconds, out->fs = p.fs;
  lfa_status st = (out->dir = strdup(dir)) == NULL ? lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory") : LFA_OK;
  if (st == LFA_OK) st = lfa_dataset_versions(&l, &names, p.fs, dir, err);
  p.self_real = lfa_fs_real_path_in(p.fs, dir);
  if (st == LFA_OK) st = read_tags(&p, err);
  if (st == LFA_OK) st = decide_versions(&p, &l, err);
  if (st == LFA_OK) check_versions_dir(&p);
  if (st == LFA_OK) st = find_temporaries(&p, &names, err);
  if (st == LFA_OK) st = find_objects(&p, err);
  if (st == LFA_OK) st = find_datasets(&p, err);
  if (st == LFA_OK) visit_self(&p, &l, &names, VISIT_KEPT);
  for (size_t d = 1; st == LFA_OK && d < out->n_datasets; d++) st = visit_other(&p, d, &l, err);
  if (st == LFA_OK) visit_self(&p, &l, &names, VISIT_REMOVED);
  if (st == LFA_OK) out->datasets[0].n_versions = l.count;
  if (st == LFA_OK) decide_versions_held(out), decide_objects(out);
  if (st == LFA_OK && p.nomem) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory recording a cleanup note");
  planner_free(&p);
  lfa_version_list_free(&l);
  lfa_fs_names_free(&names);
  return st;
}

void lfa_cleanup_plan_free(lfa_cleanup_plan *pl) {
  for (size_t i = 0; i < pl->n_versions; i++) free(pl->versions[i].file), free(pl->versions[i].tag);
  for (size_t i = 0; i < pl->n_datasets; i++) free(pl->datasets[i].dir);
  for (size_t i = 0; i < pl->n_objects; i++) free(pl->objects[i].path);
  for (size_t i = 0; i < pl->n_temporaries; i++) free(pl->temporaries[i].path);
  free(pl->temporaries);
  for (size_t i = 0; i < pl->n_notes; i++) free(pl->notes[i].file), free(pl->notes[i].message);
  free(pl->versions);
  free(pl->datasets);
  free(pl->objects);
  free(pl->notes);
  free(pl->dir);
  memset(pl, 0, sizeof *pl);
}

bool lfa_cleanup_deletes(lfa_cleanup_verdict verdict) {
  return verdict == LFA_CLEANUP_DELETE_REMOVED || verdict == LFA_CLEANUP_DELETE_EXPIRED;
}

const char *lfa_cleanup_verdict_name(lfa_cleanup_verdict verdict) {
  switch (verdict) {
    case LFA_CLEANUP_KEEP_REACHABLE: return "reachable";
    case LFA_CLEANUP_KEEP_YOUNG: return "young";
    case LFA_CLEANUP_KEEP_BLOCKED: return "blocked";
    case LFA_CLEANUP_DELETE_REMOVED: return "removed_only";
    case LFA_CLEANUP_DELETE_EXPIRED: return "expired";
  }
  return "?";
}

const char *lfa_cleanup_verdict_rule(lfa_cleanup_verdict verdict) {
  if (verdict == LFA_CLEANUP_KEEP_REACHABLE) return "FA-CLEAN-1";
  return verdict == LFA_CLEANUP_KEEP_BLOCKED ? "FA-CLEAN-3" : "FA-CLEAN-5";
}

const char *lfa_cleanup_keep_name(lfa_cleanup_keep keep) {
  switch (keep) {
    case LFA_CLEANUP_REMOVED: return "removed";
    case LFA_CLEANUP_LATEST: return "latest";
    case LFA_CLEANUP_TAGGED: return "tagged";
    case LFA_CLEANUP_LISTED: return "listed";
    case LFA_CLEANUP_RETAINED: return "retained";
    case LFA_CLEANUP_HELD: return "blocked";
  }
  return "?";
}

const char *lfa_cleanup_level_name(lfa_cleanup_level level) {
  return level == LFA_CLEANUP_ERROR ? "error" : level == LFA_CLEANUP_WARNING ? "warning" : "info";
}

/* ---- execution -------------------------------------------------------------------------------- */

/* Counts one outcome. */
static void count_outcome(lfa_cleanup_done *out, size_t *deleted, lfa_fs_removed r, uint64_t size) {
  if (r == LFA_FS_REMOVED) ++*deleted, out->bytes_deleted += size;
  else if (r == LFA_FS_GONE) out->already_gone++;
  else out->changed++;
}

/* True when `_versions/` lists a version past the plan's newest: a commit
 * since the plan, whose writer may reuse what the plan would delete. An
 * unreadable listing counts as one. */
static bool committed_since(const lfa_cleanup_plan *pl) {
  lfa_version_list l;
  lfa_names names;
  if (lfa_dataset_versions(&l, &names, pl->fs, pl->dir, NULL) != LFA_OK) return true;
  bool newer = pl->n_versions == 0 || l.count == 0 ||
               l.entries[l.count - 1].version != pl->versions[pl->n_versions - 1].version;
  lfa_version_list_free(&l);
  lfa_fs_names_free(&names);
  return newer;
}

lfa_status lfa_cleanup_execute(lfa_cleanup_done *out, const lfa_cleanup_plan *pl, lfa_error *err) {
  memset(out, 0, sizeof *out);
  lfa_status st = LFA_OK;
  uint64_t size = 0;
  lfa_fs_removed r = LFA_FS_GONE;
  if (pl->blocked) return LFA_OK; /* [FA-CLEAN-3] */
  /* manifests first: a version still listed never loses an object it references [FA-CLEAN-9] */
  for (size_t i = 0; st == LFA_OK && i < pl->n_versions; i++) {
    const lfa_cleanup_version *v = &pl->versions[i];
    if (v->keep != LFA_CLEANUP_REMOVED) continue;
    st = lfa_fs_remove_beneath_in(pl->fs, &r, &size, pl->dir, v->file, NULL, err);
    if (st == LFA_OK) count_outcome(out, &out->manifests_deleted, r, 0);
    else lfa_error_prefix(err, "version %" PRIu64, v->version);
  }
  bool any = false;
  for (size_t i = 0; i < pl->n_objects; i++) any |= lfa_cleanup_deletes(pl->objects[i].verdict);
  /* [FA-CLEAN-11] no object is deleted once a version was committed after
   * the plan: checked before the first deletion and again every
   * LFA_CLEANUP_RECHECK_EVERY deletions, so a writer that commits during a
   * long run stops it there */
  size_t since_check = LFA_CLEANUP_RECHECK_EVERY;
  for (size_t i = 0; st == LFA_OK && any && !out->new_versions && i < pl->n_objects; i++) {
    const lfa_cleanup_object *o = &pl->objects[i];
    if (!lfa_cleanup_deletes(o->verdict)) continue;
    if (since_check++ >= LFA_CLEANUP_RECHECK_EVERY) {
      since_check = 1;
      if (committed_since(pl)) {
        out->new_versions = true;
        break;
      }
    }
    lfa_fs_stat expect = {LFA_FS_FILE, o->size, o->mtime, o->dev, o->ino, o->tag};
    st = lfa_fs_remove_beneath_in(pl->fs, &r, &size, pl->dir, o->path, &expect, err);
    if (st == LFA_OK) count_outcome(out, &out->objects_deleted, r, size);
  }
  /* [FA-CLEAN-14] lfa's stale temporaries: referenced by nothing, each still the file planned */
  for (size_t i = 0; st == LFA_OK && i < pl->n_temporaries; i++) {
    const lfa_cleanup_temporary *t = &pl->temporaries[i];
    if (!t->expired) continue;
    lfa_fs_stat expect = {LFA_FS_FILE, t->size, t->mtime, t->dev, t->ino, t->tag};
    st = lfa_fs_remove_beneath_in(pl->fs, &r, &size, pl->dir, t->path, &expect, err);
    if (st == LFA_OK) count_outcome(out, &out->temporaries_deleted, r, size);
  }
  return st;
}
