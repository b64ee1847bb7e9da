/* static.c: the rules of one version (10§2).
 *
 * Every problem is reported, not only the first (10§1). So the manifest
 * rules run here on the protobuf, each on its own: schema ids (FA-LANCE-9),
 * fragments (FA-LANCE-5, FA-LANCE-8, FA-LANCE-12, FA-LANCE-13), data files
 * (FA-LANCE-6, FA-LANCE-15, FA-LANCE-20), descriptors (FA-STORE-1 to FA-STORE-4,
 * FA-STORE-13), feature bits (FA-FLAG-1 to FA-FLAG-3) and the version field
 * (FA-LANCE-18). Then the shared reader (lfa/dataset.h) opens the snapshot
 * (transaction, deletion files, row ids: one finding when it fails) and
 * loads each tracked field on its own (one finding per field that fails,
 * the others still checked), and the objects' paths (FA-STORE-7) and
 * fields (FA-ROOT-8, FA-STORE-13) are checked, and with stable row ids the
 * uniqueness of live ids (FA-LANCE-14), and how the sidecar is stored
 * (sidecar.c: FA-TXN-5, FA-TXN-6, FA-TXN-7).
 *
 * A version that loads and whose model is sound is "loadable": the
 * transition checks may use it. Reader limits are reported under
 * FA-LIMIT-2, as warnings, never as violations [FA-VERIFY-6]. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/pb.h"
#include "lfa/pb_types.h"
#include "lfa/search.h"

enum { FOOTER_BYTES = 16, PREFIX_BYTES = 4, DUPLICATE_IDS_SHOWN = 5 };

/* ---- helpers shared with transition.c -------------------------------------- */

const char *vf_field_name(const Manifest *m, int32_t field_id) {
  for (size_t i = 0; m != NULL && i < m->n_fields; i++)
    if (m->fields[i]->id == field_id) return m->fields[i]->name;
  return NULL;
}

const char *vf_snapshot_field_name(const lfa_snapshot *s, int32_t field_id) {
  const Lance__File__Field *f = lfa_snapshot_field(s, field_id);
  return f != NULL ? f->name : NULL;
}

bool vf_out_of_memory(const vf_ctx *c) {
  c->findings->lost = true;
  return false;
}

void vf_where_from(lfa_where *where, const lfa_error *e, bool take_file, const vf_version *v) {
  if (e->has_fragment && !where->has_fragment) where->has_fragment = true, where->fragment_id = e->fragment_id;
  if (e->has_field && !where->has_field && v != NULL) {
    where->has_field = true, where->field_id = e->field_id;
    where->field_name = vf_snapshot_field_name(&v->snap, e->field_id);
  }
  if (take_file && e->file[0] != '\0') where->file = e->file;
}

/* A reader call's failure as one finding. `fallback` names the rule when
 * the reader gave none (bytes that are not protobuf, say).
 * `whole_version`: the failure leaves the version unchecked. */
static void report_limited(const vf_ctx *c, lfa_where w, const lfa_error *e, const char *fallback,
                           bool whole_version) {
  vf_where_from(&w, e, true, NULL);
  /* [FA-VERIFY-6] a limit says nothing about the dataset; but a version not
   * checked at all is an error, so that no exit status says it passed */
  if (e->status == LFA_ERR_LIMIT)
    lfa_findings_add(c->findings, &w, "FA-LIMIT-2", whole_version ? LFA_SEVERITY_ERROR : LFA_SEVERITY_WARNING,
                     "%s: over a reader limit of lfa (not a violation): %s",
                     whole_version ? "this version is not checked at all" : "not checked", e->msg);
  /* [FA-VERIFY-5] a file that is there but cannot be read (no rule: the
   * reader names one when the file is not there) says nothing about the
   * dataset, and what it holds goes unchecked: an error, never a pass */
  else if (e->status == LFA_ERR_IO && e->rule == NULL)
    lfa_findings_add(c->findings, &w, "FA-VERIFY-5", LFA_SEVERITY_ERROR,
                     "%s: a file cannot be read, an I/O error (not a violation of the dataset): %s",
                     whole_version ? "this version is not checked at all" : "not checked", e->msg);
  else
    lfa_findings_add(c->findings, &w, e->rule ? e->rule : fallback, LFA_SEVERITY_ERROR, "%s", e->msg);
}

static void report_failure(const vf_ctx *c, lfa_where w, const lfa_error *e, const char *fallback) {
  report_limited(c, w, e, fallback, false);
}

static lfa_where at(const vf_version *v) { return (lfa_where){.version = v->version, .file = v->manifest_path}; }

static lfa_where at_field(const vf_version *v, const Manifest *m, int32_t field_id) {
  lfa_where w = at(v);
  const Lance__File__Field *f = v->checking != NULL ? lfa_field_index_find(v->checking, field_id) : NULL;
  w.has_field = true, w.field_id = field_id;
  w.field_name = v->checking == NULL ? vf_field_name(m, field_id) : f != NULL ? f->name : NULL;
  return w;
}

static lfa_where at_fragment(const vf_version *v, uint64_t fragment_id) {
  lfa_where w = at(v);
  w.has_fragment = true, w.fragment_id = fragment_id;
  return w;
}

/* ---- the manifest file --------------------------------------------------------- */

/* The manifest protobuf without the descriptor rules. Only called after
 * lfa_manifest_file_decode accepted the framing and stopped at its last
 * step, the descriptor rules, where the verifier wants every problem. */
static lfa_status unpack_raw(Manifest **out, const lfa_buf *b, lfa_error *err) {
  if (b->len < FOOTER_BYTES + PREFIX_BYTES) return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-1", "manifest framing");
  uint64_t end = b->len - FOOTER_BYTES, pos = lfa_load_u64le(b->data + end); /* bounds rechecked all the same */
  uint32_t n = pos <= end && end - pos >= PREFIX_BYTES ? lfa_load_u32le(b->data + pos) : 0;
  if (pos > end || end - pos < PREFIX_BYTES || n != end - pos - PREFIX_BYTES)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-1", "manifest framing");
  return lfa_manifest_unpack_body(out, b->data + pos + PREFIX_BYTES, n, err);
}

/* [FA-TXN-7] Whether a manifest file that did not decode holds an inline
 * transaction whose sidecar (field 1005) alone is what does not decode. */
static bool inline_sidecar_undecodable(const lfa_buf *b) {
  Manifest *m = NULL;
  bool broken = false;
  if (unpack_raw(&m, b, NULL) != LFA_OK) return false;
  uint64_t at = m->transaction_section, end = lfa_load_u64le(b->data + b->len - FOOTER_BYTES);
  if (m->_transaction_section_case == LANCE__TABLE__MANIFEST___TRANSACTION_SECTION_TRANSACTION_SECTION && at <= end &&
      end - at >= PREFIX_BYTES) {
    uint32_t n = lfa_load_u32le(b->data + at);
    broken = n <= end - at - PREFIX_BYTES && vf_sidecar_undecodable(b->data + at + PREFIX_BYTES, n);
  }
  lfa_pb_free(m);
  return broken;
}

static bool descriptor_rule(const char *rule) {
  return rule != NULL && (strcmp(rule, "FA-STORE-1") == 0 || strcmp(rule, "FA-STORE-3") == 0 ||
                          strcmp(rule, "FA-STORE-4") == 0);
}

/* Reads and decodes the manifest file, beside the parent's when it loaded
 * (its fragments with the same bytes are not decoded again, 10§5). *m is
 * the manifest to check (in *mf, or in *raw when only the descriptor rules
 * failed), NULL when it cannot be read (reported). Fails only when memory
 * runs out. */
static lfa_status read_manifest(const Manifest **m, lfa_manifest_file *mf, Manifest **raw, vf_version *v,
                                const vf_ctx *c, const vf_version *parent, lfa_error *err) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_buf bytes = {0};
  lfa_error e = {0};
  const bool beside = parent != NULL && parent->loadable;
  *m = NULL, *raw = NULL;
  lfa_status st = lfa_fs_join(path, sizeof path, c->dir, v->manifest_path, &e);
  uint64_t unread = 0; /* footer first: on an object store only what the manifest points at is fetched */
  if (st == LFA_OK) st = lfa_manifest_fetch(&bytes, &unread, c->fs, path, "FA-LANCE-1", &e);
  if (st == LFA_OK) st = lfa_manifest_file_decode_after(mf, &bytes, beside ? &parent->snap.file : NULL, &e);
  if (st == LFA_OK) *m = mf->manifest;
  else if (descriptor_rule(e.rule) && unpack_raw(raw, &bytes, &(lfa_error){0}) == LFA_OK) *m = *raw;
  else if (e.status == LFA_ERR_PROTO && inline_sidecar_undecodable(&bytes)) { /* [FA-TXN-7] */
    e.rule = "FA-TXN-7";
    lfa_error_prefix(&e, "the sidecar (transaction field 1005) does not decode");
  }
  if (e.status == LFA_ERR_NOMEM) return lfa_buf_free(&bytes), lfa_fail(err, LFA_ERR_NOMEM, NULL, "%s: %s", v->manifest_path, e.msg);
  if (*m == NULL) report_limited(c, at(v), &e, "FA-LANCE-1", true); /* [FA-LANCE-1] not a manifest file */
  lfa_buf_free(&bytes); /* mf keeps them when it decoded */
  return LFA_OK;
}

/* [10§5] v->same: which fragments have the bytes of one of the parent's,
 * as the decode found them. Only against a parent that loaded: its checks
 * then passed. */
static lfa_status compare_fragments(vf_version *v, const vf_version *p, const lfa_manifest_file *mf, lfa_error *err) {
  if (p == NULL || !p->loadable || mf->same_as_prev == NULL) return LFA_OK;
  size_t n = mf->manifest->n_fragments;
  v->same = malloc((n ? n : 1) * sizeof *v->same);
  if (v->same == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "%s: out of memory", v->manifest_path);
  if (n > 0) memcpy(v->same, mf->same_as_prev, n * sizeof *v->same);
  return LFA_OK;
}

/* ---- manifest rules ------------------------------------------------------------- */

typedef struct id_at {
  int64_t id;
  size_t index; /* position in the list it comes from */
} id_at;

static int by_id_then_index(const void *a, const void *b) {
  const id_at *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* The first entry of `id` in ids sorted by id then index, or NULL. */
static int by_id(const void *key, const void *e) { return lfa_order_i64(*(const int64_t *)key, ((const id_at *)e)->id); }

static const id_at *find_id(const id_at *ids, size_t n, int64_t id) {
  size_t i = lfa_search(&id, ids, n, sizeof *ids, by_id);
  return i != SIZE_MAX ? &ids[i] : NULL;
}

/* [FA-LANCE-9] schema ids unique, every parent before its children. Model
 * breaking: nothing can be said about a field whose id is ambiguous. */
static bool check_schema(const vf_ctx *c, const vf_version *v, const Manifest *m) {
  size_t n = m->n_fields;
  id_at *ids = malloc((n ? n : 1) * sizeof *ids);
  if (ids == NULL) return !vf_out_of_memory(c); /* broken: nothing more can be said */
  for (size_t i = 0; i < n; i++) ids[i] = (id_at){m->fields[i]->id, i};
  qsort(ids, n, sizeof *ids, by_id_then_index);
  bool broken = false;
  for (size_t i = 1; i < n; i++)
    if (ids[i].id == ids[i - 1].id) {
      lfa_where w = at_field(v, m, (int32_t)ids[i].id);
      lfa_findings_add(c->findings, &w, "FA-LANCE-9", LFA_SEVERITY_ERROR,
                       "schema field id %" PRId64 " appears twice (schema positions %zu and %zu)", ids[i].id,
                       ids[i - 1].index, ids[i].index);
      broken = true;
    }
  for (size_t i = 0; i < n; i++) {
    const Lance__File__Field *f = m->fields[i];
    if (f->parent_id == -1) continue;
    const id_at *parent = find_id(ids, n, f->parent_id);
    if (parent != NULL && parent->index < i) continue;
    lfa_where w = at_field(v, m, f->id);
    lfa_findings_add(c->findings, &w, "FA-LANCE-9", LFA_SEVERITY_ERROR,
                     parent ? "field %d comes before its parent %d in the schema"
                            : "field %d names parent %d, which is not in the schema",
                     f->id, f->parent_id);
    broken = true;
  }
  free(ids);
  return broken;
}

/* [FA-LANCE-5] [FA-LANCE-8] [FA-LANCE-12] [FA-LANCE-13]. Model breaking:
 * ambiguous ids, unknown row counts, rows without an address. */
static bool check_fragments(const vf_ctx *c, const vf_version *v, const Manifest *m) {
  bool broken = false, tracked = m->n_field_assignment_states > 0;
  uint64_t max_id = 0;
  for (size_t i = 0; i < m->n_fragments; i++) {
    const Lance__Table__DataFragment *f = m->fragments[i];
    lfa_where w = at_fragment(v, f->id);
    if (i > 0 && f->id <= m->fragments[i - 1]->id) {
      lfa_findings_add(c->findings, &w, "FA-LANCE-5", LFA_SEVERITY_ERROR, "fragment id %" PRIu64 " %s fragment %" PRIu64,
                       f->id, f->id == m->fragments[i - 1]->id ? "repeats" : "comes after", m->fragments[i - 1]->id);
      broken = true;
    }
    if (tracked && f->physical_rows == 0) {
      lfa_findings_add(c->findings, &w, "FA-LANCE-12", LFA_SEVERITY_ERROR,
                       "physical_rows is 0 (unknown) in a manifest with assignment descriptors");
      broken = true;
    }
    if (tracked && f->id > UINT32_MAX) {
      lfa_findings_add(c->findings, &w, "FA-LANCE-13", LFA_SEVERITY_ERROR,
                       "fragment id %" PRIu64 " is not below 2^32: its rows have no row address", f->id);
      broken = true;
    }
    if (i == 0 || f->id > max_id) max_id = f->id;
  }
  if (m->_max_fragment_id_case == LANCE__TABLE__MANIFEST___MAX_FRAGMENT_ID_MAX_FRAGMENT_ID && m->n_fragments > 0 &&
      m->max_fragment_id < max_id) {
    lfa_where w = at_fragment(v, max_id);
    lfa_findings_add(c->findings, &w, "FA-LANCE-8", LFA_SEVERITY_ERROR,
                     "max_fragment_id is %u, below fragment id %" PRIu64 ": a later commit could reuse an id",
                     (unsigned)m->max_fragment_id, max_id);
  }
  return broken;
}

/* The field ids one fragment's data files list, with the file of each. */
static void check_fragment_files(const vf_ctx *c, const vf_version *v, const Manifest *m,
                                 const Lance__Table__DataFragment *f, id_at *ids) {
  size_t n = 0;
  lfa_where w = at_fragment(v, f->id);
  for (size_t k = 0; k < f->n_files; k++)
    for (size_t j = 0; j < f->files[k]->n_fields; j++) {
      int32_t id = f->files[k]->fields[j];
      if (id >= 0) ids[n++] = (id_at){id, k};
      else if (id != -2) /* [FA-LANCE-15] an id or the tombstone, nothing else */
        lfa_findings_add(c->findings, &w, "FA-LANCE-15", LFA_SEVERITY_ERROR,
                         "data file '%s' lists field %d: neither a field id nor the tombstone -2", f->files[k]->path, id);
    }
  qsort(ids, n, sizeof *ids, by_id_then_index);
  for (size_t i = 1; i < n; i++) {
    if (ids[i].id != ids[i - 1].id || (i > 1 && ids[i - 1].id == ids[i - 2].id)) continue; /* once per id */
    lfa_where wf = w;
    wf.has_field = true, wf.field_id = (int32_t)ids[i].id, wf.field_name = vf_field_name(m, wf.field_id);
    const char *a = f->files[ids[i - 1].index]->path, *b = f->files[ids[i].index]->path;
    if (ids[i].index == ids[i - 1].index)
      lfa_findings_add(c->findings, &wf, "FA-LANCE-15", LFA_SEVERITY_ERROR, "data file '%s' lists field %" PRId64 " twice",
                       a, ids[i].id);
    else /* [FA-LANCE-6] which file holds the field's values would be ambiguous */
      lfa_findings_add(c->findings, &wf, "FA-LANCE-6", LFA_SEVERITY_ERROR,
                       "field %" PRId64 " is stored by two data files of the fragment ('%s' and '%s')", ids[i].id, a, b);
  }
}

/* `same` (NULL: every fragment): fragments with the bytes of a fragment of
 * a parent whose manifest rules found nothing are skipped, their files
 * being those that passed there (10§5). */
static void check_data_files(const vf_ctx *c, const vf_version *v, const Manifest *m, const size_t *same) {
  size_t most = 1;
  for (size_t i = 0; i < m->n_fragments; i++) {
    size_t n = 0;
    for (size_t k = 0; k < m->fragments[i]->n_files; k++) n += m->fragments[i]->files[k]->n_fields;
    if (n > most) most = n;
  }
  id_at *ids = malloc(most * sizeof *ids);
  if (ids == NULL) {
    vf_out_of_memory(c);
    return;
  }
  for (size_t i = 0; i < m->n_fragments; i++)
    if (same == NULL || same[i] == SIZE_MAX) check_fragment_files(c, v, m, m->fragments[i], ids);
  free(ids);
}

/* A data file entry of the manifest: the file, and the fragment listing it. */
typedef struct file_at {
  const Lance__Table__DataFile *file;
  size_t fragment; /* index into Manifest.fragments */
} file_at;

static bool has_base(const Lance__Table__DataFile *f) {
  return f->_base_id_case == LANCE__TABLE__DATA_FILE___BASE_ID_BASE_ID;
}

/* By file: base (the dataset root first), then path. Both are file_at; as
 * an lfa_compare_fn the first is the key. */
static int by_file(const void *a, const void *b) {
  const file_at *x = a, *y = b;
  if (has_base(x->file) != has_base(y->file)) return has_base(x->file) ? 1 : -1;
  if (has_base(x->file) && x->file->base_id != y->file->base_id) return x->file->base_id < y->file->base_id ? -1 : 1;
  return strcmp(x->file->path ? x->file->path : "", y->file->path ? y->file->path : "");
}

/* Equal files become neighbors, the first holder first. */
static int by_file_then_fragment(const void *a, const void *b) {
  const file_at *x = a, *y = b;
  int cmp = by_file(x, y);
  return cmp != 0 ? cmp : (x->fragment > y->fragment) - (x->fragment < y->fragment);
}

/* The entries that can repeat a file: all of them, or with `same` (see
 * check_data_files) those of the changed fragments, sorted, and then the
 * unchanged entries naming one of their files. Unchanged fragments name
 * distinct files (they did in the parent), so every repeat involves a
 * changed one, and the repeats come out as from the whole list. */
static size_t candidate_files(file_at *files, const Manifest *m, const size_t *same) {
  size_t n = 0;
  for (size_t i = 0; i < m->n_fragments; i++) {
    if (same != NULL && same[i] != SIZE_MAX) continue;
    for (size_t k = 0; k < m->fragments[i]->n_files; k++) files[n++] = (file_at){m->fragments[i]->files[k], i};
  }
  qsort(files, n, sizeof *files, by_file_then_fragment);
  size_t changed = n;
  for (size_t i = 0; same != NULL && i < m->n_fragments; i++)
    for (size_t k = 0; same[i] != SIZE_MAX && k < m->fragments[i]->n_files; k++) {
      file_at f = {m->fragments[i]->files[k], i};
      if (lfa_search(&f, files, changed, sizeof *files, by_file) != SIZE_MAX) files[n++] = f;
    }
  if (n > changed) qsort(files, n, sizeof *files, by_file_then_fragment);
  return n;
}

/* [FA-LANCE-20] a data file belongs to one fragment: no two entries of the
 * manifest name one file (a path under one base). One finding per entry
 * after the first, at its fragment, naming the first holder. Not model
 * breaking: assignment reads which fields a file lists, not whose it is.
 * The index holds one entry per DataFile the decoder already allocated,
 * so its size is bounded by LFA_PROTO_ALLOC_MAX like theirs. */
static void check_data_file_paths(const vf_ctx *c, const vf_version *v, const Manifest *m, const size_t *same) {
  size_t n = 0;
  for (size_t i = 0; i < m->n_fragments; i++) n += m->fragments[i]->n_files;
  file_at *files = malloc((n ? n : 1) * sizeof *files);
  if (files == NULL) {
    vf_out_of_memory(c);
    return;
  }
  n = candidate_files(files, m, same);
  for (size_t i = 1, first = 0; i < n; i++) {
    if (by_file(&files[first], &files[i]) != 0) {
      first = i; /* a new file */
      continue;
    }
    uint64_t holder = m->fragments[files[first].fragment]->id, again = m->fragments[files[i].fragment]->id;
    lfa_where w = at_fragment(v, again);
    char base[32] = "";
    if (has_base(files[i].file)) snprintf(base, sizeof base, " (base %u)", (unsigned)files[i].file->base_id);
    if (files[i].fragment == files[first].fragment)
      lfa_findings_add(c->findings, &w, "FA-LANCE-20", LFA_SEVERITY_ERROR,
                       "data file '%s'%s is listed twice by fragment %" PRIu64, files[i].file->path, base, again);
    else
      lfa_findings_add(c->findings, &w, "FA-LANCE-20", LFA_SEVERITY_ERROR,
                       "data file '%s'%s is listed by fragment %" PRIu64 " and fragment %" PRIu64
                       ": a data file belongs to one fragment",
                       files[i].file->path, base, holder, again);
  }
  free(files);
}

/* [FA-STORE-1] to [FA-STORE-4], [FA-STORE-13] on every descriptor. The
 * reader rules among them (1, 3, 4) make the version unreadable. */
static bool check_descriptors(const vf_ctx *c, const vf_version *v, const Manifest *m) {
  bool broken = false;
  size_t *firsts = NULL; /* O(D log D), as the reader's check */
  if (lfa_manifest_first_same_field(&firsts, m, NULL) != LFA_OK) {
    lfa_findings_add(c->findings, NULL, "FA-LIMIT-2", LFA_SEVERITY_ERROR, "out of memory checking descriptors");
    return true;
  }
  for (size_t i = 0; i < m->n_field_assignment_states; i++) {
    const Lance__Table__FieldAssignmentState *d = m->field_assignment_states[i];
    lfa_where w = at_field(v, m, d->field_id);
    size_t first = firsts[i];
    if (first < i) {
      lfa_findings_add(c->findings, &w, "FA-STORE-1", LFA_SEVERITY_ERROR,
                       "field %d has two assignment descriptors (entries %zu and %zu): readers reject the manifest",
                       d->field_id, first, i);
      broken = true;
    } else if (i > 0 && d->field_id < m->field_assignment_states[i - 1]->field_id) {
      lfa_findings_add(c->findings, &w, "FA-STORE-2", LFA_SEVERITY_ERROR,
                       "descriptors are not sorted by field id: %d follows %d", d->field_id,
                       m->field_assignment_states[i - 1]->field_id);
    }
    if (v->checking == NULL || lfa_field_index_find(v->checking, d->field_id) == NULL) {
      lfa_findings_add(c->findings, &w, "FA-STORE-3", LFA_SEVERITY_ERROR,
                       "assignment descriptor %zu names field %d, which is not in the schema", i, d->field_id);
      broken = true;
    }
    if (d->root == NULL || d->root->path == NULL || d->root->path[0] == '\0') {
      lfa_findings_add(c->findings, &w, "FA-STORE-4", LFA_SEVERITY_ERROR, "the descriptor of field %d has %s",
                       d->field_id, d->root == NULL ? "no root" : "a root with an empty path");
      broken = true;
    } else if (d->root->has_inline_bytes) {
      w.file = d->root->path;
      lfa_findings_add(c->findings, &w, "FA-STORE-13", LFA_SEVERITY_ERROR,
                       "the root of field %d carries inline_bytes (field 4 of a later upstream iteration)", d->field_id);
    }
  }
  free(firsts);
  return broken;
}

/* [FA-LANCE-21] Bit 256 without descriptors: Lance 12's mixed data-file
 * versions in both words (a note), half of that pair in one word alone (an
 * error: Lance 12 refuses the manifest). */
static void check_bit_256(const vf_ctx *c, const vf_version *v, const Manifest *m, const char *writer) {
  bool tracked = m->n_field_assignment_states > 0;
  bool w256 = (m->writer_feature_flags & LFA_FLAG_FIELD_ASSIGNMENT_DRAFT) != 0;
  bool r256 = (m->reader_feature_flags & LFA_FLAG_FIELD_ASSIGNMENT_DRAFT) != 0;
  lfa_where w = at(v);
  if (lfa_flags_mixed_data_file_versions(m->reader_feature_flags, m->writer_feature_flags, tracked))
    lfa_findings_add(c->findings, &w, "FA-LANCE-21", LFA_SEVERITY_INFO,
                     "bit 256 in both feature words and no assignment descriptor: Lance 12's mixed "
                     "data-file versions, not field assignment state (%s)", writer);
  else if (!tracked && (w256 || r256))
    lfa_findings_add(c->findings, &w, "FA-LANCE-21", LFA_SEVERITY_ERROR,
                     "bit 256 is set in the %s word only: Lance 12 reads it as half of its mixed data-file "
                     "versions pair and refuses the manifest as corrupt (%s)", w256 ? "writer" : "reader", writer);
}

/* True when the manifest holds a top-level field `field` it did not read. */
static bool has_unknown_field(const Manifest *m, uint32_t field) {
  for (unsigned i = 0; i < m->base.n_unknown_fields; i++)
    if (m->base.unknown_fields[i].tag == field) return true;
  return false;
}

/* [FA-FLAG-7] The two earlier layouts are read, with a warning that names
 * the layout; the draft's marker in both words is an error (Lance 12 opens
 * it as mixed data-file versions and commits without the state). A field
 * 1022 without bit 2^52 is someone else's: a note, never state. */
static void check_state_layout(const vf_ctx *c, const vf_version *v, const Manifest *m, lfa_layout layout,
                         const char *writer) {
  lfa_where w = at(v);
  if (layout == LFA_LAYOUT_PREVIOUS)
    lfa_findings_add(c->findings, &w, "FA-FLAG-7", LFA_SEVERITY_WARNING,
                     "%s: read as that layout; released Lance 13 and later give manifest field 22 to the fragment "
                     "tree, and a commit by this writer moves the state to field 1022 and bit 2^52 (%s)",
                     lfa_layout_name(layout), writer);
  else if (layout == LFA_LAYOUT_DRAFT && (m->reader_feature_flags & LFA_FLAG_FIELD_ASSIGNMENT_DRAFT))
    lfa_findings_add(c->findings, &w, "FA-FLAG-7", LFA_SEVERITY_ERROR,
                     "assignment descriptors marked by bit 256 in both words, not bit 2^52: Lance 12 reads that as "
                     "mixed data-file versions, opens the table and commits without the state (%s)", writer);
  else if (layout == LFA_LAYOUT_DRAFT)
    lfa_findings_add(c->findings, &w, "FA-FLAG-7", LFA_SEVERITY_WARNING,
                     "%s: read as that layout, but Lance 12 spent bit 256 on mixed data-file versions and refuses "
                     "this manifest as corrupt, and Lance 8 appends refuse but its other writes drop the state (%s)",
                     lfa_layout_name(layout), writer);
  else if (layout == LFA_LAYOUT_NONE && has_unknown_field(m, LFA_MANIFEST_FIELD_DESCRIPTORS))
    lfa_findings_add(c->findings, &w, "FA-FLAG-7", LFA_SEVERITY_INFO,
                     "manifest field %u is present but bit 2^52 is in neither feature word: it is not field "
                     "assignment state, and is left as the writer's own field (%s)",
                     (unsigned)LFA_MANIFEST_FIELD_DESCRIPTORS, writer);
}

/* [FA-FLAG-1] [FA-FLAG-2] [FA-FLAG-3]: the layout's marker follows the
 * descriptors (2^52; 65536 in lfa's previous layout; the draft's writer
 * bit 256 is checked by check_state_layout). The writer is named: a cleared bit
 * is what an older writer leaves [FA-FLAG-6]. The writer bit alone is a
 * policy the table's owner chose, kept by every later commit: FA-FLAG-2 is
 * said once, where it starts (the parent does not have it), not at every
 * version (10§2); --strict says it at each. */
static void check_flags(const vf_ctx *c, vf_version *v, const Manifest *m, const vf_version *parent) {
  bool tracked = m->n_field_assignment_states > 0;
  lfa_layout layout = lfa_manifest_layout(m);
  uint64_t bit = layout == LFA_LAYOUT_PREVIOUS ? LFA_FLAG_FIELD_ASSIGNMENT_PREVIOUS : LFA_FLAG_FIELD_ASSIGNMENT;
  const char *name = layout == LFA_LAYOUT_PREVIOUS ? "65536" : "2^52";
  bool wbit = (m->writer_feature_flags & bit) != 0, rbit = (m->reader_feature_flags & bit) != 0;
  char writer[160];
  vf_writer_of(writer, sizeof writer, m);
  lfa_where w = at(v);
  check_bit_256(c, v, m, writer);
  check_state_layout(c, v, m, layout, writer);
  if (layout == LFA_LAYOUT_DRAFT) return;
  if (tracked && !wbit)
    lfa_findings_add(c->findings, &w, "FA-FLAG-1", LFA_SEVERITY_ERROR,
                     "%zu assignment descriptors but writer feature bit %s is clear: writers that do not keep the "
                     "state can commit (%s)", m->n_field_assignment_states, name, writer);
  if (!tracked && wbit)
    lfa_findings_add(c->findings, &w, "FA-FLAG-1", LFA_SEVERITY_ERROR,
                     "writer feature bit %s is set but the manifest has no assignment descriptor (%s)", name, writer);
  v->writer_bit_only = tracked && wbit && !rbit;
  bool starts = parent == NULL || !parent->writer_bit_only;
  if (v->writer_bit_only && (starts || c->strict))
    lfa_findings_add(c->findings, &w, "FA-FLAG-2", LFA_SEVERITY_WARNING,
                     "reader feature bit %s is not set: Lance 8 can open this dataset and commit without keeping "
                     "its assignment state (it checks writer bits on append only) (%s)%s", name, writer,
                     starts ? "; the later versions that keep this policy are not warned about again (--strict: each)"
                            : "");
  if (!tracked && rbit)
    lfa_findings_add(c->findings, &w, "FA-FLAG-3", LFA_SEVERITY_ERROR,
                     "reader feature bit %s is set but the manifest has no assignment descriptor (%s)", name, writer);
}

/* Every manifest rule. True when the model is broken: the snapshot is then
 * not opened and no transition uses the version. */
static bool check_manifest(const vf_ctx *c, vf_version *v, const Manifest *m, const vf_version *parent,
                           const size_t *same) {
  bool broken = false;
  if (m->version != v->version) { /* [FA-LANCE-18] */
    lfa_where w = at(v);
    lfa_findings_add(c->findings, &w, "FA-LANCE-18", LFA_SEVERITY_ERROR,
                     "the manifest records version %" PRIu64 ", its file name version %" PRIu64, m->version, v->version);
    broken = true;
  }
  broken |= check_schema(c, v, m);
  broken |= check_fragments(c, v, m);
  size_t before = c->findings->count;
  check_data_files(c, v, m, same);
  check_data_file_paths(c, v, m, same);
  v->clean = c->findings->count == before && !c->findings->lost; /* its fragments' files are sound */
  broken |= check_descriptors(c, v, m);
  check_flags(c, v, m, parent);
  return broken;
}

/* ---- objects ------------------------------------------------------------------------ */

static bool is_uuid_v4(const char *s, size_t n) {
  if (n != 36 || s[14] != '4' || strchr("89ab", s[19]) == NULL || s[19] == '\0') return false;
  for (size_t i = 0; i < n; i++) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    bool hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
    if (dash ? s[i] != '-' : !hex) return false;
  }
  return true;
}

/* [FA-STORE-7] `<prefix><uuid v4><ext>`. A warning only: upstream reuses a
 * root under the old id after a cast (FA-CAST-3), and readers never care. */
static void check_layout(const vf_ctx *c, lfa_where w, const char *path, const char *prefix, const char *ext) {
  size_t np = strlen(prefix), ne = strlen(ext), n = strlen(path);
  bool ok = n > np + ne && strncmp(path, prefix, np) == 0 && strcmp(path + n - ne, ext) == 0 &&
            is_uuid_v4(path + np, n - np - ne);
  if (ok) return;
  w.file = path;
  lfa_findings_add(c->findings, &w, "FA-STORE-7", LFA_SEVERITY_WARNING,
                   "object path '%s' is not %s<uuid v4>%s", path, prefix, ext);
}

/* Layout and fields of a loaded field's root and partials: [FA-STORE-7],
 * [FA-ROOT-8] (no field beyond those defined, so the empty root stays 0
 * bytes), [FA-STORE-13] (no inline bytes on a partial). */
static void check_objects(const vf_ctx *c, const vf_version *v, const lfa_tracked_field *t) {
  const Manifest *m = v->snap.file.manifest;
  lfa_where w = at_field(v, m, t->field_id);
  char prefix[96];
  w.file = t->root_file->path;
  if (t->root->base.n_unknown_fields > 0)
    lfa_findings_add(c->findings, &w, "FA-ROOT-8", LFA_SEVERITY_ERROR,
                     "the root holds %u protobuf fields this format does not define", t->root->base.n_unknown_fields);
  for (size_t k = 0; k < t->root->n_fragments; k++) {
    const lfa_root_entry *e = t->root->fragments[k];
    lfa_where we = w;
    we.has_fragment = true, we.fragment_id = e->fragment_id;
    if (e->base.n_unknown_fields > 0)
      lfa_findings_add(c->findings, &we, "FA-ROOT-8", LFA_SEVERITY_ERROR,
                       "root entry %zu holds protobuf fields this format does not define", k);
    if (e->state_case != LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL || e->partial == NULL) continue;
    we.file = e->partial->path;
    if (e->partial->has_inline_bytes)
      lfa_findings_add(c->findings, &we, "FA-STORE-13", LFA_SEVERITY_ERROR,
                       "the partial of fragment %" PRIu64 " carries inline_bytes (field 4 of a later upstream iteration)",
                       e->fragment_id);
    snprintf(prefix, sizeof prefix, "_field_assignments/bitmaps/%d/%" PRIu64 "/", t->field_id, e->fragment_id);
    check_layout(c, we, e->partial->path, prefix, ".rbm");
  }
}

/* Loads every tracked field on its own: a failure is one finding for that
 * field, and the others are still checked. *all_loaded says whether each
 * one loaded. */
static lfa_status load_fields(bool *all_loaded, vf_version *v, const vf_ctx *c, lfa_error *err) {
  const Manifest *m = v->snap.file.manifest;
  *all_loaded = true;
  for (size_t i = 0; i < v->snap.n_tracked; i++) {
    const lfa_tracked_field *t = &v->snap.tracked[i];
    lfa_where w = at_field(v, m, t->field_id);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "_field_assignments/roots/%d/", t->field_id);
    check_layout(c, w, t->root_file->path, prefix, ".root");
    lfa_error e = {0};
    if (lfa_snapshot_load_field(&v->snap, c->dir, i, &e) == LFA_OK) {
      check_objects(c, v, t);
      continue;
    }
    if (e.status == LFA_ERR_NOMEM) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "%s", e.msg);
    w.file = t->root_file->path;
    /* no rule from the reader: the root is not protobuf [FA-ROOT-1]; a
     * missing object comes cited [FA-STORE-5], an unreadable one is an I/O
     * error (report_limited) */
    report_failure(c, w, &e, e.status == LFA_ERR_PROTO ? "FA-ROOT-1" : "FA-STORE-5");
    *all_loaded = false;
  }
  return LFA_OK;
}

/* ---- the snapshot ----------------------------------------------------------------- */

/* The rule behind a failure of lfa_snapshot_open that names none (a file
 * the manifest points at is missing or is not protobuf), by where it is. */
static bool under(const char *file, const char *dir) { return strncmp(file, dir, strlen(dir)) == 0; }

static const char *open_fallback(const lfa_error *e) {
  if (under(e->file, "_transactions/")) return "FA-LANCE-10"; /* the transaction file */
  if (under(e->file, "_deletions/")) return "FA-LANCE-16";    /* a deletion file */
  if (e->has_fragment) return "FA-LANCE-7"; /* the one other step per fragment: its row id sequence */
  return "FA-LANCE-1";
}

typedef struct live_id {
  uint64_t id;
  uint64_t fragment_id;
  uint64_t offset;
} live_id;

static int by_row_id(const void *a, const void *b) {
  const live_id *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

/* [FA-LANCE-14] with stable row ids no two live rows share an id. */
static void check_live_row_ids(const vf_ctx *c, const vf_version *v) {
  const lfa_snapshot *s = &v->snap;
  const Manifest *m = s->file.manifest;
  size_t n = 0, cap = 0, shown = 0, dup = 0;
  for (size_t i = 0; i < m->n_fragments; i++) cap += (size_t)s->row_ids[i].count;
  live_id *ids = malloc((cap ? cap : 1) * sizeof *ids);
  if (ids == NULL) {
    vf_out_of_memory(c);
    return;
  }
  for (size_t i = 0; i < m->n_fragments; i++)
    for (uint64_t o = 0; o < s->row_ids[i].count; o++)
      if (s->deleted[i] == NULL || !roaring_bitmap_contains(s->deleted[i], (uint32_t)o))
        ids[n++] = (live_id){s->row_ids[i].ids[o], m->fragments[i]->id, o};
  qsort(ids, n, sizeof *ids, by_row_id);
  for (size_t i = 1; i < n; i++) {
    if (ids[i].id != ids[i - 1].id) continue;
    dup++;
    if (shown++ >= DUPLICATE_IDS_SHOWN) continue;
    lfa_where w = at_fragment(v, ids[i].fragment_id);
    w.n_rows = 1, w.rows = &ids[i].offset;
    lfa_findings_add(c->findings, &w, "FA-LANCE-14", LFA_SEVERITY_ERROR,
                     "live rows (%" PRIu64 ", %" PRIu64 ") and (%" PRIu64 ", %" PRIu64 ") share row id %" PRIu64,
                     ids[i - 1].fragment_id, ids[i - 1].offset, ids[i].fragment_id, ids[i].offset, ids[i].id);
  }
  if (dup > DUPLICATE_IDS_SHOWN) {
    lfa_where w = at(v);
    lfa_findings_add(c->findings, &w, "FA-LANCE-14", LFA_SEVERITY_ERROR,
                     "%zu live rows in all repeat a row id (the first %d are listed)", dup, DUPLICATE_IDS_SHOWN);
  }
  free(ids);
}

/* Opens the snapshot, loads its fields, and builds its table when all of
 * it is sound. */
/* The snapshot of `entry` from its manifest file `mf`, already decoded by
 * read_manifest (taken over), then every field and the model. */
static lfa_status check_snapshot(vf_version *v, const vf_ctx *c, const lfa_version_entry *entry,
                                 lfa_manifest_file *mf, const vf_version *parent, lfa_error *err) {
  lfa_error e = {0};
  const lfa_snapshot *from = parent != NULL && parent->loadable ? &parent->snap : NULL;
  lfa_snapshot_options opt = {.fs = c->fs, .cache = c->cache, .after = from, .decoded = mf, .same = v->same};
  if (lfa_snapshot_open(&v->snap, c->dir, entry, &opt, &e) != LFA_OK) {
    if (e.status == LFA_ERR_NOMEM) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "%s", e.msg);
    if (e.status == LFA_ERR_PROTO && under(e.file, "_transactions/") &&
        vf_txn_file_sidecar_undecodable(c->fs, c->dir, e.file)) { /* [FA-TXN-7] */
      e.rule = "FA-TXN-7";
      lfa_error_prefix(&e, "the sidecar (transaction field 1005) does not decode");
    }
    report_failure(c, at(v), &e, open_fallback(&e));
    return LFA_OK;
  }
  vf_check_sidecar_storage(c, v); /* [FA-TXN-5] [FA-TXN-6] */
  vf_check_unread_row_ids(c, v);  /* [FA-VERIFY-8] */
  bool loaded = false;
  lfa_status st = load_fields(&loaded, v, c, err);
  if (st == LFA_OK && v->snap.stable_row_ids) check_live_row_ids(c, v); /* over the ids that are read */
  /* without every row id the version has no table (lfa_table_from_snapshot) */
  if (st == LFA_OK && loaded && v->snap.row_ids_unread == 0) { /* an overlay the model refuses is a finding, not a failure [FA-VERIFY-5] */
    lfa_error_clear(&e);
    if (lfa_table_from_snapshot(&v->table, &v->snap, &e) == LFA_OK) v->loadable = true;
    else if (e.status == LFA_ERR_NOMEM) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "%s", e.msg);
    else report_failure(c, at(v), &e, "FA-OVERLAY-3");
  }
  *c->objects_decoded += v->snap.objects_decoded;
  if (!v->loadable) lfa_snapshot_free(&v->snap); /* nothing uses it: keep memory to one version */
  return st;
}

lfa_status vf_check_version(vf_version *out, const vf_ctx *c, const lfa_version_entry *entry,
                            const vf_version *parent, lfa_error *err) {
  memset(out, 0, sizeof *out);
  out->version = entry->version;
  snprintf(out->manifest_path, sizeof out->manifest_path, "_versions/%s", entry->name);
  lfa_manifest_file mf = {0};
  Manifest *raw = NULL;
  const Manifest *m = NULL;
  lfa_status st = read_manifest(&m, &mf, &raw, out, c, parent, err);
  if (st == LFA_OK && m != NULL && m == mf.manifest) st = compare_fragments(out, parent, &mf, err);
  bool broken = raw != NULL; /* a reader rule on descriptors failed: readers reject the version */
  lfa_field_index fields = {0};
  if (st == LFA_OK && m != NULL) st = lfa_field_index_make(&fields, m, err);
  out->checking = m != NULL && st == LFA_OK ? &fields : NULL;
  if (st == LFA_OK && m != NULL) {
    out->decoded = true;
    out->tracked = m->n_field_assignment_states > 0;
    broken |= check_manifest(c, out, m, parent, parent != NULL && parent->clean ? out->same : NULL);
    vf_check_unchecked(c, out, m, m == mf.manifest ? mf.index_section : NULL); /* [FA-VERIFY-8] */
  }
  if (st == LFA_OK && m != NULL && !broken) st = check_snapshot(out, c, entry, &mf, parent, err);
  if (st == LFA_OK && out->loadable)
    vf_check_unchecked_transaction(c, out, out->snap.file.manifest, out->snap.transaction);
  out->checking = NULL;
  lfa_field_index_free(&fields);
  lfa_pb_free(raw);
  lfa_manifest_file_free(&mf); /* when check_snapshot did not take it */
  if (st == LFA_OK && c->findings->lost) st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory recording findings");
  return st;
}

lfa_status vf_load_quietly(vf_version *out, const vf_ctx *c, const char *dir, const lfa_version_entry *entry,
                           lfa_error *err) {
  lfa_findings ignored = {0};
  vf_ctx quiet = {dir, c->fs, &ignored, NULL, c->cache, c->objects_decoded, false}; /* the run's cache, any dataset */
  lfa_status st = vf_check_version(out, &quiet, entry, NULL, err);
  lfa_findings_free(&ignored);
  return st;
}

void vf_version_free(vf_version *v) {
  if (v->loadable) {
    lfa_table_free(&v->table);
    lfa_snapshot_free(&v->snap);
  }
  free(v->same);
  memset(v, 0, sizeof *v);
}
