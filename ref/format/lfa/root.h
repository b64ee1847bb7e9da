/* root.h: field-assignment root objects,
 * `_field_assignments/roots/<field_id>/<uuid>.root` [FA-ROOT-1].
 *
 * A root is a bare protobuf FieldAssignmentRoot: one entry per fragment that
 * has at least one assigned row, ascending by fragment id, each either
 * `all_assigned = true` or a `partial` bitmap object. A fragment without an
 * entry has no assigned row, so the root of a field with no assigned row is
 * empty, and an empty message packs to 0 bytes: the 0-byte root.
 */
#ifndef LFA_ROOT_H
#define LFA_ROOT_H

#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"
#include "table.pb-c.h"

typedef Lance__Table__FieldAssignmentRoot lfa_root;
typedef Lance__Table__FieldAssignmentFragment lfa_root_entry;

/* Decodes a root object (0 bytes is the empty root) and checks the rules
 * that need nothing but the root: ids strictly ascending [FA-ROOT-2],
 * physical_rows > 0 [FA-ROOT-3], a state on every entry and never
 * `all_assigned = false` [FA-ROOT-4], partial files with a path and a
 * non-zero size [FA-ROOT-6], and no inline partial (field 5 of the later
 * upstream iteration) [FA-ROOT-7]. The checks against the snapshot
 * (fragment present, physical_rows equal, bitmap bounds) are the loader's.
 * OWNERSHIP: *out is the caller's (lfa_root_free). */
lfa_status lfa_root_decode(lfa_root **out, const uint8_t *data, size_t len, lfa_error *err);

/* Appends the encoded root; an empty root appends nothing. */
lfa_status lfa_root_encode(lfa_buf *out, const lfa_root *root, lfa_error *err);

void lfa_root_free(lfa_root *root);

#endif
