/* mutate_stubs.c: TEMPORARY — operations not yet written refuse cleanly. */
#include "mutate_internal.h"
#define NOT_YET(fn) lfa_status fn(mut *m) { return lfa_fail(m->err, LFA_ERR_USAGE, NULL, "not implemented yet"); }
NOT_YET(mut_add_columns) NOT_YET(mut_track) NOT_YET(mut_rename) NOT_YET(mut_cast) NOT_YET(mut_set_nullable)
NOT_YET(mut_drop) NOT_YET(mut_merge_insert) NOT_YET(mut_compact) NOT_YET(mut_replace) NOT_YET(mut_overlay)
NOT_YET(mut_restore) NOT_YET(mut_overwrite) NOT_YET(mut_clone) NOT_YET(mut_metadata)
