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
#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"

/* Unpacks `len` bytes as a `desc` message. `what` names the object in
 * errors ("manifest", "transaction"). OWNERSHIP: *out is the caller's;
 * release it with lfa_pb_free. */
lfa_status lfa_pb_unpack(ProtobufCMessage **out, const ProtobufCMessageDescriptor *desc,
                         const uint8_t *data, size_t len, const char *what, lfa_error *err);

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
