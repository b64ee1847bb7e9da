/* mutate_files.c: merge_insert, compaction, data replacement and overlays.
 * Being written: each refuses cleanly until then. */
#include "mutate_internal.h"

#define NOT_YET(fn) \
  lfa_status fn(mut *m) { return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "%s is not implemented yet", lfa_op_name(m->req->op)); }
NOT_YET(mut_merge_insert)
NOT_YET(mut_compact)
NOT_YET(mut_replace)
NOT_YET(mut_overlay)
