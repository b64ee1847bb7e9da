/* conformance.c: observations, judging them, and observing from disk
 * (lfa/conformance.h; the protocol is conformance/README.md). */
#include "lfa/conformance.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/dataset.h"
#include "lfa/snapshot_model.h"
#include "lfa/fs.h"
#include "lfa/json.h"
#include "lfa/limits.h"

/* ---- reading observations ------------------------------------------------------------- */

static lfa_status nomem(lfa_error *err) { return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory"); }

/* Every key of `obj` is one of `known`: a typo never passes silently. */
static lfa_status only_keys(const lfa_json *obj, const char *what, const char *const *known, size_t n,
                            lfa_error *err) {
  for (size_t i = 0; i < obj->count; i++) {
    bool ok = false;
    for (size_t k = 0; k < n && !ok; k++) ok = strcmp(obj->members[i].key, known[k]) == 0;
    if (!ok)
      return lfa_json_fail(err, LFA_ERR_FORMAT, &obj->members[i].value, "%s: unknown key \"%.64s\"", what,
                           obj->members[i].key);
  }
  return LFA_OK;
}

/* A string copied into the arena; NULL stays NULL when `null_ok`. */
static lfa_status copy_text(const char **out, lfa_arena *arena, const lfa_json *v, const char *what, bool null_ok,
                            lfa_error *err) {
  const char *s;
  *out = NULL;
  if (v == NULL || (null_ok && v->kind == LFA_JSON_NULL)) return LFA_OK;
  lfa_status st = lfa_json_string(&s, v, what, err);
  if (st == LFA_OK && (*out = lfa_arena_strdup(arena, s)) == NULL) st = nomem(err);
  return st;
}

static lfa_status outcome_of(lfa_scenario_outcome *out, const lfa_json *v, const char *what, lfa_error *err) {
  static const lfa_scenario_outcome ALL[] = {LFA_SCENARIO_OK, LFA_SCENARIO_REFUSED, LFA_SCENARIO_CONFLICT};
  const char *s;
  lfa_status st = lfa_json_string(&s, v, what, err);
  for (size_t i = 0; st == LFA_OK && i < 3; i++)
    if (strcmp(s, lfa_scenario_outcome_name(ALL[i])) == 0) return *out = ALL[i], LFA_OK;
  return st != LFA_OK ? st
                      : lfa_json_fail(err, LFA_ERR_FORMAT, v, "%s must be \"ok\", \"refused\" or \"conflict\", not \"%.32s\"",
                                      what, s);
}

/* An observed state states everything: an adapter that leaves a part out
 * has not observed it, and an absent part must not read as an empty set. */
static lfa_status observed_state(lfa_scenario_check *out, lfa_arena *arena, const lfa_json *v, const char *what,
                                 lfa_error *err) {
  lfa_status st = lfa_scenario_check_parse(out, arena, v, what, err);
  if (st == LFA_OK && (!out->has_live || !out->has_tracked || lfa_json_find(v, "assigned") == NULL))
    st = lfa_json_fail(err, LFA_ERR_FORMAT, v, "%s must give \"live\", \"tracked\" and \"assigned\"", what);
  for (size_t i = 0; st == LFA_OK && i < out->n_assigned; i++) {
    bool tracked = false;
    for (size_t k = 0; k < out->tracked.count && !tracked; k++)
      tracked = strcmp(out->tracked.names[k], out->assigned[i].path) == 0;
    if (!tracked)
      st = lfa_json_fail(err, LFA_ERR_FORMAT, v, "%s.assigned lists \"%.64s\", which its \"tracked\" does not", what,
                         out->assigned[i].path);
  }
  return st;
}

/* One fragment of a key map: {"fragment": ID, "keys": [key by offset]}. */
static lfa_status key_map_entry(lfa_scenario_fragment_keys *out, lfa_arena *arena, const lfa_json *v, const char *what,
                                lfa_error *err) {
  static const char *const KEYS[] = {"fragment", "keys"};
  lfa_status st = lfa_json_want(v, LFA_JSON_OBJECT, what, err);
  if (st == LFA_OK) st = only_keys(v, what, KEYS, 2, err);
  const lfa_json *id = lfa_json_find(v, "fragment"), *keys = lfa_json_find(v, "keys");
  if (st == LFA_OK && (id == NULL || keys == NULL))
    return lfa_json_fail(err, LFA_ERR_FORMAT, v, "%s needs \"fragment\" and \"keys\"", what);
  if (st == LFA_OK) st = lfa_json_u64(&out->id, id, what, err);
  if (st == LFA_OK) st = lfa_json_want(keys, LFA_JSON_ARRAY, what, err);
  uint64_t *k = st == LFA_OK ? lfa_arena_array(arena, keys->count + 1, sizeof *k) : NULL;
  if (st == LFA_OK && k == NULL) return nomem(err);
  for (size_t i = 0; st == LFA_OK && i < keys->count; i++) st = lfa_json_u64(&k[i], &keys->items[i], what, err);
  out->keys.keys = k, out->keys.count = st == LFA_OK ? keys->count : 0;
  return st;
}

/* The adapter's key map of the version a step left: the count is bounded
 * by the document's size, which the reader bounds. */
static lfa_status key_map(lfa_observed_step *out, lfa_arena *arena, const lfa_json *v, const char *what,
                          lfa_error *err) {
  lfa_status st = lfa_json_want(v, LFA_JSON_ARRAY, what, err);
  out->fragments = st == LFA_OK ? lfa_arena_array(arena, v->count + 1, sizeof *out->fragments) : NULL;
  if (st == LFA_OK && out->fragments == NULL) return nomem(err);
  out->has_rows = st == LFA_OK;
  for (size_t i = 0; st == LFA_OK && i < v->count; i++, out->n_fragments = i)
    st = key_map_entry(&out->fragments[i], arena, &v->items[i], what, err);
  return st;
}

static lfa_status observed_step(lfa_observed_step *out, lfa_arena *arena, const lfa_json *v, size_t index,
                                lfa_error *err) {
  static const char *const KEYS[] = {"step", "outcome", "version", "rule", "message", "observed", "rows"};
  char what[64], sub[96];
  snprintf(what, sizeof what, "steps[%zu]", index);
  memset(out, 0, sizeof *out);
  uint64_t step = 0;
  lfa_status st = lfa_json_want(v, LFA_JSON_OBJECT, what, err);
  if (st == LFA_OK) st = only_keys(v, what, KEYS, 7, err);
  const lfa_json *j_step = lfa_json_find(v, "step"), *j_outcome = lfa_json_find(v, "outcome"),
                 *j_version = lfa_json_find(v, "version"), *j_observed = lfa_json_find(v, "observed");
  if (st == LFA_OK && (j_step == NULL || j_outcome == NULL))
    return lfa_json_fail(err, LFA_ERR_FORMAT, v, "%s needs \"step\" and \"outcome\"", what);
  snprintf(sub, sizeof sub, "%s.step", what);
  if (st == LFA_OK) st = lfa_json_u64(&step, j_step, sub, err);
  if (st == LFA_OK && step != index)
    return lfa_json_fail(err, LFA_ERR_FORMAT, j_step, "%s is step %" PRIu64 ", expected %zu: steps are reported in order from 0 (the setup)",
                         what, step, index);
  snprintf(sub, sizeof sub, "%s.outcome", what);
  if (st == LFA_OK) st = outcome_of(&out->outcome, j_outcome, sub, err);
  snprintf(sub, sizeof sub, "%s.version", what);
  if (st == LFA_OK && j_version != NULL) st = lfa_json_u64(&out->version, j_version, sub, err), out->has_version = true;
  snprintf(sub, sizeof sub, "%s.rule", what);
  if (st == LFA_OK) st = copy_text(&out->rule, arena, lfa_json_find(v, "rule"), sub, true, err);
  snprintf(sub, sizeof sub, "%s.message", what);
  if (st == LFA_OK) st = copy_text(&out->message, arena, lfa_json_find(v, "message"), sub, true, err);
  snprintf(sub, sizeof sub, "%s.observed", what);
  if (st == LFA_OK && j_observed != NULL && j_observed->kind != LFA_JSON_NULL)
    st = observed_state(&out->observed, arena, j_observed, sub, err), out->has_observed = true;
  snprintf(sub, sizeof sub, "%s.rows", what);
  const lfa_json *j_rows = lfa_json_find(v, "rows");
  if (st == LFA_OK && j_rows != NULL) st = key_map(out, arena, j_rows, sub, err);
  /* The runner reads the observed version's bytes by key: an observation
   * says which version it is of, and how its rows are keyed. */
  if (st == LFA_OK && out->has_observed && (!out->has_version || !out->has_rows))
    st = lfa_json_fail(err, LFA_ERR_FORMAT, j_observed,
                       "%s has \"observed\" without %s: the runner reads that version from disk, its rows named by "
                       "the key map",
                       what, !out->has_version ? "\"version\"" : "\"rows\" (the key map)");
  return st;
}

static lfa_status observations_top(lfa_observations *out, const lfa_json *root, size_t max_steps, lfa_error *err) {
  static const char *const KEYS[] = {"adapter", "skipped", "steps"};
  lfa_status st = lfa_json_want(root, LFA_JSON_OBJECT, "the observations", err);
  if (st == LFA_OK) st = only_keys(root, "the observations", KEYS, 3, err);
  const lfa_json *adapter = lfa_json_find(root, "adapter"), *steps = lfa_json_find(root, "steps");
  if (st == LFA_OK && adapter == NULL)
    return lfa_json_fail(err, LFA_ERR_FORMAT, root, "the observations need \"adapter\" (the writer's name and version)");
  if (st == LFA_OK) st = copy_text(&out->adapter, &out->arena, adapter, "adapter", false, err);
  if (st == LFA_OK) st = copy_text(&out->skipped, &out->arena, lfa_json_find(root, "skipped"), "skipped", true, err);
  if (st != LFA_OK || out->skipped != NULL) return st;
  if (steps == NULL) return lfa_json_fail(err, LFA_ERR_FORMAT, root, "the observations need \"steps\" (or \"skipped\")");
  st = lfa_json_want(steps, LFA_JSON_ARRAY, "steps", err);
  if (st == LFA_OK && steps->count > max_steps)
    return lfa_json_fail(err, LFA_ERR_FORMAT, steps, "steps reports %zu steps; the scenario has %zu (setup included)",
                         steps->count, max_steps);
  out->steps = st == LFA_OK ? lfa_arena_array(&out->arena, steps->count + 1, sizeof *out->steps) : NULL;
  if (st == LFA_OK && out->steps == NULL) return nomem(err);
  for (size_t i = 0; st == LFA_OK && i < steps->count; i++, out->n_steps = i)
    st = observed_step(&out->steps[i], &out->arena, &steps->items[i], i, err);
  return st;
}

lfa_status lfa_observations_parse(lfa_observations *out, const uint8_t *bytes, size_t len, size_t max_steps,
                                  lfa_error *err) {
  memset(out, 0, sizeof *out);
  lfa_json_doc doc;
  lfa_status st = lfa_json_parse(&doc, bytes, len, err);
  if (st != LFA_OK) return st;
  st = observations_top(out, doc.root, max_steps, err);
  if (st == LFA_OK) st = lfa_arena_check(&out->arena, err);
  if (st != LFA_OK) lfa_observations_free(out);
  lfa_json_free(&doc);
  return st;
}

lfa_status lfa_observations_load(lfa_observations *out, const char *path, size_t max_steps, lfa_error *err) {
  memset(out, 0, sizeof *out);
  lfa_buf bytes;
  lfa_status st = lfa_fs_read(&bytes, path, LFA_JSON_DOCUMENT_BYTES_MAX, err);
  if (st != LFA_OK) return st; /* the message names the path */
  st = lfa_observations_parse(out, bytes.data, bytes.len, max_steps, err);
  if (st != LFA_OK) lfa_error_prefix(err, "%s", path);
  lfa_buf_free(&bytes);
  return st;
}

void lfa_observations_free(lfa_observations *obs) {
  lfa_arena_free(&obs->arena);
  memset(obs, 0, sizeof *obs);
}

/* ---- judging ------------------------------------------------------------------------------ */

/* What the bytes of the version a checked step names hold, read with
 * lfa's reader through the adapter's key map; NULL with `unreadable` set
 * when they cannot be read. Memory is the only error. */
static lfa_status read_bytes(const lfa_scenario_check **out, lfa_scenario_check *state, char *unreadable, size_t cap,
                             lfa_arena *arena, const char *dataset, const lfa_observed_step *o, lfa_error *err) {
  lfa_error e = {0};
  *out = NULL;
  lfa_status st = lfa_scenario_observe_disk(state, arena, NULL, dataset, o->version, o->fragments, o->n_fragments, &e);
  if (st == LFA_ERR_NOMEM) return *err = e, st;
  if (st == LFA_OK) *out = state;
  else snprintf(unreadable, cap, "%s", e.msg);
  return LFA_OK;
}

static lfa_status judge_step(lfa_scenario_result *r, const lfa_scenario_step *step, const lfa_observed_step *o,
                             const char *dataset, lfa_error *err) {
  r->outcome = o->outcome;
  r->head = o->has_version ? o->version : 0;
  r->rule = o->rule;
  snprintf(r->reason, sizeof r->reason, "%s", o->message ? o->message : "(the adapter gave no message)");
  lfa_scenario_step judged = *step;
  if (o->rule == NULL && o->outcome == step->expect)
    judged.expect_rule = NULL; /* the writer names no rule: the outcome decides */
  lfa_arena arena = {0};
  lfa_scenario_check bytes;
  const lfa_scenario_check *on_disk = NULL;
  char unreadable[LFA_ERROR_MSG_MAX] = "";
  lfa_status st = step->has_check && o->has_observed
                      ? read_bytes(&on_disk, &bytes, unreadable, sizeof unreadable, &arena, dataset, o, err)
                      : LFA_OK;
  if (st == LFA_OK)
    lfa_scenario_judge(r, &judged, o->has_observed ? &o->observed : NULL, on_disk,
                       on_disk == NULL && unreadable[0] ? unreadable : NULL);
  lfa_arena_free(&arena);
  return st;
}

lfa_status lfa_conformance_judge(lfa_scenario_report *out, const lfa_scenario *s, const lfa_observations *obs,
                                 const char *dataset, lfa_error *err) {
  memset(out, 0, sizeof *out);
  out->results = calloc(s->n_steps + 1, sizeof *out->results);
  if (out->results == NULL) return nomem(err);
  for (size_t i = 0; i < s->n_steps; i++) {
    lfa_scenario_result *r = &out->results[i];
    out->n_results = i + 1;
    if (i >= obs->n_steps) {
      snprintf(r->failure, sizeof r->failure, "the adapter reported nothing for this step (its observations stop %s)",
               i == 0 ? "before the setup" : "after the step before");
      return LFA_OK;
    }
    lfa_status st = judge_step(r, &s->steps[i], &obs->steps[i], dataset, err);
    if (st != LFA_OK) return st;
    if (!r->passed) return LFA_OK;
  }
  out->passed = true;
  return LFA_OK;
}

/* ---- one scenario's verdict --------------------------------------------------------------- */

const char *lfa_conformance_verdict_name(lfa_conformance_verdict v) {
  static const char *const NAMES[] = {"pass",    "refused-as-expected", "fail",    "crash",
                                      "timeout", "skipped",             "invalid", "not-run"};
  return (size_t)v < sizeof NAMES / sizeof NAMES[0] ? NAMES[v] : "?";
}

/* The key map the adapter gave for `version`, fragment `id`, or NULL. */
static const lfa_keys *key_map_of(const lfa_conformance_case *c, uint64_t version, uint64_t id) {
  if (!c->has_observations) return NULL;
  for (size_t i = c->observations.n_steps; i-- > 0;) {
    const lfa_observed_step *o = &c->observations.steps[i];
    if (!o->has_version || o->version != version) continue;
    for (size_t k = 0; k < o->n_fragments; k++)
      if (o->fragments[k].id == id) return &o->fragments[k].keys;
  }
  return NULL;
}

bool lfa_conformance_finding_keys(uint64_t keys[LFA_FINDING_ROWS_MAX], const lfa_conformance_case *c,
                                  const lfa_finding *f) {
  const lfa_keys *map = f->has_fragment && f->n_rows > 0 ? key_map_of(c, f->version, f->fragment_id) : NULL;
  for (size_t i = 0; map != NULL && i < f->n_rows; i++) {
    if (f->rows[i] >= map->count) return false; /* the map does not cover the row: offsets it is */
    keys[i] = map->keys[f->rows[i]];
  }
  return map != NULL;
}

void lfa_conformance_finding_text(char *out, size_t cap, const lfa_conformance_case *c, const lfa_finding *f) {
  uint64_t keys[LFA_FINDING_ROWS_MAX];
  bool by_key = lfa_conformance_finding_keys(keys, c, f);
  char rows[LFA_FINDING_ROWS_MAX * 24 + 64] = "";
  size_t n = 0;
  for (size_t i = 0; i < f->n_rows; i++)
    n += (size_t)snprintf(rows + n, sizeof rows - n, "%s%" PRIu64, i ? ", " : "", by_key ? keys[i] : f->rows[i]);
  snprintf(out, cap, "version %" PRIu64 "%s%s: %s: %s%s%s%s%s", f->version, f->file ? ", " : "", f->file ? f->file : "",
           f->rule, f->message, f->n_rows == 0 ? "" : by_key ? "; rows with keys {" : "; rows at offsets {", rows,
           f->n_rows == 0 ? "" : "}", f->n_rows > 0 && !by_key ? " (the adapter gave no key map for them)" : "");
}

/* Step by step, with the rule `lfa run` uses; the failing step is kept
 * with what the scenario expected and what the adapter reported, and the
 * first step whose observation differs from the bytes, as the self-test's
 * evidence that the adapter reports something other than its dataset. */
static void judge_steps(lfa_conformance_case *c, const char *dataset) {
  lfa_scenario_report rep;
  lfa_error err = {0};
  const lfa_scenario *s = &c->scenario;
  if (lfa_conformance_judge(&rep, s, &c->observations, dataset, &err) != LFA_OK) {
    c->verdict = LFA_VERDICT_FAIL;
    snprintf(c->message, sizeof c->message, "%s", err.msg);
    lfa_scenario_report_free(&rep);
    return;
  }
  bool refused = false;
  for (size_t i = 0; i < rep.n_results; i++) {
    const lfa_scenario_result *r = &rep.results[i];
    refused |= r->outcome != LFA_SCENARIO_OK;
    c->steps += r->passed;
    c->checks += r->passed && r->checked;
    if (r->disagrees && c->disagreement[0] == '\0') {
      char label[LFA_CONFORMANCE_LABEL_MAX];
      lfa_scenario_step_label(label, sizeof label, s, i);
      snprintf(c->disagreement, sizeof c->disagreement, "%s: %.1900s", label, r->disagreement);
    }
  }
  if (rep.passed) {
    c->verdict = refused ? LFA_VERDICT_REFUSED_AS_EXPECTED : LFA_VERDICT_PASS;
  } else {
    size_t f = rep.n_results - 1;
    c->verdict = LFA_VERDICT_FAIL;
    c->has_failing_step = true, c->failing_step = f;
    c->expected = &s->steps[f];
    c->observed = f < c->observations.n_steps ? &c->observations.steps[f] : NULL;
    lfa_scenario_step_label(c->failing_label, sizeof c->failing_label, s, f);
    snprintf(c->message, sizeof c->message, "%s: %s", c->failing_label, rep.results[f].failure);
  }
  lfa_scenario_report_free(&rep);
}

/* Every error finding of the verifier fails the case; all are kept, also
 * for a case that already failed (at a step, or on unusable observations),
 * as evidence beside its message. */
static void verify_case(lfa_conformance_case *c, const char *dataset) {
  bool failed = c->verdict == LFA_VERDICT_FAIL; /* at a step: that message stays */
  if (!lfa_fs_is_dir(dataset)) return;
  lfa_verify_result res;
  lfa_error err = {0};
  lfa_status st = lfa_verify_dataset(&res, dataset, NULL, &err);
  if (st == LFA_OK) {
    c->versions = res.versions_checked; /* what the verifier read, whatever it found */
    c->findings = res.findings, memset(&res.findings, 0, sizeof res.findings); /* the case owns them now */
  }
  lfa_verify_result_free(&res);
  c->errors = lfa_findings_count(&c->findings, LFA_SEVERITY_ERROR);
  c->warnings = lfa_findings_count(&c->findings, LFA_SEVERITY_WARNING);
  if (st != LFA_OK && !failed) c->verdict = LFA_VERDICT_FAIL, snprintf(c->message, sizeof c->message, "verify: %s", err.msg);
  const lfa_finding *first = NULL;
  for (size_t i = 0; i < c->findings.count && first == NULL; i++)
    if (c->findings.items[i].severity == LFA_SEVERITY_ERROR) first = &c->findings.items[i];
  /* a step's failure says what went wrong where; unusable observations say
   * nothing of the dataset, so its first error finding joins them */
  if (first == NULL || (failed && c->has_observations)) return;
  char text[LFA_CONFORMANCE_MESSAGE_MAX];
  lfa_conformance_finding_text(text, sizeof text, c, first);
  size_t n = failed ? strlen(c->message) : 0;
  c->verdict = LFA_VERDICT_FAIL;
  snprintf(c->message + n, sizeof c->message - n, "%sverify: %zu error finding%s; first: %.1500s", failed ? "; " : "",
           c->errors, c->errors == 1 ? "" : "s", text);
}

void lfa_conformance_judge_case(lfa_conformance_case *c, const char *dataset) {
  const lfa_observations *obs = &c->observations;
  bool committed = c->has_observations && obs->n_steps > 0 && obs->steps[0].outcome == LFA_SCENARIO_OK;
  if (committed && !lfa_fs_is_dir(dataset)) { /* nothing to read or verify: say so, not what reading it says */
    c->verdict = LFA_VERDICT_FAIL;
    snprintf(c->message, sizeof c->message, "the adapter left no dataset at %.1024s", dataset);
    return;
  }
  if (c->has_observations) judge_steps(c, dataset);
  verify_case(c, dataset);
}

void lfa_conformance_case_free(lfa_conformance_case *c) {
  free(c->name);
  if (c->has_scenario) lfa_scenario_free(&c->scenario);
  if (c->has_observations) lfa_observations_free(&c->observations);
  lfa_findings_free(&c->findings);
  memset(c, 0, sizeof *c);
}
