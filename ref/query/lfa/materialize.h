/* materialize.h: `is_assigned(f)` of a whole fragment as a bit-packed
 * Boolean array (spec 07-is-assigned.md, FA-EXPR-5), the form a scan
 * hands to an engine: one bit per physical offset, LSB-first (bit o is bit
 * o % 8 of byte o / 8, as in an Arrow Boolean buffer).
 *
 * An `all_assigned` fragment is a memset; a partial one is built container
 * by container (lfa/bits.h), never row by row.
 */
#ifndef LFA_MATERIALIZE_H
#define LFA_MATERIALIZE_H

#include <roaring/roaring.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/dataset.h"
#include "lfa/error.h"

/* [FA-EXPR-5] Bit o of `out` = is_assigned(f) on the row at physical offset
 * o of the fragment at manifest index `fragment_index`, for tracked field
 * `tracked_index` (index into snap->tracked, which must be loaded:
 * lfa_snapshot_load_field). Deleted offsets get 0: they are no rows of the
 * snapshot (FA-SEM-1 speaks of live rows only), and bits past
 * physical_rows in the last byte are 0. `out_len` must be exactly
 * ceil(physical_rows / 8); anything else is LFA_ERR_USAGE and `out` is left
 * untouched. */
lfa_status lfa_assigned_bits(uint8_t *out, size_t out_len, const lfa_snapshot *snap, size_t tracked_index,
                             size_t fragment_index, lfa_error *err);

#endif
