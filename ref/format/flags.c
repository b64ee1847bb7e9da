/* flags.c: see lfa/flags.h. */
#include "lfa/flags.h"

#include <stddef.h>

static const struct {
  uint64_t bit;
  const char *name;
} LANCE_FLAGS[] = {
    {1, "deletion_files"}, {2, "stable_row_ids"},       {4, "v2_format_deprecated"},
    {8, "table_config"},   {16, "base_paths"},          {32, "no_transaction_file"},
    {64, "data_overlays"}, {128, "covered_index_metadata"},
};

const char *lfa_flag_name(uint64_t bit, bool has_descriptors) {
  if (bit == LFA_FLAG_FIELD_ASSIGNMENT) return "field_assignment";
  if (bit == LFA_LANCE_FLAG_MIXED_DATA_FILE_VERSIONS) /* [FA-LANCE-21] the descriptors decide */
    return has_descriptors ? "field_assignment_draft" : "mixed_data_file_versions";
  for (size_t i = 0; i < sizeof LANCE_FLAGS / sizeof LANCE_FLAGS[0]; i++)
    if (LANCE_FLAGS[i].bit == bit) return LANCE_FLAGS[i].name;
  return NULL;
}

bool lfa_flags_mixed_data_file_versions(uint64_t reader_flags, uint64_t writer_flags,
                                        bool has_descriptors) {
  uint64_t both = reader_flags & writer_flags;
  return !has_descriptors && (both & LFA_LANCE_FLAG_MIXED_DATA_FILE_VERSIONS) != 0;
}
