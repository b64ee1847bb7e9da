/* s3.h: an S3-compatible object store as an lfa_fs (lfa/fs.h), and the one
 * function that turns a DATASET argument into a file system and a path.
 *
 * Paths on this file system are URLs, "s3://BUCKET/KEY": the dataset
 * "s3://b/t" has its manifests at "s3://b/t/_versions/...", so every path
 * lfa joins or resolves (lfa_fs_join, lfa/paths.h) stays a URL, and a
 * message names the object as a user would. Requests are path-style,
 * ENDPOINT/BUCKET/KEY, signed with AWS Signature Version 4 by libcurl
 * (CURLOPT_AWS_SIGV4) when credentials are given, anonymous otherwise.
 *
 * What each operation of lfa_fs_ops is here:
 *  - read: GET; a body larger than max_bytes is refused from its
 *    Content-Length before it is received (LFA_ERR_LIMIT).
 *  - read_range: GET with Range: bytes=A-B; the total is Content-Range's.
 *  - size, stat, exists: what a listing, a GET or a HEAD of this run said
 *    about the key (objects of a Lance dataset are immutable [FA-STORE-8]),
 *    else a HEAD; a directory is a prefix some key is under (one LIST).
 *  - list: ListObjectsV2 of every key under "DIR/", every page through
 *    its continuation token; the names are the first segments after the
 *    prefix. No delimiter is asked for: s3rver 3.7.1 leaves out a common
 *    prefix that holds no object directly (its walk stops one level down),
 *    so a delimited listing there misses `_field_assignments/` and every
 *    branch under `tree/`; the plain listing is right on every server, at
 *    the cost of listing a subtree's keys. The keys must ascend across
 *    pages, so a listing that changed between pages is an error, never a
 *    merged guess.
 *  - write_new: PUT with If-None-Match: * (HTTP 412: something is there,
 *    FA-STORE-8); publish_new: the same conditional PUT, the commit point
 *    [FA-CONC-11] (412: LFA_ERR_CONFLICT), after a HEAD that finds nothing
 *    there, for servers that ignore the condition (s3rver 3.7.1 does).
 *  - remove_beneath: a fresh HEAD (never the listing's word): deleted only
 *    while the key holds an object of the planned size and ETag.
 *  - replace_hint: an unconditional PUT.
 *  - make_dir: nothing to make; LFA_ERR_USAGE when a key is under it.
 *  - prefetch: GETs of up to LFA_S3_PARALLEL_MAX keys at a time (curl
 *    multi), kept within LFA_S3_PREFETCH_BYTES_MAX until read.
 *
 * Every request is retried on a transport failure (refused, reset,
 * timed out, a body cut short) and on HTTP 500, 502, 503 (SlowDown), 504,
 * 408 and 429, at most LFA_S3_RETRIES_DEFAULT times, waiting
 * LFA_S3_BACKOFF_FIRST_MS, then twice as long each time, at most
 * LFA_S3_BACKOFF_MAX_MS. After LFA_S3_DOWN_AFTER requests in a row have
 * failed so, the store is taken to be down and every later request fails
 * at once with that reason (a run against a stopped server ends in
 * seconds, with a clear error). A PUT retried after an unanswered attempt
 * that then draws 412 reads the object back: its own bytes are success.
 *
 * HTTPS is verified (peer and host, curl's defaults, never turned off);
 * a plain http:// endpoint is refused unless allow_http (AWS_ALLOW_HTTP).
 * No redirect is followed.
 */
#ifndef LFA_S3_H
#define LFA_S3_H

#include <stdbool.h>
#include <stdint.h>

#include "lfa/error.h"
#include "lfa/fs.h"

/* Named limits of the S3 client (its own, not the format's). */
#define LFA_S3_RETRIES_DEFAULT 4u          /* retries after the first attempt */
#define LFA_S3_RETRIES_MAX 16u             /* what LFA_S3_RETRIES may ask for */
#define LFA_S3_BACKOFF_FIRST_MS 100u       /* the first wait before a retry */
#define LFA_S3_BACKOFF_MAX_MS 3200u        /* no wait is longer */
#define LFA_S3_DOWN_AFTER 3u               /* requests failed in a row: the store is down */
#define LFA_S3_CONNECT_TIMEOUT_MS 5000u    /* to connect */
#define LFA_S3_TIMEOUT_MS_DEFAULT 60000u   /* one whole request */
#define LFA_S3_PARALLEL_MAX 8u             /* prefetch GETs in flight at once */
#define LFA_S3_PREFETCH_BYTES_MAX (64u << 20) /* bodies fetched ahead and not yet read */
#define LFA_S3_PREFETCH_OBJECT_BYTES_MAX (8u << 20) /* larger objects are not fetched ahead */
#define LFA_S3_LIST_PAGE_BYTES_MAX (16u << 20) /* one ListObjectsV2 response */
#define LFA_S3_LIST_PAGES_MAX (1u << 14)   /* pages of one listing */
#define LFA_S3_ERROR_BODY_BYTES_MAX 4096u  /* an error response's body read for its code */
#define LFA_S3_META_ENTRIES_MAX (1u << 20) /* keys whose size and ETag a run remembers */
#define LFA_S3_NAME_BYTES_MAX 1024u        /* an S3 key is at most 1024 bytes */

/* What reaching a file system cost: for an object store HTTP requests
 * (each attempt, retries included), for a local one the file-system
 * operations lfa made; body bytes received and sent. */
typedef struct lfa_fs_stats {
  uint64_t requests;
  uint64_t bytes_read;
  uint64_t bytes_written;
  uint64_t retries;
} lfa_fs_stats;

typedef struct lfa_s3_options {
  const char *endpoint;      /* "https://host[:port]"; NULL: https://s3.REGION.amazonaws.com */
  const char *region;        /* NULL: us-east-1 */
  const char *access_key;    /* NULL: anonymous requests */
  const char *secret_key;
  const char *session_token; /* NULL: none */
  bool allow_http;
  unsigned retries;    /* at most LFA_S3_RETRIES_MAX */
  unsigned timeout_ms; /* 0: LFA_S3_TIMEOUT_MS_DEFAULT */
} lfa_s3_options;

/* The options the environment gives: AWS_ENDPOINT_URL (or AWS_ENDPOINT),
 * AWS_REGION (or AWS_DEFAULT_REGION), AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_ALLOW_HTTP ("true" or
 * "1"), LFA_S3_RETRIES, LFA_S3_TIMEOUT_MS. The strings are the
 * environment's. LFA_ERR_USAGE on a value that is not a number in range. */
lfa_status lfa_s3_options_from_env(lfa_s3_options *out, lfa_error *err);

typedef struct lfa_s3 lfa_s3;

/* A client for one endpoint. LFA_ERR_USAGE: an endpoint that is not
 * http(s)://HOST[:PORT] with nothing after it, plain http without
 * allow_http. OWNERSHIP: lfa_s3_close. */
lfa_status lfa_s3_open(lfa_s3 **out, const lfa_s3_options *options, lfa_error *err);
const lfa_fs *lfa_s3_fs(lfa_s3 *s3);
lfa_fs_stats lfa_s3_stats(const lfa_s3 *s3);
void lfa_s3_close(lfa_s3 *s3);

/* True when `path` is an s3:// URL. */
bool lfa_is_s3_url(const char *path);

/* A DATASET argument opened: a local path on the POSIX file system, or
 * "s3://BUCKET/PREFIX" on an S3 client configured from the environment
 * (lfa_s3_options_from_env; allow_http also when the caller asks).
 * `dir` is the path to give every reader and writer (the argument itself).
 * Every access is counted (stats). OWNERSHIP: lfa_dataset_fs_close. */
typedef struct lfa_dataset_fs {
  const lfa_fs *fs;
  const char *dir;
  lfa_s3 *s3;           /* NULL for a local path */
  lfa_fs counted;       /* the POSIX file system, counting */
  lfa_fs_ops counted_ops;
  lfa_fs_stats local;   /* what `counted` counted */
} lfa_dataset_fs;

lfa_status lfa_fs_open_url(lfa_dataset_fs *out, const char *dataset, bool allow_http, lfa_error *err);
lfa_fs_stats lfa_dataset_fs_stats(const lfa_dataset_fs *d);
void lfa_dataset_fs_close(lfa_dataset_fs *d);

#endif
