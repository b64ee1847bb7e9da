/* hash.c: FNV-1a and the open-addressing table of lfa/hash.h. */
#include "lfa/hash.h"

#include <stdlib.h>

#include "lfa/limits.h"

enum { FIRST_CAP = 16 };

static const uint64_t FNV_PRIME = 0x100000001B3ULL;

uint64_t lfa_hash_bytes(uint64_t h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * FNV_PRIME;
  return h;
}

uint64_t lfa_hash_text(uint64_t h, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) h = (h ^ *p) * FNV_PRIME;
  return h;
}

uint64_t lfa_hash_u64(uint64_t h, uint64_t v) {
  for (int i = 0; i < 8; i++) h = (h ^ ((v >> (8 * i)) & 0xff)) * FNV_PRIME;
  return h;
}

/* Where a probe for `hash` starts. */
static size_t home(const lfa_hash *t, uint64_t hash) { return (size_t)hash & (t->cap - 1); }

/* The slot holding the item `same` matches, or the empty slot that ends
 * the probe. The table is never full (at most half), so a probe ends. */
static lfa_hash_slot *probe(const lfa_hash *t, uint64_t hash, lfa_hash_same same, const void *key) {
  for (size_t i = home(t, hash);; i = (i + 1) & (t->cap - 1)) {
    lfa_hash_slot *s = &t->slots[i];
    if (s->item == NULL || (s->hash == hash && same(s->item, key))) return s;
  }
}

void *lfa_hash_find(const lfa_hash *t, uint64_t hash, lfa_hash_same same, const void *key) {
  return t->cap == 0 ? NULL : probe(t, hash, same, key)->item;
}

/* The first empty slot of the probe for `hash`. */
static lfa_hash_slot *empty_slot(const lfa_hash *t, uint64_t hash) {
  size_t i = home(t, hash);
  while (t->slots[i].item != NULL) i = (i + 1) & (t->cap - 1);
  return &t->slots[i];
}

static bool grow(lfa_hash *t) {
  size_t cap = t->cap ? 2 * t->cap : FIRST_CAP;
  lfa_hash bigger = {t->count, cap, calloc(cap, sizeof *t->slots)};
  if (bigger.slots == NULL) return false;
  for (size_t i = 0; i < t->cap; i++)
    if (t->slots[i].item != NULL) *empty_slot(&bigger, t->slots[i].hash) = t->slots[i];
  free(t->slots);
  *t = bigger;
  return true;
}

lfa_status lfa_hash_add(lfa_hash *t, uint64_t hash, void *item, size_t max_items, lfa_error *err) {
  if (max_items > LFA_HASH_ITEMS_MAX) max_items = LFA_HASH_ITEMS_MAX;
  if (t->count >= max_items)
    return lfa_fail(err, LFA_ERR_LIMIT, "FA-LIMIT-1", "a hash table is full at %zu items", max_items);
  if (2 * (t->count + 1) > t->cap && !grow(t)) /* at most half full */
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory growing a hash table of %zu items", t->count);
  *empty_slot(t, hash) = (lfa_hash_slot){hash, item};
  t->count++;
  return LFA_OK;
}

/* Closes the gap at `gap`: every later item of the run that a probe from
 * its home would no longer reach moves back into it, and the gap moves on
 * to where it was, until the run ends at an empty slot. */
static void close_gap(lfa_hash *t, size_t gap) {
  size_t mask = t->cap - 1;
  for (size_t j = (gap + 1) & mask; t->slots[j].item != NULL; j = (j + 1) & mask) {
    size_t from_home = (j - home(t, t->slots[j].hash)) & mask, from_gap = (j - gap) & mask;
    if (from_home < from_gap) continue; /* its home lies after the gap: still reached */
    t->slots[gap] = t->slots[j];
    gap = j;
  }
  t->slots[gap] = (lfa_hash_slot){0, NULL};
}

void *lfa_hash_remove(lfa_hash *t, uint64_t hash, lfa_hash_same same, const void *key) {
  if (t->cap == 0) return NULL;
  lfa_hash_slot *s = probe(t, hash, same, key);
  void *item = s->item;
  if (item == NULL) return NULL;
  close_gap(t, (size_t)(s - t->slots));
  t->count--;
  return item;
}

void *lfa_hash_next(const lfa_hash *t, size_t *cursor) {
  while (*cursor < t->cap) {
    void *item = t->slots[(*cursor)++].item;
    if (item != NULL) return item;
  }
  return NULL;
}

void lfa_hash_free(lfa_hash *t) {
  free(t->slots);
  *t = (lfa_hash){0, 0, NULL};
}
