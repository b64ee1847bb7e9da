/* onto.h: one commit onto a dataset another writer made (Lance itself).
 *
 * The reference writer (writer.h) lays out whole histories of its own. A
 * real table holds what lfa's model does not: data files, indices, table
 * config, base paths, field metadata, fields lfa's protobuf does not know.
 * So the new version N is not rebuilt from the model: the model decides N's
 * assignment state and transaction (lfa_mutate, then lfa_commit against the
 * head P, FA-OP-3), and N's manifest is P's decoded manifest with only
 * these changed: version, timestamp, writer_version, the transaction (a
 * `_transactions/{P}-{uuid}.txn` file and the inline section), the
 * descriptors of field 22, and the marker bit in the feature words. The
 * index section is written again at its new offset; every other field,
 * unknown ones included, is carried over as P has it. Data and deletion
 * files are never touched. N takes P's naming (V1 or V2, versions.h), and
 * `_versions/latest_version_hint.json` is moved to N when P has one.
 *
 * Two commits are offered, the ones that need no data file:
 *   - TRACK: start tracking an existing field (a Project with an
 *     Initialization, FA-PROJECT-4), every row assigned or unassigned;
 *   - UPDATE: an invalidation only (FA-INVAL-1), rows named by row address
 *     or, with stable row ids, by row id.
 */
#ifndef LFA_ONTO_H
#define LFA_ONTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/error.h"
#include "lfa/fs.h"
#include "lfa/mutate.h"

/* Rows an invalidation may name in one commit: a tool's bound, not the
 * format's. The format's only bound is the transaction's: the rows are one
 * treemap in a RowChange (FA-TXN-1), at most 10 bytes a row (one 2-byte
 * value, a 4-byte container key and cardinality and a 4-byte offset when
 * every row is alone in its container), so 2^24 rows are at most 160 MiB,
 * within LFA_TRANSACTION_BYTES_MAX [FA-LIMIT-3] (a write past it is still
 * refused). 2^24 is also what the mutation's key index holds
 * (LFA_HASH_ITEMS_MAX); the request holds them all (8 bytes a row). */
#define LFA_ONTO_ROWS_MAX (1u << 24)

/* Attempts of one commit when another writer takes the version first
 * (FA-CONC-1: each one plans again from the new head). */
#define LFA_ONTO_ATTEMPTS_MAX 8u

typedef struct lfa_onto_request {
  lfa_op op;              /* LFA_OP_TRACK or LFA_OP_UPDATE (an invalidation only) */
  const char *field;      /* by path: "payload.value" */
  lfa_assignment initial; /* TRACK: LFA_ASSIGNED or LFA_UNASSIGNED */
  bool by_row_id;         /* UPDATE: rows are stable row ids, else row addresses */
  size_t n_rows;
  const uint64_t *rows;
  /* The marker LFA_FLAG_FIELD_ASSIGNMENT goes in both feature words unless
   * this is set, or the head has it in the writer word alone (its policy is
   * kept): then in the writer word alone (03§1). */
  bool writer_bit_only;
  /* Both words even on a head marked in the writer word alone: the owner
   * now locks older readers out too. Not with writer_bit_only. */
  bool reader_bit;
  uint64_t seed;             /* the uuids of the objects and the transaction */
  int64_t timestamp_seconds; /* the manifest's timestamp */
  int32_t timestamp_nanos;
} lfa_onto_request;

/* What the commit did: the version it wrote, and the attempts it took. */
typedef struct lfa_onto_result {
  uint64_t version;
  unsigned attempts;
  uint64_t reader_flags, writer_flags; /* the feature words the new version carries */
} lfa_onto_result;

/* Commits `req` onto the newest version of the dataset at `dir` (POSIX).
 * Refused, with nothing written (LFA_ERR_USAGE or LFA_ERR_RULE, one line
 * naming the requirement): a field not in the schema, tracked already
 * (TRACK, FA-TXN-8) or not tracked (UPDATE, FA-INVAL-2), a row that is not
 * live (FA-TXN-10), a writer bit lfa does not know (FA-FLAG-5), and the
 * marker bit already set in a manifest without descriptors, where it is a
 * released Lance's own bit (FA-LANCE-21). When another writer commits the
 * version first [FA-CONC-11], nothing of it is replaced: the commit plans
 * again from the new head, up to LFA_ONTO_ATTEMPTS_MAX times, except an
 * Initialization(ASSIGNED), which would then assert rows nobody asked
 * about (FA-CONC-7): LFA_ERR_CONFLICT. Objects of a failed attempt stay
 * unreferenced (FA-CONC-2). */
lfa_status lfa_onto_commit(lfa_onto_result *out, const char *dir, const lfa_onto_request *req, lfa_error *err);

/* lfa_onto_commit on file system `fs` (NULL: POSIX), lfa/fs.h: every read,
 * every object written and the commit point (lfa_fs_publish_new: link(2)
 * on POSIX, a PUT with If-None-Match: * on an object store, FA-CONC-12). */
lfa_status lfa_onto_commit_in(lfa_onto_result *out, const lfa_fs *fs, const char *dir, const lfa_onto_request *req,
                              lfa_error *err);

#endif
