/* fs.h: the file-system edge of lfa. The format layer never touches files;
 * readers and writers of whole datasets go through these few calls, which
 * bound what they read and never overwrite an existing object.
 *
 * A file system is an lfa_fs: a table of operations and the context they
 * run on. Two exist: the POSIX one (lfa_fs_posix, a constant table with no
 * state) and the in-memory one (lfa/memfs.h), which lets the fuzz targets
 * read and write whole datasets without touching a disk. Code that takes an
 * `const lfa_fs *` reaches files only through it; the path-based functions
 * below (lfa_fs_read, lfa_fs_list, ...) are the POSIX file system called
 * directly, kept for the command line and the tests.
 */
#ifndef LFA_FS_H
#define LFA_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"
#include "lfa/limits.h"

/* The names in a directory (no "." or ".."), sorted bytewise.
 * OWNERSHIP: free with lfa_fs_names_free. */
typedef struct lfa_names {
  size_t count;
  char **names;
} lfa_names;
void lfa_fs_names_free(lfa_names *names);

/* Sorts the names (strcmp) and drops repeats: a listing that met one name
 * twice (an object store's object and prefix, a memfs file and a
 * directory under it) gives it once. */
void lfa_fs_names_sort_unique(lfa_names *names);

/* [FA-CLEAN-12] Whether `name` is one name a listing may give: not empty,
 * not "." or "..", no '/' and no NUL. A listing (lfa_fs_list_in) that gives
 * anything else is refused, naming it, on every file system alike. */
bool lfa_fs_is_name(const char *name);

/* [FA-CLEAN-12] Whether `rel` is a relative path of names only
 * (lfa_fs_is_name for each '/'-separated segment): no empty, "." or ".."
 * segment, no leading or trailing '/'. */
bool lfa_fs_is_relative_names(const char *rel);

/* A file lfa writes for its user (a --since-last state, a --junit file, a
 * report) in a directory lfa does not own. It is written under a fresh
 * temporary name beside it, ".NAME.lfa-tmp-XXXXXX", made by mkstemp
 * (O_CREAT|O_EXCL: whatever is planted there, a symbolic link among them, is
 * neither followed nor overwritten), and renamed over NAME only once it is
 * whole, so a link at NAME is replaced, never written through, and a crash
 * leaves the old file or the new. Every failure removes the temporary. The
 * file gets the mode a plain create would (0666 less the umask). */
typedef struct lfa_fs_out {
  FILE *f; /* write here */
  char path[LFA_PATH_BYTES_MAX];
  char tmp[LFA_PATH_BYTES_MAX];
} lfa_fs_out;

/* The temporaries' mark: a file whose name holds it is one of lfa's. */
#define LFA_FS_OUT_TMP_MARK ".lfa-tmp-"

lfa_status lfa_fs_out_open(lfa_fs_out *o, const char *path, lfa_error *err);
/* Closes the file and renames it into place (o->f is NULL after). */
lfa_status lfa_fs_out_commit(lfa_fs_out *o, lfa_error *err);
/* Closes and removes the temporary: nothing is written to o->path. */
void lfa_fs_out_abandon(lfa_fs_out *o);

/* Whether a failure is a listing refused as unbelievable (FA-CLEAN-12, a
 * name that is a path): an error of the dataset's store, never a mere "not
 * checked". */
bool lfa_fs_listing_refused(const lfa_error *err);

/* What is at a path (lfa_fs_ops.stat). */
typedef enum lfa_fs_kind {
  LFA_FS_MISSING = 0, /* nothing */
  LFA_FS_FILE,        /* a regular file (an object, on an object store) */
  LFA_FS_DIR,         /* a directory (on an object store: a prefix some key is under) */
  LFA_FS_LINK,        /* a symbolic link, not followed */
  LFA_FS_OTHER        /* a FIFO, a socket, a device */
} lfa_fs_kind;

typedef struct lfa_fs_stat {
  lfa_fs_kind kind;
  uint64_t size;    /* bytes, for a file */
  int64_t mtime;    /* unix seconds (0 where the file system keeps none: LFA_FS_CAP_MTIME) */
  uint64_t dev, ino; /* the file's identity: POSIX device and inode; elsewhere a hash of its
                        name, so two names of one file compare equal only on POSIX */
  uint64_t tag;     /* changes when the content is replaced: 0 on POSIX (dev and ino
                       tell), a hash of the ETag on an object store */
} lfa_fs_stat;

/* How remove_beneath ended. */
typedef enum lfa_fs_removed {
  LFA_FS_REMOVED, /* deleted */
  LFA_FS_GONE,    /* nothing was there any more */
  LFA_FS_CHANGED  /* something else is there now (another file, a link): left alone */
} lfa_fs_removed;

/* What a file system offers besides the operations (lfa_fs_ops.caps). */
enum {
  LFA_FS_CAP_MTIME = 1u /* stat gives real modification times (cleanup's grace period) */
};

/* The operations of one file system, each on `ctx`. Every implementation
 * keeps these contracts (the POSIX one defines them):
 *  - read: a whole regular file; LFA_ERR_LIMIT (before reading) when it is
 *    larger than max_bytes; LFA_ERR_IO when there is no such file.
 *    OWNERSHIP: out->data is the caller's.
 *  - size: true when `path` is a regular file, *size then its bytes.
 *  - exists: true when anything (file or directory) is at `path`.
 *  - is_dir: true when `path` is a directory.
 *  - list: the names in directory `dir`; a missing directory is an empty
 *    list when `missing_ok`, else LFA_ERR_IO.
 *  - write_new: creates `path` with exactly these bytes, creating missing
 *    parent directories; fails if anything exists there [FA-STORE-8].
 *  - make_dir: creates the one directory `path` (its parent must exist);
 *    LFA_ERR_USAGE when anything exists there already, LFA_ERR_IO when it
 *    cannot be made. A writer claims its dataset directory with it.
 *  - read_range: bytes [offset, offset + len) of a regular file, fewer when
 *    it ends first; *total is its size as read. LFA_ERR_IO when there is no
 *    such file or `offset` is past its end. A manifest is read footer first
 *    with it (lfa_manifest_fetch, lfa/dataset.h).
 *  - stat: what is at `path`, a final symbolic link not followed unless
 *    `follow`; LFA_FS_MISSING when nothing is. LFA_ERR_IO only when it
 *    cannot be told (permissions, a request that failed).
 *  - remove_beneath: deletes dir/rel when it is still the file `expect`
 *    describes (same identity, and same size and tag where the file system
 *    has no identity of its own), reaching it from `dir` one directory at a
 *    time without following a link [FA-CLEAN-6]; *size its bytes when
 *    removed. `expect` NULL: any regular file. Checked again just before the
 *    deletion, never from what an earlier listing said. LFA_ERR_IO when it
 *    cannot be deleted.
 *  - publish_new: creates `path` with these bytes all at once and never
 *    over anything [FA-CONC-11]: LFA_ERR_CONFLICT when something is there
 *    (another writer made it first; it is left as it is). `tmp` is a name
 *    the file system may stage the bytes under (POSIX: written there, then
 *    link(2)ed; an object store: one conditional PUT, If-None-Match: *).
 *  - replace_hint: replaces `path` by these bytes; only for a hint a reader
 *    checks before it trusts it (Lance's latest_version_hint.json).
 *  - prefetch: may be NULL. A hint that the files `paths` will be read
 *    soon: a remote file system may fetch them at once, a bounded number
 *    at a time, within a bounded budget; never needed for correctness.
 *  - real_path: may be NULL. The one name of what `path` (or a file://
 *    URI) names, so that two names of one dataset compare equal (cleanup's
 *    own dataset among the clones it reads, FA-CLEAN-2; a clone's source):
 *    POSIX resolves links, "." and ".." (realpath(3)). NULL: the file
 *    system's paths are names already (an object store, one name per key;
 *    the memfs), and the name is `path` less any trailing '/'.
 *  - caps: LFA_FS_CAP_* bits. */
typedef struct lfa_fs_ops {
  lfa_status (*read)(void *ctx, lfa_buf *out, const char *path, size_t max_bytes, lfa_error *err);
  int (*size)(void *ctx, const char *path, uint64_t *size);
  int (*exists)(void *ctx, const char *path);
  int (*is_dir)(void *ctx, const char *path);
  lfa_status (*list)(void *ctx, lfa_names *out, const char *dir, int missing_ok, lfa_error *err);
  lfa_status (*write_new)(void *ctx, const char *path, const uint8_t *data, size_t len, lfa_error *err);
  lfa_status (*make_dir)(void *ctx, const char *path, lfa_error *err);
  lfa_status (*read_range)(void *ctx, lfa_buf *out, const char *path, uint64_t offset, size_t len, uint64_t *total,
                           lfa_error *err);
  lfa_status (*stat)(void *ctx, const char *path, int follow, lfa_fs_stat *out, lfa_error *err);
  lfa_status (*remove_beneath)(void *ctx, lfa_fs_removed *outcome, uint64_t *size, const char *dir, const char *rel,
                               const lfa_fs_stat *expect, lfa_error *err);
  lfa_status (*publish_new)(void *ctx, const char *path, const char *tmp, const uint8_t *data, size_t len,
                            lfa_error *err);
  lfa_status (*replace_hint)(void *ctx, const char *path, const char *tmp, const uint8_t *data, size_t len,
                             lfa_error *err);
  void (*prefetch)(void *ctx, const char *const *paths, size_t n);
  char *(*real_path)(void *ctx, const char *path);
  unsigned caps;
} lfa_fs_ops;

/* A file system: its operations (a constant table) and their context. */
typedef struct lfa_fs {
  const lfa_fs_ops *ops;
  void *ctx;
} lfa_fs;

/* The POSIX file system: a constant with no state, shared by all callers. */
const lfa_fs *lfa_fs_posix(void);

/* The operations of `fs` (NULL: the POSIX file system), called as
 * functions. See lfa_fs_ops for what each does.
 *
 * One spelling, in every layer: a function whose name ends in `_in` is the
 * one that takes the file system as its parameter ("in `fs`"), beside a
 * twin without it on POSIX (lfa_fs_read, lfa_writer_open, ...); a function
 * with no POSIX twin just takes `fs` (NULL: POSIX), as lfa_dataset_versions
 * and lfa_snapshot_options do. */
lfa_status lfa_fs_read_in(lfa_buf *out, const lfa_fs *fs, const char *path, size_t max_bytes, lfa_error *err);
int lfa_fs_size_in(const lfa_fs *fs, const char *path, uint64_t *size);
int lfa_fs_exists_in(const lfa_fs *fs, const char *path);
int lfa_fs_is_dir_in(const lfa_fs *fs, const char *path);
lfa_status lfa_fs_list_in(lfa_names *out, const lfa_fs *fs, const char *dir, int missing_ok, lfa_error *err);
lfa_status lfa_fs_write_new_in(const lfa_fs *fs, const char *path, const uint8_t *data, size_t len, lfa_error *err);
lfa_status lfa_fs_make_dir_in(const lfa_fs *fs, const char *path, lfa_error *err);
lfa_status lfa_fs_read_range_in(lfa_buf *out, const lfa_fs *fs, const char *path, uint64_t offset, size_t len,
                                uint64_t *total, lfa_error *err);
lfa_status lfa_fs_stat_in(const lfa_fs *fs, const char *path, int follow, lfa_fs_stat *out, lfa_error *err);
lfa_status lfa_fs_remove_beneath_in(const lfa_fs *fs, lfa_fs_removed *outcome, uint64_t *size, const char *dir,
                                    const char *rel, const lfa_fs_stat *expect, lfa_error *err);
lfa_status lfa_fs_publish_new_in(const lfa_fs *fs, const char *path, const char *tmp, const uint8_t *data, size_t len,
                                 lfa_error *err);
lfa_status lfa_fs_replace_hint_in(const lfa_fs *fs, const char *path, const char *tmp, const uint8_t *data, size_t len,
                                  lfa_error *err);
void lfa_fs_prefetch_in(const lfa_fs *fs, const char *const *paths, size_t n);
/* OWNERSHIP: the name is the caller's (free); NULL when there is none (no
 * such path, or no memory). */
char *lfa_fs_real_path_in(const lfa_fs *fs, const char *path);
unsigned lfa_fs_caps(const lfa_fs *fs);

/* lfa_fs_read_in of a file a dataset's metadata says is there. When it
 * fails and no regular file is at `path` (nothing, a dangling or looping
 * link, a directory, a FIFO, a socket, a device), the failure cites `rule`,
 * the requirement that the file be there; a file that is there but cannot
 * be read (permissions, a device error) keeps no rule: that says nothing
 * about the dataset. */
lfa_status lfa_fs_read_expected(lfa_buf *out, const lfa_fs *fs, const char *path, size_t max_bytes, const char *rule,
                                lfa_error *err);

/* The same operations on the POSIX file system. */
lfa_status lfa_fs_read(lfa_buf *out, const char *path, size_t max_bytes, lfa_error *err);
int lfa_fs_exists(const char *path);
int lfa_fs_size(const char *path, uint64_t *size);
int lfa_fs_is_dir(const char *path);
lfa_status lfa_fs_list(lfa_names *out, const char *dir, int missing_ok, lfa_error *err);
lfa_status lfa_fs_write_new(const char *path, const uint8_t *data, size_t len, lfa_error *err);

/* Creates `path` with exactly these bytes, all at once and never over
 * anything [FA-CONC-11]: written to `tmp` (which must not exist), linked
 * to `path`, `tmp` removed. LFA_ERR_CONFLICT when `path` exists: another
 * writer made it first, and it is left as it is. For a commit point (a
 * version's manifest), which must appear whole or not at all. */
lfa_status lfa_fs_publish_new(const char *path, const char *tmp, const uint8_t *data, size_t len, lfa_error *err);

/* Replaces `path` by these bytes through `tmp` and rename(2). Only for a
 * hint a reader checks before it trusts it (Lance's
 * `_versions/latest_version_hint.json`): never for history. */
lfa_status lfa_fs_replace_hint(const char *path, const char *tmp, const uint8_t *data, size_t len, lfa_error *err);

/* Joins two path parts with one '/', failing past LFA_PATH_BYTES_MAX. */
lfa_status lfa_fs_join(char *out, size_t cap, const char *a, const char *b, lfa_error *err);

#endif
