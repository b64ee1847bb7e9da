/* rebase.c: TEMPORARY until written: a change built against an older
 * version is refused as retryable, which is always safe (FA-CONC-3). */
#include "lfa/rebase.h"

lfa_status lfa_rebase(lfa_change *change, const lfa_request *req, const lfa_table *versions,
                      const lfa_change *changes, uint64_t r, uint64_t count, lfa_error *err) {
  (void)change, (void)req, (void)versions, (void)changes;
  return lfa_fail(err, LFA_ERR_CONFLICT, "FA-CONC-3", "rebasing from version %llu onto %llu is not implemented yet",
                  (unsigned long long)r, (unsigned long long)count);
}
