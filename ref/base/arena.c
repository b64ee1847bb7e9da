/* arena.c: zeroed allocations carved from a list of blocks (lfa/arena.h).
 *
 * A message tree is hundreds of small pieces (messages, arrays, strings).
 * Carving them from 4 KiB blocks costs one malloc per block instead of one
 * per piece, and zeroes only the bytes handed out. That matters most in
 * the sanitizer builds, where every malloc records a stack trace. A piece
 * larger than a quarter block gets a block of its own, put behind the
 * current one so the current one's free room stays in use.
 *
 * Under AddressSanitizer a block's free room is poisoned and only the bytes
 * handed out are unpoisoned, with a poisoned gap after every piece: reading
 * past the end of an array or string in an arena is reported as it would
 * be for a separate malloc. */
#include "lfa/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LFA_ARENA_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define LFA_ARENA_ASAN 1
#endif

#ifdef LFA_ARENA_ASAN
#include <sanitizer/asan_interface.h>
enum { GAP = 16 }; /* poisoned bytes after every piece */
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
enum { GAP = 0 };
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

struct lfa_arena_block {
  lfa_arena_block *next;
  size_t used, cap; /* bytes of data handed out, and its size */
  alignas(max_align_t) unsigned char data[];
};

enum { BLOCK_BYTES = 4096 - 64, ALIGN = alignof(max_align_t) };

/* n rounded up to ALIGN, plus the gap; false on overflow. */
static bool footprint(size_t *out, size_t n) {
  if (n > SIZE_MAX - ALIGN - GAP) return false;
  *out = (n + ALIGN - 1) / ALIGN * ALIGN + GAP;
  return true;
}

static lfa_arena_block *new_block(size_t cap) {
  if (cap > SIZE_MAX - sizeof(lfa_arena_block)) return NULL;
  lfa_arena_block *b = malloc(sizeof *b + cap); /* pieces are zeroed as they are handed out */
  if (b == NULL) return NULL;
  b->next = NULL, b->used = 0, b->cap = cap;
  POISON(b->data, cap);
  return b;
}

void *lfa_arena_alloc(lfa_arena *arena, size_t n) {
  size_t need;
  if (n == 0) n = 1;
  if (!footprint(&need, n)) {
    arena->failed = true;
    return NULL;
  }
  lfa_arena_block *b = arena->blocks;
  if (b == NULL || b->cap - b->used < need) {
    b = new_block(need > BLOCK_BYTES / 4 ? need : BLOCK_BYTES);
    if (b == NULL) {
      arena->failed = true;
      return NULL;
    }
    bool own = need > BLOCK_BYTES / 4 && arena->blocks != NULL;
    b->next = own ? arena->blocks->next : arena->blocks;
    if (own) arena->blocks->next = b;
    else arena->blocks = b;
  }
  unsigned char *p = b->data + b->used;
  b->used += need;
  UNPOISON(p, n);
  return memset(p, 0, n);
}

void *lfa_arena_array(lfa_arena *arena, size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / size) {
    arena->failed = true;
    return NULL;
  }
  return lfa_arena_alloc(arena, count * size);
}

void *lfa_arena_memdup(lfa_arena *arena, const void *p, size_t n) {
  void *copy = lfa_arena_alloc(arena, n);
  if (copy != NULL && n > 0) memcpy(copy, p, n);
  return copy;
}

char *lfa_arena_strdup(lfa_arena *arena, const char *s) {
  return lfa_arena_memdup(arena, s ? s : "", strlen(s ? s : "") + 1);
}

lfa_status lfa_arena_check(const lfa_arena *arena, lfa_error *err) {
  return arena->failed ? lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory while building a message") : LFA_OK;
}

void lfa_arena_free(lfa_arena *arena) {
  while (arena->blocks != NULL) {
    lfa_arena_block *next = arena->blocks->next;
    UNPOISON(arena->blocks->data, arena->blocks->cap);
    free(arena->blocks);
    arena->blocks = next;
  }
  arena->failed = false;
}
