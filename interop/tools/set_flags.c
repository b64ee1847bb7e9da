/* set_flags.c: rewrites a manifest file with other feature words.
 *
 *   set_flags MANIFEST READER_FLAGS WRITER_FLAGS
 *
 * For the lane's feature-bit probe (interop/probe_flags.mjs): a table Lance
 * wrote gets each bit in its newest manifest, and the release under test
 * says whether it opens and appends. Keeps the manifest's inline
 * transaction; the manifest must have no index section. Saved through the
 * testkit's editor (lfa/edit.h): the old file removed, the new one created.
 * A test tool: it trusts its input and exits 1 on any error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/edit.h"

static int fail(const char *path, const char *what) {
  fprintf(stderr, "set_flags: %s: %s\n", path, what);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: set_flags MANIFEST READER_FLAGS WRITER_FLAGS\n");
    return 2;
  }
  const char *path = argv[1], *slash = strrchr(path, '/');
  char dir[LFA_PATH_BYTES_MAX];
  int n = slash ? snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path) : snprintf(dir, sizeof dir, ".");
  if (n < 0 || (size_t)n >= sizeof dir) return fail(path, "path too long");
  lfa_error err = {0};
  lfa_edit e;
  if (lfa_edit_open_file(&e, NULL, dir, slash ? slash + 1 : path, &err) != LFA_OK) return fail(path, err.msg);
  int rc = 0;
  if (e.file.index_section != NULL) {
    rc = fail(path, "has an index section");
  } else {
    e.file.manifest->reader_feature_flags = strtoull(argv[2], NULL, 0);
    e.file.manifest->writer_feature_flags = strtoull(argv[3], NULL, 0);
    if (lfa_edit_save(&e, &err) != LFA_OK) rc = fail(path, err.msg);
  }
  lfa_edit_close(&e);
  return rc;
}
