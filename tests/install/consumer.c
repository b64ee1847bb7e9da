/* consumer.c: a program outside lfa's tree, built against the installed
 * library (tests/install_consumer.sh builds it with pkg-config and with
 * CMake). It is the example of lfa/lfa.h in full:
 *
 *   consumer DATASET FIELD
 *
 * verifies every version and prints "errors N", then prints
 * "assigned A unassigned U" for FIELD at the newest version. Exit 0 when
 * both worked, 1 on error findings, 2 when something could not be read. */
#include <inttypes.h>
#include <stdio.h>

#include "lfa/lfa.h"

static int fail(const char *what, const lfa_error *err) {
  fprintf(stderr, "consumer: %s: %s\n", what, err->msg);
  return 2;
}

static int verify(const char *dir, size_t *errors) {
  lfa_error err = {0};
  lfa_verify_result r = {0};
  lfa_status st = lfa_verify_dataset(&r, dir, NULL, &err);
  *errors = lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR);
  for (size_t i = 0; st == LFA_OK && i < r.findings.count; i++) {
    const lfa_finding *f = &r.findings.items[i];
    if (f->severity == LFA_SEVERITY_ERROR)
      fprintf(stderr, "%s version %" PRIu64 ": %s\n", f->rule, f->version, f->message);
  }
  lfa_verify_result_free(&r);
  return st == LFA_OK ? 0 : fail("verify", &err);
}

static int count(const char *dir, const char *field, uint64_t *yes, uint64_t *no) {
  lfa_error err = {0};
  lfa_version_list versions = {0};
  lfa_names names = {0};
  if (lfa_dataset_versions(&versions, &names, NULL, dir, &err) != LFA_OK) return fail("versions", &err);
  lfa_snapshot snap;
  lfa_status st = lfa_snapshot_open(&snap, dir, &versions.entries[versions.count - 1], NULL, &err);
  if (st == LFA_OK) {
    lfa_expr_plan plan;
    lfa_expr_binding bound;
    lfa_expr_scan scan;
    st = lfa_expr_plan_reference(&plan, dir, &snap, field, NULL, &err);
    if (st == LFA_OK) st = lfa_expr_bind(&bound, &plan, dir, &snap, &err);
    if (st == LFA_OK) {
      st = lfa_expr_scan_open(&scan, &bound, dir, &snap, NULL, 0, &err);
      if (st == LFA_OK) st = lfa_expr_counts(yes, no, &scan, &err);
      if (st == LFA_OK) lfa_expr_scan_close(&scan);
      lfa_expr_unbind(&bound);
    }
    lfa_snapshot_free(&snap);
  }
  lfa_version_list_free(&versions);
  lfa_fs_names_free(&names);
  return st == LFA_OK ? 0 : fail(field, &err);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: consumer DATASET FIELD\n");
    return 2;
  }
  size_t errors = 0;
  uint64_t yes = 0, no = 0;
  int rc = verify(argv[1], &errors);
  if (rc == 0) rc = count(argv[1], argv[2], &yes, &no);
  if (rc != 0) return rc;
  printf("lfa %s, spec revision %s\n", LFA_VERSION, LFA_SPEC_REVISION);
  printf("errors %zu\nassigned %" PRIu64 " unassigned %" PRIu64 "\n", errors, yes, no);
  return errors == 0 ? 0 : 1;
}
