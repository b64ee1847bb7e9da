/* orphans.c: [FA-CLEAN-10] objects under `_field_assignments/` that no
 * version references, left past the grace period.
 *
 * This is the cleanup planner (lfa/cleanup.h) with every version kept:
 * what it would delete as expired is exactly an object that no version in
 * `_versions/`, and no version of a branch under `tree/`, reaches, and
 * that is older than Lance's grace period (7 days, by its modification
 * time against the clock). Younger orphans are normal (an attempt in
 * flight may be about to reference them, FA-CLEAN-5) and are not
 * reported. A shallow clone elsewhere can reach this dataset's objects
 * without the dataset knowing (FA-CLEAN-8), which is why this is a
 * warning. Roots are taken from the run's cache when it holds them. */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "lfa/fs.h"
#include "lfa/cleanup.h"

/* Why the orphans could not be told apart: the first note that blocked. */
static const char *blocking_note(const lfa_cleanup_plan *plan) {
  for (size_t i = 0; i < plan->n_notes; i++)
    if (strcmp(plan->notes[i].rule, "FA-CLEAN-3") == 0) return plan->notes[i].message;
  return "a root cannot be read";
}

static void report_orphans(const vf_ctx *c, const lfa_cleanup_plan *plan, uint64_t version) {
  for (size_t i = 0; i < plan->n_objects; i++) {
    const lfa_cleanup_object *o = &plan->objects[i];
    if (o->verdict != LFA_CLEANUP_DELETE_EXPIRED) continue;
    lfa_where w = {.version = version, .file = o->path};
    uint64_t age = (uint64_t)plan->now - (uint64_t)o->mtime; /* expired: mtime < now */
    lfa_findings_add(c->findings, &w, "FA-CLEAN-10", LFA_SEVERITY_WARNING,
                     "no version in _versions/ (nor of a branch under tree/) references this object, %" PRIu64
                     " s (%" PRIu64 " days) old, past the %" PRIu64 " s grace period",
                     age, age / 86400u, plan->grace_seconds);
  }
}

lfa_status vf_check_orphans(const vf_ctx *c, uint64_t version, lfa_error *err) {
  /* the cleanup planner reads file ages: a dataset held where files have
   * none (lfa_memfs) has no ages to compare */
  if ((lfa_fs_caps(c->fs) & LFA_FS_CAP_MTIME) == 0) return LFA_OK;
  lfa_cleanup_options o = {.now = (int64_t)time(NULL), .grace_seconds = LFA_CLEANUP_GRACE_DEFAULT_SECONDS,
                           .cache = c->cache, .fs = c->fs};
  lfa_cleanup_plan plan;
  lfa_error e = {0};
  lfa_where w = {.version = version};
  lfa_status st = lfa_cleanup_plan_make(&plan, c->dir, &o, &e);
  if (st == LFA_ERR_NOMEM) {
    st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "%s", e.msg);
  } else if (st != LFA_OK && lfa_fs_listing_refused(&e)) { /* [FA-CLEAN-12] a store that lists what is no name */
    lfa_findings_add(c->findings, &w, e.rule, LFA_SEVERITY_ERROR, "the dataset's listing cannot be believed: %s", e.msg);
    st = LFA_OK;
  } else if (st != LFA_OK) { /* [FA-VERIFY-5] said, not guessed */
    lfa_findings_add(c->findings, &w, "FA-VERIFY-5", LFA_SEVERITY_INFO, "orphan objects not checked: %s", e.msg);
    st = LFA_OK;
  } else if (plan.blocked) {
    lfa_findings_add(c->findings, &w, "FA-VERIFY-5", LFA_SEVERITY_INFO,
                     "orphan objects not checked, the objects a version reaches being unknown: %s",
                     blocking_note(&plan));
  } else {
    report_orphans(c, &plan, version);
  }
  lfa_cleanup_plan_free(&plan);
  return st;
}
