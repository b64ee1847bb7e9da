/* commit.c: `lfa track` and `lfa invalidate`, one new version onto a table
 * Lance (or any writer) made, by lfa/onto.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "lfa/escape.h"
#include "lfa/flags.h"
#include "lfa/onto.h"
#include "dataset_arg.h"

static const char POLICY[] =
    "Feature bits (spec/03-flags.md). The commit sets field assignment's marker\n"
    "(bit 2^52) in both feature words and keeps every other bit\n"
    "of the head's words. The reader bit is what stops an older Lance from\n"
    "losing the state: Lance 8 checks writer bits only when appending, so with\n"
    "the writer bit alone it would delete, update, compact and alter the table\n"
    "and drop every tracked field's state. With both bits, no release that\n"
    "lacks the bit opens the table at all, not even to read it.\n"
    "--writer-bit-only sets the writer word alone: releases that lack the bit\n"
    "still read the table, Lance 12 refuses every write to it, and Lance 8\n"
    "refuses appends but commits its other mutations, dropping the state\n"
    "(`lfa verify` then reports the loss at the version Lance wrote). A table\n"
    "already marked in the writer word alone keeps that policy; --reader-bit\n"
    "sets both words on it after all.\n";

static const char TRACK_HELP[] =
    "usage: lfa track DATASET --field NAME --initial assigned|unassigned\n"
    "                 [--writer-bit-only | --reader-bit] [--stats] [--allow-http]\n"
    "\n"
    "Starts tracking the existing field NAME (a path: \"payload.value\") of the\n"
    "Lance table at DATASET: one new version, a Project with an Initialization\n"
    "(spec/05-operations.md, FA-PROJECT-4), every live row assigned or\n"
    "unassigned. Data and deletion files are untouched; the manifest is the\n"
    "head's, with the new descriptor, the marker, the version, timestamp,\n"
    "writer and transaction changed (indices, config, base paths, row ids and\n"
    "unknown fields carried over). `--initial assigned` asserts that every\n"
    "current value is a logical assignment: say so only when it is true.\n"
    "\n";

static const char INVALIDATE_HELP[] =
    "usage: lfa invalidate DATASET --field NAME (--rows ADDR[,ADDR...] | --row-ids ID[,ID...]\n"
    "                      | --rows-from FILE | --row-ids-from FILE)\n"
    "                      [--writer-bit-only | --reader-bit] [--stats] [--allow-http]\n"
    "\n"
    "Marks the tracked field NAME unassigned on the given live rows: one new\n"
    "version, an Update that rewrites nothing (an invalidation-only commit,\n"
    "FA-INVAL-1). Rows are named by row address (fragment id << 32 | offset,\n"
    "decimal: what Lance scans as _rowaddr) or, on a table with stable row ids,\n"
    "by row id (_rowid). Each row once; every one must be live.\n"
    "\n"
    "  --rows LIST, --row-ids LIST   the rows in the argument, comma-separated\n"
    "  --rows-from FILE, --row-ids-from FILE\n"
    "                                the rows in FILE (\"-\": stdin), one number a\n"
    "                                line or comma-separated; blank lines and spaces\n"
    "                                around a number are allowed\n"
    "\n"
    "Any number of rows up to 16777216 (LFA_ONTO_ROWS_MAX) is one commit: the\n"
    "format sets no smaller bound. The rows go into the transaction as one\n"
    "treemap (FA-TXN-1), at most 10 bytes a row, so 2^24 rows stay within\n"
    "the reference limit of a transaction, 256 MiB (FA-LIMIT-3).\n"
    "\n";

static const char TAIL[] =
    "\n"
    "Refused, writing nothing, with one line on stderr: a field not in the\n"
    "schema, already tracked (track) or not tracked (invalidate), a row that is\n"
    "not live, a writer feature bit lfa does not know (FA-FLAG-5), or the\n"
    "marker bit already set by Lance for its own feature (FA-LANCE-21).\n"
    "The new manifest never replaces a version another writer made first\n"
    "(FA-CONC-11): lfa then plans again from the new head (up to 8 attempts;\n"
    "`track --initial assigned` does not, FA-CONC-7). On s3:// the new manifest\n"
    "is one PUT with If-None-Match: * (FA-CONC-12): HTTP 412 is that lost race.\n"
    "\n"
    LFA_CLI_DATASET_HELP_OPTIONS
    "\n" LFA_CLI_DATASET_HELP_DATASET
    "\n"
    "Exit status: 0 committed (the version on stdout); 2 refused, a lost race,\n"
    "or unusable input.\n";

typedef struct commit_args {
  const char *dataset, *field;
  bool stats, allow_http;
  lfa_onto_request req;
  uint64_t *rows; /* req.rows: grown by doubling, up to LFA_ONTO_ROWS_MAX */
  size_t cap;
} commit_args;

/* Reading a list of rows: decimal numbers separated by commas or line ends
 * (blank lines, spaces and tabs around a number, and "\r\n" allowed), from
 * an argument or a file. `source` names it in messages ("--rows",
 * "rows.txt"); `line` counts from 1. */
typedef struct row_reader {
  commit_args *a;
  const char *cmd, *source, *what; /* what: "row address" or "row id" */
  uint64_t value, line;
  unsigned digits;
  bool ended, after_comma; /* a number ended since the last separator; the last one was ',' */
} row_reader;

static bool rows_fail(const row_reader *r, const char *why) {
  char shown[LFA_CLI_SHOWN_BYTES];
  fprintf(stderr, "lfa %s: %s", r->cmd, lfa_cli_shown(shown, sizeof shown, r->source));
  if (r->line > 0) fprintf(stderr, " line %" PRIu64, r->line);
  fprintf(stderr, ": %s\n", why);
  return false;
}

static bool rows_push(row_reader *r) {
  commit_args *a = r->a;
  if (r->digits == 0) return true;
  if (a->req.n_rows == LFA_ONTO_ROWS_MAX) {
    char why[160];
    snprintf(why, sizeof why, "more than %u rows; one commit invalidates at most %u (LFA_ONTO_ROWS_MAX)",
             LFA_ONTO_ROWS_MAX, LFA_ONTO_ROWS_MAX);
    return rows_fail(r, why);
  }
  if (a->req.n_rows == a->cap) {
    size_t cap = a->cap ? 2 * a->cap : 1024;
    uint64_t *grown = realloc(a->rows, (cap < LFA_ONTO_ROWS_MAX ? cap : LFA_ONTO_ROWS_MAX) * sizeof *grown);
    if (grown == NULL) return rows_fail(r, "out of memory");
    a->rows = grown, a->cap = cap < LFA_ONTO_ROWS_MAX ? cap : LFA_ONTO_ROWS_MAX;
  }
  a->rows[a->req.n_rows++] = r->value;
  r->value = 0, r->digits = 0, r->ended = true, r->after_comma = false;
  return true;
}

/* One byte of the list. */
static bool rows_byte(row_reader *r, unsigned char c) {
  char why[160];
  if (c >= '0' && c <= '9') {
    unsigned d = c - '0';
    if (r->ended) return rows_fail(r, "two numbers need a comma or a line end between them");
    if (r->value > (UINT64_MAX - d) / 10) {
      snprintf(why, sizeof why, "a %s is at most 2^64-1", r->what);
      return rows_fail(r, why);
    }
    r->value = r->value * 10 + d, r->digits++;
    return true;
  }
  if (c == ' ' || c == '\t' || c == '\r') return rows_push(r);
  if (c == ',') {
    if (!rows_push(r)) return false;
    if (!r->ended) return rows_fail(r, "a comma with no number before it");
    r->ended = false, r->after_comma = true;
    return true;
  }
  if (c == '\n') {
    if (!rows_push(r)) return false;
    if (r->after_comma) return rows_fail(r, "a comma with no number after it");
    r->ended = false;
    if (r->line > 0) r->line++;
    return true;
  }
  snprintf(why, sizeof why, "expected a %s (decimal digits), a comma or a line end, got the byte 0x%02x", r->what, c);
  return rows_fail(r, why);
}

/* The end of the list: the last number, and a list that named no row. */
static bool rows_end(row_reader *r) {
  if (!rows_byte(r, '\n')) return false;
  if (r->a->req.n_rows == 0) {
    char why[80];
    snprintf(why, sizeof why, "names no %s", r->what);
    r->line = 0;
    return rows_fail(r, why);
  }
  r->a->req.rows = r->a->rows;
  return true;
}

/* --rows / --row-ids: the list in the argument itself. */
static bool parse_rows(commit_args *a, const char *cmd, const char *flag, const char *text) {
  row_reader r = {a, cmd, flag, a->req.by_row_id ? "row id" : "row address", 0, 0, 0, false, false};
  for (const char *c = text; *c != '\0'; c++)
    if (!rows_byte(&r, (unsigned char)*c)) return false;
  return rows_end(&r);
}

/* --rows-from / --row-ids-from: the list in FILE, or on stdin for "-", for
 * lists past what one argument can hold (Linux: 128 KiB). */
static bool read_rows(commit_args *a, const char *cmd, const char *path) {
  row_reader r = {a, cmd, strcmp(path, "-") == 0 ? "stdin" : path, a->req.by_row_id ? "row id" : "row address",
                  0, 1, 0, false, false};
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (f == NULL) {
    char why[160];
    snprintf(why, sizeof why, "cannot open it: %s", strerror(errno));
    r.line = 0;
    return rows_fail(&r, why);
  }
  unsigned char buf[1 << 16];
  size_t n;
  bool ok = true;
  while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
    for (size_t k = 0; ok && k < n; k++) ok = rows_byte(&r, buf[k]);
  if (ok && ferror(f)) r.line = 0, ok = rows_fail(&r, "read failed");
  if (f != stdin) fclose(f);
  return ok && rows_end(&r);
}

static bool parse_option(commit_args *a, const char *cmd, int argc, char **argv, int *i) {
  const char *o = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  bool track = a->req.op == LFA_OP_TRACK;
  bool takes = strcmp(o, "--writer-bit-only") != 0 && strcmp(o, "--reader-bit") != 0 && strcmp(o, "--stats") != 0 &&
               strcmp(o, "--allow-http") != 0;
  if (takes && v == NULL) return fprintf(stderr, "lfa %s: %s needs a value\n", cmd, o), false;
  *i += takes;
  if (strcmp(o, "--writer-bit-only") == 0) return a->req.writer_bit_only = true;
  if (strcmp(o, "--stats") == 0) return a->stats = true;
  if (strcmp(o, "--allow-http") == 0) return a->allow_http = true;
  if (strcmp(o, "--reader-bit") == 0) return a->req.reader_bit = true;
  if (strcmp(o, "--field") == 0) return a->field = v, true;
  if (track && strcmp(o, "--initial") == 0) {
    if (strcmp(v, "assigned") == 0) return a->req.initial = LFA_ASSIGNED, true;
    if (strcmp(v, "unassigned") == 0) return a->req.initial = LFA_UNASSIGNED, true;
    return fprintf(stderr, "lfa track: --initial is assigned or unassigned, got '%s'\n", v), false;
  }
  bool from_file = strcmp(o, "--rows-from") == 0 || strcmp(o, "--row-ids-from") == 0;
  if (!track && (from_file || strcmp(o, "--rows") == 0 || strcmp(o, "--row-ids") == 0)) {
    if (a->req.n_rows > 0)
      return fprintf(stderr, "lfa invalidate: give one of --rows, --row-ids, --rows-from, --row-ids-from, once\n"), false;
    a->req.by_row_id = strncmp(o, "--row-ids", 9) == 0;
    return from_file ? read_rows(a, cmd, v) : parse_rows(a, cmd, o, v);
  }
  return fprintf(stderr, "lfa %s: unknown option '%s' (see --help)\n", cmd, o), false;
}

/* Object and transaction uuids from the system's randomness (two lfa
 * processes committing at once must not pick the same names), and the
 * manifest's timestamp from the clock. */
static void seed_and_clock(lfa_onto_request *req) {
  uint64_t seed = 0;
  int fd = open("/dev/urandom", O_RDONLY);
  if (fd < 0 || read(fd, &seed, sizeof seed) != (ssize_t)sizeof seed) seed = 0;
  if (fd >= 0) close(fd);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  req->seed = seed ^ ((uint64_t)now.tv_nsec << 20) ^ (uint64_t)getpid();
  req->timestamp_seconds = (int64_t)now.tv_sec;
  req->timestamp_nanos = (int32_t)now.tv_nsec;
}

static int run(int argc, char **argv, lfa_op op, const char *help) {
  const char *cmd = argv[0];
  commit_args *a = calloc(1, sizeof *a);
  if (a == NULL) return fprintf(stderr, "lfa %s: out of memory\n", cmd), LFA_EXIT_UNUSABLE;
  a->req.op = op;
  a->req.initial = LFA_UNTRACKED;
  bool ok = true;
  for (int i = 1; ok && i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("%s%s%s", help, POLICY, TAIL);
      free(a->rows), free(a);
      return LFA_EXIT_OK;
    }
    if (argv[i][0] == '-') ok = parse_option(a, cmd, argc, argv, &i);
    else if (a->dataset == NULL) a->dataset = argv[i];
    else ok = (fprintf(stderr, "lfa %s: one DATASET only, got '%s' too\n", cmd, argv[i]), false);
  }
  if (ok && (a->dataset == NULL || a->field == NULL)) ok = (fprintf(stderr, "%s", help), false);
  if (ok && op == LFA_OP_TRACK && a->req.initial == LFA_UNTRACKED)
    ok = (fprintf(stderr, "lfa track: --initial assigned|unassigned is required\n"), false);
  if (ok && a->req.writer_bit_only && a->req.reader_bit)
    ok = (fprintf(stderr, "lfa %s: --writer-bit-only and --reader-bit contradict each other\n", cmd), false);
  if (ok && op == LFA_OP_UPDATE && a->req.n_rows == 0)
    ok = (fprintf(stderr, "lfa invalidate: --rows or --row-ids is required\n"), false);
  int status = LFA_EXIT_UNUSABLE;
  if (ok) {
    lfa_onto_result r;
    lfa_error err = {0};
    a->req.field = a->field;
    seed_and_clock(&a->req);
    lfa_cli_dataset store;
    bool opened = lfa_cli_dataset_open(&store, cmd, a->dataset, a->allow_http, a->stats);
    if (!opened) {
      /* said */
    } else if (lfa_onto_commit_in(&r, store.d.fs, a->dataset, &a->req, &err) == LFA_OK) {
      /* the dataset and field as given: any bytes, shown escaped */
      printf("lfa %s: ", cmd), lfa_put_text(stdout, a->dataset), fputs(": committed version ", stdout);
      printf("%" PRIu64 " (field '", r.version), lfa_put_text(stdout, a->field);
      printf("'; marker bit 2^52 in %s; %u attempt%s)\n",
             r.reader_flags & LFA_FLAG_FIELD_ASSIGNMENT ? "both feature words" : "the writer word only", r.attempts,
             r.attempts == 1 ? "" : "s");
      status = LFA_EXIT_OK;
    } else {
      lfa_cli_fail_error(cmd, a->dataset, &err);
    }
    if (opened) lfa_cli_dataset_close(&store);
  }
  free(a->rows), free(a);
  return status;
}

int lfa_cli_track(int argc, char **argv) { return run(argc, argv, LFA_OP_TRACK, TRACK_HELP); }

int lfa_cli_invalidate(int argc, char **argv) { return run(argc, argv, LFA_OP_UPDATE, INVALIDATE_HELP); }
