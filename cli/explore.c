/* explore.c: `lfa explore`, every small history checked (harness/lfa/explore.h),
 * the reference model held to the independent oracle (lfa/oracle.h,
 * through lfa/explore_judge.h). A disagreement is printed as its
 * shrunk history and, with --scenario, written as a conformance scenario
 * (conformance/SCENARIOS.md) whose expectations are the oracle's. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "lfa/document.h"
#include "lfa/explore.h"
#include "lfa/explore_judge.h"
#include "lfa/fs.h"
#include "lfa/history.h"
#include "lfa/oracle_gen.h"
#include "lfa/scenario.h"

static const char HELP[] =
    "usage: lfa explore [--depth K] [--mode address|stable|both] [--concurrent]\n"
    "                   [--json] [--scenario FILE]\n"
    "\n"
    "Enumerates every history of at most K operations (after the create) over a\n"
    "tiny table, breadth first, and holds the reference model to the\n"
    "independent oracle on each: the same accept or refuse, and the same state of\n"
    "every tracked field on every live row. Each committed version is also\n"
    "written to memory and must verify with no error, read back the same, and\n"
    "give the same is_assigned. Equal states (compared in a canonical form)\n"
    "are explored once. The start: 1 row, or 3 rows in 1 or 2 fragments; field\n"
    "a tracked (assigned or unassigned, supplied or not), field b untracked.\n"
    "The moves: append, delete, update (both modes), merge_insert, add_columns,\n"
    "track, rename, cast, drop, compact, replace, overlay, restore, clone,\n"
    "overwrite, create_index, update_config, with every argument the spec\n"
    "distinguishes (harness/lfa/explore.h lists them). Heads are compared in a\n"
    "canonical form without names or key values; restores, the one move whose\n"
    "outcome depends on the path, are run for every earlier state a path passed.\n"
    "\n"
    "  --depth K      operations per history, 1 to 6 (default 2)\n"
    "  --mode M       address, stable (row ids) or both (default both)\n"
    "  --concurrent   also (K 2 or more), from every state at most K - 2 operations\n"
    "                 deep, every ordered pair of concurrent moves (the pair is\n"
    "                 two of the K operations: appends, deletes, updates\n"
    "                 with writes and invalidations, merge_insert, compaction,\n"
    "                 track), the second rebased onto the first: it must conflict\n"
    "                 or give the state of a serial order that keeps every write and\n"
    "                 invalidation; an update paired with itself is a replayed commit\n"
    "  --json         the report as one JSON document\n"
    "  --scenario F   on a disagreement, write its shrunk history to F as a\n"
    "                 conformance scenario (expectations: the oracle's)\n"
    "  --plant-oracle-bug\n"
    "                 test the explorer itself: the oracle's delete forgets the last\n"
    "                 of several rows, and the explorer must fail (exit 1)\n"
    "\n"
    "The report: histories enumerated (every history of 1..K operations,\n"
    "accepted at each step but maybe the last, counted through the state graph),\n"
    "transitions run, distinct states, versions verified, refusals by rule,\n"
    "concurrent pairs and their conflicts by rule, seconds.\n"
    "\n"
    "  lfa explore --depth 2\n"
    "  lfa explore --depth 3 --mode stable --concurrent --json\n"
    "\n"
    "Exit status: 0 no disagreement, 1 a disagreement (shown shrunk), 2 bad usage.\n";

typedef struct explore_args {
  uint64_t depth;
  const char *mode, *scenario;
  bool concurrent, json, plant;
} explore_args;

/* ---- the report ------------------------------------------------------------------------------ */

static void describe(char *out, size_t cap, const lfa_explore_move *m) {
  lfa_request q;
  lfa_explore_request_storage s;
  size_t len = 0;
  lfa_explore_request(&q, &s, m);
  out[0] = '\0';
  gen_describe(out, cap, &len, &q);
  if (len && out[len - 1] == '\n') out[--len] = '\0';
  if (m->read_version) snprintf(out + len, cap - len, " (built on version %" PRIu64 ")", m->read_version);
}

static void print_rules(FILE *f, const char *title, const lfa_explore_rule_count *r, size_t n) {
  fprintf(f, "%s:", title);
  for (size_t i = 0; i < n; i++) fprintf(f, " %s %" PRIu64, r[i].rule, r[i].count);
  fprintf(f, "%s\n", n ? "" : " none");
}

static void print_text(const explore_args *a, const lfa_explore_result *r) {
  printf("lfa explore: depth %" PRIu64 ", mode %s%s\n", a->depth, a->mode, a->concurrent ? ", concurrent" : "");
  for (unsigned d = 0; d <= a->depth; d++)
    printf("  depth %u: %" PRIu64 " runs, %" PRIu64 " committed, %" PRIu64 " new states, %" PRIu64 " histories\n", d,
           r->levels[d].runs, r->levels[d].accepted, r->levels[d].new_states, d ? r->levels[d].histories : 0);
  printf("histories: %" PRIu64 "\ndistinct states: %" PRIu64 " (and %" PRIu64 " later paths kept for their restores)\n"
         "versions verified: %" PRIu64 "\n",
         r->histories, r->distinct_states, r->paths_kept, r->verified);
  if (r->uncovered_restores)
    printf("restores not covered: %" PRIu64 " (two restores in one history, from depth 4: lfa/explore.h)\n",
           r->uncovered_restores);
  print_rules(stdout, "refusals by rule", r->refusals, r->n_refusals);
  if (a->concurrent) {
    printf("concurrent pairs: %" PRIu64 " (%" PRIu64 " committed both)\n", r->pairs, r->pairs_committed);
    print_rules(stdout, "concurrent refusals by rule", r->conflicts, r->n_conflicts);
  }
  printf("seconds: %.2f\n", r->seconds);
  if (!r->failed) {
    printf("disagreements: 0\n");
    return;
  }
  printf("DISAGREEMENT (%s, shrunk from %zu to %zu moves): %s\n", r->failed_concurrent ? "concurrent" : "serial",
         r->unshrunk_moves, r->n_moves, r->diff);
  for (size_t i = 0; i < r->n_moves; i++) {
    char line[1200];
    describe(line, sizeof line, &r->moves[i]);
    printf("  %zu.%s\n", i, line);
  }
}

static void json_rules(lfa_json_writer *w, const char *key, const lfa_explore_rule_count *r, size_t n) {
  lfa_json_open_object(w, key);
  for (size_t i = 0; i < n; i++) lfa_json_put_u64(w, r[i].rule, r[i].count);
  lfa_json_close_object(w);
}

static void print_json(const explore_args *a, const lfa_explore_result *r) {
  lfa_json_writer w = {.out = stdout};
  lfa_json_open_object(&w, NULL);
  lfa_json_put_u64(&w, "depth", a->depth);
  lfa_json_put_string(&w, "mode", a->mode);
  lfa_json_put_bool(&w, "concurrent", a->concurrent);
  lfa_json_put_u64(&w, "histories", r->histories);
  lfa_json_put_u64(&w, "distinct_states", r->distinct_states);
  lfa_json_put_u64(&w, "paths_kept", r->paths_kept);
  lfa_json_put_u64(&w, "uncovered_restores", r->uncovered_restores);
  lfa_json_put_u64(&w, "versions_verified", r->verified);
  lfa_json_open_array(&w, "levels");
  for (unsigned d = 0; d <= a->depth; d++) {
    lfa_json_open_object(&w, NULL);
    lfa_json_put_u64(&w, "depth", d);
    lfa_json_put_u64(&w, "runs", r->levels[d].runs);
    lfa_json_put_u64(&w, "committed", r->levels[d].accepted);
    lfa_json_put_u64(&w, "new_states", r->levels[d].new_states);
    lfa_json_put_u64(&w, "histories", d ? r->levels[d].histories : 0);
    lfa_json_close_object(&w);
  }
  lfa_json_close_array(&w);
  json_rules(&w, "refusals", r->refusals, r->n_refusals);
  lfa_json_put_u64(&w, "pairs", r->pairs);
  lfa_json_put_u64(&w, "pairs_committed", r->pairs_committed);
  json_rules(&w, "conflicts", r->conflicts, r->n_conflicts);
  lfa_json_put_u64(&w, "disagreements", r->failed);
  if (r->failed) {
    lfa_json_open_object(&w, "disagreement");
    lfa_json_put_string(&w, "difference", r->diff);
    lfa_json_put_bool(&w, "concurrent", r->failed_concurrent);
    lfa_json_put_u64(&w, "moves_found", r->unshrunk_moves);
    lfa_json_open_array(&w, "history");
    for (size_t i = 0; i < r->n_moves; i++) {
      char line[1200];
      describe(line, sizeof line, &r->moves[i]);
      lfa_json_put_string(&w, NULL, line + 2);
    }
    lfa_json_close_array(&w);
    lfa_json_put_string(&w, "scenario", a->scenario);
    lfa_json_close_object(&w);
  } else {
    lfa_json_put_null(&w, "disagreement");
  }
  lfa_json_put_u64(&w, "milliseconds", (uint64_t)(r->seconds * 1000.0));
  lfa_json_close_object(&w);
  lfa_json_finish(&w);
}

/* ---- the counterexample as a scenario ---------------------------------------------------------- */

static const char *assignment_name(lfa_assignment a) {
  return a == LFA_ASSIGNED ? "assigned" : a == LFA_UNASSIGNED ? "unassigned" : "untracked";
}

static void json_keys(lfa_json_writer *w, const char *key, lfa_keys k) {
  lfa_json_open_numbers(w, key);
  for (size_t i = 0; i < k.count; i++) lfa_json_number(w, k.keys[i]);
  lfa_json_close_array(w);
}

static void json_names(lfa_json_writer *w, const char *key, lfa_names_list l) {
  lfa_json_open_array(w, key);
  for (size_t i = 0; i < l.count; i++) lfa_json_put_string(w, NULL, l.names[i]);
  lfa_json_close_array(w);
}

static void json_new_fields(lfa_json_writer *w, const char *key, const lfa_request *q) {
  lfa_json_open_array(w, key);
  for (size_t i = 0; i < q->n_new_fields; i++) {
    lfa_json_open_object(w, NULL);
    lfa_json_put_string(w, "path", q->new_fields[i].path);
    lfa_json_put_string(w, "type", q->new_fields[i].type);
    lfa_json_put_bool(w, "nullable", q->new_fields[i].nullable);
    lfa_json_put_string(w, "assignment", assignment_name(q->new_fields[i].assignment));
    lfa_json_close_object(w);
  }
  lfa_json_close_array(w);
}

static void json_check(lfa_json_writer *w, const lfa_scenario_check *c) {
  lfa_json_open_object(w, "check");
  json_keys(w, "live", c->live);
  json_names(w, "tracked", c->tracked);
  lfa_json_open_object(w, "assigned");
  for (size_t i = 0; i < c->n_assigned; i++) json_keys(w, c->assigned[i].path, c->assigned[i].keys);
  lfa_json_close_object(w);
  lfa_json_close_object(w);
}

/* The step that committed version `v` of the explored history, named by
 * step as scenarios name versions (SCENARIOS.md); SIZE_MAX: none did. */
static size_t step_of(const size_t *committer, size_t n, uint64_t v) { return v < n ? committer[v] : SIZE_MAX; }

/* The request keys a step of `q->op` takes (conformance/SCENARIOS.md), those
 * not at their defaults; a restore's target named by the step that
 * committed it (`committer`, by version), by number when no step did. */
static void json_request(lfa_json_writer *w, const lfa_request *q, const size_t *committer, size_t n) {
  lfa_op op = q->op;
  bool rows = op == LFA_OP_APPEND || op == LFA_OP_UPDATE || op == LFA_OP_MERGE_INSERT || op == LFA_OP_DELETE ||
              op == LFA_OP_OVERLAY || op == LFA_OP_OVERWRITE;
  bool fields = op == LFA_OP_APPEND || op == LFA_OP_UPDATE || op == LFA_OP_MERGE_INSERT || op == LFA_OP_DROP ||
                op == LFA_OP_REPLACE || op == LFA_OP_OVERLAY || op == LFA_OP_OVERWRITE;
  lfa_json_put_string(w, "op", lfa_scenario_op_name(op));
  if (op == LFA_OP_ADD_COLUMNS || op == LFA_OP_OVERWRITE) json_new_fields(w, "new_fields", q);
  if (rows && q->rows.count) json_keys(w, "rows", q->rows);
  if (op == LFA_OP_MERGE_INSERT && q->inserts.count) json_keys(w, "inserts", q->inserts);
  if (fields && q->fields.count) json_names(w, "fields", q->fields);
  if ((op == LFA_OP_UPDATE || op == LFA_OP_MERGE_INSERT) && q->invalidate.count) json_names(w, "invalidate", q->invalidate);
  if (op == LFA_OP_UPDATE && q->rewrite_columns) lfa_json_put_bool(w, "rewrite_columns", true);
  if (op == LFA_OP_MERGE_INSERT && q->delete_matched) lfa_json_put_bool(w, "delete_matched", true);
  if (op == LFA_OP_ADD_COLUMNS && q->with_data) lfa_json_put_bool(w, "with_data", true);
  if ((op == LFA_OP_APPEND || op == LFA_OP_COMPACT || op == LFA_OP_OVERWRITE) && q->rows_per_file)
    lfa_json_put_u64(w, "rows_per_file", q->rows_per_file);
  if (op == LFA_OP_TRACK || op == LFA_OP_RENAME || op == LFA_OP_CAST) lfa_json_put_string(w, "field", q->field);
  if (op == LFA_OP_TRACK) lfa_json_put_string(w, "assignment", assignment_name(q->assignment));
  if (op == LFA_OP_RENAME) lfa_json_put_string(w, "new_name", q->new_name);
  if (op == LFA_OP_CAST) lfa_json_put_string(w, "new_type", q->new_type);
  if (op == LFA_OP_REPLACE || op == LFA_OP_OVERLAY) lfa_json_put_u64(w, "fragment_id", q->fragment_id);
  size_t to = op == LFA_OP_RESTORE ? step_of(committer, n, q->version) : SIZE_MAX;
  if (op == LFA_OP_RESTORE && to != SIZE_MAX) lfa_json_put_u64(w, "to_step", to);
  else if (op == LFA_OP_RESTORE) lfa_json_put_u64(w, "version", q->version);
  if (op == LFA_OP_CLONE && q->deep) lfa_json_put_bool(w, "deep", true);
}

/* What the oracle expects of one step: its answer, and its state after. */
static void json_expectation(lfa_json_writer *w, const or_prediction *p, bool conflict_ok, const lfa_scenario_check *c) {
  if (p->refuse) {
    lfa_json_put_string(w, "expect", conflict_ok ? "conflict" : "refused");
    if (p->rule && !conflict_ok) lfa_json_put_string(w, "expect_rule", p->rule);
  }
  json_check(w, c);
}

/* Writes the setup and steps of `r`'s history: each step's expectation is
 * the oracle's, replayed beside the model (which gives fragment ids and
 * the structure replace and overlay need). For a concurrent pair the
 * second step's expectation is the serial order first;second when the
 * oracle accepts both, else a conflict. */
static bool write_steps(lfa_json_writer *w, const lfa_explore_result *r, lfa_arena *arena, ej_context ctx) {
  lfa_history h;
  ej_instance *j = ej_open(&ctx);
  lfa_error err = {0};
  bool ok = j && lfa_history_open(&h, NULL, 0, &err) == LFA_OK;
  size_t n_versions = r->n_moves + 2, *committer = lfa_arena_array(arena, n_versions, sizeof *committer);
  for (size_t v = 0; committer != NULL && v < n_versions; v++) committer[v] = SIZE_MAX;
  ok = ok && committer != NULL;
  for (size_t i = 0; ok && i < r->n_moves; i++) {
    const lfa_explore_move *m = &r->moves[i];
    lfa_request q;
    lfa_explore_request_storage s;
    lfa_explore_request(&q, &s, m);
    or_state next;
    or_prediction p;
    ej_predict(&ctx, j, &q, lfa_history_head(&h), &next, &p);
    if (!p.refuse) or_commit(&j->o, &next);
    else or_state_free(&next);
    lfa_scenario_check c;
    ok = ej_observe(&c, arena, j);
    if (i == 0) {
      lfa_json_open_object(w, "setup");
      lfa_json_put_bool(w, "stable_row_ids", q.stable_row_ids);
      json_new_fields(w, "fields", &q);
      json_keys(w, "rows", q.rows);
      json_names(w, "supplied", q.fields);
      lfa_json_put_u64(w, "rows_per_fragment", q.rows_per_file);
      if (ok) json_check(w, &c);
      lfa_json_close_object(w);
      lfa_json_open_array(w, "steps");
    } else {
      lfa_json_open_object(w, NULL);
      json_request(w, &q, committer, n_versions);
      if (m->read_version) lfa_json_put_u64(w, "read_step", step_of(committer, n_versions, m->read_version));
      if (ok) json_expectation(w, &p, m->read_version != 0, &c);
      lfa_json_close_object(w);
    }
    size_t before = h.count;
    if (m->read_version == 0) (void)lfa_history_apply(&h, &q, 0, &err); /* for the next step's structure */
    if (h.count > before && h.count < n_versions) committer[h.count] = i;
  }
  lfa_json_close_array(w);
  if (j) lfa_history_close(&h), ej_close(&ctx, j);
  return ok;
}

static bool write_scenario(const char *path, const lfa_explore_result *r, ej_context ctx) {
  lfa_fs_out out; /* [FA-STORE-8] created fresh beside it, then renamed: a planted link is not written through */
  if (lfa_fs_out_open(&out, path, NULL) != LFA_OK) return false;
  lfa_json_writer w = {.out = out.f};
  lfa_arena arena = {0};
  char req[32] = "FA-SEM-1";
  lfa_json_open_object(&w, NULL);
  lfa_json_put_string(&w, "name", "explore_counterexample");
  char description[LFA_EXPLORE_DIFF_MAX + 400];
  snprintf(description, sizeof description,
           "Found by lfa explore and shrunk to %zu moves: the reference model and the independent oracle "
           "disagree: %s. Every expectation is the oracle's (testkit/oracle.c, written from the spec): decide by "
           "hand from spec/ which side is right, write the derivation here, rename the scenario, then add it to "
           "conformance/scenarios/.",
           r->n_moves, r->diff);
  lfa_json_put_string(&w, "description", description);
  lfa_json_open_array(&w, "requirements");
  lfa_json_put_string(&w, NULL, r->failed_concurrent ? "FA-CONC-1" : req);
  lfa_json_close_array(&w);
  bool ok = write_steps(&w, r, &arena, ctx);
  lfa_json_close_object(&w);
  lfa_json_finish(&w);
  lfa_arena_free(&arena);
  if (!ok) return lfa_fs_out_abandon(&out), false;
  return lfa_fs_out_commit(&out, NULL) == LFA_OK;
}

/* ---- command ------------------------------------------------------------------------------------- */

static int parse(explore_args *a, int argc, char **argv) {
  const lfa_cli_option opts[] = {
      {"--depth", LFA_CLI_U64, &a->depth, NULL, 1, 1, LFA_EXPLORE_DEPTH_MAX},
      {"--mode", LFA_CLI_TEXT, &a->mode, NULL, 1, 0, 0},
      {"--concurrent", LFA_CLI_FLAG, &a->concurrent, NULL, 1, 0, 0},
      {"--json", LFA_CLI_FLAG, &a->json, NULL, 1, 0, 0},
      {"--scenario", LFA_CLI_TEXT, &a->scenario, NULL, 1, 0, 0},
      {"--plant-oracle-bug", LFA_CLI_FLAG, &a->plant, NULL, 1, 0, 0},
  };
  int rc = lfa_cli_parse("explore", HELP, opts, sizeof opts / sizeof opts[0], NULL, 0, argc, argv);
  if (rc != 1) return rc;
  if (strcmp(a->mode, "address") != 0 && strcmp(a->mode, "stable") != 0 && strcmp(a->mode, "both") != 0) {
    fprintf(stderr, "lfa explore: --mode is address, stable or both, got '%s' (see lfa explore --help)\n", a->mode);
    return 0;
  }
  return 1;
}

int lfa_cli_explore(int argc, char **argv) {
  explore_args a = {.depth = 2, .mode = "both"};
  int rc = parse(&a, argc, argv);
  if (rc != 1) return rc < 0 ? LFA_EXIT_OK : LFA_EXIT_UNUSABLE;
  ej_context ctx = {a.plant ? ej_forget_last_deleted_row : NULL};
  lfa_explore_judge judge = ej_judge(&ctx);
  lfa_explore_options o = {.depth = (unsigned)a.depth,
                           .address = strcmp(a.mode, "stable") != 0,
                           .stable = strcmp(a.mode, "address") != 0,
                           .concurrent = a.concurrent,
                           .disk = true,
                           .judge = &judge};
  lfa_explore_result *r = calloc(1, sizeof *r);
  lfa_error err = {0};
  if (r == NULL) return lfa_cli_fail("explore", "memory", "out of memory"), LFA_EXIT_UNUSABLE;
  if (lfa_explore(r, &o, &err) != LFA_OK) {
    lfa_cli_fail("explore", "exploration", err.msg);
    free(r);
    return LFA_EXIT_UNUSABLE;
  }
  if (r->failed && a.scenario && !write_scenario(a.scenario, r, ctx)) lfa_cli_fail("explore", a.scenario, "cannot write the scenario");
  if (a.json) print_json(&a, r);
  else print_text(&a, r);
  int exit = r->failed ? LFA_EXIT_FINDINGS : LFA_EXIT_OK;
  free(r);
  return exit;
}
