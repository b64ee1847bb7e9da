/* dump.c: `lfa dump`, every version of a dataset as people and programs
 * read it. The JSON shape is documented in README.md ("lfa dump --json")
 * and only ever grows: keys are never renamed or removed. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "json.h"
#include "lfa/dataset.h"
#include "lfa/escape.h"
#include "lfa/transaction.h"

static const char HELP[] =
    "usage: lfa dump DATASET [--version N] [--json]\n"
    "\n"
    "Decodes every version of the Lance dataset at DATASET (or only version N)\n"
    "and prints, per version: the operation of its transaction, the reader and\n"
    "writer feature flags, the schema (field id, parent id, name), the\n"
    "fragments (id, physical rows, deleted and live rows, data files with their\n"
    "field ids) and, for every tracked field, the assignment state of each\n"
    "fragment: all rows, or a partial bitmap with its count. Fragments a\n"
    "tracked field does not list have no assigned row.\n"
    "\n"
    "lfa reads metadata only (manifests, transactions, deletion files and\n"
    "_field_assignments/ objects), never .lance data files. Every rule an\n"
    "upstream reader applies while loading is applied here too: a version that\n"
    "breaks one is unusable input.\n"
    "\n"
    "  --version N   only version N\n"
    "  --json        one JSON document: {\"dataset\", \"naming\", \"versions\": [...]}\n"
    "                (shape documented in README.md)\n"
    "\n"
    "Exit status: 0 success; 2 unusable input or bad usage, with a one-line\n"
    "reason naming the version, file, field and fragment.\n";

static const struct {
  uint64_t bit;
  const char *name;
} FLAGS[] = {{1, "deletion_files"},       {2, "stable_row_ids"},     {4, "v2_format_deprecated"},
             {8, "table_config"},         {16, "base_paths"},        {32, "no_transaction_file"},
             {64, "data_overlays"},       {128, "mem_wal_catchup"},  {256, "field_assignment"}};

static void print_flags(FILE *out, uint64_t flags) {
  fprintf(out, "%" PRIu64, flags);
  const char *sep = " (";
  for (size_t i = 0; i < sizeof FLAGS / sizeof FLAGS[0]; i++)
    if (flags & FLAGS[i].bit) {
      fprintf(out, "%s%s", sep, FLAGS[i].name);
      sep = ", ";
    }
  if (flags >> 9) fprintf(out, "%sunknown bits %" PRIu64, sep, flags >> 9 << 9), sep = ", ";
  if (sep[0] == ',') fputc(')', out);
}

static uint64_t deleted_rows(const lfa_snapshot *s, size_t i) {
  return s->deleted[i] ? roaring_bitmap_get_cardinality(s->deleted[i]) : 0;
}

static uint64_t assigned_rows(const lfa_snapshot *s, const lfa_fragment_assignment *a) {
  if (!a->all) return roaring_bitmap_get_cardinality(a->rows);
  size_t i = lfa_snapshot_fragment(s, a->fragment_id);
  return s->file.manifest->fragments[i]->physical_rows;
}

static const char *field_name(const lfa_snapshot *s, int32_t id) {
  const Lance__File__Field *f = lfa_snapshot_field(s, id);
  return f ? f->name : "?";
}

/* ---- human output ----------------------------------------------------------- */

static void text_fragments(FILE *out, const lfa_snapshot *s) {
  const Lance__Table__Manifest *m = s->file.manifest;
  fprintf(out, "  fragments: %zu\n", m->n_fragments);
  for (size_t i = 0; i < m->n_fragments; i++) {
    const Lance__Table__DataFragment *f = m->fragments[i];
    if (f->physical_rows == 0) /* written by Lance before physical_rows existed */
      fprintf(out, "    %" PRIu64 ": physical_rows unknown, deleted %" PRIu64 "\n", f->id, deleted_rows(s, i));
    else
      fprintf(out, "    %" PRIu64 ": physical_rows %" PRIu64 ", deleted %" PRIu64 ", live %" PRIu64 "\n", f->id,
              f->physical_rows, deleted_rows(s, i), lfa_snapshot_live_rows(s, i));
    for (size_t k = 0; k < f->n_files; k++) {
      fputs("      ", out), lfa_put_text(out, f->files[k]->path), fputs("  fields [", out);
      for (size_t j = 0; j < f->files[k]->n_fields; j++)
        fprintf(out, "%s%d", j ? "," : "", f->files[k]->fields[j]);
      fputs("]\n", out);
    }
    for (size_t k = 0; k < f->n_overlays; k++) { /* spec §14: coverage, never assignment state */
      const Lance__Table__DataOverlayFile *o = f->overlays[k];
      fputs("      overlay ", out), lfa_put_text(out, o->data_file ? o->data_file->path : "?"), fputs("  fields [", out);
      for (size_t j = 0; o->data_file != NULL && j < o->data_file->n_fields; j++)
        fprintf(out, "%s%d", j ? "," : "", o->data_file->fields[j]);
      fprintf(out, "]  committed_version %" PRIu64 "\n", o->committed_version);
    }
  }
}

static void text_tracked(FILE *out, const lfa_snapshot *s) {
  fprintf(out, "  tracked fields: %zu\n", s->n_tracked);
  for (size_t t = 0; t < s->n_tracked; t++) {
    const lfa_tracked_field *tf = &s->tracked[t];
    fprintf(out, "    field %d (", tf->field_id), lfa_put_text(out, field_name(s, tf->field_id));
    fputs("): root ", out), lfa_put_text(out, tf->root_file->path);
    fprintf(out, ", %" PRIu64 " bytes%s\n", tf->root_file->size_bytes, tf->count == 0 ? ", no row assigned" : "");
    for (size_t k = 0; k < tf->count; k++) {
      const lfa_fragment_assignment *a = &tf->fragments[k];
      size_t i = lfa_snapshot_fragment(s, a->fragment_id);
      fprintf(out, "      fragment %" PRIu64 ": %s %" PRIu64 " of %" PRIu64 "\n", a->fragment_id,
              a->all ? "all" : "partial", assigned_rows(s, a), s->file.manifest->fragments[i]->physical_rows);
    }
  }
}

static void text_version(FILE *out, const lfa_snapshot *s) {
  const Lance__Table__Manifest *m = s->file.manifest;
  fprintf(out, "version %" PRIu64 ": %s\n", s->version,
          s->transaction ? lfa_transaction_operation_name(s->transaction) : "(no transaction)");
  fputs("  reader flags ", out);
  print_flags(out, m->reader_feature_flags);
  fputs(", writer flags ", out);
  print_flags(out, m->writer_feature_flags);
  fprintf(out, "\n  schema: %zu fields\n", m->n_fields);
  for (size_t i = 0; i < m->n_fields; i++)
    fprintf(out, "    %d ", m->fields[i]->id), lfa_put_text(out, m->fields[i]->name),
        fprintf(out, " (parent %d)\n", m->fields[i]->parent_id);
  text_fragments(out, s);
  text_tracked(out, s);
  fputc('\n', out);
}

/* ---- JSON output ------------------------------------------------------------- */

static void json_fragments(json_writer *w, const lfa_snapshot *s) {
  const Lance__Table__Manifest *m = s->file.manifest;
  json_open_array(w, "fragments");
  for (size_t i = 0; i < m->n_fragments; i++) {
    const Lance__Table__DataFragment *f = m->fragments[i];
    json_open_object(w, NULL);
    json_u64(w, "id", f->id);
    json_u64(w, "physical_rows", f->physical_rows);
    json_u64(w, "deleted_rows", deleted_rows(s, i));
    if (f->physical_rows == 0) json_null(w, "live_rows"); /* unknown */
    else json_u64(w, "live_rows", lfa_snapshot_live_rows(s, i));
    json_open_array(w, "files");
    for (size_t k = 0; k < f->n_files; k++) {
      json_open_object(w, NULL);
      json_string(w, "path", f->files[k]->path);
      json_open_array(w, "fields");
      for (size_t j = 0; j < f->files[k]->n_fields; j++) json_i64(w, NULL, f->files[k]->fields[j]);
      json_close_array(w);
      json_close_object(w);
    }
    json_close_array(w);
    json_close_object(w);
  }
  json_close_array(w);
}

static void json_tracked(json_writer *w, const lfa_snapshot *s) {
  json_open_array(w, "tracked");
  for (size_t t = 0; t < s->n_tracked; t++) {
    const lfa_tracked_field *tf = &s->tracked[t];
    json_open_object(w, NULL);
    json_i64(w, "field_id", tf->field_id);
    json_string(w, "name", field_name(s, tf->field_id));
    json_string(w, "root", tf->root_file->path);
    json_u64(w, "root_size_bytes", tf->root_file->size_bytes);
    json_open_array(w, "fragments");
    for (size_t k = 0; k < tf->count; k++) {
      json_open_object(w, NULL);
      json_u64(w, "id", tf->fragments[k].fragment_id);
      json_string(w, "state", tf->fragments[k].all ? "all" : "partial");
      json_u64(w, "assigned_rows", assigned_rows(s, &tf->fragments[k]));
      json_close_object(w);
    }
    json_close_array(w);
    json_close_object(w);
  }
  json_close_array(w);
}

static void json_version(json_writer *w, const lfa_snapshot *s) {
  const Lance__Table__Manifest *m = s->file.manifest;
  json_open_object(w, NULL);
  json_u64(w, "version", s->version);
  json_string(w, "operation", s->transaction ? lfa_transaction_operation_name(s->transaction) : NULL);
  json_u64(w, "reader_feature_flags", m->reader_feature_flags);
  json_u64(w, "writer_feature_flags", m->writer_feature_flags);
  json_open_array(w, "fields");
  for (size_t i = 0; i < m->n_fields; i++) {
    json_open_object(w, NULL);
    json_i64(w, "id", m->fields[i]->id);
    json_i64(w, "parent_id", m->fields[i]->parent_id);
    json_string(w, "name", m->fields[i]->name);
    json_close_object(w);
  }
  json_close_array(w);
  json_fragments(w, s);
  json_tracked(w, s);
  json_close_object(w);
}

/* ---- command ------------------------------------------------------------------- */

typedef struct dump_args {
  const char *dataset;
  int json;
  int has_version;
  uint64_t version;
} dump_args;

static int parse_args(dump_args *a, int argc, char **argv) {
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(HELP, stdout);
      exit(LFA_EXIT_OK);
    } else if (strcmp(argv[i], "--json") == 0 && !a->json) {
      a->json = 1;
    } else if (strcmp(argv[i], "--version") == 0 && i + 1 < argc && !a->has_version &&
               lfa_cli_value_ok(argv[i + 1], false)) {
      if (!lfa_cli_u64(&a->version, "dump", argv[i], argv[i + 1], 0, UINT64_MAX)) return 0;
      a->has_version = 1, i++;
    } else if (argv[i][0] != '-' && a->dataset == NULL) {
      a->dataset = argv[i];
    } else {
      fprintf(stderr, "lfa dump: unexpected argument '%s'\n%s", argv[i], HELP);
      return 0;
    }
  }
  if (a->dataset == NULL) fprintf(stderr, "lfa dump: missing DATASET\n%s", HELP);
  return a->dataset != NULL;
}

static void print_versions(const dump_args *a, const lfa_version_list *versions, const lfa_snapshot *snaps,
                           size_t n) {
  if (!a->json) {
    fputs("dataset ", stdout), lfa_put_text(stdout, a->dataset); /* names are shown escaped: any bytes */
    printf(": %zu versions, %s names (metadata only: .lance data files are never read)\n\n", versions->count,
           versions->naming == LFA_NAMING_V2 ? "V2" : "V1");
    for (size_t i = 0; i < n; i++) text_version(stdout, &snaps[i]);
    return;
  }
  json_writer w = {stdout, 0, {false}};
  json_open_object(&w, NULL);
  json_string(&w, "dataset", a->dataset);
  json_string(&w, "naming", versions->naming == LFA_NAMING_V2 ? "v2" : "v1");
  json_open_array(&w, "versions");
  for (size_t i = 0; i < n; i++) json_version(&w, &snaps[i]);
  json_close_array(&w);
  json_close_object(&w);
  json_finish(&w);
}

/* Every version is decoded before anything is printed, so unusable input
 * never leaves half a document behind. */
static lfa_status dump_versions(const dump_args *a, const lfa_version_list *versions, lfa_error *err) {
  size_t n = versions->count, loaded = 0;
  lfa_snapshot *snaps = calloc(n ? n : 1, sizeof *snaps);
  lfa_status st = snaps ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; st == LFA_OK && i < n; i++) {
    if (a->has_version && versions->entries[i].version != a->version) continue;
    st = lfa_snapshot_load(&snaps[loaded], a->dataset, &versions->entries[i], err);
    if (st != LFA_OK) lfa_error_prefix(err, "version %" PRIu64, versions->entries[i].version);
    else loaded++;
  }
  if (st == LFA_OK && a->has_version && loaded == 0)
    st = lfa_fail(err, LFA_ERR_USAGE, NULL, "version %" PRIu64 " does not exist", a->version);
  if (st == LFA_OK) print_versions(a, versions, snaps, loaded);
  for (size_t i = 0; i < loaded; i++) lfa_snapshot_free(&snaps[i]);
  free(snaps);
  return st;
}

int lfa_cli_dump(int argc, char **argv) {
  dump_args a;
  if (!parse_args(&a, argc, argv)) return LFA_EXIT_UNUSABLE;
  lfa_error err = {0};
  lfa_version_list versions;
  lfa_names names;
  lfa_status st = lfa_dataset_versions(&versions, &names, a.dataset, &err);
  if (st == LFA_OK) {
    st = dump_versions(&a, &versions, &err);
    lfa_version_list_free(&versions);
    lfa_fs_names_free(&names);
  }
  if (st != LFA_OK) {
    lfa_cli_fail("dump", a.dataset, err.msg);
    return LFA_EXIT_UNUSABLE;
  }
  return LFA_EXIT_OK;
}
