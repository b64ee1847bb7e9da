/* escape.c: printing untrusted bytes as text, JSON and XML (lfa/escape.h). */
#include "lfa/escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

size_t lfa_utf8_len(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  if (p[0] < 0x80) return p[0] ? 1 : 0;
  size_t n = p[0] >= 0xC2 && p[0] <= 0xDF ? 2 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3 : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : 0;
  for (size_t i = 1; i < n; i++) /* a NUL ends the loop here: never read past the string */
    if ((p[i] & 0xC0) != 0x80) return 0;
  if (n == 3 && ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0))) return 0; /* overlong, surrogate */
  if (n == 4 && ((p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90))) return 0; /* overlong, > U+10FFFF */
  return n;
}

/* The code point of a well-formed sequence of n bytes. */
static uint32_t code_point(const unsigned char *p, size_t n) {
  static const unsigned char LEAD_MASK[5] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  uint32_t c = p[0] & LEAD_MASK[n];
  for (size_t i = 1; i < n; i++) c = c << 6 | (p[i] & 0x3Fu);
  return c;
}

/* What a terminal acts on although it is well-formed: C1 controls, line
 * and paragraph separators, bidirectional embeddings and isolates. */
static bool terminal_control(uint32_t c) {
  return (c >= 0x80 && c <= 0x9F) || (c >= 0x2028 && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

/* One unit of escaped text for the bytes at p, into u (at most 16 bytes
 * with its NUL); *used: how many bytes of p it stands for. */
static size_t text_unit(char u[16], const char *p, size_t *used) {
  static const char HEX[] = "0123456789abcdef";
  const unsigned char *b = (const unsigned char *)p;
  size_t n = lfa_utf8_len(p);
  bool plain = n > 1 ? !terminal_control(code_point(b, n)) : n == 1 && b[0] >= 0x20 && b[0] < 0x7F;
  *used = n > 0 ? n : 1;
  if (plain && b[0] != '\\') return memcpy(u, p, n), u[n] = '\0', n;
  if (b[0] == '\\' || b[0] == '\n' || b[0] == '\t') {
    u[0] = '\\', u[1] = b[0] == '\\' ? '\\' : b[0] == '\n' ? 'n' : 't', u[2] = '\0';
    return 2;
  }
  size_t k = 0;
  for (size_t i = 0; i < *used; i++) u[k++] = '\\', u[k++] = 'x', u[k++] = HEX[b[i] >> 4], u[k++] = HEX[b[i] & 15];
  u[k] = '\0';
  return k;
}

size_t lfa_text_escape(char *out, size_t cap, const char *s) {
  size_t len = 0, kept = 0, used;
  char u[16];
  for (const char *p = s; *p; p += used) {
    size_t k = text_unit(u, p, &used);
    if (kept == len && len + k < cap) memcpy(out + len, u, k), kept += k; /* whole units only, in order */
    len += k;
  }
  if (cap > 0) out[kept] = '\0';
  return len;
}

void lfa_text_shown(char *out, size_t cap, const char *s, size_t len) {
  char part[LFA_TEXT_SHOWN_MAX + 1];
  size_t n = len < LFA_TEXT_SHOWN_MAX ? len : LFA_TEXT_SHOWN_MAX;
  memcpy(part, s, n);
  part[n] = '\0';
  if (cap < 4) {
    if (cap > 0) out[0] = '\0';
    return;
  }
  size_t whole = lfa_text_escape(out, cap - 3, part);
  if (n < len || whole >= cap - 3) strcat(out, "...");
}

void lfa_put_text(FILE *out, const char *s) {
  size_t used;
  char u[16];
  for (const char *p = s ? s : ""; *p; p += used) {
    text_unit(u, p, &used);
    fputs(u, out);
  }
}

void lfa_put_json(FILE *out, const char *s) {
  if (s == NULL) {
    fputs("null", out);
    return;
  }
  fputc('"', out);
  for (size_t n; *s; s += n ? n : 1) {
    unsigned char c = (unsigned char)*s;
    n = lfa_utf8_len(s);
    if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
    else if (c == '\n') fputs("\\n", out);
    else if (c == '\t') fputs("\\t", out);
    else if (c < 0x20 || c == 0x7F) fprintf(out, "\\u%04x", c);
    else if (n == 0) fputs("\\ufffd", out);
    else if (n > 1 && terminal_control(code_point((const unsigned char *)s, n)))
      fprintf(out, "\\u%04x", (unsigned)code_point((const unsigned char *)s, n)); /* all are below U+10000 */
    else fwrite(s, 1, n, out);
  }
  fputc('"', out);
}

void lfa_put_xml(FILE *out, const char *s) {
  for (size_t n; s != NULL && *s; s += n ? n : 1) {
    unsigned char c = (unsigned char)*s;
    n = lfa_utf8_len(s);
    uint32_t cp = n > 0 ? code_point((const unsigned char *)s, n) : 0xFFFD;
    if (c == '&') fputs("&amp;", out);
    else if (c == '<') fputs("&lt;", out);
    else if (c == '>') fputs("&gt;", out);
    else if (c == '"') fputs("&quot;", out);
    else if (c == '\'') fputs("&apos;", out);
    else if (c == '\r') fputs("&#13;", out);
    else if (c == '\n' || c == '\t') fputc(c, out);
    else if (n == 0 || cp < 0x20 || cp == 0xFFFE || cp == 0xFFFF) fputs("\xEF\xBF\xBD", out); /* U+FFFD */
    else fwrite(s, 1, n, out);
  }
}
