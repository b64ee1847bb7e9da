/* unchecked.c: what a newer Lance changed that lfa cannot check from
 * metadata alone [FA-VERIFY-8] (10§2).
 *
 * Each entry is a feature of a release after the two lfa is measured
 * against (8.0.0 and 12.0.0), from upstream's published sources, since no
 * release from 13 on installs here. spec/lance-releases.json records each
 * number with its source and whether a release's own source confirms it
 * (02§7.1): the bits from lance-table's feature_flags.rs (docs.rs 13.0.0,
 * 14.0.2), manifest field 22 (fragment_tree) and the Transaction arm 116
 * (composite_operation) from upstream revisions only, and bit 2048, which
 * upstream revisions give to several features, as 13.0.0's pages do. Since
 * each is reported as not checked, a number that turns out to mean another
 * feature names the wrong feature but never passes or fails a version on
 * it. A version that uses one is
 * reported as not checked for it, naming the feature and its release,
 * and everything else is still checked. The list is deliberately small
 * and local: the release registry may later supply the release names.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "lfa/flags.h"
#include "lfa/pb_types.h"

/* The newest release whose format lfa knows (its features below included). */
static const unsigned NEWEST_KNOWN_MAJOR = 15;
static const char NEWEST_KNOWN[] = "15.0.0";

typedef struct unchecked_bit {
  uint64_t bit;
  const char *feature, *release, *why;
} unchecked_bit;

static const unchecked_bit BITS[] = {
    {512, "fragment reuse with stable row ids", "13.0.0", "how a reused fragment keeps its row ids"},
    {1024, "the fragment reuse index", "13.0.0", "the row addresses it remaps (index __lance_frag_reuse)"},
    {2048, "spilled row lineage", "14.0.0",
     "row ids and row versions kept as hidden data-file columns, which lfa never reads"},
    {4096, "fragment trees", "13.0.0", "the fragments of a tree table (manifest field 22), which lfa does not walk"},
    {8192, "independent covering fields", "13.0.0", "covering fields that are no suffix of the schema"},
    {16384, "managed blobs", "14.0.0", "blob storage the manifest points at"},
};

/* Every bit some release lfa knows defines, in either word: Lance's up to
 * 256, the features above, field assignment's marker, and 65536 where
 * lfa's previous layout makes it field assignment's. */
static uint64_t known_bits(const Manifest *m) {
  uint64_t known = 0x1FFu | LFA_FLAG_FIELD_ASSIGNMENT;
  for (size_t i = 0; i < sizeof BITS / sizeof BITS[0]; i++) known |= BITS[i].bit;
  if (lfa_manifest_layout(m) == LFA_LAYOUT_PREVIOUS) known |= LFA_FLAG_FIELD_ASSIGNMENT_PREVIOUS;
  return known;
}

static void not_checked(const vf_ctx *c, const vf_version *v, const char *writer, const char *what,
                        const char *release, const char *why) {
  lfa_where w = {.version = v->version, .file = v->manifest_path};
  lfa_findings_add(c->findings, &w, "FA-VERIFY-8", LFA_SEVERITY_INFO,
                   "not checked: %s (Lance %s): %s; the rest of the version is checked (%s)", what, release, why,
                   writer);
}

static bool has_unknown(const ProtobufCMessage *m, uint32_t field) {
  for (unsigned i = 0; i < m->n_unknown_fields; i++)
    if (m->unknown_fields[i].tag == field) return true;
  return false;
}

void vf_check_unchecked(const vf_ctx *c, const vf_version *v, const Manifest *m,
                        const Lance__Table__IndexSection *indices) {
  char writer[160];
  vf_writer_of(writer, sizeof writer, m);
  uint64_t words = m->reader_feature_flags | m->writer_feature_flags;
  for (size_t i = 0; i < sizeof BITS / sizeof BITS[0]; i++)
    if (words & BITS[i].bit) not_checked(c, v, writer, BITS[i].feature, BITS[i].release, BITS[i].why);
  bool tree_field = lfa_manifest_writer_is_lance_from(m, LFA_LANCE_MAJOR_FIELD_22) &&
                    has_unknown(&m->base, LFA_MANIFEST_FIELD_DESCRIPTORS_BEFORE);
  if (tree_field && !(words & LFA_LANCE_FLAG_FRAGMENT_TREE))
    not_checked(c, v, writer, "fragment trees", "13.0.0",
                "manifest field 22 is this writer's fragment tree, whose fragments lfa does not walk");
  for (size_t i = 0; indices != NULL && i < indices->n_indices; i++)
    if (indices->indices[i]->name != NULL && strcmp(indices->indices[i]->name, "__lance_frag_reuse") == 0 &&
        !(words & 1024)) /* the bit said it already */
      not_checked(c, v, writer, "the fragment reuse index", "13.0.0",
                  "the row addresses index __lance_frag_reuse remaps");
  uint64_t unknown = words & ~known_bits(m);
  if (unknown != 0) {
    char what[96], release[32];
    snprintf(what, sizeof what, "feature bits 0x%" PRIx64 ", which no release up to %s defines", unknown, NEWEST_KNOWN);
    snprintf(release, sizeof release, "after %s", NEWEST_KNOWN);
    not_checked(c, v, writer, what, release, "the features they mark");
  }
  const Lance__Table__Manifest__WriterVersion *wv = m->writer_version;
  if (lfa_manifest_writer_is_lance_from(m, NEWEST_KNOWN_MAJOR + 1)) {
    char what[160];
    snprintf(what, sizeof what, "what Lance %s changed after %s", wv->version, NEWEST_KNOWN);
    not_checked(c, v, writer, what, wv->version, "the version is checked for what the releases lfa knows define");
  }
}

void vf_check_unchecked_transaction(const vf_ctx *c, const vf_version *v, const Manifest *m,
                                    const Lance__Table__Transaction *t) {
  enum { COMPOSITE_OPERATION = 116 }; /* Transaction V2's arm, lance.transaction.rs of 15.0.0 */
  if (t == NULL || !has_unknown(&t->base, COMPOSITE_OPERATION)) return;
  char writer[160];
  vf_writer_of(writer, sizeof writer, m);
  not_checked(c, v, writer, "a Transaction V2 composite operation (transaction field 116)", "15.0.0",
              "its actions are not replayed, so the commit's transition rules are not applied");
}

void vf_check_unread_row_ids(const vf_ctx *c, const vf_version *v) {
  /* Lance 14's spilled row lineage keeps a fragment's row ids in its data
   * files: the loader counted the fragments whose ids are so not in
   * metadata (lfa_snapshot_row_ids_read). Their ids are not checked for
   * FA-LANCE-14, and the version has no table, so its commit's transition
   * rules are not applied either (FA-VERIFY-5); every other rule is. */
  const lfa_snapshot *s = &v->snap;
  if (s->row_ids_unread == 0) return;
  size_t first = 0;
  while (lfa_snapshot_row_ids_read(s, first)) first++; /* one exists: row_ids_unread > 0 */
  char writer[160], what[160];
  vf_writer_of(writer, sizeof writer, s->file.manifest);
  snprintf(what, sizeof what, "the row ids of %zu fragments (fragment %" PRIu64 " first), spilled row lineage",
           s->row_ids_unread, s->file.manifest->fragments[first]->id);
  not_checked(c, v, writer, what, "14.0.0",
              "they are hidden data-file columns, so FA-LANCE-14 over them and the commit's transition rules "
              "are not applied");
}
