/* objects.h: the objects a version's metadata points at, read and decoded
 * in one place: a tracked field's root, the partial bitmaps it lists
 * (`_field_assignments/`, 01§2), and a fragment's deletion file (02§4).
 *
 * Every reader of a dataset loads them here, through the file system it was
 * given (lfa/fs.h): the snapshot reader (lfa/dataset.h), is_assigned
 * (lfa/expr.h) and cleanup (lfa/cleanup.h). A load takes the path the
 * caller resolved (lfa_path_resolve, FA-STORE-6), reads the whole object
 * and checks its length [FA-STORE-5], decodes it, and checks what the
 * object alone says; a partial is also checked against the fragment it
 * describes [FA-BITMAP-3] [FA-BITMAP-4], cached or not. The checks of a
 * root's entries against a snapshot (FA-ROOT-3, FA-ROOT-5) and of a
 * deletion set against its fragment (FA-LANCE-4) are the callers'.
 *
 * The cache. Objects are immutable once written [FA-STORE-8], so a run that
 * reads many versions decodes each object once and lends it to every
 * version that references it again: an object is keyed by its kind, its
 * resolved path and its size in bytes (size_bytes for roots and bitmaps,
 * the file's size for deletion files). A loaded object is borrowed until
 * lfa_object_release; the cache keeps what no one borrows only while all
 * it holds stays within its byte budget (LFA_OBJECT_CACHE_BYTES_MAX by
 * default), dropping the least recently used first. Objects in use are
 * never dropped, and a cache that cannot keep one (no memory, a full
 * table) hands it out uncached: a cache only ever saves work, it never
 * makes a load fail. Without a cache every object loaded is the caller's,
 * released the same way.
 */
#ifndef LFA_OBJECTS_H
#define LFA_OBJECTS_H

#include <roaring/roaring.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"
#include "lfa/fs.h"
#include "lfa/hash.h"
#include "lfa/root.h"
#include "table.pb-c.h"

/* What an object is: a root (an lfa_root), a partial bitmap or a deletion
 * set (each a roaring_bitmap_t). */
typedef enum lfa_object_kind { LFA_OBJECT_ROOT, LFA_OBJECT_BITMAP, LFA_OBJECT_DELETION, LFA_OBJECT_KINDS } lfa_object_kind;

/* What a cache did, for the tests and the benchmarks that hold it to its
 * budget. */
typedef struct lfa_object_cache_stats {
  uint64_t hits;                   /* loads answered without reading */
  uint64_t kept[LFA_OBJECT_KINDS]; /* objects that entered the cache, by kind */
  uint64_t evicted;                /* objects dropped to stay within the budget */
  uint64_t held_bytes;             /* bytes of the objects held now, in use or not */
  uint64_t peak_bytes;             /* the most held_bytes has been */
} lfa_object_cache_stats;

typedef struct lfa_cached_object lfa_cached_object;

/* A cache of decoded objects, shared by the snapshots and bindings of one
 * run. An object is counted in the memory it holds as decoded (its
 * containers, or its messages and their bytes) plus its entry. No global
 * state: the caller owns the cache, which must not move while in use.
 * OWNERSHIP: lfa_object_cache_free, after everything that borrowed from
 * it has released what it borrowed. */
typedef struct lfa_object_cache {
  uint64_t budget;                     /* bytes held beyond which unused objects are dropped */
  lfa_hash by_key;                     /* (kind, path, size) -> entry */
  lfa_hash by_object;                  /* object -> entry, for lfa_object_release */
  lfa_cached_object *idle_oldest;      /* entries no one borrows, least recently used first... */
  lfa_cached_object *idle_newest;      /* ...to most recently used */
  lfa_object_cache_stats stats;
} lfa_object_cache;

/* An empty cache with a budget of `budget_bytes` (0: LFA_OBJECT_CACHE_BYTES_MAX). */
void lfa_object_cache_init(lfa_object_cache *cache, uint64_t budget_bytes);
void lfa_object_cache_free(lfa_object_cache *cache);

/* Where a load reads its object (`fs`, NULL: POSIX) and what lends it
 * (`cache`, NULL: none, every object is the caller's). */
typedef struct lfa_objects {
  const lfa_fs *fs;
  lfa_object_cache *cache;
} lfa_objects;

/* Reads the assignment object `f` describes, resolved to `path`, whole,
 * and checks its length [FA-STORE-5]: first the file's size, so an object
 * whose size contradicts size_bytes is that error whatever its size, never
 * a reader limit [FA-LIMIT-2]. An object that is not there (nothing, or not
 * a regular file) is FA-STORE-5 too; a file that is there but cannot be
 * read (permissions, a device error) is LFA_ERR_IO with no rule: it says
 * nothing about the dataset. Errors are prefixed with f->path.
 * OWNERSHIP: out->data is the caller's. */
lfa_status lfa_object_read(lfa_buf *out, const lfa_fs *fs, const char *path, const Lance__Table__FieldAssignmentFile *f,
                           lfa_error *err);

/* The root `f` describes, at `path`: lent by the cache, or read
 * (lfa_object_read) and decoded (lfa_root_decode). *decoded (may be NULL)
 * says whether it was read. Release it with lfa_object_release. */
lfa_status lfa_object_load_root(lfa_root **out, bool *decoded, lfa_objects at, const char *path,
                                const Lance__Table__FieldAssignmentFile *f, lfa_error *err);

/* The partial bitmap `f` describes, at `path`, like lfa_object_load_root,
 * then checked against the `physical_rows` of the fragment whose entry
 * lists it: some rows, not all [FA-BITMAP-3], all below physical_rows
 * [FA-BITMAP-4]. On failure nothing is borrowed and *out is NULL. */
lfa_status lfa_object_load_partial(roaring_bitmap_t **out, bool *decoded, lfa_objects at, const char *path,
                                   const Lance__Table__FieldAssignmentFile *f, uint64_t physical_rows, lfa_error *err);

/* The deletion set of the deletion file at `path` (`.bin` when `bitmap`,
 * else `.arrow`, lfa/deletion.h), keyed by the file's size. A file that
 * is not there is FA-LANCE-16; one that cannot be read has no rule. */
lfa_status lfa_object_load_deletion(roaring_bitmap_t **out, bool *decoded, lfa_objects at, const char *path,
                                    bool bitmap, lfa_error *err);

/* Whether `cache` (may be NULL) holds the root or partial bitmap `f`
 * describes at `path`: a load of it would read nothing. */
bool lfa_object_cached(const lfa_object_cache *cache, lfa_object_kind kind, const char *path,
                       const Lance__Table__FieldAssignmentFile *f);

/* Gives back an object a load returned (NULL is fine): the cache that lent
 * it keeps it while its budget allows; an object no cache holds is freed. */
void lfa_object_release(lfa_object_cache *cache, lfa_object_kind kind, void *object);

/* Lends `object`, which `cache` has lent to a load not yet released, once
 * more (released once more): a reader that knows it needs the same object
 * again (an unchanged fragment's deletion set, 10§5) takes it without a
 * lookup or a look at the disk. False, and nothing lent, when the cache
 * holds no such object in use. */
bool lfa_object_lend_again(lfa_object_cache *cache, void *object);

#endif
