/* test_verify_rules.c: verifier rules that need what a committed dataset
 * cannot hold, so conformance/invalid/ cannot carry them: bases, which are
 * absolute paths (a shallow clone reads its source through one), and a
 * transaction stored only in its `.txn` file next to a readable manifest.
 * Each fault comes with its control, the same history done right, which
 * must give no error.
 *
 * Requirement ids: FA-STORE-12 (a reused bitmap keeps its effective base),
 * FA-META-2 (UpdateBases keeps the bases N's objects are read through),
 * FA-TXN-7 (an undecodable sidecar is reported as such), FA-STORE-10 (the
 * control of FA-STORE-12 rewrites a root with unchanged entries: a warning
 * only), FA-LANCE-20 (a data file listed twice, by two fragments or by one;
 * the same path under another base is another file). */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "lfa/history.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/pb.h"
#include "lfa/pb_types.h"
#include "lfa/root.h"
#include "lfa/transaction.h"
#include "lfa/verify.h"

enum { EMB = 1 };

static const lfa_new_field FIELDS[] = {
    {"id", "int64", false, LFA_UNTRACKED},
    {"emb", "fixed_size_list:float:4", true, LFA_UNASSIGNED},
};
static const uint64_t KEYS[] = {1, 2, 3, 4, 5, 6};
static const char *const ID[] = {"id"}, *const EMB_NAME[] = {"emb"};

/* Version 1: fragments 0 and 1 of 3 rows; version 2 writes emb on (0, 1)
 * and (1, 0): two partial bitmaps. Version 3 (with `invalidate`) clears
 * emb on (0, 1) again. */
static void write_source(lfa_history *h, const char *dir, bool invalidate) {
  const lfa_request steps[] = {
      {.op = LFA_OP_CREATE, .new_fields = FIELDS, .n_new_fields = 2, .rows = {6, KEYS}, .rows_per_file = 3,
       .fields = {1, ID}},
      {.op = LFA_OP_UPDATE, .rows = {2, (const uint64_t[]){2, 4}}, .fields = {1, EMB_NAME}, .rewrite_columns = true},
      {.op = LFA_OP_UPDATE, .rows = {1, (const uint64_t[]){2}}, .invalidate = {1, EMB_NAME}},
  };
  lfa_error err = {0};
  assert_ok(lfa_history_open(h, dir, 5, &err), &err);
  for (size_t i = 0; i < (invalidate ? 3u : 2u); i++) assert_ok(lfa_history_apply(h, &steps[i], 0, &err), &err);
}

/* ---- temporary directories ---------------------------------------------------------- */

typedef struct place {
  char root[32]; /* /tmp/lfa-rules-XXXXXX: absolute, as base paths are */
  char source[64], clone[64], copy[64];
} place;

static void shell(const char *cmd) { assert_int_equal(system(cmd), 0); }

static void make_place(place *p) {
  strcpy(p->root, "/tmp/lfa-rules-XXXXXX");
  assert_non_null(mkdtemp(p->root));
  snprintf(p->source, sizeof p->source, "%s/source", p->root);
  snprintf(p->clone, sizeof p->clone, "%s/clone", p->root);
  snprintf(p->copy, sizeof p->copy, "%s/copy", p->root);
}

static void remove_place(const place *p) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", p->root);
  shell(cmd);
}

/* The source history (versions 1 and 2) and a shallow clone of its
 * version 2, whose version 1 reads every object through base 1. */
static void source_and_clone(const place *p) {
  lfa_history src, clone;
  lfa_error err = {0};
  write_source(&src, p->source, false);
  assert_ok(lfa_history_clone(&clone, &src, 2, p->clone, false, 6, &err), &err);
  lfa_history_close(&clone);
  lfa_history_close(&src);
}

static void put(const char *dir, const char *rel, const lfa_buf *b) {
  char path[PATH_MAX];
  lfa_error err = {0};
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  unlink(path);
  assert_ok(lfa_fs_write_new(path, b->data, b->len, &err), &err);
}

static lfa_buf get(const char *dir, const char *rel) {
  char path[PATH_MAX];
  lfa_buf b = {0};
  lfa_error err = {0};
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  assert_ok(lfa_fs_read(&b, path, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err);
  return b;
}

static void open_manifest(lfa_manifest_file *mf, const char *dir, uint64_t v) {
  char rel[64];
  lfa_error err = {0};
  snprintf(rel, sizeof rel, "_versions/%llu.manifest", (unsigned long long)v);
  lfa_buf b = get(dir, rel);
  assert_ok(lfa_manifest_file_decode(mf, b.data, b.len, &err), &err);
  lfa_buf_free(&b);
}

/* Writes `m` as version 2 of the clone, with `t` inline and no `.txn`
 * file. */
static void write_version_2(const char *dir, Manifest *m, Txn *t) {
  lfa_buf b = {0};
  lfa_error err = {0};
  char *name = m->transaction_file; /* the manifest's: put back before it is freed */
  m->version = 2;
  m->transaction_file = (char *)"";
  t->read_version = 1;
  t->uuid = (char *)"c0ffee00-0000-4000-8000-000000000042";
  assert_ok(lfa_manifest_file_encode(&b, m, t, &err), &err);
  put(dir, "_versions/2.manifest", &b);
  m->transaction_file = name;
  lfa_buf_free(&b);
}

/* ---- verifying ------------------------------------------------------------------------- */

static lfa_verify_result verify(const char *dir) {
  lfa_verify_result r;
  lfa_error err = {0};
  if (lfa_verify_dataset(&r, dir, NULL, &err) != LFA_OK) fail_msg("%s: %s", dir, err.msg);
  return r;
}

static size_t count(const lfa_verify_result *r, const char *rule, lfa_severity severity) {
  size_t n = 0;
  for (size_t i = 0; i < r->findings.count; i++)
    n += strcmp(r->findings.items[i].rule, rule) == 0 && r->findings.items[i].severity == severity;
  return n;
}

/* Exactly the errors `rule` (n of them, at version 2), and nothing else. */
static void expect_errors(const char *dir, const char *rule, size_t n) {
  lfa_verify_result r = verify(dir);
  size_t errors = lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR);
  bool ok = errors == n && (n == 0 || count(&r, rule, LFA_SEVERITY_ERROR) == n);
  for (size_t i = 0; ok && i < r.findings.count; i++)
    ok = r.findings.items[i].severity != LFA_SEVERITY_ERROR || r.findings.items[i].version == 2;
  if (!ok) {
    lfa_verify_print_text(stdout, &r, dir);
    fail_msg("%s: expected %zu error findings under %s", dir, n, rule);
  }
  lfa_verify_result_free(&r);
}

/* ---- FA-STORE-12 ------------------------------------------------------------------------ */

/* Version 2 of the clone (an index commit) writes emb's root again in the
 * clone itself (no base). Its entries name the source's bitmaps: with
 * base_id 1 when `keep_base`, else without one, so that they resolve in
 * the clone, where a copy of each is placed (version 2 then loads, and
 * only the lost base is wrong). */
static void local_root(const place *p, bool keep_base) {
  lfa_manifest_file mf;
  lfa_error err = {0};
  open_manifest(&mf, p->clone, 1);
  Lance__Table__FieldAssignmentFile *rf = mf.manifest->field_assignment_states[0]->root;
  assert_int_equal(mf.manifest->field_assignment_states[0]->field_id, EMB);
  assert_true(rf->has_base_id); /* [FA-CLONE-1] the clone reads the source's root through its base */
  lfa_buf b = get(p->source, rf->path);
  lfa_root *root = NULL;
  assert_ok(lfa_root_decode(&root, b.data, b.len, &err), &err);
  assert_int_equal(root->n_fragments, 2);
  for (size_t k = 0; k < root->n_fragments; k++) {
    Lance__Table__FieldAssignmentFile *partial = root->fragments[k]->partial;
    assert_non_null(partial);
    assert_false(partial->has_base_id); /* inherited from the root in the source */
    lfa_buf bitmap = get(p->source, partial->path);
    if (keep_base) partial->has_base_id = true, partial->base_id = rf->base_id;
    else put(p->clone, partial->path, &bitmap);
    lfa_buf_free(&bitmap);
  }
  b.len = 0;
  assert_ok(lfa_root_encode(&b, root, &err), &err);
  char rel[] = "_field_assignments/roots/1/c0ffee00-0000-4000-8000-000000000001.root";
  put(p->clone, rel, &b);
  char *old_path = rf->path; /* the manifest's: put back before it is freed */
  rf->path = rel;
  rf->has_base_id = false, rf->base_id = 0, rf->size_bytes = b.len;
  Lance__Table__Transaction__CreateIndex index = LANCE__TABLE__TRANSACTION__CREATE_INDEX__INIT;
  Txn t = LANCE__TABLE__TRANSACTION__INIT;
  t.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_CREATE_INDEX, t.create_index = &index;
  write_version_2(p->clone, mf.manifest, &t);
  rf->path = old_path;
  lfa_manifest_file_free(&mf);
  lfa_root_free(root);
  lfa_buf_free(&b);
}

static void test_FA_STORE_12_reused_bitmap_keeps_its_base(void **state) {
  (void)state;
  place p;
  make_place(&p);
  source_and_clone(&p);
  local_root(&p, false);
  /* both of the root's partials lost base 1: one finding each */
  expect_errors(p.clone, "FA-STORE-12", 2);
  remove_place(&p);
}

static void test_FA_STORE_12_control_explicit_base(void **state) {
  (void)state;
  place p;
  make_place(&p);
  source_and_clone(&p);
  local_root(&p, true);
  expect_errors(p.clone, NULL, 0);
  /* the control writes a root whose entries did not change [FA-STORE-10] */
  lfa_verify_result r = verify(p.clone);
  assert_int_equal(count(&r, "FA-STORE-10", LFA_SEVERITY_WARNING), 1);
  lfa_verify_result_free(&r);
  remove_place(&p);
}

/* ---- FA-META-2 -------------------------------------------------------------------------- */

/* Version 2 of the clone is an UpdateBases. With `move_base` it points base
 * 1, through which every object of emb is read, at a byte-for-byte copy of
 * the source (so version 2 loads, and only the change is wrong); without
 * it, base 1 stays and a new base 2 (the copy) is added. */
static void update_bases(const place *p, bool move_base) {
  lfa_manifest_file mf;
  char cmd[3 * PATH_MAX];
  snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", p->source, p->copy);
  shell(cmd);
  open_manifest(&mf, p->clone, 1);
  Manifest *m = mf.manifest;
  assert_int_equal(m->n_base_paths, 1);
  Lance__Table__BasePath *base = m->base_paths[0];
  assert_true(base->is_dataset_root);
  assert_true(m->field_assignment_states[0]->root->has_base_id);
  assert_int_equal(m->field_assignment_states[0]->root->base_id, base->id);
  Lance__Table__BasePath added = LANCE__TABLE__BASE_PATH__INIT, *new_bases[] = {&added};
  added.id = base->id + 1, added.is_dataset_root = true, added.path = (char *)p->copy;
  Lance__Table__Transaction__UpdateBases op = LANCE__TABLE__TRANSACTION__UPDATE_BASES__INIT;
  Txn t = LANCE__TABLE__TRANSACTION__INIT;
  t.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_UPDATE_BASES, t.update_bases = &op;
  Lance__Table__BasePath **bases = m->base_paths, *both[] = {base, &added};
  char *old_path = base->path; /* the manifest's: put back before it is freed */
  if (move_base) {
    base->path = (char *)p->copy;
  } else {
    op.new_bases = new_bases, op.n_new_bases = 1;
    m->base_paths = both, m->n_base_paths = 2;
  }
  write_version_2(p->clone, m, &t);
  base->path = old_path;
  m->base_paths = bases, m->n_base_paths = 1;
  lfa_manifest_file_free(&mf);
}

static void test_FA_META_2_update_bases_keeps_referenced_base(void **state) {
  (void)state;
  place p;
  make_place(&p);
  source_and_clone(&p);
  update_bases(&p, true);
  /* emb's root and its two partials are read through base 1 */
  expect_errors(p.clone, "FA-META-2", 1);
  remove_place(&p);
}

static void test_FA_META_2_control_new_base(void **state) {
  (void)state;
  place p;
  make_place(&p);
  source_and_clone(&p);
  update_bases(&p, false);
  expect_errors(p.clone, NULL, 0);
  remove_place(&p);
}

/* ---- FA-TXN-7 in a `.txn` file ------------------------------------------------------------ */

/* Version 3 (an invalidation) keeps its transaction in its `.txn` file
 * only; the file's field 1005 is cut short by one byte when `sidecar`, else
 * its uuid (field 2) is, so that a field other than the sidecar breaks. */
static void break_txn_file(const place *p, bool sidecar) {
  lfa_history h;
  lfa_manifest_file mf;
  lfa_error err = {0};
  write_source(&h, p->source, true);
  lfa_history_close(&h);
  open_manifest(&mf, p->source, 3);
  Txn *t = mf.transaction;
  assert_non_null(t->field_assignment_transaction);
  lfa_buf side = {0}, rest = {0};
  assert_ok(lfa_pb_pack(&side, &t->field_assignment_transaction->base, &err), &err);
  lfa_pb_free(t->field_assignment_transaction);
  t->field_assignment_transaction = NULL;
  assert_ok(lfa_transaction_encode(&rest, t, &err), &err);
  /* field 1005, length-delimited: tag 1005 << 3 | 2 = 8042 (varint 0xea
   * 0x3e), a one-byte length, the bytes (less the last one: a length
   * inside the sidecar then runs past its end) */
  size_t n = side.len - (sidecar ? 1 : 0);
  assert_true(n < 0x80);
  uint8_t head[] = {0xea, 0x3e, (uint8_t)n};
  assert_ok(lfa_buf_append(&rest, head, sizeof head, &err), &err);
  assert_ok(lfa_buf_append(&rest, side.data, n, &err), &err);
  if (!sidecar) { /* a valid sidecar, then field 2 (uuid) whose length runs past the end */
    uint8_t cut[] = {0x12, 0x7f, 'x'};
    assert_ok(lfa_buf_append(&rest, cut, sizeof cut, &err), &err);
  }
  char rel[PATH_MAX];
  snprintf(rel, sizeof rel, "_transactions/%s", mf.manifest->transaction_file);
  put(p->source, rel, &rest);
  lfa_buf b = {0};
  assert_ok(lfa_manifest_file_encode(&b, mf.manifest, NULL, &err), &err); /* no inline section */
  put(p->source, "_versions/3.manifest", &b);
  lfa_buf_free(&b);
  lfa_buf_free(&side);
  lfa_buf_free(&rest);
  lfa_manifest_file_free(&mf);
}

static size_t errors_at(const lfa_verify_result *r, const char *rule, uint64_t version) {
  size_t n = 0;
  for (size_t i = 0; i < r->findings.count; i++) {
    const lfa_finding *f = &r->findings.items[i];
    n += f->severity == LFA_SEVERITY_ERROR && f->version == version && strcmp(f->rule, rule) == 0;
  }
  return n;
}

static void test_FA_TXN_7_sidecar_in_txn_file(void **state) {
  (void)state;
  place p;
  make_place(&p);
  break_txn_file(&p, true);
  lfa_verify_result r = verify(p.source);
  assert_int_equal(errors_at(&r, "FA-TXN-7", 3), 1);
  assert_int_equal(lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR), 1);
  lfa_verify_result_free(&r);
  remove_place(&p);
}

/* The control: the sidecar decodes, another field does not. That is an
 * unreadable transaction (FA-LANCE-10, the file the manifest names), not
 * a sidecar the committer should have rejected. */
static void test_FA_TXN_7_control_other_field_broken(void **state) {
  (void)state;
  place p;
  make_place(&p);
  break_txn_file(&p, false);
  lfa_verify_result r = verify(p.source);
  assert_int_equal(errors_at(&r, "FA-TXN-7", 3), 0);
  assert_int_equal(errors_at(&r, "FA-LANCE-10", 3), 1);
  lfa_verify_result_free(&r);
  remove_place(&p);
}

/* ---- FA-LANCE-20 --------------------------------------------------------------------------- */

/* Data file `from` becomes `to` (no longer, so it is written in place) in
 * the fragments of `fs`; with `base`, it is read through base 1. */
static void rename_in(Lance__Table__DataFragment **fs, size_t n, const char *from, const char *to, bool base) {
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < fs[i]->n_files; k++) {
      Lance__Table__DataFile *f = fs[i]->files[k];
      if (strcmp(f->path, from) != 0) continue;
      assert_true(strlen(to) <= strlen(f->path));
      strcpy(f->path, to);
      if (base) f->_base_id_case = LANCE__TABLE__DATA_FILE___BASE_ID_BASE_ID, f->base_id = 1;
    }
}

/* Version 2 of the source (the update writing emb on keys 2 and 4: fragment
 * 0 gains v2-0.lance, fragment 1 v2-1.lance) renames data file `from` to
 * `to`, in its manifest and in the fragments its Update restates. With
 * `base`, the renamed file lives in another dataset, base 1, which
 * base_paths gains (feature bit 16, as Lance sets for base paths). */
static void rename_data_file(const place *p, const char *from, const char *to, bool base) {
  lfa_history h;
  lfa_manifest_file mf;
  write_source(&h, p->source, false);
  lfa_history_close(&h);
  open_manifest(&mf, p->source, 2);
  Manifest *m = mf.manifest;
  Txn *t = mf.transaction;
  assert_int_equal(t->operation_case, LANCE__TABLE__TRANSACTION__OPERATION_UPDATE);
  rename_in(m->fragments, m->n_fragments, from, to, base);
  rename_in(t->update->updated_fragments, t->update->n_updated_fragments, from, to, base);
  Lance__Table__BasePath other = LANCE__TABLE__BASE_PATH__INIT, *bases[] = {&other};
  other.id = 1, other.is_dataset_root = true, other.path = (char *)"/lfa-tests/another-dataset";
  assert_int_equal(m->n_base_paths, 0);
  if (base) {
    m->base_paths = bases, m->n_base_paths = 1;
    m->reader_feature_flags |= 16, m->writer_feature_flags |= 16;
  }
  char *uuid = t->uuid; /* the transaction's: write_version_2 sets another */
  write_version_2(p->source, m, t);
  t->uuid = uuid;
  m->base_paths = NULL, m->n_base_paths = 0; /* the local array: not the manifest's to free */
  lfa_manifest_file_free(&mf);
}

/* Fragments 0 and 1 both list v2-0.lance: one finding, at fragment 1. */
static void test_FA_LANCE_20_two_fragments_list_one_file(void **state) {
  (void)state;
  place p;
  make_place(&p);
  rename_data_file(&p, "v2-1.lance", "v2-0.lance", false);
  expect_errors(p.source, "FA-LANCE-20", 1);
  lfa_verify_result r = verify(p.source);
  for (size_t i = 0; i < r.findings.count; i++)
    if (strcmp(r.findings.items[i].rule, "FA-LANCE-20") == 0) {
      assert_true(r.findings.items[i].has_fragment);
      assert_int_equal(r.findings.items[i].fragment_id, 1);
      assert_non_null(strstr(r.findings.items[i].message, "'v2-0.lance' is listed by fragment 0 and fragment 1"));
    }
  lfa_verify_result_free(&r);
  remove_place(&p);
}

/* Fragment 0 lists v2-0.lance twice: its old file (id), renamed after the
 * one the update adds (emb). (Renaming the added file instead would hide
 * the update's write from the verifier, which finds it as the file P's
 * fragment does not list.) */
static void test_FA_LANCE_20_one_fragment_lists_a_file_twice(void **state) {
  (void)state;
  place p;
  make_place(&p);
  rename_data_file(&p, "v1-0.lance", "v2-0.lance", false);
  expect_errors(p.source, "FA-LANCE-20", 1);
  lfa_verify_result r = verify(p.source);
  for (size_t i = 0; i < r.findings.count; i++)
    if (strcmp(r.findings.items[i].rule, "FA-LANCE-20") == 0)
      assert_non_null(strstr(r.findings.items[i].message, "'v2-0.lance' is listed twice by fragment 0"));
  lfa_verify_result_free(&r);
  remove_place(&p);
}

/* The control: fragment 1's v2-0.lance is another dataset's file (base 1):
 * one path, two files, no finding. */
static void test_FA_LANCE_20_control_same_path_on_another_base(void **state) {
  (void)state;
  place p;
  make_place(&p);
  rename_data_file(&p, "v2-1.lance", "v2-0.lance", true);
  expect_errors(p.source, NULL, 0);
  remove_place(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_STORE_12_reused_bitmap_keeps_its_base),
      cmocka_unit_test(test_FA_STORE_12_control_explicit_base),
      cmocka_unit_test(test_FA_META_2_update_bases_keeps_referenced_base),
      cmocka_unit_test(test_FA_META_2_control_new_base),
      cmocka_unit_test(test_FA_TXN_7_sidecar_in_txn_file),
      cmocka_unit_test(test_FA_TXN_7_control_other_field_broken),
      cmocka_unit_test(test_FA_LANCE_20_two_fragments_list_one_file),
      cmocka_unit_test(test_FA_LANCE_20_one_fragment_lists_a_file_twice),
      cmocka_unit_test(test_FA_LANCE_20_control_same_path_on_another_base),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
