/* test_escape.c: the one text, JSON and XML escaper (lfa/escape.h), on the
 * byte strings that broke the outputs before: lead bytes F5-FF (once read
 * as 3-byte sequences), C0/C1 overlongs, surrogates, truncated sequences,
 * control characters and terminal controls. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "testutil.h"

#include <stdlib.h>

#include "lfa/escape.h"

static void test_utf8_len_refuses_every_invalid_form(void **state) {
  (void)state;
  assert_int_equal(lfa_utf8_len("a"), 1);
  assert_int_equal(lfa_utf8_len("\xc3\xa9"), 2);
  assert_int_equal(lfa_utf8_len("\xe2\x82\xac"), 3);
  assert_int_equal(lfa_utf8_len("\xf0\x9f\x98\x80"), 4);
  assert_int_equal(lfa_utf8_len("\xf4\x8f\xbf\xbf"), 4); /* U+10FFFF */
  const char *bad[] = {"\xf5\x80\x80",     "\xff\x80\x80", "\xfe", "\xc0\x80",     "\xc1\xbf",
                       "\xe0\x80\xaf",     "\xed\xa0\x80", "\xf0\x80\x80\x80", "\xf4\x90\x80\x80",
                       "\xe2\x82",         "\x80",         "\xc3"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) assert_int_equal(lfa_utf8_len(bad[i]), 0);
}

static char *text(const char *s) {
  char *out = malloc(4 * strlen(s) + 1);
  assert_non_null(out);
  size_t len = lfa_text_escape(out, 4 * strlen(s) + 1, s);
  assert_int_equal(len, strlen(out));
  return out;
}

static void test_text_shows_controls_and_bad_bytes_escaped(void **state) {
  (void)state;
  const char *cases[][2] = {
      {"plain name", "plain name"},
      {"caf\xc3\xa9", "caf\xc3\xa9"},
      {"a\nb\tc\\d", "a\\nb\\tc\\\\d"},
      {"\x1b[2J", "\\x1b[2J"},
      {"\x7f", "\\x7f"},
      {"\xf5\xff", "\\xf5\\xff"},
      {"\xed\xa0\x80", "\\xed\\xa0\\x80"},
      {"\xc2\x9b", "\\xc2\\x9b"},         /* C1 CSI */
      {"\xe2\x80\xae", "\\xe2\\x80\\xae"}, /* right-to-left override */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *got = text(cases[i][0]);
    assert_string_equal(got, cases[i][1]);
    free(got);
  }
  char small[5];
  assert_int_equal(lfa_text_escape(small, sizeof small, "\x01\x02"), 8); /* the whole length, as snprintf */
  assert_string_equal(small, "\\x01");
  assert_int_equal(lfa_text_escape(small, sizeof small, "a\x01" "b"), 6);
  assert_string_equal(small, "a"); /* whole escapes only, and nothing after one that does not fit */
  char quoted[LFA_TEXT_SHOWN_MAX + 4], long_name[300];
  memset(long_name, 'n', sizeof long_name);
  lfa_text_shown(quoted, sizeof quoted, "ab\ncd", 5);
  assert_string_equal(quoted, "ab\\ncd");
  lfa_text_shown(quoted, sizeof quoted, long_name, sizeof long_name);
  assert_int_equal(strlen(quoted), LFA_TEXT_SHOWN_MAX + 3);
  assert_string_equal(quoted + LFA_TEXT_SHOWN_MAX, "...");
}

/* What a writer prints for `s`, captured. */
static char *printed(void (*put)(FILE *, const char *), const char *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  put(f, s);
  assert_int_equal(fclose(f), 0);
  return buf;
}

static void test_json_and_xml_valid_for_any_bytes(void **state) {
  (void)state;
  const char *cases[][3] = {
      /* input, JSON, XML */
      {"a\"b\\c", "\"a\\\"b\\\\c\"", "a&quot;b\\c"},
      {"\xf5\x41", "\"\\ufffdA\"", "\xef\xbf\xbd" "A"},
      {"\xc0\x80", "\"\\ufffd\\ufffd\"", "\xef\xbf\xbd\xef\xbf\xbd"},
      {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
      {"\x01\n<&>'", "\"\\u0001\\n<&>'\"", "\xef\xbf\xbd\n&lt;&amp;&gt;&apos;"},
      {"\xc2\x9b\r", "\"\\u009b\\u000d\"", "\xc2\x9b&#13;"},
      {"\xef\xbf\xbe", "\"\xef\xbf\xbe\"", "\xef\xbf\xbd"}, /* U+FFFE: JSON may, XML 1.0 may not */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *j = printed(lfa_put_json, cases[i][0]), *x = printed(lfa_put_xml, cases[i][0]);
    assert_string_equal(j, cases[i][1]);
    assert_string_equal(x, cases[i][2]);
    free(j), free(x);
  }
  char *null = printed(lfa_put_json, NULL);
  assert_string_equal(null, "null");
  free(null);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_utf8_len_refuses_every_invalid_form),
      cmocka_unit_test(test_text_shows_controls_and_bad_bytes_escaped),
      cmocka_unit_test(test_json_and_xml_valid_for_any_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
