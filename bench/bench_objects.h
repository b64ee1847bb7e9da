/* bench_objects.h: the metadata objects of a table of K fragments, built
 * directly as protobuf-c structs and encoded with the real encoders
 * (lfa_root_encode, lfa_manifest_file_encode), for the benchmarks that
 * need tables too large to commit one fragment at a time
 * (root_growth.c, decode.c).
 *
 * The shape: fragment ids 0 .. K-1, each fragment `rows` physical rows and
 * one data file `<uuid>.lance` (Lance 2.1) storing fields 0 and 1; field 1
 * is tracked; its root has an entry per fragment: the fragments at
 * positions i with i % partial_every == partial_every - 1 a partial bitmap
 * of `partial_size` bytes at an upstream path, the others all_assigned. */
#ifndef LFA_BENCH_OBJECTS_H
#define LFA_BENCH_OBJECTS_H

#include "bench_util.h"

#include "lfa/manifest.h"
#include "lfa/root.h"

#define BENCH_UUID "0f8e3c2a-5b7d-4e91-a6c3-2d4f8b9e1a70" /* 36 characters, like Uuid::new_v4() */
enum { BENCH_FIELD = 1, BENCH_PATH_CAP = 112 };

typedef struct bench_shape {
  uint64_t first_id; /* fragment ids first_id .. first_id + count - 1 */
  size_t count;
  uint64_t rows;
  size_t partial_every; /* 0: no partial entry */
  uint64_t partial_size;
} bench_shape;

static inline void *bench_must(void *p) {
  if (p == NULL) {
    fprintf(stderr, "bench: out of memory\n");
    exit(2);
  }
  return p;
}

static inline void bench_check(lfa_status st, const lfa_error *err) {
  if (st != LFA_OK) {
    fprintf(stderr, "bench: %s\n", err->msg);
    exit(2);
  }
}

/* A root of `s.count` entries; the arrays live in `keep` (free with
 * bench_root_free). */
typedef struct bench_root {
  lfa_root root;
  lfa_root_entry *entries;
  lfa_root_entry **list;
  Lance__Table__FieldAssignmentFile *files;
  char (*paths)[BENCH_PATH_CAP];
} bench_root;

static inline void bench_root_build(bench_root *r, bench_shape s) {
  lance__table__field_assignment_root__init(&r->root);
  r->entries = bench_must(calloc(s.count + 1, sizeof *r->entries));
  r->list = bench_must(calloc(s.count + 1, sizeof *r->list));
  r->files = bench_must(calloc(s.count + 1, sizeof *r->files));
  r->paths = bench_must(calloc(s.count + 1, sizeof *r->paths));
  for (size_t i = 0; i < s.count; i++) {
    lfa_root_entry *e = &r->entries[i];
    lance__table__field_assignment_fragment__init(e);
    e->fragment_id = s.first_id + i, e->physical_rows = s.rows;
    if (s.partial_every > 0 && i % s.partial_every == s.partial_every - 1) {
      lance__table__field_assignment_file__init(&r->files[i]);
      snprintf(r->paths[i], BENCH_PATH_CAP, "_field_assignments/bitmaps/%d/%" PRIu64 "/%s.rbm", BENCH_FIELD,
               e->fragment_id, BENCH_UUID);
      r->files[i].path = r->paths[i], r->files[i].has_size_bytes = true, r->files[i].size_bytes = s.partial_size;
      e->state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL, e->partial = &r->files[i];
    } else {
      e->state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED, e->all_assigned = true;
    }
    r->list[i] = e;
  }
  r->root.n_fragments = s.count, r->root.fragments = r->list;
}

static inline void bench_root_free(bench_root *r) {
  free(r->entries), free(r->list), free(r->files), free(r->paths);
}

/* Encoded size of the root of shape s. */
static inline size_t bench_root_bytes(bench_shape s) {
  bench_root r;
  bench_root_build(&r, s);
  lfa_buf out = {0};
  lfa_error err = {0};
  bench_check(lfa_root_encode(&out, &r.root, &err), &err);
  size_t n = out.len;
  lfa_buf_free(&out);
  bench_root_free(&r);
  return n;
}

/* A whole manifest file (framing, footer) for the table of shape s, with
 * the tracked field's descriptor pointing at a root of `root_size` bytes. */
static inline void bench_manifest_encode(lfa_buf *out, bench_shape s, uint64_t root_size) {
  Lance__File__Field fields[2], *field_list[2];
  const char *names[] = {"id", "f"}, *types[] = {"int64", "string"};
  for (int i = 0; i < 2; i++) {
    lance__file__field__init(&fields[i]);
    fields[i].type = LANCE__FILE__FIELD__TYPE__LEAF, fields[i].name = (char *)names[i];
    fields[i].id = i, fields[i].parent_id = -1, fields[i].logical_type = (char *)types[i], fields[i].nullable = i == 1;
    field_list[i] = &fields[i];
  }
  int32_t ids[] = {0, BENCH_FIELD}, cols[] = {0, 1};
  Lance__Table__DataFragment *frags = bench_must(calloc(s.count + 1, sizeof *frags));
  Lance__Table__DataFragment **frag_list = bench_must(calloc(s.count + 1, sizeof *frag_list));
  Lance__Table__DataFile *files = bench_must(calloc(s.count + 1, sizeof *files));
  Lance__Table__DataFile **file_list = bench_must(calloc(s.count + 1, sizeof *file_list));
  for (size_t i = 0; i < s.count; i++) {
    lance__table__data_file__init(&files[i]);
    files[i].path = BENCH_UUID ".lance", files[i].n_fields = 2, files[i].fields = ids;
    files[i].n_column_indices = 2, files[i].column_indices = cols;
    files[i].file_major_version = 2, files[i].file_minor_version = 1, files[i].file_size_bytes = 64 * s.rows;
    file_list[i] = &files[i];
    lance__table__data_fragment__init(&frags[i]);
    frags[i].id = s.first_id + i, frags[i].physical_rows = s.rows, frags[i].n_files = 1, frags[i].files = &file_list[i];
    frag_list[i] = &frags[i];
  }
  char root_path[BENCH_PATH_CAP];
  snprintf(root_path, sizeof root_path, "_field_assignments/roots/%d/%s.root", BENCH_FIELD, BENCH_UUID);
  Lance__Table__FieldAssignmentFile root = LANCE__TABLE__FIELD_ASSIGNMENT_FILE__INIT;
  root.path = root_path, root.has_size_bytes = root_size > 0, root.size_bytes = root_size;
  Lance__Table__FieldAssignmentState state = LANCE__TABLE__FIELD_ASSIGNMENT_STATE__INIT, *states[] = {&state};
  state.field_id = BENCH_FIELD, state.root = &root;
  Lance__Table__Manifest__WriterVersion wv = LANCE__TABLE__MANIFEST__WRITER_VERSION__INIT;
  wv.library = "lance", wv.version = "0.39.0";
  Lance__Table__Manifest__DataStorageFormat df = LANCE__TABLE__MANIFEST__DATA_STORAGE_FORMAT__INIT;
  df.file_format = "lance", df.version = "2.1";
  Lance__Table__Manifest m = LANCE__TABLE__MANIFEST__INIT;
  m.n_fields = 2, m.fields = field_list, m.n_fragments = s.count, m.fragments = frag_list, m.version = 2;
  m.reader_feature_flags = 0, m.writer_feature_flags = LFA_FLAG_FIELD_ASSIGNMENT;
  m._max_fragment_id_case = LANCE__TABLE__MANIFEST___MAX_FRAGMENT_ID_MAX_FRAGMENT_ID;
  m.max_fragment_id = (uint32_t)(s.first_id + s.count - 1);
  m.writer_version = &wv, m.data_format = &df;
  m.n_field_assignment_states = 1, m.field_assignment_states = states;
  lfa_error err = {0};
  bench_check(lfa_manifest_file_encode(out, &m, NULL, &err), &err);
  free(frags), free(frag_list), free(files), free(file_list);
}

#endif
