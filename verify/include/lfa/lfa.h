/* lfa.h: the one header a writer's test suite includes.
 *
 * It brings what checking a writer needs: open a dataset and one of its
 * versions (lfa/dataset.h), verify a range of versions and walk the
 * findings (lfa/verify.h), and evaluate is_assigned(field) on the rows of a
 * version (lfa/expr.h). Every call returns an lfa_status and fills a
 * caller-owned lfa_error (lfa/error.h); nothing is global. Link with
 * `pkg-config --cflags --libs lfa`, or in CMake `find_package(lfa)` and
 * `target_link_libraries(t PRIVATE lfa::lfa)`.
 *
 * A test that verifies the versions its writer just committed and counts
 * the rows of field `emb` that carry an assignment at the newest one:
 *
 *   lfa_error err = {0};
 *   lfa_verify_options opt = {.has_from = true, .from = first_new_version};
 *   lfa_verify_result r = {0};
 *   if (lfa_verify_dataset(&r, dir, &opt, &err) != LFA_OK) fail(err.msg);
 *   for (size_t i = 0; i < r.findings.count; i++) {
 *     const lfa_finding *f = &r.findings.items[i];
 *     if (f->severity == LFA_SEVERITY_ERROR)
 *       report(f->rule, f->version, f->file, f->message); // rule is an FA-... id
 *   }
 *   lfa_verify_result_free(&r);
 *
 *   lfa_version_list versions = {0};
 *   lfa_names names = {0};
 *   lfa_snapshot snap;
 *   lfa_expr_plan plan;
 *   lfa_expr_binding bound;
 *   lfa_expr_scan scan;
 *   uint64_t yes = 0, no = 0;
 *   lfa_dataset_versions(&versions, &names, NULL, dir, &err);
 *   lfa_snapshot_open(&snap, dir, &versions.entries[versions.count - 1], NULL, &err);
 *   lfa_expr_plan_reference(&plan, dir, &snap, "emb", NULL, &err);
 *   lfa_expr_bind(&bound, &plan, dir, &snap, &err);
 *   lfa_expr_scan_open(&scan, &bound, dir, &snap, NULL, 0, &err);
 *   lfa_expr_counts(&yes, &no, &scan, &err);  // live rows assigned, unassigned
 *   lfa_expr_scan_close(&scan);
 *   lfa_expr_unbind(&bound);
 *   lfa_snapshot_free(&snap);
 *
 * (Each call's status is checked in real code; tests/install/consumer.c is
 * this example in full and is built against the installed library by the
 * test suite.)
 */
#ifndef LFA_LFA_H
#define LFA_LFA_H

#include "lfa/dataset.h"
#include "lfa/error.h"
#include "lfa/expr.h"
#include "lfa/verify.h"
#include "lfa/version.h"

#endif
