/* table.h: a snapshot in memory, the model every mutation works on.
 *
 * It holds what the assignment rules need and nothing else: the schema, the
 * fragments (data files with their field ids, physical rows, deletion set,
 * row ids when stable row ids are on), and for each tracked field one cell
 * per fragment. Readers in other languages: this is the whole model; the
 * rules that change it are in apply.h.
 *
 * Cells are canonical (spec 01-storage.md): a fragment with no assigned row
 * is NONE, with every physical row ALL, otherwise PARTIAL with a non-empty,
 * non-full bitmap of physical offsets. Deleted offsets may stay in a bitmap:
 * deletion is orthogonal to assignment (FA-DELETE-1).
 */
#ifndef LFA_TABLE_H
#define LFA_TABLE_H

#include <roaring/roaring.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/error.h"
#include "lfa/manifest.h"

typedef struct lfa_field {
  int32_t id;
  int32_t parent_id; /* -1 at the top level */
  char *name;
  char *logical_type;
  bool nullable;
} lfa_field;

typedef struct lfa_data_file {
  char *path;
  size_t n_fields;
  int32_t *fields; /* field ids stored; -2 marks a replaced column */
} lfa_data_file;

/* Which deletion file holds a fragment's set: `_deletions/{fragment}-{read_version}-{id}.{arrow|bin}`. */
typedef struct lfa_deletion_file {
  uint64_t read_version;
  uint64_t id;
  bool bitmap; /* `.bin` (Roaring) rather than `.arrow` */
} lfa_deletion_file;

/* An overlay of a fragment (DataFragment.overlays, spec 05-operations.md
 * §14): a data file with values for some offsets of some fields. Coverage is
 * not assignment state [FA-OVERLAY-2]: the model keeps overlays only so that
 * every manifest carries them, from the DataOverlay commit that adds them
 * until a compaction folds them into data files (new fragments have none). */
typedef struct lfa_overlay {
  lfa_data_file file;          /* path and the field ids it carries */
  bool shared;                 /* shared_offset_bitmap: one bitmap for every field */
  roaring_bitmap_t **coverage; /* shared ? 1 : file.n_fields bitmaps (field_coverage order) */
  uint64_t committed_version;  /* the version whose commit added it */
} lfa_overlay;

typedef struct lfa_fragment {
  uint64_t id;
  uint64_t physical_rows;
  size_t n_files;
  lfa_data_file *files;
  roaring_bitmap_t *deleted; /* deleted offsets; NULL when none */
  lfa_deletion_file deletion_file; /* the file holding `deleted`, when there is one */
  uint64_t *row_ids;         /* physical_rows ids with stable row ids, else NULL */
  uint64_t *keys;            /* physical_rows logical keys, or NULL: the writer's own
                                name for each row (scenarios address rows by it);
                                never stored on disk */
  size_t n_overlays;
  lfa_overlay *overlays;     /* oldest first */
} lfa_fragment;

typedef enum lfa_cell_kind { LFA_CELL_NONE = 0, LFA_CELL_ALL, LFA_CELL_PARTIAL } lfa_cell_kind;

typedef struct lfa_cell {
  lfa_cell_kind kind;
  roaring_bitmap_t *rows; /* assigned offsets, PARTIAL only */
} lfa_cell;

typedef struct lfa_field_state {
  int32_t field_id;
  lfa_cell *cells; /* one per fragment of the table, same order */
} lfa_field_state;

/* OWNERSHIP: a table owns everything it points to; lfa_table_free releases
 * it. Tables are values: mutations copy, never share. */
typedef struct lfa_table {
  uint64_t version;
  bool stable_row_ids;
  uint64_t next_row_id;     /* stable row ids: the next id to hand out */
  uint32_t max_fragment_id; /* high-water mark of fragment ids handed out... */
  bool has_max_fragment_id; /* ...once any was (the next id is then max + 1, else 0) */
  /* The manifest's writer feature word when the table was read from disk
   * (lfa_table_from_snapshot); 0 in a table lfa_commit built, whose words
   * the writer computes when it lays the version out (FA-FLAG-1). A
   * committer refuses a table with a bit it does not know [FA-FLAG-5]. */
  uint64_t writer_feature_flags;
  size_t n_fields;
  lfa_field *fields; /* pre-order: parents before children */
  size_t n_fragments;
  lfa_fragment *fragments; /* ascending by id */
  size_t n_tracked;
  lfa_field_state *tracked; /* ascending by field id */
} lfa_table;

void lfa_table_free(lfa_table *table);
void lfa_fragment_free(lfa_fragment *fragment);

/* Appends the overlay `pb` describes to `fragment` (a copy: nothing of `pb`
 * is kept). [FA-OVERLAY-3] refused as LFA_ERR_RULE: no coverage, a
 * field_coverage without exactly one bitmap per field, an invalid bitmap or
 * an offset at or past physical_rows. */
lfa_status lfa_fragment_add_overlay(lfa_fragment *fragment, const Lance__Table__DataOverlayFile *pb, lfa_error *err);
/* Frees every tracked field's cells: the structure can then change. */
void lfa_table_drop_state(lfa_table *table);
lfa_status lfa_table_copy(lfa_table *out, const lfa_table *table, lfa_error *err);

/* A field and a fragment as the manifest's messages describe them (copies:
 * nothing of the messages is kept); `deleted` and `row_ids` come from the
 * fragment's deletion file and row id sequence, or NULL. False: out of
 * memory (what was built stays in *out for lfa_*_free). */
bool lfa_field_from_pb(lfa_field *out, const Lance__File__Field *f);
bool lfa_fragment_from_pb(lfa_fragment *out, const Lance__Table__DataFragment *f, const roaring_bitmap_t *deleted,
                          const uint64_t *row_ids, uint64_t n_row_ids);

/* Lookups; SIZE_MAX / NULL when absent. */
size_t lfa_table_fragment(const lfa_table *table, uint64_t fragment_id);
/* The same, trying index `hint` first: a fragment kept by a commit is most
 * often at the same position in the version before (Lance keeps fragment
 * order), so a walk over N's fragments looks each up in P in O(1). */
size_t lfa_table_fragment_near(const lfa_table *t, uint64_t fragment_id, size_t hint);
const lfa_field *lfa_table_field(const lfa_table *table, int32_t field_id);
lfa_field_state *lfa_table_tracked(const lfa_table *table, int32_t field_id);
bool lfa_fragment_stores(const lfa_fragment *fragment, int32_t field_id);
bool lfa_fragment_is_live(const lfa_fragment *fragment, uint32_t offset);
/* Its offsets for which lfa_fragment_is_live holds: lfa_live_rows. */
uint64_t lfa_fragment_live_rows(const lfa_fragment *fragment);

/* Is the row at `offset` of fragment index `i` assigned for `state`? */
bool lfa_cell_contains(const lfa_cell *cell, uint32_t offset);

/* Makes a cell canonical for a fragment of `physical_rows` rows: an empty
 * PARTIAL becomes NONE, a full one ALL (the bitmap is freed). */
void lfa_cell_canonicalize(lfa_cell *cell, uint64_t physical_rows);

/* True when both cells agree on every live row of `fragment` (FA-SEM-2). */
bool lfa_cells_equal_live(const lfa_cell *a, const lfa_cell *b, const lfa_fragment *fragment);

#endif
