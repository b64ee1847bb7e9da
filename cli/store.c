/* store.c: a command's DATASET opened where it is, and its --stats (store.h). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "store.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

bool lfa_cli_store_open(lfa_cli_store *s, const char *cmd, const char *dataset, bool allow_http, bool stats,
                        bool json) {
  memset(s, 0, sizeof *s);
  s->cmd = cmd, s->stats = stats, s->json = json;
  lfa_error err = {0};
  if (lfa_fs_open_url(&s->d, dataset, allow_http, &err) != LFA_OK) {
    lfa_cli_fail(cmd, dataset, err.msg);
    return false;
  }
  return true;
}

FILE *lfa_cli_store_json(lfa_cli_store *s) {
  if (!s->stats || !s->json) return stdout;
  if (s->mem == NULL) s->mem = open_memstream(&s->buf, &s->len);
  return s->mem != NULL ? s->mem : stdout;
}

void lfa_cli_store_close(lfa_cli_store *s) {
  lfa_fs_stats t = lfa_dataset_fs_stats(&s->d);
  const char *backend = s->d.s3 != NULL ? "s3" : "local";
  if (s->stats)
    fprintf(stderr,
            "lfa %s: stats (%s): %" PRIu64 " requests, %" PRIu64 " bytes read, %" PRIu64 " bytes written, %" PRIu64
            " retries\n",
            s->cmd, backend, t.requests, t.bytes_read, t.bytes_written, t.retries);
  if (s->mem != NULL) {
    fclose(s->mem);
    /* the document is one object: "stats" goes in before its last '}' */
    size_t end = s->len;
    while (end > 0 && s->buf[end - 1] != '}') end--;
    if (end == 0) {
      fwrite(s->buf, 1, s->len, stdout);
    } else {
      size_t keep = end - 1; /* before the '}' and the blanks before it */
      while (keep > 0 && (s->buf[keep - 1] == '\n' || s->buf[keep - 1] == ' ')) keep--;
      fwrite(s->buf, 1, keep, stdout);
      printf(",\n  \"stats\": {\"backend\": \"%s\", \"requests\": %" PRIu64 ", \"bytes_read\": %" PRIu64
             ", \"bytes_written\": %" PRIu64 ", \"retries\": %" PRIu64 "}\n}\n",
             backend, t.requests, t.bytes_read, t.bytes_written, t.retries);
    }
    free(s->buf);
  }
  lfa_dataset_fs_close(&s->d);
  memset(s, 0, sizeof *s);
}
