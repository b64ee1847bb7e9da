/* test_materialize.c: is_assigned of a fragment as a bit array
 * (ref/format/bits.c). Requirement id: FA-EXPR-5 (true exactly for an
 * all_assigned entry or a partial bitmap holding the offset, false without
 * an entry). Deleted offsets are no rows of the snapshot and read 0.
 *
 * Expected bytes are written by hand: bit o is bit o % 8 of byte o / 8.
 * Then random sets against the plain loop of FA-EXPR-5, offset by offset. */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include "disk_util.h"
#include "random_set.h"

#include "lfa/bits.h"
#include "lfa/bitmap.h"
#include "lfa/history.h"
#include "lfa/materialize.h"
#include "lfa/roaring_layout.h"

/* ---- the building blocks ------------------------------------------------------------ */

/* {0, 7, 8}, the run 65536 .. 70535 (5000 values) and 131075, over 131076
 * bits = 16385 bytes: byte 0 = bits 0 and 7 = 0x81; byte 1 = bit 8 = 0x01;
 * bytes 8192 .. 8816 (bits 65536 .. 70535, 625 whole bytes) = 0xFF; byte
 * 16384 = bit 131075 = bit 3 = 0x08; every other byte 0. The same set as
 * a bitset container (5000 > 4096 values) and as a run container. */
static void check_mixed_containers(bool runs) {
  roaring_bitmap_t *b = roaring_bitmap_create();
  roaring_bitmap_add(b, 0), roaring_bitmap_add(b, 7), roaring_bitmap_add(b, 8);
  roaring_bitmap_add_range(b, 65536, 65536 + 5000);
  roaring_bitmap_add(b, 131075);
  if (runs) roaring_bitmap_run_optimize(b);
  else roaring_bitmap_remove_run_compression(b); /* none of its runs ends at 65535 */
  size_t len = 16385;
  uint8_t *out = malloc(len);
  assert_non_null(out);
  memset(out, 0xAA, len); /* whatever was there before is overwritten */
  lfa_error err = {0};
  assert_ok(lfa_bits_from_bitmap(out, len, 131076, b, &err), &err);
  for (size_t i = 0; i < len; i++) {
    uint8_t want = i == 0 ? 0x81 : i == 1 ? 0x01 : (i >= 8192 && i <= 8816) ? 0xFF : i == 16384 ? 0x08 : 0x00;
    if (out[i] != want) fail_msg("%s: byte %zu is 0x%02x, expected 0x%02x", runs ? "runs" : "bitset", i, out[i], want);
  }
  free(out);
  roaring_bitmap_free(b);
}

static void test_FA_EXPR_5_bits_from_every_container_kind(void **state) {
  (void)state;
  check_mixed_containers(false);
  check_mixed_containers(true);
}

/* Values at or past n_bits are not rows: {3, 20} over 10 bits = 2 bytes:
 * 0x08 0x00 (20 dropped); over 21 bits = 3 bytes: 0x08 0x00 0x10. */
static void test_bits_past_the_end_are_dropped(void **state) {
  (void)state;
  uint32_t v[] = {3, 20};
  roaring_bitmap_t *b = roaring_bitmap_of_ptr(2, v);
  uint8_t out[3] = {0xFF, 0xFF, 0xFF};
  lfa_error err = {0};
  assert_ok(lfa_bits_from_bitmap(out, 2, 10, b, &err), &err);
  assert_int_equal(out[0], 0x08);
  assert_int_equal(out[1], 0x00);
  assert_int_equal(out[2], 0xFF); /* not the output's */
  assert_ok(lfa_bits_from_bitmap(out, 3, 21, b, &err), &err);
  assert_int_equal(out[2], 0x10);
  assert_status(lfa_bits_from_bitmap(out, 3, 10, b, &err), LFA_ERR_USAGE, &err); /* 10 bits are 2 bytes */
  roaring_bitmap_free(b);
}

/* 24 bits all set, then {0, 9, 23} cleared: 0xFE 0xFD 0x7F. */
static void test_bits_clear(void **state) {
  (void)state;
  uint32_t v[] = {0, 9, 23};
  roaring_bitmap_t *b = roaring_bitmap_of_ptr(3, v);
  uint8_t out[3] = {0xFF, 0xFF, 0xFF};
  lfa_error err = {0};
  assert_ok(lfa_bits_clear_bitmap(out, 3, 24, b, &err), &err);
  assert_int_equal(out[0], 0xFE);
  assert_int_equal(out[1], 0xFD);
  assert_int_equal(out[2], 0x7F);
  roaring_bitmap_free(b);
}

/* ---- random sets against the plain loop ---------------------------------------------------- */

/* [FA-EXPR-5] the materialized bits of a fragment are, offset by offset,
 * "assigned and not deleted": the plain loop below, against the container
 * by container fill and clear, on random sets that may reach past n_bits
 * (those values are no rows and must leave no bit). */
static void test_FA_EXPR_5_random_bits_match_the_plain_loop(void **state) {
  (void)state;
  uint64_t rng = 0xB175B175ULL;
  for (int round = 0; round < 200; round++) {
    uint64_t n_bits = 1 + tu_rand(&rng) % (tu_rand(&rng) % 2 ? 300 : 200000);
    uint64_t limit = n_bits + tu_rand(&rng) % 100; /* values up to 99 past the end */
    roaring_bitmap_t *assigned = tu_random_set(&rng, limit), *deleted = tu_random_set(&rng, limit);
    size_t len = (size_t)(n_bits / 8 + (n_bits % 8 != 0));
    uint8_t *out = malloc(len);
    assert_non_null(out);
    memset(out, 0xA5, len); /* overwritten, never read */
    lfa_error err = {0};
    assert_ok(lfa_bits_from_bitmap(out, len, n_bits, assigned, &err), &err);
    for (uint64_t o = n_bits; o < 8 * (uint64_t)len; o++)
      if (out[o / 8] >> (o % 8) & 1) fail_msg("round %d: bit %llu past %llu bits is set", round, (unsigned long long)o,
                                             (unsigned long long)n_bits);
    assert_ok(lfa_bits_clear_bitmap(out, len, n_bits, deleted, &err), &err);
    for (uint64_t o = 0; o < n_bits; o++) {
      bool want = roaring_bitmap_contains(assigned, (uint32_t)o) && !roaring_bitmap_contains(deleted, (uint32_t)o);
      if ((bool)(out[o / 8] >> (o % 8) & 1) != want)
        fail_msg("round %d: bit %llu of %llu is %d, the plain loop says %d", round, (unsigned long long)o,
                 (unsigned long long)n_bits, !want, want);
    }
    free(out);
    roaring_bitmap_free(assigned);
    roaring_bitmap_free(deleted);
  }
}

/* [FA-EXPR-5] The one-pass fill (state and deletion mask together,
 * lfa_bits_live) against the plain loop, at the state's densities 0 ..
 * 100% (NULL: an all_assigned entry) and deletions of 0%, 1%, 10%, 50% and
 * more, over bit counts that end inside a word, a byte and a container,
 * containers of every kind, shared ones too. */
static void test_FA_EXPR_5_live_bits_at_every_density(void **state) {
  (void)state;
  static const double density[] = {-1, 0, 0.001, 0.1, 0.5, 0.9, 1}, deleted[] = {0, 0.01, 0.1, 0.5, 0.95};
  uint64_t rng = 0x11FE0B175ULL;
  for (size_t d = 0; d < sizeof density / sizeof density[0]; d++)
    for (size_t x = 0; x < sizeof deleted / sizeof deleted[0]; x++) {
      uint64_t n_bits = 1 + tu_rand(&rng) % (3 * 65536 + 100);
      roaring_bitmap_t *assigned = density[d] < 0 ? NULL : tu_density_set(&rng, n_bits + 70, density[d]);
      roaring_bitmap_t *gone = deleted[x] > 0 ? tu_density_set(&rng, n_bits + 70, deleted[x]) : NULL;
      size_t len = (size_t)(n_bits / 8 + (n_bits % 8 != 0));
      uint8_t *out = malloc(len);
      assert_non_null(out);
      memset(out, 0x5A, len); /* overwritten, never read */
      lfa_error err = {0};
      assert_ok(lfa_bits_live(out, len, n_bits, assigned, gone, &err), &err);
      for (uint64_t o = 0; o < 8 * (uint64_t)len; o++) {
        bool want = o < n_bits && (assigned == NULL || roaring_bitmap_contains(assigned, (uint32_t)o)) &&
                    (gone == NULL || !roaring_bitmap_contains(gone, (uint32_t)o));
        if ((bool)(out[o / 8] >> (o % 8) & 1) != want)
          fail_msg("density %g, deleted %g: bit %llu of %llu is %d, the plain loop says %d", density[d], deleted[x],
                   (unsigned long long)o, (unsigned long long)n_bits, !want, want);
      }
      assert_status(lfa_bits_live(out, len + 1, n_bits, assigned, gone, &err), LFA_ERR_USAGE, &err);
      free(out);
      lfa_bitmap_free(assigned);
      lfa_bitmap_free(gone);
    }
}

/* ---- a snapshot written by the reference writer ------------------------------------------- */

static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"f", "string", true, LFA_UNASSIGNED},
};
static const char *ID[] = {"id"}, *ID_F[] = {"id", "f"}, *F[] = {"f"};

/* Version 4 of a history:
 *   v1 create keys 1..20, 10 rows per fragment (fragments 0, 1), f omitted
 *   v2 update f on keys 2, 5, 10 in place: fragment 0 offsets 1, 4, 9
 *   v3 append keys 21..30 supplying f: fragment 2, all assigned
 *   v4 delete keys 5 and 21: fragment 0 offset 4, fragment 2 offset 0 */
static void write_history(const char *dir) {
  uint64_t keys[30];
  for (uint64_t k = 0; k < 30; k++) keys[k] = k + 1;
  uint64_t written[] = {2, 5, 10}, gone[] = {5, 21};
  lfa_request steps[] = {
      {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 2, .rows = {20, keys}, .rows_per_file = 10,
       .fields = {1, ID}},
      {.op = LFA_OP_UPDATE, .rows = {3, written}, .fields = {1, F}, .rewrite_columns = true},
      {.op = LFA_OP_APPEND, .rows = {10, keys + 20}, .fields = {2, ID_F}},
      {.op = LFA_OP_DELETE, .rows = {2, gone}},
  };
  lfa_history h;
  lfa_error err = {0};
  assert_ok(lfa_history_open(&h, dir, 11, &err), &err);
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
    if (lfa_history_apply(&h, &steps[i], 0, &err) != LFA_OK) fail_msg("step %zu: %s", i + 1, err.msg);
  lfa_history_close(&h);
}

/* Fragment at manifest index i: 10 rows = 2 bytes. Expected, by FA-EXPR-5
 * and the history above:
 *   fragment 0: partial {1, 4, 9}, offset 4 deleted -> bits 1, 9 -> 0x02 0x02
 *   fragment 1: no entry -> 0x00 0x00
 *   fragment 2: all_assigned, offset 0 deleted -> bits 1..9 -> 0xFE 0x03 */
static void test_FA_EXPR_5_fragments_of_a_snapshot(void **state) {
  (void)state;
  char base[] = "/tmp/lfa-materialize-XXXXXX", dir[64];
  assert_non_null(mkdtemp(base));
  snprintf(dir, sizeof dir, "%s/ds", base);
  write_history(dir);
  lfa_snapshot snap;
  load_version(&snap, dir, 4);
  assert_int_equal(snap.n_tracked, 1);
  assert_int_equal(snap.file.manifest->n_fragments, 3);
  const uint8_t want[3][2] = {{0x02, 0x02}, {0x00, 0x00}, {0xFE, 0x03}};
  lfa_error err = {0};
  for (size_t i = 0; i < 3; i++) {
    assert_int_equal(snap.file.manifest->fragments[i]->id, i);
    uint8_t out[2] = {0xAA, 0xAA};
    assert_ok(lfa_assigned_bits(out, 2, &snap, 0, i, &err), &err);
    if (out[0] != want[i][0] || out[1] != want[i][1])
      fail_msg("fragment %zu: 0x%02x 0x%02x, expected 0x%02x 0x%02x", i, out[0], out[1], want[i][0], want[i][1]);
  }
  /* usage errors leave the output alone */
  uint8_t out[3] = {0xAA, 0xAA, 0xAA};
  assert_status(lfa_assigned_bits(out, 3, &snap, 0, 0, &err), LFA_ERR_USAGE, &err); /* 10 rows are 2 bytes */
  assert_status(lfa_assigned_bits(out, 2, &snap, 1, 0, &err), LFA_ERR_USAGE, &err); /* one tracked field */
  assert_status(lfa_assigned_bits(out, 2, &snap, 0, 3, &err), LFA_ERR_USAGE, &err); /* three fragments */
  assert_int_equal(out[0], 0xAA);
  lfa_snapshot_free(&snap);
  /* a field whose root was never read cannot be materialized */
  lfa_version_list list;
  lfa_names names;
  assert_ok(lfa_dataset_versions(&list, &names, NULL, dir, &err), &err);
  const lfa_version_entry *v4 = NULL;
  for (size_t i = 0; i < list.count; i++)
    if (list.entries[i].version == 4) v4 = &list.entries[i];
  assert_non_null(v4);
  assert_ok(lfa_snapshot_open(&snap, dir, v4, NULL, &err), &err);
  assert_status(lfa_assigned_bits(out, 2, &snap, 0, 0, &err), LFA_ERR_USAGE, &err);
  lfa_snapshot_free(&snap);
  lfa_version_list_free(&list);
  lfa_fs_names_free(&names);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  assert_int_equal(system(cmd), 0);
}

/* [FA-BITMAP-2] a chunk of words becomes the container a Roaring writer
 * would make: an array of up to 4096 values (LFA_ROARING_ARRAY_MAX), a
 * bitset above; so the bitmap serializes to a valid encoding that decodes
 * to the same set, with a container of 4095, 4096 and 4097 values. */
static void test_FA_BITMAP_2_chunk_containers_at_the_array_limit(void **state) {
  (void)state;
  const uint32_t counts[] = {LFA_ROARING_ARRAY_MAX - 1, LFA_ROARING_ARRAY_MAX, LFA_ROARING_ARRAY_MAX + 1};
  static uint64_t words[1024];
  for (size_t c = 0; c < 3; c++) {
    memset(words, 0, sizeof words);
    for (uint32_t v = 0; v < counts[c]; v++) words[(3 * v) / 64] |= UINT64_C(1) << ((3 * v) % 64);
    roaring_bitmap_t *bm = roaring_bitmap_create_with_capacity(1);
    uint64_t count = 0;
    lfa_error err = {0};
    assert_ok(lfa_bits_add_chunk(bm, &count, 0, words, 1024, &err), &err);
    assert_int_equal(count, counts[c]);
    lfa_buf buf = {0};
    assert_ok(lfa_bitmap_encode(&buf, bm, &err), &err);
    roaring_bitmap_t *back = NULL;
    assert_ok(lfa_bitmap_decode(&back, buf.data, buf.len, &err), &err);
    assert_int_equal(roaring_bitmap_get_cardinality(back), counts[c]);
    for (uint32_t v = 0; v < counts[c]; v++)
      if (!roaring_bitmap_contains(back, 3 * v)) fail_msg("%u values: %u lost", counts[c], 3 * v);
    roaring_bitmap_free(back);
    lfa_buf_free(&buf);
    roaring_bitmap_free(bm);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_EXPR_5_bits_from_every_container_kind),
      cmocka_unit_test(test_bits_past_the_end_are_dropped),
      cmocka_unit_test(test_bits_clear),
      cmocka_unit_test(test_FA_BITMAP_2_chunk_containers_at_the_array_limit),
      cmocka_unit_test(test_FA_EXPR_5_random_bits_match_the_plain_loop),
      cmocka_unit_test(test_FA_EXPR_5_live_bits_at_every_density),
      cmocka_unit_test(test_FA_EXPR_5_fragments_of_a_snapshot),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
