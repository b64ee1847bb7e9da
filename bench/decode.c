/* decode.c: decoding cost (spec/B-cost-model.md, measurement e).
 *
 * The same bytes decoded two ways, side by side:
 *   ours  lfa_manifest_file_decode (framing, bounded unpack, the field-0
 *         walk, inline transaction, descriptor rules FA-STORE-1/3/4),
 *         lfa_root_decode (FA-ROOT-2..7), lfa_bitmap_decode (every
 *         container validated, FA-BITMAP-2, then CRoaring);
 *   raw   protobuf-c's unpack of the same manifest message / root
 *         (lance__table__*__unpack), CRoaring's
 *         roaring_bitmap_portable_deserialize_safe of the same bitmap.
 * Inputs: a manifest of 10^4 fragments (bench_objects.h), a root of 10^4
 * entries (10% partial), and a partial bitmap of 10^6 rows at 50%.
 * Reported in MB/s of input; the ratio is ours / raw (no target).
 *
 *   decode [--smoke]
 */
#include "bench_objects.h"

#include "lfa/bitmap.h"

typedef struct input {
  const uint8_t *data;
  size_t len;
  const uint8_t *body; /* the bare protobuf inside (manifest) */
  size_t body_len;
  size_t count;        /* fragments or entries the decode must find */
  bool ok;
} input;

static void ours_manifest(void *ctx) {
  input *in = ctx;
  lfa_manifest_file f;
  lfa_error err = {0};
  in->ok = lfa_manifest_file_decode(&f, in->data, in->len, &err) == LFA_OK && f.manifest->n_fragments == in->count;
  if (err.status == LFA_OK) lfa_manifest_file_free(&f);
}

static void raw_manifest(void *ctx) {
  input *in = ctx;
  Lance__Table__Manifest *m = lance__table__manifest__unpack(NULL, in->body_len, in->body);
  in->ok = m != NULL && m->n_fragments == in->count;
  if (m != NULL) lance__table__manifest__free_unpacked(m, NULL);
}

static void ours_root(void *ctx) {
  input *in = ctx;
  lfa_root *r = NULL;
  lfa_error err = {0};
  in->ok = lfa_root_decode(&r, in->data, in->len, &err) == LFA_OK && r->n_fragments == in->count;
  lfa_root_free(r);
}

static void raw_root(void *ctx) {
  input *in = ctx;
  Lance__Table__FieldAssignmentRoot *r = lance__table__field_assignment_root__unpack(NULL, in->len, in->data);
  in->ok = r != NULL && r->n_fragments == in->count;
  if (r != NULL) lance__table__field_assignment_root__free_unpacked(r, NULL);
}

static void ours_bitmap(void *ctx) {
  input *in = ctx;
  roaring_bitmap_t *b = NULL;
  lfa_error err = {0};
  in->ok = lfa_bitmap_decode(&b, in->data, in->len, &err) == LFA_OK && roaring_bitmap_get_cardinality(b) == in->count;
  lfa_bitmap_free(b);
}

static void raw_bitmap(void *ctx) {
  input *in = ctx;
  roaring_bitmap_t *b = roaring_bitmap_portable_deserialize_safe((const char *)in->data, in->len);
  in->ok = b != NULL && roaring_bitmap_get_cardinality(b) == in->count;
  lfa_bitmap_free(b);
}

static bool compare(const char *object, input *ours_in, input *raw_in, bench_op ours, bench_op raw, bool smoke) {
  int reps = smoke ? 1 : 5;
  double min = smoke ? 0 : 0.05;
  double t_ours, t_raw;
  bench_time_pair(&t_ours, &t_raw, ours, ours_in, raw, raw_in, reps, min);
  bool ok = ours_in->ok && raw_in->ok;
  double mb_ours = (double)ours_in->len / t_ours / 1e6, mb_raw = (double)raw_in->len / t_raw / 1e6;
  bench_json j;
  bench_json_begin(&j, "decode");
  bench_json_str(&j, "object", object);
  bench_json_u64(&j, "bytes", ours_in->len);
  bench_json_u64(&j, "count", ours_in->count);
  bench_json_num(&j, "value", mb_ours);
  bench_json_str(&j, "unit", "MB/s");
  bench_json_num(&j, "raw_mb_per_s", mb_raw);
  bench_json_num(&j, "ours_ms", t_ours * 1e3);
  bench_json_num(&j, "raw_ms", t_raw * 1e3);
  bench_json_num(&j, "ratio", mb_ours / mb_raw);
  bench_json_str(&j, "ratio_def", "ours MB/s / raw unpack MB/s");
  bench_json_target(&j, "none", -1, NULL);
  bench_json_end(&j);
  fprintf(stderr, "decode %-40s %9zu bytes  ours %8.1f MB/s  raw %8.1f MB/s  ratio %.2f %s\n", object, ours_in->len,
          mb_ours, mb_raw, mb_ours / mb_raw, ok ? "" : "FAILED");
  return ok;
}

int main(int argc, char **argv) {
  bool smoke = argc > 1 && strcmp(argv[1], "--smoke") == 0;
  if (argc > 2 || (argc == 2 && !smoke)) {
    fprintf(stderr, "usage: decode [--smoke]\n");
    return 2;
  }
  size_t k = smoke ? 100 : 10000;
  bench_shape shape = {0, k, 1000000, 10, 2066};
  bool ok = true;
  /* the root of k entries */
  bench_root r;
  bench_root_build(&r, shape);
  lfa_buf root = {0};
  lfa_error err = {0};
  bench_check(lfa_root_encode(&root, &r.root, &err), &err);
  bench_root_free(&r);
  input root_in = {root.data, root.len, NULL, 0, k, false};
  char name[96];
  snprintf(name, sizeof name, "root of %zu entries", k);
  ok = compare(name, &root_in, &root_in, ours_root, raw_root, smoke) && ok;
  /* the manifest of k fragments, pointing at that root */
  lfa_buf man = {0};
  bench_manifest_encode(&man, shape, root.len);
  uint64_t at = lfa_load_u64le(man.data + man.len - 16);
  input man_in = {man.data, man.len, NULL, 0, k, false};
  input body_in = {man.data + at + 4, lfa_load_u32le(man.data + at), man.data + at + 4, lfa_load_u32le(man.data + at), k, false};
  snprintf(name, sizeof name, "manifest of %zu fragments", k);
  ok = compare(name, &man_in, &body_in, ours_manifest, raw_manifest, smoke) && ok;
  /* one partial bitmap: 10^6 rows (10^5 in the smoke run), every other row */
  uint64_t rows = smoke ? 100000 : 1000000;
  roaring_bitmap_t *half = bench_must(roaring_bitmap_from_range(0, rows, 2));
  lfa_buf bits = {0};
  bench_check(lfa_bitmap_encode(&bits, half, &err), &err);
  input bits_in = {bits.data, bits.len, NULL, 0, rows / 2, false};
  snprintf(name, sizeof name, "partial bitmap of %" PRIu64 " rows, 50%%", rows);
  ok = compare(name, &bits_in, &bits_in, ours_bitmap, raw_bitmap, smoke) && ok;
  roaring_bitmap_free(half);
  lfa_buf_free(&bits);
  lfa_buf_free(&root);
  lfa_buf_free(&man);
  if (!ok) fprintf(stderr, "decode: a decode failed or found the wrong count\n");
  return ok ? 0 : 1;
}
