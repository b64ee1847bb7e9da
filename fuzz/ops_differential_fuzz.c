/* ops_differential_fuzz.c: the reference model (ref/, an lfa_history
 * written to an in-memory file system) against the independent oracle
 * (tests/oracle.c, written from the spec alone), driven by a
 * structure-aware decoding of the input (fuzz/fuzz_history.h: one byte per
 * decision of the request generator tests/oracle_gen.h shares with
 * tests/test_oracle.c; any byte string is a valid sequence).
 *
 * Up to MAX_STEPS requests: CREATE, then one per step while input remains.
 * Aborts (the request sequence and the first difference printed first):
 *  - after every step, when the model and the oracle disagree: accept or
 *    refuse, the number of versions, the head's row-id mode, field paths,
 *    tracked fields (FA-OP-1), live keys and every tracked field on every
 *    live key (FA-SEM-1, FA-SEM-2);
 *  - at the end, when the head the writer wrote to the memfs, read back by
 *    the reader with every load-time rule, disagrees with the oracle in the
 *    same way (the on-disk round trip: FA-STORE-5, FA-ROOT-3, FA-BITMAP-3,
 *    FA-BITMAP-4, FA-LANCE-4 hold on what the writer wrote, or it does not
 *    load);
 *  - at the end, when the verifier (verify/, over the memfs) cannot read
 *    the history the reference wrote or reports any error finding on its
 *    last commit: the head's own rules, the transition from its parent,
 *    and the versions a Restore or Clone copies (FA-VERIFY-3: a valid
 *    history is never reported).
 *
 * Speed, and the choices it forced (issue 6 asks for 500 exec/s with
 * ASan+UBSan on one core). Writing a version, reading it back and
 * verifying it costs several times an in-memory step: reading every commit
 * back and verifying every version of 16 steps made an input about four
 * times as dear as the in-memory target's. So: MAX_STEPS = 8, every commit
 * written, the head read back once, and the verifier over the last commit
 * only. Nothing is left unchecked across the campaign: every prefix of an
 * input is an input too, so each commit is the head and the last commit of
 * some input the fuzzer runs (the seeds and libFuzzer's truncations make
 * them), and tests/test_oracle.c reads every version of its sequences
 * back. That keeps about four fifths of the in-memory target's rate
 * (fuzz/README.md has the figures), not all of it. The options turn
 * libFuzzer's entropic scheduling off: with some 20,000 coverage features
 * per input its bookkeeping took about a third of the CPU. No file I/O
 * (the memfs), no globals.
 */
#include "fuzz_history.h"

#define MAX_STEPS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fh_run *d = fh_open(data, size);
  fh_run_steps(d, MAX_STEPS, false, "ops_differential");
  if (!fh_round_trip(d)) {
    fprintf(stderr, "ops_differential: the head read back disagrees\nsequence:\n%s  first difference: %s\n", d->log,
            d->diff);
    FUZZ_ASSERT(false, "the written head reads back different from the oracle");
  }
  if (d->h.count == 0) { /* the create was refused (and rightly so): nothing written to verify */
    fh_close(d);
    return 0;
  }
  lfa_verify_result r;
  lfa_error err = fuzz_error();
  lfa_verify_options last = {.fs = &d->fs.fs, .has_from = true, .from = d->h.count}; /* the last commit */
  lfa_status st = lfa_verify_dataset(&r, FH_DIR, &last, &err);
  if (st != LFA_OK || lfa_findings_count(&r.findings, LFA_SEVERITY_ERROR) > 0) {
    fprintf(stderr, "ops_differential: the verifier %s the last commit the reference wrote\nsequence:\n%s",
            st != LFA_OK ? "cannot read" : "reports errors on", d->log);
    if (st != LFA_OK) fprintf(stderr, "  %s: %s\n", lfa_status_name(st), err.msg);
    fh_print_findings(&r);
    FUZZ_ASSERT(false, "the verifier rejects a history of the reference writer");
  }
  lfa_verify_result_free(&r);
  fh_close(d);
  return 0;
}
