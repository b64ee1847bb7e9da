/* conformance_run.c: one scenario of `lfa conformance` run
 * (conformance_run.h): the adapter started in its own process group with
 * the scenario and an empty directory, bounded by its timeout and
 * contained after, its observations judged step by step
 * (lfa_conformance_judge) and the dataset it left verified; then the
 * verdicts the reports and the self-test read. */
#define _XOPEN_SOURCE 700 /* nftw, kill, setpgid */
#include <errno.h>
#include <ftw.h>
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
#include "conformance_run.h"
#include "lfa/conformance.h"
#include "lfa/escape.h"
#include "lfa/fs.h"
#include "lfa/limits.h"

enum { ADAPTER_SKIPPED = 77 }; /* the adapter's exit status for "skipped" (conformance/README.md) */

bool conf_in_names(const lfa_names *names, const char *name) {
  for (size_t i = 0; i < names->count; i++)
    if (strcmp(names->names[i], name) == 0) return true;
  return false;
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

/* ---- verdicts ------------------------------------------------------------------------------- */

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
