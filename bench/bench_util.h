/* bench_util.h: what the benchmark programs share: a clock, repeated
 * timing (best of N, since these machines are shared and noisy, and every
 * figure is a ratio measured side by side in one run), a seeded generator,
 * and JSON lines on stdout (the one writer, lfa/document.h), one object per
 * measurement:
 *
 *   {"bench": "remap", "target": "...", "value": 1.2e8, "unit": "rows/s",
 *    "ratio": 14.2, "ratio_def": "...", "target_met": true, ...params}
 *
 * `target` names the acceptance target the measurement is checked against
 * ("none" when it is informative only; target_met is then null); a missed
 * target carries `reason`: why, and what would reach it. */
#ifndef LFA_BENCH_UTIL_H
#define LFA_BENCH_UTIL_H

#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lfa/document.h"

static inline double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* xorshift64*: deterministic inputs, same every run. */
static inline uint64_t bench_rand(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

/* A fresh scratch directory, $TMPDIR/lfa-<name>-XXXXXX (or under /tmp),
 * for a benchmark that writes datasets; false (said) when it cannot be made. */
static inline bool bench_scratch(char *out, size_t cap, const char *name) {
  const char *tmp = getenv("TMPDIR");
  snprintf(out, cap, "%s/lfa-%s-XXXXXX", tmp && tmp[0] ? tmp : "/tmp", name);
  if (mkdtemp(out) != NULL) return true;
  fprintf(stderr, "%s: cannot make a scratch directory %s\n", name, out);
  return false;
}

/* Removes a directory bench_scratch made, and all in it (its name holds no
 * quote: mkdtemp names are letters and digits). */
static inline void bench_scratch_remove(const char *dir, const char *name) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "%s: could not remove %s\n", name, dir);
}

/* A uniform double in [0, 1). */
static inline double bench_unit(uint64_t *state) { return (double)(bench_rand(state) >> 11) / 9007199254740992.0; }

/* CPU seconds of this thread: time spent descheduled while other jobs
 * load the shared machine does not count. Operations are timed with it. */
static inline double bench_cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef void (*bench_op)(void *ctx);

/* CPU seconds per call of op(ctx), once: the call is repeated until at
 * least `min_seconds` pass, so tiny operations are not lost in the clock. */
static inline double bench_time_once(bench_op op, void *ctx, double min_seconds) {
  long calls = 0;
  double t0 = bench_cpu(), t;
  do {
    op(ctx);
    calls++;
    t = bench_cpu();
  } while (t - t0 < min_seconds);
  return (t - t0) / (double)calls;
}

/* The best (lowest) of `reps` such measurements. */
static inline double bench_time(bench_op op, void *ctx, int reps, double min_seconds) {
  double best = 1e300;
  for (int r = 0; r < reps; r++) {
    double per = bench_time_once(op, ctx, min_seconds);
    if (per < best) best = per;
  }
  return best;
}

/* Two operations timed alternately, rep after rep, so both see the same
 * machine; the best of each. */
static inline void bench_time_pair(double *a_s, double *b_s, bench_op a, void *a_ctx, bench_op b, void *b_ctx,
                                   int reps, double min_seconds) {
  *a_s = *b_s = 1e300;
  for (int r = 0; r < reps; r++) {
    double x = bench_time_once(a, a_ctx, min_seconds), y = bench_time_once(b, b_ctx, min_seconds);
    if (x < *a_s) *a_s = x;
    if (y < *b_s) *b_s = y;
  }
}

/* A memory sink the compiler cannot see through. */
static volatile uint64_t bench_sink;

/* ---- JSON lines --------------------------------------------------------------------- */

typedef struct bench_json {
  lfa_json_writer w; /* one flow object a line (lfa/document.h) */
} bench_json;

static inline void bench_json_begin(bench_json *j, const char *bench) {
  j->w = (lfa_json_writer){.out = stdout};
  lfa_json_open_flow_object(&j->w, NULL);
  lfa_json_put_string(&j->w, "bench", bench);
}

static inline void bench_json_str(bench_json *j, const char *key, const char *value) {
  lfa_json_put_string(&j->w, key, value);
}

static inline void bench_json_num(bench_json *j, const char *key, double value) {
  lfa_json_put_real(&j->w, key, value);
}

static inline void bench_json_fixed(bench_json *j, const char *key, double value, int decimals) {
  lfa_json_put_fixed(&j->w, key, value, decimals);
}

static inline void bench_json_u64(bench_json *j, const char *key, uint64_t value) {
  lfa_json_put_u64(&j->w, key, value);
}

static inline void bench_json_bool(bench_json *j, const char *key, bool value) {
  lfa_json_put_bool(&j->w, key, value);
}

/* The target fields: met is -1 for "no target" (null). */
static inline void bench_json_target(bench_json *j, const char *target, int met, const char *reason) {
  bench_json_str(j, "target", target);
  if (met < 0) lfa_json_put_null(&j->w, "target_met");
  else bench_json_bool(j, "target_met", met != 0);
  if (met == 0 && reason != NULL) bench_json_str(j, "reason", reason);
}

/* The object "detail" of a targets line, closed by bench_target_end. */
static inline void bench_json_detail(bench_json *j) { lfa_json_open_flow_object(&j->w, "detail"); }

/* One line of the targets table (scripts/bench.sh, docs/performance.md):
 * {"bench": "targets", "target": NAME, "ratio": R, "threshold": T, "met": M,
 * "detail": {"rows": N, ...}}. The caller writes the detail's other members with the
 * bench_json_* calls between bench_target_begin and bench_target_end. */
static inline void bench_target_begin(bench_json *j, const char *target, double ratio, double threshold, bool met,
                                      uint64_t rows) {
  bench_json_begin(j, "targets");
  bench_json_str(j, "target", target);
  bench_json_num(j, "ratio", ratio);
  bench_json_num(j, "threshold", threshold);
  bench_json_bool(j, "met", met);
  bench_json_detail(j);
  bench_json_u64(j, "rows", rows);
}

/* Ends the line and prints it at once (the benchmarks' lines are read as
 * they come). */
static inline void bench_json_end(bench_json *j) {
  lfa_json_close_object(&j->w);
  lfa_json_finish(&j->w);
  fflush(stdout);
}

static inline void bench_target_end(bench_json *j) {
  lfa_json_close_object(&j->w); /* detail */
  bench_json_end(j);
}

#endif
