/* verify.c: the walk over a dataset's versions (lfa/verify.h).
 *
 * Versions are checked in order, one at a time: the static rules of
 * version v (static.c), then the commit that made v from v-1
 * (transition.c). Only v-1 and v are held in memory. A version that cannot
 * be decoded is a finding, and the next ones are still checked
 * [FA-VERIFY-5]. Roots, bitmaps and deletion files are decoded once per
 * run and lent to the versions that reference them again, through one
 * object cache whose byte budget bounds what the run keeps however long
 * the history (lfa/objects.h), unless options->full asks for every
 * snapshot from scratch.
 *
 * A range (from, to, or the versions after a state) reads the parent of
 * its first version, the versions in it, and what their transactions copy
 * (a restore's version, a clone's source): nothing else of the history.
 * The rules that need every version (orphan objects) run only when the
 * range holds them all, and a range says it left them out (10§5). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static bool in_range(const lfa_verify_options *o, uint64_t v) {
  return (!o->has_from || v >= o->from) && (!o->has_to || v <= o->to);
}

/* The parent of entry i: the previous listed version when it is v-1. It is
 * already checked when inside the range; otherwise it is loaded quietly
 * (its findings belong to a version the user did not ask about). */
static lfa_status parent_of(vf_version *prev, bool *have, const vf_ctx *c, size_t i, lfa_error *err) {
  const lfa_version_list *l = c->versions;
  if (*have && prev->version + 1 == l->entries[i].version) return LFA_OK;
  if (*have) vf_version_free(prev);
  *have = false;
  if (i == 0 || l->entries[i - 1].version + 1 != l->entries[i].version) return LFA_OK;
  lfa_status st = vf_load_quietly(prev, c, c->dir, &l->entries[i - 1], err);
  *have = st == LFA_OK;
  return st;
}

/* The entries a walk reads: those in the range, and the parent before the first. */
typedef struct ahead_of {
  const lfa_verify_options *o;
  const lfa_version_list *l;
  size_t parent;
} ahead_of;

static bool read_by_walk(const void *arg, size_t i) {
  const ahead_of *a = arg;
  return i == a->parent || in_range(a->o, a->l->entries[i].version);
}

static lfa_status walk(lfa_verify_result *out, const vf_ctx *c, const lfa_verify_options *o, lfa_error *err) {
  const lfa_version_list *l = c->versions;
  vf_version prev, cur;
  bool have_prev = false;
  lfa_status st = LFA_OK;
  size_t ahead = 0; /* entries below it were handed to the file system's prefetch */
  for (size_t i = 0; st == LFA_OK && i < l->count; i++) {
    if (!in_range(o, l->entries[i].version)) continue;
    if (i >= ahead) { /* the parent too: it is read quietly first; nothing outside the range */
      size_t first = i > 0 ? i - 1 : 0;
      ahead_of a = {o, l, first};
      lfa_dataset_prefetch_manifests(c->fs, c->dir, l, first, LFA_MANIFEST_PREFETCH_BATCH, read_by_walk, &a);
      ahead = first + LFA_MANIFEST_PREFETCH_BATCH;
    }
    st = parent_of(&prev, &have_prev, c, i, err);
    if (st == LFA_OK) st = vf_check_version(&cur, c, &l->entries[i], have_prev ? &prev : NULL, err);
    if (st == LFA_OK) st = vf_check_commit(c, have_prev ? &prev : NULL, &cur, err);
    if (have_prev) vf_version_free(&prev);
    prev = cur, have_prev = true; /* cur is always initialized by vf_check_version */
    out->versions[out->versions_checked++] = l->entries[i].version;
  }
  if (have_prev && prev.loadable && out->versions_checked > 0 &&
      prev.version == out->versions[out->versions_checked - 1]) { /* the last version checked: kept */
    out->last = prev.table, out->last_loaded = true;
    memset(&prev.table, 0, sizeof prev.table);
  }
  if (have_prev) vf_version_free(&prev);
  return st;
}

/* The options with `since` turned into the range after its version. */
static lfa_verify_options range_of(const lfa_verify_options *o) {
  lfa_verify_options r = *o;
  if (o->since == NULL) return r;
  r.has_from = true, r.from = o->since->version + 1;
  if (o->since->version == UINT64_MAX) r.from = UINT64_MAX, r.has_to = true, r.to = 0; /* nothing can follow */
  return r;
}

/* Whether the range takes in every listed version: only then are the rules
 * that need the whole history decided (10§5). */
static bool whole_history(const lfa_verify_options *o, const lfa_version_list *l) {
  return in_range(o, l->entries[0].version) && in_range(o, l->entries[l->count - 1].version);
}

/* [FA-VERIFY-5] a ranged run says what it left undecided. */
static void note_ranged(const vf_ctx *c, const lfa_verify_result *out) {
  uint64_t first = out->versions[0], last = out->versions[out->versions_checked - 1];
  lfa_where w = {.version = last};
  lfa_findings_add(c->findings, &w, "FA-VERIFY-5", LFA_SEVERITY_INFO,
                   "orphan objects (FA-CLEAN-10) not checked: only versions %" PRIu64 " to %" PRIu64
                   " were, and whether an object is an orphan depends on every version of the history",
                   first, last);
}

/* After the walk: the rules over the whole history, or the note that a
 * range left them out; then the state to resume from. */
static lfa_status finish(lfa_verify_result *out, const vf_ctx *c, const lfa_verify_options *o, lfa_error *err) {
  lfa_status st = LFA_OK;
  out->ranged = !whole_history(o, c->versions);
  if (out->versions_checked > 0 && !out->ranged)
    st = vf_check_orphans(c, out->versions[out->versions_checked - 1], err);
  else if (out->versions_checked > 0) note_ranged(c, out);
  uint64_t resume = out->versions_checked > 0 ? out->versions[out->versions_checked - 1] : 0;
  if (st == LFA_OK && (out->versions_checked > 0 || o->since != NULL))
    st = vf_state_of(&out->state, &out->has_state, c, out->versions_checked > 0 ? resume : o->since->version, err);
  return st;
}

/* [FA-CLEAN-14] lfa's own temporaries left in `_versions/` (a commit that
 * died before removing them): said, as info; `lfa cleanup` removes them
 * once they are older than its grace period. */
static void report_temporaries(const vf_ctx *c, const lfa_names *names) {
  char file[LFA_PATH_BYTES_MAX];
  for (size_t i = 0; i < names->count; i++) {
    if (!lfa_version_is_lfa_temporary(names->names[i])) continue;
    snprintf(file, sizeof file, "_versions/%s", names->names[i]);
    lfa_where w = {.file = file};
    lfa_findings_add(c->findings, &w, "FA-CLEAN-14", LFA_SEVERITY_INFO,
                     "an lfa temporary left by a commit that did not finish: no version, referenced by nothing; "
                     "lfa cleanup removes it once older than its grace period");
  }
}

lfa_status lfa_verify_dataset(lfa_verify_result *out, const char *dir, const lfa_verify_options *options,
                              lfa_error *err) {
  static const lfa_verify_options ALL = {0};
  lfa_verify_options o = range_of(options ? options : &ALL);
  memset(out, 0, sizeof *out);
  lfa_version_list versions;
  lfa_names names;
  const lfa_fs *fs = o.fs != NULL ? o.fs : lfa_fs_posix();
  lfa_status st = lfa_dataset_versions(&versions, &names, fs, dir, err);
  if (st != LFA_OK) return st;
  out->versions = calloc(versions.count + 1, sizeof *out->versions);
  lfa_object_cache cache; /* each object decoded once per run, within its budget, unless --full */
  lfa_object_cache_init(&cache, o.cache_bytes);
  vf_ctx c = {dir, fs, &out->findings, &versions, o.full ? NULL : &cache, &out->objects_decoded, o.strict};
  if (out->versions == NULL) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (st == LFA_OK && o.since != NULL) st = vf_check_state(&c, o.since, err); /* [FA-VERIFY-7] before the rest */
  if (st == LFA_OK) report_temporaries(&c, &names);
  if (st == LFA_OK) st = walk(out, &c, &o, err);
  out->objects_reused = cache.stats.hits; /* the versions' own, not the orphan check's */
  if (st == LFA_OK) st = finish(out, &c, &o, err);
  out->cache = cache.stats;
  lfa_object_cache_free(&cache); /* after walk: every snapshot that borrowed from it is freed */
  if (st == LFA_OK && out->versions_checked == 0 && o.since == NULL) /* with `since`: nothing new */
    st = lfa_fail(err, LFA_ERR_USAGE, NULL, "no version in the range asked for (the dataset has versions %" PRIu64
                  " to %" PRIu64 ")", versions.entries[0].version, versions.entries[versions.count - 1].version);
  if (st == LFA_OK && out->findings.lost) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory recording findings");
  lfa_findings_sort(&out->findings);
  lfa_version_list_free(&versions);
  lfa_fs_names_free(&names);
  return st;
}

void lfa_verify_result_free(lfa_verify_result *r) {
  lfa_findings_free(&r->findings);
  free(r->versions);
  if (r->last_loaded) lfa_table_free(&r->last);
  memset(r, 0, sizeof *r);
}
