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
 * finishes; the reports (conformance_out.c) follow the run. A failing
 * scenario's folder is kept as evidence. A list of expected failures
 * turns known failures into non-fatal ones, and fails the run when it
 * goes stale (a listed scenario passes, or is not in the suite).
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
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "adapter_log.h"
#include "args.h"
#include "cli.h"
#include "conformance.h"
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
    "                              README.md, conformance/schema/report.schema.json)\n"
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

enum { EXPECTED_FAILURES_MAX = 4096, ADAPTER_SKIPPED = 77 };

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

bool conf_in_names(const lfa_names *names, const char *name) {
  for (size_t i = 0; i < names->count; i++)
    if (strcmp(names->names[i], name) == 0) return true;
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
  r->temp_work = true;
  return LFA_OK;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

void conf_remove_tree(const char *path) { nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* ---- running the adapter ------------------------------------------------------------------ */

typedef struct case_paths {
  char scenario[LFA_CONFORMANCE_PATH_MAX], log[LFA_CONFORMANCE_PATH_MAX + 8], obs[LFA_CONFORMANCE_PATH_MAX + 32],
      dataset[LFA_CONFORMANCE_PATH_MAX + 16];
} case_paths;

static bool fits(int n, size_t cap) { return n >= 0 && (size_t)n < cap; }

static bool make_paths(case_paths *p, const suite_run *r, lfa_conformance_case *c) {
  char *out = c->work_dir;
  return fits(snprintf(p->scenario, sizeof p->scenario, "%s/scenarios/%s.json", r->a->suite, c->name),
              sizeof p->scenario) &&
         fits(snprintf(out, sizeof c->work_dir, "%s/%s", r->work, c->name), sizeof c->work_dir) &&
         fits(snprintf(p->log, sizeof p->log, "%s.log", out), sizeof p->log) &&
         fits(snprintf(p->obs, sizeof p->obs, "%s/observations.json", out), sizeof p->obs) &&
         fits(snprintf(p->dataset, sizeof p->dataset, "%s/dataset", out), sizeof p->dataset);
}

/* The child: its own process group (so everything it started is killed
 * with it), output to the pipe whose bounded copy is OUT.log, then the adapter. */
static void exec_adapter(const suite_run *r, const char *scenario, const char *out, adapter_log *log) {
  setpgid(0, 0);
  if (!adapter_log_child(log)) _exit(126);
  if (r->a->adapter == NULL) {
    execl(r->self, "lfa", "adapter", scenario, out, (char *)NULL);
  } else {
    char script[LFA_CONFORMANCE_PATH_MAX + 16];
    snprintf(script, sizeof script, "%s \"$@\"", r->a->adapter);
    execl("/bin/sh", "sh", "-c", script, "lfa-adapter", scenario, out, (char *)NULL);
  }
  fprintf(stderr, "lfa conformance: cannot start the adapter: %s\n", strerror(errno));
  _exit(127);
}

double conf_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* After the adapter ended, however: its whole process group killed (what
 * it left running in the background too) and, lfa being their subreaper,
 * reaped, for at most LFA_ADAPTER_REAP_MS; then its log closed. */
static void contain(pid_t pid, adapter_log *log) {
  kill(-pid, SIGKILL);
  double deadline = conf_now() + LFA_ADAPTER_REAP_MS / 1e3;
  for (pid_t got; (got = waitpid(-pid, NULL, WNOHANG)) >= 0 && conf_now() < deadline;)
    if (got == 0) nanosleep(&(struct timespec){0, 1000000}, NULL);
  adapter_log_close(log, (int)LFA_ADAPTER_REAP_MS);
}

/* Waits for the adapter, reading what it prints; after the timeout kills
 * it. Returns false on timeout. Its process group is contained either way. */
static bool wait_adapter(pid_t pid, unsigned timeout, int *status, adapter_log *log) {
  double deadline = conf_now() + timeout;
  int nap = 1; /* ms, doubling to 32 */
  bool in_time = true;
  for (;;) {
    pid_t got = waitpid(pid, status, WNOHANG);
    if (got == pid || (got < 0 && errno != EINTR)) break;
    if (conf_now() > deadline) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, status, 0);
      in_time = false;
      break;
    }
    if (!adapter_log_pump(log, nap)) nanosleep(&(struct timespec){0, nap * 1000000L}, NULL);
    if (nap < 32) nap *= 2;
  }
  contain(pid, log);
  return in_time;
}

/* The last line the adapter printed, for timeout and crash messages: its
 * bytes as they are (NUL ends it), escaped by each output's writer. */
static void last_line(char *out, size_t cap, const char *log) {
  lfa_buf bytes = {0};
  lfa_error err = {0};
  snprintf(out, cap, "(it printed nothing)");
  if (lfa_fs_read(&bytes, log, LFA_JSON_DOCUMENT_BYTES_MAX, &err) != LFA_OK) return;
  size_t end = bytes.len;
  while (end > 0 && (bytes.data[end - 1] == '\n' || bytes.data[end - 1] == '\r')) end--;
  size_t start = end;
  while (start > 0 && bytes.data[start - 1] != '\n') start--;
  size_t n = end - start < cap - 1 ? end - start : cap - 1;
  if (n > 0) memcpy(out, bytes.data + start, n), out[n] = '\0'; /* an empty log has no data at all */
  lfa_buf_free(&bytes);
}

/* A signal by its name: "SIGSEGV", or "signal 42" for one not listed. */
static const char *signal_name(char *buf, size_t cap, int sig) {
  static const struct { int sig; const char *name; } NAMES[] = {
      {SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},
      {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},   {SIGPIPE, "SIGPIPE"}, {SIGHUP, "SIGHUP"},
      {SIGQUIT, "SIGQUIT"}, {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"},   {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
      {SIGALRM, "SIGALRM"}, {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"},
  };
  for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
    if (NAMES[i].sig == sig) return NAMES[i].name;
  snprintf(buf, cap, "signal %d", sig);
  return buf;
}

/* What the adapter's exit status says, when it is not a normal finish.
 * /bin/sh reports a command a signal killed as status 128 + the signal:
 * that is named as the signal too. */
static bool abnormal_exit(lfa_conformance_case *c, int status, const case_paths *p, size_t max_steps) {
  char line[512], sig[32];
  if (WIFEXITED(status) && WEXITSTATUS(status) == ADAPTER_SKIPPED) {
    lfa_observations obs;
    lfa_error err = {0};
    c->verdict = LFA_VERDICT_SKIPPED;
    last_line(c->message, sizeof c->message, p->log);
    if (lfa_observations_load(&obs, p->obs, max_steps, &err) == LFA_OK) {
      if (obs.skipped != NULL) snprintf(c->message, sizeof c->message, "%s", obs.skipped);
      lfa_observations_free(&obs);
    }
    return true;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return false;
  last_line(line, sizeof line, p->log);
  c->verdict = LFA_VERDICT_CRASH;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (WIFSIGNALED(status))
    snprintf(c->message, sizeof c->message, "the adapter was killed by %s; its last line: %s",
             signal_name(sig, sizeof sig, WTERMSIG(status)), line);
  else if (code > 128 && code < 128 + 65)
    snprintf(c->message, sizeof c->message,
             "the adapter was killed by %s (exit status %d from /bin/sh: 128 + the signal); its last line: %s",
             signal_name(sig, sizeof sig, code - 128), code, line);
  else
    snprintf(c->message, sizeof c->message, "the adapter exited with status %d; its last line: %s", code, line);
  return true;
}

/* The scenario file, or the verdict "invalid": unusable input, not a
 * failure of the writer. */
static bool load_scenario(lfa_conformance_case *c, const case_paths *p) {
  lfa_error err = {0};
  if (lfa_scenario_load(&c->scenario, p->scenario, &err) != LFA_OK) {
    c->verdict = LFA_VERDICT_INVALID;
    snprintf(c->message, sizeof c->message, "not a valid scenario: %s", err.msg);
    return false;
  }
  c->has_scenario = true;
  if (strcmp(c->scenario.name, c->name) != 0) { /* names are unique because file names are */
    c->verdict = LFA_VERDICT_INVALID;
    snprintf(c->message, sizeof c->message, "not a valid scenario: it is named \"%.200s\", but its file is %.200s.json",
             c->scenario.name, c->name);
    return false;
  }
  return true;
}

static void run_adapter(suite_run *r, lfa_conformance_case *c, const case_paths *p, unsigned timeout) {
  char line[512];
  lfa_error err = {0};
  adapter_log log;
  fflush(NULL);
#ifdef PR_SET_CHILD_SUBREAPER
  prctl(PR_SET_CHILD_SUBREAPER, 1); /* what the adapter leaves behind is ours to reap */
#endif
  bool opened = mkdir(c->work_dir, 0777) == 0 && adapter_log_open(&log, p->log);
  pid_t pid = opened ? fork() : -1;
  if (pid == 0) exec_adapter(r, p->scenario, c->work_dir, &log);
  if (pid > 0) adapter_log_parent(&log);
  else if (opened) adapter_log_close(&log, 0);
  int status = 0;
  if (pid < 0) {
    c->verdict = LFA_VERDICT_CRASH;
    snprintf(c->message, sizeof c->message, "cannot start the adapter in %.1024s: %s", c->work_dir, strerror(errno));
  } else if (!wait_adapter(pid, timeout, &status, &log)) {
    last_line(line, sizeof line, p->log);
    c->verdict = LFA_VERDICT_TIMEOUT;
    snprintf(c->message, sizeof c->message, "the adapter ran past %u s%s and was killed; its last line: %s", timeout,
             timeout < r->a->timeout ? " (what the suite deadline left)" : "", line);
  } else if (!abnormal_exit(c, status, p, c->scenario.n_steps)) {
    /* unusable observations are a verdict; the verifier's findings still
     * come with it, since they may name the real fault */
    if (lfa_observations_load(&c->observations, p->obs, c->scenario.n_steps, &err) != LFA_OK) {
      c->verdict = LFA_VERDICT_FAIL;
      snprintf(c->message, sizeof c->message, "unusable observations: %s", err.msg);
    } else {
      c->has_observations = true;
    }
    lfa_conformance_judge_case(c, p->dataset);
  }
}

/* A passing scenario's folder goes with a temporary work directory; a
 * failing one's stays, as evidence. */
static void keep_or_remove(const suite_run *r, lfa_conformance_case *c, const case_paths *p) {
  bool evidence = conf_is_bad(c->verdict) || (conf_is_pass(c->verdict) && c->listed);
  c->kept = c->work_dir[0] != '\0' && lfa_fs_exists(c->work_dir) && (!r->temp_work || r->keep_all || evidence);
  if (c->kept || c->work_dir[0] == '\0') return;
  conf_remove_tree(c->work_dir), remove(p->log);
}

static void progress(const suite_run *r, const lfa_conformance_case *c) {
  size_t i = (size_t)(c - r->cases) + 1;
  fprintf(stderr, "[%zu/%zu] %s%s ", i, r->n_cases, lfa_conformance_verdict_name(c->verdict),
          c->listed && conf_is_bad(c->verdict) ? " (expected)" : "");
  lfa_put_text(stderr, c->name);
  fprintf(stderr, " %.2f s\n", c->seconds);
  fflush(stderr);
}

void conf_run_case(suite_run *r, lfa_conformance_case *c, unsigned timeout) {
  case_paths p;
  double start = conf_now();
  c->listed = conf_in_names(&r->listed, c->name);
  if (!make_paths(&p, r, c)) {
    c->verdict = LFA_VERDICT_INVALID, c->work_dir[0] = '\0';
    snprintf(c->message, sizeof c->message, "the paths of this scenario are longer than %d bytes",
             LFA_CONFORMANCE_PATH_MAX);
  } else if (load_scenario(c, &p)) {
    run_adapter(r, c, &p, timeout);
  } else {
    c->work_dir[0] = '\0'; /* nothing ran: no folder */
  }
  c->seconds = conf_now() - start;
  keep_or_remove(r, c, &p);
  progress(r, c);
}

/* ---- the run ------------------------------------------------------------------------------ */

bool conf_is_bad(lfa_conformance_verdict v) {
  return v == LFA_VERDICT_FAIL || v == LFA_VERDICT_CRASH || v == LFA_VERDICT_TIMEOUT;
}
bool conf_is_pass(lfa_conformance_verdict v) { return v == LFA_VERDICT_PASS || v == LFA_VERDICT_REFUSED_AS_EXPECTED; }

const char *conf_adapter_name(const suite_run *r) {
  return r->a->adapter ? r->a->adapter : "lfa adapter (the reference writer)";
}

tally conf_count(const suite_run *r) {
  tally t = {0};
  for (size_t i = 0; i < r->n_cases; i++) {
    const lfa_conformance_case *c = &r->cases[i];
    lfa_conformance_verdict v = c->verdict;
    if (c->listed && conf_is_bad(v)) t.expected++;
    else if (v == LFA_VERDICT_FAIL) t.failed++;
    else if (v == LFA_VERDICT_CRASH) t.crashed++;
    else if (v == LFA_VERDICT_TIMEOUT) t.timed_out++;
    else if (v == LFA_VERDICT_SKIPPED) t.skipped++;
    else if (v == LFA_VERDICT_INVALID) t.invalid++;
    else if (v == LFA_VERDICT_NOT_RUN) t.not_run++;
    if (conf_is_pass(v)) t.passed++, t.refused += v == LFA_VERDICT_REFUSED_AS_EXPECTED, t.stale += c->listed;
  }
  t.stale += r->unknown_listed;
  return t;
}

/* Why no further scenario starts, or NULL: the failures counted so far
 * (listed ones are known, and do not count) or the suite deadline. */
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
