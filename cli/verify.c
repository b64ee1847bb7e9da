/* verify.c: `lfa verify`, every snapshot of a dataset and every commit
 * between them audited from metadata (spec/10-verifier.md, verify/). The
 * JSON shape is documented in docs/commands/verify.md and only grows. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "lfa/fs.h"
#include "lfa/verify.h"
#include "dataset_arg.h"

static const char HELP[] =
    "usage: lfa verify DATASET [--json] [--junit FILE] [--from V] [--to V]\n"
    "                  [--since-last STATEFILE] [--full] [--strict]\n"
    "\n"
    "Audits the Lance dataset at DATASET from its metadata (manifests,\n"
    "transactions, deletion files, row id sequences, _field_assignments/\n"
    "objects; never .lance data files) and reports every finding, sorted by\n"
    "version.\n"
    "\n"
    "Each version on its own: the manifest (schema ids, fragment ids and\n"
    "max_fragment_id, one data file per field id per fragment, descriptors\n"
    "unique, sorted and naming schema fields, feature bit 2^52 in both words,\n"
    "bit 256 as released Lance reads it),\n"
    "its transaction, deletion files and row ids, then every tracked field's\n"
    "root and bitmaps (sizes, encoding, bounds, entries matching the\n"
    "fragments) and the object path layout.\n"
    "\n"
    "Each commit from version V-1 to V: the state V must have is derived from\n"
    "V-1 and V's transaction by the reference transition rule and compared\n"
    "with the recorded state on every live row; the tracked fields must be\n"
    "those the rule gives (a descriptor never vanishes while its field stays).\n"
    "Restore and clone must equal the version they copy. A compaction's new\n"
    "fragments are also checked against the row mapping the metadata implies\n"
    "(group order and deletions, or row ids with stable row ids).\n"
    "\n"
    "A finding names the spec requirement it breaks (spec/requirements.tsv),\n"
    "a severity, the version, the file, and the field, fragment and example\n"
    "row offsets when there are some. A broken MUST is an error, a broken\n"
    "SHOULD a warning; a check that cannot run (no transaction, an unreadable\n"
    "parent, a reader limit) is said under FA-VERIFY-5 or FA-LIMIT-2, as a\n"
    "warning when assignment state is at stake and as info otherwise; a file\n"
    "that is there but cannot be read (permissions, an I/O error) is an error\n"
    "under FA-VERIFY-5 that names it.\n"
    "\n"
    "  --json        one JSON document on stdout: {\"dataset\", \"versions_checked\",\n"
    "                \"findings\": [...], \"summary\"} (shape in\n"
    "                docs/commands/verify.md)\n"
    "  --junit FILE  also write a JUnit XML report to FILE: one test case per\n"
    "                version, failed when the version has an error finding\n"
    "  --from V      start at version V (the commit that made V is checked too)\n"
    "  --to V        stop after version V\n"
    "                A range reads V's parent, the versions in it and what\n"
    "                their transactions copy (a restore's version, a clone's\n"
    "                source), nothing else: its cost follows the range, not\n"
    "                the history. Orphan objects (FA-CLEAN-10) need every\n"
    "                version: a range does not check them and says so (info).\n"
    "";

/* The rest of the help (one literal is at most 4095 bytes for ISO C). */
static const char HELP_MORE[] =
    "  --since-last STATEFILE\n"
    "                check only what is new since the run that wrote STATEFILE:\n"
    "                the versions after the one it records (none: nothing to\n"
    "                do, exit 0). It first checks that the history up to that\n"
    "                version is still there as it was: the same bytes in its\n"
    "                manifest and the same names in _versions/ up to it, by\n"
    "                64-bit FNV-1a digests; else an error finding (FA-VERIFY-7).\n"
    "                Without the file, every version is checked. STATEFILE is\n"
    "                written only after a run without error. Not with --from.\n"
    LFA_CLI_DATASET_HELP_OPTIONS
    "  --full        check every snapshot from scratch. By default a root,\n"
    "                bitmap or deletion file already verified in this run\n"
    "                (same resolved path and size) is not read or decoded\n"
    "                again, so a commit costs in proportion to what it\n"
    "                touched; the checks against each version still run.\n"
    "                Both modes report the same findings.\n"
    "  --strict      warn (FA-FLAG-2) at every tracked version whose marker is in\n"
    "                the writer word alone. By default that policy (`lfa track\n"
    "                --writer-bit-only`) is warned about once, at the version\n"
    "                where it starts, and the versions that keep it are not.\n"
    "\n"
    "DATASET may be s3://BUCKET/PREFIX (docs/s3.md).\n"
    "\n"
    "Exit status: 0 no error finding; 1 error findings; 2 the dataset cannot\n"
    "be read at all (no _versions/, mixed version names, no version in the\n"
    "range) or bad usage, with one line on stderr; 3 no error, but a newer\n"
    "Lance's feature that metadata cannot check (FA-VERIFY-8 \"not checked\"\n"
    "findings name each and its release; the rest is checked).\n";

typedef struct verify_args {
  const char *dataset;
  const char *junit;
  const char *state_file; /* --since-last */
  bool json, stats, allow_http;
  lfa_verify_options range;
  lfa_verify_state since; /* read from state_file when it exists */
} verify_args;

static bool parse_args(verify_args *a, int argc, char **argv) {
  memset(a, 0, sizeof *a);
  size_t has_from = 0, has_to = 0;
  const lfa_cli_option opts[] = {
      {"--json", LFA_CLI_FLAG, &a->json, NULL, 1, 0, 0},
      {"--full", LFA_CLI_FLAG, &a->range.full, NULL, 1, 0, 0},
      {"--strict", LFA_CLI_FLAG, &a->range.strict, NULL, 1, 0, 0},
      {"--stats", LFA_CLI_FLAG, &a->stats, NULL, 1, 0, 0},
      {"--allow-http", LFA_CLI_FLAG, &a->allow_http, NULL, 1, 0, 0},
      {"--junit", LFA_CLI_TEXT, &a->junit, NULL, 1, 0, 0},
      {"--from", LFA_CLI_U64, &a->range.from, &has_from, 1, 0, 0},
      {"--to", LFA_CLI_U64, &a->range.to, &has_to, 1, 0, 0},
      {"--since-last", LFA_CLI_TEXT, &a->state_file, NULL, 1, 0, 0},
  };
  if (lfa_cli_wants_help(argc, argv)) fputs(HELP, stdout), fputs(HELP_MORE, stdout), exit(LFA_EXIT_OK);
  int r = lfa_cli_parse("verify", HELP, opts, sizeof opts / sizeof opts[0], &a->dataset, 1, argc, argv);
  if (r < 0) exit(LFA_EXIT_OK);
  a->range.has_from = has_from > 0, a->range.has_to = has_to > 0;
  if (r == 0) return false;
  if (a->dataset == NULL) fprintf(stderr, "lfa verify: missing DATASET (see lfa verify --help)\n");
  else if (a->range.has_from && a->range.has_to && a->range.from > a->range.to)
    fprintf(stderr, "lfa verify: --from %" PRIu64 " is after --to %" PRIu64 "\n", a->range.from, a->range.to);
  else if (a->state_file != NULL && a->range.has_from)
    fprintf(stderr, "lfa verify: --since-last and --from contradict (the state says where to start)\n");
  else return true;
  return false;
}

/* Files lfa verify leaves for its user (--junit, --since-last): written
 * beside their name and renamed over it (lfa/fs.h lfa_fs_out), so a link
 * planted at the name or at a temporary name is never written through. */
static bool write_junit(const char *path, const lfa_verify_result *r, const char *dataset) {
  lfa_fs_out out;
  lfa_error err = {0};
  lfa_status st = lfa_fs_out_open(&out, path, &err);
  if (st == LFA_OK) {
    lfa_verify_print_junit(out.f, r, dataset);
    st = lfa_fs_out_commit(&out, &err);
  }
  if (st != LFA_OK) fprintf(stderr, "lfa verify: cannot write %s: %s\n", path, err.msg);
  return st == LFA_OK;
}

/* The state file of --since-last, when there is one: a missing file is a
 * first run (every version). False (said) when it cannot be used. */
static bool read_state(verify_args *a) {
  FILE *f = fopen(a->state_file, "rb");
  if (f == NULL && errno == ENOENT) return true;
  char text[LFA_VERIFY_STATE_TEXT_MAX];
  size_t n = f != NULL ? fread(text, 1, sizeof text, f) : 0;
  bool failed = f == NULL || ferror(f);
  if (f != NULL) fclose(f);
  lfa_error err = {0};
  if (failed) lfa_cli_fail("verify", a->state_file, strerror(errno));
  else if (lfa_verify_state_parse(&a->since, text, n, &err) != LFA_OK) lfa_cli_fail("verify", a->state_file, err.msg);
  else a->range.since = &a->since;
  return a->range.since != NULL;
}

/* Writes the state of this run beside STATEFILE, then renames it over:
 * a crash leaves the old state or the new, never half of one. */
static bool write_state(const char *path, const lfa_verify_state *s) {
  char text[LFA_VERIFY_STATE_TEXT_MAX];
  lfa_fs_out out;
  lfa_error err = {0};
  lfa_verify_state_format(text, s);
  lfa_status st = lfa_fs_out_open(&out, path, &err);
  if (st == LFA_OK && fputs(text, out.f) < 0) {
    lfa_fs_out_abandon(&out);
    st = lfa_fail(&err, LFA_ERR_IO, NULL, "%s", strerror(errno));
  }
  if (st == LFA_OK) st = lfa_fs_out_commit(&out, &err);
  if (st != LFA_OK) lfa_cli_fail("verify", path, err.msg);
  return st == LFA_OK;
}

/* The report (lfa/verify.h), with --stats its "stats" last. */
static void print_json(const lfa_cli_dataset *store, const lfa_verify_result *r, const char *dataset) {
  lfa_json_writer w = {.out = stdout};
  lfa_json_open_object(&w, NULL);
  lfa_verify_put_json(&w, r, dataset);
  lfa_cli_dataset_put_stats(store, &w);
  lfa_json_close_object(&w);
  lfa_json_finish(&w);
}

int lfa_cli_verify(int argc, char **argv) {
  verify_args a;
  if (!parse_args(&a, argc, argv)) return LFA_EXIT_UNUSABLE;
  if (a.state_file != NULL && !read_state(&a)) return LFA_EXIT_UNUSABLE;
  lfa_verify_result r;
  lfa_error err = {0};
  lfa_cli_dataset store;
  if (!lfa_cli_dataset_open(&store, "verify", a.dataset, a.allow_http, a.stats)) return LFA_EXIT_UNUSABLE;
  a.range.fs = store.d.fs;
  int status = LFA_EXIT_UNUSABLE;
  if (lfa_verify_dataset(&r, a.dataset, &a.range, &err) != LFA_OK) {
    lfa_cli_fail("verify", a.dataset, err.msg);
  } else if (a.junit == NULL || write_junit(a.junit, &r, a.dataset)) {
    if (a.json) print_json(&store, &r, a.dataset);
    else lfa_verify_print_text(stdout, &r, a.dataset);
    status = lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR) > 0 ? LFA_EXIT_FINDINGS
             : lfa_findings_find(&r.findings, "FA-VERIFY-8", LFA_SEVERITY_INFO) ? LFA_EXIT_NOT_CHECKED /* [FA-VERIFY-8] */
                                                                     : LFA_EXIT_OK;
  }
  if (a.state_file != NULL && status == LFA_EXIT_OK && r.has_state && !write_state(a.state_file, &r.state))
    status = LFA_EXIT_UNUSABLE;
  else if (a.state_file != NULL && status == LFA_EXIT_FINDINGS)
    fprintf(stderr, "lfa verify: %s kept as it was: this run has error findings\n", a.state_file);
  lfa_verify_result_free(&r);
  lfa_cli_dataset_close(&store);
  return status;
}
