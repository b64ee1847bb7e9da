/* args.c: the strict option parser of every `lfa` command (args.h). */
#include "args.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lfa/escape.h"

enum { OPTIONS_MAX = 32 };

bool lfa_cli_value_ok(const char *text, bool signed_number) {
  if (text[0] != '-') return true; /* "" too: what it means is the option's to judge */
  return signed_number && text[1] >= '0' && text[1] <= '9';
}

/* Decimal digits only, accumulated with an overflow check: strtoull
 * would accept a sign, spaces, and clamp 99999999999999999999 to 2^64-1. */
static bool digits(uint64_t *out, const char *text) {
  uint64_t v = 0;
  if (text[0] == '\0') return false;
  for (const char *c = text; *c; c++) {
    if (*c < '0' || *c > '9') return false;
    unsigned d = (unsigned)(*c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

const char *lfa_cli_shown(char *buf, size_t cap, const char *s) {
  lfa_text_shown(buf, cap, s, strlen(s));
  return buf;
}

bool lfa_cli_u64(uint64_t *out, const char *cmd, const char *opt, const char *text, uint64_t lo, uint64_t hi) {
  uint64_t v = 0;
  if (digits(&v, text) && v >= lo && v <= hi) return *out = v, true;
  char shown[LFA_CLI_SHOWN_BYTES];
  fprintf(stderr, "lfa %s: %s needs a whole number from %" PRIu64 " to %" PRIu64 ", got '%s'\n", cmd, opt, lo, hi,
          lfa_cli_shown(shown, sizeof shown, text));
  return false;
}

static bool parse_i64(int64_t *out, const char *cmd, const char *opt, const char *text) {
  uint64_t mag = 0;
  bool neg = text[0] == '-';
  if (digits(&mag, text + neg) && mag <= (uint64_t)INT64_MAX + neg) {
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag; /* -2^63 wraps to itself */
    return true;
  }
  char shown[LFA_CLI_SHOWN_BYTES];
  fprintf(stderr, "lfa %s: %s needs a whole number from -2^63 to 2^63-1, got '%s'\n", cmd, opt,
          lfa_cli_shown(shown, sizeof shown, text));
  return false;
}

/* Stores the value of one occurrence (the n-th) of option o. */
static bool store(const char *cmd, const lfa_cli_option *o, size_t n, const char *value) {
  switch (o->kind) {
    case LFA_CLI_FLAG: ((bool *)o->out)[n] = true; return true;
    case LFA_CLI_TEXT: ((const char **)o->out)[n] = value; return true;
    case LFA_CLI_U64:
      return lfa_cli_u64(&((uint64_t *)o->out)[n], cmd, o->name, value, o->lo, o->hi ? o->hi : UINT64_MAX);
    case LFA_CLI_I64: return parse_i64(&((int64_t *)o->out)[n], cmd, o->name, value);
  }
  return false;
}

static const lfa_cli_option *find(const lfa_cli_option *opts, size_t n_opts, const char *name) {
  for (size_t k = 0; k < n_opts; k++)
    if (strcmp(opts[k].name, name) == 0) return &opts[k];
  return NULL;
}

static int usage(const char *cmd, const char *why, const char *arg) {
  char shown[LFA_CLI_SHOWN_BYTES];
  fprintf(stderr, "lfa %s: %s%s%s%s (see lfa %s --help)\n", cmd, why, arg ? " '" : "",
          arg ? lfa_cli_shown(shown, sizeof shown, arg) : "", arg ? "'" : "", cmd);
  return 0;
}

/* One option at argv[*i]; its value, if it takes one, is consumed. */
static int take(const char *cmd, const lfa_cli_option *o, size_t *times, int *i, int argc, char **argv) {
  size_t max = o->max > 1 ? o->max : 1;
  if (*times >= max) return usage(cmd, max > 1 ? "given too many times:" : "given twice:", o->name);
  const char *value = NULL;
  if (o->kind != LFA_CLI_FLAG) {
    if (*i + 1 >= argc) return usage(cmd, "a value must follow", o->name);
    value = argv[++*i];
    if (!lfa_cli_value_ok(value, o->kind == LFA_CLI_I64))
      return usage(cmd, "the value of an option cannot look like an option:", value);
  }
  if (!store(cmd, o, *times, value)) return 0;
  ++*times;
  if (o->count != NULL) *o->count = *times;
  return 1;
}

bool lfa_cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return true;
  return false;
}

int lfa_cli_parse(const char *cmd, const char *help, const lfa_cli_option *opts, size_t n_opts, const char **pos,
                  size_t n_pos, int argc, char **argv) {
  size_t times[OPTIONS_MAX] = {0}, n_given = 0;
  if (n_opts > OPTIONS_MAX) return usage(cmd, "too many options declared", NULL);
  for (size_t k = 0; k < n_pos; k++) pos[k] = NULL;
  for (size_t k = 0; k < n_opts; k++)
    if (opts[k].count != NULL) *opts[k].count = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) return fputs(help, stdout), -1;
    const lfa_cli_option *o = find(opts, n_opts, arg);
    if (o != NULL && !take(cmd, o, &times[o - opts], &i, argc, argv)) return 0;
    if (o != NULL) continue;
    if (arg[0] == '-' || n_given == n_pos) return usage(cmd, "unexpected argument", arg);
    pos[n_given++] = arg;
  }
  return 1;
}

void lfa_cli_fail_error(const char *cmd, const char *subject, const lfa_error *err) {
  char msg[LFA_ERROR_MSG_MAX + 64]; /* no message cites its own rule: it goes last */
  if (err->rule != NULL) snprintf(msg, sizeof msg, "%s [%s]", err->msg, err->rule);
  else snprintf(msg, sizeof msg, "%s", err->msg);
  lfa_cli_fail(cmd, subject, msg);
}

void lfa_cli_fail(const char *cmd, const char *subject, const char *message) {
  fprintf(stderr, "lfa %s: ", cmd);
  lfa_put_text(stderr, subject);
  fputs(": ", stderr);
  lfa_put_text(stderr, message);
  fputc('\n', stderr);
}
