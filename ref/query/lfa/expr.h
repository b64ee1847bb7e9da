/* expr.h: the expression is_assigned(field) (spec/07-is-assigned.md), as a
 * reader evaluates it on one snapshot of a dataset directory.
 *
 * Three steps, each with its own object, in the order a query runs them:
 *
 *   plan  resolve the argument against the scanned snapshot's schema, from
 *         the manifest alone: every planning error is found here, before any
 *         assignment object is read [FA-EXPR-2..4, FA-EXPR-7];
 *   bind  tie the plan to that snapshot and read the field's root, once,
 *         checking it against the snapshot [FA-EXPR-8, FA-EXPR-9, FA-EXPR-10];
 *   scan  open the binding for the fragments a scan reads, reading only
 *         their partial bitmaps [FA-EXPR-8], then evaluate it row by row (a
 *         projection) or as the set of selected live offsets of a fragment
 *         (a filter pushed down as bitmap operations), or count it (an
 *         aggregate). Both ways give the same answer [FA-EXPR-6].
 *
 * A snapshot is named by its dataset directory and version: a branch of a
 * dataset is a directory of its own, and a version never changes once
 * committed. A plan and a binding record that name and refuse any other
 * snapshot [FA-EXPR-10]: a caller plans again for another version. Loaded
 * objects may still be shared across versions through the snapshot's
 * object cache (lfa_snapshot_options.cache), which keys them by path and
 * size, as immutable objects allow [FA-STORE-8].
 *
 * The result is a Boolean for every row a scan produces, never NULL
 * [FA-EXPR-1, FA-EXPR-5]. The Substrait form of the expression is the last
 * section [FA-EXPR-12, FA-EXPR-13].
 */
#ifndef LFA_EXPR_H
#define LFA_EXPR_H

#include <roaring/roaring.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/dataset.h"
#include "lfa/error.h"
#include "lfa/limits.h"
#include "lfa/paths.h"

/* The function's name (matched ignoring ASCII case) and the Substrait
 * extension URN that declares it [FA-EXPR-1, FA-EXPR-12]. */
#define LFA_EXPR_FUNCTION "is_assigned"
#define LFA_EXPR_URN "urn:lance:extension:functions"

/* ---- plan [FA-EXPR-2, FA-EXPR-3, FA-EXPR-4] ----------------------------------- */

/* is_assigned(field) resolved against one snapshot's schema. */
typedef struct lfa_expr_plan {
  int32_t field_id;                 /* the stable field id the argument names */
  uint64_t version;                 /* the snapshot planned against: this version... */
  char dataset[LFA_PATH_BYTES_MAX]; /* ...of this dataset directory */
} lfa_expr_plan;

/* Plans is_assigned(REF) where REF is the argument's text: a dotted path of
 * field names from the top level through each field's children; a segment
 * is a bare name (letters, digits, '_' and non-ASCII bytes, not starting
 * with a digit) or any name in double quotes ("" for a quote). Each segment
 * matches a name exactly, else the only one equal ignoring ASCII case.
 * `relation` (may be NULL) is the scanned relation's name: a path whose
 * first segment names it, and whose rest resolves, is qualified by it
 * (`tbl.col`); otherwise the whole path is resolved from the top level.
 * Planning errors are LFA_ERR_USAGE with rule FA-EXPR-4 and name the
 * argument: not a field reference (a literal, an expression, a system
 * column such as _rowid), no such field, an untracked field (with its
 * stable field id). Reads the manifest only. */
lfa_status lfa_expr_plan_reference(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap,
                                   const char *ref, const char *relation, lfa_error *err);

/* Plans the whole call text `is_assigned(REF)`: the name ignoring ASCII
 * case, exactly one argument [FA-EXPR-1], then REF as above. Spaces around
 * the name, the parentheses and the argument are allowed. */
lfa_status lfa_expr_plan_call(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap, const char *call,
                              const char *relation, lfa_error *err);

/* Plans a reference already split into literal field names (an engine's
 * field-access form, `get_field(a, 'b')`): names[0] is a top-level field. */
lfa_status lfa_expr_plan_path(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap,
                              const char *const *names, size_t n, lfa_error *err);

/* Plans the argument given as a stable field id (the literal form of
 * upstream's later iteration, FA-EXPR-13): the id must be a field of the
 * snapshot, and tracked (FA-EXPR-4 items 3 and 4). */
lfa_status lfa_expr_plan_field_id(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap,
                                  int32_t field_id, lfa_error *err);

/* The field's path in the reference grammar above, so that it can be pasted
 * back; names that are not bare are quoted, control bytes become '?'. Cut
 * at `cap` (which must be at least 1). */
void lfa_expr_field_path(char *out, size_t cap, const lfa_snapshot *snap, int32_t field_id);

/* ---- bind [FA-EXPR-8, FA-EXPR-9, FA-EXPR-10] ----------------------------------- */

/* LFA_OK when `dataset`/`snap` is the snapshot `plan` was planned against;
 * else LFA_ERR_USAGE: FA-EXPR-10 for another snapshot (plan again),
 * FA-EXPR-11 for no snapshot at all (no state to read). */
lfa_status lfa_expr_same_snapshot(const lfa_expr_plan *plan, const char *dataset, const lfa_snapshot *snap,
                                  lfa_error *err);

/* A plan bound to its snapshot: the field's root, read once and checked
 * against the snapshot, and the partial bitmaps scans have read so far,
 * each loaded (lfa/objects.h) from the snapshot's file system through the
 * object cache the snapshot had at bind time, if any (which must then
 * outlive the binding). Release with lfa_expr_unbind, which gives them
 * back. */
typedef struct lfa_expr_binding {
  bool bound; /* false in a zeroed or unbound binding */
  lfa_expr_plan plan;
  lfa_anchor root_anchor;          /* where the root's relative paths start */
  lfa_objects objects;             /* the snapshot's file system and cache at bind time */
  lfa_root *root;
  size_t count;                    /* entries, ascending by fragment id */
  lfa_fragment_assignment *entries; /* a partial's rows stay NULL until a scan reads them */
  /* What the binding cost: objects read from disk and decoded, and
   * objects the object cache supplied instead. */
  uint64_t roots_read, bitmaps_read, cache_hits;
} lfa_expr_binding;

/* Binds `plan` to the snapshot it was planned against; `dataset` and `snap`
 * must be that snapshot (else LFA_ERR_USAGE, FA-EXPR-10: plan again). Checks
 * that every fragment has a row address (id and offsets below 2^32, known
 * physical_rows [FA-LANCE-12], and with stable row ids one id per row
 * [FA-LANCE-7]), then reads the root and checks each entry against the
 * snapshot. A missing or invalid root fails naming its path, with its
 * rule or else FA-EXPR-9. *out is zeroed on failure. */
lfa_status lfa_expr_bind(lfa_expr_binding *out, const lfa_expr_plan *plan, const char *dataset,
                         const lfa_snapshot *snap, lfa_error *err);

void lfa_expr_unbind(lfa_expr_binding *b);

/* ---- scan [FA-EXPR-5, FA-EXPR-6, FA-EXPR-8, FA-EXPR-11] ------------------------ */

/* One fragment a scan reads. */
typedef struct lfa_expr_fragment {
  uint64_t id;
  uint64_t physical_rows;
  size_t index;                          /* in the manifest's fragment list */
  const roaring_bitmap_t *deleted;       /* NULL: none; borrowed from the snapshot */
  const lfa_fragment_assignment *entry;  /* NULL: no assigned row; borrowed from the binding */
} lfa_expr_fragment;

/* A binding opened for the fragments of one scan. It borrows the binding
 * and the snapshot, which must outlive it. */
typedef struct lfa_expr_scan {
  const lfa_expr_binding *binding; /* NULL in a zeroed scan */
  size_t count;
  lfa_expr_fragment *fragments; /* in the order asked; owned */
} lfa_expr_scan;

/* Opens `b` for a scan of `dataset`/`snap` that reads the fragments with
 * the `n` ids given (NULL: every fragment, ascending by id), and reads the
 * partial bitmaps of those fragments that no earlier scan of `b` read; no
 * other bitmap is read [FA-EXPR-8]. Refused as LFA_ERR_USAGE: an unbound
 * binding or no snapshot (FA-EXPR-11: there is no state to read), another
 * snapshot than the binding's (FA-EXPR-10), an id the snapshot lacks or
 * given twice. A missing or invalid bitmap fails naming its path, with its
 * rule or else FA-EXPR-9. OWNERSHIP: lfa_expr_scan_close. */
lfa_status lfa_expr_scan_open(lfa_expr_scan *out, lfa_expr_binding *b, const char *dataset,
                              const lfa_snapshot *snap, const uint64_t *fragment_ids, size_t n, lfa_error *err);

void lfa_expr_scan_close(lfa_expr_scan *s);

/* Row by row: is_assigned at physical offset `offset` of the scan's k-th
 * fragment: true exactly when the entry is all_assigned or its partial
 * bitmap holds the offset [FA-EXPR-5]. Refused: a zeroed scan
 * (FA-EXPR-11), k or offset out of range. */
lfa_status lfa_expr_row(bool *out, const lfa_expr_scan *s, size_t k, uint32_t offset, lfa_error *err);

/* Pushed down: the live offsets of the scan's k-th fragment where
 * is_assigned equals `want` (a filter on is_assigned, or on NOT
 * is_assigned), by bitmap operations on the entry and the deletion set.
 * OWNERSHIP: *out is the caller's (roaring_bitmap_free). */
lfa_status lfa_expr_select(roaring_bitmap_t **out, const lfa_expr_scan *s, size_t k, bool want, lfa_error *err);

/* Aggregated: the live rows of the whole scan where is_assigned is true and
 * where it is false (GROUP BY is_assigned, COUNT(*) FILTER ...), from
 * cardinalities alone. */
lfa_status lfa_expr_counts(uint64_t *assigned, uint64_t *unassigned, const lfa_expr_scan *s, lfa_error *err);

/* The counts of fragment k of an open scan (k < s->count), from
 * cardinalities alone (lfa/dataset.h: one meaning of each number). */
void lfa_expr_fragment_counts(lfa_row_counts *out, const lfa_expr_scan *s, size_t k);

/* ---- Substrait [FA-EXPR-12, FA-EXPR-13] ------------------------------------------ */

/* Plans the is_assigned call of a Substrait ExtendedExpression (bytes of
 * `substrait.ExtendedExpression`, at most LFA_SUBSTRAIT_BYTES_MAX). It must
 * hold exactly one referred expression: a ScalarFunction whose
 * function_reference names the extension function `is_assigned` (or a
 * compound name `is_assigned:...`) of URN LFA_EXPR_URN (through
 * extension_urns; through the deprecated extension_uris when the expression
 * lists no URN), without options, with one value argument and, if given,
 * the output type non-nullable Boolean [FA-EXPR-1]. The argument is:
 *   - a direct field reference from the root record: struct field
 *     positions into base_schema, whose names (depth first) give the path
 *     that then resolves against the snapshot like lfa_expr_plan_path
 *     [FA-EXPR-12, FA-EXPR-3]; an outer reference is a column of another
 *     relation, and map keys and list elements are not fields [FA-EXPR-2];
 *   - or an Int32 literal holding a stable field id, upstream's later form
 *     [FA-EXPR-13], planned like lfa_expr_plan_field_id.
 * Anything else is refused with a message naming what was found and a rule
 * (FA-EXPR-12 for the envelope, FA-EXPR-4 for the argument). Messages
 * nested deeper than LFA_SUBSTRAIT_DEPTH_MAX are refused before decoding. */
lfa_status lfa_expr_plan_substrait(lfa_expr_plan *out, const char *dataset, const lfa_snapshot *snap,
                                   const uint8_t *data, size_t len, lfa_error *err);

/* Appends the ExtendedExpression of is_assigned(<field>) for `plan`
 * (planned against `dataset`/`snap`, else FA-EXPR-10): a field reference,
 * never the field id as a literal [FA-EXPR-12]. Its base_schema holds just
 * the path to the field (each struct on it, then the field), so every
 * struct field position is 0; the function is declared under
 * extension_urns and, for consumers that predate URNs, extension_uris; the
 * output type is a non-nullable Boolean. Refused: a path through a field
 * that is not a struct, a field type with no Substrait counterpart here
 * (see the table in expr_substrait.c), a path deeper than the decoder
 * accepts. */
lfa_status lfa_expr_to_substrait(lfa_buf *out, const lfa_expr_plan *plan, const char *dataset,
                                 const lfa_snapshot *snap, lfa_error *err);

#endif
