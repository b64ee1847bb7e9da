/* fixtures.h: datasets, histories and inputs built by hand, shared by the
 * tests, the fuzz corpus (fuzz/make_corpus.c), the benchmarks and `lfa
 * sample`. They only build; what a test expects of them stays in the test,
 * derived by hand from the spec. */
#ifndef LFA_FIXTURES_H
#define LFA_FIXTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"
#include "lfa/fs.h"
#include "lfa/history.h"
#include "lfa/mutate.h"

/* The five-version example dataset lfa ships as its default input (`lfa
 * sample`; its history in testkit/fixtures.c), written into `dir`, which
 * must not hold any of its files. */
lfa_status lfa_fixture_write_sample(const char *dir, lfa_error *err);

/* One history with every kind of commit, written the same way by
 * tests/verify/test_verify.c (on disk, verified) and fuzz/make_corpus.c (in
 * memory, as whole_dataset seeds): create, column update, append,
 * row-moving update with an invalidation, delete, compaction, invalidation
 * only, restore of version 3 (as version 8), rename, index. The requests,
 * in order, point into static storage. */
enum { LFA_FIXTURE_EVERY_COMMIT_STEPS = 10 };
void lfa_fixture_every_commit(lfa_request steps[LFA_FIXTURE_EVERY_COMMIT_STEPS], bool stable);

/* Applies `steps` in order to the head of `h`; a refused step fails with
 * its number and operation. */
lfa_status lfa_fixture_apply(lfa_history *h, const lfa_request *steps, size_t n, lfa_error *err);

/* Opens *h at `dir` of `fs` with `seed` and writes the first `max_steps`
 * (SIZE_MAX: all nine) of a history of schema growth and the writes that
 * name fragments: add columns with data, overlays (FA-OVERLAY-1..3), a data
 * replacement, merge_insert with inserts, a cast, a drop, then a compaction
 * that folds the overlays. The caller closes *h, also on failure. */
lfa_status lfa_fixture_write_overlays(lfa_history *h, const lfa_fs *fs, const char *dir, size_t max_steps, uint64_t seed,
                                      lfa_error *err);

/* The hostile stable-row-id input the snapshot budget exists for
 * (LFA_SNAPSHOT_ROW_IDS_MAX), shared by tests/read/test_dataset.c and
 * bench/hostile_sizes.c: `n` row-id sequences of one Range segment each,
 * sequence i covering [i * len, (i + 1) * len), a few bytes apiece however
 * large `len`, packed into out[0 .. n); on failure what was packed stays in
 * out for lfa_buf_free. */
lfa_status lfa_fixture_range_sequences(lfa_buf *out, size_t n, uint64_t len, lfa_error *err);

#endif
