/* test_onto.c: lfa_onto_commit, one version onto a dataset another writer
 * made (here the reference writer; the real-Lance lane does the same onto
 * tables Lance wrote, interop/onto_lane.mjs). Expected states are derived
 * by hand from the spec: Initialization(ASSIGNED) makes every physical row
 * assigned (04§2), an invalidation clears exactly the named rows
 * (FA-INVAL-1). */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include "disk_util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lfa/fs.h"
#include "lfa/history.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/onto.h"
#include "lfa/pb.h"
#include "lfa/versions.h"

static const uint64_t KEYS6[] = {1, 2, 3, 4, 5, 6};
static const lfa_new_field SCHEMA[] = {{"id", "int64", false, LFA_UNTRACKED}, {"v", "int64", true, LFA_UNTRACKED}};

typedef struct scratch {
  char base[64], dir[96];
} scratch;

/* Version 1: six rows in two fragments of three (ids 0 and 1), stable row
 * ids on; version 2 deletes key 2 (fragment 0, offset 1). */
static void make(scratch *s) {
  strcpy(s->base, "/tmp/lfa-onto-XXXXXX");
  assert_non_null(mkdtemp(s->base));
  snprintf(s->dir, sizeof s->dir, "%s/t", s->base);
  lfa_history h;
  lfa_error err = {0};
  assert_ok(lfa_history_open(&h, s->dir, 7, &err), &err);
  lfa_request create = {.op = LFA_OP_CREATE, .n_new_fields = 2, .new_fields = SCHEMA, .stable_row_ids = true,
                        .rows = {6, KEYS6}, .rows_per_file = 3, .fields = {2, (const char *[]){"id", "v"}}};
  lfa_request del = {.op = LFA_OP_DELETE, .rows = {1, (const uint64_t[]){2}}};
  assert_ok(lfa_history_apply(&h, &create, 0, &err), &err);
  assert_ok(lfa_history_apply(&h, &del, 0, &err), &err);
  lfa_history_close(&h);
}

static void unmake(const scratch *s) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->base);
  assert_int_equal(system(cmd), 0);
}

static lfa_onto_request track(lfa_assignment a) {
  return (lfa_onto_request){.op = LFA_OP_TRACK, .field = "v", .initial = a, .seed = 11, .timestamp_seconds = 1};
}

static lfa_onto_request invalidate(const char *field, bool by_id, size_t n, const uint64_t *rows) {
  return (lfa_onto_request){.op = LFA_OP_UPDATE, .field = field, .by_row_id = by_id, .n_rows = n, .rows = rows,
                            .seed = 12, .timestamp_seconds = 2};
}

/* The manifest file of version `v` of `dir` (V1 names). */
static void version_path(char path[160], const char *dir, uint64_t v) {
  lfa_version_format_name(path + snprintf(path, 160, "%s/_versions/", dir), 32, v, LFA_NAMING_V1);
}

static void manifest_of(lfa_manifest_file *out, const char *dir, uint64_t v) {
  char path[160];
  version_path(path, dir, v);
  lfa_buf b = {0};
  lfa_error err = {0};
  assert_ok(lfa_fs_read(&b, path, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err);
  assert_ok(lfa_manifest_file_decode(out, b.data, b.len, &err), &err);
  lfa_buf_free(&b);
}

/* Files anywhere under `dir` (a refusal writes none). */
static int count_files(const char *dir) {
  char cmd[256];
  int n = -1;
  snprintf(cmd, sizeof cmd, "find '%s' -type f | wc -l", dir);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  assert_int_equal(fscanf(p, "%d", &n), 1);
  pclose(p);
  return n;
}

/* make(), then `v` tracked from version 3 on. */
static void make_tracked(scratch *s, lfa_assignment a, bool writer_bit_only) {
  make(s);
  lfa_error err = {0};
  lfa_onto_result r;
  lfa_onto_request t = track(a);
  t.writer_bit_only = writer_bit_only;
  assert_ok(lfa_onto_commit(&r, s->dir, &t, &err), &err);
  assert_int_equal(r.version, 3);
  assert_int_equal(r.attempts, 1);
}

static void test_FA_PROJECT_4_FA_INVAL_1_track_then_invalidate(void **state) {
  (void)state;
  scratch s;
  make_tracked(&s, LFA_ASSIGNED, false);
  lfa_error err = {0};
  lfa_onto_result r;
  lfa_table n;
  read_table(&n, s.dir, 3);
  const lfa_field_state *st = lfa_table_tracked(&n, 1);
  assert_non_null(st);
  assert_int_equal(n.n_fragments, 2);
  assert_int_equal(st->cells[0].kind, LFA_CELL_ALL); /* every physical row, the deleted one too (04§2) */
  assert_int_equal(st->cells[1].kind, LFA_CELL_ALL);
  lfa_table_free(&n);
  lfa_manifest_file m;
  manifest_of(&m, s.dir, 3);
  /* [FA-FLAG-1] [FA-FLAG-2] the marker in both words by default */
  assert_true(m.manifest->writer_feature_flags & LFA_FLAG_FIELD_ASSIGNMENT);
  assert_true(m.manifest->reader_feature_flags & LFA_FLAG_FIELD_ASSIGNMENT);
  assert_true(m.manifest->writer_feature_flags & LFA_LANCE_FLAG_STABLE_ROW_IDS); /* the head's bits kept */
  assert_int_equal(m.transaction->operation_case, LANCE__TABLE__TRANSACTION__OPERATION_PROJECT);
  lfa_manifest_file_free(&m);
  /* row address 1 << 32 | 2 (fragment 1, offset 2), and row id 0 (fragment 0, offset 0) */
  const uint64_t addr[] = {(1ull << 32) | 2}, ids[] = {0};
  lfa_onto_request i1 = invalidate("v", false, 1, addr), i2 = invalidate("v", true, 1, ids);
  i1.writer_bit_only = true;
  assert_ok(lfa_onto_commit(&r, s.dir, &i1, &err), &err);
  assert_ok(lfa_onto_commit(&r, s.dir, &i2, &err), &err);
  assert_int_equal(r.version, 5);
  read_table(&n, s.dir, 5);
  st = lfa_table_tracked(&n, 1);
  assert_int_equal(st->cells[0].kind, LFA_CELL_PARTIAL);
  assert_int_equal(st->cells[1].kind, LFA_CELL_PARTIAL);
  roaring_bitmap_t *want = roaring_bitmap_of(2, 1, 2);
  assert_true(roaring_bitmap_equals(st->cells[0].rows, want));
  roaring_bitmap_free(want);
  assert_int_equal(roaring_bitmap_get_cardinality(st->cells[1].rows), 2);
  assert_false(roaring_bitmap_contains(st->cells[1].rows, 2));
  assert_int_equal(n.n_fragments, 2);
  lfa_table_free(&n);
  manifest_of(&m, s.dir, 4);
  assert_true(m.manifest->writer_feature_flags & LFA_FLAG_FIELD_ASSIGNMENT);
  assert_true(m.manifest->reader_feature_flags & LFA_FLAG_FIELD_ASSIGNMENT); /* kept from 3, not cleared */
  assert_int_equal(m.transaction->operation_case, LANCE__TABLE__TRANSACTION__OPERATION_UPDATE);
  assert_int_equal(m.transaction->update->n_updated_fragments + m.transaction->update->n_new_fragments +
                       m.transaction->update->n_removed_fragment_ids,
                   0);
  lfa_manifest_file_free(&m);
  /* [FA-STORE-11] fragment 1's set is the same in 4 and 5: one bitmap */
  lfa_snapshot s4, s5;
  load_version(&s4, s.dir, 4);
  load_version(&s5, s.dir, 5);
  const lfa_root *r4 = s4.tracked[0].root, *r5 = s5.tracked[0].root;
  assert_int_equal(r4->n_fragments, 2);
  assert_int_equal(r5->n_fragments, 2);
  assert_string_equal(r4->fragments[1]->partial->path, r5->fragments[1]->partial->path);
  assert_int_equal(r4->fragments[0]->state_case, LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED);
  lfa_snapshot_free(&s4);
  lfa_snapshot_free(&s5);
  verify_clean(s.dir);
  unmake(&s);
}

static void test_FA_FLAG_2_writer_bit_only(void **state) {
  (void)state;
  scratch s;
  make_tracked(&s, LFA_UNASSIGNED, true);
  lfa_manifest_file m;
  manifest_of(&m, s.dir, 3);
  assert_true(m.manifest->writer_feature_flags & LFA_FLAG_FIELD_ASSIGNMENT);
  assert_false(m.manifest->reader_feature_flags & LFA_FLAG_FIELD_ASSIGNMENT);
  lfa_manifest_file_free(&m);
  lfa_table n;
  read_table(&n, s.dir, 3);
  assert_int_equal(lfa_table_tracked(&n, 1)->cells[0].kind, LFA_CELL_NONE);
  lfa_table_free(&n);
  unmake(&s);
}

/* One refusal: the status and rule, and not one file more. */
static void refused(const scratch *s, const lfa_onto_request *q, lfa_status want, const char *rule) {
  lfa_error err = {0};
  lfa_onto_result r;
  int before = count_files(s->dir);
  assert_status(lfa_onto_commit(&r, s->dir, q, &err), want, &err);
  assert_rule(&err, rule);
  assert_int_equal(count_files(s->dir), before);
}

/* Rewrites version v's manifest with writer bit `bit` added (`clear`
 * cleared from both words), `index` as its index section (NULL: none) and
 * `extra` as its only unknown field (NULL: its own). */
static void rewrite_with(const scratch *s, uint64_t v, uint64_t bit, uint64_t clear,
                         const Lance__Table__IndexSection *index, ProtobufCMessageUnknownField *extra) {
  char path[160];
  version_path(path, s->dir, v);
  lfa_buf b = {0}, out = {0};
  lfa_error err = {0};
  lfa_manifest_file mf;
  assert_ok(lfa_fs_read(&b, path, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err);
  assert_ok(lfa_manifest_file_decode(&mf, b.data, b.len, &err), &err);
  mf.manifest->writer_feature_flags = (mf.manifest->writer_feature_flags & ~clear) | bit;
  mf.manifest->reader_feature_flags &= ~clear;
  ProtobufCMessageUnknownField *kept = mf.manifest->base.unknown_fields;
  unsigned n_kept = mf.manifest->base.n_unknown_fields;
  if (extra != NULL) mf.manifest->base.unknown_fields = extra, mf.manifest->base.n_unknown_fields = 1;
  assert_ok(lfa_manifest_file_encode_sections(&out, mf.manifest, index, mf.transaction, &err), &err);
  mf.manifest->base.unknown_fields = kept, mf.manifest->base.n_unknown_fields = n_kept;
  assert_int_equal(unlink(path), 0);
  assert_ok(lfa_fs_write_new(path, out.data, out.len, &err), &err);
  lfa_manifest_file_free(&mf);
  lfa_buf_free(&b);
  lfa_buf_free(&out);
}

/* The same, and with `index` a field lfa does not know (127, varint 42). */
static void rewrite_version(const scratch *s, uint64_t v, uint64_t bit, uint64_t clear,
                            const Lance__Table__IndexSection *index) {
  ProtobufCMessageUnknownField future = {127, PROTOBUF_C_WIRE_TYPE_VARINT, 1, (uint8_t[]){42}};
  rewrite_with(s, v, bit, clear, index, index != NULL ? &future : NULL);
}

static void rewrite_head(const scratch *s, uint64_t bit, const Lance__Table__IndexSection *index) {
  rewrite_version(s, 2, bit, 0, index);
}

static void add_writer_bit(const scratch *s, uint64_t bit) { rewrite_head(s, bit, NULL); }

/* The head's manifest gains a field `field` of another writer: a message
 * {1: "x"}, which is no descriptor list (01§1). */
static void add_foreign_field(const scratch *s, uint32_t field) {
  ProtobufCMessageUnknownField foreign = {field, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, 4, (uint8_t[]){3, 0x0a, 1, 'x'}};
  rewrite_with(s, 2, 0, 0, NULL, &foreign);
}

/* [FA-FLAG-7] A head in the upstream draft's layout (descriptors, writer
 * bit 256, no marker): the commit writes the marker and drops bit 256 from
 * both words; never bit 256 as field assignment's. */
static void test_FA_FLAG_7_draft_layout_gets_the_marker(void **state) {
  (void)state;
  scratch s;
  make_tracked(&s, LFA_ASSIGNED, false);
  rewrite_version(&s, 3, LFA_FLAG_FIELD_ASSIGNMENT_DRAFT, LFA_FLAG_FIELD_ASSIGNMENT, NULL);
  lfa_error err = {0};
  lfa_onto_result r;
  const uint64_t addr[] = {0};
  lfa_onto_request q = invalidate("v", false, 1, addr);
  assert_ok(lfa_onto_commit(&r, s.dir, &q, &err), &err);
  assert_int_equal(r.version, 4);
  lfa_manifest_file m;
  manifest_of(&m, s.dir, 4);
  assert_true(m.manifest->writer_feature_flags & LFA_FLAG_FIELD_ASSIGNMENT);
  assert_true(m.manifest->reader_feature_flags & LFA_FLAG_FIELD_ASSIGNMENT);
  assert_false((m.manifest->writer_feature_flags | m.manifest->reader_feature_flags) & LFA_FLAG_FIELD_ASSIGNMENT_DRAFT);
  lfa_manifest_file_free(&m);
  unmake(&s);
}

/* [FA-LANCE-1] The head's index section (a real Lance 12 one) and a field
 * lfa does not know are in N's manifest as the head had them. */
static void test_FA_LANCE_1_index_section_and_unknown_fields_carried(void **state) {
  (void)state;
  scratch s;
  make(&s);
  lfa_buf b = {0}, x = {0}, y = {0};
  lfa_error err = {0};
  lfa_manifest_file real, n;
  assert_ok(lfa_fs_read(&b, "corpus/decode_manifest/real-lance-12.0.0-address-v7-index.manifest",
                        LFA_MANIFEST_FILE_BYTES_MAX, &err), &err);
  assert_ok(lfa_manifest_file_decode(&real, b.data, b.len, &err), &err);
  rewrite_head(&s, 0, real.index_section);
  lfa_onto_result r;
  lfa_onto_request t = track(LFA_UNASSIGNED);
  assert_ok(lfa_onto_commit(&r, s.dir, &t, &err), &err);
  manifest_of(&n, s.dir, 3);
  assert_non_null(n.index_section);
  assert_ok(lfa_pb_pack(&x, &real.index_section->base, &err), &err);
  assert_ok(lfa_pb_pack(&y, &n.index_section->base, &err), &err);
  assert_int_equal(x.len, y.len);
  assert_memory_equal(x.data, y.data, x.len);
  assert_int_equal(n.manifest->base.n_unknown_fields, 1);
  assert_int_equal(n.manifest->base.unknown_fields[0].tag, 127);
  assert_int_equal(n.manifest->base.unknown_fields[0].data[0], 42);
  lfa_manifest_file_free(&real);
  lfa_manifest_file_free(&n);
  lfa_buf_free(&b);
  lfa_buf_free(&x);
  lfa_buf_free(&y);
  unmake(&s);
}

static void test_refusals_write_nothing(void **state) {
  (void)state;
  scratch s;
  make(&s);
  lfa_onto_request t = track(LFA_ASSIGNED), bad = track(LFA_ASSIGNED);
  bad.field = "nope";
  refused(&s, &bad, LFA_ERR_USAGE, "FA-TXN-8"); /* not in the schema */
  const uint64_t one[] = {0};
  lfa_onto_request untracked = invalidate("v", false, 1, one);
  refused(&s, &untracked, LFA_ERR_USAGE, "FA-INVAL-2");
  lfa_error err = {0};
  lfa_onto_result r;
  assert_ok(lfa_onto_commit(&r, s.dir, &t, &err), &err);
  refused(&s, &t, LFA_ERR_USAGE, "FA-TXN-8"); /* tracked already */
  const uint64_t deleted[] = {1}, past[] = {3}, gone_id[] = {1}, unknown_id[] = {99};
  lfa_onto_request q = invalidate("v", false, 1, deleted);
  refused(&s, &q, LFA_ERR_USAGE, "FA-TXN-10"); /* fragment 0, offset 1: deleted in version 2 */
  q = invalidate("v", false, 1, past);
  refused(&s, &q, LFA_ERR_USAGE, "FA-TXN-10"); /* offset 3 of a 3-row fragment */
  q = invalidate("v", true, 1, gone_id);
  refused(&s, &q, LFA_ERR_USAGE, "FA-TXN-10");
  q = invalidate("v", true, 1, unknown_id);
  refused(&s, &q, LFA_ERR_USAGE, "FA-TXN-10");
  unmake(&s);
  make(&s);
  add_writer_bit(&s, 1ull << 40); /* a bit no release and no lfa knows */
  refused(&s, &t, LFA_ERR_RULE, "FA-FLAG-5");
  unmake(&s);
  make(&s);
  add_writer_bit(&s, LFA_FLAG_FIELD_ASSIGNMENT); /* the marker without descriptors: someone else's bit */
  refused(&s, &t, LFA_ERR_RULE, "FA-LANCE-21");
  unmake(&s);
  make(&s);
  add_foreign_field(&s, 1022); /* [FA-FLAG-7] another writer's field 1022, no bit 2^52 */
  refused(&s, &t, LFA_ERR_RULE, "FA-FLAG-7");
  unmake(&s);
}

/* [FA-CONC-11] Another writer's version 3 is there first (a copy of
 * version 2's manifest under 3's name, different bytes from anything lfa
 * would write): it is never replaced. An Initialization(ASSIGNED) fails as
 * a conflict (FA-CONC-7); an UNASSIGNED one plans again and lands on 4. */
static void test_FA_CONC_11_never_replaces_a_version(void **state) {
  (void)state;
  scratch s;
  make(&s);
  char v2[160], v3[160];
  snprintf(v2, sizeof v2, "%s/_versions/2.manifest", s.dir);
  snprintf(v3, sizeof v3, "%s/_versions/3.manifest", s.dir);
  lfa_buf b = {0}, out = {0}, after = {0};
  lfa_error err = {0};
  lfa_manifest_file mf;
  assert_ok(lfa_fs_read(&b, v2, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err);
  assert_ok(lfa_manifest_file_decode(&mf, b.data, b.len, &err), &err);
  mf.manifest->version = 3;
  assert_ok(lfa_manifest_file_encode(&out, mf.manifest, mf.transaction, &err), &err);
  assert_ok(lfa_fs_write_new(v3, out.data, out.len, &err), &err);
  lfa_onto_result r;
  lfa_onto_request t = track(LFA_ASSIGNED);
  assert_int_equal(lfa_onto_commit(&r, s.dir, &t, &err), LFA_OK); /* reads 3 as the head: no race */
  assert_int_equal(r.version, 4);
  unmake(&s);
  /* A race: the other writer's 3 appears between lfa's read of 2 and its
   * publish. lfa_fs_publish_new is where that is decided: 3 taken. */
  make(&s);
  assert_ok(lfa_fs_write_new(v3, out.data, out.len, &err), &err);
  char tmp[160];
  snprintf(tmp, sizeof tmp, "%s/_versions/.tmp_test", s.dir);
  assert_status(lfa_fs_publish_new(v3, tmp, (const uint8_t *)"lfa", 3, &err), LFA_ERR_CONFLICT, &err);
  assert_rule(&err, "FA-CONC-11");
  assert_ok(lfa_fs_read(&after, v3, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err);
  assert_int_equal(after.len, out.len);
  assert_memory_equal(after.data, out.data, out.len); /* the other writer's bytes, unchanged */
  assert_false(lfa_fs_exists(tmp));
  lfa_manifest_file_free(&mf);
  lfa_buf_free(&b);
  lfa_buf_free(&out);
  lfa_buf_free(&after);
  unmake(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_PROJECT_4_FA_INVAL_1_track_then_invalidate),
      cmocka_unit_test(test_FA_FLAG_2_writer_bit_only),
      cmocka_unit_test(test_refusals_write_nothing),
      cmocka_unit_test(test_FA_CONC_11_never_replaces_a_version),
      cmocka_unit_test(test_FA_LANCE_1_index_section_and_unknown_fields_carried),
      cmocka_unit_test(test_FA_FLAG_7_draft_layout_gets_the_marker),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
