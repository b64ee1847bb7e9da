/* cache.c: the objects a verification run has already decoded (issue 5,
 * item 6: cost proportional to change). A root, a partial bitmap or a
 * deletion file is keyed by its resolved path and its size, and decoded
 * once per run: a later version whose descriptors reference it borrows it
 * through lfa_snapshot_open_cached, and the reader still runs the checks
 * that depend on that version (FA-ROOT-3, FA-ROOT-5, FA-BITMAP-3,
 * FA-BITMAP-4, FA-LANCE-4). Owned by lfa_verify_dataset: no global state.
 * Entries are never evicted: a run holds every distinct object once. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lfa/bitmap.h"

enum { FIRST_CAP = 64 };

/* FNV-1a over the kind, the size and the path. */
static uint64_t hash_key(lfa_object_kind kind, const char *path, uint64_t size) {
  uint64_t h = 1469598103934665603ULL;
  h = (h ^ (uint64_t)kind) * 1099511628211ULL;
  for (int i = 0; i < 8; i++) h = (h ^ ((size >> (8 * i)) & 0xff)) * 1099511628211ULL;
  for (const unsigned char *p = (const unsigned char *)path; *p != '\0'; p++) h = (h ^ *p) * 1099511628211ULL;
  return h;
}

/* The slot of the key, or the empty slot where it would go. */
static vf_cache_slot *slot_of(vf_slots *t, lfa_object_kind kind, const char *path, uint64_t size, uint64_t h) {
  size_t i = (size_t)(h & (t->cap - 1));
  for (;; i = (i + 1) & (t->cap - 1)) {
    vf_cache_slot *s = &t->slots[i];
    if (s->path == NULL) return s;
    if (s->hash == h && s->kind == kind && s->size == size && strcmp(s->path, path) == 0) return s;
  }
}

static bool grow(vf_slots *t) {
  size_t cap = t->cap ? t->cap * 2 : FIRST_CAP;
  vf_cache_slot *slots = calloc(cap, sizeof *slots);
  if (slots == NULL) return false;
  vf_slots bigger = {t->count, cap, slots};
  for (size_t i = 0; i < t->cap; i++) {
    vf_cache_slot *s = &t->slots[i];
    if (s->path != NULL) *slot_of(&bigger, s->kind, s->path, s->size, s->hash) = *s;
  }
  free(t->slots);
  *t = bigger;
  return true;
}

static void *find(void *ctx, lfa_object_kind kind, const char *path, uint64_t size) {
  vf_cache *c = ctx;
  if (c->table.cap == 0) return NULL;
  vf_cache_slot *s = slot_of(&c->table, kind, path, size, hash_key(kind, path, size));
  if (s->path == NULL) return NULL;
  c->hits++;
  return s->object;
}

static void free_object(lfa_object_kind kind, void *object) {
  if (kind == LFA_OBJECT_ROOT) lfa_root_free(object);
  else lfa_bitmap_free(object);
}

static lfa_status keep(void *ctx, lfa_object_kind kind, const char *path, uint64_t size, void *object,
                       lfa_error *err) {
  vf_cache *c = ctx;
  char *copy = NULL;
  bool ok = (c->table.count + 1) * 4 <= c->table.cap * 3 || grow(&c->table); /* load at most 3/4 */
  if (ok) ok = (copy = malloc(strlen(path) + 1)) != NULL;
  uint64_t h = hash_key(kind, path, size);
  vf_cache_slot *s = ok ? slot_of(&c->table, kind, path, size, h) : NULL;
  if (s != NULL && s->path != NULL) { /* already kept: cannot happen after a miss, but stay sound */
    free(copy);
    free_object(kind, object);
    return lfa_fail(err, LFA_ERR_USAGE, NULL, "%s: kept twice in the object cache", path);
  }
  if (s == NULL) {
    free(copy);
    free_object(kind, object);
    return lfa_fail(err, LFA_ERR_NOMEM, NULL, "%s: out of memory caching a decoded object", path);
  }
  strcpy(copy, path);
  *s = (vf_cache_slot){copy, size, kind, h, object};
  c->table.count++;
  return LFA_OK;
}

void vf_cache_init(vf_cache *c) {
  memset(c, 0, sizeof *c);
  c->iface = (lfa_object_cache){c, find, keep};
}

void vf_cache_free(vf_cache *c) {
  for (size_t i = 0; i < c->table.cap; i++) {
    vf_cache_slot *s = &c->table.slots[i];
    if (s->path == NULL) continue;
    free_object(s->kind, s->object);
    free(s->path);
  }
  free(c->table.slots);
  memset(c, 0, sizeof *c);
}
