/* roaring_layout.h: the portable layout of a 32-bit Roaring bitmap, the
 * one place lfa knows it. The validating parser (bitmap.c) and the
 * container walker that makes bit arrays (bits.c, which reads CRoaring's
 * in-memory containers as this layout) read it through this module; the
 * writer below writes the no-run form from containers.
 *
 * Portable layout (RoaringFormatSpec; CRoaring's portable serialization),
 * little-endian:
 *   cookie u32 == 12346 (no run containers): u32 container count n,
 *     n x {u16 key, u16 cardinality-1}, n x u32 byte offset, containers;
 *   cookie & 0xFFFF == 12347 (run containers): n = (cookie >> 16) + 1,
 *     ceil(n/8) bytes run flags, n x {u16 key, u16 cardinality-1},
 *     n x u32 offsets only when n >= 4, containers.
 *   container: run -> u16 run count r, r x {u16 start, u16 length-1};
 *              cardinality <= 4096 -> that many ascending u16 values;
 *              otherwise 1024 x u64 bit words (bit v of the container is
 *              bit v % 8 of byte v / 8: the region's bits, LSB-first).
 * An offset is the container's byte position from the cookie's first byte.
 * Container k holds the values key * 2^16 .. key * 2^16 + 65535.
 *
 * Reading here checks only the frame (FA-BITMAP-1, FA-BITMAP-2): the
 * cookie, the container count, every table and container inside the bytes,
 * keys strictly ascending, offsets (when present) where the containers
 * really start. What a container holds (values ascending, cardinalities
 * exact) is bitmap.c's to check.
 */
#ifndef LFA_ROARING_LAYOUT_H
#define LFA_ROARING_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/bytes.h"
#include "lfa/error.h"

enum {
  LFA_ROARING_COOKIE_NO_RUN = 12346,
  LFA_ROARING_COOKIE_RUN = 12347,
  LFA_ROARING_ARRAY_MAX = 4096,     /* containers above this cardinality are bitsets */
  LFA_ROARING_BITSET_BYTES = 8192,  /* 2^16 bits */
  LFA_ROARING_OFFSETS_FROM = 4      /* the run form carries offsets only from 4 containers */
};

/* The descriptive header, both cookies. Pointers are into the bytes read. */
typedef struct lfa_roaring_header {
  uint32_t count;            /* containers */
  const uint8_t *run_flags;  /* NULL in the no-run form */
  const uint8_t *key_cards;  /* count x {u16 key, u16 cardinality-1} */
  const uint8_t *offsets;    /* count x u32, or NULL */
} lfa_roaring_header;

typedef enum lfa_roaring_kind { LFA_ROARING_ARRAY, LFA_ROARING_BITSET, LFA_ROARING_RUNS } lfa_roaring_kind;

/* One container as the layout stores it. */
typedef struct lfa_roaring_container {
  uint32_t key;
  uint32_t cardinality;  /* as the key table declares it */
  lfa_roaring_kind kind;
  uint32_t count;        /* ARRAY: values; BITSET: 1024 words; RUNS: runs */
  const uint8_t *data;   /* ARRAY: u16 values; BITSET: 8192 bytes; RUNS: {u16 start, u16 length-1} */
} lfa_roaring_container;

/* Reads the header and leaves the cursor at the first container. The
 * cursor's position 0 is the cookie: offsets are checked against it. */
lfa_status lfa_roaring_read_header(lfa_roaring_header *out, lfa_cursor *c, lfa_error *err);

/* Reads container i, the next one: the cursor is where it starts and is
 * left after it. Checks its recorded offset and its key against the one
 * before; not its values. */
lfa_status lfa_roaring_read_container(lfa_roaring_container *out, lfa_cursor *c, const lfa_roaring_header *h,
                                      uint32_t i, lfa_error *err);

/* ---- writing the no-run form (cookie 12346) --------------------------------------- */

/* The body bytes of a container of `cardinality` (1 .. 65536) values in the
 * no-run form: an array up to LFA_ROARING_ARRAY_MAX, else a bitset. */
size_t lfa_roaring_body_bytes(uint32_t cardinality);

/* The bytes of a no-run bitmap of `containers` containers whose bodies
 * take `body_bytes` together. */
uint64_t lfa_roaring_no_run_bytes(uint32_t containers, uint64_t body_bytes);

/* Writes a no-run bitmap of `containers` containers into out (sized by
 * lfa_roaring_no_run_bytes), one container at a time, keys ascending. */
typedef struct lfa_roaring_writer {
  uint8_t *out;
  uint32_t count, next;
  size_t pos; /* where the next container's body goes */
} lfa_roaring_writer;

void lfa_roaring_writer_start(lfa_roaring_writer *w, uint8_t *out, uint32_t containers);
/* Records the next container (key, cardinality 1 .. 65536) and returns
 * where its lfa_roaring_body_bytes(cardinality) bytes go: ascending u16
 * values for an array, the region's bits LSB-first for a bitset. */
uint8_t *lfa_roaring_writer_container(lfa_roaring_writer *w, uint32_t key, uint32_t cardinality);

#endif
