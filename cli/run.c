/* run.c: `lfa run`, a scenario file executed on the reference writer
 * (harness/scenario.c; the format is conformance/SCENARIOS.md).
 *
 * Every step is applied to a history that writes OUT_DIR as it commits,
 * and what happened is compared with what the scenario expects; the first
 * difference ends the run. The per-step log is printed only once the run
 * is over, so unusable input (exit 2) leaves nothing on stdout, like
 * `lfa dump` and `lfa eval`. The JSON shape is documented in
 * docs/commands/run.md and only grows: keys are never renamed or removed. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "lfa/document.h"
#include "lfa/fs.h"
#include "lfa/history.h"
#include "lfa/scenario.h"

static const char HELP[] =
    "usage: lfa run SCENARIO.json OUT_DIR [--seed N] [--json]\n"
    "\n"
    "Executes a scenario on the reference writer and writes the dataset to\n"
    "OUT_DIR (which must not exist), one version per committed step. A scenario\n"
    "is a JSON file: a setup (the create request), then steps, each one mutation\n"
    "with what must happen and, optionally, the state after it:\n"
    "\n"
    "  {\"name\": \"append_omitted_field\", \"description\": \"why, derived by hand\",\n"
    "   \"requirements\": [\"FA-APPEND-1\"],\n"
    "   \"setup\": {\"stable_row_ids\": false, \"rows\": [1, 2],\n"
    "             \"fields\": [{\"path\": \"id\", \"type\": \"int64\", \"nullable\": false},\n"
    "                        {\"path\": \"emb\", \"type\": \"binary\",\n"
    "                         \"assignment\": \"unassigned\"}]},\n"
    "   \"steps\": [\n"
    "     {\"op\": \"append\", \"rows\": [3], \"fields\": [\"id\"],\n"
    "      \"check\": {\"live\": [1, 2, 3], \"assigned\": {\"emb\": []}}},\n"
    "     {\"op\": \"update\", \"rows\": [3], \"fields\": [\"emb\"], \"invalidate\": [\"emb\"],\n"
    "      \"expect\": \"refused\", \"expect_rule\": \"FA-SEM-5\"}]}\n"
    "\n"
    "Rows are named by logical keys given when they are inserted; fields by path\n"
    "(\"payload.value\"). Operations: append add_columns track rename cast\n"
    "set_nullable drop update merge_insert delete compact replace overlay restore\n"
    "overwrite clone create_index update_config; their keys are named like the\n"
    "fields of lfa_request (ref/mutate/lfa/mutate.h); restore names its version\n"
    "by the step that committed it (\"to_step\"). A step may add \"read_step\"\n"
    "(build against the version an earlier step committed; 0 is the setup),\n"
    "\"expect\" (\"ok\", \"refused\" or \"conflict\"; default ok), \"expect_rule\",\n"
    "\"check\" ({\"live\", \"tracked\", \"assigned\"}, each optional) and \"note\".\n"
    "Unknown keys are errors. The whole format: conformance/SCENARIOS.md.\n"
    "\n"
    "A check is judged on the bytes: the version the step left is read back from\n"
    "OUT_DIR with lfa's reader and compared with the check (\"on disk: ...\"),\n"
    "then the writer's own head with those bytes (\"the writer's reader\n"
    "disagrees with what it wrote: ...\").\n"
    "\n"
    "Steps are numbered from 1 in file order (the setup is step 0) and named\n"
    "with their line: \"step 3 (update, line 41)\".\n"
    "\n"
    "  --seed N   object names drawn from N (default 0): same seed, same bytes\n"
    "  --json     one JSON document: {\"scenario\", \"name\", \"out_dir\", \"passed\",\n"
    "             \"versions\", \"steps\", \"failure\"} (shape in\n"
    "             docs/commands/run.md); for\n"
    "             unusable input {\"scenario\", \"verdict\": \"invalid\", \"error\"}\n"
    "\n"
    "Exit status: 0 every step behaved as expected; 1 a step did not (one line on\n"
    "stderr names it and what differed; the versions before it stay in OUT_DIR);\n"
    "2 unusable input (bad usage, OUT_DIR exists, the file is not a valid scenario,\n"
    "with its line and column, or its \"name\" is not its file name) or a failure\n"
    "to write.\n";

typedef struct run_args {
  const char *scenario;
  const char *out_dir;
  uint64_t seed;
  bool json;
} run_args;

static int usage_error(const char *what, const char *arg) {
  char shown[LFA_CLI_SHOWN_BYTES];
  fprintf(stderr, "lfa run: %s%s%s%s\n(see lfa run --help)\n", what, arg ? " '" : "",
          arg ? lfa_cli_shown(shown, sizeof shown, arg) : "", arg ? "'" : "");
  return LFA_EXIT_UNUSABLE;
}

/* LFA_EXIT_OK when the arguments are usable; -1 after --help. */
static int parse_args(run_args *a, int argc, char **argv) {
  memset(a, 0, sizeof *a);
  const char *pos[2];
  const lfa_cli_option opts[] = {
      {"--json", LFA_CLI_FLAG, &a->json, NULL, 1, 0, 0},
      {"--seed", LFA_CLI_U64, &a->seed, NULL, 1, 0, 0},
  };
  int r = lfa_cli_parse("run", HELP, opts, sizeof opts / sizeof opts[0], pos, 2, argc, argv);
  if (r <= 0) return r < 0 ? -1 : LFA_EXIT_UNUSABLE;
  a->scenario = pos[0], a->out_dir = pos[1];
  if (a->scenario == NULL) return usage_error("missing SCENARIO.json", NULL);
  if (a->out_dir == NULL) return usage_error("missing OUT_DIR", NULL);
  return LFA_EXIT_OK;
}

/* ---- output ----------------------------------------------------------------- */

static void print_step(const lfa_scenario *s, size_t i, const lfa_scenario_result *r) {
  char label[128];
  lfa_scenario_step_label(label, sizeof label, s, i);
  if (!r->passed) {
    printf("%s: FAILED: %s\n", label, r->failure);
  } else if (r->outcome == LFA_SCENARIO_OK) {
    printf("%s: ok, version %" PRIu64 "%s\n", label, r->head, r->checked ? "; check held" : "");
  } else {
    printf("%s: %s as expected%s%s%s: %s%s\n", label, lfa_scenario_outcome_name(r->outcome), r->rule ? " [" : "",
           r->rule ? r->rule : "", r->rule ? "]" : "", r->reason, r->checked ? "; check held" : "");
  }
}

static void print_text(const run_args *a, const lfa_scenario *s, const lfa_scenario_report *rep, uint64_t versions) {
  printf("scenario %s: %s, %zu steps after the setup\n", s->name, a->scenario, s->n_steps - 1);
  for (size_t i = 0; i < rep->n_results; i++) print_step(s, i, &rep->results[i]);
  if (rep->passed) printf("passed: every step behaved as expected; %" PRIu64 " versions in %s\n", versions, a->out_dir);
  else printf("failed: %" PRIu64 " versions in %s\n", versions, a->out_dir);
}

static void json_step(lfa_json_writer *w, const lfa_scenario *s, size_t i, const lfa_scenario_result *r) {
  const lfa_scenario_step *step = &s->steps[i];
  lfa_json_open_object(w, NULL);
  lfa_json_put_u64(w, "step", i);
  lfa_json_put_string(w, "op", lfa_scenario_op_name(step->request.op));
  lfa_json_put_u64(w, "line", step->line);
  lfa_json_put_string(w, "expect", lfa_scenario_outcome_name(step->expect));
  lfa_json_put_string(w, "expect_rule", step->expect_rule);
  lfa_json_put_string(w, "outcome", lfa_scenario_outcome_name(r->outcome));
  lfa_json_put_string(w, "rule", r->rule);
  lfa_json_put_string(w, "reason", r->outcome == LFA_SCENARIO_OK ? NULL : r->reason);
  lfa_json_put_u64(w, "head", r->head);
  lfa_json_put_string(w, "check", !step->has_check ? NULL : r->checked ? (r->passed ? "held" : "failed") : "not run");
  lfa_json_put_bool(w, "passed", r->passed);
  lfa_json_put_string(w, "failure", r->passed ? NULL : r->failure);
  lfa_json_close_object(w);
}

static void print_json(const run_args *a, const lfa_scenario *s, const lfa_scenario_report *rep, uint64_t versions) {
  lfa_json_writer w = {.out = stdout};
  lfa_json_open_object(&w, NULL);
  lfa_json_put_string(&w, "scenario", a->scenario);
  lfa_json_put_string(&w, "name", s->name);
  lfa_json_put_string(&w, "out_dir", a->out_dir);
  lfa_json_put_bool(&w, "passed", rep->passed);
  lfa_json_put_u64(&w, "versions", versions);
  lfa_json_open_array(&w, "steps");
  for (size_t i = 0; i < rep->n_results; i++) json_step(&w, s, i, &rep->results[i]);
  lfa_json_close_array(&w);
  if (rep->passed) {
    lfa_json_put_null(&w, "failure");
  } else {
    size_t f = rep->n_results - 1;
    char label[128];
    lfa_scenario_step_label(label, sizeof label, s, f);
    lfa_json_open_object(&w, "failure");
    lfa_json_put_u64(&w, "step", f);
    lfa_json_put_string(&w, "label", label);
    lfa_json_put_string(&w, "message", rep->results[f].failure);
    lfa_json_close_object(&w);
  }
  lfa_json_close_object(&w);
  lfa_json_finish(&w);
}

/* With --json, unusable input is a document too: {"scenario", "verdict":
 * "invalid", "error"} (the error object of every lfa JSON output). */
static void print_json_invalid(const run_args *a, const lfa_error *err) {
  lfa_json_writer w = {.out = stdout};
  lfa_json_open_object(&w, NULL);
  lfa_json_put_string(&w, "scenario", a->scenario);
  lfa_json_put_string(&w, "verdict", "invalid");
  lfa_json_put_error(&w, "error", err);
  lfa_json_close_object(&w);
  lfa_json_finish(&w);
}

/* A scenario is named after its file, as the suite requires of every
 * scenario (conformance/SCENARIOS.md): "x/append.json" must be "append". */
static lfa_status name_matches_file(const lfa_scenario *s, const char *path, lfa_error *err) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  bool json = n > 5 && strcmp(base + n - 5, ".json") == 0;
  if (json && strlen(s->name) == n - 5 && strncmp(s->name, base, n - 5) == 0) return LFA_OK;
  return lfa_fail(err, LFA_ERR_FORMAT, NULL, "the scenario is named \"%.200s\", but its file is %.200s%s", s->name,
                  base, json ? "" : " (a scenario file is NAME.json)");
}

static lfa_status load_scenario(lfa_scenario *s, const char *path, lfa_error *err) {
  lfa_status st = lfa_scenario_load(s, path, err);
  if (st == LFA_OK && (st = name_matches_file(s, path, err)) != LFA_OK) lfa_scenario_free(s);
  return st;
}

/* ---- command ------------------------------------------------------------------- */

int lfa_cli_run(int argc, char **argv) {
  run_args a;
  int rc = parse_args(&a, argc, argv);
  if (rc != LFA_EXIT_OK) return rc < 0 ? LFA_EXIT_OK : rc;
  if (lfa_fs_exists(a.out_dir)) {
    lfa_cli_fail("run", a.out_dir, "already exists; objects are never overwritten");
    return LFA_EXIT_UNUSABLE;
  }
  lfa_error err = {0};
  lfa_scenario s;
  lfa_history h;
  lfa_scenario_report rep = {0};
  lfa_status st = load_scenario(&s, a.scenario, &err);
  if (st != LFA_OK) {
    if (a.json) print_json_invalid(&a, &err);
    lfa_cli_fail_error("run", "scenario", &err);
    return LFA_EXIT_UNUSABLE;
  }
  st = lfa_history_open(&h, a.out_dir, a.seed, &err);
  if (st == LFA_OK) {
    st = lfa_scenario_run(&rep, &h, &s, &err);
    uint64_t versions = h.count;
    if (st == LFA_OK && a.json) print_json(&a, &s, &rep, versions);
    else if (st == LFA_OK) print_text(&a, &s, &rep, versions);
    lfa_history_close(&h);
  }
  if (st != LFA_OK) {
    lfa_cli_fail_error("run", a.scenario, &err);
    rc = LFA_EXIT_UNUSABLE;
  } else if (!rep.passed) {
    char label[128];
    lfa_scenario_step_label(label, sizeof label, &s, rep.n_results - 1);
    char subject[LFA_CLI_SHOWN_BYTES + 160];
    char shown[LFA_CLI_SHOWN_BYTES];
    snprintf(subject, sizeof subject, "%s: %s", lfa_cli_shown(shown, sizeof shown, s.name), label);
    lfa_cli_fail("run", subject, rep.results[rep.n_results - 1].failure);
    rc = LFA_EXIT_FINDINGS;
  }
  lfa_scenario_report_free(&rep);
  lfa_scenario_free(&s);
  return rc;
}
