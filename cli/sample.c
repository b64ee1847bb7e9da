/* sample.c: `lfa sample OUT_DIR` (the writer is testkit/fixtures.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "lfa/fixtures.h"
#include "lfa/fs.h"

static const char HELP[] =
    "usage: lfa sample OUT_DIR\n"
    "\n"
    "Writes a five-version example dataset to OUT_DIR (which must not exist):\n"
    "create, add a tracked column (0-byte root), write some rows (partial\n"
    "bitmaps), delete two rows (.arrow deletion file, root shared), append a\n"
    "fragment (all assigned). Data files are named but not written: lfa\n"
    "works from metadata only. Try `lfa dump OUT_DIR` next.\n";

int lfa_cli_sample(int argc, char **argv) {
  if (argc != 2 || argv[1][0] == '-') {
    fputs(HELP, argc == 2 && strcmp(argv[1], "--help") == 0 ? stdout : stderr);
    return argc == 2 && strcmp(argv[1], "--help") == 0 ? LFA_EXIT_OK : LFA_EXIT_UNUSABLE;
  }
  if (lfa_fs_exists(argv[1])) {
    fprintf(stderr, "lfa sample: %s already exists; objects are never overwritten\n", argv[1]);
    return LFA_EXIT_UNUSABLE;
  }
  lfa_error err = {0};
  lfa_status st = lfa_fixture_write_sample(argv[1], &err);
  if (st != LFA_OK) {
    fprintf(stderr, "lfa sample: %s\n", err.msg);
    return LFA_EXIT_UNUSABLE;
  }
  printf("wrote 5 versions to %s\n", argv[1]);
  return LFA_EXIT_OK;
}
