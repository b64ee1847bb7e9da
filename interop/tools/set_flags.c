/* set_flags.c: rewrites a manifest file with other feature words.
 *
 *   set_flags MANIFEST READER_FLAGS WRITER_FLAGS
 *
 * For the lane's feature-bit probe (interop/probe_flags.mjs): a table Lance
 * wrote gets each bit in its newest manifest, and the release under test
 * says whether it opens and appends. Keeps the manifest's inline
 * transaction; the manifest must have no index section. A test tool: it
 * trusts its input and exits 1 on any error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "lfa/manifest.h"

static int fail(const char *path, const char *what) {
  fprintf(stderr, "set_flags: %s: %s\n", path, what);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: set_flags MANIFEST READER_FLAGS WRITER_FLAGS\n");
    return 2;
  }
  const char *path = argv[1];
  FILE *f = fopen(path, "rb");
  if (f == NULL) return fail(path, "cannot open");
  uint8_t buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  if (n == sizeof buf) return fail(path, "larger than this tool reads");
  lfa_error err = {0};
  lfa_manifest_file m;
  if (lfa_manifest_file_decode(&m, buf, n, &err) != LFA_OK) return fail(path, err.msg);
  if (m.index_section != NULL) return fail(path, "has an index section");
  m.manifest->reader_feature_flags = strtoull(argv[2], NULL, 0);
  m.manifest->writer_feature_flags = strtoull(argv[3], NULL, 0);
  lfa_buf out = {0};
  if (lfa_manifest_file_encode(&out, m.manifest, m.transaction, &err) != LFA_OK) return fail(path, err.msg);
  f = fopen(path, "wb");
  if (f == NULL || fwrite(out.data, 1, out.len, f) != out.len || fclose(f) != 0) return fail(path, "cannot write");
  lfa_buf_free(&out);
  lfa_manifest_file_free(&m);
  return 0;
}
