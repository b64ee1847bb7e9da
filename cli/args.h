/* args.h: the one option parser of every `lfa` command. Strict, because a
 * command that deletes must never take one option for another: an option's
 * value may not look like an option, an option given twice is refused
 * unless it is repeatable, and a number must be decimal digits within its
 * range (no sign, no wrap-around past 2^64-1). */
#ifndef LFA_CLI_ARGS_H
#define LFA_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/error.h"
#include "lfa/escape.h"

typedef enum lfa_cli_kind {
  LFA_CLI_FLAG, /* out: bool */
  LFA_CLI_TEXT, /* out: const char * */
  LFA_CLI_U64,  /* out: uint64_t, within [lo, hi] */
  LFA_CLI_I64   /* out: int64_t (a leading '-' allowed) */
} lfa_cli_kind;

typedef struct lfa_cli_option {
  const char *name; /* "--version" */
  lfa_cli_kind kind;
  void *out;     /* one value, or an array of `max` values when max > 1 */
  size_t *count; /* NULL, or set to the times it was given */
  size_t max;    /* times it may be given: 0 or 1 means once */
  uint64_t lo, hi; /* LFA_CLI_U64 only; hi 0 means UINT64_MAX */
} lfa_cli_option;

/* Parses argv[1..argc) for command `cmd` ("dump"): the options of `opts`
 * and up to `n_pos` positional arguments into pos[] (NULL when absent).
 * "--help" or "-h" prints `help` on stdout and returns -1. Bad usage says
 * why in one line on stderr and returns 0; else 1. */
int lfa_cli_parse(const char *cmd, const char *help, const lfa_cli_option *opts, size_t n_opts, const char **pos,
                  size_t n_pos, int argc, char **argv);

/* Whether argv[1..argc) asks for the help ("--help" or "-h"): for a
 * command whose help is longer than one string literal may be, printed in
 * parts before lfa_cli_parse runs. */
bool lfa_cli_wants_help(int argc, char **argv);

/* One decimal number in [lo, hi], the same rules as above: false (after
 * one line on stderr naming `cmd` and `opt`) when it is not. */
bool lfa_cli_u64(uint64_t *out, const char *cmd, const char *opt, const char *text, uint64_t lo, uint64_t hi);

/* True when `text` may be an option's value: it does not start with '-'
 * (a negative number is allowed when `signed_number`); "" may be. */
bool lfa_cli_value_ok(const char *text, bool signed_number);

/* `s` as a one-line message may quote it (an argument, a path, a name
 * from a file): escaped and shortened by lfa_text_shown, into `buf`. */
enum { LFA_CLI_SHOWN_BYTES = 4 * LFA_TEXT_SHOWN_MAX + 8 };
const char *lfa_cli_shown(char *buf, size_t cap, const char *s);

/* The one line a command prints on stderr when it fails:
 * "lfa CMD: SUBJECT: MESSAGE", the subject (a path as given) and the
 * message (which names files read) shown escaped, so it stays one line. */
void lfa_cli_fail(const char *cmd, const char *subject, const char *message);
/* The same for an error: its message, then the rule it cites, "[FA-...]". */
void lfa_cli_fail_error(const char *cmd, const char *subject, const lfa_error *err);

#endif
