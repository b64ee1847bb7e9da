/* vanish_preload.c: a file that vanishes between being listed (or
 * stat'ed) and being opened, on demand, for tests/cli/cli_hostile_fs.sh.
 *
 * Preloaded into `lfa` (LD_PRELOAD), it removes the file whose path ends
 * with $LFA_TEST_VANISH (after a '/') at the moment the program opens it,
 * then lets the open go ahead, which finds nothing there: the race a
 * concurrent cleanup wins, made certain. Only open(2) is intercepted: lfa
 * opens every file it reads with it (ref/fs/fs.c). Not part of lfa: built
 * for the tests only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

int open(const char *path, int flags, ...);

/* Whether `path` is the file to make vanish: it ends with "/" + the name. */
static bool doomed(const char *path) {
  const char *want = getenv("LFA_TEST_VANISH");
  if (want == NULL || want[0] == '\0' || path == NULL) return false;
  size_t n = strlen(path), w = strlen(want);
  return n > w && path[n - w - 1] == '/' && strcmp(path + n - w, want) == 0;
}

int open(const char *path, int flags, ...) {
  mode_t mode = 0;
  if ((flags & O_CREAT) != 0) {
    va_list ap;
    va_start(ap, flags);
    mode = (mode_t)va_arg(ap, int); /* mode_t is promoted to int through ... */
    va_end(ap);
  }
  if (doomed(path)) unlink(path);
  void *found = dlsym(RTLD_NEXT, "open");
  int (*real_open)(const char *, int, ...) = NULL;
  memcpy(&real_open, &found, sizeof real_open); /* ISO C has no cast from object to function pointer */
  if (real_open == NULL) return -1;
  return real_open(path, flags, mode);
}
