/* memfs.c: the in-memory file system and its container (lfa/memfs.h).
 *
 * Entries are kept in one array sorted by normalized name, so a lookup is a
 * binary search and a directory listing is the run of names after
 * "<dir>/". Directories are implied by the files under them, except those
 * make_dir creates (a writer's claim on its dataset directory). */
#include "lfa/memfs.h"

#include <stdlib.h>
#include <string.h>

#include "lfa/hash.h"
#include "lfa/limits.h"
#include "lfa/search.h"

enum { VARINT_BYTES_MAX = 10 }; /* 64 bits in 7-bit groups */

/* ---- paths ---------------------------------------------------------------------------- */

/* The normalized form of `path` in out[LFA_PATH_BYTES_MAX]: its segments
 * other than "" and ".", joined by '/'. "" is the root. */
static lfa_status normalize(char *out, const char *path, lfa_error *err) {
  size_t n = strlen(path), used = 0;
  if (n >= LFA_PATH_BYTES_MAX) return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "path too long: %.64s...", path);
  for (const char *p = path; *p != '\0';) {
    size_t seg = strcspn(p, "/");
    bool skip = seg == 0 || (seg == 1 && p[0] == '.');
    if (!skip) {
      if (used > 0) out[used++] = '/';
      memcpy(out + used, p, seg);
      used += seg;
    }
    p += seg;
    if (*p == '/') p++;
  }
  out[used] = '\0'; /* used <= n < LFA_PATH_BYTES_MAX: a normalized path is never longer */
  return LFA_OK;
}

/* The first entry whose name is not below `key` (strcmp order). */
static int entry_by_name(const void *key, const void *e) { return strcmp((const char *)key, ((const lfa_memfs_entry *)e)->name); }

static size_t lower_bound(const lfa_memfs *m, const char *key) {
  return lfa_lower_bound(key, m->entries, m->count, sizeof *m->entries, entry_by_name);
}

/* The index of the entry named exactly `key`, or SIZE_MAX. */
static size_t find_exact(const lfa_memfs *m, const char *key) {
  size_t i = lower_bound(m, key);
  return i < m->count && strcmp(m->entries[i].name, key) == 0 ? i : SIZE_MAX;
}

/* True when some entry is below directory `key` ("" is the root). */
static bool has_under(const lfa_memfs *m, const char *key) {
  if (key[0] == '\0') return m->count > 0;
  char prefix[LFA_PATH_BYTES_MAX + 1];
  size_t n = strlen(key);
  memcpy(prefix, key, n);
  prefix[n] = '/', prefix[n + 1] = '\0';
  size_t i = lower_bound(m, prefix);
  return i < m->count && strncmp(m->entries[i].name, prefix, n + 1) == 0;
}

/* has_under for a non-root `key` whose lower_bound is `at`. The names
 * under "<key>/" are one run after `key`, and only `key` itself and names
 * "<key>" + a byte below '/' sort between: so the first name past `key`
 * tells, unless it is such a name (then the search decides). */
static bool has_under_at(const lfa_memfs *m, const char *key, size_t at) {
  size_t n = strlen(key);
  if (at < m->count && strcmp(m->entries[at].name, key) == 0) at++;
  if (at >= m->count || strncmp(m->entries[at].name, key, n) != 0) return false;
  char next = m->entries[at].name[n];
  return next == '/' || (next < '/' && has_under(m, key));
}

static bool is_file(const lfa_memfs *m, const char *key) {
  size_t i = find_exact(m, key);
  return i != SIZE_MAX && !m->entries[i].dir;
}

static bool is_dir_key(const lfa_memfs *m, const char *key) {
  if (key[0] == '\0') return true; /* the root always exists */
  size_t i = find_exact(m, key);
  return (i != SIZE_MAX && m->entries[i].dir) || has_under(m, key);
}

static bool exists_key(const lfa_memfs *m, const char *key) { return is_file(m, key) || is_dir_key(m, key); }

/* True when a proper ancestor of `key` is a file. Fast path: a parent with
 * entries under it is a directory, and so is each of its ancestors, since
 * nothing is ever put below a file (check_new_file here, the same check in
 * the container decoder). The names under the parent are one run of the
 * sorted entries and `key` sorts inside or just past it, so the two
 * neighbours of its insertion point `at` tell whether the run is empty. */
static bool file_above(const lfa_memfs *m, const char *key, size_t at) {
  const char *slash = strrchr(key, '/');
  if (slash == NULL) return false; /* only the root is above, a directory */
  size_t under = (size_t)(slash - key) + 1;
  if ((at < m->count && strncmp(m->entries[at].name, key, under) == 0) ||
      (at > 0 && strncmp(m->entries[at - 1].name, key, under) == 0))
    return false;
  char up[LFA_PATH_BYTES_MAX];
  size_t n = strlen(key);
  memcpy(up, key, n + 1);
  for (size_t i = n; i-- > 0;) {
    if (up[i] != '/') continue;
    up[i] = '\0';
    if (is_file(m, up)) return true;
  }
  return false;
}

/* ---- entries ------------------------------------------------------------------------------ */

/* Room for one more entry, within LFA_MEMFS_FILES_MAX. */
static lfa_status reserve(lfa_memfs *m, lfa_error *err) {
  if (m->count >= LFA_MEMFS_FILES_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, NULL, "more than %u files in memory", LFA_MEMFS_FILES_MAX);
  if (m->count < m->cap) return LFA_OK;
  size_t cap = m->cap ? 2 * m->cap : 16;
  lfa_memfs_entry *grown = realloc(m->entries, cap * sizeof *grown);
  if (grown == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory for a file entry");
  m->entries = grown, m->cap = cap;
  return LFA_OK;
}

static lfa_status check_bytes(const lfa_memfs *m, uint64_t removed, size_t added, lfa_error *err) {
  if (added > LFA_MEMFS_BYTES_MAX || m->bytes - removed > LFA_MEMFS_BYTES_MAX - added)
    return lfa_fail(err, LFA_ERR_LIMIT, NULL, "more than %u bytes of files in memory", LFA_MEMFS_BYTES_MAX);
  return LFA_OK;
}

static char *copy_name(const char *key) {
  size_t n = strlen(key) + 1;
  char *s = malloc(n);
  if (s != NULL) memcpy(s, key, n);
  return s;
}

/* Inserts a new entry `key` at its sorted place `at` (its lower_bound);
 * the caller checked that none exists. */
static lfa_status insert(lfa_memfs *m, const char *key, size_t at, bool dir, const uint8_t *data, size_t len,
                         lfa_error *err) {
  lfa_status st = reserve(m, err);
  if (st == LFA_OK) st = check_bytes(m, 0, len, err);
  if (st != LFA_OK) return st;
  lfa_memfs_entry e = {copy_name(key), dir, m->serial + 1, {0}};
  if (e.name == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory for %s", key);
  if (len > 0 && (st = lfa_buf_append(&e.data, data, len, err)) != LFA_OK) {
    free(e.name);
    return st;
  }
  memmove(&m->entries[at + 1], &m->entries[at], (m->count - at) * sizeof *m->entries);
  m->entries[at] = e;
  m->count++, m->serial++;
  m->bytes += len;
  return LFA_OK;
}

uint64_t lfa_memfs_mark(const lfa_memfs *m) { return m->serial; }

void lfa_memfs_rewind(lfa_memfs *m, uint64_t mark) {
  size_t kept = 0;
  for (size_t i = 0; i < m->count; i++) {
    lfa_memfs_entry *e = &m->entries[i];
    if (e->serial <= mark) {
      m->entries[kept++] = *e;
      continue;
    }
    m->bytes -= e->data.len;
    free(e->name);
    lfa_buf_free(&e->data);
  }
  m->count = kept, m->serial = mark;
}

static void remove_at(lfa_memfs *m, size_t i) {
  m->bytes -= m->entries[i].data.len;
  free(m->entries[i].name);
  lfa_buf_free(&m->entries[i].data);
  memmove(&m->entries[i], &m->entries[i + 1], (m->count - i - 1) * sizeof *m->entries);
  m->count--;
}

/* Where a new file `key` (lower_bound `at`) may go: not the root, not a
 * directory, nothing but directories above it. */
static lfa_status check_new_file(const lfa_memfs *m, const char *key, size_t at, const char *path, lfa_error *err) {
  if (key[0] == '\0') return lfa_fail(err, LFA_ERR_IO, NULL, "%s: is the root directory", path);
  bool dir = at < m->count && m->entries[at].dir && strcmp(m->entries[at].name, key) == 0;
  if (dir || has_under_at(m, key, at)) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: is a directory", path);
  if (file_above(m, key, at))
    return lfa_fail(err, LFA_ERR_IO, NULL, "%s: a file stands where a directory should", path);
  return LFA_OK;
}

/* ---- the operations of the lfa_fs ---------------------------------------------------------- */

/* The content of the file at `path`, or an I/O error. */
static lfa_status file_data(const lfa_buf **out, const lfa_memfs *m, const char *path, lfa_error *err) {
  char key[LFA_PATH_BYTES_MAX];
  lfa_status st = normalize(key, path, err);
  if (st != LFA_OK) return st;
  size_t i = find_exact(m, key);
  if (i == SIZE_MAX || m->entries[i].dir) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: no such file", path);
  *out = &m->entries[i].data;
  return LFA_OK;
}

static lfa_status mem_read(void *ctx, lfa_buf *out, const char *path, size_t max_bytes, lfa_error *err) {
  const lfa_buf *d = NULL;
  memset(out, 0, sizeof *out);
  lfa_status st = file_data(&d, ctx, path, err);
  if (st != LFA_OK) return st;
  if (d->len > max_bytes) /* as the POSIX read: checked before anything is copied */
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "%s: %zu bytes exceeds the limit of %zu", path, d->len, max_bytes);
  st = lfa_buf_append(out, d->data, d->len, err);
  if (st != LFA_OK) lfa_buf_free(out);
  return st;
}

static int mem_size(void *ctx, const char *path, uint64_t *size) {
  const lfa_memfs *m = ctx;
  char key[LFA_PATH_BYTES_MAX];
  if (normalize(key, path, NULL) != LFA_OK) return 0;
  size_t i = find_exact(m, key);
  if (i == SIZE_MAX || m->entries[i].dir) return 0;
  *size = m->entries[i].data.len;
  return 1;
}

static int mem_exists(void *ctx, const char *path) {
  char key[LFA_PATH_BYTES_MAX];
  return normalize(key, path, NULL) == LFA_OK && exists_key(ctx, key);
}

static int mem_is_dir(void *ctx, const char *path) {
  char key[LFA_PATH_BYTES_MAX];
  return normalize(key, path, NULL) == LFA_OK && is_dir_key(ctx, key);
}


/* Appends the first segment of `rest` (a name below the listed directory)
 * unless it is the last one listed: entries are sorted, so repeats of one
 * child are neighbours except across names like "b-x" and "b/x", which
 * the final sort and the check in mem_list remove. */
static lfa_status push_child(lfa_names *out, const char *rest, lfa_error *err) {
  size_t n = strcspn(rest, "/");
  if (out->count > 0) {
    const char *last = out->names[out->count - 1];
    if (strlen(last) == n && strncmp(last, rest, n) == 0) return LFA_OK;
  }
  char *name = malloc(n + 1);
  char **grown = realloc(out->names, (out->count + 1) * sizeof *grown);
  if (grown != NULL) out->names = grown;
  if (name == NULL || grown == NULL) {
    free(name);
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot list a directory");
  }
  memcpy(name, rest, n);
  name[n] = '\0';
  out->names[out->count++] = name;
  return LFA_OK;
}

static lfa_status mem_list(void *ctx, lfa_names *out, const char *dir, int missing_ok, lfa_error *err) {
  const lfa_memfs *m = ctx;
  char key[LFA_PATH_BYTES_MAX + 1]; /* + 1: room for the '/' appended below */
  memset(out, 0, sizeof *out);
  lfa_status st = normalize(key, dir, err);
  if (st != LFA_OK) return st;
  if (is_file(m, key)) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: not a directory", dir);
  if (!is_dir_key(m, key)) return missing_ok ? LFA_OK : lfa_fail(err, LFA_ERR_IO, NULL, "%s: no such directory", dir);
  /* the names below "<key>/" are one run of the sorted entries */
  size_t n = strlen(key), skip = n ? n + 1 : 0, first = 0;
  if (n > 0) {
    key[n] = '/', key[n + 1] = '\0'; /* n < LFA_PATH_BYTES_MAX */
    first = lower_bound(m, key);
  }
  for (size_t i = first; st == LFA_OK && i < m->count; i++) {
    const char *name = m->entries[i].name;
    if (n > 0 && strncmp(name, key, n + 1) != 0) break;
    st = push_child(out, name + skip, err);
  }
  if (st != LFA_OK) {
    lfa_fs_names_free(out);
    return st;
  }
  lfa_fs_names_sort_unique(out);
  return LFA_OK;
}

static lfa_status mem_write_new(void *ctx, const char *path, const uint8_t *data, size_t len, lfa_error *err) {
  lfa_memfs *m = ctx;
  char key[LFA_PATH_BYTES_MAX];
  lfa_status st = normalize(key, path, err);
  if (st != LFA_OK) return st;
  size_t at = lower_bound(m, key);
  /* [FA-STORE-8] create-only, as O_EXCL: an object path, once written, is never replaced */
  if (at < m->count && !m->entries[at].dir && strcmp(m->entries[at].name, key) == 0)
    return lfa_fail(err, LFA_ERR_IO, "FA-STORE-8", "%s: file exists", path);
  st = check_new_file(m, key, at, path, err);
  return st == LFA_OK ? insert(m, key, at, false, data, len, err) : st;
}

static lfa_status mem_make_dir(void *ctx, const char *path, lfa_error *err) {
  lfa_memfs *m = ctx;
  char key[LFA_PATH_BYTES_MAX], parent[LFA_PATH_BYTES_MAX];
  lfa_status st = normalize(key, path, err);
  if (st != LFA_OK) return st;
  if (key[0] == '\0') { /* the root: claimed once, while empty */
    if (m->root_claimed || m->count > 0) return lfa_fail(err, LFA_ERR_USAGE, NULL, "%s already exists", path);
    m->root_claimed = true;
    return LFA_OK;
  }
  if (exists_key(m, key)) return lfa_fail(err, LFA_ERR_USAGE, NULL, "%s already exists", path);
  const char *slash = strrchr(key, '/');
  size_t n = slash ? (size_t)(slash - key) : 0;
  memcpy(parent, key, n);
  parent[n] = '\0';
  if (!is_dir_key(m, parent)) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: no such parent directory", path);
  return insert(m, key, lower_bound(m, key), true, NULL, 0, err);
}

static lfa_status mem_read_range(void *ctx, lfa_buf *out, const char *path, uint64_t offset, size_t len,
                                 uint64_t *total, lfa_error *err) {
  const lfa_buf *d = NULL;
  memset(out, 0, sizeof *out);
  lfa_status st = file_data(&d, ctx, path, err);
  if (st != LFA_OK) return st;
  *total = d->len;
  if (offset > d->len) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: byte %llu is past its end", path, (unsigned long long)offset);
  size_t n = d->len - (size_t)offset < len ? d->len - (size_t)offset : len;
  if (n > 0) st = lfa_buf_append(out, d->data + offset, n, err);
  if (st != LFA_OK) lfa_buf_free(out);
  return st;
}

/* A name's identity in a memfs: its hash (there are no links, one name per file). */
static uint64_t name_identity(const char *key) { return lfa_hash_text(LFA_HASH_START, key); }

static lfa_status mem_stat(void *ctx, const char *path, int follow, lfa_fs_stat *out, lfa_error *err) {
  const lfa_memfs *m = ctx;
  char key[LFA_PATH_BYTES_MAX];
  (void)follow; /* no links */
  memset(out, 0, sizeof *out);
  lfa_status st = normalize(key, path, err);
  if (st != LFA_OK) return st;
  size_t i = find_exact(m, key);
  if (i != SIZE_MAX && !m->entries[i].dir) {
    *out = (lfa_fs_stat){LFA_FS_FILE, m->entries[i].data.len, 0, 0, name_identity(key), 0};
  } else if (is_dir_key(m, key)) {
    out->kind = LFA_FS_DIR, out->ino = name_identity(key);
  }
  return LFA_OK;
}

static lfa_status mem_remove_beneath(void *ctx, lfa_fs_removed *outcome, uint64_t *size, const char *dir,
                                     const char *rel, const lfa_fs_stat *expect, lfa_error *err) {
  lfa_memfs *m = ctx;
  char path[LFA_PATH_BYTES_MAX], key[LFA_PATH_BYTES_MAX];
  *size = 0;
  lfa_status st = lfa_fs_join(path, sizeof path, dir, rel, err);
  if (st == LFA_OK) st = normalize(key, path, err);
  if (st != LFA_OK) return st;
  size_t i = find_exact(m, key);
  if (i == SIZE_MAX || m->entries[i].dir) {
    *outcome = i == SIZE_MAX && !is_dir_key(m, key) ? LFA_FS_GONE : LFA_FS_CHANGED;
    return LFA_OK;
  }
  if (expect != NULL && (expect->ino != name_identity(key) || expect->size != m->entries[i].data.len)) {
    *outcome = LFA_FS_CHANGED;
    return LFA_OK;
  }
  *size = m->entries[i].data.len;
  remove_at(m, i);
  *outcome = LFA_FS_REMOVED;
  return LFA_OK;
}

/* Every write of a memfs is whole at once: the create-only write is the publish. */
static lfa_status mem_publish_new(void *ctx, const char *path, const char *tmp, const uint8_t *data, size_t len,
                                  lfa_error *err) {
  (void)tmp;
  if (mem_exists(ctx, path))
    return lfa_fail(err, LFA_ERR_CONFLICT, "FA-CONC-11", "%s exists already: another writer committed it first", path);
  return mem_write_new(ctx, path, data, len, err);
}

static lfa_status mem_replace_hint(void *ctx, const char *path, const char *tmp, const uint8_t *data, size_t len,
                                   lfa_error *err) {
  (void)tmp;
  return lfa_memfs_put(ctx, path, data, len, err);
}

static const lfa_fs_ops MEMFS_OPS = {mem_read,        mem_size,           mem_exists,      mem_is_dir,
                                     mem_list,        mem_write_new,      mem_make_dir,    mem_read_range,
                                     mem_stat,        mem_remove_beneath, mem_publish_new, mem_replace_hint,
                                     NULL,            NULL,               0};

/* ---- the memfs ------------------------------------------------------------------------------- */

void lfa_memfs_init(lfa_memfs *m) {
  memset(m, 0, sizeof *m);
  m->fs = (lfa_fs){&MEMFS_OPS, m};
}

void lfa_memfs_free(lfa_memfs *m) {
  for (size_t i = 0; i < m->count; i++) {
    free(m->entries[i].name);
    lfa_buf_free(&m->entries[i].data);
  }
  free(m->entries);
  lfa_memfs_init(m);
}

const lfa_memfs_entry *lfa_memfs_find(const lfa_memfs *m, const char *path) {
  char key[LFA_PATH_BYTES_MAX];
  if (normalize(key, path, NULL) != LFA_OK) return NULL;
  size_t i = find_exact(m, key);
  return i != SIZE_MAX && !m->entries[i].dir ? &m->entries[i] : NULL;
}

lfa_status lfa_memfs_put(lfa_memfs *m, const char *path, const uint8_t *data, size_t len, lfa_error *err) {
  char key[LFA_PATH_BYTES_MAX];
  lfa_status st = normalize(key, path, err);
  if (st != LFA_OK) return st;
  size_t i = find_exact(m, key);
  if (i == SIZE_MAX || m->entries[i].dir) {
    size_t at = lower_bound(m, key);
    st = check_new_file(m, key, at, path, err);
    return st == LFA_OK ? insert(m, key, at, false, data, len, err) : st;
  }
  lfa_buf *d = &m->entries[i].data;
  st = check_bytes(m, d->len, len, err);
  lfa_buf fresh = {0};
  if (st == LFA_OK && len > 0) st = lfa_buf_append(&fresh, data, len, err);
  if (st != LFA_OK) return st;
  m->bytes = m->bytes - d->len + len;
  lfa_buf_free(d);
  *d = fresh;
  return LFA_OK;
}

bool lfa_memfs_remove(lfa_memfs *m, const char *path) {
  char key[LFA_PATH_BYTES_MAX];
  if (normalize(key, path, NULL) != LFA_OK) return false;
  size_t i = find_exact(m, key);
  if (i == SIZE_MAX || m->entries[i].dir) return false;
  remove_at(m, i);
  return true;
}

/* ---- the container ------------------------------------------------------------------------- */

static lfa_status read_varint(uint64_t *out, lfa_cursor *c, const char *what, lfa_error *err) {
  uint64_t v = 0;
  for (unsigned i = 0; i < VARINT_BYTES_MAX; i++) {
    const uint8_t *b;
    if (!lfa_cursor_take(c, 1, &b))
      return lfa_fail(err, LFA_ERR_TRUNCATED, NULL, "container: %s ends at byte %zu", what, c->pos);
    uint64_t group = *b & 0x7Fu;
    if (i == VARINT_BYTES_MAX - 1 && group > 1) /* bit 63 is the last one the tenth byte may hold */
      return lfa_fail(err, LFA_ERR_FORMAT, NULL, "container: %s passes 64 bits", what);
    v |= group << (7 * i);
    if ((*b & 0x80u) == 0) {
      *out = v;
      return LFA_OK;
    }
  }
  return lfa_fail(err, LFA_ERR_FORMAT, NULL, "container: %s is longer than %d bytes", what, VARINT_BYTES_MAX);
}

/* The name of one entry, checked and normalized into key[LFA_PATH_BYTES_MAX]. */
static lfa_status read_name(char *key, lfa_cursor *c, lfa_error *err) {
  uint64_t n = 0;
  const uint8_t *bytes;
  char raw[LFA_PATH_BYTES_MAX];
  lfa_status st = read_varint(&n, c, "a name length", err);
  if (st != LFA_OK) return st;
  if (n == 0) return lfa_fail(err, LFA_ERR_FORMAT, NULL, "container: an empty name at byte %zu", c->pos);
  if (n >= LFA_PATH_BYTES_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, NULL, "container: a name of %llu bytes (at most %u)", (unsigned long long)n,
                    LFA_PATH_BYTES_MAX - 1);
  size_t at = c->pos;
  if (!lfa_cursor_take(c, (size_t)n, &bytes))
    return lfa_fail(err, LFA_ERR_TRUNCATED, NULL, "container: the name at byte %zu passes the end", at);
  if (memchr(bytes, '\0', (size_t)n) != NULL)
    return lfa_fail(err, LFA_ERR_FORMAT, NULL, "container: the name at byte %zu holds a NUL byte", at);
  memcpy(raw, bytes, (size_t)n);
  raw[n] = '\0';
  st = normalize(key, raw, err);
  if (st == LFA_OK && key[0] == '\0')
    st = lfa_fail(err, LFA_ERR_FORMAT, NULL, "container: the name at byte %zu names the root", at);
  return st;
}

/* One entry, appended unsorted (decode sorts once at the end). */
static lfa_status read_entry(lfa_memfs *m, lfa_cursor *c, lfa_error *err) {
  char key[LFA_PATH_BYTES_MAX];
  uint64_t len = 0;
  const uint8_t *bytes = NULL;
  lfa_status st = read_name(key, c, err);
  if (st == LFA_OK) st = read_varint(&len, c, "a data length", err);
  if (st != LFA_OK) return st;
  if (len > lfa_cursor_left(c))
    return lfa_fail(err, LFA_ERR_TRUNCATED, NULL, "container: %s: %llu bytes of data, %zu left", key,
                    (unsigned long long)len, lfa_cursor_left(c));
  lfa_cursor_take(c, (size_t)len, &bytes);
  st = reserve(m, err);
  if (st == LFA_OK) st = check_bytes(m, 0, (size_t)len, err);
  if (st != LFA_OK) return st;
  lfa_memfs_entry e = {copy_name(key), false, m->serial + 1, {0}};
  if (e.name == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory for %s", key);
  if (len > 0 && (st = lfa_buf_append(&e.data, bytes, (size_t)len, err)) != LFA_OK) {
    free(e.name);
    return st;
  }
  m->entries[m->count++] = e, m->serial++;
  m->bytes += len;
  return LFA_OK;
}

static int by_entry_name(const void *a, const void *b) {
  return strcmp(((const lfa_memfs_entry *)a)->name, ((const lfa_memfs_entry *)b)->name);
}

/* Once sorted: no name twice, no file under another file. */
static lfa_status check_names(const lfa_memfs *m, lfa_error *err) {
  for (size_t i = 0; i < m->count; i++) {
    const char *name = m->entries[i].name;
    if (i + 1 < m->count && strcmp(name, m->entries[i + 1].name) == 0)
      return lfa_fail(err, LFA_ERR_FORMAT, NULL, "container: %s is named twice", name);
    if (has_under(m, name))
      return lfa_fail(err, LFA_ERR_FORMAT, NULL, "container: %s is a file and a directory", name);
  }
  return LFA_OK;
}

lfa_status lfa_memfs_decode(lfa_memfs *out, const uint8_t *data, size_t len, lfa_error *err) {
  lfa_memfs_init(out);
  lfa_cursor c = lfa_cursor_make(data, len);
  lfa_status st = LFA_OK;
  while (st == LFA_OK && lfa_cursor_left(&c) > 0) st = read_entry(out, &c, err);
  if (st == LFA_OK && out->count > 1) qsort(out->entries, out->count, sizeof *out->entries, by_entry_name);
  if (st == LFA_OK) st = check_names(out, err);
  if (st != LFA_OK) lfa_memfs_free(out);
  return st;
}

static lfa_status put_varint(lfa_buf *out, uint64_t v, lfa_error *err) {
  uint8_t b[VARINT_BYTES_MAX];
  size_t n = 0;
  do {
    b[n] = (uint8_t)(v & 0x7Fu);
    v >>= 7;
    if (v != 0) b[n] |= 0x80u;
    n++;
  } while (v != 0);
  return lfa_buf_append(out, b, n, err);
}

lfa_status lfa_memfs_encode(lfa_buf *out, const lfa_memfs *m, lfa_error *err) {
  lfa_status st = LFA_OK;
  for (size_t i = 0; st == LFA_OK && i < m->count; i++) {
    const lfa_memfs_entry *e = &m->entries[i];
    if (e->dir) continue;
    size_t n = strlen(e->name);
    st = put_varint(out, n, err);
    if (st == LFA_OK) st = lfa_buf_append(out, e->name, n, err);
    if (st == LFA_OK) st = put_varint(out, e->data.len, err);
    if (st == LFA_OK && e->data.len > 0) st = lfa_buf_append(out, e->data.data, e->data.len, err);
  }
  return st;
}
