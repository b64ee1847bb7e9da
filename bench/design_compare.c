/* design_compare.c: field assignment against a Boolean column plus a
 * bitmap index (spec/B-cost-model.md, measurement b; B§5).
 *
 * A table of FRAGMENTS fragments of ROWS rows (100 x 10^6 by default) and
 * one tracked field f, in these states: 0%, 100%, random at 0.1% .. 99.9%
 * (each row assigned independently), clustered in table order (the first
 * d of the table's rows: a backfill or a field written by appends), and
 * clustered per fragment (one run of d x ROWS rows in each fragment).
 *
 * Our bytes come from the real encoders on those states: each partial
 * bitmap through lfa_bitmap_encode (the no-run objects the writer stores),
 * the root through lfa_root_encode (entries with upstream-length paths),
 * the manifest descriptor through protobuf-c; a compaction goes through
 * lfa_remap_group, the reference remap.
 *
 * The alternative, modelled as Lance stores it (README.md says more):
 *   - a non-nullable Boolean column f_assigned in every fragment, Lance
 *     2.1 mini-block layout: 1 bit per value, blocks of 32768 values (4096
 *     bytes, the largest power of two under 8186 bytes), an 8-byte block
 *     header (buffer count + size, padded), 2 bytes of block metadata per
 *     block, PAGE_META bytes of page description. Where Lance's RLE would
 *     apply (runs / values < 0.5) the column is charged an RLE lower bound
 *     instead (3 bytes per run per block plus its header): generous to
 *     the alternative;
 *   - a Lance BITMAP scalar index on it: `bitmap_page_lookup.lance` holds
 *     one row per distinct value (false, true), each a serialized
 *     RowAddrTreeMap: u32 entry count, then per fragment with that value
 *     u32 fragment id, u32 size and a portable Roaring bitmap of the
 *     fragment's offsets with that value (built by inserting addresses, so
 *     always a bitmap, never "full"; roaring-rs 0.10 writes the no-run
 *     form, byte for byte what lfa_bitmap_encode writes for the same set),
 *     plus INDEX_FILE_META bytes of Lance file framing; the manifest gains
 *     an IndexMetadata entry (encoded here with protobuf-c), the schema
 *     field, and one field id and column index per data file;
 *   - upkeep: a write to f rewrites f_assigned's pages in every touched
 *     fragment (REWRITE_COLUMNS writes a new data file for the columns it
 *     updates); the index, which no longer covers those fragments, is
 *     brought back by an index update that rewrites the whole lookup file
 *     (counted; "column only" leaves the index stale). Compaction rewrites
 *     the column with the data and remaps the index (a whole rewrite).
 *
 * Targets (metadata bytes, ours / alternative): at most 1/3 at 50%
 * random; at most 1/100 at 0%, 100% and clustered.
 *
 *   design_compare [--smoke] [--fragments N] [--rows N]
 */
#include "bench_util.h"
#include "design_states.h" /* the states, shared with interop/design_compare_lance.mjs */

#include "lfa/bits.h"
#include "lfa/bitmap.h"
#include "lfa/materialize.h"
#include "lfa/remap.h"
#include "lfa/root.h"
#include "lfa/roaring_layout.h"
#include "lfa/table.h"

enum {
  FIELD_ID = 1,          /* the tracked field f */
  ALT_FIELD_ID = 2,      /* the alternative's f_assigned */
  BLOCK_VALUES = 32768,  /* mini-block of 1-bit values: 4096 bytes */
  BLOCK_HEADER = 8,      /* 1 byte buffer count + 2 bytes size, padded to 8 */
  BLOCK_META = 2,        /* per block in the page's metadata buffer */
  PAGE_META = 64,        /* estimate: page layout, buffer offsets and sizes in the column metadata */
  INDEX_FILE_META = 512, /* estimate: Lance file footer (40), schema, column metadata, offsets of 2 rows */
  TREEMAP_ENTRY = 8,     /* u32 fragment id + u32 bitmap size */
  COMPACT_FRAGMENTS = 10
};
static const uint64_t COMPACT_TARGET = 1024 * 1024;
static const char *UUID = "0f8e3c2a-5b7d-4e91-a6c3-2d4f8b9e1a70"; /* 36 characters, like Uuid::new_v4() */

typedef struct column {
  size_t flat, rle, charged; /* charged: rle where Lance would pick it, else flat */
} column;

/* A fragment's encoded sizes, computed once per state (encoding 10^8 rows
 * again for every commit would dominate the run). */
typedef struct sizes {
  bool known;
  size_t bitmap[2]; /* the index's bitmap of the offsets where f_assigned is false / true (0: none) */
  column col;       /* f_assigned's pages */
} sizes;

typedef struct table {
  size_t n;
  uint64_t *ids, *rows;
  lfa_cell *cells;
  sizes *sz;
} table;

typedef struct scratch {
  uint8_t *bits;
  uint64_t *runs;
} scratch;

static void *must(void *p) {
  if (p == NULL) {
    fprintf(stderr, "design_compare: out of memory\n");
    exit(2);
  }
  return p;
}

static table table_new(size_t n) {
  table t = {n, must(calloc(n + 1, sizeof(uint64_t))), must(calloc(n + 1, sizeof(uint64_t))),
             must(calloc(n + 1, sizeof(lfa_cell))), must(calloc(n + 1, sizeof(sizes)))};
  return t;
}

static void table_free(table *t) {
  for (size_t i = 0; i < t->n; i++) lfa_bitmap_free(t->cells[i].rows);
  free(t->ids), free(t->rows), free(t->cells), free(t->sz);
}

static lfa_cell cell_copy(const lfa_cell *c) {
  return (lfa_cell){c->kind, c->kind == LFA_CELL_PARTIAL ? must(roaring_bitmap_copy(c->rows)) : NULL};
}

static bool cell_equal(const lfa_cell *a, const lfa_cell *b) {
  return a->kind == b->kind && (a->kind != LFA_CELL_PARTIAL || roaring_bitmap_equals(a->rows, b->rows));
}

/* ---- states ------------------------------------------------------------------------- */

typedef enum pattern { RANDOM, CLUSTERED_TABLE, CLUSTERED_FRAGMENT } pattern;
static const char *PATTERN[] = {"random", "clustered (table order)", "clustered (one run per fragment)"};

static lfa_cell cell_of(uint32_t *v, size_t n, uint64_t rows) {
  lfa_cell c = {LFA_CELL_PARTIAL, must(roaring_bitmap_of_ptr(n, v))};
  lfa_cell_canonicalize(&c, rows);
  return c;
}

static table make_state(size_t n, uint64_t rows, pattern p, double d, uint64_t seed) {
  table t = table_new(n);
  uint32_t *v = must(malloc(rows * sizeof *v));
  uint64_t rng = seed, table_assigned = (uint64_t)(d * (double)(n * rows));
  uint64_t below = d >= 1 ? UINT64_MAX : (uint64_t)(d * 18446744073709551616.0); /* P(rand < below) = d */
  for (size_t i = 0; i < n; i++) {
    t.ids[i] = i, t.rows[i] = rows;
    size_t k = 0;
    if (d <= 0 || d >= 1) { /* uniform: no rows to draw */
      t.cells[i] = (lfa_cell){d >= 1 ? LFA_CELL_ALL : LFA_CELL_NONE, NULL};
      continue;
    }
    if (p == RANDOM) {
      for (uint64_t o = 0; o < rows; o++)
        if (bench_rand(&rng) < below) v[k++] = (uint32_t)o;
    } else if (p == CLUSTERED_TABLE) {
      uint64_t first = i * rows, upto = table_assigned > first ? table_assigned - first : 0;
      for (uint64_t o = 0; o < rows && o < upto; o++) v[k++] = (uint32_t)o;
    } else {
      uint64_t len = (uint64_t)(d * (double)rows), start = bench_rand(&rng) % (rows - len + 1);
      for (uint64_t o = start; o < start + len; o++) v[k++] = (uint32_t)o;
    }
    t.cells[i] = cell_of(v, k, rows);
  }
  free(v);
  return t;
}

/* ---- encoded sizes (the real encoders) ------------------------------------------------------- */

static size_t encoded(const roaring_bitmap_t *b) {
  lfa_buf out = {0};
  lfa_error err = {0};
  if (lfa_bitmap_encode(&out, b, &err) != LFA_OK) {
    fprintf(stderr, "design_compare: %s\n", err.msg);
    exit(2);
  }
  size_t n = out.len;
  lfa_buf_free(&out);
  return n;
}

/* The portable no-run layout (lfa/roaring_layout.h) of a set of a fragment's
 * offsets where f_assigned is `value`, from its cardinality in each 2^16
 * chunk: 8 bytes of header, 8 per container (key and cardinality, offset),
 * then 2 bytes per value or a 8 KiB bitset. This is the form lfa_bitmap_encode
 * writes and roaring-rs 0.10 serializes; 0 when the set is empty (the
 * fragment then has no entry in that value's RowAddrTreeMap). */
static size_t value_bitmap(const lfa_cell *c, uint64_t rows, bool value) {
  uint64_t body = 0;
  uint32_t containers = 0;
  for (uint64_t from = 0; from < rows; from += 65536) {
    uint64_t span = rows - from < 65536 ? rows - from : 65536, ones;
    if (c->kind == LFA_CELL_PARTIAL) ones = roaring_bitmap_range_cardinality(c->rows, from, from + span);
    else ones = c->kind == LFA_CELL_ALL ? span : 0;
    uint64_t card = value ? ones : span - ones;
    if (card > 0) containers++, body += lfa_roaring_body_bytes((uint32_t)card);
  }
  return containers > 0 ? (size_t)lfa_roaring_no_run_bytes(containers, body) : 0;
}

/* Our bytes for one table: per fragment bitmap, root, descriptor. */
typedef struct ours {
  size_t *bitmap; /* per fragment, 0 unless partial */
  size_t bitmaps, root, descriptor, partials;
} ours;

static size_t root_bytes(const table *t, const size_t *bitmap) {
  lfa_root root = LANCE__TABLE__FIELD_ASSIGNMENT_ROOT__INIT;
  lfa_root_entry *e = must(calloc(t->n + 1, sizeof *e));
  lfa_root_entry **list = must(calloc(t->n + 1, sizeof *list));
  Lance__Table__FieldAssignmentFile *files = must(calloc(t->n + 1, sizeof *files));
  char (*paths)[96] = must(calloc(t->n + 1, sizeof *paths));
  for (size_t i = 0; i < t->n; i++) {
    if (t->cells[i].kind == LFA_CELL_NONE) continue;
    lfa_root_entry *x = &e[root.n_fragments];
    lance__table__field_assignment_fragment__init(x);
    x->fragment_id = t->ids[i], x->physical_rows = t->rows[i];
    if (t->cells[i].kind == LFA_CELL_ALL) {
      x->state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED, x->all_assigned = true;
    } else {
      lance__table__field_assignment_file__init(&files[i]);
      snprintf(paths[i], sizeof paths[i], "_field_assignments/bitmaps/%d/%" PRIu64 "/%s.rbm", FIELD_ID, t->ids[i], UUID);
      files[i].path = paths[i], files[i].has_size_bytes = true, files[i].size_bytes = bitmap[i];
      x->state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL, x->partial = &files[i];
    }
    list[root.n_fragments++] = x;
  }
  root.fragments = list;
  lfa_buf out = {0};
  lfa_error err = {0};
  if (lfa_root_encode(&out, &root, &err) != LFA_OK) {
    fprintf(stderr, "design_compare: %s\n", err.msg);
    exit(2);
  }
  size_t n = out.len;
  lfa_buf_free(&out);
  free(e), free(list), free(files), free(paths);
  return n;
}

static size_t varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 128) v >>= 7, n++;
  return n;
}

/* Manifest field 22: one FieldAssignmentState, with its tag and length. */
static size_t descriptor_bytes(size_t root_size) {
  char path[96];
  snprintf(path, sizeof path, "_field_assignments/roots/%d/%s.root", FIELD_ID, UUID);
  Lance__Table__FieldAssignmentFile file = LANCE__TABLE__FIELD_ASSIGNMENT_FILE__INIT;
  file.path = path, file.has_size_bytes = root_size > 0, file.size_bytes = root_size;
  Lance__Table__FieldAssignmentState s = LANCE__TABLE__FIELD_ASSIGNMENT_STATE__INIT;
  s.field_id = FIELD_ID, s.root = &file;
  size_t body = lance__table__field_assignment_state__get_packed_size(&s);
  return 2 + varint_len(body) + body; /* field 22: a two-byte tag */
}

static const sizes *sizes_of(table *t, size_t i, scratch *s);

/* Our partial bitmaps are the index's "true" bitmaps of the same
 * fragments: the same sets through the same encoder. */
static ours ours_of(table *t, scratch *s) {
  ours o = {must(calloc(t->n + 1, sizeof(size_t))), 0, 0, 0, 0};
  for (size_t i = 0; i < t->n; i++)
    if (t->cells[i].kind == LFA_CELL_PARTIAL)
      o.bitmap[i] = sizes_of(t, i, s)->bitmap[1], o.bitmaps += o.bitmap[i], o.partials++;
  o.root = root_bytes(t, o.bitmap);
  o.descriptor = descriptor_bytes(o.root);
  return o;
}

/* ---- the alternative ----------------------------------------------------------------------- */

static size_t pad8(size_t n) { return (n + 7) / 8 * 8; }

/* Runs (maximal stretches of equal values) of each block of a fragment's
 * f_assigned column; bits is the fragment's bit array (padded). */
static void block_runs(uint64_t *runs, const uint8_t *bits, uint64_t rows) {
  for (uint64_t b = 0; b * BLOCK_VALUES < rows; b++) {
    uint64_t from = b * BLOCK_VALUES, to = from + BLOCK_VALUES < rows ? from + BLOCK_VALUES : rows, n = 1;
    for (uint64_t w = from; w < to; w += 64) {
      uint64_t x = lfa_load_u64le(bits + w / 8), prev = w == from ? (x & 1) : (lfa_load_u64le(bits + w / 8 - 8) >> 63);
      uint64_t edges = x ^ ((x << 1) | prev);
      if (to - w < 64) edges &= (UINT64_C(1) << (to - w)) - 1;
      n += (uint64_t)__builtin_popcountll(edges);
    }
    runs[b] = n;
  }
}

static column column_of(const lfa_cell *c, uint64_t rows, uint8_t *bits, uint64_t *runs) {
  uint64_t blocks = (rows + BLOCK_VALUES - 1) / BLOCK_VALUES, total_runs = 0;
  if (c->kind == LFA_CELL_PARTIAL) {
    lfa_error err = {0};
    if (lfa_bits_from_bitmap(bits, (size_t)(rows / 8 + (rows % 8 != 0)), rows, c->rows, &err) != LFA_OK) exit(2);
    memset(bits + rows / 8 + (rows % 8 != 0), 0, 8);
    block_runs(runs, bits, rows);
  } else {
    for (uint64_t b = 0; b < blocks; b++) runs[b] = 1;
  }
  column col = {PAGE_META + BLOCK_META * blocks, PAGE_META + BLOCK_META * blocks, 0};
  for (uint64_t b = 0; b < blocks; b++) {
    uint64_t values = b + 1 < blocks ? BLOCK_VALUES : rows - b * BLOCK_VALUES;
    col.flat += BLOCK_HEADER + pad8((size_t)(values + 7) / 8);
    col.rle += BLOCK_HEADER + pad8((size_t)(3 * runs[b]));
    total_runs += runs[b];
  }
  col.charged = 2 * total_runs < rows ? (col.rle < col.flat ? col.rle : col.flat) : col.flat;
  return col;
}

typedef struct alt {
  size_t *column; /* per fragment, as charged */
  size_t columns, columns_flat, index, index_true, manifest;
} alt;

/* The index file: a row per value present, each a RowAddrTreeMap. */
/* A fragment's sizes. Its partial bitmap's size is the real encoder's
 * output, and must equal the layout's count (the check that keeps
 * value_bitmap honest for the sets it sizes without encoding them). */
static const sizes *sizes_of(table *t, size_t i, scratch *s) {
  sizes *z = &t->sz[i];
  if (!z->known) {
    for (int v = 0; v < 2; v++) z->bitmap[v] = value_bitmap(&t->cells[i], t->rows[i], v == 1);
    if (t->cells[i].kind == LFA_CELL_PARTIAL && encoded(t->cells[i].rows) != z->bitmap[1]) {
      fprintf(stderr, "design_compare: the no-run layout count differs from lfa_bitmap_encode\n");
      exit(1);
    }
    z->col = column_of(&t->cells[i], t->rows[i], s->bits, s->runs);
    z->known = true;
  }
  return z;
}

static alt alt_of(table *t, scratch *s) {
  alt a = {must(calloc(t->n + 1, sizeof(size_t))), 0, 0, INDEX_FILE_META, 0, 0};
  size_t entries[2] = {0, 0}, bytes[2] = {4, 4};
  for (size_t i = 0; i < t->n; i++) {
    const sizes *z = sizes_of(t, i, s);
    a.column[i] = z->col.charged, a.columns += z->col.charged, a.columns_flat += z->col.flat;
    for (int v = 0; v < 2; v++)
      if (z->bitmap[v] > 0) entries[v]++, bytes[v] += TREEMAP_ENTRY + z->bitmap[v];
  }
  for (int v = 0; v < 2; v++)
    if (entries[v] > 0) a.index += bytes[v];
  a.index_true = entries[1] > 0 ? bytes[1] : 0;
  return a;
}

/* What the alternative adds to every manifest: the schema field, one
 * field id and column index per data file, and the index's entry. */
static size_t alt_manifest_bytes(const table *t) {
  Lance__File__Field f = LANCE__FILE__FIELD__INIT;
  f.type = LANCE__FILE__FIELD__TYPE__LEAF, f.name = "f_assigned", f.id = ALT_FIELD_ID, f.parent_id = -1;
  f.logical_type = "bool";
  size_t field = lance__file__field__get_packed_size(&f);
  int32_t ids2[] = {0, FIELD_ID}, ids3[] = {0, FIELD_ID, ALT_FIELD_ID}, cols3[] = {0, 1, 2};
  Lance__Table__DataFile d = LANCE__TABLE__DATA_FILE__INIT;
  d.path = "0f8e3c2a-5b7d-4e91-a6c3-2d4f8b9e1a70.lance", d.file_major_version = 2, d.file_minor_version = 1;
  d.n_fields = 2, d.fields = ids2, d.n_column_indices = 2, d.column_indices = cols3;
  size_t before = lance__table__data_file__get_packed_size(&d);
  d.n_fields = 3, d.fields = ids3, d.n_column_indices = 3;
  size_t per_file = lance__table__data_file__get_packed_size(&d) - before;
  roaring_bitmap_t *frags = must(roaring_bitmap_create());
  for (size_t i = 0; i < t->n; i++) roaring_bitmap_add(frags, (uint32_t)t->ids[i]);
  lfa_buf covered = {0};
  lfa_error err = {0};
  if (lfa_bitmap_encode(&covered, frags, &err) != LFA_OK) exit(2);
  uint8_t uuid[16] = {0x0f, 0x8e};
  Lance__Table__UUID u = LANCE__TABLE__UUID__INIT;
  u.uuid.len = 16, u.uuid.data = uuid;
  Lance__Table__Any details = LANCE__TABLE__ANY__INIT;
  details.type_url = "/lance.index.pb.BitmapIndexDetails";
  int32_t indexed[] = {ALT_FIELD_ID};
  Lance__Table__IndexMetadata im = LANCE__TABLE__INDEX_METADATA__INIT;
  im.uuid = &u, im.n_fields = 1, im.fields = indexed, im.name = "f_assigned_idx", im.dataset_version = 1;
  im.fragment_bitmap.len = covered.len, im.fragment_bitmap.data = covered.data, im.index_details = &details;
  im._created_at_case = LANCE__TABLE__INDEX_METADATA___CREATED_AT_CREATED_AT, im.created_at = 1700000000000ULL;
  size_t index_entry = lance__table__index_metadata__get_packed_size(&im);
  lfa_buf_free(&covered);
  roaring_bitmap_free(frags);
  return 1 + varint_len(field) + field + t->n * per_file + 1 + varint_len(index_entry) + index_entry;
}

/* ---- the measurements --------------------------------------------------------------------------- */

static const char *state_name(char *out, size_t cap, pattern p, double d) {
  if (d == 0 || d == 1) snprintf(out, cap, "%g%%", d * 100);
  else snprintf(out, cap, "%s %g%%", PATTERN[p], d * 100);
  return out;
}

/* Metadata bytes of one state, ours and the alternative's, and the target
 * check. Returns false when an invariant breaks: our partial bitmaps are
 * the index's "true" bitmaps of the same fragments, byte for byte, so our
 * bitmap bytes never exceed the index's "true" entry. */
static bool metadata(table *t, pattern p, double d, const char *variant, scratch *s) {
  ours o = ours_of(t, s);
  alt a = alt_of(t, s);
  size_t alt_manifest = alt_manifest_bytes(t);
  size_t ours_total = o.descriptor + o.root + o.bitmaps, alt_total = alt_manifest + a.columns + a.index;
  double ratio = (double)ours_total / (double)alt_total;
  bool uniform = d == 0 || d == 1, half = p == RANDOM && d == 0.5;
  const char *target = uniform || p != RANDOM ? "metadata <= 1/100 of Boolean + index (0%, 100%, clustered)"
                       : half                 ? "metadata <= 1/3 of Boolean + index (50% random)"
                                              : "none";
  double limit = uniform || p != RANDOM ? 0.01 : half ? 1.0 / 3 : 0;
  int met = limit == 0 ? -1 : ratio <= limit;
  size_t runs_form = 0; /* what the run-container form would take (not allowed by FA-BITMAP-1) */
  for (size_t i = 0; i < t->n; i++)
    if (t->cells[i].kind == LFA_CELL_PARTIAL) {
      roaring_bitmap_t *r = must(roaring_bitmap_copy(t->cells[i].rows));
      roaring_bitmap_run_optimize(r);
      runs_form += roaring_bitmap_portable_size_in_bytes(r);
      roaring_bitmap_free(r);
    }
  char why[640], name[96];
  if (half)
    snprintf(why, sizeof why, "at 50%% random each partial bitmap is all bitset containers: %zu bytes for %" PRIu64
             " rows (%.3f bytes per row/8; a %" PRIu64 "-row fragment needs %" PRIu64 " containers of 8 KiB, the last "
             "one partly empty), and the index's true and false bitmaps are the same size, so the ratio cannot go "
             "below 1/(2 + column/bitmaps) = 1/3 and the container slack tips it over; fragments of a multiple of "
             "65536 rows reach it (see the aligned variant)",
             o.bitmaps / (o.partials ? o.partials : 1), t->rows[0],
             (double)o.bitmaps / (double)(o.partials ? o.partials : 1) / ((double)t->rows[0] / 8), t->rows[0],
             (t->rows[0] + 65535) / 65536);
  else
    snprintf(why, sizeof why, "%zu partial fragments cost %zu bytes in the no-run form FA-BITMAP-1 requires "
             "(bitset containers for long runs); the run-container form would take %zu bytes (ratio %.4f): allowing "
             "writers to emit cookie 12347, which every reader already accepts, would reach it",
             o.partials, o.bitmaps, runs_form,
             (double)(o.descriptor + o.root + runs_form) / (double)alt_total);
  bench_json j;
  bench_json_begin(&j, "design");
  bench_json_str(&j, "measure", "metadata bytes");
  bench_json_str(&j, "state", state_name(name, sizeof name, p, d));
  bench_json_str(&j, "variant", variant);
  bench_json_u64(&j, "fragments", t->n);
  bench_json_u64(&j, "rows", t->rows[0] * t->n);
  bench_json_u64(&j, "ours_descriptor", o.descriptor);
  bench_json_u64(&j, "ours_root", o.root);
  bench_json_u64(&j, "ours_bitmaps", o.bitmaps);
  bench_json_u64(&j, "ours_bitmaps_run_form", runs_form);
  bench_json_u64(&j, "alt_manifest", alt_manifest);
  bench_json_u64(&j, "alt_column", a.columns);
  bench_json_u64(&j, "alt_column_flat", a.columns_flat);
  bench_json_u64(&j, "alt_index", a.index);
  bench_json_u64(&j, "alt_bytes", alt_total);
  bench_json_u64(&j, "value", ours_total);
  bench_json_str(&j, "unit", "bytes");
  bench_json_num(&j, "ratio", ratio);
  bench_json_str(&j, "ratio_def", "ours / alternative");
  bench_json_target(&j, target, met, why);
  bench_json_end(&j);
  fprintf(stderr, "metadata %-44s ours %12zu  alt %12zu  ratio %.5f %s\n", name, ours_total, alt_total, ratio,
          met < 0 ? "" : met ? "met" : "MISSED");
  /* invariants at any size: ours never exceeds the alternative, whose index
   * alone holds our partial bitmaps' sets; a field with no assigned row has
   * the 0-byte root [FA-ROOT-9] */
  bool ok = ours_total < alt_total && (d != 0 || o.root == 0);
  free(o.bitmap), free(a.column);
  return ok;
}

/* ---- bytes per commit ------------------------------------------------------------------------------ */

typedef struct commit_cost {
  size_t ours_written, ours_read, alt_column, alt_index, alt_read;
} commit_cost;

/* Compares the table before and after a commit. `touched[i]` marks the
 * fragments of `after` whose f_assigned pages the alternative rewrites
 * (and whose bitmaps we read), `gone` those of `before` that left. */
static commit_cost cost_of(table *before, table *after, const bool *touched, const bool *read_before, scratch *s) {
  ours ob = ours_of(before, s), oa = ours_of(after, s);
  alt ab = alt_of(before, s), aa = alt_of(after, s);
  commit_cost c = {0, 0, 0, aa.index, ab.index};
  bool changed = before->n != after->n;
  for (size_t i = 0; i < after->n; i++) {
    size_t j = 0;
    while (j < before->n && before->ids[j] != after->ids[i]) j++;
    bool differs = j == before->n || !cell_equal(&before->cells[j], &after->cells[i]);
    if (differs && after->cells[i].kind == LFA_CELL_PARTIAL) c.ours_written += oa.bitmap[i];
    changed = changed || differs;
    if (touched[i]) c.alt_column += aa.column[i];
  }
  for (size_t j = 0; j < before->n; j++)
    if (read_before[j]) c.ours_read += ob.bitmap[j];
  if (changed) c.ours_written += oa.root, c.ours_read += ob.root;
  free(ob.bitmap), free(oa.bitmap), free(ab.column), free(aa.column);
  return c;
}

static void emit_commit(const char *state, const char *op, const commit_cost *c) {
  bench_json j;
  size_t alt_total = c->alt_column + c->alt_index;
  bench_json_begin(&j, "design");
  bench_json_str(&j, "measure", "bytes written per commit");
  bench_json_str(&j, "state", state);
  bench_json_str(&j, "op", op);
  bench_json_u64(&j, "value", c->ours_written);
  bench_json_str(&j, "unit", "bytes");
  bench_json_u64(&j, "ours_read", c->ours_read);
  bench_json_u64(&j, "alt_column_written", c->alt_column);
  bench_json_u64(&j, "alt_index_written", c->alt_index);
  bench_json_u64(&j, "alt_bytes", alt_total);
  bench_json_u64(&j, "alt_read", c->alt_read);
  bench_json_num(&j, "ratio", (double)c->ours_written / (double)(alt_total ? alt_total : 1));
  bench_json_num(&j, "ratio_column_only", (double)c->ours_written / (double)(c->alt_column ? c->alt_column : 1));
  bench_json_str(&j, "ratio_def", "ours / alternative (column + index rewrite)");
  bench_json_target(&j, "none", -1, NULL);
  bench_json_end(&j);
  fprintf(stderr, "commit   %-34s %-30s ours %11zu  alt %11zu (column %zu)\n", state, op, c->ours_written, alt_total,
          c->alt_column);
}

static table table_copy(const table *t) {
  table c = table_new(t->n);
  for (size_t i = 0; i < t->n; i++)
    c.ids[i] = t->ids[i], c.rows[i] = t->rows[i], c.cells[i] = cell_copy(&t->cells[i]), c.sz[i] = t->sz[i];
  return c;
}

/* An update writing f on `count` random rows of fragments [first, first +
 * span), or on each of their rows with probability `fraction`. */
static void op_update(table *t, const char *state, const char *op, size_t first, size_t span, uint64_t count,
                      double fraction, scratch *s) {
  table u = table_copy(t);
  bool *touched = must(calloc(t->n + 1, sizeof(bool)));
  uint64_t rng = DESIGN_UPDATE_SEED;
  roaring_bitmap_t **add = must(calloc(t->n + 1, sizeof *add));
  if (fraction > 0) { /* each row of the span with probability `fraction`, offsets in order */
    uint64_t below = (uint64_t)(fraction * 18446744073709551616.0);
    uint32_t *v = must(malloc(t->rows[first] * sizeof *v + 1));
    for (size_t i = first; i < first + span; i++) {
      size_t k = 0;
      for (uint64_t o = 0; o < t->rows[i]; o++)
        if (bench_rand(&rng) < below) v[k++] = (uint32_t)o;
      add[i] = must(roaring_bitmap_of_ptr(k, v));
    }
    free(v);
  }
  for (uint64_t k = 0; k < count; k++) {
    size_t i = first + (size_t)(bench_rand(&rng) % span);
    if (add[i] == NULL) add[i] = must(roaring_bitmap_create());
    roaring_bitmap_add(add[i], (uint32_t)(bench_rand(&rng) % t->rows[i]));
  }
  for (size_t i = 0; i < t->n; i++) {
    if (add[i] == NULL) continue;
    touched[i] = true, u.sz[i].known = false;
    lfa_cell *c = &u.cells[i];
    if (c->kind == LFA_CELL_NONE) *c = (lfa_cell){LFA_CELL_PARTIAL, must(roaring_bitmap_copy(add[i]))};
    else if (c->kind == LFA_CELL_PARTIAL) roaring_bitmap_or_inplace(c->rows, add[i]);
    lfa_cell_canonicalize(c, u.rows[i]);
    roaring_bitmap_free(add[i]);
  }
  commit_cost c = cost_of(t, &u, touched, touched, s);
  emit_commit(state, op, &c);
  free(add), free(touched);
  table_free(&u);
}

/* An append of one fragment of `rows` rows that stores f: all assigned. */
static void op_append(table *t, const char *state, scratch *s) {
  table u = table_new(t->n + 1);
  bool *touched = must(calloc(t->n + 2, sizeof(bool))), *none = must(calloc(t->n + 1, sizeof(bool)));
  for (size_t i = 0; i < t->n; i++)
    u.ids[i] = t->ids[i], u.rows[i] = t->rows[i], u.cells[i] = cell_copy(&t->cells[i]), u.sz[i] = t->sz[i];
  u.ids[t->n] = t->ids[t->n - 1] + 1, u.rows[t->n] = t->rows[0], u.cells[t->n] = (lfa_cell){LFA_CELL_ALL, NULL};
  touched[t->n] = true;
  commit_cost c = cost_of(t, &u, touched, none, s);
  emit_commit(state, "append of one fragment", &c);
  free(touched), free(none);
  table_free(&u);
}

/* A compaction of the first COMPACT_FRAGMENTS fragments after 20% of their
 * rows were deleted (which makes them candidates), through the reference
 * remap, into new fragments of Lance's 1 Mi rows. */
static void op_compact(table *t, const char *state, scratch *s) {
  size_t g = t->n < COMPACT_FRAGMENTS ? t->n : COMPACT_FRAGMENTS;
  lfa_fragment *old = must(calloc(g, sizeof *old));
  lfa_remap_source *src = must(calloc(g, sizeof *src));
  uint64_t rng = 99, live = 0;
  for (size_t i = 0; i < g; i++) {
    old[i].id = t->ids[i], old[i].physical_rows = t->rows[i], old[i].deleted = must(roaring_bitmap_create());
    for (uint64_t o = 0; o < t->rows[i]; o++)
      if (bench_unit(&rng) < 0.2) roaring_bitmap_add(old[i].deleted, (uint32_t)o);
    live += t->rows[i] - roaring_bitmap_get_cardinality(old[i].deleted);
    src[i] = (lfa_remap_source){&old[i], &t->cells[i]};
  }
  size_t n_new = (size_t)((live + COMPACT_TARGET - 1) / COMPACT_TARGET);
  uint64_t *new_rows = must(calloc(n_new, sizeof *new_rows));
  for (size_t k = 0; k < n_new; k++) new_rows[k] = live - k * COMPACT_TARGET < COMPACT_TARGET ? live - k * COMPACT_TARGET : COMPACT_TARGET;
  table u = table_new(t->n - g + n_new);
  lfa_error err = {0};
  if (lfa_remap_group(u.cells + (t->n - g), new_rows, n_new, src, g, &err) != LFA_OK) {
    fprintf(stderr, "design_compare: %s\n", err.msg);
    exit(2);
  }
  bool *touched = must(calloc(u.n + 1, sizeof(bool))), *read = must(calloc(t->n + 1, sizeof(bool)));
  for (size_t i = g; i < t->n; i++)
    u.ids[i - g] = t->ids[i], u.rows[i - g] = t->rows[i], u.cells[i - g] = cell_copy(&t->cells[i]), u.sz[i - g] = t->sz[i];
  for (size_t k = 0; k < n_new; k++) u.ids[t->n - g + k] = t->ids[t->n - 1] + 1 + k, u.rows[t->n - g + k] = new_rows[k], touched[t->n - g + k] = true;
  for (size_t i = 0; i < g; i++) read[i] = true;
  commit_cost c = cost_of(t, &u, touched, read, s);
  char op[64];
  snprintf(op, sizeof op, "compaction of %zu fragments", g);
  emit_commit(state, op, &c);
  for (size_t i = 0; i < g; i++) lfa_bitmap_free(old[i].deleted);
  free(old), free(src), free(new_rows), free(touched), free(read);
  table_free(&u);
}

/* Bytes read to evaluate is_assigned over the whole table. */
static void reads(table *t, const char *state, scratch *s) {
  ours o = ours_of(t, s);
  alt a = alt_of(t, s);
  size_t ours_read = o.root + o.bitmaps, by_index = INDEX_FILE_META + a.index_true;
  const char *query[] = {"filter WHERE is_assigned(f)", "projection SELECT is_assigned(f)"};
  size_t alt_read[] = {by_index < a.columns ? by_index : a.columns, a.columns};
  for (int q = 0; q < 2; q++) {
    bench_json j;
    bench_json_begin(&j, "design");
    bench_json_str(&j, "measure", "bytes read for is_assigned");
    bench_json_str(&j, "state", state);
    bench_json_str(&j, "query", query[q]);
    bench_json_u64(&j, "value", ours_read);
    bench_json_str(&j, "unit", "bytes");
    bench_json_u64(&j, "alt_index_read", by_index);
    bench_json_u64(&j, "alt_column_read", a.columns);
    bench_json_u64(&j, "alt_bytes", alt_read[q]);
    bench_json_num(&j, "ratio", (double)ours_read / (double)(alt_read[q] ? alt_read[q] : 1));
    bench_json_str(&j, "ratio_def", q == 0 ? "ours / alternative (index or column, the smaller)"
                                           : "ours / alternative (column pages)");
    bench_json_target(&j, "none", -1, NULL);
    bench_json_end(&j);
  }
  fprintf(stderr, "reads    %-34s ours %11zu  alt filter %11zu  alt projection %11zu\n", state, ours_read,
          alt_read[0], alt_read[1]);
  free(o.bitmap), free(a.column);
}

int main(int argc, char **argv) {
  bool smoke = false;
  size_t fragments = 100;
  uint64_t rows = 1000000;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--smoke") == 0) smoke = true;
    else if (strcmp(argv[i], "--fragments") == 0 && i + 1 < argc) fragments = (size_t)strtoull(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc) rows = strtoull(argv[++i], NULL, 10);
    else {
      fprintf(stderr, "usage: design_compare [--smoke] [--fragments N] [--rows N]\n");
      return 2;
    }
  }
  if (smoke) fragments = 10, rows = 100000;
  if (fragments < COMPACT_FRAGMENTS || fragments > 100000 || rows < 1000 || rows > 4000000) {
    fprintf(stderr, "design_compare: fragments in %d .. 100000, rows in 1000 .. 4000000\n", COMPACT_FRAGMENTS);
    return 2;
  }
  scratch s = {must(calloc(2 * COMPACT_TARGET / 8 + rows / 8 + 16, 1)),
               must(calloc(2 * COMPACT_TARGET / BLOCK_VALUES + rows / BLOCK_VALUES + 2, sizeof(uint64_t)))};
  bool ok = true;
  const double densities[] = {DESIGN_DENSITIES};
  for (int u = 0; u < 2; u++) {
    table t = make_state(fragments, rows, RANDOM, u, 1);
    ok = metadata(&t, RANDOM, u, "", &s) && ok;
    table_free(&t);
  }
  for (int p = RANDOM; p <= CLUSTERED_FRAGMENT; p++)
    for (size_t d = 0; d < sizeof densities / sizeof *densities; d++) {
      if (smoke && d % 2 == 1) continue;
      table t = make_state(fragments, rows, (pattern)p, densities[d], DESIGN_RANDOM_SEED + d);
      ok = metadata(&t, (pattern)p, densities[d], "", &s) && ok;
      table_free(&t);
    }
  if (!smoke) { /* the fix for the 50% miss, measured: fragments of 2^20 rows */
    table t = make_state(fragments, 1u << 20, RANDOM, 0.5, 1002);
    ok = metadata(&t, RANDOM, 0.5, "fragments of 2^20 rows", &s) && ok;
    table_free(&t);
  }
  /* bytes per commit and bytes read, on four base states */
  const struct { pattern p; double d; } bases[] = {{RANDOM, 0.001}, {RANDOM, 0.5}, {CLUSTERED_TABLE, 0.5}, {RANDOM, 1}};
  for (size_t b = 0; b < 4; b++) {
    char name[96];
    state_name(name, sizeof name, bases[b].p, bases[b].d);
    table t = make_state(fragments, rows, bases[b].p, bases[b].d, 2000 + b);
    op_update(&t, name, "update of 10^3 rows in one fragment", 0, 1, DESIGN_UPDATE_ROWS, 0, &s);
    op_update(&t, name, "update of 10^3 rows across the table", 0, t.n, DESIGN_UPDATE_ROWS, 0, &s);
    op_update(&t, name, "update of 10% of the rows", 0, t.n, 0, 0.1, &s);
    op_append(&t, name, &s);
    op_compact(&t, name, &s);
    reads(&t, name, &s);
    table_free(&t);
  }
  free(s.bits), free(s.runs);
  if (!ok) fprintf(stderr, "design_compare: an invariant broke (ours above the alternative, or a non-empty root at 0%%)\n");
  return ok ? 0 : 1;
}
