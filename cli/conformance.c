/* conformance.c: `lfa conformance`, the conformance suite against a writer
 * (conformance/README.md).
 *
 * For each scenario in SUITE/scenarios/ (sorted by name, narrowed by
 * --filter), the runner makes an empty directory, starts the adapter with
 * the scenario file and that directory, waits for it (bounded by
 * --timeout), reads the observations it wrote, judges them step by step
 * with the rule `lfa run` uses (lfa_conformance_judge), and verifies the
 * dataset it left with lfa's verifier. One verdict per scenario: pass,
 * refused as expected (a pass in which the writer turned down what it had
 * to), fail, crash, timeout, skipped. A list of expected failures turns
 * known failures into non-fatal ones, and fails the run when it goes stale
 * (a listed scenario passes, or is not in the suite).
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw, kill, setpgid, readlink */
#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "lfa/escape.h"
#include "lfa/conformance.h"
#include "lfa/fs.h"
#include "lfa/limits.h"
#include "lfa/verify.h"

static const char HELP[] =
    "usage: lfa conformance [--adapter CMD] [--filter GLOB] [--expected-failures FILE]\n"
    "                       [--junit FILE] [--tap] [--suite DIR] [--work DIR]\n"
    "                       [--timeout SECONDS]\n"
    "\n"
    "Runs the conformance scenarios (SUITE/scenarios/*.json) against a writer and\n"
    "says, scenario by scenario, whether it behaves as the spec requires.\n"
    "\n"
    "For each scenario the adapter is run as\n"
    "    CMD SCENARIO.json OUT_DIR\n"
    "(through /bin/sh, so CMD may carry arguments). It executes the steps with\n"
    "its writer, leaves the dataset in OUT_DIR/dataset, and writes\n"
    "OUT_DIR/observations.json: each step's outcome and, after each step with a\n"
    "check, the live rows, tracked fields and is_assigned its reader returns.\n"
    "Exit 77 means \"skipped\" (a capability the writer lacks). The runner then\n"
    "compares the observations with the scenario's expectations and verifies\n"
    "the dataset (every error finding of `lfa verify` fails the scenario).\n"
    "Without --adapter, the reference writer is used (`lfa adapter`), which\n"
    "observes by reading its dataset back from disk. Protocol and file format:\n"
    "conformance/README.md.\n"
    "\n"
    "  --adapter CMD               the writer under test\n"
    "  --filter GLOB               only scenarios whose name matches (fnmatch);\n"
    "                              repeat for several\n"
    "  --expected-failures FILE    scenario names (one per line, # comments) that\n"
    "                              are known to fail: they do not fail the run,\n"
    "                              but a listed one that passes, or that is not\n"
    "                              in the suite, does (the list went stale)\n"
    "  --junit FILE                also write a JUnit XML report\n"
    "  --tap                       print TAP version 13 instead of text\n"
    "  --suite DIR                 the suite (default: conformance)\n"
    "  --work DIR                  keep each scenario's OUT_DIR under DIR (a new\n"
    "                              directory); default: a temporary one, removed\n"
    "  --timeout SECONDS           per scenario (default 60): then the adapter's\n"
    "                              process group is killed and the verdict is\n"
    "                              \"timeout\"\n"
    "\n"
    "Text output: one line per scenario that did not pass, naming the step, its\n"
    "line in the scenario file and what differed (rows by key), then a summary:\n"
    "  conformance: 112 scenarios: 112 passed (30 refused as expected), 0 failed,\n"
    "  0 skipped, 0 crashed, 0 timed out, 0 expected failures, 0 stale\n"
    "\n"
    "Exit status: 0 every scenario passed, was skipped or failed as listed;\n"
    "1 a scenario failed, crashed or timed out unlisted, or the list is stale;\n"
    "2 unusable input (bad usage, a missing suite, an unreadable list).\n";

enum { MESSAGE_MAX = 2048, PATH_MAX_BYTES = 4096, EXPECTED_FAILURES_MAX = 4096, ADAPTER_SKIPPED = 77 };

typedef enum verdict { V_PASS, V_REFUSED_AS_EXPECTED, V_FAIL, V_CRASH, V_TIMEOUT, V_SKIP } verdict;

static const char *const VERDICT_NAMES[] = {"pass", "refused-as-expected", "fail", "crash", "timeout", "skipped"};

typedef struct case_result {
  char *name;
  verdict verdict;
  bool listed; /* in the expected-failures list */
  double seconds;
  size_t steps, checks, versions; /* steps judged, checks held, versions verified */
  char message[MESSAGE_MAX];
} case_result;

typedef struct args {
  const char *adapter, *expected_failures, *junit, *suite, *work;
  const char *filters[64];
  size_t n_filters;
  bool tap;
  unsigned timeout;
} args;

typedef struct suite_run {
  const args *a;
  char self[PATH_MAX_BYTES]; /* this executable, for the default adapter */
  char work[PATH_MAX_BYTES];
  bool remove_work;
  lfa_names listed; /* expected failures */
  size_t n_cases;
  case_result *cases;
} suite_run;

/* ---- arguments --------------------------------------------------------------------------- */

/* LFA_EXIT_OK when usable; -1 after --help. */
static int parse_args(args *a, int argc, char **argv) {
  memset(a, 0, sizeof *a);
  a->suite = "conformance";
  uint64_t timeout = 60;
  const lfa_cli_option opts[] = {
      {"--tap", LFA_CLI_FLAG, &a->tap, NULL, 1, 0, 0},
      {"--adapter", LFA_CLI_TEXT, &a->adapter, NULL, 1, 0, 0},
      {"--expected-failures", LFA_CLI_TEXT, &a->expected_failures, NULL, 1, 0, 0},
      {"--junit", LFA_CLI_TEXT, &a->junit, NULL, 1, 0, 0},
      {"--suite", LFA_CLI_TEXT, &a->suite, NULL, 1, 0, 0},
      {"--work", LFA_CLI_TEXT, &a->work, NULL, 1, 0, 0},
      {"--filter", LFA_CLI_TEXT, a->filters, &a->n_filters, sizeof a->filters / sizeof a->filters[0], 0, 0},
      {"--timeout", LFA_CLI_U64, &timeout, NULL, 1, 1, 86400},
  };
  int r = lfa_cli_parse("conformance", HELP, opts, sizeof opts / sizeof opts[0], NULL, 0, argc, argv);
  a->timeout = (unsigned)timeout;
  return r < 0 ? -1 : r == 0 ? LFA_EXIT_UNUSABLE : LFA_EXIT_OK;
}

/* ---- the suite ---------------------------------------------------------------------------- */

static bool selected(const args *a, const char *name) {
  if (a->n_filters == 0) return true;
  for (size_t i = 0; i < a->n_filters; i++)
    if (fnmatch(a->filters[i], name, 0) == 0) return true;
  return false;
}

/* The scenario names of SUITE/scenarios/ that the filters select. */
static lfa_status scenario_names(suite_run *r, lfa_error *err) {
  char dir[PATH_MAX_BYTES];
  lfa_names names;
  lfa_status st = lfa_fs_join(dir, sizeof dir, r->a->suite, "scenarios", err);
  if (st == LFA_OK && !lfa_fs_is_dir(dir))
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "%s is not a directory (run from the repository, or give --suite DIR)",
                    dir);
  if (st == LFA_OK) st = lfa_fs_list(&names, dir, 0, err);
  if (st != LFA_OK) return st;
  r->cases = calloc(names.count + 1, sizeof *r->cases);
  for (size_t i = 0; r->cases != NULL && i < names.count; i++) {
    size_t len = strlen(names.names[i]);
    if (len <= 5 || strcmp(names.names[i] + len - 5, ".json") != 0) continue;
    names.names[i][len - 5] = '\0';
    if (!selected(r->a, names.names[i])) continue;
    r->cases[r->n_cases++].name = names.names[i];
    names.names[i] = NULL; /* the case owns it now */
  }
  lfa_fs_names_free(&names);
  return r->cases ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
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

static bool is_listed(const suite_run *r, const char *name) {
  for (size_t i = 0; i < r->listed.count; i++)
    if (strcmp(r->listed.names[i], name) == 0) return true;
  return false;
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
  r->remove_work = true;
  return LFA_OK;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

/* ---- running the adapter ------------------------------------------------------------------ */

/* The child: its own process group (so a timeout kills everything it
 * started), output to OUT.log beside OUT (which starts empty), then the adapter. */
static void exec_adapter(const suite_run *r, const char *scenario, const char *out, const char *log) {
  setpgid(0, 0);
  FILE *f = freopen(log, "w", stdout);
  if (f == NULL || dup2(fileno(stdout), STDERR_FILENO) < 0) _exit(126);
  if (r->a->adapter == NULL) {
    execl(r->self, "lfa", "adapter", scenario, out, (char *)NULL);
  } else {
    char script[PATH_MAX_BYTES + 16];
    snprintf(script, sizeof script, "%s \"$@\"", r->a->adapter);
    execl("/bin/sh", "sh", "-c", script, "lfa-adapter", scenario, out, (char *)NULL);
  }
  fprintf(stderr, "lfa conformance: cannot start the adapter: %s\n", strerror(errno));
  _exit(127);
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits for the adapter; after the timeout kills its process group.
 * Returns false on timeout. */
static bool wait_adapter(pid_t pid, unsigned timeout, int *status) {
  double deadline = now_seconds() + timeout;
  long nap = 1000000; /* 1 ms, doubling to 32 ms */
  for (;;) {
    pid_t got = waitpid(pid, status, WNOHANG);
    if (got == pid || (got < 0 && errno != EINTR)) return true;
    if (now_seconds() > deadline) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, status, 0);
      return false;
    }
    nanosleep(&(struct timespec){0, nap}, NULL);
    if (nap < 32000000) nap *= 2;
  }
}

/* The last line the adapter printed, for crash messages: its bytes as
 * they are (NUL ends it), escaped by each output's writer. */
static void last_line(char *out, size_t cap, const char *log) {
  lfa_buf bytes = {0};
  lfa_error err = {0};
  out[0] = '\0';
  if (lfa_fs_read(&bytes, log, LFA_JSON_DOCUMENT_BYTES_MAX, &err) != LFA_OK) return;
  size_t end = bytes.len;
  while (end > 0 && (bytes.data[end - 1] == '\n' || bytes.data[end - 1] == '\r')) end--;
  size_t start = end;
  while (start > 0 && bytes.data[start - 1] != '\n') start--;
  size_t n = end - start < cap - 1 ? end - start : cap - 1;
  if (n > 0) memcpy(out, bytes.data + start, n); /* an empty log has no data at all */
  out[n] = '\0';
  lfa_buf_free(&bytes);
}

/* ---- judging one scenario ----------------------------------------------------------------- */

static void judge_observations(case_result *c, const lfa_scenario *s, const lfa_observations *obs) {
  lfa_scenario_report rep;
  lfa_error err = {0};
  if (lfa_conformance_judge(&rep, s, obs, &err) != LFA_OK) {
    c->verdict = V_FAIL;
    snprintf(c->message, sizeof c->message, "%s", err.msg);
    return;
  }
  bool refused = false;
  for (size_t i = 0; i < rep.n_results; i++) {
    refused |= rep.results[i].outcome != LFA_SCENARIO_OK;
    c->steps += rep.results[i].passed;
    c->checks += rep.results[i].passed && rep.results[i].checked;
  }
  if (rep.passed) {
    c->verdict = refused ? V_REFUSED_AS_EXPECTED : V_PASS;
  } else {
    char label[128];
    size_t f = rep.n_results - 1;
    lfa_scenario_step_label(label, sizeof label, s, f);
    c->verdict = V_FAIL;
    snprintf(c->message, sizeof c->message, "%s: %s", label, rep.results[f].failure);
  }
  lfa_scenario_report_free(&rep);
}

/* Every error finding of the verifier fails the scenario. */
static void verify_dataset(case_result *c, const char *dataset, const lfa_observations *obs) {
  bool committed = obs->n_steps > 0 && obs->steps[0].outcome == LFA_SCENARIO_OK;
  if (!lfa_fs_is_dir(dataset)) {
    if (committed) c->verdict = V_FAIL;
    if (committed) snprintf(c->message, sizeof c->message, "the adapter left no dataset at %.1024s", dataset);
    return;
  }
  lfa_verify_result res;
  lfa_error err = {0};
  if (lfa_verify_dataset(&res, dataset, NULL, &err) != LFA_OK) {
    c->verdict = V_FAIL;
    snprintf(c->message, sizeof c->message, "verify: %s", err.msg);
  } else if ((c->versions = res.versions_checked, lfa_findings_count(&res.findings, LFA_SEVERITY_ERROR) > 0)) {
    const lfa_finding *f = NULL;
    for (size_t i = 0; i < res.findings.count && f == NULL; i++)
      if (res.findings.items[i].severity == LFA_SEVERITY_ERROR) f = &res.findings.items[i];
    c->verdict = V_FAIL;
    snprintf(c->message, sizeof c->message, "verify: %zu error finding(s); first: version %" PRIu64 "%s%s: %s: %s",
             lfa_findings_count(&res.findings, LFA_SEVERITY_ERROR), f->version, f->file ? ", " : "",
             f->file ? f->file : "", f->rule, f->message);
  }
  lfa_verify_result_free(&res);
}

/* What the adapter's exit status says, when it is not a normal finish. */
static bool abnormal_exit(case_result *c, int status, const char *obs_path, const char *log, size_t max_steps) {
  char line[512];
  if (WIFEXITED(status) && WEXITSTATUS(status) == ADAPTER_SKIPPED) {
    lfa_observations obs;
    lfa_error err = {0};
    c->verdict = V_SKIP;
    last_line(c->message, sizeof c->message, log);
    if (lfa_observations_load(&obs, obs_path, max_steps, &err) == LFA_OK) {
      if (obs.skipped != NULL) snprintf(c->message, sizeof c->message, "%s", obs.skipped);
      lfa_observations_free(&obs);
    }
    return true;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return false;
  last_line(line, sizeof line, log);
  c->verdict = V_CRASH;
  if (WIFSIGNALED(status))
    snprintf(c->message, sizeof c->message, "the adapter was killed by signal %d; its last line: %s", WTERMSIG(status),
             line);
  else
    snprintf(c->message, sizeof c->message, "the adapter exited with status %d; its last line: %s",
             WIFEXITED(status) ? WEXITSTATUS(status) : -1, line);
  return true;
}

static bool fits(int n, size_t cap) { return n >= 0 && (size_t)n < cap; }

static void run_case(suite_run *r, case_result *c) {
  char scenario[PATH_MAX_BYTES], out[PATH_MAX_BYTES], log[PATH_MAX_BYTES + 16], obs_path[PATH_MAX_BYTES + 32],
      dataset[PATH_MAX_BYTES + 16];
  lfa_scenario s;
  lfa_error err = {0};
  double start = now_seconds();
  c->listed = is_listed(r, c->name);
  if (!fits(snprintf(scenario, sizeof scenario, "%s/scenarios/%s.json", r->a->suite, c->name), sizeof scenario) ||
      !fits(snprintf(out, sizeof out, "%s/%s", r->work, c->name), sizeof out) ||
      !fits(snprintf(log, sizeof log, "%s.log", out), sizeof log) ||
      !fits(snprintf(obs_path, sizeof obs_path, "%s/observations.json", out), sizeof obs_path) ||
      !fits(snprintf(dataset, sizeof dataset, "%s/dataset", out), sizeof dataset)) {
    c->verdict = V_FAIL;
    snprintf(c->message, sizeof c->message, "the paths of this scenario are longer than %d bytes", PATH_MAX_BYTES);
    return;
  }
  if (lfa_scenario_load(&s, scenario, &err) != LFA_OK) {
    c->verdict = V_FAIL;
    snprintf(c->message, sizeof c->message, "not a valid scenario: %s", err.msg);
    return;
  }
  if (strcmp(s.name, c->name) != 0) { /* names are unique because file names are */
    c->verdict = V_FAIL;
    snprintf(c->message, sizeof c->message, "the scenario is named \"%.200s\", but its file is %.200s.json", s.name,
             c->name);
    lfa_scenario_free(&s);
    return;
  }
  fflush(NULL);
  pid_t pid = mkdir(out, 0777) == 0 ? fork() : -1;
  if (pid == 0) exec_adapter(r, scenario, out, log);
  int status = 0;
  if (pid < 0) {
    c->verdict = V_CRASH;
    snprintf(c->message, sizeof c->message, "cannot start the adapter in %.1024s: %s", out, strerror(errno));
  } else if (!wait_adapter(pid, r->a->timeout, &status)) {
    c->verdict = V_TIMEOUT;
    snprintf(c->message, sizeof c->message, "the adapter ran past %u s and was killed", r->a->timeout);
  } else if (!abnormal_exit(c, status, obs_path, log, s.n_steps)) {
    lfa_observations obs;
    if (lfa_observations_load(&obs, obs_path, s.n_steps, &err) != LFA_OK) {
      c->verdict = V_FAIL;
      snprintf(c->message, sizeof c->message, "unusable observations: %s", err.msg);
    } else {
      judge_observations(c, &s, &obs);
      if (c->verdict != V_FAIL) verify_dataset(c, dataset, &obs);
      lfa_observations_free(&obs);
    }
  }
  c->seconds = now_seconds() - start;
  lfa_scenario_free(&s);
}

/* ---- reporting ---------------------------------------------------------------------------- */

static bool is_bad(verdict v) { return v == V_FAIL || v == V_CRASH || v == V_TIMEOUT; }
static bool is_pass(verdict v) { return v == V_PASS || v == V_REFUSED_AS_EXPECTED; }

typedef struct tally {
  size_t passed, refused, failed, skipped, crashed, timed_out, expected, stale;
} tally;

static tally count(const suite_run *r, size_t unknown_listed) {
  tally t = {0};
  for (size_t i = 0; i < r->n_cases; i++) {
    const case_result *c = &r->cases[i];
    if (c->listed && is_bad(c->verdict)) t.expected++;
    else if (c->verdict == V_FAIL) t.failed++;
    else if (c->verdict == V_CRASH) t.crashed++;
    else if (c->verdict == V_TIMEOUT) t.timed_out++;
    else if (c->verdict == V_SKIP) t.skipped++;
    if (is_pass(c->verdict)) t.passed++, t.refused += c->verdict == V_REFUSED_AS_EXPECTED, t.stale += c->listed;
  }
  t.stale += unknown_listed;
  return t;
}

/* One line per scenario that did not simply pass, and its message. A name
 * is a file name of the suite: any bytes, shown escaped like the message. */
static void print_text(const suite_run *r) {
  for (size_t i = 0; i < r->n_cases; i++) {
    const case_result *c = &r->cases[i];
    if (is_pass(c->verdict) && !c->listed) continue;
    fputs(is_pass(c->verdict) ? "FAIL  " : c->verdict == V_SKIP ? "SKIP  " : c->listed ? "XFAIL " : "FAIL  ", stdout);
    lfa_put_text(stdout, c->name);
    if (is_pass(c->verdict)) printf(": stale: listed as an expected failure, but it passes\n");
    else if (c->verdict == V_SKIP) printf(": ");
    else printf(": %s: ", VERDICT_NAMES[c->verdict]);
    if (!is_pass(c->verdict)) lfa_put_text(stdout, c->message), putchar('\n'); /* the adapter's words: any bytes */
  }
}

static void print_tap(const suite_run *r) {
  printf("TAP version 13\n1..%zu\n", r->n_cases);
  for (size_t i = 0; i < r->n_cases; i++) {
    const case_result *c = &r->cases[i];
    bool ok = (is_pass(c->verdict) && !c->listed) || c->verdict == V_SKIP;
    printf("%s %zu - ", ok ? "ok" : "not ok", i + 1), lfa_put_text(stdout, c->name);
    if (c->verdict == V_SKIP) printf(" # SKIP "), lfa_put_text(stdout, c->message);
    else if (c->listed && is_bad(c->verdict)) printf(" # TODO expected failure");
    printf("\n");
    if (ok) continue;
    printf("  ---\n  verdict: %s\n  message: ", is_pass(c->verdict) ? "stale" : VERDICT_NAMES[c->verdict]);
    /* a JSON string is a YAML double-quoted scalar: valid for any bytes */
    lfa_put_json(stdout, is_pass(c->verdict) ? "listed as an expected failure, but it passes" : c->message);
    printf("\n  ...\n");
  }
}

static void xml_text(FILE *f, const char *s) { lfa_put_xml(f, s); }

static lfa_status write_junit(const suite_run *r, const tally *t, lfa_error *err) {
  FILE *f = fopen(r->a->junit, "w");
  if (f == NULL) return lfa_fail(err, LFA_ERR_IO, NULL, "--junit %s: %s", r->a->junit, strerror(errno));
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
  fprintf(f, "  <testsuite name=\"lfa conformance\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n",
          r->n_cases, t->failed + t->stale, t->crashed + t->timed_out, t->skipped + t->expected);
  for (size_t i = 0; i < r->n_cases; i++) {
    const case_result *c = &r->cases[i];
    fprintf(f, "    <testcase classname=\"conformance\" name=\"");
    xml_text(f, c->name);
    fprintf(f, "\" time=\"%.3f\">", c->seconds);
    const char *tag = c->verdict == V_SKIP || (c->listed && is_bad(c->verdict)) ? "skipped"
                      : is_pass(c->verdict) && c->listed                        ? "failure"
                      : c->verdict == V_FAIL                                    ? "failure"
                      : is_bad(c->verdict)                                      ? "error"
                                                                                : NULL;
    if (tag != NULL) {
      fprintf(f, "<%s message=\"", tag);
      xml_text(f, is_pass(c->verdict) ? "stale expected failure: it passes" : VERDICT_NAMES[c->verdict]);
      fprintf(f, "\">");
      xml_text(f, c->listed && is_bad(c->verdict) ? "expected failure: " : "");
      xml_text(f, c->message);
      fprintf(f, "</%s>", tag);
    }
    fprintf(f, "</testcase>\n");
  }
  fprintf(f, "  </testsuite>\n</testsuites>\n");
  return fclose(f) == 0 ? LFA_OK : lfa_fail(err, LFA_ERR_IO, NULL, "--junit %s: %s", r->a->junit, strerror(errno));
}

/* Listed names that are not in the (filtered) suite: the list is stale.
 * A name the filters leave out is not checked. */
static size_t unknown_listed(const suite_run *r) {
  size_t n = 0;
  for (size_t i = 0; i < r->listed.count; i++) {
    bool found = false;
    for (size_t k = 0; k < r->n_cases && !found; k++) found = strcmp(r->cases[k].name, r->listed.names[i]) == 0;
    if (!found && selected(r->a, r->listed.names[i])) {
      n++;
      if (!r->a->tap)
        fputs("FAIL     ", stdout), lfa_put_text(stdout, r->listed.names[i]),
            puts(": STALE (listed as an expected failure, but the suite has no such scenario)");
    }
  }
  return n;
}

/* ---- command ------------------------------------------------------------------------------ */

static void free_run(suite_run *r) {
  for (size_t i = 0; i < r->n_cases; i++) free(r->cases[i].name);
  free(r->cases);
  lfa_fs_names_free(&r->listed);
  if (r->remove_work) nftw(r->work, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static lfa_status prepare(suite_run *r, lfa_error *err) {
  if (r->a->adapter == NULL) {
    ssize_t n = readlink("/proc/self/exe", r->self, sizeof r->self - 1);
    if (n <= 0) return lfa_fail(err, LFA_ERR_IO, NULL, "cannot find this executable for the reference adapter");
    r->self[n] = '\0';
  }
  lfa_status st = scenario_names(r, err);
  if (st == LFA_OK) st = read_listed(r, err);
  if (st == LFA_OK && r->n_cases == 0) st = lfa_fail(err, LFA_ERR_USAGE, NULL, "no scenario matches the filters");
  if (st == LFA_OK) st = make_work(r, err);
  return st;
}

int lfa_cli_conformance(int argc, char **argv) {
  args a;
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
  for (size_t i = 0; i < r.n_cases; i++) run_case(&r, &r.cases[i]);
  const char *adapter_name = a.adapter ? a.adapter : "lfa adapter (the reference writer)";
  if (a.tap) print_tap(&r);
  else print_text(&r);
  tally t = count(&r, unknown_listed(&r));
  if (a.junit != NULL && write_junit(&r, &t, &err) != LFA_OK) {
    fprintf(stderr, "lfa conformance: %s\n", err.msg);
    st = LFA_ERR_IO;
  }
  size_t steps = 0, checks = 0, versions = 0;
  for (size_t i = 0; i < r.n_cases; i++)
    steps += r.cases[i].steps, checks += r.cases[i].checks, versions += r.cases[i].versions;
  printf("%s%zu steps behaved as expected, %zu checks of is_assigned held, %zu versions verified\n", a.tap ? "# " : "",
         steps, checks, versions);
  printf("%sconformance: %zu scenarios against ", a.tap ? "# " : "", r.n_cases), lfa_put_text(stdout, adapter_name);
  printf(": %zu passed (%zu refused as expected), %zu failed, %zu skipped, "
         "%zu crashed, %zu timed out, %zu expected failures, %zu stale\n",
         t.passed, t.refused, t.failed, t.skipped, t.crashed, t.timed_out, t.expected, t.stale);
  if (!r.remove_work) printf("%swork directory kept: ", a.tap ? "# " : ""), lfa_put_text(stdout, r.work), putchar('\n');
  bool bad = t.failed + t.crashed + t.timed_out + t.stale > 0 || st != LFA_OK;
  free_run(&r);
  return bad ? LFA_EXIT_FINDINGS : LFA_EXIT_OK;
}
