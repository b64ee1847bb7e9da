/* memfs.h: a file system in memory, a bounded set of named files (and the
 * directories a writer claims), usable wherever lfa takes an lfa_fs
 * (lfa/fs.h). The fuzz targets read and write whole datasets in it, so no
 * target touches a disk; the tests compare a dataset written here with the
 * same one written to disk.
 *
 * Paths. A memfs has one root. A path names the entry found by its
 * segments between '/', leaving out empty ones and ".": "/a//b", "./a/b"
 * and "a/b" are the same file, and "", "." and "/" the root. ".." is a
 * name like any other (no parent is looked up): the dataset reader refuses
 * such paths before it asks a file system [FA-STORE-9]. A directory exists
 * when something is under it or when make_dir made it; the root always
 * exists, and may be claimed once with make_dir while it is empty, so a
 * writer can write a dataset at the root of a fresh memfs.
 *
 * Bounds (lfa/limits.h): at most LFA_MEMFS_FILES_MAX entries (files and
 * directories made with make_dir) and LFA_MEMFS_BYTES_MAX bytes of file
 * content in all; past either, a write or a decode fails with LFA_ERR_LIMIT
 * before allocating.
 *
 * The container: a memfs as one byte string, the fuzz targets' input.
 *
 *   container := entry*                         (0 entries: an empty memfs)
 *   entry     := varint(n) name[n] varint(m) data[m]
 *   varint    := unsigned LEB128: 7 bits per byte, low group first, the high
 *                bit set on every byte but the last; at most 10 bytes, and
 *                the value must fit 64 bits
 *
 * No magic, no padding, no checksum: every byte is part of a length, a
 * name or a file's content, so changing any byte changes the directory or
 * makes the container invalid. A container is valid when it parses exactly
 * to its end and: each name is 1 to LFA_PATH_BYTES_MAX - 1 bytes, holds no
 * NUL byte and names something other than the root; no two names name the
 * same path; no file is also a directory of another ("a" and "a/b"); the
 * limits above hold. Entries may come in any order. Failures: LFA_ERR_TRUNCATED
 * (a varint or a length runs past the end), LFA_ERR_FORMAT (a varint past
 * 64 bits, a bad or repeated name, a file under a file), LFA_ERR_LIMIT.
 * lfa_memfs_encode writes files in name order, directories not at all (they
 * are implied by the files under them).
 */
#ifndef LFA_MEMFS_H
#define LFA_MEMFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"
#include "lfa/fs.h"

typedef struct lfa_memfs_entry {
  char *name; /* the normalized path: segments joined by '/'; owned */
  bool dir;   /* a directory made with make_dir (no data) */
  uint64_t serial; /* the memfs's count of entries made when this one was */
  lfa_buf data;
} lfa_memfs_entry;

/* OWNERSHIP: the memfs owns its entries; lfa_memfs_free releases them.
 * `fs` is this memfs as an lfa_fs: its context points at the memfs, which
 * must therefore not move while `fs` is in use. */
typedef struct lfa_memfs {
  size_t count, cap;
  lfa_memfs_entry *entries; /* ascending by name (strcmp) */
  uint64_t bytes;           /* file content held, all files together */
  bool root_claimed;        /* make_dir took the root */
  uint64_t serial;          /* entries made so far (lfa_memfs_mark) */
  lfa_fs fs;
} lfa_memfs;

/* An empty memfs. */
void lfa_memfs_init(lfa_memfs *m);
void lfa_memfs_free(lfa_memfs *m);

/* The file at `path`, or NULL (also for a directory). */
const lfa_memfs_entry *lfa_memfs_find(const lfa_memfs *m, const char *path);

/* Creates or replaces the file at `path` with a copy of the bytes. Unlike
 * the create-only write_new of the lfa_fs, this one overwrites: it is for
 * whoever builds or edits a memfs (the container decoder, fault injection).
 * Fails as write_new does on a bad path or a file above it, and with
 * LFA_ERR_LIMIT past the bounds. */
lfa_status lfa_memfs_put(lfa_memfs *m, const char *path, const uint8_t *data, size_t len, lfa_error *err);

/* A point to come back to, and going back to it: every entry made since
 * is removed. An entry overwritten since (lfa_memfs_put) keeps its new
 * content: it is for undoing commits, which only create (FA-STORE-8). */
uint64_t lfa_memfs_mark(const lfa_memfs *m);
void lfa_memfs_rewind(lfa_memfs *m, uint64_t mark);

/* Removes the file at `path`; false when there is none. */
bool lfa_memfs_remove(lfa_memfs *m, const char *path);

/* Parses a container (see above) into *out, an empty memfs on failure.
 * OWNERSHIP: *out is the caller's (lfa_memfs_free), also on failure. */
lfa_status lfa_memfs_decode(lfa_memfs *out, const uint8_t *data, size_t len, lfa_error *err);

/* Appends the container of `m` (files in name order) to `out`. */
lfa_status lfa_memfs_encode(lfa_buf *out, const lfa_memfs *m, lfa_error *err);

#endif
