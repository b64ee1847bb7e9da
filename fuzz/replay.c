/* replay.c: runs LLVMFuzzerTestOneInput over files, without a fuzzing
 * engine. Linked with every target as `<target>_replay` in every build
 * variant; ctest runs it over corpus/<target>/ (fuzz/CMakeLists.txt).
 *
 *   <target>_replay PATH...
 *
 * Each PATH is a file, or a folder whose regular files (not recursing, not
 * hidden ones) are replayed in name order. Each input is read into a buffer
 * of exactly its size, so sanitizers see reads past its end. A finding
 * aborts the process (FUZZ_ASSERT or a sanitizer), naming the input first on
 * stderr. Exit 0 when every input ran; 1 when a path cannot be read or the
 * paths hold no input at all (an empty corpus is a mistake, not a pass).
 */
#define _POSIX_C_SOURCE 200809L /* opendir, stat, fileno under -std=c11 */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_helpers.h"

/* Targets may define LLVMFuzzerInitialize; most do not. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return 1;
  }
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || st.st_size < 0) {
    fprintf(stderr, "replay: cannot stat %s\n", path);
    fclose(f);
    return 1;
  }
  size_t len = (size_t)st.st_size;
  uint8_t *data = malloc(len > 0 ? len : 1);
  if (data == NULL || (len > 0 && fread(data, 1, len, f) != len)) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    free(data);
    fclose(f);
    return 1;
  }
  fclose(f);
  fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
  LLVMFuzzerTestOneInput(data, len);
  free(data);
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Replays the regular files of `dir` in name order; adds them to *count. */
static int run_dir(const char *dir, size_t *count) {
  DIR *d = opendir(dir);
  if (d == NULL) {
    fprintf(stderr, "replay: cannot open folder %s\n", dir);
    return 1;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  int failed = 0;
  for (struct dirent *e = readdir(d); e != NULL && !failed; e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    size_t need = strlen(dir) + strlen(e->d_name) + 2;
    char *path = malloc(need);
    char **grown = n == cap ? realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names) : names;
    if (path == NULL || grown == NULL) {
      free(path);
      failed = 1;
      break;
    }
    names = grown;
    snprintf(path, need, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) names[n++] = path;
    else free(path);
  }
  closedir(d);
  if (n > 0) qsort(names, n, sizeof *names, by_name);
  for (size_t i = 0; i < n; i++) {
    if (!failed) failed = run_file(names[i]);
    free(names[i]);
  }
  free(names);
  *count += n;
  if (failed) fprintf(stderr, "replay: cannot list %s\n", dir);
  return failed;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE_OR_FOLDER...\n", argv[0]);
    return 1;
  }
  if (LLVMFuzzerInitialize != NULL) LLVMFuzzerInitialize(&argc, &argv);
  size_t count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: no such file or folder: %s\n", argv[i]);
      return 1;
    }
    int failed = S_ISDIR(st.st_mode) ? run_dir(argv[i], &count) : run_file(argv[i]);
    if (failed) return 1;
    if (!S_ISDIR(st.st_mode)) count++;
  }
  if (count == 0) {
    fprintf(stderr, "replay: no input in the given paths\n");
    return 1;
  }
  printf("replay: %zu inputs ran, none failed\n", count);
  return 0;
}
