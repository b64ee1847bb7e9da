/* test_hash.c: the one hash function and hash table (lfa/hash.h).
 * FNV-1a against the published 64-bit test vectors; the table against a
 * plain array kept beside it (the reference a probe must agree with), with
 * hashes chosen to collide and to wrap around the end of the slots, so
 * that removal's back shifts are exercised where they are hardest. */
#include "testutil.h"

#include "lfa/hash.h"
#include "lfa/limits.h"

/* ---- FNV-1a ------------------------------------------------------------------------- */

/* The 64-bit FNV-1a values of "", "a" and "foobar" as the algorithm's
 * authors publish them. */
static void test_fnv1a_published_vectors(void **state) {
  (void)state;
  assert_true(lfa_hash_bytes(LFA_HASH_START, "", 0) == 0xcbf29ce484222325ULL);
  assert_true(lfa_hash_text(LFA_HASH_START, "a") == 0xaf63dc4c8601ec8cULL);
  assert_true(lfa_hash_text(LFA_HASH_START, "foobar") == 0x85944171f73967e8ULL);
  /* fed piece by piece it is the same hash */
  assert_true(lfa_hash_text(lfa_hash_text(LFA_HASH_START, "foo"), "bar") == 0x85944171f73967e8ULL);
  assert_true(lfa_hash_bytes(LFA_HASH_START, "foobar", 6) == 0x85944171f73967e8ULL);
  /* a u64 is its 8 bytes, least significant first */
  const unsigned char le[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  assert_true(lfa_hash_u64(LFA_HASH_START, 0x0807060504030201ULL) == lfa_hash_bytes(LFA_HASH_START, le, 8));
}

/* ---- the table against an array --------------------------------------------------------- */

typedef struct item {
  uint64_t key;
  uint64_t hash;
  bool in; /* in the table, by the reference's account */
} item;

static bool same_item(const void *found, const void *key) { return ((const item *)found)->key == *(const uint64_t *)key; }

/* Every item is found exactly when the reference says it is in. */
static void agree(const lfa_hash *t, item *items, size_t n) {
  size_t in = 0;
  for (size_t i = 0; i < n; i++) {
    void *got = lfa_hash_find(t, items[i].hash, same_item, &items[i].key);
    if (items[i].in) assert_ptr_equal(got, &items[i]);
    else assert_null(got);
    in += items[i].in;
  }
  assert_int_equal(t->count, in);
  size_t walked = 0, at = 0;
  for (item *it; (it = lfa_hash_next(t, &at)) != NULL;) assert_true(it->in), walked++;
  assert_int_equal(walked, in);
}

/* Hashes in a handful of values, so that long runs of equal homes form;
 * the high homes (cap - 1, cap - 2) make runs wrap past the last slot. */
static uint64_t crowded_hash(uint64_t key, size_t cap) { return key % 3 == 0 ? cap - 1 : key % 3 == 1 ? cap - 2 : 5; }

static void test_add_find_remove_against_an_array(void **state) {
  (void)state;
  enum { N = 300 };
  item items[N];
  lfa_hash t = {0};
  lfa_error err = {0};
  uint64_t rng = 7;
  for (size_t i = 0; i < N; i++) items[i] = (item){i * 11 + 3, 0, false};
  /* the homes depend on the capacity: crowd the final one (1024 for 300 items) */
  for (size_t i = 0; i < N; i++) items[i].hash = crowded_hash(items[i].key, 1024) + ((uint64_t)i % 2 ? 1024 : 0);
  for (int round = 0; round < 6; round++) {
    for (size_t i = 0; i < N; i++) { /* add what is out, at random */
      if (items[i].in || tu_rand(&rng) % 3 == 0) continue;
      assert_ok(lfa_hash_add(&t, items[i].hash, &items[i], N, &err), &err);
      items[i].in = true;
    }
    agree(&t, items, N);
    for (size_t i = 0; i < N; i++) { /* remove some of what is in, at random */
      if (!items[i].in || tu_rand(&rng) % 2 == 0) continue;
      assert_ptr_equal(lfa_hash_remove(&t, items[i].hash, same_item, &items[i].key), &items[i]);
      items[i].in = false;
      assert_null(lfa_hash_remove(&t, items[i].hash, same_item, &items[i].key)); /* gone: once */
    }
    agree(&t, items, N);
  }
  lfa_hash_free(&t);
  assert_int_equal(t.count, 0);
  assert_null(lfa_hash_find(&t, 5, same_item, &items[0].key)); /* a freed table is empty */
}

/* Equal hashes with different keys are told apart by `same`, and a removal
 * in the middle of their run leaves the later ones reachable. */
static void test_colliding_hashes_told_apart(void **state) {
  (void)state;
  item items[5];
  lfa_hash t = {0};
  lfa_error err = {0};
  for (size_t i = 0; i < 5; i++) {
    items[i] = (item){100 + i, 42, true};
    assert_ok(lfa_hash_add(&t, 42, &items[i], 5, &err), &err);
  }
  agree(&t, items, 5);
  assert_ptr_equal(lfa_hash_remove(&t, 42, same_item, &items[1].key), &items[1]);
  items[1].in = false;
  agree(&t, items, 5);
  uint64_t absent = 7;
  assert_null(lfa_hash_find(&t, 42, same_item, &absent));
  lfa_hash_free(&t);
}

/* [FA-LIMIT-1] A table refuses an item past the bound it is given (and
 * past LFA_HASH_ITEMS_MAX whatever it is given), unchanged. */
static void test_FA_LIMIT_1_table_bounded(void **state) {
  (void)state;
  item items[4];
  lfa_hash t = {0};
  lfa_error err = {0};
  for (size_t i = 0; i < 4; i++) items[i] = (item){i, i, i < 3};
  for (size_t i = 0; i < 3; i++) assert_ok(lfa_hash_add(&t, items[i].hash, &items[i], 3, &err), &err);
  assert_status(lfa_hash_add(&t, items[3].hash, &items[3], 3, &err), LFA_ERR_LIMIT, &err);
  assert_rule(&err, "FA-LIMIT-1");
  agree(&t, items, 4);
  lfa_hash_free(&t);
  lfa_hash big = {LFA_HASH_ITEMS_MAX, 0, NULL}; /* as if full: the cap is checked before anything grows */
  assert_status(lfa_hash_add(&big, 1, &items[0], (size_t)LFA_HASH_ITEMS_MAX * 2, &err), LFA_ERR_LIMIT, &err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fnv1a_published_vectors),
      cmocka_unit_test(test_add_find_remove_against_an_array),
      cmocka_unit_test(test_colliding_hashes_told_apart),
      cmocka_unit_test(test_FA_LIMIT_1_table_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
