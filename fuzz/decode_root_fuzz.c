/* decode_root: lfa_root_decode over any bytes, as if they were a
 * `_field_assignments/roots/<field>/<uuid>.root` object: the bare
 * FieldAssignmentRoot protobuf (0 bytes is the empty root, FA-ROOT-1) and
 * the rules that need only the root (FA-ROOT-2, FA-ROOT-3, FA-ROOT-4,
 * FA-ROOT-6, FA-ROOT-7).
 *
 * Checks: no crash, leak or sanitizer report; the status contract of
 * fuzz_helpers.h; the same status without an error record; *out NULL on
 * failure; 0 bytes decode to a root without entries; on success the entries
 * promised by root.h: fragment ids strictly ascending, physical_rows > 0,
 * and each either all_assigned = true or a partial file with a path and a
 * non-zero size.
 */
#include "fuzz_helpers.h"
#include "lfa/root.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lfa_root *quiet = NULL;
  lfa_status quiet_st = lfa_root_decode(&quiet, data, size, NULL);
  lfa_root_free(quiet);

  lfa_root *root = (lfa_root *)&quiet; /* must come back NULL on failure */
  lfa_error err = fuzz_error();
  lfa_status st = lfa_root_decode(&root, data, size, &err);
  fuzz_check_status(st, &err);
  FUZZ_ASSERT(st == quiet_st, "the status depends on whether an error record is passed");
  FUZZ_ASSERT(size != 0 || st == LFA_OK, "the 0-byte root is rejected");
  if (st != LFA_OK) {
    FUZZ_ASSERT(root == NULL, "a failed decode returned a root");
    return 0;
  }
  FUZZ_ASSERT(root != NULL, "decoded without a root");
  FUZZ_ASSERT(size != 0 || root->n_fragments == 0, "the 0-byte root has entries");
  for (size_t i = 0; i < root->n_fragments; i++) {
    const lfa_root_entry *e = root->fragments[i];
    FUZZ_ASSERT(i == 0 || e->fragment_id > root->fragments[i - 1]->fragment_id,
                "accepted entries out of order");
    FUZZ_ASSERT(e->physical_rows > 0, "accepted physical_rows 0");
    if (e->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED) {
      FUZZ_ASSERT(e->all_assigned, "accepted all_assigned = false");
    } else {
      FUZZ_ASSERT(e->state_case == LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL,
                  "accepted an entry that is neither all_assigned nor partial");
      FUZZ_ASSERT(e->partial != NULL && e->partial->path != NULL && e->partial->path[0] != '\0',
                  "accepted a partial without a path");
      FUZZ_ASSERT(e->partial->size_bytes > 0, "accepted a partial of size 0");
    }
  }
  lfa_root_free(root);
  return 0;
}
