/* transaction.c: transactions and the Field Assignment sidecar
 * (Transaction field 5). Implements FA-TXN-1..4 as read-time rules. */
#include "lfa/transaction.h"

#include <stdbool.h>
#include <string.h>

#include "lfa/bitmap.h"
#include "lfa/limits.h"
#include "lfa/pb.h"

typedef Lance__Table__Transaction__FieldAssignmentTransaction Sidecar;
typedef Lance__Table__Transaction__FieldAssignmentTransaction__FragmentState FragmentState;

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

lfa_status lfa_transaction_encode(lfa_buf *out, const Lance__Table__Transaction *txn, lfa_error *err) {
  return lfa_pb_pack(out, &txn->base, err);
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
  return "none";
}
