/* cleanup.c: `lfa cleanup`, old versions and the field-assignment objects
 * nothing kept reaches, removed by the plan of lfa/cleanup.h
 * (spec/09-cleanup.md). The JSON shape only grows: keys are never renamed
 * or removed. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "dataset_arg.h"
#include "cli.h"
#include "lfa/document.h"
#include "lfa/cleanup.h"
#include "lfa/escape.h"

static const char HELP[] =
    "usage: lfa cleanup DATASET [--keep-from V] [--keep V]... [--clone DIR]...\n"
    "                   [--grace SECONDS] [--now UNIX_SECONDS] [--dry-run] [--json]\n"
    "                   [--stats] [--allow-http]\n"
    "\n"
    "Removes old versions of the Lance dataset at DATASET and the field-assignment\n"
    "objects (roots and bitmaps under its own _field_assignments/) that nothing\n"
    "kept can reach (spec/09-cleanup.md). Plan first with --dry-run.\n"
    "\n"
    "Kept versions: the newest always; every version from --keep-from V on\n"
    "(without it, every version: only unreferenced objects go); each --keep V;\n"
    "and every version a tag names (_refs/tags/<name>.json). The other versions\n"
    "are removed: their _versions/ manifest files are deleted first.\n"
    "\n"
    "An object is kept when a kept version reaches it: as the root of a tracked\n"
    "field, or as a bitmap such a root lists, resolved through base paths\n"
    "(FA-CLEAN-1). Every version of every branch (tree/<name>/, a dataset that\n"
    "reaches this one through a base path) counts as kept, and so do the\n"
    "versions of each --clone DIR: a shallow clone elsewhere, which this dataset\n"
    "cannot know about (FA-CLEAN-2). An object only removed versions reach is\n"
    "deleted at once; an object nothing reaches (a failed commit attempt left\n"
    "it) only once it is older than the grace period (its modification time),\n"
    "since an attempt in flight may be about to reference it (FA-CLEAN-5).\n"
    "Nothing at all is deleted (no manifest, no object) unless every kept\n"
    "version, tag and branch and every reference they hold was read and\n"
    "resolved: an unreadable kept manifest or root, a missing object, a base\n"
    "path that is relative, a _versions/ that is a link block the run and are\n"
    "named (FA-CLEAN-3); an unreadable root of a removed version does not stop it\n"
    "(FA-CLEAN-4). Nothing outside DATASET/_field_assignments/ and\n"
    "DATASET/_versions/ is deleted: not another dataset's objects reached\n"
    "through a base path (FA-CLEAN-6), not symbolic links, not transactions,\n"
    "deletion files or data files (Lance's cleanup reclaims those). lfa's own\n"
    "temporaries in _versions/ (.tmp_<uuid>, .tmp_hint_<uuid>: a commit that\n"
    "died before removing them) are deleted once older than the grace period\n"
    "(FA-CLEAN-14). A listing that names what is no name (an empty, . or ..\n"
    "segment, a key outside the prefix: FA-CLEAN-12) or an object store page\n"
    "that is not whole and consistent (FA-CLEAN-13) stops the run: exit 2,\n"
    "nothing deleted.\n"
    "\n"
    "  --keep-from V     keep versions V and later\n"
    "  --keep V          also keep version V (repeatable)\n"
    "  --clone DIR       a dataset whose versions may reference this one's\n"
    "                    objects; all its versions count as kept (repeatable)\n"
    "  --grace SECONDS   grace period for unreferenced objects (default 604800,\n"
    "                    7 days, as Lance); deleted only when strictly older\n"
    "  --now UNIX_SECONDS  the clock (default: the current time)\n"
    "  --dry-run         print the plan, delete nothing\n"
    "  --json            one JSON document: {\"dataset\", \"dry_run\", \"blocked\",\n"
    "                    \"versions\", \"datasets\", \"objects\", \"notes\", \"summary\",\n"
    "                    \"done\", \"error\"}; printed also when a run stops half way\n"
    LFA_CLI_DATASET_HELP_OPTIONS
    "\n" LFA_CLI_DATASET_HELP_DATASET
    "On s3:// the clones named with --clone are s3:// URLs of the same store, and\n"
    "each object is deleted only while a fresh HEAD finds the size and ETag the\n"
    "plan listed (FA-CLEAN-11).\n"
    "\n"
    "Exit status: 0 done (or planned); 1 the plan has an error note (a kept\n"
    "version not fully read: nothing deleted, FA-CLEAN-3; a\n"
    "kept version's object missing, FA-CLEAN-9; a clone reusing what its source\n"
    "version does not reach, FA-CLEAN-7); 2 unusable input, bad usage, or a\n"
    "file that could not be deleted, with one line on stderr.\n";

enum { KEEP_ARGS_MAX = 256, CLONE_ARGS_MAX = 256 };

typedef struct cleanup_args {
  const char *dataset;
  bool dry_run, json, stats, allow_http;
  uint64_t keep[KEEP_ARGS_MAX];
  const char *clones[CLONE_ARGS_MAX];
  lfa_cleanup_options o;
} cleanup_args;

static bool parse_args(cleanup_args *a, int argc, char **argv) {
  memset(a, 0, sizeof *a);
  a->o.grace_seconds = LFA_CLEANUP_GRACE_DEFAULT_SECONDS;
  a->o.now = (int64_t)time(NULL);
  a->o.keep = a->keep;
  a->o.datasets = a->clones;
  size_t has_keep_from = 0;
  const lfa_cli_option opts[] = {
      {"--json", LFA_CLI_FLAG, &a->json, NULL, 1, 0, 0},
      {"--dry-run", LFA_CLI_FLAG, &a->dry_run, NULL, 1, 0, 0},
      {"--keep-from", LFA_CLI_U64, &a->o.keep_from, &has_keep_from, 1, 0, 0},
      {"--keep", LFA_CLI_U64, a->keep, &a->o.n_keep, KEEP_ARGS_MAX, 0, 0},
      {"--clone", LFA_CLI_TEXT, a->clones, &a->o.n_datasets, CLONE_ARGS_MAX, 0, 0},
      {"--grace", LFA_CLI_U64, &a->o.grace_seconds, NULL, 1, 0, 0},
      {"--now", LFA_CLI_I64, &a->o.now, NULL, 1, 0, 0},
      {"--stats", LFA_CLI_FLAG, &a->stats, NULL, 1, 0, 0},
      {"--allow-http", LFA_CLI_FLAG, &a->allow_http, NULL, 1, 0, 0},
  };
  int r = lfa_cli_parse("cleanup", HELP, opts, sizeof opts / sizeof opts[0], &a->dataset, 1, argc, argv);
  if (r < 0) exit(LFA_EXIT_OK);
  a->o.has_keep_from = has_keep_from > 0;
  if (r > 0 && a->dataset == NULL) fprintf(stderr, "lfa cleanup: missing DATASET (see lfa cleanup --help)\n");
  return r > 0 && a->dataset != NULL;
}

/* ---- what the plan says -------------------------------------------------------------- */

typedef struct totals {
  size_t versions_removed, versions_kept, objects_deleted, objects_kept, errors;
  uint64_t bytes_deleted;
} totals;

static totals count(const lfa_cleanup_plan *pl) {
  totals t = {0};
  for (size_t i = 0; i < pl->n_versions; i++)
    if (pl->versions[i].keep == LFA_CLEANUP_REMOVED) t.versions_removed++;
    else t.versions_kept++;
  for (size_t i = 0; i < pl->n_objects; i++)
    if (lfa_cleanup_deletes(pl->objects[i].verdict)) t.objects_deleted++, t.bytes_deleted += pl->objects[i].size;
    else t.objects_kept++;
  for (size_t i = 0; i < pl->n_notes; i++) t.errors += pl->notes[i].level == LFA_CLEANUP_ERROR;
  return t;
}

static int64_t age_of(const lfa_cleanup_plan *pl, const lfa_cleanup_object *o) {
  return o->mtime <= pl->now ? (int64_t)((uint64_t)pl->now - (uint64_t)o->mtime) : 0;
}

/* "version 3", "version 2 of branch ds/tree/feature", "a detached manifest" */
static void describe_ref(char *out, size_t cap, const lfa_cleanup_plan *pl, const lfa_cleanup_object *o) {
  const lfa_cleanup_dataset *d = &pl->datasets[o->ref_dataset];
  const char *kind = d->kind == LFA_CLEANUP_BRANCH ? " of branch " : d->kind == LFA_CLEANUP_GIVEN ? " of clone " : "";
  if (o->ref_version == 0) snprintf(out, cap, "a manifest outside the version list%s%s", kind, kind[0] ? d->dir : "");
  else snprintf(out, cap, "version %" PRIu64 "%s%s", o->ref_version, kind, kind[0] ? d->dir : "");
}

static void reason_of(char *out, size_t cap, const lfa_cleanup_plan *pl, const lfa_cleanup_object *o) {
  char ref[1024];
  describe_ref(ref, sizeof ref, pl, o);
  int64_t age = age_of(pl, o);
  switch (o->verdict) {
    case LFA_CLEANUP_KEEP_REACHABLE:
      snprintf(out, cap, "reached by %s [%s]", ref, o->ref_dataset == 0 ? "FA-CLEAN-1" : "FA-CLEAN-2");
      return;
    case LFA_CLEANUP_DELETE_REMOVED:
      snprintf(out, cap, "referenced only by removed versions (%s) [FA-CLEAN-5]", ref);
      return;
    case LFA_CLEANUP_DELETE_EXPIRED:
      snprintf(out, cap, "unreferenced, %" PRId64 " s old, past the grace period [FA-CLEAN-5]", age);
      return;
    case LFA_CLEANUP_KEEP_YOUNG:
      snprintf(out, cap, "unreferenced, %" PRId64 " s old, within the grace period [FA-CLEAN-5]", age);
      return;
    case LFA_CLEANUP_KEEP_BLOCKED:
      snprintf(out, cap, "%s, but a kept root is unreadable [FA-CLEAN-3]",
               o->reached_removed ? "referenced only by removed versions" : "unreferenced past the grace period");
      return;
  }
}

/* ---- text ------------------------------------------------------------------------------ */

/* Names and paths are shown escaped (lfa/escape.h): a newline in a file
 * name must not forge a "keep" line, nor an escape sequence hide one. */
static void text_versions(FILE *out, const lfa_cleanup_plan *pl) {
  for (size_t i = 0; i < pl->n_versions; i++) {
    const lfa_cleanup_version *v = &pl->versions[i];
    bool removed = v->keep == LFA_CLEANUP_REMOVED, tagged = v->keep == LFA_CLEANUP_TAGGED;
    fprintf(out, "  %s version %" PRIu64 " (", removed ? "remove" : "keep  ", v->version);
    if (removed) lfa_put_text(out, v->file);
    else if (tagged) fputs("tagged: ", out), lfa_put_text(out, v->tag);
    else fputs(lfa_cleanup_keep_name(v->keep), out);
    fputs(")\n", out);
  }
}

static void text_plan(FILE *out, const lfa_cleanup_plan *pl, bool dry_run) {
  fputs("cleanup of ", out), lfa_put_text(out, pl->dir);
  fprintf(out, " (now %" PRId64 ", grace %" PRIu64 " s)%s\n", pl->now, pl->grace_seconds,
          dry_run ? ": dry run, nothing is deleted" : "");
  for (size_t d = 1; d < pl->n_datasets; d++) {
    fprintf(out, "counting every version of %s ", pl->datasets[d].kind == LFA_CLEANUP_BRANCH ? "branch" : "clone");
    lfa_put_text(out, pl->datasets[d].dir), fputc('\n', out);
  }
  fprintf(out, "versions:\n");
  text_versions(out, pl);
  fprintf(out, "objects:\n");
  for (size_t i = 0; i < pl->n_objects; i++) {
    char why[2048];
    reason_of(why, sizeof why, pl, &pl->objects[i]);
    fprintf(out, "  %s ", lfa_cleanup_deletes(pl->objects[i].verdict) ? "delete" : "keep  ");
    lfa_put_text(out, pl->objects[i].path);
    fprintf(out, " (%" PRIu64 " bytes): ", pl->objects[i].size), lfa_put_text(out, why), fputc('\n', out);
  }
  if (pl->n_temporaries > 0) fprintf(out, "lfa's own temporaries (a commit that died before removing them):\n");
  for (size_t i = 0; i < pl->n_temporaries; i++) {
    const lfa_cleanup_temporary *t = &pl->temporaries[i];
    fprintf(out, "  %s ", t->expired ? "delete" : "keep  ");
    lfa_put_text(out, t->path);
    fprintf(out, " (%" PRIu64 " bytes): %s [FA-CLEAN-14]\n", t->size,
            t->expired ? "older than the grace period" : "not older than the grace period (a commit may be writing it)");
  }
  for (size_t i = 0; i < pl->n_notes; i++) {
    const lfa_cleanup_note *n = &pl->notes[i];
    fprintf(out, "%s %s: ", lfa_cleanup_level_name(n->level), n->rule), lfa_put_text(out, n->message), fputc('\n', out);
  }
  if (pl->notes_dropped > 0) fprintf(out, "(%zu more notes not kept)\n", pl->notes_dropped);
}

static void text_summary(FILE *out, const lfa_cleanup_plan *pl, const lfa_cleanup_done *done) {
  totals t = count(pl);
  lfa_put_text(out, pl->dir);
  if (done == NULL)
    fprintf(out, ": would remove %zu versions and delete %zu objects (%" PRIu64 " bytes); %zu objects kept%s\n",
            t.versions_removed, t.objects_deleted, t.bytes_deleted, t.objects_kept,
            pl->blocked ? "; blocked: nothing is deleted (see the error notes)" : "");
  else
    fprintf(out, ": removed %zu versions and deleted %zu objects (%" PRIu64 " bytes); %zu objects kept%s\n",
            done->manifests_deleted, done->objects_deleted, done->bytes_deleted, t.objects_kept,
            pl->blocked ? "; blocked: nothing was deleted (see the error notes)" : "");
  if (done != NULL && done->temporaries_deleted > 0)
    fprintf(out, "deleted %zu of lfa's stale temporaries [FA-CLEAN-14]\n", done->temporaries_deleted);
  if (done != NULL && done->new_versions)
    fputs("a version was committed since the plan: no object deleted, run cleanup again\n", out);
}

/* ---- JSON ------------------------------------------------------------------------------- */

static void json_versions(lfa_json_writer *w, const lfa_cleanup_plan *pl) {
  lfa_json_open_array(w, "versions");
  for (size_t i = 0; i < pl->n_versions; i++) {
    const lfa_cleanup_version *v = &pl->versions[i];
    lfa_json_open_object(w, NULL);
    lfa_json_put_u64(w, "version", v->version);
    lfa_json_put_string(w, "file", v->file);
    lfa_json_put_bool(w, "kept", v->keep != LFA_CLEANUP_REMOVED);
    lfa_json_put_string(w, "reason", lfa_cleanup_keep_name(v->keep));
    lfa_json_put_string(w, "tag", v->tag);
    lfa_json_close_object(w);
  }
  lfa_json_close_array(w);
}

static void json_datasets(lfa_json_writer *w, const lfa_cleanup_plan *pl) {
  static const char *const KIND[] = {"self", "branch", "clone"};
  lfa_json_open_array(w, "datasets");
  for (size_t i = 0; i < pl->n_datasets; i++) {
    const lfa_cleanup_dataset *d = &pl->datasets[i];
    lfa_json_open_object(w, NULL);
    lfa_json_put_string(w, "dir", d->dir);
    lfa_json_put_string(w, "kind", KIND[d->kind]);
    lfa_json_put_u64(w, "versions", d->n_versions);
    if (d->has_source_version) lfa_json_put_u64(w, "source_version", d->source_version);
    else lfa_json_put_null(w, "source_version");
    lfa_json_close_object(w);
  }
  lfa_json_close_array(w);
}

static void json_object_entry(lfa_json_writer *w, const lfa_cleanup_plan *pl, const lfa_cleanup_object *o) {
  char why[2048];
  reason_of(why, sizeof why, pl, o);
  lfa_json_open_object(w, NULL);
  lfa_json_put_string(w, "path", o->path);
  lfa_json_put_u64(w, "size_bytes", o->size);
  lfa_json_put_i64(w, "mtime", o->mtime);
  lfa_json_put_i64(w, "age_seconds", age_of(pl, o));
  lfa_json_put_string(w, "action", lfa_cleanup_deletes(o->verdict) ? "delete" : "keep");
  lfa_json_put_string(w, "reason", lfa_cleanup_verdict_name(o->verdict));
  lfa_json_put_string(w, "rule", lfa_cleanup_verdict_rule(o->verdict));
  if (o->has_ref) {
    lfa_json_open_object(w, "referenced_by");
    lfa_json_put_u64(w, "dataset", o->ref_dataset);
    if (o->ref_version) lfa_json_put_u64(w, "version", o->ref_version);
    else lfa_json_put_null(w, "version");
    lfa_json_put_bool(w, "kept", o->reached_kept);
    lfa_json_close_object(w);
  } else {
    lfa_json_put_null(w, "referenced_by");
  }
  lfa_json_put_string(w, "message", why);
  lfa_json_close_object(w);
}

static void json_notes(lfa_json_writer *w, const lfa_cleanup_plan *pl) {
  lfa_json_open_array(w, "notes");
  for (size_t i = 0; i < pl->n_notes; i++) {
    const lfa_cleanup_note *n = &pl->notes[i];
    lfa_json_open_object(w, NULL);
    lfa_json_put_string(w, "rule", n->rule);
    lfa_json_put_string(w, "severity", lfa_cleanup_level_name(n->level));
    lfa_json_put_u64(w, "dataset", n->dataset);
    if (n->has_version) lfa_json_put_u64(w, "version", n->version);
    else lfa_json_put_null(w, "version");
    lfa_json_put_string(w, "file", n->file);
    lfa_json_put_string(w, "message", n->message);
    lfa_json_close_object(w);
  }
  lfa_json_close_array(w);
}

static void json_summary(lfa_json_writer *w, const lfa_cleanup_plan *pl, const lfa_cleanup_done *done) {
  totals t = count(pl);
  lfa_json_open_object(w, "summary");
  lfa_json_put_u64(w, "versions_removed", t.versions_removed);
  lfa_json_put_u64(w, "versions_kept", t.versions_kept);
  lfa_json_put_u64(w, "objects_deleted", t.objects_deleted);
  lfa_json_put_u64(w, "bytes_deleted", t.bytes_deleted);
  lfa_json_put_u64(w, "objects_kept", t.objects_kept);
  lfa_json_put_u64(w, "errors", t.errors);
  lfa_json_put_u64(w, "notes_dropped", pl->notes_dropped);
  lfa_json_close_object(w);
  if (done == NULL) {
    lfa_json_put_null(w, "done");
    return;
  }
  lfa_json_open_object(w, "done");
  lfa_json_put_u64(w, "manifests_deleted", done->manifests_deleted);
  lfa_json_put_u64(w, "objects_deleted", done->objects_deleted);
  lfa_json_put_u64(w, "temporaries_deleted", done->temporaries_deleted);
  lfa_json_put_u64(w, "bytes_deleted", done->bytes_deleted);
  lfa_json_put_u64(w, "already_gone", done->already_gone);
  lfa_json_put_u64(w, "changed", done->changed);
  lfa_json_put_bool(w, "new_versions", done->new_versions);
  lfa_json_close_object(w);
}

static void json_plan(const lfa_cli_dataset *store, const lfa_cleanup_plan *pl, bool dry_run,
                      const lfa_cleanup_done *done, const char *error) {
  lfa_json_writer w = {.out = stdout};
  lfa_json_open_object(&w, NULL);
  lfa_json_put_string(&w, "dataset", pl->dir);
  lfa_json_put_i64(&w, "now", pl->now);
  lfa_json_put_u64(&w, "grace_seconds", pl->grace_seconds);
  lfa_json_put_bool(&w, "dry_run", dry_run);
  lfa_json_put_bool(&w, "blocked", pl->blocked);
  json_versions(&w, pl);
  json_datasets(&w, pl);
  lfa_json_open_array(&w, "objects");
  for (size_t i = 0; i < pl->n_objects; i++) json_object_entry(&w, pl, &pl->objects[i]);
  lfa_json_close_array(&w);
  lfa_json_open_array(&w, "temporaries"); /* [FA-CLEAN-14] */
  for (size_t i = 0; i < pl->n_temporaries; i++) {
    lfa_json_open_object(&w, NULL);
    lfa_json_put_string(&w, "path", pl->temporaries[i].path);
    lfa_json_put_u64(&w, "size", pl->temporaries[i].size);
    lfa_json_put_i64(&w, "mtime", pl->temporaries[i].mtime);
    lfa_json_put_string(&w, "action", pl->temporaries[i].expired ? "delete" : "keep");
    lfa_json_close_object(&w);
  }
  lfa_json_close_array(&w);
  json_notes(&w, pl);
  json_summary(&w, pl, done);
  lfa_json_put_string(&w, "error", error);
  lfa_cli_dataset_put_stats(store, &w);
  lfa_json_close_object(&w);
  lfa_json_finish(&w);
}

int lfa_cli_cleanup(int argc, char **argv) {
  cleanup_args a;
  if (!parse_args(&a, argc, argv)) return LFA_EXIT_UNUSABLE;
  lfa_cleanup_plan plan;
  lfa_error err = {0};
  lfa_cli_dataset store;
  if (!lfa_cli_dataset_open(&store, "cleanup", a.dataset, a.allow_http, a.stats)) return LFA_EXIT_UNUSABLE;
  a.o.fs = store.d.fs;
  if (lfa_cleanup_plan_make(&plan, a.dataset, &a.o, &err) != LFA_OK) {
    lfa_cli_fail("cleanup", a.dataset, err.msg);
    lfa_cleanup_plan_free(&plan);
    lfa_cli_dataset_close(&store);
    return LFA_EXIT_UNUSABLE;
  }
  lfa_cleanup_done done;
  /* what was done is reported also when the run stops half way */
  bool ok = a.dry_run || lfa_cleanup_execute(&done, &plan, &err) == LFA_OK;
  if (a.json) json_plan(&store, &plan, a.dry_run, a.dry_run ? NULL : &done, ok ? NULL : err.msg);
  else text_plan(stdout, &plan, a.dry_run), text_summary(stdout, &plan, a.dry_run ? NULL : &done);
  if (!ok) lfa_error_prefix(&err, "stopped"), lfa_cli_fail("cleanup", a.dataset, err.msg);
  bool findings = count(&plan).errors > 0 || plan.blocked;
  int status = !ok ? LFA_EXIT_UNUSABLE : findings ? LFA_EXIT_FINDINGS : LFA_EXIT_OK;
  lfa_cleanup_plan_free(&plan);
  lfa_cli_dataset_close(&store);
  return status;
}
