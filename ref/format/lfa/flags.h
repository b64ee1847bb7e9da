/* flags.h: the manifest feature bits released Lance defines (02§7).
 *
 * A reader interprets a bit as the release that allocated it does
 * [FA-LANCE-21]. Measured by opening and appending to a table whose
 * manifest carries each bit (the real-Lance lane, interop/probe_flags.mjs,
 * which holds the table of 02§7 to both releases at every test run):
 *
 *   bit  name                        Lance 8.0.0   Lance 12.0.0
 *   1    deletion files              known         known
 *   2    stable row ids              known         known
 *   4    v2 format (deprecated)      known         known
 *   8    table config (writer only)  known         known
 *   16   base paths                  known         known
 *   32   no transaction file         known         known
 *   64   data overlay files          unknown       defined, refused by
 *                                                  release builds
 *   128  covered index metadata      unknown       known
 *   256  mixed data-file versions    unknown       known; paired: one word
 *                                                  alone is corrupt
 *   512  and above                   unknown       unknown
 *
 * Field assignment marks its manifests with descriptors (field 22) and bit
 * 65536 (1 << 16) [FA-FLAG-1], a bit no release allocates and far from
 * where Lance allocates next (Lance 13 betas take 512 and 1024). The
 * upstream draft used bit 256 in the writer word, before Lance 12 spent it:
 * a manifest's descriptors decide what its bit 256 means [FA-LANCE-21]
 * [FA-FLAG-7].
 */
#ifndef LFA_FLAGS_H
#define LFA_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

#define LFA_LANCE_FLAG_DELETION_FILES 1u
#define LFA_LANCE_FLAG_STABLE_ROW_IDS 2u
#define LFA_LANCE_FLAG_BASE_PATHS 16u
#define LFA_LANCE_FLAG_DATA_OVERLAYS 64u
#define LFA_LANCE_FLAG_MIXED_DATA_FILE_VERSIONS 256u /* Lance 12, both words */

/* Feature bit of Field Assignment, writer word [FA-FLAG-1] and reader word
 * [FA-FLAG-2]. */
#define LFA_FLAG_FIELD_ASSIGNMENT 65536u

/* The upstream draft's marker: bit 256 in the writer word, with
 * descriptors (read as that layout, with a warning: FA-FLAG-7). */
#define LFA_FLAG_FIELD_ASSIGNMENT_DRAFT 256u

/* The first bit no release of Lance (up to 12.0.0) allocates. */
#define LFA_LANCE_FLAG_FIRST_UNALLOCATED 512u

/* The name of `bit` (one bit) in a manifest that has, or has not, field
 * assignment descriptors: 65536 is "field_assignment"; 256 is
 * "field_assignment_draft" with descriptors and "mixed_data_file_versions"
 * (Lance 12) without; NULL for a bit nobody allocates. */
const char *lfa_flag_name(uint64_t bit, bool has_descriptors);

/* True when the manifest's bit 256, in both words and with no descriptor,
 * is Lance 12's mixed data-file versions rather than field assignment's. */
bool lfa_flags_mixed_data_file_versions(uint64_t reader_flags, uint64_t writer_flags,
                                        bool has_descriptors);

#endif
