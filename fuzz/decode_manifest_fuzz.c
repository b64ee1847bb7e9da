/* decode_manifest: lfa_manifest_file_decode over any bytes, as if they were
 * a file under `_versions/` [FA-LANCE-1]: the footer and length prefixes,
 * the manifest protobuf, its index and inline transaction sections (the
 * transaction with its field 5 sidecar, FA-TXN-1..4) and the field 22
 * descriptor rules (FA-STORE-1, FA-STORE-3, FA-STORE-4).
 *
 * Checks: no crash, leak or sanitizer report; the status contract of
 * fuzz_helpers.h; the same status without an error record; and on success
 * the framing the header promises: a manifest, sections present exactly
 * when the manifest points at them, the manifest's prefix and footer inside
 * the input, and descriptors that pass lfa_manifest_check_descriptors again.
 */
#include "fuzz_helpers.h"
#include "lfa/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lfa_manifest_file quiet;
  lfa_status quiet_st = lfa_manifest_file_decode(&quiet, data, size, NULL);
  if (quiet_st == LFA_OK) lfa_manifest_file_free(&quiet);

  lfa_manifest_file file;
  lfa_error err = fuzz_error();
  lfa_status st = lfa_manifest_file_decode(&file, data, size, &err);
  fuzz_check_status(st, &err);
  FUZZ_ASSERT(st == quiet_st, "the status depends on whether an error record is passed");
  if (st != LFA_OK) {
    FUZZ_ASSERT(file.manifest == NULL && file.transaction == NULL && file.index_section == NULL,
                "a failed decode left objects behind");
    return 0;
  }
  const Lance__Table__Manifest *m = file.manifest;
  FUZZ_ASSERT(m != NULL, "decoded without a manifest");
  FUZZ_ASSERT(file.manifest_offset <= size && size - file.manifest_offset >= 4 + 16,
              "manifest offset leaves no room for its prefix and the footer");
  FUZZ_ASSERT((file.transaction != NULL) ==
                  (m->_transaction_section_case ==
                   LANCE__TABLE__MANIFEST___TRANSACTION_SECTION_TRANSACTION_SECTION),
              "inline transaction present without its section, or the reverse");
  FUZZ_ASSERT((file.index_section != NULL) ==
                  (m->_index_section_case == LANCE__TABLE__MANIFEST___INDEX_SECTION_INDEX_SECTION),
              "index section present without its offset, or the reverse");
  lfa_error again = fuzz_error();
  FUZZ_ASSERT(lfa_manifest_check_descriptors(m, &again) == LFA_OK,
              "descriptors of a decoded manifest fail their own check");
  lfa_manifest_file_free(&file);
  return 0;
}
