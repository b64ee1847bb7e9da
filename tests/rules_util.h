/* rules_util.h: what the rule tests (test_flags.c, test_ids.c,
 * test_concurrency.c, test_rules_writer.c) share: scratch directories,
 * histories written to disk, and rewriting one manifest file in place to
 * make a version another writer could have left. These helpers only build,
 * read and rewrite; expectations stay in the tests, derived by hand. */
#ifndef LFA_RULES_UTIL_H
#define LFA_RULES_UTIL_H

#define _XOPEN_SOURCE 700 /* mkdtemp */
#include "disk_util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lfa/edit.h"
#include "lfa/fs.h"
#include "lfa/history.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/table.h"

#define KEYS(...) ((lfa_keys){sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t), (const uint64_t[]){__VA_ARGS__}})
#define NAMES(...) \
  ((lfa_names_list){sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *), (const char *const[]){__VA_ARGS__}})

/* A scratch directory under /tmp, removed at the end; `ds` is a dataset
 * path inside it that does not exist yet. */
typedef struct scratch {
  char base[64];
  char ds[96];
} scratch;

static inline void scratch_make(scratch *s) {
  strcpy(s->base, "/tmp/lfa-rules-XXXXXX");
  assert_non_null(mkdtemp(s->base));
  snprintf(s->ds, sizeof s->ds, "%s/ds", s->base);
}

__attribute__((format(printf, 1, 2))) static inline int run_cmd(const char *fmt, ...) {
  char cmd[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  return system(cmd);
}

static inline void scratch_remove(const scratch *s) { assert_int_equal(run_cmd("rm -rf '%s'", s->base), 0); }

/* Commits q built against `read_version` (0: the head); fails the test when it is not committed. */
static inline void apply_at(lfa_history *h, const lfa_request *q, uint64_t read_version) {
  lfa_error err = {0};
  if (lfa_history_apply(h, q, read_version, &err) != LFA_OK)
    fail_msg("%s at %" PRIu64 ": %s", lfa_op_name(q->op), read_version, err.msg);
}

static inline void apply_head(lfa_history *h, const lfa_request *q) { apply_at(h, q, 0); }

/* `dir/_versions/{version}.manifest` (the reference writer names V1). */
static inline void manifest_path(char *out, size_t cap, const char *dir, uint64_t version) {
  snprintf(out, cap, "%s/_versions/%" PRIu64 ".manifest", dir, version);
}

/* Decodes version `version`'s manifest file, lets `edit` change it, and
 * writes it back (lfa/edit.h), inline transaction included: what another
 * writer could have left at that path. */
typedef void (*manifest_edit)(lfa_manifest_file *file, void *ctx);

static inline void rewrite_manifest(const char *dir, uint64_t version, manifest_edit edit, void *ctx) {
  lfa_edit e;
  lfa_error err = {0};
  assert_ok(lfa_edit_open(&e, NULL, dir, version, &err), &err);
  edit(&e.file, ctx);
  assert_ok(lfa_edit_save(&e, &err), &err);
  lfa_edit_close(&e);
}

/* ---- the assignment objects of a dataset ------------------------------------------- */

/* A small set of relative paths (tests write a few dozen objects). */
typedef struct path_set {
  size_t n;
  char *items[256];
} path_set;

static inline bool path_set_has(const path_set *s, const char *path) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->items[i], path) == 0) return true;
  return false;
}

static inline void path_set_add(path_set *s, const char *path) {
  if (path_set_has(s, path)) return;
  if (s->n == sizeof s->items / sizeof s->items[0]) fail_msg("path set is full");
  size_t len = strlen(path);
  s->items[s->n] = malloc(len + 1);
  assert_non_null(s->items[s->n]);
  memcpy(s->items[s->n++], path, len + 1);
}

static inline void path_set_free(path_set *s) {
  for (size_t i = 0; i < s->n; i++) free(s->items[i]);
  s->n = 0;
}

/* Every file under `dir/rel` (recursively), as paths relative to `dir`. */
static inline void list_files(path_set *out, const char *dir, const char *rel) {
  char path[1024];
  lfa_names names;
  lfa_error err = {0};
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  assert_ok(lfa_fs_list(&names, path, 1, &err), &err);
  for (size_t i = 0; i < names.count; i++) {
    char child[512];
    if ((size_t)snprintf(child, sizeof child, "%s/%s", rel, names.names[i]) >= sizeof child) fail_msg("path too long");
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, child) >= sizeof path) fail_msg("path too long");
    if (lfa_fs_is_dir(path) == 1) list_files(out, dir, child);
    else path_set_add(out, child);
  }
  lfa_fs_names_free(&names);
}

/* The roots and partial bitmaps the manifests of versions 1..count name. */
static inline void referenced_objects(path_set *out, const char *dir, uint64_t count) {
  for (uint64_t v = 1; v <= count; v++) {
    lfa_snapshot snap;
    load_version(&snap, dir, v);
    for (size_t t = 0; t < snap.n_tracked; t++) {
      path_set_add(out, snap.tracked[t].root_file->path);
      for (size_t k = 0; k < snap.tracked[t].root->n_fragments; k++) {
        const Lance__Table__FieldAssignmentFragment *e = snap.tracked[t].root->fragments[k];
        if (e->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL) path_set_add(out, e->partial->path);
      }
    }
    lfa_snapshot_free(&snap);
  }
}

/* ---- what the commit-rule tests (test_concurrency.c, test_rules_writer.c) check ---- */

/* Opens a history at `dir` (NULL: in memory) with `seed`. v1: keys 1..6 in
 * fragment 0 (1, 2, 3) and fragment 1 (4, 5, 6) over the fields `id`
 * (stored by the create), `emb` (tracked, unassigned) and `extra`
 * (untracked), ids 0, 1 and 2; v2: emb written in place (REWRITE_COLUMNS)
 * on `emb_rows`. */
static inline void rules_setup(lfa_history *h, const char *dir, uint64_t seed, bool stable, lfa_keys emb_rows) {
  static const lfa_new_field RULES_SCHEMA[] = {
      {"id", "int64", false, LFA_UNTRACKED},
      {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
      {"extra", "int32", true, LFA_UNTRACKED},
  };
  static const uint64_t keys[] = {1, 2, 3, 4, 5, 6};
  lfa_error err = {0};
  assert_ok(lfa_history_open(h, dir, seed, &err), &err);
  lfa_request c = {.op = LFA_OP_CREATE, .new_fields = RULES_SCHEMA, .n_new_fields = 3, .stable_row_ids = stable,
                   .rows = {6, keys}, .rows_per_file = 3, .fields = NAMES("id")};
  lfa_request w = {.op = LFA_OP_UPDATE, .rows = emb_rows, .fields = NAMES("emb"), .rewrite_columns = true};
  apply_head(h, &c);
  apply_head(h, &w);
}

/* The logical keys 1..63 of the live rows assigned for `field` in `t`,
 * ascending, each followed by a space. */
static inline void assigned(char *out, size_t cap, const lfa_table *t, int32_t field) {
  const lfa_field_state *s = lfa_table_tracked(t, field);
  size_t used = 0;
  if (s == NULL) fail_msg("field %d is not tracked", field);
  out[0] = '\0';
  for (uint64_t key = 1; key < 64; key++)
    for (size_t i = 0; i < t->n_fragments; i++)
      for (uint32_t o = 0; o < t->fragments[i].physical_rows; o++)
        if (t->fragments[i].keys[o] == key && lfa_fragment_is_live(&t->fragments[i], o) &&
            lfa_cell_contains(&s->cells[i], o))
          used += (size_t)snprintf(out + used, cap - used, "%llu ", (unsigned long long)key);
}

static inline void expect_assigned(const lfa_table *t, int32_t field, const char *want) {
  char got[256];
  assigned(got, sizeof got, t, field);
  assert_string_equal(got, want);
}

#endif
