/* commit.h: committing a change (lfa/change.h) onto a head.
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
#include "lfa/change.h"
#include "lfa/table.h"


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
