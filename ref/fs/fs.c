/* fs.c: the POSIX file system (bounded file reads, sorted listings,
 * create-only writes) and the calls that dispatch to any lfa_fs (lfa/fs.h). */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* mkstemp, fchmod */
#include "lfa/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lfa/limits.h"

/* What a path names when it is not a regular file, for the message. */
static const char *kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "a special file";
}

/* Refuses anything but a regular file before it is opened [FA-STORE-5]: a
 * FIFO would block the open (or the read) forever, a device may act when
 * opened. The open itself is non-blocking, and what it opened is checked
 * again: the path may have changed in between. */
static int open_regular(const char *path, struct stat *st, lfa_error *err) {
  if (stat(path, st) != 0) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", path, strerror(errno)), -1;
  if (!S_ISREG(st->st_mode))
    return lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s, not a regular file: not read", path, kind_of(st->st_mode)), -1;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", path, strerror(errno)), -1;
  if (fstat(fd, st) == 0 && S_ISREG(st->st_mode)) return fd;
  close(fd);
  return lfa_fail(err, LFA_ERR_IO, NULL, "%s: no longer a regular file when opened: not read", path), -1;
}

/* `want` bytes of `fd` from `offset` appended to `out` (which is freed on
 * failure); the file closed. */
static lfa_status read_fd(lfa_buf *out, int fd, const char *path, uint64_t offset, size_t want, lfa_status rc,
                          lfa_error *err) {
  uint8_t *tail = NULL;
  if (rc == LFA_OK) rc = lfa_buf_extend(out, want, &tail, err);
  size_t got = 0;
  while (rc == LFA_OK && got < want) {
    ssize_t n = pread(fd, tail + got, want - got, (off_t)(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) rc = lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", path, strerror(errno));
    else if (n == 0) rc = lfa_fail(err, LFA_ERR_IO, NULL, "%s: short read (the file shrank while read)", path);
    else got += (size_t)n;
  }
  close(fd);
  if (rc != LFA_OK) lfa_buf_free(out);
  return rc;
}

lfa_status lfa_fs_read(lfa_buf *out, const char *path, size_t max_bytes, lfa_error *err) {
  memset(out, 0, sizeof *out);
  struct stat st;
  int fd = open_regular(path, &st, err);
  if (fd < 0) return LFA_ERR_IO;
  lfa_status rc = LFA_OK;
  if ((uint64_t)st.st_size > max_bytes)
    rc = lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "%s: %lld bytes exceeds the limit of %zu", path,
                  (long long)st.st_size, max_bytes);
  return read_fd(out, fd, path, 0, rc == LFA_OK ? (size_t)st.st_size : 0, rc, err);
}

int lfa_fs_size(const char *path, uint64_t *size) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  *size = (uint64_t)st.st_size;
  return 1;
}

int lfa_fs_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

int lfa_fs_is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void lfa_fs_names_sort_unique(lfa_names *out) {
  if (out->count < 2) return; /* qsort(NULL, 0) is UB */
  qsort(out->names, out->count, sizeof *out->names, by_name);
  size_t kept = 1;
  for (size_t i = 1; i < out->count; i++) {
    if (strcmp(out->names[i], out->names[kept - 1]) == 0) free(out->names[i]);
    else out->names[kept++] = out->names[i];
  }
  out->count = kept;
}

void lfa_fs_names_free(lfa_names *names) {
  for (size_t i = 0; i < names->count; i++) free(names->names[i]);
  free(names->names);
  memset(names, 0, sizeof *names);
}

static lfa_status push_name(lfa_names *out, size_t *cap, const char *name, lfa_error *err) {
  if (out->count == *cap) {
    size_t grown = *cap ? *cap * 2 : 16;
    char **names = realloc(out->names, grown * sizeof *names);
    if (names == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot list a directory");
    out->names = names;
    *cap = grown;
  }
  out->names[out->count] = strdup(name);
  if (out->names[out->count] == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot list a directory");
  out->count++;
  return LFA_OK;
}

lfa_status lfa_fs_list(lfa_names *out, const char *dir, int missing_ok, lfa_error *err) {
  memset(out, 0, sizeof *out);
  DIR *d = opendir(dir);
  if (d == NULL && errno == ENOENT && missing_ok) return LFA_OK;
  if (d == NULL) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", dir, strerror(errno));
  size_t cap = 0;
  lfa_status rc = LFA_OK;
  for (struct dirent *e; rc == LFA_OK && (e = readdir(d)) != NULL;) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    rc = push_name(out, &cap, e->d_name, err);
  }
  closedir(d);
  if (rc != LFA_OK) {
    lfa_fs_names_free(out);
    return rc;
  }
  lfa_fs_names_sort_unique(out);
  return LFA_OK;
}

/* mkdir -p for the directory part of `path`. */
static lfa_status make_parents(const char *path, lfa_error *err) {
  char buf[LFA_PATH_BYTES_MAX];
  size_t n = strlen(path);
  if (n >= sizeof buf) return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "path too long: %s", path);
  memcpy(buf, path, n + 1);
  for (size_t i = 1; i < n; i++) {
    if (buf[i] != '/') continue;
    buf[i] = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
      return lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", buf, strerror(errno));
    buf[i] = '/';
  }
  return LFA_OK;
}

lfa_status lfa_fs_write_new(const char *path, const uint8_t *data, size_t len, lfa_error *err) {
  lfa_status rc = make_parents(path, err);
  if (rc != LFA_OK) return rc;
  /* [FA-STORE-8] O_EXCL: an object path, once written, is never replaced (nor a link there followed). */
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return lfa_fail(err, LFA_ERR_IO, "FA-STORE-8", "%s: %s", path, strerror(errno));
  size_t put = 0;
  while (rc == LFA_OK && put < len) {
    ssize_t n = write(fd, data + put, len - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) rc = lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", path, strerror(errno));
    else put += (size_t)n;
  }
  if (close(fd) != 0 && rc == LFA_OK) rc = lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", path, strerror(errno));
  if (rc != LFA_OK) unlink(path); /* [FA-CLEAN-14] ours (O_EXCL made it), and not whole: never left behind */
  return rc;
}

/* [FA-CONC-11] The bytes go to `tmp` (create-only), then link(2) gives them
 * the final name, which fails when anything holds it: a reader never sees a
 * partial file under `path`, and an existing `path` is never replaced. */
lfa_status lfa_fs_publish_new(const char *path, const char *tmp, const uint8_t *data, size_t len, lfa_error *err) {
  lfa_status rc = lfa_fs_write_new(tmp, data, len, err);
  if (rc != LFA_OK) return rc;
  if (link(tmp, path) != 0) {
    int e = errno;
    rc = e == EEXIST ? lfa_fail(err, LFA_ERR_CONFLICT, "FA-CONC-11", "%s exists already: another writer committed it first", path)
                     : lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", path, strerror(e));
  }
  unlink(tmp); /* ours: the final name, when it was made, holds the bytes */
  return rc;
}

lfa_status lfa_fs_replace_hint(const char *path, const char *tmp, const uint8_t *data, size_t len, lfa_error *err) {
  lfa_status rc = lfa_fs_write_new(tmp, data, len, err);
  if (rc == LFA_OK && rename(tmp, path) != 0) {
    rc = lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", path, strerror(errno));
    unlink(tmp);
  }
  return rc;
}

/* mkdir, not mkdir -p: the caller claims a directory nobody else has. */
static lfa_status posix_make_dir(const char *path, lfa_error *err) {
  if (mkdir(path, 0777) == 0) return LFA_OK;
  int e = errno;
  if (e == EEXIST) return lfa_fail(err, LFA_ERR_USAGE, NULL, "%s already exists", path);
  return lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", path, strerror(e));
}

/* Bytes [offset, offset + len) of a regular file (fewer at its end). */
static lfa_status posix_read_range(lfa_buf *out, const char *path, uint64_t offset, size_t len, uint64_t *total,
                                   lfa_error *err) {
  memset(out, 0, sizeof *out);
  struct stat st;
  int fd = open_regular(path, &st, err);
  if (fd < 0) return LFA_ERR_IO;
  *total = (uint64_t)st.st_size;
  lfa_status rc = LFA_OK;
  if (offset > *total)
    rc = lfa_fail(err, LFA_ERR_IO, NULL, "%s: byte %llu is past its end (%llu bytes)", path, (unsigned long long)offset,
                  (unsigned long long)*total);
  size_t want = rc == LFA_OK && *total - offset < len ? (size_t)(*total - offset) : len;
  return read_fd(out, fd, path, offset, want, rc, err);
}

static lfa_fs_kind kind_from_mode(mode_t m) {
  if (S_ISREG(m)) return LFA_FS_FILE;
  if (S_ISDIR(m)) return LFA_FS_DIR;
  if (S_ISLNK(m)) return LFA_FS_LINK;
  return LFA_FS_OTHER;
}

static lfa_status posix_stat(const char *path, int follow, lfa_fs_stat *out, lfa_error *err) {
  struct stat s;
  memset(out, 0, sizeof *out);
  if ((follow ? stat(path, &s) : lstat(path, &s)) != 0) {
    if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP) return LFA_OK; /* nothing (or a link loop) there */
    return lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", path, strerror(errno));
  }
  *out = (lfa_fs_stat){kind_from_mode(s.st_mode), (uint64_t)s.st_size, (int64_t)s.st_mtime, (uint64_t)s.st_dev,
                       (uint64_t)s.st_ino, 0};
  return LFA_OK;
}

/* Opens the directories of `rel` under `dir` one at a time, none through a
 * link [FA-CLEAN-6]; *last is the file name left. -1 with errno set. */
static int open_parent(const char *dir, char *rel, char **last) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  char *seg = rel;
  for (char *slash; fd >= 0 && (slash = strchr(seg, '/')) != NULL; seg = slash + 1) {
    *slash = '\0';
    int next = openat(fd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    close(fd);
    fd = next, errno = e;
  }
  *last = seg;
  return fd;
}

/* What an errno of the walk or the unlink means: nothing there, something
 * else there (a link or a file where a directory was), or a failure. */
static int removed_by_errno(lfa_fs_removed *outcome, int e) {
  if (e == ENOENT) return *outcome = LFA_FS_GONE, 1;
  if (e == ELOOP || e == ENOTDIR) return *outcome = LFA_FS_CHANGED, 1;
  return 0;
}

/* Unlinks dir/rel while it is a regular file, and (when `expect` is given)
 * the very file planned: same device and inode. */
static lfa_status posix_remove_beneath(lfa_fs_removed *outcome, uint64_t *size, const char *dir, const char *rel,
                                       const lfa_fs_stat *expect, lfa_error *err) {
  char buf[LFA_PATH_BYTES_MAX], *name;
  struct stat s;
  *size = 0;
  if (strlen(rel) >= sizeof buf) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", rel, strerror(ENAMETOOLONG));
  memcpy(buf, rel, strlen(rel) + 1);
  int fd = open_parent(dir, buf, &name);
  if (fd < 0) {
    int e = errno;
    return removed_by_errno(outcome, e) ? LFA_OK : lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", rel, strerror(e));
  }
  lfa_status rc = LFA_OK;
  *outcome = LFA_FS_REMOVED;
  if (fstatat(fd, name, &s, AT_SYMLINK_NOFOLLOW) != 0) {
    int e = errno;
    if (!removed_by_errno(outcome, e)) rc = lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", rel, strerror(e));
  } else if (!S_ISREG(s.st_mode) ||
             (expect && ((uint64_t)s.st_dev != expect->dev || (uint64_t)s.st_ino != expect->ino))) {
    *outcome = LFA_FS_CHANGED;
  } else if (unlinkat(fd, name, 0) != 0) {
    int e = errno;
    if (!removed_by_errno(outcome, e)) rc = lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", rel, strerror(e));
  } else {
    *size = (uint64_t)s.st_size;
  }
  close(fd);
  return rc;
}

/* ---- the POSIX table and the dispatching calls ---------------------------------------- */

static lfa_status op_read(void *ctx, lfa_buf *out, const char *path, size_t max_bytes, lfa_error *err) {
  (void)ctx;
  return lfa_fs_read(out, path, max_bytes, err);
}
static int op_size(void *ctx, const char *path, uint64_t *size) { return (void)ctx, lfa_fs_size(path, size); }
static int op_exists(void *ctx, const char *path) { return (void)ctx, lfa_fs_exists(path); }
static int op_is_dir(void *ctx, const char *path) { return (void)ctx, lfa_fs_is_dir(path); }
static lfa_status op_list(void *ctx, lfa_names *out, const char *dir, int missing_ok, lfa_error *err) {
  (void)ctx;
  return lfa_fs_list(out, dir, missing_ok, err);
}
static lfa_status op_write_new(void *ctx, const char *path, const uint8_t *data, size_t len, lfa_error *err) {
  (void)ctx;
  return lfa_fs_write_new(path, data, len, err);
}
static lfa_status op_make_dir(void *ctx, const char *path, lfa_error *err) {
  (void)ctx;
  return posix_make_dir(path, err);
}

static lfa_status op_read_range(void *ctx, lfa_buf *out, const char *path, uint64_t offset, size_t len, uint64_t *total,
                                lfa_error *err) {
  (void)ctx;
  return posix_read_range(out, path, offset, len, total, err);
}
static lfa_status op_stat(void *ctx, const char *path, int follow, lfa_fs_stat *out, lfa_error *err) {
  (void)ctx;
  return posix_stat(path, follow, out, err);
}
static lfa_status op_remove_beneath(void *ctx, lfa_fs_removed *outcome, uint64_t *size, const char *dir,
                                    const char *rel, const lfa_fs_stat *expect, lfa_error *err) {
  (void)ctx;
  return posix_remove_beneath(outcome, size, dir, rel, expect, err);
}
static lfa_status op_publish_new(void *ctx, const char *path, const char *tmp, const uint8_t *data, size_t len,
                                 lfa_error *err) {
  (void)ctx;
  return lfa_fs_publish_new(path, tmp, data, len, err);
}
static lfa_status op_replace_hint(void *ctx, const char *path, const char *tmp, const uint8_t *data, size_t len,
                                  lfa_error *err) {
  (void)ctx;
  return lfa_fs_replace_hint(path, tmp, data, len, err);
}

static char *op_real_path(void *ctx, const char *path) {
  (void)ctx;
  if (strncmp(path, "file://", 7) == 0) path += 7;
  return realpath(path, NULL);
}

static const lfa_fs_ops POSIX_OPS = {op_read,       op_size,        op_exists,         op_is_dir,
                                     op_list,       op_write_new,   op_make_dir,       op_read_range,
                                     op_stat,       op_remove_beneath, op_publish_new, op_replace_hint,
                                     NULL,          op_real_path,   LFA_FS_CAP_MTIME};
static const lfa_fs POSIX = {&POSIX_OPS, NULL}; /* constant: the POSIX file system keeps no state */

const lfa_fs *lfa_fs_posix(void) { return &POSIX; }

static const lfa_fs *or_posix(const lfa_fs *fs) { return fs != NULL ? fs : &POSIX; }

lfa_status lfa_fs_read_in(lfa_buf *out, const lfa_fs *fs, const char *path, size_t max_bytes, lfa_error *err) {
  fs = or_posix(fs);
  return fs->ops->read(fs->ctx, out, path, max_bytes, err);
}

lfa_status lfa_fs_read_expected(lfa_buf *out, const lfa_fs *fs, const char *path, size_t max_bytes, const char *rule,
                                lfa_error *err) {
  lfa_status st = lfa_fs_read_in(out, fs, path, max_bytes, err);
  uint64_t size = 0;
  if (st == LFA_ERR_IO && err != NULL && err->rule == NULL && !lfa_fs_size_in(fs, path, &size)) err->rule = rule;
  return st;
}

int lfa_fs_size_in(const lfa_fs *fs, const char *path, uint64_t *size) {
  fs = or_posix(fs);
  return fs->ops->size(fs->ctx, path, size);
}

int lfa_fs_exists_in(const lfa_fs *fs, const char *path) {
  fs = or_posix(fs);
  return fs->ops->exists(fs->ctx, path);
}

int lfa_fs_is_dir_in(const lfa_fs *fs, const char *path) {
  fs = or_posix(fs);
  return fs->ops->is_dir(fs->ctx, path);
}

bool lfa_fs_is_name(const char *name) {
  return name[0] != '\0' && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && strchr(name, '/') == NULL;
}

bool lfa_fs_is_relative_names(const char *rel) {
  char seg[LFA_PATH_BYTES_MAX];
  for (const char *p = rel;; p++) {
    size_t n = strcspn(p, "/");
    if (n == 0 || n >= sizeof seg) return false;
    memcpy(seg, p, n);
    seg[n] = '\0';
    if (!lfa_fs_is_name(seg)) return false;
    p += n;
    if (*p == '\0') return true;
  }
}

/* ---- files for the user ---------------------------------------------------------------------- */

lfa_status lfa_fs_out_open(lfa_fs_out *o, const char *path, lfa_error *err) {
  memset(o, 0, sizeof *o);
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  int dn = slash ? (int)(slash - path + 1) : 0;
  int n = snprintf(o->tmp, sizeof o->tmp, "%.*s." "%s" LFA_FS_OUT_TMP_MARK "XXXXXX", dn, path, base);
  if (base[0] == '\0' || n < 0 || (size_t)n >= sizeof o->tmp || strlen(path) >= sizeof o->path)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "%s: not a file name lfa can write beside", path);
  memcpy(o->path, path, strlen(path) + 1);
  int fd = mkstemp(o->tmp); /* O_CREAT|O_EXCL, mode 0600: nothing there is followed */
  if (fd < 0) return lfa_fail(err, LFA_ERR_IO, NULL, "%s: cannot create a file beside it: %s", path, strerror(errno));
  mode_t mask = umask(022);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0 || (o->f = fdopen(fd, "w")) == NULL) {
    int e = errno;
    close(fd);
    unlink(o->tmp);
    return lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", o->tmp, strerror(e));
  }
  return LFA_OK;
}

lfa_status lfa_fs_out_commit(lfa_fs_out *o, lfa_error *err) {
  bool ok = fflush(o->f) == 0 && !ferror(o->f) && fsync(fileno(o->f)) == 0;
  int e = errno;
  ok = fclose(o->f) == 0 && ok;
  if (!ok && e == 0) e = errno;
  o->f = NULL;
  if (ok && rename(o->tmp, o->path) == 0) return LFA_OK;
  if (ok) e = errno;
  unlink(o->tmp);
  return lfa_fail(err, LFA_ERR_IO, NULL, "%s: %s", o->path, strerror(e));
}

void lfa_fs_out_abandon(lfa_fs_out *o) {
  if (o->f == NULL) return;
  fclose(o->f);
  o->f = NULL;
  unlink(o->tmp);
}

bool lfa_fs_listing_refused(const lfa_error *err) {
  return err->rule != NULL && strcmp(err->rule, "FA-CLEAN-12") == 0;
}

/* [FA-CLEAN-12] Every name any file system lists is checked here, once: a
 * name that is a path ("..", "a/b") would lead a walk out of the directory
 * listed, so the listing is refused, never filtered. */
lfa_status lfa_fs_list_in(lfa_names *out, const lfa_fs *fs, const char *dir, int missing_ok, lfa_error *err) {
  fs = or_posix(fs);
  lfa_status st = fs->ops->list(fs->ctx, out, dir, missing_ok, err);
  for (size_t i = 0; st == LFA_OK && i < out->count; i++)
    if (!lfa_fs_is_name(out->names[i])) {
      st = lfa_fail(err, LFA_ERR_IO, "FA-CLEAN-12", "%s: the listing gives '%.200s', which is not a name (empty, '.', "
                    "'..' or holding '/'): refused", dir, out->names[i]);
      lfa_fs_names_free(out);
    }
  return st;
}

lfa_status lfa_fs_write_new_in(const lfa_fs *fs, const char *path, const uint8_t *data, size_t len, lfa_error *err) {
  fs = or_posix(fs);
  return fs->ops->write_new(fs->ctx, path, data, len, err);
}

lfa_status lfa_fs_make_dir_in(const lfa_fs *fs, const char *path, lfa_error *err) {
  fs = or_posix(fs);
  return fs->ops->make_dir(fs->ctx, path, err);
}

lfa_status lfa_fs_read_range_in(lfa_buf *out, const lfa_fs *fs, const char *path, uint64_t offset, size_t len,
                                uint64_t *total, lfa_error *err) {
  fs = or_posix(fs);
  return fs->ops->read_range(fs->ctx, out, path, offset, len, total, err);
}

lfa_status lfa_fs_stat_in(const lfa_fs *fs, const char *path, int follow, lfa_fs_stat *out, lfa_error *err) {
  fs = or_posix(fs);
  return fs->ops->stat(fs->ctx, path, follow, out, err);
}

lfa_status lfa_fs_remove_beneath_in(const lfa_fs *fs, lfa_fs_removed *outcome, uint64_t *size, const char *dir,
                                    const char *rel, const lfa_fs_stat *expect, lfa_error *err) {
  fs = or_posix(fs);
  *size = 0;
  if (!lfa_fs_is_relative_names(rel)) /* [FA-CLEAN-12] never a path that could climb out of dir */
    return lfa_fail(err, LFA_ERR_IO, "FA-CLEAN-12", "%s: '%.200s' is not a path of names below it: not deleted", dir, rel);
  return fs->ops->remove_beneath(fs->ctx, outcome, size, dir, rel, expect, err);
}

lfa_status lfa_fs_publish_new_in(const lfa_fs *fs, const char *path, const char *tmp, const uint8_t *data, size_t len,
                                 lfa_error *err) {
  fs = or_posix(fs);
  return fs->ops->publish_new(fs->ctx, path, tmp, data, len, err);
}

lfa_status lfa_fs_replace_hint_in(const lfa_fs *fs, const char *path, const char *tmp, const uint8_t *data, size_t len,
                                  lfa_error *err) {
  fs = or_posix(fs);
  return fs->ops->replace_hint(fs->ctx, path, tmp, data, len, err);
}

void lfa_fs_prefetch_in(const lfa_fs *fs, const char *const *paths, size_t n) {
  fs = or_posix(fs);
  if (fs->ops->prefetch != NULL && n > 0) fs->ops->prefetch(fs->ctx, paths, n);
}

char *lfa_fs_real_path_in(const lfa_fs *fs, const char *path) {
  fs = or_posix(fs);
  if (fs->ops->real_path != NULL) return fs->ops->real_path(fs->ctx, path);
  size_t n = strlen(path);
  while (n > 1 && path[n - 1] == '/') n--;
  char *s = malloc(n + 1);
  if (s != NULL) memcpy(s, path, n), s[n] = '\0';
  return s;
}

unsigned lfa_fs_caps(const lfa_fs *fs) { return or_posix(fs)->ops->caps; }

lfa_status lfa_fs_join(char *out, size_t cap, const char *a, const char *b, lfa_error *err) {
  size_t la = strlen(a), lb = strlen(b);
  while (la > 1 && a[la - 1] == '/') la--;
  size_t n = la + 1 + lb; /* "<a>/<b>" */
  if (n >= cap || n >= LFA_PATH_BYTES_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "path too long: %s/%s", a, b);
  memcpy(out, a, la);
  out[la] = '/';
  memcpy(out + la + 1, b, lb + 1);
  return LFA_OK;
}
