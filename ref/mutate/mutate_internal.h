/* mutate_internal.h: what the mutation files (mutate*.c) share. Private to
 * ref/mutate/; the public face is lfa/mutate.h and lfa/change.h. */
#ifndef LFA_MUTATE_INTERNAL_H
#define LFA_MUTATE_INTERNAL_H

#include "lfa/arena.h"
#include "lfa/mutate.h"
#include "lfa/pb_types.h"

/* One mutation being built: R, the request, and the change. */
typedef struct mut {
  const lfa_table *r;
  const lfa_request *req;
  lfa_change *change;
  uint64_t version;   /* N: req->new_version, else R.version + 1 */
  unsigned files;     /* data files named so far */
  lfa_error *err;
} mut;

/* A live row of R, found by key. */
typedef struct row_ref {
  size_t fragment; /* index into r->fragments */
  uint32_t offset;
} row_ref;

/* ---- fields ---------------------------------------------------------------- */

/* The field at `path`, or NULL (segments by '.', through parent ids). */
const lfa_field *mut_field(const lfa_table *t, const char *path);
/* Resolves every name, failing with LFA_ERR_USAGE naming an unknown one
 * (`rule` for the message, e.g. "FA-INVAL-2"). ids gets names->count ids. */
lfa_status mut_fields(int32_t *ids, const mut *m, const lfa_names_list *names, const char *rule);
/* Is `id` `ancestor` or one of its descendants? */
bool mut_in_subtree(const lfa_table *t, int32_t id, int32_t ancestor);

/* A copy of `base`'s fields (none when NULL) plus `new_fields`, which get
 * ids from Lance's max field id + 1 (schema and data-file ids, tombstones
 * aside), in request order; a path's parent must exist or come earlier.
 * Only fields are filled in *out (no fragments, no state). OWNERSHIP:
 * free *out with lfa_table_free, also after a failure. */
lfa_status mut_schema_with(lfa_table *out, mut *m, const lfa_table *base, const lfa_new_field *new_fields, size_t n);
/* The id Lance gives the next new field of `t`: max_field_id() + 1 (schema
 * and data-file ids, tombstones aside), as mut_schema_with numbers them. */
int32_t mut_next_field_id(const lfa_table *t);

/* ---- rows ------------------------------------------------------------------- */

/* Finds each key's live row in R (LFA_ERR_USAGE for an unknown or deleted
 * key, or a key named twice). out gets keys->count entries. */
lfa_status mut_rows(row_ref *out, const mut *m, const lfa_keys *keys);
/* Fails when a key is already the key of a live row of R. */
lfa_status mut_new_keys(const mut *m, const lfa_keys *keys);

/* The fields a write of `names` stores (FA-NEST-2: descendants, and the
 * structs above; empty `names`: none). OWNERSHIP: free(*out). */
lfa_status mut_written_fields(int32_t **out, size_t *n, mut *m, const lfa_names_list *names);

/* [FA-INVAL-2, FA-NEST-3, FA-SEM-5] The tracked fields an invalidation of
 * `names` clears (each named field and its tracked descendants), refusing
 * unknown or untracked names and any overlap with `written`.
 * OWNERSHIP: free(*out). */
lfa_status mut_invalidated_fields(int32_t **out, size_t *n, mut *m, const lfa_names_list *names,
                                  const int32_t *written, size_t n_written);

/* ---- building the transaction (all memory from the change's arena) --------- */

Txn *mut_txn(mut *m);
Sidecar *mut_sidecar(mut *m);
/* A fresh data file name for version N: `v{N}-{k}.lance`, k counting the
 * change's files. Unique in the history, as N is [FA-LANCE-20]. */
const char *mut_file_name(mut *m);
/* A data file entry listing `fields`. */
Lance__Table__DataFile *mut_file_pb(mut *m, const char *path, const int32_t *fields, size_t n);
/* R's fragment as a DataFragment (files, rows, deletion file, row ids). */
DataFragment *mut_fragment_pb(mut *m, const lfa_fragment *f);
/* A created fragment: `rows` rows with these keys in one data file that
 * lists `fields`; id 0 (handed out at commit). Records the keys. */
DataFragment *mut_new_fragment(mut *m, const uint64_t *keys, uint64_t rows, const int32_t *fields, size_t n_fields);
/* R's schema as protobuf fields. */
Lance__File__Field **mut_schema_pb(mut *m, const lfa_table *t);
/* Sets fragment f's new cumulative deletion set (adds the side data and a
 * DeletionFile to `pb`). */
lfa_status mut_set_deletions(mut *m, DataFragment *pb, const roaring_bitmap_t *deleted);

void mut_add_initialization(mut *m, int32_t field, lfa_assignment state);
/* RowChange(field, assigned, rows) with addresses of R. */
void mut_add_row_change(mut *m, int32_t field, bool assigned, const row_ref *rows, size_t n);
/* FragmentState(first file of pb, field, cell). */
void mut_add_fragment_state(mut *m, const DataFragment *pb, int32_t field, const lfa_cell *cell);
void mut_add_transfer(mut *m, int32_t source, int32_t target);

/* ---- shared by the row mutations (mutate_rows.c, mutate_files.c) ----------- */

/* Is `id` one of ids[0 .. n)? */
bool mut_listed(const int32_t *ids, size_t n, int32_t id);
/* Per fragment of R, the offsets `rows` name (NULL where none).
 * OWNERSHIP: free with mut_free_groups(*out, R's fragment count). */
lfa_status mut_group_rows(roaring_bitmap_t ***out, mut *m, const row_ref *rows, size_t n);
void mut_free_groups(roaring_bitmap_t **groups, size_t n);
/* Deletes `gone` (offsets per fragment of R): updated fragments get their
 * grown deletion file, fragments left with no live row are removed
 * [FA-DELETE-2]. The lists are allocated in the change's arena. */
lfa_status mut_delete_rows(mut *m, roaring_bitmap_t **gone, DataFragment ***updated, size_t *n_updated,
                           uint64_t **removed, size_t *n_removed);
/* Stable row ids: pb's inline row id sequence lists `ids`. */
void mut_set_row_ids(mut *m, DataFragment *pb, const uint64_t *ids, uint64_t n);
/* [FA-UPDATE-6] [FA-REWRITE-1] The state of field f in a created fragment
 * whose offset k holds R's row rows[k]: all (written), none (invalidated),
 * or each row's state in R. OWNERSHIP: lfa_bitmap_free(cell->rows). */
void mut_moved_state(lfa_cell *cell, const mut *m, const row_ref *rows, size_t n, int32_t f, bool written,
                     bool invalidated);
/* The two modes of an Update (mutate_rows.c); merge_insert commits one too.
 * Columns: matched fragments gain a file with `written` on the matched
 * offsets. Rows (n > 0): matched rows move, whole, to one new fragment
 * (rows get sorted by place). */
lfa_status mut_update_columns(mut *m, Lance__Table__Transaction__Update *op, const row_ref *rows, size_t n,
                              const int32_t *written, size_t n_written);
lfa_status mut_update_rows(mut *m, Lance__Table__Transaction__Update *op, row_ref *rows, size_t n,
                           const int32_t *written, size_t n_written, const int32_t *inval, size_t n_inval);

/* ---- the operations, one function each (mutate_*.c) ------------------------- */

lfa_status mut_create(mut *m);
lfa_status mut_append(mut *m);
lfa_status mut_add_columns(mut *m);
lfa_status mut_track(mut *m);
lfa_status mut_rename(mut *m);
lfa_status mut_cast(mut *m);
lfa_status mut_set_nullable(mut *m);
lfa_status mut_drop(mut *m);
lfa_status mut_update(mut *m);
lfa_status mut_merge_insert(mut *m);
lfa_status mut_delete(mut *m);
lfa_status mut_compact(mut *m);
lfa_status mut_replace(mut *m);
lfa_status mut_overlay(mut *m);
lfa_status mut_restore(mut *m);
lfa_status mut_overwrite(mut *m);
lfa_status mut_clone(mut *m);
lfa_status mut_metadata(mut *m);

#endif
