/* test_history_disk.c: histories written to disk by lfa_history (the
 * reference writer end to end) and read back through the reader: overlays
 * kept in the manifest from the DataOverlay commit until a compaction, and
 * clones written as new datasets (lfa_history_clone). `lfa verify`, `lfa
 * dump` and `lfa eval` (the binary CMake built, LFA_BIN) run on the results.
 * Requirement ids: FA-OVERLAY-2, FA-OVERLAY-3, FA-CLONE-1, FA-CLONE-2,
 * FA-CLONE-3, FA-CLONE-5, FA-CLONE-6, FA-STORE-6, FA-LANCE-23. */
#define _XOPEN_SOURCE 700 /* mkdtemp, realpath */
#include "disk_util.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lfa/bitmap.h"
#include "lfa/dataset.h"
#include "lfa/history.h"
#include "lfa/table.h"
#include "lfa/verify.h"
#include "lfa/manifest.h"
#include "lfa/limits.h"

#define KEYS(...) ((lfa_keys){sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t), (const uint64_t[]){__VA_ARGS__}})

static const uint64_t K1_12[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static const lfa_new_field SCHEMA[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
    {"payload", "struct", true, LFA_UNTRACKED},
    {"payload.value", "int32", true, LFA_UNASSIGNED},
};
static const char *ID_ONLY[] = {"id"}, *EMB_ONLY[] = {"emb"}, *EMB_PAYLOAD[] = {"emb", "payload"};

/* ---- scratch directories and the CLI ------------------------------------------------- */

typedef struct scratch {
  char base[64]; /* the mkdtemp directory, removed at the end */
  char src[96], shallow[96], deep[96];
} scratch;

static void scratch_make(scratch *s) {
  strcpy(s->base, "/tmp/lfa-hist-XXXXXX");
  assert_non_null(mkdtemp(s->base));
  snprintf(s->src, sizeof s->src, "%s/src", s->base);
  snprintf(s->shallow, sizeof s->shallow, "%s/shallow", s->base);
  snprintf(s->deep, sizeof s->deep, "%s/deep", s->base);
}

__attribute__((format(printf, 1, 2))) static int run(const char *fmt, ...) {
  char cmd[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  return system(cmd);
}

static void scratch_remove(const scratch *s) { assert_int_equal(run("rm -rf '%s'", s->base), 0); }

/* `lfa verify` finds no error; `lfa dump` and `lfa eval` decode every version. */
static void cli_reads(const char *dir) {
  assert_int_equal(run("'%s' verify '%s' >/dev/null", LFA_BIN, dir), 0);
  assert_int_equal(run("'%s' dump '%s' >/dev/null", LFA_BIN, dir), 0);
  assert_int_equal(run("'%s' eval '%s' --field emb --json >/dev/null", LFA_BIN, dir), 0);
  assert_int_equal(run("'%s' eval '%s' --field payload.value >/dev/null", LFA_BIN, dir), 0);
}

static bool exists(const char *dir, const char *rel) {
  char path[256];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  return stat(path, &st) == 0;
}

/* ---- reading back ------------------------------------------------------------------------ */

static void assert_overlays_equal(const lfa_fragment *a, const lfa_fragment *b) {
  assert_int_equal(a->n_overlays, b->n_overlays);
  for (size_t k = 0; k < a->n_overlays; k++) {
    const lfa_overlay *x = &a->overlays[k], *y = &b->overlays[k];
    assert_string_equal(x->file.path, y->file.path);
    assert_int_equal(x->file.n_fields, y->file.n_fields);
    assert_memory_equal(x->file.fields, y->file.fields, x->file.n_fields * sizeof(int32_t));
    assert_int_equal(x->shared, y->shared);
    assert_int_equal(x->committed_version, y->committed_version);
    for (size_t j = 0; j < (x->shared ? 1 : x->file.n_fields); j++)
      assert_true(roaring_bitmap_equals(x->coverage[j], y->coverage[j]));
  }
}

/* `got` (read from disk) has `want`'s fragments, deletions, row ids,
 * overlays, and state on every live row (FA-SEM-2). */
static void assert_same_state(const lfa_table *got, const lfa_table *want) {
  assert_int_equal(got->n_fragments, want->n_fragments);
  assert_int_equal(got->n_tracked, want->n_tracked);
  assert_int_equal(got->stable_row_ids, want->stable_row_ids);
  for (size_t i = 0; i < got->n_fragments; i++) {
    const lfa_fragment *g = &got->fragments[i], *w = &want->fragments[i];
    assert_int_equal(g->id, w->id);
    assert_int_equal(g->physical_rows, w->physical_rows);
    assert_int_equal(g->deleted == NULL, w->deleted == NULL);
    if (g->deleted != NULL) assert_true(roaring_bitmap_equals(g->deleted, w->deleted));
    for (uint64_t o = 0; want->stable_row_ids && o < g->physical_rows; o++)
      assert_int_equal(g->row_ids[o], w->row_ids[o]);
    assert_overlays_equal(g, w);
    for (size_t s = 0; s < got->n_tracked; s++) {
      assert_int_equal(got->tracked[s].field_id, want->tracked[s].field_id);
      assert_true(lfa_cells_equal_live(&got->tracked[s].cells[i], &want->tracked[s].cells[i], w));
    }
  }
}

static void assert_history_reads_back(const lfa_history *h, const char *dir) {
  for (uint64_t v = 1; v <= h->count; v++) {
    lfa_table t;
    read_table(&t, dir, v);
    assert_same_state(&t, lfa_history_version(h, v));
    lfa_table_free(&t);
  }
}

static void apply(lfa_history *h, const lfa_request *q) {
  lfa_error err = {0};
  if (lfa_history_apply(h, q, 0, &err) != LFA_OK) fail_msg("%s: %s", lfa_op_name(q->op), err.msg);
}

/* Keys 1..12 in fragments of 3 (ids 0..3), `id` stored, emb and
 * payload.value tracked and unassigned. */
static void create(lfa_history *h, const char *dir, bool stable) {
  lfa_error err = {0};
  assert_ok(lfa_history_open(h, dir, 7, &err), &err);
  lfa_request q = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 4, .stable_row_ids = stable,
                   .rows = {12, K1_12}, .rows_per_file = 3, .fields = {1, ID_ONLY}};
  apply(h, &q);
}

static size_t total_overlays(const lfa_table *t) {
  size_t n = 0;
  for (size_t i = 0; i < t->n_fragments; i++) n += t->fragments[i].n_overlays;
  return n;
}

/* ---- overlays ---------------------------------------------------------------------------- */

/* Overlays are in N's manifest, stay in every later one, and leave with a
 * compaction of their fragment (FA-OVERLAY-2: never state again). */
static void test_overlays_are_kept_until_compaction(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    scratch s;
    lfa_history h;
    scratch_make(&s);
    create(&h, s.src, stable);
    lfa_request one = {.op = LFA_OP_OVERLAY, .fragment_id = 0, .rows = KEYS(1, 3), .fields = {1, EMB_ONLY}};
    lfa_request two = {.op = LFA_OP_OVERLAY, .fragment_id = 1, .rows = KEYS(5), .fields = {2, EMB_PAYLOAD}};
    apply(&h, &one);                                                    /* v2: shared coverage */
    apply(&h, &two);                                                    /* v3: field_coverage, 3 fields */
    apply(&h, &one);                                                    /* v4: a second one on fragment 0 */
    lfa_request del = {.op = LFA_OP_DELETE, .rows = KEYS(2)};           /* v5: fragment 0 is restated */
    lfa_request cfg = {.op = LFA_OP_UPDATE_CONFIG};                     /* v6 */
    apply(&h, &del);
    apply(&h, &cfg);
    const lfa_table *v6 = lfa_history_head(&h);
    assert_int_equal(v6->fragments[0].n_overlays, 2);
    assert_int_equal(v6->fragments[0].overlays[0].committed_version, 2);
    assert_int_equal(v6->fragments[0].overlays[1].committed_version, 4);
    assert_true(v6->fragments[0].overlays[0].shared);
    assert_int_equal(v6->fragments[1].n_overlays, 1);
    assert_false(v6->fragments[1].overlays[0].shared);
    assert_int_equal(v6->fragments[1].overlays[0].file.n_fields, 3);
    lfa_request compact = {.op = LFA_OP_COMPACT};                       /* v7: folded into data files */
    apply(&h, &compact);
    assert_int_equal(total_overlays(lfa_history_head(&h)), 0);
    assert_history_reads_back(&h, s.src);
    lfa_history_close(&h);
    cli_reads(s.src);
    scratch_remove(&s);
  }
}

/* ---- clones ------------------------------------------------------------------------------ */

/* A source with partials in two fragments, deletions (one fragment with a
 * partial and deletions) and an overlay; version 5 is cloned, version 6
 * changes the source after it. */
static void clone_source(lfa_history *h, const char *dir, bool stable) {
  create(h, dir, stable);
  lfa_request w1 = {.op = LFA_OP_UPDATE, .rows = KEYS(1, 2, 5), .fields = {1, EMB_ONLY}, .rewrite_columns = true};
  lfa_request ov = {.op = LFA_OP_OVERLAY, .fragment_id = 2, .rows = KEYS(8), .fields = {2, EMB_PAYLOAD}};
  lfa_request del = {.op = LFA_OP_DELETE, .rows = KEYS(2, 6, 10)};
  lfa_request inval = {.op = LFA_OP_UPDATE, .rows = KEYS(5), .invalidate = {1, EMB_ONLY}};
  lfa_request later = {.op = LFA_OP_DELETE, .rows = KEYS(1)};
  apply(h, &w1);    /* v2 */
  apply(h, &ov);    /* v3 */
  apply(h, &del);   /* v4 */
  apply(h, &inval); /* v5 */
  apply(h, &later); /* v6 */
}

/* The clone's manifest: base ids where a shallow clone needs them, none in a
 * deep one [FA-CLONE-1] [FA-CLONE-2] [FA-STORE-6]; data and deletion files
 * too [FA-CLONE-5]; bit 16 in both words exactly when base_paths is not
 * empty [FA-LANCE-23]. */
static void check_bases(const char *dir, bool deep, const char *source_dir) {
  lfa_snapshot snap;
  load_version(&snap, dir, 1);
  const Lance__Table__Manifest *m = snap.file.manifest;
  char abs[4096];
  assert_non_null(realpath(source_dir, abs));
  assert_int_equal(m->n_base_paths, deep ? 0 : 1);
  assert_int_equal((m->reader_feature_flags & 16) != 0, !deep);
  assert_int_equal((m->writer_feature_flags & 16) != 0, !deep);
  if (!deep) {
    assert_int_equal(m->base_paths[0]->id, 1);
    assert_true(m->base_paths[0]->is_dataset_root);
    assert_string_equal(m->base_paths[0]->path, abs);
  }
  size_t deletions = 0;
  for (size_t i = 0; i < m->n_fragments; i++) {
    for (size_t k = 0; k < m->fragments[i]->n_files; k++)
      assert_int_equal(m->fragments[i]->files[k]->_base_id_case == LANCE__TABLE__DATA_FILE___BASE_ID_BASE_ID, !deep);
    const Lance__Table__DeletionFile *d = m->fragments[i]->deletion_file;
    if (d == NULL) continue;
    deletions++;
    assert_int_equal(d->_base_id_case == LANCE__TABLE__DELETION_FILE___BASE_ID_BASE_ID, !deep);
  }
  assert_true(deletions > 0);
  assert_int_equal(m->n_field_assignment_states, 2);
  lfa_snapshot source;
  load_version(&source, source_dir, 5);
  for (size_t i = 0; i < snap.n_tracked; i++) { /* same paths and sizes: nothing had to change [FA-CLONE-3] */
    assert_string_equal(snap.tracked[i].root_file->path, source.tracked[i].root_file->path);
    assert_int_equal(snap.tracked[i].root_file->size_bytes, source.tracked[i].root_file->size_bytes);
  }
  lfa_snapshot_free(&source);
  for (size_t i = 0; i < snap.n_tracked; i++) {
    assert_int_equal(snap.tracked[i].root_file->has_base_id, !deep);
    if (!deep) assert_int_equal(snap.tracked[i].root_file->base_id, 1);
    for (size_t k = 0; k < snap.tracked[i].root->n_fragments; k++) {
      const lfa_root_entry *e = snap.tracked[i].root->fragments[k]; /* `partial` shares a union */
      if (e->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL)
        assert_false(e->partial->has_base_id); /* partials inherit their root's base */
    }
  }
  const Lance__Table__Transaction *t = snap.transaction;
  assert_int_equal(t->operation_case, LANCE__TABLE__TRANSACTION__OPERATION_CLONE);
  assert_int_equal(t->clone->is_shallow, !deep);
  assert_int_equal(t->clone->ref_version, 5);
  assert_string_equal(t->clone->ref_path, abs);
  lfa_snapshot_free(&snap);
}

static void clone_ok(lfa_history *out, const lfa_history *src, const char *dir, bool deep) {
  lfa_error err = {0};
  assert_ok(lfa_history_clone(out, src, 5, dir, deep, 11, &err), &err);
  assert_int_equal(out->count, 1);
}

/* Shallow and deep clones of version 5 read back with exactly its state on
 * every live row; the shallow one copies nothing, the deep one survives the
 * source's removal; dump, eval and verify read both. */
static void test_FA_CLONE_1_and_2_clones_on_disk(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    scratch s;
    lfa_history src, shallow, deep;
    scratch_make(&s);
    clone_source(&src, s.src, stable);
    const lfa_table *v5 = lfa_history_version(&src, 5);
    assert_non_null(lfa_table_tracked(v5, 1));
    clone_ok(&shallow, &src, s.shallow, false);
    clone_ok(&deep, &src, s.deep, true);
    lfa_table t;
    for (int k = 0; k < 2; k++) {
      const char *dir = k ? s.deep : s.shallow;
      read_table(&t, dir, 1);
      assert_same_state(&t, v5);
      assert_same_state(&t, lfa_history_head(k ? &deep : &shallow));
      lfa_table_free(&t);
      check_bases(dir, k, s.src);
      cli_reads(dir);
    }
    assert_false(exists(s.shallow, "_field_assignments"));
    assert_false(exists(s.shallow, "_deletions"));
    assert_true(exists(s.deep, "_field_assignments/roots"));
    assert_true(exists(s.deep, "_field_assignments/bitmaps"));
    assert_true(exists(s.deep, "_deletions"));
    /* the clone takes no later commit (FA-CLONE-4 is not implemented) */
    lfa_error err = {0};
    lfa_request cfg = {.op = LFA_OP_UPDATE_CONFIG};
    assert_status(lfa_history_apply(&shallow, &cfg, 0, &err), LFA_ERR_USAGE, &err);
    assert_int_equal(shallow.count, 1);
    /* the deep clone stands alone */
    assert_int_equal(run("rm -rf '%s'", s.src), 0);
    read_table(&t, s.deep, 1);
    assert_same_state(&t, v5);
    lfa_table_free(&t);
    assert_int_equal(run("'%s' eval '%s' --field emb >/dev/null", LFA_BIN, s.deep), 0);
    lfa_history_close(&src);
    lfa_history_close(&shallow);
    lfa_history_close(&deep);
    scratch_remove(&s);
  }
}

/* Error findings of `rule` in the verification of `dir`. */
static size_t findings_of(const char *dir, const char *rule) {
  lfa_verify_result res;
  lfa_error err = {0};
  assert_ok(lfa_verify_dataset(&res, dir, NULL, &err), &err);
  size_t n = 0;
  for (size_t i = 0; i < res.findings.count; i++)
    n += res.findings.items[i].severity == LFA_SEVERITY_ERROR && strcmp(res.findings.items[i].rule, rule) == 0;
  lfa_verify_result_free(&res);
  return n;
}

/* The feature words of version v of dir, in both words: `want` of the bits
 * 1, 2, 16, 64 and 2^52 [FA-LANCE-23] [FA-FLAG-1]. */
static void expect_bits(const char *dir, uint64_t v, uint64_t want) {
  const uint64_t mask = 1 | 2 | 16 | 64 | LFA_FLAG_FIELD_ASSIGNMENT;
  lfa_snapshot snap;
  load_version(&snap, dir, v);
  assert_int_equal(snap.file.manifest->reader_feature_flags & mask, want);
  assert_int_equal(snap.file.manifest->writer_feature_flags & mask, want);
  lfa_snapshot_free(&snap);
}

/* [FA-CLONE-6] Clones committed into the dataset they clone, as a
 * conformance step commits them (lfa_history_apply): after clone_source's
 * v6, v7 is a shallow clone of v5 and v8 a deep one (both read at v5).
 * Each is v5's manifest
 * as the next version with a Clone transaction: no base_paths entry, no
 * base_id on a data file, deletion file or descriptor, the descriptors'
 * roots v5's very objects (nothing copied), the same fragments and ids.
 * [FA-LANCE-23] bits by hand from clone_source: v1 none but LFA_FLAG_FIELD_ASSIGNMENT (and 2
 * with stable row ids); v3 has an overlay: 64; v4 deletes: 1 as well;
 * the clones keep v5's (1, 64) and never 16. */
static void test_FA_CLONE_6_clone_into_its_own_dataset(void **state) {
  (void)state;
  for (int stable = 0; stable < 2; stable++) {
    scratch s;
    lfa_history h;
    scratch_make(&s);
    clone_source(&h, s.src, stable);
    lfa_error err = {0};
    lfa_request shallow = {.op = LFA_OP_CLONE}, deep = {.op = LFA_OP_CLONE, .deep = true};
    assert_ok(lfa_history_apply(&h, &shallow, 5, &err), &err); /* v7: read at v5, v6 is the later delete */
    assert_ok(lfa_history_apply(&h, &deep, 5, &err), &err);    /* v8 */
    lfa_snapshot v5;
    load_version(&v5, s.src, 5);
    for (uint64_t v = 7; v <= 8; v++) {
      lfa_snapshot c;
      load_version(&c, s.src, v);
      const Lance__Table__Manifest *m = c.file.manifest;
      assert_int_equal(m->version, v);
      assert_int_equal(c.transaction->operation_case, LANCE__TABLE__TRANSACTION__OPERATION_CLONE);
      assert_int_equal(m->n_base_paths, 0);
      assert_int_equal(m->n_fragments, v5.file.manifest->n_fragments);
      for (size_t i = 0; i < m->n_fragments; i++) {
        assert_int_equal(m->fragments[i]->id, v5.file.manifest->fragments[i]->id);
        for (size_t k = 0; k < m->fragments[i]->n_files; k++)
          assert_int_equal(m->fragments[i]->files[k]->_base_id_case, LANCE__TABLE__DATA_FILE___BASE_ID__NOT_SET);
        if (m->fragments[i]->deletion_file != NULL)
          assert_int_equal(m->fragments[i]->deletion_file->_base_id_case, LANCE__TABLE__DELETION_FILE___BASE_ID__NOT_SET);
      }
      assert_int_equal(c.n_tracked, v5.n_tracked);
      for (size_t i = 0; i < c.n_tracked; i++) {
        assert_false(c.tracked[i].root_file->has_base_id);
        assert_string_equal(c.tracked[i].root_file->path, v5.tracked[i].root_file->path);
      }
      lfa_snapshot_free(&c);
      expect_bits(s.src, v, 1 | 64 | LFA_FLAG_FIELD_ASSIGNMENT | (stable ? 2 : 0));
    }
    lfa_snapshot_free(&v5);
    expect_bits(s.src, 1, LFA_FLAG_FIELD_ASSIGNMENT | (stable ? 2 : 0));
    expect_bits(s.src, 3, 64 | LFA_FLAG_FIELD_ASSIGNMENT | (stable ? 2 : 0));
    expect_bits(s.src, 4, 1 | 64 | LFA_FLAG_FIELD_ASSIGNMENT | (stable ? 2 : 0));
    assert_int_equal(findings_of(s.src, "FA-CLONE-1"), 0);
    lfa_history_close(&h);
    scratch_remove(&s);
  }
}

/* A deep clone whose descriptor still names a base has not copied what it
 * references [FA-CLONE-2]: the verifier says so, once per such descriptor.
 * The clone as written names none (the control). */
static void test_FA_CLONE_2_deep_clone_naming_a_base_is_reported(void **state) {
  (void)state;
  scratch s;
  lfa_history src, deep;
  scratch_make(&s);
  clone_source(&src, s.src, false);
  clone_ok(&deep, &src, s.deep, true);
  assert_int_equal(findings_of(s.deep, "FA-CLONE-2"), 0);
  char path[LFA_PATH_BYTES_MAX];
  lfa_buf b = {0};
  lfa_error err = {0};
  lfa_manifest_file mf;
  snprintf(path, sizeof path, "%s/_versions/1.manifest", s.deep);
  assert_ok(lfa_fs_read(&b, path, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err);
  assert_ok(lfa_manifest_file_decode(&mf, b.data, b.len, &err), &err);
  assert_true(mf.manifest->n_field_assignment_states >= 1);
  Lance__Table__FieldAssignmentFile *root = mf.manifest->field_assignment_states[0]->root;
  /* still read through a base: one naming the clone's own directory, so the
   * objects resolve (the version loads) and only the base is wrong */
  char abs[PATH_MAX];
  assert_non_null(realpath(s.deep, abs));
  Lance__Table__BasePath base = LANCE__TABLE__BASE_PATH__INIT, *bases[] = {&base};
  base.id = 1, base.is_dataset_root = true, base.path = abs;
  root->has_base_id = true, root->base_id = 1;
  size_t n_bases = mf.manifest->n_base_paths;
  Lance__Table__BasePath **kept = mf.manifest->base_paths;
  mf.manifest->n_base_paths = 1, mf.manifest->base_paths = bases;
  b.len = 0;
  assert_ok(lfa_manifest_file_encode(&b, mf.manifest, mf.transaction, &err), &err);
  mf.manifest->n_base_paths = n_bases, mf.manifest->base_paths = kept; /* freed by its owner */
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
  assert_int_equal(fclose(f), 0);
  assert_int_equal(findings_of(s.deep, "FA-CLONE-2"), 1);
  lfa_manifest_file_free(&mf);
  lfa_buf_free(&b);
  lfa_history_close(&src);
  lfa_history_close(&deep);
  scratch_remove(&s);
}

static void test_clone_refusals(void **state) {
  (void)state;
  scratch s;
  lfa_history src, out, mem;
  lfa_error err = {0};
  scratch_make(&s);
  create(&src, s.src, false);
  assert_status(lfa_history_clone(&out, &src, 9, s.shallow, false, 1, &err), LFA_ERR_USAGE, &err);
  lfa_history_close(&out);
  assert_status(lfa_history_clone(&out, &src, 1, s.src, false, 1, &err), LFA_ERR_USAGE, &err); /* dir exists */
  lfa_history_close(&out);
  assert_ok(lfa_history_open(&mem, NULL, 1, &err), &err);
  lfa_request q = {.op = LFA_OP_CREATE, .new_fields = SCHEMA, .n_new_fields = 4, .rows = {3, K1_12}, .fields = {1, ID_ONLY}};
  assert_ok(lfa_history_apply(&mem, &q, 0, &err), &err);
  assert_status(lfa_history_clone(&out, &mem, 1, s.deep, true, 1, &err), LFA_ERR_USAGE, &err); /* not on disk */
  lfa_history_close(&out);
  lfa_history_close(&mem);
  lfa_history_close(&src);
  scratch_remove(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_overlays_are_kept_until_compaction),
      cmocka_unit_test(test_FA_CLONE_1_and_2_clones_on_disk),
      cmocka_unit_test(test_clone_refusals),
      cmocka_unit_test(test_FA_CLONE_2_deep_clone_naming_a_base_is_reported),
      cmocka_unit_test(test_FA_CLONE_6_clone_into_its_own_dataset),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
