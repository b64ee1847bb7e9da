/* s3_listing.h: the reader of one ListObjectsV2 response page, the XML the
 * S3 client of lfa/s3.h lists a directory with. On its own so that the
 * fuzz target (fuzz/s3_listing_fuzz.c) reads hostile pages without a
 * server. Internal to lfa: not installed with the public headers.
 *
 * What it reads of a page, and nothing else (no general XML parser): the
 * root <ListBucketResult>, <IsTruncated> and <NextContinuationToken>, each
 * <Contents> (its <Key>, <Size>, <LastModified>, <ETag>) and each
 * <CommonPrefixes> (its <Prefix>). Text is decoded from the five entities
 * and numeric references (&amp; &#38; &#x26;); any other '&' is an error.
 * Every buffer is bounded by a named limit of lfa/s3.h.
 */
#ifndef LFA_S3_LISTING_H
#define LFA_S3_LISTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/error.h"
#include "lfa/s3.h"

#define LFA_S3_TOKEN_BYTES_MAX (2u * LFA_S3_NAME_BYTES_MAX) /* a continuation token, decoded */
#define LFA_S3_LISTED_TEXT_MAX 127u /* a <LastModified> or <ETag>, decoded */

/* One name the page lists below the prefix. */
typedef struct lfa_s3_listed {
  const char *key;  /* an object's whole key, decoded; NULL for a common prefix */
  const char *name; /* the first segment below the prefix: never empty, no '/' */
  bool dir;         /* `name` is a directory: a common prefix, or the key lies deeper */
  uint64_t size;    /* objects only: <Size> */
  const char *modified, *etag; /* objects only: <LastModified>, <ETag> decoded; NULL when absent
                                * or longer than LFA_S3_LISTED_TEXT_MAX */
} lfa_s3_listed;

/* Called for each name in page order; a failure stops the reading. */
typedef lfa_status (*lfa_s3_listed_fn)(void *ctx, const lfa_s3_listed *entry, lfa_error *err);

/* The state of one listing, page after page. Zero it before the first page. */
typedef struct lfa_s3_listing {
  bool truncated;                           /* the page read last says more follow */
  char token[LFA_S3_TOKEN_BYTES_MAX + 1];   /* then its NextContinuationToken (never empty) */
  char last[LFA_S3_NAME_BYTES_MAX + 1];     /* the greatest object key so far ("" at first) */
} lfa_s3_listing;

/* Reads one page `text` of `len` bytes (no NUL needed) of the listing of
 * `prefix` ("" or ending in '/'), calling `fn` for each name below it.
 * Object keys must ascend strictly, also from the page before (l->last):
 * a listing that changed between pages is said, never merged. A key
 * outside the prefix, an unreadable or over-long key or token, a <Size>
 * that is not a decimal number, a truncated page without a token, and a
 * page that is no ListBucketResult (an S3 <Error> names its <Code>) are
 * LFA_ERR_IO naming `path`, the URL listed. */
lfa_status lfa_s3_listing_read(lfa_s3_listing *l, const char *text, size_t len, const char *prefix, const char *path,
                               lfa_s3_listed_fn fn, void *ctx, lfa_error *err);

#endif
