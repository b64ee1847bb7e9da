/* cleanup.h: which field-assignment objects a cleanup may delete, and why
 * (spec/09-cleanup.md).
 *
 * A cleanup removes old versions of a dataset (their `_versions/` manifest
 * files) and the assignment objects under the dataset's own
 * `_field_assignments/` that nothing kept can reach. It is planned first
 * (lfa_cleanup_plan_make: reads, never writes) and then executed
 * (lfa_cleanup_execute: deletes exactly what the plan says).
 *
 * Which versions are kept: the newest always; every version from
 * `keep_from` on (all of them when it is not given); the versions listed in
 * `keep`; and the tagged ones, read from `_refs/tags/<name>.json` (Lance's
 * tag files; a tag of a branch other than "main" keeps nothing here).
 *
 * Nothing is deleted unless every kept version, tag and branch, and every
 * reference they hold, was read and resolved [FA-CLEAN-3]: an unreadable
 * manifest or root, a referenced object that is not there, a base path that
 * is relative (it would be resolved against the working directory, not the
 * dataset), or a `_versions/` that is a link blocks the whole run and is
 * named in a note.
 *
 * Whose references count [FA-CLEAN-1] [FA-CLEAN-2]: the kept versions of
 * this dataset, and every version of every other dataset that may reach its
 * objects through a base path: its branches, found as Lance lays them out
 * (`tree/<branch name>/`, any directory under `tree/` holding `_versions/`),
 * and the datasets the caller names in `datasets` (shallow clones: the
 * source does not know them [FA-CLEAN-8]). Their versions are never
 * removed here, so all of them count as kept.
 *
 * Only objects are candidates, and only regular files found under this
 * dataset's own `_field_assignments/` (symbolic links are neither followed
 * nor deleted) [FA-CLEAN-6]. A reference reaches a candidate when the path
 * it resolves to (FA-STORE-6, through any base) is the same file (device
 * and inode), so an object reached through a base that names this dataset
 * is recognized as its own. Other files (`_transactions/`, `_deletions/`,
 * data, indices) are left to Lance's cleanup: once a version's manifest is
 * gone, what only it used is unreferenced there too.
 */
#ifndef LFA_CLEANUP_H
#define LFA_CLEANUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/dataset.h"
#include "lfa/error.h"

/* Lance's grace period for unreferenced files: 7 days [FA-CLEAN-5]. */
#define LFA_CLEANUP_GRACE_DEFAULT_SECONDS (7u * 24u * 3600u)

typedef struct lfa_cleanup_options {
  bool has_keep_from; /* versions >= keep_from are kept; without it, every version */
  uint64_t keep_from;
  size_t n_keep; /* more versions kept (each must be in `_versions/`) */
  const uint64_t *keep;
  int64_t now;            /* the clock, unix seconds: an object's age is now - mtime */
  uint64_t grace_seconds; /* unreferenced objects are deleted only when older [FA-CLEAN-5] */
  size_t n_datasets;      /* other dataset directories whose every version counts */
  const char *const *datasets;
  /* NULL, or the run's object cache (lfa/objects.h) that the roots are
   * loaded through: it lends those it holds, and keeps those read within
   * its budget. */
  lfa_object_cache *cache;
  /* Where the dataset is (lfa/fs.h): NULL is the POSIX file system. Its
   * branches, the clones named and every base are read through it too,
   * and the deletions go through it (lfa_fs_remove_beneath). */
  const lfa_fs *fs;
} lfa_cleanup_options;

/* Deletions between two looks at `_versions/` for a version committed
 * since the plan [FA-CLEAN-11]. */
#define LFA_CLEANUP_RECHECK_EVERY 64u

/* What becomes of one object, and the rule that says so. */
typedef enum lfa_cleanup_verdict {
  LFA_CLEANUP_KEEP_REACHABLE, /* a kept version (or a branch or clone) reaches it [FA-CLEAN-1] */
  LFA_CLEANUP_KEEP_YOUNG,     /* nothing references it, not older than the grace period [FA-CLEAN-5] */
  LFA_CLEANUP_KEEP_BLOCKED,   /* would be deleted, but a kept root is unreadable [FA-CLEAN-3] */
  LFA_CLEANUP_DELETE_REMOVED, /* referenced by removed versions only: deleted at once [FA-CLEAN-5] */
  LFA_CLEANUP_DELETE_EXPIRED  /* referenced by nothing, older than the grace period [FA-CLEAN-5] */
} lfa_cleanup_verdict;

/* Which dataset a reference or a note is about: datasets[index] of the
 * plan; 0 is the dataset being cleaned. */
typedef enum lfa_cleanup_dataset_kind {
  LFA_CLEANUP_SELF,   /* the dataset being cleaned */
  LFA_CLEANUP_BRANCH, /* found under its `tree/` */
  LFA_CLEANUP_GIVEN   /* named by the caller (a clone) */
} lfa_cleanup_dataset_kind;

typedef struct lfa_cleanup_dataset {
  char *dir; /* as given, or joined under `tree/` */
  lfa_cleanup_dataset_kind kind;
  size_t n_versions;       /* versions listed in its `_versions/` (0: unreadable, see notes) */
  bool has_source_version; /* a shallow clone or branch of the dataset cleaned, made from: */
  uint64_t source_version;
} lfa_cleanup_dataset;

typedef struct lfa_cleanup_object {
  char *path; /* relative to the dataset directory, "_field_assignments/..." */
  uint64_t size;
  int64_t mtime;      /* unix seconds */
  uint64_t dev, ino;  /* the file's identity, matched against references (lfa_fs_stat) */
  uint64_t tag;       /* its content's tag (an object store's ETag): checked again before deleting */
  bool reached_kept;    /* by a kept version or another dataset's version */
  bool reached_removed; /* by a removed version */
  bool has_ref;         /* the first reference found, kept ones first: */
  size_t ref_dataset;
  uint64_t ref_version;
  lfa_cleanup_verdict verdict;
} lfa_cleanup_object;

/* Why a version is kept. */
typedef enum lfa_cleanup_keep {
  LFA_CLEANUP_REMOVED = 0, /* not kept: its manifest is deleted */
  LFA_CLEANUP_LATEST,      /* the newest version */
  LFA_CLEANUP_TAGGED,      /* a tag names it (the tag file is `tag`) */
  LFA_CLEANUP_LISTED,      /* in options->keep */
  LFA_CLEANUP_RETAINED,    /* >= keep_from, or no keep_from */
  LFA_CLEANUP_HELD         /* would be removed, but the plan is blocked [FA-CLEAN-3] */
} lfa_cleanup_keep;

typedef struct lfa_cleanup_version {
  uint64_t version;
  char *file; /* "_versions/<name>" */
  lfa_cleanup_keep keep;
  char *tag; /* "_refs/tags/<name>.json" when TAGGED; else NULL */
} lfa_cleanup_version;

typedef enum lfa_cleanup_level { LFA_CLEANUP_ERROR, LFA_CLEANUP_WARNING, LFA_CLEANUP_INFO } lfa_cleanup_level;

/* Something the planner found: an unreadable kept root (FA-CLEAN-3, which
 * blocks), an unreadable root of a removed version (FA-CLEAN-4), a missing
 * object of a kept version (FA-CLEAN-9), a clone reusing what its source
 * version does not reach (FA-CLEAN-7), a shallow clone of an untagged
 * version (FA-CLEAN-8), a tag naming no version. */
typedef struct lfa_cleanup_note {
  const char *rule; /* requirement id, static storage */
  lfa_cleanup_level level;
  size_t dataset;
  bool has_version;
  uint64_t version;
  char *file; /* relative to that dataset's directory; NULL when none */
  char *message;
} lfa_cleanup_note;

/* [FA-CLEAN-14] One of lfa's own temporaries in `_versions/`
 * (lfa_version_is_lfa_temporary): a commit or hint write that died before
 * it could remove it. Nothing references it; it is deleted once older than
 * the grace period (a commit in flight may still be writing a young one). */
typedef struct lfa_cleanup_temporary {
  char *path; /* "_versions/.tmp_<uuid>" */
  uint64_t size;
  int64_t mtime;
  uint64_t dev, ino, tag; /* checked again before deleting, as for objects */
  bool expired;           /* older than the grace period: deleted */
} lfa_cleanup_temporary;

/* OWNERSHIP: every array and string is owned by the plan
 * (lfa_cleanup_plan_free). */
typedef struct lfa_cleanup_plan {
  char *dir;
  const lfa_fs *fs; /* where it was planned and is executed (borrowed) */
  int64_t now;
  uint64_t grace_seconds;
  size_t n_versions; /* ascending */
  lfa_cleanup_version *versions;
  size_t n_datasets; /* [0] is `dir` itself */
  lfa_cleanup_dataset *datasets;
  size_t n_objects; /* ascending by path */
  lfa_cleanup_object *objects;
  size_t n_temporaries; /* ascending by path */
  lfa_cleanup_temporary *temporaries;
  size_t n_notes; /* in the order found, at most LFA_CLEANUP_NOTES_MAX */
  lfa_cleanup_note *notes;
  size_t notes_dropped; /* found past that limit: counted only */
  bool blocked; /* [FA-CLEAN-3] nothing is deleted in this run: no manifest, no object */
} lfa_cleanup_plan;

/* Plans the cleanup of the dataset at `dir`. Unreadable manifests and roots
 * are notes, not failures (FA-CLEAN-3 and FA-CLEAN-4 say what they mean).
 * Fails on: no readable `_versions/` listing, a `keep` version or
 * `keep_from` past the newest version that does not exist (LFA_ERR_USAGE),
 * a tag file that cannot be read (the kept set would be unknown), a
 * directory under `_field_assignments/` or `tree/` that cannot be listed,
 * a tool limit (LFA_CLEANUP_*_MAX), memory. Errors name the file and, for
 * versions, the version. OWNERSHIP: *out is the caller's
 * (lfa_cleanup_plan_free), also after a failure. */
lfa_status lfa_cleanup_plan_make(lfa_cleanup_plan *out, const char *dir, const lfa_cleanup_options *options,
                                 lfa_error *err);
void lfa_cleanup_plan_free(lfa_cleanup_plan *plan);

/* True for the two DELETE verdicts. */
bool lfa_cleanup_deletes(lfa_cleanup_verdict verdict);
/* "keep: reachable", ...: stable lowercase names for reports. */
const char *lfa_cleanup_verdict_name(lfa_cleanup_verdict verdict);
/* The requirement id behind a verdict. */
const char *lfa_cleanup_verdict_rule(lfa_cleanup_verdict verdict);
const char *lfa_cleanup_keep_name(lfa_cleanup_keep keep);
const char *lfa_cleanup_level_name(lfa_cleanup_level level);

typedef struct lfa_cleanup_done {
  size_t manifests_deleted;
  size_t objects_deleted;
  size_t temporaries_deleted; /* [FA-CLEAN-14] */
  uint64_t bytes_deleted;
  size_t already_gone; /* planned, but no longer there */
  size_t changed;      /* planned, but the path now holds another file (or a link): left alone */
  bool new_versions;   /* versions appeared after the plan: no object was deleted */
} lfa_cleanup_done;

/* Deletes what the plan says, and nothing else; nothing at all when the
 * plan is blocked. First the manifests of the removed versions (so no
 * listed version ever references a deleted object, FA-CLEAN-9, however far
 * the run gets), then, unless a version was committed since the plan (its
 * writer may reuse what the plan would delete), the objects with a DELETE
 * verdict, each only while its path still holds the file planned (same
 * device and inode). Every file is reached from `dir` one directory at a
 * time without following a link (O_NOFOLLOW): a directory that is, or has
 * become, a link leads to no deletion [FA-CLEAN-6]. Fails on the first file
 * that cannot be deleted, naming it (and its version); what was deleted
 * before stays counted in *out. */
lfa_status lfa_cleanup_execute(lfa_cleanup_done *out, const lfa_cleanup_plan *plan, lfa_error *err);

#endif
