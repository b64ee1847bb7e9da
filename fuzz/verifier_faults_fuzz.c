/* verifier_faults_fuzz.c: one fault in a valid history; the verifier must
 * report it unless the live-row state is unchanged.
 *
 * Input: byte 0 is L; bytes 1..L drive the request generator of
 * fuzz/fuzz_history.h (lfa/oracle_gen.h; up to MAX_STEPS requests, the
 * first a CREATE), which builds a valid history on the reference model and
 * the oracle (lfa/oracle.h) side by side, the model writing it to an
 * in-memory file system (lfa/memfs.h). The bytes after them choose one
 * fault, applied to that memfs (each choice one byte modulo the options,
 * two when there are more than 256; 0 past the end):
 *   flip      a byte of a file xor a mask
 *   truncate  a file to a shorter length
 *   append    one byte to a file
 *   drop      a file
 *   replace   a file's bytes with another's
 *   swap      two files' bytes (two bitmaps when there are two)
 *   bitmap    one offset of a partial bitmap added or removed, the object
 *             re-encoded, and every size_bytes naming it (roots, then the
 *             manifests naming those roots) made to agree: a fault no size
 *             check catches [FA-STORE-5]
 *   root      an entry of a root dropped, moved, re-pointed, switched
 *             between all and partial, given other rows or another
 *             fragment; sizes made to agree as above
 *   manifest  a descriptor dropped, re-pointed or given another field; a
 *             fragment dropped, resized, losing its deletion file or a data
 *             file's field, or its deletion count changed; the
 *             field-assignment flags cleared; the version field changed
 *   txn       the sidecar of a transaction edited (a RowChange flipped or
 *             dropped, a FragmentState dropped or switched, an
 *             Initialization dropped or flipped, a Transfer or the whole
 *             sidecar dropped), inline and in `_transactions/` alike, so
 *             the two still agree [FA-LANCE-10]
 *
 * What "unless" means. Before the fault, the history must verify with no
 * error finding and every version must read back equal to the oracle
 * (else the writer or the verifier is wrong and the target aborts). After
 * the fault, the state of version v is UNCHANGED when all of:
 *  (a) v is no longer listed (a dropped manifest: versions may be cleaned
 *      up, FA-CLEAN), or it loads with every reader rule (each file it
 *      names is present, decodes, and passes the load-time checks): a
 *      version that does not load has lost its state;
 *  (b) it tracks exactly the fields the oracle tracks at v (by field id:
 *      names are not state);
 *  (c) on every row live at v both in the model and after the fault, with
 *      the same fragment id and offset, every tracked field's is_assigned
 *      is the oracle's for that row's key (FA-SEM-1, FA-SEM-2).
 * Rows that became live or dead, or appeared or vanished with a fragment's
 * row count, are left out of (c): liveness and row counts are Lance's own
 * bookkeeping, which the verifier audits only where assignment state is at
 * stake (10§4). The verifier REPORTS the fault when it
 * cannot read the dataset at all or gives at least one error finding. The
 * target aborts when some listed version's state changed and the verifier
 * did not report it (FA-VERIFY-3). A fault that leaves every byte as it
 * was (a zero mask, a replace by equal bytes...) is not a fault: nothing is
 * checked. A fault that changes no state may or may not be reported (a
 * transaction edited alone breaks rules but moves no row; FA-VERIFY-2 asks
 * for its finding only when a MUST broke, which this target does not
 * judge).
 *
 * Limits. An FA-LIMIT-2 finding is a warning ("not checked", FA-VERIFY-6),
 * so a fault the verifier sees only as a limit counts as unreported. The
 * histories here are far below every limit of lfa/limits.h, so after one
 * fault a limit almost always means a decoder took a malformed file for a
 * large one: that is how the Roaring container count and the Arrow row
 * count were found (fuzz/README.md). The exception would be a compact
 * encoding that one flip makes both plausible and huge (a row-id range);
 * should the target stop on one, it is a limit working as specified, not a
 * verifier bug, and this rule needs narrowing rather than the verifier.
 *
 * No file I/O (the memfs), no globals; deterministic.
 */
#include "fuzz_history.h"
#include "lfa/bitmap.h"
#include "lfa/edit.h"
#include "lfa/snapshot_model.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/pb.h"
#include "lfa/pb_types.h"
#include "lfa/root.h"
#include "lfa/transaction.h"

#define MAX_STEPS 8

typedef enum fault_kind {
  F_FLIP, F_TRUNCATE, F_APPEND, F_DROP, F_REPLACE, F_SWAP, F_BITMAP, F_ROOT, F_MANIFEST, F_TXN, F_COUNT
} fault_kind;

/* The fault being applied: its choices and what it did, for the report. */
typedef struct fault {
  lfa_memfs *fs;
  fh_input *in;
  char what[512];
  size_t what_len;
} fault;

__attribute__((format(printf, 2, 3))) static void say(fault *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (f->what_len < sizeof f->what)
    f->what_len += (size_t)vsnprintf(f->what + f->what_len, sizeof f->what - f->what_len, fmt, ap);
  if (f->what_len > sizeof f->what) f->what_len = sizeof f->what;
  va_end(ap);
}

static unsigned pick(fault *f, size_t n) { return n == 0 ? 0 : fh_choose(f->in, n > UINT16_MAX ? UINT16_MAX : (unsigned)n); }

/* ---- files of the memfs ------------------------------------------------------------------ */

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* A file whose name has this prefix and suffix ("" for any), chosen by the
 * input, or NULL when there is none. `not` is left out (may be NULL). */
static const lfa_memfs_entry *pick_file(fault *f, const char *prefix, const char *suffix, const lfa_memfs_entry *not) {
  size_t n = 0;
  for (size_t i = 0; i < f->fs->count; i++) {
    const lfa_memfs_entry *e = &f->fs->entries[i];
    n += !e->dir && e != not && starts_with(e->name, prefix) && has_suffix(e->name, suffix);
  }
  if (n == 0) return NULL;
  size_t k = pick(f, n);
  for (size_t i = 0; i < f->fs->count; i++) {
    const lfa_memfs_entry *e = &f->fs->entries[i];
    if (!e->dir && e != not && starts_with(e->name, prefix) && has_suffix(e->name, suffix) && k-- == 0) return e;
  }
  return NULL;
}

/* Replaces a file's bytes (the memfs copies them; `name` may be the entry's own). */
static void put(fault *f, const char *name, const uint8_t *data, size_t len) {
  char copy[LFA_PATH_BYTES_MAX];
  lfa_error err = fuzz_error();
  snprintf(copy, sizeof copy, "%s", name); /* the entry's name moves when the memfs changes */
  FUZZ_ASSERT(lfa_memfs_put(f->fs, copy, data, len, &err) == LFA_OK, "the memfs refused a fault's bytes");
}

static void put_buf(fault *f, const char *name, lfa_buf *b) {
  put(f, name, b->data, b->len);
  lfa_buf_free(b);
}

/* ---- byte faults --------------------------------------------------------------------------- */

static void fault_flip(fault *f) {
  const lfa_memfs_entry *e = pick_file(f, "", "", NULL);
  if (e == NULL || e->data.len == 0) return;
  size_t at = pick(f, e->data.len);
  uint8_t mask = (uint8_t)fh_byte(f->in);
  lfa_buf b = {0};
  FUZZ_ASSERT(lfa_buf_append(&b, e->data.data, e->data.len, NULL) == LFA_OK, "out of memory");
  b.data[at] ^= mask;
  say(f, "flip byte %zu of %s with 0x%02x", at, e->name, mask);
  put_buf(f, e->name, &b);
}

static void fault_truncate(fault *f) {
  const lfa_memfs_entry *e = pick_file(f, "", "", NULL);
  if (e == NULL || e->data.len == 0) return;
  size_t len = pick(f, e->data.len);
  say(f, "truncate %s to %zu of %zu bytes", e->name, len, e->data.len);
  put(f, e->name, e->data.data, len);
}

static void fault_append(fault *f) {
  const lfa_memfs_entry *e = pick_file(f, "", "", NULL);
  if (e == NULL) return;
  lfa_buf b = {0};
  uint8_t byte = (uint8_t)fh_byte(f->in);
  FUZZ_ASSERT(lfa_buf_append(&b, e->data.data, e->data.len, NULL) == LFA_OK, "out of memory");
  FUZZ_ASSERT(lfa_buf_append(&b, &byte, 1, NULL) == LFA_OK, "out of memory");
  say(f, "append 0x%02x to %s", byte, e->name);
  put_buf(f, e->name, &b);
}

static void fault_drop(fault *f) {
  const lfa_memfs_entry *e = pick_file(f, "", "", NULL);
  if (e == NULL) return;
  say(f, "drop %s", e->name);
  char name[LFA_PATH_BYTES_MAX];
  snprintf(name, sizeof name, "%s", e->name);
  FUZZ_ASSERT(lfa_memfs_remove(f->fs, name), "the memfs lost a file");
}

static void fault_replace(fault *f) {
  const lfa_memfs_entry *a = pick_file(f, "", "", NULL), *b = a ? pick_file(f, "", "", a) : NULL;
  if (b == NULL) return;
  say(f, "replace %s by the bytes of %s", a->name, b->name);
  lfa_buf copy = {0};
  FUZZ_ASSERT(lfa_buf_append(&copy, b->data.data, b->data.len, NULL) == LFA_OK, "out of memory");
  put_buf(f, a->name, &copy);
}

/* Two bitmaps when there are two (their sizes then decide whether the
 * descriptors still agree), else any two files. */
static void fault_swap(fault *f) {
  const lfa_memfs_entry *a = pick_file(f, "", ".rbm", NULL), *b = a ? pick_file(f, "", ".rbm", a) : NULL;
  if (b == NULL) a = pick_file(f, "", "", NULL), b = a ? pick_file(f, "", "", a) : NULL;
  if (b == NULL) return;
  char name_a[LFA_PATH_BYTES_MAX], name_b[LFA_PATH_BYTES_MAX];
  snprintf(name_a, sizeof name_a, "%s", a->name);
  snprintf(name_b, sizeof name_b, "%s", b->name);
  say(f, "swap the bytes of %s and %s", name_a, name_b);
  lfa_buf x = {0}, y = {0};
  FUZZ_ASSERT(lfa_buf_append(&x, a->data.data, a->data.len, NULL) == LFA_OK, "out of memory");
  FUZZ_ASSERT(lfa_buf_append(&y, b->data.data, b->data.len, NULL) == LFA_OK, "out of memory");
  put_buf(f, name_a, &y);
  put_buf(f, name_b, &x);
}

/* ---- keeping sizes consistent -------------------------------------------------------------------- */

/* Every manifest whose descriptors name root `path` records `size` for it.
 * A manifest saved again (lfa/edit.h) keeps its name, so its entry keeps
 * its index among the memfs's entries (ascending by name). */
static void fix_root_sizes(fault *f, const char *path, uint64_t size) {
  for (size_t i = 0; i < f->fs->count; i++) {
    const lfa_memfs_entry *e = &f->fs->entries[i];
    if (e->dir || !starts_with(e->name, "_versions/")) continue;
    lfa_edit ed;
    lfa_error err = fuzz_error();
    if (lfa_edit_open_file(&ed, &f->fs->fs, ".", e->name, &err) != LFA_OK) continue;
    bool changed = false;
    for (size_t k = 0; k < ed.file.manifest->n_field_assignment_states; k++) {
      AssignmentFile *r = ed.file.manifest->field_assignment_states[k]->root;
      if (strcmp(r->path, path) != 0 || r->size_bytes == size) continue;
      r->size_bytes = size, r->has_size_bytes = true, changed = true;
    }
    if (changed) FUZZ_ASSERT(lfa_edit_save(&ed, &err) == LFA_OK, "a manifest cannot be saved again");
    lfa_edit_close(&ed);
  }
}

/* Writes root `r` at `path` and makes every manifest agree on its size. */
static void put_root(fault *f, const char *path, const lfa_root *r) {
  char name[LFA_PATH_BYTES_MAX];
  uint64_t size = 0;
  snprintf(name, sizeof name, "%s", path); /* the entry's name moves when the memfs changes */
  FUZZ_ASSERT(lfa_edit_put_root(&f->fs->fs, ".", name, r, &size, NULL) == LFA_OK, "a root cannot be saved again");
  fix_root_sizes(f, name, size);
}

/* Every root listing partial `path` records `size` for it, and so do the
 * manifests naming those roots. */
static void fix_bitmap_sizes(fault *f, const char *path, uint64_t size) {
  for (size_t i = 0; i < f->fs->count; i++) {
    const lfa_memfs_entry *e = &f->fs->entries[i];
    if (e->dir || !has_suffix(e->name, ".root")) continue;
    lfa_root *r = NULL;
    if (lfa_edit_read_root(&r, &f->fs->fs, ".", e->name, NULL) != LFA_OK) continue;
    bool changed = false;
    for (size_t k = 0; k < r->n_fragments; k++) {
      lfa_root_entry *x = r->fragments[k];
      if (x->state_case != LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL) continue;
      if (strcmp(x->partial->path, path) != 0 || x->partial->size_bytes == size) continue;
      x->partial->size_bytes = size, changed = true;
    }
    if (changed) put_root(f, e->name, r);
    lfa_root_free(r);
  }
}

/* ---- structured faults ------------------------------------------------------------------------------ */

static void fault_bitmap(fault *f) {
  const lfa_memfs_entry *e = pick_file(f, "", ".rbm", NULL);
  roaring_bitmap_t *bm = NULL;
  if (e == NULL || lfa_edit_read_bitmap(&bm, &f->fs->fs, ".", e->name, NULL) != LFA_OK) return;
  uint32_t top = roaring_bitmap_get_cardinality(bm) ? roaring_bitmap_maximum(bm) : 0;
  uint32_t offset = pick(f, (size_t)top + 3); /* one past the largest, and one more */
  bool had = roaring_bitmap_contains(bm, offset);
  if (had) roaring_bitmap_remove(bm, offset);
  else roaring_bitmap_add(bm, offset);
  char name[LFA_PATH_BYTES_MAX];
  snprintf(name, sizeof name, "%s", e->name);
  say(f, "%s offset %u %s %s, sizes kept consistent", had ? "remove" : "add", offset, had ? "from" : "to", name);
  uint64_t size = 0;
  FUZZ_ASSERT(lfa_edit_put_bitmap(&f->fs->fs, ".", name, bm, &size, NULL) == LFA_OK, "a bitmap cannot be saved again");
  lfa_bitmap_free(bm);
  fix_bitmap_sizes(f, name, size);
}

/* A FieldAssignmentFile owned like a decoded one (malloc'ed parts). */
static AssignmentFile *new_file(const char *path, uint64_t size) {
  AssignmentFile x = LANCE__TABLE__FIELD_ASSIGNMENT_FILE__INIT;
  x.path = (char *)path, x.size_bytes = size, x.has_size_bytes = true;
  lfa_buf b = {0};
  ProtobufCMessage *m = NULL;
  FUZZ_ASSERT(lfa_pb_pack(&b, &x.base, NULL) == LFA_OK, "out of memory");
  FUZZ_ASSERT(lfa_pb_unpack(&m, &lance__table__field_assignment_file__descriptor, b.data, b.len, "file", NULL) == LFA_OK,
              "a packed file does not unpack");
  lfa_buf_free(&b);
  return (AssignmentFile *)m;
}

static char *dup_text(const char *s) {
  size_t n = strlen(s) + 1;
  char *c = malloc(n);
  FUZZ_ASSERT(c != NULL, "out of memory");
  memcpy(c, s, n);
  return c;
}

/* Removes item k of a repeated message field `list` of `n` items, freeing it. */
#define DROP_ITEM(list, n, k)                                                   \
  do {                                                                          \
    size_t k_ = (k);                                                            \
    lfa_pb_free((list)[k_]);                                                    \
    memmove(&(list)[k_], &(list)[k_ + 1], ((n) - k_ - 1) * sizeof *(list));     \
    (n)--;                                                                      \
  } while (0)

/* Entry k of a root becomes a partial naming a bitmap of the memfs (with
 * that object's size): a partial re-pointed, or an all_assigned entry. */
static void to_partial(fault *f, lfa_root_entry *x, size_t k, bool partial) {
  const lfa_memfs_entry *b = pick_file(f, "", ".rbm", NULL);
  if (b == NULL) return;
  if (partial) {
    free(x->partial->path);
    x->partial->path = dup_text(b->name), x->partial->size_bytes = b->data.len;
  } else {
    x->state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL, x->partial = new_file(b->name, b->data.len);
  }
  say(f, "entry %zu to partial %s", k, b->name);
}

static void edit_entry(fault *f, lfa_root *r, size_t k) {
  lfa_root_entry *x = r->fragments[k];
  bool partial = x->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL;
  switch (pick(f, 6)) {
    case 0:
      say(f, "drop entry %zu (fragment %" PRIu64 ")", k, x->fragment_id);
      DROP_ITEM(r->fragments, r->n_fragments, k);
      return;
    case 1:
      x->physical_rows += fh_byte(f->in) & 1 ? 1 : (uint64_t)-1;
      say(f, "entry %zu physical_rows to %" PRIu64, k, x->physical_rows);
      return;
    case 2:
      x->fragment_id = fh_byte(f->in);
      say(f, "entry %zu fragment to %" PRIu64, k, x->fragment_id);
      return;
    case 3:
      if (k + 1 >= r->n_fragments) return;
      r->fragments[k] = r->fragments[k + 1], r->fragments[k + 1] = x;
      say(f, "swap entries %zu and %zu", k, k + 1);
      return;
    case 4:
      if (!partial) {
        to_partial(f, x, k, false);
        return;
      }
      lfa_pb_free(x->partial);
      x->state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED, x->all_assigned = true;
      say(f, "entry %zu from partial to all_assigned", k);
      return;
    default:
      to_partial(f, x, k, partial);
  }
}

static void fault_root(fault *f) {
  const lfa_memfs_entry *e = pick_file(f, "", ".root", NULL);
  lfa_root *r = NULL;
  if (e == NULL || lfa_edit_read_root(&r, &f->fs->fs, ".", e->name, NULL) != LFA_OK) return;
  char name[LFA_PATH_BYTES_MAX];
  snprintf(name, sizeof name, "%s", e->name);
  say(f, "root %s: ", name);
  if (r->n_fragments > 0) edit_entry(f, r, pick(f, r->n_fragments));
  say(f, ", sizes kept consistent");
  put_root(f, name, r);
  lfa_root_free(r);
}

static void edit_fragment(fault *f, Manifest *m, size_t k) {
  Lance__Table__DataFragment *x = m->fragments[k];
  switch (pick(f, 5)) {
    case 0:
      say(f, "drop fragment %" PRIu64, x->id);
      DROP_ITEM(m->fragments, m->n_fragments, k);
      return;
    case 1:
      x->physical_rows += fh_byte(f->in) & 1 ? 1 : (uint64_t)-1;
      say(f, "fragment %" PRIu64 " physical_rows to %" PRIu64, x->id, x->physical_rows);
      return;
    case 2:
      if (x->deletion_file == NULL) return;
      lfa_pb_free(x->deletion_file);
      x->deletion_file = NULL;
      say(f, "fragment %" PRIu64 " loses its deletion file", x->id);
      return;
    case 3:
      if (x->deletion_file == NULL) return;
      x->deletion_file->num_deleted_rows++;
      say(f, "fragment %" PRIu64 " num_deleted_rows to %" PRIu64, x->id, x->deletion_file->num_deleted_rows);
      return;
    default: {
      if (x->n_files == 0) return;
      Lance__Table__DataFile *df = x->files[pick(f, x->n_files)];
      if (df->n_fields == 0) return;
      size_t j = pick(f, df->n_fields);
      say(f, "fragment %" PRIu64 " file %s no longer stores field %d", x->id, df->path, df->fields[j]);
      memmove(&df->fields[j], &df->fields[j + 1], (df->n_fields - j - 1) * sizeof *df->fields);
      df->n_fields--;
    }
  }
}

static void edit_descriptor(fault *f, Manifest *m, size_t k) {
  Lance__Table__FieldAssignmentState *s = m->field_assignment_states[k];
  switch (pick(f, 3)) {
    case 0:
      say(f, "drop the descriptor of field %d", s->field_id);
      DROP_ITEM(m->field_assignment_states, m->n_field_assignment_states, k);
      return;
    case 1:
      if (m->n_fields == 0) return;
      say(f, "descriptor of field %d", s->field_id);
      s->field_id = m->fields[pick(f, m->n_fields)]->id;
      say(f, " moved to field %d", s->field_id);
      return;
    default: {
      const lfa_memfs_entry *r = pick_file(f, "", ".root", NULL);
      if (r == NULL) return;
      free(s->root->path);
      s->root->path = dup_text(r->name), s->root->size_bytes = r->data.len, s->root->has_size_bytes = true;
      say(f, "descriptor of field %d to root %s", s->field_id, r->name);
    }
  }
}

static void fault_manifest(fault *f) {
  const lfa_memfs_entry *e = pick_file(f, "_versions/", "", NULL);
  lfa_edit ed;
  if (e == NULL || lfa_edit_open_file(&ed, &f->fs->fs, ".", e->name, NULL) != LFA_OK) return;
  Manifest *m = ed.file.manifest;
  say(f, "manifest %s: ", ed.rel);
  unsigned op = pick(f, 4);
  if (op == 0 && m->n_fragments > 0) edit_fragment(f, m, pick(f, m->n_fragments));
  if (op == 1 && m->n_field_assignment_states > 0) edit_descriptor(f, m, pick(f, m->n_field_assignment_states));
  if (op == 2) {
    m->writer_feature_flags &= ~(uint64_t)LFA_FLAG_FIELD_ASSIGNMENT;
    m->reader_feature_flags &= ~(uint64_t)LFA_FLAG_FIELD_ASSIGNMENT;
    say(f, "field-assignment flags cleared");
  }
  if (op == 3) {
    m->version += 1;
    say(f, "version field to %" PRIu64, m->version);
  }
  FUZZ_ASSERT(lfa_edit_save(&ed, NULL) == LFA_OK, "a manifest cannot be saved again");
  lfa_edit_close(&ed);
}

static void edit_sidecar(fault *f, Lance__Table__Transaction *t) {
  Sidecar *s = t->field_assignment_transaction;
  if (s == NULL) return;
  switch (pick(f, 7)) {
    case 0:
      if (s->n_row_changes == 0) return;
      {
        size_t k = pick(f, s->n_row_changes);
        s->row_changes[k]->assigned = !s->row_changes[k]->assigned;
        say(f, "row change %zu flipped", k);
      }
      return;
    case 1:
      if (s->n_row_changes == 0) return;
      say(f, "drop a row change");
      DROP_ITEM(s->row_changes, s->n_row_changes, pick(f, s->n_row_changes));
      return;
    case 2:
      if (s->n_fragment_states == 0) return;
      say(f, "drop a fragment state");
      DROP_ITEM(s->fragment_states, s->n_fragment_states, pick(f, s->n_fragment_states));
      return;
    case 3:
      if (s->n_fragment_states == 0) return;
      {
        size_t k = pick(f, s->n_fragment_states);
        Lance__Table__Transaction__FieldAssignmentTransaction__FragmentState *x = s->fragment_states[k];
        bool all = x->state_case == LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_ALL_ASSIGNED;
        if (x->state_case == LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_PARTIAL)
          free(x->partial.data);
        x->state_case = all ? LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_NONE_ASSIGNED
                            : LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_ALL_ASSIGNED;
        x->all_assigned = true; /* none_assigned shares the storage: true either way */
        say(f, "fragment state %zu to %s", k, all ? "none" : "all");
      }
      return;
    case 4:
      if (s->n_initializations == 0) return;
      say(f, "drop an initialization");
      DROP_ITEM(s->initializations, s->n_initializations, pick(f, s->n_initializations));
      return;
    case 5:
      if (s->n_initializations == 0) return;
      {
        size_t k = pick(f, s->n_initializations);
        Lance__Table__Transaction__FieldAssignmentTransaction__Initialization *x = s->initializations[k];
        x->initial_state = x->initial_state == LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIAL_STATE__ASSIGNED
                               ? LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIAL_STATE__UNASSIGNED
                               : LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__INITIAL_STATE__ASSIGNED;
        say(f, "initialization %zu of field %d flipped", k, x->field_id);
      }
      return;
    default:
      if (s->n_transfers > 0 && fh_byte(f->in) & 1) {
        say(f, "drop a transfer");
        DROP_ITEM(s->transfers, s->n_transfers, pick(f, s->n_transfers));
        return;
      }
      say(f, "drop the sidecar");
      lfa_pb_free(s);
      t->field_assignment_transaction = NULL;
  }
}

static void fault_txn(fault *f) {
  const lfa_memfs_entry *e = pick_file(f, "_versions/", "", NULL);
  lfa_edit ed;
  if (e == NULL || lfa_edit_open_file(&ed, &f->fs->fs, ".", e->name, NULL) != LFA_OK) return;
  if (ed.file.transaction != NULL) {
    say(f, "transaction of %s: ", ed.rel);
    edit_sidecar(f, ed.file.transaction);
    FUZZ_ASSERT(lfa_edit_save(&ed, NULL) == LFA_OK, "a manifest cannot be saved again");
    /* the `.txn` file says the same [FA-LANCE-10] */
    FUZZ_ASSERT(lfa_edit_save_transaction_file(&ed, NULL) == LFA_OK, "a transaction cannot be saved again");
  }
  lfa_edit_close(&ed);
}

static void apply_fault(fault *f) {
  switch ((fault_kind)pick(f, F_COUNT)) {
    case F_FLIP: fault_flip(f); break;
    case F_TRUNCATE: fault_truncate(f); break;
    case F_APPEND: fault_append(f); break;
    case F_DROP: fault_drop(f); break;
    case F_REPLACE: fault_replace(f); break;
    case F_SWAP: fault_swap(f); break;
    case F_BITMAP: fault_bitmap(f); break;
    case F_ROOT: fault_root(f); break;
    case F_MANIFEST: fault_manifest(f); break;
    case F_TXN: fault_txn(f); break;
    case F_COUNT: break;
  }
}

/* ---- the state after the fault ------------------------------------------------------------------------------ */

/* (b) and (c) of the header: version `got` (read after the fault) against
 * the oracle's state `o` of the same version; `model` maps paths to field
 * ids and offsets to keys (structure only). False with `why` on a change. */
static bool same_state(const lfa_table *got, const lfa_table *model, const or_state *o, char *why, size_t cap) {
  size_t tracked = 0;
  for (size_t i = 0; i < o->n_fields; i++) {
    if (!o->fields[i].tracked) continue;
    tracked++;
    size_t mi = or_model_field(model, o->fields[i].path);
    FUZZ_ASSERT(mi != SIZE_MAX, "the model lacks a field of the oracle (checked before the fault)");
    int32_t id = model->fields[mi].id;
    const lfa_field_state *s = lfa_table_tracked(got, id);
    if (s == NULL) {
      snprintf(why, cap, "field %d (%s) is no longer tracked", id, o->fields[i].path);
      return false;
    }
    for (size_t k = 0; k < model->n_fragments; k++) {
      const lfa_fragment *fm = &model->fragments[k];
      size_t j = lfa_table_fragment(got, fm->id);
      if (j == SIZE_MAX) continue; /* its rows are no longer live */
      const lfa_fragment *fg = &got->fragments[j];
      uint64_t rows = fm->physical_rows < fg->physical_rows ? fm->physical_rows : fg->physical_rows;
      for (uint32_t off = 0; off < rows; off++) {
        if (!lfa_fragment_is_live(fm, off) || !lfa_fragment_is_live(fg, off)) continue;
        int r = or_row_index(o, fm->keys[off]);
        FUZZ_ASSERT(r >= 0, "a live row of the model is not live in the oracle (checked before the fault)");
        bool want = o->rows[r].assigned[i], now = lfa_cell_contains(&s->cells[j], off);
        if (want == now) continue;
        snprintf(why, cap, "field %d (%s), fragment %" PRIu64 " offset %u: %s, the oracle says %s", id,
                 o->fields[i].path, fm->id, off, now ? "assigned" : "unassigned", want ? "assigned" : "unassigned");
        return false;
      }
    }
  }
  if (got->n_tracked != tracked) {
    snprintf(why, cap, "%zu fields tracked, the oracle tracks %zu", got->n_tracked, tracked);
    return false;
  }
  return true;
}

/* The first listed version whose state changed (the header's a, b, c), or
 * 0 with every version unchanged. `why` says how. */
static uint64_t changed_version(fh_run *d, char *why, size_t cap) {
  lfa_version_list list;
  lfa_names names;
  lfa_error err = fuzz_error();
  if (lfa_dataset_versions(&list, &names, &d->fs.fs, FH_DIR, &err) != LFA_OK) {
    snprintf(why, cap, "no version is listed any more: %s", err.msg);
    return 1;
  }
  uint64_t changed = 0;
  for (size_t i = 0; changed == 0 && i < list.count; i++) {
    uint64_t v = list.entries[i].version;
    const lfa_table *model = lfa_history_version(&d->h, v);
    lfa_table got;
    if (model == NULL) {
      snprintf(why, cap, "version %" PRIu64 " was never written", v);
      changed = v ? v : 1;
    } else if (lfa_table_load_version(&got, &d->fs.fs, FH_DIR, v, &err) != LFA_OK) {
      snprintf(why, cap, "version %" PRIu64 " does not load: %s", v, err.msg);
      changed = v;
    } else {
      char because[600];
      if (!same_state(&got, model, &d->o.versions[v - 1], because, sizeof because)) {
        snprintf(why, cap, "version %" PRIu64 ": %s", v, because);
        changed = v;
      }
      lfa_table_free(&got);
    }
  }
  lfa_version_list_free(&list);
  lfa_fs_names_free(&names);
  return changed;
}

/* The verifier's verdict: true when it reports an error or cannot read. */
static bool reported(fh_run *d, lfa_verify_result *r) {
  lfa_error err = fuzz_error();
  lfa_status st = fh_verify(r, &d->fs.fs, false, &err);
  return st != LFA_OK || lfa_findings_count(&r->findings, LFA_SEVERITY_ERROR) > 0;
}

static void fail_before_fault(fh_run *d, const char *what, const char *why, const lfa_verify_result *r) {
  fprintf(stderr, "verifier_faults: before any fault, %s\nsequence:\n%s  %s\n", what, d->log, why);
  if (r != NULL) fh_print_findings(r);
  FUZZ_ASSERT(false, "the valid history is not valid");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t history_bytes = size > 0 ? data[0] : 0;
  if (history_bytes > size - (size > 0)) history_bytes = size - (size > 0);
  fh_run *d = fh_open(data + (size > 0), history_bytes);
  fh_run_steps(d, MAX_STEPS, "verifier_faults");
  if (d->h.count == 0) { /* the create was refused: no history to break */
    fh_close(d);
    return 0;
  }
  char why[800];
  lfa_verify_result r;
  if (reported(d, &r)) fail_before_fault(d, "the verifier reports the reference writer's history", "", &r);
  lfa_verify_result_free(&r);
  if (changed_version(d, why, sizeof why) != 0) fail_before_fault(d, "the history does not read back", why, NULL);

  lfa_buf before = {0}, after = {0};
  FUZZ_ASSERT(lfa_memfs_encode(&before, &d->fs, NULL) == LFA_OK, "out of memory");
  fh_input rest = {data + (size > 0) + history_bytes, size - (size > 0) - history_bytes, 0};
  fault f = {&d->fs, &rest, "", 0};
  apply_fault(&f);
  FUZZ_ASSERT(lfa_memfs_encode(&after, &d->fs, NULL) == LFA_OK, "out of memory");
  bool noop = fuzz_same_bytes(&before, &after); /* not a fault: nothing to judge */
  lfa_buf_free(&before);
  lfa_buf_free(&after);
  uint64_t v = noop ? 0 : changed_version(d, why, sizeof why);
  if (v != 0 && !reported(d, &r)) {
    fprintf(stderr, "verifier_faults: a fault changed the state and the verifier reports no error\nsequence:\n%s"
            "fault: %s\nchange: %s\nfindings:\n", d->log, f.what, why);
    fh_print_findings(&r);
    FUZZ_ASSERT(false, "an unreported fault that changes the live-row state");
  }
  if (v != 0) lfa_verify_result_free(&r);
  fh_close(d);
  return 0;
}
