/* main.c: the `lfa` command: one front door, one subcommand per job. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "lfa/version.h"

static const char USAGE[] =
    "usage: lfa <command> [options]\n"
    "\n"
    "lfa reads and checks Lance datasets that carry Field Assignment state\n"
    "(one bit per live row per tracked field: does the row have a current\n"
    "logical assignment?).\n"
    "\n"
    "commands:\n"
    "  conformance [--adapter CMD] [--filter GLOB] [--expected-failures FILE]\n"
    "              [--junit FILE] [--html DIR] [--tap]\n"
    "        run the conformance scenarios against a writer (default: lfa's own)\n"
    "        and verify every dataset it writes; one verdict per scenario\n"
    "  adapter SCENARIO.json OUT_DIR\n"
    "        the reference writer behind the conformance protocol\n"
    "  cleanup DATASET [--keep-from V] [--grace SECONDS] [--dry-run] [--json]\n"
    "        plan, then delete, the manifests of old versions and the\n"
    "        _field_assignments/ objects no kept version reaches\n"
    "  dump DATASET [--version N] [--rows] [--json]\n"
    "        show each version: operation, flags, schema, fragments, deletions\n"
    "        and the assignment state of every tracked field\n"
    "  explore [--depth K] [--mode address|stable|both] [--concurrent] [--json]\n"
    "        every history of at most K operations over a tiny table, the\n"
    "        reference model held to the independent oracle and the verifier\n"
    "  eval DATASET (--field NAME | --substrait FILE) [--version N] [--json]\n"
    "       [--count [--by-fragment] | --ranges]\n"
    "        is_assigned(NAME) on every live row of one version (default: the\n"
    "        latest), keyed by row address and, with stable row ids, by row id;\n"
    "        or only the totals (--count), or runs of rows (--ranges); the\n"
    "        Substrait form read or written (--emit-substrait)\n"
    "  invalidate DATASET --field NAME (--rows ADDR,... | --row-ids ID,... |\n"
    "             --rows-from FILE | --row-ids-from FILE) [--writer-bit-only]\n"
    "        commit one version onto a Lance table: NAME unassigned on those rows\n"
    "  report DATASET -o FILE.html [--versions A..B] [--fragments A..B]\n"
    "        draw the history as one self-contained HTML page: timeline, per\n"
    "        tracked field a fragments-by-versions grid, findings with their spec text\n"
    "  run SCENARIO.json OUT_DIR [--seed N] [--json]\n"
    "        execute a scenario (a setup and mutation steps, with expected\n"
    "        outcomes and states) on the reference writer into OUT_DIR\n"
    "  sample OUT_DIR\n"
    "        write a small example dataset (the one the README's examples read)\n"
    "  track DATASET --field NAME --initial assigned|unassigned [--writer-bit-only]\n"
    "        commit one version onto a Lance table: start tracking NAME (see\n"
    "        `lfa track --help` for the feature-bit policy)\n"
    "  verify DATASET [--json] [--junit FILE] [--from V] [--to V]\n"
    "         [--since-last STATEFILE] [--full] [--strict]\n"
    "        audit every version and every commit: each finding names the spec\n"
    "        requirement, version, file, field and fragment (exit 1 on errors)\n"
    "\n"
    "DATASET is a directory or s3://BUCKET/PREFIX (AWS_ENDPOINT_URL and the other\n"
    "AWS_* variables, docs/s3.md); every command that takes one\n"
    "also takes --stats (requests, bytes read and written, retries, on stderr).\n"
    "\n"
    "Run `lfa <command> --help` for the details of one command, `lfa --version`\n"
    "for this build's version, spec revision and the Lance releases it is\n"
    "checked against.\n"
    "Exit status: 0 success, 1 findings (checking commands), 2 unusable input\n"
    "or bad usage.\n";

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    fputs(USAGE, argc < 2 ? stderr : stdout);
    return argc < 2 ? LFA_EXIT_UNUSABLE : LFA_EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("lfa %s\nspec revision %s\nchecked against %s\n", LFA_VERSION, LFA_SPEC_REVISION, LFA_LANCE_CHECKED);
    return LFA_EXIT_OK;
  }
  if (strcmp(argv[1], "adapter") == 0) return lfa_cli_adapter(argc - 1, argv + 1);
  if (strcmp(argv[1], "conformance") == 0) return lfa_cli_conformance(argc - 1, argv + 1);
  if (strcmp(argv[1], "dump") == 0) return lfa_cli_dump(argc - 1, argv + 1);
  if (strcmp(argv[1], "explore") == 0) return lfa_cli_explore(argc - 1, argv + 1);
  if (strcmp(argv[1], "eval") == 0) return lfa_cli_eval(argc - 1, argv + 1);
  if (strcmp(argv[1], "report") == 0) return lfa_cli_report(argc - 1, argv + 1);
  if (strcmp(argv[1], "run") == 0) return lfa_cli_run(argc - 1, argv + 1);
  if (strcmp(argv[1], "sample") == 0) return lfa_cli_sample(argc - 1, argv + 1);
  if (strcmp(argv[1], "verify") == 0) return lfa_cli_verify(argc - 1, argv + 1);
  if (strcmp(argv[1], "track") == 0) return lfa_cli_track(argc - 1, argv + 1);
  if (strcmp(argv[1], "invalidate") == 0) return lfa_cli_invalidate(argc - 1, argv + 1);
  if (strcmp(argv[1], "cleanup") == 0) return lfa_cli_cleanup(argc - 1, argv + 1);
  char shown[LFA_CLI_SHOWN_BYTES];
  fprintf(stderr, "lfa: unknown command '%s'\n\n%s", lfa_cli_shown(shown, sizeof shown, argv[1]), USAGE);
  return LFA_EXIT_UNUSABLE;
}
