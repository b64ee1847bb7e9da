/* transaction.h: Lance transactions, from `_transactions/{read_version}-{uuid}.txn`
 * (a bare protobuf, no framing) or from a manifest's inline section, and the
 * Field Assignment sidecar in Transaction field 1005 [FA-TXN-1..4] (field 5
 * in the two earlier layouts [FA-FLAG-7]).
 */
#ifndef LFA_TRANSACTION_H
#define LFA_TRANSACTION_H

#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"
#include "transaction.pb-c.h"

/* Unpacks a transaction and checks its sidecar (field 1005) with
 * lfa_transaction_check_sidecar; field 5 stays an unknown field.
 * OWNERSHIP: *out is the caller's (lfa_transaction_free). */
lfa_status lfa_transaction_decode(Lance__Table__Transaction **out, const uint8_t *data, size_t len,
                                  lfa_error *err);
void lfa_transaction_free(Lance__Table__Transaction *txn);

/* lfa_transaction_decode of the transaction of the version whose manifest
 * is `m`, read by m's layout [FA-FLAG-7]: without bit 2^52 a field 1005
 * that does not decode as a sidecar is someone else's (kept as an unknown
 * field, not an error); where m's field 22 may be an earlier layout's
 * (lfa_manifest_reads_field_22), field 5 is the sidecar when 1005 is
 * absent and it decodes as one (checked as one). */
lfa_status lfa_transaction_decode_beside(Lance__Table__Transaction **out, const uint8_t *data, size_t len,
                                         const Lance__Table__Manifest *m, lfa_error *err);
lfa_status lfa_transaction_encode(lfa_buf *out, const Lance__Table__Transaction *txn, lfa_error *err);

/* The transaction of the version whose manifest is `m`, encoded in m's
 * layout [FA-FLAG-7]: the sidecar in field 5 for the two earlier layouts
 * (as lfa_manifest_file_encode writes the inline one), else in 1005. */
lfa_status lfa_transaction_encode_beside(lfa_buf *out, const Lance__Table__Transaction *txn,
                                         const Lance__Table__Manifest *m, lfa_error *err);

/* The rules every reader of the sidecar enforces, whatever the snapshot:
 * known initial states [FA-TXN-3], valid non-empty RowChange treemaps
 * [FA-TXN-1], FragmentStates with a path and one true marker or a valid
 * non-empty bitmap [FA-TXN-2], transfers between two ids [FA-TXN-4]. */
lfa_status lfa_transaction_check_sidecar(
    const Lance__Table__Transaction__FieldAssignmentTransaction *sidecar, lfa_error *err);

/* The operation's name as Lance spells it ("Append", "Rewrite", ...), or
 * "none" when the oneof is unset. */
const char *lfa_transaction_operation_name(const Lance__Table__Transaction *txn);

#endif
