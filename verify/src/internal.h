/* internal.h: what the files of verify/src share. Not installed. */
#ifndef LFA_VERIFY_INTERNAL_H
#define LFA_VERIFY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "lfa/dataset.h"
#include "lfa/snapshot_model.h"
#include "lfa/table.h"
#include "lfa/verify.h"

/* One version as the static checks left it. */
typedef struct vf_version {
  uint64_t version;
  char manifest_path[64]; /* "_versions/<name>", for findings */
  bool decoded;           /* the manifest protobuf could be read */
  bool tracked;           /* ... and it has at least one descriptor */
  bool loadable;          /* snapshot opened, every field loaded, model sound: */
  lfa_snapshot snap;      /* these two are valid, and transitions may use them */
  lfa_table table;
  /* While vf_check_version runs: the fields of the manifest it checks, by
   * id (NULL otherwise), so that per-descriptor lookups are O(log F). */
  const lfa_field_index *checking;
  /* Unchanged fragments (10§5): per fragment the index in the parent's
   * manifest of one with equal bytes, or SIZE_MAX (NULL: no parent
   * compared). snap.file keeps the bytes the next version is compared
   * with. */
  size_t *same;
  bool clean; /* its manifest rules found nothing */
  /* Tracked, with writer bit 65536 and not the reader bit: the policy
   * `lfa track --writer-bit-only` states (FA-FLAG-2 is reported where it
   * starts, 10§2). */
  bool writer_bit_only;
} vf_version;

/* What every check needs: where the dataset is and where findings go. */
typedef struct vf_ctx {
  const char *dir;
  const lfa_fs *fs; /* where `dir` and every file it names are read */
  lfa_findings *findings;
  const lfa_version_list *versions; /* the listing of `dir` */
  lfa_object_cache *cache;          /* the run's (lfa/objects.h); NULL: every snapshot from scratch (--full) */
  uint64_t *objects_decoded;        /* the run's count of objects decoded */
  bool strict;                      /* FA-FLAG-2 at every version that keeps the policy */
} vf_ctx;

/* static.c: the rules of one version. Findings go to c->findings; the
 * call fails only when memory runs out. *out is freed with
 * vf_version_free whatever happens. `parent` (NULL: none) is version-1,
 * held: a fragment with its parent's bytes is not checked again where the
 * parent's checks cover it (10§5). */
lfa_status vf_check_version(vf_version *out, const vf_ctx *c, const lfa_version_entry *entry,
                            const vf_version *parent, lfa_error *err);
/* The same, with findings thrown away: a version needed as a parent or a
 * restore source but outside the range the user asked about. */
lfa_status vf_load_quietly(vf_version *out, const vf_ctx *c, const char *dir, const lfa_version_entry *entry,
                           lfa_error *err);
void vf_version_free(vf_version *v);

/* transition.c: the commit that made `n`, from `p` (NULL when n is the
 * first version listed). */
lfa_status vf_check_commit(const vf_ctx *c, const vf_version *p, const vf_version *n, lfa_error *err);

/* commit_rules.c: the rules of one commit apply.c does not see.
 * vf_check_copy_sidecar: a Restore or Clone without sidecar [FA-TXN-15].
 * vf_check_commit_rules (P and N loadable, not an Overwrite, Restore or
 * Clone): field ids [FA-ID-1] [FA-ID-3] [FA-ID-4], fields_modified [FA-UPDATE-3],
 * object reuse [FA-STORE-10] [FA-STORE-11] [FA-STORE-12], UpdateBases
 * [FA-META-2]. Findings only: memory failures are recorded in the list. */
void vf_check_copy_sidecar(const vf_ctx *c, const vf_version *n, const Lance__Table__Transaction *t);
/* vf_check_deep_clone: a deep clone's descriptors and partials name no base [FA-CLONE-2]. */
void vf_check_deep_clone(const vf_ctx *c, const vf_version *n);
void vf_check_commit_rules(const vf_ctx *c, const vf_version *p, const vf_version *n,
                           const Lance__Table__Transaction *t);

/* update_rows.c: [FA-UPDATE-6] row by row, for an Update in REWRITE_ROWS
 * mode with stable row ids (nothing otherwise). Fails only when memory
 * runs out. */
lfa_status vf_check_update_rows(const vf_ctx *c, const vf_version *p, const vf_version *n,
                                const Lance__Table__Transaction *t, lfa_error *err);

/* sidecar.c: how a version stores its sidecar. vf_sidecar_undecodable:
 * the transaction bytes decode but for field 5, which is no sidecar
 * [FA-TXN-7]; vf_txn_file_sidecar_undecodable: the same for the file `rel`
 * of the dataset. vf_check_sidecar_storage: the property key [FA-TXN-5] and
 * an empty sidecar [FA-TXN-6] of an opened version. */
/* unchecked.c [FA-VERIFY-8]: an info finding "not checked" for each
 * feature of a newer Lance that version v uses and lfa cannot check from
 * metadata (feature bits, a fragment tree in field 22, the fragment reuse
 * index among `indices` (NULL: none), unknown bits, a writer newer than
 * the releases lfa knows), and for a Transaction V2 commit. */
void vf_check_unchecked(const vf_ctx *c, const vf_version *v, const Lance__Table__Manifest *m,
                        const Lance__Table__IndexSection *indices);
/* [FA-VERIFY-8] One info finding when opened snapshot v has fragments
 * whose row ids are not in metadata (Lance 14's spilled row lineage,
 * lfa_snapshot_row_ids_read): what is not checked because of them. */
void vf_check_unread_row_ids(const vf_ctx *c, const vf_version *v);
void vf_check_unchecked_transaction(const vf_ctx *c, const vf_version *v, const Lance__Table__Manifest *m,
                                    const Lance__Table__Transaction *t);

bool vf_sidecar_undecodable(const uint8_t *txn, size_t len);
bool vf_txn_file_sidecar_undecodable(const lfa_fs *fs, const char *dir, const char *rel);
void vf_check_sidecar_storage(const vf_ctx *c, const vf_version *v);

/* orphans.c: [FA-CLEAN-10] objects no version references, past the grace
 * period, as warnings against `version`. Fails only when memory runs out. */
lfa_status vf_check_orphans(const vf_ctx *c, uint64_t version, lfa_error *err);

/* state.c: [FA-VERIFY-7] the state's version still has its manifest
 * bytes and the listing up to it its names (else error findings at that
 * version). Fails only when memory runs out. */
lfa_status vf_check_state(const vf_ctx *c, const lfa_verify_state *s, lfa_error *err);
/* The state to resume after `version`; *has false when it is not listed or
 * its manifest cannot be read. Fails only when memory runs out. */
lfa_status vf_state_of(lfa_verify_state *out, bool *has, const vf_ctx *c, uint64_t version, lfa_error *err);

/* "writer_version lance 2.0.0": older writers are named in findings [FA-FLAG-6]. */
void vf_writer_of(char *out, size_t cap, const Lance__Table__Manifest *m);

/* Records that a finding could not be allocated; returns false. */
bool vf_out_of_memory(const vf_ctx *c);

/* The schema name of a field of a manifest, or NULL. */
const char *vf_field_name(const Lance__Table__Manifest *m, int32_t field_id);
/* The same from an open snapshot, in O(log F) (lfa_snapshot_field). */
const char *vf_snapshot_field_name(const lfa_snapshot *s, int32_t field_id);

/* Fills the parts of `where` still unknown from the place the failure
 * `e` carries (lfa/error.h): its fragment; its field when `v`, a loaded
 * version, can name it; and with `take_file` its file, which replaces the
 * one `where` has (the object that failed, not the manifest listing it).
 * `where` points into `e`: `e` must outlive it. */
void vf_where_from(lfa_where *where, const lfa_error *e, bool take_file, const vf_version *v);

#endif
