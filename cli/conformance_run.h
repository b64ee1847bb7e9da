/* conformance_run.h: the runner of `lfa conformance` (conformance_run.c):
 * one scenario through the adapter, judged and verified, and the verdicts
 * the reports (conformance_out.h) and the self-test (selftest.h) read. The
 * command (conformance.c) uses all three; this one uses none of them, so
 * the parts of the command form no circle. Each scenario's result is an
 * lfa_conformance_case (lfa/conformance.h), which every report renders. */
#ifndef LFA_CLI_CONFORMANCE_RUN_H
#define LFA_CLI_CONFORMANCE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/conformance.h"
#include "lfa/fs.h"

typedef struct conf_args {
  const char *adapter, *expected_failures, *junit, *suite, *work, *html;
  const char *filters[64];
  size_t n_filters;
  bool tap, json, self_test;
  unsigned timeout;      /* per scenario, seconds */
  uint64_t deadline;     /* for the whole suite, seconds; 0: none */
  uint64_t max_failures; /* stop scheduling after this many; 0: no limit */
} conf_args;

typedef struct suite_run {
  const conf_args *a;
  char self[LFA_CONFORMANCE_PATH_MAX]; /* this executable, for the default adapter */
  char work[LFA_CONFORMANCE_PATH_MAX];
  bool temp_work;        /* ours: a passing scenario's folder is removed, a failing one kept */
  bool keep_all;         /* every folder stays until the caller is done (the self-test reads them) */
  lfa_names listed;      /* expected failures */
  lfa_names all;         /* every scenario name of the suite, unfiltered */
  size_t n_cases;
  lfa_conformance_case *cases;
  double started;        /* monotonic seconds */
  size_t unknown_listed; /* listed names the suite does not have */
} suite_run;

typedef struct tally {
  size_t passed, refused, failed, skipped, crashed, timed_out, expected, stale, invalid, not_run;
} tally;

/* Runs one scenario through the adapter, judges it, and says so on stderr
 * (one progress line). `timeout` bounds this scenario. */
void conf_run_case(suite_run *r, lfa_conformance_case *c, unsigned timeout);
double conf_now(void);
void conf_remove_tree(const char *path);
bool conf_in_names(const lfa_names *names, const char *name);

bool conf_is_bad(lfa_conformance_verdict v); /* fail, crash, timeout */
bool conf_is_pass(lfa_conformance_verdict v);
tally conf_count(const suite_run *r);
const char *conf_adapter_name(const suite_run *r);

#endif
