/* transaction.c: transactions and the Field Assignment sidecar
 * (Transaction field 1005; field 5 in the two earlier layouts, FA-FLAG-7).
 * Implements FA-TXN-1..4 as read-time rules. */
#include "lfa/transaction.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bitmap.h"
#include "lfa/flags.h"
#include "lfa/limits.h"
#include "lfa/manifest.h"
#include "manifest_internal.h"
#include "lfa/pb.h"
#include "lfa/pb_types.h"

lfa_status lfa_transaction_decode(Lance__Table__Transaction **out, const uint8_t *data, size_t len,
                                  lfa_error *err) {
  *out = NULL;
  if (len > LFA_TRANSACTION_BYTES_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "transaction of %zu bytes exceeds %u", len,
                    (unsigned)LFA_TRANSACTION_BYTES_MAX);
  Lance__Table__Transaction *txn;
  lfa_status st = lfa_pb_unpack((ProtobufCMessage **)&txn, &lance__table__transaction__descriptor, data,
                                len, "transaction", err);
  if (st != LFA_OK) return st;
  if (txn->field_assignment_transaction != NULL)
    st = lfa_transaction_check_sidecar(txn->field_assignment_transaction, err);
  if (st != LFA_OK) {
    lfa_error_prefix(err, "field assignment sidecar");
    lfa_transaction_free(txn);
    return st;
  }
  *out = txn;
  return LFA_OK;
}

void lfa_transaction_free(Lance__Table__Transaction *txn) { lfa_pb_free(txn); }

/* The payloads of txn's unknown length-delimited fields numbered `field`,
 * concatenated (protobuf merges repeated occurrences of a message field). */
static lfa_status unknown_payloads(lfa_buf *out, const ProtobufCMessage *m, uint32_t field, lfa_error *err) {
  lfa_status st = LFA_OK;
  for (unsigned i = 0; st == LFA_OK && i < m->n_unknown_fields; i++) {
    const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
    size_t at = 0;
    uint64_t n = 0;
    if (u->tag != field || u->wire_type != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED) continue;
    if (lfa_pb_read_varint(&n, u->data, &at, u->len) && n == u->len - at)
      st = lfa_buf_append(out, u->data + at, (size_t)n, err);
  }
  return st;
}

static void drop_unknown(ProtobufCMessage *m, uint32_t field) {
  unsigned kept = 0;
  for (unsigned i = 0; i < m->n_unknown_fields; i++) {
    if (m->unknown_fields[i].tag == field) free(m->unknown_fields[i].data);
    else m->unknown_fields[kept++] = m->unknown_fields[i];
  }
  m->n_unknown_fields = kept;
}

static lfa_status adopt_earlier_sidecar(Lance__Table__Transaction *txn, lfa_error *err) {
  if (txn == NULL || txn->field_assignment_transaction != NULL) return LFA_OK;
  lfa_buf bytes = {0};
  Sidecar *s = NULL;
  lfa_status st = unknown_payloads(&bytes, &txn->base, LFA_TRANSACTION_FIELD_SIDECAR_BEFORE, err);
  bool found = false;
  for (unsigned i = 0; i < txn->base.n_unknown_fields; i++)
    found |= txn->base.unknown_fields[i].tag == LFA_TRANSACTION_FIELD_SIDECAR_BEFORE;
  /* bytes that are no sidecar stay an unknown field: not field assignment's */
  if (st == LFA_OK && found &&
      lfa_pb_unpack((ProtobufCMessage **)&s, &lance__table__transaction__field_assignment_transaction__descriptor,
                    bytes.data, bytes.len, "sidecar", NULL) == LFA_OK) {
    st = lfa_transaction_check_sidecar(s, err);
    if (st == LFA_OK) txn->field_assignment_transaction = s, drop_unknown(&txn->base, LFA_TRANSACTION_FIELD_SIDECAR_BEFORE);
    else lfa_pb_free(s), lfa_error_prefix(err, "field assignment sidecar (transaction field 5)");
  }
  lfa_buf_free(&bytes);
  return st;
}

lfa_status lfa_transaction_encode(lfa_buf *out, const Lance__Table__Transaction *txn, lfa_error *err) {
  return lfa_pb_pack(out, &txn->base, err);
}

/* [FA-FLAG-7] Where the transaction of a manifest of an earlier layout
 * keeps the sidecar: field 5, so that it reads back as it was read. */
const lfa_pb_move *lfa_sidecar_move(const Lance__Table__Manifest *m) {
  static const lfa_pb_move SIDECAR_EARLIER = {LFA_TRANSACTION_FIELD_SIDECAR, LFA_TRANSACTION_FIELD_SIDECAR_BEFORE};
  lfa_layout layout = lfa_manifest_layout(m);
  return layout == LFA_LAYOUT_PREVIOUS || layout == LFA_LAYOUT_DRAFT ? &SIDECAR_EARLIER : NULL;
}

lfa_status lfa_transaction_encode_beside(lfa_buf *out, const Lance__Table__Transaction *txn,
                                         const Lance__Table__Manifest *m, lfa_error *err) {
  const lfa_pb_move *move = lfa_sidecar_move(m);
  return lfa_pb_pack_moved(out, &txn->base, move, move != NULL, err);
}

/* [FA-TXN-2] one true marker, or a bitmap that names at least one row. */
static lfa_status check_fragment_state(const FragmentState *fs, size_t i, lfa_error *err) {
  if (fs->fragment_path == NULL || fs->fragment_path[0] == '\0')
    return lfa_fail(err, LFA_ERR_RULE, "FA-TXN-2", "fragment state %zu (field %d) has an empty fragment path",
                    i, fs->field_id);
  if (fs->state_case == LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_PARTIAL) {
    uint64_t card;
    lfa_status st = lfa_bitmap_check(&card, fs->partial.data, fs->partial.len, err);
    if (st == LFA_OK && card == 0) st = lfa_fail(err, LFA_ERR_RULE, "FA-TXN-2", "partial bitmap is empty");
    if (st != LFA_OK) lfa_error_prefix(err, "fragment state %zu (field %d, '%s')", i, fs->field_id, fs->fragment_path);
    return st;
  }
  bool all = fs->state_case == LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_ALL_ASSIGNED;
  bool none = fs->state_case == LANCE__TABLE__TRANSACTION__FIELD_ASSIGNMENT_TRANSACTION__FRAGMENT_STATE__STATE_NONE_ASSIGNED;
  if (!all && !none)
    return lfa_fail(err, LFA_ERR_RULE, "FA-TXN-2", "fragment state %zu (field %d, '%s') has no state", i,
                    fs->field_id, fs->fragment_path);
  /* A false marker says nothing; upstream rejects it rather than guess. */
  if ((all && !fs->all_assigned) || (none && !fs->none_assigned))
    return lfa_fail(err, LFA_ERR_RULE, "FA-TXN-2", "fragment state %zu (field %d, '%s') has a false marker", i,
                    fs->field_id, fs->fragment_path);
  return LFA_OK;
}

static lfa_status check_row_changes(const Sidecar *s, lfa_error *err) {
  for (size_t i = 0; i < s->n_row_changes; i++) {
    const ProtobufCBinaryData *addrs = &s->row_changes[i]->row_addresses;
    lfa_treemap t;
    lfa_status st = lfa_treemap_decode(&t, addrs->data, addrs->len, err);
    if (st == LFA_OK && t.count == 0) st = lfa_fail(err, LFA_ERR_RULE, "FA-TXN-1", "no row addresses");
    lfa_treemap_free(&t);
    if (st != LFA_OK) {
      lfa_error_prefix(err, "row change %zu (field %d)", i, s->row_changes[i]->field_id);
      lfa_error_at_field(err, s->row_changes[i]->field_id);
      return st;
    }
  }
  return LFA_OK;
}

lfa_status lfa_transaction_check_sidecar(const Sidecar *s, lfa_error *err) {
  for (size_t i = 0; i < s->n_initializations; i++) {
    unsigned state = (unsigned)s->initializations[i]->initial_state;
    if (state > 1) { /* [FA-TXN-3] only UNASSIGNED (0) and ASSIGNED (1) exist */
      lfa_status st = lfa_fail(err, LFA_ERR_RULE, "FA-TXN-3",
                               "initialization %zu (field %d) has unknown initial state %u", i,
                               s->initializations[i]->field_id, state);
      lfa_error_at_field(err, s->initializations[i]->field_id);
      return st;
    }
  }
  lfa_status st = check_row_changes(s, err);
  for (size_t i = 0; st == LFA_OK && i < s->n_fragment_states; i++)
    if ((st = check_fragment_state(s->fragment_states[i], i, err)) != LFA_OK)
      lfa_error_at_field(err, s->fragment_states[i]->field_id);
  for (size_t i = 0; st == LFA_OK && i < s->n_transfers; i++)
    if (s->transfers[i]->source_field_id == s->transfers[i]->target_field_id) {
      st = lfa_fail(err, LFA_ERR_RULE, "FA-TXN-4", "transfer %zu moves field %d onto itself", i,
                    s->transfers[i]->source_field_id);
      lfa_error_at_field(err, s->transfers[i]->source_field_id);
    }
  return st;
}

const char *lfa_transaction_operation_name(const Lance__Table__Transaction *txn) {
  /* Lance's Rust enum names, indexed by oneof field number - 100. */
  static const char *const names[] = {"Append",       "Delete",         "Overwrite",
                                      "CreateIndex",  "Rewrite",        "Merge",
                                      "Restore",      "ReserveFragments", "Update",
                                      "Project",      "UpdateConfig",   "DataReplacement",
                                      "UpdateMemWalState", "Clone",     "UpdateBases",
                                      "DataOverlay"};
  unsigned k = (unsigned)txn->operation_case;
  if (k >= 100 && k - 100 < sizeof names / sizeof names[0]) return names[k - 100];
  for (unsigned i = 0; i < txn->base.n_unknown_fields; i++) /* Lance 15.0.0's Transaction V2 arm, not read */
    if (txn->base.unknown_fields[i].tag == 116) return "CompositeOperation";
  return "none";
}

lfa_status lfa_transaction_decode_beside(Lance__Table__Transaction **out, const uint8_t *data, size_t len,
                                         const Lance__Table__Manifest *m, lfa_error *err) {
  lfa_status st = lfa_transaction_decode(out, data, len, err);
  /* [FA-FLAG-7] without 2^52, a field 1005 that is no sidecar is someone else's: kept, not read */
  static const lfa_pb_move aside = {LFA_TRANSACTION_FIELD_SIDECAR, 0};
  bool marked = ((m->reader_feature_flags | m->writer_feature_flags) & LFA_FLAG_FIELD_ASSIGNMENT) != 0;
  if (st == LFA_ERR_PROTO && !marked &&
      lfa_pb_unpack_moved((ProtobufCMessage **)out, &lance__table__transaction__descriptor, data, len, &aside, 1,
                          "transaction", NULL) == LFA_OK)
    st = LFA_OK;
  if (st == LFA_OK && lfa_manifest_reads_field_22(m)) st = adopt_earlier_sidecar(*out, err);
  if (st != LFA_OK && *out != NULL) lfa_transaction_free(*out), *out = NULL;
  return st;
}
