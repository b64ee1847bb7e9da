/* snapshot_model.c: the model of a snapshot read from disk (lfa/snapshot_model.h). */
#include "lfa/snapshot_model.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The cells of one loaded tracked field, in the table's fragment order. */
static bool state_from_snapshot(lfa_field_state *out, const lfa_table *t, const lfa_tracked_field *tf) {
  out->field_id = tf->field_id;
  out->cells = calloc(t->n_fragments ? t->n_fragments : 1, sizeof *out->cells);
  bool ok = out->cells != NULL;
  for (size_t k = 0; ok && k < tf->count; k++) {
    size_t i = lfa_table_fragment(t, tf->fragments[k].fragment_id);
    if (i == SIZE_MAX) continue; /* the loader already refused this (FA-ROOT-5) */
    out->cells[i].kind = tf->fragments[k].all ? LFA_CELL_ALL : LFA_CELL_PARTIAL;
    if (tf->fragments[k].rows != NULL) ok = (out->cells[i].rows = roaring_bitmap_copy(tf->fragments[k].rows)) != NULL;
  }
  return ok;
}

/* Every fragment's overlays, as the manifest lists them (table order is
 * snap->by_id order). */
static lfa_status overlays_from_snapshot(lfa_table *t, const lfa_snapshot *snap, lfa_error *err) {
  for (size_t k = 0; k < t->n_fragments; k++) {
    const Lance__Table__DataFragment *f = snap->file.manifest->fragments[snap->by_id[k].index];
    for (size_t j = 0; j < f->n_overlays; j++) {
      lfa_status st = lfa_fragment_add_overlay(&t->fragments[k], f->overlays[j], err);
      if (st != LFA_OK) {
        lfa_error_prefix(err, "fragment %" PRIu64, f->id), lfa_error_at_fragment(err, f->id);
        return st;
      }
    }
  }
  return LFA_OK;
}

/* [FA-VERIFY-8] The model follows rows by their stable ids (rebase,
 * compaction), so a snapshot some of whose ids are only in data files
 * (spilled row lineage) has no table: refused, naming the first fragment. */
static lfa_status check_row_ids_read(const lfa_snapshot *snap, lfa_error *err) {
  for (size_t i = 0; snap->row_ids_unread > 0 && i < snap->file.manifest->n_fragments; i++) {
    if (lfa_snapshot_row_ids_read(snap, i)) continue;
    uint64_t id = snap->file.manifest->fragments[i]->id;
    lfa_status st = lfa_fail(err, LFA_ERR_USAGE, NULL,
                             "fragment %" PRIu64 ": its row ids are not in metadata (spilled row lineage, feature "
                             "bit 2048: hidden columns of its data files, which lfa never reads), so version %" PRIu64
                             " has no table (%zu such fragments)",
                             id, snap->version, snap->row_ids_unread);
    lfa_error_at_fragment(err, id);
    return st;
  }
  return LFA_OK;
}

lfa_status lfa_table_from_snapshot(lfa_table *out, const lfa_snapshot *snap, lfa_error *err) {
  const Lance__Table__Manifest *m = snap->file.manifest;
  memset(out, 0, sizeof *out);
  lfa_status unread = check_row_ids_read(snap, err);
  if (unread != LFA_OK) return unread;
  out->version = snap->version;
  out->stable_row_ids = snap->stable_row_ids;
  out->next_row_id = m->next_row_id;
  out->writer_feature_flags = m->writer_feature_flags; /* [FA-FLAG-5] what a committer must know */
  bool ok = (out->fields = calloc(m->n_fields + 1, sizeof *out->fields)) != NULL &&
            (out->fragments = calloc(m->n_fragments + 1, sizeof *out->fragments)) != NULL &&
            (out->tracked = calloc(snap->n_tracked + 1, sizeof *out->tracked)) != NULL;
  for (size_t i = 0; ok && i < m->n_fields; i++, out->n_fields++) ok = lfa_field_from_pb(&out->fields[i], m->fields[i]);
  /* in id order (snap->by_id), whatever order the manifest lists */
  for (size_t k = 0; ok && k < m->n_fragments; k++, out->n_fragments++) {
    size_t i = snap->by_id[k].index;
    ok = lfa_fragment_from_pb(&out->fragments[k], m->fragments[i], snap->deleted[i], snap->row_ids[i].ids,
                              snap->row_ids[i].count);
    if (out->fragments[k].id > out->max_fragment_id) out->max_fragment_id = (uint32_t)out->fragments[k].id;
    out->has_max_fragment_id = true;
  }
  if (m->_max_fragment_id_case == LANCE__TABLE__MANIFEST___MAX_FRAGMENT_ID_MAX_FRAGMENT_ID) {
    out->has_max_fragment_id = true;
    if (m->max_fragment_id > out->max_fragment_id) out->max_fragment_id = m->max_fragment_id;
  }
  lfa_status st = ok ? overlays_from_snapshot(out, snap, err) : LFA_OK;
  if (st != LFA_OK) {
    lfa_table_free(out);
    return st;
  }
  for (size_t s = 0; ok && s < snap->n_tracked; s++, out->n_tracked++) {
    if (snap->tracked[s].root == NULL) {
      lfa_table_free(out);
      return lfa_fail(err, LFA_ERR_USAGE, NULL, "field %d is not loaded", snap->tracked[s].field_id);
    }
    ok = state_from_snapshot(&out->tracked[s], out, &snap->tracked[s]);
  }
  if (ok) return LFA_OK;
  lfa_table_free(out);
  return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot build the table of version %llu", (unsigned long long)snap->version);
}

lfa_status lfa_table_load_version(lfa_table *out, const lfa_fs *fs, const char *dir, uint64_t version,
                                  lfa_error *err) {
  lfa_snapshot snap;
  lfa_snapshot_options opt = {.fs = fs, .version = version, .load_fields = true};
  lfa_status st = lfa_snapshot_open(&snap, dir, NULL, &opt, err);
  if (st != LFA_OK) return st;
  st = lfa_table_from_snapshot(out, &snap, err);
  lfa_snapshot_free(&snap);
  return st;
}
