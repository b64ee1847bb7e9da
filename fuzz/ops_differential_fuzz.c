/* ops_differential_fuzz.c: the reference model (ref/, an lfa_history
 * written to an in-memory file system) against the independent oracle
 * (testkit/oracle.c, written from the spec alone), driven by a
 * structure-aware decoding of the input (fuzz/fuzz_history.h: one byte per
 * decision of the request generator lfa/oracle_gen.h shares with
 * tests/testkit/test_oracle.c; any byte string is a valid sequence).
 *
 * Up to MAX_STEPS requests: CREATE, then one per step while input remains.
 * Aborts (the request sequence and the first difference printed first):
 *  - after every step, when the model and the oracle disagree: accept or
 *    refuse, the number of versions, the head's row-id mode, field paths,
 *    tracked fields (FA-OP-1), live keys and every tracked field on every
 *    live key (FA-SEM-1, FA-SEM-2);
 *  - at the end, when the verifier (verify/, over the memfs) cannot read
 *    the history the reference wrote or reports any error finding on its
 *    last commit: the head's own rules, the transition from its parent,
 *    and the versions a Restore or Clone copies (FA-VERIFY-3: a valid
 *    history is never reported);
 *  - at the end, when the head as the verifier's reader loaded it from the
 *    memfs (every load-time rule; lfa_verify_result.last) disagrees with
 *    the oracle in the same way: the on-disk round trip (FA-STORE-5,
 *    FA-ROOT-3, FA-BITMAP-3, FA-BITMAP-4, FA-LANCE-4 hold on what the
 *    writer wrote, or it does not load).
 * The two end checks run only when the last step wrote a version.
 *
 * Speed, and the choices it forced (the target is 500 exec/s with
 * ASan+UBSan on one core). Writing a version, reading it back and
 * verifying it costs several times an in-memory step. So: every commit
 * written, and the verifier over the last commit only, its load of the
 * head doubling as the round trip; neither when the last step wrote
 * nothing (a refusal, or a compaction with no work). Nothing is left
 * unchecked across the campaign: every prefix of an input is an input too,
 * so each commit is the head and the last commit of some input the fuzzer
 * runs (the seeds and libFuzzer's truncations make them), and an input
 * whose last step wrote nothing has the head of the shorter input that
 * ends at its last commit. MAX_STEPS = 6 (a create and five operations):
 * with the library's own costs cut (fuzz/README.md), 8 steps still ran at
 * about 455 exec/s and 6 at about 570, with the same edges. Longer
 * sequences are tests/testkit/test_oracle.c's: 10,000 seeded ones of 3 to 12
 * steps, some read back from disk version by version. The options turn
 * libFuzzer's entropic scheduling off: with some 20,000 coverage features
 * per input its bookkeeping took about a third of the CPU. No file I/O
 * (the memfs), no globals.
 */
#include "fuzz_history.h"

#define MAX_STEPS 6

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fh_run *d = fh_open(data, size);
  fh_run_steps(d, MAX_STEPS, "ops_differential");
  if (!d->last_committed) { /* nothing new on disk: the shorter input checked this head */
    fh_close(d);
    return 0;
  }
  lfa_verify_result r;
  lfa_error err = fuzz_error();
  lfa_verify_options last = {.fs = &d->fs.fs, .has_from = true, .from = d->h.count}; /* the last commit */
  lfa_status st = lfa_verify_dataset(&r, FH_DIR, &last, &err);
  if (st != LFA_OK || lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR) > 0 || !r.last_loaded) {
    fprintf(stderr, "ops_differential: the verifier %s the last commit the reference wrote\nsequence:\n%s",
            st != LFA_OK ? "cannot read" : "reports errors on (or cannot load)", d->log);
    if (st != LFA_OK) fprintf(stderr, "  %s: %s\n", lfa_status_name(st), err.msg);
    fh_print_findings(&r);
    FUZZ_ASSERT(false, "the verifier rejects a history of the reference writer");
  }
  /* the on-disk round trip: the head as the verifier's reader loaded it */
  const lfa_table *head = lfa_history_head(&d->h);
  if (!or_agree(&d->o.head, &r.last, head, d->diff, sizeof d->diff)) {
    fprintf(stderr, "ops_differential: version %" PRIu64 " read back disagrees\nsequence:\n%s  first difference: %s\n",
            head->version, d->log, d->diff);
    FUZZ_ASSERT(false, "the written head reads back different from the oracle");
  }
  lfa_verify_result_free(&r);
  fh_close(d);
  return 0;
}
