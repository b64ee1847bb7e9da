/* deletion_arrow.c: `.arrow` deletion files (DeletionFile type ARROW_ARRAY),
 * an Arrow IPC *file* restricted to what Lance writes (lfa/deletion.h).
 *
 * The file (integers little-endian; each message starts 8-aligned):
 *
 *   0         "ARROW1" 00 .. 00                     magic, zero padding to
 *                                                     an 8-aligned S >= 8
 *   S         FF FF FF FF | i32 L | Message{Schema}   flatbuffer (L bytes,
 *                                                     padded), no body
 *   B.offset  FF FF FF FF | i32 L | Message{RecordBatch} ..padding  } B.metaDataLength
 *             body: validity buffer, pad, values buffer, pad         } B.bodyLength
 *             FF FF FF FF 00 00 00 00               end of stream
 *   F         Footer{version, schema, dictionaries [], recordBatches [B]}
 *   len - 10  i32 footer length (len - 10 - F) | "ARROW1"
 *
 * The one column is `row_id: UInt32 not null`: a validity bitmap (bit i set
 * = row i valid) and the values, u32 row offsets in any order. With
 * BodyCompression{codec ZSTD, method BUFFER} every non-empty buffer is
 *
 *   i64 uncompressed length | one zstd frame     or   i64 -1 | raw bytes
 *
 * and an empty buffer is zero bytes, with no prefix.
 *
 * Flatbuffers (flatbuffers.dev, "internals"): a flatbuffer opens with a u32
 * offset to its root table. A table opens with an i32 soffset; its vtable sits
 * at (table - soffset) and holds u16 vtable bytes, u16 table bytes, then one
 * u16 per field id: the field's offset inside the table, 0 when the field is
 * absent (it then has its default). Tables, vectors and strings are reached
 * through u32 offsets counted forward from where the offset is stored. A
 * vector is a u32 count then its elements (structs inline, tables as u32
 * offsets); a string is a byte vector followed by a NUL.
 *
 * Decisions, where Arrow or Lance leave room:
 *  - The record batch is found through the footer, as an IPC file reader
 *    does: the footer's blocks are the authority on where messages are.
 *  - The stream's own schema message must be present, carry the same exact
 *    schema, and end before the batch. It starts after the magic's padding:
 *    the IPC file format pads the magic with zeros to an 8-byte boundary at
 *    least, and arrow-rs (Lance 8 and 12) pads to its 64-byte alignment, so
 *    the schema message is the first non-zero byte after the magic, which
 *    must sit on an 8-byte boundary. Message offsets named by the footer
 *    must be 8-aligned too (messages are 8-aligned in the IPC format).
 *  - Exact schema: one field `row_id`, non-nullable, Int{32, unsigned}, no
 *    dictionary, no children, no custom_metadata on field or schema (arrow-rs
 *    compares metadata in Schema equality, which is what Lance checks).
 *  - null_count must be 0. The validity buffer may be empty; when present it
 *    must cover every row with its bit set (arrow-rs writes an all-ones
 *    bitmap even without nulls; a bitmap contradicting null_count 0 is
 *    rejected here, where arrow-rs would ignore it).
 *  - Compressed buffers: both the zstd form and the -1 raw form are read
 *    (arrow-rs stores raw when compression does not pay). A frame must be a
 *    single frame filling the buffer, recording its content size, equal to
 *    the declared length, else LFA_ERR_COMPRESSION; a consistent frame
 *    declaring more than LFA_ZSTD_OUTPUT_BYTES_MAX is LFA_ERR_LIMIT before
 *    anything is inflated (only headers are read).
 *  - Limits are for files that could be valid [FA-LIMIT-2]: a batch is over
 *    LFA_DELETION_ARROW_ROWS_MAX only when its values buffer could hold its
 *    rows; a file contradicting itself is malformed whatever it claims.
 *  - Metadata version V4 or V5; messages need the continuation marker (the
 *    pre-0.15 form without it is rejected). Flatbuffer scalars must be
 *    aligned to their size, as the flatbuffers verifiers require.
 *  - Buffers may be longer than the rows need (Arrow allows padding).
 *  - Every rejection cites FA-LANCE-3 (limits: FA-LIMIT-1).
 *  - Statuses: TRUNCATED only when the file cannot even hold its magic and
 *    trailer; any other layout error (offsets, lengths, markers) is FORMAT;
 *    schema, batch count, nulls and duplicates are RULE.
 *  - The encoder writes values ascending, an all-ones validity bitmap like
 *    arrow-rs, and with zstd compresses every non-empty buffer.
 */
#include "lfa/deletion.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "lfa/limits.h"

#define ARROW_MAGIC "ARROW1"

enum {
  MAGIC_LEN = 6,
  HEAD_LEN = 8,       /* magic + its shortest padding */
  MESSAGE_ALIGN = 8,  /* IPC messages start on 8-byte boundaries */
  TRAILER_LEN = 10,   /* i32 footer length + magic */
  PREFIX_LEN = 8,     /* continuation marker + i32 metadata length */
  CONTINUATION = -1,  /* 0xFFFFFFFF as an i32 */
  RAW_BUFFER = -1,    /* uncompressed-length prefix of a buffer stored raw */
  ZSTD_LEVEL = 3,
  NAME_SHOWN_MAX = 40 /* bytes of a hostile field name quoted in a message */
};

/* Field ids, from apache/arrow format/{File,Message,Schema}.fbs. A union
 * takes two ids: its type tag, then the value. */
enum {
  FOOTER_VERSION = 0, FOOTER_SCHEMA = 1, FOOTER_DICTIONARIES = 2, FOOTER_BATCHES = 3,
  MESSAGE_VERSION = 0, MESSAGE_HEADER_TYPE = 1, MESSAGE_HEADER = 2, MESSAGE_BODY_LENGTH = 3,
  SCHEMA_ENDIANNESS = 0, SCHEMA_FIELDS = 1, SCHEMA_METADATA = 2,
  FIELD_NAME = 0, FIELD_NULLABLE = 1, FIELD_TYPE_TYPE = 2, FIELD_TYPE = 3,
  FIELD_DICTIONARY = 4, FIELD_CHILDREN = 5, FIELD_METADATA = 6,
  INT_BIT_WIDTH = 0, INT_IS_SIGNED = 1,
  BATCH_LENGTH = 0, BATCH_NODES = 1, BATCH_BUFFERS = 2, BATCH_COMPRESSION = 3,
  COMPRESSION_CODEC = 0, COMPRESSION_METHOD = 1
};

/* Enum values and struct sizes from the same files. */
enum {
  VERSION_V4 = 3, VERSION_V5 = 4, /* MetadataVersion counts from V1 = 0 */
  HEADER_SCHEMA = 1, HEADER_RECORD_BATCH = 3,
  TYPE_INT = 2,
  ENDIAN_LITTLE = 0,
  CODEC_ZSTD = 1, METHOD_BUFFER = 0,
  BLOCK_SIZE = 24,      /* {i64 offset, i32 metaDataLength, pad, i64 bodyLength} */
  FIELD_NODE_SIZE = 16, /* {i64 length, i64 null_count} */
  BUFFER_SIZE = 16      /* {i64 offset, i64 length} */
};

enum { VALIDITY = 0, VALUES = 1, BUFFER_COUNT = 2 };

static bool fits(size_t pos, size_t n, size_t len) { return pos <= len && n <= len - pos; }

/* Two's-complement reading of the low `bits` bits of v, without relying on
 * implementation-defined conversions. */
static int64_t to_signed(uint64_t v, unsigned bits) {
  uint64_t sign = (uint64_t)1 << (bits - 1);
  v &= sign | (sign - 1);
  if ((v & sign) == 0) return (int64_t)v;
  return (int64_t)(v - sign) - (int64_t)(sign - 1) - 1;
}

static int64_t load_i64(const uint8_t *p) { return to_signed(lfa_load_u64le(p), 64); }
static int64_t load_i32(const uint8_t *p) { return to_signed(lfa_load_u32le(p), 32); }

/* ---- Flatbuffer reading ------------------------------------------------
 * Every accessor checks bounds (and scalar alignment) against the
 * flatbuffer's own bytes, so a hostile offset can only produce an error.
 * Nothing recurses: the objects read nest at most four deep (Footer >
 * Schema > Field > Int) and are walked by hand; Field.children must be empty.
 * `name` says which field is read ("Footer.schema"), for the messages. */

typedef struct fb {
  const uint8_t *data;
  size_t len;
} fb;

typedef struct fb_table {
  fb buf;
  size_t pos;        /* the table's soffset */
  size_t vtable;     /* its vtable */
  size_t vtable_len; /* bytes of the vtable */
  size_t inline_len; /* bytes of the table's inline part */
} fb_table;

typedef struct fb_vector {
  fb buf;
  bool present;
  size_t start; /* first element */
  size_t count;
} fb_vector;

static lfa_status fb_table_at(fb_table *out, fb buf, size_t pos, const char *name,
                              lfa_error *err) {
  memset(out, 0, sizeof *out);
  if (pos % 4 != 0 || !fits(pos, 4, buf.len))
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "%s: table at %zu is misaligned or outside the %zu-byte flatbuffer", name,
                    pos, buf.len);
  int64_t vt = (int64_t)pos - load_i32(buf.data + pos);
  if (vt < 0 || vt % 2 != 0 || (uint64_t)vt > buf.len - 4)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "%s: vtable at %lld is misaligned or outside the %zu-byte flatbuffer", name,
                    (long long)vt, buf.len);
  out->buf = buf;
  out->pos = pos;
  out->vtable = (size_t)vt;
  out->vtable_len = lfa_load_u16le(buf.data + out->vtable);
  out->inline_len = lfa_load_u16le(buf.data + out->vtable + 2);
  if (out->vtable_len < 4 || out->vtable_len % 2 != 0 ||
      !fits(out->vtable, out->vtable_len, buf.len))
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "%s: vtable at %zu declares a bad size %zu",
                    name, out->vtable, out->vtable_len);
  if (out->inline_len < 4 || !fits(pos, out->inline_len, buf.len))
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "%s: table at %zu declares %zu bytes, past the %zu-byte flatbuffer", name,
                    pos, out->inline_len, buf.len);
  return LFA_OK;
}

/* The root table, reached through the u32 at byte 0. */
static lfa_status fb_root(fb_table *out, fb buf, const char *name, lfa_error *err) {
  if (buf.len < 4)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "%s: flatbuffer of %zu bytes has no root offset",
                    name, buf.len);
  return fb_table_at(out, buf, lfa_load_u32le(buf.data), name, err);
}

/* Where field `id` of `width` bytes sits; *pos = 0 when it is absent. */
static lfa_status fb_field(size_t *pos, const fb_table *t, unsigned id, size_t width,
                           const char *name, lfa_error *err) {
  size_t entry = 4 + 2 * (size_t)id;
  *pos = 0;
  if (entry + 2 > t->vtable_len) return LFA_OK; /* a vtable from an older schema */
  size_t off = lfa_load_u16le(t->buf.data + t->vtable + entry);
  if (off == 0) return LFA_OK;
  if (off < 4 || off > t->inline_len || width > t->inline_len - off)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "%s: field at offset %zu (%zu bytes) lies outside its %zu-byte table", name,
                    off, width, t->inline_len);
  if ((t->pos + off) % width != 0)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "%s: %zu-byte field at %zu is misaligned", name,
                    width, t->pos + off);
  *pos = t->pos + off;
  return LFA_OK;
}

/* Scalar field `id` (1, 2, 4 or 8 bytes, unsigned), or `dflt` when absent. */
static lfa_status fb_uint(uint64_t *out, const fb_table *t, unsigned id, size_t width,
                          uint64_t dflt, const char *name, lfa_error *err) {
  size_t pos;
  lfa_status st = fb_field(&pos, t, id, width, name, err);
  *out = dflt;
  if (st != LFA_OK || pos == 0) return st;
  uint64_t v = 0;
  for (size_t i = 0; i < width; i++) v |= (uint64_t)t->buf.data[pos + i] << (8 * i);
  *out = v;
  return LFA_OK;
}

static lfa_status fb_int(int64_t *out, const fb_table *t, unsigned id, size_t width,
                         const char *name, lfa_error *err) {
  uint64_t v;
  lfa_status st = fb_uint(&v, t, id, width, 0, name, err);
  *out = to_signed(v, (unsigned)(8 * width));
  return st;
}

/* Follows the u32 offset stored at `pos` to an object of at least 4 bytes. */
static lfa_status fb_follow(size_t *target, fb buf, size_t pos, const char *name,
                            lfa_error *err) {
  uint32_t off = lfa_load_u32le(buf.data + pos);
  *target = 0;
  if (off == 0 || off > buf.len - pos || buf.len - pos - off < 4)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "%s: offset %u at %zu points outside the %zu-byte flatbuffer", name,
                    (unsigned)off, pos, buf.len);
  *target = pos + off;
  return LFA_OK;
}

/* Table field `id`; *present = false when absent. */
static lfa_status fb_subtable(fb_table *out, bool *present, const fb_table *t, unsigned id,
                              const char *name, lfa_error *err) {
  size_t pos, target;
  lfa_status st = fb_field(&pos, t, id, 4, name, err);
  *present = false;
  if (st != LFA_OK || pos == 0) return st;
  if ((st = fb_follow(&target, t->buf, pos, name, err)) != LFA_OK) return st;
  *present = true;
  return fb_table_at(out, t->buf, target, name, err);
}

/* Vector field `id` of `elem_size`-byte elements; absent reads as empty.
 * Like the flatbuffers verifiers, only the count must be 4-aligned. */
static lfa_status fb_vector_at(fb_vector *out, const fb_table *t, unsigned id, size_t elem_size,
                               const char *name, lfa_error *err) {
  size_t pos, target;
  memset(out, 0, sizeof *out);
  out->buf = t->buf;
  lfa_status st = fb_field(&pos, t, id, 4, name, err);
  if (st != LFA_OK || pos == 0) return st;
  if ((st = fb_follow(&target, t->buf, pos, name, err)) != LFA_OK) return st;
  if (target % 4 != 0)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "%s: vector at %zu is misaligned", name, target);
  out->present = true;
  out->start = target + 4;
  out->count = lfa_load_u32le(t->buf.data + target);
  if (out->count > (t->buf.len - out->start) / elem_size)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "%s: %zu elements of %zu bytes at %zu run past the %zu-byte flatbuffer",
                    name, out->count, elem_size, out->start, t->buf.len);
  return LFA_OK;
}

/* Element i of a vector of tables. */
static lfa_status fb_vector_table(fb_table *out, const fb_vector *v, size_t i, const char *name,
                                  lfa_error *err) {
  size_t target;
  lfa_status st = fb_follow(&target, v->buf, v->start + 4 * i, name, err);
  if (st != LFA_OK) return st;
  return fb_table_at(out, v->buf, target, name, err);
}

/* String field `id`; *s = NULL when absent. */
static lfa_status fb_string(const uint8_t **s, size_t *n, const fb_table *t, unsigned id,
                            const char *name, lfa_error *err) {
  fb_vector v;
  lfa_status st = fb_vector_at(&v, t, id, 1, name, err);
  *s = NULL;
  *n = 0;
  if (st != LFA_OK || !v.present) return st;
  if (v.count >= v.buf.len - v.start || v.buf.data[v.start + v.count] != 0)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "%s: string at %zu lacks its NUL terminator",
                    name, v.start);
  *s = v.buf.data + v.start;
  *n = v.count;
  return LFA_OK;
}

/* MetadataVersion field `id` of a Footer or Message: V4 or V5. */
static lfa_status check_version(const fb_table *t, unsigned id, const char *name,
                                lfa_error *err) {
  int64_t version;
  lfa_status st = fb_int(&version, t, id, 2, name, err);
  if (st != LFA_OK) return st;
  if (version != VERSION_V4 && version != VERSION_V5)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "%s is %lld (V%lld), expected V4 or V5", name, (long long)version,
                    (long long)version + 1);
  return LFA_OK;
}

/* ---- The schema: exactly `row_id: UInt32 not null` -------------------- */

/* Copies at most NAME_SHOWN_MAX bytes of a hostile name, unprintable bytes
 * as '?', so that an error message stays one readable line. */
static void printable(char out[NAME_SHOWN_MAX + 4], const uint8_t *s, size_t n) {
  size_t k = n < NAME_SHOWN_MAX ? n : NAME_SHOWN_MAX;
  for (size_t i = 0; i < k; i++) out[i] = (s[i] >= 0x20 && s[i] < 0x7F) ? (char)s[i] : '?';
  strcpy(out + k, n > k ? "..." : "");
}

static lfa_status check_field_name(const fb_table *field, lfa_error *err) {
  const uint8_t *name;
  size_t n;
  uint64_t nullable;
  lfa_status st = fb_string(&name, &n, field, FIELD_NAME, "Field.name", err);
  if (st != LFA_OK) return st;
  if (name == NULL)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3", "schema field 0 has no name, expected 'row_id'");
  if (n != 6 || memcmp(name, "row_id", 6) != 0) {
    char shown[NAME_SHOWN_MAX + 4];
    printable(shown, name, n);
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3", "schema field 0 is named '%s', expected 'row_id'",
                    shown);
  }
  if ((st = fb_uint(&nullable, field, FIELD_NULLABLE, 1, 0, "Field.nullable", err)) != LFA_OK)
    return st;
  if (nullable != 0)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3",
                    "schema field 'row_id' is nullable, expected not null");
  return LFA_OK;
}

/* Type union: tag Int, table Int{bitWidth 32, is_signed false}. */
static lfa_status check_field_type(const fb_table *field, lfa_error *err) {
  uint64_t tag, is_signed;
  int64_t bits;
  fb_table type;
  bool present;
  lfa_status st = fb_uint(&tag, field, FIELD_TYPE_TYPE, 1, 0, "Field.type_type", err);
  if (st != LFA_OK) return st;
  if (tag != TYPE_INT)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3",
                    "schema field 'row_id' has type tag %llu, expected %d (Int)",
                    (unsigned long long)tag, TYPE_INT);
  if ((st = fb_subtable(&type, &present, field, FIELD_TYPE, "Field.type", err)) != LFA_OK)
    return st;
  if (!present)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "schema field 'row_id' has no Int type table");
  if ((st = fb_int(&bits, &type, INT_BIT_WIDTH, 4, "Int.bitWidth", err)) != LFA_OK) return st;
  if ((st = fb_uint(&is_signed, &type, INT_IS_SIGNED, 1, 0, "Int.is_signed", err)) != LFA_OK)
    return st;
  if (bits != 32)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3",
                    "schema field 'row_id' is a %lld-bit integer, expected UInt32",
                    (long long)bits);
  if (is_signed != 0)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3",
                    "schema field 'row_id' is signed Int32, expected UInt32");
  return LFA_OK;
}

/* No dictionary, no children, no custom_metadata. */
static lfa_status check_field_extras(const fb_table *field, lfa_error *err) {
  fb_table dict;
  fb_vector children, meta;
  bool present;
  lfa_status st = fb_subtable(&dict, &present, field, FIELD_DICTIONARY, "Field.dictionary", err);
  if (st != LFA_OK) return st;
  if (present)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3", "schema field 'row_id' is dictionary-encoded");
  if ((st = fb_vector_at(&children, field, FIELD_CHILDREN, 4, "Field.children", err)) != LFA_OK)
    return st;
  if (children.count != 0)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3",
                    "schema field 'row_id' has %zu children, expected none", children.count);
  if ((st = fb_vector_at(&meta, field, FIELD_METADATA, 4, "Field.custom_metadata", err)) != LFA_OK)
    return st;
  if (meta.count != 0)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3",
                    "schema field 'row_id' has %zu custom_metadata entries, expected none",
                    meta.count);
  return LFA_OK;
}

static lfa_status check_schema(const fb_table *schema, lfa_error *err) {
  int64_t endianness;
  fb_vector fields, meta;
  fb_table field;
  lfa_status st = fb_int(&endianness, schema, SCHEMA_ENDIANNESS, 2, "Schema.endianness", err);
  if (st != LFA_OK) return st;
  if (endianness != ENDIAN_LITTLE)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "schema endianness is %lld, expected 0 (Little)",
                    (long long)endianness);
  if ((st = fb_vector_at(&fields, schema, SCHEMA_FIELDS, 4, "Schema.fields", err)) != LFA_OK)
    return st;
  if (fields.count != 1)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3", "schema has %zu fields, expected exactly 1 (row_id)",
                    fields.count);
  if ((st = fb_vector_at(&meta, schema, SCHEMA_METADATA, 4, "Schema.custom_metadata", err)) !=
      LFA_OK)
    return st;
  if (meta.count != 0)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3",
                    "schema has %zu custom_metadata entries, expected none", meta.count);
  if ((st = fb_vector_table(&field, &fields, 0, "Schema.fields[0]", err)) != LFA_OK) return st;
  if ((st = check_field_name(&field, err)) != LFA_OK) return st;
  if ((st = check_field_type(&field, err)) != LFA_OK) return st;
  return check_field_extras(&field, err);
}

/* ---- The file: magic, trailer, footer --------------------------------- */

typedef struct arrow_file {
  const uint8_t *data;
  size_t len;
  size_t footer_pos; /* first byte of the footer flatbuffer */
  size_t footer_len;
} arrow_file;

/* The one record batch, as the footer's Block locates it. */
typedef struct block {
  size_t offset;   /* of the message's continuation marker */
  size_t meta_len; /* prefix + flatbuffer + padding */
  size_t body_len;
} block;

static lfa_status read_trailer(arrow_file *f, const uint8_t *data, size_t len, lfa_error *err) {
  if (len > LFA_DELETION_FILE_BYTES_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1",
                    "arrow file of %zu bytes exceeds the limit of %u", len,
                    (unsigned)LFA_DELETION_FILE_BYTES_MAX);
  if (len < HEAD_LEN + TRAILER_LEN)
    return lfa_fail(err, LFA_ERR_TRUNCATED, "FA-LANCE-3",
                    "arrow file of %zu bytes is shorter than its %d bytes of magic and trailer",
                    len, HEAD_LEN + TRAILER_LEN);
  if (memcmp(data, ARROW_MAGIC, MAGIC_LEN) != 0)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "arrow file does not start with the magic 'ARROW1'");
  if (memcmp(data + len - MAGIC_LEN, ARROW_MAGIC, MAGIC_LEN) != 0)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "arrow file does not end with the magic 'ARROW1'");
  int64_t footer_len = load_i32(data + len - TRAILER_LEN);
  size_t room = len - HEAD_LEN - TRAILER_LEN;
  if (footer_len <= 0 || (uint64_t)footer_len > room)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "footer length %lld does not fit the %zu bytes between magic and trailer",
                    (long long)footer_len, room);
  f->data = data;
  f->len = len;
  f->footer_len = (size_t)footer_len;
  f->footer_pos = len - TRAILER_LEN - f->footer_len;
  return LFA_OK;
}

/* The Block of the one batch; its message and body must end before the
 * footer starts. */
static lfa_status read_block(block *out, const fb_vector *batches, const arrow_file *f,
                             lfa_error *err) {
  const uint8_t *p = batches->buf.data + batches->start;
  int64_t offset = load_i64(p), meta = load_i32(p + 8), body = load_i64(p + 16);
  uint64_t end = f->footer_pos;
  if (offset < HEAD_LEN || meta < PREFIX_LEN || body < 0)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "record batch block {offset %lld, metaDataLength %lld, bodyLength %lld} "
                    "is invalid",
                    (long long)offset, (long long)meta, (long long)body);
  if (offset % MESSAGE_ALIGN != 0)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "record batch block offset %lld is not a multiple of %d", (long long)offset,
                    MESSAGE_ALIGN);
  if ((uint64_t)offset > end || (uint64_t)meta > end - (uint64_t)offset ||
      (uint64_t)body > end - (uint64_t)offset - (uint64_t)meta)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "record batch block {offset %lld, metaDataLength %lld, bodyLength %lld} "
                    "runs past the footer at %zu",
                    (long long)offset, (long long)meta, (long long)body, f->footer_pos);
  out->offset = (size_t)offset;
  out->meta_len = (size_t)meta;
  out->body_len = (size_t)body;
  return LFA_OK;
}

static lfa_status read_footer(block *out, const arrow_file *f, lfa_error *err) {
  fb buf = {f->data + f->footer_pos, f->footer_len};
  fb_table footer, schema;
  fb_vector dictionaries, batches;
  bool present;
  lfa_status st = fb_root(&footer, buf, "Footer", err);
  if (st != LFA_OK) return st;
  if ((st = check_version(&footer, FOOTER_VERSION, "Footer.version", err)) != LFA_OK) return st;
  if ((st = fb_subtable(&schema, &present, &footer, FOOTER_SCHEMA, "Footer.schema", err)) != LFA_OK)
    return st;
  if (!present) return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "footer has no schema");
  if ((st = check_schema(&schema, err)) != LFA_OK) return st;
  st = fb_vector_at(&dictionaries, &footer, FOOTER_DICTIONARIES, BLOCK_SIZE,
                    "Footer.dictionaries", err);
  if (st != LFA_OK) return st;
  if (dictionaries.count != 0)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3", "footer lists %zu dictionary batches, expected none",
                    dictionaries.count);
  st = fb_vector_at(&batches, &footer, FOOTER_BATCHES, BLOCK_SIZE, "Footer.recordBatches", err);
  if (st != LFA_OK) return st;
  if (batches.count != 1)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3", "footer lists %zu record batches, expected exactly 1",
                    batches.count);
  return read_block(out, &batches, f, err);
}

/* ---- Encapsulated messages -------------------------------------------- */

typedef struct message {
  fb_table header;   /* the Schema or RecordBatch table */
  uint64_t body_len; /* Message.bodyLength */
} message;

static const char *header_name(uint64_t type) {
  switch (type) {
    case 0: return "NONE";
    case 1: return "Schema";
    case 2: return "DictionaryBatch";
    case 3: return "RecordBatch";
    case 4: return "Tensor";
    case 5: return "SparseTensor";
    default: return "unknown";
  }
}

/* The message at `pos`, whose metadata must end by `limit`; its header
 * union must hold `want`. */
static lfa_status read_message(message *out, const arrow_file *f, size_t pos, size_t limit,
                               uint64_t want, lfa_error *err) {
  if (!fits(pos, PREFIX_LEN, limit))
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "its 8-byte prefix runs past byte %zu", limit);
  if (load_i32(f->data + pos) != CONTINUATION)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "it lacks the FF FF FF FF continuation marker");
  int64_t meta_len = load_i32(f->data + pos + 4);
  if (meta_len <= 0 || (uint64_t)meta_len > limit - pos - PREFIX_LEN)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "metadata length %lld does not fit before byte %zu",
                    (long long)meta_len, limit);
  fb buf = {f->data + pos + PREFIX_LEN, (size_t)meta_len};
  fb_table msg;
  uint64_t type;
  bool present;
  int64_t body_len;
  lfa_status st = fb_root(&msg, buf, "Message", err);
  if (st != LFA_OK) return st;
  if ((st = check_version(&msg, MESSAGE_VERSION, "Message.version", err)) != LFA_OK) return st;
  if ((st = fb_uint(&type, &msg, MESSAGE_HEADER_TYPE, 1, 0, "Message.header_type", err)) != LFA_OK)
    return st;
  if (type != want)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "it holds a %s header (%llu), expected %s",
                    header_name(type), (unsigned long long)type, header_name(want));
  st = fb_subtable(&out->header, &present, &msg, MESSAGE_HEADER, "Message.header", err);
  if (st != LFA_OK) return st;
  if (!present)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "its %s header is missing", header_name(want));
  if ((st = fb_int(&body_len, &msg, MESSAGE_BODY_LENGTH, 8, "Message.bodyLength", err)) != LFA_OK)
    return st;
  if (body_len < 0)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "bodyLength %lld is negative", (long long)body_len);
  out->body_len = (uint64_t)body_len;
  return LFA_OK;
}

/* Where the stream's first message starts: the first non-zero byte after
 * the magic, before the batch, on an 8-byte boundary. */
static lfa_status find_stream_start(size_t *start, const arrow_file *f, const block *b,
                                    lfa_error *err) {
  size_t pos = MAGIC_LEN;
  while (pos < b->offset && f->data[pos] == 0) pos++;
  *start = pos;
  if (pos == b->offset)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "nothing but zero padding lies between the magic and the record batch at %zu",
                    b->offset);
  if (pos % MESSAGE_ALIGN != 0)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "the padding after the magic ends at byte %zu, not on an 8-byte boundary", pos);
  return LFA_OK;
}

/* The stream inside the file opens with the schema; it must match and end
 * before the record batch starts. */
static lfa_status read_stream_schema(const arrow_file *f, size_t start, const block *b,
                                     lfa_error *err) {
  message m;
  lfa_status st = read_message(&m, f, start, b->offset, HEADER_SCHEMA, err);
  if (st != LFA_OK) return st;
  if ((st = check_schema(&m.header, err)) != LFA_OK) return st;
  if (m.body_len != 0)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "it declares a %llu-byte body, expected none",
                    (unsigned long long)m.body_len);
  return LFA_OK;
}

/* ---- The record batch ------------------------------------------------- */

typedef struct batch {
  uint64_t rows;
  bool zstd;
  const uint8_t *body;
  size_t body_len;
  size_t buf_off[BUFFER_COUNT]; /* validity, values: inside the body */
  size_t buf_len[BUFFER_COUNT];
} batch;

/* One FieldNode for the one column: the batch's length, no nulls. */
static lfa_status read_field_node(const fb_table *rb, uint64_t rows, lfa_error *err) {
  fb_vector nodes;
  lfa_status st = fb_vector_at(&nodes, rb, BATCH_NODES, FIELD_NODE_SIZE, "RecordBatch.nodes", err);
  if (st != LFA_OK) return st;
  if (nodes.count != 1)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "it has %zu field nodes, expected 1", nodes.count);
  const uint8_t *p = nodes.buf.data + nodes.start;
  int64_t length = load_i64(p), nulls = load_i64(p + 8);
  if (length < 0 || (uint64_t)length != rows)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "field node length %lld differs from the %llu rows",
                    (long long)length, (unsigned long long)rows);
  if (nulls < 0)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "field node null_count %lld is negative",
                    (long long)nulls);
  if (nulls > 0)
    return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3", "column 'row_id' has null_count %lld, expected 0",
                    (long long)nulls);
  return LFA_OK;
}

/* Two Buffers (validity, values), each inside the body. */
static lfa_status read_buffers(batch *out, const fb_table *rb, lfa_error *err) {
  fb_vector v;
  lfa_status st = fb_vector_at(&v, rb, BATCH_BUFFERS, BUFFER_SIZE, "RecordBatch.buffers", err);
  if (st != LFA_OK) return st;
  if (v.count != BUFFER_COUNT)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "it has %zu buffers, expected 2 (validity, values)",
                    v.count);
  for (size_t i = 0; i < BUFFER_COUNT; i++) {
    const uint8_t *p = v.buf.data + v.start + BUFFER_SIZE * i;
    int64_t off = load_i64(p), len = load_i64(p + 8);
    if (off < 0 || len < 0 || (uint64_t)off > out->body_len ||
        (uint64_t)len > out->body_len - (uint64_t)off)
      return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                      "buffer %zu {offset %lld, length %lld} lies outside the %zu-byte body", i,
                      (long long)off, (long long)len, out->body_len);
    out->buf_off[i] = (size_t)off;
    out->buf_len[i] = (size_t)len;
  }
  return LFA_OK;
}

/* No BodyCompression table: raw buffers. Otherwise ZSTD per BUFFER. */
static lfa_status read_compression(bool *zstd, const fb_table *rb, lfa_error *err) {
  fb_table c;
  bool present;
  uint64_t codec, method;
  lfa_status st = fb_subtable(&c, &present, rb, BATCH_COMPRESSION, "RecordBatch.compression", err);
  *zstd = false;
  if (st != LFA_OK || !present) return st;
  if ((st = fb_uint(&codec, &c, COMPRESSION_CODEC, 1, 0, "BodyCompression.codec", err)) != LFA_OK)
    return st;
  if ((st = fb_uint(&method, &c, COMPRESSION_METHOD, 1, METHOD_BUFFER, "BodyCompression.method",
                    err)) != LFA_OK)
    return st;
  if (codec != CODEC_ZSTD)
    return lfa_fail(err, LFA_ERR_COMPRESSION, "FA-LANCE-3", "body compression codec is %s, expected ZSTD",
                    codec == 0 ? "LZ4_FRAME" : "unknown");
  if (method != METHOD_BUFFER)
    return lfa_fail(err, LFA_ERR_COMPRESSION, "FA-LANCE-3",
                    "body compression method is %llu, expected 0 (BUFFER)",
                    (unsigned long long)method);
  *zstd = true;
  return LFA_OK;
}

/* The message the block points at; its body follows the block's metadata. */
static lfa_status check_row_limit(const batch *b, lfa_error *err); /* with the body buffers, below */

static lfa_status read_batch(batch *out, const arrow_file *f, const block *b, lfa_error *err) {
  message m;
  int64_t rows;
  memset(out, 0, sizeof *out);
  lfa_status st = read_message(&m, f, b->offset, b->offset + b->meta_len, HEADER_RECORD_BATCH, err);
  if (st != LFA_OK) return st;
  if (m.body_len != b->body_len)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "it declares a %llu-byte body, its footer block %zu bytes",
                    (unsigned long long)m.body_len, b->body_len);
  out->body = f->data + b->offset + b->meta_len;
  out->body_len = b->body_len;
  if ((st = fb_int(&rows, &m.header, BATCH_LENGTH, 8, "RecordBatch.length", err)) != LFA_OK)
    return st;
  if (rows < 0)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "it has a negative length %lld", (long long)rows);
  out->rows = (uint64_t)rows;
  if ((st = read_field_node(&m.header, out->rows, err)) != LFA_OK) return st;
  if ((st = read_buffers(out, &m.header, err)) != LFA_OK) return st;
  if ((st = read_compression(&out->zstd, &m.header, err)) != LFA_OK) return st;
  return check_row_limit(out, err);
}

/* ---- Body buffers ----------------------------------------------------- */

/* A body buffer ready to read: borrowed from the input, or inflated. */
typedef struct span {
  const uint8_t *data;
  size_t len;
  uint8_t *owned; /* malloc'ed when inflated */
} span;

/* What a compressed buffer holds: i64 length | zstd frame, i64 -1 | raw
 * bytes, or nothing at all. */
typedef struct framed {
  const uint8_t *bytes; /* the frame, or the raw bytes */
  size_t len;
  bool raw;
  uint64_t size; /* bytes once inflated */
} framed;

/* A buffer's prefix and, for a zstd frame, its headers: one frame filling
 * the buffer, whose content size, where it records one, equals the prefix. Nothing
 * is inflated, so the caller can hold the size against a limit first; a
 * buffer that contradicts itself is malformed, whatever size it claims
 * [FA-LIMIT-2]. */
static lfa_status read_framing(framed *out, const uint8_t *src, size_t n, const char *name, lfa_error *err) {
  *out = (framed){src, 0, true, 0};
  if (n == 0) return LFA_OK;
  if (n < 8)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "%s buffer of %zu bytes cannot hold its 8-byte uncompressed length", name, n);
  int64_t want = load_i64(src);
  const uint8_t *frame = src + 8;
  size_t frame_len = n - 8;
  out->bytes = frame, out->len = frame_len, out->size = frame_len;
  if (want == RAW_BUFFER) return LFA_OK;
  if (want < 0)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "%s buffer declares %lld uncompressed bytes", name,
                    (long long)want);
  unsigned long long content = ZSTD_getFrameContentSize(frame, frame_len);
  if (content == ZSTD_CONTENTSIZE_ERROR)
    return lfa_fail(err, LFA_ERR_COMPRESSION, "FA-LANCE-3", "%s buffer is not a zstd frame", name);
  /* Lance 0.10 (lancedb 0.4.20, measured by the release sweep) writes
   * frames without a content size: the prefix alone then says what the
   * frame inflates to, held against LFA_ZSTD_OUTPUT_BYTES_MAX before
   * anything is inflated, and the frame must inflate to exactly that
   * (inflate_buffer gives ZSTD no more room than the prefix). */
  if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != (uint64_t)want)
    return lfa_fail(err, LFA_ERR_COMPRESSION, "FA-LANCE-3",
                    "%s buffer's zstd frame holds %llu bytes, its prefix declares %lld", name,
                    content, (long long)want);
  size_t used = ZSTD_findFrameCompressedSize(frame, frame_len);
  if (ZSTD_isError(used) || used != frame_len)
    return lfa_fail(err, LFA_ERR_COMPRESSION, "FA-LANCE-3",
                    "%s buffer is not exactly one zstd frame of %zu bytes (%s)", name, frame_len,
                    ZSTD_isError(used) ? ZSTD_getErrorName(used) : "bytes follow the frame");
  out->raw = false, out->size = (uint64_t)want;
  return LFA_OK;
}

/* [FA-LIMIT-2] A batch is over the row limit only when its values buffer
 * could hold its rows (4 bytes each): raw, in its length; compressed, in
 * the size its frame records (a frame contradicting its prefix is
 * malformed). One that cannot is malformed whatever its length says, and a
 * verifier must report it as such, not as a file merely too large for this
 * reader. */
static lfa_status check_row_limit(const batch *b, lfa_error *err) {
  if (b->rows <= LFA_DELETION_ARROW_ROWS_MAX) return LFA_OK;
  framed f = {NULL, b->buf_len[VALUES], true, b->buf_len[VALUES]};
  lfa_status st = b->zstd ? read_framing(&f, b->body + b->buf_off[VALUES], b->buf_len[VALUES], "values", err) : LFA_OK;
  if (st != LFA_OK) return st;
  if (f.size / 4 < b->rows)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "values buffer holds %llu bytes, %llu rows need more",
                    (unsigned long long)f.size, (unsigned long long)b->rows);
  return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "it has %llu rows, limit is %u", (unsigned long long)b->rows,
                  (unsigned)LFA_DELETION_ARROW_ROWS_MAX);
}

static lfa_status inflate_buffer(span *out, const uint8_t *src, size_t n, const char *name,
                                 lfa_error *err) {
  framed f;
  out->data = src;
  out->len = 0;
  lfa_status st = read_framing(&f, src, n, name, err);
  if (st != LFA_OK) return st;
  out->data = f.bytes;
  out->len = f.len;
  if (f.raw) return LFA_OK;
  if (f.size > LFA_ZSTD_OUTPUT_BYTES_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1",
                    "%s buffer declares %llu uncompressed bytes, limit is %u", name,
                    (unsigned long long)f.size, (unsigned)LFA_ZSTD_OUTPUT_BYTES_MAX);
  size_t want = (size_t)f.size;
  out->owned = malloc(want > 0 ? want : 1);
  if (out->owned == NULL)
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate %zu bytes for the %s buffer", want, name);
  size_t got = ZSTD_decompress(out->owned, want, f.bytes, f.len);
  if (ZSTD_isError(got) || got != want)
    return lfa_fail(err, LFA_ERR_COMPRESSION, "FA-LANCE-3", "%s buffer does not inflate to %zu bytes (%s)",
                    name, want, ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
  out->data = out->owned;
  out->len = want;
  return LFA_OK;
}

static lfa_status read_buffer(span *out, const batch *b, size_t i, lfa_error *err) {
  const char *name = i == VALIDITY ? "validity" : "values";
  const uint8_t *src = b->body + b->buf_off[i];
  memset(out, 0, sizeof *out);
  if (!b->zstd) {
    out->data = src;
    out->len = b->buf_len[i];
    return LFA_OK;
  }
  return inflate_buffer(out, src, b->buf_len[i], name, err);
}

/* null_count is 0, so an empty bitmap is fine; a present one must agree. */
static lfa_status check_validity(const span *v, uint64_t rows, lfa_error *err) {
  if (v->len == 0) return LFA_OK;
  if (v->len < (rows + 7) / 8)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3",
                    "validity buffer holds %zu bytes, %llu rows need %llu", v->len,
                    (unsigned long long)rows, (unsigned long long)((rows + 7) / 8));
  for (uint64_t i = 0; i < rows; i++)
    if (((v->data[i / 8] >> (i % 8)) & 1) == 0)
      return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3",
                      "validity bit of row %llu is clear although null_count is 0",
                      (unsigned long long)i);
  return LFA_OK;
}

static lfa_status collect_values(roaring_bitmap_t *bm, const span *v, uint64_t rows,
                                 lfa_error *err) {
  if (v->len / 4 < rows)
    return lfa_fail(err, LFA_ERR_FORMAT, "FA-LANCE-3", "values buffer holds %zu bytes, %llu rows need %llu",
                    v->len, (unsigned long long)rows, (unsigned long long)rows * 4);
  for (uint64_t i = 0; i < rows; i++) {
    uint32_t x = lfa_load_u32le(v->data + 4 * i);
    if (!roaring_bitmap_add_checked(bm, x))
      return lfa_fail(err, LFA_ERR_RULE, "FA-LANCE-3", "row_id %u at row %llu repeats an earlier row",
                      (unsigned)x, (unsigned long long)i);
  }
  return LFA_OK;
}

static lfa_status read_rows(roaring_bitmap_t *bm, const batch *b, lfa_error *err) {
  span validity = {0}, values = {0};
  lfa_status st = read_buffer(&validity, b, VALIDITY, err);
  if (st == LFA_OK) st = check_validity(&validity, b->rows, err);
  if (st == LFA_OK) st = read_buffer(&values, b, VALUES, err);
  if (st == LFA_OK) st = collect_values(bm, &values, b->rows, err);
  free(validity.owned);
  free(values.owned);
  return st;
}

lfa_status lfa_deletion_arrow_decode(roaring_bitmap_t **out, const uint8_t *data, size_t len,
                                     lfa_error *err) {
  arrow_file f = {0}; /* zeroed: gcc cannot see that lfa_fail never returns LFA_OK */
  block b = {0};
  batch bt = {0};
  *out = NULL;
  lfa_status st = read_trailer(&f, data, len, err);
  if (st != LFA_OK) return st;
  if ((st = read_footer(&b, &f, err)) != LFA_OK) {
    lfa_error_prefix(err, "arrow footer");
    return st;
  }
  size_t start = 0;
  if ((st = find_stream_start(&start, &f, &b, err)) != LFA_OK) {
    lfa_error_prefix(err, "arrow stream");
    return st;
  }
  if ((st = read_stream_schema(&f, start, &b, err)) != LFA_OK) {
    lfa_error_prefix(err, "arrow schema message at offset %zu", start);
    return st;
  }
  if ((st = read_batch(&bt, &f, &b, err)) != LFA_OK) {
    lfa_error_prefix(err, "arrow record batch message at offset %zu", b.offset);
    return st;
  }
  roaring_bitmap_t *bm = roaring_bitmap_create();
  if (bm == NULL) return lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot create a roaring bitmap");
  if ((st = read_rows(bm, &bt, err)) != LFA_OK) {
    roaring_bitmap_free(bm);
    return st;
  }
  *out = bm;
  return LFA_OK;
}

/* ---- Flatbuffer writing ------------------------------------------------
 * The encoder lays each flatbuffer out front to back: every table right
 * after its vtable (positive soffset), its children after it (forward u32
 * offsets), each table at 4 mod 8 so that an i64 field at table offset 4 is
 * 8-aligned. The objects have fixed shapes, so a fixed buffer suffices;
 * overflow is a bug and is reported once, at the end. */

enum { FBW_CAP = 1024 };

typedef struct fbw {
  uint8_t b[FBW_CAP];
  size_t n;
  bool overflow;
} fbw;

static void fbw_uint(fbw *w, uint64_t v, size_t width) {
  if (w->overflow || width > FBW_CAP - w->n) {
    w->overflow = true;
    return;
  }
  for (size_t i = 0; i < width; i++) w->b[w->n++] = (uint8_t)(v >> (8 * i));
}

/* Zero bytes until the position is `phase` modulo `align`. */
static void fbw_pad(fbw *w, size_t align, size_t phase) {
  while (!w->overflow && w->n % align != phase) fbw_uint(w, 0, 1);
}

/* A u32 offset to fill in later with fbw_link; returns where it sits. */
static size_t fbw_ref(fbw *w) {
  fbw_pad(w, 4, 0);
  size_t at = w->n;
  fbw_uint(w, 0, 4);
  return at;
}

static void fbw_link(fbw *w, size_t ref, size_t target) {
  if (!w->overflow) lfa_store_u32le(w->b + ref, (uint32_t)(target - ref));
}

/* A vtable of `count` field offsets, then the table's soffset; the caller
 * writes the `inline_len - 4` field bytes next. Returns the table. */
static size_t fbw_table(fbw *w, const uint16_t *fields, size_t count, size_t inline_len) {
  fbw_pad(w, 2, 0);
  size_t vt = w->n;
  fbw_uint(w, 4 + 2 * count, 2);
  fbw_uint(w, inline_len, 2);
  for (size_t i = 0; i < count; i++) fbw_uint(w, fields[i], 2);
  fbw_pad(w, 8, 4);
  size_t t = w->n;
  fbw_uint(w, t - vt, 4);
  return t;
}

/* A vector's count, placed so 8-byte struct elements come out 8-aligned. */
static size_t fbw_vector(fbw *w, uint32_t count) {
  fbw_pad(w, 8, 4);
  size_t at = w->n;
  fbw_uint(w, count, 4);
  return at;
}

static size_t fbw_string(fbw *w, const char *s) {
  size_t n = strlen(s);
  fbw_pad(w, 4, 0);
  size_t at = w->n;
  fbw_uint(w, n, 4);
  for (size_t i = 0; i < n; i++) fbw_uint(w, (uint8_t)s[i], 1);
  fbw_uint(w, 0, 1);
  return at;
}

/* ---- Encoding --------------------------------------------------------- */

/* Field{name "row_id", nullable false, type Int{32, unsigned}, children []}.
 * Table: [4] name [8] type [12] children [16] nullable [17] type_type. */
static void put_field(fbw *w, size_t ref) {
  const uint16_t field[] = {4, 16, 17, 8, 0, 12};
  const uint16_t int_type[] = {4, 8};
  size_t t = fbw_table(w, field, 6, 18);
  fbw_link(w, ref, t);
  size_t name = fbw_ref(w), type = fbw_ref(w), children = fbw_ref(w);
  fbw_uint(w, 0, 1);
  fbw_uint(w, TYPE_INT, 1);
  fbw_link(w, name, fbw_string(w, "row_id"));
  fbw_link(w, type, fbw_table(w, int_type, 2, 9)); /* [4] bitWidth [8] is_signed */
  fbw_uint(w, 32, 4);
  fbw_uint(w, 0, 1);
  fbw_link(w, children, fbw_vector(w, 0));
}

/* Schema{endianness Little, fields [row_id]}: [4] fields [8] endianness. */
static void put_schema(fbw *w, size_t ref) {
  const uint16_t schema[] = {8, 4};
  fbw_link(w, ref, fbw_table(w, schema, 2, 10));
  size_t fields = fbw_ref(w);
  fbw_uint(w, ENDIAN_LITTLE, 2);
  fbw_link(w, fields, fbw_vector(w, 1));
  put_field(w, fbw_ref(w));
}

/* Message{version V5, header_type, header, bodyLength}; returns the header
 * reference. Table: [4] bodyLength [12] header [16] version [18] type. */
static size_t put_message(fbw *w, uint8_t header_type, uint64_t body_len) {
  const uint16_t fields[] = {16, 18, 12, 4};
  size_t root = fbw_ref(w);
  fbw_link(w, root, fbw_table(w, fields, 4, 19));
  fbw_uint(w, body_len, 8);
  size_t header = fbw_ref(w);
  fbw_uint(w, VERSION_V5, 2);
  fbw_uint(w, header_type, 1);
  return header;
}

typedef struct body_layout {
  uint64_t off[BUFFER_COUNT], len[BUFFER_COUNT];
  uint64_t total;
} body_layout;

/* RecordBatch{length, nodes [{rows, 0}], buffers, compression?}.
 * Table: [4] length [12] nodes [16] buffers [20] compression. */
static void put_batch(fbw *w, uint64_t rows, const body_layout *l, bool zstd) {
  const uint16_t rb[] = {4, 12, 16, 20};
  const uint16_t compression[] = {4, 5}; /* [4] codec [5] method */
  size_t header = put_message(w, HEADER_RECORD_BATCH, l->total);
  fbw_link(w, header, fbw_table(w, rb, zstd ? 4 : 3, zstd ? 24 : 20));
  fbw_uint(w, rows, 8);
  size_t nodes = fbw_ref(w), buffers = fbw_ref(w), codec = zstd ? fbw_ref(w) : 0;
  fbw_link(w, nodes, fbw_vector(w, 1));
  fbw_uint(w, rows, 8);
  fbw_uint(w, 0, 8);
  fbw_link(w, buffers, fbw_vector(w, BUFFER_COUNT));
  for (size_t i = 0; i < BUFFER_COUNT; i++) {
    fbw_uint(w, l->off[i], 8);
    fbw_uint(w, l->len[i], 8);
  }
  if (zstd) {
    fbw_link(w, codec, fbw_table(w, compression, 2, 6));
    fbw_uint(w, CODEC_ZSTD, 1);
    fbw_uint(w, METHOD_BUFFER, 1);
  }
}

/* Footer{version V5, schema, dictionaries [], recordBatches [b]}.
 * Table: [4] schema [8] dictionaries [12] recordBatches [16] version. */
static void put_footer(fbw *w, const block *b) {
  const uint16_t footer[] = {16, 4, 8, 12};
  size_t root = fbw_ref(w);
  fbw_link(w, root, fbw_table(w, footer, 4, 18));
  size_t schema = fbw_ref(w), dictionaries = fbw_ref(w), batches = fbw_ref(w);
  fbw_uint(w, VERSION_V5, 2);
  put_schema(w, schema);
  fbw_link(w, dictionaries, fbw_vector(w, 0));
  fbw_link(w, batches, fbw_vector(w, 1));
  fbw_uint(w, b->offset, 8);
  fbw_uint(w, b->meta_len, 4);
  fbw_uint(w, 0, 4);
  fbw_uint(w, b->body_len, 8);
}

static lfa_status pad_to(lfa_buf *out, size_t align, lfa_error *err) {
  return lfa_buf_extend(out, (align - out->len % align) % align, NULL, err);
}

/* i64 length | zstd frame, written straight into the body. */
static lfa_status put_compressed(lfa_buf *body, const uint8_t *src, size_t n, lfa_error *err) {
  size_t start = body->len, bound = ZSTD_compressBound(n);
  uint8_t *tail;
  lfa_status st = lfa_buf_extend(body, 8 + bound, &tail, err);
  if (st != LFA_OK) return st;
  lfa_store_u64le(tail, n);
  size_t got = ZSTD_compress(tail + 8, bound, src, n, ZSTD_LEVEL);
  if (ZSTD_isError(got))
    return lfa_fail(err, LFA_ERR_COMPRESSION, "FA-LANCE-3", "zstd cannot compress %zu bytes: %s", n,
                    ZSTD_getErrorName(got));
  body->len = start + 8 + got;
  return LFA_OK;
}

static lfa_status put_buffer(lfa_buf *body, body_layout *l, size_t i, const uint8_t *src,
                             size_t n, bool zstd, size_t align, lfa_error *err) {
  lfa_status st = pad_to(body, align, err);
  if (st != LFA_OK) return st;
  l->off[i] = body->len;
  st = zstd && n > 0 ? put_compressed(body, src, n, err) : lfa_buf_append(body, src, n, err);
  l->len[i] = body->len - l->off[i];
  return st;
}

/* Validity (all ones, whole bytes, as arrow-rs writes it) then values. */
static lfa_status put_body(lfa_buf *body, body_layout *l, const roaring_bitmap_t *offsets,
                           size_t rows, bool zstd, size_t align, lfa_error *err) {
  size_t validity_len = (rows + 7) / 8;
  uint8_t *validity = malloc(validity_len + 1);
  uint32_t *values = malloc(rows * 4 + 4);
  lfa_status st = LFA_OK;
  if (validity == NULL || values == NULL)
    st = lfa_fail(err, LFA_ERR_NOMEM, NULL, "cannot allocate buffers for %zu rows", rows);
  if (st == LFA_OK) {
    memset(validity, 0xFF, validity_len);
    roaring_bitmap_to_uint32_array(offsets, values);
    for (size_t i = 0; i < rows; i++) lfa_store_u32le((uint8_t *)&values[i], values[i]);
    st = put_buffer(body, l, VALIDITY, validity, validity_len, zstd, align, err);
  }
  if (st == LFA_OK)
    st = put_buffer(body, l, VALUES, (const uint8_t *)values, rows * 4, zstd, align, err);
  if (st == LFA_OK) st = pad_to(body, align, err);
  l->total = body->len;
  free(validity);
  free(values);
  return st;
}

/* Continuation marker, metadata length, the flatbuffer (padded so that the
 * three end on an `align` boundary), body. */
static lfa_status put_framed(lfa_buf *out, fbw *w, const lfa_buf *body, size_t align,
                             lfa_error *err) {
  fbw_pad(w, align, (align - PREFIX_LEN % align) % align);
  if (w->overflow)
    return lfa_fail(err, LFA_ERR_LIMIT, NULL, "arrow metadata outgrew its %d-byte builder",
                    FBW_CAP);
  lfa_status st = lfa_buf_put_u32le(out, 0xFFFFFFFFu, err);
  if (st == LFA_OK) st = lfa_buf_put_u32le(out, (uint32_t)w->n, err);
  if (st == LFA_OK) st = lfa_buf_append(out, w->b, w->n, err);
  if (st == LFA_OK && body != NULL) st = lfa_buf_append(out, body->data, body->len, err);
  return st;
}

/* The layout drawn at the top of this file, every message on an `align`
 * boundary (the magic padded to it). */
static lfa_status put_file(lfa_buf *out, const lfa_buf *body, const body_layout *l, uint64_t rows,
                           bool zstd, size_t align, lfa_error *err) {
  fbw w = {{0}, 0, false};
  block b;
  lfa_status st = lfa_buf_append(out, ARROW_MAGIC, MAGIC_LEN, err);
  if (st == LFA_OK) st = pad_to(out, align, err);
  put_schema(&w, put_message(&w, HEADER_SCHEMA, 0));
  if (st == LFA_OK) st = put_framed(out, &w, NULL, align, err);
  memset(&w, 0, sizeof w);
  put_batch(&w, rows, l, zstd);
  fbw_pad(&w, align, (align - PREFIX_LEN % align) % align);
  b.offset = out->len;
  b.meta_len = PREFIX_LEN + w.n;
  b.body_len = body->len;
  if (st == LFA_OK) st = put_framed(out, &w, body, align, err);
  if (st == LFA_OK) st = lfa_buf_put_u32le(out, 0xFFFFFFFFu, err); /* end of stream */
  if (st == LFA_OK) st = lfa_buf_put_u32le(out, 0, err);
  memset(&w, 0, sizeof w);
  put_footer(&w, &b);
  if (st == LFA_OK && w.overflow)
    st = lfa_fail(err, LFA_ERR_LIMIT, NULL, "arrow footer outgrew its %d-byte builder", FBW_CAP);
  if (st == LFA_OK) st = lfa_buf_append(out, w.b, w.n, err);
  if (st == LFA_OK) st = lfa_buf_put_u32le(out, (uint32_t)w.n, err);
  if (st == LFA_OK) st = lfa_buf_append(out, ARROW_MAGIC, MAGIC_LEN, err);
  return st;
}

lfa_status lfa_deletion_arrow_encode(lfa_buf *out, const roaring_bitmap_t *offsets, bool zstd,
                                     lfa_error *err) {
  return lfa_deletion_arrow_encode_aligned(out, offsets, zstd, 8, err);
}

lfa_status lfa_deletion_arrow_encode_aligned(lfa_buf *out, const roaring_bitmap_t *offsets,
                                             bool zstd, size_t align, lfa_error *err) {
  if (align != 8 && align != 64)
    return lfa_fail(err, LFA_ERR_RULE, NULL, "arrow alignment %zu is neither 8 nor 64", align);
  uint64_t rows = roaring_bitmap_get_cardinality(offsets);
  if (rows > LFA_DELETION_ARROW_ROWS_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "%llu deleted rows exceed the limit of %u",
                    (unsigned long long)rows, (unsigned)LFA_DELETION_ARROW_ROWS_MAX);
  lfa_buf body = {0}, file = {0};
  body_layout l;
  memset(&l, 0, sizeof l);
  lfa_status st = put_body(&body, &l, offsets, (size_t)rows, zstd, align, err);
  if (st == LFA_OK) st = put_file(&file, &body, &l, rows, zstd, align, err);
  /* Built aside and appended whole, so a failure leaves *out untouched. */
  if (st == LFA_OK) st = lfa_buf_append(out, file.data, file.len, err);
  lfa_buf_free(&body);
  lfa_buf_free(&file);
  return st;
}
