/* adapter.c: `lfa adapter`, the reference writer behind the conformance
 * protocol (lfa/conformance.h, conformance/README.md). `lfa conformance`
 * runs it when no other adapter is given, so the reference writer is
 * judged exactly as a writer under test is: through its observations file,
 * with every observation read back from the dataset on disk.
 *
 * It executes every step, whatever the scenario expects (judging is the
 * runner's job), and observes after each step that carries a check, or
 * after every step with --observe-all. Each step also reports its key map
 * ("rows": the key of every physical row of each fragment), so the
 * runner can name the rows of a verifier finding by key. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "lfa/document.h"
#include "lfa/conformance.h"
#include "lfa/fs.h"
#include "lfa/history.h"
#include "lfa/scenario.h"

static const char HELP[] =
    "usage: lfa adapter [--observe-all] SCENARIO.json OUT_DIR\n"
    "\n"
    "The reference writer as a conformance adapter (conformance/README.md,\n"
    "\"Adapter protocol\"); `lfa conformance` runs it when no --adapter is given.\n"
    "It executes the scenario's setup and every step with lfa's writer, writes\n"
    "the dataset to OUT_DIR/dataset, and writes OUT_DIR/observations.json: each\n"
    "step's outcome (ok, refused, conflict, with the rule lfa names) and, after\n"
    "every step with a check, the live rows, tracked fields and is_assigned as\n"
    "read back from the dataset on disk. Expectations are not compared here.\n"
    "Each step also gives its key map (\"rows\": the key of each physical row\n"
    "of every fragment), with which the runner names the rows of verifier\n"
    "findings by key.\n"
    "\n"
    "  --observe-all   observe after every step, not only after those with a\n"
    "                  check: the observations then show the state at each\n"
    "                  version (an adapter wrapping this one can compare them)\n"
    "\n"
    "OUT_DIR must exist and be empty.\n"
    "\n"
    "Exit status: 0 the observations were written; 2 unusable input (bad usage,\n"
    "not a valid scenario, OUT_DIR not empty) or a failure to write or read back.\n";

static void put_keys(lfa_json_writer *w, const char *key, const lfa_keys *keys) {
  lfa_json_open_array(w, key);
  for (size_t i = 0; i < keys->count; i++) lfa_json_put_u64(w, NULL, keys->keys[i]);
  lfa_json_close_array(w);
}

static void put_observed(lfa_json_writer *w, const lfa_scenario_check *c) {
  lfa_json_open_object(w, "observed");
  put_keys(w, "live", &c->live);
  lfa_json_open_array(w, "tracked");
  for (size_t i = 0; i < c->tracked.count; i++) lfa_json_put_string(w, NULL, c->tracked.names[i]);
  lfa_json_close_array(w);
  lfa_json_open_object(w, "assigned");
  for (size_t i = 0; i < c->n_assigned; i++) put_keys(w, c->assigned[i].path, &c->assigned[i].keys);
  lfa_json_close_object(w);
  lfa_json_close_object(w);
}

/* The head's key map: for each fragment, the key of each physical row. */
static void put_key_map(lfa_json_writer *w, const lfa_table *head) {
  lfa_json_open_array(w, "rows");
  for (size_t i = 0; i < head->n_fragments; i++) {
    const lfa_fragment *f = &head->fragments[i];
    lfa_json_open_object(w, NULL);
    lfa_json_put_u64(w, "fragment", f->id);
    lfa_json_open_numbers(w, "keys");
    for (uint64_t o = 0; f->keys != NULL && o < f->physical_rows; o++) lfa_json_number(w, f->keys[o]);
    lfa_json_close_array(w);
    lfa_json_close_object(w);
  }
  lfa_json_close_array(w);
}

/* Applies step i and records it; observes from disk when it has a check
 * (every step with `observe_all`). */
static lfa_status run_step(lfa_json_writer *w, lfa_history *h, const lfa_scenario *s, size_t i, const uint64_t *left,
                           const char *dataset, bool observe_all, lfa_error *err) {
  const lfa_scenario_step *step = &s->steps[i];
  lfa_error e = {0};
  lfa_request req;
  uint64_t read_version;
  lfa_scenario_resolve(&req, &read_version, s, i, left); /* steps named by step, as versions of this writer */
  lfa_status st = lfa_history_apply(h, &req, read_version, &e);
  const char *outcome = st == LFA_OK                                  ? "ok"
                        : st == LFA_ERR_USAGE || st == LFA_ERR_RULE ? "refused"
                        : st == LFA_ERR_CONFLICT                     ? "conflict"
                                                                     : NULL;
  if (outcome == NULL) return *err = e, lfa_error_prefix(err, "step %zu", i), st;
  lfa_json_open_object(w, NULL);
  lfa_json_put_u64(w, "step", i);
  lfa_json_put_string(w, "outcome", outcome);
  if (h->count > 0) lfa_json_put_u64(w, "version", h->count);
  lfa_json_put_string(w, "rule", st == LFA_OK ? NULL : e.rule);
  lfa_json_put_string(w, "message", st == LFA_OK ? NULL : e.msg);
  st = LFA_OK;
  if (h->count > 0) put_key_map(w, lfa_history_head(h));
  if ((step->has_check || observe_all) && h->count > 0) {
    lfa_arena arena = {0};
    lfa_scenario_check got;
    lfa_scenario_fragment_keys *map;
    size_t n = 0;
    st = lfa_scenario_key_map(&map, &n, &arena, lfa_history_head(h), err);
    if (st == LFA_OK) st = lfa_scenario_observe_disk(&got, &arena, NULL, dataset, h->count, map, n, err);
    if (st == LFA_OK) put_observed(w, &got);
    else lfa_error_prefix(err, "step %zu", i);
    lfa_arena_free(&arena);
  }
  lfa_json_close_object(w);
  return st;
}

static lfa_status run_all(FILE *out, const lfa_scenario *s, const char *dataset, bool observe_all, lfa_error *err) {
  lfa_history h;
  lfa_json_writer w = {.out = out};
  lfa_status st = lfa_history_open(&h, dataset, 0, err);
  if (st != LFA_OK) return st;
  lfa_json_open_object(&w, NULL);
  lfa_json_put_string(&w, "adapter", "lfa reference writer");
  lfa_json_open_array(&w, "steps");
  uint64_t *left = calloc(s->n_steps + 1, sizeof *left); /* the head after each step */
  if (left == NULL) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; st == LFA_OK && i < s->n_steps; i++) {
    st = run_step(&w, &h, s, i, left, dataset, observe_all, err);
    left[i] = h.count;
  }
  free(left);
  lfa_json_close_array(&w);
  lfa_json_close_object(&w);
  lfa_json_finish(&w);
  lfa_history_close(&h);
  return st;
}

int lfa_cli_adapter(int argc, char **argv) {
  bool observe_all = false;
  const char *pos[2];
  const lfa_cli_option opts[] = {{"--observe-all", LFA_CLI_FLAG, &observe_all, NULL, 1, 0, 0}};
  int r = lfa_cli_parse("adapter", HELP, opts, 1, pos, 2, argc, argv);
  if (r <= 0) return r < 0 ? LFA_EXIT_OK : LFA_EXIT_UNUSABLE;
  if (pos[0] == NULL || pos[1] == NULL) {
    fprintf(stderr, "lfa adapter: expected SCENARIO.json OUT_DIR\n(see lfa adapter --help)\n");
    return LFA_EXIT_UNUSABLE;
  }
  const char *scenario = pos[0], *out_dir = pos[1];
  lfa_error err = {0};
  lfa_names names = {0};
  lfa_scenario s;
  char dataset[4096], obs_path[4096];
  lfa_status st = lfa_fs_list(&names, out_dir, 0, &err);
  if (st == LFA_OK && names.count != 0) st = lfa_fail(&err, LFA_ERR_USAGE, NULL, "%s is not empty", out_dir);
  lfa_fs_names_free(&names);
  if (st == LFA_OK) st = lfa_fs_join(dataset, sizeof dataset, out_dir, "dataset", &err);
  if (st == LFA_OK) st = lfa_fs_join(obs_path, sizeof obs_path, out_dir, "observations.json", &err);
  if (st == LFA_OK) st = lfa_scenario_load(&s, scenario, &err);
  if (st != LFA_OK) return lfa_cli_fail_error("adapter", scenario, &err), LFA_EXIT_UNUSABLE;
  FILE *out = fopen(obs_path, "wx");
  if (out == NULL) st = lfa_fail(&err, LFA_ERR_IO, NULL, "%s: %s", obs_path, strerror(errno));
  if (st == LFA_OK) st = run_all(out, &s, dataset, observe_all, &err);
  if (out != NULL && fclose(out) != 0 && st == LFA_OK)
    st = lfa_fail(&err, LFA_ERR_IO, NULL, "%s: %s", obs_path, strerror(errno));
  lfa_scenario_free(&s);
  if (st != LFA_OK) return lfa_cli_fail_error("adapter", scenario, &err), LFA_EXIT_UNUSABLE;
  return LFA_EXIT_OK;
}
