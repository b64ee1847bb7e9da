/* mutate.h: every mutation Lance offers, as a pure function from a read
 * snapshot R and a request to a change (lfa/change.h): the transaction Lance
 * would commit, with the side data a writer holds. Committing it is
 * lfa_commit (or lfa_history_commit, which also rebases onto a later head).
 *
 * Rows are named by logical key: the writer's name for a row, given when
 * the row is inserted (lfa_fragment.keys). Fields are named by path:
 * "payload.value" is the child `value` of the struct `payload`.
 *
 * Each mutation validates its request against R before building anything
 * and refuses a bad one with LFA_ERR_USAGE and the requirement id it
 * would break: tracking a field twice (FA-TXN-8), writing and invalidating
 * one field (FA-SEM-5, FA-NEST-5), invalidating an unknown or untracked
 * field (FA-INVAL-2), a key that names no live row, and so on.
 */
#ifndef LFA_MUTATE_H
#define LFA_MUTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/change.h"
#include "lfa/error.h"
#include "lfa/table.h"

typedef enum lfa_assignment {
  LFA_UNTRACKED = -1, /* add the field, do not track it */
  LFA_UNASSIGNED = 0, /* track it, every row unassigned */
  LFA_ASSIGNED = 1    /* track it, every row assigned (a caller's migration assertion) */
} lfa_assignment;

/* A field to create (create, add_columns, overwrite). A path's parent must
 * exist already or be listed earlier in the same request; a field with
 * children is a struct. */
typedef struct lfa_new_field {
  const char *path;
  const char *type; /* Lance logical type: "int64", "string", "struct", ... */
  bool nullable;
  lfa_assignment assignment;
} lfa_new_field;

typedef struct lfa_keys {
  size_t count;
  const uint64_t *keys;
} lfa_keys;

typedef struct lfa_names_list {
  size_t count;
  const char *const *names;
} lfa_names_list;

typedef enum lfa_op {
  LFA_OP_CREATE,         /* create: schema, stable row ids or not, initial rows */
  LFA_OP_APPEND,         /* append / insert rows, with the fields they supply */
  LFA_OP_ADD_COLUMNS,    /* add fields, with an assignment state or untracked */
  LFA_OP_TRACK,          /* alter_columns: start tracking an existing field */
  LFA_OP_RENAME,         /* alter_columns: rename (same id) */
  LFA_OP_CAST,           /* alter_columns: new type, new id, Transfer */
  LFA_OP_SET_NULLABLE,   /* alter_columns: nullability */
  LFA_OP_DROP,           /* drop_columns */
  LFA_OP_UPDATE,         /* update: rows, set fields, invalidate fields */
  LFA_OP_MERGE_INSERT,   /* merge_insert */
  LFA_OP_DELETE,         /* delete rows (whole fragments leave) */
  LFA_OP_COMPACT,        /* compaction, Lance's planning */
  LFA_OP_REPLACE,        /* data_replacement of one field's file in one fragment */
  LFA_OP_OVERLAY,        /* data_overlay: some rows of some fields */
  LFA_OP_RESTORE,        /* restore an earlier version */
  LFA_OP_OVERWRITE,      /* overwrite with a new schema and rows */
  LFA_OP_CLONE,          /* shallow or deep clone (a new dataset) */
  LFA_OP_CREATE_INDEX,   /* no assignment change */
  LFA_OP_UPDATE_CONFIG   /* no assignment change */
} lfa_op;

typedef struct lfa_request {
  lfa_op op;
  /* CREATE, OVERWRITE, ADD_COLUMNS: the fields to create (ADD_COLUMNS:
   * `with_data` writes a data file for them in every fragment, like a
   * computed column; without it the column is all-NULL with no file). */
  size_t n_new_fields;
  const lfa_new_field *new_fields;
  bool with_data;
  bool stable_row_ids; /* CREATE */
  /* rows: APPEND / CREATE / OVERWRITE insert them; UPDATE, DELETE, OVERLAY
   * select them; MERGE_INSERT: the source rows matching target rows */
  lfa_keys rows;
  lfa_keys inserts;       /* MERGE_INSERT: source rows to insert (new keys) */
  uint64_t rows_per_file; /* APPEND/CREATE/OVERWRITE/COMPACT: rows per fragment (0: one fragment; COMPACT: Lance's 1Mi) */
  /* fields: APPEND/CREATE/OVERWRITE/MERGE_INSERT: those supplied (an explicit
   * NULL column is supplied; an omitted one is not); UPDATE: those set;
   * REPLACE, OVERLAY: those written; DROP: those dropped */
  lfa_names_list fields;
  lfa_names_list invalidate; /* UPDATE, MERGE_INSERT: fields to invalidate on the selected rows */
  /* UPDATE: REWRITE_COLUMNS (in place) or REWRITE_ROWS (rows move) */
  bool rewrite_columns;
  /* MERGE_INSERT */
  bool on_row_id;        /* the key is _rowid (update-only) */
  /* MERGE_INSERT on _rowid: the source's _rowid values, in place of `rows`:
   * row ids of R (stable row ids, or row addresses in address mode). A
   * value naming no live row of R matches nothing; it is counted in
   * lfa_change.unmatched_source_rows [FA-MERGEINSERT-2]. */
  lfa_keys rowid_values;
  bool delete_matched;   /* delete the matched target rows instead of updating them */
  /* TRACK, RENAME, CAST, SET_NULLABLE: one field */
  const char *field;
  lfa_assignment assignment; /* TRACK */
  const char *new_name;      /* RENAME */
  const char *new_type;      /* CAST */
  bool nullable;             /* SET_NULLABLE */
  /* REPLACE, OVERLAY: the fragment; OVERLAY rows must lie in it */
  uint64_t fragment_id;
  /* RESTORE: the version; CLONE: deep or shallow */
  uint64_t version;
  bool deep;
  /* Every operation: N, the version the change is built to become. It
   * names what the change writes (see lfa_mutate) and must be after R.
   * 0: R.version + 1, which is N when R is the head. A committer that
   * builds against an older R passes its head + 1 (lfa_history_apply
   * does): changes built against one R and committed one after another
   * then never name a data file alike [FA-LANCE-20]. */
  uint64_t new_version;
} lfa_request;

/* Builds the change `req` asks of R. OWNERSHIP: *out is the caller's
 * (lfa_change_free). Nothing is written anywhere. Naming is deterministic:
 * data files are `v{N}-{k}.lance` (k counting from 0 in the change) and
 * deletion file ids are N, for the version N the change is built to
 * become (req->new_version, else R.version + 1). Lance draws a fresh UUID
 * per data file instead; what both give is a path no other data file of
 * the history has [FA-LANCE-20], so that a created fragment is also named
 * by its first data file alone (FA-TXN-13).
 * Compaction is one Rewrite whose new fragments get their ids at commit
 * (as Lance does with stable row ids; in address mode Lance also commits a
 * ReserveFragments first, which changes no state, FA-META-1). */
lfa_status lfa_mutate(lfa_change *out, const lfa_table *r, const lfa_request *req, lfa_error *err);

/* The name Lance's APIs give the operation ("append", "merge_insert"...). */
const char *lfa_op_name(lfa_op op);

#endif
