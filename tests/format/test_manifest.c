/* test_manifest.c: manifest files, version naming, descriptor rules
 * (ref/format/manifest_file.c, versions.c), and which layout a manifest's
 * state is read by (01§1, 03§1). Requirement ids: FA-LANCE-1, FA-LANCE-2,
 * FA-STORE-1, FA-STORE-3, FA-STORE-4, FA-LIMIT-1, FA-FLAG-1, FA-FLAG-7. */
#include "testutil.h"

#include <time.h>

#include "lfa/bitmap.h"
#include "lfa/fs.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/pb.h"
#include "lfa/transaction.h"
#include "lfa/versions.h"

/* A manifest with two fields, one fragment and one tracked field. */
typedef struct fixture {
  Lance__Table__Manifest m;
  Lance__File__Field f0, f1;
  Lance__File__Field *fields[2];
  Lance__Table__FieldAssignmentState st;
  Lance__Table__FieldAssignmentState *states[2];
  Lance__Table__FieldAssignmentFile root;
} fixture;

static void fixture_init(fixture *x) {
  memset(x, 0, sizeof *x);
  lance__table__manifest__init(&x->m);
  lance__file__field__init(&x->f0);
  lance__file__field__init(&x->f1);
  x->f0.id = 0, x->f0.name = "id", x->f0.parent_id = -1;
  x->f1.id = 1, x->f1.name = "v", x->f1.parent_id = -1;
  x->fields[0] = &x->f0, x->fields[1] = &x->f1;
  x->m.fields = x->fields, x->m.n_fields = 2, x->m.version = 7;
  lance__table__field_assignment_state__init(&x->st);
  lance__table__field_assignment_file__init(&x->root);
  x->root.path = "_field_assignments/roots/1/a.root";
  x->st.field_id = 1, x->st.root = &x->root;
  x->states[0] = &x->st;
  x->m.field_assignment_states = x->states, x->m.n_field_assignment_states = 1;
  x->m.reader_feature_flags = x->m.writer_feature_flags = (uint64_t)1 << 52; /* 03§1: the marker */
}

static lfa_buf encode(const Lance__Table__Manifest *m, const Lance__Table__Transaction *txn) {
  lfa_buf b = {0};
  lfa_error err = {0};
  assert_ok(lfa_manifest_file_encode(&b, m, txn, &err), &err);
  return b;
}

static void expect_decode(const uint8_t *data, size_t len, lfa_status want, const char *rule) {
  lfa_manifest_file mf;
  lfa_error err = {0};
  assert_status(lfa_manifest_file_decode(&mf, data, len, &err), want, &err);
  if (rule != NULL) assert_rule(&err, rule);
  assert_null(mf.manifest);
}

static void test_FA_LANCE_1_round_trip_with_inline_transaction(void **state) {
  (void)state;
  fixture x;
  fixture_init(&x);
  Lance__Table__Transaction txn = LANCE__TABLE__TRANSACTION__INIT;
  Lance__Table__Transaction__ReserveFragments op = LANCE__TABLE__TRANSACTION__RESERVE_FRAGMENTS__INIT;
  op.num_fragments = 3;
  txn.read_version = 6, txn.uuid = "u", txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_RESERVE_FRAGMENTS;
  txn.reserve_fragments = &op;
  lfa_buf b = encode(&x.m, &txn);
  /* footer: i64 position, u16 major, u16 minor, magic (hand-read) */
  assert_memory_equal(b.data + b.len - 4, "LANC", 4);
  assert_int_equal(lfa_load_u16le(b.data + b.len - 6), 2);
  uint64_t pos = lfa_load_u64le(b.data + b.len - 16);
  assert_int_equal(lfa_load_u32le(b.data + pos), b.len - 16 - pos - 4);
  lfa_manifest_file mf;
  lfa_error err = {0};
  assert_ok(lfa_manifest_file_decode(&mf, b.data, b.len, &err), &err);
  assert_int_equal(mf.manifest->version, 7);
  assert_int_equal(mf.manifest_offset, pos);
  assert_int_equal(mf.manifest->transaction_section, 0); /* the section opens the file */
  assert_non_null(mf.transaction);
  assert_int_equal(mf.transaction->reserve_fragments->num_fragments, 3);
  assert_string_equal(lfa_transaction_operation_name(mf.transaction), "ReserveFragments");
  assert_int_equal(mf.manifest->n_field_assignment_states, 1);
  assert_string_equal(mf.manifest->field_assignment_states[0]->root->path, x.root.path);
  /* and the caller's manifest was not touched */
  assert_int_equal(x.m._transaction_section_case, LANCE__TABLE__MANIFEST___TRANSACTION_SECTION__NOT_SET);
  lfa_manifest_file_free(&mf);
  lfa_buf_free(&b);
}

static void test_FA_LANCE_1_hostile_framing(void **state) {
  (void)state;
  fixture x;
  fixture_init(&x);
  lfa_buf b = encode(&x.m, NULL);
  for (size_t cut = 0; cut < 20; cut++) expect_decode(b.data, cut, LFA_ERR_TRUNCATED, "FA-LANCE-1");
  /* cutting the front leaves the footer pointing at the wrong place */
  expect_decode(b.data + 1, b.len - 1, LFA_ERR_FORMAT, "FA-LANCE-1");
  uint8_t *c = malloc(b.len + 8);
  memcpy(c, b.data, b.len);
  c[b.len - 1] = 'D'; /* magic LAND */
  expect_decode(c, b.len, LFA_ERR_FORMAT, "FA-LANCE-1");
  memcpy(c, b.data, b.len);
  lfa_store_u64le(c + b.len - 16, b.len); /* position past the end */
  expect_decode(c, b.len, LFA_ERR_FORMAT, "FA-LANCE-1");
  lfa_store_u64le(c + b.len - 16, UINT64_MAX); /* and past any size */
  expect_decode(c, b.len, LFA_ERR_FORMAT, "FA-LANCE-1");
  memcpy(c, b.data, b.len);
  lfa_store_u32le(c, lfa_load_u32le(c) - 1); /* length one short: a gap before the footer */
  expect_decode(c, b.len, LFA_ERR_FORMAT, "FA-LANCE-1");
  memcpy(c, b.data, b.len);
  c[4] = 0xFF; /* the protobuf itself: an invalid wire type */
  c[5] = 0xFF;
  expect_decode(c, b.len, LFA_ERR_PROTO, NULL);
  free(c);
  lfa_buf_free(&b);
}

static void test_FA_LANCE_1_section_outside_file_rejected(void **state) {
  (void)state;
  fixture x;
  fixture_init(&x);
  x.m._transaction_section_case = LANCE__TABLE__MANIFEST___TRANSACTION_SECTION_TRANSACTION_SECTION;
  /* lfa_manifest_file_encode clears section offsets, so frame by hand */
  lfa_buf b = {0}, pb = {0};
  lfa_error err = {0};
  const uint64_t offsets[] = {0, 2, 1000};
  for (size_t i = 0; i < 3; i++) {
    x.m.transaction_section = offsets[i];
    b.len = pb.len = 0;
    assert_ok(lfa_pb_pack(&pb, &x.m.base, &err), &err);
    assert_ok(lfa_buf_put_u32le(&b, (uint32_t)pb.len, &err), &err);
    assert_ok(lfa_buf_append(&b, pb.data, pb.len, &err), &err);
    assert_ok(lfa_buf_put_u64le(&b, 0, &err), &err);
    assert_ok(lfa_buf_put_u32le(&b, 2, &err), &err);
    assert_ok(lfa_buf_append(&b, "LANC", 4, &err), &err);
    /* offset 0 is the manifest's own prefix: no room for a section */
    expect_decode(b.data, b.len, LFA_ERR_FORMAT, "FA-LANCE-1");
  }
  lfa_buf_free(&b);
  lfa_buf_free(&pb);
}

static void test_field_number_zero_rejected(void **state) {
  (void)state;
  fixture x;
  fixture_init(&x);
  x.m.n_field_assignment_states = 0;
  lfa_buf pb = {0}, b = {0};
  lfa_error err = {0};
  assert_ok(lfa_pb_pack(&pb, &x.m.base, &err), &err);
  /* an over-long varint tag 0 (0x80 0x00), wire type 0, then value 1:
   * protobuf-c 1.4.1 keeps it as an unknown field (toolchain.md) */
  const uint8_t zero[] = {0x80, 0x00, 0x01};
  assert_ok(lfa_buf_append(&pb, zero, sizeof zero, &err), &err);
  ProtobufCMessage *m = NULL;
  assert_status(lfa_pb_unpack(&m, &lance__table__manifest__descriptor, pb.data, pb.len, "manifest", &err),
                LFA_ERR_PROTO, &err);
  assert_null(m);
  assert_non_null(strstr(err.msg, "numbered 0"));
  lfa_buf_free(&pb);
  lfa_buf_free(&b);
}

static void test_unknown_fields_survive(void **state) {
  (void)state;
  fixture x;
  fixture_init(&x);
  lfa_buf pb = {0}, again = {0};
  lfa_error err = {0};
  assert_ok(lfa_pb_pack(&pb, &x.m.base, &err), &err);
  const uint8_t future[] = {0xF8, 0x07, 0x2A}; /* field 127, varint 42: unknown to us */
  assert_ok(lfa_buf_append(&pb, future, sizeof future, &err), &err);
  ProtobufCMessage *m = NULL;
  assert_ok(lfa_pb_unpack(&m, &lance__table__manifest__descriptor, pb.data, pb.len, "manifest", &err), &err);
  assert_int_equal(m->n_unknown_fields, 1);
  assert_ok(lfa_pb_pack(&again, m, &err), &err);
  assert_int_equal(again.len, pb.len);
  assert_memory_equal(again.data + again.len - 3, future, 3);
  lfa_pb_free(m);
  lfa_buf_free(&pb);
  lfa_buf_free(&again);
}

static void test_FA_STORE_1_3_4_descriptor_rules(void **state) {
  (void)state;
  fixture x;
  fixture_init(&x);
  lfa_error err = {0};
  assert_ok(lfa_manifest_check_descriptors(&x.m, &err), &err);
  x.states[1] = &x.st; /* the same field twice */
  x.m.n_field_assignment_states = 2;
  lfa_buf b = encode(&x.m, NULL);
  expect_decode(b.data, b.len, LFA_ERR_RULE, "FA-STORE-1");
  lfa_buf_free(&b);
  x.m.n_field_assignment_states = 1;
  x.st.field_id = 9; /* not in the schema */
  assert_status(lfa_manifest_check_descriptors(&x.m, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-STORE-3");
  x.st.field_id = 1;
  x.root.path = ""; /* empty root path */
  assert_status(lfa_manifest_check_descriptors(&x.m, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-STORE-4");
  x.st.root = NULL; /* no root at all */
  assert_status(lfa_manifest_check_descriptors(&x.m, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-STORE-4");
}

/* 200,000 tracked fields: the descriptor checks are O(n log n), so this
 * takes milliseconds (quadratic, it took minutes: 20,000 took verify 8 s).
 * The first duplicate is still named by its first earlier entry, and
 * errors come in entry order. [FA-STORE-1] [FA-STORE-3] */
static void test_FA_STORE_1_descriptors_checked_in_n_log_n(void **state) {
  (void)state;
  enum { N = 200000 };
  Lance__Table__Manifest m = LANCE__TABLE__MANIFEST__INIT;
  Lance__File__Field *fields = calloc(N, sizeof *fields), **field_list = calloc(N, sizeof *field_list);
  Lance__Table__FieldAssignmentState *st = calloc(N, sizeof *st), **st_list = calloc(N, sizeof *st_list);
  Lance__Table__FieldAssignmentFile root = LANCE__TABLE__FIELD_ASSIGNMENT_FILE__INIT;
  assert_true(fields && field_list && st && st_list);
  root.path = "r.root";
  for (int32_t i = 0; i < N; i++) {
    lance__file__field__init(&fields[i]);
    lance__table__field_assignment_state__init(&st[i]);
    fields[i].id = N - 1 - i; /* the schema in another order than the descriptors */
    st[i].field_id = i, st[i].root = &root;
    field_list[i] = &fields[i], st_list[i] = &st[i];
  }
  m.fields = field_list, m.n_fields = N, m.field_assignment_states = st_list, m.n_field_assignment_states = N;
  lfa_error err = {0};
  clock_t t0 = clock();
  assert_ok(lfa_manifest_check_descriptors(&m, &err), &err);
  double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
  printf("%d descriptors checked in %.3f s\n", N, seconds);
  assert_true(seconds < 2.0);
  st[N - 1].field_id = 7, st[N - 2].field_id = 7; /* entries 7, N-2 and N-1 name field 7 */
  assert_status(lfa_manifest_check_descriptors(&m, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-STORE-1");
  char want[96];
  snprintf(want, sizeof want, "(entries 7 and %d)", N - 2);
  assert_non_null(strstr(err.msg, want));
  st[5].field_id = N + 5; /* an earlier entry's error comes first */
  assert_status(lfa_manifest_check_descriptors(&m, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-STORE-3");
  free(fields), free(field_list), free(st), free(st_list);
}

static void test_FA_LANCE_2_version_names(void **state) {
  (void)state;
  uint64_t v = 0;
  assert_int_equal(lfa_version_parse_name(&v, "1.manifest"), LFA_NAMING_V1);
  assert_int_equal(v, 1);
  assert_int_equal(lfa_version_parse_name(&v, "18446744073709551614.manifest"), LFA_NAMING_V2);
  assert_int_equal(v, 1); /* u64::MAX - 1 */
  assert_int_equal(lfa_version_parse_name(&v, "18446744073709551605.manifest"), LFA_NAMING_V2);
  assert_int_equal(v, 10);
  assert_int_equal(lfa_version_parse_name(&v, "90.manifest"), LFA_NAMING_V1); /* 0 and 9, the ends of the digits */
  assert_int_equal(v, 90);
  const char *not_versions[] = {"_latest.manifest", "0.manifest", "01.manifest", "3.manifest-5a3b1e00",
                                ".tmp_3.manifest", "d9223372036854775809.manifest", ".manifest",
                                "18446744073709551615.manifest", "99999999999999999999.manifest",
                                "3.txn", "-1.manifest",
                                /* the bytes on either side of the digits: '/' (before 0) and ':' (after 9) */
                                "1/.manifest", "1:.manifest", ":.manifest", "1844674407370955161:.manifest"};
  for (size_t i = 0; i < sizeof not_versions / sizeof *not_versions; i++)
    if (lfa_version_parse_name(&v, not_versions[i]) != LFA_NAMING_NONE) fail_msg("%s taken as a version", not_versions[i]);
  char name[32];
  lfa_version_format_name(name, sizeof name, 1, LFA_NAMING_V2);
  assert_string_equal(name, "18446744073709551614.manifest");
  lfa_version_format_name(name, sizeof name, 42, LFA_NAMING_V1);
  assert_string_equal(name, "42.manifest");
}

static void test_FA_LANCE_2_listing(void **state) {
  (void)state;
  const char *names[] = {"10.manifest", "_latest.manifest", "2.manifest", "1.manifest", "2.manifest-x"};
  lfa_version_list list;
  lfa_error err = {0};
  assert_ok(lfa_version_list_make(&list, names, 5, &err), &err);
  assert_int_equal(list.count, 3);
  assert_int_equal(list.entries[0].version, 1);
  assert_int_equal(list.entries[2].version, 10);
  assert_string_equal(list.entries[2].name, "10.manifest");
  lfa_version_list_free(&list);
  const char *mixed[] = {"1.manifest", "18446744073709551613.manifest"};
  assert_status(lfa_version_list_make(&list, mixed, 2, &err), LFA_ERR_RULE, &err);
  assert_rule(&err, "FA-LANCE-2");
}

/* Every manifest and .txn Lance itself wrote decodes (no false errors). */
static void decode_tree(const char *dir, size_t *manifests, size_t *txns) {
  lfa_names names;
  lfa_error err = {0};
  assert_ok(lfa_fs_list(&names, dir, 0, &err), &err);
  for (size_t i = 0; i < names.count; i++) {
    char path[LFA_PATH_BYTES_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, names.names[i]);
    size_t n = strlen(names.names[i]);
    lfa_buf b = {0};
    if (n > 9 && strcmp(names.names[i] + n - 9, ".manifest") == 0) {
      lfa_manifest_file mf;
      assert_ok(lfa_fs_read(&b, path, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err);
      if (lfa_manifest_file_decode(&mf, b.data, b.len, &err) != LFA_OK) fail_msg("%s: %s", path, err.msg);
      lfa_manifest_file_free(&mf);
      ++*manifests;
    } else if (n > 4 && strcmp(names.names[i] + n - 4, ".txn") == 0) {
      Lance__Table__Transaction *t;
      assert_ok(lfa_fs_read(&b, path, LFA_TRANSACTION_BYTES_MAX, &err), &err);
      if (lfa_transaction_decode(&t, b.data, b.len, &err) != LFA_OK) fail_msg("%s: %s", path, err.msg);
      assert_int_not_equal(t->operation_case, LANCE__TABLE__TRANSACTION__OPERATION__NOT_SET);
      lfa_transaction_free(t);
      ++*txns;
    } else if (lfa_fs_is_dir(path)) {
      decode_tree(path, manifests, txns);
    }
    lfa_buf_free(&b);
  }
  lfa_fs_names_free(&names);
}

static void test_all_lance_test_data_decodes(void **state) {
  (void)state;
  size_t manifests = 0, txns = 0;
  decode_tree(SHARED_DIR "/lance-test-data", &manifests, &txns);
  decode_tree(SHARED_DIR "/upstream-layout-example", &manifests, &txns);
  printf("decoded %zu manifests and %zu transactions\n", manifests, txns);
  assert_true(manifests >= 24 + 9);
  assert_true(txns >= 16 + 9);
}

/* Objects Lance 8.0.0 and 12.0.0 wrote (scripts/real_seeds.sh): every
 * manifest and transaction decodes; the index commit's manifest has its
 * index section; the deletion files hold what the tables deleted (offsets
 * 1, 5, 7, then 100 to 5199: 5,103 rows in a .bin). */
static void test_real_lance_8_and_12_objects(void **state) {
  (void)state;
  const char *dirs[] = {"corpus/decode_manifest", "corpus/decode_transaction", "corpus/decode_deletion_bin"};
  size_t seen[3] = {0, 0, 0}, indexed = 0;
  roaring_bitmap_t *deleted = roaring_bitmap_from_range(100, 5200, 1);
  roaring_bitmap_add_many(deleted, 3, (const uint32_t[]){1, 5, 7});
  for (size_t d = 0; d < 3; d++) {
    lfa_names names;
    lfa_error err = {0};
    assert_ok(lfa_fs_list(&names, dirs[d], 0, &err), &err);
    for (size_t i = 0; i < names.count; i++) {
      if (strncmp(names.names[i], "real-lance-", 11) != 0) continue;
      char path[LFA_PATH_BYTES_MAX];
      snprintf(path, sizeof path, "%s/%s", dirs[d], names.names[i]);
      lfa_buf b = {0};
      assert_ok(lfa_fs_read(&b, path, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err);
      if (d == 0) {
        lfa_manifest_file mf;
        if (lfa_manifest_file_decode(&mf, b.data, b.len, &err) != LFA_OK) fail_msg("%s: %s", path, err.msg);
        if (strstr(path, "-v7-index.") != NULL) indexed += mf.index_section != NULL && mf.index_section->n_indices == 1;
        lfa_manifest_file_free(&mf);
      } else if (d == 1) {
        Lance__Table__Transaction *t;
        if (lfa_transaction_decode(&t, b.data, b.len, &err) != LFA_OK) fail_msg("%s: %s", path, err.msg);
        lfa_transaction_free(t);
      } else {
        roaring_bitmap_t *bm = NULL;
        if (lfa_bitmap_decode(&bm, b.data, b.len, &err) != LFA_OK) fail_msg("%s: %s", path, err.msg);
        assert_true(roaring_bitmap_equals(bm, deleted));
        lfa_bitmap_free(bm);
      }
      seen[d]++;
      lfa_buf_free(&b);
    }
    lfa_fs_names_free(&names);
  }
  roaring_bitmap_free(deleted);
  assert_true(seen[0] >= 12 && seen[1] >= 20 && seen[2] >= 4); /* both releases, both row-id modes */
  assert_int_equal(indexed, 4);
}

/* [FA-LANCE-1] A committer onto a Lance table writes the head's index
 * section again at its new offset: a manifest Lance 12 wrote with one (an
 * index commit) decodes, re-encodes with its index and inline transaction
 * sections, and decodes to the same index section, transaction and
 * manifest (section offsets aside). A field lfa does not know, added to
 * Lance's manifest, survives the trip too. */
static void test_FA_LANCE_1_index_section_round_trip_real_lance(void **state) {
  (void)state;
  const char *path = "corpus/decode_manifest/real-lance-12.0.0-address-v7-index.manifest";
  lfa_buf b = {0}, again = {0}, x = {0}, y = {0};
  lfa_error err = {0};
  lfa_manifest_file mf, back;
  assert_ok(lfa_fs_read(&b, path, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err);
  assert_ok(lfa_manifest_file_decode(&mf, b.data, b.len, &err), &err);
  assert_non_null(mf.index_section);
  assert_non_null(mf.transaction);
  ProtobufCMessageUnknownField future = {127, PROTOBUF_C_WIRE_TYPE_VARINT, 1, (uint8_t[]){42}};
  mf.manifest->base.unknown_fields = &future;
  mf.manifest->base.n_unknown_fields = 1;
  assert_ok(lfa_manifest_file_encode_sections(&again, mf.manifest, mf.index_section, mf.transaction, &err), &err);
  mf.manifest->base.unknown_fields = NULL;
  mf.manifest->base.n_unknown_fields = 0;
  assert_ok(lfa_manifest_file_decode(&back, again.data, again.len, &err), &err);
  assert_non_null(back.index_section);
  assert_int_equal(back.index_section->n_indices, mf.index_section->n_indices);
  assert_ok(lfa_pb_pack(&x, &mf.index_section->base, &err), &err);
  assert_ok(lfa_pb_pack(&y, &back.index_section->base, &err), &err);
  assert_int_equal(x.len, y.len);
  assert_memory_equal(x.data, y.data, x.len);
  x.len = y.len = 0;
  assert_ok(lfa_pb_pack(&x, &mf.transaction->base, &err), &err);
  assert_ok(lfa_pb_pack(&y, &back.transaction->base, &err), &err);
  assert_int_equal(x.len, y.len);
  assert_memory_equal(x.data, y.data, x.len);
  assert_int_equal(back.manifest->base.n_unknown_fields, 1);
  assert_int_equal(back.manifest->base.unknown_fields[0].tag, 127);
  back.manifest->base.n_unknown_fields = 0; /* compare the rest with the sections at Lance's offsets */
  back.manifest->index_section = mf.manifest->index_section;
  back.manifest->transaction_section = mf.manifest->transaction_section;
  x.len = y.len = 0;
  assert_ok(lfa_pb_pack(&x, &mf.manifest->base, &err), &err);
  assert_ok(lfa_pb_pack(&y, &back.manifest->base, &err), &err);
  back.manifest->base.n_unknown_fields = 1;
  assert_int_equal(x.len, y.len);
  assert_memory_equal(x.data, y.data, x.len);
  lfa_manifest_file_free(&mf);
  lfa_manifest_file_free(&back);
  lfa_buf_free(&b);
  lfa_buf_free(&again);
  lfa_buf_free(&x);
  lfa_buf_free(&y);
}

/* ---- FA-FLAG-7: which layout reads the state ----------------------------------------------- */

/* Records built by hand: tag varints are (number << 3 | wire type).
 * A descriptor {field_id 1, root {path "r"}}: 08 01 12 03 0a 01 'r'. */
#define DESC 0x07, 0x08, 0x01, 0x12, 0x03, 0x0a, 0x01, 'r'
static const uint8_t DESC_22[] = {0xb2, 0x01, DESC};   /* 22 << 3 | 2 = 178 */
static const uint8_t DESC_1022[] = {0xf2, 0x3f, DESC}; /* 1022 << 3 | 2 = 8178 */
static const uint8_t VARINT_22[] = {0xb0, 0x01, 0x07}; /* field 22 = 7 */
static const uint8_t VARINT_1022[] = {0xf0, 0x3f, 0x07};
#define BIT52 ((uint64_t)1 << 52)

typedef struct layout_case {
  uint64_t reader, writer;
  const char *library, *version;
} layout_case;

/* The fixture's manifest (fields 0 and 1, no descriptor) with these words
 * and writer, packed, then the extra records. */
static lfa_buf body_with(const layout_case *k, const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
  fixture x;
  fixture_init(&x);
  x.m.n_field_assignment_states = 0, x.m.field_assignment_states = NULL;
  x.m.reader_feature_flags = k->reader, x.m.writer_feature_flags = k->writer;
  Lance__Table__Manifest__WriterVersion wv = LANCE__TABLE__MANIFEST__WRITER_VERSION__INIT;
  wv.library = (char *)k->library, wv.version = (char *)k->version;
  x.m.writer_version = &wv;
  lfa_buf out = {0};
  lfa_error err = {0};
  assert_ok(lfa_pb_pack(&out, &x.m.base, &err), &err);
  assert_ok(lfa_buf_append(&out, a, na, &err), &err);
  if (nb) assert_ok(lfa_buf_append(&out, b, nb, &err), &err);
  return out;
}

static unsigned unknown_of(const Lance__Table__Manifest *m, uint32_t field) {
  unsigned n = 0;
  for (unsigned i = 0; i < m->base.n_unknown_fields; i++) n += m->base.unknown_fields[i].tag == field;
  return n;
}

/* Decodes; expects n descriptors (field 1 when 1), `unknown` records kept
 * under field 22 and under 1022, and the layout. */
static void expect_layout(const layout_case *k, const uint8_t *a, size_t na, const uint8_t *b, size_t nb, size_t n,
                          unsigned u22, unsigned u1022, lfa_layout layout) {
  lfa_buf body = body_with(k, a, na, b, nb);
  Lance__Table__Manifest *m = NULL;
  lfa_error err = {0};
  assert_ok(lfa_manifest_unpack_body(&m, body.data, body.len, &err), &err);
  assert_int_equal(m->n_field_assignment_states, n);
  if (n == 1) assert_int_equal(m->field_assignment_states[0]->field_id, 1);
  assert_int_equal(unknown_of(m, 22), u22);
  assert_int_equal(unknown_of(m, 1022), u1022);
  assert_int_equal(lfa_manifest_layout(m), layout);
  lfa_pb_free(m);
  lfa_buf_free(&body);
}

static void test_FA_FLAG_7_layout_by_marker_and_writer(void **state) {
  (void)state;
  const layout_case lfa_prev = {65536, 65536, "lfa", "0.1.0"}, lance13 = {65536, 65536, "lance", "13.0.0"},
                    tree = {65536 | 4096, 65536 | 4096, "lance", "12.0.0"}, draft = {0, 256, "lance", "2.0.0"},
                    plain12 = {0, 0, "lance", "12.0.0"}, marked = {BIT52, BIT52, "lfa", "0.1.0"},
                    marked13 = {BIT52, BIT52, "lance", "15.0.0"}, other_lib = {65536, 65536, "lancedb", "13.0.0"};
  /* lfa's previous layout: bit 65536, a writer before Lance 13 */
  expect_layout(&lfa_prev, DESC_22, sizeof DESC_22, NULL, 0, 1, 0, 0, LFA_LAYOUT_PREVIOUS);
  /* Lance 13 or a fragment-tree bit: field 22 is the writer's, kept, not state */
  expect_layout(&lance13, DESC_22, sizeof DESC_22, NULL, 0, 0, 1, 0, LFA_LAYOUT_NONE);
  expect_layout(&tree, DESC_22, sizeof DESC_22, NULL, 0, 0, 1, 0, LFA_LAYOUT_NONE);
  /* only library "lance" is Lance */
  expect_layout(&other_lib, DESC_22, sizeof DESC_22, NULL, 0, 1, 0, 0, LFA_LAYOUT_PREVIOUS);
  /* the upstream draft: writer bit 256 */
  expect_layout(&draft, DESC_22, sizeof DESC_22, NULL, 0, 1, 0, 0, LFA_LAYOUT_DRAFT);
  /* a Lance 12 manifest whose fields 22 and 1022 hold something else: no error, no state */
  expect_layout(&plain12, VARINT_22, sizeof VARINT_22, VARINT_1022, sizeof VARINT_1022, 0, 1, 1, LFA_LAYOUT_NONE);
  expect_layout(&plain12, DESC_22, sizeof DESC_22, DESC_1022, sizeof DESC_1022, 0, 1, 1, LFA_LAYOUT_NONE);
  /* bit 2^52: field 1022 is the state, field 22 someone else's, whatever the writer */
  expect_layout(&marked, DESC_1022, sizeof DESC_1022, VARINT_22, sizeof VARINT_22, 1, 1, 0, LFA_LAYOUT_CURRENT);
  expect_layout(&marked13, DESC_1022, sizeof DESC_1022, DESC_22, sizeof DESC_22, 1, 1, 0, LFA_LAYOUT_CURRENT);
  /* bit 2^52 and a field 1022 that is no descriptor: corrupt */
  lfa_buf body = body_with(&marked, VARINT_1022, sizeof VARINT_1022, NULL, 0);
  Lance__Table__Manifest *m = NULL;
  lfa_error err = {0};
  assert_int_equal(lfa_manifest_unpack_body(&m, body.data, body.len, &err), LFA_ERR_PROTO);
  assert_null(m);
  lfa_buf_free(&body);
}

/* An earlier layout's manifest writes back in its own fields: the
 * encoded file holds the descriptor record under field 22, byte for byte. */
static void test_FA_FLAG_7_earlier_layout_encodes_as_read(void **state) {
  (void)state;
  const layout_case k = {65536, 65536, "lfa", "0.1.0"};
  lfa_buf body = body_with(&k, DESC_22, sizeof DESC_22, NULL, 0), file = {0};
  Lance__Table__Manifest *m = NULL;
  lfa_error err = {0};
  assert_ok(lfa_manifest_unpack_body(&m, body.data, body.len, &err), &err);
  assert_ok(lfa_manifest_file_encode(&file, m, NULL, &err), &err);
  bool found22 = false, found1022 = false;
  for (size_t i = 0; i + sizeof DESC_22 <= file.len; i++) {
    found22 |= memcmp(file.data + i, DESC_22, sizeof DESC_22) == 0;
    found1022 |= memcmp(file.data + i, DESC_1022, sizeof DESC_1022) == 0;
  }
  assert_true(found22);
  assert_false(found1022);
  lfa_pb_free(m);
  lfa_buf_free(&body);
  lfa_buf_free(&file);
}

/* The transaction beside a manifest: field 1005 that is no sidecar is
 * another writer's without bit 2^52 and corrupt with it; field 5 is the
 * sidecar beside an earlier layout's manifest only. A sidecar with one
 * Initialization {field 1, ASSIGNED}: 0a 04 08 01 10 01. */
static void test_FA_FLAG_7_transaction_beside_its_manifest(void **state) {
  (void)state;
  static const uint8_t VARINT_1005[] = {0x08, 0x01, 0xe8, 0x3e, 0x07};                         /* 1005 << 3 = 8040 */
  static const uint8_t SIDECAR_5[] = {0x08, 0x01, 0x2a, 0x06, 0x0a, 0x04, 0x08, 0x01, 0x10, 0x01}; /* 5 << 3 | 2 */
  Lance__Table__Manifest plain = LANCE__TABLE__MANIFEST__INIT, marked = LANCE__TABLE__MANIFEST__INIT,
                         prev = LANCE__TABLE__MANIFEST__INIT, lance13 = LANCE__TABLE__MANIFEST__INIT;
  Lance__Table__Manifest__WriterVersion v13 = LANCE__TABLE__MANIFEST__WRITER_VERSION__INIT;
  v13.library = "lance", v13.version = "13.0.0";
  marked.writer_feature_flags = BIT52;
  prev.writer_feature_flags = prev.reader_feature_flags = 65536;
  lance13.writer_feature_flags = 65536, lance13.writer_version = &v13;
  Lance__Table__Transaction *t = NULL;
  lfa_error err = {0};
  assert_ok(lfa_transaction_decode_beside(&t, VARINT_1005, sizeof VARINT_1005, &plain, &err), &err);
  assert_null(t->field_assignment_transaction);
  assert_int_equal(t->base.n_unknown_fields, 1);
  lfa_transaction_free(t);
  assert_int_equal(lfa_transaction_decode_beside(&t, VARINT_1005, sizeof VARINT_1005, &marked, &err), LFA_ERR_PROTO);
  assert_null(t);
  assert_ok(lfa_transaction_decode_beside(&t, SIDECAR_5, sizeof SIDECAR_5, &prev, &err), &err);
  assert_non_null(t->field_assignment_transaction);
  assert_int_equal(t->field_assignment_transaction->n_initializations, 1);
  assert_int_equal(t->base.n_unknown_fields, 0);
  lfa_transaction_free(t);
  assert_ok(lfa_transaction_decode_beside(&t, SIDECAR_5, sizeof SIDECAR_5, &lance13, &err), &err);
  assert_null(t->field_assignment_transaction); /* Lance 13's field 5 would be its own */
  lfa_transaction_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_LANCE_1_round_trip_with_inline_transaction),
      cmocka_unit_test(test_FA_LANCE_1_hostile_framing),
      cmocka_unit_test(test_FA_LANCE_1_section_outside_file_rejected),
      cmocka_unit_test(test_field_number_zero_rejected),
      cmocka_unit_test(test_unknown_fields_survive),
      cmocka_unit_test(test_FA_STORE_1_3_4_descriptor_rules),
      cmocka_unit_test(test_FA_STORE_1_descriptors_checked_in_n_log_n),
      cmocka_unit_test(test_FA_LANCE_2_version_names),
      cmocka_unit_test(test_FA_LANCE_2_listing),
      cmocka_unit_test(test_all_lance_test_data_decodes),
      cmocka_unit_test(test_real_lance_8_and_12_objects),
      cmocka_unit_test(test_FA_LANCE_1_index_section_round_trip_real_lance),
      cmocka_unit_test(test_FA_FLAG_7_layout_by_marker_and_writer),
      cmocka_unit_test(test_FA_FLAG_7_earlier_layout_encodes_as_read),
      cmocka_unit_test(test_FA_FLAG_7_transaction_beside_its_manifest),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
