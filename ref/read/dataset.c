/* dataset.c: loading a version from a dataset directory (lfa/dataset.h).
 * Enforces at load time what an upstream reader enforces: FA-LANCE-2,
 * FA-LANCE-4, FA-LANCE-10, FA-STORE-5, FA-STORE-6, FA-ROOT-3, FA-ROOT-5,
 * FA-BITMAP-3, FA-BITMAP-4; the decoders it calls enforce the rest. */
#include "lfa/dataset.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/deletion.h"
#include "lfa/flags.h"
#include "lfa/limits.h"
#include "lfa/paths.h"
#include "lfa/pb.h"
#include "lfa/search.h"
#include "lfa/transaction.h"

lfa_status lfa_dataset_versions(lfa_version_list *out, lfa_names *names, const lfa_fs *fs, const char *dir,
                                lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX];
  memset(out, 0, sizeof *out);
  memset(names, 0, sizeof *names);
  lfa_status st = lfa_fs_join(path, sizeof path, dir, "_versions", err);
  if (st == LFA_OK) st = lfa_fs_list_in(names, fs, path, 0, err);
  if (st != LFA_OK) return st;
  st = lfa_version_list_make(out, (const char *const *)names->names, names->count, err);
  if (st == LFA_OK && out->count == 0)
    st = lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-2", "%s holds no version manifest", path);
  if (st != LFA_OK) { /* both freed: the caller owns them only on success */
    lfa_version_list_free(out);
    lfa_fs_names_free(names);
  }
  return st;
}

/* ---- manifest and transaction --------------------------------------------- */

enum { FOOTER_BYTES = 16, PREFIX_BYTES = 4 };

/* Reads [from, to) of the file into out->data + from, checking that the
 * file is still `size` bytes long. */
static lfa_status fetch_range(lfa_buf *out, const lfa_fs *fs, const char *path, uint64_t size, uint64_t from,
                              uint64_t to, lfa_error *err) {
  if (from >= to) return LFA_OK;
  lfa_buf part = {0};
  uint64_t total = 0;
  lfa_status st = lfa_fs_read_range_in(&part, fs, path, from, (size_t)(to - from), &total, err);
  if (st == LFA_OK && (total != size || part.len != to - from))
    st = lfa_fail(err, LFA_ERR_IO, NULL, "%s: changed while it was read (%" PRIu64 " bytes, then %" PRIu64 ")", path,
                  size, total);
  if (st == LFA_OK) memcpy(out->data + from, part.data, part.len);
  lfa_buf_free(&part);
  return st;
}

/* Where the manifest the footer of out[0 .. size) points at begins; false
 * when the footer is not Lance's (the caller then reads the whole file). */
static bool footer_points_at(uint64_t *manifest_at, const lfa_buf *out, uint64_t size) {
  const uint8_t *footer = out->data + size - FOOTER_BYTES;
  if (memcmp(footer + 12, "LANC", 4) != 0) return false;
  uint64_t pos = lfa_load_u64le(footer);
  if (pos > size - FOOTER_BYTES || size - FOOTER_BYTES - pos < PREFIX_BYTES) return false;
  *manifest_at = pos;
  return true;
}

lfa_status lfa_manifest_fetch(lfa_buf *out, uint64_t *unread_below, const lfa_fs *fs, const char *path,
                              const char *rule, lfa_error *err) {
  uint64_t size = 0, pos = 0;
  memset(out, 0, sizeof *out);
  *unread_below = 0;
  if (!lfa_fs_size_in(fs, path, &size) || size <= LFA_MANIFEST_TAIL_BYTES || size > LFA_MANIFEST_FILE_BYTES_MAX)
    return lfa_fs_read_expected(out, fs, path, LFA_MANIFEST_FILE_BYTES_MAX, rule, err); /* whole, or its failure */
  uint8_t *all = NULL;
  lfa_status st = lfa_buf_extend(out, (size_t)size, &all, err);
  if (st != LFA_OK) return st;
  memset(all, 0, (size_t)size);
  uint64_t have = size - LFA_MANIFEST_TAIL_BYTES; /* [have, size) is read */
  st = fetch_range(out, fs, path, size, have, size, err);
  bool framed = st == LFA_OK && footer_points_at(&pos, out, size);
  if (st == LFA_OK && framed && pos < have) st = fetch_range(out, fs, path, size, pos, have, err), have = pos;
  uint64_t lo = have;
  if (st == LFA_OK && framed) { /* the sections the manifest names lie below it */
    uint32_t n = lfa_load_u32le(out->data + pos);
    if (n != size - FOOTER_BYTES - pos - PREFIX_BYTES || !lfa_manifest_sections_from(&lo, out->data + pos + PREFIX_BYTES, n, pos))
      lo = 0; /* cannot tell what it points at: all of it */
  } else if (st == LFA_OK) {
    lo = 0;
  }
  if (st == LFA_OK && lo < have) st = fetch_range(out, fs, path, size, lo, have, err);
  if (st != LFA_OK) lfa_buf_free(out);
  else *unread_below = lo;
  return st;
}

void lfa_dataset_prefetch_manifests(const lfa_fs *fs, const char *dir, const lfa_version_list *list, size_t first,
                                    size_t n, bool (*want)(const void *arg, size_t i), const void *arg) {
  char *paths[LFA_MANIFEST_PREFETCH_BATCH] = {0};
  size_t k = 0;
  if (fs == NULL || fs->ops->prefetch == NULL) return;
  for (size_t i = first; i < list->count && i < first + n && k < LFA_MANIFEST_PREFETCH_BATCH; i++) {
    char path[LFA_PATH_BYTES_MAX], rel[LFA_PATH_BYTES_MAX];
    if (want != NULL && !want(arg, i)) continue;
    snprintf(rel, sizeof rel, "_versions/%s", list->entries[i].name);
    if (lfa_fs_join(path, sizeof path, dir, rel, NULL) != LFA_OK) continue;
    if ((paths[k] = malloc(strlen(path) + 1)) != NULL) strcpy(paths[k++], path);
  }
  lfa_fs_prefetch_in(fs, (const char *const *)paths, k);
  while (k > 0) free(paths[--k]);
}

/* The manifest file of entry `e` into s->file: decoded plainly, or beside
 * `prev` when `after` is set (its unchanged fragments shared, 10§5). */
static lfa_status load_manifest(lfa_snapshot *s, const char *dir, const lfa_version_entry *e, bool after,
                                const lfa_manifest_file *prev, lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX], rel[LFA_PATH_BYTES_MAX];
  lfa_buf bytes = {0};
  uint64_t unread = 0;
  snprintf(rel, sizeof rel, "_versions/%s", e->name);
  lfa_status st = lfa_fs_join(path, sizeof path, dir, rel, err);
  if (st == LFA_OK) st = lfa_manifest_fetch(&bytes, &unread, s->fs, path, NULL, err);
  if (st == LFA_OK && after) st = lfa_manifest_file_decode_after(&s->file, &bytes, prev, err);
  else if (st == LFA_OK) st = lfa_manifest_file_decode(&s->file, bytes.data, bytes.len, err);
  lfa_buf_free(&bytes);
  if (st != LFA_OK) lfa_error_prefix(err, "%s", rel), lfa_error_at_file(err, rel);
  return st;
}

/* [FA-LANCE-2] the manifest is the version its file name says. */
static lfa_status check_manifest_version(const lfa_snapshot *s, const lfa_version_entry *e, lfa_error *err) {
  if (s->file.manifest->version == e->version) return LFA_OK;
  lfa_status st = lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-2", "_versions/%s: manifest records version %" PRIu64,
                           e->name, s->file.manifest->version);
  char rel[LFA_PATH_BYTES_MAX];
  snprintf(rel, sizeof rel, "_versions/%s", e->name);
  lfa_error_at_file(err, rel);
  return st;
}

/* Two transactions are equal when their canonical encodings are: writers
 * may spell default values or order fields differently on the wire. */
static lfa_status same_transaction(const Lance__Table__Transaction *a, const Lance__Table__Transaction *b,
                                   lfa_error *err) {
  lfa_buf x = {0}, y = {0};
  lfa_status st = lfa_transaction_encode(&x, a, err);
  if (st == LFA_OK) st = lfa_transaction_encode(&y, b, err);
  if (st == LFA_OK && (x.len != y.len || memcmp(x.data, y.data, x.len) != 0))
    st = lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-10", "differs from the manifest's inline transaction");
  lfa_buf_free(&x);
  lfa_buf_free(&y);
  return st;
}

/* Whether `bytes` are the canonical encoding of `txn` (then they decode to
 * it, and the two agree without decoding them). */
static lfa_status is_encoding_of(bool *out, const Lance__Table__Transaction *txn, const lfa_buf *bytes,
                                 lfa_error *err) {
  lfa_buf x = {0};
  lfa_status st = lfa_transaction_encode(&x, txn, err);
  *out = st == LFA_OK && x.len == bytes->len && (x.len == 0 || memcmp(x.data, bytes->data, x.len) == 0);
  lfa_buf_free(&x);
  return st;
}

/* [FA-LANCE-10] inline section first, then the `.txn` file; both must agree. */
static lfa_status load_transaction(lfa_snapshot *s, const char *dir, lfa_error *err) {
  const char *name = s->file.manifest->transaction_file;
  s->transaction = s->file.transaction;
  if (name == NULL || name[0] == '\0') return LFA_OK;
  char path[LFA_PATH_BYTES_MAX];
  lfa_buf bytes = {0};
  lfa_status st = lfa_path_resolve(path, sizeof path, dir, s->file.manifest, (lfa_anchor){0}, false,
                                   "_transactions", name, err);
  if (st == LFA_OK) st = lfa_fs_read_expected(&bytes, s->fs, path, LFA_TRANSACTION_BYTES_MAX, "FA-LANCE-10", err);
  bool same_bytes = false; /* the file holds the inline transaction's canonical encoding: nothing to decode */
  if (st == LFA_OK && s->file.transaction != NULL) st = is_encoding_of(&same_bytes, s->file.transaction, &bytes, err);
  if (st == LFA_OK && !same_bytes)
    st = lfa_transaction_decode_beside(&s->txn_file, bytes.data, bytes.len, s->file.manifest, err);
  lfa_buf_free(&bytes);
  if (st == LFA_OK && !same_bytes && s->file.transaction != NULL)
    st = same_transaction(s->file.transaction, s->txn_file, err);
  if (st != LFA_OK) {
    lfa_error_prefix(err, "_transactions/%s", name);
    snprintf(path, sizeof path, "_transactions/%s", name);
    lfa_error_at_file(err, path);
  }
  if (st == LFA_OK && s->transaction == NULL) s->transaction = s->txn_file;
  return st;
}

/* ---- deletion files --------------------------------------------------------- */

/* [FA-LANCE-4] deleted offsets inside the fragment; the count as recorded.
 * physical_rows and num_deleted_rows of 0 mean "unknown" (old writers). */
static lfa_status check_deleted(const Lance__Table__DataFragment *f, const roaring_bitmap_t *d, lfa_error *err) {
  uint64_t n = roaring_bitmap_get_cardinality(d);
  if (f->physical_rows != 0 && n > 0 && roaring_bitmap_maximum(d) >= f->physical_rows)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-4", "deleted offset %u is not below physical_rows %" PRIu64,
                    (unsigned)roaring_bitmap_maximum(d), f->physical_rows);
  if (f->deletion_file->num_deleted_rows != 0 && f->deletion_file->num_deleted_rows != n)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-4", "holds %" PRIu64 " offsets, num_deleted_rows is %" PRIu64, n,
                    f->deletion_file->num_deleted_rows);
  return LFA_OK;
}

/* What a snapshot loads its objects through: its file system and its cache. */
static lfa_objects objects_of(const lfa_snapshot *s) { return (lfa_objects){s->fs, s->cache}; }

/* Counts an object read from disk, not lent by the cache. */
static void count_decoded(lfa_snapshot *s, bool decoded) {
  if (decoded) s->objects_decoded++;
}

static lfa_status load_deletion(roaring_bitmap_t **out, lfa_snapshot *s, const char *dir,
                                const Lance__Table__DataFragment *f, lfa_error *err) {
  const Lance__Table__DeletionFile *d = f->deletion_file;
  bool bitmap = d->file_type == LANCE__TABLE__DELETION_FILE__DELETION_FILE_TYPE__BITMAP;
  char rel[128], path[LFA_PATH_BYTES_MAX];
  snprintf(rel, sizeof rel, "%" PRIu64 "-%" PRIu64 "-%" PRIu64 ".%s", f->id, d->read_version, d->id,
           bitmap ? "bin" : "arrow");
  lfa_anchor a = {d->_base_id_case == LANCE__TABLE__DELETION_FILE___BASE_ID_BASE_ID, d->base_id};
  lfa_status st = lfa_path_resolve(path, sizeof path, dir, s->file.manifest, a, false, "_deletions", rel, err);
  bool decoded = false;
  if (st == LFA_OK) st = lfa_object_load_deletion(out, &decoded, objects_of(s), path, bitmap, err);
  count_decoded(s, decoded);
  if (st == LFA_OK) st = check_deleted(f, *out, err);
  if (st != LFA_OK) {
    lfa_error_prefix(err, "fragment %" PRIu64 ": _deletions/%s", f->id, rel);
    snprintf(path, sizeof path, "_deletions/%s", rel);
    lfa_error_at_file(err, path), lfa_error_at_fragment(err, f->id);
  }
  return st;
}

/* The snapshot before, and which of its fragments have the bytes of ours
 * (lfa_snapshot_options.after); both NULL when there is none. */
typedef struct earlier {
  const lfa_snapshot *from;
  const size_t *same;
} earlier;

/* Fragment i's deletion set lent again from the earlier snapshot, when its
 * bytes are an earlier fragment's and its file is under this dataset (a
 * base's path could have changed with the manifest). */
static bool lend_earlier(lfa_snapshot *s, const earlier *e, size_t i) {
  const Lance__Table__DeletionFile *d = s->file.manifest->fragments[i]->deletion_file;
  if (e->same == NULL || e->same[i] == SIZE_MAX || d->_base_id_case == LANCE__TABLE__DELETION_FILE___BASE_ID_BASE_ID)
    return false;
  roaring_bitmap_t *set = e->from->deleted[e->same[i]];
  if (!lfa_object_lend_again(s->cache, set)) return false;
  s->deleted[i] = set;
  return true;
}

static lfa_status load_deletions(lfa_snapshot *s, const char *dir, const earlier *e, lfa_error *err) {
  const Lance__Table__Manifest *m = s->file.manifest;
  s->deleted = calloc(m->n_fragments ? m->n_fragments : 1, sizeof *s->deleted);
  if (s->deleted == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate deletion sets");
  for (size_t i = 0; i < m->n_fragments; i++) {
    if (m->fragments[i]->deletion_file == NULL || lend_earlier(s, e, i)) continue;
    lfa_status st = load_deletion(&s->deleted[i], s, dir, m->fragments[i], err);
    if (st != LFA_OK) return st;
  }
  return LFA_OK;
}

/* ---- row id sequences -------------------------------------------------------- */

enum { FLAG_STABLE_ROW_IDS = 2 };

/* The bytes of an external sequence: [offset, offset + size) of a file
 * under the dataset root. */
static lfa_status read_external(lfa_buf *out, const lfa_snapshot *s, const char *dir,
                                const Lance__Table__ExternalFile *x, lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_buf whole = {0};
  lfa_status st = lfa_path_resolve(path, sizeof path, dir, s->file.manifest, (lfa_anchor){0}, false, "", x->path, err);
  if (st == LFA_OK) st = lfa_fs_read_expected(&whole, s->fs, path, LFA_MANIFEST_FILE_BYTES_MAX, "FA-LANCE-7", err);
  if (st == LFA_OK && (x->offset > whole.len || x->size > whole.len - x->offset))
    st = lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-7", "range [%" PRIu64 ", +%" PRIu64 ") passes the end of %s (%zu bytes)",
                  x->offset, x->size, x->path, whole.len);
  if (st == LFA_OK) st = lfa_buf_append(out, whole.data + x->offset, (size_t)x->size, err);
  lfa_buf_free(&whole);
  return st;
}

/* [FA-LANCE-7] with stable row ids every fragment has a sequence as long as
 * its physical rows. */
/* [FA-LIMIT-1] Every sequence expands to its fragment's physical_rows ids
 * (FA-LANCE-7), so their sum bounds the snapshot's ids before any is
 * expanded: the per-sequence limit alone let one small manifest ask for
 * several GiB. */
static lfa_status check_row_id_budget(const Lance__Table__Manifest *m, lfa_error *err) {
  uint64_t total = 0;
  for (size_t i = 0; i < m->n_fragments; i++) {
    const Lance__Table__DataFragment *f = m->fragments[i];
    if (f->row_id_sequence_case == LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE__NOT_SET) continue;
    total += f->physical_rows < LFA_SNAPSHOT_ROW_IDS_MAX ? f->physical_rows : LFA_SNAPSHOT_ROW_IDS_MAX + 1ull;
    if (total > LFA_SNAPSHOT_ROW_IDS_MAX) {
      lfa_status st = lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1",
                               "its row id sequences expand to more than LFA_SNAPSHOT_ROW_IDS_MAX (%u) ids together "
                               "(fragment %" PRIu64 " reaches it)",
                               LFA_SNAPSHOT_ROW_IDS_MAX, f->id);
      lfa_error_at_fragment(err, f->id);
      return st;
    }
  }
  return LFA_OK;
}

/* [FA-VERIFY-8] Lance 14's spilled row lineage (bit 2048, either word)
 * keeps row ids as hidden data-file columns, so a fragment without an
 * inline or external sequence is that layout: its ids are not in the
 * metadata lfa reads, which is no fault. Without the bit the same fragment
 * breaks FA-LANCE-7. */
bool lfa_snapshot_row_ids_read(const lfa_snapshot *s, size_t i) {
  const Lance__Table__Manifest *m = s->file.manifest;
  uint64_t words = m->reader_feature_flags | m->writer_feature_flags;
  return !s->stable_row_ids || (words & LFA_LANCE_FLAG_SPILLED_ROW_LINEAGE) == 0 ||
         m->fragments[i]->row_id_sequence_case != LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE__NOT_SET;
}

static lfa_status load_row_ids(lfa_snapshot *s, const char *dir, lfa_error *err) {
  const Lance__Table__Manifest *m = s->file.manifest;
  s->stable_row_ids = (m->reader_feature_flags & FLAG_STABLE_ROW_IDS) != 0;
  lfa_status budget = check_row_id_budget(m, err);
  if (budget != LFA_OK) return budget;
  s->row_ids = calloc(m->n_fragments ? m->n_fragments : 1, sizeof *s->row_ids);
  if (s->row_ids == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate row id sequences");
  for (size_t i = 0; i < m->n_fragments; i++) {
    const Lance__Table__DataFragment *f = m->fragments[i];
    lfa_buf ext = {0};
    lfa_status st = LFA_OK;
    /* [FA-LANCE-7] one id per physical row, checked before the ids are expanded */
    if (f->row_id_sequence_case == LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE_INLINE_ROW_IDS)
      st = lfa_row_ids_decode_rows(&s->row_ids[i], f->inline_row_ids.data, f->inline_row_ids.len, f->physical_rows,
                                   err);
    else if (f->row_id_sequence_case == LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE_EXTERNAL_ROW_IDS) {
      st = read_external(&ext, s, dir, f->external_row_ids, err);
      if (st == LFA_OK) st = lfa_row_ids_decode_rows(&s->row_ids[i], ext.data, ext.len, f->physical_rows, err);
    } else if (s->stable_row_ids && lfa_snapshot_row_ids_read(s, i))
      st = lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-7", "has no row id sequence, but stable row ids are on");
    else if (s->stable_row_ids)
      s->row_ids_unread++; /* spilled: the ids are in its data files, row_ids[i] stays empty */
    lfa_buf_free(&ext);
    if (st != LFA_OK) {
      lfa_error_prefix(err, "fragment %" PRIu64, f->id), lfa_error_at_fragment(err, f->id);
      return st;
    }
  }
  return LFA_OK;
}

/* ---- fragment lookup ------------------------------------------------------------ */

static int by_key(const void *a, const void *b) {
  uint64_t x = ((const lfa_fragment_key *)a)->id, y = ((const lfa_fragment_key *)b)->id;
  return (x > y) - (x < y);
}

static lfa_status index_fragments(lfa_snapshot *s, lfa_error *err) {
  const Lance__Table__Manifest *m = s->file.manifest;
  s->by_id = malloc((m->n_fragments ? m->n_fragments : 1) * sizeof *s->by_id);
  if (s->by_id == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot index fragments");
  for (size_t i = 0; i < m->n_fragments; i++) s->by_id[i] = (lfa_fragment_key){m->fragments[i]->id, i};
  qsort(s->by_id, m->n_fragments, sizeof *s->by_id, by_key);
  return LFA_OK;
}

size_t lfa_snapshot_fragment(const lfa_snapshot *s, uint64_t fragment_id) {
  lfa_fragment_key key = {fragment_id, 0};
  size_t i = lfa_search(&key, s->by_id, s->file.manifest->n_fragments, sizeof *s->by_id, by_key);
  return i != SIZE_MAX ? s->by_id[i].index : SIZE_MAX;
}

/* ---- assignment objects -------------------------------------------------------- */

/* Where an assignment object is: its resolved path, the cache key. */
static lfa_status resolve_object(char *path, size_t cap, const lfa_snapshot *s, const char *dir,
                                 const Lance__Table__FieldAssignmentFile *f, lfa_anchor a, lfa_error *err) {
  lfa_status st = lfa_path_resolve(path, cap, dir, s->file.manifest, a, true, "", f->path, err);
  if (st != LFA_OK) lfa_error_prefix(err, "%s", f->path), lfa_error_at_file(err, f->path);
  return st;
}

lfa_status lfa_snapshot_entry_fragment(size_t *index, const lfa_snapshot *s, const lfa_root_entry *e, lfa_error *err) {
  *index = lfa_snapshot_fragment(s, e->fragment_id);
  if (*index == SIZE_MAX)
    return lfa_fail(err, LFA_ERR_RULE, "FA-ROOT-5", "names fragment %" PRIu64 ", which is not in the manifest",
                    e->fragment_id);
  uint64_t rows = s->file.manifest->fragments[*index]->physical_rows;
  if (e->physical_rows != rows)
    return lfa_fail(err, LFA_ERR_RULE, "FA-ROOT-3", "records %" PRIu64 " physical rows, the manifest %" PRIu64,
                    e->physical_rows, rows);
  return LFA_OK;
}

static lfa_status load_entry(lfa_fragment_assignment *out, lfa_snapshot *s, const char *dir,
                             const lfa_root_entry *e, lfa_anchor root_anchor, lfa_error *err) {
  size_t i = SIZE_MAX;
  lfa_status checked = lfa_snapshot_entry_fragment(&i, s, e, err);
  if (checked != LFA_OK) return checked;
  uint64_t rows = s->file.manifest->fragments[i]->physical_rows;
  out->fragment_id = e->fragment_id;
  out->all = e->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED;
  if (out->all) return LFA_OK;
  /* the root decoder admits only all_assigned and partial entries */
  /* [FA-STORE-6] a partial without its own base inherits the root's */
  lfa_anchor a = e->partial->has_base_id ? (lfa_anchor){true, e->partial->base_id} : root_anchor;
  char path[LFA_PATH_BYTES_MAX];
  bool decoded = false;
  lfa_status st = resolve_object(path, sizeof path, s, dir, e->partial, a, err);
  if (st == LFA_OK) st = lfa_object_load_partial(&out->rows, &decoded, objects_of(s), path, e->partial, rows, err);
  count_decoded(s, decoded);
  if (st != LFA_OK) lfa_error_at_file(err, e->partial->path); /* the partial, not the root listing it */
  return st;
}

/* Tells the file system which partial bitmaps the root's entries are about
 * to read (those the cache does not hold): an object store fetches them
 * several at a time (lfa_fs_ops.prefetch), instead of one after another. */
static void prefetch_partials(const lfa_snapshot *s, const char *dir, const lfa_root *root, lfa_anchor root_anchor) {
  enum { BATCH = 256 };
  char *paths[BATCH];
  size_t n = 0;
  if (s->fs->ops->prefetch == NULL) return;
  for (size_t i = 0; i <= root->n_fragments; i++) {
    if (n == BATCH || (i == root->n_fragments && n > 0)) {
      lfa_fs_prefetch_in(s->fs, (const char *const *)paths, n);
      while (n > 0) free(paths[--n]);
    }
    if (i == root->n_fragments) break;
    const lfa_root_entry *e = root->fragments[i];
    if (e->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED) continue;
    lfa_anchor a = e->partial->has_base_id ? (lfa_anchor){true, e->partial->base_id} : root_anchor;
    char path[LFA_PATH_BYTES_MAX];
    if (resolve_object(path, sizeof path, s, dir, e->partial, a, NULL) != LFA_OK) continue;
    if (lfa_object_cached(s->cache, LFA_OBJECT_BITMAP, path, e->partial)) continue;
    if ((paths[n] = malloc(strlen(path) + 1)) != NULL) strcpy(paths[n++], path);
  }
}

static lfa_status load_field(lfa_tracked_field *t, lfa_snapshot *s, const char *dir, lfa_error *err) {
  const Lance__Table__FieldAssignmentFile *rf = t->root_file;
  lfa_anchor anchor = {rf->has_base_id, rf->base_id};
  char path[LFA_PATH_BYTES_MAX];
  bool decoded = false;
  lfa_status st = resolve_object(path, sizeof path, s, dir, rf, anchor, err);
  if (st == LFA_OK) st = lfa_object_load_root(&t->root, &decoded, objects_of(s), path, rf, err);
  count_decoded(s, decoded);
  if (st == LFA_OK && t->root->n_fragments > 0) {
    t->fragments = calloc(t->root->n_fragments, sizeof *t->fragments);
    if (t->fragments == NULL) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate root entries");
    else t->count = t->root->n_fragments; /* zeroed entries free cleanly on failure */
  }
  if (st == LFA_OK) prefetch_partials(s, dir, t->root, anchor);
  for (size_t i = 0; st == LFA_OK && i < t->count; i++) {
    st = load_entry(&t->fragments[i], s, dir, t->root->fragments[i], anchor, err);
    if (st != LFA_OK) {
      lfa_error_prefix(err, "root entry %zu (fragment %" PRIu64 ")", i, t->root->fragments[i]->fragment_id);
      lfa_error_at_fragment(err, t->root->fragments[i]->fragment_id);
    }
  }
  if (st != LFA_OK) {
    lfa_error_prefix(err, "field %d: root %s", t->field_id, rf->path);
    lfa_error_at_field(err, t->field_id), lfa_error_at_file(err, rf->path), lfa_error_at_version(err, s->version);
  }
  return st;
}

static int by_field_id(const void *a, const void *b) {
  int32_t x = ((const lfa_tracked_field *)a)->field_id, y = ((const lfa_tracked_field *)b)->field_id;
  return (x > y) - (x < y);
}

static lfa_status list_tracked(lfa_snapshot *s, lfa_error *err) {
  const Lance__Table__Manifest *m = s->file.manifest;
  size_t n = m->n_field_assignment_states;
  s->tracked = calloc(n ? n : 1, sizeof *s->tracked);
  if (s->tracked == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate tracked fields");
  for (size_t i = 0; i < n; i++) {
    s->tracked[i].field_id = m->field_assignment_states[i]->field_id;
    s->tracked[i].root_file = m->field_assignment_states[i]->root;
  }
  s->n_tracked = n;
  /* readers sort; order on disk is FA-STORE-2, a writer rule */
  qsort(s->tracked, n, sizeof *s->tracked, by_field_id);
  return lfa_field_index_make(&s->fields, m, err);
}

/* ---- the snapshot ----------------------------------------------------------------- */

/* Everything after the manifest file is decoded into out->file. */
static lfa_status open_rest(lfa_snapshot *out, const char *dir, const lfa_version_entry *entry, const earlier *e,
                            lfa_error *err) {
  lfa_status st = check_manifest_version(out, entry, err);
  if (st == LFA_OK) st = load_transaction(out, dir, err);
  if (st == LFA_OK) st = index_fragments(out, err);
  if (st == LFA_OK) st = load_deletions(out, dir, e, err);
  if (st == LFA_OK) st = load_row_ids(out, dir, err);
  if (st == LFA_OK) st = list_tracked(out, err);
  return st;
}

/* The manifest file of `entry` into out->file, and what of o->after it
 * shares: decoded by the caller (o->decoded, taken over, with o->same),
 * decoded beside after's (its unchanged fragments shared), or plainly. */
static lfa_status open_manifest(lfa_snapshot *out, earlier *e, const char *dir, const lfa_version_entry *entry,
                                const lfa_snapshot_options *o, lfa_error *err) {
  bool same_cache = o->after != NULL && o->cache != NULL && o->after->cache == o->cache;
  *e = (earlier){o->after, NULL};
  if (o->decoded != NULL) {
    out->file = *o->decoded;
    memset(o->decoded, 0, sizeof *o->decoded);
    e->same = same_cache ? o->same : NULL;
    return LFA_OK;
  }
  bool walk = o->in_order || o->after != NULL;
  lfa_status st = load_manifest(out, dir, entry, walk, o->after ? &o->after->file : NULL, err);
  e->same = same_cache ? out->file.same_as_prev : NULL;
  return st;
}

/* The entry of o->version in the listing of `dir`, then the open of it. */
static lfa_status open_listed(lfa_snapshot *out, const char *dir, const lfa_snapshot_options *o, lfa_error *err) {
  lfa_version_list list = {0};
  lfa_names names = {0};
  const lfa_version_entry *entry = NULL;
  memset(out, 0, sizeof *out);
  lfa_status st = lfa_dataset_versions(&list, &names, o->fs, dir, err);
  if (st != LFA_OK) return st;
  for (size_t i = 0; i < list.count; i++)
    if (list.entries[i].version == o->version) entry = &list.entries[i];
  st = entry ? lfa_snapshot_open(out, dir, entry, o, err)
             : lfa_fail(err, LFA_ERR_USAGE, NULL, "%s has no version %" PRIu64, dir, o->version);
  lfa_version_list_free(&list);
  lfa_fs_names_free(&names);
  return st;
}

lfa_status lfa_snapshot_open(lfa_snapshot *out, const char *dir, const lfa_version_entry *entry,
                             const lfa_snapshot_options *o, lfa_error *err) {
  static const lfa_snapshot_options PLAIN = {0};
  if (o == NULL) o = &PLAIN;
  if (entry == NULL) return open_listed(out, dir, o, err);
  memset(out, 0, sizeof *out);
  out->version = entry->version;
  out->fs = o->fs != NULL ? o->fs : lfa_fs_posix();
  out->cache = o->cache;
  earlier e;
  lfa_status st = open_manifest(out, &e, dir, entry, o, err);
  if (st == LFA_OK) st = open_rest(out, dir, entry, &e, err);
  for (size_t i = 0; st == LFA_OK && o->load_fields && i < out->n_tracked; i++)
    st = lfa_snapshot_load_field(out, dir, i, err);
  if (st != LFA_OK) lfa_snapshot_free(out), lfa_error_at_version(err, entry->version);
  return st;
}

lfa_status lfa_snapshot_load_field(lfa_snapshot *snap, const char *dir, size_t i, lfa_error *err) {
  if (i >= snap->n_tracked) return lfa_fail(err, LFA_ERR_USAGE, NULL, "no tracked field at index %zu", i);
  if (snap->tracked[i].root != NULL) return LFA_OK;
  return load_field(&snap->tracked[i], snap, dir, err);
}

/* tracked[] is sorted by field id (list_tracked): a binary search keeps
 * a snapshot with many tracked fields linear in them, not quadratic. */
static int tracked_by_id(const void *key, const void *t) {
  return lfa_order_i64(*(const int32_t *)key, ((const lfa_tracked_field *)t)->field_id);
}

size_t lfa_snapshot_tracked(const lfa_snapshot *snap, int32_t field_id) {
  return lfa_search(&field_id, snap->tracked, snap->n_tracked, sizeof *snap->tracked, tracked_by_id);
}

static int entry_by_id(const void *key, const void *e) {
  return lfa_order_u64(*(const uint64_t *)key, ((const lfa_fragment_assignment *)e)->fragment_id);
}

size_t lfa_assignment_entry(const lfa_fragment_assignment *entries, size_t count, uint64_t fragment_id) {
  return lfa_search(&fragment_id, entries, count, sizeof *entries, entry_by_id);
}

void lfa_snapshot_free(lfa_snapshot *snap) {
  for (size_t i = 0; i < snap->n_tracked; i++) { /* every object loaded goes back (lfa/objects.h) */
    lfa_tracked_field *t = &snap->tracked[i];
    for (size_t k = 0; k < t->count; k++) lfa_object_release(snap->cache, LFA_OBJECT_BITMAP, t->fragments[k].rows);
    free(t->fragments);
    lfa_object_release(snap->cache, LFA_OBJECT_ROOT, t->root);
  }
  free(snap->tracked);
  if (snap->deleted != NULL && snap->file.manifest != NULL)
    for (size_t i = 0; i < snap->file.manifest->n_fragments; i++)
      lfa_object_release(snap->cache, LFA_OBJECT_DELETION, snap->deleted[i]);
  free(snap->deleted);
  if (snap->row_ids != NULL && snap->file.manifest != NULL)
    for (size_t i = 0; i < snap->file.manifest->n_fragments; i++) lfa_row_ids_free(&snap->row_ids[i]);
  free(snap->row_ids);
  free(snap->by_id);
  lfa_field_index_free(&snap->fields);
  lfa_transaction_free(snap->txn_file);
  lfa_manifest_file_free(&snap->file);
  memset(snap, 0, sizeof *snap);
}

const Lance__File__Field *lfa_snapshot_field(const lfa_snapshot *snap, int32_t field_id) {
  return lfa_field_index_find(&snap->fields, field_id);
}

uint64_t lfa_snapshot_live_rows(const lfa_snapshot *snap, size_t i) {
  return lfa_live_rows(snap->file.manifest->fragments[i]->physical_rows, snap->deleted[i]);
}

void lfa_row_counts_of(lfa_row_counts *out, uint64_t physical_rows, const roaring_bitmap_t *deleted,
                       const lfa_fragment_assignment *entry) {
  uint64_t live = lfa_live_rows(physical_rows, deleted);
  *out = (lfa_row_counts){physical_rows, physical_rows - live, live, 0, 0, live};
  if (entry == NULL) return;
  if (entry->all) {
    out->assigned = live;
  } else {
    out->bitmap_rows = roaring_bitmap_get_cardinality(entry->rows);
    out->assigned = out->bitmap_rows - (deleted ? roaring_bitmap_and_cardinality(entry->rows, deleted) : 0);
  }
  out->unassigned = live - out->assigned;
}

void lfa_snapshot_row_counts(lfa_row_counts *out, const lfa_snapshot *snap, const lfa_tracked_field *tf, size_t i) {
  const Lance__Table__DataFragment *f = snap->file.manifest->fragments[i];
  size_t e = lfa_assignment_entry(tf->fragments, tf->count, f->id);
  lfa_row_counts_of(out, f->physical_rows, snap->deleted[i], e == SIZE_MAX ? NULL : &tf->fragments[e]);
}
