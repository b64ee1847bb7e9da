/* s3_listing: lfa_s3_listing_read over any bytes, as if they were one
 * ListObjectsV2 response page of the S3 client (lfa/s3_listing.h): the
 * XML a server, or anything between it and lfa, sends back for a listing.
 *
 * The input is read twice, as the first page of a listing of "db/t.lance/"
 * and as the second page of a listing of the bucket's root (after the key
 * "db/t.lance/_versions/1.manifest"), so both the prefix check and the
 * ascending-keys check across pages are reached from every input.
 *
 * Checks: no crash, leak or sanitizer report, and nothing read past the
 * input (it is copied to a buffer of exactly its size, with no NUL after
 * it); a failure is LFA_ERR_IO with a message naming the URL listed, never
 * another status, and the same without an error record; every name given
 * is non-empty, has no '/' and is the start of what follows the prefix in
 * its key; every page accepted gives exactly the object keys (below the
 * prefix, in order) that a reference parse of the same bytes by another
 * XML parser (libxml2) finds in the root's <Contents><Key> elements;
 * object keys start with the prefix and ascend strictly, each
 * after the previous page's last key; the listing's last key is not below
 * the last object given; a truncated page has a non-empty token; the same input gives
 * the same names again.
 */
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "fuzz_helpers.h"
#include "lfa/s3_listing.h"

#define URL "s3://b/db/t.lance"

typedef struct seen {
  const char *prefix;
  char last[LFA_S3_NAME_BYTES_MAX + 1]; /* the previous object's key */
  size_t names, objects;
  uint64_t digest;   /* of every name, in order */
  uint64_t keys;     /* of every object key given, in order */
} seen;

static uint64_t fnv(uint64_t h, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211u;
  return (h ^ 0xffu) * 1099511628211u; /* the end of one key */
}

/* The reference: the object keys of an accepted page, as libxml2 reads the
 * same bytes (as UTF-8, no network, no entity of a DTD: lfa refuses those),
 * those below the prefix in order: *count of them and their digest. False
 * when libxml2 cannot read the page (then nothing is compared). */
static bool reference_keys(uint64_t *digest, size_t *count, const char *text, size_t size, const char *prefix) {
  xmlDocPtr doc = xmlReadMemory(text, (int)size, NULL, "UTF-8", XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (doc == NULL) return false;
  xmlNodePtr root = xmlDocGetRootElement(doc);
  *digest = 14695981039346656037u, *count = 0;
  size_t np = strlen(prefix);
  for (xmlNodePtr c = root ? root->children : NULL; c != NULL; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || strcmp((const char *)c->name, "Contents") != 0) continue;
    for (xmlNodePtr k = c->children; k != NULL; k = k->next) {
      if (k->type != XML_ELEMENT_NODE || strcmp((const char *)k->name, "Key") != 0) continue;
      xmlChar *key = xmlNodeGetContent(k);
      size_t n = key ? strlen((const char *)key) : 0;
      if (key != NULL && n > np) *digest = fnv(*digest, (const char *)key, n), ++*count; /* the prefix itself gives no name */
      xmlFree(key);
    }
  }
  xmlFreeDoc(doc);
  return true;
}

static lfa_status on_name(void *ctx, const lfa_s3_listed *e, lfa_error *err) {
  (void)err;
  seen *s = ctx;
  size_t np = strlen(s->prefix), n = strlen(e->name);
  FUZZ_ASSERT(n > 0, "an empty name");
  FUZZ_ASSERT(strchr(e->name, '/') == NULL, "a name with a '/'");
  if (e->key != NULL) {
    FUZZ_ASSERT(strncmp(e->key, s->prefix, np) == 0, "an object outside the prefix");
    FUZZ_ASSERT(strncmp(e->key + np, e->name, n) == 0, "a name that does not start the key below the prefix");
    FUZZ_ASSERT(e->dir == (e->key[np + n] == '/'), "dir says otherwise than the key");
    FUZZ_ASSERT(e->key[np + n] == '\0' || e->key[np + n] == '/', "a name cut inside a segment");
    FUZZ_ASSERT(strcmp(e->key, s->last) > 0, "object keys that do not ascend");
    FUZZ_ASSERT(strlen(e->key) <= LFA_S3_NAME_BYTES_MAX, "a key over the S3 limit");
    memcpy(s->last, e->key, strlen(e->key) + 1);
    s->keys = fnv(s->keys, e->key, strlen(e->key));
    s->objects++;
  } else {
    FUZZ_ASSERT(e->dir, "a common prefix that is no directory");
  }
  s->names++;
  for (size_t i = 0; i < n; i++) s->digest = (s->digest ^ (unsigned char)e->name[i]) * 1099511628211u;
  s->digest = (s->digest ^ (e->dir ? 1u : 2u)) * 1099511628211u;
  return LFA_OK;
}

/* One read of `text` as a page of `prefix`'s listing after `last`. */
static void read_once(const char *text, size_t size, const char *prefix, const char *last) {
  lfa_s3_listing l;
  memset(&l, 0, sizeof l);
  snprintf(l.last, sizeof l.last, "%s", last);
  seen s = {prefix, "", 0, 0, 14695981039346656037u, 14695981039346656037u};
  snprintf(s.last, sizeof s.last, "%s", last);
  lfa_error err = fuzz_error();
  lfa_status st = lfa_s3_listing_read(&l, text, size, prefix, URL, on_name, &s, &err);
  FUZZ_ASSERT(st == LFA_OK || st == LFA_ERR_IO, "a listing failed other than as io");
  if (st != LFA_OK) {
    FUZZ_ASSERT(err.status == st && err.msg[0] != '\0', "a failure without its record");
    FUZZ_ASSERT(strstr(err.msg, URL) != NULL, "a failure that does not name the URL listed");
    FUZZ_ASSERT(err.rule == NULL || strcmp(err.rule, "FA-CLEAN-12") == 0 || strcmp(err.rule, "FA-CLEAN-13") == 0,
                "a listing failure cites a rule other than the listing's own");
  } else {
    FUZZ_ASSERT(!l.truncated || l.token[0] != '\0', "truncated without a token");
    /* objects that give no name (the prefix itself, "prefix//x") count too */
    FUZZ_ASSERT(strcmp(l.last, s.last) >= 0, "the listing's last key is below an object it gave");
    uint64_t ref = 0;
    size_t n = 0;
    if (reference_keys(&ref, &n, text, size, prefix))
      FUZZ_ASSERT(n == s.objects && ref == s.keys, "an accepted page's keys differ from libxml2's reading of it");
  }

  lfa_s3_listing again;
  memset(&again, 0, sizeof again);
  snprintf(again.last, sizeof again.last, "%s", last);
  seen t = {prefix, "", 0, 0, 14695981039346656037u, 14695981039346656037u};
  snprintf(t.last, sizeof t.last, "%s", last);
  lfa_status st2 = lfa_s3_listing_read(&again, text, size, prefix, URL, on_name, &t, NULL);
  FUZZ_ASSERT(st2 == st, "the status depends on whether an error record is passed");
  FUZZ_ASSERT(t.names == s.names && t.digest == s.digest, "the same page read twice gives other names");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size ? size : 1); /* exactly the input: a read past it is a sanitizer report */
  if (text == NULL) return 0;
  if (size) memcpy(text, data, size);
  read_once(text, size, "db/t.lance/", "");
  read_once(text, size, "", "db/t.lance/_versions/1.manifest");
  free(text);
  return 0;
}
