/* paths.h: where a file named by a manifest lives [FA-STORE-6].
 *
 * Manifests name files by a path relative to a root, and an optional
 * base_id that selects that root from `base_paths`; without one the root is
 * the dataset's own directory. Field-assignment objects may only live under
 * a base that is a dataset root. A partial bitmap without its own base_id
 * inherits its root's.
 */
#ifndef LFA_PATHS_H
#define LFA_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/error.h"
#include "table.pb-c.h"

/* Where a relative path is anchored. */
typedef struct lfa_anchor {
  bool has_base_id;
  uint32_t base_id;
} lfa_anchor;

/* Joins `dataset_dir` (or the base's path) with `subdir` (may be "") and
 * `rel`. Rejects: a base_id missing from base_paths, a base that is not a
 * dataset root when `need_dataset_root`, a base that is not where the
 * dataset is (a local path, "file://" URIs and plain paths being local,
 * for a local dataset; an s3:// URL for a dataset at an s3:// URL), and
 * relative paths that are not plain segments joined by '/' [FA-STORE-9]. */
lfa_status lfa_path_resolve(char *out, size_t cap, const char *dataset_dir,
                            const Lance__Table__Manifest *manifest, lfa_anchor anchor,
                            bool need_dataset_root, const char *subdir, const char *rel,
                            lfa_error *err);

#endif
