/* test_manifest_walk.c: a manifest decoded beside the version before it
 * (lfa_manifest_file_decode_after, 10§5) is the manifest a plain decode
 * gives, field for field, whatever changed between the two versions;
 * shared fragments outlive either version's free; errors are the plain
 * decode's, word for word; the fragment spans and the section offsets a
 * walk of the top level finds are those the decoder reads.
 *
 * The manifests are the upstream layout example's nine (written by
 * upstream's proof of concept, not by lfa), and histories built here by
 * lfa_manifest_file_encode: an append, a change in place, a fragment gone
 * from the middle, a reversal (ids no longer ascending), duplicate ids. */
#include "testutil.h"

#include "lfa/fs.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/pb.h"

#define EXAMPLE SHARED_DIR "/upstream-layout-example/address-mode-history"

/* Version v (1 .. 9) of the example: its file's bytes. */
static lfa_buf read_example(int v) {
  char path[256];
  lfa_buf b = {0};
  lfa_error err = {0};
  snprintf(path, sizeof path, "%s/_versions/%d.manifest", EXAMPLE, v);
  assert_ok(lfa_fs_read(&b, path, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err);
  return b;
}

/* ... and decoded plainly into *f. */
static lfa_buf decode_example(lfa_manifest_file *f, int v) {
  lfa_buf b = read_example(v);
  lfa_error err = {0};
  assert_ok(lfa_manifest_file_decode(f, b.data, b.len, &err), &err);
  return b;
}

/* The packed bytes of a manifest: equal when every field is. */
static lfa_buf packed(const Lance__Table__Manifest *m) {
  lfa_buf b = {0};
  lfa_error err = {0};
  assert_ok(lfa_pb_pack(&b, &m->base, &err), &err);
  return b;
}

static void assert_same_manifest(const Lance__Table__Manifest *a, const Lance__Table__Manifest *b) {
  lfa_buf x = packed(a), y = packed(b);
  assert_int_equal(x.len, y.len);
  assert_memory_equal(x.data, y.data, x.len);
  lfa_buf_free(&x), lfa_buf_free(&y);
}

/* Decodes `bytes` beside prev and plainly; asserts both agree, that each
 * shared fragment is prev's own message with prev's bytes, and returns
 * how many were shared. *out keeps the decode beside prev. */
static size_t decode_both(lfa_manifest_file *out, const lfa_buf *bytes, const lfa_manifest_file *prev) {
  lfa_manifest_file plain;
  lfa_buf copy = {0};
  lfa_error err = {0};
  uint8_t *tail;
  assert_ok(lfa_buf_extend(&copy, bytes->len, &tail, &err), &err);
  memcpy(tail, bytes->data, bytes->len);
  assert_ok(lfa_manifest_file_decode(&plain, bytes->data, bytes->len, &err), &err);
  assert_ok(lfa_manifest_file_decode_after(out, &copy, prev, &err), &err);
  assert_null(copy.data); /* taken over */
  assert_same_manifest(out->manifest, plain.manifest);
  size_t shared = 0, n = out->manifest->n_fragments;
  assert_non_null(out->spans), assert_non_null(out->same_as_prev), assert_non_null(out->cells);
  for (size_t i = 0; i < n; i++) {
    size_t k = out->same_as_prev[i];
    assert_ptr_equal(out->cells[i]->msg, out->manifest->fragments[i]);
    if (k == SIZE_MAX) continue;
    assert_non_null(prev);
    assert_true(k < prev->manifest->n_fragments);
    assert_ptr_equal(out->manifest->fragments[i], prev->manifest->fragments[k]);
    assert_int_equal(out->spans[i].len, prev->spans[k].len);
    assert_memory_equal(out->bytes.data + out->spans[i].offset, prev->bytes.data + prev->spans[k].offset,
                        out->spans[i].len);
    shared++;
  }
  lfa_manifest_file_free(&plain);
  return shared;
}

/* ---- manifests built here ------------------------------------------------------- */

enum { FRAGMENTS_MAX = 16 };

typedef struct built {
  Lance__Table__Manifest m;
  Lance__Table__DataFragment frag[FRAGMENTS_MAX], *list[FRAGMENTS_MAX];
  Lance__Table__DataFile file[FRAGMENTS_MAX], *files[FRAGMENTS_MAX];
  char path[FRAGMENTS_MAX][32];
} built;

/* A manifest of n fragments with ids ids[0 .. n), each one data file
 * whose name and row count follow its id (and `salt` for a change). */
static lfa_buf build(const uint64_t *ids, size_t n, uint64_t salt_id, uint64_t salt) {
  built *b = calloc(1, sizeof *b);
  assert_non_null(b);
  lance__table__manifest__init(&b->m);
  b->m.version = 7;
  for (size_t i = 0; i < n; i++) {
    lance__table__data_fragment__init(&b->frag[i]);
    lance__table__data_file__init(&b->file[i]);
    snprintf(b->path[i], sizeof b->path[i], "f%llu.lance", (unsigned long long)ids[i]);
    b->file[i].path = b->path[i];
    b->files[i] = &b->file[i];
    b->frag[i].id = ids[i];
    b->frag[i].physical_rows = 100 + ids[i] + (ids[i] == salt_id ? salt : 0);
    b->frag[i].files = &b->files[i], b->frag[i].n_files = 1;
    b->list[i] = &b->frag[i];
  }
  b->m.fragments = b->list, b->m.n_fragments = n;
  lfa_buf out = {0};
  lfa_error err = {0};
  assert_ok(lfa_manifest_file_encode(&out, &b->m, NULL, &err), &err);
  free(b);
  return out;
}

/* Each step of a history against the one before: what it shares. */
static void test_decode_after_equals_decode_across_changes(void **state) {
  (void)state;
  static const uint64_t base[] = {1, 2, 3, 4, 5, 6, 7, 8}, appended[] = {1, 2, 3, 4, 5, 6, 7, 8, 9},
                        gone[] = {1, 2, 3, 5, 6, 7, 8, 9}, reversed[] = {9, 8, 7, 6, 5, 3, 2, 1},
                        dup[] = {9, 9, 8, 8, 7};
  struct {
    const uint64_t *ids;
    size_t n;
    uint64_t salt_id, salt;
    size_t shared; /* with the step before */
  } steps[] = {
      {base, 8, 0, 0, 0},      {appended, 9, 0, 0, 8}, /* an append: all but the new one */
      {appended, 9, 4, 1, 8},                          /* fragment 4 changed in place */
      {gone, 8, 0, 0, 8},                              /* the changed 4 gone: the rest found again by id */
      {reversed, 8, 0, 0, 8},                          /* every one moved: found by id (prev's ids ascend) */
      {dup, 5, 0, 0, 3},                               /* prev's ids descend: only positions are tried */
      {dup, 5, 0, 0, 5},                               /* unchanged */
  };
  lfa_manifest_file prev = {0}, cur;
  for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
    lfa_buf bytes = build(steps[s].ids, steps[s].n, steps[s].salt_id, steps[s].salt);
    size_t shared = decode_both(&cur, &bytes, s > 0 ? &prev : NULL);
    if (shared != steps[s].shared) fail_msg("step %zu shares %zu fragments, not %zu", s, shared, steps[s].shared);
    lfa_manifest_file_free(&prev); /* the older first: what cur shares lives on */
    assert_same_manifest(cur.manifest, cur.manifest);
    prev = cur;
    lfa_buf_free(&bytes);
  }
  lfa_manifest_file_free(&prev);
}

/* A version freed before the one it shares from, and the reverse. */
static void test_shared_fragments_outlive_either_free(void **state) {
  (void)state;
  static const uint64_t a[] = {1, 2, 3}, b[] = {1, 2, 3, 4};
  lfa_buf x = build(a, 3, 0, 0), y = build(b, 4, 0, 0);
  for (int order = 0; order < 2; order++) {
    lfa_manifest_file first = {0}, second = {0};
    decode_both(&first, &x, NULL);
    assert_int_equal(decode_both(&second, &y, &first), 3);
    lfa_manifest_file *early = order ? &first : &second, *late = order ? &second : &first;
    lfa_manifest_file_free(early);
    lfa_buf again = packed(late->manifest); /* every message late holds is still there */
    assert_true(again.len > 0);
    lfa_buf_free(&again);
    lfa_manifest_file_free(late);
  }
  lfa_buf_free(&x), lfa_buf_free(&y);
}

/* The example's nine versions in order: each shares what the commit kept. */
static void test_decode_after_on_the_upstream_example(void **state) {
  (void)state;
  lfa_manifest_file prev = {0}, cur;
  size_t shared_in_all = 0;
  for (int v = 1; v <= 9; v++) {
    lfa_buf b = read_example(v);
    shared_in_all += decode_both(&cur, &b, v > 1 ? &prev : NULL);
    lfa_manifest_file_free(&prev);
    prev = cur;
    lfa_buf_free(&b);
  }
  lfa_manifest_file_free(&prev);
  assert_true(shared_in_all > 0);
}

/* A broken manifest beside a sound one: the error is the plain decode's. */
static void test_errors_are_the_plain_decodes(void **state) {
  (void)state;
  static const uint64_t ids[] = {1, 2, 3, 4};
  lfa_buf good = build(ids, 4, 0, 0), bad = build(ids, 4, 3, 1);
  lfa_manifest_file prev;
  lfa_error err = {0};
  decode_both(&prev, &good, NULL);
  /* fragment 3's payload (not shared: its row count differs) ends in a varint cut short */
  lfa_span s = prev.spans[2];
  size_t manifest_at = (size_t)prev.manifest_offset;
  lfa_manifest_file probe;
  assert_ok(lfa_manifest_file_decode(&probe, bad.data, bad.len, &err), &err);
  assert_true(probe.manifest_offset == manifest_at); /* same layout: only a row count differs */
  lfa_manifest_file_free(&probe);
  bad.data[s.offset + s.len - 1] = 0x80; /* a continuation bit and nothing after it: not a protobuf */
  for (int trunc = 0; trunc < 2; trunc++) {
    lfa_buf input = {0};
    uint8_t *tail;
    size_t len = trunc ? bad.len - 3 : bad.len;
    assert_ok(lfa_buf_extend(&input, len, &tail, &err), &err);
    memcpy(tail, bad.data, len);
    lfa_error plain = {0}, after = {0};
    lfa_manifest_file a, b;
    lfa_status st1 = lfa_manifest_file_decode(&a, input.data, input.len, &plain);
    lfa_status st2 = lfa_manifest_file_decode_after(&b, &input, &prev, &after);
    assert_int_not_equal(st1, LFA_OK);
    assert_int_equal(st1, st2);
    assert_string_equal(plain.msg, after.msg);
    assert_non_null(input.data); /* on failure the bytes stay the caller's */
    lfa_buf_free(&input);
  }
  lfa_manifest_file_free(&prev);
  lfa_buf_free(&good), lfa_buf_free(&bad);
}

/* The spans of every fragment (10§5) are what protobuf-c decodes as that
 * fragment, on every manifest of the example; a manifest cut short or
 * with a wrong count is refused, never read past. */
static void test_fragment_spans_match_the_decoder(void **state) {
  (void)state;
  for (int v = 1; v <= 9; v++) {
    lfa_manifest_file f;
    lfa_buf b = decode_example(&f, v);
    lfa_error err = {0};
    size_t n = f.manifest->n_fragments;
    lfa_span spans[64];
    assert_true(n > 0 && n < 64);
    assert_ok(lfa_manifest_fragment_spans(spans, n, b.data, b.len, f.manifest_offset, &err), &err);
    for (size_t i = 0; i < n; i++) {
      Lance__Table__DataFragment *one = lance__table__data_fragment__unpack(NULL, spans[i].len, b.data + spans[i].offset);
      assert_non_null(one);
      assert_int_equal(one->id, f.manifest->fragments[i]->id);
      assert_int_equal(one->physical_rows, f.manifest->fragments[i]->physical_rows);
      lance__table__data_fragment__free_unpacked(one, NULL);
    }
    assert_int_not_equal(lfa_manifest_fragment_spans(spans, n + 1, b.data, b.len, f.manifest_offset, &err), LFA_OK);
    assert_int_not_equal(lfa_manifest_fragment_spans(spans, n, b.data, (size_t)f.manifest_offset + 8, f.manifest_offset,
                                                     &err), LFA_OK);
    assert_int_not_equal(lfa_manifest_fragment_spans(spans, n, b.data, b.len, b.len - 2, &err), LFA_OK);
    lfa_manifest_file_free(&f);
    lfa_buf_free(&b);
  }
}

/* ---- section offsets by a walk ------------------------------------------------------ */

static void test_sections_from_agrees_with_the_decoder(void **state) {
  (void)state;
  for (int v = 1; v <= 9; v++) {
    lfa_manifest_file f;
    lfa_buf b = decode_example(&f, v);
    const Lance__Table__Manifest *m = f.manifest;
    uint64_t want = f.manifest_offset, got = 0;
    if (m->_index_section_case == LANCE__TABLE__MANIFEST___INDEX_SECTION_INDEX_SECTION && m->index_section < want)
      want = m->index_section;
    if (m->_transaction_section_case == LANCE__TABLE__MANIFEST___TRANSACTION_SECTION_TRANSACTION_SECTION &&
        m->transaction_section < want)
      want = m->transaction_section;
    size_t body = (size_t)f.manifest_offset + 4;
    assert_true(lfa_manifest_sections_from(&got, b.data + body, b.len - 16 - body, f.manifest_offset));
    assert_int_equal(got, want);
    lfa_manifest_file_free(&f);
    lfa_buf_free(&b);
  }
  /* field 21 twice: the last wins, as in the decoder; field 6 as bytes: unknown */
  const uint8_t twice[] = {0xa8, 0x01, 0x05, 0xa8, 0x01, 0x09}, as_bytes[] = {0x32, 0x01, 0x00},
                cut_short[] = {0xa8, 0x01}, neither[] = {0x08, 0x03};
  uint64_t low = 0;
  assert_true(lfa_manifest_sections_from(&low, twice, sizeof twice, 100));
  assert_int_equal(low, 9);
  assert_false(lfa_manifest_sections_from(&low, as_bytes, sizeof as_bytes, 100));
  assert_false(lfa_manifest_sections_from(&low, cut_short, sizeof cut_short, 100));
  assert_true(lfa_manifest_sections_from(&low, neither, sizeof neither, 100));
  assert_int_equal(low, 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_decode_after_equals_decode_across_changes),
      cmocka_unit_test(test_shared_fragments_outlive_either_free),
      cmocka_unit_test(test_decode_after_on_the_upstream_example),
      cmocka_unit_test(test_errors_are_the_plain_decodes),
      cmocka_unit_test(test_fragment_spans_match_the_decoder),
      cmocka_unit_test(test_sections_from_agrees_with_the_decoder),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
