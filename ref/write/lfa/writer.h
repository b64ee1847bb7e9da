/* writer.h: lays snapshots out as a Lance dataset directory, version after
 * version, in the upstream layout:
 *
 *   _versions/{n}.manifest          manifest with the transaction inline
 *   _transactions/{n-1}-{uuid}.txn  the same transaction, bare protobuf
 *   _deletions/{frag}-{read_version}-{id}.arrow|bin   cumulative sets
 *   _field_assignments/roots/{field}/{uuid}.root
 *   _field_assignments/bitmaps/{field}/{frag}/{uuid}.rbm
 *
 * No `.lance` data file is written: data file entries carry their field ids
 * and the fragment its physical rows, which is all the assignment rules
 * read. Structural sharing [FA-STORE-10, FA-STORE-11]: an object whose
 * content an earlier version of this writer already stored for the same
 * field (and fragment) is referenced again, never rewritten; an unchanged
 * deletion set keeps its file. Objects are never overwritten [FA-STORE-8].
 */
#ifndef LFA_WRITER_H
#define LFA_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "lfa/arena.h"
#include "lfa/error.h"
#include "lfa/fs.h"
#include "lfa/root.h"
#include "lfa/table.h"
#include "transaction.pb-c.h"

typedef struct lfa_writer lfa_writer;

/* The writer_version every manifest lfa writes names (FA-FLAG-6 findings
 * name it back). */
#define LFA_WRITER_LIBRARY "lfa"
#define LFA_WRITER_VERSION "0.1.0"

/* Starts writing a new dataset at `dir`, which must not exist. `seed`
 * makes object uuids deterministic (same seed, same history, same bytes).
 * OWNERSHIP: *out is the caller's (lfa_writer_close). */
lfa_status lfa_writer_open(lfa_writer **out, const char *dir, uint64_t seed, lfa_error *err);

/* The same on file system `fs` (lfa/fs.h; NULL: POSIX), which the writer
 * keeps (borrowed: it must outlive the writer). Without `_in`, the
 * functions of this header write to the POSIX file system. */
lfa_status lfa_writer_open_in(lfa_writer **out, const lfa_fs *fs, const char *dir, uint64_t seed, lfa_error *err);

/* Writes version `table->version` (which must follow the previous commit's
 * by one) with `txn` as its transaction. The writer fills in the
 * transaction's read_version and uuid; the caller's table is not changed. */
lfa_status lfa_writer_commit(lfa_writer *w, const lfa_table *table, Lance__Table__Transaction *txn,
                             lfa_error *err);

/* Starts a new dataset at `dir` (which must not exist) whose version 1 is
 * version `version` of the dataset at `source_dir` (an absolute path: a
 * shallow clone records it in base_paths), with `txn` (a Clone) as its
 * transaction. Shallow [FA-CLONE-1]: nothing is copied; base_paths gets an
 * entry {next free id, is_dataset_root, source_dir}, and every root
 * descriptor, data file and deletion file without a base_id gets that id
 * (partials inherit their root's, FA-STORE-6). Deep [FA-CLONE-2]: every
 * partial and deletion file is copied to the same relative path, and no
 * base_id or base path is left (no `.lance` file exists to copy); a root
 * is copied to its path too, unless it lists a partial with a base_id of
 * its own: that root must change, and is written anew at a fresh path
 * with the partials' base_ids cleared [FA-CLONE-3]. A copy never replaces
 * an object already in the clone. Either way the manifest is the source's
 * otherwise: fragments, schema, row ids, overlays, counters.
 * The returned writer is sealed: commits after a clone's first version
 * (FA-CLONE-4: local objects reusing the source's by base_id) are not
 * implemented, and lfa_writer_commit refuses them.
 * OWNERSHIP: *out is the caller's (lfa_writer_close). */
lfa_status lfa_writer_clone(lfa_writer **out, const char *source_dir, uint64_t version, const char *dir, bool deep,
                            uint64_t seed, Lance__Table__Transaction *txn, lfa_error *err);
/* The same with the source and the clone both on `fs` (NULL: POSIX). */
lfa_status lfa_writer_clone_in(lfa_writer **out, const lfa_fs *fs, const char *source_dir, uint64_t version,
                               const char *dir, bool deep, uint64_t seed, Lance__Table__Transaction *txn,
                               lfa_error *err);

/* A writer of assignment objects into the existing dataset at `dir`, one
 * that Lance (or any writer) made: nothing is claimed or created, and it
 * shares only objects it wrote itself. It is sealed (lfa_writer_commit
 * refuses it): the caller writes the manifest, from the head's own
 * (lfa/onto.h). OWNERSHIP: *out is the caller's (lfa_writer_close). */
lfa_status lfa_writer_attach_in(lfa_writer **out, const lfa_fs *fs, const char *dir, uint64_t seed, lfa_error *err);

/* What a prior version (the head a commit builds on) stored for one field:
 * its model, the field's state in it, and its decoded root (borrowed). */
typedef struct lfa_prior_field {
  const lfa_table *table;
  const lfa_field_state *state;
  const lfa_root *root;
} lfa_prior_field;

/* Writes the partial bitmaps [FA-BITMAP-1] and the root [FA-ROOT-2]
 * [FA-ROOT-3] of tracked field `s` (index into t->tracked) at fresh paths
 * [FA-STORE-7] [FA-STORE-8], each within its reader limit [FA-LIMIT-3],
 * after checking every cell against its fragment [FA-BITMAP-3]
 * [FA-BITMAP-4], and describes the root in *out with its exact size
 * [FA-STORE-5]. With `prior` (may be NULL), a fragment whose set equals
 * the prior version's keeps that version's bitmap descriptor verbatim
 * [FA-STORE-11] (its path then borrowed from `prior`). The path in *out is
 * the writer's (valid until it closes); the entries' scratch lives in
 * `arena`. */
lfa_status lfa_writer_field_root(Lance__Table__FieldAssignmentFile *out, lfa_arena *arena, lfa_writer *w,
                                 const lfa_table *t, size_t s, const lfa_prior_field *prior, lfa_error *err);

/* A fresh lowercase uuid (v4 in shape) from the writer's seeded generator. */
void lfa_writer_uuid(lfa_writer *w, char out[37]);

/* The directory the writer writes, and the file system it is on. */
const char *lfa_writer_dir(const lfa_writer *w);
const lfa_fs *lfa_writer_fs(const lfa_writer *w);

void lfa_writer_close(lfa_writer *w);

/* What a writer knows after some commit, to go back to it: a caller that
 * tries a commit and then undoes it (the explorer, harness/lfa/explore.h)
 * marks, commits, removes the files the commit wrote from its file system
 * and rewinds. The objects and deletion files written after the mark are
 * forgotten, so they are never reused. OWNERSHIP: a mark holds a copy of
 * the writer's bookkeeping until lfa_writer_mark_drop. */
typedef struct lfa_writer_mark {
  uint64_t random, version;
  size_t n_objects, n_deletions, n_prior;
  void *prior;
  bool sealed;
} lfa_writer_mark;

lfa_status lfa_writer_mark_now(lfa_writer_mark *out, const lfa_writer *w, lfa_error *err);
/* Back to `m`, which stays valid for another rewind. */
lfa_status lfa_writer_rewind(lfa_writer *w, const lfa_writer_mark *m, lfa_error *err);
void lfa_writer_mark_drop(lfa_writer_mark *m);

#endif
