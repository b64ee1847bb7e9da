/* mix_versions.c: builds a Lance 12 table with mixed data-file versions,
 * by the rules Lance 12 states, from two tables Lance 12 wrote.
 *
 *   mix_versions TABLE_A TABLE_B
 *
 * TABLE_A and TABLE_B are tables of the same schema (field ids included),
 * address row ids, V2 manifest names, written with different data storage
 * versions (say 2.0 and 2.1). The Node API cannot make such a table: it sets
 * the storage version once, when a table is created. Lance 12's rules for it
 * (its error messages and DataStorageFormat's documentation): bit 256 set
 * in both feature words; the manifest's data_format is the default for new
 * files and must be a V2 version; each data file's own version decides how
 * it is decoded. So this writes version n + 1 of TABLE_A: A's newest
 * manifest plus B's newest fragments (renumbered after A's, their data files
 * copied into A's data/), data_format set to B's, bit 256 in both words, and
 * an Append transaction inline. Lance 12 then opens, scans and mutates the
 * table (interop/generate.mjs), and what it says is what the lane checks.
 * A test tool: it trusts its two inputs and exits 1 on any error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/dataset.h"
#include "lfa/edit.h"
#include "lfa/flags.h"

/* The largest data file copied: the tables of the lane are small. */
#define MIX_DATA_FILE_BYTES_MAX (256u << 20)

static void die(const char *what, const char *detail) {
  fprintf(stderr, "mix_versions: %s: %s\n", what, detail);
  exit(1);
}

/* The newest manifest of `dir`, opened for editing (lfa/edit.h); its version in *version. */
static void newest(lfa_edit *out, const char *dir, uint64_t *version) {
  lfa_error err = {0};
  lfa_version_list versions;
  lfa_names names;
  if (lfa_dataset_versions(&versions, &names, NULL, dir, &err) != LFA_OK) die(dir, err.msg);
  if (versions.count == 0 || versions.naming != LFA_NAMING_V2) die(dir, "no versions, or not V2 names");
  const lfa_version_entry *e = &versions.entries[versions.count - 1];
  char rel[LFA_PATH_BYTES_MAX];
  snprintf(rel, sizeof rel, "_versions/%s", e->name);
  if (lfa_edit_open_file(out, NULL, dir, rel, &err) != LFA_OK) die(dir, err.msg);
  *version = e->version;
  lfa_version_list_free(&versions);
  lfa_fs_names_free(&names);
}

/* data/`rel` of from_dir copied to to_dir, never over an existing file. */
static void copy_data_file(const char *from_dir, const char *to_dir, const char *rel) {
  char data_rel[LFA_PATH_BYTES_MAX], dst[LFA_PATH_BYTES_MAX];
  lfa_buf b = {0};
  lfa_error err = {0};
  snprintf(data_rel, sizeof data_rel, "data/%s", rel);
  snprintf(dst, sizeof dst, "%s/data/%s", to_dir, rel);
  if (lfa_edit_read(&b, NULL, from_dir, data_rel, MIX_DATA_FILE_BYTES_MAX, &err) != LFA_OK) die(from_dir, err.msg);
  if (lfa_fs_write_new(dst, b.data, b.len, &err) != LFA_OK) die(dst, err.msg);
  lfa_buf_free(&b);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: mix_versions TABLE_A TABLE_B\n");
    return 2;
  }
  const char *a_dir = argv[1], *b_dir = argv[2];
  uint64_t n, b_version;
  lfa_edit a, b;
  newest(&a, a_dir, &n);
  newest(&b, b_dir, &b_version);
  Lance__Table__Manifest *m = a.file.manifest, *bm = b.file.manifest;
  if (m->_index_section_case != LANCE__TABLE__MANIFEST___INDEX_SECTION__NOT_SET || a.file.index_section != NULL)
    die(a_dir, "has indices; use a table without");
  if (bm->data_format == NULL || m->data_format == NULL) die(b_dir, "no data_format");

  /* A's fragments, then B's renumbered after A's highest id. */
  size_t total = m->n_fragments + bm->n_fragments;
  Lance__Table__DataFragment **frags = calloc(total, sizeof *frags);
  uint64_t next_id = m->max_fragment_id + 1;
  memcpy(frags, m->fragments, m->n_fragments * sizeof *frags);
  for (size_t i = 0; i < bm->n_fragments; i++) {
    Lance__Table__DataFragment *f = bm->fragments[i];
    if (f->deletion_file != NULL) die(b_dir, "has deletion files; use a table without");
    f->id = next_id++;
    for (size_t k = 0; k < f->n_files; k++) copy_data_file(b_dir, a_dir, f->files[k]->path);
    frags[m->n_fragments + i] = f;
  }
  Lance__Table__DataFragment **a_frags = m->fragments;
  size_t a_count = m->n_fragments;
  m->fragments = frags;
  m->n_fragments = total;
  m->max_fragment_id = (uint32_t)(next_id - 1);
  m->_max_fragment_id_case = LANCE__TABLE__MANIFEST___MAX_FRAGMENT_ID_MAX_FRAGMENT_ID;
  m->version = n + 1;
  Lance__Table__Manifest__DataStorageFormat *a_format = m->data_format;
  m->data_format = bm->data_format; /* the newer default, a V2 version */
  m->reader_feature_flags |= LFA_LANCE_FLAG_MIXED_DATA_FILE_VERSIONS;
  m->writer_feature_flags |= LFA_LANCE_FLAG_MIXED_DATA_FILE_VERSIONS;
  if (m->transaction_file != NULL && m->transaction_file[0] != '\0') m->transaction_file[0] = '\0'; /* inline only */

  Lance__Table__Transaction__Append append = LANCE__TABLE__TRANSACTION__APPEND__INIT;
  append.n_fragments = bm->n_fragments;
  append.fragments = frags + a_count;
  Lance__Table__Transaction txn = LANCE__TABLE__TRANSACTION__INIT;
  txn.read_version = n;
  txn.uuid = "00000000-0000-4000-8000-6d69782d7665";
  txn.operation_case = LANCE__TABLE__TRANSACTION__OPERATION_APPEND;
  txn.append = &append;

  lfa_error err = {0};
  char rel[64];
  Lance__Table__Transaction *a_txn = a.file.transaction;
  a.file.transaction = &txn;
  snprintf(rel, sizeof rel, "_versions/%020" PRIu64 ".manifest", UINT64_MAX - (n + 1));
  if (lfa_edit_save_as(&a, rel, &err) != LFA_OK) die(a_dir, err.msg); /* create-only */
  a.file.transaction = a_txn;
  printf("version %" PRIu64 " of %s: %zu + %zu fragments, data_format %s, flags %" PRIu64 "/%" PRIu64 "\n",
         n + 1, a_dir, a_count, bm->n_fragments, m->data_format->version, m->reader_feature_flags,
         m->writer_feature_flags);
  m->fragments = a_frags; /* give each manifest back what it owns */
  m->n_fragments = a_count;
  m->data_format = a_format;
  free(frags);
  lfa_edit_close(&a);
  lfa_edit_close(&b);
  return 0;
}
