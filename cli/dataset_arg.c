/* dataset_arg.c: the DATASET argument of a command, opened where it is, and its --stats (dataset_arg.h). */
#include "dataset_arg.h"

#include <inttypes.h>
#include <string.h>

#include "args.h"

static const char *backend(const lfa_cli_dataset *s) { return s->d.s3 != NULL ? "s3" : "local"; }

bool lfa_cli_dataset_open(lfa_cli_dataset *s, const char *cmd, const char *dataset, bool allow_http, bool stats) {
  memset(s, 0, sizeof *s);
  s->cmd = cmd, s->stats = stats;
  lfa_error err = {0};
  if (lfa_fs_open_url(&s->d, dataset, allow_http, &err) != LFA_OK) {
    lfa_cli_fail(cmd, dataset, err.msg);
    return false;
  }
  return true;
}

void lfa_cli_dataset_put_stats(const lfa_cli_dataset *s, lfa_json_writer *w) {
  if (!s->stats) return;
  lfa_fs_stats t = lfa_dataset_fs_stats(&s->d);
  lfa_json_open_flow_object(w, "stats");
  lfa_json_put_string(w, "backend", backend(s));
  lfa_json_put_u64(w, "requests", t.requests);
  lfa_json_put_u64(w, "bytes_read", t.bytes_read);
  lfa_json_put_u64(w, "bytes_written", t.bytes_written);
  lfa_json_put_u64(w, "retries", t.retries);
  lfa_json_close_object(w);
}

void lfa_cli_dataset_close(lfa_cli_dataset *s) {
  lfa_fs_stats t = lfa_dataset_fs_stats(&s->d);
  if (s->stats)
    fprintf(stderr,
            "lfa %s: stats (%s): %" PRIu64 " requests, %" PRIu64 " bytes read, %" PRIu64 " bytes written, %" PRIu64
            " retries\n",
            s->cmd, backend(s), t.requests, t.bytes_read, t.bytes_written, t.retries);
  lfa_dataset_fs_close(&s->d);
  memset(s, 0, sizeof *s);
}
