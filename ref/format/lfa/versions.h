/* versions.h: which files under `_versions/` are versions, and which version
 * each one holds [FA-LANCE-2].
 *
 *   V1: `{n}.manifest`, n decimal without leading zeros (Lance's default).
 *   V2: `{u64::MAX - n:020}.manifest`, recognized by its 29-byte name, so
 *       newer versions sort first in a plain listing.
 * Everything else is not a version: `_latest.manifest` (legacy copy),
 * staging names `{final}-{uuid}`, `.tmp_*`, and detached `d{n}.manifest`.
 * A directory must not mix V1 and V2 names.
 */
#ifndef LFA_VERSIONS_H
#define LFA_VERSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/error.h"

typedef enum lfa_naming {
  LFA_NAMING_NONE = 0, /* not a version file */
  LFA_NAMING_V1 = 1,
  LFA_NAMING_V2 = 2
} lfa_naming;

/* Classifies one file name (no directory part). Returns LFA_NAMING_NONE for
 * names that are not versions; *version_out is set otherwise. Version 0 does
 * not exist in Lance and is not a version. */
lfa_naming lfa_version_parse_name(uint64_t *version_out, const char *name);

/* [FA-CLEAN-14] Whether `name` (in `_versions/`) is one of lfa's own
 * temporaries: `.tmp_<uuid>` (a manifest staged before its link) or
 * `.tmp_hint_<uuid>` (the version hint staged before its rename), the uuid
 * in its 36-character form. */
bool lfa_version_is_lfa_temporary(const char *name);

/* Writes the file name of `version` in `naming` into out (cap >= 32). */
void lfa_version_format_name(char *out, size_t cap, uint64_t version, lfa_naming naming);

/* A sorted list of versions found among directory entries. */
typedef struct lfa_version_entry {
  uint64_t version;
  const char *name; /* borrowed from the caller's names */
} lfa_version_entry;

typedef struct lfa_version_list {
  lfa_naming naming; /* NONE when the list is empty */
  size_t count;
  lfa_version_entry *entries; /* ascending by version; OWNED: free() */
} lfa_version_list;

/* Picks the versions out of `names`, sorts them, and rejects mixed naming,
 * and more than LFA_VERSIONS_MAX versions. */
lfa_status lfa_version_list_make(lfa_version_list *out, const char *const *names, size_t count,
                                 lfa_error *err);
void lfa_version_list_free(lfa_version_list *list);

#endif
