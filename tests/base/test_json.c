/* test_json.c: the strict JSON reader (ref/base/json.c): RFC 8259 documents
 * accepted with exact integers, every rejection the reader promises (with
 * its line and column), the named limits at and past their bounds, and
 * random damage that must never crash it. */
#include "lfa/json.h"
#include "lfa/limits.h"
#include "testutil.h"

static lfa_json_doc parse_ok(const char *text) {
  lfa_json_doc doc;
  lfa_error err = {0};
  lfa_status st = lfa_json_parse(&doc, (const uint8_t *)text, strlen(text), &err);
  if (st != LFA_OK) fail_msg("'%s' refused: %s", text, err.msg);
  return doc;
}

/* `len` bytes of `text` must be refused with `status`, and the message
 * must hold `where` ("line L, column C") and `why`. */
static void refused_n(const char *text, size_t len, lfa_status status, const char *where, const char *why) {
  lfa_json_doc doc;
  lfa_error err = {0};
  lfa_status st = lfa_json_parse(&doc, (const uint8_t *)text, len, &err);
  if (st != status)
    fail_msg("'%s': status %s, expected %s (%s)", text, lfa_status_name(st), lfa_status_name(status), err.msg);
  if (where != NULL && strstr(err.msg, where) == NULL) fail_msg("'%s': '%s' does not say '%s'", text, err.msg, where);
  if (why != NULL && strstr(err.msg, why) == NULL) fail_msg("'%s': '%s' does not say '%s'", text, err.msg, why);
  assert_null(doc.root);
}

static void refused(const char *text, const char *where, const char *why) {
  refused_n(text, strlen(text), LFA_ERR_FORMAT, where, why);
}

/* ---- accepted ------------------------------------------------------------------ */

static void test_valid_document_tree(void **state) {
  (void)state;
  lfa_json_doc doc = parse_ok(" {\"a\": [1, -2, true, false, null],\n \"s\": \"x\\\"y\", \"o\": {}, \"e\": [] } ");
  const lfa_json *r = doc.root;
  assert_int_equal(r->kind, LFA_JSON_OBJECT);
  assert_int_equal(r->count, 4);
  assert_string_equal(r->members[0].key, "a"); /* document order */
  assert_string_equal(r->members[3].key, "e");
  const lfa_json *a = lfa_json_find(r, "a");
  assert_int_equal(a->kind, LFA_JSON_ARRAY);
  assert_int_equal(a->count, 5);
  assert_int_equal(a->items[0].kind, LFA_JSON_INTEGER);
  assert_true(a->items[1].negative);
  assert_int_equal(a->items[1].magnitude, 2);
  assert_true(a->items[2].boolean);
  assert_false(a->items[3].boolean);
  assert_int_equal(a->items[4].kind, LFA_JSON_NULL);
  assert_string_equal(lfa_json_find(r, "s")->text, "x\"y");
  assert_int_equal(lfa_json_find(r, "o")->count, 0);
  assert_null(lfa_json_find(r, "missing"));
  assert_null(lfa_json_find(a, "a")); /* not an object */
  /* positions: "s" is on line 2; its value starts at column 7 */
  assert_int_equal(lfa_json_find(r, "s")->line, 2);
  assert_int_equal(lfa_json_find(r, "s")->column, 7);
  lfa_json_free(&doc);
}

static void test_valid_scalars_at_top_level(void **state) {
  (void)state;
  const char *docs[] = {"0", "-1", "1.5", "\"\"", "true", "null", " \t\r\n[]\n", "-0.0e+1", "1E-2"};
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    lfa_json_doc doc = parse_ok(docs[i]);
    lfa_json_free(&doc);
  }
}

static void test_strings_decode_escapes_and_utf8(void **state) {
  (void)state;
  lfa_json_doc doc = parse_ok(
      "[\"\\b\\f\\n\\r\\t\\/\\\\\", \"\\u00e9\\u20AC\", \"\\ud83d\\ude00\", \"caf\xc3\xa9 \xf0\x9f\x98\x80\", "
      "\"a\\u0000b\"]");
  const lfa_json *a = doc.root;
  assert_string_equal(a->items[0].text, "\b\f\n\r\t/\\");
  assert_string_equal(a->items[1].text, "\xc3\xa9\xe2\x82\xac");
  assert_string_equal(a->items[2].text, "\xf0\x9f\x98\x80"); /* a surrogate pair is one character */
  assert_string_equal(a->items[3].text, "caf\xc3\xa9 \xf0\x9f\x98\x80");
  assert_int_equal(a->items[4].length, 3); /* NUL kept... */
  const char *s;
  lfa_error err = {0};
  assert_status(lfa_json_string(&s, &a->items[4], "name", &err), LFA_ERR_FORMAT, &err); /* ...but no C string */
  assert_non_null(strstr(err.msg, "NUL"));
  assert_ok(lfa_json_string(&s, &a->items[3], "name", &err), &err);
  lfa_json_free(&doc);
}

static void test_integers_are_exact(void **state) {
  (void)state;
  lfa_json_doc doc = parse_ok(
      "[18446744073709551615, -9223372036854775808, 9223372036854775807, -0, "
      "18446744073709551616, -9223372036854775809, 1.0, 1e2, 7]");
  const lfa_json *a = doc.root;
  lfa_error err = {0};
  uint64_t u;
  int64_t i;
  assert_ok(lfa_json_u64(&u, &a->items[0], "k", &err), &err);
  assert_true(u == UINT64_MAX);
  assert_status(lfa_json_i64(&i, &a->items[0], "k", &err), LFA_ERR_FORMAT, &err);
  assert_ok(lfa_json_i64(&i, &a->items[1], "k", &err), &err);
  assert_true(i == INT64_MIN);
  assert_status(lfa_json_u64(&u, &a->items[1], "k", &err), LFA_ERR_FORMAT, &err); /* negative */
  assert_ok(lfa_json_i64(&i, &a->items[2], "k", &err), &err);
  assert_true(i == INT64_MAX);
  assert_ok(lfa_json_u64(&u, &a->items[3], "k", &err), &err); /* -0 is 0 */
  assert_true(u == 0);
  for (size_t k = 4; k <= 7; k++) { /* out of range, or not written as an integer */
    assert_int_equal(a->items[k].kind, LFA_JSON_NUMBER);
    assert_status(lfa_json_u64(&u, &a->items[k], "rows[0]", &err), LFA_ERR_FORMAT, &err);
    assert_non_null(strstr(err.msg, "rows[0] must be an integer"));
    assert_non_null(strstr(err.msg, "line 1, column"));
  }
  assert_non_null(strstr(err.msg, "not an integer")); /* 1e2 */
  assert_status(lfa_json_u64(&u, &a->items[4], "k", &err), LFA_ERR_FORMAT, &err);
  assert_non_null(strstr(err.msg, "out of range"));
  assert_ok(lfa_json_u64(&u, &a->items[8], "k", &err), &err);
  assert_true(u == 7);
  lfa_json_free(&doc);
}

static void test_typed_reads_name_what_they_found(void **state) {
  (void)state;
  lfa_json_doc doc = parse_ok("{\"a\": \"7\", \"b\": 1}");
  lfa_error err = {0};
  uint64_t u;
  bool b;
  assert_status(lfa_json_u64(&u, lfa_json_find(doc.root, "a"), "rows_per_file", &err), LFA_ERR_FORMAT, &err);
  assert_non_null(strstr(err.msg, "line 1, column 7: rows_per_file must be an integer"));
  assert_non_null(strstr(err.msg, "not a string"));
  assert_status(lfa_json_bool(&b, lfa_json_find(doc.root, "b"), "deep", &err), LFA_ERR_FORMAT, &err);
  assert_status(lfa_json_want(doc.root, LFA_JSON_ARRAY, "steps", &err), LFA_ERR_FORMAT, &err);
  assert_non_null(strstr(err.msg, "steps must be an array, not an object"));
  lfa_json_free(&doc);
}

/* ---- rejected --------------------------------------------------------------------------- */

static void test_rejects_trailing_commas_and_comments(void **state) {
  (void)state;
  refused("[1, 2,]", "line 1, column 6", "trailing comma in an array");
  refused("{\"a\": 1,\n }", "line 1, column 8", "trailing comma in an object");
  refused("[1, 2] // two", "line 1, column 8", "comments are not JSON");
  refused("{/* c */ \"a\": 1}", "line 1, column 2", "comments are not JSON");
  refused("[1,,2]", "line 1, column 4", "expected a value");
  refused("{'a': 1}", "line 1, column 2", "double quotes");
  refused("{a: 1}", "line 1, column 2", "a key in double quotes");
  refused("{\"a\" 1}", "line 1, column 6", "':' after a key");
  refused("[1 2]", "line 1, column 4", "expected ',' or ']'");
}

static void test_rejects_bad_escapes(void **state) {
  (void)state;
  refused("[\"\\x41\"]", "line 1, column 4", "invalid escape '\\x'");
  refused("[\"\\u12G4\"]", NULL, "four hex digits");
  refused("[\"\\ud83d\"]", "line 1, column 3", "high surrogate \\uD83D is not followed by a low one");
  refused("[\"\\ud83d\\u0041\"]", "line 1, column 3", "not a low surrogate");
  refused("[\"\\ude00\"]", "line 1, column 3", "lone low surrogate");
  refused("[\"a\tb\"]", "line 1, column 4", "control byte 0x09 must be escaped");
  refused("[\"abc", "line 1, column 2", "a string is not closed");
  refused("\"\\", NULL, "the document ends inside a string");
}

static void test_rejects_invalid_utf8(void **state) {
  (void)state;
  refused("[\"\xc0\x80\"]", "line 1, column 3", "invalid UTF-8"); /* overlong NUL */
  refused("[\"\xe0\x80\x80\"]", NULL, "invalid UTF-8");           /* overlong */
  refused("[\"\xed\xa0\x80\"]", NULL, "invalid UTF-8");           /* a surrogate, encoded */
  refused("[\"\xf4\x90\x80\x80\"]", NULL, "invalid UTF-8");       /* past U+10FFFF */
  refused("[\"\xf5\x80\x80\x80\"]", NULL, "cannot start a character");
  refused("[\"\x80\"]", NULL, "cannot start a character"); /* a stray continuation byte */
  refused("[\"\xc3\"]", NULL, "cannot follow");            /* cut short by the quote */
  refused("[\"\xe2\x82", NULL, "the document ends inside a character");
  refused("\xef\xbb\xbf[]", "line 1, column 1", "byte order mark");
  /* columns count characters: the error after two 2-byte characters is at column 6 */
  refused("[\"\xc3\xa9\xc3\xa9\" x]", "line 1, column 7", "unexpected 'x'");
}

static void test_rejects_duplicate_keys(void **state) {
  (void)state;
  refused("{\"a\": 1, \"b\": 2,\n \"a\": 3}", "line 2, column 2", "duplicate key \"a\" (first at line 1, column 2)");
  refused("{\"x\": {\"k\": 1, \"k\": 1}}", "line 1, column 16", "duplicate key \"k\"");
  /* same key through an escape is the same key */
  refused("{\"ab\": 1, \"a\\u0062\": 2}", "line 1, column 11", "duplicate key");
  /* many keys: found in sorted order, reported at the earliest repetition */
  char big[4096];
  size_t n = 0;
  n += (size_t)snprintf(big + n, sizeof big - n, "{");
  for (int i = 0; i < 200; i++) n += (size_t)snprintf(big + n, sizeof big - n, "\"k%d\": %d, ", i, i);
  n += (size_t)snprintf(big + n, sizeof big - n, "\"k150\": 0, \"k7\": 0}");
  refused(big, NULL, "duplicate key \"k150\"");
  lfa_json_doc doc = parse_ok("{\"a\": {\"a\": 1}, \"b\": [{\"a\": 1}, {\"a\": 2}]}"); /* one per object */
  lfa_json_free(&doc);
}

static void test_rejects_bad_numbers_and_literals(void **state) {
  (void)state;
  refused("[01]", "line 1, column 3", "leading zeros");
  refused("[-]", "line 1, column 3", "expected a digit");
  refused("[1.]", NULL, "a digit after the decimal point");
  refused("[.5]", "line 1, column 2", "unexpected '.'");
  refused("[+1]", NULL, "unexpected '+'");
  refused("[1e]", NULL, "a digit in the exponent");
  refused("[NaN]", NULL, "unexpected 'N'");
  refused("[-Infinity]", NULL, "expected a digit");
  refused("[tru]", "line 1, column 2", "expected 'true'");
  refused("[True]", NULL, "unexpected 'T'");
  refused("[nul", NULL, "expected 'null'");
}

static void test_rejects_bad_framing(void **state) {
  (void)state;
  refused("", "line 1, column 1", "ends where a value should be");
  refused("   \n  ", "line 2, column 3", "ends where a value should be");
  refused("[1] [2]", "line 1, column 5", "expected the end of the document");
  refused("{\"a\": 1}}", NULL, "expected the end of the document");
  refused("[1, 2", NULL, "the document ends where ',' or ']' should be");
  refused("{\"a\": 1", NULL, "',' or '}'");
  refused_n("[1]\0", 4, LFA_ERR_FORMAT, NULL, "byte 0x00");
  refused_n("[\"a\0\"]", 6, LFA_ERR_FORMAT, NULL, "control byte 0x00");
}

/* ---- limits ------------------------------------------------------------------------------------ */

/* `depth` nested arrays, or objects {"a": ...} around 1. */
static size_t nested(char *out, size_t cap, unsigned depth, bool objects) {
  size_t n = 0;
  for (unsigned i = 0; i < depth; i++) n += (size_t)snprintf(out + n, cap - n, "%s", objects ? "{\"a\":" : "[");
  if (objects) out[n++] = '1';
  for (unsigned i = 0; i < depth; i++) out[n++] = objects ? '}' : ']';
  out[n] = '\0';
  return n;
}

static void test_depth_at_the_limit_and_past_it(void **state) {
  (void)state;
  char buf[1024];
  for (int objects = 0; objects < 2; objects++) {
    nested(buf, sizeof buf, LFA_JSON_DEPTH_MAX, objects);
    lfa_json_doc doc = parse_ok(buf);
    unsigned depth = 0;
    for (const lfa_json *v = doc.root; v != NULL && v->count > 0 && v->kind != LFA_JSON_INTEGER; depth++)
      v = objects ? &v->members[0].value : &v->items[0];
    assert_int_equal(depth + (objects ? 0 : 1), LFA_JSON_DEPTH_MAX); /* the innermost array is empty */
    lfa_json_free(&doc);
    size_t n = nested(buf, sizeof buf, LFA_JSON_DEPTH_MAX + 1, objects);
    refused_n(buf, n, LFA_ERR_LIMIT, objects ? "line 1, column 321" : "line 1, column 65",
              "nested deeper than 64 (LFA_JSON_DEPTH_MAX)");
  }
}

static void test_size_limits(void **state) {
  (void)state;
  /* a string of exactly LFA_JSON_STRING_BYTES_MAX decoded bytes, then one more */
  size_t n = LFA_JSON_STRING_BYTES_MAX;
  char *s = malloc(n + 8);
  assert_non_null(s);
  s[0] = '"';
  memset(s + 1, 'x', n);
  s[n + 1] = '"', s[n + 2] = '\0';
  lfa_json_doc doc = parse_ok(s);
  assert_int_equal(doc.root->length, n);
  lfa_json_free(&doc);
  s[n + 1] = 'x', s[n + 2] = '"', s[n + 3] = '\0';
  refused_n(s, n + 3, LFA_ERR_LIMIT, "line 1, column 1", "LFA_JSON_STRING_BYTES_MAX");
  free(s);
  /* a document past LFA_JSON_DOCUMENT_BYTES_MAX is refused before it is read */
  size_t big = (size_t)LFA_JSON_DOCUMENT_BYTES_MAX + 1;
  char *d = malloc(big);
  assert_non_null(d);
  memset(d, ' ', big);
  d[0] = '0';
  refused_n(d, big, LFA_ERR_LIMIT, NULL, "LFA_JSON_DOCUMENT_BYTES_MAX");
  /* values: LFA_JSON_VALUES_MAX in all (the array is one of them), then one more */
  size_t at = 0;
  d[at++] = '[';
  for (size_t i = 0; i + 1 < LFA_JSON_VALUES_MAX; i++) d[at++] = '0', d[at++] = ',';
  d[at - 1] = ']';
  lfa_json_doc many;
  lfa_error err = {0};
  assert_ok(lfa_json_parse(&many, (const uint8_t *)d, at, &err), &err);
  assert_int_equal(many.root->count, LFA_JSON_VALUES_MAX - 1);
  lfa_json_free(&many);
  d[at - 1] = ',', d[at++] = '0', d[at++] = ']';
  refused_n(d, at, LFA_ERR_LIMIT, NULL, "LFA_JSON_VALUES_MAX");
  free(d);
}

/* ---- damage ---------------------------------------------------------------------------------- */

/* Visits every node, so a tree with a bad pointer or count fails under
 * the sanitizers. */
static size_t walk(const lfa_json *v) {
  size_t n = 1 + v->length;
  for (size_t i = 0; v->kind == LFA_JSON_ARRAY && i < v->count; i++) n += walk(&v->items[i]);
  for (size_t i = 0; v->kind == LFA_JSON_OBJECT && i < v->count; i++)
    n += v->members[i].key_length + walk(&v->members[i].value);
  return n;
}

static const char SEED_DOC[] =
    "{\"name\": \"append_supplied\", \"description\": \"caf\xc3\xa9 \\u00e9 \\ud83d\\ude00\",\n"
    " \"requirements\": [\"FA-APPEND-1\"], \"n\": [0, -1, 1.5e3, 18446744073709551615, true, false, null],\n"
    " \"setup\": {\"stable_row_ids\": false, \"fields\": [{\"path\": \"id\", \"type\": \"int64\"}], \"rows\": [1, "
    "2]},\n"
    " \"steps\": [{\"op\": \"append\", \"rows\": [3], \"check\": {\"live\": [1, 2, 3]}}, [[[{}]]], "
    "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]}\n";

static void test_random_byte_flips_never_crash(void **state) {
  (void)state;
  const size_t len = sizeof SEED_DOC - 1;
  static const uint8_t INTERESTING[] = {'"', '\\', '[',  ']',  '{',  '}',  ',',  ':',  '0', '-', 'e',
                                        '.', 'u',  0x00, 0x80, 0xC3, 0xED, 0xF4, 0xFF, ' ', '\n'};
  uint8_t buf[sizeof SEED_DOC];
  uint64_t rng = 0x5eed5eed;
  size_t accepted = 0;
  lfa_json_doc doc = parse_ok(SEED_DOC);
  lfa_json_free(&doc);
  for (int round = 0; round < 20000; round++) {
    memcpy(buf, SEED_DOC, len);
    size_t cut = round % 7 == 0 ? (size_t)(tu_rand(&rng) % (len + 1)) : len; /* sometimes cut short */
    for (int flips = 1 + (int)(tu_rand(&rng) % 4); flips > 0; flips--) {
      size_t at = (size_t)(tu_rand(&rng) % len);
      uint64_t how = tu_rand(&rng);
      buf[at] = how % 2 ? INTERESTING[(how >> 8) % sizeof INTERESTING] : (uint8_t)(how >> 16);
    }
    lfa_error err = {0};
    lfa_status st = lfa_json_parse(&doc, buf, cut, &err);
    if (st == LFA_OK) {
      accepted++;
      assert_true(walk(doc.root) > 0);
      lfa_json_free(&doc);
    } else {
      assert_non_null(strstr(err.msg, "line ")); /* every refusal says where */
      assert_null(doc.root);
    }
  }
  print_message("random damage: 20000 documents, %zu still valid JSON\n", accepted);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid_document_tree),
      cmocka_unit_test(test_valid_scalars_at_top_level),
      cmocka_unit_test(test_strings_decode_escapes_and_utf8),
      cmocka_unit_test(test_integers_are_exact),
      cmocka_unit_test(test_typed_reads_name_what_they_found),
      cmocka_unit_test(test_rejects_trailing_commas_and_comments),
      cmocka_unit_test(test_rejects_bad_escapes),
      cmocka_unit_test(test_rejects_invalid_utf8),
      cmocka_unit_test(test_rejects_duplicate_keys),
      cmocka_unit_test(test_rejects_bad_numbers_and_literals),
      cmocka_unit_test(test_rejects_bad_framing),
      cmocka_unit_test(test_depth_at_the_limit_and_past_it),
      cmocka_unit_test(test_size_limits),
      cmocka_unit_test(test_random_byte_flips_never_crash),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
