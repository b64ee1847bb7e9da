/* limits.h: every bound lfa applies to hostile input, in one place.
 *
 * Each count or size read from input is compared with one of these before
 * anything is allocated for it. They are generous for real datasets and small
 * enough that no input can make a decoder allocate more than about 1 GiB.
 * Changing one is a spec change (spec/ lists them as reader limits).
 */
#ifndef LFA_LIMITS_H
#define LFA_LIMITS_H

#include <stdint.h>

/* A whole manifest file under `_versions/`. */
#define LFA_MANIFEST_FILE_BYTES_MAX (256u << 20)
/* A `.txn` file or an inline transaction section. */
#define LFA_TRANSACTION_BYTES_MAX (256u << 20)
/* Bytes protobuf-c may allocate while unpacking one message (amplification
 * of small wire entries into large C structs is bounded by this). */
#define LFA_PROTO_ALLOC_MAX (1024u << 20)
/* A field-assignment root or bitmap object (upstream's v2 cap as well). */
#define LFA_ASSIGNMENT_OBJECT_BYTES_MAX (512u << 20)
/* A deletion file of either kind. */
#define LFA_DELETION_FILE_BYTES_MAX (256u << 20)
/* Rows listed in one `.arrow` deletion file (4 bytes each once decoded). */
#define LFA_DELETION_ARROW_ROWS_MAX (1u << 24)
/* Decompressed bytes of one ZSTD-compressed Arrow body buffer. */
#define LFA_ZSTD_OUTPUT_BYTES_MAX (64u << 20)
/* Containers in a 32-bit Roaring bitmap: 2^16 keys exist. */
#define LFA_ROARING_CONTAINERS_MAX (1u << 16)
/* Buckets (distinct high 32 bits) in a 64-bit Roaring treemap. */
#define LFA_TREEMAP_BUCKETS_MAX (1u << 16)
/* Row ids one row-id sequence may expand to. */
#define LFA_ROW_IDS_MAX (1u << 27) /* 8 bytes each: 1 GiB */
/* Row ids all the sequences of one snapshot may expand to, together: an
 * 849-byte manifest can declare 8 fragments of LFA_ROW_IDS_MAX each. */
#define LFA_SNAPSHOT_ROW_IDS_MAX (1u << 27) /* 8 bytes each: 1 GiB */
/* Segments in one row-id sequence. */
#define LFA_ROW_ID_SEGMENTS_MAX (1u << 20)
/* Versions listed in one `_versions/` directory. */
#define LFA_VERSIONS_MAX (1u << 20)
/* Bytes of one relative or resolved object path. */
#define LFA_PATH_BYTES_MAX 4096u
/* Decoded objects (roots, partial bitmaps, deletion sets) a run keeps for
 * the later versions that reference them again (lfa/objects.h), counted
 * in the memory they hold. Past it the least recently used object that no
 * snapshot is using is dropped, and read again if a later version needs
 * it: a cost, never a failure. Objects in use stay until released. */
#define LFA_OBJECT_CACHE_BYTES_MAX (256ull << 20)
/* Items one hash table (lfa/hash.h) holds: 2^25 slots of 16 bytes at most
 * half full, 512 MiB. */
#define LFA_HASH_ITEMS_MAX (1u << 24)

/* JSON documents lfa reads (scenario files; lfa/json.h). Scenarios are small
 * and written by hand: these bound a hostile file, not a real one. They
 * belong to lfa's tools, not to the format (spec/ does not list them). The
 * document, one decoded string (or a number's text), the nesting of arrays
 * and objects, and the values in one document (under 100 bytes each once
 * parsed, so a tree stays below about 100 MiB). */
#define LFA_JSON_DOCUMENT_BYTES_MAX (16u << 20)
#define LFA_JSON_STRING_BYTES_MAX (1u << 20)
#define LFA_JSON_DEPTH_MAX 64u
#define LFA_JSON_VALUES_MAX (1u << 20)

/* Live rows `lfa dump --rows` lists for one version (a tool's bound, like
 * the JSON ones: the rows are streamed, so this bounds time and output, not
 * memory; a version over it is reported as that version's error). */
#define LFA_LISTED_ROWS_MAX (1u << 27)

/* is_assigned as lfa plans it (lfa/expr.h): the text of a call or a field
 * reference, a Substrait ExtendedExpression, and how deeply the messages
 * of one may nest (protobuf-c unpacks nested messages by recursion, so the
 * depth is checked on the wire first). Tool limits, like the JSON ones:
 * spec/ does not list them. */
#define LFA_EXPR_TEXT_BYTES_MAX (1u << 16)
#define LFA_SUBSTRAIT_BYTES_MAX (1u << 20)
#define LFA_SUBSTRAIT_DEPTH_MAX 32u

/* Cleanup (lfa/cleanup.h) and the orphan check of `lfa verify`, also tool
 * limits: entries listed under `_field_assignments/`, `tree/` and
 * `_refs/tags/` in one plan (a path and a stat each), the directory depth
 * walked under `_field_assignments/` and `tree/`, the datasets (this one,
 * its branches, the clones named) whose versions are read, and the notes a
 * plan keeps (more are counted, not kept). Tag files are JSON documents
 * (LFA_JSON_DOCUMENT_BYTES_MAX). */
#define LFA_CLEANUP_OBJECTS_MAX (1u << 22)
#define LFA_CLEANUP_DEPTH_MAX 16u
#define LFA_CLEANUP_DATASETS_MAX 1024u
#define LFA_CLEANUP_NOTES_MAX (1u << 16)

/* The in-memory file system (lfa/memfs.h), which the fuzz targets and tests
 * read and write whole datasets in. Like the JSON limits these belong to
 * lfa's tools, not to the format (spec/ does not list them): the files it
 * holds, and the bytes of all of them together. A container (its serialized
 * form) is bounded by the same two. */
#define LFA_MEMFS_FILES_MAX 4096u
#define LFA_MEMFS_BYTES_MAX (64u << 20)

#endif
