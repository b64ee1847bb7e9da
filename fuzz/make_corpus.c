/* make_corpus.c: writes the seed corpora corpus/<target>/ with lfa's own
 * encoders (fuzz/README.md, "Seeds").
 *
 *   make_corpus CORPUS_DIR SHARED_DIR WORK_DIR
 *   (or: cmake --build BUILD --target corpus)
 *
 * Three sources, every seed checked with its decoder before it is written:
 *  - the sample dataset, written by lfa_fixture_write_sample into WORK_DIR/sample
 *    (bytes of our encoders, copied as they are), prefix `sample-`;
 *  - the datasets in SHARED_DIR (the upstream layout example and the
 *    lance-test-data releases): every object is decoded and only our
 *    encoders' re-encoding is written, never the shared bytes themselves,
 *    prefixes `upstream-` (every version) and `lance-<release>-<dataset>-`
 *    (the newest version of each);
 *  - hand-made edge cases built here: the empty root, run-form bitmaps,
 *    treemaps with several buckets, `.arrow` files with and without ZSTD,
 *    row id sequences of every segment kind and width, a sidecar with every
 *    kind of entry, a manifest with an index section.
 * The same bytes are written once per target (the first name wins). Files
 * already in corpus/ are left alone, so crash reproducers stay; a seed of
 * the same name is overwritten. The output is deterministic: running it
 * twice writes the same bytes.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lfa/bitmap.h"
#include "lfa/bytes.h"
#include "lfa/dataset.h"
#include "lfa/deletion.h"
#include "lfa/fixtures.h"
#include "lfa/fs.h"
#include "lfa/history.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/memfs.h"
#include "lfa/paths.h"
#include "lfa/pb.h"
#include "lfa/pb_types.h"
#include "lfa/root.h"
#include "lfa/rowids.h"
#include "lfa/transaction.h"
#include "rowids.pb-c.h"

enum { SEED_BYTES_MAX = 64 * 1024 };

typedef enum kind { K_MANIFEST, K_TXN, K_ROOT, K_BITMAP, K_DELETION_BIN, K_TREEMAP, K_ARROW, K_ROWIDS, K_COUNT } kind;

/* The targets each kind of seed feeds (fuzz/<target>_fuzz.c). */
static const char *const TARGETS[K_COUNT][2] = {
    [K_MANIFEST] = {"decode_manifest", "roundtrip_manifest"},
    [K_TXN] = {"decode_transaction", "roundtrip_transaction"},
    [K_ROOT] = {"decode_root", "roundtrip_root"},
    [K_BITMAP] = {"decode_bitmap", "roundtrip_bitmap"},
    [K_DELETION_BIN] = {"decode_deletion_bin", NULL},
    [K_TREEMAP] = {"decode_treemap", "roundtrip_treemap"},
    [K_ARROW] = {"decode_deletion_arrow", "roundtrip_deletion_arrow"},
    [K_ROWIDS] = {"decode_row_ids", "roundtrip_row_ids"},
};

typedef struct seen {
  kind k;
  uint8_t *data;
  size_t len;
} seen;

typedef struct ctx {
  const char *corpus;
  seen *seen;
  size_t n_seen, cap_seen;
  unsigned written[K_COUNT];
} ctx;

__attribute__((noreturn, format(printf, 1, 2))) static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("make_corpus: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

/* snprintf that refuses to truncate: a cut name or path is a bug here. */
__attribute__((format(printf, 3, 4))) static void fit(char *out, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(out, cap, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= cap) die("name too long: %s...", out);
}

static void check(lfa_status st, const lfa_error *err, const char *what) {
  if (st != LFA_OK) die("%s: %s", what, err->msg);
}

/* ---- writing seeds -------------------------------------------------------- */

/* The status the kind's decoder gives these bytes. */
static lfa_status decode_status(kind k, const uint8_t *data, size_t len, lfa_error *err) {
  lfa_status st = LFA_OK;
  switch (k) {
    case K_MANIFEST: {
      lfa_manifest_file f;
      if ((st = lfa_manifest_file_decode(&f, data, len, err)) == LFA_OK) lfa_manifest_file_free(&f);
      return st;
    }
    case K_TXN: {
      Lance__Table__Transaction *t = NULL;
      st = lfa_transaction_decode(&t, data, len, err);
      lfa_transaction_free(t);
      return st;
    }
    case K_ROOT: {
      lfa_root *r = NULL;
      st = lfa_root_decode(&r, data, len, err);
      lfa_root_free(r);
      return st;
    }
    case K_BITMAP:
    case K_DELETION_BIN:
    case K_ARROW: {
      roaring_bitmap_t *bm = NULL;
      st = lfa_deletion_decode(&bm, k == K_ARROW ? LFA_DELETION_ARROW : LFA_DELETION_BITMAP, data, len, err);
      lfa_bitmap_free(bm);
      return st;
    }
    case K_TREEMAP: {
      lfa_treemap t;
      if ((st = lfa_treemap_decode(&t, data, len, err)) == LFA_OK) lfa_treemap_free(&t);
      return st;
    }
    case K_ROWIDS: { /* bytes 0-1: the fragment's physical_rows (decode_row_ids_fuzz.c) */
      lfa_row_ids ids;
      if (len < 2) return lfa_fail(err, LFA_ERR_FORMAT, NULL, "no row count");
      st = lfa_row_ids_decode_rows(&ids, data + 2, len - 2, (uint64_t)data[0] | (uint64_t)data[1] << 8, err);
      lfa_row_ids_free(&ids);
      return st;
    }
    case K_COUNT: break;
  }
  return lfa_fail(err, LFA_ERR_USAGE, NULL, "no such kind");
}

static void write_file(const char *dir, const char *name, const uint8_t *data, size_t len) {
  char path[LFA_PATH_BYTES_MAX];
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) die("cannot create %s: %s", dir, strerror(errno));
  fit(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (f == NULL || (len > 0 && fwrite(data, 1, len, f) != len) || fclose(f) != 0)
    die("cannot write %s", path);
}

/* Writes one seed for every target of `k`, after checking that the decoder
 * gives `want`; bytes already written for this kind are skipped. */
static void emit_expect(ctx *c, kind k, const char *name, const uint8_t *data, size_t len, lfa_status want) {
  lfa_error err;
  lfa_error_clear(&err);
  lfa_status st = decode_status(k, data, len, &err);
  if (st != want)
    die("seed %s: decoder says %s (%s), expected %s", name, lfa_status_name(st), err.msg, lfa_status_name(want));
  if (len > SEED_BYTES_MAX) die("seed %s: %zu bytes, more than %d", name, len, SEED_BYTES_MAX);
  for (size_t i = 0; i < c->n_seen; i++)
    if (c->seen[i].k == k && c->seen[i].len == len && (len == 0 || memcmp(c->seen[i].data, data, len) == 0))
      return;
  if (c->n_seen == c->cap_seen) {
    c->cap_seen = c->cap_seen ? 2 * c->cap_seen : 64;
    c->seen = realloc(c->seen, c->cap_seen * sizeof *c->seen);
    if (c->seen == NULL) die("out of memory");
  }
  uint8_t *copy = malloc(len ? len : 1);
  if (copy == NULL) die("out of memory");
  if (len > 0) memcpy(copy, data, len);
  c->seen[c->n_seen++] = (seen){k, copy, len};
  for (size_t t = 0; t < 2 && TARGETS[k][t] != NULL; t++) {
    char dir[LFA_PATH_BYTES_MAX];
    fit(dir, sizeof dir, "%s/%s", c->corpus, TARGETS[k][t]);
    write_file(dir, name, data, len);
  }
  c->written[k]++;
}

static void emit(ctx *c, kind k, const char *name, const uint8_t *data, size_t len) {
  emit_expect(c, k, name, data, len, LFA_OK);
}

static void emit_buf(ctx *c, kind k, const char *name, lfa_buf *b) {
  emit(c, k, name, b->data, b->len);
  lfa_buf_free(b);
}

/* A row id sequence seed: its id count as 2 little-endian bytes (the
 * fragment's physical_rows), then the sequence `b` (taken over). */
static void emit_row_ids(ctx *c, const char *name, lfa_buf *b) {
  lfa_row_ids ids;
  lfa_error err;
  check(lfa_row_ids_decode(&ids, b->data, b->len, &err), &err, name);
  if (ids.count > 0xFFFF) die("seed %s: %" PRIu64 " ids, more than 2 bytes count", name, ids.count);
  lfa_buf seed = {0};
  uint8_t rows[2] = {(uint8_t)(ids.count & 0xFF), (uint8_t)(ids.count >> 8)};
  lfa_row_ids_free(&ids);
  check(lfa_buf_append(&seed, rows, 2, &err), &err, name);
  check(lfa_buf_append(&seed, b->data, b->len, &err), &err, name);
  lfa_buf_free(b);
  emit_buf(c, K_ROWIDS, name, &seed);
}

static void emit_bitmap(ctx *c, kind k, const char *name, const roaring_bitmap_t *bm) {
  lfa_error err;
  lfa_buf b = {0};
  check(lfa_bitmap_encode(&b, bm, &err), &err, name);
  emit_buf(c, k, name, &b);
}

/* ---- seeds from datasets ------------------------------------------------------ */

/* A dataset and how its objects become seeds: copied as written (our own
 * sample) or decoded and re-encoded (anything from ../shared). */
typedef struct dataset {
  const char *dir;
  const char *prefix;
  bool reencode;
  bool latest_only; /* only the newest version (older releases repeat themselves) */
} dataset;

static bool read_object(lfa_buf *out, const char *dir, const Lance__Table__Manifest *m, const char *subdir,
                        const char *rel) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_error err;
  memset(out, 0, sizeof *out);
  if (lfa_path_resolve(path, sizeof path, dir, m, (lfa_anchor){0}, false, subdir, rel, &err) != LFA_OK)
    return false;
  return lfa_fs_read(out, path, LFA_MANIFEST_FILE_BYTES_MAX, &err) == LFA_OK;
}

static void seeds_of_transaction(ctx *c, const dataset *d, const char *stem, const Lance__Table__Transaction *t,
                                 const lfa_buf *raw) {
  char name[256];
  lfa_error err;
  lfa_buf b = {0};
  fit(name, sizeof name, "%s-%s.txn", stem, lfa_transaction_operation_name(t));
  if (d->reencode || raw == NULL) {
    check(lfa_transaction_encode(&b, t, &err), &err, name);
    emit_buf(c, K_TXN, name, &b);
  } else {
    emit(c, K_TXN, name, raw->data, raw->len);
  }
  const Lance__Table__Transaction__FieldAssignmentTransaction *s = t->field_assignment_transaction;
  for (size_t i = 0; s != NULL && i < s->n_row_changes; i++) {
    lfa_treemap tm;
    const ProtobufCBinaryData *a = &s->row_changes[i]->row_addresses;
    fit(name, sizeof name, "%s-rowchange%zu-field%d.treemap", stem, i, s->row_changes[i]->field_id);
    check(lfa_treemap_decode(&tm, a->data, a->len, &err), &err, name);
    check(lfa_treemap_encode(&b, &tm, &err), &err, name);
    lfa_treemap_free(&tm);
    emit_buf(c, K_TREEMAP, name, &b);
  }
  for (size_t i = 0; s != NULL && i < s->n_fragment_states; i++) {
    const ProtobufCBinaryData *p = &s->fragment_states[i]->partial;
    if (s->fragment_states[i]->state_case !=
        LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_PARTIAL)
      continue;
    roaring_bitmap_t *bm = NULL;
    fit(name, sizeof name, "%s-fragstate%zu-field%d.rbm", stem, i, s->fragment_states[i]->field_id);
    check(lfa_bitmap_decode(&bm, p->data, p->len, &err), &err, name);
    emit_bitmap(c, K_BITMAP, name, bm);
    roaring_bitmap_free(bm);
  }
}

static void seeds_of_root(ctx *c, const dataset *d, const char *stem, const Lance__Table__Manifest *m,
                          const Lance__Table__FieldAssignmentState *fas) {
  char name[256];
  lfa_error err;
  lfa_buf raw, b = {0};
  lfa_root *root = NULL;
  if (!read_object(&raw, d->dir, m, "", fas->root->path)) die("%s: cannot read root %s", d->dir, fas->root->path);
  fit(name, sizeof name, "%s-field%d.root", stem, fas->field_id);
  check(lfa_root_decode(&root, raw.data, raw.len, &err), &err, name);
  if (d->reencode) {
    check(lfa_root_encode(&b, root, &err), &err, name);
    emit_buf(c, K_ROOT, name, &b);
  } else {
    emit(c, K_ROOT, name, raw.data, raw.len);
  }
  lfa_buf_free(&raw);
  for (size_t i = 0; i < root->n_fragments; i++) {
    const lfa_root_entry *e = root->fragments[i];
    if (e->state_case != LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL) continue;
    roaring_bitmap_t *bm = NULL;
    fit(name, sizeof name, "%s-field%d-frag%" PRIu64 ".rbm", stem, fas->field_id, e->fragment_id);
    if (!read_object(&raw, d->dir, m, "", e->partial->path)) die("%s: cannot read %s", d->dir, e->partial->path);
    check(lfa_bitmap_decode(&bm, raw.data, raw.len, &err), &err, name);
    if (d->reencode) emit_bitmap(c, K_BITMAP, name, bm);
    else emit(c, K_BITMAP, name, raw.data, raw.len);
    roaring_bitmap_free(bm);
    lfa_buf_free(&raw);
  }
  lfa_root_free(root);
}

static void seeds_of_deletion(ctx *c, const dataset *d, const char *stem, const Lance__Table__Manifest *m,
                              const Lance__Table__DataFragment *f) {
  const Lance__Table__DeletionFile *del = f->deletion_file;
  bool bin = del->file_type == LANCE__TABLE__DELETION_FILE__DELETION_FILE_TYPE__BITMAP;
  char rel[128], name[256];
  lfa_error err;
  lfa_buf raw, b = {0};
  roaring_bitmap_t *bm = NULL;
  fit(rel, sizeof rel, "%" PRIu64 "-%" PRIu64 "-%" PRIu64 ".%s", f->id, del->read_version, del->id,
           bin ? "bin" : "arrow");
  if (!read_object(&raw, d->dir, m, "_deletions", rel)) die("%s: cannot read _deletions/%s", d->dir, rel);
  check(lfa_deletion_decode(&bm, bin ? LFA_DELETION_BITMAP : LFA_DELETION_ARROW, raw.data, raw.len, &err), &err,
        rel);
  uint64_t n = roaring_bitmap_get_cardinality(bm);
  if (bin) {
    fit(name, sizeof name, "%s-frag%" PRIu64 "-%" PRIu64 "-deleted.bin", stem, f->id, n);
    if (d->reencode) emit_bitmap(c, K_DELETION_BIN, name, bm);
    else emit(c, K_DELETION_BIN, name, raw.data, raw.len);
  } else if (!d->reencode) {
    fit(name, sizeof name, "%s-frag%" PRIu64 "-%" PRIu64 "-deleted.arrow", stem, f->id, n);
    emit(c, K_ARROW, name, raw.data, raw.len);
  } else {
    for (int zstd = 1; zstd >= 0; zstd--) {
      fit(name, sizeof name, "%s-frag%" PRIu64 "-%" PRIu64 "-deleted-%s.arrow", stem, f->id, n,
               zstd ? "zstd" : "plain");
      check(lfa_deletion_arrow_encode(&b, bm, zstd != 0, &err), &err, name);
      emit_buf(c, K_ARROW, name, &b);
    }
  }
  roaring_bitmap_free(bm);
  lfa_buf_free(&raw);
}

static void seeds_of_version(ctx *c, const dataset *d, const lfa_version_entry *e) {
  char rel[LFA_PATH_BYTES_MAX], path[LFA_PATH_BYTES_MAX], stem[256], name[300];
  lfa_error err;
  lfa_buf raw = {0}, b = {0};
  lfa_manifest_file f;
  fit(rel, sizeof rel, "_versions/%s", e->name);
  check(lfa_fs_join(path, sizeof path, d->dir, rel, &err), &err, rel);
  check(lfa_fs_read(&raw, path, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err, path);
  check(lfa_manifest_file_decode(&f, raw.data, raw.len, &err), &err, path);
  const Lance__Table__Manifest *m = f.manifest;
  fit(stem, sizeof stem, "%s-v%" PRIu64, d->prefix, e->version);
  fit(name, sizeof name, "%s.manifest", stem);
  if (d->reencode) {
    check(lfa_manifest_file_encode(&b, m, f.transaction, &err), &err, name);
    emit_buf(c, K_MANIFEST, name, &b);
  } else {
    emit(c, K_MANIFEST, name, raw.data, raw.len);
  }
  lfa_buf_free(&raw);

  if (f.transaction != NULL) {
    fit(name, sizeof name, "%s-inline", stem);
    seeds_of_transaction(c, d, name, f.transaction, NULL);
  }
  if (m->transaction_file != NULL && m->transaction_file[0] != '\0' &&
      read_object(&raw, d->dir, m, "_transactions", m->transaction_file)) {
    Lance__Table__Transaction *t = NULL;
    check(lfa_transaction_decode(&t, raw.data, raw.len, &err), &err, m->transaction_file);
    seeds_of_transaction(c, d, stem, t, &raw);
    lfa_transaction_free(t);
    lfa_buf_free(&raw);
  }
  for (size_t i = 0; i < m->n_field_assignment_states; i++)
    seeds_of_root(c, d, stem, m, m->field_assignment_states[i]);
  for (size_t i = 0; i < m->n_fragments; i++) {
    const Lance__Table__DataFragment *frag = m->fragments[i];
    if (frag->deletion_file != NULL) seeds_of_deletion(c, d, stem, m, frag);
    if (frag->row_id_sequence_case == LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE_INLINE_ROW_IDS) {
      lfa_row_ids ids;
      fit(name, sizeof name, "%s-frag%" PRIu64 ".rowids", stem, frag->id);
      check(lfa_row_ids_decode(&ids, frag->inline_row_ids.data, frag->inline_row_ids.len, &err), &err, name);
      check(lfa_row_ids_encode(&b, ids.ids, ids.count, &err), &err, name);
      lfa_row_ids_free(&ids);
      emit_row_ids(c, name, &b);
    }
  }
  lfa_manifest_file_free(&f);
}

static void seeds_of_dataset(ctx *c, const dataset *d) {
  lfa_version_list list;
  lfa_names names;
  lfa_error err;
  check(lfa_dataset_versions(&list, &names, NULL, d->dir, &err), &err, d->dir);
  for (size_t i = d->latest_only ? list.count - 1 : 0; i < list.count; i++)
    seeds_of_version(c, d, &list.entries[i]);
  lfa_version_list_free(&list);
  lfa_fs_names_free(&names);
}

/* Every dataset (a folder holding `_versions/`) two levels below
 * SHARED_DIR/lance-test-data: <release>/<dataset>. */
static void seeds_of_lance_test_data(ctx *c, const char *shared) {
  char root[LFA_PATH_BYTES_MAX], rel_dir[LFA_PATH_BYTES_MAX], dir[LFA_PATH_BYTES_MAX], probe[LFA_PATH_BYTES_MAX];
  char prefix[256];
  lfa_names releases, sets;
  lfa_error err;
  fit(root, sizeof root, "%s/lance-test-data", shared);
  check(lfa_fs_list(&releases, root, 0, &err), &err, root);
  for (size_t i = 0; i < releases.count; i++) {
    fit(rel_dir, sizeof rel_dir, "%s/%s", root, releases.names[i]);
    if (!lfa_fs_is_dir(rel_dir)) continue;
    check(lfa_fs_list(&sets, rel_dir, 0, &err), &err, rel_dir);
    for (size_t j = 0; j < sets.count; j++) {
      fit(dir, sizeof dir, "%s/%s", rel_dir, sets.names[j]);
      fit(probe, sizeof probe, "%s/_versions", dir);
      if (!lfa_fs_is_dir(probe)) continue;
      const char *rel = releases.names[i][0] == 'v' ? releases.names[i] + 1 : releases.names[i];
      size_t n = strlen(sets.names[j]);
      if (n > 6 && strcmp(sets.names[j] + n - 6, ".lance") == 0) n -= 6;
      fit(prefix, sizeof prefix, "lance-%s-%.*s", rel, (int)n, sets.names[j]);
      dataset d = {dir, prefix, true, true};
      seeds_of_dataset(c, &d);
    }
    lfa_fs_names_free(&sets);
  }
  lfa_fs_names_free(&releases);
}

/* ---- hand-made edge cases ------------------------------------------------------- */

static void hand_roots(ctx *c) {
  lfa_error err;
  lfa_buf b = {0};
  emit(c, K_ROOT, "FA-ROOT-1-empty-root.root", NULL, 0);

  Lance__Table__FieldAssignmentFile partial = LANCE__TABLE__FIELD_ASSIGNMENT_FILE__INIT;
  partial.path = "_field_assignments/bitmaps/7/3/00000000-0000-4000-8000-000000000001.rbm";
  partial.has_size_bytes = true;
  partial.size_bytes = 22;
  lfa_root_entry e[3];
  lfa_root_entry *list[3] = {&e[0], &e[1], &e[2]};
  const uint64_t ids[3] = {0, 3, 4294967296u};
  for (size_t i = 0; i < 3; i++) {
    lance__table__field_assignment_fragment__init(&e[i]);
    e[i].fragment_id = ids[i];
    e[i].physical_rows = i == 1 ? 100 : 1000000;
    e[i].state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED;
    e[i].all_assigned = true;
  }
  e[1].state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL;
  e[1].partial = &partial;
  lfa_root root = LANCE__TABLE__FIELD_ASSIGNMENT_ROOT__INIT;
  root.fragments = list;
  root.n_fragments = 3;
  check(lfa_root_encode(&b, &root, &err), &err, "root");
  emit_buf(c, K_ROOT, "FA-ROOT-2-all-partial-all.root", &b);

  /* Unknown fields are kept and packed again: field 15 (varint 1) after the
   * entries. */
  check(lfa_root_encode(&b, &root, &err), &err, "root");
  const uint8_t unknown[] = {0x78, 0x01};
  check(lfa_buf_append(&b, unknown, sizeof unknown, &err), &err, "root");
  emit_buf(c, K_ROOT, "root-unknown-field-15.root", &b);
}

static roaring_bitmap_t *bitmap_of(const uint32_t *v, size_t n) {
  roaring_bitmap_t *bm = roaring_bitmap_create();
  if (bm == NULL) die("out of memory");
  for (size_t i = 0; i < n; i++) roaring_bitmap_add(bm, v[i]);
  return bm;
}

/* A bitmap in the form CRoaring chooses after run_optimize: cookie 12347
 * whenever a container is a run. */
static void emit_run_form(ctx *c, kind k, const char *name, roaring_bitmap_t *bm) {
  roaring_bitmap_run_optimize(bm);
  size_t n = roaring_bitmap_portable_size_in_bytes(bm);
  uint8_t *bytes = malloc(n);
  if (bytes == NULL || roaring_bitmap_portable_serialize(bm, (char *)bytes) != n) die("%s: serialize", name);
  if ((lfa_load_u32le(bytes) & 0xFFFFu) != 12347) die("%s: not in the run form", name);
  emit(c, k, name, bytes, n);
  free(bytes);
}

/* Five containers: a run, an array, a bitset, a run, and key 0xFFFF. */
static roaring_bitmap_t *mixed_containers(void) {
  roaring_bitmap_t *bm = roaring_bitmap_create();
  if (bm == NULL) die("out of memory");
  roaring_bitmap_add_range(bm, 0, 3000);
  roaring_bitmap_add(bm, 65536 + 1);
  roaring_bitmap_add(bm, 65536 + 3);
  roaring_bitmap_add(bm, 65536 + 5);
  for (uint32_t i = 0; i < 5000; i++) roaring_bitmap_add(bm, 2 * 65536 + 2 * i);
  roaring_bitmap_add_range(bm, 3 * 65536 + 100, 3 * 65536 + 300);
  roaring_bitmap_add(bm, UINT32_MAX);
  return bm;
}

static void hand_bitmaps(ctx *c) {
  static const uint32_t SMALL[] = {1, 2, 5}, DELETED[] = {2, 7};
  roaring_bitmap_t *bm = roaring_bitmap_create();
  emit_bitmap(c, K_BITMAP, "FA-BITMAP-1-empty.rbm", bm);
  emit_bitmap(c, K_DELETION_BIN, "FA-LANCE-3-empty.bin", bm);
  roaring_bitmap_free(bm);

  bm = bitmap_of(SMALL, 3);
  emit_bitmap(c, K_BITMAP, "FA-BITMAP-1-array-3-values.rbm", bm);
  roaring_bitmap_free(bm);
  bm = bitmap_of(DELETED, 2);
  emit_bitmap(c, K_DELETION_BIN, "FA-LANCE-3-2-deleted.bin", bm);
  roaring_bitmap_free(bm);

  bm = roaring_bitmap_create();
  for (uint32_t i = 0; i < 4097; i++) roaring_bitmap_add(bm, 3 * i);
  emit_bitmap(c, K_BITMAP, "FA-BITMAP-2-bitset-4097-values.rbm", bm);
  roaring_bitmap_free(bm);

  bm = roaring_bitmap_create();
  for (uint32_t i = 0; i < 4096; i++) roaring_bitmap_add(bm, 2 * i);
  emit_bitmap(c, K_BITMAP, "FA-BITMAP-2-array-4096-values.rbm", bm);
  roaring_bitmap_free(bm);

  bm = mixed_containers();
  emit_bitmap(c, K_BITMAP, "FA-BITMAP-1-no-run-5-containers.rbm", bm);
  emit_run_form(c, K_BITMAP, "FA-BITMAP-1-run-form-5-containers-offsets.rbm", bm);
  emit_run_form(c, K_DELETION_BIN, "FA-BITMAP-1-run-form-5-containers.bin", bm);
  roaring_bitmap_free(bm);

  bm = roaring_bitmap_create();
  roaring_bitmap_add_range(bm, 10, 20);
  roaring_bitmap_add_range(bm, 30, 40);
  roaring_bitmap_add(bm, 65536 + 7);
  emit_run_form(c, K_BITMAP, "FA-BITMAP-1-run-form-2-containers-no-offsets.rbm", bm);
  roaring_bitmap_free(bm);

  /* A short run ending at 65535: CRoaring 0.2.66's remove_run_compression
   * overran its array on it (tests/format/test_bitmap.c). */
  bm = roaring_bitmap_from_range(65000, 65536, 1);
  emit_run_form(c, K_BITMAP, "FA-BITMAP-1-run-form-run-ending-at-65535.rbm", bm);
  roaring_bitmap_free(bm);

  /* More containers than 16-bit keys: invalid (FA-BITMAP-2), not over a
   * limit; verifier_faults found it reported as a limit warning. */
  const uint8_t too_many[8] = {0x3A, 0x30, 0, 0, 0x01, 0x00, 0x01, 0x00}; /* 65537 */
  emit_expect(c, K_BITMAP, "FA-BITMAP-2-65537-containers.rbm", too_many, sizeof too_many, LFA_ERR_BITMAP);
}

static void emit_treemap(ctx *c, const char *name, const uint64_t *v, size_t n) {
  lfa_treemap t = {0};
  lfa_error err;
  lfa_buf b = {0};
  for (size_t i = 0; i < n; i++) check(lfa_treemap_add(&t, v[i], &err), &err, name);
  check(lfa_treemap_encode(&b, &t, &err), &err, name);
  lfa_treemap_free(&t);
  emit_buf(c, K_TREEMAP, name, &b);
}

static void hand_treemaps(ctx *c) {
  static const uint64_t ONE[] = {((uint64_t)1 << 32) | 3};
  static const uint64_t FOUR[] = {0, 5, ((uint64_t)1 << 32) | 3, ((uint64_t)7 << 32) | 65536,
                                  ((uint64_t)7 << 32) | 65537, UINT64_MAX};
  emit_treemap(c, "FA-TXN-1-treemap-no-buckets.treemap", NULL, 0);
  emit_treemap(c, "FA-TXN-1-treemap-1-bucket.treemap", ONE, 1);
  emit_treemap(c, "FA-TXN-1-treemap-4-buckets.treemap", FOUR, 6);

  /* Two buckets, the second a run-form bitmap (readers accept both forms). */
  lfa_error err;
  lfa_buf b = {0};
  roaring_bitmap_t *low = roaring_bitmap_create(), *runs = mixed_containers();
  roaring_bitmap_add(low, 9);
  roaring_bitmap_run_optimize(runs);
  check(lfa_buf_put_u64le(&b, 2, &err), &err, "treemap");
  check(lfa_buf_put_u32le(&b, 0, &err), &err, "treemap");
  check(lfa_bitmap_encode(&b, low, &err), &err, "treemap");
  check(lfa_buf_put_u32le(&b, 2, &err), &err, "treemap");
  size_t n = roaring_bitmap_portable_size_in_bytes(runs);
  uint8_t *tail;
  check(lfa_buf_extend(&b, n, &tail, &err), &err, "treemap");
  if (roaring_bitmap_portable_serialize(runs, (char *)tail) != n) die("treemap: serialize");
  emit_buf(c, K_TREEMAP, "FA-BITMAP-1-treemap-run-form-bucket.treemap", &b);
  roaring_bitmap_free(low);
  roaring_bitmap_free(runs);

  /* 2^64 - 1 buckets in 16 bytes: truncated, not over a limit (FA-LIMIT-2) */
  const uint8_t huge[16] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  emit_expect(c, K_TREEMAP, "FA-LIMIT-2-treemap-count-past-its-bytes.treemap", huge, sizeof huge, LFA_ERR_TRUNCATED);
}

static void emit_arrow(ctx *c, const char *name, const roaring_bitmap_t *bm, bool zstd) {
  lfa_error err;
  lfa_buf b = {0};
  check(lfa_deletion_arrow_encode(&b, bm, zstd, &err), &err, name);
  emit_buf(c, K_ARROW, name, &b);
}

static void hand_arrows(ctx *c) {
  static const uint32_t FEW[] = {2, 7, 4294967295u};
  roaring_bitmap_t *bm = roaring_bitmap_create();
  emit_arrow(c, "FA-LANCE-3-empty-zstd.arrow", bm, true);
  emit_arrow(c, "FA-LANCE-3-empty-plain.arrow", bm, false);
  roaring_bitmap_free(bm);
  bm = bitmap_of(FEW, 3);
  emit_arrow(c, "FA-LANCE-3-3-rows-zstd.arrow", bm, true);
  emit_arrow(c, "FA-LANCE-3-3-rows-plain.arrow", bm, false);
  roaring_bitmap_free(bm);
  bm = roaring_bitmap_create();
  for (uint32_t i = 0; i < 1000; i++) roaring_bitmap_add(bm, 3 * i + (i % 2));
  emit_arrow(c, "FA-LANCE-3-1000-rows-zstd.arrow", bm, true);
  emit_arrow(c, "FA-LANCE-3-1000-rows-plain.arrow", bm, false);
  roaring_bitmap_free(bm);
}

/* ---- row id sequences: one segment per seed, every kind and width ----------- */

/* An EncodedU64Array of `width` bytes per value (base + offsets, or raw). */
typedef struct array_store {
  EncodedU64Array a;
  Lance__Table__EncodedU64Array__U16Array a16;
  Lance__Table__EncodedU64Array__U32Array a32;
  Lance__Table__EncodedU64Array__U64Array a64;
  uint8_t bytes[256];
} array_store;

static EncodedU64Array *make_array(array_store *s, unsigned width, uint64_t base, const uint64_t *v, size_t n) {
  lance__table__encoded_u64_array__init(&s->a);
  lance__table__encoded_u64_array__u16_array__init(&s->a16);
  lance__table__encoded_u64_array__u32_array__init(&s->a32);
  lance__table__encoded_u64_array__u64_array__init(&s->a64);
  if (n * width > sizeof s->bytes) die("array too long");
  for (size_t k = 0; k < n; k++) {
    uint8_t *p = s->bytes + k * width;
    uint64_t x = width == 8 ? v[k] : v[k] - base;
    for (unsigned j = 0; j < width; j++) p[j] = (uint8_t)(x >> (8 * j));
  }
  ProtobufCBinaryData d = {n * width, s->bytes};
  if (width == 2) {
    s->a.array_case = LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U16_ARRAY;
    s->a.u16_array = &s->a16, s->a16.base_value = base, s->a16.offsets = d;
  } else if (width == 4) {
    s->a.array_case = LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U32_ARRAY;
    s->a.u32_array = &s->a32, s->a32.base_value = base, s->a32.offsets = d;
  } else {
    s->a.array_case = LANCE__TABLE__ENCODED_U64_ARRAY__ARRAY_U64_ARRAY;
    s->a.u64_array = &s->a64, s->a64.values = d;
  }
  return &s->a;
}

static void emit_segments(ctx *c, const char *name, U64Segment **segs, size_t n) {
  Lance__Table__RowIdSequence seq = LANCE__TABLE__ROW_ID_SEQUENCE__INIT;
  lfa_error err;
  lfa_buf b = {0};
  seq.segments = segs;
  seq.n_segments = n;
  check(lfa_pb_pack(&b, &seq.base, &err), &err, name);
  emit_row_ids(c, name, &b);
}

static void hand_row_ids(ctx *c) {
  static const uint64_t HOLES[] = {105, 150, 199}, SORTED[] = {1000, 1001, 1500, 70000};
  static const uint64_t UNSORTED[] = {70000, 1000, 1500, 1001};
  static const unsigned WIDTHS[] = {2, 4, 8};
  char name[128];
  U64Segment s = LANCE__TABLE__U64_SEGMENT__INIT, *one[1] = {&s};

  Lance__Table__U64Segment__Range r = LANCE__TABLE__U64_SEGMENT__RANGE__INIT;
  s.segment_case = LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE;
  s.range = &r;
  r.start = 0, r.end = 0;
  emit_segments(c, "FA-LANCE-11-empty-range.rowids", one, 1);
  r.start = 100, r.end = 200;
  emit_segments(c, "FA-LANCE-11-range.rowids", one, 1);
  emit_segments(c, "FA-LANCE-11-no-segments.rowids", NULL, 0);

  Lance__Table__U64Segment__RangeWithHoles h = LANCE__TABLE__U64_SEGMENT__RANGE_WITH_HOLES__INIT;
  array_store store;
  s.segment_case = LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE_WITH_HOLES;
  s.range_with_holes = &h;
  h.start = 100, h.end = 200;
  for (size_t w = 0; w < 3; w++) {
    h.holes = make_array(&store, WIDTHS[w], 100, HOLES, 3);
    fit(name, sizeof name, "FA-LANCE-11-range-with-holes-u%u.rowids", WIDTHS[w] * 8);
    emit_segments(c, name, one, 1);
  }

  Lance__Table__U64Segment__RangeWithBitmap bits = LANCE__TABLE__U64_SEGMENT__RANGE_WITH_BITMAP__INIT;
  uint8_t bitmap[3] = {0x15, 0xF0, 0x03}; /* ids start + {0,2,4,12..15,16,17}: 18 wide */
  s.segment_case = LANCE__TABLE__U64_SEGMENT__SEGMENT_RANGE_WITH_BITMAP;
  s.range_with_bitmap = &bits;
  bits.start = 40, bits.end = 58;
  bits.bitmap = (ProtobufCBinaryData){sizeof bitmap, bitmap};
  emit_segments(c, "FA-LANCE-11-range-with-bitmap.rowids", one, 1);

  for (int sorted = 1; sorted >= 0; sorted--) {
    s.segment_case = sorted ? LANCE__TABLE__U64_SEGMENT__SEGMENT_SORTED_ARRAY : LANCE__TABLE__U64_SEGMENT__SEGMENT_ARRAY;
    for (size_t w = 0; w < 3; w++) {
      /* u16 offsets cannot reach 70000 from base 1000: drop the last value */
      EncodedU64Array *a = make_array(&store, WIDTHS[w], 1000, sorted ? SORTED : UNSORTED + (WIDTHS[w] == 2),
                            WIDTHS[w] == 2 ? 3 : 4);
      if (sorted) s.sorted_array = a;
      else s.array = a;
      fit(name, sizeof name, "FA-LANCE-11-%s-u%u.rowids", sorted ? "sorted-array" : "array", WIDTHS[w] * 8);
      emit_segments(c, name, one, 1);
    }
  }

  /* What lfa_row_ids_encode writes for a mixed sequence: ranges and arrays
   * of each width. */
  uint64_t ids[64];
  size_t n = 0;
  for (uint64_t i = 0; i < 20; i++) ids[n++] = i;
  ids[n++] = 500, ids[n++] = 30, ids[n++] = 31;
  for (uint64_t i = 1000; i < 1010; i++) ids[n++] = i;
  ids[n++] = (uint64_t)1 << 40, ids[n++] = 7;
  for (uint64_t i = 2000; i < 2008; i++) ids[n++] = i;
  ids[n++] = UINT64_MAX, ids[n++] = 0x100000000u;
  lfa_error err;
  lfa_buf b = {0};
  check(lfa_row_ids_encode(&b, ids, n, &err), &err, "row ids");
  emit_row_ids(c, "FA-LANCE-11-encoder-mixed.rowids", &b);
}

/* ---- a sidecar with every kind of entry, and a manifest with an index ------- */

static void hand_transaction(ctx *c, lfa_buf *out) {
  lfa_error err;
  lfa_buf tm = {0}, part = {0};
  static const uint64_t ADDRS[] = {((uint64_t)0 << 32) | 3, ((uint64_t)1 << 32) | 0, ((uint64_t)1 << 32) | 9};
  lfa_treemap t = {0};
  for (size_t i = 0; i < 3; i++) check(lfa_treemap_add(&t, ADDRS[i], &err), &err, "sidecar");
  check(lfa_treemap_encode(&tm, &t, &err), &err, "sidecar");
  lfa_treemap_free(&t);
  static const uint32_t OFFS[] = {0, 4};
  roaring_bitmap_t *bm = bitmap_of(OFFS, 2);
  check(lfa_bitmap_encode(&part, bm, &err), &err, "sidecar");
  roaring_bitmap_free(bm);

  Lance__Table__Transaction__FieldAssignmentTransaction__Initialization init[2];
  Lance__Table__Transaction__FieldAssignmentTransaction__Initialization *inits[2] = {&init[0], &init[1]};
  for (int i = 0; i < 2; i++) {
    lance__table__transaction__field_assignment_transaction__initialization__init(&init[i]);
    init[i].field_id = 3 + i;
    init[i].initial_state =
        i ? LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIAL_STATE__ASSIGNED
          : LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIAL_STATE__UNASSIGNED;
  }
  Lance__Table__Transaction__FieldAssignmentTransaction__RowChange rc =
      LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__ROW_CHANGE__INIT;
  Lance__Table__Transaction__FieldAssignmentTransaction__RowChange *rcs[1] = {&rc};
  rc.field_id = 2;
  rc.assigned = true;
  rc.row_addresses = (ProtobufCBinaryData){tm.len, tm.data};
  Lance__Table__Transaction__FieldAssignmentTransaction__FragmentState fs[3];
  Lance__Table__Transaction__FieldAssignmentTransaction__FragmentState *fss[3] = {&fs[0], &fs[1], &fs[2]};
  static char *const PATHS[3] = {"a.lance", "b.lance", "c.lance"};
  for (int i = 0; i < 3; i++) {
    lance__table__transaction__field_assignment_transaction__fragment_state__init(&fs[i]);
    fs[i].fragment_path = PATHS[i];
    fs[i].field_id = 2;
  }
  fs[0].state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_ALL_ASSIGNED;
  fs[0].all_assigned = true;
  fs[1].state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_NONE_ASSIGNED;
  fs[1].none_assigned = true;
  fs[2].state_case = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_PARTIAL;
  fs[2].partial = (ProtobufCBinaryData){part.len, part.data};
  Lance__Table__Transaction__FieldAssignmentTransaction__Transfer tr =
      LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__TRANSFER__INIT;
  Lance__Table__Transaction__FieldAssignmentTransaction__Transfer *trs[1] = {&tr};
  tr.source_field_id = 2;
  tr.target_field_id = 5;

  Sidecar s = LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INIT;
  s.initializations = inits, s.n_initializations = 2;
  s.row_changes = rcs, s.n_row_changes = 1;
  s.fragment_states = fss, s.n_fragment_states = 3;
  s.transfers = trs, s.n_transfers = 1;
  Lance__Table__Transaction__Rewrite op = LANCE__TABLE__TRANSACTION__REWRITE__INIT;
  Lance__Table__Transaction txn = LANCE__TABLE__TRANSACTION__INIT;
  txn.read_version = 7;
  txn.uuid = "00000000-0000-4000-8000-00000000f422";
  txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_REWRITE;
  txn.rewrite = &op;
  txn.field_assignment_transaction = &s;
  check(lfa_transaction_encode(out, &txn, &err), &err, "sidecar");
  emit(c, K_TXN, "FA-TXN-2-sidecar-every-entry-kind.txn", out->data, out->len);
  lfa_buf_free(&tm);
  lfa_buf_free(&part);
}

/* [index section][inline transaction][manifest][footer], framed by hand
 * (lfa_manifest_file_encode writes no index section). */
static void hand_manifest_with_index(ctx *c, const lfa_buf *txn) {
  lfa_error err;
  lfa_buf file = {0}, idx = {0}, man = {0};
  uint8_t uuid_bytes[16] = {0x5a, 0x3b, 0x1e, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0x42};
  Lance__Table__UUID uuid = LANCE__TABLE__UUID__INIT;
  uuid.uuid = (ProtobufCBinaryData){sizeof uuid_bytes, uuid_bytes};
  int32_t index_fields[1] = {0};
  Lance__Table__IndexMetadata meta = LANCE__TABLE__INDEX_METADATA__INIT, *metas[1] = {&meta};
  meta.uuid = &uuid;
  meta.fields = index_fields, meta.n_fields = 1;
  meta.name = "id_idx";
  meta.dataset_version = 1;
  Lance__Table__IndexSection section = LANCE__TABLE__INDEX_SECTION__INIT;
  section.indices = metas, section.n_indices = 1;
  check(lfa_pb_pack(&idx, &section.base, &err), &err, "index section");

  Lance__File__Field field = LANCE__FILE__FIELD__INIT, *fields[1] = {&field};
  field.name = "id", field.id = 0, field.parent_id = -1, field.logical_type = "int64";
  Lance__Table__DataFile df = LANCE__TABLE__DATA_FILE__INIT, *dfs[1] = {&df};
  df.path = "d0.lance", df.fields = index_fields, df.n_fields = 1, df.file_major_version = 2;
  Lance__Table__DataFragment frag = LANCE__TABLE__DATA_FRAGMENT__INIT, *frags[1] = {&frag};
  frag.files = dfs, frag.n_files = 1, frag.physical_rows = 3;
  Lance__Table__Manifest m = LANCE__TABLE__MANIFEST__INIT;
  m.fields = fields, m.n_fields = 1;
  m.fragments = frags, m.n_fragments = 1;
  m.version = 8;
  m._index_section_case = LANCE__TABLE__MANIFEST___INDEX_SECTION_INDEX_SECTION;
  m.index_section = 0;
  m._transaction_section_case = LANCE__TABLE__MANIFEST___TRANSACTION_SECTION_TRANSACTION_SECTION;
  m.transaction_section = 4 + idx.len;
  check(lfa_pb_pack(&man, &m.base, &err), &err, "manifest");

  const lfa_buf *parts[3] = {&idx, txn, &man};
  for (size_t i = 0; i < 3; i++) {
    check(lfa_buf_put_u32le(&file, (uint32_t)parts[i]->len, &err), &err, "manifest");
    check(lfa_buf_append(&file, parts[i]->data, parts[i]->len, &err), &err, "manifest");
  }
  check(lfa_buf_put_u64le(&file, file.len - 4 - man.len, &err), &err, "manifest");
  check(lfa_buf_put_u16le(&file, LFA_MANIFEST_FOOTER_MAJOR, &err), &err, "manifest");
  check(lfa_buf_put_u16le(&file, LFA_MANIFEST_FOOTER_MINOR, &err), &err, "manifest");
  check(lfa_buf_append(&file, "LANC", 4, &err), &err, "manifest");
  emit_buf(c, K_MANIFEST, "FA-LANCE-1-index-and-transaction-sections.manifest", &file);
  lfa_buf_free(&idx);
  lfa_buf_free(&man);
}

/* ---- whole datasets (whole_dataset, verifier_faults, json_scenario) -------------------- */

/* A seed of a target that is not a decoder of one object kind: written
 * as it is, under 64 KiB, after the same-name check. */
static void emit_raw(ctx *c, const char *target, const char *name, const uint8_t *data, size_t len) {
  char dir[LFA_PATH_BYTES_MAX];
  if (len > SEED_BYTES_MAX) die("seed %s/%s: %zu bytes, more than %d", target, name, len, SEED_BYTES_MAX);
  fit(dir, sizeof dir, "%s/%s", c->corpus, target);
  write_file(dir, name, data, len);
}

/* The container of `m` as a whole_dataset seed, checked to decode. */
static void emit_memfs(ctx *c, const char *name, const lfa_memfs *m) {
  lfa_error err;
  lfa_buf b = {0};
  lfa_memfs again;
  check(lfa_memfs_encode(&b, m, &err), &err, name);
  check(lfa_memfs_decode(&again, b.data, b.len, &err), &err, name);
  lfa_memfs_free(&again);
  emit_raw(c, "whole_dataset", name, b.data, b.len);
  lfa_buf_free(&b);
}

/* The bytes of one file of a shared dataset, decoded and re-encoded by
 * lfa (never the shared bytes themselves); false for a file lfa does not
 * read (data files, notes). */
static bool reencode(lfa_buf *out, const char *rel, const lfa_buf *raw) {
  lfa_error err;
  bool ok = true;
  size_t n = strlen(rel);
#define ENDS(s) (n >= sizeof(s) - 1 && strcmp(rel + n - (sizeof(s) - 1), s) == 0)
  if (ENDS(".manifest")) {
    lfa_manifest_file f;
    check(lfa_manifest_file_decode(&f, raw->data, raw->len, &err), &err, rel);
    check(lfa_manifest_file_encode(out, f.manifest, f.transaction, &err), &err, rel);
    lfa_manifest_file_free(&f);
  } else if (ENDS(".txn")) {
    Lance__Table__Transaction *t = NULL;
    check(lfa_transaction_decode(&t, raw->data, raw->len, &err), &err, rel);
    check(lfa_transaction_encode(out, t, &err), &err, rel);
    lfa_transaction_free(t);
  } else if (ENDS(".root")) {
    lfa_root *r = NULL;
    check(lfa_root_decode(&r, raw->data, raw->len, &err), &err, rel);
    check(lfa_root_encode(out, r, &err), &err, rel);
    lfa_root_free(r);
  } else if (ENDS(".rbm") || ENDS(".bin") || ENDS(".arrow")) {
    roaring_bitmap_t *bm = NULL;
    bool arrow = ENDS(".arrow");
    check(lfa_deletion_decode(&bm, arrow ? LFA_DELETION_ARROW : LFA_DELETION_BITMAP, raw->data, raw->len, &err), &err,
          rel);
    check(arrow ? lfa_deletion_arrow_encode(out, bm, true, &err) : lfa_bitmap_encode(out, bm, &err), &err, rel);
    lfa_bitmap_free(bm);
  } else {
    ok = false;
  }
#undef ENDS
  return ok;
}

/* Copies every file under disk directory `dir` into `m` under `prefix`:
 * as written (lfa's own datasets) or re-encoded (shared ones). */
static void pack_dir(lfa_memfs *m, const char *dir, const char *prefix, bool reencoded) {
  lfa_names names;
  lfa_error err;
  check(lfa_fs_list(&names, dir, 0, &err), &err, dir);
  for (size_t i = 0; i < names.count; i++) {
    char path[LFA_PATH_BYTES_MAX], rel[LFA_PATH_BYTES_MAX];
    fit(path, sizeof path, "%s/%s", dir, names.names[i]);
    fit(rel, sizeof rel, "%s%s%s", prefix, prefix[0] ? "/" : "", names.names[i]);
    if (lfa_fs_is_dir(path)) {
      pack_dir(m, path, rel, reencoded);
      continue;
    }
    lfa_buf raw = {0}, again = {0};
    check(lfa_fs_read(&raw, path, LFA_MANIFEST_FILE_BYTES_MAX, &err), &err, path);
    if (!reencoded) check(lfa_memfs_put(m, rel, raw.data, raw.len, &err), &err, rel);
    else if (reencode(&again, rel, &raw)) check(lfa_memfs_put(m, rel, again.data, again.len, &err), &err, rel);
    lfa_buf_free(&raw);
    lfa_buf_free(&again);
  }
  lfa_fs_names_free(&names);
}

/* Re-encoding changes sizes (a run-form bitmap becomes the no-run form):
 * every size_bytes of a root's partials, then of a manifest's roots, is
 * made that of the object now in `m` [FA-STORE-5]. Paths are taken relative
 * to the dataset root (the shared example uses no base paths). */
static uint64_t size_in(const lfa_memfs *m, const char *path, uint64_t otherwise) {
  const lfa_memfs_entry *e = lfa_memfs_find(m, path);
  return e ? e->data.len : otherwise;
}

static void fix_sizes(lfa_memfs *m) {
  lfa_error err;
  for (size_t i = 0; i < m->count; i++) {
    const lfa_memfs_entry *e = &m->entries[i];
    size_t n = strlen(e->name);
    lfa_root *r = NULL;
    if (e->dir || n < 5 || strcmp(e->name + n - 5, ".root") != 0) continue;
    check(lfa_root_decode(&r, e->data.data, e->data.len, &err), &err, e->name);
    for (size_t k = 0; k < r->n_fragments; k++)
      if (r->fragments[k]->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL)
        r->fragments[k]->partial->size_bytes = size_in(m, r->fragments[k]->partial->path, r->fragments[k]->partial->size_bytes);
    lfa_buf b = {0};
    check(lfa_root_encode(&b, r, &err), &err, e->name);
    check(lfa_memfs_put(m, e->name, b.data, b.len, &err), &err, e->name); /* replaced in place */
    lfa_buf_free(&b);
    lfa_root_free(r);
  }
  for (size_t i = 0; i < m->count; i++) {
    const lfa_memfs_entry *e = &m->entries[i];
    lfa_manifest_file f;
    if (e->dir || strncmp(e->name, "_versions/", 10) != 0) continue;
    check(lfa_manifest_file_decode(&f, e->data.data, e->data.len, &err), &err, e->name);
    for (size_t k = 0; k < f.manifest->n_field_assignment_states; k++) {
      Lance__Table__FieldAssignmentFile *root = f.manifest->field_assignment_states[k]->root;
      root->size_bytes = size_in(m, root->path, root->size_bytes);
    }
    lfa_buf b = {0};
    check(lfa_manifest_file_encode(&b, f.manifest, f.transaction, &err), &err, e->name);
    check(lfa_memfs_put(m, e->name, b.data, b.len, &err), &err, e->name);
    lfa_buf_free(&b);
    lfa_manifest_file_free(&f);
  }
}

/* Every kind of commit in one history (lfa/fixtures.h, which
 * tests/verify/test_verify.c writes too). */
static void history_every_commit(ctx *c, bool stable) {
  lfa_request steps[LFA_FIXTURE_EVERY_COMMIT_STEPS];
  lfa_fixture_every_commit(steps, stable);
  lfa_memfs m;
  lfa_history h;
  lfa_error err;
  lfa_memfs_init(&m);
  check(lfa_history_open_in(&h, &m.fs, ".", 42, &err), &err, "every commit");
  check(lfa_fixture_apply(&h, steps, LFA_FIXTURE_EVERY_COMMIT_STEPS, &err), &err, "every commit");
  lfa_history_close(&h);
  emit_memfs(c, stable ? "history-every-commit-stable-row-ids.memfs" : "history-every-commit-address.memfs", &m);
  lfa_memfs_free(&m);
}

static void history_overlays(ctx *c) {
  lfa_memfs m;
  lfa_history h;
  lfa_memfs_init(&m);
  lfa_error err;
  check(lfa_fixture_write_overlays(&h, &m.fs, ".", SIZE_MAX, 43, &err), &err, "overlays");
  lfa_history_close(&h);
  emit_memfs(c, "history-overlay-replace-merge-cast-drop.memfs", &m);
  lfa_memfs_free(&m);
}

/* [FA-CLONE-1] [FA-CLONE-2] A clone at the root of the container, its
 * source beside it under `src/` (a shallow clone names it in base_paths;
 * the verifier reads it for FA-CLONE-1 as well). */
static void history_clone(ctx *c, bool deep) {
  lfa_memfs m, rooted;
  lfa_history src, clone;
  lfa_error err;
  lfa_memfs_init(&m);
  lfa_memfs_init(&rooted);
  check(lfa_fixture_write_overlays(&src, &m.fs, "src", 6, 44, &err), &err, "overlays");
  check(lfa_history_clone(&clone, &src, 4, "clone", deep, 45, &err), &err, "clone");
  lfa_history_close(&clone);
  lfa_history_close(&src);
  for (size_t i = 0; i < m.count; i++) { /* clone/x becomes x; src/ stays */
    const lfa_memfs_entry *e = &m.entries[i];
    if (e->dir) continue;
    const char *name = strncmp(e->name, "clone/", 6) == 0 ? e->name + 6 : e->name;
    check(lfa_memfs_put(&rooted, name, e->data.data, e->data.len, &err), &err, name);
  }
  emit_memfs(c, deep ? "FA-CLONE-2-deep-clone.memfs" : "FA-CLONE-1-shallow-clone-source-in-src.memfs", &rooted);
  lfa_memfs_free(&m);
  lfa_memfs_free(&rooted);
}

/* Hand-made directories the verifier cannot read, or reads one finding at
 * a time. */
static void hand_whole_datasets(ctx *c) {
  lfa_memfs m;
  lfa_error err;
  emit_raw(c, "whole_dataset", "FA-LANCE-2-empty-directory.memfs", NULL, 0);
  lfa_memfs_init(&m); /* V1 and V2 names in one listing */
  check(lfa_memfs_put(&m, "_versions/1.manifest", (const uint8_t *)"x", 1, &err), &err, "mixed");
  check(lfa_memfs_put(&m, "_versions/18446744073709551614.manifest", (const uint8_t *)"y", 1, &err), &err, "mixed");
  emit_memfs(c, "FA-LANCE-2-mixed-version-naming.memfs", &m);
  lfa_memfs_free(&m);
  lfa_memfs_init(&m); /* a manifest that is not one */
  check(lfa_memfs_put(&m, "_versions/1.manifest", (const uint8_t *)"LANC", 4, &err), &err, "garbage");
  emit_memfs(c, "FA-LANCE-1-garbage-manifest.memfs", &m);
  lfa_memfs_free(&m);
}

static void seeds_of_whole_datasets(ctx *c, const char *sample_dir, const char *upstream_dir) {
  lfa_memfs m;
  lfa_memfs_init(&m);
  pack_dir(&m, sample_dir, "", false);
  emit_memfs(c, "sample.memfs", &m);
  lfa_memfs_free(&m);
  lfa_memfs_init(&m);
  pack_dir(&m, upstream_dir, "", true);
  fix_sizes(&m);
  emit_memfs(c, "upstream-address-mode-history-reencoded.memfs", &m);
  lfa_memfs_free(&m);
  history_every_commit(c, false);
  history_every_commit(c, true);
  history_overlays(c);
  history_clone(c, false);
  history_clone(c, true);
  hand_whole_datasets(c);
}

/* verifier_faults: [L][L history bytes][fault choices]. The histories are
 * the ops_differential seeds (request sequences written for the
 * generator both targets share); the fault bytes pick each kind of fault
 * in turn (fuzz/verifier_faults_fuzz.c), then its file and options. */
static void seeds_of_verifier_faults(ctx *c) {
  static const char *const KINDS[] = {"flip",   "truncate", "append", "drop",     "replace",
                                      "swap",   "bitmap",   "root",   "manifest", "txn"};
  static const uint8_t CHOICES[] = {0x03, 0x01, 0x05, 0x02, 0x07, 0x40, 0x01, 0x02};
  char dir[LFA_PATH_BYTES_MAX];
  lfa_names names;
  lfa_error err;
  fit(dir, sizeof dir, "%s/ops_differential", c->corpus);
  check(lfa_fs_list(&names, dir, 0, &err), &err, dir);
  size_t k = 0;
  for (size_t i = 0; i < names.count; i++) {
    char path[LFA_PATH_BYTES_MAX], name[256];
    lfa_buf hist = {0}, seed = {0};
    fit(path, sizeof path, "%s/%s", dir, names.names[i]);
    check(lfa_fs_read(&hist, path, 4096, &err), &err, path);
    uint8_t l = (uint8_t)(hist.len < 255 ? hist.len : 255);
    for (int twice = 0; twice < 2; twice++, k++) { /* two kinds per history: every kind is met */
      uint8_t fault = (uint8_t)(k % (sizeof KINDS / sizeof KINDS[0]));
      fit(name, sizeof name, "%s-%s", KINDS[fault], names.names[i]);
      check(lfa_buf_append(&seed, &l, 1, &err), &err, name);
      check(lfa_buf_append(&seed, hist.data, l, &err), &err, name);
      check(lfa_buf_append(&seed, &fault, 1, &err), &err, name);
      check(lfa_buf_append(&seed, CHOICES, sizeof CHOICES, &err), &err, name);
      emit_raw(c, "verifier_faults", name, seed.data, seed.len);
      seed.len = 0;
    }
    lfa_buf_free(&hist);
    lfa_buf_free(&seed);
  }
  lfa_fs_names_free(&names);
}

/* json_scenario: the scenarios of conformance/ (this repository's own) as
 * written, and hand-made JSON edge cases, each named after the rule of
 * lfa/json.h or scenario.h it exercises. */
static void seeds_of_json(ctx *c, const char *scenarios) {
  static const struct {
    const char *name, *text;
  } HAND[] = {
      {"json-escapes-and-surrogates.json", "[\"\\u0000\\b\\f\\n\\r\\t\\/\\\\\\\"\", \"\\ud83d\\ude00\", \"\xc3\xa9\xe2\x82\xac\"]"},
      {"json-integers-at-the-edges.json", "[0, -0, 9223372036854775807, -9223372036854775808, 18446744073709551615, "
                                          "18446744073709551616, -9223372036854775809, 1.5, 1e2, -2E-3]"},
      {"json-nesting-64.json", NULL}, /* filled below */
      {"json-refused-trailing-comma.json", "{\"a\": [1, 2,]}"},
      {"json-refused-duplicate-key.json", "{\"a\": 1, \"a\": 2}"},
      {"json-refused-lone-surrogate.json", "\"\\udc00\""},
      {"json-refused-leading-zero.json", "[01]"},
      {"json-refused-byte-order-mark.json", "\xef\xbb\xbf{}"},
      {"json-refused-control-byte.json", "\"a\x01\""},
      {"json-refused-overlong-utf8.json", "\"\xc0\xaf\""},
      {"scenario-setup-only.json",
       "{\"name\": \"s\", \"setup\": {\"fields\": [{\"path\": \"id\", \"type\": \"int64\"}], \"rows\": [1]}, "
       "\"steps\": []}"},
      {"scenario-every-op.json",
       "{\"name\": \"every_op\", \"setup\": {\"stable_row_ids\": true, \"fields\": [{\"path\": \"id\", \"type\": "
       "\"int64\", \"nullable\": false}, {\"path\": \"emb\", \"type\": \"binary\", \"assignment\": \"unassigned\"}, "
       "{\"path\": \"s\", \"type\": \"struct\"}, {\"path\": \"s.a\", \"type\": \"int32\", \"assignment\": "
       "\"assigned\"}], \"rows\": [1, 2, 3, 4], \"rows_per_fragment\": 2, \"supplied\": [\"id\"]}, \"steps\": ["
       "{\"op\": \"append\", \"rows\": [5], \"fields\": [\"id\", \"emb\"]},"
       "{\"op\": \"update\", \"rows\": [1], \"fields\": [\"emb\"], \"rewrite_columns\": true},"
       "{\"op\": \"update\", \"rows\": [2], \"invalidate\": [\"emb\"]},"
       "{\"op\": \"merge_insert\", \"rows\": [3], \"inserts\": [6], \"fields\": [\"emb\"]},"
       "{\"op\": \"delete\", \"rows\": [4]},"
       "{\"op\": \"add_columns\", \"new_fields\": [{\"path\": \"c\", \"type\": \"int64\", \"assignment\": "
       "\"unassigned\"}], \"with_data\": true},"
       "{\"op\": \"track\", \"field\": \"s\", \"assignment\": \"assigned\", \"expect\": \"refused\"},"
       "{\"op\": \"rename\", \"field\": \"emb\", \"new_name\": \"vec\"},"
       "{\"op\": \"cast\", \"field\": \"s.a\", \"new_type\": \"int64\"},"
       "{\"op\": \"set_nullable\", \"field\": \"id\", \"nullable\": true},"
       "{\"op\": \"overlay\", \"fragment_id\": 0, \"rows\": [1], \"fields\": [\"vec\"]},"
       "{\"op\": \"replace\", \"fragment_id\": 0, \"fields\": [\"c\"]},"
       "{\"op\": \"compact\"},"
       "{\"op\": \"drop\", \"fields\": [\"c\"]},"
       "{\"op\": \"restore\", \"to_step\": 1},"
       "{\"op\": \"overwrite\", \"new_fields\": [{\"path\": \"id\", \"type\": \"int64\"}], \"rows\": [7]},"
       "{\"op\": \"clone\", \"deep\": true},"
       "{\"op\": \"create_index\"},"
       "{\"op\": \"update_config\", \"read_step\": 0, \"expect\": \"conflict\"}"
       "]}"},
      {"scenario-read-step-past-the-steps.json",
       "{\"name\": \"s\", \"setup\": {\"fields\": [{\"path\": \"id\", \"type\": \"int64\"}], \"rows\": [1]}, "
       "\"steps\": [{\"op\": \"delete\", \"rows\": [1], \"read_step\": 9}]}"},
      {"scenario-refused-unknown-key.json",
       "{\"name\": \"s\", \"setup\": {\"fields\": [], \"rows\": []}, \"steps\": [], \"extra\": 1}"},
  };
  char deep[2 * 64 + 2];
  for (int i = 0; i < 64; i++) deep[i] = '[', deep[64 + i] = ']';
  deep[128] = '\0';
  for (size_t i = 0; i < sizeof HAND / sizeof HAND[0]; i++) {
    const char *text = HAND[i].text ? HAND[i].text : deep;
    emit_raw(c, "json_scenario", HAND[i].name, (const uint8_t *)text, strlen(text));
  }
  lfa_names names;
  lfa_error err;
  check(lfa_fs_list(&names, scenarios, 0, &err), &err, scenarios);
  for (size_t i = 0; i < names.count; i++) {
    char path[LFA_PATH_BYTES_MAX], name[256];
    lfa_buf b = {0};
    fit(path, sizeof path, "%s/%s", scenarios, names.names[i]);
    fit(name, sizeof name, "conformance-%s", names.names[i]);
    check(lfa_fs_read(&b, path, SEED_BYTES_MAX, &err), &err, path);
    emit_raw(c, "json_scenario", name, b.data, b.len);
    lfa_buf_free(&b);
  }
  lfa_fs_names_free(&names);
}

/* ---- main --------------------------------------------------------------------------- */

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: make_corpus CORPUS_DIR SHARED_DIR WORK_DIR\n");
    return 2;
  }
  ctx c = {argv[1], NULL, 0, 0, {0}};
  const char *shared = argv[2], *work = argv[3];
  char dir[LFA_PATH_BYTES_MAX];
  lfa_error err;

  if (mkdir(c.corpus, 0777) != 0 && errno != EEXIST) die("cannot create %s", c.corpus);
  if (mkdir(work, 0777) != 0 && errno != EEXIST) die("cannot create %s", work);
  fit(dir, sizeof dir, "%s/sample", work);
  if (lfa_fs_exists(dir)) die("%s exists: give an empty WORK_DIR", dir);
  check(lfa_fixture_write_sample(dir, &err), &err, "lfa_fixture_write_sample");
  dataset sample = {dir, "sample", false, false};
  seeds_of_dataset(&c, &sample);

  hand_roots(&c);
  hand_bitmaps(&c);
  hand_treemaps(&c);
  hand_arrows(&c);
  hand_row_ids(&c);
  lfa_buf txn = {0};
  hand_transaction(&c, &txn);
  hand_manifest_with_index(&c, &txn);
  lfa_buf_free(&txn);

  char up[LFA_PATH_BYTES_MAX];
  fit(up, sizeof up, "%s/upstream-layout-example/address-mode-history", shared);
  dataset upstream = {up, "upstream", true, false};
  seeds_of_dataset(&c, &upstream);
  seeds_of_lance_test_data(&c, shared);

  char scenarios[LFA_PATH_BYTES_MAX];
  fit(scenarios, sizeof scenarios, "%s/../conformance/scenarios", c.corpus);
  seeds_of_whole_datasets(&c, dir, up);
  seeds_of_verifier_faults(&c);
  seeds_of_json(&c, scenarios);

  static const char *const KIND_NAMES[K_COUNT] = {"manifest", "transaction", "root", "bitmap",
                                                  ".bin deletion", "treemap", ".arrow deletion", "row ids"};
  for (int k = 0; k < K_COUNT; k++) printf("make_corpus: %u %s seeds\n", c.written[k], KIND_NAMES[k]);
  for (size_t i = 0; i < c.n_seen; i++) free(c.seen[i].data);
  free(c.seen);
  return 0;
}
