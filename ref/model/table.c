/* table.c: the in-memory snapshot (lfa/table.h): copying, freeing, building
 * it from a loaded snapshot, and the cell operations FA-SEM-2 relies on. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "lfa/table.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bitmap.h"
#include "lfa/deletion.h"
#include "lfa/rowids.h"
#include "lfa/search.h"

/* ---- freeing ------------------------------------------------------------------- */

static size_t coverage_count(const lfa_overlay *o) { return o->shared ? 1 : o->file.n_fields; }

static void overlay_free(lfa_overlay *o) {
  for (size_t k = 0; o->coverage != NULL && k < coverage_count(o); k++) lfa_bitmap_free(o->coverage[k]);
  free(o->coverage);
  free(o->file.path);
  free(o->file.fields);
}

void lfa_fragment_free(lfa_fragment *f) {
  for (size_t k = 0; k < f->n_files; k++) {
    free(f->files[k].path);
    free(f->files[k].fields);
  }
  free(f->files);
  for (size_t k = 0; k < f->n_overlays; k++) overlay_free(&f->overlays[k]);
  free(f->overlays);
  lfa_bitmap_free(f->deleted);
  free(f->row_ids);
  free(f->keys);
}

void lfa_table_drop_state(lfa_table *t) {
  for (size_t s = 0; s < t->n_tracked; s++) {
    for (size_t i = 0; t->tracked[s].cells != NULL && i < t->n_fragments; i++)
      lfa_bitmap_free(t->tracked[s].cells[i].rows);
    free(t->tracked[s].cells);
  }
  free(t->tracked);
  t->tracked = NULL;
  t->n_tracked = 0;
}

void lfa_table_free(lfa_table *t) {
  for (size_t i = 0; i < t->n_fields; i++) {
    free(t->fields[i].name);
    free(t->fields[i].logical_type);
  }
  lfa_table_drop_state(t);
  for (size_t i = 0; i < t->n_fragments; i++) lfa_fragment_free(&t->fragments[i]);
  free(t->fields);
  free(t->fragments);
  memset(t, 0, sizeof *t);
}

/* ---- copying: every allocation checked, a failed copy frees what it made ---- */

static bool dup_string(char **out, const char *s) {
  *out = strdup(s ? s : "");
  return *out != NULL;
}

static bool dup_array(void **out, const void *src, size_t n, size_t size) {
  *out = NULL;
  if (n == 0) return true;
  *out = malloc(n * size);
  if (*out != NULL) memcpy(*out, src, n * size);
  return *out != NULL;
}

static bool dup_bitmap(roaring_bitmap_t **out, const roaring_bitmap_t *b) {
  *out = b ? roaring_bitmap_copy(b) : NULL;
  return b == NULL || *out != NULL;
}

/* A copy of overlay `o`; on failure *out holds what was made (overlay_free). */
static bool copy_overlay(lfa_overlay *out, const lfa_overlay *o) {
  *out = *o;
  out->file.path = NULL, out->file.fields = NULL, out->coverage = NULL;
  bool ok = dup_string(&out->file.path, o->file.path) &&
            dup_array((void **)&out->file.fields, o->file.fields, o->file.n_fields, sizeof(int32_t)) &&
            (out->coverage = calloc(coverage_count(o) + 1, sizeof *out->coverage)) != NULL;
  for (size_t k = 0; ok && k < coverage_count(o); k++) ok = dup_bitmap(&out->coverage[k], o->coverage[k]);
  return ok;
}

static bool copy_overlays(lfa_fragment *out, const lfa_fragment *f) {
  bool ok = f->n_overlays == 0 || (out->overlays = calloc(f->n_overlays, sizeof *out->overlays)) != NULL;
  for (size_t k = 0; ok && k < f->n_overlays; k++) {
    out->n_overlays = k + 1;
    ok = copy_overlay(&out->overlays[k], &f->overlays[k]);
  }
  return ok;
}

static bool copy_fragment(lfa_fragment *out, const lfa_fragment *f) {
  *out = *f;
  out->files = NULL, out->n_files = 0, out->deleted = NULL, out->row_ids = NULL, out->keys = NULL;
  out->overlays = NULL, out->n_overlays = 0;
  bool ok = copy_overlays(out, f) && dup_bitmap(&out->deleted, f->deleted) &&
            (f->row_ids == NULL || dup_array((void **)&out->row_ids, f->row_ids, f->physical_rows, sizeof *f->row_ids)) &&
            (f->keys == NULL || dup_array((void **)&out->keys, f->keys, f->physical_rows, sizeof *f->keys)) &&
            (f->n_files == 0 || (out->files = calloc(f->n_files, sizeof *out->files)) != NULL);
  for (size_t k = 0; ok && k < f->n_files; k++) {
    out->n_files = k + 1;
    ok = dup_string(&out->files[k].path, f->files[k].path) &&
         dup_array((void **)&out->files[k].fields, f->files[k].fields, f->files[k].n_fields, sizeof(int32_t));
    out->files[k].n_fields = f->files[k].n_fields;
  }
  return ok;
}

static bool copy_state(lfa_field_state *out, const lfa_field_state *s, size_t n_fragments) {
  out->field_id = s->field_id;
  out->cells = calloc(n_fragments ? n_fragments : 1, sizeof *out->cells);
  bool ok = out->cells != NULL;
  for (size_t i = 0; ok && i < n_fragments; i++) {
    out->cells[i].kind = s->cells[i].kind;
    ok = dup_bitmap(&out->cells[i].rows, s->cells[i].rows);
  }
  return ok;
}

lfa_status lfa_table_copy(lfa_table *out, const lfa_table *t, lfa_error *err) {
  memset(out, 0, sizeof *out);
  out->version = t->version, out->stable_row_ids = t->stable_row_ids;
  out->next_row_id = t->next_row_id, out->max_fragment_id = t->max_fragment_id;
  out->has_max_fragment_id = t->has_max_fragment_id;
  out->writer_feature_flags = t->writer_feature_flags;
  bool ok = (out->fields = calloc(t->n_fields + 1, sizeof *out->fields)) != NULL &&
            (out->fragments = calloc(t->n_fragments + 1, sizeof *out->fragments)) != NULL &&
            (out->tracked = calloc(t->n_tracked + 1, sizeof *out->tracked)) != NULL;
  for (size_t i = 0; ok && i < t->n_fields; i++, out->n_fields++) {
    out->fields[i] = t->fields[i];
    out->fields[i].name = out->fields[i].logical_type = NULL;
    ok = dup_string(&out->fields[i].name, t->fields[i].name) &&
         dup_string(&out->fields[i].logical_type, t->fields[i].logical_type);
  }
  for (size_t i = 0; ok && i < t->n_fragments; i++, out->n_fragments++)
    ok = copy_fragment(&out->fragments[i], &t->fragments[i]);
  for (size_t s = 0; ok && s < t->n_tracked; s++, out->n_tracked++)
    ok = copy_state(&out->tracked[s], &t->tracked[s], t->n_fragments);
  if (ok) return LFA_OK;
  lfa_table_free(out);
  return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot copy a table");
}

/* ---- overlays -------------------------------------------------------------------- */

/* [FA-OVERLAY-3] one coverage bitmap, valid, every offset below physical_rows. */
static lfa_status coverage_from_pb(roaring_bitmap_t **out, const ProtobufCBinaryData *b, uint64_t physical_rows,
                                   lfa_error *err) {
  lfa_status st = lfa_bitmap_decode(out, b->data, b->len, err);
  if (st == LFA_OK && !roaring_bitmap_is_empty(*out) && roaring_bitmap_maximum(*out) >= physical_rows)
    st = lfa_fail(err, LFA_ERR_RULE, "FA-OVERLAY-3", "coverage holds offset %" PRIu32 ", physical_rows is %" PRIu64,
                  roaring_bitmap_maximum(*out), physical_rows);
  return st;
}

/* Fills `o` from `pb`; on failure *o holds what was made (overlay_free). */
static lfa_status overlay_from_pb(lfa_overlay *o, const Lance__Table__DataOverlayFile *pb, uint64_t physical_rows,
                                  lfa_error *err) {
  const Lance__Table__DataFile *df = pb->data_file;
  bool shared = pb->coverage_case == LANCE__TABLE__DATA_OVERLAY_FILE__COVERAGE_SHARED_OFFSET_BITMAP;
  const Lance__Table__FieldCoverage *fc =
      pb->coverage_case == LANCE__TABLE__DATA_OVERLAY_FILE__COVERAGE_FIELD_COVERAGE ? pb->field_coverage : NULL;
  if (df == NULL) return lfa_fail(err, LFA_ERR_RULE, "FA-OVERLAY-3", "overlay has no data file");
  if (!shared && (fc == NULL || fc->n_offset_bitmaps != df->n_fields))
    return lfa_fail(err, LFA_ERR_RULE, "FA-OVERLAY-3", "overlay '%s' has %zu coverage bitmaps for %zu fields",
                    df->path, fc ? fc->n_offset_bitmaps : 0, df->n_fields);
  o->shared = shared, o->committed_version = pb->committed_version, o->file.n_fields = df->n_fields;
  if (!dup_string(&o->file.path, df->path) ||
      !dup_array((void **)&o->file.fields, df->fields, df->n_fields, sizeof(int32_t)) ||
      (o->coverage = calloc(coverage_count(o) + 1, sizeof *o->coverage)) == NULL)
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot copy an overlay");
  lfa_status st = LFA_OK;
  for (size_t k = 0; st == LFA_OK && k < coverage_count(o); k++)
    st = coverage_from_pb(&o->coverage[k], shared ? &pb->shared_offset_bitmap : &fc->offset_bitmaps[k], physical_rows,
                          err);
  if (st != LFA_OK) lfa_error_prefix(err, "overlay '%s'", df->path);
  return st;
}

lfa_status lfa_fragment_add_overlay(lfa_fragment *f, const Lance__Table__DataOverlayFile *pb, lfa_error *err) {
  lfa_overlay *grown = realloc(f->overlays, (f->n_overlays + 1) * sizeof *grown);
  if (grown == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot add an overlay");
  f->overlays = grown;
  lfa_overlay *o = &f->overlays[f->n_overlays];
  memset(o, 0, sizeof *o);
  lfa_status st = overlay_from_pb(o, pb, f->physical_rows, err);
  if (st == LFA_OK) f->n_overlays++;
  else overlay_free(o);
  return st;
}

/* ---- from the manifest's messages ------------------------------------------------ */

bool lfa_field_from_pb(lfa_field *out, const Lance__File__Field *f) {
  out->id = f->id, out->parent_id = f->parent_id, out->nullable = f->nullable;
  return dup_string(&out->name, f->name) && dup_string(&out->logical_type, f->logical_type);
}

bool lfa_fragment_from_pb(lfa_fragment *out, const Lance__Table__DataFragment *f, const roaring_bitmap_t *deleted,
                          const uint64_t *row_ids, uint64_t n_row_ids) {
  out->id = f->id, out->physical_rows = f->physical_rows;
  if (f->deletion_file != NULL)
    out->deletion_file = (lfa_deletion_file){f->deletion_file->read_version, f->deletion_file->id,
                                             f->deletion_file->file_type ==
                                                 LANCE__TABLE__DELETION_FILE__DELETION_FILE_TYPE__BITMAP};
  bool ok = (f->n_files == 0 || (out->files = calloc(f->n_files, sizeof *out->files)) != NULL) &&
            dup_bitmap(&out->deleted, deleted) &&
            (row_ids == NULL || dup_array((void **)&out->row_ids, row_ids, n_row_ids, sizeof(uint64_t)));
  for (size_t k = 0; ok && k < f->n_files; k++) {
    out->n_files = k + 1;
    ok = dup_string(&out->files[k].path, f->files[k]->path) &&
         dup_array((void **)&out->files[k].fields, f->files[k]->fields, f->files[k]->n_fields, sizeof(int32_t));
    out->files[k].n_fields = f->files[k]->n_fields;
  }
  return ok;
}

/* ---- lookups and cells ------------------------------------------------------------ */

static int fragment_by_id(const void *key, const void *f) {
  return lfa_order_u64(*(const uint64_t *)key, ((const lfa_fragment *)f)->id);
}

size_t lfa_table_fragment(const lfa_table *t, uint64_t fragment_id) {
  return lfa_search(&fragment_id, t->fragments, t->n_fragments, sizeof *t->fragments, fragment_by_id);
}

size_t lfa_table_fragment_near(const lfa_table *t, uint64_t fragment_id, size_t hint) {
  return hint < t->n_fragments && t->fragments[hint].id == fragment_id ? hint : lfa_table_fragment(t, fragment_id);
}

const lfa_field *lfa_table_field(const lfa_table *t, int32_t field_id) {
  for (size_t i = 0; i < t->n_fields; i++)
    if (t->fields[i].id == field_id) return &t->fields[i];
  return NULL;
}

lfa_field_state *lfa_table_tracked(const lfa_table *t, int32_t field_id) {
  for (size_t s = 0; s < t->n_tracked; s++)
    if (t->tracked[s].field_id == field_id) return &t->tracked[s];
  return NULL;
}

bool lfa_fragment_stores(const lfa_fragment *f, int32_t field_id) {
  for (size_t k = 0; k < f->n_files; k++)
    for (size_t j = 0; j < f->files[k].n_fields; j++)
      if (f->files[k].fields[j] == field_id) return true;
  return false;
}

bool lfa_fragment_is_live(const lfa_fragment *f, uint32_t offset) {
  return offset < f->physical_rows && (f->deleted == NULL || !roaring_bitmap_contains(f->deleted, offset));
}

uint64_t lfa_fragment_live_rows(const lfa_fragment *f) { return lfa_live_rows(f->physical_rows, f->deleted); }

bool lfa_cell_contains(const lfa_cell *c, uint32_t offset) {
  return c->kind == LFA_CELL_ALL || (c->kind == LFA_CELL_PARTIAL && roaring_bitmap_contains(c->rows, offset));
}

void lfa_cell_canonicalize(lfa_cell *c, uint64_t physical_rows) {
  if (c->kind != LFA_CELL_PARTIAL) return;
  uint64_t n = roaring_bitmap_get_cardinality(c->rows);
  if (n != 0 && n != physical_rows) return;
  lfa_bitmap_free(c->rows);
  c->rows = NULL;
  c->kind = n == 0 ? LFA_CELL_NONE : LFA_CELL_ALL;
}

/* The cell as a bitmap of offsets (ALL becomes [0, physical_rows)). */
static roaring_bitmap_t *cell_bitmap(const lfa_cell *c, uint64_t physical_rows) {
  if (c->kind == LFA_CELL_PARTIAL) return roaring_bitmap_copy(c->rows);
  if (c->kind == LFA_CELL_ALL && physical_rows > 0) return roaring_bitmap_from_range(0, physical_rows, 1);
  return roaring_bitmap_create();
}

bool lfa_cells_equal_live(const lfa_cell *a, const lfa_cell *b, const lfa_fragment *f) {
  roaring_bitmap_t *x = cell_bitmap(a, f->physical_rows), *y = cell_bitmap(b, f->physical_rows);
  bool equal = false;
  if (x != NULL && y != NULL) {
    roaring_bitmap_xor_inplace(x, y); /* rows where they differ ... */
    if (f->deleted != NULL) roaring_bitmap_andnot_inplace(x, f->deleted); /* ... that are live */
    equal = roaring_bitmap_is_empty(x);
  }
  lfa_bitmap_free(x);
  lfa_bitmap_free(y);
  return equal;
}
