/* objects.c: loading roots, partial bitmaps and deletion files, and the
 * cache that lends them across versions within a byte budget
 * (lfa/objects.h). Enforces FA-STORE-5, FA-BITMAP-3 and FA-BITMAP-4. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "lfa/objects.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bitmap.h"
#include "lfa/deletion.h"
#include "lfa/limits.h"

/* One cached object. While no one borrows it, it sits in the cache's idle
 * list, between an older and a newer idle entry. */
struct lfa_cached_object {
  lfa_object_kind kind;
  uint64_t size; /* the key: kind, path and size */
  char *path;
  void *object;     /* owned */
  uint64_t bytes;   /* what it counts against the budget */
  size_t borrowers; /* loads not yet released */
  lfa_cached_object *older, *newer;
};

/* ---- what an object holds ------------------------------------------------------------ */

/* A container's key, type code, pointer and header, besides its values. */
enum { CONTAINER_BYTES = 32 };

/* A bitmap holds its containers' values, which take in memory what they
 * take in the portable layout (2 bytes a value, 8 KiB a bitset, 4 bytes a
 * run), and at most one container per 2^16 values up to its maximum.
 * Both are found without visiting the values. */
static uint64_t bitmap_bytes(const roaring_bitmap_t *r) {
  uint64_t containers = roaring_bitmap_is_empty(r) ? 0 : ((uint64_t)roaring_bitmap_maximum(r) >> 16) + 1;
  return sizeof *r + roaring_bitmap_portable_size_in_bytes(r) + containers * CONTAINER_BYTES;
}

/* A decoded root holds at most its encoded bytes (strings, unknown fields)
 * plus one message of each kind per entry. */
static uint64_t root_bytes(const lfa_root *r, size_t encoded) {
  uint64_t per_entry = sizeof(lfa_root_entry) + sizeof(Lance__Table__FieldAssignmentFile) + sizeof(void *);
  return sizeof *r + encoded + r->n_fragments * per_entry;
}

/* The entry itself: its struct, its path, and a slot in each table (each
 * at most half full). */
static uint64_t entry_bytes(const char *path) {
  return sizeof(lfa_cached_object) + strlen(path) + 1 + 4 * sizeof(lfa_hash_slot);
}

static void free_object(lfa_object_kind kind, void *object) {
  if (kind == LFA_OBJECT_ROOT) lfa_root_free(object);
  else lfa_bitmap_free(object);
}

/* ---- the two tables ---------------------------------------------------------------- */

typedef struct key {
  lfa_object_kind kind;
  const char *path;
  uint64_t size;
} key;

static uint64_t key_hash(const key *k) {
  return lfa_hash_text(lfa_hash_u64(lfa_hash_u64(LFA_HASH_START, (uint64_t)k->kind), k->size), k->path);
}

static bool same_key(const void *item, const void *wanted) {
  const lfa_cached_object *e = item;
  const key *k = wanted;
  return e->kind == k->kind && e->size == k->size && strcmp(e->path, k->path) == 0;
}

static uint64_t object_hash(const void *object) { return lfa_hash_u64(LFA_HASH_START, (uint64_t)(uintptr_t)object); }

static bool same_object(const void *item, const void *object) {
  return ((const lfa_cached_object *)item)->object == object;
}

/* ---- the idle list: least recently used first ------------------------------------------- */

static void idle_unlink(lfa_object_cache *c, lfa_cached_object *e) {
  if (e->older != NULL) e->older->newer = e->newer;
  else c->idle_oldest = e->newer;
  if (e->newer != NULL) e->newer->older = e->older;
  else c->idle_newest = e->older;
  e->older = e->newer = NULL;
}

static void idle_push(lfa_object_cache *c, lfa_cached_object *e) {
  e->older = c->idle_newest, e->newer = NULL;
  if (c->idle_newest != NULL) c->idle_newest->newer = e;
  else c->idle_oldest = e;
  c->idle_newest = e;
}

static void drop_entry(lfa_cached_object *e) {
  free_object(e->kind, e->object);
  free(e->path);
  free(e);
}

static void evict(lfa_object_cache *c, lfa_cached_object *e) {
  key k = {e->kind, e->path, e->size};
  idle_unlink(c, e);
  lfa_hash_remove(&c->by_key, key_hash(&k), same_key, &k);
  lfa_hash_remove(&c->by_object, object_hash(e->object), same_object, e->object);
  c->stats.held_bytes -= e->bytes;
  c->stats.evicted++;
  drop_entry(e);
}

/* Drops unused objects, oldest first, until the cache is within budget or
 * holds only objects in use. */
static void shrink(lfa_object_cache *c) {
  while (c->stats.held_bytes > c->budget && c->idle_oldest != NULL) evict(c, c->idle_oldest);
}

/* ---- the cache ------------------------------------------------------------------------ */

void lfa_object_cache_init(lfa_object_cache *c, uint64_t budget_bytes) {
  memset(c, 0, sizeof *c);
  c->budget = budget_bytes != 0 ? budget_bytes : LFA_OBJECT_CACHE_BYTES_MAX;
}

void lfa_object_cache_free(lfa_object_cache *c) {
  size_t at = 0;
  for (lfa_cached_object *e; (e = lfa_hash_next(&c->by_key, &at)) != NULL;) drop_entry(e);
  lfa_hash_free(&c->by_key);
  lfa_hash_free(&c->by_object);
  memset(c, 0, sizeof *c);
}

/* The object kept under `k`, now borrowed once more; NULL when there is none. */
static void *borrow(lfa_object_cache *c, const key *k) {
  lfa_cached_object *e = c != NULL ? lfa_hash_find(&c->by_key, key_hash(k), same_key, k) : NULL;
  if (e == NULL) return NULL;
  if (e->borrowers++ == 0) idle_unlink(c, e);
  c->stats.hits++;
  return e->object;
}

bool lfa_object_cached(const lfa_object_cache *c, lfa_object_kind kind, const char *path,
                       const Lance__Table__FieldAssignmentFile *f) {
  key k = {kind, path, f->size_bytes};
  return c != NULL && lfa_hash_find(&c->by_key, key_hash(&k), same_key, &k) != NULL;
}

/* What an object decoded from `encoded` bytes holds. */
static uint64_t object_bytes(lfa_object_kind kind, const void *object, size_t encoded) {
  return kind == LFA_OBJECT_ROOT ? root_bytes(object, encoded) : bitmap_bytes(object);
}

/* Keeps a freshly decoded object under `k`, borrowed once (by the load
 * that decoded it from `encoded` bytes). When it cannot be kept it stays
 * uncached: release then frees it. */
static void keep(lfa_object_cache *c, const key *k, void *object, size_t encoded) {
  if (c == NULL) return;
  uint64_t bytes = object_bytes(k->kind, object, encoded);
  lfa_cached_object *e = calloc(1, sizeof *e);
  char *path = strdup(k->path);
  bool ok = e != NULL && path != NULL;
  if (ok) {
    *e = (lfa_cached_object){k->kind, k->size, path, object, bytes + entry_bytes(path), 1, NULL, NULL};
    ok = lfa_hash_add(&c->by_key, key_hash(k), e, LFA_HASH_ITEMS_MAX, NULL) == LFA_OK;
  }
  if (ok && lfa_hash_add(&c->by_object, object_hash(object), e, LFA_HASH_ITEMS_MAX, NULL) != LFA_OK) {
    lfa_hash_remove(&c->by_key, key_hash(k), same_key, k);
    ok = false;
  }
  if (!ok) {
    free(path);
    free(e);
    return;
  }
  c->stats.kept[k->kind]++;
  c->stats.held_bytes += e->bytes;
  if (c->stats.held_bytes > c->stats.peak_bytes) c->stats.peak_bytes = c->stats.held_bytes;
  shrink(c);
}

bool lfa_object_lend_again(lfa_object_cache *c, void *object) {
  lfa_cached_object *e = c != NULL && object != NULL ? lfa_hash_find(&c->by_object, object_hash(object), same_object, object) : NULL;
  if (e == NULL || e->borrowers == 0) return false; /* not lent by this cache: the caller's own */
  e->borrowers++;
  c->stats.hits++;
  return true;
}

void lfa_object_release(lfa_object_cache *c, lfa_object_kind kind, void *object) {
  if (object == NULL) return;
  lfa_cached_object *e = c != NULL ? lfa_hash_find(&c->by_object, object_hash(object), same_object, object) : NULL;
  if (e == NULL) {
    free_object(kind, object); /* never cached: the caller's */
    return;
  }
  if (e->borrowers == 0 || --e->borrowers > 0) return;
  idle_push(c, e);
  shrink(c);
}

/* ---- loads --------------------------------------------------------------------------------- */

static void say_decoded(bool *decoded, bool value) {
  if (decoded != NULL) *decoded = value;
}

/* One read (one GET on an object store); the size is asked only when the
 * read fails, so that a size already contradicting size_bytes is an
 * FA-STORE-5 error before any limit is [FA-VERIFY-6]. */
lfa_status lfa_object_read(lfa_buf *out, const lfa_fs *fs, const char *path, const Lance__Table__FieldAssignmentFile *f,
                           lfa_error *err) {
  uint64_t size = 0;
  memset(out, 0, sizeof *out);
  lfa_error e = {0};
  lfa_status st = lfa_fs_read_expected(out, fs, path, LFA_ASSIGNMENT_OBJECT_BYTES_MAX, "FA-STORE-5", &e);
  if (st != LFA_OK && lfa_fs_size_in(fs, path, &size) && size != f->size_bytes)
    st = lfa_fail(err, LFA_ERR_RULE, "FA-STORE-5", "has %" PRIu64 " bytes, size_bytes says %" PRIu64, size,
                  f->size_bytes);
  else if (st != LFA_OK && err != NULL)
    *err = e;
  if (st == LFA_OK && out->len != f->size_bytes) {
    st = lfa_fail(err, LFA_ERR_RULE, "FA-STORE-5", "has %zu bytes, size_bytes says %" PRIu64, out->len,
                  f->size_bytes);
    lfa_buf_free(out);
  }
  if (st != LFA_OK) lfa_error_prefix(err, "%s", f->path), lfa_error_at_file(err, f->path);
  return st;
}

/* An assignment object's bytes decoded as its kind. */
static lfa_status decode_assignment(void **out, lfa_object_kind kind, const lfa_buf *b, lfa_error *err) {
  lfa_status st;
  if (kind == LFA_OBJECT_ROOT) {
    lfa_root *root = NULL;
    st = lfa_root_decode(&root, b->data, b->len, err);
    *out = root;
  } else {
    roaring_bitmap_t *rows = NULL;
    st = lfa_bitmap_decode(&rows, b->data, b->len, err);
    *out = rows;
  }
  return st;
}

/* A root or partial bitmap, lent, or read [FA-STORE-5] and decoded. */
static lfa_status load_assignment(void **out, bool *decoded, lfa_objects at, lfa_object_kind kind, const char *path,
                                  const Lance__Table__FieldAssignmentFile *f, lfa_error *err) {
  key k = {kind, path, f->size_bytes};
  say_decoded(decoded, false);
  if ((*out = borrow(at.cache, &k)) != NULL) return LFA_OK;
  lfa_buf bytes = {0};
  lfa_status st = lfa_object_read(&bytes, at.fs, path, f, err);
  if (st == LFA_OK) {
    say_decoded(decoded, true);
    st = decode_assignment(out, kind, &bytes, err);
  }
  if (st == LFA_OK) keep(at.cache, &k, *out, bytes.len);
  lfa_buf_free(&bytes);
  return st;
}

lfa_status lfa_object_load_root(lfa_root **out, bool *decoded, lfa_objects at, const char *path,
                                const Lance__Table__FieldAssignmentFile *f, lfa_error *err) {
  void *root = NULL;
  lfa_status st = load_assignment(&root, decoded, at, LFA_OBJECT_ROOT, path, f, err);
  *out = root;
  return st;
}

/* [FA-BITMAP-3] [FA-BITMAP-4] a partial names some, not all, of the rows. */
static lfa_status check_partial(const roaring_bitmap_t *rows, uint64_t physical_rows, lfa_error *err) {
  uint64_t n = roaring_bitmap_get_cardinality(rows);
  if (n == 0) return lfa_fail(err, LFA_ERR_RULE, "FA-BITMAP-3", "partial bitmap is empty");
  if (roaring_bitmap_maximum(rows) >= physical_rows)
    return lfa_fail(err, LFA_ERR_RULE, "FA-BITMAP-4", "partial bitmap holds offset %u, physical_rows is %" PRIu64,
                    (unsigned)roaring_bitmap_maximum(rows), physical_rows);
  if (n == physical_rows)
    return lfa_fail(err, LFA_ERR_RULE, "FA-BITMAP-3", "partial bitmap holds all %" PRIu64 " rows", n);
  return LFA_OK;
}

lfa_status lfa_object_load_partial(roaring_bitmap_t **out, bool *decoded, lfa_objects at, const char *path,
                                   const Lance__Table__FieldAssignmentFile *f, uint64_t physical_rows,
                                   lfa_error *err) {
  void *rows = NULL;
  lfa_status st = load_assignment(&rows, decoded, at, LFA_OBJECT_BITMAP, path, f, err);
  *out = rows;
  if (st == LFA_OK) st = check_partial(*out, physical_rows, err); /* against this fragment, lent or not */
  if (st != LFA_OK) {
    lfa_object_release(at.cache, LFA_OBJECT_BITMAP, *out);
    *out = NULL;
  }
  return st;
}

lfa_status lfa_object_load_deletion(roaring_bitmap_t **out, bool *decoded, lfa_objects at, const char *path,
                                    bool bitmap, lfa_error *err) {
  uint64_t size = 0; /* the key: the size found before reading, recorded as read after */
  key k = {LFA_OBJECT_DELETION, path, 0};
  say_decoded(decoded, false);
  if (at.cache != NULL && lfa_fs_size_in(at.fs, path, &size)) {
    k.size = size;
    if ((*out = borrow(at.cache, &k)) != NULL) return LFA_OK;
  }
  *out = NULL;
  lfa_buf bytes = {0};
  lfa_status st = lfa_fs_read_expected(&bytes, at.fs, path, LFA_DELETION_FILE_BYTES_MAX, "FA-LANCE-16", err);
  if (st == LFA_OK) {
    say_decoded(decoded, true);
    st = lfa_deletion_decode(out, bitmap ? LFA_DELETION_BITMAP : LFA_DELETION_ARROW, bytes.data, bytes.len, err);
  }
  k.size = bytes.len;
  if (st == LFA_OK) keep(at.cache, &k, *out, bytes.len);
  lfa_buf_free(&bytes);
  return st;
}
