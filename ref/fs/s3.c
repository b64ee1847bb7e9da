/* s3.c: an S3-compatible object store as an lfa_fs (lfa/s3.h), over
 * libcurl: path-style requests, SigV4 by CURLOPT_AWS_SIGV4, bounded
 * retries with exponential backoff, ListObjectsV2 read page by page (each
 * page by lfa/s3_listing.h's bounded reader), a run-long memory of what each
 * key held, and prefetching GETs through curl multi. */
#define _POSIX_C_SOURCE 200809L
#include "lfa/s3.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "lfa/hash.h"
#include "lfa/limits.h"
#include "lfa/s3_listing.h"

/* ---- small tools ----------------------------------------------------------------------- */

static char *dup_or_null(const char *s) {
  if (s == NULL) return NULL;
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d != NULL) memcpy(d, s, n);
  return d;
}

static void sleep_ms(unsigned ms) {
  struct timespec t = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  unsigned yoe = (unsigned)(y - era * 400);
  unsigned doy = (153 * (m + (m > 2 ? (unsigned)-3 : 9)) + 2) / 5 + d - 1;
  unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (int64_t)doe - 719468;
}

static int64_t epoch_of(int64_t y, unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned s) {
  return days_from_civil(y, mo, d) * 86400 + (int64_t)h * 3600 + (int64_t)mi * 60 + (int64_t)s;
}

/* "2026-12-02T01:50:49.000Z" (a listing's LastModified); 0 when it is not that. */
static int64_t parse_iso8601(const char *s) {
  int y = 0;
  unsigned mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (sscanf(s, "%4d-%2u-%2uT%2u:%2u:%2u", &y, &mo, &d, &h, &mi, &sec) != 6) return 0;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return 0;
  return epoch_of(y, mo, d, h, mi, sec);
}

/* "Wed, 02 Dec 2026 01:50:49 GMT" (Last-Modified); 0 when it is not that. */
static int64_t parse_http_date(const char *s) {
  static const char MONTHS[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
  char wd[4], mon[4];
  int y = 0;
  unsigned d = 0, h = 0, mi = 0, sec = 0;
  if (sscanf(s, "%3s, %2u %3s %4d %2u:%2u:%2u", wd, &d, mon, &y, &h, &mi, &sec) != 7) return 0;
  const char *at = strstr(MONTHS, mon);
  if (at == NULL || strlen(mon) != 3 || (at - MONTHS) % 3 != 0) return 0;
  unsigned mo = (unsigned)((at - MONTHS) / 3) + 1;
  if (d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return 0;
  return epoch_of(y, mo, d, h, mi, sec);
}

/* ---- the client --------------------------------------------------------------------------- */

/* What a listing, a HEAD or a GET said about one key. */
typedef struct meta {
  char *key; /* "bucket/key"; owned (the allocation holds it) */
  bool dir;  /* a prefix keys are under, not an object */
  uint64_t size;
  int64_t mtime;
  uint64_t tag; /* hash of the ETag */
} meta;

/* A body fetched ahead (prefetch), waiting for its read. */
typedef struct fetched {
  char *key; /* "bucket/key" */
  lfa_buf body;
  uint64_t size;
  int64_t mtime;
  uint64_t tag;
  struct fetched *next;
} fetched;

struct lfa_s3 {
  lfa_fs fs;
  char *endpoint; /* "scheme://host[:port]", no trailing '/' */
  char *region, *sigv4, *userpwd, *token_header;
  unsigned retries, timeout_ms;
  bool trace; /* LFA_S3_TRACE=1: every request on stderr */
  CURL *easy;
  lfa_fs_stats stats;
  unsigned failed_in_row; /* requests whose every attempt failed in transport, in a row */
  char down_reason[256];
  lfa_hash metas; /* meta, by key */
  fetched *ahead; /* prefetched bodies, newest first */
  uint64_t ahead_bytes;
};

/* ---- keys and URLs ----------------------------------------------------------------------- */

bool lfa_is_s3_url(const char *path) { return path != NULL && strncmp(path, "s3://", 5) == 0; }

/* "s3://bucket/a//b/./c" -> bucket "bucket", key "a/b/c" (empty segments
 * and "." left out, as a joined path means them; a listing never gives a
 * key with either, lfa/s3_listing.h). A ".." segment is refused: it is no
 * name on S3, and a path built with it would name a key elsewhere. */
static lfa_status split_url(char *bucket, size_t bcap, char *key, size_t kcap, const char *path, lfa_error *err) {
  if (!lfa_is_s3_url(path)) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: not an s3:// URL", path);
  const char *p = path + 5;
  size_t bn = strcspn(p, "/");
  if (bn == 0 || bn >= bcap) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: no bucket name (s3://BUCKET/KEY)", path);
  memcpy(bucket, p, bn);
  bucket[bn] = '\0';
  p += bn;
  size_t used = 0;
  while (*p != '\0') {
    while (*p == '/') p++;
    size_t seg = strcspn(p, "/");
    if (seg == 0) break;
    if (seg == 2 && p[0] == '.' && p[1] == '.') /* [FA-CLEAN-12] a key is a name: never climbed out of */
      return lfa_fail(err, LFA_ERR_IO, "FA-CLEAN-12", "%s: a '..' segment: an S3 key is a name, not a path", path);
    if (!(seg == 1 && p[0] == '.')) {
      if (used + seg + 2 > kcap || used + seg + 1 > LFA_S3_NAME_BYTES_MAX)
        return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "%s: key longer than %u bytes", path, LFA_S3_NAME_BYTES_MAX);
      if (used > 0) key[used++] = '/';
      memcpy(key + used, p, seg);
      used += seg;
    }
    p += seg;
  }
  key[used] = '\0';
  return LFA_OK;
}

/* Percent-encodes `s` into `out` (RFC 3986 unreserved bytes kept, and '/'
 * when keep_slash), as SigV4's canonical form wants it. */
static bool encode(char *out, size_t cap, const char *s, bool keep_slash) {
  static const char HEX[] = "0123456789ABCDEF";
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    bool plain = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
                 *p == '_' || *p == '.' || *p == '~' || (keep_slash && *p == '/');
    if (n + 4 > cap) return false;
    if (plain) out[n++] = (char)*p;
    else out[n++] = '%', out[n++] = HEX[*p >> 4], out[n++] = HEX[*p & 15];
  }
  out[n] = '\0';
  return true;
}

enum { URL_CAP = 3 * (LFA_PATH_BYTES_MAX + 2048) };

/* ---- the memory of keys ------------------------------------------------------------------- */

static uint64_t key_hash(const char *k) { return lfa_hash_text(LFA_HASH_START, k); }
static bool same_key(const void *item, const void *k) { return strcmp(((const meta *)item)->key, k) == 0; }

static const meta *meta_find(const lfa_s3 *s, const char *bk) {
  return lfa_hash_find(&s->metas, key_hash(bk), same_key, bk);
}

static void meta_forget(lfa_s3 *s, const char *bk) {
  meta *m = lfa_hash_remove(&s->metas, key_hash(bk), same_key, bk);
  free(m);
}

/* Remembers what a response said of key `bk` (best effort: past
 * LFA_S3_META_ENTRIES_MAX keys, nothing more is remembered). */
static void meta_put(lfa_s3 *s, const char *bk, bool dir, uint64_t size, int64_t mtime, uint64_t tag) {
  meta *old = lfa_hash_find(&s->metas, key_hash(bk), same_key, bk);
  if (old != NULL) {
    if (dir && !old->dir) return; /* an object named like a prefix: the object is what stat tells */
    old->dir = dir, old->size = size, old->mtime = mtime, old->tag = tag;
    return;
  }
  size_t n = strlen(bk) + 1;
  meta *m = malloc(sizeof *m + n);
  if (m == NULL) return;
  memcpy(m + 1, bk, n);
  *m = (meta){(char *)(m + 1), dir, size, mtime, tag};
  if (lfa_hash_add(&s->metas, key_hash(bk), m, LFA_S3_META_ENTRIES_MAX, NULL) != LFA_OK) free(m);
}

static void metas_free(lfa_hash *t) {
  size_t at = 0;
  for (void *m; (m = lfa_hash_next(t, &at)) != NULL;) free(m);
  lfa_hash_free(t);
}

/* ---- one request ------------------------------------------------------------------------- */

typedef struct response {
  long status;
  bool has_length, has_range;
  uint64_t length;                      /* Content-Length */
  uint64_t range_first, range_last, total; /* Content-Range: bytes first-last/total */
  int64_t mtime;
  uint64_t tag;
  bool has_tag;
  lfa_buf *body;      /* where a 2xx body goes (may be NULL: discarded) */
  size_t max_body;    /* more is refused: LFA_ERR_LIMIT */
  bool over;          /* the body passed max_body */
  lfa_buf error_body; /* the start of a non-2xx body, for its code */
} response;

static void response_reset(response *r) {
  lfa_buf *body = r->body;
  size_t max = r->max_body;
  lfa_buf_free(&r->error_body);
  if (body != NULL) lfa_buf_free(body);
  memset(r, 0, sizeof *r);
  r->body = body, r->max_body = max;
}

static size_t on_header(char *line, size_t size, size_t n, void *user) {
  response *r = user;
  size_t len = size * n;
  char h[512];
  size_t k = len < sizeof h - 1 ? len : sizeof h - 1;
  memcpy(h, line, k);
  h[k] = '\0';
  while (k > 0 && (h[k - 1] == '\r' || h[k - 1] == '\n')) h[--k] = '\0';
  if (strncmp(h, "HTTP/", 5) == 0) { /* a new response (after a 100 Continue): start over */
    const char *sp = strchr(h, ' ');
    lfa_buf *body = r->body;
    size_t max = r->max_body;
    lfa_buf_free(&r->error_body);
    memset(r, 0, sizeof *r);
    r->body = body, r->max_body = max;
    r->status = sp ? strtol(sp + 1, NULL, 10) : 0;
    return len;
  }
  char *colon = strchr(h, ':');
  if (colon == NULL) return len;
  *colon = '\0';
  const char *v = colon + 1;
  while (*v == ' ' || *v == '\t') v++;
  if (strcasecmp(h, "content-length") == 0) {
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno == 0 && end != v && *end == '\0' && v[0] != '-') r->has_length = true, r->length = x;
    /* a body too large is refused from its length, before it comes */
    if (r->has_length && r->body != NULL && r->status >= 200 && r->status < 300 && x > r->max_body) {
      r->over = true;
      return 0;
    }
  } else if (strcasecmp(h, "content-range") == 0) {
    unsigned long long a = 0, b = 0, t = 0;
    if (sscanf(v, "bytes %llu-%llu/%llu", &a, &b, &t) == 3 && a <= b && b < t)
      r->has_range = true, r->range_first = a, r->range_last = b, r->total = t;
    else if (sscanf(v, "bytes */%llu", &t) == 1)
      r->has_range = false, r->total = t;
  } else if (strcasecmp(h, "etag") == 0) {
    r->has_tag = true, r->tag = lfa_hash_text(LFA_HASH_START, v);
  } else if (strcasecmp(h, "last-modified") == 0) {
    r->mtime = parse_http_date(v);
  }
  return len;
}

static size_t on_body(char *data, size_t size, size_t n, void *user) {
  response *r = user;
  size_t len = size * n;
  if (r->status < 200 || r->status >= 300) { /* an error's body: its start is enough */
    size_t room = LFA_S3_ERROR_BODY_BYTES_MAX - r->error_body.len;
    if (room > 0 && lfa_buf_append(&r->error_body, data, len < room ? len : room, NULL) != LFA_OK) return 0;
    return len;
  }
  if (r->body == NULL) return len;
  if (len > r->max_body - r->body->len) {
    r->over = true;
    return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
  }
  return lfa_buf_append(r->body, data, len, NULL) == LFA_OK ? len : 0;
}

typedef struct upload {
  const uint8_t *data;
  size_t len, at;
} upload;

static size_t on_read(char *out, size_t size, size_t n, void *user) {
  upload *u = user;
  size_t room = size * n, left = u->len - u->at;
  size_t k = left < room ? left : room;
  if (k > 0) memcpy(out, u->data + u->at, k);
  u->at += k;
  return k;
}

/* A request: method, bucket and key (encoded here), a query already
 * encoded and sorted, extra headers. */
typedef struct request {
  const char *method; /* GET HEAD PUT DELETE */
  const char *bucket, *key, *query;
  const char *range;       /* "bytes=A-B" or NULL */
  bool if_none_match;      /* If-None-Match: * */
  const uint8_t *data;     /* PUT body */
  size_t len;
} request;

/* The text between <tag> and </tag> of an S3 error body, or "". */
static void xml_field(char *out, size_t cap, const lfa_buf *b, const char *tag) {
  char open[64], close[64];
  snprintf(open, sizeof open, "<%s>", tag);
  snprintf(close, sizeof close, "</%s>", tag);
  out[0] = '\0';
  if (b->len == 0) return;
  char text[LFA_S3_ERROR_BODY_BYTES_MAX + 1];
  size_t n = b->len < LFA_S3_ERROR_BODY_BYTES_MAX ? b->len : LFA_S3_ERROR_BODY_BYTES_MAX;
  memcpy(text, b->data, n);
  text[n] = '\0';
  const char *a = strstr(text, open);
  const char *z = a ? strstr(a + strlen(open), close) : NULL;
  if (a == NULL || z == NULL) return;
  a += strlen(open);
  size_t k = (size_t)(z - a) < cap - 1 ? (size_t)(z - a) : cap - 1;
  for (size_t i = 0; i < k; i++) out[i] = (a[i] >= 0x20 && a[i] < 0x7f) ? a[i] : '?';
  out[k] = '\0';
}

static bool transient_curl(CURLcode c) {
  return c == CURLE_COULDNT_CONNECT || c == CURLE_OPERATION_TIMEDOUT || c == CURLE_RECV_ERROR ||
         c == CURLE_SEND_ERROR || c == CURLE_PARTIAL_FILE || c == CURLE_GOT_NOTHING ||
         c == CURLE_SSL_CONNECT_ERROR || c == CURLE_COULDNT_RESOLVE_HOST || c == CURLE_HTTP2 ||
         c == CURLE_HTTP2_STREAM;
}

static bool transient_status(long s) { return s == 500 || s == 502 || s == 503 || s == 504 || s == 408 || s == 429; }

static void setup(lfa_s3 *s, CURL *e, const request *q, const char *url, struct curl_slist *h, response *r, upload *u) {
  curl_easy_setopt(e, CURLOPT_URL, url);
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)LFA_S3_CONNECT_TIMEOUT_MS);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)s->timeout_ms);
  curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L); /* [FA-CLEAN-12] the key as built, no dot segment merged */
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
  if (s->sigv4 != NULL) {
    curl_easy_setopt(e, CURLOPT_AWS_SIGV4, s->sigv4);
    curl_easy_setopt(e, CURLOPT_USERPWD, s->userpwd);
  }
  if (strcmp(q->method, "HEAD") == 0) curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
  else if (strcmp(q->method, "PUT") == 0) {
    u->data = q->data, u->len = q->len, u->at = 0;
    curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(e, CURLOPT_READDATA, u);
    curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)q->len);
  } else if (strcmp(q->method, "DELETE") == 0) {
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
  }
}

static lfa_status build_url(char *url, size_t cap, const lfa_s3 *s, const request *q, lfa_error *err) {
  char ekey[URL_CAP / 2], ebucket[256];
  if (!encode(ekey, sizeof ekey, q->key ? q->key : "", true) || !encode(ebucket, sizeof ebucket, q->bucket, false))
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "s3://%s/%s: too long for a URL", q->bucket, q->key ? q->key : "");
  int n = snprintf(url, cap, "%s/%s%s%s%s%s", s->endpoint, ebucket, q->key ? "/" : "", ekey, q->query ? "?" : "",
                   q->query ? q->query : "");
  if (n < 0 || (size_t)n >= cap) return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "s3://%s/%s: URL too long", q->bucket, ekey);
  return LFA_OK;
}

static struct curl_slist *headers_of(const lfa_s3 *s, const request *q, bool *ok) {
  struct curl_slist *h = NULL, *t;
  char range[96];
  *ok = true;
#define ADD(x)                                   \
  do {                                           \
    t = curl_slist_append(h, (x));               \
    if (t == NULL) *ok = false;                  \
    else h = t;                                  \
  } while (0)
  ADD("x-amz-content-sha256: UNSIGNED-PAYLOAD");
  if (s->token_header) ADD(s->token_header);
  if (q->range) {
    snprintf(range, sizeof range, "Range: %s", q->range);
    ADD(range);
  }
  if (q->if_none_match) ADD("If-None-Match: *");
  if (strcmp(q->method, "PUT") == 0) ADD("Expect:");
#undef ADD
  return h;
}

/* Performs `q` with retries. LFA_OK with r->status set once an attempt got
 * an answer that is not transient (any status: the caller decides what it
 * means); LFA_ERR_IO when every attempt failed in transport or with a
 * transient status; LFA_ERR_LIMIT when the body passed r->max_body.
 * *retried: an attempt before the answered one went unanswered. */
static lfa_status perform(lfa_s3 *s, const request *q, response *r, bool *retried, lfa_error *err) {
  char url[URL_CAP];
  if (retried) *retried = false;
  if (s->down_reason[0] != '\0')
    return lfa_fail(err, LFA_ERR_IO, NULL, "s3://%s/%s: not requested: %s", q->bucket, q->key ? q->key : "",
                    s->down_reason);
  lfa_status st = build_url(url, sizeof url, s, q, err);
  if (st != LFA_OK) return st;
  bool ok = true;
  struct curl_slist *h = headers_of(s, q, &ok);
  if (!ok) {
    curl_slist_free_all(h);
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory for a request");
  }
  char last[256] = "";
  unsigned wait = LFA_S3_BACKOFF_FIRST_MS;
  for (unsigned attempt = 0;; attempt++) {
    upload u = {0};
    response_reset(r);
    curl_easy_reset(s->easy);
    setup(s, s->easy, q, url, h, r, &u);
    s->stats.requests++;
    s->stats.bytes_written += q->len;
    CURLcode c = curl_easy_perform(s->easy);
    if (r->body) s->stats.bytes_read += r->body->len;
    if (s->trace)
      fprintf(stderr, "lfa s3: %s %s%s%s -> %ld %s (%zu bytes)\n", q->method, url, q->range ? " " : "",
              q->range ? q->range : "", r->status, c == CURLE_OK ? "" : curl_easy_strerror(c),
              r->body ? r->body->len : 0);
    if (c == CURLE_WRITE_ERROR && r->over) {
      curl_slist_free_all(h);
      return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "s3://%s/%s: %" PRIu64 " bytes exceeds the limit of %zu",
                      q->bucket, q->key ? q->key : "", r->has_length ? r->length : (uint64_t)r->max_body + 1,
                      r->max_body);
    }
    bool transient = false;
    if (c != CURLE_OK) {
      transient = transient_curl(c);
      snprintf(last, sizeof last, "%s", curl_easy_strerror(c));
      if (!transient) {
        curl_slist_free_all(h);
        return lfa_fail(err, LFA_ERR_IO, NULL, "s3://%s/%s: %s %s: %s", q->bucket, q->key ? q->key : "", q->method,
                        s->endpoint, last);
      }
    } else if (transient_status(r->status)) {
      char code[64];
      xml_field(code, sizeof code, &r->error_body, "Code");
      snprintf(last, sizeof last, "HTTP %ld%s%s", r->status, code[0] ? " " : "", code);
      transient = true;
    } else if (r->status >= 200 && r->status < 300 && r->body && r->has_length && r->body->len != r->length &&
               strcmp(q->method, "HEAD") != 0) {
      snprintf(last, sizeof last, "body of %zu bytes, Content-Length %" PRIu64, r->body->len, r->length);
      transient = true; /* cut short without curl noticing: read again */
    }
    if (!transient) {
      s->failed_in_row = 0;
      curl_slist_free_all(h);
      return LFA_OK;
    }
    if (attempt >= s->retries) break;
    if (retried) *retried = true;
    s->stats.retries++;
    sleep_ms(wait);
    wait = wait * 2 > LFA_S3_BACKOFF_MAX_MS ? LFA_S3_BACKOFF_MAX_MS : wait * 2;
  }
  curl_slist_free_all(h);
  response_reset(r);
  if (++s->failed_in_row >= LFA_S3_DOWN_AFTER)
    snprintf(s->down_reason, sizeof s->down_reason, "%s stopped answering: %u requests in a row failed (last: %s)",
             s->endpoint, s->failed_in_row, last);
  return lfa_fail(err, LFA_ERR_IO, NULL, "s3://%s/%s: %s failed after %u attempts: %s", q->bucket,
                  q->key ? q->key : "", q->method, s->retries + 1, last);
}

/* The failure an answered request with a status that is not success means. */
static lfa_status status_error(const response *r, const char *path, const char *what, lfa_error *err) {
  char code[64], msg[160];
  xml_field(code, sizeof code, &r->error_body, "Code");
  xml_field(msg, sizeof msg, &r->error_body, "Message");
  if (r->status == 404) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: no such object (HTTP 404%s%s)", path, code[0] ? " " : "", code);
  if (r->status == 403)
    return lfa_fail(err, LFA_ERR_IO, NULL, "%s: access denied (HTTP 403%s%s%s%s)", path, code[0] ? " " : "", code,
                    msg[0] ? ": " : "", msg);
  return lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s: HTTP %ld%s%s%s%s", path, what, r->status, code[0] ? " " : "", code,
                  msg[0] ? ": " : "", msg);
}

/* ---- HEAD, and what a key is ------------------------------------------------------------- */

typedef struct where {
  char bucket[256];
  char key[LFA_PATH_BYTES_MAX];
  char bk[LFA_PATH_BYTES_MAX + 260]; /* "bucket/key", the memory's key */
} where;

static lfa_status locate(where *w, const char *path, lfa_error *err) {
  lfa_status st = split_url(w->bucket, sizeof w->bucket, w->key, sizeof w->key, path, err);
  if (st == LFA_OK) snprintf(w->bk, sizeof w->bk, "%s/%s", w->bucket, w->key);
  return st;
}

/* HEAD of an object: *found, and its metadata remembered. */
static lfa_status head(lfa_s3 *s, const where *w, const char *path, bool *found, lfa_fs_stat *out, lfa_error *err) {
  response r = {0};
  request q = {"HEAD", w->bucket, w->key, NULL, NULL, false, NULL, 0};
  *found = false;
  lfa_status st = perform(s, &q, &r, NULL, err);
  if (st == LFA_OK && r.status >= 200 && r.status < 300) {
    *found = true;
    *out = (lfa_fs_stat){LFA_FS_FILE, r.has_length ? r.length : 0, r.mtime, 0, key_hash(w->bk), r.tag};
    meta_put(s, w->bk, false, out->size, out->mtime, out->tag);
  } else if (st == LFA_OK && r.status != 404) {
    st = status_error(&r, path, "HEAD", err);
  }
  response_reset(&r);
  return st;
}

typedef struct listing {
  lfa_names *names; /* children (NULL: only whether there is one) */
  size_t cap;
  bool any;
} listing;

static lfa_status list_prefix(lfa_s3 *s, const where *w, const char *path, listing *out, unsigned max_keys,
                              lfa_error *err);

/* Whether a key is under "key/": a directory. */
static lfa_status is_prefix(lfa_s3 *s, const where *w, const char *path, bool *dir, lfa_error *err) {
  const meta *m = meta_find(s, w->bk);
  if (m != NULL && m->dir) return *dir = true, LFA_OK;
  listing l = {0};
  lfa_status st = list_prefix(s, w, path, &l, 1, err);
  *dir = st == LFA_OK && l.any;
  if (*dir) meta_put(s, w->bk, true, 0, 0, 0);
  return st;
}

static lfa_status s3_stat_fresh(lfa_s3 *s, const where *w, const char *path, lfa_fs_stat *out, lfa_error *err) {
  bool found = false;
  memset(out, 0, sizeof *out);
  lfa_status st = w->key[0] ? head(s, w, path, &found, out, err) : LFA_OK;
  if (st != LFA_OK || found) return st;
  bool dir = false;
  st = is_prefix(s, w, path, &dir, err);
  if (st == LFA_OK && dir) *out = (lfa_fs_stat){LFA_FS_DIR, 0, 0, 0, key_hash(w->bk), 0};
  return st;
}

static lfa_status s3_stat(void *ctx, const char *path, int follow, lfa_fs_stat *out, lfa_error *err) {
  lfa_s3 *s = ctx;
  where w;
  (void)follow; /* no links on an object store */
  memset(out, 0, sizeof *out);
  lfa_status st = locate(&w, path, err);
  if (st != LFA_OK) return st;
  const meta *m = meta_find(s, w.bk);
  if (m != NULL) {
    *out = (lfa_fs_stat){m->dir ? LFA_FS_DIR : LFA_FS_FILE, m->size, m->mtime, 0, key_hash(w.bk), m->tag};
    return LFA_OK;
  }
  return s3_stat_fresh(s, &w, path, out, err);
}

static int s3_size(void *ctx, const char *path, uint64_t *size) {
  lfa_fs_stat st;
  if (s3_stat(ctx, path, 1, &st, NULL) != LFA_OK || st.kind != LFA_FS_FILE) return 0;
  *size = st.size;
  return 1;
}

static int s3_exists(void *ctx, const char *path) {
  lfa_fs_stat st;
  return s3_stat(ctx, path, 1, &st, NULL) == LFA_OK && st.kind != LFA_FS_MISSING;
}

static int s3_is_dir(void *ctx, const char *path) {
  lfa_s3 *s = ctx;
  where w;
  bool dir = false;
  if (locate(&w, path, NULL) != LFA_OK) return 0;
  if (w.key[0] == '\0') return 1; /* the bucket's root */
  return is_prefix(s, &w, path, &dir, NULL) == LFA_OK && dir;
}

/* ---- ListObjectsV2 ---------------------------------------------------------------------------- */

static lfa_status push_name(listing *l, const char *name, lfa_error *err) {
  l->any = true;
  if (l->names == NULL) return LFA_OK;
  lfa_names *o = l->names;
  if (o->count >= LFA_CLEANUP_OBJECTS_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "a listing of more than %u names", LFA_CLEANUP_OBJECTS_MAX);
  if (o->count == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    char **g = realloc(o->names, cap * sizeof *g);
    if (g == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory listing");
    o->names = g, l->cap = cap;
  }
  if ((o->names[o->count] = dup_or_null(name)) == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory listing");
  o->count++;
  return LFA_OK;
}

/* What one listed name tells: the object's size and ETag, the directory
 * it makes, and the name itself (lfa/s3_listing.h reads the page). */
typedef struct page_reader {
  lfa_s3 *s;
  const where *w;
  const char *prefix;
  listing *l;
} page_reader;

static lfa_status on_listed(void *ctx, const lfa_s3_listed *e, lfa_error *err) {
  page_reader *p = ctx;
  char bk[LFA_S3_NAME_BYTES_MAX + 300];
  if (e->key != NULL) {
    snprintf(bk, sizeof bk, "%s/%s", p->w->bucket, e->key);
    uint64_t tag = e->etag != NULL ? lfa_hash_text(LFA_HASH_START, e->etag) : 0;
    meta_put(p->s, bk, false, e->size, e->modified != NULL ? parse_iso8601(e->modified) : 0, tag);
  }
  if (e->dir) {
    snprintf(bk, sizeof bk, "%s/%s%s", p->w->bucket, p->prefix, e->name);
    meta_put(p->s, bk, true, 0, 0, 0);
  }
  return push_name(p->l, e->name, err);
}

static lfa_status list_prefix(lfa_s3 *s, const where *w, const char *path, listing *l, unsigned max_keys,
                              lfa_error *err) {
  char prefix[LFA_S3_NAME_BYTES_MAX + 2], eprefix[3 * LFA_S3_NAME_BYTES_MAX + 8];
  char etoken[3 * LFA_S3_TOKEN_BYTES_MAX + 8], prev_token[LFA_S3_TOKEN_BYTES_MAX + 1];
  char query[sizeof etoken + sizeof eprefix + 128];
  size_t kn = strlen(w->key);
  if (kn + 2 > sizeof prefix) return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "%s: prefix too long", path);
  memcpy(prefix, w->key, kn);
  prefix[kn] = '/', prefix[kn + 1] = '\0';
  if (kn == 0) prefix[0] = '\0';
  if (!encode(eprefix, sizeof eprefix, prefix, false))
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "%s: prefix too long", path);
  lfa_s3_listing at = {0}; /* the token and the last key, from page to page */
  page_reader reader = {s, w, prefix, l};
  prev_token[0] = '\0';
  lfa_buf page = {0};
  lfa_status st = LFA_OK;
  for (unsigned pages = 0;; pages++) {
    if (pages >= LFA_S3_LIST_PAGES_MAX) {
      st = lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "%s: a listing of more than %u pages", path, LFA_S3_LIST_PAGES_MAX);
      break;
    }
    /* parameters in sorted order, values encoded: SigV4's canonical query */
    etoken[0] = '\0';
    if (at.token[0] && !encode(etoken, sizeof etoken, at.token, false)) {
      st = lfa_fail(err, LFA_ERR_IO, NULL, "%s: continuation token too long", path);
      break;
    }
    snprintf(query, sizeof query, "%s%s%slist-type=2&max-keys=%u&prefix=%s", at.token[0] ? "continuation-token=" : "",
             etoken, at.token[0] ? "&" : "", max_keys, eprefix);
    response r = {.body = &page, .max_body = LFA_S3_LIST_PAGE_BYTES_MAX};
    request q = {"GET", w->bucket, NULL, query, NULL, false, NULL, 0};
    st = perform(s, &q, &r, NULL, err);
    if (st == LFA_OK && r.status != 200) st = status_error(&r, path, "list", err);
    if (st == LFA_OK)
      st = lfa_s3_listing_read(&at, (const char *)page.data, page.len, prefix, path, on_listed, &reader, err);
    lfa_buf_free(&r.error_body);
    lfa_buf_free(&page);
    if (st != LFA_OK || !at.truncated || (max_keys == 1 && l->any)) break;
    if (strcmp(at.token, prev_token) == 0) {
      st = lfa_fail(err, LFA_ERR_IO, NULL, "%s: the listing gave the same continuation token twice", path);
      break;
    }
    memcpy(prev_token, at.token, sizeof at.token);
  }
  return st;
}

static lfa_status s3_list(void *ctx, lfa_names *out, const char *dir, int missing_ok, lfa_error *err) {
  lfa_s3 *s = ctx;
  where w;
  memset(out, 0, sizeof *out);
  lfa_status st = locate(&w, dir, err);
  listing l = {out, 0, false};
  if (st == LFA_OK) st = list_prefix(s, &w, dir, &l, 1000, err);
  if (st == LFA_OK && !l.any && !missing_ok) st = lfa_fail(err, LFA_ERR_IO, NULL, "%s: no such directory (no key under it)", dir);
  if (st != LFA_OK) {
    lfa_fs_names_free(out);
    return st;
  }
  lfa_fs_names_sort_unique(out); /* sorted, and a name both an object and a prefix once */
  if (w.key[0]) meta_put(s, w.bk, true, 0, 0, 0);
  return LFA_OK;
}

/* ---- GET ------------------------------------------------------------------------------------ */

static fetched *take_ahead(lfa_s3 *s, const char *bk) {
  for (fetched **p = &s->ahead; *p != NULL; p = &(*p)->next)
    if (strcmp((*p)->key, bk) == 0) {
      fetched *f = *p;
      *p = f->next;
      s->ahead_bytes -= f->body.len;
      return f;
    }
  return NULL;
}

static void fetched_free(fetched *f) {
  if (f == NULL) return;
  free(f->key);
  lfa_buf_free(&f->body);
  free(f);
}

static lfa_status s3_read(void *ctx, lfa_buf *out, const char *path, size_t max_bytes, lfa_error *err) {
  lfa_s3 *s = ctx;
  where w;
  memset(out, 0, sizeof *out);
  lfa_status st = locate(&w, path, err);
  if (st != LFA_OK) return st;
  fetched *f = take_ahead(s, w.bk);
  if (f != NULL) {
    if (f->body.len > max_bytes) {
      st = lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "%s: %zu bytes exceeds the limit of %zu", path, f->body.len, max_bytes);
    } else {
      *out = f->body;
      memset(&f->body, 0, sizeof f->body);
    }
    fetched_free(f);
    return st;
  }
  const meta *m = meta_find(s, w.bk);
  if (m != NULL && !m->dir && m->size > max_bytes) /* as the POSIX read: refused before reading */
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "%s: %" PRIu64 " bytes exceeds the limit of %zu", path, m->size,
                    max_bytes);
  response r = {.body = out, .max_body = max_bytes};
  request q = {"GET", w.bucket, w.key, NULL, NULL, false, NULL, 0};
  if (w.key[0] == '\0') return lfa_fail(err, LFA_ERR_IO, NULL, "%s: a bucket, not an object", path);
  st = perform(s, &q, &r, NULL, err);
  if (st == LFA_OK && r.status == 200) {
    meta_put(s, w.bk, false, out->len, r.mtime, r.tag);
  } else if (st == LFA_OK) {
    st = status_error(&r, path, "GET", err);
    if (r.status == 404) meta_forget(s, w.bk);
  }
  lfa_buf_free(&r.error_body);
  if (st != LFA_OK) lfa_buf_free(out);
  return st;
}

static lfa_status s3_read_range(void *ctx, lfa_buf *out, const char *path, uint64_t offset, size_t len,
                                uint64_t *total, lfa_error *err) {
  lfa_s3 *s = ctx;
  where w;
  memset(out, 0, sizeof *out);
  lfa_status st = locate(&w, path, err);
  if (st != LFA_OK) return st;
  if (len == 0) { /* nothing to fetch: the size alone (s3rver answers a 0-byte range wrongly) */
    lfa_fs_stat info;
    st = s3_stat(ctx, path, 1, &info, err);
    if (st == LFA_OK && info.kind != LFA_FS_FILE) st = lfa_fail(err, LFA_ERR_IO, NULL, "%s: no such object", path);
    if (st == LFA_OK && offset > info.size) st = lfa_fail(err, LFA_ERR_IO, NULL, "%s: byte %" PRIu64 " is past its end", path, offset);
    *total = info.size;
    return st;
  }
  char range[64];
  snprintf(range, sizeof range, "bytes=%" PRIu64 "-%" PRIu64, offset, offset + len - 1);
  response r = {.body = out, .max_body = len};
  request q = {"GET", w.bucket, w.key, NULL, range, false, NULL, 0};
  st = perform(s, &q, &r, NULL, err);
  if (st == LFA_OK && r.status == 206 && r.has_range && r.range_first == offset && out->len == r.range_last - offset + 1) {
    *total = r.total;
    meta_put(s, w.bk, false, r.total, r.mtime, r.tag);
  } else if (st == LFA_OK && r.status == 200 && offset == 0) { /* the whole object, no range applied */
    *total = out->len;
    if (out->len > len) out->len = len;
  } else if (st == LFA_OK && r.status == 416) {
    st = lfa_fail(err, LFA_ERR_IO, NULL, "%s: byte %" PRIu64 " is past its end", path, offset);
  } else if (st == LFA_OK && (r.status == 206 || r.status == 200)) {
    st = lfa_fail(err, LFA_ERR_IO, NULL, "%s: the server answered range %s with other bytes", path, range);
  } else if (st == LFA_OK) {
    st = status_error(&r, path, "GET", err);
  }
  lfa_buf_free(&r.error_body);
  if (st != LFA_OK) lfa_buf_free(out);
  return st;
}

/* ---- PUT, DELETE --------------------------------------------------------------------------- */

/* Whether the object at `w` holds exactly these bytes (a retried PUT
 * whose first attempt went through). */
static bool holds(lfa_s3 *s, const where *w, const uint8_t *data, size_t len) {
  lfa_buf got = {0};
  response r = {.body = &got, .max_body = len};
  request q = {"GET", w->bucket, w->key, NULL, NULL, false, NULL, 0};
  bool same = perform(s, &q, &r, NULL, NULL) == LFA_OK && r.status == 200 && got.len == len &&
              (len == 0 || memcmp(got.data, data, len) == 0);
  lfa_buf_free(&got);
  lfa_buf_free(&r.error_body);
  return same;
}

/* A conditional PUT: *exists when something was there first. */
static lfa_status put(lfa_s3 *s, const where *w, const char *path, const uint8_t *data, size_t len, bool conditional,
                      bool *exists, lfa_error *err) {
  response r = {0};
  request q = {"PUT", w->bucket, w->key, NULL, NULL, conditional, data, len};
  bool retried = false;
  *exists = false;
  lfa_status st = perform(s, &q, &r, &retried, err);
  meta_forget(s, w->bk);
  if (st == LFA_OK && (r.status == 412 || r.status == 409) && conditional) {
    *exists = !(retried && holds(s, w, data, len)); /* our own earlier attempt made it */
  } else if (st == LFA_OK && (r.status < 200 || r.status >= 300)) {
    st = status_error(&r, path, "PUT", err);
  }
  lfa_buf_free(&r.error_body);
  return st;
}

static lfa_status s3_write_new(void *ctx, const char *path, const uint8_t *data, size_t len, lfa_error *err) {
  where w;
  bool exists = false;
  lfa_status st = locate(&w, path, err);
  if (st == LFA_OK) st = put(ctx, &w, path, data, len, true, &exists, err);
  if (st == LFA_OK && exists) st = lfa_fail(err, LFA_ERR_IO, "FA-STORE-8", "%s: object exists (HTTP 412)", path);
  return st;
}

static lfa_status s3_publish_new(void *ctx, const char *path, const char *tmp, const uint8_t *data, size_t len,
                                 lfa_error *err) {
  lfa_s3 *s = ctx;
  where w;
  lfa_fs_stat there;
  bool exists = false;
  (void)tmp; /* one conditional PUT is the whole publish: nothing is staged */
  bool found = false;
  lfa_status st = locate(&w, path, err);
  if (st == LFA_OK) st = head(s, &w, path, &found, &there, err); /* for servers that ignore If-None-Match */
  if (st == LFA_OK && found) exists = true;
  else if (st == LFA_OK) st = put(s, &w, path, data, len, true, &exists, err);
  if (st == LFA_OK && exists)
    st = lfa_fail(err, LFA_ERR_CONFLICT, "FA-CONC-11", "%s exists already: another writer committed it first", path);
  return st;
}

static lfa_status s3_replace_hint(void *ctx, const char *path, const char *tmp, const uint8_t *data, size_t len,
                                  lfa_error *err) {
  where w;
  bool exists = false;
  (void)tmp;
  lfa_status st = locate(&w, path, err);
  return st == LFA_OK ? put(ctx, &w, path, data, len, false, &exists, err) : st;
}

static lfa_status s3_make_dir(void *ctx, const char *path, lfa_error *err) {
  lfa_s3 *s = ctx;
  where w;
  bool dir = false;
  lfa_status st = locate(&w, path, err);
  if (st == LFA_OK) st = is_prefix(s, &w, path, &dir, err);
  if (st == LFA_OK && dir) st = lfa_fail(err, LFA_ERR_USAGE, NULL, "%s already exists", path);
  return st;
}

static lfa_status s3_remove_beneath(void *ctx, lfa_fs_removed *outcome, uint64_t *size, const char *dir,
                                    const char *rel, const lfa_fs_stat *expect, lfa_error *err) {
  lfa_s3 *s = ctx;
  char path[LFA_PATH_BYTES_MAX];
  where w;
  bool found = false;
  lfa_fs_stat now;
  *size = 0;
  lfa_status st = lfa_fs_join(path, sizeof path, dir, rel, err);
  if (st == LFA_OK) st = locate(&w, path, err);
  if (st == LFA_OK) st = head(s, &w, path, &found, &now, err); /* fresh: never the listing's word */
  if (st != LFA_OK) return st;
  if (!found) {
    meta_forget(s, w.bk);
    *outcome = LFA_FS_GONE;
    return LFA_OK;
  }
  if (expect != NULL && (now.size != expect->size || (expect->tag != 0 && now.tag != expect->tag))) {
    *outcome = LFA_FS_CHANGED;
    return LFA_OK;
  }
  response r = {0};
  request q = {"DELETE", w.bucket, w.key, NULL, NULL, false, NULL, 0};
  st = perform(s, &q, &r, NULL, err);
  if (st == LFA_OK && (r.status == 204 || r.status == 200)) *outcome = LFA_FS_REMOVED, *size = now.size;
  else if (st == LFA_OK && r.status == 404) *outcome = LFA_FS_GONE;
  else if (st == LFA_OK) st = status_error(&r, path, "DELETE", err);
  lfa_buf_free(&r.error_body);
  meta_forget(s, w.bk);
  return st;
}

/* ---- prefetch: GETs in parallel ------------------------------------------------------------ */

typedef struct slot {
  CURL *easy;
  struct curl_slist *headers;
  response r;
  lfa_buf body;
  char bk[LFA_PATH_BYTES_MAX + 260];
  bool busy;
} slot;

static void s3_prefetch(void *ctx, const char *const *paths, size_t n) {
  lfa_s3 *s = ctx;
  if (s->down_reason[0] != '\0') return;
  CURLM *multi = curl_multi_init();
  slot slots[LFA_S3_PARALLEL_MAX];
  memset(slots, 0, sizeof slots);
  if (multi == NULL) return;
  size_t next = 0, running = 0;
  for (;;) {
    for (unsigned k = 0; k < LFA_S3_PARALLEL_MAX && next < n; k++) {
      slot *sl = &slots[k];
      if (sl->busy) continue;
      where w;
      const char *path = paths[next++];
      if (locate(&w, path, NULL) != LFA_OK || w.key[0] == '\0') continue;
      const meta *m = meta_find(s, w.bk);
      bool held = false;
      for (fetched *f = s->ahead; f != NULL && !held; f = f->next) held = strcmp(f->key, w.bk) == 0;
      if (held || (m != NULL && (m->dir || m->size > LFA_S3_PREFETCH_OBJECT_BYTES_MAX))) continue;
      char url[URL_CAP];
      request q = {"GET", w.bucket, w.key, NULL, NULL, false, NULL, 0};
      bool ok = true;
      if (build_url(url, sizeof url, s, &q, NULL) != LFA_OK) continue;
      if (sl->easy == NULL && (sl->easy = curl_easy_init()) == NULL) continue;
      curl_easy_reset(sl->easy);
      sl->headers = headers_of(s, &q, &ok);
      memset(&sl->r, 0, sizeof sl->r);
      memset(&sl->body, 0, sizeof sl->body);
      sl->r.body = &sl->body, sl->r.max_body = LFA_S3_PREFETCH_OBJECT_BYTES_MAX;
      snprintf(sl->bk, sizeof sl->bk, "%s", w.bk);
      upload u = {0};
      setup(s, sl->easy, &q, url, sl->headers, &sl->r, &u);
      if (!ok || curl_multi_add_handle(multi, sl->easy) != CURLM_OK) {
        curl_slist_free_all(sl->headers);
        sl->headers = NULL;
        continue;
      }
      sl->busy = true;
      running++;
      s->stats.requests++;
    }
    if (running == 0 && next >= n) break;
    int still = 0;
    if (curl_multi_perform(multi, &still) != CURLM_OK) break;
    if (curl_multi_poll(multi, NULL, 0, 100, NULL) != CURLM_OK) break;
    int queued = 0;
    for (CURLMsg *msg; (msg = curl_multi_info_read(multi, &queued)) != NULL;) {
      if (msg->msg != CURLMSG_DONE) continue;
      slot *sl = NULL;
      for (unsigned k = 0; k < LFA_S3_PARALLEL_MAX; k++)
        if (slots[k].busy && slots[k].easy == msg->easy_handle) sl = &slots[k];
      if (sl == NULL) continue;
      CURLcode c = msg->data.result;
      curl_multi_remove_handle(multi, sl->easy);
      curl_slist_free_all(sl->headers);
      sl->headers = NULL;
      sl->busy = false;
      running--;
      s->stats.bytes_read += sl->body.len;
      if (s->trace)
        fprintf(stderr, "lfa s3: GET %s/%s (fetched ahead) -> %ld %s (%zu bytes)\n", s->endpoint, sl->bk, sl->r.status,
                c == CURLE_OK ? "" : curl_easy_strerror(c), sl->body.len);
      bool good = c == CURLE_OK && sl->r.status == 200 && (!sl->r.has_length || sl->r.length == sl->body.len) &&
                  s->ahead_bytes + sl->body.len <= LFA_S3_PREFETCH_BYTES_MAX;
      fetched *f = good ? calloc(1, sizeof *f) : NULL;
      if (f != NULL && (f->key = dup_or_null(sl->bk)) != NULL) {
        f->body = sl->body, f->size = sl->body.len, f->mtime = sl->r.mtime, f->tag = sl->r.tag;
        memset(&sl->body, 0, sizeof sl->body);
        f->next = s->ahead, s->ahead = f;
        s->ahead_bytes += f->body.len;
        meta_put(s, sl->bk, false, f->size, f->mtime, f->tag);
      } else {
        free(f);
        lfa_buf_free(&sl->body); /* the read asks again, and says why it fails */
      }
      lfa_buf_free(&sl->r.error_body);
    }
  }
  for (unsigned k = 0; k < LFA_S3_PARALLEL_MAX; k++) {
    if (slots[k].busy) curl_multi_remove_handle(multi, slots[k].easy);
    curl_slist_free_all(slots[k].headers);
    lfa_buf_free(&slots[k].body);
    lfa_buf_free(&slots[k].r.error_body);
    if (slots[k].easy) curl_easy_cleanup(slots[k].easy);
  }
  curl_multi_cleanup(multi);
}

/* ---- the client's life ------------------------------------------------------------------------ */

static const lfa_fs_ops S3_OPS = {s3_read,      s3_size,           s3_exists,      s3_is_dir,
                                  s3_list,      s3_write_new,      s3_make_dir,    s3_read_range,
                                  s3_stat,      s3_remove_beneath, s3_publish_new, s3_replace_hint,
                                  s3_prefetch,  NULL,              LFA_FS_CAP_MTIME};

static bool env_true(const char *v) { return v != NULL && (strcmp(v, "true") == 0 || strcmp(v, "1") == 0); }

static lfa_status env_number(unsigned *out, const char *name, unsigned lo, unsigned hi, lfa_error *err) {
  const char *v = getenv(name);
  if (v == NULL || v[0] == '\0') return LFA_OK;
  char *end = NULL;
  errno = 0;
  unsigned long x = strtoul(v, &end, 10);
  if (v[0] < '0' || v[0] > '9' || errno != 0 || *end != '\0' || x < lo || x > hi)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "%s must be a number from %u to %u", name, lo, hi);
  *out = (unsigned)x;
  return LFA_OK;
}

static const char *env_first(const char *a, const char *b) {
  const char *v = getenv(a);
  if (v != NULL && v[0] != '\0') return v;
  v = getenv(b);
  return v != NULL && v[0] != '\0' ? v : NULL;
}

lfa_status lfa_s3_options_from_env(lfa_s3_options *o, lfa_error *err) {
  memset(o, 0, sizeof *o);
  o->endpoint = env_first("AWS_ENDPOINT_URL", "AWS_ENDPOINT");
  o->region = env_first("AWS_REGION", "AWS_DEFAULT_REGION");
  o->access_key = env_first("AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY_ID");
  o->secret_key = env_first("AWS_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY");
  o->session_token = env_first("AWS_SESSION_TOKEN", "AWS_SESSION_TOKEN");
  o->allow_http = env_true(getenv("AWS_ALLOW_HTTP"));
  o->retries = LFA_S3_RETRIES_DEFAULT;
  o->timeout_ms = LFA_S3_TIMEOUT_MS_DEFAULT;
  lfa_status st = env_number(&o->retries, "LFA_S3_RETRIES", 0, LFA_S3_RETRIES_MAX, err);
  if (st == LFA_OK) st = env_number(&o->timeout_ms, "LFA_S3_TIMEOUT_MS", 100, 3600000, err);
  return st;
}

/* "http(s)://host[:port]" and nothing after it but '/'. */
static lfa_status check_endpoint(const char *e, bool allow_http, lfa_error *err) {
  bool https = strncmp(e, "https://", 8) == 0, http = strncmp(e, "http://", 7) == 0;
  if (!https && !http) return lfa_fail(err, LFA_ERR_USAGE, NULL, "endpoint '%s' is not an http:// or https:// URL", e);
  const char *host = e + (https ? 8 : 7);
  size_t n = strcspn(host, "/?#");
  if (n == 0) return lfa_fail(err, LFA_ERR_USAGE, NULL, "endpoint '%s' names no host", e);
  for (const char *p = host + n; *p; p++)
    if (*p != '/') return lfa_fail(err, LFA_ERR_USAGE, NULL, "endpoint '%s' has a path: give scheme, host and port only", e);
  if (http && !allow_http)
    return lfa_fail(err, LFA_ERR_USAGE, NULL,
                    "endpoint '%s' is plain http: set AWS_ALLOW_HTTP=true (or --allow-http) to allow it", e);
  return LFA_OK;
}

lfa_status lfa_s3_open(lfa_s3 **out, const lfa_s3_options *o, lfa_error *err) {
  *out = NULL;
  static bool global_done = false;
  if (!global_done) {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      return lfa_fail(err, LFA_ERR_IO, NULL, "libcurl cannot be initialized");
    global_done = true; /* once per process; the process's end releases it */
  }
  const char *region = o->region ? o->region : "us-east-1";
  char def[256];
  snprintf(def, sizeof def, "https://s3.%s.amazonaws.com", region);
  const char *endpoint = o->endpoint ? o->endpoint : def;
  lfa_status st = check_endpoint(endpoint, o->allow_http, err);
  if (st != LFA_OK) return st;
  if ((o->access_key == NULL) != (o->secret_key == NULL))
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together: one is missing");
  if (o->retries > LFA_S3_RETRIES_MAX)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "at most %u retries", LFA_S3_RETRIES_MAX);
  lfa_s3 *s = calloc(1, sizeof *s);
  if (s == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  s->fs = (lfa_fs){&S3_OPS, s};
  s->endpoint = dup_or_null(endpoint);
  s->region = dup_or_null(region);
  s->retries = o->retries;
  s->timeout_ms = o->timeout_ms ? o->timeout_ms : LFA_S3_TIMEOUT_MS_DEFAULT;
  s->trace = env_true(getenv("LFA_S3_TRACE"));
  bool ok = s->endpoint != NULL && s->region != NULL;
  if (ok) {
    size_t n = strlen(s->endpoint);
    while (n > 0 && s->endpoint[n - 1] == '/') s->endpoint[--n] = '\0';
  }
  if (ok && o->access_key != NULL) {
    size_t n = strlen(o->access_key) + strlen(o->secret_key) + 2, m = strlen(region) + 16;
    s->userpwd = malloc(n), s->sigv4 = malloc(m);
    ok = s->userpwd != NULL && s->sigv4 != NULL;
    if (ok) snprintf(s->userpwd, n, "%s:%s", o->access_key, o->secret_key), snprintf(s->sigv4, m, "aws:amz:%s:s3", region);
  }
  if (ok && o->session_token != NULL) {
    size_t n = strlen(o->session_token) + 32;
    ok = (s->token_header = malloc(n)) != NULL;
    if (ok) snprintf(s->token_header, n, "x-amz-security-token: %s", o->session_token);
  }
  if (ok) ok = (s->easy = curl_easy_init()) != NULL;
  if (!ok) {
    lfa_s3_close(s);
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory opening the S3 client");
  }
  *out = s;
  return LFA_OK;
}

const lfa_fs *lfa_s3_fs(lfa_s3 *s) { return &s->fs; }

lfa_fs_stats lfa_s3_stats(const lfa_s3 *s) { return s->stats; }

void lfa_s3_close(lfa_s3 *s) {
  if (s == NULL) return;
  if (s->easy) curl_easy_cleanup(s->easy);
  metas_free(&s->metas);
  while (s->ahead != NULL) {
    fetched *f = s->ahead;
    s->ahead = f->next;
    fetched_free(f);
  }
  free(s->endpoint), free(s->region), free(s->sigv4), free(s->userpwd), free(s->token_header);
  free(s);
}
