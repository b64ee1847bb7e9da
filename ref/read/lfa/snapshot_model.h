/* snapshot_model.h: the model (lfa/table.h) of a snapshot read from disk. */
#ifndef LFA_SNAPSHOT_MODEL_H
#define LFA_SNAPSHOT_MODEL_H

#include <stdint.h>

#include "lfa/dataset.h"
#include "lfa/error.h"
#include "lfa/fs.h"
#include "lfa/table.h"

/* Builds the model of a loaded snapshot (every tracked field loaded). */
lfa_status lfa_table_from_snapshot(lfa_table *out, const lfa_snapshot *snap, lfa_error *err);
/* The model of version `version` of `dir` as a reader loads it
 * (lfa_snapshot_open of that version with load_fields, then
 * lfa_table_from_snapshot). */
lfa_status lfa_table_load_version(lfa_table *out, const lfa_fs *fs, const char *dir, uint64_t version,
                                  lfa_error *err);

#endif
