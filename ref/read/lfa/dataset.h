/* dataset.h: reading one version of a dataset directory from disk.
 *
 * This is the reader every tool shares (dump, eval, verify): it lists
 * `_versions/`, decodes a manifest file, finds its transaction (inline
 * section first, then `_transactions/<transaction_file>`) [FA-LANCE-10],
 * reads every deletion file and row id sequence, and loads the assignment state of every
 * tracked field, applying every rule an upstream reader applies at load
 * time. It reads metadata only: never a `.lance` data file.
 */
#ifndef LFA_DATASET_H
#define LFA_DATASET_H

#include <roaring/roaring.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/error.h"
#include "lfa/fs.h"
#include "lfa/manifest.h"
#include "lfa/objects.h"
#include "lfa/root.h"
#include "lfa/rowids.h"
#include "lfa/versions.h"

/* The state of one fragment of a tracked field. Fragments with no
 * assigned row have no entry. */
typedef struct lfa_fragment_assignment {
  uint64_t fragment_id;
  bool all;               /* every physical row assigned */
  roaring_bitmap_t *rows; /* assigned offsets when !all; owned */
} lfa_fragment_assignment;

/* The index of fragment_id's entry in entries[0 .. count), which ascend by
 * fragment id [FA-ROOT-2], or SIZE_MAX (no assigned row there). */
size_t lfa_assignment_entry(const lfa_fragment_assignment *entries, size_t count, uint64_t fragment_id);

typedef struct lfa_tracked_field {
  int32_t field_id;
  const Lance__Table__FieldAssignmentFile *root_file; /* borrowed from the manifest */
  lfa_root *root;                                     /* decoded root; owned; NULL until loaded */
  size_t count;                                       /* entries, ascending by id */
  lfa_fragment_assignment *fragments;                 /* owned */
} lfa_tracked_field;

typedef struct lfa_fragment_key {
  uint64_t id;
  size_t index; /* position in the manifest's fragment list */
} lfa_fragment_key;


typedef struct lfa_snapshot {
  uint64_t version;
  lfa_manifest_file file;                 /* owns the manifest and the inline txn */
  /* From `_transactions/`; owned; NULL when there is none, or when its
   * bytes are exactly the inline transaction's encoding (not decoded). */
  Lance__Table__Transaction *txn_file;
  const Lance__Table__Transaction *transaction; /* inline if present, else txn_file; may be NULL */
  roaring_bitmap_t **deleted;             /* per manifest fragment (same index); NULL = none; owned */
  lfa_row_ids *row_ids;                   /* per manifest fragment; count 0 and ids NULL without
                                             stable row ids; owned */
  bool stable_row_ids;                    /* reader flag 2: every fragment has a sequence, or
                                             its ids are not in metadata (row_ids_unread) */
  size_t row_ids_unread;                  /* fragments whose row ids are not in metadata:
                                             spilled row lineage (bit 2048), no sequence; their
                                             row_ids[] are empty (lfa_snapshot_row_ids_read) */
  size_t n_tracked;
  lfa_tracked_field *tracked;             /* ascending by field id; owned */
  lfa_fragment_key *by_id;                /* fragments sorted by id; owned */
  lfa_field_index fields;                 /* schema fields by id (lfa_snapshot_field); owned */
  lfa_object_cache *cache;                /* NULL, or the cache that lends the roots, partial
                                             bitmaps and deletion sets above (lfa/objects.h;
                                             borrowed: it must outlive the snapshot) */
  uint64_t objects_decoded;               /* roots, bitmaps, deletion files decoded (not from the cache) */
  const lfa_fs *fs;                       /* where its files are read (borrowed; set by open) */
} lfa_snapshot;

/* A manifest file larger than this is read footer first (lfa_manifest_fetch). */
#define LFA_MANIFEST_TAIL_BYTES (64u << 10)

/* Reads the manifest file at `path` as lfa_fs_read_expected does (the same
 * failures, `rule` when no file is there), but footer first: a file of at
 * most LFA_MANIFEST_TAIL_BYTES is one read; a larger one is read from its
 * last LFA_MANIFEST_TAIL_BYTES, then the manifest the footer points at,
 * then the index and transaction sections it names (each read once, at
 * most three ranged reads in all). *out is as long as the file; its bytes
 * below *unread_below were never read (zeros): nothing the manifest
 * points at lies there, so lfa_manifest_file_decode of *out is that of
 * the whole file. A file whose footer or manifest does not decode is read
 * whole. OWNERSHIP: out->data is the caller's. */
lfa_status lfa_manifest_fetch(lfa_buf *out, uint64_t *unread_below, const lfa_fs *fs, const char *path,
                              const char *rule, lfa_error *err);

/* Manifests a walk over versions asks its file system to fetch ahead at a
 * time (lfa_fs_ops.prefetch: on an object store, in parallel). */
#define LFA_MANIFEST_PREFETCH_BATCH 32u

/* Tells `fs` that the manifests of entries[first .. first + n) of `list`
 * (those `want` says yes to, when it is not NULL) are about to be read. */
void lfa_dataset_prefetch_manifests(const lfa_fs *fs, const char *dir, const lfa_version_list *list, size_t first,
                                    size_t n, bool (*want)(const void *arg, size_t i), const void *arg);

/* The versions of the dataset at `dir` on file system `fs` (lfa/fs.h;
 * NULL: POSIX). `names` keeps the listing the entries point into.
 * OWNERSHIP: free both (lfa_version_list_free, lfa_fs_names_free); on
 * failure both are left empty. */
lfa_status lfa_dataset_versions(lfa_version_list *out, lfa_names *names, const lfa_fs *fs, const char *dir,
                                lfa_error *err);

/* How lfa_snapshot_open reads a version. All zero: on POSIX, no cache, the
 * descriptors only, nothing shared. */
typedef struct lfa_snapshot_options {
  /* The file system the version is read from (NULL: POSIX), which the
   * snapshot keeps for the later lfa_snapshot_load_field calls (borrowed:
   * it must outlive the snapshot). */
  const lfa_fs *fs;
  /* NULL, or the cache (lfa/objects.h) this open and the later
   * lfa_snapshot_load_field calls load through: decoded objects are lent
   * by it, and given back when the snapshot is freed. The checks that
   * depend on the snapshot (fragment present, physical_rows, bounds:
   * FA-ROOT-3, FA-ROOT-5, FA-BITMAP-3, FA-BITMAP-4, FA-LANCE-4) still run
   * on every snapshot, on the lent object. It must outlive the snapshot. */
  lfa_object_cache *cache;
  /* Also every tracked field's root and bitmaps (lfa_snapshot_load_field
   * of each), so the snapshot is loaded, not only open. */
  bool load_fields;
  /* Without `entry`: the listed version to open (LFA_ERR_USAGE when the
   * dataset has none). */
  uint64_t version;
  /* NULL, or an open snapshot of the version before, of the same dataset
   * (10§5): a fragment whose encoded bytes equal one of `after`'s shares
   * its decoded message and, through `cache` (when `after` was opened
   * through the same one), its deletion set, lent again without reading or
   * checking it: its bytes name the same file, with the same rows, and its
   * checks (FA-LANCE-4, FA-LANCE-16) passed in `after`. The snapshot is the
   * one an open without `after` gives, and so is every error; `after`
   * need be open only during the call. A reader walking versions in order
   * keeps the one before and pays for what each commit changed. */
  const lfa_snapshot *after;
  /* Part of such a walk, also its first version (no `after`): the
   * manifest's bytes are kept with the snapshot for the next version's
   * comparison. Implied by `after`. */
  bool in_order;
  /* NULL, or the manifest file of the version, already read and decoded
   * (lfa_manifest_file_decode): it is not read again, and it is taken over
   * in every case (left zeroed). With `after`, `same[i]` is the index in
   * after's manifest of a fragment whose encoded bytes equal those of
   * fragment i (lfa_manifest_fragment_spans), or SIZE_MAX; without a
   * decoded file they are found as the manifest is decoded. */
  lfa_manifest_file *decoded;
  const size_t *same;
} lfa_snapshot_options;

/* Opens one version, `entry` of `dir` (NULL: the listed version
 * o->version), as `o` says (NULL: all zero): manifest, transaction,
 * deletion files, and the list of tracked fields (descriptors only: no
 * assignment object is read unless o->load_fields, so a plan that never
 * asks for assignment never touches one, FA-EXPR-7). Errors name the
 * file, field, fragment and version. The one way a snapshot is opened. */
lfa_status lfa_snapshot_open(lfa_snapshot *out, const char *dir, const lfa_version_entry *entry,
                             const lfa_snapshot_options *o, lfa_error *err);

/* Reads the root and bitmaps of tracked field `i` (index into tracked[]),
 * checking each against the snapshot (FA-EXPR-9), from the file system the
 * snapshot was opened on. */
lfa_status lfa_snapshot_load_field(lfa_snapshot *snap, const char *dir, size_t i, lfa_error *err);

/* The manifest index of the fragment root entry `e` names: there [FA-ROOT-5],
 * with the physical_rows the entry records [FA-ROOT-3]. Every reader of a
 * root checks its entries so, the snapshot loader and is_assigned alike. */
lfa_status lfa_snapshot_entry_fragment(size_t *index, const lfa_snapshot *snap, const lfa_root_entry *e,
                                       lfa_error *err);

/* The tracked[] index of a field id, or SIZE_MAX when it is not tracked. */
size_t lfa_snapshot_tracked(const lfa_snapshot *snap, int32_t field_id);

void lfa_snapshot_free(lfa_snapshot *snap);

/* The schema field with this id, or NULL. */
const Lance__File__Field *lfa_snapshot_field(const lfa_snapshot *snap, int32_t field_id);

/* The manifest index of the fragment with this id, or SIZE_MAX. With
 * duplicate ids (a broken manifest) one of them is returned. */
size_t lfa_snapshot_fragment(const lfa_snapshot *snap, uint64_t fragment_id);

/* False when the row ids of the fragment at manifest index i are not in
 * metadata: stable row ids, spilled row lineage (feature bit 2048) and no
 * inline or external sequence, so they are hidden columns of its data
 * files, which lfa never reads [FA-VERIFY-8]; row_ids[i] is then empty.
 * True otherwise (without stable row ids there are no ids to read). */
bool lfa_snapshot_row_ids_read(const lfa_snapshot *snap, size_t i);

/* Live rows of the fragment at manifest index i: physical_rows minus the
 * deleted offsets. */
uint64_t lfa_snapshot_live_rows(const lfa_snapshot *snap, size_t i);

/* One fragment's rows under one tracked field's state, the numbers every
 * output shows (00§1): physical_rows = live + deleted_rows, and
 * live = assigned + unassigned, where `assigned` counts the live rows whose
 * offset the state assigns (a deleted row is neither assigned nor
 * unassigned). bitmap_rows is the raw cardinality of a partial bitmap, its
 * deleted offsets included (FA-DELETE-1 keeps them in it); 0 for an
 * all_assigned entry or none. `entry` NULL: no row assigned. */
typedef struct lfa_row_counts {
  uint64_t physical_rows, deleted_rows, live_rows, bitmap_rows, assigned, unassigned;
} lfa_row_counts;

void lfa_row_counts_of(lfa_row_counts *out, uint64_t physical_rows, const roaring_bitmap_t *deleted,
                       const lfa_fragment_assignment *entry);

/* lfa_row_counts_of for the fragment at manifest index i and tracked field
 * `tf` of `snap` (loaded). */
void lfa_snapshot_row_counts(lfa_row_counts *out, const lfa_snapshot *snap, const lfa_tracked_field *tf, size_t i);

#endif
