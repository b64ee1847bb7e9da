/* json.c: a strict RFC 8259 reader (lfa/json.h).
 *
 * Recursive descent over the bytes, one function per grammar rule, depth
 * bounded by LFA_JSON_DEPTH_MAX before each descent. The input is never
 * read past `end`. Every node and string goes to the document's arena;
 * containers collect their children in a temporary vector first, then move
 * them there in one piece. Messages name the line and column where the
 * problem is and, when the reason is a common habit of other formats
 * (comments, trailing commas, single quotes), say so. */
#include "lfa/json.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfa/bytes.h"
#include "lfa/limits.h"

typedef struct parser {
  const uint8_t *at, *end;
  uint32_t line, column;         /* of `at` */
  size_t values;                 /* values started so far */
  unsigned depth;                /* containers open */
  uint32_t str_line, str_column; /* the string being decoded, for its limit */
  lfa_buf scratch;               /* its decoded bytes */
  lfa_arena *arena;
  lfa_error *err;
} parser;

/* ---- positions and messages ------------------------------------------------ */

static lfa_status fail_pos(lfa_error *err, lfa_status st, uint32_t line, uint32_t column, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
static lfa_status fail_pos(lfa_error *err, lfa_status st, uint32_t line, uint32_t column, const char *fmt, va_list ap) {
  char what[LFA_ERROR_MSG_MAX];
  vsnprintf(what, sizeof what, fmt, ap);
  return lfa_fail(err, st, NULL, "line %" PRIu32 ", column %" PRIu32 ": %s", line, column, what);
}

static lfa_status fail_at(const parser *p, lfa_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static lfa_status fail_at(const parser *p, lfa_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  lfa_status r = fail_pos(p->err, st, p->line, p->column, fmt, ap);
  va_end(ap);
  return r;
}

lfa_status lfa_json_fail(lfa_error *err, lfa_status status, const lfa_json *at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  lfa_status r = fail_pos(err, status, at ? at->line : 0, at ? at->column : 0, fmt, ap);
  va_end(ap);
  return r;
}

/* Moves past one byte. A column is a character: UTF-8 continuation bytes
 * (10xxxxxx) do not start one. */
static void advance(parser *p) {
  if (*p->at == '\n') {
    p->line++;
    p->column = 1;
  } else if ((*p->at & 0xC0) != 0x80) {
    p->column++;
  }
  p->at++;
}

static bool more(const parser *p) { return p->at < p->end; }
static bool next_is(const parser *p, uint8_t c) { return p->at < p->end && *p->at == c; }
static bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

/* RFC 8259 §2: space, tab, LF, CR, and nothing else. */
static void skip_space(parser *p) {
  while (more(p) && (*p->at == ' ' || *p->at == '\t' || *p->at == '\n' || *p->at == '\r')) advance(p);
}

/* Why the byte at the cursor cannot be where it is. */
static lfa_status unexpected(const parser *p, const char *wanted) {
  if (!more(p)) return fail_at(p, LFA_ERR_FORMAT, "the document ends where %s should be", wanted);
  uint8_t c = *p->at;
  if (c == '/') return fail_at(p, LFA_ERR_FORMAT, "comments are not JSON (expected %s)", wanted);
  if (c == '\'') return fail_at(p, LFA_ERR_FORMAT, "strings take double quotes, not single (expected %s)", wanted);
  if (c > 0x20 && c < 0x7F) return fail_at(p, LFA_ERR_FORMAT, "unexpected '%c', expected %s", c, wanted);
  return fail_at(p, LFA_ERR_FORMAT, "unexpected byte 0x%02x, expected %s", (unsigned)c, wanted);
}

/* ---- strings --------------------------------------------------------------------- */

static lfa_status string_too_long(const parser *p) {
  lfa_error *err = p->err;
  return lfa_fail(err, LFA_ERR_LIMIT, NULL,
                  "line %" PRIu32 ", column %" PRIu32
                  ": a string or number longer than %u bytes (LFA_JSON_STRING_BYTES_MAX)",
                  p->str_line, p->str_column, LFA_JSON_STRING_BYTES_MAX);
}

static lfa_status put(parser *p, const void *bytes, size_t n) {
  if (p->scratch.len + n > LFA_JSON_STRING_BYTES_MAX) return string_too_long(p);
  return lfa_buf_append(&p->scratch, bytes, n, p->err);
}

/* RFC 3629 §4: the only well-formed sequences. No overlong forms (C0, C1,
 * E0 80..9F, F0 80..8F), no surrogates (ED A0..BF), nothing past U+10FFFF
 * (F4 90.., F5..FF). */
static lfa_status utf8_char(parser *p) {
  uint8_t c = *p->at, lo = 0x80, hi = 0xBF;
  size_t n;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c == 0xE0) n = 3, lo = 0xA0;
  else if (c == 0xED) n = 3, hi = 0x9F;
  else if (c >= 0xE1 && c <= 0xEF) n = 3;
  else if (c == 0xF0) n = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) n = 4;
  else if (c == 0xF4) n = 4, hi = 0x8F;
  else return fail_at(p, LFA_ERR_FORMAT, "invalid UTF-8: byte 0x%02x cannot start a character", (unsigned)c);
  for (size_t k = 1; k < n; k++) {
    if (p->at + k >= p->end) return fail_at(p, LFA_ERR_FORMAT, "invalid UTF-8: the document ends inside a character");
    uint8_t b = p->at[k];
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF))
      return fail_at(p, LFA_ERR_FORMAT, "invalid UTF-8: byte 0x%02x cannot follow 0x%02x here", (unsigned)b,
                     (unsigned)c);
  }
  lfa_status st = put(p, p->at, n);
  for (size_t k = 0; k < n; k++) advance(p);
  return st;
}

/* Four hex digits after "\u" (the cursor is on the 'u'). */
static lfa_status hex4(parser *p, uint32_t *out) {
  *out = 0;
  advance(p);
  for (int k = 0; k < 4; k++, advance(p)) {
    uint8_t c = more(p) ? *p->at : 0;
    uint32_t d = c >= '0' && c <= '9'   ? (uint32_t)(c - '0')
                 : c >= 'a' && c <= 'f' ? (uint32_t)(c - 'a' + 10)
                 : c >= 'A' && c <= 'F' ? (uint32_t)(c - 'A' + 10)
                                        : 16;
    if (d == 16) return fail_at(p, LFA_ERR_FORMAT, "\\u needs four hex digits");
    *out = *out << 4 | d;
  }
  return LFA_OK;
}

/* UTF-8 of one code point below U+110000: a lead byte, then 6 bits per
 * continuation byte, lowest last. */
static lfa_status put_code_point(parser *p, uint32_t cp) {
  static const uint8_t LEAD[5] = {0, 0x00, 0xC0, 0xE0, 0xF0};
  uint8_t b[4];
  size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  for (size_t k = n - 1; k > 0; k--, cp >>= 6) b[k] = (uint8_t)(0x80 | (cp & 0x3F));
  b[0] = (uint8_t)(LEAD[n] | cp);
  return put(p, b, n);
}

/* "\uXXXX", or a surrogate pair "\uD8xx\uDCxx" for one character past
 * U+FFFF (RFC 8259 §7). A lone surrogate is not a character. */
static lfa_status unicode_escape(parser *p) {
  uint32_t line = p->line, column = p->column > 1 ? p->column - 1 : 1; /* the backslash */
  uint32_t cp, low;
  lfa_status st = hex4(p, &cp);
  if (st != LFA_OK) return st;
  if (cp >= 0xDC00 && cp <= 0xDFFF)
    return lfa_fail(p->err, LFA_ERR_FORMAT, NULL,
                    "line %" PRIu32 ", column %" PRIu32 ": lone low surrogate \\u%04" PRIX32, line, column, cp);
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    if (!(p->end - p->at >= 2 && p->at[0] == '\\' && p->at[1] == 'u'))
      return lfa_fail(p->err, LFA_ERR_FORMAT, NULL,
                      "line %" PRIu32 ", column %" PRIu32 ": high surrogate \\u%04" PRIX32
                      " is not followed by a low one",
                      line, column, cp);
    advance(p);
    if ((st = hex4(p, &low)) != LFA_OK) return st;
    if (low < 0xDC00 || low > 0xDFFF)
      return lfa_fail(p->err, LFA_ERR_FORMAT, NULL,
                      "line %" PRIu32 ", column %" PRIu32 ": high surrogate \\u%04" PRIX32
                      " is followed by \\u%04" PRIX32 ", not a low surrogate",
                      line, column, cp, low);
    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
  }
  return put_code_point(p, cp);
}

/* The cursor is on the backslash. */
static lfa_status escape(parser *p) {
  advance(p);
  if (!more(p)) return fail_at(p, LFA_ERR_FORMAT, "the document ends inside a string");
  uint8_t c = *p->at, out;
  switch (c) {
    case '"':
    case '\\':
    case '/': out = c; break;
    case 'b': out = '\b'; break;
    case 'f': out = '\f'; break;
    case 'n': out = '\n'; break;
    case 'r': out = '\r'; break;
    case 't': out = '\t'; break;
    case 'u': return unicode_escape(p);
    default:
      if (c > 0x20 && c < 0x7F) return fail_at(p, LFA_ERR_FORMAT, "invalid escape '\\%c'", c);
      return fail_at(p, LFA_ERR_FORMAT, "invalid escape: byte 0x%02x after a backslash", (unsigned)c);
  }
  advance(p);
  return put(p, &out, 1);
}

/* A string at the cursor (on its opening quote), decoded into the arena. */
static lfa_status parse_string(parser *p, const char **text, size_t *length) {
  p->str_line = p->line, p->str_column = p->column;
  p->scratch.len = 0;
  advance(p);
  for (;;) {
    if (!more(p))
      return lfa_fail(p->err, LFA_ERR_FORMAT, NULL, "line %" PRIu32 ", column %" PRIu32 ": a string is not closed",
                      p->str_line, p->str_column);
    uint8_t c = *p->at;
    lfa_status st;
    if (c == '"') break;
    if (c == '\\') st = escape(p);
    else if (c < 0x20) st = fail_at(p, LFA_ERR_FORMAT, "control byte 0x%02x must be escaped in a string", (unsigned)c);
    else if (c >= 0x80) st = utf8_char(p);
    else {
      st = put(p, &c, 1);
      advance(p);
    }
    if (st != LFA_OK) return st;
  }
  advance(p);
  char *copy = lfa_arena_alloc(p->arena, p->scratch.len + 1); /* zeroed: NUL-terminated */
  if (copy == NULL) return lfa_fail(p->err, LFA_ERR_NOMEM, NULL, "out of memory");
  if (p->scratch.len) memcpy(copy, p->scratch.data, p->scratch.len);
  *text = copy;
  *length = p->scratch.len;
  return LFA_OK;
}

/* ---- scalars --------------------------------------------------------------------- */

static void skip_digits(parser *p) {
  while (more(p) && is_digit(*p->at)) advance(p);
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? and nothing else (RFC 8259 §6). */
static lfa_status parse_number(parser *p, lfa_json *out) {
  const uint8_t *start = p->at;
  bool negative = next_is(p, '-'), integer = true, overflow = false;
  uint64_t magnitude = 0;
  if (negative) advance(p);
  if (!more(p) || !is_digit(*p->at)) return unexpected(p, "a digit");
  if (*p->at == '0') {
    advance(p);
    if (more(p) && is_digit(*p->at)) return fail_at(p, LFA_ERR_FORMAT, "numbers do not take leading zeros");
  }
  for (; more(p) && is_digit(*p->at); advance(p)) {
    uint64_t d = (uint64_t)(*p->at - '0');
    if (magnitude > (UINT64_MAX - d) / 10) overflow = true;
    else magnitude = magnitude * 10 + d;
  }
  if (next_is(p, '.')) {
    integer = false;
    advance(p);
    if (!more(p) || !is_digit(*p->at)) return unexpected(p, "a digit after the decimal point");
    skip_digits(p);
  }
  if (next_is(p, 'e') || next_is(p, 'E')) {
    integer = false;
    advance(p);
    if (next_is(p, '+') || next_is(p, '-')) advance(p);
    if (!more(p) || !is_digit(*p->at)) return unexpected(p, "a digit in the exponent");
    skip_digits(p);
  }
  size_t n = (size_t)(p->at - start);
  p->str_line = out->line, p->str_column = out->column;
  if (n > LFA_JSON_STRING_BYTES_MAX) return string_too_long(p);
  bool fits = integer && !overflow && (!negative || magnitude <= (uint64_t)INT64_MAX + 1);
  out->kind = fits ? LFA_JSON_INTEGER : LFA_JSON_NUMBER;
  out->negative = fits && negative && magnitude != 0; /* -0 is 0 */
  out->magnitude = fits ? magnitude : 0;
  char *text = lfa_arena_alloc(p->arena, n + 1);
  if (text == NULL) return lfa_fail(p->err, LFA_ERR_NOMEM, NULL, "out of memory");
  memcpy(text, start, n);
  out->text = text, out->length = n;
  return LFA_OK;
}

static lfa_status parse_literal(parser *p, lfa_json *out) {
  static const struct {
    const char *word;
    lfa_json_kind kind;
    bool value;
  } WORDS[] = {{"true", LFA_JSON_BOOL, true}, {"false", LFA_JSON_BOOL, false}, {"null", LFA_JSON_NULL, false}};
  for (size_t i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++) {
    size_t n = strlen(WORDS[i].word);
    if (*p->at != (uint8_t)WORDS[i].word[0]) continue;
    if ((size_t)(p->end - p->at) < n || memcmp(p->at, WORDS[i].word, n) != 0)
      return fail_at(p, LFA_ERR_FORMAT, "invalid literal (expected '%s'; literals are lowercase)", WORDS[i].word);
    out->kind = WORDS[i].kind;
    out->boolean = WORDS[i].value;
    for (size_t k = 0; k < n; k++) advance(p);
    return LFA_OK;
  }
  return unexpected(p, "a value");
}

/* ---- containers ------------------------------------------------------------------ */

static lfa_status parse_value(parser *p, lfa_json *out);

/* A growable vector of `size`-byte elements (nodes or members). */
typedef struct vec {
  void *data;
  size_t count, cap, size;
} vec;

static void *vec_push(vec *v, lfa_error *err) {
  if (v->count == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 4;
    void *grown = realloc(v->data, cap * v->size);
    if (grown == NULL) {
      lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
      return NULL;
    }
    v->data = grown, v->cap = cap;
  }
  void *slot = (char *)v->data + v->count++ * v->size;
  memset(slot, 0, v->size);
  return slot;
}

/* Moves the vector's elements into the arena and frees the vector; NULL
 * when it is empty or the arena failed (*st then says which). */
static void *vec_settle(vec *v, parser *p, lfa_status *st) {
  void *settled = v->count ? lfa_arena_memdup(p->arena, v->data, v->count * v->size) : NULL;
  free(v->data);
  v->data = NULL;
  if (v->count && settled == NULL && *st == LFA_OK) *st = lfa_fail(p->err, LFA_ERR_NOMEM, NULL, "out of memory");
  return settled;
}

static lfa_status open_container(parser *p) {
  if (p->depth >= LFA_JSON_DEPTH_MAX)
    return fail_at(p, LFA_ERR_LIMIT, "arrays and objects nested deeper than %u (LFA_JSON_DEPTH_MAX)",
                   LFA_JSON_DEPTH_MAX);
  p->depth++;
  advance(p);
  skip_space(p);
  return LFA_OK;
}

/* After an item: ',' then more (no trailing comma), or `close`. Sets
 * *done when the container ended. */
static lfa_status after_item(parser *p, uint8_t close, const char *kind, bool *done) {
  char wanted[32];
  snprintf(wanted, sizeof wanted, "',' or '%c'", close);
  skip_space(p);
  *done = next_is(p, close);
  if (*done) {
    advance(p);
    p->depth--;
    return LFA_OK;
  }
  if (!next_is(p, ',')) return unexpected(p, wanted);
  parser comma = *p; /* a trailing comma is reported where it is */
  advance(p);
  skip_space(p);
  if (next_is(p, close)) return fail_at(&comma, LFA_ERR_FORMAT, "trailing comma in %s", kind);
  return LFA_OK;
}

static lfa_status parse_array(parser *p, lfa_json *out) {
  out->kind = LFA_JSON_ARRAY;
  lfa_status st = open_container(p);
  vec items = {.size = sizeof(lfa_json)};
  bool done = st == LFA_OK && next_is(p, ']');
  if (done) {
    advance(p);
    p->depth--;
  }
  while (st == LFA_OK && !done) {
    lfa_json *slot = vec_push(&items, p->err);
    st = slot ? parse_value(p, slot) : LFA_ERR_NOMEM;
    if (st == LFA_OK) st = after_item(p, ']', "an array", &done);
  }
  out->count = items.count;
  out->items = vec_settle(&items, p, &st);
  return st;
}

static int by_key(const void *a, const void *b) {
  const lfa_json_member *x = *(const lfa_json_member *const *)a, *y = *(const lfa_json_member *const *)b;
  int c = memcmp(x->key, y->key, x->key_length < y->key_length ? x->key_length : y->key_length);
  if (c != 0) return c;
  if (x->key_length != y->key_length) return x->key_length < y->key_length ? -1 : 1;
  return (x > y) - (x < y); /* equal keys in document order */
}

/* RFC 8259 §4 leaves duplicate names to the reader; lfa refuses them, so a
 * scenario never means two things. Sorted, so a large object costs
 * n log n. Equal keys sort in document order, so the earliest repetition
 * is reported, with the occurrence just before it. */
static lfa_status check_duplicates(parser *p, const lfa_json_member *members, size_t n) {
  if (n < 2) return LFA_OK;
  const lfa_json_member **sorted = malloc(n * sizeof *sorted);
  if (sorted == NULL) return lfa_fail(p->err, LFA_ERR_NOMEM, NULL, "out of memory");
  for (size_t i = 0; i < n; i++) sorted[i] = &members[i];
  qsort(sorted, n, sizeof *sorted, by_key);
  const lfa_json_member *again = NULL, *first = NULL;
  for (size_t i = 1; i < n; i++)
    if (sorted[i]->key_length == sorted[i - 1]->key_length &&
        memcmp(sorted[i]->key, sorted[i - 1]->key, sorted[i]->key_length) == 0 && (again == NULL || sorted[i] < again))
      again = sorted[i], first = sorted[i - 1];
  free(sorted);
  if (again == NULL) return LFA_OK;
  return lfa_fail(p->err, LFA_ERR_FORMAT, NULL,
                  "line %" PRIu32 ", column %" PRIu32 ": duplicate key \"%.64s\" (first at line %" PRIu32
                  ", column %" PRIu32 ")",
                  again->line, again->column, again->key, first->line, first->column);
}

static lfa_status parse_member(parser *p, lfa_json_member *m) {
  if (!next_is(p, '"')) return unexpected(p, "a key in double quotes");
  m->line = p->line, m->column = p->column;
  lfa_status st = parse_string(p, &m->key, &m->key_length);
  if (st != LFA_OK) return st;
  skip_space(p);
  if (!next_is(p, ':')) return unexpected(p, "':' after a key");
  advance(p);
  skip_space(p);
  return parse_value(p, &m->value);
}

static lfa_status parse_object(parser *p, lfa_json *out) {
  out->kind = LFA_JSON_OBJECT;
  lfa_status st = open_container(p);
  vec members = {.size = sizeof(lfa_json_member)};
  bool done = st == LFA_OK && next_is(p, '}');
  if (done) {
    advance(p);
    p->depth--;
  }
  while (st == LFA_OK && !done) {
    lfa_json_member *slot = vec_push(&members, p->err);
    st = slot ? parse_member(p, slot) : LFA_ERR_NOMEM;
    if (st == LFA_OK) st = after_item(p, '}', "an object", &done);
  }
  if (st == LFA_OK) st = check_duplicates(p, members.data, members.count);
  out->count = members.count;
  out->members = vec_settle(&members, p, &st);
  return st;
}

static lfa_status parse_value(parser *p, lfa_json *out) {
  out->line = p->line, out->column = p->column;
  if (++p->values > LFA_JSON_VALUES_MAX)
    return fail_at(p, LFA_ERR_LIMIT, "more than %u values (LFA_JSON_VALUES_MAX)", LFA_JSON_VALUES_MAX);
  if (!more(p)) return unexpected(p, "a value");
  switch (*p->at) {
    case '{': return parse_object(p, out);
    case '[': return parse_array(p, out);
    case '"': out->kind = LFA_JSON_STRING; return parse_string(p, &out->text, &out->length);
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9': return parse_number(p, out);
    default: return parse_literal(p, out);
  }
}

/* ---- the document ----------------------------------------------------------------- */

lfa_status lfa_json_parse(lfa_json_doc *out, const uint8_t *bytes, size_t len, lfa_error *err) {
  memset(out, 0, sizeof *out);
  if (len > LFA_JSON_DOCUMENT_BYTES_MAX)
    return lfa_fail(err, LFA_ERR_LIMIT, NULL,
                    "a JSON document of %zu bytes is over the %u-byte limit (LFA_JSON_DOCUMENT_BYTES_MAX)", len,
                    LFA_JSON_DOCUMENT_BYTES_MAX);
  static const uint8_t EMPTY[1] = {0};
  const uint8_t *start = bytes ? bytes : EMPTY;
  parser p = {.at = start, .end = start + len, .line = 1, .column = 1, .arena = &out->arena, .err = err};
  lfa_status st = LFA_OK;
  if (len >= 3 && memcmp(start, "\xEF\xBB\xBF", 3) == 0) /* RFC 8259 §8.1: MUST NOT add one */
    st = fail_at(&p, LFA_ERR_FORMAT, "a byte order mark is not allowed in JSON");
  if (st == LFA_OK) {
    out->root = lfa_arena_alloc(&out->arena, sizeof *out->root);
    st = out->root ? LFA_OK : lfa_fail(err, LFA_ERR_NOMEM, NULL, "out of memory");
  }
  if (st == LFA_OK) {
    skip_space(&p);
    st = parse_value(&p, out->root);
  }
  if (st == LFA_OK) {
    skip_space(&p);
    if (more(&p)) st = unexpected(&p, "the end of the document");
  }
  lfa_buf_free(&p.scratch);
  if (st != LFA_OK) lfa_json_free(out);
  return st;
}

void lfa_json_free(lfa_json_doc *doc) {
  lfa_arena_free(&doc->arena);
  doc->root = NULL;
}

/* ---- reading a tree ---------------------------------------------------------------- */

const lfa_json *lfa_json_find(const lfa_json *object, const char *key) {
  if (object == NULL || object->kind != LFA_JSON_OBJECT) return NULL;
  size_t n = strlen(key);
  for (size_t i = 0; i < object->count; i++)
    if (object->members[i].key_length == n && memcmp(object->members[i].key, key, n) == 0)
      return &object->members[i].value;
  return NULL;
}

const char *lfa_json_kind_name(lfa_json_kind kind) {
  switch (kind) {
    case LFA_JSON_NULL: return "null";
    case LFA_JSON_BOOL: return "a boolean";
    case LFA_JSON_INTEGER: return "an integer";
    case LFA_JSON_NUMBER: return "a number";
    case LFA_JSON_STRING: return "a string";
    case LFA_JSON_ARRAY: return "an array";
    case LFA_JSON_OBJECT: return "an object";
  }
  return "a value";
}

/* What `v` is, for "expected X, got Y": numbers show their text. */
static void describe(char *out, size_t cap, const lfa_json *v) {
  if (v->kind == LFA_JSON_NUMBER)
    snprintf(out, cap, "%.40s (%s)", v->text,
             (memchr(v->text, '.', v->length) || strpbrk(v->text, "eE")) ? "not an integer" : "out of range");
  else if (v->kind == LFA_JSON_INTEGER) snprintf(out, cap, "%.40s", v->text);
  else if (v->kind == LFA_JSON_BOOL) snprintf(out, cap, "%s", v->boolean ? "true" : "false");
  else snprintf(out, cap, "%s", lfa_json_kind_name(v->kind));
}

static lfa_status wrong(const lfa_json *v, const char *what, const char *wanted, lfa_error *err) {
  char got[96];
  describe(got, sizeof got, v);
  return lfa_json_fail(err, LFA_ERR_FORMAT, v, "%s must be %s, not %s", what, wanted, got);
}

lfa_status lfa_json_want(const lfa_json *v, lfa_json_kind kind, const char *what, lfa_error *err) {
  return v->kind == kind ? LFA_OK : wrong(v, what, lfa_json_kind_name(kind), err);
}

lfa_status lfa_json_u64(uint64_t *out, const lfa_json *v, const char *what, lfa_error *err) {
  if (v->kind != LFA_JSON_INTEGER || v->negative) return wrong(v, what, "an integer from 0 to 2^64-1", err);
  *out = v->magnitude;
  return LFA_OK;
}

lfa_status lfa_json_i64(int64_t *out, const lfa_json *v, const char *what, lfa_error *err) {
  if (v->kind != LFA_JSON_INTEGER || (!v->negative && v->magnitude > (uint64_t)INT64_MAX))
    return wrong(v, what, "an integer from -2^63 to 2^63-1", err);
  *out = v->negative ? -(int64_t)(v->magnitude - 1) - 1 : (int64_t)v->magnitude;
  return LFA_OK;
}

lfa_status lfa_json_bool(bool *out, const lfa_json *v, const char *what, lfa_error *err) {
  if (v->kind != LFA_JSON_BOOL) return wrong(v, what, "true or false", err);
  *out = v->boolean;
  return LFA_OK;
}

lfa_status lfa_json_string(const char **out, const lfa_json *v, const char *what, lfa_error *err) {
  if (v->kind != LFA_JSON_STRING) return wrong(v, what, "a string", err);
  if (memchr(v->text, '\0', v->length) != NULL)
    return lfa_json_fail(err, LFA_ERR_FORMAT, v, "%s must not hold a NUL character", what);
  *out = v->text;
  return LFA_OK;
}
