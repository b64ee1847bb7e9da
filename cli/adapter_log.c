/* adapter_log.c: an adapter's output kept bounded (adapter_log.h). */
#define _POSIX_C_SOURCE 200809L
#include "adapter_log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

bool adapter_log_open(adapter_log *l, const char *path) {
  int fds[2];
  memset(l, 0, sizeof *l);
  l->read_fd = l->write_fd = -1;
  if (pipe(fds) != 0) return false;
  l->read_fd = fds[0], l->write_fd = fds[1];
  (void)fcntl(l->read_fd, F_SETFD, FD_CLOEXEC);
  l->tail = malloc(LFA_ADAPTER_LOG_TAIL_BYTES);
  l->file = l->tail != NULL ? fopen(path, "w") : NULL;
  if (l->file != NULL) { /* the adapter writes only through the pipe, never to the file */
    (void)fcntl(fileno(l->file), F_SETFD, FD_CLOEXEC);
    return true;
  }
  int e = l->tail == NULL ? ENOMEM : errno;
  close(fds[0]), close(fds[1]), free(l->tail);
  errno = e;
  return false;
}

bool adapter_log_child(adapter_log *l) {
  close(l->read_fd);
  return dup2(l->write_fd, STDOUT_FILENO) >= 0 && dup2(l->write_fd, STDERR_FILENO) >= 0;
}

void adapter_log_parent(adapter_log *l) {
  close(l->write_fd);
  l->write_fd = -1;
}

/* n bytes printed: into the head while it has room, then into the ring. */
static void keep(adapter_log *l, const uint8_t *b, size_t n) {
  l->total += n;
  size_t h = l->head < LFA_ADAPTER_LOG_HEAD_BYTES ? LFA_ADAPTER_LOG_HEAD_BYTES - (size_t)l->head : 0;
  if (h > n) h = n;
  if (h > 0) l->head += fwrite(b, 1, h, l->file);
  for (size_t i = h; i < n;) {
    size_t room = LFA_ADAPTER_LOG_TAIL_BYTES - l->tail_at, k = n - i < room ? n - i : room;
    memcpy(l->tail + l->tail_at, b + i, k);
    l->tail_at = (l->tail_at + k) % LFA_ADAPTER_LOG_TAIL_BYTES;
    l->tail_len = l->tail_len + k > LFA_ADAPTER_LOG_TAIL_BYTES ? LFA_ADAPTER_LOG_TAIL_BYTES : l->tail_len + k;
    i += k;
  }
}

bool adapter_log_pump(adapter_log *l, int ms) {
  if (l->read_fd < 0) return false;
  struct pollfd p = {l->read_fd, POLLIN, 0};
  int r = poll(&p, 1, ms);
  if (r <= 0) return r == 0 || errno == EINTR;
  uint8_t buf[65536];
  ssize_t n = read(l->read_fd, buf, sizeof buf);
  if (n > 0) keep(l, buf, (size_t)n);
  if (n > 0 || (n < 0 && errno == EINTR)) return true;
  close(l->read_fd);
  l->read_fd = -1;
  return false;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void adapter_log_close(adapter_log *l, int ms) {
  double end = now_ms() + ms;
  while (adapter_log_pump(l, 10) && now_ms() < end) {
  }
  if (l->read_fd >= 0) close(l->read_fd);
  uint64_t dropped = l->total - l->head - l->tail_len;
  if (dropped > 0)
    fprintf(l->file,
            "\n[lfa conformance: %" PRIu64 " bytes of the adapter's output dropped here; the log keeps its first %u "
            "and its last %u bytes (LFA_ADAPTER_LOG_HEAD_BYTES, LFA_ADAPTER_LOG_TAIL_BYTES)]\n",
            dropped, LFA_ADAPTER_LOG_HEAD_BYTES, LFA_ADAPTER_LOG_TAIL_BYTES);
  size_t start = (l->tail_at + LFA_ADAPTER_LOG_TAIL_BYTES - l->tail_len) % LFA_ADAPTER_LOG_TAIL_BYTES;
  size_t first = l->tail_len < LFA_ADAPTER_LOG_TAIL_BYTES - start ? l->tail_len : LFA_ADAPTER_LOG_TAIL_BYTES - start;
  fwrite(l->tail + start, 1, first, l->file);
  fwrite(l->tail, 1, l->tail_len - first, l->file);
  fclose(l->file);
  free(l->tail);
  memset(l, 0, sizeof *l);
  l->read_fd = l->write_fd = -1;
}
