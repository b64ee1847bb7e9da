/* s3_listing.c: one ListObjectsV2 page read (lfa/s3_listing.h) with expat,
 * a real XML parser: the page is believed only when it is one complete,
 * well-formed ListBucketResult that agrees with itself [FA-CLEAN-13], and
 * its names are given only after the whole page was checked, so a page
 * refused half way has given nothing. */
#include "lfa/s3_listing.h"

#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/fs.h"

/* What an element is, by its name and where it stands. */
typedef enum elem {
  E_IGNORED,  /* an element lfa does not read (Name, MaxKeys, Owner, StorageClass...): skipped whole */
  E_ROOT,     /* <ListBucketResult> */
  E_ERROR,    /* <Error>, the root of an S3 error document */
  E_TRUNC,    /* root/IsTruncated */
  E_TOKEN,    /* root/NextContinuationToken */
  E_KEYCOUNT, /* root/KeyCount */
  E_CONTENTS, /* root/Contents: one object */
  E_PREFIXES, /* root/CommonPrefixes */
  E_KEY,      /* Contents/Key */
  E_SIZE,     /* Contents/Size */
  E_MODIFIED, /* Contents/LastModified */
  E_ETAG,     /* Contents/ETag */
  E_PREFIX,   /* CommonPrefixes/Prefix */
  E_CODE,     /* Error/Code */
  E_COUNT
} elem;

/* The leaves whose text is read, and how much of it may be kept. */
static size_t text_cap(elem e) {
  switch (e) {
    case E_KEY: case E_PREFIX: return LFA_S3_NAME_BYTES_MAX;
    case E_TOKEN: return LFA_S3_TOKEN_BYTES_MAX;
    case E_MODIFIED: case E_ETAG: return LFA_S3_LISTED_TEXT_MAX;
    case E_TRUNC: case E_KEYCOUNT: case E_SIZE: case E_CODE: return 63;
    default: return 0;
  }
}

static const char *const NAMES[E_COUNT] = {
    "", "ListBucketResult", "Error", "IsTruncated", "NextContinuationToken", "KeyCount", "Contents",
    "CommonPrefixes", "Key", "Size", "LastModified", "ETag", "Prefix", "Code"};

/* The element `name` is inside one of kind `parent` (E_COUNT: at the root). */
static elem kind_of(elem parent, const char *name) {
  static const struct { elem parent, child; } PLACES[] = {
      {E_COUNT, E_ROOT},     {E_COUNT, E_ERROR},    {E_ROOT, E_TRUNC},     {E_ROOT, E_TOKEN},
      {E_ROOT, E_KEYCOUNT},  {E_ROOT, E_CONTENTS},  {E_ROOT, E_PREFIXES},  {E_CONTENTS, E_KEY},
      {E_CONTENTS, E_SIZE},  {E_CONTENTS, E_MODIFIED}, {E_CONTENTS, E_ETAG}, {E_PREFIXES, E_PREFIX},
      {E_ERROR, E_CODE}};
  for (size_t i = 0; i < sizeof PLACES / sizeof PLACES[0]; i++)
    if (PLACES[i].parent == parent && strcmp(name, NAMES[PLACES[i].child]) == 0) return PLACES[i].child;
  return E_IGNORED;
}

/* One text kept: the element's text, or over (past its cap). */
typedef struct kept_text {
  char s[LFA_S3_TOKEN_BYTES_MAX + 1];
  size_t n;
  bool seen, over;
} kept_text;

typedef struct page {
  /* what the reading is for; fn NULL in the checking pass */
  lfa_s3_listing *l;
  const char *prefix, *path;
  lfa_s3_listed_fn fn;
  void *ctx;
  lfa_error *err;
  XML_Parser x;
  lfa_status st;
  /* where the parser is */
  elem stack[LFA_S3_XML_DEPTH_MAX];
  unsigned depth, ignored; /* elements open; of them, inside an ignored one */
  elem root;
  bool root_done;
  /* the page's own fields, and the entry being read */
  kept_text trunc, token, keycount, code;
  kept_text field[E_COUNT]; /* Key, Size, LastModified, ETag, Prefix of the entry being read */
  kept_text *at;            /* the leaf whose text is being read, or NULL */
  uint64_t entries;    /* <Contents> and <CommonPrefixes> read */
  char last_prefix[LFA_S3_NAME_BYTES_MAX + 1];
} page;

/* The first failure stops the parser; later ones are not recorded. `a`
 * and `b` (either NULL) are names quoted after `what`: "what'a' after 'b'". */
static void stop(page *p, const char *rule, const char *what, const char *a, const char *b) {
  if (p->st != LFA_OK) return;
  unsigned long at = (unsigned long)XML_GetCurrentByteIndex(p->x);
  p->st = lfa_fail(p->err, LFA_ERR_IO, rule, "%s: listing page, byte %lu: %s%.200s%s%.200s%s", p->path, at, what,
                   a ? a : "", b ? "' after '" : "", b ? b : "", a ? "'" : "");
  XML_StopParser(p->x, XML_FALSE);
}

/* stop() and leave the calling handler. */
#define STOP(...) \
  do {            \
    stop(__VA_ARGS__); \
    return;       \
  } while (0)

/* ---- names ------------------------------------------------------------------------------ */

/* [FA-CLEAN-12] Whether the part of a key below the prefix is names only:
 * "" (the prefix itself) or segments none empty, "." or "..", with at most a
 * trailing '/' (a "directory marker" object). A key "t/a/../../x" is a
 * literal name on S3, but any path built from it would leave the prefix. */
static bool names_below(const char *rest) {
  char r[LFA_S3_NAME_BYTES_MAX + 1];
  size_t n = strlen(rest);
  if (n == 0) return true;
  if (n >= sizeof r) return false;
  memcpy(r, rest, n + 1);
  if (r[n - 1] == '/') r[--n] = '\0';
  return n > 0 && lfa_fs_is_relative_names(r);
}

/* A decimal number of at most 20 digits that fits 64 bits. */
static bool decimal(uint64_t *out, const char *s) {
  uint64_t v = 0;
  if (s[0] == '\0') return false;
  for (const char *p = s; *p; p++) {
    if (*p < '0' || *p > '9' || v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) return false;
    v = v * 10 + (uint64_t)(*p - '0');
  }
  *out = v;
  return true;
}

static const char *value(const kept_text *t) { return t->seen && !t->over ? t->s : NULL; }

/* ---- one entry ------------------------------------------------------------------------- */

/* One <Contents>, complete: an object, ascending after l->last. */
static void end_object(page *p) {
  const char *key = value(&p->field[E_KEY]), *size = value(&p->field[E_SIZE]);
  char name[LFA_S3_NAME_BYTES_MAX + 1];
  size_t np = strlen(p->prefix);
  if (key == NULL || key[0] == '\0')
    STOP(p, NULL, "a listed object has no readable key of at most 1024 bytes", NULL, NULL);
  if (strncmp(key, p->prefix, np) != 0)
    STOP(p, "FA-CLEAN-12", "the listing names an object outside the prefix asked for: '", key, NULL);
  if (!names_below(key + np))
    STOP(p, "FA-CLEAN-12", "a key is a name, never a path: the listing names one with an empty, '.' or '..' "
                "segment: '", key, NULL);
  if (p->l->last[0] != '\0' && strcmp(key, p->l->last) <= 0)
    STOP(p, "FA-CLEAN-13", "the listing changed while it was read (a key repeats or goes back): '", key, p->l->last);
  lfa_s3_listed e = {key, key + np, false, 0, value(&p->field[E_MODIFIED]), value(&p->field[E_ETAG])};
  if (size == NULL || !decimal(&e.size, size))
    STOP(p, NULL, "an object is listed without a decimal <Size>: '", key, NULL);
  memcpy(p->l->last, key, strlen(key) + 1);
  if (e.name[0] == '\0' || p->fn == NULL) return; /* a "directory marker" object: the prefix itself */
  const char *slash = strchr(e.name, '/');
  if (slash != NULL) { /* a key deeper down: its first segment is a directory */
    memcpy(name, e.name, (size_t)(slash - e.name));
    name[slash - e.name] = '\0';
    e.name = name, e.dir = true;
  }
  p->st = p->fn(p->ctx, &e, p->err);
  if (p->st != LFA_OK) XML_StopParser(p->x, XML_FALSE);
}

/* One <CommonPrefixes>, complete: a directory one level below the prefix. */
static void end_prefixes(page *p) {
  char key[LFA_S3_NAME_BYTES_MAX + 1];
  const char *k = value(&p->field[E_PREFIX]);
  size_t np = strlen(p->prefix), n = k ? strlen(k) : 0;
  if (k == NULL) STOP(p, NULL, "a listed prefix is not readable", NULL, NULL);
  if (strncmp(k, p->prefix, np) != 0 || n <= np + 1 || k[n - 1] != '/')
    STOP(p, "FA-CLEAN-12", "the listing names a prefix that is not one below the prefix asked for: '", k, NULL);
  memcpy(key, k, n + 1);
  key[n - 1] = '\0';
  if (!names_below(key + np))
    STOP(p, "FA-CLEAN-12", "the listing names a prefix with an empty, '.' or '..' segment: '", k, NULL);
  if (strcmp(k, p->last_prefix) <= 0)
    STOP(p, "FA-CLEAN-13", "the listing repeats a prefix or goes back: '", k, p->last_prefix);
  memcpy(p->last_prefix, k, n + 1);
  if (strchr(key + np, '/') != NULL || p->fn == NULL) return; /* deeper than one level: not a name here */
  lfa_s3_listed e = {NULL, key + np, true, 0, NULL, NULL};
  p->st = p->fn(p->ctx, &e, p->err);
  if (p->st != LFA_OK) XML_StopParser(p->x, XML_FALSE);
}

/* ---- the parser's calls ----------------------------------------------------------------- */

static kept_text *leaf(page *p, elem e) {
  switch (e) {
    case E_TRUNC: return &p->trunc;
    case E_TOKEN: return &p->token;
    case E_KEYCOUNT: return &p->keycount;
    case E_CODE: return &p->code;
    case E_KEY: case E_SIZE: case E_MODIFIED: case E_ETAG: case E_PREFIX: return &p->field[e];
    default: return NULL;
  }
}

static void XMLCALL on_start(void *ctx, const XML_Char *name, const XML_Char **attrs) {
  page *p = ctx;
  (void)attrs;
  if (p->st != LFA_OK) return;
  if (p->depth >= LFA_S3_XML_DEPTH_MAX)
    STOP(p, "FA-CLEAN-13", "elements nested deeper than LFA_S3_XML_DEPTH_MAX", NULL, NULL);
  elem parent = p->depth == 0 ? E_COUNT : p->stack[p->depth - 1];
  elem e = p->ignored > 0 || p->at != NULL ? E_IGNORED : kind_of(parent, name);
  if (p->at != NULL) STOP(p, "FA-CLEAN-13", "an element inside a text element: ", NAMES[p->stack[p->depth - 1]], NULL);
  if (p->depth == 0 && e != E_ROOT && e != E_ERROR)
    STOP(p, "FA-CLEAN-13", "the listing is not a ListBucketResult: its root is <", name, NULL);
  p->stack[p->depth++] = e;
  if (e == E_IGNORED) p->ignored++;
  if (p->depth == 1) p->root = e;
  if (e == E_CONTENTS || e == E_PREFIXES) memset(p->field, 0, sizeof p->field);
  kept_text *t = leaf(p, e);
  if (t == NULL) return;
  if (t->seen) STOP(p, "FA-CLEAN-13", "an element given twice: <", name, NULL);
  *t = (kept_text){.seen = true};
  p->at = t;
}

static void XMLCALL on_text(void *ctx, const XML_Char *s, int len) {
  page *p = ctx;
  kept_text *t = p->at;
  if (p->st != LFA_OK || t == NULL || t->over) return; /* text between elements, or of one lfa does not read */
  size_t cap = text_cap(p->stack[p->depth - 1]);
  if (len < 0 || t->n + (size_t)len > cap) {
    t->over = true;
    return;
  }
  if (memchr(s, '\0', (size_t)len) != NULL) STOP(p, NULL, "a NUL in a listed text", NULL, NULL);
  memcpy(t->s + t->n, s, (size_t)len);
  t->n += (size_t)len;
  t->s[t->n] = '\0';
}

static void XMLCALL on_end(void *ctx, const XML_Char *name) {
  page *p = ctx;
  (void)name; /* expat has matched it with its start tag */
  if (p->st != LFA_OK || p->depth == 0) return; /* stopped: what expat still reports is not read */
  elem e = p->stack[--p->depth];
  p->at = NULL;
  if (e == E_IGNORED) p->ignored--;
  if (e == E_CONTENTS) end_object(p);
  else if (e == E_PREFIXES) end_prefixes(p);
  if (e == E_CONTENTS || e == E_PREFIXES) p->entries++;
  if (p->depth == 0) p->root_done = true;
}

/* No DTD: nothing a page declares is expanded, no entity defined. */
static void XMLCALL on_doctype(void *ctx, const XML_Char *name, const XML_Char *sys, const XML_Char *pub, int internal) {
  (void)name, (void)sys, (void)pub, (void)internal;
  stop(ctx, "FA-CLEAN-13", "a listing with a document type declaration", NULL, NULL);
}

/* ---- the page ---------------------------------------------------------------------------- */

/* The page's own word, once it is parsed whole: a ListBucketResult whose
 * IsTruncated, NextContinuationToken and KeyCount agree. */
static lfa_status check_head(page *p) {
  lfa_s3_listing *l = p->l;
  uint64_t count = 0;
  if (p->root == E_ERROR)
    return lfa_fail(p->err, LFA_ERR_IO, NULL, "%s: the listing is an S3 error document (%.63s)", p->path,
                    value(&p->code) ? p->code.s : "no code");
  const char *t = value(&p->trunc), *k = value(&p->keycount);
  if (t == NULL || (strcmp(t, "true") != 0 && strcmp(t, "false") != 0))
    return lfa_fail(p->err, LFA_ERR_IO, "FA-CLEAN-13", "%s: a listing page without <IsTruncated>true or false",
                    p->path);
  l->truncated = strcmp(t, "true") == 0;
  if (k != NULL && (!decimal(&count, k) || count != p->entries))
    return lfa_fail(p->err, LFA_ERR_IO, "FA-CLEAN-13",
                    "%s: a listing page whose <KeyCount> (%.63s) is not the %llu entries it holds", p->path, k,
                    (unsigned long long)p->entries);
  if (p->token.seen && (p->token.over || p->token.n == 0 || !l->truncated))
    return lfa_fail(p->err, LFA_ERR_IO, "FA-CLEAN-13",
                    "%s: a listing page's continuation token contradicts it (IsTruncated %s, token %s)", p->path, t,
                    p->token.over ? "too long" : p->token.n == 0 ? "empty" : "given");
  if (l->truncated && !p->token.seen)
    return lfa_fail(p->err, LFA_ERR_IO, "FA-CLEAN-13",
                    "%s: a listing page says it is truncated but gives no continuation token", p->path);
  memcpy(l->token, p->token.s, p->token.seen ? p->token.n + 1 : 1);
  if (!p->token.seen) l->token[0] = '\0';
  return LFA_OK;
}

/* One pass over the page: with fn NULL it only checks. */
static lfa_status parse(lfa_s3_listing *l, const char *s, size_t len, const char *prefix, const char *path,
                        lfa_s3_listed_fn fn, void *ctx, lfa_error *err) {
  page *p = calloc(1, sizeof *p);
  if (p == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory reading a listing");
  *p = (page){.l = l, .prefix = prefix, .path = path, .fn = fn, .ctx = ctx, .err = err};
  p->x = XML_ParserCreate("UTF-8"); /* whatever the page declares */
  if (p->x == NULL) {
    free(p);
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory reading a listing");
  }
  XML_SetUserData(p->x, p);
  XML_SetElementHandler(p->x, on_start, on_end);
  XML_SetCharacterDataHandler(p->x, on_text);
  XML_SetStartDoctypeDeclHandler(p->x, on_doctype);
  enum XML_Status xs = XML_Parse(p->x, s, (int)len, XML_TRUE);
  lfa_status st = p->st;
  if (st == LFA_OK && xs != XML_STATUS_OK)
    st = lfa_fail(err, LFA_ERR_IO, "FA-CLEAN-13", "%s: the listing page is not whole, well-formed XML (byte %lu: %s)",
                  path, (unsigned long)XML_GetCurrentByteIndex(p->x), XML_ErrorString(XML_GetErrorCode(p->x)));
  if (st == LFA_OK && !p->root_done)
    st = lfa_fail(err, LFA_ERR_IO, "FA-CLEAN-13", "%s: the listing page ends inside its document", path);
  if (st == LFA_OK) st = check_head(p);
  XML_ParserFree(p->x);
  free(p);
  return st;
}

lfa_status lfa_s3_listing_read(lfa_s3_listing *l, const char *text, size_t len, const char *prefix, const char *path,
                               lfa_s3_listed_fn fn, void *ctx, lfa_error *err) {
  if (text == NULL || len == 0)
    return lfa_fail(err, LFA_ERR_IO, "FA-CLEAN-13", "%s: the listing is empty, not a ListBucketResult", path);
  if (len > LFA_S3_LIST_PAGE_BYTES_MAX)
    return lfa_fail(err, LFA_ERR_IO, NULL, "%s: a listing page over LFA_S3_LIST_PAGE_BYTES_MAX", path);
  lfa_s3_listing checked = *l; /* the first pass checks the page whole; only then are its names given */
  lfa_status st = parse(&checked, text, len, prefix, path, NULL, NULL, err);
  return st == LFA_OK ? parse(l, text, len, prefix, path, fn, ctx, err) : st;
}
