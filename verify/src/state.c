/* state.c: a run resumed from an earlier one (lfa_verify_state, 10§5).
 *
 * The earlier run verified every version up to S. The versions after S
 * are checked as a range from S+1, S being their first parent; what was
 * verified up to S is only taken on trust if it is still there as it was
 * [FA-VERIFY-7]: S's manifest file has the same bytes, and `_versions/`
 * lists the same names up to S. Manifests are written once and never
 * replaced (FA-STORE-8 applies to them as to every object), so a
 * difference means the history under the state was rewritten, cut by a
 * cleanup, or is another dataset's. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "lfa/hash.h"
#include "lfa/limits.h"

static const char STATE_HEADER[] = "lfa-verify-state 1\n";

void lfa_verify_state_format(char out[LFA_VERIFY_STATE_TEXT_MAX], const lfa_verify_state *s) {
  snprintf(out, LFA_VERIFY_STATE_TEXT_MAX, "%sversion %" PRIu64 "\nmanifest_fnv1a64 %016" PRIx64 "\nlisting_fnv1a64 %016" PRIx64 "\n",
           STATE_HEADER, s->version, s->manifest_digest, s->listing_digest);
}

lfa_status lfa_verify_state_parse(lfa_verify_state *out, const char *text, size_t len, lfa_error *err) {
  char buf[LFA_VERIFY_STATE_TEXT_MAX], again[LFA_VERIFY_STATE_TEXT_MAX];
  memset(out, 0, sizeof *out);
  if (len >= sizeof buf || memchr(text, '\0', len) != NULL)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-VERIFY-7", "not an lfa verify state (%zu bytes)", len);
  memcpy(buf, text, len);
  buf[len] = '\0';
  lfa_verify_state s;
  int used = 0;
  /* read, then written back: only the exact text format gives back the same bytes */
  if (strncmp(buf, STATE_HEADER, sizeof STATE_HEADER - 1) == 0 &&
      sscanf(buf + sizeof STATE_HEADER - 1, "version %20" SCNu64 "\nmanifest_fnv1a64 %16" SCNx64 "\nlisting_fnv1a64 %16" SCNx64 "\n%n",
             &s.version, &s.manifest_digest, &s.listing_digest, &used) == 3) {
    lfa_verify_state_format(again, &s);
    if (strcmp(again, buf) == 0) return *out = s, LFA_OK;
  }
  return lfa_fail(err, LFA_ERR_FORMAT, "FA-VERIFY-7", "not an lfa verify state: expected the lines '%.*s', "
                  "'version N', 'manifest_fnv1a64 HEX' and 'listing_fnv1a64 HEX'",
                  (int)sizeof STATE_HEADER - 2, STATE_HEADER);
}

/* The listing digest: the names of the entries up to `version`, in order. */
static uint64_t listing_digest(const lfa_version_list *l, uint64_t version) {
  uint64_t h = LFA_HASH_START;
  for (size_t i = 0; i < l->count && l->entries[i].version <= version; i++)
    h = lfa_hash_bytes(lfa_hash_text(h, l->entries[i].name), "", 1);
  return h;
}

static const lfa_version_entry *find_entry(const lfa_version_list *l, uint64_t version) {
  for (size_t i = 0; i < l->count; i++)
    if (l->entries[i].version == version) return &l->entries[i];
  return NULL;
}

/* The manifest digest of `e`: its file's bytes. */
static lfa_status manifest_digest(uint64_t *out, const vf_ctx *c, const lfa_version_entry *e, lfa_error *err) {
  char rel[LFA_PATH_BYTES_MAX], path[LFA_PATH_BYTES_MAX];
  lfa_buf bytes = {0};
  snprintf(rel, sizeof rel, "_versions/%s", e->name);
  lfa_status st = lfa_fs_join(path, sizeof path, c->dir, rel, err);
  if (st == LFA_OK) st = lfa_fs_read_in(&bytes, c->fs, path, LFA_MANIFEST_FILE_BYTES_MAX, err);
  if (st == LFA_OK) *out = lfa_hash_bytes(LFA_HASH_START, bytes.data, bytes.len);
  lfa_buf_free(&bytes);
  return st;
}

/* The changed history as an error finding at the state's version. */
static void changed(const vf_ctx *c, const lfa_verify_state *s, const char *file, const char *what) {
  lfa_where w = {.version = s->version, .file = file};
  lfa_findings_add(c->findings, &w, "FA-VERIFY-7", LFA_SEVERITY_ERROR,
                   "the history verified up to version %" PRIu64 " changed since: %s; the versions after it are "
                   "checked, but not what came before (verify without the state to check every version again)",
                   s->version, what);
}

lfa_status vf_check_state(const vf_ctx *c, const lfa_verify_state *s, lfa_error *err) {
  const lfa_version_entry *e = find_entry(c->versions, s->version);
  if (e == NULL) {
    changed(c, s, "_versions/", "that version is no longer in _versions/");
    return c->findings->lost ? lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory recording findings") : LFA_OK;
  }
  char file[LFA_PATH_BYTES_MAX];
  snprintf(file, sizeof file, "_versions/%s", e->name);
  uint64_t digest = 0;
  lfa_error e2 = {0};
  lfa_status st = manifest_digest(&digest, c, e, &e2);
  if (st == LFA_ERR_NOMEM) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "%s", e2.msg);
  if (st != LFA_OK) changed(c, s, file, e2.msg);
  else if (digest != s->manifest_digest) changed(c, s, file, "its manifest file holds other bytes");
  if (listing_digest(c->versions, s->version) != s->listing_digest)
    changed(c, s, "_versions/", "_versions/ lists other versions up to it (one removed, added or renamed)");
  return c->findings->lost ? lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory recording findings") : LFA_OK;
}

lfa_status vf_state_of(lfa_verify_state *out, bool *has, const vf_ctx *c, uint64_t version, lfa_error *err) {
  *has = false;
  const lfa_version_entry *e = find_entry(c->versions, version);
  if (e == NULL) return LFA_OK;
  lfa_error e2 = {0};
  lfa_status st = manifest_digest(&out->manifest_digest, c, e, &e2);
  if (st == LFA_ERR_NOMEM) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "%s", e2.msg);
  if (st != LFA_OK) return LFA_OK; /* unreadable: reported as that version's finding; no state to resume from */
  out->version = version, out->listing_digest = listing_digest(c->versions, version);
  *has = true;
  return LFA_OK;
}
