/* dataset_arg.h: the DATASET argument every dataset command takes: where
 * it is (a local path or an s3:// URL, lfa_fs_open_url in lfa/s3.h), and
 * its --stats: what reaching it cost, on stderr, and under "stats" in the
 * JSON document with --json. */
#ifndef LFA_CLI_DATASET_H
#define LFA_CLI_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lfa/document.h"
#include "lfa/s3.h"

typedef struct lfa_cli_dataset {
  lfa_dataset_fs d;
  const char *cmd;
  bool stats;
} lfa_cli_dataset;

/* Opens `dataset` for command `cmd`; false (after one line on stderr) when
 * it cannot be (a bad endpoint, plain http without AWS_ALLOW_HTTP). */
bool lfa_cli_dataset_open(lfa_cli_dataset *s, const char *cmd, const char *dataset, bool allow_http, bool stats);
/* With --stats, what reaching DATASET cost so far as the member "stats" of
 * the open JSON object `w`; a command writes it last, before closing its
 * document. Without --stats nothing. */
void lfa_cli_dataset_put_stats(const lfa_cli_dataset *s, lfa_json_writer *w);
/* The stats on stderr (with --stats), and the file system closed. */
void lfa_cli_dataset_close(lfa_cli_dataset *s);

/* The help text of the two options every dataset command takes, and of
 * what DATASET may be. */
#define LFA_CLI_DATASET_HELP_OPTIONS                                                  \
  "  --stats       requests, bytes read and written, retries, on stderr (and\n"      \
  "                under \"stats\" with --json)\n"                                   \
  "  --allow-http  allow a plain http:// endpoint for s3:// (AWS_ALLOW_HTTP=true)\n"
#define LFA_CLI_DATASET_HELP_DATASET                                                  \
  "DATASET is a directory or s3://BUCKET/PREFIX, reached through AWS_ENDPOINT_URL,\n" \
  "AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN\n"      \
  "(docs/s3.md).\n"

#endif
