/* root.c: field-assignment roots; implements FA-ROOT-1, FA-ROOT-2, FA-ROOT-4,
 * FA-ROOT-6, FA-ROOT-7 and the snapshot-free half of FA-ROOT-3 (see lfa/root.h). */
#include "lfa/root.h"

#include <inttypes.h>

#include "lfa/limits.h"
#include "lfa/pb.h"

static lfa_status check_state(const lfa_root_entry *e, lfa_error *err) {
  switch ((int)e->state_case) {
    case LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_ALL_ASSIGNED:
      if (e->all_assigned) return LFA_OK;
      /* [FA-ROOT-4] false would be a second spelling of "no entry" */
      return lfa_fail(err, LFA_ERR_RULE, "FA-ROOT-4", "encodes all_assigned=false");
    case LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_PARTIAL:
      if (e->partial == NULL || e->partial->path == NULL || e->partial->path[0] == '\0')
        return lfa_fail(err, LFA_ERR_RULE, "FA-ROOT-6", "partial file has an empty path");
      if (e->partial->size_bytes == 0)
        return lfa_fail(err, LFA_ERR_RULE, "FA-ROOT-6", "partial file '%s' has size_bytes 0", e->partial->path);
      return LFA_OK;
    case LANCE__TABLE__FIELD_ASSIGNMENT_FRAGMENT__STATE_INLINE_PARTIAL:
      /* [FA-ROOT-7] a first-iteration reader sees no state here: the entry
       * would mean different things to different readers */
      return lfa_fail(err, LFA_ERR_RULE, "FA-ROOT-7", "uses inline_partial (field 5), which readers reject");
    default:
      return lfa_fail(err, LFA_ERR_RULE, "FA-ROOT-4", "is missing its state");
  }
}

static lfa_status check_entries(const lfa_root *root, lfa_error *err) {
  for (size_t i = 0; i < root->n_fragments; i++) {
    const lfa_root_entry *e = root->fragments[i];
    lfa_status st = LFA_OK;
    if (i > 0 && e->fragment_id <= root->fragments[i - 1]->fragment_id)
      st = lfa_fail(err, LFA_ERR_RULE, "FA-ROOT-2", "fragment id %" PRIu64 " does not follow %" PRIu64,
                    e->fragment_id, root->fragments[i - 1]->fragment_id);
    else if (e->physical_rows == 0)
      st = lfa_fail(err, LFA_ERR_RULE, "FA-ROOT-3", "has physical_rows 0");
    else
      st = check_state(e, err);
    if (st != LFA_OK) {
      lfa_error_prefix(err, "root entry %zu (fragment %" PRIu64 ")", i, e->fragment_id);
      lfa_error_at_fragment(err, e->fragment_id);
      return st;
    }
  }
  return LFA_OK;
}

lfa_status lfa_root_decode(lfa_root **out, const uint8_t *data, size_t len, lfa_error *err) {
  *out = NULL;
  if (len > LFA_ASSIGNMENT_OBJECT_BYTES_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "root of %zu bytes exceeds %u", len,
                    (unsigned)LFA_ASSIGNMENT_OBJECT_BYTES_MAX);
  lfa_root *root;
  /* [FA-ROOT-1] 0 bytes unpack to the empty message: the empty root. */
  lfa_status st = lfa_pb_unpack((ProtobufCMessage **)&root, &lance__table__field_assignment_root__descriptor,
                                data, len, "field assignment root", err);
  if (st != LFA_OK) return st;
  if ((st = check_entries(root, err)) != LFA_OK) {
    lfa_root_free(root);
    return st;
  }
  *out = root;
  return LFA_OK;
}

lfa_status lfa_root_encode(lfa_buf *out, const lfa_root *root, lfa_error *err) {
  return lfa_pb_pack(out, &root->base, err);
}

void lfa_root_free(lfa_root *root) { lfa_pb_free(root); }
