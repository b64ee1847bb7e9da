/* s3_listing.c: one ListObjectsV2 page read (lfa/s3_listing.h): a small
 * bounded reader of the few elements a listing needs, never past `len`. */
#include "lfa/s3_listing.h"

#include <stdio.h>
#include <string.h>

#include "lfa/fs.h"

/* The first `n` bytes of `needle` in [at, end), or NULL. */
static const char *find(const char *at, const char *end, const char *needle, size_t n) {
  for (const char *p = at; p != NULL && (size_t)(end - p) >= n; p++) {
    p = memchr(p, needle[0], (size_t)(end - p) - n + 1);
    if (p == NULL) return NULL;
    if (memcmp(p, needle, n) == 0) return p;
  }
  return NULL;
}

/* The next <tag>...</tag> inside [*at, end): its text in [*a, *z), *at
 * moved past it. False when there is none. */
static bool next_element(const char **a, const char **z, const char **at, const char *end, const char *tag) {
  char open[48], close[48];
  int no = snprintf(open, sizeof open, "<%s>", tag), nc = snprintf(close, sizeof close, "</%s>", tag);
  const char *o = find(*at, end, open, (size_t)no);
  const char *c = o != NULL ? find(o + no, end, close, (size_t)nc) : NULL;
  if (c == NULL) return false;
  *a = o + no, *z = c, *at = c + nc;
  return true;
}

/* The code point of the reference "&name;" (name in [name, name + k)), or
 * 0 when it is none of the five entities nor a numeric reference to a
 * character XML allows (no NUL, no surrogate, at most U+10FFFF). */
static unsigned long reference(const char *name, size_t k) {
  static const struct { const char *name; char c; } NAMED[] = {
      {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
  for (size_t i = 0; i < sizeof NAMED / sizeof NAMED[0]; i++)
    if (strlen(NAMED[i].name) == k && memcmp(name, NAMED[i].name, k) == 0) return (unsigned char)NAMED[i].c;
  bool hex = k >= 2 && name[0] == '#' && name[1] == 'x';
  size_t from = hex ? 2 : 1;
  if (k <= from || k - from > 8 || name[0] != '#') return 0;
  unsigned long c = 0;
  for (size_t i = from; i < k; i++) { /* digits only: strtoul would take blanks and signs */
    char d = name[i];
    int v = d >= '0' && d <= '9' ? d - '0' : hex && d >= 'a' && d <= 'f' ? d - 'a' + 10
            : hex && d >= 'A' && d <= 'F' ? d - 'A' + 10 : -1;
    if (v < 0) return 0;
    c = c * (hex ? 16u : 10u) + (unsigned long)v;
  }
  return c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF) ? 0 : c;
}

/* The UTF-8 of code point c (at most U+10FFFF) into u[4]; its length. */
static size_t utf8(unsigned char u[4], unsigned long c) {
  if (c < 0x80) return u[0] = (unsigned char)c, 1;
  if (c < 0x800) return u[0] = (unsigned char)(0xC0 | (c >> 6)), u[1] = (unsigned char)(0x80 | (c & 63)), 2;
  if (c < 0x10000)
    return u[0] = (unsigned char)(0xE0 | (c >> 12)), u[1] = (unsigned char)(0x80 | ((c >> 6) & 63)),
           u[2] = (unsigned char)(0x80 | (c & 63)), 3;
  u[0] = (unsigned char)(0xF0 | (c >> 18)), u[1] = (unsigned char)(0x80 | ((c >> 12) & 63));
  u[2] = (unsigned char)(0x80 | ((c >> 6) & 63)), u[3] = (unsigned char)(0x80 | (c & 63));
  return 4;
}

/* XML text [a, z) with its references decoded, NUL-terminated into
 * out[cap]. False when it does not fit, holds a NUL or a bad reference. */
static bool xml_text(char *out, size_t cap, const char *a, const char *z) {
  size_t n = 0;
  for (const char *p = a; p < z;) {
    unsigned char u[4];
    size_t m = 1;
    if (*p != '&') {
      u[0] = (unsigned char)*p++;
      if (u[0] == 0) return false;
    } else {
      const char *semi = memchr(p, ';', (size_t)(z - p));
      unsigned long c = semi != NULL ? reference(p + 1, (size_t)(semi - p - 1)) : 0;
      if (c == 0) return false;
      m = utf8(u, c);
      p = semi + 1;
    }
    if (n + m >= cap) return false;
    memcpy(out + n, u, m);
    n += m;
  }
  out[n] = '\0';
  return true;
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

/* The decoded text of the first <tag> inside [a, z), into out[cap], or NULL. */
static const char *child_text(char *out, size_t cap, const char *a, const char *z, const char *tag) {
  const char *ta, *tz, *at = a;
  return next_element(&ta, &tz, &at, z, tag) && xml_text(out, cap, ta, tz) ? out : NULL;
}

/* The page's own fields: not an S3 error, IsTruncated, NextContinuationToken. */
static lfa_status read_head(lfa_s3_listing *l, const char *text, const char *end, const char *path, lfa_error *err) {
  char code[64];
  if (find(text, end, "<ListBucketResult", 17) == NULL) {
    if (find(text, end, "<Error>", 7) != NULL && child_text(code, sizeof code, text, end, "Code") != NULL)
      return lfa_fail(err, LFA_ERR_IO, NULL, "%s: the listing is an S3 error document (%s)", path, code);
    return lfa_fail(err, LFA_ERR_IO, NULL, "%s: the listing is not a ListBucketResult", path);
  }
  const char *a, *z, *at = text;
  l->truncated = next_element(&a, &z, &at, end, "IsTruncated") && z - a == 4 && memcmp(a, "true", 4) == 0;
  l->token[0] = '\0';
  if (l->truncated && (child_text(l->token, sizeof l->token, text, end, "NextContinuationToken") == NULL ||
                       l->token[0] == '\0'))
    return lfa_fail(err, LFA_ERR_IO, NULL, "%s: a listing page says it is truncated but gives no continuation token",
                    path);
  return LFA_OK;
}

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

/* One <Contents> [a, z): an object, ascending after l->last. */
static lfa_status read_object(lfa_s3_listing *l, const char *a, const char *z, const char *prefix, const char *path,
                              lfa_s3_listed_fn fn, void *ctx, lfa_error *err) {
  char key[LFA_S3_NAME_BYTES_MAX + 1], size[32], modified[LFA_S3_LISTED_TEXT_MAX + 1], etag[LFA_S3_LISTED_TEXT_MAX + 1];
  char name[LFA_S3_NAME_BYTES_MAX + 1];
  size_t np = strlen(prefix);
  if (child_text(key, sizeof key, a, z, "Key") == NULL)
    return lfa_fail(err, LFA_ERR_IO, NULL, "%s: a listed object has no readable key of at most %u bytes", path,
                    LFA_S3_NAME_BYTES_MAX);
  if (strncmp(key, prefix, np) != 0)
    return lfa_fail(err, LFA_ERR_IO, "FA-CLEAN-12", "%s: the listing names '%.200s', outside the prefix asked for", path,
                    key);
  if (!names_below(key + np))
    return lfa_fail(err, LFA_ERR_IO, "FA-CLEAN-12",
                    "%s: the listing names '%.200s', whose key has an empty, '.' or '..' segment: a key is a name, "
                    "never a path, so the listing is refused", path, key);
  if (l->last[0] != '\0' && strcmp(key, l->last) <= 0)
    return lfa_fail(err, LFA_ERR_IO, NULL,
                    "%s: the listing changed while it was read ('%.200s' after '%.200s'): read it again", path, key,
                    l->last);
  memcpy(l->last, key, strlen(key) + 1);
  lfa_s3_listed e = {key, key + np, false, 0, child_text(modified, sizeof modified, a, z, "LastModified"),
                     child_text(etag, sizeof etag, a, z, "ETag")};
  if (child_text(size, sizeof size, a, z, "Size") == NULL || !decimal(&e.size, size))
    return lfa_fail(err, LFA_ERR_IO, NULL, "%s: object '%.200s' is listed without a decimal <Size>", path, key);
  if (e.name[0] == '\0') return LFA_OK; /* a "directory marker" object: the prefix itself */
  const char *slash = strchr(e.name, '/');
  if (slash == NULL) return fn(ctx, &e, err);
  memcpy(name, e.name, (size_t)(slash - e.name)); /* a key deeper down: its first segment is a directory */
  name[slash - e.name] = '\0';
  e.name = name, e.dir = true;
  return fn(ctx, &e, err);
}

/* One <CommonPrefixes> [a, z): a directory one level below the prefix. */
static lfa_status read_prefix(const char *a, const char *z, const char *prefix, const char *path, lfa_s3_listed_fn fn,
                              void *ctx, lfa_error *err) {
  char key[LFA_S3_NAME_BYTES_MAX + 1];
  size_t np = strlen(prefix);
  if (child_text(key, sizeof key, a, z, "Prefix") == NULL)
    return lfa_fail(err, LFA_ERR_IO, NULL, "%s: a listed prefix is not readable", path);
  size_t n = strlen(key);
  if (strncmp(key, prefix, np) != 0 || n <= np + 1 || key[n - 1] != '/')
    return lfa_fail(err, LFA_ERR_IO, NULL, "%s: the listing names prefix '%.200s', not one below it", path, key);
  key[n - 1] = '\0';
  if (!names_below(key + np))
    return lfa_fail(err, LFA_ERR_IO, "FA-CLEAN-12", "%s: the listing names prefix '%.200s/', with an empty, '.' or '..' "
                    "segment: refused", path, key);
  if (strchr(key + np, '/') != NULL) return LFA_OK; /* deeper than one level: not a name here */
  lfa_s3_listed e = {NULL, key + np, true, 0, NULL, NULL};
  return fn(ctx, &e, err);
}

lfa_status lfa_s3_listing_read(lfa_s3_listing *l, const char *text, size_t len, const char *prefix, const char *path,
                               lfa_s3_listed_fn fn, void *ctx, lfa_error *err) {
  if (text == NULL || len == 0) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: the listing is empty, not a ListBucketResult", path);
  const char *end = text + len, *a, *z;
  lfa_status st = read_head(l, text, end, path, err);
  for (const char *at = text; st == LFA_OK && next_element(&a, &z, &at, end, "Contents");)
    st = read_object(l, a, z, prefix, path, fn, ctx, err);
  for (const char *at = text; st == LFA_OK && next_element(&a, &z, &at, end, "CommonPrefixes");)
    st = read_prefix(a, z, prefix, path, fn, ctx, err);
  return st;
}
