/* change.h: what a mutation produces (lfa/mutate.h) and a commit consumes
 * (lfa/commit.h).
 *
 * An lfa_change is the Lance transaction a mutation would commit, plus what
 * a transaction cannot carry but a real writer has already written to
 * storage by then: the cumulative deletion sets of the deletion files it
 * names, and the logical keys of the rows it creates.
 */
#ifndef LFA_CHANGE_H
#define LFA_CHANGE_H

#include <roaring/roaring.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/arena.h"
#include "lfa/error.h"
#include "lfa/flags.h"
#include "lfa/table.h"
#include "transaction.pb-c.h"

/* The set a deletion file holds, by fragment id and DeletionFile.id. */
typedef struct lfa_deletion_set {
  uint64_t fragment_id;
  uint64_t file_id;
  roaring_bitmap_t *offsets; /* owned by the change */
} lfa_deletion_set;

/* The logical keys of a created fragment's rows, by its first data file. */
typedef struct lfa_row_keys {
  const char *first_file;
  uint64_t count;
  const uint64_t *keys;
} lfa_row_keys;

/* OWNERSHIP: the transaction, arrays and key arrays live in `arena`; the
 * deletion bitmaps are freed by lfa_change_free. */
typedef struct lfa_change {
  lfa_arena arena;
  Lance__Table__Transaction *txn;
  size_t n_deletions;
  lfa_deletion_set *deletions;
  size_t n_keys;
  lfa_row_keys *keys;
  bool stable_row_ids; /* when the change creates the dataset: stable row ids on */
  /* merge_insert on _rowid: source rows whose value named no live row of R,
   * neither written nor inserted (the statistics a writer returns,
   * FA-MERGEINSERT-2) */
  uint64_t unmatched_source_rows;
} lfa_change;

void lfa_change_free(lfa_change *change);

/* Entries of the change's FieldAssignmentTransaction (the sidecar, created
 * when absent) for committers that adjust a change after the mutation
 * built it: a commit that renumbers a duplicated field id carries its state
 * to the new id [FA-ID-2], a rebase restates a rewrite's new fragments from
 * the head it lands on [FA-CONC-5]. `r` is the snapshot the change is
 * committed on. Out of memory shows in lfa_arena_check(&change->arena). */
Lance__Table__Transaction__FieldAssignmentTransaction *lfa_change_sidecar(lfa_change *change, lfa_error *err);
void lfa_change_add_transfer(lfa_change *change, const lfa_table *r, int32_t source, int32_t target, lfa_error *err);
void lfa_change_add_fragment_state(lfa_change *change, const lfa_table *r, const Lance__Table__DataFragment *pb,
                                   int32_t field, const lfa_cell *cell, lfa_error *err);

/* The writer feature bits this committer knows [FA-FLAG-4]: Lance's bits 1
 * to 64, whose state the reference model keeps (deletion files, stable row
 * ids, table config, base paths, data overlays), and field assignment's
 * 2^52. Lance 12's 128 (covered index metadata) and 256 (mixed data-file
 * versions) it was never taught; bit 65536 or 256 of a table with tracked
 * fields read by an earlier layout is that layout's marker instead
 * (FA-FLAG-7), which a commit replaces by 2^52. */
#define LFA_WRITER_FLAGS_KNOWN (0x7Fu | LFA_FLAG_FIELD_ASSIGNMENT)

/* [FA-FLAG-5] Refuses (LFA_ERR_RULE) to commit to `t` when its writer word
 * has a bit outside LFA_WRITER_FLAGS_KNOWN (65536 and 256 are known only
 * with tracked fields, as an earlier layout's marker): this committer could not keep the
 * state of a feature it does not know. lfa_mutate checks R, and lfa_commit
 * checks P, the head after any rebase. */
lfa_status lfa_check_writer_flags(const lfa_table *t, lfa_error *err);

#endif
