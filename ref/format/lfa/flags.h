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
 * Releases 13 to 15 (none installs here; from upstream's published
 * lance-table feature_flags.rs, docs.rs 13.0.0 and 14.0.2, and its
 * versioning document) allocate 512 (fragment reuse with stable row ids),
 * 1024 (fragment reuse index), 2048 (spilled row lineage, unstable), 4096
 * (fragment tree, with manifest field 22), 8192 (independent covering
 * fields) and 16384 (managed blobs); every bit from 2^15 up is unknown.
 *
 * Field assignment marks its manifests with descriptors (field 1022) and
 * bit 2^52 [FA-FLAG-1]: six bits in six weeks (12.0.0 on 2026-09-17 to
 * 14.x late in October) is Lance's fastest pace, and at that pace bit 52
 * is more than six years off (03§1). Two earlier layouts are still read
 * [FA-FLAG-7]: lfa's previous one (field 22, bit 65536) and the upstream
 * draft's (field 22, writer bit 256, before Lance 12 spent it), and only
 * where field 22 cannot be Lance's own (a writer before Lance 13, no
 * fragment tree bit): lfa_layout_of.
 */
#ifndef LFA_FLAGS_H
#define LFA_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LFA_LANCE_FLAG_DELETION_FILES 1u
#define LFA_LANCE_FLAG_STABLE_ROW_IDS 2u
#define LFA_LANCE_FLAG_BASE_PATHS 16u
#define LFA_LANCE_FLAG_DATA_OVERLAYS 64u
#define LFA_LANCE_FLAG_MIXED_DATA_FILE_VERSIONS 256u /* Lance 12, both words */
#define LFA_LANCE_FLAG_SPILLED_ROW_LINEAGE 2048u      /* Lance 14: row ids in data files */
#define LFA_LANCE_FLAG_FRAGMENT_TREE 4096u            /* Lance 13, both words */

/* Feature bit of Field Assignment, writer word [FA-FLAG-1] and reader word
 * [FA-FLAG-2]. */
#define LFA_FLAG_FIELD_ASSIGNMENT ((uint64_t)1 << 52)

/* lfa's previous marker: bit 65536 in both words, descriptors in manifest
 * field 22 and the sidecar in transaction field 5 (read with a warning:
 * FA-FLAG-7). */
#define LFA_FLAG_FIELD_ASSIGNMENT_PREVIOUS 65536u

/* The upstream draft's marker: bit 256 in the writer word, with
 * descriptors (read as that layout, with a warning: FA-FLAG-7). */
#define LFA_FLAG_FIELD_ASSIGNMENT_DRAFT 256u

/* The first bit no release of Lance (up to 12.0.0) allocates. */
#define LFA_LANCE_FLAG_FIRST_UNALLOCATED 512u

/* Field numbers of field assignment's state (01§2, 04§1): now, and in the
 * two earlier layouts. */
#define LFA_MANIFEST_FIELD_DESCRIPTORS 1022u
#define LFA_TRANSACTION_FIELD_SIDECAR 1005u
#define LFA_MANIFEST_FIELD_DESCRIPTORS_BEFORE 22u
#define LFA_TRANSACTION_FIELD_SIDECAR_BEFORE 5u

/* Where a manifest keeps its field assignment state [FA-FLAG-7]. */
typedef enum lfa_layout {
  LFA_LAYOUT_NONE,     /* no state: fields 22 and 1022 are not field assignment's */
  LFA_LAYOUT_CURRENT,  /* bit 2^52: descriptors in field 1022, sidecar in 1005 */
  LFA_LAYOUT_PREVIOUS, /* lfa's previous layout: bit 65536, fields 22 and 5 */
  LFA_LAYOUT_DRAFT     /* the upstream draft's: writer bit 256, fields 22 and 5 */
} lfa_layout;

/* The first Lance release whose manifest field 22 is its own (the fragment
 * tree, lance-table 13.0.0). */
#define LFA_LANCE_MAJOR_FIELD_22 13u

/* True when writer_version (library, version "major.minor.patch") is
 * Lance at `major` or later: library "lance" (the Rust crate every Lance
 * binding embeds) and a leading number >= major. */
bool lfa_writer_is_lance_from(const char *library, size_t library_len, const char *version, size_t version_len,
                              unsigned major);

/* The layout the feature words and writer select [FA-FLAG-7]: bit 2^52 in
 * either word, the current one; otherwise, only where field 22 cannot be
 * the writer's own (`lance13` false: not Lance >= 13), bit 65536 in either
 * word lfa's previous layout, and writer bit 256 without bit 4096 the
 * upstream draft's. It says where state would be, not that there is any:
 * a manifest's layout (lfa_manifest_layout) also needs descriptors for the
 * two earlier ones. */
lfa_layout lfa_layout_of(uint64_t reader_flags, uint64_t writer_flags, bool lance13);

/* The marker bit of a layout (0 for none) and its name in findings. */
uint64_t lfa_layout_marker(lfa_layout layout);
const char *lfa_layout_name(lfa_layout layout);

/* The name of `bit` (one bit) in a manifest that has, or has not, field
 * assignment descriptors: 2^52 is "field_assignment"; 65536
 * "field_assignment_previous" with descriptors; 256 is
 * "field_assignment_draft" with descriptors and "mixed_data_file_versions"
 * (Lance 12) without; NULL for a bit nobody allocates. */
const char *lfa_flag_name(uint64_t bit, bool has_descriptors);

/* True when the manifest's bit 256, in both words and with no descriptor,
 * is Lance 12's mixed data-file versions rather than field assignment's. */
bool lfa_flags_mixed_data_file_versions(uint64_t reader_flags, uint64_t writer_flags,
                                        bool has_descriptors);

#endif
