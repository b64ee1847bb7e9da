/* flags.c: see lfa/flags.h. */
#include "lfa/flags.h"

#include <stddef.h>

#include "lfa/lance_releases.h"

const char *lfa_flag_name(uint64_t bit, bool has_descriptors) {
  if (bit == LFA_FLAG_FIELD_ASSIGNMENT) return "field_assignment";
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
