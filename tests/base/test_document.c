/* test_document.c: the one JSON and XML writer (lfa/document.h), its
 * layouts byte for byte as its header describes them (every expected
 * document below is written out by hand from that description), and its
 * escaping of hostile keys, values and attributes. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>

#include "lfa/document.h"

typedef struct sink {
  FILE *f;
  char *buf;
  size_t len;
} sink;

static void sink_open(sink *s) {
  s->buf = NULL, s->len = 0;
  s->f = open_memstream(&s->buf, &s->len);
  assert_non_null(s->f);
}

static void sink_is(sink *s, const char *want) {
  assert_int_equal(fclose(s->f), 0);
  assert_string_equal(s->buf, want);
  free(s->buf);
}

static void test_json_block_flow_wrap_and_numbers(void **state) {
  (void)state;
  sink s;
  sink_open(&s);
  lfa_json_writer w = {.out = s.f};
  lfa_json_open_object(&w, NULL);
  lfa_json_put_string(&w, "name", "t");
  lfa_json_open_array(&w, "empty");
  lfa_json_close_array(&w);
  lfa_json_open_array(&w, "items");
  lfa_json_open_flow_object(&w, NULL);
  lfa_json_put_u64(&w, "a", 1);
  lfa_json_put_i64(&w, "b", -2);
  lfa_json_wrap(&w);
  lfa_json_put_null(&w, "c");
  lfa_json_open_object(&w, "inner"); /* inside a flow: a flow */
  lfa_json_put_bool(&w, "d", true);
  lfa_json_close_object(&w);
  lfa_json_close_object(&w);
  lfa_json_close_array(&w);
  lfa_json_open_numbers(&w, "rows");
  lfa_json_number(&w, 3);
  lfa_json_number(&w, 5);
  lfa_json_close_array(&w);
  lfa_json_open_flow_array(&w, "flow");
  lfa_json_put_u64(&w, NULL, 7);
  lfa_json_put_u64(&w, NULL, 8);
  lfa_json_close_array(&w);
  lfa_json_close_object(&w);
  lfa_json_finish(&w);
  sink_is(&s, "{\n"
              "  \"name\": \"t\",\n"
              "  \"empty\": [],\n"
              "  \"items\": [\n"
              "    {\"a\": 1, \"b\": -2,\n"
              "     \"c\": null, \"inner\": {\"d\": true}}\n"
              "  ],\n"
              "  \"rows\": [3,5],\n"
              "  \"flow\": [7, 8]\n"
              "}\n");
}

static void test_json_reals_and_hostile_strings(void **state) {
  (void)state;
  sink s;
  sink_open(&s);
  lfa_json_writer w = {.out = s.f};
  lfa_json_open_flow_object(&w, NULL);
  lfa_json_put_real(&w, "r", 1.5e8);
  lfa_json_put_fixed(&w, "f", 2.0 / 3.0, 3);
  lfa_json_put_real(&w, "inf", INFINITY); /* JSON has no infinity */
  lfa_json_put_fixed(&w, "nan", NAN, 2);
  lfa_json_put_string(&w, "k\"\n\xff", "v\\\x01");
  lfa_json_put_string(&w, "none", NULL);
  lfa_json_close_object(&w);
  lfa_json_finish(&w);
  sink_is(&s, "{\"r\": 1.5e+08, \"f\": 0.667, \"inf\": null, \"nan\": null, "
              "\"k\\\"\\n\\ufffd\": \"v\\\\\\u0001\", \"none\": null}\n");
}

static void test_json_error_names_its_place(void **state) {
  (void)state;
  sink s;
  sink_open(&s);
  lfa_json_writer w = {.out = s.f};
  lfa_error err = {0};
  lfa_fail(&err, LFA_ERR_FORMAT, "FA-ROOT-2", "bad root");
  err.has_version = true, err.version = 4;
  lfa_json_put_error(&w, NULL, &err);
  lfa_json_finish(&w);
  char want[512];
  snprintf(want, sizeof want,
           "{\n  \"status\": \"%s\",\n  \"rule\": \"FA-ROOT-2\",\n  \"message\": \"bad root\",\n  \"version\": 4,\n"
           "  \"field_id\": null,\n  \"fragment_id\": null,\n  \"file\": null\n}\n",
           lfa_status_name(LFA_ERR_FORMAT));
  sink_is(&s, want);
}

static void test_xml_layout_and_escaping(void **state) {
  (void)state;
  sink s;
  sink_open(&s);
  lfa_xml_writer x = {.out = s.f};
  lfa_xml_declaration(&x);
  lfa_xml_open(&x, "a");
  lfa_xml_attr(&x, "n", "<\"&'>");
  lfa_xml_open(&x, "empty");
  lfa_xml_close(&x);
  lfa_xml_open(&x, "t");
  lfa_xml_attrf(&x, "k", "%d", 7);
  lfa_xml_text(&x, "x < y\n");
  lfa_xml_open(&x, "in"); /* inside text: inline */
  lfa_xml_textf(&x, "%s", "&");
  lfa_xml_close(&x);
  lfa_xml_close(&x);
  lfa_xml_close(&x);
  sink_is(&s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<a n=\"&lt;&quot;&amp;&apos;&gt;\">\n"
              "  <empty/>\n"
              "  <t k=\"7\">x &lt; y\n<in>&amp;</in></t>\n"
              "</a>\n");
}

static void test_junit_one_shape(void **state) {
  (void)state;
  sink s;
  sink_open(&s);
  lfa_xml_writer x = {.out = s.f};
  lfa_junit_begin(&x, "lfa verify", "ds\x01", (lfa_junit_counts){2, 1, 0, 0});
  lfa_junit_open_case(&x, "ds", "version 1", -1);
  lfa_xml_close(&x);
  lfa_junit_open_case(&x, "c", "n", 0.25);
  lfa_xml_open(&x, "failure");
  lfa_xml_attr(&x, "message", "m");
  lfa_xml_text(&x, "why");
  lfa_xml_close(&x);
  lfa_xml_close(&x);
  lfa_junit_end(&x);
  sink_is(&s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<testsuites name=\"lfa verify\" tests=\"2\" failures=\"1\">\n"
              "  <testsuite name=\"ds\xEF\xBF\xBD\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\">\n"
              "    <testcase classname=\"ds\" name=\"version 1\"/>\n"
              "    <testcase classname=\"c\" name=\"n\" time=\"0.250\">\n"
              "      <failure message=\"m\">why</failure>\n"
              "    </testcase>\n"
              "  </testsuite>\n"
              "</testsuites>\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_json_block_flow_wrap_and_numbers),
      cmocka_unit_test(test_json_reals_and_hostile_strings),
      cmocka_unit_test(test_json_error_names_its_place),
      cmocka_unit_test(test_xml_layout_and_escaping),
      cmocka_unit_test(test_junit_one_shape),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
