/* disk_util.h: reading one version of a dataset directory back, for tests
 * that write datasets and check what a reader gets. */
#ifndef LFA_DISK_UTIL_H
#define LFA_DISK_UTIL_H

#include "testutil.h"

#include <inttypes.h>

#include "lfa/dataset.h"
#include "lfa/snapshot_model.h"
#include "lfa/table.h"
#include "lfa/verify.h"

/* Loads version `version` of `dir` with every reader rule; fails the test
 * when the version is missing or does not load. */
static inline void load_version(lfa_snapshot *snap, const char *dir, uint64_t version) {
  lfa_error err = {0};
  lfa_snapshot_options opt = {.version = version, .load_fields = true};
  if (lfa_snapshot_open(snap, dir, NULL, &opt, &err) != LFA_OK)
    fail_msg("version %" PRIu64 ": %s", version, err.msg);
}

/* The table a reader builds of that version (no logical keys: not on disk). */
static inline void read_table(lfa_table *out, const char *dir, uint64_t version) {
  lfa_error err = {0};
  assert_ok(lfa_table_load_version(out, NULL, dir, version, &err), &err);
}

/* Every version of the dataset at `dir` verifies without an error finding
 * (FA-VERIFY-3: a valid history is never reported). */
static inline void verify_clean(const char *dir) {
  lfa_verify_result r;
  lfa_error err = {0};
  assert_ok(lfa_verify_dataset(&r, dir, NULL, &err), &err);
  for (size_t i = 0; i < r.findings.count; i++)
    if (r.findings.items[i].severity == LFA_SEVERITY_ERROR)
      fail_msg("%s version %" PRIu64 ": %s %s", dir, r.findings.items[i].version, r.findings.items[i].rule,
               r.findings.items[i].message);
  lfa_verify_result_free(&r);
}

#endif
