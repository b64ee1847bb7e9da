/* adapter_log.h: what an adapter prints, kept bounded (lfa conformance).
 *
 * The adapter's stdout and stderr go to a pipe lfa reads while it waits,
 * never straight to a file, so a writer that prints without end cannot fill
 * the disk: OUT.log keeps the first LFA_ADAPTER_LOG_HEAD_BYTES and the last
 * LFA_ADAPTER_LOG_TAIL_BYTES, and between them one line saying how many
 * bytes were dropped. */
#ifndef LFA_CLI_ADAPTER_LOG_H
#define LFA_CLI_ADAPTER_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define LFA_ADAPTER_LOG_HEAD_BYTES (1u << 20) /* the start of the output, kept as printed */
#define LFA_ADAPTER_LOG_TAIL_BYTES (1u << 20) /* and its end (where a failure says why) */
#define LFA_ADAPTER_REAP_MS 2000u             /* to reap the adapter's process group, and read its last output */

typedef struct adapter_log {
  int read_fd, write_fd; /* the pipe; the adapter writes to write_fd */
  FILE *file;            /* OUT.log */
  uint64_t total, head;  /* bytes read; of them, written to the file */
  uint8_t *tail;         /* a ring of the last bytes after the head */
  size_t tail_len, tail_at;
} adapter_log;

/* The pipe, and OUT.log created empty. False (errno set) when either fails. */
bool adapter_log_open(adapter_log *l, const char *path);
/* In the child, before exec: stdout and stderr to the pipe. */
bool adapter_log_child(adapter_log *l);
/* In the parent, after fork: its copy of the write end closed. */
void adapter_log_parent(adapter_log *l);
/* Reads what the adapter printed, waiting at most `ms` for some. False at
 * the end of the output (every writer closed the pipe). */
bool adapter_log_pump(adapter_log *l, int ms);
/* Reads what is left (at most `ms` more), writes the dropped-bytes line and
 * the tail, and closes OUT.log. */
void adapter_log_close(adapter_log *l, int ms);

#endif
