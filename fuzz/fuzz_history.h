/* fuzz_history.h: what the two stateful targets share (ops_differential,
 * verifier_faults): the reference model (an lfa_history written to an
 * in-memory file system, lfa/memfs.h) and the independent oracle
 * (lfa/oracle.h) driven side by side by requests decoded from input
 * bytes, reading versions back, and the verifier run on the written history.
 *
 * Decoding: every byte is one decision of the request generator shared
 * with tests/testkit/test_oracle.c (lfa/oracle_gen.h): an op is a byte modulo the
 * op count, a field a byte modulo the fields that fit, a live key a byte
 * modulo the live rows, a yes/no a byte against a threshold; bytes past the
 * end read as 0, so any byte string is a valid sequence. The first request
 * is always CREATE over the fixed schema id, emb, payload{value, note}
 * (each field's assignment from the input). The generator builds only
 * requests whose answer the spec and mutate.h fix (keys are never reused
 * after insert; see gen in oracle_gen.h), valid and invalid ones alike.
 *
 * One step (fh_step) fails, with the request sequence and the first
 * difference in `diff`, when:
 *  - the model refuses (LFA_ERR_USAGE) but the oracle predicts acceptance,
 *    or the reverse (a compaction Lance's planning finds no work for may
 *    commit nothing: no row's state changes, FA-REWRITE-1);
 *  - the two hold different numbers of versions;
 *  - the head differs (lfa/oracle_compare.h `or_agree`): row-id mode, field
 *    paths, tracked fields (FA-OP-1), the set of live keys, and on every
 *    live key every tracked field's state (FA-SEM-1, FA-SEM-2).
 * The targets compare what the writer put in the memfs with the oracle the
 * same way (keys come from the model: they are not on disk): versions
 * read back by lfa_table_load_version, or the head as the verifier loaded it.
 * Everything lives in one heap-allocated fh_run per input: no globals.
 */
#ifndef LFA_FUZZ_HISTORY_H
#define LFA_FUZZ_HISTORY_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_helpers.h"
#include "lfa/dataset.h"
#include "lfa/history.h"
#include "lfa/memfs.h"
#include "lfa/mutate.h"
#include "lfa/snapshot_model.h"
#include "lfa/table.h"
#include "lfa/verify.h"
#include "lfa/oracle.h"
#include "lfa/oracle_compare.h"
#include "lfa/oracle_gen.h"

/* The dataset directory of the written history: the root of the memfs. */
#define FH_DIR "."

/* ---- the input as a source of choices ------------------------------------------------ */

typedef struct fh_input {
  const uint8_t *data;
  size_t size, pos;
} fh_input;

static inline unsigned fh_byte(fh_input *in) { return in->pos < in->size ? in->data[in->pos++] : 0u; }
static inline bool fh_more(const fh_input *in) { return in->pos < in->size; }

/* A choice among n: one byte modulo n (two bytes when n > 256). */
static inline unsigned fh_choose(void *src, unsigned n) {
  unsigned v = fh_byte(src);
  if (n > 256) v = v << 8 | fh_byte(src);
  return n ? v % n : 0;
}

/* A yes/no with `percent` chance over the 256 byte values; 0 (also past
 * the end) is always no, so zero bytes decode to plain, valid requests. */
static inline bool fh_coin(void *src, unsigned percent) { return fh_byte(src) * 100u >= (100u - percent) * 256u; }

/* Every operation but CREATE (the first request, and only it, creates). */
static const lfa_op FH_OPS[] = {
    LFA_OP_APPEND,   LFA_OP_DELETE,   LFA_OP_UPDATE,   LFA_OP_MERGE_INSERT, LFA_OP_ADD_COLUMNS, LFA_OP_TRACK,
    LFA_OP_RENAME,   LFA_OP_CAST,     LFA_OP_SET_NULLABLE, LFA_OP_DROP,  LFA_OP_COMPACT,     LFA_OP_REPLACE,
    LFA_OP_OVERLAY,  LFA_OP_RESTORE,  LFA_OP_OVERWRITE, LFA_OP_CLONE,   LFA_OP_CREATE_INDEX, LFA_OP_UPDATE_CONFIG,
};

static inline lfa_op fh_pick_op(gen *g) { return FH_OPS[gen_choose(g, (unsigned)(sizeof FH_OPS / sizeof FH_OPS[0]))]; }

/* ---- one run: model, oracle, memfs ------------------------------------------------------ */

typedef struct fh_run {
  lfa_memfs fs; /* the history's directory (FH_DIR) */
  lfa_history h;
  oracle o;
  gen g;
  fh_input in;
  char log[8192]; /* the sequence so far, printed on a disagreement */
  size_t log_len;
  char diff[1200]; /* the first disagreement */
  uint64_t *frag_keys;
  size_t cap_frag_keys;
  bool last_committed; /* the last step wrote a version */
} fh_run;

/* A run over `data`: the history opened on an empty memfs, seed 1. */
static inline fh_run *fh_open(const uint8_t *data, size_t size) {
  fh_run *d = calloc(1, sizeof *d);
  FUZZ_ASSERT(d != NULL, "out of memory");
  lfa_memfs_init(&d->fs);
  d->in = (fh_input){data, size, 0};
  d->g.choose = fh_choose, d->g.coin = fh_coin, d->g.src = &d->in, d->g.next_key = 1;
  or_init(&d->o);
  lfa_error err = fuzz_error();
  FUZZ_ASSERT(lfa_history_open_in(&d->h, &d->fs.fs, FH_DIR, 1, &err) == LFA_OK, "the history did not open in memory");
  return d;
}

static inline void fh_close(fh_run *d) {
  lfa_history_close(&d->h);
  or_free(&d->o);
  lfa_memfs_free(&d->fs);
  free(d->frag_keys);
  free(d);
}

/* ---- the log --------------------------------------------------------------------------------- */

/* Appends one line describing `q` to the sequence log (oracle_gen.h). */
static inline void fh_log_request(fh_run *d, const lfa_request *q) {
  gen_describe(d->log, sizeof d->log, &d->log_len, q);
}

/* ---- one step ---------------------------------------------------------------------------------------- */

/* The live keys of fragment `id` of the model's head: structure the oracle
 * cannot know by itself (which rows share a fragment), never state. */
static inline or_fragment fh_head_fragment(fh_run *d, uint64_t id) {
  return or_fragment_keys(lfa_history_head(&d->h), id, &d->frag_keys, &d->cap_frag_keys);
}

/* Model's answer against the prediction; false with d->diff on a mismatch. */
static inline bool fh_judge(fh_run *d, const or_prediction *p, lfa_status st, const lfa_error *err) {
  return or_judge_answer(d->diff, sizeof d->diff, p, st, err);
}

/* Runs `q` on both sides; false with d->diff on a disagreement. */
static inline bool fh_step(fh_run *d, const lfa_request *q) {
  or_fragment frag = {false, 0, NULL};
  or_state next;
  or_prediction pred;
  lfa_error err = fuzz_error();
  size_t before = d->h.count;
  if (q->op == LFA_OP_REPLACE || q->op == LFA_OP_OVERLAY) frag = fh_head_fragment(d, q->fragment_id);
  fh_log_request(d, q);
  or_predict(&d->o, q, &frag, &next, &pred);
  lfa_status st = lfa_history_apply(&d->h, q, 0, &err);
  bool ok = true;
  if (q->op == LFA_OP_COMPACT && !pred.refuse && st == LFA_ERR_USAGE && strstr(err.msg, "nothing to compact")) {
    or_state_free(&next); /* no work, no commit, no state change (FA-REWRITE-1) */
  } else {
    ok = fh_judge(d, &pred, st, &err);
    if (ok && st == LFA_OK)
      or_commit(&d->o, &next);
    else
      or_state_free(&next);
  }
  if (ok && d->h.count != d->o.n_versions) {
    snprintf(d->diff, sizeof d->diff, "model has %zu versions, oracle %zu", d->h.count, d->o.n_versions);
    ok = false;
  }
  const lfa_table *head = lfa_history_head(&d->h);
  ok = ok && or_agree(&d->o.head, head, head, d->diff, sizeof d->diff);
  d->last_committed = d->h.count > before;
  return ok;
}

/* Decodes and runs up to `max_steps` requests (the first creates; then one
 * per step while input remains); aborts on the first disagreement. */
static inline void fh_run_steps(fh_run *d, unsigned max_steps, const char *target) {
  for (unsigned s = 0; s < max_steps && (s == 0 || fh_more(&d->in)); s++) {
    lfa_request q;
    gen_request(&d->g, &q, s == 0 ? LFA_OP_CREATE : fh_pick_op(&d->g), &d->o, &d->h);
    if (!fh_step(d, &q)) {
      fprintf(stderr, "%s: step %u disagrees\nsequence:\n%s  first difference: %s\n", target, s + 1, d->log, d->diff);
      FUZZ_ASSERT(false, "model, oracle and the history read back disagree");
    }
  }
}

/* ---- the verifier -------------------------------------------------------------------------------------- */

/* Verifies the dataset at FH_DIR of `fs`. The status and *out as
 * lfa_verify_dataset leaves them (free *out in every case). */
static inline lfa_status fh_verify(lfa_verify_result *out, const lfa_fs *fs, bool full, lfa_error *err) {
  lfa_verify_options o = {.fs = fs, .full = full};
  return lfa_verify_dataset(out, FH_DIR, &o, err);
}

/* Prints the findings of `r` to stderr (before an abort). */
static inline void fh_print_findings(const lfa_verify_result *r) {
  for (size_t i = 0; i < r->findings.count; i++) {
    const lfa_finding *f = &r->findings.items[i];
    fprintf(stderr, "  %s %s version %" PRIu64 " %s: %s\n", lfa_severity_name(f->severity), f->rule, f->version,
            f->file ? f->file : "-", f->message);
  }
}

#endif
