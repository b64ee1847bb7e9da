/* rebase.h: moving a change built against R onto a later head P
 * (spec 06-concurrency.md). The intervening commits are those that made
 * versions R+1 .. P; the change's sidecar is rewritten for P (FA-CONC-4:
 * row addresses translated; FA-CONC-5: fragment states of moved rows
 * recomputed from P), or the commit is refused as retryable
 * (LFA_ERR_CONFLICT) where the spec says the pair must conflict.
 */
#ifndef LFA_REBASE_H
#define LFA_REBASE_H

#include "lfa/commit.h"
#include "lfa/error.h"
#include "lfa/mutate.h"
#include "lfa/table.h"

/* `versions[i]` is version i + 1 and `changes[i]` the change that made it;
 * `r` is the read version, `count` the head. `req` is the request `change`
 * was built from (a rebase may rebuild part of it against P). Every change
 * was built to become the version it made (lfa_request.new_version, as
 * lfa_history_apply builds them): a fragment one of them created is then
 * found by its first data file alone [FA-LANCE-20]. */
lfa_status lfa_rebase(lfa_change *change, const lfa_request *req, const lfa_table *versions,
                      const lfa_change *changes, uint64_t r, uint64_t count, lfa_error *err);

#endif
