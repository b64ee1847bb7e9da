/* sidecar.c: how a version stores its sidecar (04§3),
 * checked once the transaction is read (static.c):
 *
 *   FA-TXN-5  the sidecar lives in field 1005 only: a transaction_properties
 *             entry under the in-memory key of upstream's first iteration
 *             is an error. Its value is never read: it changes no state.
 *   FA-TXN-6  an empty sidecar attached is a warning (readers treat it as
 *             absent, so nothing else changes).
 *   FA-TXN-7  a sidecar that does not decode is reported as such, not as an
 *             unreadable manifest or transaction: the transaction's other
 *             fields decode, field 1005 alone does not.
 */
#include <string.h>

#include "internal.h"
#include "lfa/bytes.h"
#include "lfa/limits.h"
#include "lfa/pb.h"
#include "lfa/pb_types.h"

#define SIDECAR_PROPERTY_KEY "__lance_field_assignment_transaction"

enum { SIDECAR_FIELD = LFA_TRANSACTION_FIELD_SIDECAR, VARINT_BYTES_MAX = 10 };

/* ---- FA-TXN-7: the wire, field by field ------------------------------------------------ */

static bool read_varint(lfa_cursor *c, uint64_t *out) {
  *out = 0;
  for (unsigned shift = 0, i = 0; i < VARINT_BYTES_MAX; i++, shift += 7) {
    const uint8_t *b;
    if (!lfa_cursor_take(c, 1, &b)) return false;
    *out |= (uint64_t)(b[0] & 0x7F) << shift;
    if ((b[0] & 0x80) == 0) return true;
  }
  return false;
}

/* Moves past the value of a field of wire type `type`; false when the
 * bytes end first or the type is a group or unknown. */
static bool skip_value(lfa_cursor *c, unsigned type) {
  uint64_t n = 0;
  const uint8_t *b;
  switch (type) {
    case 0: return read_varint(c, &n);
    case 1: return lfa_cursor_take(c, 8, &b);
    case 2: return read_varint(c, &n) && n <= lfa_cursor_left(c) && lfa_cursor_take(c, (size_t)n, &b);
    case 5: return lfa_cursor_take(c, 4, &b);
    default: return false;
  }
}

/* Does the value at [at, end) decode as a sidecar? */
static bool sidecar_decodes(const uint8_t *at, size_t len) {
  Sidecar *side = NULL;
  lfa_status st = lfa_pb_unpack((ProtobufCMessage **)&side, &lance__table__transaction__field_assignment_transaction__descriptor,
                                at, len, "sidecar", NULL);
  lfa_pb_free(side);
  return st == LFA_OK;
}

/* Splits a transaction's bytes: `rest` gets every field but 5; *broken says
 * whether some field 1005 fails to decode as a sidecar. False when the bytes
 * are not a sequence of fields at all. */
static bool split_sidecar(lfa_buf *rest, bool *broken, const uint8_t *data, size_t len) {
  lfa_cursor c = lfa_cursor_make(data, len);
  *broken = false;
  while (lfa_cursor_left(&c) > 0) {
    size_t start = c.pos;
    uint64_t key = 0;
    if (!read_varint(&c, &key)) return false;
    size_t value = c.pos;
    if (!skip_value(&c, (unsigned)(key & 7))) return false;
    if (key >> 3 != SIDECAR_FIELD) {
      if (lfa_buf_append(rest, data + start, c.pos - start, NULL) != LFA_OK) return false;
      continue;
    }
    lfa_cursor v = lfa_cursor_make(data + value, c.pos - value);
    uint64_t n = 0;
    /* length-delimited, and the payload a sidecar message */
    *broken |= (key & 7) != 2 || !read_varint(&v, &n) || !sidecar_decodes(data + value + v.pos, (size_t)n);
  }
  return true;
}

bool vf_sidecar_undecodable(const uint8_t *txn, size_t len) {
  lfa_buf rest = {0};
  bool broken = false;
  bool fields = split_sidecar(&rest, &broken, txn, len);
  Lance__Table__Transaction *t = NULL;
  /* the rest must decode: else the transaction is broken elsewhere too */
  bool rest_ok = fields && broken &&
                 lfa_pb_unpack((ProtobufCMessage **)&t, &lance__table__transaction__descriptor, rest.data, rest.len,
                               "transaction", NULL) == LFA_OK;
  lfa_pb_free(t);
  lfa_buf_free(&rest);
  return rest_ok;
}

bool vf_txn_file_sidecar_undecodable(const lfa_fs *fs, const char *dir, const char *rel) {
  char path[LFA_PATH_BYTES_MAX];
  lfa_buf bytes = {0};
  bool broken = lfa_fs_join(path, sizeof path, dir, rel, NULL) == LFA_OK &&
                lfa_fs_read_in(&bytes, fs, path, LFA_TRANSACTION_BYTES_MAX, NULL) == LFA_OK &&
                vf_sidecar_undecodable(bytes.data, bytes.len);
  lfa_buf_free(&bytes);
  return broken;
}

/* ---- FA-TXN-5, FA-TXN-6 ------------------------------------------------------------------- */

static bool empty_sidecar(const Sidecar *s) {
  return s->n_initializations == 0 && s->n_row_changes == 0 && s->n_fragment_states == 0 && s->n_transfers == 0;
}

void vf_check_sidecar_storage(const vf_ctx *c, const vf_version *v) {
  const Lance__Table__Transaction *t = v->snap.transaction;
  if (t == NULL) return;
  char file[LFA_PATH_BYTES_MAX];
  lfa_where w = {.version = v->version, .file = v->manifest_path};
  const char *name = v->snap.file.manifest->transaction_file;
  if (v->snap.file.transaction == NULL && name != NULL && name[0] != '\0') { /* read from the .txn file */
    snprintf(file, sizeof file, "_transactions/%s", name);
    w.file = file;
  }
  for (size_t i = 0; i < t->n_transaction_properties; i++) {
    const char *key = t->transaction_properties[i]->key;
    if (key == NULL || strcmp(key, SIDECAR_PROPERTY_KEY) != 0) continue;
    lfa_findings_add(c->findings, &w, "FA-TXN-5", LFA_SEVERITY_ERROR,
                     "the transaction stores a transaction_properties entry under '%s', the in-memory key of "
                     "upstream's first iteration: the sidecar belongs in field 1005 only (the entry is not read)",
                     SIDECAR_PROPERTY_KEY);
  }
  if (t->field_assignment_transaction != NULL && empty_sidecar(t->field_assignment_transaction))
    lfa_findings_add(c->findings, &w, "FA-TXN-6", LFA_SEVERITY_WARNING,
                     "the transaction carries an empty sidecar (field 1005 with no element); writers leave it out");
}
