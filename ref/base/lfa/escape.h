/* escape.h: the one way lfa prints bytes it did not write itself (names
 * and paths from hostile files, the dataset argument, an adapter's
 * output), one routine per output syntax. Each is valid for any byte
 * string: invalid UTF-8 (lead bytes C0, C1, F5-FF, overlong forms,
 * surrogates, truncated sequences) and control characters never reach the
 * output as they are, so no name can forge a line, break a document or
 * send a terminal an escape sequence. */
#ifndef LFA_ESCAPE_H
#define LFA_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* The length of the well-formed UTF-8 sequence (RFC 3629) at `s`, which
 * is NUL-terminated, or 0 when none starts there. ASCII is 1. */
size_t lfa_utf8_len(const char *s);

/* Text for a terminal or a line-oriented log: printable ASCII and
 * well-formed UTF-8 as they are, except '\\' as "\\\\", "\n", "\t", and
 * "\xNN" for every other control byte, each byte of invalid UTF-8, and
 * the C1 controls and bidirectional overrides (which a terminal acts on).
 * lfa_text_escape writes at most `cap` bytes with a NUL into `out` and
 * returns the length of the whole escaped text (as snprintf does); it is
 * at most 4 * strlen(s). */
size_t lfa_text_escape(char *out, size_t cap, const char *s);
void lfa_put_text(FILE *out, const char *s);

/* A short quotation of untrusted input for a message, which must stay one
 * short line: the first `len` bytes of `s` (at most LFA_TEXT_SHOWN_MAX of
 * them), escaped as above, whole escapes only, and "..." when anything was
 * left out; into `out` of `cap` bytes. */
enum { LFA_TEXT_SHOWN_MAX = 96 };
void lfa_text_shown(char *out, size_t cap, const char *s, size_t len);

/* A JSON string literal, quotes included (RFC 8259); NULL prints null.
 * Invalid UTF-8 becomes U+FFFD; control characters (C1 and bidirectional
 * controls too, so a terminal showing the JSON is safe) \u escapes. */
void lfa_put_json(FILE *out, const char *s);

/* XML 1.0 character data, also valid inside a quoted attribute: markup
 * characters as entities, and U+FFFD for what XML 1.0 cannot hold
 * (control characters other than tab, LF and CR; invalid UTF-8; U+FFFE
 * and U+FFFF). NULL prints nothing. */
void lfa_put_xml(FILE *out, const char *s);

#endif
