/* pb.h: the one door through which lfa unpacks and packs protobuf messages.
 *
 * protobuf-c allocates freely while unpacking and accepts an over-long
 * encoding of field number 0 that it then refuses to re-read after packing
 * (toolchain.md). lfa_pb_unpack bounds the allocation by
 * LFA_PROTO_ALLOC_MAX and rejects field number 0 anywhere in the message
 * tree, so every decoded message packs back to bytes that decode again.
 * Unknown fields are kept and packed again unchanged.
 */
#ifndef LFA_PB_H
#define LFA_PB_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"

/* Unpacks `len` bytes as a `desc` message. `what` names the object in
 * errors ("manifest", "transaction"). OWNERSHIP: *out is the caller's;
 * release it with lfa_pb_free. */
lfa_status lfa_pb_unpack(ProtobufCMessage **out, const ProtobufCMessageDescriptor *desc,
                         const uint8_t *data, size_t len, const char *what, lfa_error *err);

/* Protobuf wire types, and the longest varint. */
enum { LFA_PB_VARINT = 0, LFA_PB_I64 = 1, LFA_PB_LEN = 2, LFA_PB_I32 = 5, LFA_PB_VARINT_BYTES_MAX = 10 };

/* A base-128 varint at p[*at .. end), *at moved past it; false when it
 * runs past end or is longer than LFA_PB_VARINT_BYTES_MAX. */
bool lfa_pb_read_varint(uint64_t *out, const uint8_t *p, size_t *at, size_t end);

/* Skips one payload of wire type `wire` at p[*at .. end); *len is the
 * payload's length (0 for a varint). False when it does not fit or the
 * wire type is not one protobuf uses. */
bool lfa_pb_skip(const uint8_t *p, size_t *at, size_t end, unsigned wire, size_t *len);

/* A top-level field number that lfa_pb_unpack_moved reads under another
 * number (`to`), or keeps aside undecoded (`to` 0): it ends up among the
 * message's unknown fields, under its own number, packed again as read. */
typedef struct lfa_pb_move {
  uint32_t from, to;
} lfa_pb_move;

/* lfa_pb_unpack of `data` with the top-level records of each `moves[i].from`
 * renumbered or set aside first. Field assignment's state lives at numbers
 * a release of Lance may give to something else: the caller decides, from
 * the manifest's marker and writer, which reading applies (01§2,
 * FA-FLAG-7). Bytes whose top level does not walk are unpacked as they
 * are, so the error is lfa_pb_unpack's. */
lfa_status lfa_pb_unpack_moved(ProtobufCMessage **out, const ProtobufCMessageDescriptor *desc, const uint8_t *data,
                               size_t len, const lfa_pb_move *moves, size_t n_moves, const char *what,
                               lfa_error *err);

/* Appends the packed bytes of `msg` with the top-level records of each
 * known field `moves[i].from` written under `moves[i].to` (every `to`
 * non-zero): the encoding of field assignment's earlier layouts
 * (FA-FLAG-7). The message's unknown fields under a `from` number are
 * written under their own. */
lfa_status lfa_pb_pack_moved(lfa_buf *out, const ProtobufCMessage *msg, const lfa_pb_move *moves, size_t n_moves,
                             lfa_error *err);

/* Appends the packed bytes of `msg`. */
lfa_status lfa_pb_pack(lfa_buf *out, const ProtobufCMessage *msg, lfa_error *err);

/* The top-level field numbers `msg` carries, ascending and each once: its
 * known fields that are set (a repeated one with an element, a oneof arm
 * that is the chosen one, a proto3 scalar that is not zero, a string or
 * bytes that is not empty, a message that is present) and its unknown
 * fields, which protobuf-c kept as read. What a reader names field by field
 * (02§7: the release that defines each). OWNERSHIP: *numbers is the
 * caller's (free); at most one per known and unknown field, so its size
 * follows what the unpack already allocated. */
lfa_status lfa_pb_present_fields(uint32_t **numbers, size_t *count, const ProtobufCMessage *msg, lfa_error *err);

/* Frees a message from lfa_pb_unpack (NULL is fine). */
void lfa_pb_free(void *msg);

#endif
