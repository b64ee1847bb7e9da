/* manifest_internal.h: between the manifest file's framing
 * (manifest_file.c) and its decoding beside the previous version
 * (manifest_walk.c). Not installed; nothing outside ref/format uses it. */
#ifndef LFA_MANIFEST_INTERNAL_H
#define LFA_MANIFEST_INTERNAL_H

#include "lfa/manifest.h"
#include "lfa/pb.h"

/* out->manifest (and spans, same_as_prev, cells) from the manifest message
 * of file `data`, whose footer read_footer accepted (out->manifest_offset
 * is set), sharing the fragments of `prev` that have the same bytes. */
lfa_status lfa_manifest_unpack_after(lfa_manifest_file *out, const uint8_t *data, size_t len,
                                     const lfa_manifest_file *prev, lfa_error *err);

/* Gives back the file's fragment cells (freeing each message no other file
 * holds) and leaves the manifest with no fragment: called before the
 * manifest message is freed. Nothing for a file decoded plainly. */
void lfa_manifest_fragments_release(lfa_manifest_file *file);

/* [FA-FLAG-7] The renumbering that writes m's transaction in m's layout:
 * field 1005 as 5 for the two earlier layouts, NULL for the current one. */
const lfa_pb_move *lfa_sidecar_move(const Lance__Table__Manifest *m);

#endif
