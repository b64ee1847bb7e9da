/* url.c: a DATASET argument as a file system and a path (lfa/s3.h,
 * lfa_fs_open_url): s3:// URLs on the S3 client, anything else on the
 * POSIX file system behind a wrapper that counts what it is asked. */
#include <string.h>

#include "lfa/s3.h"

/* ---- the POSIX file system, counted -------------------------------------------------------- */

static lfa_fs_stats *counts(void *ctx) { return &((lfa_dataset_fs *)ctx)->local; }
static const lfa_fs *below(void) { return lfa_fs_posix(); }

static lfa_status c_read(void *ctx, lfa_buf *out, const char *path, size_t max_bytes, lfa_error *err) {
  counts(ctx)->requests++;
  lfa_status st = lfa_fs_read_in(out, below(), path, max_bytes, err);
  if (st == LFA_OK) counts(ctx)->bytes_read += out->len;
  return st;
}
static int c_size(void *ctx, const char *path, uint64_t *size) {
  counts(ctx)->requests++;
  return lfa_fs_size_in(below(), path, size);
}
static int c_exists(void *ctx, const char *path) {
  counts(ctx)->requests++;
  return lfa_fs_exists_in(below(), path);
}
static int c_is_dir(void *ctx, const char *path) {
  counts(ctx)->requests++;
  return lfa_fs_is_dir_in(below(), path);
}
static lfa_status c_list(void *ctx, lfa_names *out, const char *dir, int missing_ok, lfa_error *err) {
  counts(ctx)->requests++;
  return lfa_fs_list_in(out, below(), dir, missing_ok, err);
}
static lfa_status c_write_new(void *ctx, const char *path, const uint8_t *data, size_t len, lfa_error *err) {
  counts(ctx)->requests++;
  counts(ctx)->bytes_written += len;
  return lfa_fs_write_new_in(below(), path, data, len, err);
}
static lfa_status c_make_dir(void *ctx, const char *path, lfa_error *err) {
  counts(ctx)->requests++;
  return lfa_fs_make_dir_in(below(), path, err);
}
static lfa_status c_read_range(void *ctx, lfa_buf *out, const char *path, uint64_t offset, size_t len, uint64_t *total,
                               lfa_error *err) {
  counts(ctx)->requests++;
  lfa_status st = lfa_fs_read_range_in(out, below(), path, offset, len, total, err);
  if (st == LFA_OK) counts(ctx)->bytes_read += out->len;
  return st;
}
static lfa_status c_stat(void *ctx, const char *path, int follow, lfa_fs_stat *out, lfa_error *err) {
  counts(ctx)->requests++;
  return lfa_fs_stat_in(below(), path, follow, out, err);
}
static lfa_status c_remove_beneath(void *ctx, lfa_fs_removed *outcome, uint64_t *size, const char *dir,
                                   const char *rel, const lfa_fs_stat *expect, lfa_error *err) {
  counts(ctx)->requests++;
  return lfa_fs_remove_beneath_in(below(), outcome, size, dir, rel, expect, err);
}
static lfa_status c_publish_new(void *ctx, const char *path, const char *tmp, const uint8_t *data, size_t len,
                                lfa_error *err) {
  counts(ctx)->requests++;
  counts(ctx)->bytes_written += len;
  return lfa_fs_publish_new_in(below(), path, tmp, data, len, err);
}
static lfa_status c_replace_hint(void *ctx, const char *path, const char *tmp, const uint8_t *data, size_t len,
                                 lfa_error *err) {
  counts(ctx)->requests++;
  counts(ctx)->bytes_written += len;
  return lfa_fs_replace_hint_in(below(), path, tmp, data, len, err);
}
static char *c_real_path(void *ctx, const char *path) { /* no request: the kernel resolves it */
  (void)ctx;
  return lfa_fs_real_path_in(below(), path);
}

/* ---- the one way a DATASET argument is opened ------------------------------------------------ */

lfa_status lfa_fs_open_url(lfa_dataset_fs *out, const char *dataset, bool allow_http, lfa_error *err) {
  memset(out, 0, sizeof *out);
  out->dir = dataset;
  if (!lfa_is_s3_url(dataset)) {
    out->counted_ops = (lfa_fs_ops){c_read,     c_size,           c_exists,      c_is_dir,       c_list,
                                    c_write_new, c_make_dir,      c_read_range,  c_stat,         c_remove_beneath,
                                    c_publish_new, c_replace_hint, NULL,         c_real_path,    lfa_fs_caps(below())};
    out->counted = (lfa_fs){&out->counted_ops, out};
    out->fs = &out->counted;
    return LFA_OK;
  }
  lfa_s3_options o;
  lfa_status st = lfa_s3_options_from_env(&o, err);
  if (st != LFA_OK) return st;
  o.allow_http = o.allow_http || allow_http;
  st = lfa_s3_open(&out->s3, &o, err);
  if (st == LFA_OK) out->fs = lfa_s3_fs(out->s3);
  return st;
}

lfa_fs_stats lfa_dataset_fs_stats(const lfa_dataset_fs *d) { return d->s3 != NULL ? lfa_s3_stats(d->s3) : d->local; }

void lfa_dataset_fs_close(lfa_dataset_fs *d) {
  lfa_s3_close(d->s3);
  memset(d, 0, sizeof *d);
}
