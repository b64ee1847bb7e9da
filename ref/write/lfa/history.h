/* history.h: a dataset's versions in memory, optionally written to disk as
 * they are committed. This is the reference writer end to end: a request
 * is built against a read version R (lfa_mutate), moved onto the head P
 * when R is older (lfa_rebase, spec 06-concurrency.md), committed
 * (lfa_commit) and written (lfa_writer).
 */
#ifndef LFA_HISTORY_H
#define LFA_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/error.h"
#include "lfa/mutate.h"
#include "lfa/table.h"
#include "lfa/writer.h"

typedef struct lfa_history {
  size_t count;
  lfa_table *versions; /* versions[i] is version i + 1 */
  lfa_change *changes; /* changes[i] made version i + 1 (kept for rebases) */
  lfa_writer *writer;  /* NULL: memory only */
} lfa_history;

/* An empty history; with `dir`, every commit is also written there (a new
 * directory), object names drawn from `seed`. */
lfa_status lfa_history_open(lfa_history *h, const char *dir, uint64_t seed, lfa_error *err);
/* The same with the directory on file system `fs` (lfa/fs.h; NULL: POSIX),
 * which must outlive the history: an in-memory lfa_memfs writes a history
 * without touching a disk. */
lfa_status lfa_history_open_in(lfa_history *h, const lfa_fs *fs, const char *dir, uint64_t seed, lfa_error *err);

/* Builds `req` against version `read_version` (0: the head) and commits it
 * as the next version, N = head + 1, which also names what it writes
 * (req->new_version is set to N: FA-LANCE-20). LFA_ERR_CONFLICT: a
 * concurrent commit makes it retryable (nothing was committed);
 * LFA_ERR_USAGE: refused. */
lfa_status lfa_history_apply(lfa_history *h, const lfa_request *req, uint64_t read_version, lfa_error *err);

/* A new history whose version 1 clones version `version` of `source`
 * (which must be written), written as a new dataset at `dir` on the same
 * file system (05§16): deep copies the objects, shallow
 * references them through a base path. Its transaction is
 * Clone{is_shallow, ref_path = the source directory's absolute path (in
 * memory: its path as given), ref_version}. The clone takes no later
 * commit (lfa_writer_clone). OWNERSHIP: *out is the caller's
 * (lfa_history_close), also on failure. */
lfa_status lfa_history_clone(lfa_history *out, const lfa_history *source, uint64_t version, const char *dir, bool deep,
                             uint64_t seed, lfa_error *err);

/* The head, or NULL before the first commit. */
const lfa_table *lfa_history_head(const lfa_history *h);
const lfa_table *lfa_history_version(const lfa_history *h, uint64_t version);

void lfa_history_close(lfa_history *h);

/* A history as it is now, to come back to after trying a commit: the
 * versions then, and the writer's mark (lfa/writer.h). The files the tried
 * commits wrote are the caller's to remove from its file system. */
typedef struct lfa_history_mark {
  size_t count;
  lfa_writer_mark writer;
} lfa_history_mark;

lfa_status lfa_history_mark_now(lfa_history_mark *out, const lfa_history *h, lfa_error *err);
/* Back to `m`, which stays valid for another rewind. */
lfa_status lfa_history_rewind(lfa_history *h, const lfa_history_mark *m, lfa_error *err);
void lfa_history_mark_drop(lfa_history_mark *m);

#endif
