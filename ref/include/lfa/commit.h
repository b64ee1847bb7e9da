/* commit.h: committing a change onto a head.
 *
 * A mutation (mutate.h) produces an lfa_change: the Lance transaction it
 * would commit, plus what a transaction cannot carry but a real writer has
 * already written to storage by then: the cumulative deletion sets of the
 * deletion files it names, and the logical keys of the rows it creates.
 *
 * lfa_commit builds the new snapshot N from the head P the way Lance's
 * manifest builder does (fragments added, replaced, removed; ids handed
 * out; row ids assigned), then derives every tracked field's state with
 * lfa_apply_assignment (FA-OP-3: always from P, the head committed on).
 */
#ifndef LFA_COMMIT_H
#define LFA_COMMIT_H

#include <roaring/roaring.h>

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

/* The writer feature bits this committer knows [FA-FLAG-4]: Lance's bits 1
 * to 64, whose state the reference model keeps (deletion files, stable row
 * ids, table config, base paths, data overlays), and field assignment's
 * 65536. Lance 12's 128 (covered index metadata) and 256 (mixed data-file
 * versions) it was never taught; bit 256 of a table with tracked fields is
 * the upstream draft's marker instead (FA-FLAG-7), which a commit replaces
 * by 65536. */
#define LFA_WRITER_FLAGS_KNOWN (0x7Fu | LFA_FLAG_FIELD_ASSIGNMENT)

/* [FA-FLAG-5] Refuses (LFA_ERR_RULE) to commit to `t` when its writer word
 * has a bit outside LFA_WRITER_FLAGS_KNOWN (bit 256 is known only with
 * tracked fields, as the draft's marker): this committer could not keep the
 * state of a feature it does not know. lfa_mutate checks R, and lfa_commit
 * checks P, the head after any rebase. */
lfa_status lfa_check_writer_flags(const lfa_table *t, lfa_error *err);

/* Builds N = P + change as version P.version + 1. `restored` is the table
 * of the version a Restore names, or the source of a Clone (NULL
 * otherwise); `p` is NULL only when the change creates the dataset.
 * Like Lance's committer, it repairs field ids an older writer stored twice
 * in one fragment (FA-LANCE-6), and then adds the Transfers that carry the
 * renumbered fields' tracking to the change's sidecar [FA-ID-4]: the
 * change is the transaction applied, to be stored as it is (FA-TXN-17). */
lfa_status lfa_commit(lfa_table *n, const lfa_table *p, lfa_change *change, const lfa_table *restored,
                      lfa_error *err);

#endif
