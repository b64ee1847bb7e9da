/* roundtrip_row_ids: decode, encode, decode again, for row id sequences
 * (FA-LANCE-11). The input is decode_row_ids': bytes 0-1 (little-endian)
 * are the fragment's physical_rows, the rest the sequence, decoded with
 * lfa_row_ids_decode_rows as readers do (so at most 65,535 ids: a 9-byte
 * range of 2^24 ids once took 4.4 s and 1 GiB under ASan, the slow units
 * kept in the corpus as slow_ranges_*).
 *
 * "Same value" here: the same ids in the same physical order (the expanded
 * sequence), not the same segments: lfa_row_ids_encode picks its own
 * segments (ranges for long runs, narrowest arrays otherwise). For inputs
 * the decoder accepts (I1), with B = encode(I1) and I2 = decode(B) for as
 * many rows: B decodes, I2 lists exactly I1's ids, and encode(I2) == B
 * byte for byte. Any difference aborts.
 */
#include "fuzz_helpers.h"
#include "lfa/rowids.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  uint64_t rows = (uint64_t)data[0] | (uint64_t)data[1] << 8;
  lfa_row_ids i1, i2;
  if (lfa_row_ids_decode_rows(&i1, data + 2, size - 2, rows, NULL) != LFA_OK) return 0;
  lfa_buf b = {0}, c = {0};
  lfa_error err = fuzz_error();
  FUZZ_ASSERT(lfa_row_ids_encode(&b, i1.ids, i1.count, &err) == LFA_OK, "decoded ids do not encode");
  lfa_status st = lfa_row_ids_decode_rows(&i2, b.data, b.len, rows, &err);
  if (st != LFA_OK) fprintf(stderr, "re-decode: %s\n", err.msg);
  FUZZ_ASSERT(st == LFA_OK, "the encoding of decoded ids does not decode");
  FUZZ_ASSERT(i1.count == i2.count, "the number of ids changed");
  FUZZ_ASSERT(i1.count == 0 || memcmp(i1.ids, i2.ids, (size_t)i1.count * sizeof *i1.ids) == 0,
              "the ids changed in the round trip");
  FUZZ_ASSERT(lfa_row_ids_encode(&c, i2.ids, i2.count, &err) == LFA_OK, "re-decoded ids do not encode");
  FUZZ_ASSERT(fuzz_same_bytes(&b, &c), "the encoding is not stable after one round");
  lfa_buf_free(&b);
  lfa_buf_free(&c);
  lfa_row_ids_free(&i1);
  lfa_row_ids_free(&i2);
  return 0;
}
