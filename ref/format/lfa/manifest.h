/* manifest.h: manifest files under `_versions/` [FA-LANCE-1].
 *
 *   offset 0 .. : [IndexSection  u32 len | protobuf]   optional, at index_section
 *                 [Transaction   u32 len | protobuf]   optional, at transaction_section
 *   P           : [Manifest      u32 len | protobuf]
 *   len - 16    : i64 LE P | u16 LE major | u16 LE minor | "LANC"
 *
 * The manifest protobuf must end exactly where the footer starts. Section
 * offsets are absolute file positions of a section's length prefix and must
 * lie wholly before P.
 */
#ifndef LFA_MANIFEST_H
#define LFA_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"
#include "lfa/flags.h"
#include "table.pb-c.h"
#include "transaction.pb-c.h"

/* Footer version lfa writes: what Lance writes since v1.0.0-beta.1
 * (earlier releases wrote 0.1; no reader checks it). */
#define LFA_MANIFEST_FOOTER_MAJOR 0
#define LFA_MANIFEST_FOOTER_MINOR 2

/* Bytes at [offset, offset + len) of a file. */
typedef struct lfa_span {
  size_t offset, len;
} lfa_span;

/* A fragment message decoded once and held by every decoded manifest file
 * that has its bytes (lfa_manifest_file_decode_after): the last of them to
 * be freed frees it. Shared messages are read, never changed. */
typedef struct lfa_shared_fragment {
  size_t refs;
  Lance__Table__DataFragment *msg;
} lfa_shared_fragment;

/* A decoded manifest file. OWNERSHIP: every pointer is owned by the struct;
 * lfa_manifest_file_free releases them (a shared fragment: its count). */
typedef struct lfa_manifest_file {
  Lance__Table__Manifest *manifest;
  Lance__Table__IndexSection *index_section; /* NULL when absent */
  Lance__Table__Transaction *transaction;    /* inline section; NULL when absent */
  uint16_t footer_major;
  uint16_t footer_minor;
  uint64_t manifest_offset; /* P */
  /* Set by lfa_manifest_file_decode_after (NULL otherwise, or when the
   * file's fields could not be walked), one per fragment: where its
   * encoded bytes are in the file; the index in the previous version's
   * manifest of a fragment with the same bytes, whose message it shares,
   * or SIZE_MAX; and the cell that holds its message. */
  lfa_span *spans;
  size_t *same_as_prev;
  lfa_shared_fragment **cells;
  lfa_buf bytes; /* the file, for the next version's comparison (empty: nothing to share) */
} lfa_manifest_file;

/* Decodes a whole manifest file: framing, the manifest, its index and
 * inline transaction sections (the transaction through
 * lfa_transaction_decode), and the descriptor rules of
 * lfa_manifest_check_descriptors. */
lfa_status lfa_manifest_file_decode(lfa_manifest_file *out, const uint8_t *data, size_t len,
                                    lfa_error *err);
void lfa_manifest_file_free(lfa_manifest_file *file);

/* lfa_manifest_file_decode of the file `*bytes` of a version, beside the
 * previous version's file `prev` (decoded so; NULL: none): a fragment
 * whose encoded bytes equal one of prev's is not decoded again but shares
 * prev's message (10§5). The result, and every error, is that of
 * lfa_manifest_file_decode; only the cost differs: what the commit
 * changed. On success *out takes the bytes over (out->bytes; *bytes left
 * empty) for the next version's comparison; on failure they stay the
 * caller's. prev may be freed before or after *out. */
lfa_status lfa_manifest_file_decode_after(lfa_manifest_file *out, lfa_buf *bytes, const lfa_manifest_file *prev,
                                          lfa_error *err);

/* A manifest's schema fields sorted by id, for lookups in O(log F): with
 * every field and descriptor looked up linearly, a manifest within
 * LFA_MANIFEST_FILE_BYTES_MAX (millions of fields) took quadratic time.
 * It borrows the manifest's fields. OWNERSHIP: lfa_field_index_free. */
typedef struct lfa_field_index {
  size_t n;
  const Lance__File__Field **by_id;
} lfa_field_index;
lfa_status lfa_field_index_make(lfa_field_index *out, const Lance__Table__Manifest *m, lfa_error *err);
/* The field with this id (the first listed when ids repeat), or NULL. */
const Lance__File__Field *lfa_field_index_find(const lfa_field_index *x, int32_t id);
void lfa_field_index_free(lfa_field_index *x);

/* first[i] for every descriptor i of `m`: the first descriptor naming the
 * same field, i itself when none before it does [FA-STORE-1]; in
 * O(D log D). OWNERSHIP: *first is the caller's (free). */
lfa_status lfa_manifest_first_same_field(size_t **first, const Lance__Table__Manifest *m, lfa_error *err);

/* The manifest message `body` decoded, its field assignment state read
 * by the layout its feature words and writer select [FA-FLAG-7]: field
 * 1022 under bit 2^52; field 22 under one of the two earlier layouts
 * (lfa_layout_of); any other field 22 or 1022 kept as an unknown field,
 * neither state nor an error. */
lfa_status lfa_manifest_unpack_body(Lance__Table__Manifest **out, const uint8_t *body, size_t len, lfa_error *err);

/* The layout of a decoded manifest's state: lfa_layout_of its words and
 * writer, and for the two earlier layouts only with descriptors (without,
 * bit 65536 or 256 is not field assignment's); LFA_LAYOUT_NONE otherwise. */
lfa_layout lfa_manifest_layout(const Lance__Table__Manifest *m);

/* True when the manifest's writer_version is Lance at `major` or later. */
bool lfa_manifest_writer_is_lance_from(const Lance__Table__Manifest *m, unsigned major);

/* True when the manifest's field 22, and its transaction's field 5, may
 * be field assignment's earlier layouts [FA-FLAG-7]: no bit 2^52, no
 * fragment tree bit, a writer before Lance 13. */
bool lfa_manifest_reads_field_22(const Lance__Table__Manifest *m);

/* The reader rules on the descriptors: field ids unique [FA-STORE-1] and
 * in the schema [FA-STORE-3], every root present with a non-empty path
 * [FA-STORE-4]. Order is not a reader rule (readers sort; FA-STORE-2 is for
 * writers and verifiers). */
lfa_status lfa_manifest_check_descriptors(const Lance__Table__Manifest *manifest, lfa_error *err);

/* Writes [inline transaction section][manifest][footer]. When `transaction`
 * is not NULL, the written manifest's transaction_section points at it;
 * no index section is written. The caller's manifest is not modified. */
lfa_status lfa_manifest_file_encode(lfa_buf *out, const Lance__Table__Manifest *manifest,
                                    const Lance__Table__Transaction *transaction, lfa_error *err);

/* The same with an index section first when `index_section` is not NULL
 * ([index section][inline transaction section][manifest][footer], Lance's
 * order): the written manifest's index_section points at it. A committer
 * onto a Lance table carries the head's indices this way. */
lfa_status lfa_manifest_file_encode_sections(lfa_buf *out, const Lance__Table__Manifest *manifest,
                                             const Lance__Table__IndexSection *index_section,
                                             const Lance__Table__Transaction *transaction, lfa_error *err);

/* Where each fragment's encoded bytes are in manifest file `data`: spans[i]
 * is fragment i's (field 2 of the Manifest message at `manifest_offset`,
 * the file's lfa_manifest_file.manifest_offset), for a manifest of exactly
 * `n` fragments. Equal bytes decode to the same fragment, field for field,
 * so a reader of consecutive versions tells an unchanged fragment by them
 * (10§5): lfa_manifest_file_decode_after walks them so. LFA_ERR_FORMAT when
 * the walk does not find n fragments. */
lfa_status lfa_manifest_fragment_spans(lfa_span *spans, size_t n, const uint8_t *data, size_t len,
                                       uint64_t manifest_offset, lfa_error *err);

/* The lowest file offset among `bound` and the sections (index section,
 * inline transaction) manifest message `body` names, found by walking its
 * top-level fields without decoding them: what a reader fetching a large
 * manifest footer first must read down to. False when the walk fails or a
 * section field is not a varint (the decoder refuses the message: nothing
 * is known of where it points). */
bool lfa_manifest_sections_from(uint64_t *lowest, const uint8_t *body, size_t len, uint64_t bound);

#endif
