/* arena.c: a list of separately allocated blocks (lfa/arena.h). Simple on
 * purpose: trees built here are small, and freeing is one walk. */
#include "lfa/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct lfa_arena_block {
  lfa_arena_block *next;
  alignas(max_align_t) unsigned char data[];
};

void *lfa_arena_alloc(lfa_arena *arena, size_t n) {
  if (n > SIZE_MAX - sizeof(lfa_arena_block)) {
    arena->failed = true;
    return NULL;
  }
  lfa_arena_block *b = calloc(1, sizeof *b + (n ? n : 1));
  if (b == NULL) {
    arena->failed = true;
    return NULL;
  }
  b->next = arena->blocks;
  arena->blocks = b;
  return b->data;
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
    free(arena->blocks);
    arena->blocks = next;
  }
  arena->failed = false;
}
