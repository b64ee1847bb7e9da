/* hostile_sizes.c: time and peak memory of the reader and verifier on the
 * three hostile sizes the limits exist for (01§5):
 *
 *   descriptors   a manifest with N tracked fields (default 10^5): the
 *                 descriptor checks are O(n log n) [FA-STORE-1, FA-STORE-3]
 *   row_ids       8 fragments of LFA_ROW_IDS_MAX stable row ids, each a
 *                 one-segment range of a few bytes: the snapshot refuses
 *                 them before expanding any (LFA_SNAPSHOT_ROW_IDS_MAX)
 *   shared_bitmap V versions (default 10^3) whose one tracked field lists
 *                 one partial bitmap of R rows (default 2^27: 16 MiB),
 *                 verified in the default mode: the object cache decodes it
 *                 once and keeps within LFA_OBJECT_CACHE_BYTES_MAX
 *
 * Each case runs in a child process, so its peak resident memory is its
 * own (wait4's ru_maxrss). One JSON line per case.
 *
 *   hostile_sizes [--descriptors N] [--versions V] [--rows R] [--smoke]
 *
 * --smoke (ctest): 10^4 descriptors, the row-id case, and the shared
 * bitmap of 2^20 rows at 40 and at 80 versions: exits 1 unless the checks
 * answer as the spec says and the peak at 80 versions is within 1.25x
 * (plus 4 MiB) of the peak at 40: memory does not follow the history. */
#define _DEFAULT_SOURCE /* wait4: the peak memory of one child */
#include "bench_util.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lfa/bitmap.h"
#include "lfa/dataset.h"
#include "lfa/fs.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "lfa/pb.h"
#include "lfa/root.h"
#include "lfa/fixtures.h"
#include "lfa/verify.h"

typedef struct measured {
  int status; /* the child's exit status: 0 when the case answered as the spec says */
  double seconds;
  double peak_mb;
} measured;

/* Runs `fn(arg)` in a child and measures it. */
static measured in_child(int (*fn)(const void *), const void *arg) {
  measured m = {2, 0, 0};
  fflush(stdout);
  double t0 = bench_now();
  pid_t pid = fork();
  if (pid == 0) _exit(fn(arg));
  int status = 0;
  struct rusage ru;
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) return m;
  m.seconds = bench_now() - t0;
  m.peak_mb = (double)ru.ru_maxrss / 1024.0; /* kilobytes on Linux */
  m.status = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
  return m;
}

static void report(const char *name, const char *size, const measured *m) {
  bench_json j;
  bench_json_begin(&j, "hostile_sizes");
  bench_json_str(&j, "case", name);
  bench_json_str(&j, "size", size);
  bench_json_fixed(&j, "seconds", m->seconds, 3);
  bench_json_fixed(&j, "peak_mb", m->peak_mb, 1);
  bench_json_bool(&j, "answered_as_specified", m->status == 0);
  bench_json_end(&j);
}

/* ---- descriptors ------------------------------------------------------------------------- */

static int descriptors(const void *arg) {
  size_t n = *(const size_t *)arg;
  Lance__Table__Manifest m = LANCE__TABLE__MANIFEST__INIT;
  Lance__File__Field *fields = calloc(n, sizeof *fields), **field_list = calloc(n, sizeof *field_list);
  Lance__Table__FieldAssignmentState *st = calloc(n, sizeof *st), **st_list = calloc(n, sizeof *st_list);
  Lance__Table__FieldAssignmentFile root = LANCE__TABLE__FIELD_ASSIGNMENT_FILE__INIT;
  if (!fields || !field_list || !st || !st_list) return 2;
  root.path = "r.root";
  for (size_t i = 0; i < n; i++) {
    lance__file__field__init(&fields[i]);
    lance__table__field_assignment_state__init(&st[i]);
    fields[i].id = (int32_t)(n - 1 - i); /* the schema in another order than the descriptors */
    st[i].field_id = (int32_t)i, st[i].root = &root;
    field_list[i] = &fields[i], st_list[i] = &st[i];
  }
  m.fields = field_list, m.n_fields = n, m.field_assignment_states = st_list, m.n_field_assignment_states = n;
  lfa_error err = {0};
  int rc = lfa_manifest_check_descriptors(&m, &err) == LFA_OK ? 0 : 1;
  st[n - 1].field_id = 0; /* a duplicate: FA-STORE-1 */
  if (rc == 0 && (lfa_manifest_check_descriptors(&m, &err) != LFA_ERR_RULE || strcmp(err.rule, "FA-STORE-1") != 0))
    rc = 1;
  free(fields), free(field_list), free(st), free(st_list);
  return rc;
}

/* ---- files ----------------------------------------------------------------------------------- */

static bool put(const char *dir, const char *rel, const lfa_buf *b) {
  char path[4200];
  lfa_error err = {0};
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  if (lfa_fs_write_new(path, b->data, b->len, &err) == LFA_OK) return true;
  fprintf(stderr, "hostile_sizes: %s\n", err.msg);
  return false;
}

/* A manifest of one fragment of `rows` rows (a data file storing field 0),
 * with stable row ids from `row_ids` (NULL: none) and `n_frags` copies of
 * the fragment; field 0 tracked through `root` when not NULL. */
static bool put_manifest(const char *dir, uint64_t version, uint64_t rows, size_t n_frags,
                         const ProtobufCBinaryData *row_ids, Lance__Table__FieldAssignmentFile *root) {
  Lance__File__Field field = LANCE__FILE__FIELD__INIT, *fields[] = {&field};
  field.id = 0, field.parent_id = -1, field.name = "emb", field.logical_type = "int64", field.nullable = true;
  int32_t stored[] = {0};
  Lance__Table__DataFile file = LANCE__TABLE__DATA_FILE__INIT, *files[] = {&file};
  file.path = "d.lance", file.fields = stored, file.n_fields = 1;
  Lance__Table__DataFragment frag[8], *frags[8];
  for (size_t i = 0; i < n_frags && i < 8; i++) {
    lance__table__data_fragment__init(&frag[i]);
    frag[i].id = i, frag[i].physical_rows = rows, frag[i].files = files, frag[i].n_files = 1;
    if (row_ids != NULL) {
      frag[i].row_id_sequence_case = LANCE__TABLE__DATA_FRAGMENT__ROW_ID_SEQUENCE_INLINE_ROW_IDS;
      frag[i].inline_row_ids = row_ids[i];
    }
    frags[i] = &frag[i];
  }
  Lance__Table__FieldAssignmentState state = LANCE__TABLE__FIELD_ASSIGNMENT_STATE__INIT, *states[] = {&state};
  state.field_id = 0, state.root = root;
  Lance__Table__Transaction txn = LANCE__TABLE__TRANSACTION__INIT;
  Lance__Table__Transaction__UpdateConfig op = LANCE__TABLE__TRANSACTION__UPDATE_CONFIG__INIT;
  txn.read_version = version - 1, txn.uuid = "hostile";
  txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_UPDATE_CONFIG, txn.update_config = &op;
  Lance__Table__Manifest m = LANCE__TABLE__MANIFEST__INIT;
  m.fields = fields, m.n_fields = 1, m.fragments = frags, m.n_fragments = n_frags < 8 ? n_frags : 8;
  m.version = version, m._max_fragment_id_case = LANCE__TABLE__MANIFEST___MAX_FRAGMENT_ID_MAX_FRAGMENT_ID;
  m.max_fragment_id = (uint32_t)(m.n_fragments - 1);
  if (root != NULL) m.field_assignment_states = states, m.n_field_assignment_states = 1;
  m.writer_feature_flags = (root ? 65536u : 0) | (row_ids ? 2u : 0);
  m.reader_feature_flags = m.writer_feature_flags; /* FA-FLAG-1, FA-FLAG-2 */
  lfa_buf out = {0};
  lfa_error err = {0};
  char rel[64];
  snprintf(rel, sizeof rel, "_versions/%" PRIu64 ".manifest", version);
  bool ok = lfa_manifest_file_encode(&out, &m, &txn, &err) == LFA_OK && put(dir, rel, &out);
  if (!ok && err.msg[0]) fprintf(stderr, "hostile_sizes: %s\n", err.msg);
  lfa_buf_free(&out);
  return ok;
}

/* ---- row ids --------------------------------------------------------------------------------- */

static int row_ids(const void *arg) {
  const char *dir = arg;
  enum { FRAGS = 8 };
  lfa_buf seq[FRAGS] = {{0}};
  ProtobufCBinaryData bytes[FRAGS];
  lfa_error err = {0};
  if (lfa_fixture_range_sequences(seq, FRAGS, LFA_ROW_IDS_MAX, &err) != LFA_OK) return 2;
  for (size_t i = 0; i < FRAGS; i++) bytes[i] = (ProtobufCBinaryData){seq[i].len, seq[i].data};
  if (!put_manifest(dir, 1, LFA_ROW_IDS_MAX, FRAGS, bytes, NULL)) return 2;
  lfa_snapshot snap;
  lfa_status st = lfa_snapshot_open(&snap, dir, NULL, &(lfa_snapshot_options){.version = 1, .load_fields = true}, &err);
  lfa_snapshot_free(&snap);
  for (size_t i = 0; i < FRAGS; i++) lfa_buf_free(&seq[i]);
  /* refused as a limit before any id is expanded [FA-LIMIT-1] */
  return st == LFA_ERR_LIMIT && strstr(err.msg, "LFA_SNAPSHOT_ROW_IDS_MAX") != NULL ? 0 : 1;
}

/* ---- one bitmap shared by every version -------------------------------------------------------- */

typedef struct shared_args {
  const char *dir;
  uint64_t rows, versions;
} shared_args;

/* The history: versions 1..V, each the same fragment and the same root,
 * whose one entry is a partial bitmap of every row but row 0. */
static bool write_shared(const shared_args *a) {
  roaring_bitmap_t *rows = roaring_bitmap_from_range(1, a->rows, 1);
  lfa_buf bitmap = {0}, root_bytes = {0};
  lfa_error err = {0};
  bool ok = rows != NULL && lfa_bitmap_encode(&bitmap, rows, &err) == LFA_OK &&
            put(a->dir, "_field_assignments/bitmaps/0/0/6f1d9c2e-1b7a-4c3e-8f00-0123456789ab.rbm", &bitmap);
  Lance__Table__FieldAssignmentFile partial = LANCE__TABLE__FIELD_ASSIGNMENT_FILE__INIT;
  partial.path = "_field_assignments/bitmaps/0/0/6f1d9c2e-1b7a-4c3e-8f00-0123456789ab.rbm";
  partial.has_size_bytes = true, partial.size_bytes = bitmap.len;
  Lance__Table__FieldAssignmentFragment entry = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__INIT, *entries[] = {&entry};
  entry.fragment_id = 0, entry.physical_rows = a->rows;
  entry.state_case = LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL, entry.partial = &partial;
  Lance__Table__FieldAssignmentRoot root = LANCE__TABLE__FIELD_ASSIGNMENT_ROOT__INIT;
  root.fragments = entries, root.n_fragments = 1;
  ok = ok && lfa_root_encode(&root_bytes, &root, &err) == LFA_OK &&
       put(a->dir, "_field_assignments/roots/0/0b9e4c1a-7d2f-4e8b-9a61-fedcba987654.root", &root_bytes);
  Lance__Table__FieldAssignmentFile root_file = LANCE__TABLE__FIELD_ASSIGNMENT_FILE__INIT;
  root_file.path = "_field_assignments/roots/0/0b9e4c1a-7d2f-4e8b-9a61-fedcba987654.root";
  root_file.has_size_bytes = true, root_file.size_bytes = root_bytes.len;
  for (uint64_t v = 1; ok && v <= a->versions; v++) ok = put_manifest(a->dir, v, a->rows, 1, NULL, &root_file);
  if (!ok && err.msg[0]) fprintf(stderr, "hostile_sizes: %s\n", err.msg);
  lfa_bitmap_free(rows);
  lfa_buf_free(&bitmap), lfa_buf_free(&root_bytes);
  return ok;
}

static int verify_shared(const void *arg) {
  const shared_args *a = arg;
  lfa_verify_result r = {0};
  lfa_error err = {0};
  lfa_status st = lfa_verify_dataset(&r, a->dir, NULL, &err);
  /* every version checked, nothing wrong, the root and the bitmap decoded once each */
  bool ok = st == LFA_OK && r.versions_checked == a->versions && !r.findings.lost &&
            lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR) == 0 && r.objects_decoded == 2;
  fprintf(stderr, "hostile_sizes: %s; %zu versions checked, %" PRIu64 " objects decoded, %zu errors\n",
          st == LFA_OK ? "verified" : err.msg, r.versions_checked, r.objects_decoded,
          lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR));
  lfa_verify_result_free(&r);
  return ok ? 0 : 1;
}

static measured shared_case(uint64_t rows, uint64_t versions) {
  char dir[4096];
  measured m = {2, 0, 0};
  if (!bench_scratch(dir, sizeof dir, "hostile_sizes")) return m;
  shared_args a = {dir, rows, versions};
  if (write_shared(&a)) m = in_child(verify_shared, &a);
  bench_scratch_remove(dir, "hostile_sizes");
  return m;
}

/* ---- main --------------------------------------------------------------------------------------- */

int main(int argc, char **argv) {
  size_t n_desc = 100000;
  uint64_t versions = 1000, rows = LFA_ROW_IDS_MAX;
  bool smoke = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--descriptors") == 0 && i + 1 < argc) n_desc = (size_t)strtoull(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--versions") == 0 && i + 1 < argc) versions = strtoull(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc) rows = strtoull(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--smoke") == 0) smoke = true;
    else return fprintf(stderr, "usage: hostile_sizes [--descriptors N] [--versions V] [--rows R] [--smoke]\n"), 2;
  }
  if (smoke) n_desc = 10000, versions = 40, rows = 1u << 20;
  if (n_desc < 2 || n_desc > 10000000 || versions < 1 || rows < 2 || rows > LFA_ROW_IDS_MAX)
    return fprintf(stderr, "hostile_sizes: sizes out of range\n"), 2;
  char size[64], dir[4096];
  int failed = 0;

  measured d = in_child(descriptors, &n_desc);
  snprintf(size, sizeof size, "%zu descriptors", n_desc);
  report("descriptors", size, &d);
  failed |= d.status != 0;

  measured r = {2, 0, 0};
  if (bench_scratch(dir, sizeof dir, "hostile_sizes")) {
    r = in_child(row_ids, dir);
    bench_scratch_remove(dir, "hostile_sizes");
  }
  snprintf(size, sizeof size, "8 x %u stable row ids", (unsigned)LFA_ROW_IDS_MAX);
  report("row_ids", size, &r);
  failed |= r.status != 0;

  measured s = shared_case(rows, versions);
  snprintf(size, sizeof size, "%" PRIu64 " versions, one bitmap of %" PRIu64 " rows", versions, rows);
  report("shared_bitmap", size, &s);
  failed |= s.status != 0;
  if (smoke) { /* twice the history, the same memory */
    measured twice = shared_case(rows, 2 * versions);
    snprintf(size, sizeof size, "%" PRIu64 " versions, one bitmap of %" PRIu64 " rows", 2 * versions, rows);
    report("shared_bitmap", size, &twice);
    bool flat = twice.peak_mb <= 1.25 * s.peak_mb + 4.0;
    if (!flat) fprintf(stderr, "hostile_sizes: peak %.1f MB at %" PRIu64 " versions, %.1f MB at %" PRIu64 "\n",
                       twice.peak_mb, 2 * versions, s.peak_mb, versions);
    failed |= twice.status != 0 || !flat;
  }
  return failed ? 1 : 0;
}
