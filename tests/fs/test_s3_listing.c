/* test_s3_listing.c: the reader of one ListObjectsV2 page
 * (lfa/s3_listing.h) on pages a server would send and on the hostile ones
 * the fuzz target s3_listing found or was seeded with: escaped names, a
 * truncated page and its token, the prefix itself (which gives no name),
 * keys with an empty, "." or ".." segment (refused, FA-CLEAN-12), a <Size>
 * that is no number, an S3 error document, keys that go back between
 * pages, and pages that are not whole or contradict themselves, cut at
 * every byte among them (FA-CLEAN-13). */
#include "testutil.h"

#include "lfa/s3_listing.h"

#define URL "s3://b/db/t.lance"
#define HEAD "<?xml version=\"1.0\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
#define OBJECT(key, size) "<Contents><Key>" key "</Key><Size>" size "</Size></Contents>"

typedef struct names {
  size_t count;
  char text[512]; /* "name[/]|..." : '/' after a directory */
  uint64_t sizes[8];
} names;

static lfa_status collect(void *ctx, const lfa_s3_listed *e, lfa_error *err) {
  (void)err;
  names *n = ctx;
  size_t len = strlen(n->text);
  snprintf(n->text + len, sizeof n->text - len, "%s%s|", e->name, e->dir ? "/" : "");
  if (n->count < 8) n->sizes[n->count] = e->size;
  n->count++;
  return LFA_OK;
}

static lfa_status read_page(lfa_s3_listing *l, names *n, const char *page, const char *prefix, lfa_error *err) {
  memset(n, 0, sizeof *n);
  return lfa_s3_listing_read(l, page, strlen(page), prefix, URL, collect, n, err);
}

static void test_a_page_gives_its_names_decoded(void **state) {
  (void)state;
  const char *page = HEAD "<IsTruncated>true</IsTruncated><NextContinuationToken>t&amp;1</NextContinuationToken>"
      OBJECT("db/t.lance/_versions/1.manifest", "42")
      "<Contents><Key>db/t.lance/a&amp;b&lt;c&gt;&quot;q&#x27;&#233;.txt</Key><LastModified>2026-12-02T01:50:49.000Z"
      "</LastModified><ETag>&quot;9b&quot;</ETag><Size>18446744073709551615</Size></Contents>"
      "<CommonPrefixes><Prefix>db/t.lance/_indices/</Prefix></CommonPrefixes></ListBucketResult>";
  lfa_s3_listing l = {0};
  names n;
  lfa_error err = {0};
  assert_ok(read_page(&l, &n, page, "db/t.lance/", &err), &err);
  assert_string_equal(n.text, "_versions/|a&b<c>\"q'\xc3\xa9.txt|_indices/|");
  assert_true(n.sizes[0] == 42 && n.sizes[1] == UINT64_MAX);
  assert_true(l.truncated);
  assert_string_equal(l.token, "t&1");
  assert_string_equal(l.last, "db/t.lance/a&b<c>\"q'\xc3\xa9.txt");
}

static void test_the_prefix_itself_gives_no_name(void **state) {
  (void)state;
  const char *page = HEAD "<KeyCount>3</KeyCount><IsTruncated>false</IsTruncated>" OBJECT("db/t.lance/", "0") OBJECT("db/t.lance/d/", "0")
      OBJECT("db/t.lance/y", "2") "</ListBucketResult>";
  lfa_s3_listing l = {0};
  names n;
  lfa_error err = {0};
  assert_ok(read_page(&l, &n, page, "db/t.lance/", &err), &err);
  assert_string_equal(n.text, "d/|y|"); /* once, before the fix, "" was a name here; "d/" is a directory marker */
  assert_false(l.truncated);
}

/* [FA-CLEAN-12] A key is a name: one with an empty, "." or ".." segment
 * below the prefix is refused by name, never walked (a cleanup that walked
 * "roots/2/../../../../victim/x.root" deleted s3://b/victim/x.root). */
static void test_a_key_with_a_dot_or_empty_segment_is_refused(void **state) {
  (void)state;
  const char *keys[] = {"db/t.lance/_field_assignments/roots/2/../../../../victim/x.root", "db/t.lance//x",
                        "db/t.lance/a//b", "db/t.lance/./a", "db/t.lance/a/.", "db/t.lance/..", "db/t.lance/a/../b/",
                        "db/t.lance//"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    char page[1024];
    snprintf(page, sizeof page, HEAD "<KeyCount>1</KeyCount><IsTruncated>false</IsTruncated><Contents><Key>%s</Key>"
             "<Size>14</Size></Contents></ListBucketResult>", keys[i]);
    lfa_s3_listing l = {0};
    names n;
    lfa_error err = {0};
    assert_status(read_page(&l, &n, page, "db/t.lance/", &err), LFA_ERR_IO, &err);
    if (err.rule == NULL || strcmp(err.rule, "FA-CLEAN-12") != 0 || strstr(err.msg, keys[i]) == NULL || n.count != 0)
      fail_msg("key %s: '%s' (%s), %zu names given", keys[i], err.msg, err.rule ? err.rule : "no rule", n.count);
  }
  lfa_s3_listing l = {0};
  names n;
  lfa_error err = {0};
  assert_status(read_page(&l, &n, HEAD "<CommonPrefixes><Prefix>db/t.lance/../</Prefix></CommonPrefixes>"
                          "</ListBucketResult>", "db/t.lance/", &err), LFA_ERR_IO, &err);
  assert_string_equal(err.rule, "FA-CLEAN-12");
}

#define HEAD0 HEAD "<IsTruncated>false</IsTruncated>"

static void test_hostile_pages_are_errors_naming_the_url(void **state) {
  (void)state;
  const struct { const char *page, *said, *rule; } cases[] = {
      {HEAD0 OBJECT("db/t.lance/a", "-1") "</ListBucketResult>", "without a decimal <Size>: 'db/t.lance/a'", NULL},
      {HEAD0 OBJECT("db/t.lance/a", "18446744073709551616") "</ListBucketResult>", "without a decimal <Size>", NULL},
      {HEAD0 "<Contents><Key>db/t.lance/a</Key></Contents></ListBucketResult>", "without a decimal <Size>", NULL},
      {HEAD0 OBJECT("db/t.lance/a&#0;", "1") "</ListBucketResult>", "not whole, well-formed XML", "FA-CLEAN-13"},
      {HEAD0 OBJECT("db/t.lance/a&# 38;", "1") "</ListBucketResult>", "not whole, well-formed XML", "FA-CLEAN-13"},
      {HEAD0 OBJECT("db/t.lance/a&#xD800;", "1") "</ListBucketResult>", "not whole, well-formed XML", "FA-CLEAN-13"},
      {HEAD0 OBJECT("db/t.lance/a&nbsp;", "1") "</ListBucketResult>", "not whole, well-formed XML", "FA-CLEAN-13"},
      {HEAD0 OBJECT("db/other", "1") "</ListBucketResult>", "outside the prefix", "FA-CLEAN-12"},
      {HEAD0 OBJECT("db/t.lance/b", "1") OBJECT("db/t.lance/a", "1") "</ListBucketResult>", "the listing changed",
       "FA-CLEAN-13"},
      {HEAD "<IsTruncated>true</IsTruncated></ListBucketResult>", "no continuation token", "FA-CLEAN-13"},
      {"<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code><Message>no</Message></Error>",
       "an S3 error document (AccessDenied)", NULL},
      {"", "not a ListBucketResult", "FA-CLEAN-13"},
      /* [FA-CLEAN-13] pages that are not whole, or that contradict themselves */
      {HEAD0 OBJECT("db/t.lance/a", "1"), "not whole, well-formed XML", "FA-CLEAN-13"},
      {HEAD0 OBJECT("db/t.lance/a", "1") "<Contents><Key>", "not whole, well-formed XML", "FA-CLEAN-13"},
      {HEAD0 "<Contents><Key>db/t.lance/a</Key><Size>1</Size></ListBucketResult>", "not whole, well-formed XML",
       "FA-CLEAN-13"},
      {HEAD OBJECT("db/t.lance/a", "1") "</ListBucketResult>", "without <IsTruncated>", "FA-CLEAN-13"},
      {HEAD "<IsTruncated>maybe</IsTruncated></ListBucketResult>", "without <IsTruncated>", "FA-CLEAN-13"},
      {HEAD0 "<IsTruncated>false</IsTruncated></ListBucketResult>", "given twice", "FA-CLEAN-13"},
      {HEAD0 "<KeyCount>3</KeyCount>" OBJECT("db/t.lance/a", "1") "</ListBucketResult>", "<KeyCount> (3)",
       "FA-CLEAN-13"},
      {HEAD0 "<KeyCount>0</KeyCount>" OBJECT("db/t.lance/a", "1") "</ListBucketResult>", "<KeyCount> (0)",
       "FA-CLEAN-13"},
      {HEAD0 "<NextContinuationToken>t</NextContinuationToken></ListBucketResult>", "contradicts", "FA-CLEAN-13"},
      {HEAD0 OBJECT("db/t.lance/a", "1") OBJECT("db/t.lance/a", "1") "</ListBucketResult>", "the listing changed",
       "FA-CLEAN-13"},
      {HEAD0 "<Contents><Key>db/t.lance/a</Key><Key>db/t.lance/b</Key><Size>1</Size></Contents></ListBucketResult>",
       "given twice", "FA-CLEAN-13"},
      {HEAD0 "<Contents><Key>db/t.lance/<b/>a</Key><Size>1</Size></Contents></ListBucketResult>", "inside a text",
       "FA-CLEAN-13"},
      {"<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY a \"aaaa\">]><ListBucketResult><IsTruncated>false"
       "</IsTruncated></ListBucketResult>", "document type declaration", "FA-CLEAN-13"},
      {"<Other><IsTruncated>false</IsTruncated></Other>", "not a ListBucketResult", "FA-CLEAN-13"},
      {HEAD0 "</ListBucketResult><ListBucketResult>", "not whole, well-formed XML", "FA-CLEAN-13"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lfa_s3_listing l = {0};
    names n;
    lfa_error err = {0};
    assert_status(read_page(&l, &n, cases[i].page, "db/t.lance/", &err), LFA_ERR_IO, &err);
    if (strstr(err.msg, cases[i].said) == NULL || strncmp(err.msg, URL ": ", strlen(URL) + 2) != 0)
      fail_msg("case %zu: '%s' does not say '%s'", i, err.msg, cases[i].said);
    if ((cases[i].rule == NULL) != (err.rule == NULL) || (err.rule && strcmp(err.rule, cases[i].rule) != 0))
      fail_msg("case %zu: rule %s, not %s", i, err.rule ? err.rule : "none", cases[i].rule ? cases[i].rule : "none");
    if (n.count != 0) fail_msg("case %zu: a refused page gave %zu names", i, n.count);
  }
}

static void test_keys_must_ascend_from_the_page_before(void **state) {
  (void)state;
  lfa_s3_listing l = {0};
  names n;
  lfa_error err = {0};
  assert_ok(read_page(&l, &n, HEAD0 OBJECT("db/t.lance/b", "1") "</ListBucketResult>", "db/t.lance/", &err), &err);
  assert_status(read_page(&l, &n, HEAD0 OBJECT("db/t.lance/b", "1") "</ListBucketResult>", "db/t.lance/", &err),
                LFA_ERR_IO, &err);
  assert_non_null(strstr(err.msg, "the listing changed while it was read"));
}

/* [FA-CLEAN-13] A page cut at any byte (the server's Content-Length saying
 * the cut length) is refused and gives no name: before, a page cut after
 * its second entry was read as a whole listing of two versions. */
static void test_a_page_cut_at_any_byte_is_refused(void **state) {
  (void)state;
  const char *page = HEAD "<KeyCount>3</KeyCount><IsTruncated>false</IsTruncated>"
      OBJECT("db/t.lance/_versions/1.manifest", "1") OBJECT("db/t.lance/_versions/2.manifest", "2")
      OBJECT("db/t.lance/_versions/3.manifest", "3") "</ListBucketResult>";
  size_t len = strlen(page);
  lfa_s3_listing l = {0};
  names n = {0};
  lfa_error err = {0};
  assert_ok(lfa_s3_listing_read(&l, page, len, "db/t.lance/", URL, collect, &n, &err), &err);
  assert_int_equal(n.count, 3);
  for (size_t cut = 0; cut < len; cut++) {
    memset(&l, 0, sizeof l), memset(&n, 0, sizeof n);
    if (lfa_s3_listing_read(&l, page, cut, "db/t.lance/", URL, collect, &n, &err) == LFA_OK)
      fail_msg("a page cut at byte %zu of %zu was read (%zu names)", cut, len, n.count);
    if (n.count != 0) fail_msg("a page cut at byte %zu gave %zu names", cut, n.count);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_page_gives_its_names_decoded),
      cmocka_unit_test(test_the_prefix_itself_gives_no_name),
      cmocka_unit_test(test_a_key_with_a_dot_or_empty_segment_is_refused),
      cmocka_unit_test(test_hostile_pages_are_errors_naming_the_url),
      cmocka_unit_test(test_keys_must_ascend_from_the_page_before),
      cmocka_unit_test(test_a_page_cut_at_any_byte_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
