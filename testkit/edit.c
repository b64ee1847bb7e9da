/* edit.c: the dataset editor (lfa/edit.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lfa/edit.h"
#include "lfa/transaction.h"

/* ---- files of a dataset ------------------------------------------------------------ */

lfa_status lfa_edit_read(lfa_buf *out, const lfa_fs *fs, const char *dir, const char *rel, size_t max_bytes,
                         lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_status st = lfa_fs_join(path, sizeof path, dir, rel, err);
  return st == LFA_OK ? lfa_fs_read_in(out, fs, path, max_bytes, err) : st;
}

/* [FA-STORE-8] removed, then created: never written over, never through a link. */
lfa_status lfa_edit_replace(const lfa_fs *fs, const char *dir, const char *rel, const uint8_t *data, size_t len,
                            lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_fs_removed outcome = LFA_FS_GONE;
  uint64_t size = 0;
  lfa_status st = lfa_fs_join(path, sizeof path, dir, rel, err);
  if (st == LFA_OK) st = lfa_fs_remove_beneath_in(fs, &outcome, &size, dir, rel, NULL, err);
  if (st == LFA_OK && outcome == LFA_FS_CHANGED)
    st = lfa_fail(err, LFA_ERR_IO, NULL, "%s: not a regular file, left as it is", path);
  return st == LFA_OK ? lfa_fs_write_new_in(fs, path, data, len, err) : st;
}

lfa_status lfa_edit_remove(const lfa_fs *fs, const char *dir, const char *rel, lfa_error *err) {
  lfa_fs_removed outcome = LFA_FS_GONE;
  uint64_t size = 0;
  lfa_status st = lfa_fs_remove_beneath_in(fs, &outcome, &size, dir, rel, NULL, err);
  if (st == LFA_OK && outcome != LFA_FS_REMOVED)
    st = lfa_fail(err, LFA_ERR_IO, NULL, "%s/%s: no regular file to remove", dir, rel);
  return st;
}

/* ---- a version's manifest file and its transaction -------------------------------------- */

static lfa_status copy_name(char *out, size_t cap, const char *name, lfa_error *err) {
  size_t n = strlen(name);
  if (n >= cap) return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "path too long: %.64s...", name);
  memcpy(out, name, n + 1);
  return LFA_OK;
}

lfa_status lfa_edit_open_file(lfa_edit *e, const lfa_fs *fs, const char *dir, const char *rel, lfa_error *err) {
  lfa_buf b = {0};
  memset(&e->file, 0, sizeof e->file);
  e->fs = fs;
  lfa_status st = copy_name(e->dir, sizeof e->dir, dir, err);
  if (st == LFA_OK) st = copy_name(e->rel, sizeof e->rel, rel, err);
  if (st == LFA_OK) st = lfa_edit_read(&b, fs, dir, rel, LFA_MANIFEST_FILE_BYTES_MAX, err);
  if (st == LFA_OK) st = lfa_manifest_file_decode(&e->file, b.data, b.len, err);
  if (st != LFA_OK) lfa_error_prefix(err, "%s", rel);
  lfa_buf_free(&b);
  return st;
}

lfa_status lfa_edit_open(lfa_edit *e, const lfa_fs *fs, const char *dir, uint64_t version, lfa_error *err) {
  char rel[64];
  snprintf(rel, sizeof rel, "_versions/%" PRIu64 ".manifest", version);
  return lfa_edit_open_file(e, fs, dir, rel, err);
}

/* The `_transactions/` file the manifest names, or false. */
static bool transaction_rel(char *out, size_t cap, const Lance__Table__Manifest *m) {
  const char *name = m->transaction_file;
  if (name == NULL || name[0] == '\0') return false;
  int n = snprintf(out, cap, "_transactions/%s", name);
  return n > 0 && (size_t)n < cap;
}

lfa_status lfa_edit_load_transaction(lfa_manifest_file *file, const lfa_fs *fs, const char *dir, lfa_error *err) {
  char rel[LFA_PATH_BYTES_MAX];
  if (file->transaction != NULL) return LFA_OK;
  if (!transaction_rel(rel, sizeof rel, file->manifest))
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "version %" PRIu64 ": no inline transaction and no transaction file",
                    file->manifest->version);
  lfa_buf b = {0};
  lfa_status st = lfa_edit_read(&b, fs, dir, rel, LFA_TRANSACTION_BYTES_MAX, err);
  if (st == LFA_OK) st = lfa_transaction_decode(&file->transaction, b.data, b.len, err);
  if (st != LFA_OK) lfa_error_prefix(err, "%s", rel);
  lfa_buf_free(&b);
  return st;
}

lfa_status lfa_edit_save(const lfa_edit *e, lfa_error *err) {
  lfa_buf b = {0};
  lfa_status st = lfa_manifest_file_encode(&b, e->file.manifest, e->file.transaction, err);
  if (st == LFA_OK) st = lfa_edit_replace(e->fs, e->dir, e->rel, b.data, b.len, err);
  if (st != LFA_OK) lfa_error_prefix(err, "%s", e->rel);
  lfa_buf_free(&b);
  return st;
}

lfa_status lfa_edit_save_as(lfa_edit *e, const char *rel, lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_buf b = {0};
  lfa_status st = copy_name(e->rel, sizeof e->rel, rel, err);
  if (st == LFA_OK) st = lfa_fs_join(path, sizeof path, e->dir, rel, err);
  if (st == LFA_OK) st = lfa_manifest_file_encode(&b, e->file.manifest, e->file.transaction, err);
  if (st == LFA_OK) st = lfa_fs_write_new_in(e->fs, path, b.data, b.len, err);
  if (st != LFA_OK) lfa_error_prefix(err, "%s", rel);
  lfa_buf_free(&b);
  return st;
}

lfa_status lfa_edit_save_transaction_file(const lfa_edit *e, lfa_error *err) {
  char rel[LFA_PATH_BYTES_MAX];
  if (e->file.transaction == NULL || !transaction_rel(rel, sizeof rel, e->file.manifest)) return LFA_OK;
  lfa_buf b = {0};
  lfa_status st = lfa_transaction_encode_beside(&b, e->file.transaction, e->file.manifest, err);
  if (st == LFA_OK) st = lfa_edit_replace(e->fs, e->dir, rel, b.data, b.len, err);
  if (st != LFA_OK) lfa_error_prefix(err, "%s", rel);
  lfa_buf_free(&b);
  return st;
}

void lfa_edit_close(lfa_edit *e) { lfa_manifest_file_free(&e->file); }

/* ---- roots and bitmaps -------------------------------------------------------------- */

/* Puts `b`, the object just encoded with status `st`, at `rel`; frees it. */
static lfa_status put_encoded(const lfa_fs *fs, const char *dir, const char *rel, lfa_status st, lfa_buf *b,
                              uint64_t *size, lfa_error *err) {
  if (st == LFA_OK) st = lfa_edit_replace(fs, dir, rel, b->data, b->len, err);
  if (st == LFA_OK && size != NULL) *size = b->len;
  if (st != LFA_OK) lfa_error_prefix(err, "%s", rel);
  lfa_buf_free(b);
  return st;
}

lfa_status lfa_edit_read_root(lfa_root **out, const lfa_fs *fs, const char *dir, const char *rel, lfa_error *err) {
  lfa_buf b = {0};
  *out = NULL;
  lfa_status st = lfa_edit_read(&b, fs, dir, rel, LFA_ASSIGNMENT_OBJECT_BYTES_MAX, err);
  if (st == LFA_OK) st = lfa_root_decode(out, b.data, b.len, err);
  if (st != LFA_OK) lfa_error_prefix(err, "%s", rel);
  lfa_buf_free(&b);
  return st;
}

lfa_status lfa_edit_put_root(const lfa_fs *fs, const char *dir, const char *rel, const lfa_root *root, uint64_t *size,
                             lfa_error *err) {
  lfa_buf b = {0};
  return put_encoded(fs, dir, rel, lfa_root_encode(&b, root, err), &b, size, err);
}

lfa_status lfa_edit_read_bitmap(roaring_bitmap_t **out, const lfa_fs *fs, const char *dir, const char *rel,
                                lfa_error *err) {
  lfa_buf b = {0};
  *out = NULL;
  lfa_status st = lfa_edit_read(&b, fs, dir, rel, LFA_ASSIGNMENT_OBJECT_BYTES_MAX, err);
  if (st == LFA_OK) st = lfa_bitmap_decode(out, b.data, b.len, err);
  if (st != LFA_OK) lfa_error_prefix(err, "%s", rel);
  lfa_buf_free(&b);
  return st;
}

lfa_status lfa_edit_put_bitmap(const lfa_fs *fs, const char *dir, const char *rel, const roaring_bitmap_t *bitmap,
                               uint64_t *size, lfa_error *err) {
  lfa_buf b = {0};
  return put_encoded(fs, dir, rel, lfa_bitmap_encode(&b, bitmap, err), &b, size, err);
}
