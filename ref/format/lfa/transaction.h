/* transaction.h: Lance transactions, from `_transactions/{read_version}-{uuid}.txn`
 * (a bare protobuf, no framing) or from a manifest's inline section, and the
 * Field Assignment sidecar in Transaction field 5 [FA-TXN-1..4].
 */
#ifndef LFA_TRANSACTION_H
#define LFA_TRANSACTION_H

#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"
#include "transaction.pb-c.h"

/* Unpacks a transaction and checks its sidecar with
 * lfa_transaction_check_sidecar. OWNERSHIP: *out is the caller's
 * (lfa_transaction_free). */
lfa_status lfa_transaction_decode(Lance__Table__Transaction **out, const uint8_t *data, size_t len,
                                  lfa_error *err);
void lfa_transaction_free(Lance__Table__Transaction *txn);
lfa_status lfa_transaction_encode(lfa_buf *out, const Lance__Table__Transaction *txn, lfa_error *err);

/* The rules every reader of field 5 enforces, whatever the snapshot:
 * known initial states [FA-TXN-3], valid non-empty RowChange treemaps
 * [FA-TXN-1], FragmentStates with a path and one true marker or a valid
 * non-empty bitmap [FA-TXN-2], transfers between two ids [FA-TXN-4]. */
lfa_status lfa_transaction_check_sidecar(
    const Lance__Table__Transaction__FieldAssignmentTransaction *sidecar, lfa_error *err);

/* The operation's name as Lance spells it ("Append", "Rewrite", ...), or
 * "none" when the oneof is unset. */
const char *lfa_transaction_operation_name(const Lance__Table__Transaction *txn);

#endif
