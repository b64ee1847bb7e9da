/* range_sequences.h: the hostile stable-row-id input the snapshot budget
 * exists for (LFA_SNAPSHOT_ROW_IDS_MAX), shared by tests/test_dataset.c and
 * bench/hostile_sizes.c: `n` row-id sequences of one Range segment each,
 * sequence i covering [i * len, (i + 1) * len), a few bytes apiece however
 * large `len`. */
#ifndef LFA_RANGE_SEQUENCES_H
#define LFA_RANGE_SEQUENCES_H

#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"
#include "lfa/pb.h"
#include "rowids.pb-c.h"

/* Packs the sequences into out[0 .. n); on failure what was packed stays
 * in out for lfa_buf_free. */
static inline lfa_status pack_range_sequences(lfa_buf *out, size_t n, uint64_t len, lfa_error *err) {
  for (size_t i = 0; i < n; i++) {
    Lance__Table__U64Segment__Range range = LANCE__TABLE__U64_SEGMENT__RANGE__INIT;
    range.start = i * len, range.end = (i + 1) * len;
    Lance__Table__U64Segment segment = LANCE__TABLE__U64_SEGMENT__INIT, *segments[] = {&segment};
    segment.segment_case = LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE, segment.range = &range;
    Lance__Table__RowIdSequence sequence = LANCE__TABLE__ROW_ID_SEQUENCE__INIT;
    sequence.n_segments = 1, sequence.segments = segments;
    lfa_status st = lfa_pb_pack(&out[i], &sequence.base, err);
    if (st != LFA_OK) return st;
  }
  return LFA_OK;
}

#endif
