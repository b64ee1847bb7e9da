/* history.c: build, rebase, commit, write (lfa/history.h). */
#include "lfa/history.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/rebase.h"

lfa_status lfa_history_open(lfa_history *h, const char *dir, uint64_t seed, lfa_error *err) {
  return lfa_history_open_in(h, lfa_fs_posix(), dir, seed, err);
}

lfa_status lfa_history_open_in(lfa_history *h, const lfa_fs *fs, const char *dir, uint64_t seed, lfa_error *err) {
  memset(h, 0, sizeof *h);
  return dir ? lfa_writer_open_in(&h->writer, fs, dir, seed, err) : LFA_OK;
}

const lfa_table *lfa_history_head(const lfa_history *h) { return h->count ? &h->versions[h->count - 1] : NULL; }

const lfa_table *lfa_history_version(const lfa_history *h, uint64_t v) {
  return v >= 1 && v <= h->count ? &h->versions[v - 1] : NULL;
}

/* The table a Restore or Clone takes its snapshot from. */
static lfa_status source_of(const lfa_table **out, const lfa_history *h, const lfa_request *req, uint64_t r,
                            lfa_error *err) {
  *out = NULL;
  if (req->op == LFA_OP_CLONE) *out = lfa_history_version(h, r);
  if (req->op != LFA_OP_RESTORE) return LFA_OK;
  if ((*out = lfa_history_version(h, req->version)) == NULL)
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "version %" PRIu64 " does not exist", req->version);
  return LFA_OK;
}

static lfa_status grow(lfa_history *h, lfa_error *err) {
  lfa_table *v = realloc(h->versions, (h->count + 1) * sizeof *v);
  if (v != NULL) h->versions = v;
  lfa_change *c = realloc(h->changes, (h->count + 1) * sizeof *c);
  if (c != NULL) h->changes = c;
  return v && c ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
}

lfa_status lfa_history_apply(lfa_history *h, const lfa_request *req, uint64_t read_version, lfa_error *err) {
  uint64_t head = h->count, r = read_version ? read_version : head;
  if (r > head) return lfa_fail(err, LFA_ERR_USAGE, NULL, "read version %" PRIu64 " is past the head %" PRIu64, r, head);
  lfa_change change;
  lfa_table n;
  const lfa_table *source = NULL;
  /* [FA-LANCE-20] built to become head + 1, whatever it read: a change
   * read at R names its files after the version it commits as, never
   * after R + 1, which a concurrent change read at R has taken */
  lfa_request built = *req;
  built.new_version = head + 1;
  lfa_status st = lfa_mutate(&change, lfa_history_version(h, r), &built, err);
  if (st != LFA_OK) return st;
  if (r != head) st = lfa_rebase(&change, &built, h->versions, h->changes, r, head, err);
  if (st == LFA_OK) st = grow(h, err); /* before any pointer into versions is taken */
  if (st == LFA_OK) st = source_of(&source, h, &built, r, err);
  if (st == LFA_OK) st = lfa_commit(&n, lfa_history_head(h), &change, source, err);
  if (st == LFA_OK && h->writer != NULL) {
    st = lfa_writer_commit(h->writer, &n, change.txn, err);
    if (st != LFA_OK) lfa_table_free(&n);
  }
  if (st != LFA_OK) {
    lfa_change_free(&change);
    lfa_error_prefix(err, "version %" PRIu64, head + 1), lfa_error_at_version(err, head + 1);
    return st;
  }
  h->versions[h->count] = n;
  h->changes[h->count++] = change;
  return LFA_OK;
}

lfa_status lfa_history_clone(lfa_history *out, const lfa_history *source, uint64_t version, const char *dir, bool deep,
                             uint64_t seed, lfa_error *err) {
  memset(out, 0, sizeof *out);
  const lfa_table *src = lfa_history_version(source, version);
  if (src == NULL) return lfa_fail(err, LFA_ERR_USAGE, NULL, "version %" PRIu64 " does not exist", version);
  if (source->writer == NULL) return lfa_fail(err, LFA_ERR_USAGE, NULL, "the source history is not written");
  const lfa_fs *fs = lfa_writer_fs(source->writer);
  const char *where = lfa_writer_dir(source->writer);
  char *abs = lfa_fs_real_path_in(fs, where); /* the source's one name, which the clone records */
  if (abs == NULL) return lfa_fail(err, LFA_ERR_IO, NULL, "cannot resolve %s", where);
  lfa_request req = {.op = LFA_OP_CLONE, .deep = deep};
  lfa_change change;
  lfa_table n;
  lfa_status st = lfa_mutate(&change, src, &req, err); /* Clone{is_shallow, ref_version} */
  if (st != LFA_OK) {
    free(abs);
    return st;
  }
  change.txn->clone->ref_path = lfa_arena_strdup(&change.arena, abs);
  st = lfa_arena_check(&change.arena, err);
  if (st == LFA_OK) st = grow(out, err);
  if (st == LFA_OK) st = lfa_commit(&n, NULL, &change, src, err); /* FA-CLONE-1/2: the source's state */
  if (st == LFA_OK) {
    st = lfa_writer_clone_in(&out->writer, fs, abs, version, dir, deep, seed, change.txn, err);
    if (st != LFA_OK) lfa_table_free(&n);
  }
  free(abs);
  if (st != LFA_OK) {
    lfa_change_free(&change);
    return st;
  }
  out->versions[0] = n;
  out->changes[out->count++] = change;
  return LFA_OK;
}

lfa_status lfa_history_mark_now(lfa_history_mark *out, const lfa_history *h, lfa_error *err) {
  memset(out, 0, sizeof *out);
  out->count = h->count;
  return h->writer ? lfa_writer_mark_now(&out->writer, h->writer, err) : LFA_OK;
}

lfa_status lfa_history_rewind(lfa_history *h, const lfa_history_mark *m, lfa_error *err) {
  for (; h->count > m->count; h->count--) {
    lfa_table_free(&h->versions[h->count - 1]);
    lfa_change_free(&h->changes[h->count - 1]);
  }
  return h->writer ? lfa_writer_rewind(h->writer, &m->writer, err) : LFA_OK;
}

void lfa_history_mark_drop(lfa_history_mark *m) { lfa_writer_mark_drop(&m->writer); }

void lfa_history_close(lfa_history *h) {
  for (size_t i = 0; i < h->count; i++) {
    lfa_table_free(&h->versions[i]);
    lfa_change_free(&h->changes[i]);
  }
  free(h->versions);
  free(h->changes);
  if (h->writer != NULL) lfa_writer_close(h->writer);
  memset(h, 0, sizeof *h);
}
