/* whole_dataset_fuzz.c: the verifier (verify/) over every version of a
 * dataset held in memory. The input is an lfa_memfs container (lfa/memfs.h:
 * varint name length, name, varint data length, data, repeated; no magic,
 * every byte meaningful), whose root is the dataset directory: names like
 * `_versions/1.manifest`, `_transactions/0-<uuid>.txn`,
 * `_field_assignments/roots/2/<uuid>.root`. The reader reaches files only
 * through the memfs, base paths and a clone's source included, so no input
 * can make it open a real file.
 *
 * Checks (FUZZ_ASSERT; a crash or a sanitizer report is a finding too):
 *  - the container decoder keeps the decoder contract (fuzz_check_status):
 *    it fails only as truncated, format or limit, never io, usage or nomem;
 *  - lfa_verify_dataset fails only where verify.h says it may (the input
 *    cannot be read at all: no `_versions/` is io, no version or mixed
 *    naming is a rule or format failure [FA-LANCE-2], too many versions a
 *    limit [FA-LIMIT-1]), with a message, never nomem or usage; every
 *    other decode error is a finding, not a failure [FA-VERIFY-5];
 *  - every finding is clean [FA-VERIFY-2]: an "FA-" rule, a known severity,
 *    a version among those checked, a message, and printable strings only
 *    (no control byte: hostile names and messages are made printable);
 *    versions checked ascend, findings are sorted by version;
 *  - the JSON report (verify.h) is one valid document for the strict
 *    reader lfa/json.h, whatever the findings hold (written to a memory
 *    stream, not a file);
 *  - the incremental run (objects decoded once per run, the default) and
 *    the `full` run report the same findings, the full one reuses nothing
 *    and the incremental one never decodes more.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream: a report into memory, not a file */
#include <stdio.h>

#include "fuzz_helpers.h"
#include "lfa/json.h"
#include "lfa/memfs.h"
#include "lfa/verify.h"

/* The dataset directory inside the memfs: its root. */
#define DATASET_DIR "."

/* lfa_verify_dataset failed: only for input it cannot read at all. */
static void check_failure(lfa_status st, const lfa_error *err) {
  FUZZ_ASSERT(st == LFA_ERR_IO || st == LFA_ERR_RULE || st == LFA_ERR_FORMAT || st == LFA_ERR_LIMIT,
              "the verifier failed with a status verify.h does not allow");
  FUZZ_ASSERT(err->status == st, "err->status differs from the returned status");
  FUZZ_ASSERT(err->msg[0] != '\0', "a failure without a message");
  FUZZ_ASSERT(err->rule == NULL || strncmp(err->rule, "FA-", 3) == 0, "a rule that is not an FA- id");
}

static bool printable(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++)
    if (*p < 0x20 || *p == 0x7F) return false;
  return true;
}

static bool was_checked(const lfa_verify_result *r, uint64_t version) {
  for (size_t i = 0; i < r->versions_checked; i++)
    if (r->versions[i] == version) return true;
  return false;
}

static void check_findings(const lfa_verify_result *r) {
  FUZZ_ASSERT(r->versions_checked > 0, "success without a version checked");
  for (size_t i = 1; i < r->versions_checked; i++)
    FUZZ_ASSERT(r->versions[i - 1] < r->versions[i], "versions checked out of order");
  for (size_t i = 0; i < r->findings.count; i++) {
    const lfa_finding *f = &r->findings.items[i];
    FUZZ_ASSERT(f->rule != NULL && strncmp(f->rule, "FA-", 3) == 0, "a finding without an FA- rule");
    FUZZ_ASSERT(f->severity <= LFA_SEVERITY_INFO, "a finding with an unknown severity");
    FUZZ_ASSERT(was_checked(r, f->version), "a finding at a version that was not checked");
    FUZZ_ASSERT(f->message != NULL && f->message[0] != '\0', "a finding without a message");
    FUZZ_ASSERT(printable(f->message), "a finding message with a control byte");
    FUZZ_ASSERT(f->file == NULL || printable(f->file), "a finding file with a control byte");
    FUZZ_ASSERT(f->field_name == NULL || printable(f->field_name), "a field name with a control byte");
    FUZZ_ASSERT(f->n_rows <= LFA_FINDING_ROWS_MAX, "more example rows than a finding holds");
    FUZZ_ASSERT(i == 0 || r->findings.items[i - 1].version <= f->version, "findings not sorted by version");
  }
}

/* The JSON report parses with the strict reader. */
static void check_json_report(const lfa_verify_result *r) {
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  FUZZ_ASSERT(out != NULL, "open_memstream failed");
  lfa_verify_print_json(out, r, DATASET_DIR);
  FUZZ_ASSERT(fclose(out) == 0, "the memory stream did not close");
  lfa_json_doc doc;
  lfa_error err = fuzz_error();
  lfa_status st = lfa_json_parse(&doc, (const uint8_t *)text, len, &err);
  if (st != LFA_OK) fprintf(stderr, "whole_dataset: %s\n--- report ---\n%s\n", err.msg, text);
  FUZZ_ASSERT(st == LFA_OK, "the JSON report is not valid JSON");
  lfa_json_free(&doc);
  free(text);
}

static bool same_text(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* The incremental and the full run report the same. */
static void check_same_as_full(const lfa_verify_result *a, const lfa_verify_result *b) {
  FUZZ_ASSERT(a->findings.count == b->findings.count, "incremental and full runs differ in their finding count");
  FUZZ_ASSERT(a->versions_checked == b->versions_checked, "incremental and full runs check different versions");
  for (size_t i = 0; i < a->findings.count; i++) {
    const lfa_finding *x = &a->findings.items[i], *y = &b->findings.items[i];
    bool same = strcmp(x->rule, y->rule) == 0 && x->severity == y->severity && x->version == y->version &&
                same_text(x->file, y->file) && same_text(x->message, y->message) &&
                x->has_fragment == y->has_fragment && x->fragment_id == y->fragment_id && x->n_rows == y->n_rows;
    if (!same)
      fprintf(stderr, "whole_dataset: finding %zu: '%s %s' incremental, '%s %s' full\n", i, x->rule, x->message,
              y->rule, y->message);
    FUZZ_ASSERT(same, "incremental and full runs report different findings");
  }
  FUZZ_ASSERT(b->objects_reused == 0, "the full run reused an object");
  FUZZ_ASSERT(a->objects_decoded <= b->objects_decoded, "the incremental run decoded more than the full one");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lfa_memfs m;
  lfa_error err = fuzz_error();
  lfa_status st = lfa_memfs_decode(&m, data, size, &err);
  fuzz_check_status(st, &err);
  if (st != LFA_OK) {
    lfa_memfs_free(&m);
    return 0;
  }
  lfa_verify_result r, full;
  lfa_verify_options o = {.fs = &m.fs};
  st = lfa_verify_dataset(&r, DATASET_DIR, &o, &err);
  if (st != LFA_OK) {
    check_failure(st, &err);
  } else {
    check_findings(&r);
    check_json_report(&r);
    lfa_error err_full = fuzz_error();
    o.full = true;
    FUZZ_ASSERT(lfa_verify_dataset(&full, DATASET_DIR, &o, &err_full) == LFA_OK, "the full run failed where the other did not");
    check_same_as_full(&r, &full);
    lfa_verify_result_free(&full);
  }
  lfa_verify_result_free(&r);
  lfa_memfs_free(&m);
  return 0;
}
