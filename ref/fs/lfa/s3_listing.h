/* s3_listing.h: the reader of one ListObjectsV2 response page, the XML the
 * S3 client of lfa/s3.h lists a directory with. On its own so that the
 * fuzz target (fuzz/s3_listing_fuzz.c) reads hostile pages without a
 * server. Internal to lfa: not installed with the public headers.
 *
 * What it reads of a page, with expat (a real XML parser, no DTD allowed):
 * the root <ListBucketResult>, its <IsTruncated>, <NextContinuationToken>
 * and <KeyCount>, each <Contents> (its <Key>, <Size>, <LastModified>,
 * <ETag>) and each <CommonPrefixes> (its <Prefix>); other elements are
 * skipped whole. Every buffer is bounded by a named limit of lfa/s3.h or
 * below.
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
#define LFA_S3_XML_DEPTH_MAX 16u    /* elements open at once in a page (a listing needs 4) */

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
 * `prefix` ("" or ending in '/'), calling `fn` for each name below it, and
 * only once the whole page was read and found sound: a refused page gives
 * no name. LFA_ERR_IO naming `path`, the URL listed, when:
 *  - [FA-CLEAN-13] the page is not one complete, well-formed XML document
 *    whose root is ListBucketResult (an S3 <Error> names its <Code>); it
 *    has no <IsTruncated> of true or false; its <KeyCount>, when given, is
 *    not the number of its <Contents> and <CommonPrefixes>; a token is given
 *    on a page that is not truncated, or none on one that is; an element
 *    the page reads is given twice in one place; object keys (or common
 *    prefixes) do not ascend strictly, also from the page before
 *    (l->last): a listing that changed between pages is said, never merged;
 *  - [FA-CLEAN-12] a key or prefix lies outside `prefix`, or has an empty,
 *    "." or ".." segment below it (one trailing '/' aside: a directory
 *    marker);
 *  - a key or token is unreadable or longer than its limit, or a <Size> is
 *    not a decimal number. */
lfa_status lfa_s3_listing_read(lfa_s3_listing *l, const char *text, size_t len, const char *prefix, const char *path,
                               lfa_s3_listed_fn fn, void *ctx, lfa_error *err);

#endif
