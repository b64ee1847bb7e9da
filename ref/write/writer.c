/* writer.c: lays snapshots out as a Lance dataset directory (lfa/writer.h).
 *
 * One commit, in the order the work happens:
 *   1. Check the table. What a reader would refuse, the writer refuses first,
 *      as LFA_ERR_USAGE with the requirement id: a bad table is the caller's
 *      bug, and nothing is written for it. FA-LANCE-4..9, FA-LANCE-12..15,
 *      FA-LANCE-19, FA-STORE-1..3, FA-BITMAP-3, FA-BITMAP-4.
 *   2. Deletion files: cumulative sets (FA-LANCE-3) at their upstream paths
 *      (FA-LANCE-16). A fragment whose table names its file gets that name
 *      (mutations name files, as Lance transactions do); an unnamed one gets
 *      a fresh name, but only when its set differs from the previous
 *      commit's. A file is written once, and a name never changes content.
 *   3. Per tracked field, partial bitmaps in the no-run form (FA-BITMAP-1),
 *      then the root (FA-ROOT-1..8; the empty root is a real 0-byte object,
 *      FA-ROOT-9). An object whose bytes this writer already stored for the
 *      same field (and fragment) is referenced again (FA-STORE-10,
 *      FA-STORE-11); any other gets a fresh path (FA-STORE-7, FA-STORE-8).
 *      Every descriptor carries the object's exact size (FA-STORE-5). An
 *      object is reused only while it is still on disk (FA-RESTORE-2), and
 *      nothing is written above a reference reader limit (FA-LIMIT-3).
 *   4. The `.txn` file, then the manifest with the same transaction inline
 *      (FA-LANCE-1, FA-LANCE-10, FA-LANCE-17), descriptors in field id order
 *      (FA-STORE-2), feature flags recomputed from scratch (FA-FLAG-1,
 *      FA-FLAG-2, FA-FLAG-3). The manifest is the commit point and is written
 *      last, so a failed commit leaves only unreferenced objects behind.
 *
 * Determinism: every uuid and deletion file id comes from one generator
 * seeded by the caller, and nothing else varies (no timestamp is written),
 * so one seed and one history give the same bytes at the same paths.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "lfa/writer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/arena.h"
#include "lfa/bitmap.h"
#include "lfa/dataset.h"
#include "lfa/deletion.h"
#include "lfa/fs.h"
#include "lfa/hash.h"
#include "lfa/paths.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/root.h"
#include "lfa/rowids.h"
#include "lfa/search.h"
#include "lfa/transaction.h"
#include "lfa/versions.h"

/* Lance feature bits (02§7), set in both words. */
enum { FLAG_DELETION_FILES = 1, FLAG_STABLE_ROW_IDS = 2, FLAG_BASE_PATHS = 16, FLAG_DATA_OVERLAYS = 64 };

/* Lance keeps a deletion set as a hash set (written `.arrow`) while it has at
 * most this many entries, and as a Roaring bitmap (`.bin`) beyond. */
enum { DELETION_ARROW_MAX = 5000 };

enum { REL_PATH_CAP = 160 }; /* longest relative path this file formats, with room */

typedef enum object_kind { OBJECT_ROOT, OBJECT_BITMAP } object_kind;

/* An assignment object this writer stored. Its bytes are kept so that "same
 * content" is decided on the bytes, not on a hash alone. */
typedef struct stored_object {
  object_kind kind;
  int32_t field_id;
  uint64_t fragment_id; /* bitmaps only; 0 for roots */
  uint64_t hash;        /* of the bytes (lfa/hash.h): where it sits in by_content */
  lfa_buf bytes;
  char *path; /* relative to the dataset root; descriptors point at it */
} stored_object;

/* A deletion file this writer wrote, and the set it holds. */
typedef struct stored_deletion {
  uint64_t fragment_id;
  Lance__Table__DeletionFile file;
  roaring_bitmap_t *set;
} stored_deletion;

/* What the previous commit recorded for one fragment id: its deletion file
 * (can it be kept?) and its physical rows (is it the same fragment?). */
typedef struct prior_fragment {
  uint64_t id;
  uint64_t physical_rows;
  size_t deletion; /* index into lfa_writer.deletions; SIZE_MAX: none */
} prior_fragment;

struct lfa_writer {
  const lfa_fs *fs; /* where the dataset is written (borrowed) */
  char *dir;
  uint64_t random;  /* xorshift64* state, never 0 */
  uint64_t version; /* last committed version; 0 before the first */
  size_t n_objects, cap_objects;
  stored_object **objects; /* every object written, in write order; each owned */
  lfa_hash by_content;     /* the same objects, by the hash of their bytes */
  size_t n_deletions, cap_deletions;
  stored_deletion *deletions; /* every deletion file written */
  size_t n_prior;
  prior_fragment *prior; /* the previous commit's fragments, ascending by id */
  bool sealed;           /* a clone: no later commit (see lfa_writer_clone) */
};

/* ---- the generator: uuids and deletion file ids --------------------------- */

static uint64_t next_random(lfa_writer *w) {
  uint64_t x = w->random;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  w->random = x;
  return x * 0x2545F4914F6CDD1DULL;
}

/* A lowercase hyphenated uuid with the version-4 and RFC 4122 variant bits
 * (FA-STORE-7 asks for v4 uuids; these are v4 in shape, seeded, not random). */
static void next_uuid(lfa_writer *w, char out[37]) {
  uint64_t hi = next_random(w), lo = next_random(w);
  hi = (hi & ~0xF000ULL) | 0x4000ULL;
  lo = (lo & ~(3ULL << 62)) | (2ULL << 62);
  /* 8-4-4-4-12 hex digits, most significant first (a commit writes several:
   * formatted by hand, not by snprintf) */
  static const char HEX[] = "0123456789abcdef";
  size_t at = 0;
  for (int nibble = 15; nibble >= 0; nibble--) {
    if (nibble == 7 || nibble == 3) out[at++] = '-';
    out[at++] = HEX[(hi >> (4 * nibble)) & 0xF];
  }
  for (int nibble = 15; nibble >= 0; nibble--) {
    if (nibble == 15 || nibble == 11) out[at++] = '-';
    out[at++] = HEX[(lo >> (4 * nibble)) & 0xF];
  }
  out[at] = '\0';
}

/* ---- opening and closing ---------------------------------------------------- */

lfa_status lfa_writer_open(lfa_writer **out, const char *dir, uint64_t seed, lfa_error *err) {
  return lfa_writer_open_in(out, lfa_fs_posix(), dir, seed, err);
}

/* The writer of `dir` (already there, or just claimed by the caller). */
static lfa_status writer_new(lfa_writer **out, const lfa_fs *fs, const char *dir, uint64_t seed, lfa_error *err) {
  lfa_writer *w = calloc(1, sizeof *w);
  if (w == NULL || (w->dir = strdup(dir)) == NULL) {
    free(w);
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate a writer");
  }
  w->fs = fs != NULL ? fs : lfa_fs_posix();
  /* splitmix64 of the seed: nearby seeds give unrelated streams, and the
   * xorshift state must not be 0 */
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  w->random = z != 0 ? z : 0x9E3779B97F4A7C15ULL;
  *out = w;
  return LFA_OK;
}

lfa_status lfa_writer_open_in(lfa_writer **out, const lfa_fs *fs, const char *dir, uint64_t seed, lfa_error *err) {
  *out = NULL;
  /* making the directory claims it: two writers never share one dataset */
  lfa_status st = lfa_fs_make_dir_in(fs, dir, err);
  if (st == LFA_ERR_USAGE) return lfa_fail(err, st, NULL, "%s already exists; a writer starts a new dataset", dir);
  if (st != LFA_OK) return st;
  return writer_new(out, fs, dir, seed, err);
}

lfa_status lfa_writer_attach_in(lfa_writer **out, const lfa_fs *fs, const char *dir, uint64_t seed, lfa_error *err) {
  *out = NULL;
  if (!lfa_fs_is_dir_in(fs, dir)) return lfa_fail(err, LFA_ERR_USAGE, NULL, "%s is not a dataset directory", dir);
  lfa_status st = writer_new(out, fs, dir, seed, err);
  if (st == LFA_OK) (*out)->sealed = true; /* objects only: the caller writes the manifest */
  return st;
}

void lfa_writer_uuid(lfa_writer *w, char out[37]) { next_uuid(w, out); }

const char *lfa_writer_dir(const lfa_writer *w) { return w->dir; }

const lfa_fs *lfa_writer_fs(const lfa_writer *w) { return w->fs; }

void lfa_writer_close(lfa_writer *w) {
  if (w == NULL) return;
  for (size_t i = 0; i < w->n_objects; i++) {
    lfa_buf_free(&w->objects[i]->bytes);
    free(w->objects[i]->path);
    free(w->objects[i]);
  }
  free(w->objects);
  lfa_hash_free(&w->by_content);
  for (size_t i = 0; i < w->n_deletions; i++) lfa_bitmap_free(w->deletions[i].set);
  free(w->deletions);
  free(w->prior);
  free(w->dir);
  free(w);
}

/* ---- 1. checking the table ----------------------------------------------------- */

/* [FA-LANCE-9] ids unique and 0 or more; a parent before its children. */
static lfa_status check_schema(const lfa_table *t, lfa_error *err) {
  for (size_t i = 0; i < t->n_fields; i++) {
    const lfa_field *f = &t->fields[i];
    if (f->id < 0) return lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-9", "schema field %zu has id %d", i, f->id);
    bool parent_seen = f->parent_id == -1;
    for (size_t j = 0; j < i; j++) {
      if (t->fields[j].id == f->id)
        return lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-9", "field id %d appears twice in the schema", f->id);
      parent_seen = parent_seen || t->fields[j].id == f->parent_id;
    }
    if (!parent_seen)
      return lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-9", "field %d does not follow its parent %d", f->id,
                      f->parent_id);
  }
  return LFA_OK;
}

/* [FA-LANCE-15] ids or the tombstone, once per file; [FA-LANCE-6] once per
 * fragment. */
static lfa_status check_files(const lfa_fragment *f, lfa_error *err) {
  for (size_t k = 0; k < f->n_files; k++) {
    const lfa_data_file *d = &f->files[k];
    for (size_t j = 0; j < d->n_fields; j++) {
      int32_t id = d->fields[j];
      if (id == -2) continue;
      if (id < 0) return lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-15", "data file %zu lists field %d", k, id);
      for (size_t jj = 0; jj < j; jj++)
        if (d->fields[jj] == id)
          return lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-15", "data file %zu lists field %d twice", k, id);
      for (size_t kk = 0; kk < k; kk++)
        for (size_t jj = 0; jj < f->files[kk].n_fields; jj++)
          if (f->files[kk].fields[jj] == id)
            return lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-6", "field %d is stored by data files %zu and %zu", id,
                            kk, k);
    }
  }
  return LFA_OK;
}

/* [FA-OVERLAY-3] coverage present for every field, below physical_rows. */
static lfa_status check_overlays(const lfa_fragment *f, lfa_error *err) {
  for (size_t k = 0; k < f->n_overlays; k++) {
    const lfa_overlay *o = &f->overlays[k];
    size_t n = o->shared ? 1 : o->file.n_fields;
    for (size_t j = 0; j < n; j++) {
      const roaring_bitmap_t *b = o->coverage ? o->coverage[j] : NULL;
      if (b == NULL) return lfa_fail(err, LFA_ERR_USAGE, "FA-OVERLAY-3", "overlay %zu lacks coverage %zu", k, j);
      if (!roaring_bitmap_is_empty(b) && roaring_bitmap_maximum(b) >= f->physical_rows)
        return lfa_fail(err, LFA_ERR_USAGE, "FA-OVERLAY-3", "overlay %zu covers offset %" PRIu32 ", physical_rows is %" PRIu64,
                        k, roaring_bitmap_maximum(b), f->physical_rows);
    }
  }
  return LFA_OK;
}

static lfa_status check_fragment(const lfa_table *t, size_t i, lfa_error *err) {
  const lfa_fragment *f = &t->fragments[i];
  if (i > 0 && f->id <= t->fragments[i - 1].id)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-5", "does not follow fragment %" PRIu64, t->fragments[i - 1].id);
  /* max_fragment_id is a u32, so this also keeps ids below 2^32 [FA-LANCE-13] */
  if (f->id > t->max_fragment_id)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-8", "is above max_fragment_id %" PRIu32, t->max_fragment_id);
  /* 0 means "unknown" to Lance readers, and bounds no bitmap */
  if (f->physical_rows == 0)
    return lfa_fail(err, LFA_ERR_USAGE, t->n_tracked ? "FA-LANCE-12" : NULL, "has physical_rows 0");
  /* offsets are u32 everywhere: row addresses, deletion files, bitmaps */
  if (f->physical_rows > (uint64_t)UINT32_MAX + 1)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "has %" PRIu64 " physical rows; offsets are 32-bit", f->physical_rows);
  if (f->deleted != NULL && !roaring_bitmap_is_empty(f->deleted) && roaring_bitmap_maximum(f->deleted) >= f->physical_rows)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-4", "deletes offset %" PRIu32 ", physical_rows is %" PRIu64,
                    roaring_bitmap_maximum(f->deleted), f->physical_rows);
  if (t->stable_row_ids && f->row_ids == NULL)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-7", "has no row ids, but stable row ids are on");
  if (!t->stable_row_ids && f->row_ids != NULL)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "has row ids, but stable row ids are off");
  lfa_status st = check_overlays(f, err);
  return st == LFA_OK ? check_files(f, err) : st;
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* [FA-LANCE-14] no two live rows share an id; and every id is below
 * next_row_id, or a later insert would hand it out again. */
static lfa_status check_row_ids(const lfa_table *t, lfa_error *err) {
  size_t total = 0, n = 0;
  for (size_t i = 0; i < t->n_fragments; i++) total += (size_t)t->fragments[i].physical_rows;
  uint64_t *ids = malloc((total ? total : 1) * sizeof *ids);
  if (ids == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot check %zu row ids", total);
  for (size_t i = 0; i < t->n_fragments; i++) {
    const lfa_fragment *f = &t->fragments[i];
    for (uint64_t off = 0; off < f->physical_rows; off++)
      if (lfa_fragment_is_live(f, (uint32_t)off)) ids[n++] = f->row_ids[off];
  }
  qsort(ids, n, sizeof *ids, compare_u64);
  lfa_status st = LFA_OK;
  for (size_t k = 1; st == LFA_OK && k < n; k++)
    if (ids[k] == ids[k - 1])
      st = lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-14", "row id %" PRIu64 " belongs to two live rows", ids[k]);
  if (st == LFA_OK && n > 0 && ids[n - 1] >= t->next_row_id)
    st = lfa_fail(err, LFA_ERR_USAGE, NULL, "row id %" PRIu64 " is not below next_row_id %" PRIu64, ids[n - 1],
                  t->next_row_id);
  free(ids);
  return st;
}

/* [FA-BITMAP-3] [FA-BITMAP-4] a PARTIAL holds some, not all, of the rows. */
static lfa_status check_cell(const lfa_cell *c, const lfa_fragment *f, lfa_error *err) {
  if (c->kind == LFA_CELL_NONE || c->kind == LFA_CELL_ALL) return LFA_OK;
  if (c->kind != LFA_CELL_PARTIAL) return lfa_fail(err, LFA_ERR_USAGE, NULL, "cell kind %d is unknown", (int)c->kind);
  if (c->rows == NULL || roaring_bitmap_is_empty(c->rows))
    return lfa_fail(err, LFA_ERR_USAGE, "FA-BITMAP-3", "PARTIAL cell is empty (canonical: NONE)");
  if (roaring_bitmap_maximum(c->rows) >= f->physical_rows)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-BITMAP-4", "PARTIAL cell holds offset %" PRIu32 ", physical_rows is %" PRIu64,
                    roaring_bitmap_maximum(c->rows), f->physical_rows);
  if (roaring_bitmap_get_cardinality(c->rows) == f->physical_rows)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-BITMAP-3", "PARTIAL cell holds every row (canonical: ALL)");
  return LFA_OK;
}

/* [FA-STORE-1] [FA-STORE-2] strictly ascending field ids, [FA-STORE-3] each
 * in the schema, and canonical cells. */
static lfa_status check_tracked(const lfa_table *t, lfa_error *err) {
  for (size_t s = 0; s < t->n_tracked; s++) {
    const lfa_field_state *fs = &t->tracked[s];
    if (s > 0 && fs->field_id == t->tracked[s - 1].field_id)
      return lfa_fail(err, LFA_ERR_USAGE, "FA-STORE-1", "field %d is tracked twice", fs->field_id);
    if (s > 0 && fs->field_id < t->tracked[s - 1].field_id)
      return lfa_fail(err, LFA_ERR_USAGE, "FA-STORE-2", "tracked field %d follows field %d", fs->field_id,
                      t->tracked[s - 1].field_id);
    if (lfa_table_field(t, fs->field_id) == NULL)
      return lfa_fail(err, LFA_ERR_USAGE, "FA-STORE-3", "tracked field %d is not in the schema", fs->field_id);
    if (fs->cells == NULL && t->n_fragments > 0)
      return lfa_fail(err, LFA_ERR_USAGE, NULL, "tracked field %d has no cells", fs->field_id);
    for (size_t i = 0; i < t->n_fragments; i++) {
      lfa_status st = check_cell(&fs->cells[i], &t->fragments[i], err);
      if (st != LFA_OK) {
        lfa_error_prefix(err, "field %d: fragment %" PRIu64, fs->field_id, t->fragments[i].id);
        lfa_error_at_field(err, fs->field_id), lfa_error_at_fragment(err, t->fragments[i].id);
        return st;
      }
    }
  }
  return LFA_OK;
}

/* The previous commit's record of a fragment id, or NULL. */
static int prior_by_id(const void *key, const void *p) {
  return lfa_order_u64(*(const uint64_t *)key, ((const prior_fragment *)p)->id);
}

static const prior_fragment *find_prior(const lfa_writer *w, uint64_t id) {
  size_t i = lfa_search(&id, w->prior, w->n_prior, sizeof *w->prior, prior_by_id);
  return i != SIZE_MAX ? &w->prior[i] : NULL;
}

/* [FA-LANCE-19] outside Overwrite, Restore and Clone, a kept fragment id is
 * the same fragment. (Only physical_rows is compared: row id sequences of the
 * previous commit are not kept.) A Clone committed here, into the dataset
 * it clones, is then written as any version: the cloned manifest, bases
 * unchanged, nothing copied [FA-CLONE-6]. */
static lfa_status check_kept_fragments(const lfa_writer *w, const lfa_table *t, const Lance__Table__Transaction *txn,
                                       lfa_error *err) {
  Lance__Table__Transaction__OperationCase op = txn->operation_case;
  if (op == LANCE__TABLE__TRANSACTION__OPERATION_OVERWRITE || op == LANCE__TABLE__TRANSACTION__OPERATION_RESTORE ||
      op == LANCE__TABLE__TRANSACTION__OPERATION_CLONE)
    return LFA_OK;
  for (size_t i = 0; i < t->n_fragments; i++) {
    const prior_fragment *p = find_prior(w, t->fragments[i].id);
    if (p != NULL && p->physical_rows != t->fragments[i].physical_rows)
      return lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-19",
                      "fragment %" PRIu64 " had %" PRIu64 " physical rows in version %" PRIu64 ", now %" PRIu64,
                      p->id, p->physical_rows, w->version, t->fragments[i].physical_rows);
  }
  return LFA_OK;
}

static lfa_status check_commit(const lfa_writer *w, const lfa_table *t, const Lance__Table__Transaction *txn,
                               lfa_error *err) {
  if (txn == NULL) return lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-17", "no transaction given");
  if (w->sealed) /* FA-CLONE-4 (reusing the source's objects by base) is not implemented */
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "%s is a clone; this writer commits nothing after a clone's first version",
                    w->dir);
  if (t->version != w->version + 1)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "does not follow version %" PRIu64 ", the last one committed",
                    w->version);
  if (!t->stable_row_ids && t->next_row_id != 0)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "next_row_id %" PRIu64 " is set, but stable row ids are off",
                    t->next_row_id);
  lfa_status st = check_schema(t, err);
  for (size_t i = 0; st == LFA_OK && i < t->n_fragments; i++) {
    st = check_fragment(t, i, err);
    if (st != LFA_OK)
      lfa_error_prefix(err, "fragment %" PRIu64, t->fragments[i].id), lfa_error_at_fragment(err, t->fragments[i].id);
  }
  if (st == LFA_OK && t->stable_row_ids) st = check_row_ids(t, err);
  if (st == LFA_OK) st = check_tracked(t, err);
  if (st == LFA_OK) st = check_kept_fragments(w, t, txn, err);
  return st;
}

/* ---- writing objects ------------------------------------------------------------- */

static lfa_status write_file(const lfa_writer *w, const char *rel, const uint8_t *data, size_t len, lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_status st = lfa_fs_join(path, sizeof path, w->dir, rel, err);
  /* [FA-STORE-8] create-only: an existing path is an error, never replaced */
  return st == LFA_OK ? lfa_fs_write_new_in(w->fs, path, data, len, err) : st;
}

static uint64_t content_hash(const lfa_buf *bytes) { return lfa_hash_bytes(LFA_HASH_START, bytes->data, bytes->len); }

/* [FA-RESTORE-2] A stored object is referenced again only while it is on
 * disk with its size: cleanup may have removed an old version's objects,
 * and a Restore (or any later commit) must not name a missing one. */
static bool still_stored(const lfa_writer *w, const stored_object *o) {
  char path[LFA_PATH_BYTES_MAX];
  uint64_t size = 0;
  return lfa_fs_join(path, sizeof path, w->dir, o->path, NULL) == LFA_OK && lfa_fs_size_in(w->fs, path, &size) &&
         size == o->bytes.len;
}

/* What an object to store is, to find one already stored with its bytes. */
typedef struct content_key {
  const lfa_writer *w;
  object_kind kind;
  int32_t field_id;
  uint64_t fragment_id;
  const lfa_buf *bytes;
} content_key;

static bool same_content(const void *item, const void *key) {
  const stored_object *o = item;
  const content_key *k = key;
  return o->kind == k->kind && o->field_id == k->field_id && o->fragment_id == k->fragment_id &&
         o->bytes.len == k->bytes->len && (o->bytes.len == 0 || memcmp(o->bytes.data, k->bytes->data, o->bytes.len) == 0) &&
         still_stored(k->w, o);
}

static const stored_object *find_object(const lfa_writer *w, object_kind kind, int32_t field_id,
                                         uint64_t fragment_id, const lfa_buf *bytes, uint64_t hash) {
  content_key k = {w, kind, field_id, fragment_id, bytes};
  return lfa_hash_find(&w->by_content, hash, same_content, &k);
}

/* [FA-LIMIT-3] Nothing this writer writes is larger than the reference
 * reader limit for its kind (limits.h), so every conforming reader reads
 * it. A limit, not a rule of the table: LFA_ERR_LIMIT. */
static lfa_status within_limit(uint64_t size, uint64_t max, const char *what, const char *rel, lfa_error *err) {
  if (size <= max) return LFA_OK;
  return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-3", "%s: %s of %" PRIu64 " is over the reference reader limit %" PRIu64,
                  rel, what, size, max);
}

/* A commit file within its reference reader limit, written; errors name it. */
static lfa_status write_bounded(const lfa_writer *w, const char *rel, const uint8_t *data, size_t len, uint64_t max,
                                lfa_error *err) {
  lfa_status st = within_limit(len, max, "size in bytes", rel, err);
  if (st == LFA_OK) st = write_file(w, rel, data, len, err);
  if (st != LFA_OK) lfa_error_prefix(err, "%s", rel), lfa_error_at_file(err, rel);
  return st;
}

/* Records an object just written; takes over `bytes`. */
static lfa_status remember_object(const stored_object **out, lfa_writer *w, stored_object o, lfa_buf *bytes,
                                  const char *rel, lfa_error *err) {
  if (w->n_objects == w->cap_objects) {
    size_t cap = w->cap_objects ? 2 * w->cap_objects : 16;
    stored_object **grown = realloc(w->objects, cap * sizeof *grown);
    if (grown == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot remember %s", rel);
    w->objects = grown, w->cap_objects = cap;
  }
  stored_object *kept = malloc(sizeof *kept);
  if (kept == NULL || (o.path = strdup(rel)) == NULL) {
    free(kept);
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot remember %s", rel);
  }
  o.bytes = *bytes;
  *kept = o;
  lfa_status st = lfa_hash_add(&w->by_content, o.hash, kept, LFA_HASH_ITEMS_MAX, err);
  if (st != LFA_OK) {
    free(kept->path);
    free(kept);
    lfa_error_prefix(err, "cannot remember %s", rel);
    return st;
  }
  memset(bytes, 0, sizeof *bytes);
  w->objects[w->n_objects++] = kept;
  *out = kept;
  return LFA_OK;
}

/* The object holding `bytes` for (kind, field, fragment): one this writer
 * stored before with the same bytes [FA-STORE-10] [FA-STORE-11], else a new
 * object at a fresh upstream path [FA-STORE-7]. Takes over `bytes`. */
static lfa_status store_object(const stored_object **out, lfa_writer *w, object_kind kind, int32_t field_id,
                               uint64_t fragment_id, lfa_buf *bytes, lfa_error *err) {
  stored_object o = {kind, field_id, fragment_id, content_hash(bytes), {0}, NULL};
  *out = find_object(w, kind, field_id, fragment_id, bytes, o.hash);
  if (*out != NULL) return LFA_OK;
  char uuid[37], rel[REL_PATH_CAP];
  next_uuid(w, uuid);
  if (kind == OBJECT_ROOT)
    snprintf(rel, sizeof rel, "_field_assignments/roots/%" PRId32 "/%s.root", field_id, uuid);
  else
    snprintf(rel, sizeof rel, "_field_assignments/bitmaps/%" PRId32 "/%" PRIu64 "/%s.rbm", field_id, fragment_id,
             uuid);
  lfa_status st = within_limit(bytes->len, LFA_ASSIGNMENT_OBJECT_BYTES_MAX, "size in bytes", rel, err);
  if (st == LFA_OK) st = write_file(w, rel, bytes->data, bytes->len, err);
  return st == LFA_OK ? remember_object(out, w, o, bytes, rel, err) : st;
}

/* ---- 2. deletion files ------------------------------------------------------------- */

static bool is_bin(const Lance__Table__DeletionFile *d) {
  return d->file_type == LANCE__TABLE__DELETION_FILE__DELETION_FILE_TYPE__BITMAP;
}

/* The deletion file this writer already wrote that fragment `f` can name
 * again, or SIZE_MAX. Named by the table: the file of that name, which must
 * hold the same set (a file is never rewritten). Unnamed: the previous
 * commit's file for this fragment id, when the set is unchanged. */
static lfa_status find_deletion(size_t *at, const lfa_writer *w, const lfa_fragment *f, lfa_error *err) {
  *at = SIZE_MAX;
  if (f->deletion_file.id == 0) {
    const prior_fragment *p = find_prior(w, f->id);
    if (p != NULL && p->deletion != SIZE_MAX && roaring_bitmap_equals(w->deletions[p->deletion].set, f->deleted))
      *at = p->deletion;
    return LFA_OK;
  }
  for (size_t i = 0; i < w->n_deletions; i++) {
    const stored_deletion *d = &w->deletions[i];
    if (d->fragment_id != f->id || d->file.read_version != f->deletion_file.read_version ||
        d->file.id != f->deletion_file.id || is_bin(&d->file) != f->deletion_file.bitmap)
      continue;
    if (!roaring_bitmap_equals(d->set, f->deleted))
      return lfa_fail(err, LFA_ERR_USAGE, NULL, "deletion file %" PRIu64 "-%" PRIu64 " already holds another set",
                      d->file.read_version, d->file.id);
    *at = i;
    return LFA_OK;
  }
  return LFA_OK;
}

/* Records a deletion file just written, with a copy of its set. */
static lfa_status remember_deletion(size_t *at, lfa_writer *w, uint64_t fragment_id,
                                    const Lance__Table__DeletionFile *file, const roaring_bitmap_t *set,
                                    lfa_error *err) {
  if (w->n_deletions == w->cap_deletions) {
    size_t cap = w->cap_deletions ? 2 * w->cap_deletions : 16;
    stored_deletion *grown = realloc(w->deletions, cap * sizeof *grown);
    if (grown == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot remember a deletion file");
    w->deletions = grown, w->cap_deletions = cap;
  }
  stored_deletion *d = &w->deletions[w->n_deletions];
  d->fragment_id = fragment_id, d->file = *file;
  if ((d->set = roaring_bitmap_copy(set)) == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot copy a deletion set");
  *at = w->n_deletions++;
  return LFA_OK;
}

/* [FA-LANCE-3] [FA-LANCE-16] A new file holding the whole (cumulative) set
 * of fragment `f`. Its name is the table's, or else read_version
 * `version - 1`, a fresh id, and `.bin` past DELETION_ARROW_MAX deletions or
 * when the fragment's file was `.bin` already (Lance never turns a bitmap
 * back into a set). */
static lfa_status new_deletion(size_t *at, lfa_writer *w, const lfa_fragment *f, uint64_t version, lfa_error *err) {
  Lance__Table__DeletionFile d = LANCE__TABLE__DELETION_FILE__INIT;
  uint64_t n = roaring_bitmap_get_cardinality(f->deleted);
  bool bitmap = f->deletion_file.bitmap;
  d.read_version = f->deletion_file.read_version, d.id = f->deletion_file.id;
  if (d.id == 0) {
    const prior_fragment *p = find_prior(w, f->id);
    bitmap = n > DELETION_ARROW_MAX || (p != NULL && p->deletion != SIZE_MAX && is_bin(&w->deletions[p->deletion].file));
    d.read_version = version - 1; /* [FA-TXN-18] a set the commit computed on P */
    d.id = next_random(w); /* never 0: the generator's state never is */
  }
  d.file_type = bitmap ? LANCE__TABLE__DELETION_FILE__DELETION_FILE_TYPE__BITMAP
                       : LANCE__TABLE__DELETION_FILE__DELETION_FILE_TYPE__ARROW_ARRAY;
  d.num_deleted_rows = n;
  char rel[REL_PATH_CAP];
  snprintf(rel, sizeof rel, "_deletions/%" PRIu64 "-%" PRIu64 "-%" PRIu64 ".%s", f->id, d.read_version, d.id,
           bitmap ? "bin" : "arrow");
  lfa_buf bytes = {0};
  lfa_status st = bitmap ? LFA_OK : within_limit(n, LFA_DELETION_ARROW_ROWS_MAX, "row count", rel, err);
  if (st == LFA_OK) st = lfa_deletion_encode(&bytes, bitmap ? LFA_DELETION_BITMAP : LFA_DELETION_ARROW, f->deleted, err);
  if (st == LFA_OK) st = within_limit(bytes.len, LFA_DELETION_FILE_BYTES_MAX, "size in bytes", rel, err);
  if (st == LFA_OK) st = write_file(w, rel, bytes.data, bytes.len, err);
  lfa_buf_free(&bytes);
  if (st == LFA_OK) st = remember_deletion(at, w, f->id, &d, f->deleted, err);
  if (st != LFA_OK) lfa_error_prefix(err, "%s", rel), lfa_error_at_file(err, rel);
  return st;
}

/* The deletion file of fragment `f`, as an index into w->deletions
 * (SIZE_MAX for an empty set: Lance never writes an empty deletion file). */
static lfa_status deletion_file(size_t *at, lfa_writer *w, const lfa_fragment *f, uint64_t version, lfa_error *err) {
  *at = SIZE_MAX;
  if (f->deleted == NULL || roaring_bitmap_is_empty(f->deleted)) return LFA_OK;
  lfa_status st = find_deletion(at, w, f, err);
  if (st == LFA_OK && *at == SIZE_MAX) st = new_deletion(at, w, f, version, err);
  return st;
}

/* ---- 3. assignment objects ----------------------------------------------------------- */

/* [FA-BITMAP-1] the partial of one fragment: its no-run bitmap, stored or
 * reused. A partial always has bytes, so its size is always present. */
static lfa_status partial_file(Lance__Table__FieldAssignmentFile *out, lfa_writer *w, int32_t field_id,
                               const lfa_fragment *f, const lfa_cell *c, lfa_error *err) {
  const stored_object *obj = NULL;
  lfa_buf bytes = {0};
  lfa_status st = lfa_bitmap_encode(&bytes, c->rows, err);
  if (st == LFA_OK) st = store_object(&obj, w, OBJECT_BITMAP, field_id, f->id, &bytes, err);
  lfa_buf_free(&bytes);
  if (st != LFA_OK) return st;
  lance__table__field_assignment_file__init(out);
  out->path = obj->path;
  out->has_size_bytes = true;
  out->size_bytes = obj->bytes.len;
  return LFA_OK;
}

/* The scratch of one root: entries and partial descriptors, from the
 * commit draft's arena (the paths they name belong to the writer). */
typedef struct root_draft {
  lfa_root root;
  lfa_root_entry *entries;
  lfa_root_entry **entry_list;
  Lance__Table__FieldAssignmentFile *partials;
  lfa_arena *arena; /* the commit draft's: the three arrays above */
} root_draft;

/* [FA-ROOT-2] entries ascending with the fragments; [FA-ROOT-3] their
 * physical_rows; [FA-ROOT-4] ALL is all_assigned = true; NONE has no entry. */
/* [FA-STORE-11] The partial the prior version stored for fragment `f`,
 * when its set is exactly `c`'s: its descriptor is copied verbatim. */
static bool prior_partial(Lance__Table__FieldAssignmentFile *out, const lfa_prior_field *prior, const lfa_fragment *f,
                          const lfa_cell *c) {
  size_t j = prior ? lfa_table_fragment(prior->table, f->id) : SIZE_MAX;
  if (j == SIZE_MAX || prior->table->fragments[j].physical_rows != f->physical_rows) return false;
  const lfa_cell *was = &prior->state->cells[j];
  if (was->kind != LFA_CELL_PARTIAL || !roaring_bitmap_equals(was->rows, c->rows)) return false;
  for (size_t e = 0; e < prior->root->n_fragments; e++) {
    const lfa_root_entry *x = prior->root->fragments[e];
    if (x->fragment_id == f->id && x->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL &&
        x->partial != NULL) {
      *out = *x->partial;
      return true;
    }
  }
  return false;
}

static lfa_status root_entries(root_draft *r, lfa_writer *w, const lfa_table *t, const lfa_field_state *s,
                               const lfa_prior_field *prior, lfa_error *err) {
  size_t n = 0;
  for (size_t i = 0; i < t->n_fragments; i++) n += s->cells[i].kind != LFA_CELL_NONE;
  lance__table__field_assignment_root__init(&r->root);
  r->entries = lfa_arena_array(r->arena, n + 1, sizeof *r->entries);
  r->entry_list = lfa_arena_array(r->arena, n + 1, sizeof *r->entry_list);
  r->partials = lfa_arena_array(r->arena, n + 1, sizeof *r->partials);
  if (r->arena->failed)
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate %zu root entries", n);
  for (size_t i = 0, k = 0; i < t->n_fragments; i++) {
    const lfa_cell *c = &s->cells[i];
    if (c->kind == LFA_CELL_NONE) continue;
    lfa_root_entry *e = &r->entries[k];
    lance__table__field_assignment_fragment__init(e);
    e->fragment_id = t->fragments[i].id;
    e->physical_rows = t->fragments[i].physical_rows;
    if (c->kind == LFA_CELL_ALL) {
      e->state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED;
      e->all_assigned = true;
    } else {
      lfa_status st = prior_partial(&r->partials[k], prior, &t->fragments[i], c)
                          ? LFA_OK
                          : partial_file(&r->partials[k], w, s->field_id, &t->fragments[i], c, err);
      if (st != LFA_OK) {
        lfa_error_prefix(err, "fragment %" PRIu64, e->fragment_id), lfa_error_at_fragment(err, e->fragment_id);
        return st;
      }
      e->state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL;
      e->partial = &r->partials[k];
    }
    r->entry_list[k++] = e;
    r->root.n_fragments = k;
  }
  r->root.fragments = r->entry_list;
  return LFA_OK;
}

/* The root of one tracked field, stored or reused, described in *out. An
 * empty root encodes to 0 bytes and is still written [FA-ROOT-9]; like
 * upstream's proto3, a 0 size is left off the wire. */
static lfa_status root_file(Lance__Table__FieldAssignmentFile *out, lfa_arena *arena, lfa_writer *w,
                            const lfa_table *t, const lfa_field_state *s, const lfa_prior_field *prior,
                            lfa_error *err) {
  root_draft r = {.arena = arena};
  const stored_object *obj = NULL;
  lfa_buf bytes = {0};
  lfa_status st = root_entries(&r, w, t, s, prior, err);
  if (st == LFA_OK) st = lfa_root_encode(&bytes, &r.root, err);
  if (st == LFA_OK) st = store_object(&obj, w, OBJECT_ROOT, s->field_id, 0, &bytes, err);
  lfa_buf_free(&bytes);
  if (st != LFA_OK) {
    lfa_error_prefix(err, "field %d", s->field_id), lfa_error_at_field(err, s->field_id);
    return st;
  }
  lance__table__field_assignment_file__init(out);
  out->path = obj->path;
  out->has_size_bytes = obj->bytes.len > 0;
  out->size_bytes = obj->bytes.len;
  return LFA_OK;
}

lfa_status lfa_writer_field_root(Lance__Table__FieldAssignmentFile *out, lfa_arena *arena, lfa_writer *w,
                                 const lfa_table *t, size_t s, const lfa_prior_field *prior, lfa_error *err) {
  if (s >= t->n_tracked) return lfa_fail(err, LFA_ERR_USAGE, NULL, "tracked field %zu of %zu", s, t->n_tracked);
  lfa_status st = LFA_OK;
  for (size_t i = 0; st == LFA_OK && i < t->n_fragments; i++)
    st = check_cell(&t->tracked[s].cells[i], &t->fragments[i], err);
  return st == LFA_OK ? root_file(out, arena, w, t, &t->tracked[s], prior, err) : st;
}

/* ---- 4. the manifest ------------------------------------------------------------------ */

/* The protobuf-c manifest of one commit. It points into the caller's table
 * and the writer's object paths; draft_free releases only what it allocated. */
typedef struct draft {
  Lance__Table__Manifest m;
  Lance__Table__Manifest__WriterVersion writer_version;
  Lance__Table__Manifest__DataStorageFormat data_format;
  Lance__File__Field *fields;
  Lance__File__Field **field_list;
  Lance__Table__DataFragment *frags;
  Lance__Table__DataFragment **frag_list;
  Lance__Table__DataFile *files; /* every fragment's, one after another */
  Lance__Table__DataFile **file_list;
  Lance__Table__DeletionFile *deletions; /* one slot per fragment */
  lfa_buf *row_ids;                      /* one encoded sequence per fragment */
  Lance__Table__FieldAssignmentState *states;
  Lance__Table__FieldAssignmentState **state_list;
  Lance__Table__FieldAssignmentFile *roots;
  prior_fragment *next_prior; /* what this commit leaves for the next one */
  /* overlays of every fragment, one after another, and their coverage */
  size_t overlay_at, coverage_at, n_coverage;
  Lance__Table__DataOverlayFile *overlays;
  Lance__Table__DataOverlayFile **overlay_list;
  Lance__Table__DataFile *overlay_files;
  Lance__Table__FieldCoverage *field_coverages;
  ProtobufCBinaryData *coverage_bytes;
  lfa_buf *coverage_bufs; /* the encoded bitmaps coverage_bytes point into */
  lfa_arena arena;        /* every array above but next_prior, and the roots' scratch */
} draft;

static lfa_status draft_alloc_overlays(draft *d, const lfa_table *t) {
  size_t n = 1, nc = 1;
  for (size_t i = 0; i < t->n_fragments; i++)
    for (size_t k = 0; k < t->fragments[i].n_overlays; k++, n++) {
      const lfa_overlay *o = &t->fragments[i].overlays[k];
      nc += o->shared ? 1 : o->file.n_fields;
    }
  lfa_arena *a = &d->arena;
  d->overlays = lfa_arena_array(a, n, sizeof *d->overlays);
  d->overlay_list = lfa_arena_array(a, n, sizeof *d->overlay_list);
  d->overlay_files = lfa_arena_array(a, n, sizeof *d->overlay_files);
  d->field_coverages = lfa_arena_array(a, n, sizeof *d->field_coverages);
  d->coverage_bytes = lfa_arena_array(a, nc, sizeof *d->coverage_bytes);
  d->coverage_bufs = lfa_arena_array(a, nc, sizeof *d->coverage_bufs);
  return a->failed ? LFA_ERR_NOMEM : LFA_OK;
}

/* Everything but next_prior (which outlives the draft) comes from the
 * draft's arena: one release, few mallocs. */
static lfa_status draft_alloc(draft *d, const lfa_table *t, lfa_error *err) {
  size_t nf = t->n_fields + 1, nfr = t->n_fragments + 1, nt = t->n_tracked + 1, nfiles = 1;
  for (size_t i = 0; i < t->n_fragments; i++) nfiles += t->fragments[i].n_files;
  memset(d, 0, sizeof *d);
  lfa_arena *a = &d->arena;
  d->fields = lfa_arena_array(a, nf, sizeof *d->fields), d->field_list = lfa_arena_array(a, nf, sizeof *d->field_list);
  d->frags = lfa_arena_array(a, nfr, sizeof *d->frags), d->frag_list = lfa_arena_array(a, nfr, sizeof *d->frag_list);
  d->files = lfa_arena_array(a, nfiles, sizeof *d->files);
  d->file_list = lfa_arena_array(a, nfiles, sizeof *d->file_list);
  d->deletions = lfa_arena_array(a, nfr, sizeof *d->deletions), d->row_ids = lfa_arena_array(a, nfr, sizeof *d->row_ids);
  d->states = lfa_arena_array(a, nt, sizeof *d->states), d->state_list = lfa_arena_array(a, nt, sizeof *d->state_list);
  d->roots = lfa_arena_array(a, nt, sizeof *d->roots);
  d->next_prior = calloc(nfr, sizeof *d->next_prior);
  if (d->next_prior == NULL || draft_alloc_overlays(d, t) != LFA_OK)
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate the manifest");
  return LFA_OK;
}

static void draft_free(draft *d, size_t n_fragments) {
  for (size_t i = 0; d->row_ids != NULL && i < n_fragments; i++) lfa_buf_free(&d->row_ids[i]);
  for (size_t i = 0; d->coverage_bufs != NULL && i < d->n_coverage; i++) lfa_buf_free(&d->coverage_bufs[i]);
  free(d->next_prior);
  lfa_arena_free(&d->arena);
  memset(d, 0, sizeof *d);
}

/* Schema in the table's pre-order. A field some other field names as its
 * parent is PARENT, any other LEAF: the assignment rules need no more. */
static void draft_fields(draft *d, const lfa_table *t) {
  for (size_t i = 0; i < t->n_fields; i++) {
    const lfa_field *src = &t->fields[i];
    Lance__File__Field *f = &d->fields[i];
    lance__file__field__init(f);
    f->type = LANCE__FILE__FIELD__TYPE__LEAF;
    for (size_t j = i + 1; j < t->n_fields; j++)
      if (t->fields[j].parent_id == src->id) f->type = LANCE__FILE__FIELD__TYPE__PARENT;
    f->name = src->name ? src->name : (char *)"";
    f->id = src->id;
    f->parent_id = src->parent_id;
    f->logical_type = src->logical_type ? src->logical_type : (char *)"";
    f->nullable = src->nullable;
    d->field_list[i] = f;
  }
  d->m.fields = d->field_list;
  d->m.n_fields = t->n_fields;
}

/* One coverage bitmap, encoded into the draft's next slot. */
static lfa_status draft_coverage(ProtobufCBinaryData *out, draft *d, const roaring_bitmap_t *b, lfa_error *err) {
  lfa_buf *buf = &d->coverage_bufs[d->coverage_at];
  d->n_coverage = ++d->coverage_at;
  lfa_status st = lfa_bitmap_encode(buf, b, err);
  *out = (ProtobufCBinaryData){buf->len, buf->data};
  return st;
}

/* The fragment's overlays, oldest first, as the model holds them: the data
 * file (field ids only), the coverage in the form the overlay was committed
 * with, and its committed_version [FA-OVERLAY-3]. */
static lfa_status draft_overlays(draft *d, Lance__Table__DataFragment *f, const lfa_fragment *src, lfa_error *err) {
  f->overlays = &d->overlay_list[d->overlay_at];
  f->n_overlays = src->n_overlays;
  lfa_status st = LFA_OK;
  for (size_t k = 0; st == LFA_OK && k < src->n_overlays; k++, d->overlay_at++) {
    const lfa_overlay *o = &src->overlays[k];
    Lance__Table__DataOverlayFile *of = &d->overlays[d->overlay_at];
    Lance__Table__DataFile *file = &d->overlay_files[d->overlay_at];
    lance__table__data_overlay_file__init(of);
    lance__table__data_file__init(file);
    file->path = o->file.path ? o->file.path : (char *)"";
    file->fields = o->file.fields, file->n_fields = o->file.n_fields;
    file->file_major_version = 2;
    of->data_file = file;
    of->committed_version = o->committed_version;
    if (o->shared) {
      of->coverage_case = LANCE__TABLE__DATA_OVERLAY_FILE__COVERAGE_SHARED_OFFSET_BITMAP;
      st = draft_coverage(&of->shared_offset_bitmap, d, o->coverage[0], err);
    } else {
      Lance__Table__FieldCoverage *fc = &d->field_coverages[d->overlay_at];
      lance__table__field_coverage__init(fc);
      fc->offset_bitmaps = &d->coverage_bytes[d->coverage_at], fc->n_offset_bitmaps = o->file.n_fields;
      for (size_t j = 0; st == LFA_OK && j < o->file.n_fields; j++)
        st = draft_coverage(&fc->offset_bitmaps[j], d, o->coverage[j], err);
      of->coverage_case = LANCE__TABLE__DATA_OVERLAY_FILE__COVERAGE_FIELD_COVERAGE;
      of->field_coverage = fc;
    }
    d->overlay_list[d->overlay_at] = of;
  }
  return st;
}

/* Fragment i: data files (field ids and nothing else: no `.lance` file is
 * written), deletion file, inline row ids with stable row ids [FA-LANCE-7];
 * and the record the next commit compares against. */
static lfa_status draft_fragment(draft *d, size_t *file_at, lfa_writer *w, const lfa_table *t, size_t i,
                                 lfa_error *err) {
  const lfa_fragment *src = &t->fragments[i];
  Lance__Table__DataFragment *f = &d->frags[i];
  lance__table__data_fragment__init(f);
  f->id = src->id;
  f->physical_rows = src->physical_rows;
  f->files = &d->file_list[*file_at];
  f->n_files = src->n_files;
  for (size_t k = 0; k < src->n_files; k++, (*file_at)++) {
    Lance__Table__DataFile *file = &d->files[*file_at];
    lance__table__data_file__init(file);
    file->path = src->files[k].path ? src->files[k].path : (char *)"";
    file->fields = src->files[k].fields;
    file->n_fields = src->files[k].n_fields;
    file->file_major_version = 2;
    file->file_minor_version = 0;
    d->file_list[*file_at] = file;
  }
  size_t deletion = SIZE_MAX;
  lfa_status st = draft_overlays(d, f, src, err);
  if (st == LFA_OK) st = deletion_file(&deletion, w, src, t->version, err);
  if (st == LFA_OK && deletion != SIZE_MAX) {
    d->deletions[i] = w->deletions[deletion].file;
    f->deletion_file = &d->deletions[i];
  }
  if (st == LFA_OK && t->stable_row_ids) /* [FA-LIMIT-3] one sequence, LFA_ROW_IDS_MAX ids at most */
    st = within_limit(src->physical_rows, LFA_ROW_IDS_MAX, "row id count", "inline row ids", err);
  if (st == LFA_OK && t->stable_row_ids) {
    st = lfa_row_ids_encode(&d->row_ids[i], src->row_ids, src->physical_rows, err);
    f->row_id_sequence_case = LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE_INLINE_ROW_IDS;
    f->inline_row_ids = (ProtobufCBinaryData){d->row_ids[i].len, d->row_ids[i].data};
  }
  d->frag_list[i] = f;
  d->next_prior[i] = (prior_fragment){src->id, src->physical_rows, deletion};
  if (st != LFA_OK) lfa_error_prefix(err, "fragment %" PRIu64, src->id), lfa_error_at_fragment(err, src->id);
  return st;
}

static lfa_status draft_fragments(draft *d, lfa_writer *w, const lfa_table *t, lfa_error *err) {
  size_t file_at = 0;
  lfa_status st = LFA_OK;
  for (size_t i = 0; st == LFA_OK && i < t->n_fragments; i++) st = draft_fragment(d, &file_at, w, t, i, err);
  d->m.fragments = d->frag_list;
  d->m.n_fragments = t->n_fragments;
  return st;
}

/* One descriptor per tracked field, in the table's (ascending) order [FA-STORE-2]. */
static lfa_status draft_states(draft *d, lfa_writer *w, const lfa_table *t, lfa_error *err) {
  for (size_t s = 0; s < t->n_tracked; s++) {
    Lance__Table__FieldAssignmentState *state = &d->states[s];
    lance__table__field_assignment_state__init(state);
    state->field_id = t->tracked[s].field_id;
    state->root = &d->roots[s];
    d->state_list[s] = state;
    lfa_status st = root_file(&d->roots[s], &d->arena, w, t, &t->tracked[s], NULL, err);
    if (st != LFA_OK) return st;
  }
  d->m.field_assignment_states = d->state_list;
  d->m.n_field_assignment_states = t->n_tracked;
  return LFA_OK;
}

/* Version, counters, writer identity, and the feature words recomputed from
 * scratch as Lance does, in both words [FA-LANCE-23]: 1 when a fragment has
 * a deletion file, 2 with stable row ids, 64 when a fragment has overlays
 * (16, base paths, only a shallow clone lists: clone_bases), and 65536
 * exactly when a field is tracked [FA-FLAG-1], in the reader word too
 * [FA-FLAG-2] [FA-FLAG-3]; never 256 [FA-FLAG-7]. */
static void draft_header(draft *d, const lfa_table *t) {
  Lance__Table__Manifest *m = &d->m;
  m->version = t->version;
  if (t->n_fragments > 0 || t->max_fragment_id > 0) {
    m->_max_fragment_id_case = LANCE__TABLE__MANIFEST___MAX_FRAGMENT_ID_MAX_FRAGMENT_ID;
    m->max_fragment_id = t->max_fragment_id;
  }
  if (t->stable_row_ids) m->next_row_id = t->next_row_id;
  lance__table__manifest__writer_version__init(&d->writer_version);
  d->writer_version.library = (char *)LFA_WRITER_LIBRARY;
  d->writer_version.version = (char *)LFA_WRITER_VERSION;
  m->writer_version = &d->writer_version;
  lance__table__manifest__data_storage_format__init(&d->data_format);
  d->data_format.file_format = (char *)"lance";
  d->data_format.version = (char *)"2.0";
  m->data_format = &d->data_format;
  uint64_t flags = t->stable_row_ids ? FLAG_STABLE_ROW_IDS : 0;
  for (size_t i = 0; i < m->n_fragments; i++) {
    if (m->fragments[i]->deletion_file != NULL) flags |= FLAG_DELETION_FILES;
    if (m->fragments[i]->n_overlays > 0) flags |= FLAG_DATA_OVERLAYS; /* reader and writer bit */
  }
  if (m->n_field_assignment_states > 0) flags |= LFA_FLAG_FIELD_ASSIGNMENT;
  m->reader_feature_flags = flags;
  m->writer_feature_flags = flags;
}

/* The transaction as a `.txn` file, then the manifest with the same
 * transaction inline [FA-LANCE-10]. The caller's transaction is copied, not
 * changed: the copy gets read_version = version - 1 and a fresh uuid. It
 * is encoded once: the manifest file begins with the inline section
 * (lfa_manifest_file_encode: a u32 length, then the transaction), and the
 * `.txn` file is those same bytes. */
static lfa_status write_commit(draft *d, lfa_writer *w, const Lance__Table__Transaction *txn, lfa_error *err) {
  Lance__Table__Transaction filled = *txn;
  char uuid[37], txn_name[64], txn_rel[REL_PATH_CAP], rel[REL_PATH_CAP], version_name[32];
  next_uuid(w, uuid);
  filled.read_version = d->m.version - 1; /* [FA-TXN-18] P, after a rebase too */
  filled.uuid = uuid;
  snprintf(txn_name, sizeof txn_name, "%" PRIu64 "-%s.txn", filled.read_version, uuid);
  snprintf(txn_rel, sizeof txn_rel, "_transactions/%s", txn_name);
  lfa_version_format_name(version_name, sizeof version_name, d->m.version, LFA_NAMING_V1);
  snprintf(rel, sizeof rel, "_versions/%s", version_name);
  d->m.transaction_file = txn_name;
  lfa_buf bytes = {0};
  lfa_status st = lfa_manifest_file_encode(&bytes, &d->m, &filled, err);
  d->m.transaction_file = NULL; /* txn_name dies here */
  if (st != LFA_OK) lfa_error_prefix(err, "%s", rel), lfa_error_at_file(err, rel);
  enum { PREFIX = 4 }; /* the inline section's u32 length */
  if (st == LFA_OK)
    st = write_bounded(w, txn_rel, bytes.data + PREFIX, lfa_load_u32le(bytes.data), LFA_TRANSACTION_BYTES_MAX, err);
  if (st == LFA_OK) st = write_bounded(w, rel, bytes.data, bytes.len, LFA_MANIFEST_FILE_BYTES_MAX, err);
  lfa_buf_free(&bytes);
  return st;
}

lfa_status lfa_writer_commit(lfa_writer *w, const lfa_table *table, Lance__Table__Transaction *txn,
                             lfa_error *err) {
  draft d = {0};
  lfa_status st = check_commit(w, table, txn, err);
  if (st == LFA_OK) st = draft_alloc(&d, table, err);
  if (st == LFA_OK) {
    lance__table__manifest__init(&d.m);
    draft_fields(&d, table);
    st = draft_fragments(&d, w, table, err);
  }
  if (st == LFA_OK) st = draft_states(&d, w, table, err);
  if (st == LFA_OK) {
    draft_header(&d, table);
    st = write_commit(&d, w, txn, err);
  }
  if (st == LFA_OK) {
    /* committed: this version's deletion files are what the next compares to */
    free(w->prior);
    w->prior = d.next_prior, w->n_prior = table->n_fragments;
    d.next_prior = NULL;
    w->version = table->version;
  }
  draft_free(&d, table->n_fragments);
  if (st != LFA_OK)
    lfa_error_prefix(err, "version %" PRIu64, table->version), lfa_error_at_version(err, table->version);
  return st;
}

/* ---- going back to a mark ------------------------------------------------------------------ */

lfa_status lfa_writer_mark_now(lfa_writer_mark *out, const lfa_writer *w, lfa_error *err) {
  *out = (lfa_writer_mark){w->random, w->version, w->n_objects, w->n_deletions, w->n_prior, NULL, w->sealed};
  if (w->n_prior == 0) return LFA_OK;
  if ((out->prior = malloc(w->n_prior * sizeof *w->prior)) == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  memcpy(out->prior, w->prior, w->n_prior * sizeof *w->prior);
  return LFA_OK;
}

static bool same_object(const void *item, const void *key) { return item == key; }

lfa_status lfa_writer_rewind(lfa_writer *w, const lfa_writer_mark *m, lfa_error *err) {
  prior_fragment *prior = NULL;
  if (m->n_prior && (prior = malloc(m->n_prior * sizeof *prior)) == NULL)
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (m->n_prior) memcpy(prior, m->prior, m->n_prior * sizeof *prior);
  for (size_t i = m->n_objects; i < w->n_objects; i++) {
    stored_object *o = w->objects[i];
    lfa_hash_remove(&w->by_content, o->hash, same_object, o);
    lfa_buf_free(&o->bytes);
    free(o->path);
    free(o);
  }
  for (size_t i = m->n_deletions; i < w->n_deletions; i++) lfa_bitmap_free(w->deletions[i].set);
  free(w->prior);
  w->prior = prior, w->n_prior = m->n_prior;
  w->n_objects = m->n_objects, w->n_deletions = m->n_deletions;
  w->random = m->random, w->version = m->version, w->sealed = m->sealed;
  return LFA_OK;
}

void lfa_writer_mark_drop(lfa_writer_mark *m) {
  free(m->prior);
  m->prior = NULL;
}

/* ---- clones ------------------------------------------------------------------------------ */

/* The manifest of a clone: the source manifest with copies of what changes.
 * It points into the source snapshot, which outlives it. */
typedef struct clone_draft {
  draft d;
  const lfa_snapshot *src;
  const char *src_dir;
  bool deep;
  uint32_t base_id; /* shallow: the base_paths entry of the source root */
  Lance__Table__BasePath base;
  Lance__Table__BasePath **base_list;
} clone_draft;

/* [FA-CLONE-5] a shallow clone's data file without a base names the source
 * root's entry; one with a base keeps it; a deep clone's names none. */
static void set_base(bool shallow, Lance__Table__DataFile *f, uint32_t id) {
  if (!shallow) f->_base_id_case = LANCE__TABLE__DATA_FILE___BASE_ID__NOT_SET, f->base_id = 0;
  else if (f->_base_id_case != LANCE__TABLE__DATA_FILE___BASE_ID_BASE_ID)
    f->_base_id_case = LANCE__TABLE__DATA_FILE___BASE_ID_BASE_ID, f->base_id = id;
}

/* Copies the source object at `rel` (resolved through `a`) to the same
 * relative path of the clone [FA-CLONE-2]. An object two descriptors share
 * is copied once (by path, as upstream dedups). A path already holding
 * other bytes (two sources' objects under one relative path) is refused:
 * a deep clone never overwrites a copied object [FA-CLONE-3], and one path
 * never names two objects [FA-STORE-8]. */
static lfa_status copy_object(const lfa_writer *w, const clone_draft *c, lfa_anchor a, bool need_root,
                              const char *subdir, const char *rel, lfa_error *err) {
  char from[LFA_PATH_BYTES_MAX], to[LFA_PATH_BYTES_MAX], rel_to[LFA_PATH_BYTES_MAX];
  lfa_buf bytes = {0}, there = {0};
  lfa_status st = lfa_path_resolve(from, sizeof from, c->src_dir, c->src->file.manifest, a, need_root, subdir, rel, err);
  if (st == LFA_OK && subdir[0] != '\0') st = lfa_fs_join(rel_to, sizeof rel_to, subdir, rel, err);
  if (st == LFA_OK) st = lfa_fs_join(to, sizeof to, w->dir, subdir[0] != '\0' ? rel_to : rel, err);
  if (st == LFA_OK) st = lfa_fs_read_in(&bytes, w->fs, from, LFA_ASSIGNMENT_OBJECT_BYTES_MAX, err);
  if (st == LFA_OK && lfa_fs_exists_in(w->fs, to)) {
    st = lfa_fs_read_in(&there, w->fs, to, LFA_ASSIGNMENT_OBJECT_BYTES_MAX, err);
    if (st == LFA_OK && (there.len != bytes.len || (bytes.len > 0 && memcmp(there.data, bytes.data, bytes.len) != 0)))
      st = lfa_fail(err, LFA_ERR_USAGE, "FA-CLONE-3", "the clone already holds another object at this path");
  } else if (st == LFA_OK) {
    st = lfa_fs_write_new_in(w->fs, to, bytes.data, bytes.len, err);
  }
  lfa_buf_free(&bytes);
  lfa_buf_free(&there);
  if (st != LFA_OK) lfa_error_prefix(err, "copying %s", rel);
  return st;
}

/* Fragment i: data files and deletion file referenced through the source
 * base (shallow, FA-STORE-6), or local (deep: the deletion file is copied;
 * no `.lance` file exists to copy). */
static lfa_status clone_fragment(clone_draft *c, lfa_writer *w, size_t i, size_t *file_at, lfa_error *err) {
  const Lance__Table__DataFragment *src = c->src->file.manifest->fragments[i];
  Lance__Table__DataFragment *f = &c->d.frags[i];
  *f = *src;
  f->files = &c->d.file_list[*file_at];
  for (size_t k = 0; k < src->n_files; k++, (*file_at)++) {
    c->d.files[*file_at] = *src->files[k];
    set_base(!c->deep, &c->d.files[*file_at], c->base_id);
    c->d.file_list[*file_at] = &c->d.files[*file_at];
  }
  c->d.frag_list[i] = f;
  if (src->deletion_file == NULL) return LFA_OK;
  Lance__Table__DeletionFile *d = &c->d.deletions[i];
  *d = *src->deletion_file;
  f->deletion_file = d;
  bool has = d->_base_id_case == LANCE__TABLE__DELETION_FILE___BASE_ID_BASE_ID;
  if (!c->deep) {
    if (!has) d->_base_id_case = LANCE__TABLE__DELETION_FILE___BASE_ID_BASE_ID, d->base_id = c->base_id;
    return LFA_OK;
  }
  char rel[REL_PATH_CAP];
  snprintf(rel, sizeof rel, "%" PRIu64 "-%" PRIu64 "-%" PRIu64 ".%s", src->id, d->read_version, d->id,
           is_bin(d) ? "bin" : "arrow");
  d->_base_id_case = LANCE__TABLE__DELETION_FILE___BASE_ID__NOT_SET, d->base_id = 0;
  return copy_object(w, c, (lfa_anchor){has, src->deletion_file->base_id}, false, "_deletions", rel, err);
}

/* The decoded root of the source's tracked field s. */
static lfa_status source_root(const lfa_root **out, const clone_draft *c, size_t s, lfa_error *err) {
  int32_t id = c->src->file.manifest->field_assignment_states[s]->field_id;
  size_t t = lfa_snapshot_tracked(c->src, id);
  *out = t == SIZE_MAX ? NULL : c->src->tracked[t].root;
  return *out ? LFA_OK : lfa_fail(err, LFA_ERR_USAGE, NULL, "field %d is not loaded", id);
}

/* The partial of entry `e`, or NULL. `partial` shares a oneof with
 * `all_assigned`: it is a pointer only when the state case says so. */
static const Lance__Table__FieldAssignmentFile *partial_of(const lfa_root_entry *e) {
  return e->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL ? e->partial : NULL;
}

/* Does a partial of `r` name a base of its own? Its copy in a deep clone is
 * local, so the root's bytes must change to say so [FA-CLONE-3]. */
static bool lists_own_base(const lfa_root *r) {
  for (size_t k = 0; k < r->n_fragments; k++)
    if (partial_of(r->fragments[k]) != NULL && partial_of(r->fragments[k])->has_base_id) return true;
  return false;
}

/* Tracked field s: shallow, the root keeps its path and size and gets the
 * source base unless it has one [FA-CLONE-1]; deep, the descriptor loses
 * its base and every partial is copied to its relative path, read through
 * its own base or else the root's (FA-STORE-6) [FA-CLONE-2]. The root is
 * copied to its path too, unless a partial names its own base: that root
 * changes, and localize_root writes it once every copy is made. */
static lfa_status clone_state(clone_draft *c, lfa_writer *w, size_t s, lfa_error *err) {
  const Lance__Table__FieldAssignmentState *src = c->src->file.manifest->field_assignment_states[s];
  c->d.states[s] = *src;
  c->d.roots[s] = *src->root;
  c->d.states[s].root = &c->d.roots[s];
  c->d.state_list[s] = &c->d.states[s];
  Lance__Table__FieldAssignmentFile *root = &c->d.roots[s];
  lfa_anchor anchor = {root->has_base_id, root->base_id};
  if (!c->deep) {
    if (!root->has_base_id) root->has_base_id = true, root->base_id = c->base_id;
    return LFA_OK;
  }
  root->has_base_id = false, root->base_id = 0;
  const lfa_root *r = NULL;
  lfa_status st = source_root(&r, c, s, err);
  for (size_t k = 0; st == LFA_OK && k < r->n_fragments; k++) {
    const Lance__Table__FieldAssignmentFile *p = partial_of(r->fragments[k]);
    if (p == NULL) continue;
    lfa_anchor own = p->has_base_id ? (lfa_anchor){true, p->base_id} : anchor;
    st = copy_object(w, c, own, true, "", p->path, err);
  }
  if (st == LFA_OK && !lists_own_base(r)) st = copy_object(w, c, anchor, true, "", src->root->path, err);
  return st;
}

enum { FRESH_PATH_ATTEMPTS = 8 };

/* A root path for field `id` that nothing in the clone holds: copied
 * objects keep their names, and this writer's generator may draw the
 * uuids the source's writer drew (same seed). */
static lfa_status fresh_root_path(char *rel, size_t cap, lfa_writer *w, int32_t id, lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX], uuid[37];
  for (int attempt = 0; attempt < FRESH_PATH_ATTEMPTS; attempt++) {
    next_uuid(w, uuid);
    snprintf(rel, cap, "_field_assignments/roots/%" PRId32 "/%s.root", id, uuid);
    lfa_status st = lfa_fs_join(path, sizeof path, w->dir, rel, err);
    if (st != LFA_OK || !lfa_fs_exists_in(w->fs, path)) return st;
  }
  return lfa_fail(err, LFA_ERR_IO, "FA-STORE-8", "no fresh root path for field %d in %d attempts", id,
                  FRESH_PATH_ATTEMPTS);
}

/* [FA-CLONE-3] The deep clone's root of tracked field s when the source's
 * lists a partial with a base of its own: the same entries, every partial
 * without a base_id (its copy is local now), written as a new object at a
 * fresh path, never over the copy of a source object [FA-STORE-8]. The
 * entries are shallow copies of the source's; nothing else changes. */
static lfa_status localize_root(clone_draft *c, lfa_writer *w, size_t s, const lfa_root *r, lfa_error *err) {
  size_t n = r->n_fragments + 1;
  lfa_root local = *r;
  lfa_root_entry *entries = calloc(n, sizeof *entries), **list = calloc(n, sizeof *list);
  Lance__Table__FieldAssignmentFile *partials = calloc(n, sizeof *partials);
  lfa_buf bytes = {0};
  const stored_object *obj = NULL;
  int32_t id = c->d.states[s].field_id;
  char rel[REL_PATH_CAP];
  lfa_status st = entries && list && partials ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t k = 0; st == LFA_OK && k < r->n_fragments; k++) {
    entries[k] = *r->fragments[k];
    if (partial_of(&entries[k]) != NULL) {
      partials[k] = *entries[k].partial;
      partials[k].has_base_id = false, partials[k].base_id = 0;
      entries[k].partial = &partials[k];
    }
    list[k] = &entries[k];
  }
  local.fragments = list;
  if (st == LFA_OK) st = lfa_root_encode(&bytes, &local, err);
  if (st == LFA_OK) st = fresh_root_path(rel, sizeof rel, w, id, err);
  if (st == LFA_OK) st = within_limit(bytes.len, LFA_ASSIGNMENT_OBJECT_BYTES_MAX, "size in bytes", rel, err);
  if (st == LFA_OK) st = write_file(w, rel, bytes.data, bytes.len, err);
  stored_object o = {OBJECT_ROOT, id, 0, content_hash(&bytes), {0}, NULL};
  if (st == LFA_OK) st = remember_object(&obj, w, o, &bytes, rel, err);
  if (st == LFA_OK) {
    c->d.roots[s].path = obj->path;
    c->d.roots[s].has_size_bytes = obj->bytes.len > 0, c->d.roots[s].size_bytes = obj->bytes.len;
  }
  lfa_buf_free(&bytes);
  free(entries), free(list), free(partials);
  if (st != LFA_OK) lfa_error_prefix(err, "field %d", id), lfa_error_at_field(err, id);
  return st;
}

/* Shallow: base_paths gains {base_id, dataset root, the source path}, after
 * the source's own entries (kept under their ids, FA-CLONE-1), and feature
 * bit 16 (base paths) in both words [FA-LANCE-23]. Deep: no base is
 * referenced, none is listed. */
static lfa_status clone_bases(clone_draft *c, lfa_error *err) {
  Lance__Table__Manifest *m = &c->d.m;
  const Lance__Table__Manifest *src = c->src->file.manifest;
  if (c->deep) {
    m->base_paths = NULL, m->n_base_paths = 0;
    return LFA_OK;
  }
  c->base_id = 1;
  for (size_t i = 0; i < src->n_base_paths; i++)
    if (src->base_paths[i]->id >= c->base_id) c->base_id = src->base_paths[i]->id + 1;
  if ((c->base_list = calloc(src->n_base_paths + 1, sizeof *c->base_list)) == NULL)
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate base paths");
  if (src->n_base_paths) memcpy(c->base_list, src->base_paths, src->n_base_paths * sizeof *c->base_list);
  lance__table__base_path__init(&c->base);
  c->base.id = c->base_id, c->base.is_dataset_root = true, c->base.path = (char *)c->src_dir;
  c->base_list[src->n_base_paths] = &c->base;
  m->base_paths = c->base_list, m->n_base_paths = src->n_base_paths + 1;
  m->reader_feature_flags |= FLAG_BASE_PATHS, m->writer_feature_flags |= FLAG_BASE_PATHS;
  return LFA_OK;
}

static lfa_status clone_alloc(clone_draft *c, lfa_error *err) {
  const Lance__Table__Manifest *m = c->src->file.manifest;
  size_t nfr = m->n_fragments + 1, nt = m->n_field_assignment_states + 1, nfiles = 1;
  for (size_t i = 0; i < m->n_fragments; i++) nfiles += m->fragments[i]->n_files;
  draft *d = &c->d;
  lfa_arena *a = &d->arena;
  d->frags = lfa_arena_array(a, nfr, sizeof *d->frags), d->frag_list = lfa_arena_array(a, nfr, sizeof *d->frag_list);
  d->files = lfa_arena_array(a, nfiles, sizeof *d->files);
  d->file_list = lfa_arena_array(a, nfiles, sizeof *d->file_list);
  d->deletions = lfa_arena_array(a, nfr, sizeof *d->deletions);
  d->states = lfa_arena_array(a, nt, sizeof *d->states), d->state_list = lfa_arena_array(a, nt, sizeof *d->state_list);
  d->roots = lfa_arena_array(a, nt, sizeof *d->roots);
  return lfa_arena_check(a, err);
}

/* Builds and writes version 1 of the clone from the loaded source version. */
static lfa_status clone_commit(clone_draft *c, lfa_writer *w, const Lance__Table__Transaction *txn, lfa_error *err) {
  const Lance__Table__Manifest *src = c->src->file.manifest;
  lfa_status st = clone_alloc(c, err);
  if (st != LFA_OK) return st;
  c->d.m = *src;
  c->d.m.version = 1;
  c->d.m._transaction_section_case = LANCE__TABLE__MANIFEST___TRANSACTION_SECTION__NOT_SET;
  st = clone_bases(c, err);
  size_t file_at = 0;
  for (size_t i = 0; st == LFA_OK && i < src->n_fragments; i++) st = clone_fragment(c, w, i, &file_at, err);
  for (size_t s = 0; st == LFA_OK && s < src->n_field_assignment_states; s++) st = clone_state(c, w, s, err);
  for (size_t s = 0; st == LFA_OK && c->deep && s < src->n_field_assignment_states; s++) {
    const lfa_root *r = NULL;
    st = source_root(&r, c, s, err);
    if (st == LFA_OK && lists_own_base(r)) st = localize_root(c, w, s, r, err);
  }
  c->d.m.fragments = c->d.frag_list, c->d.m.field_assignment_states = c->d.state_list;
  if (st == LFA_OK) st = write_commit(&c->d, w, txn, err);
  return st;
}

lfa_status lfa_writer_clone(lfa_writer **out, const char *source_dir, uint64_t version, const char *dir, bool deep,
                            uint64_t seed, Lance__Table__Transaction *txn, lfa_error *err) {
  return lfa_writer_clone_in(out, lfa_fs_posix(), source_dir, version, dir, deep, seed, txn, err);
}

lfa_status lfa_writer_clone_in(lfa_writer **out, const lfa_fs *fs, const char *source_dir, uint64_t version,
                               const char *dir, bool deep, uint64_t seed, Lance__Table__Transaction *txn,
                               lfa_error *err) {
  *out = NULL;
  lfa_snapshot src;
  clone_draft c = {.src = &src, .src_dir = source_dir, .deep = deep};
  if (txn == NULL || txn->operation_case != LANCE__TABLE__TRANSACTION__OPERATION_CLONE)
    return lfa_fail(err, LFA_ERR_USAGE, "FA-LANCE-17", "a clone's first version needs a Clone transaction");
  lfa_snapshot_options opt = {.fs = fs, .version = version, .load_fields = true};
  lfa_status st = lfa_snapshot_open(&src, source_dir, NULL, &opt, err);
  if (st != LFA_OK) return st;
  lfa_writer *w = NULL;
  st = lfa_writer_open_in(&w, fs, dir, seed, err);
  if (st == LFA_OK) st = clone_commit(&c, w, txn, err);
  draft_free(&c.d, 0);
  free(c.base_list);
  lfa_snapshot_free(&src);
  if (st != LFA_OK) {
    lfa_writer_close(w);
    lfa_error_prefix(err, "clone of version %" PRIu64 " of %s", version, source_dir);
    return st;
  }
  w->version = 1, w->sealed = true;
  *out = w;
  return LFA_OK;
}
