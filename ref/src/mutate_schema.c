/* mutate_schema.c: mutations that change the schema or whole versions.
 * Being written: each refuses cleanly until then. */
#include "mutate_internal.h"

#define NOT_YET(fn) \
  lfa_status fn(mut *m) { return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "%s is not implemented yet", lfa_op_name(m->req->op)); }
NOT_YET(mut_add_columns)
NOT_YET(mut_track)
NOT_YET(mut_rename)
NOT_YET(mut_cast)
NOT_YET(mut_set_nullable)
NOT_YET(mut_drop)
NOT_YET(mut_restore)
NOT_YET(mut_overwrite)
NOT_YET(mut_clone)
NOT_YET(mut_metadata)
