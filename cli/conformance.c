/* conformance.c: `lfa conformance`, the conformance suite against a writer
 * (conformance/README.md).
 *
 * For each scenario in SUITE/scenarios/ (sorted by name, narrowed by
 * --filter), the runner makes an empty directory, starts the adapter with
 * the scenario file and that directory, waits for it (bounded by
 * --timeout), reads the observations it wrote, judges them step by step
 * with the rule `lfa run` uses (lfa_conformance_judge: each checked
 * version's bytes, read back with lfa's reader, against the scenario, then
 * the observation against the bytes), and verifies the dataset it left
 * with lfa's verifier. One verdict per scenario
 * (lfa_conformance_case): pass, refused as expected (a pass in which the
 * writer turned down what it had to), fail, crash, timeout, skipped,
 * invalid (the scenario file is unusable), not run (--max-failures or
 * --deadline stopped the run first). Each is said on stderr as it
 * finishes (the runner, conformance_run.c); the reports
 * (conformance_out.c) follow the run. A failing
 * scenario's folder is kept as evidence. A list of expected failures
 * turns known failures into non-fatal ones, and fails the run when it
 * goes stale (a listed scenario passes, or is not in the suite).
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, readlink */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "conformance_out.h"
#include "conformance_run.h"
#include "selftest.h"
#include "lfa/escape.h"
#include "lfa/conformance.h"
#include "lfa/fs.h"
#include "lfa/limits.h"

static const char HELP[] =
    "usage: lfa conformance [--adapter CMD] [--filter GLOB] [--expected-failures FILE]\n"
    "                       [--junit FILE] [--tap | --json] [--suite DIR] [--work DIR]\n"
    "                       [--timeout SECONDS] [--deadline SECONDS] [--max-failures N]\n"
    "       lfa conformance --self-test [--adapter CMD] [--suite DIR] [--timeout SECONDS]\n"
    "\n"
    "Runs the conformance scenarios (SUITE/scenarios/*.json) against a writer and\n"
    "says, scenario by scenario, whether it behaves as the spec requires.\n"
    "\n"
    "For each scenario the adapter is run as\n"
    "    CMD SCENARIO.json OUT_DIR\n"
    "(through /bin/sh, so CMD may carry arguments). It executes the steps with\n"
    "its writer, leaves the dataset in OUT_DIR/dataset, and writes\n"
    "OUT_DIR/observations.json: each step's outcome and, after each step with a\n"
    "check, the live rows, tracked fields and is_assigned its reader returns,\n"
    "with its version and key map (\"rows\"). Exit 77 means \"skipped\". The runner\n"
    "reads each checked version from OUT_DIR/dataset with lfa's reader (rows by\n"
    "that key map), judges the bytes against the scenario, then the observation\n"
    "against the bytes, and verifies the dataset (any error finding fails).\n"
    "Without --adapter, the reference writer is used (`lfa adapter`), which\n"
    "observes by reading its dataset back from disk. Protocol and file format:\n"
    "conformance/README.md; JSON Schemas: conformance/schema/.\n"
    "\n"
    "  --adapter CMD               the writer under test\n"
    "  --filter GLOB               only scenarios whose name matches (fnmatch);\n"
    "                              repeat for several\n"
    "  --expected-failures FILE    scenario names (one per line, # comments) that\n"
    "                              are known to fail: they do not fail the run,\n"
    "                              but a listed one that passes, or a name the\n"
    "                              suite does not have (whatever --filter says),\n"
    "                              does (the list went stale)\n"
    "  --junit FILE                also write a JUnit XML report\n"
    "  --html DIR                  also write HTML: expected against observed (DIR)\n"
    "  --tap                       print TAP version 13 instead of text\n"
    "  --json                      print one JSON document instead of text (shape:\n"
    "                              docs/commands/conformance.md)\n"
    "  --suite DIR                 the suite (default: conformance)\n"
    "  --work DIR                  keep every scenario's OUT_DIR under DIR (a new\n"
    "                              directory); default: a temporary one, in which\n"
    "                              the folders of failing scenarios are kept\n"
    "  --timeout SECONDS           per scenario (default 60): then the adapter's\n"
    "                              process group is killed and the verdict is\n"
    "                              \"timeout\"\n"
    "  --deadline SECONDS          for the whole run: no scenario starts after it,\n"
    "                              and the one running then is stopped; the rest\n"
    "                              are reported as \"not-run\"\n"
    "  --max-failures N            stop starting scenarios after N failures\n"
    "                              (fail, crash, timeout, invalid; listed ones\n"
    "                              do not count); the rest are \"not-run\"\n"
    "  --self-test                 check the adapter's protocol on a handful of\n"
    "                              scenarios and explain each mistake in plain words\n"
    "\n"
    "While it runs, one line per scenario on stderr as it finishes: its number,\n"
    "verdict, name and time. Text output (stdout): one line per scenario that\n"
    "did not pass, naming the step, its line in the scenario file and what\n"
    "differed (rows by key), each verifier finding below it (also of a pass:\n"
    "WARN), the kept folders of failing scenarios, then a summary:\n"
    "  conformance: 3 scenarios against CMD: 2 passed (1 refused as expected),\n"
    "  1 failed, 0 skipped, 0 crashed, 0 timed out, 0 expected failures,\n"
    "  0 stale, 0 invalid, 0 not run\n"
    "\n"
    "Exit status: 0 every scenario passed, was skipped or failed as listed;\n"
    "1 a scenario failed, crashed, timed out or was not run, unlisted, or the\n"
    "list is stale; 2 unusable input (bad usage, a missing suite, an unreadable\n"
    "list, an invalid scenario: its verdict is \"invalid\").\n";

enum { EXPECTED_FAILURES_MAX = 4096 };

/* ---- arguments --------------------------------------------------------------------------- */

/* LFA_EXIT_OK when usable; -1 after --help. */
static int parse_args(conf_args *a, int argc, char **argv) {
  memset(a, 0, sizeof *a);
  a->suite = "conformance";
  uint64_t timeout = 60;
  const lfa_cli_option opts[] = {
      {"--tap", LFA_CLI_FLAG, &a->tap, NULL, 1, 0, 0},
      {"--json", LFA_CLI_FLAG, &a->json, NULL, 1, 0, 0},
      {"--self-test", LFA_CLI_FLAG, &a->self_test, NULL, 1, 0, 0},
      {"--adapter", LFA_CLI_TEXT, &a->adapter, NULL, 1, 0, 0},
      {"--expected-failures", LFA_CLI_TEXT, &a->expected_failures, NULL, 1, 0, 0},
      {"--junit", LFA_CLI_TEXT, &a->junit, NULL, 1, 0, 0},
      {"--html", LFA_CLI_TEXT, &a->html, NULL, 1, 0, 0},
      {"--suite", LFA_CLI_TEXT, &a->suite, NULL, 1, 0, 0},
      {"--work", LFA_CLI_TEXT, &a->work, NULL, 1, 0, 0},
      {"--filter", LFA_CLI_TEXT, a->filters, &a->n_filters, sizeof a->filters / sizeof a->filters[0], 0, 0},
      {"--timeout", LFA_CLI_U64, &timeout, NULL, 1, 1, 86400},
      {"--deadline", LFA_CLI_U64, &a->deadline, NULL, 1, 1, 7 * 86400},
      {"--max-failures", LFA_CLI_U64, &a->max_failures, NULL, 1, 1, 1000000},
  };
  int r = lfa_cli_parse("conformance", HELP, opts, sizeof opts / sizeof opts[0], NULL, 0, argc, argv);
  a->timeout = (unsigned)timeout;
  if (r > 0 && a->tap && a->json) {
    fprintf(stderr, "lfa conformance: --tap and --json are two formats of one stdout; give one\n");
    return LFA_EXIT_UNUSABLE;
  }
  return r < 0 ? -1 : r == 0 ? LFA_EXIT_UNUSABLE : LFA_EXIT_OK;
}

/* ---- the suite ---------------------------------------------------------------------------- */

static bool selected(const conf_args *a, const char *name) {
  if (a->n_filters == 0) return true;
  for (size_t i = 0; i < a->n_filters; i++)
    if (fnmatch(a->filters[i], name, 0) == 0) return true;
  return false;
}

/* The scenario names of SUITE/scenarios/: all of them in r->all, the ones
 * the filters select as cases. */
static lfa_status scenario_names(suite_run *r, lfa_error *err) {
  char dir[LFA_CONFORMANCE_PATH_MAX];
  lfa_names *names = &r->all;
  lfa_status st = lfa_fs_join(dir, sizeof dir, r->a->suite, "scenarios", err);
  if (st == LFA_OK && !lfa_fs_is_dir(dir))
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "%s is not a directory (run from the repository, or give --suite DIR)",
                    dir);
  if (st == LFA_OK) st = lfa_fs_list(names, dir, 0, err);
  if (st != LFA_OK) return st;
  r->cases = calloc(names->count + 1, sizeof *r->cases);
  size_t kept = 0;
  bool lost = r->cases == NULL;
  for (size_t i = 0; i < names->count; i++) {
    size_t len = strlen(names->names[i]);
    if (lost || len <= 5 || strcmp(names->names[i] + len - 5, ".json") != 0) {
      free(names->names[i]);
      continue;
    }
    names->names[i][len - 5] = '\0';
    names->names[kept++] = names->names[i];
    if (!selected(r->a, names->names[kept - 1])) continue;
    lost = (r->cases[r->n_cases].name = strdup(names->names[kept - 1])) == NULL;
    r->n_cases += !lost;
  }
  names->count = kept;
  return lost ? lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory") : LFA_OK;
}

/* One name per line; blank lines and '#' comments skipped. */
static lfa_status read_listed(suite_run *r, lfa_error *err) {
  if (r->a->expected_failures == NULL) return LFA_OK;
  lfa_buf bytes;
  lfa_status st = lfa_fs_read(&bytes, r->a->expected_failures, LFA_JSON_DOCUMENT_BYTES_MAX, err);
  if (st != LFA_OK) return st;
  r->listed.names = calloc(EXPECTED_FAILURES_MAX, sizeof *r->listed.names);
  char *text = malloc(bytes.len + 1);
  if (r->listed.names == NULL || text == NULL) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (text != NULL) memcpy(text, bytes.data, bytes.len), text[bytes.len] = '\0';
  for (char *line = text, *next; st == LFA_OK && line != NULL; line = next) {
    next = strchr(line, '\n');
    if (next != NULL) *next++ = '\0';
    char *hash = strchr(line, '#');
    if (hash != NULL) *hash = '\0';
    line += strspn(line, " \t\r");
    line[strcspn(line, " \t\r")] = '\0';
    if (line[0] == '\0') continue;
    if (r->listed.count == EXPECTED_FAILURES_MAX)
      st = lfa_fail(err, LFA_ERR_LIMIT, NULL, "%s lists more than %d scenarios", r->a->expected_failures,
                    EXPECTED_FAILURES_MAX);
    else if ((r->listed.names[r->listed.count++] = strdup(line)) == NULL)
      st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  }
  free(text);
  lfa_buf_free(&bytes);
  return st;
}

/* ---- the work directory ------------------------------------------------------------------- */

static lfa_status make_work(suite_run *r, lfa_error *err) {
  if (r->a->work != NULL) {
    if (mkdir(r->a->work, 0777) != 0)
      return lfa_fail(err, LFA_ERR_USAGE, NULL, "--work %s: %s (it must be a new directory)", r->a->work,
                      strerror(errno));
    snprintf(r->work, sizeof r->work, "%s", r->a->work);
    return LFA_OK;
  }
  const char *tmp = getenv("TMPDIR");
  snprintf(r->work, sizeof r->work, "%s/lfa-conformance-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  if (mkdtemp(r->work) == NULL) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", r->work, strerror(errno));
  r->temp_work = true;
  return LFA_OK;
}

/* Why no further scenario starts, or NULL: the failures counted so far
 * (listed ones are known, and do not count) or the suite deadline. */
/* ---- the run ------------------------------------------------------------------------------ */

static const char *stop_reason(char *buf, size_t cap, const suite_run *r, size_t done) {
  size_t failures = 0;
  for (size_t i = 0; i < done; i++)
    failures += (conf_is_bad(r->cases[i].verdict) && !r->cases[i].listed) || r->cases[i].verdict == LFA_VERDICT_INVALID;
  if (r->a->max_failures > 0 && failures >= r->a->max_failures)
    return snprintf(buf, cap, "not run: --max-failures %" PRIu64 " was reached", r->a->max_failures), buf;
  if (r->a->deadline > 0 && conf_now() - r->started >= (double)r->a->deadline)
    return snprintf(buf, cap, "not run: the suite deadline (--deadline %" PRIu64 " s) had passed", r->a->deadline), buf;
  return NULL;
}

/* This scenario's timeout: --timeout, or what the deadline leaves. */
static unsigned case_timeout(const suite_run *r) {
  if (r->a->deadline == 0) return r->a->timeout;
  double left = (double)r->a->deadline - (conf_now() - r->started);
  unsigned whole = left < 1 ? 1 : (unsigned)left;
  return whole < r->a->timeout ? whole : r->a->timeout;
}

static void run_all(suite_run *r) {
  char why[128];
  r->started = conf_now();
  for (size_t i = 0; i < r->n_cases; i++) {
    lfa_conformance_case *c = &r->cases[i];
    if (stop_reason(why, sizeof why, r, i) == NULL) {
      conf_run_case(r, c, case_timeout(r));
      continue;
    }
    c->verdict = LFA_VERDICT_NOT_RUN, c->listed = conf_in_names(&r->listed, c->name);
    snprintf(c->message, sizeof c->message, "%s", why);
  }
}

/* ---- command ------------------------------------------------------------------------------ */

static void free_run(suite_run *r) {
  bool kept = false;
  for (size_t i = 0; i < r->n_cases; i++) kept |= r->cases[i].kept, lfa_conformance_case_free(&r->cases[i]);
  free(r->cases);
  lfa_fs_names_free(&r->listed);
  lfa_fs_names_free(&r->all);
  if (r->temp_work && !kept) conf_remove_tree(r->work);
}

static lfa_status prepare(suite_run *r, lfa_error *err) {
  if (r->a->adapter == NULL) {
    ssize_t n = readlink("/proc/self/exe", r->self, sizeof r->self - 1);
    if (n <= 0) return lfa_fail(err, LFA_ERR_IO, NULL, "cannot find this executable for the reference adapter");
    r->self[n] = '\0';
  }
  lfa_status st = scenario_names(r, err);
  if (st == LFA_OK) st = read_listed(r, err);
  for (size_t i = 0; st == LFA_OK && i < r->listed.count; i++)
    r->unknown_listed += !conf_in_names(&r->all, r->listed.names[i]);
  if (st == LFA_OK && r->n_cases == 0) st = lfa_fail(err, LFA_ERR_USAGE, NULL, "no scenario matches the filters");
  if (st == LFA_OK) st = make_work(r, err);
  return st;
}

static int exit_status(const tally *t, lfa_status st) {
  if (t->invalid > 0) return LFA_EXIT_UNUSABLE;
  bool bad = t->failed + t->crashed + t->timed_out + t->stale + t->not_run > 0 || st != LFA_OK;
  return bad ? LFA_EXIT_FINDINGS : LFA_EXIT_OK;
}

int lfa_cli_conformance(int argc, char **argv) {
  conf_args a;
  int rc = parse_args(&a, argc, argv);
  if (rc != LFA_EXIT_OK) return rc < 0 ? LFA_EXIT_OK : rc;
  suite_run r = {.a = &a};
  lfa_error err = {0};
  lfa_status st = prepare(&r, &err);
  if (st != LFA_OK) {
    free_run(&r);
    fprintf(stderr, "lfa conformance: %s\n", err.msg);
    return LFA_EXIT_UNUSABLE;
  }
  if (a.self_test) {
    rc = conf_self_test(&r);
    free_run(&r);
    return rc;
  }
  run_all(&r);
  tally t = conf_count(&r);
  if (a.junit != NULL && conf_write_junit(&r, &t, &err) != LFA_OK) {
    fprintf(stderr, "lfa conformance: --junit: %s\n", err.msg);
    st = LFA_ERR_IO;
  }
  if (a.html != NULL && conf_write_html(&r, &t, a.html, &err) != LFA_OK) {
    fprintf(stderr, "lfa conformance: --html: %s\n", err.msg);
    st = LFA_ERR_IO;
  }
  if (a.json) conf_print_json(&r, &t);
  else if (a.tap) conf_print_tap(&r, &t);
  else conf_print_text(&r, &t);
  free_run(&r);
  return exit_status(&t, st);
}
