/* verify_scaling.c: the cost of `lfa verify` follows what a commit touched
 * (each object is decoded once per run). It generates a history with the reference writer
 * (lfa/history.h): FRAGMENTS fragments of ROWS rows created at once with one
 * tracked field, one commit writing the field on the first row of every
 * fragment (a partial bitmap each), then COMMITS commits each writing one
 * more row of one fragment (UPDATE in REWRITE_COLUMNS mode: a new bitmap
 * and a new root). It then verifies the whole history twice in one run:
 * incrementally (the default: each object decoded once per run) and with
 * `full` (every snapshot from scratch), and prints a table.
 *
 *   verify_scaling [--fragments N] [--commits N] [--rows N] [--check] [--keep] [--json] [--smoke]
 *
 * --check exits 1 unless both modes report the same findings, no error,
 * and the incremental run decodes fewer objects; --smoke is the ctest run
 * (50 fragments, 10 commits, --check). --json prints one JSON line per
 * mode and one for the ratio (scripts/bench.sh runs it at several table
 * sizes: time per commit as the table grows). Verification is timed in
 * process CPU time (user + system), so other load on a shared machine
 * does not count. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "lfa/history.h"
#include "lfa/verify.h"

typedef struct bench_args {
  uint64_t fragments, commits, rows;
  bool check, keep, json;
} bench_args;

static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
};
static const char *ID[] = {"id"}, *EMB[] = {"emb"};

static bool parse_args(bench_args *a, int argc, char **argv) {
  *a = (bench_args){2000, 200, 4, false, false, false};
  for (int i = 1; i < argc; i++) {
    uint64_t *slot = strcmp(argv[i], "--fragments") == 0 ? &a->fragments
                     : strcmp(argv[i], "--commits") == 0 ? &a->commits
                     : strcmp(argv[i], "--rows") == 0    ? &a->rows
                                                         : NULL;
    if (slot != NULL && i + 1 < argc) *slot = strtoull(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--check") == 0) a->check = true;
    else if (strcmp(argv[i], "--smoke") == 0) a->fragments = 50, a->commits = 10, a->check = true;
    else if (strcmp(argv[i], "--keep") == 0) a->keep = true;
    else if (strcmp(argv[i], "--json") == 0) a->json = true;
    else return false;
  }
  /* each commit writes a row not yet written, and no fragment becomes full */
  return a->fragments > 0 && a->rows >= 3 && a->commits <= a->fragments * (a->rows - 2);
}

/* One UPDATE writing `emb` on `keys`, in place (REWRITE_COLUMNS). */
static lfa_status write_emb(lfa_history *h, const uint64_t *keys, size_t n, lfa_error *err) {
  lfa_request w = {.op = LFA_OP_UPDATE, .rows = {n, keys}, .fields = {1, EMB}, .rewrite_columns = true};
  return lfa_history_apply(h, &w, 0, err);
}

/* Keys are 1..fragments*rows, `rows` per fragment in order. */
static lfa_status generate(const char *dir, const bench_args *a, lfa_error *err) {
  size_t total = (size_t)(a->fragments * a->rows);
  uint64_t *keys = malloc(total * sizeof *keys);
  if (keys == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t k = 0; k < total; k++) keys[k] = k + 1;
  lfa_history h;
  lfa_status st = lfa_history_open(&h, dir, 42, err);
  if (st != LFA_OK) {
    free(keys);
    return st;
  }
  lfa_request c = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 2, .rows = {total, keys},
                   .rows_per_file = a->rows, .fields = {1, ID}};
  st = lfa_history_apply(&h, &c, 0, err);
  for (size_t f = 0; f < a->fragments; f++) keys[f] = f * a->rows + 1; /* the first row of each fragment */
  if (st == LFA_OK) st = write_emb(&h, keys, (size_t)a->fragments, err);
  for (uint64_t j = 0; st == LFA_OK && j < a->commits; j++) {
    uint64_t f = j % a->fragments, offset = 1 + (j / a->fragments); /* rows 1..rows-2: never all */
    uint64_t key = f * a->rows + offset + 1;
    st = write_emb(&h, &key, 1, err);
  }
  lfa_history_close(&h);
  free(keys);
  return st;
}

typedef struct run {
  lfa_verify_result r;
  double seconds;
} run;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static lfa_status timed_verify(run *out, const char *dir, bool full, lfa_error *err) {
  lfa_verify_options o = {.full = full};
  double t0 = cpu_now();
  lfa_status st = lfa_verify_dataset(&out->r, dir, &o, err);
  out->seconds = cpu_now() - t0;
  return st;
}

static bool same_text(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

static bool same_findings(const lfa_findings *a, const lfa_findings *b) {
  if (a->count != b->count) return false;
  for (size_t i = 0; i < a->count; i++) {
    const lfa_finding *x = &a->items[i], *y = &b->items[i];
    if (strcmp(x->rule, y->rule) != 0 || x->severity != y->severity || x->version != y->version ||
        !same_text(x->file, y->file) || !same_text(x->message, y->message))
      return false;
  }
  return true;
}

static void print_row(FILE *o, const char *mode, const run *m, const bench_args *a) {
  const lfa_verify_result *r = &m->r;
  double per_commit = r->versions_checked > 1 ? m->seconds / (double)(r->versions_checked - 1) : m->seconds;
  fprintf(o, "%-12s %9zu %10" PRIu64 " %10" PRIu64 " %9" PRIu64 " %7zu %10.3f %12.3f\n", mode, r->versions_checked,
          a->fragments, r->objects_decoded, r->objects_reused, r->findings.count, m->seconds, per_commit * 1e3);
}

static double ms_per_commit(const run *m) {
  size_t v = m->r.versions_checked;
  return (v > 1 ? m->seconds / (double)(v - 1) : m->seconds) * 1e3;
}

/* JSON lines (bench/bench_util.h). */
static void report_json(const run *inc, const run *full, const bench_args *a) {
  const run *modes[] = {inc, full};
  const char *names[] = {"incremental", "full"};
  bench_json j;
  for (int i = 0; i < 2; i++) {
    bench_json_begin(&j, "verify_scaling");
    bench_json_str(&j, "mode", names[i]);
    bench_json_u64(&j, "fragments", a->fragments);
    bench_json_u64(&j, "commits", a->commits);
    bench_json_u64(&j, "versions", modes[i]->r.versions_checked);
    bench_json_u64(&j, "objects_decoded", modes[i]->r.objects_decoded);
    bench_json_u64(&j, "objects_reused", modes[i]->r.objects_reused);
    bench_json_u64(&j, "findings", modes[i]->r.findings.count);
    bench_json_fixed(&j, "seconds", modes[i]->seconds, 4);
    bench_json_fixed(&j, "value", ms_per_commit(modes[i]), 4);
    bench_json_str(&j, "unit", "ms/commit");
    bench_json_target(&j, "none", -1, NULL);
    bench_json_end(&j);
  }
  bench_json_begin(&j, "verify_scaling");
  bench_json_str(&j, "mode", "full / incremental");
  bench_json_u64(&j, "fragments", a->fragments);
  bench_json_u64(&j, "commits", a->commits);
  bench_json_fixed(&j, "value", full->seconds / inc->seconds, 3);
  bench_json_str(&j, "unit", "x");
  bench_json_fixed(&j, "ratio", full->seconds / inc->seconds, 3);
  bench_json_str(&j, "ratio_def", "full seconds / incremental seconds");
  bench_json_fixed(&j, "decoded_ratio",
                   (double)full->r.objects_decoded / (double)(inc->r.objects_decoded ? inc->r.objects_decoded : 1), 2);
  bench_json_target(&j, "none", -1, NULL);
  bench_json_end(&j);
}

/* Prints the table; the smoke checks when --check. True when they hold. */
static bool report(const run *inc, const run *full, const bench_args *a, double gen_seconds) {
  if (a->json) {
    report_json(inc, full, a);
    fflush(stdout);
  }
  FILE *o = a->json ? stderr : stdout;
  fprintf(o, "history: %" PRIu64 " fragments x %" PRIu64 " rows, 1 tracked field, %" PRIu64
         " one-row commits (generated in %.2f s)\n\n",
         a->fragments, a->rows, a->commits, gen_seconds);
  fprintf(o, "%-12s %9s %10s %10s %9s %7s %10s %12s\n", "mode", "versions", "fragments", "decoded", "reused",
         "finds", "seconds", "ms/commit");
  print_row(o, "incremental", inc, a);
  print_row(o, "full", full, a);
  fprintf(o, "\nspeed-up %.1fx; objects decoded full/incremental %.1fx\n", full->seconds / inc->seconds,
         (double)full->r.objects_decoded / (double)(inc->r.objects_decoded ? inc->r.objects_decoded : 1));
  bool same = same_findings(&inc->r.findings, &full->r.findings);
  size_t errors = lfa_findings_count(&inc->r.findings, LFA_SEVERITY_ERROR);
  bool fewer = inc->r.objects_decoded < full->r.objects_decoded;
  fprintf(o, "same findings: %s; errors: %zu; incremental decodes fewer: %s\n", same ? "yes" : "NO", errors,
          fewer ? "yes" : "NO");
  return same && errors == 0 && fewer;
}

static int bench(const char *dir, const bench_args *a) {
  lfa_error err = {0};
  double t0 = now();
  if (generate(dir, a, &err) != LFA_OK) {
    fprintf(stderr, "verify_scaling: generating %s: %s\n", dir, err.msg);
    return 2;
  }
  double gen = now() - t0;
  run inc, full;
  lfa_status st = timed_verify(&inc, dir, false, &err);
  if (st == LFA_OK) st = timed_verify(&full, dir, true, &err);
  else memset(&full, 0, sizeof full);
  int rc = 2;
  if (st != LFA_OK) fprintf(stderr, "verify_scaling: verifying %s: %s\n", dir, err.msg);
  else rc = report(&inc, &full, a, gen) || !a->check ? 0 : 1;
  lfa_verify_result_free(&inc.r);
  lfa_verify_result_free(&full.r);
  return rc;
}

int main(int argc, char **argv) {
  bench_args a;
  if (!parse_args(&a, argc, argv)) {
    fprintf(stderr, "usage: verify_scaling [--fragments N] [--commits N] [--rows N (>= 3)] [--check] [--keep] [--json] "
                    "[--smoke]\n"
                    "  (commits <= fragments * (rows - 2))\n");
    return 2;
  }
  char base[4096], dir[4160];
  if (!bench_scratch(base, sizeof base, "verify_scaling")) return 2;
  snprintf(dir, sizeof dir, "%s/dataset", base);
  int rc = bench(dir, &a);
  if (a.keep) printf("kept: %s\n", dir);
  else bench_scratch_remove(base, "verify_scaling");
  return rc;
}
