/* lance_releases.h: what each Lance release defines, from the release
 * registry (spec/lance-releases.json, rendered in 02§7).
 *
 * The tables are generated from the registry at build time
 * (scripts/gen_lance_releases.py); nothing here is typed by hand, so a
 * fact is corrected in the registry, with its source, and nowhere else.
 * A reader interprets a field or bit as the release that defines it does
 * [FA-LANCE-21]; these lookups say which release that is.
 *
 *   lfa_lance_field_find(LFA_LANCE_MSG_MANIFEST, 21)  -> transaction_section, 1.0.0-beta.1
 *   lfa_lance_field_first_release(LFA_LANCE_MSG_MANIFEST, 18) -> "0.34.0"
 *   lfa_lance_bit_first_release(4096)                  -> "13.0.0"
 *   lfa_lance_bit_first_release(65536)                 -> NULL (no release)
 *
 * Some 13.x-15.x numbers are not confirmed by any source the registry
 * has: such an entry has confirmed == false and, for a field, the number
 * its evidence points to (its candidate, 0 when none). The *_first_release
 * functions count confirmed facts only; the *_find functions return a
 * candidate when nothing confirmed matches, so a caller can say "perhaps".
 */
#ifndef LFA_LANCE_RELEASES_H
#define LFA_LANCE_RELEASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The messages the registry covers (top-level fields of each). */
typedef enum lfa_lance_message {
  LFA_LANCE_MSG_MANIFEST,
  LFA_LANCE_MSG_DATA_FRAGMENT,
  LFA_LANCE_MSG_DATA_FILE,
  LFA_LANCE_MSG_DELETION_FILE,
  LFA_LANCE_MSG_TRANSACTION, /* operations are its oneof arms */
} lfa_lance_message;

/* One definition of a field number over a range of release lines. */
typedef struct lfa_lance_field {
  lfa_lance_message message;
  uint32_t number;   /* the candidate when !confirmed; 0: no candidate */
  const char *name;
  const char *wire;  /* "varint", "len", "i64", "i32" */
  const char *first; /* first release line that defines it so */
  const char *last;  /* last one that still does; NULL: still defined */
  bool confirmed;    /* the number is confirmed by the fact's source */
  bool oneof_arm;    /* a transaction operation (or another oneof arm) */
} lfa_lance_field;

/* One feature bit. */
typedef struct lfa_lance_bit {
  uint64_t value;
  const char *name;  /* upstream's constant, "FLAG_FRAGMENT_TREE" */
  const char *key;   /* its short form, "fragment_tree"; NULL when unconfirmed */
  const char *words; /* "both", "writer", "paired", "none" */
  const char *first;
  bool confirmed;    /* the value is confirmed by the fact's source */
} lfa_lance_bit;

/* The newest definition of `number` of `message` that a known release
 * confirms; else the newest whose candidate it is (confirmed == false);
 * NULL when the registry knows nothing of the number. */
const lfa_lance_field *lfa_lance_field_find(lfa_lance_message message, uint32_t number);

/* The earliest release that defines `number` of `message` (confirmed
 * facts only), or NULL when no known release does. */
const char *lfa_lance_field_first_release(lfa_lance_message message, uint32_t number);

/* The bit `value` (one bit) as the registry lists it, or NULL. */
const lfa_lance_bit *lfa_lance_bit_find(uint64_t value);

/* The first release that defines bit `value` with a confirmed value, or
 * NULL when no known release does. */
const char *lfa_lance_bit_first_release(uint64_t value);

/* The newest release the registry covers ("15.0.0"). */
const char *lfa_lance_newest_release(void);

/* The generated tables, for walking them all (tests, renderers). */
extern const lfa_lance_field LFA_LANCE_FIELDS[];
extern const size_t LFA_LANCE_FIELDS_COUNT;
extern const lfa_lance_bit LFA_LANCE_BITS[];
extern const size_t LFA_LANCE_BITS_COUNT;
extern const char LFA_LANCE_NEWEST_RELEASE[];

#endif
