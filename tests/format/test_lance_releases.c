/* test_lance_releases.c: the tables generated from the release registry
 * (spec/lance-releases.json, 02§7) answer as the registry's sources say.
 * Expected values are read by hand from those sources: the upstream
 * protos at each release tag (Manifest.base_paths = 18 first in 0.34.0,
 * transaction_section = 21 in 1.0.0-beta.1, blob_dataset_version = 17
 * from 0.20.0 to 0.39.0, bit 16 in 0.34.0), docs.rs 13.0.0 (fragment trees
 * set bit 12), and lfa's own protos (proto/), which the test lane reads
 * real Lance 12.0.0 tables with. Requirement ids: FA-LANCE-21. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lfa/lance_releases.h"
#include "table.pb-c.h"
#include "transaction.pb-c.h"

static void test_FA_LANCE_21_fields_by_first_release(void **state) {
  (void)state;
  assert_string_equal(lfa_lance_field_first_release(LFA_LANCE_MSG_MANIFEST, 18), "0.34.0");
  assert_string_equal(lfa_lance_field_first_release(LFA_LANCE_MSG_MANIFEST, 21), "1.0.0-beta.1");
  assert_string_equal(lfa_lance_field_first_release(LFA_LANCE_MSG_DATA_FILE, 7), "0.34.0");
  assert_string_equal(lfa_lance_field_first_release(LFA_LANCE_MSG_TRANSACTION, 100), "0.7.0");
  /* Manifest field 2 was `metadata` in 0.2.0 and `fragments` from 0.3.0:
   * the number is defined since 0.2.0, by its newest meaning since 0.3.0. */
  assert_string_equal(lfa_lance_field_first_release(LFA_LANCE_MSG_MANIFEST, 2), "0.2.0");
  const lfa_lance_field *f = lfa_lance_field_find(LFA_LANCE_MSG_MANIFEST, 2);
  assert_non_null(f);
  assert_string_equal(f->name, "fragments");
  assert_string_equal(f->first, "0.3.0");
  /* A removed field keeps its range. */
  f = lfa_lance_field_find(LFA_LANCE_MSG_MANIFEST, 17);
  assert_non_null(f);
  assert_string_equal(f->name, "blob_dataset_version");
  assert_string_equal(f->last, "0.39.0");
}

/* Numbers no release is known to define; a candidate is found but never
 * counted as a release's definition. */
static void test_FA_LANCE_21_unconfirmed_and_unknown_fields(void **state) {
  (void)state;
  assert_null(lfa_lance_field_first_release(LFA_LANCE_MSG_MANIFEST, 22));
  const lfa_lance_field *f = lfa_lance_field_find(LFA_LANCE_MSG_MANIFEST, 22);
  assert_non_null(f);
  assert_false(f->confirmed);
  assert_string_equal(f->name, "fragment_tree");
  assert_string_equal(f->first, "13.0.0");
  assert_null(lfa_lance_field_find(LFA_LANCE_MSG_TRANSACTION, 5));
  assert_null(lfa_lance_field_find(LFA_LANCE_MSG_MANIFEST, 1022));
  assert_null(lfa_lance_field_find(LFA_LANCE_MSG_TRANSACTION, 1005));
  assert_null(lfa_lance_field_find(LFA_LANCE_MSG_MANIFEST, 0));
  /* Field 21 has a confirmed meaning (1.0.0-beta.1) and is a 14.x
   * candidate of transaction_section_deprecated: the confirmed one wins. */
  f = lfa_lance_field_find(LFA_LANCE_MSG_MANIFEST, 21);
  assert_true(f->confirmed);
  assert_string_equal(f->name, "transaction_section");
}

static void test_FA_LANCE_21_bits_by_first_release(void **state) {
  (void)state;
  assert_string_equal(lfa_lance_bit_first_release(1), "0.5.0");
  assert_string_equal(lfa_lance_bit_first_release(16), "0.34.0");
  assert_string_equal(lfa_lance_bit_first_release(32), "1.0.0-beta.1");
  assert_string_equal(lfa_lance_bit_first_release(4096), "13.0.0");
  assert_string_equal(lfa_lance_bit_find(256)->words, "paired");
  assert_string_equal(lfa_lance_bit_find(8)->words, "writer");
  assert_null(lfa_lance_bit_first_release(65536));
  assert_null(lfa_lance_bit_find((uint64_t)1 << 52));
  const lfa_lance_bit *b = lfa_lance_bit_find(2048); /* upstream revisions give it to five features */
  assert_non_null(b);
  assert_false(b->confirmed);
  assert_null(lfa_lance_bit_first_release(2048));
  assert_string_equal(lfa_lance_newest_release(), "15.0.0");
}

/* Every Lance field of lfa's own messages, which read real Lance 12.0.0
 * tables in the test lane, is in the registry under the same number and
 * name, still defined. Field assignment's own fields are not Lance's. */
static void check_descriptor(const ProtobufCMessageDescriptor *d, lfa_lance_message m) {
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *fd = &d->fields[i];
    if (strncmp(fd->name, "field_assignment", 16) == 0) continue;
    const lfa_lance_field *f = lfa_lance_field_find(m, fd->id);
    if (f == NULL || !f->confirmed || strcmp(f->name, fd->name) != 0 || f->last != NULL)
      fail_msg("%s field %u (%s): the registry has %s", d->name, fd->id, fd->name, f ? f->name : "nothing");
  }
}

static void test_FA_LANCE_21_registry_agrees_with_the_messages_lfa_reads(void **state) {
  (void)state;
  check_descriptor(&lance__table__manifest__descriptor, LFA_LANCE_MSG_MANIFEST);
  check_descriptor(&lance__table__data_fragment__descriptor, LFA_LANCE_MSG_DATA_FRAGMENT);
  check_descriptor(&lance__table__data_file__descriptor, LFA_LANCE_MSG_DATA_FILE);
  check_descriptor(&lance__table__deletion_file__descriptor, LFA_LANCE_MSG_DELETION_FILE);
  check_descriptor(&lance__table__transaction__descriptor, LFA_LANCE_MSG_TRANSACTION);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_FA_LANCE_21_fields_by_first_release),
      cmocka_unit_test(test_FA_LANCE_21_unconfirmed_and_unknown_fields),
      cmocka_unit_test(test_FA_LANCE_21_bits_by_first_release),
      cmocka_unit_test(test_FA_LANCE_21_registry_agrees_with_the_messages_lfa_reads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
