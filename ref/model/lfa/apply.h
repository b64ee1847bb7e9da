/* apply.h: the transition rule of 05§1 (FA-OP-1,
 * FA-OP-2): from the parent snapshot P, the transaction T and the structure
 * of the new snapshot N (its schema and fragments, with final ids), the
 * state of every field tracked in N.
 *
 * The reference committer and the verifier both call it, so both derive the
 * state from P and T alone (FA-SEM-6): one rule, one implementation.
 *
 *   1. tracked fields of N                       FA-OP-1, FA-TXN-8, FA-TXN-9,
 *                                                FA-ID-1, FA-ID-4
 *   2. per field: start state                    FA-OP-2.1, FA-APPEND-1
 *   3. rows the operation writes                 FA-OP-2.2, table of §18
 *   4. fragment states                           FA-OP-2.3, FA-TXN-13, FA-TXN-14
 *   5. row changes                               FA-OP-2.4, FA-TXN-10..12, FA-SEM-5
 *   6. canonical cells, FA-SEM-8
 */
#ifndef LFA_APPLY_H
#define LFA_APPLY_H

#include <stdbool.h>
#include <stdint.h>

#include "lfa/error.h"
#include "lfa/table.h"
#include "transaction.pb-c.h"

/* Fills n->tracked. `p` is NULL when T creates the dataset. `n` must have
 * no tracked fields yet. Restore and Clone take their state from another
 * version: use lfa_apply_copy_state. A transaction that breaks a rule is
 * refused with its requirement id, and `n` is left without tracked fields. */
lfa_status lfa_apply_assignment(lfa_table *n, const lfa_table *p, const Lance__Table__Transaction *t,
                                lfa_error *err);

/* [FA-ID-4] Was field `old_id` of P renumbered to `new_id` of N: the old id
 * left the schema, the new one is not in P's, and both have the same name
 * path and logical type? */
bool lfa_apply_renumbered(const lfa_table *p, int32_t old_id, const lfa_table *n, int32_t new_id);

/* FA-RESTORE-1, FA-CLONE-1/2: N tracks what `source` tracks with the same
 * state; `source` and `n` must have the same fragments. */
lfa_status lfa_apply_copy_state(lfa_table *n, const lfa_table *source, lfa_error *err);

#endif
