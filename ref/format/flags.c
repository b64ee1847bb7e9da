/* flags.c: see lfa/flags.h. */
#include "lfa/flags.h"

#include <stddef.h>
#include <string.h>

#include "lfa/lance_releases.h"

const char *lfa_flag_name(uint64_t bit, bool has_descriptors) {
  if (bit == LFA_FLAG_FIELD_ASSIGNMENT) return "field_assignment";
  if (bit == LFA_FLAG_FIELD_ASSIGNMENT_PREVIOUS && has_descriptors) return "field_assignment_previous";
  if (bit == LFA_LANCE_FLAG_MIXED_DATA_FILE_VERSIONS) /* [FA-LANCE-21] the descriptors decide */
    return has_descriptors ? "field_assignment_draft" : "mixed_data_file_versions";
  const lfa_lance_bit *b = lfa_lance_bit_find(bit); /* the release registry, 02§7 */
  return b != NULL ? b->key : NULL;
}

bool lfa_flags_mixed_data_file_versions(uint64_t reader_flags, uint64_t writer_flags,
                                        bool has_descriptors) {
  uint64_t both = reader_flags & writer_flags;
  return !has_descriptors && (both & LFA_LANCE_FLAG_MIXED_DATA_FILE_VERSIONS) != 0;
}

bool lfa_writer_is_lance_from(const char *library, size_t library_len, const char *version, size_t version_len,
                              unsigned major) {
  if (library == NULL || version == NULL || library_len != 5 || memcmp(library, "lance", 5) != 0) return false;
  uint64_t v = 0;
  size_t i = 0;
  for (; i < version_len && i < 9 && version[i] >= '0' && version[i] <= '9'; i++) v = v * 10 + (uint64_t)(version[i] - '0');
  return i > 0 && v >= major;
}

/* [FA-FLAG-7] 2^52 first: a manifest it marks is read by the current
 * layout whatever else it has. The earlier layouts put state in field 22,
 * Lance 13's fragment tree: never under a writer that defines it, nor
 * beside the tree's bit. */
lfa_layout lfa_layout_of(uint64_t reader_flags, uint64_t writer_flags, bool lance13) {
  uint64_t any = reader_flags | writer_flags;
  if (any & LFA_FLAG_FIELD_ASSIGNMENT) return LFA_LAYOUT_CURRENT;
  if (lance13 || (any & LFA_LANCE_FLAG_FRAGMENT_TREE)) return LFA_LAYOUT_NONE;
  if (any & LFA_FLAG_FIELD_ASSIGNMENT_PREVIOUS) return LFA_LAYOUT_PREVIOUS;
  if (writer_flags & LFA_FLAG_FIELD_ASSIGNMENT_DRAFT) return LFA_LAYOUT_DRAFT;
  return LFA_LAYOUT_NONE;
}

uint64_t lfa_layout_marker(lfa_layout layout) {
  return layout == LFA_LAYOUT_CURRENT    ? LFA_FLAG_FIELD_ASSIGNMENT
         : layout == LFA_LAYOUT_PREVIOUS ? LFA_FLAG_FIELD_ASSIGNMENT_PREVIOUS
         : layout == LFA_LAYOUT_DRAFT    ? LFA_FLAG_FIELD_ASSIGNMENT_DRAFT
                                         : 0;
}

const char *lfa_layout_name(lfa_layout layout) {
  return layout == LFA_LAYOUT_CURRENT    ? "field assignment (manifest field 1022, transaction field 1005, bit 2^52)"
         : layout == LFA_LAYOUT_PREVIOUS ? "lfa's previous layout (manifest field 22, transaction field 5, bit 65536)"
         : layout == LFA_LAYOUT_DRAFT    ? "the upstream draft's layout (manifest field 22, transaction field 5, writer bit 256)"
                                         : "no field assignment layout";
}
