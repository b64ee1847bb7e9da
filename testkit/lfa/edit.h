/* edit.h: a dataset edited the way another writer could have left it, for
 * the tools and tests that build faulty or unusual datasets from valid ones
 * (conformance/tools/make_invalid.c, the rule tests, the verifier fault
 * fuzzer, the interop tools). The one editor of the tree: open a version,
 * change its decoded manifest, transaction, root or bitmap in memory, save
 * it.
 *
 * Everything goes through an lfa_fs (NULL: the POSIX file system), so the
 * same edit works on a disk and on a memfs. Objects are immutable on every
 * file system [FA-STORE-8]: saving never writes over a file. A file saved
 * again under its own name is first removed, then created anew with
 * write_new, so a link planted at its name is removed, never written
 * through; an object saved under a new name is created only if nothing is
 * there. Every file is read within the named limit of its kind. */
#ifndef LFA_EDIT_H
#define LFA_EDIT_H

#include <stddef.h>
#include <stdint.h>

#include "lfa/bitmap.h"
#include "lfa/bytes.h"
#include "lfa/error.h"
#include "lfa/fs.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/root.h"

/* ---- files of a dataset ------------------------------------------------------------ */

/* The file `rel` of dataset `dir`, at most max_bytes. */
lfa_status lfa_edit_read(lfa_buf *out, const lfa_fs *fs, const char *dir, const char *rel, size_t max_bytes,
                         lfa_error *err);

/* The file `rel` of `dir` made to hold exactly these bytes: whatever file
 * was there removed first, then created (with missing parent directories)
 * by a create-only write. LFA_ERR_IO when something else than a regular
 * file is in the way. */
lfa_status lfa_edit_replace(const lfa_fs *fs, const char *dir, const char *rel, const uint8_t *data, size_t len,
                            lfa_error *err);

/* Removes the regular file `rel` of `dir`; LFA_ERR_IO when none is there. */
lfa_status lfa_edit_remove(const lfa_fs *fs, const char *dir, const char *rel, lfa_error *err);

/* ---- a version's manifest file and its transaction -------------------------------------- */

/* One manifest file, decoded for editing. OWNERSHIP: `file` is the
 * editor's, freed by lfa_edit_close; an edit may swap any of its parts for
 * others it owns the same way (malloc'ed, as protobuf-c frees them). */
typedef struct lfa_edit {
  const lfa_fs *fs;              /* NULL: the POSIX file system */
  char dir[LFA_PATH_BYTES_MAX];  /* the dataset */
  char rel[LFA_PATH_BYTES_MAX];  /* the manifest file, relative to dir */
  lfa_manifest_file file;        /* manifest, index section, inline transaction */
} lfa_edit;

/* Opens version `version` of `dir` under the reference writer's names
 * (V1: `_versions/{version}.manifest`). */
lfa_status lfa_edit_open(lfa_edit *e, const lfa_fs *fs, const char *dir, uint64_t version, lfa_error *err);

/* Opens the manifest file `rel` of `dir` (any naming). On failure nothing
 * is left to close. */
lfa_status lfa_edit_open_file(lfa_edit *e, const lfa_fs *fs, const char *dir, const char *rel, lfa_error *err);

/* The transaction of manifest file `file` (of dataset `dir`) in
 * file->transaction: the inline one, or, when there is none, the
 * `_transactions/` file the manifest names, read and decoded.
 * LFA_ERR_USAGE when the manifest names none. */
lfa_status lfa_edit_load_transaction(lfa_manifest_file *file, const lfa_fs *fs, const char *dir, lfa_error *err);

/* Encodes the manifest file again (manifest and inline transaction; the
 * index section is dropped) and puts it at its own name (lfa_edit_replace). */
lfa_status lfa_edit_save(const lfa_edit *e, lfa_error *err);

/* Puts the encoded manifest file at the new name `rel` of the dataset,
 * create-only: LFA_ERR_IO when anything is there. e->rel becomes `rel`. */
lfa_status lfa_edit_save_as(lfa_edit *e, const char *rel, lfa_error *err);

/* The `_transactions/` file the manifest names, replaced by exactly the
 * inline transaction's bytes in the manifest's layout, as a writer keeps
 * the two [FA-LANCE-10]. Nothing when the manifest names no file or has no
 * inline transaction. */
lfa_status lfa_edit_save_transaction_file(const lfa_edit *e, lfa_error *err);

void lfa_edit_close(lfa_edit *e);

/* ---- roots and bitmaps -------------------------------------------------------------- */

/* The root `rel` of `dir`, decoded. OWNERSHIP: *out is the caller's (lfa_root_free). */
lfa_status lfa_edit_read_root(lfa_root **out, const lfa_fs *fs, const char *dir, const char *rel, lfa_error *err);

/* `root` encoded and put at `rel` (lfa_edit_replace); *size (may be NULL)
 * its bytes, for the descriptor or root entry that names it. */
lfa_status lfa_edit_put_root(const lfa_fs *fs, const char *dir, const char *rel, const lfa_root *root, uint64_t *size,
                             lfa_error *err);

/* The Roaring bitmap `rel` of `dir`, decoded. OWNERSHIP: lfa_bitmap_free. */
lfa_status lfa_edit_read_bitmap(roaring_bitmap_t **out, const lfa_fs *fs, const char *dir, const char *rel,
                                lfa_error *err);

/* `bitmap` encoded and put at `rel` (lfa_edit_replace); *size (may be NULL) its bytes. */
lfa_status lfa_edit_put_bitmap(const lfa_fs *fs, const char *dir, const char *rel, const roaring_bitmap_t *bitmap,
                               uint64_t *size, lfa_error *err);

#endif
