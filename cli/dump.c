/* dump.c: `lfa dump`, every version of a dataset as people and programs
 * read it. The JSON shape is documented in docs/commands/dump.md
 * and only ever grows: keys are never renamed or removed. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "lfa/document.h"
#include "lfa/dataset.h"
#include "lfa/escape.h"
#include "lfa/lance_releases.h"
#include "lfa/limits.h"
#include "lfa/pb.h"
#include "lfa/transaction.h"
#include "dataset_arg.h"

static const char HELP[] =
    "usage: lfa dump DATASET [--version N] [--rows] [--json] [--stats] [--allow-http]\n"
    "\n"
    "Decodes every version of the Lance dataset at DATASET (or only version N)\n"
    "and prints, per version: the operation of its transaction, the reader and\n"
    "writer feature flags, the schema (field id, parent id, name), the\n"
    "fragments (id, physical rows, deleted and live rows, data files with their\n"
    "field ids, where -2 is a tombstone: a column a newer data file of the\n"
    "fragment replaced) and, for every tracked field, the assignment state of each\n"
    "fragment it lists: `all` or `partial`, then A of L live rows assigned\n"
    "(assigned: live rows whose offset the state holds; a deleted row is\n"
    "neither assigned nor unassigned), and for a partial bitmap its raw\n"
    "cardinality (bitmap B offsets: deleted offsets stay in it, FA-DELETE-1),\n"
    "beside the physical and deleted rows (physical = live + deleted). The\n"
    "numbers are eval --count --by-fragment's. Fragments a tracked field does\n"
    "not list have no assigned row.\n"
    "\n"
    "lfa reads metadata only (manifests, transactions, deletion files and\n"
    "_field_assignments/ objects), never .lance data files. Every rule an\n"
    "upstream reader applies while loading is applied here too: a version that\n"
    "breaks one is unusable input.\n"
    "\n"
    "A version that cannot be read (a manifest, transaction, deletion file or\n"
    "assignment object that breaks a rule) is reported as that version's error,\n"
    "naming the file, field and fragment, and the other versions still print.\n"
    "\n"
    "  --version N   only version N\n"
    "  --rows        also list each version's live rows: their row addresses\n"
    "                (fragment id << 32 | offset), ascending, and with stable\n"
    "                row ids the row id of each, in the same order (none when\n"
    "                some fragment's ids are only in its data files: spilled\n"
    "                row lineage, feature bit 2048, shown as row ids not read)\n"
    "  --json        one JSON document: {\"dataset\", \"naming\", \"versions\": [...]}\n"
    "                (shape: docs/commands/dump.md); an unreadable version is\n"
    "                {\"version\": N, \"error\": {\"status\", \"rule\", \"message\"}}\n"
    LFA_CLI_DATASET_HELP_OPTIONS
    "\n" LFA_CLI_DATASET_HELP_DATASET
    "\n"
    "Exit status: 0 every version read; 1 some version could not be read (each\n"
    "reported, the others printed); 2 the dataset cannot be listed or bad usage,\n"
    "with a one-line reason.\n";

/* "65537 (deletion_files, field_assignment)": each bit by its released
 * name; bit 256 by what the manifest's descriptors make it [FA-LANCE-21]. */
static void print_flags(FILE *out, uint64_t flags, bool has_descriptors) {
  fprintf(out, "%" PRIu64, flags);
  const char *sep = " (";
  uint64_t unknown = 0;
  for (unsigned k = 0; k < 64; k++) {
    uint64_t bit = (uint64_t)1 << k;
    if (!(flags & bit)) continue;
    const char *name = lfa_flag_name(bit, has_descriptors);
    if (name == NULL) {
      unknown |= bit;
      continue;
    }
    fprintf(out, "%s%s", sep, name);
    sep = ", ";
  }
  if (unknown) fprintf(out, "%sunknown bits %" PRIu64, sep, unknown), sep = ", ";
  if (sep[0] == ',') fputc(')', out);
}

/* ---- fields and bits by the release that defines them (02§7) -------------------
 * Every manifest field and feature bit a version carries, named as the Lance
 * release registry names it, with the first release that defines it so
 * [FA-LANCE-21]. What no known release defines is said to be so, with the
 * name lfa reads it by (field assignment's own) and the registry's
 * unconfirmed candidate, if any. */

typedef struct named {
  const char *name;                /* the registry's, else lfa's own; NULL: none */
  const char *release;             /* first Lance release that defines it; NULL: none */
  const char *candidate;           /* an unconfirmed candidate's name, or NULL */
  const char *candidate_release;
} named;

static named name_field(const ProtobufCMessageDescriptor *d, uint32_t number) {
  const lfa_lance_field *f = lfa_lance_field_find(LFA_LANCE_MSG_MANIFEST, number);
  if (f != NULL && f->confirmed) return (named){f->name, f->first, NULL, NULL};
  const ProtobufCFieldDescriptor *own = protobuf_c_message_descriptor_get_field(d, (unsigned)number);
  return (named){own ? own->name : NULL, NULL, f ? f->name : NULL, f ? f->first : NULL};
}

/* A bit's Lance name; `here` is what the manifest makes it instead, when
 * its descriptors do (bit 256 with descriptors is the draft's marker). */
static named name_bit(uint64_t bit, bool has_descriptors, const char **here) {
  const lfa_lance_bit *b = lfa_lance_bit_find(bit);
  const char *own = lfa_flag_name(bit, has_descriptors);
  *here = own != NULL && strncmp(own, "field_assignment", 16) == 0 ? own : NULL;
  if (b == NULL) return (named){NULL, NULL, NULL, NULL};
  if (b->confirmed) return (named){b->name, b->first, NULL, NULL};
  return (named){NULL, NULL, b->name, b->first};
}

static void text_named(FILE *out, const named *n, const char *here, const char *number) {
  if (n->release != NULL) fprintf(out, "%s (Lance %s", n->name, n->release);
  else fprintf(out, "%s%s(no known Lance release defines it", n->name ? n->name : "", n->name ? " " : "");
  if (n->candidate != NULL) fprintf(out, "; perhaps %s of Lance %s, %s unconfirmed", n->candidate, n->candidate_release, number);
  if (here != NULL) fprintf(out, "; here: %s", here);
  fputc(')', out);
}

static void json_named(lfa_json_writer *w, const named *n, const char *here) {
  lfa_json_put_string(w, "name", n->name);
  lfa_json_put_string(w, "lance_release", n->release);
  if (n->candidate == NULL) lfa_json_put_null(w, "unconfirmed");
  else {
    lfa_json_open_object(w, "unconfirmed");
    lfa_json_put_string(w, "name", n->candidate);
    lfa_json_put_string(w, "lance_release", n->candidate_release);
    lfa_json_close_object(w);
  }
  lfa_json_put_string(w, "here", here);
}

static void text_fields_and_bits(FILE *out, const Lance__Table__Manifest *m, bool tracked) {
  uint32_t *nums = NULL;
  size_t n = 0;
  lfa_error err = {0};
  fputs("  manifest fields:", out);
  if (lfa_pb_present_fields(&nums, &n, &m->base, &err) != LFA_OK) fputs(" (not listed: out of memory)", out);
  for (size_t i = 0; i < n; i++) {
    named f = name_field(m->base.descriptor, nums[i]);
    fprintf(out, "%s%u ", i ? ", " : " ", nums[i]);
    text_named(out, &f, NULL, "number");
  }
  free(nums);
  uint64_t any = m->reader_feature_flags | m->writer_feature_flags;
  fputs(any ? "\n  feature bits:" : "\n  feature bits: none", out);
  for (unsigned k = 0, first = 1; k < 64; k++) {
    uint64_t bit = (uint64_t)1 << k;
    if (!(any & bit)) continue;
    const char *here;
    named b = name_bit(bit, tracked, &here);
    bool r = m->reader_feature_flags & bit, wr = m->writer_feature_flags & bit;
    fprintf(out, "%s%" PRIu64 " [%s] ", first ? " " : ", ", bit, r && wr ? "reader+writer" : r ? "reader" : "writer");
    text_named(out, &b, here, "value");
    first = 0;
  }
  fputc('\n', out);
}

static void json_fields_and_bits(lfa_json_writer *w, const Lance__Table__Manifest *m, bool tracked) {
  uint32_t *nums = NULL;
  size_t n = 0;
  lfa_error err = {0};
  lfa_json_open_array(w, "manifest_fields");
  if (lfa_pb_present_fields(&nums, &n, &m->base, &err) == LFA_OK)
    for (size_t i = 0; i < n; i++) {
      named f = name_field(m->base.descriptor, nums[i]);
      lfa_json_open_object(w, NULL);
      lfa_json_put_u64(w, "number", nums[i]);
      json_named(w, &f, NULL);
      lfa_json_close_object(w);
    }
  free(nums);
  lfa_json_close_array(w);
  lfa_json_open_array(w, "feature_bits");
  uint64_t any = m->reader_feature_flags | m->writer_feature_flags;
  for (unsigned k = 0; k < 64; k++) {
    uint64_t bit = (uint64_t)1 << k;
    if (!(any & bit)) continue;
    const char *here;
    named b = name_bit(bit, tracked, &here);
    lfa_json_open_object(w, NULL);
    lfa_json_put_u64(w, "value", bit);
    lfa_json_put_bool(w, "reader", m->reader_feature_flags & bit);
    lfa_json_put_bool(w, "writer", m->writer_feature_flags & bit);
    json_named(w, &b, here);
    lfa_json_close_object(w);
  }
  lfa_json_close_array(w);
}

static uint64_t deleted_rows(const lfa_snapshot *s, size_t i) {
  return s->deleted[i] ? roaring_bitmap_get_cardinality(s->deleted[i]) : 0;
}

static const char *field_name(const lfa_snapshot *s, int32_t id) {
  const Lance__File__Field *f = lfa_snapshot_field(s, id);
  return f ? f->name : "?";
}

/* ---- human output ----------------------------------------------------------- */

/* A data file's field ids; -2 is Lance's tombstone (02§2, FA-LANCE-15),
 * which a reader of the dump needs explained once. */
static bool put_field_ids(FILE *out, const int32_t *fields, size_t n) {
  bool tombstone = false;
  for (size_t j = 0; j < n; j++) fprintf(out, "%s%d", j ? "," : "", fields[j]), tombstone |= fields[j] == -2;
  return tombstone;
}

static void text_fragments(FILE *out, const lfa_snapshot *s) {
  const Lance__Table__Manifest *m = s->file.manifest;
  bool tombstone = false;
  fprintf(out, "  fragments: %zu\n", m->n_fragments);
  for (size_t i = 0; i < m->n_fragments; i++) {
    const Lance__Table__DataFragment *f = m->fragments[i];
    if (f->physical_rows == 0) /* written by Lance before physical_rows existed */
      fprintf(out, "    %" PRIu64 ": physical_rows unknown, deleted %" PRIu64 "\n", f->id, deleted_rows(s, i));
    else
      fprintf(out, "    %" PRIu64 ": physical_rows %" PRIu64 ", deleted %" PRIu64 ", live %" PRIu64 "\n", f->id,
              f->physical_rows, deleted_rows(s, i), lfa_snapshot_live_rows(s, i));
    if (!lfa_snapshot_row_ids_read(s, i)) /* [FA-VERIFY-8] */
      fputs("      row ids: not read (spilled row lineage, bit 2048: kept in its data files, which lfa never reads)\n",
            out);
    for (size_t k = 0; k < f->n_files; k++) {
      fputs("      ", out), lfa_put_text(out, f->files[k]->path), fputs("  fields [", out);
      tombstone |= put_field_ids(out, f->files[k]->fields, f->files[k]->n_fields);
      fputs("]\n", out);
    }
    for (size_t k = 0; k < f->n_overlays; k++) { /* 05§14: coverage, never assignment state */
      const Lance__Table__DataOverlayFile *o = f->overlays[k];
      fputs("      overlay ", out), lfa_put_text(out, o->data_file ? o->data_file->path : "?"), fputs("  fields [", out);
      if (o->data_file != NULL) tombstone |= put_field_ids(out, o->data_file->fields, o->data_file->n_fields);
      fprintf(out, "]  committed_version %" PRIu64 "\n", o->committed_version);
    }
  }
  if (tombstone)
    fputs("    (-2 in fields: a tombstone, a column of the file that a newer data file of the fragment replaced;\n"
          "     it is not read from this file, 02§2)\n",
          out);
}

static void text_tracked(FILE *out, const lfa_snapshot *s) {
  fprintf(out, "  tracked fields: %zu\n", s->n_tracked);
  for (size_t t = 0; t < s->n_tracked; t++) {
    const lfa_tracked_field *tf = &s->tracked[t];
    fprintf(out, "    field %d (", tf->field_id), lfa_put_text(out, field_name(s, tf->field_id));
    fputs("): root ", out), lfa_put_text(out, tf->root_file->path);
    fprintf(out, ", %" PRIu64 " bytes%s\n", tf->root_file->size_bytes, tf->count == 0 ? ", no row assigned" : "");
    for (size_t k = 0; k < tf->count; k++) { /* the numbers of lfa/dataset.h, as eval --count shows them */
      const lfa_fragment_assignment *a = &tf->fragments[k];
      lfa_row_counts c;
      lfa_snapshot_row_counts(&c, s, tf, lfa_snapshot_fragment(s, a->fragment_id));
      fprintf(out, "      fragment %" PRIu64 ": %s, %" PRIu64 " of %" PRIu64 " live rows assigned (", a->fragment_id,
              a->all ? "all" : "partial", c.assigned, c.live_rows);
      if (!a->all) fprintf(out, "bitmap %" PRIu64 " offsets, ", c.bitmap_rows);
      fprintf(out, "%" PRIu64 " physical, %" PRIu64 " deleted)\n", c.physical_rows, c.deleted_rows);
    }
  }
}

/* ---- live rows (--rows) -------------------------------------------------------
 * A fragment's live rows are its physical offsets 0..physical_rows-1 less
 * its deletion set, addressed fragment id << 32 | offset (02-lance-base.md);
 * fragments are taken ascending by id, so addresses come out ascending. */

/* Every live row is listable: physical_rows known everywhere and within the
 * u32 offsets Lance addresses, and at most LFA_LISTED_ROWS_MAX live rows
 * [FA-LIMIT-1]. Checked before any is printed. */
static lfa_status check_listable(const lfa_snapshot *s, lfa_error *err) {
  const Lance__Table__Manifest *m = s->file.manifest;
  uint64_t total = 0;
  for (size_t i = 0; i < m->n_fragments; i++) {
    const Lance__Table__DataFragment *f = m->fragments[i];
    if (f->physical_rows == 0 && f->n_files > 0)
      return lfa_fail(err, LFA_ERR_USAGE, NULL,
                      "fragment %" PRIu64 ": physical_rows unknown (written before Lance recorded it), "
                      "so its live rows cannot be listed",
                      f->id);
    if (f->physical_rows > (uint64_t)UINT32_MAX + 1)
      return lfa_fail(err, LFA_ERR_RULE, NULL,
                      "fragment %" PRIu64 ": %" PRIu64 " physical rows cannot all have a 32-bit offset", f->id,
                      f->physical_rows);
    total += lfa_snapshot_live_rows(s, i);
    if (total > LFA_LISTED_ROWS_MAX)
      return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-2",
                      "more than %u live rows to list (limit LFA_LISTED_ROWS_MAX)",
                      (unsigned)LFA_LISTED_ROWS_MAX);
  }
  return LFA_OK;
}

/* Calls put(w, value) for every live row in address order: its address, or
 * with `ids` its stable row id. The deletion set is walked alongside, so
 * the cost is one step per physical row. */
static void each_live_row(const lfa_snapshot *s, bool ids, void (*put)(void *, uint64_t), void *w) {
  for (size_t k = 0; k < s->file.manifest->n_fragments; k++) {
    size_t i = s->by_id[k].index;
    const Lance__Table__DataFragment *f = s->file.manifest->fragments[i];
    roaring_uint32_iterator_t del = {0};
    if (s->deleted[i] != NULL) roaring_init_iterator(s->deleted[i], &del);
    for (uint64_t off = 0; off < f->physical_rows; off++) {
      if (del.has_value && del.current_value == off) { /* deleted: not live */
        roaring_advance_uint32_iterator(&del);
        continue;
      }
      put(w, ids ? s->row_ids[i].ids[off] : f->id << 32 | off);
    }
  }
}

/* Text: runs of consecutive values as "a-b", so whole fragments stay short. */
typedef struct run_printer {
  FILE *out;
  uint64_t first, last, count;
} run_printer;

static void run_flush(run_printer *p) {
  if (p->count == 0) return;
  fprintf(p->out, p->count > 1 ? "," : " ");
  if (p->first == p->last) fprintf(p->out, "%" PRIu64, p->first);
  else fprintf(p->out, "%" PRIu64 "-%" PRIu64, p->first, p->last);
}

static void run_put(void *ctx, uint64_t v) {
  run_printer *p = ctx;
  if (p->count > 0 && v == p->last + 1) {
    p->last = v;
    return;
  }
  run_flush(p);
  p->first = p->last = v;
  p->count++;
}

static void text_rows(FILE *out, const lfa_snapshot *s) {
  for (int ids = 0; ids <= (s->stable_row_ids ? 1 : 0); ids++) {
    if (ids && s->row_ids_unread > 0) { /* all or none, so the two lists stay in step */
      fprintf(out, "  live row ids: not read (%zu fragments keep them in their data files)\n", s->row_ids_unread);
      continue;
    }
    run_printer p = {out, 0, 0, 0};
    fputs(ids ? "  live row ids:" : "  live rows:", out);
    each_live_row(s, ids, run_put, &p);
    run_flush(&p);
    fputs(p.count ? "\n" : " none\n", out);
  }
}

static void json_put_number(void *w, uint64_t v) { lfa_json_number(w, v); }

static void json_rows(lfa_json_writer *w, const lfa_snapshot *s) {
  lfa_json_open_numbers(w, "live_rows");
  each_live_row(s, false, json_put_number, w);
  lfa_json_close_array(w);
  if (!s->stable_row_ids) return;
  if (s->row_ids_unread > 0) { /* [FA-VERIFY-8] not in metadata: none listed, not some */
    lfa_json_put_null(w, "live_row_ids");
    return;
  }
  lfa_json_open_numbers(w, "live_row_ids");
  each_live_row(s, true, json_put_number, w);
  lfa_json_close_array(w);
}

/* The manifest's top-level fields lfa does not read (a newer Lance's, or
 * a field 22 or 1022 that is not field assignment's: FA-FLAG-7), once each. */
static size_t unread_fields(uint32_t *out, size_t cap, const Lance__Table__Manifest *m) {
  size_t n = 0;
  for (unsigned i = 0; i < m->base.n_unknown_fields; i++) {
    uint32_t f = m->base.unknown_fields[i].tag;
    bool seen = false;
    for (size_t k = 0; k < n; k++) seen |= out[k] == f;
    if (!seen && n < cap) out[n++] = f;
  }
  return n;
}

static void text_version(FILE *out, const lfa_snapshot *s, bool rows) {
  const Lance__Table__Manifest *m = s->file.manifest;
  fprintf(out, "version %" PRIu64 ": %s\n", s->version,
          s->transaction ? lfa_transaction_operation_name(s->transaction) : "(no transaction)");
  bool tracked = m->n_field_assignment_states > 0;
  fputs("  reader flags ", out);
  print_flags(out, m->reader_feature_flags, tracked);
  fputs(", writer flags ", out);
  print_flags(out, m->writer_feature_flags, tracked);
  fputc('\n', out);
  text_fields_and_bits(out, m, tracked);
  lfa_layout layout = lfa_manifest_layout(m);
  if (layout == LFA_LAYOUT_PREVIOUS || layout == LFA_LAYOUT_DRAFT) fprintf(out, "  state read as %s\n", lfa_layout_name(layout));
  uint32_t unread[16];
  size_t n_unread = unread_fields(unread, 16, m);
  for (size_t i = 0; i < n_unread; i++) fprintf(out, "%s%u", i ? ", " : "  manifest fields lfa does not read: ", (unsigned)unread[i]);
  if (n_unread) fputc('\n', out);
  const Lance__Table__Manifest__WriterVersion *wv = m->writer_version;
  if (wv != NULL) {
    fputs("  written by ", out), lfa_put_text(out, wv->library ? wv->library : "?");
    fputc(' ', out), lfa_put_text(out, wv->version ? wv->version : "?"), fputc('\n', out);
  }
  fprintf(out, "  schema: %zu fields\n", m->n_fields);
  for (size_t i = 0; i < m->n_fields; i++)
    fprintf(out, "    %d ", m->fields[i]->id), lfa_put_text(out, m->fields[i]->name),
        fprintf(out, " (parent %d)\n", m->fields[i]->parent_id);
  text_fragments(out, s);
  text_tracked(out, s);
  if (rows) text_rows(out, s);
  fputc('\n', out);
}

/* ---- JSON output ------------------------------------------------------------- */

static void json_fragments(lfa_json_writer *w, const lfa_snapshot *s) {
  const Lance__Table__Manifest *m = s->file.manifest;
  lfa_json_open_array(w, "fragments");
  for (size_t i = 0; i < m->n_fragments; i++) {
    const Lance__Table__DataFragment *f = m->fragments[i];
    lfa_json_open_object(w, NULL);
    lfa_json_put_u64(w, "id", f->id);
    lfa_json_put_u64(w, "physical_rows", f->physical_rows);
    lfa_json_put_u64(w, "deleted_rows", deleted_rows(s, i));
    if (f->physical_rows == 0) lfa_json_put_null(w, "live_rows"); /* unknown */
    else lfa_json_put_u64(w, "live_rows", lfa_snapshot_live_rows(s, i));
    if (s->stable_row_ids) lfa_json_put_bool(w, "row_ids_read", lfa_snapshot_row_ids_read(s, i)); /* [FA-VERIFY-8] */
    lfa_json_open_array(w, "files");
    for (size_t k = 0; k < f->n_files; k++) {
      lfa_json_open_object(w, NULL);
      lfa_json_put_string(w, "path", f->files[k]->path);
      lfa_json_open_array(w, "fields");
      for (size_t j = 0; j < f->files[k]->n_fields; j++) lfa_json_put_i64(w, NULL, f->files[k]->fields[j]);
      lfa_json_close_array(w);
      lfa_json_close_object(w);
    }
    lfa_json_close_array(w);
    lfa_json_close_object(w);
  }
  lfa_json_close_array(w);
}

static void json_tracked(lfa_json_writer *w, const lfa_snapshot *s) {
  lfa_json_open_array(w, "tracked");
  for (size_t t = 0; t < s->n_tracked; t++) {
    const lfa_tracked_field *tf = &s->tracked[t];
    lfa_json_open_object(w, NULL);
    lfa_json_put_i64(w, "field_id", tf->field_id);
    lfa_json_put_string(w, "name", field_name(s, tf->field_id));
    lfa_json_put_string(w, "root", tf->root_file->path);
    lfa_json_put_u64(w, "root_size_bytes", tf->root_file->size_bytes);
    lfa_json_open_array(w, "fragments");
    for (size_t k = 0; k < tf->count; k++) {
      lfa_row_counts c;
      lfa_snapshot_row_counts(&c, s, tf, lfa_snapshot_fragment(s, tf->fragments[k].fragment_id));
      lfa_json_open_object(w, NULL);
      lfa_json_put_u64(w, "id", tf->fragments[k].fragment_id);
      lfa_json_put_string(w, "state", tf->fragments[k].all ? "all" : "partial");
      lfa_json_put_u64(w, "assigned_rows", c.assigned); /* live rows only, like eval's "assigned" */
      lfa_json_put_u64(w, "unassigned_rows", c.unassigned);
      if (!tf->fragments[k].all) lfa_json_put_u64(w, "bitmap_rows", c.bitmap_rows);
      lfa_json_close_object(w);
    }
    lfa_json_close_array(w);
    lfa_json_close_object(w);
  }
  lfa_json_close_array(w);
}

/* The library and release that wrote the manifest, as it names itself: how a
 * table tells which Lance wrote it (Appendix C's release table reads it). */
static void json_writer_version(lfa_json_writer *w, const Lance__Table__Manifest__WriterVersion *wv) {
  if (wv == NULL) {
    lfa_json_put_null(w, "writer_version");
    return;
  }
  lfa_json_open_object(w, "writer_version");
  lfa_json_put_string(w, "library", wv->library);
  lfa_json_put_string(w, "version", wv->version);
  lfa_json_close_object(w);
}

static void json_version(lfa_json_writer *w, const lfa_snapshot *s, bool rows) {
  const Lance__Table__Manifest *m = s->file.manifest;
  lfa_json_open_object(w, NULL);
  lfa_json_put_u64(w, "version", s->version);
  lfa_json_put_string(w, "operation", s->transaction ? lfa_transaction_operation_name(s->transaction) : NULL);
  lfa_json_put_u64(w, "reader_feature_flags", m->reader_feature_flags);
  lfa_json_put_u64(w, "writer_feature_flags", m->writer_feature_flags);
  json_fields_and_bits(w, m, m->n_field_assignment_states > 0);
  uint32_t unread[16];
  size_t n_unread = unread_fields(unread, 16, m);
  lfa_json_open_numbers(w, "unread_fields");
  for (size_t i = 0; i < n_unread; i++) lfa_json_number(w, unread[i]);
  lfa_json_close_array(w);
  json_writer_version(w, m->writer_version);
  lfa_json_open_array(w, "fields");
  for (size_t i = 0; i < m->n_fields; i++) {
    lfa_json_open_object(w, NULL);
    lfa_json_put_i64(w, "id", m->fields[i]->id);
    lfa_json_put_i64(w, "parent_id", m->fields[i]->parent_id);
    lfa_json_put_string(w, "name", m->fields[i]->name);
    lfa_json_close_object(w);
  }
  lfa_json_close_array(w);
  json_fragments(w, s);
  json_tracked(w, s);
  if (rows) json_rows(w, s);
  lfa_json_close_object(w);
}

/* An unreadable version: its number and the error, in place of its content. */
static void json_version_error(lfa_json_writer *w, uint64_t version, const lfa_error *err) {
  lfa_json_open_object(w, NULL);
  lfa_json_put_u64(w, "version", version);
  lfa_json_put_error(w, "error", err);
  lfa_json_close_object(w);
}

/* ---- command ------------------------------------------------------------------- */

typedef struct dump_args {
  const char *dataset;
  int json;
  int rows;
  int has_version;
  uint64_t version;
  int stats, allow_http;
} dump_args;

static int parse_args(dump_args *a, int argc, char **argv) {
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(HELP, stdout);
      exit(LFA_EXIT_OK);
    } else if (strcmp(argv[i], "--json") == 0 && !a->json) {
      a->json = 1;
    } else if (strcmp(argv[i], "--rows") == 0 && !a->rows) {
      a->rows = 1;
    } else if (strcmp(argv[i], "--stats") == 0 && !a->stats) {
      a->stats = 1;
    } else if (strcmp(argv[i], "--allow-http") == 0 && !a->allow_http) {
      a->allow_http = 1;
    } else if (strcmp(argv[i], "--version") == 0 && i + 1 < argc && !a->has_version &&
               lfa_cli_value_ok(argv[i + 1], false)) {
      if (!lfa_cli_u64(&a->version, "dump", argv[i], argv[i + 1], 0, UINT64_MAX)) return 0;
      a->has_version = 1, i++;
    } else if (argv[i][0] != '-' && a->dataset == NULL) {
      a->dataset = argv[i];
    } else {
      char shown[LFA_CLI_SHOWN_BYTES];
      fprintf(stderr, "lfa dump: unexpected argument '%s'\n%s", lfa_cli_shown(shown, sizeof shown, argv[i]), HELP);
      return 0;
    }
  }
  if (a->dataset == NULL) fprintf(stderr, "lfa dump: missing DATASET\n%s", HELP);
  return a->dataset != NULL;
}

/* Where the versions go, one at a time: each is loaded, printed and freed
 * before the next, so memory follows the largest version, not the history. */
typedef struct dump_out {
  const dump_args *a;
  lfa_cli_dataset *store;
  lfa_json_writer w;
  size_t printed, failed;
} dump_out;

static void out_begin(dump_out *o, const lfa_version_list *versions) {
  const char *naming = versions->naming == LFA_NAMING_V2 ? "V2" : "V1";
  if (!o->a->json) {
    fputs("dataset ", stdout), lfa_put_text(stdout, o->a->dataset); /* names are shown escaped: any bytes */
    printf(": %zu versions, %s names (metadata only: .lance data files are never read)\n\n", versions->count,
           naming);
    return;
  }
  o->w = (lfa_json_writer){.out = stdout};
  lfa_json_open_object(&o->w, NULL);
  lfa_json_put_string(&o->w, "dataset", o->a->dataset);
  lfa_json_put_string(&o->w, "naming", versions->naming == LFA_NAMING_V2 ? "v2" : "v1");
  lfa_json_open_array(&o->w, "versions");
}

static void out_version(dump_out *o, const lfa_snapshot *s) {
  if (o->a->json) json_version(&o->w, s, o->a->rows);
  else text_version(stdout, s, o->a->rows);
  o->printed++;
}

static void out_error(dump_out *o, uint64_t version, const lfa_error *err) {
  if (o->a->json) json_version_error(&o->w, version, err);
  else printf("version %" PRIu64 ": unreadable: ", version), lfa_put_text(stdout, err->msg), fputs("\n\n", stdout);
  o->failed++;
}

static void out_end(dump_out *o) {
  if (!o->a->json) return;
  lfa_json_close_array(&o->w);
  lfa_cli_dataset_put_stats(o->store, &o->w);
  lfa_json_close_object(&o->w);
  lfa_json_finish(&o->w);
}

/* One version: loaded beside the one before (what the commit left
 * unchanged is shared, not read or decoded again; `prev` is then this
 * one, or empty when it could not be read), checked listable with --rows,
 * then printed. */
static void dump_one(dump_out *o, const lfa_version_entry *entry, lfa_snapshot *prev, bool *have_prev,
                     lfa_object_cache *cache) {
  lfa_error err = {0};
  lfa_snapshot snap;
  lfa_snapshot_options opt = {.fs = o->store->d.fs, .cache = cache, .load_fields = true,
                              .after = *have_prev ? prev : NULL, .in_order = true};
  lfa_status st = lfa_snapshot_open(&snap, o->a->dataset, entry, &opt, &err);
  if (*have_prev) lfa_snapshot_free(prev);
  *have_prev = false;
  if (st != LFA_OK) { /* left freed */
    out_error(o, entry->version, &err);
    return;
  }
  if (!o->a->rows || check_listable(&snap, &err) == LFA_OK) out_version(o, &snap);
  else out_error(o, entry->version, &err);
  *prev = snap, *have_prev = true;
}

static int dump_versions(const dump_args *a, lfa_cli_dataset *store, const lfa_version_list *versions) {
  dump_out o = {a, store, {0}, 0, 0};
  const lfa_version_entry *only = NULL;
  for (size_t i = 0; a->has_version && i < versions->count; i++)
    if (versions->entries[i].version == a->version) only = &versions->entries[i];
  if (a->has_version && only == NULL) {
    char missing[64];
    snprintf(missing, sizeof missing, "version %" PRIu64 " does not exist", a->version);
    lfa_cli_fail("dump", a->dataset, missing);
    return LFA_EXIT_UNUSABLE;
  }
  lfa_object_cache cache; /* each object read once per run, within its budget: memory stays flat */
  lfa_snapshot prev;
  bool have_prev = false;
  lfa_object_cache_init(&cache, 0);
  out_begin(&o, versions);
  for (size_t i = 0; i < versions->count; i++) {
    if (only == NULL && i % LFA_MANIFEST_PREFETCH_BATCH == 0) /* on an object store, fetched ahead in parallel */
      lfa_dataset_prefetch_manifests(store->d.fs, a->dataset, versions, i, LFA_MANIFEST_PREFETCH_BATCH, NULL, NULL);
    if (only == NULL || &versions->entries[i] == only) dump_one(&o, &versions->entries[i], &prev, &have_prev, &cache);
  }
  if (have_prev) lfa_snapshot_free(&prev);
  lfa_object_cache_free(&cache); /* after every snapshot that borrowed from it */
  out_end(&o);
  if (o.failed == 0) return LFA_EXIT_OK;
  char summary[96];
  snprintf(summary, sizeof summary, "%zu of %zu versions could not be read (each reported above)", o.failed,
           o.failed + o.printed);
  lfa_cli_fail("dump", a->dataset, summary);
  return LFA_EXIT_FINDINGS;
}

int lfa_cli_dump(int argc, char **argv) {
  dump_args a;
  if (!parse_args(&a, argc, argv)) return LFA_EXIT_UNUSABLE;
  lfa_error err = {0};
  lfa_version_list versions;
  lfa_names names;
  lfa_cli_dataset store;
  if (!lfa_cli_dataset_open(&store, "dump", a.dataset, a.allow_http, a.stats)) return LFA_EXIT_UNUSABLE;
  int code = LFA_EXIT_UNUSABLE;
  if (lfa_dataset_versions(&versions, &names, store.d.fs, a.dataset, &err) != LFA_OK) {
    lfa_cli_fail("dump", a.dataset, err.msg);
  } else {
    code = dump_versions(&a, &store, &versions);
    lfa_version_list_free(&versions);
    lfa_fs_names_free(&names);
  }
  lfa_cli_dataset_close(&store);
  return code;
}
