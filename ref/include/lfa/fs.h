/* fs.h: the file-system edge of lfa. The format layer never touches files;
 * readers and writers of whole datasets go through these few calls, which
 * bound what they read and never overwrite an existing object. */
#ifndef LFA_FS_H
#define LFA_FS_H

#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"

/* Reads a whole regular file, failing with LFA_ERR_LIMIT (before reading)
 * when it is larger than max_bytes. OWNERSHIP: out->data is the caller's. */
lfa_status lfa_fs_read(lfa_buf *out, const char *path, size_t max_bytes, lfa_error *err);

/* True when `path` exists (any kind of entry). */
int lfa_fs_exists(const char *path);

/* True when `path` is a regular file; *size is then its size in bytes. */
int lfa_fs_size(const char *path, uint64_t *size);

/* True when `path` is a directory (links followed). */
int lfa_fs_is_dir(const char *path);

/* The names in a directory (no "." or ".."), sorted bytewise.
 * OWNERSHIP: free with lfa_fs_names_free. A missing directory is an empty
 * list when `missing_ok`, else LFA_ERR_IO. */
typedef struct lfa_names {
  size_t count;
  char **names;
} lfa_names;
lfa_status lfa_fs_list(lfa_names *out, const char *dir, int missing_ok, lfa_error *err);
void lfa_fs_names_free(lfa_names *names);

/* Creates `path` with exactly these bytes, creating missing parent
 * directories; fails if the file exists [FA-STORE-8]. */
lfa_status lfa_fs_write_new(const char *path, const uint8_t *data, size_t len, lfa_error *err);

/* Joins two path parts with one '/', failing past LFA_PATH_BYTES_MAX. */
lfa_status lfa_fs_join(char *out, size_t cap, const char *a, const char *b, lfa_error *err);

#endif
