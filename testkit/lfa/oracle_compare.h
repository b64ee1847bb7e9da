/* oracle_compare.h: the model's state (an lfa_table) read for comparison
 * with the oracle's (or_state): schema and tracked fields (FA-OP-1), live
 * keys, and every live row of every tracked field (FA-SEM-1, FA-SEM-2).
 * Shared by tests/testkit/test_oracle.c, the fuzz targets of fuzz/fuzz_history.h
 * and `lfa explore` (lfa/explore_judge.h); no cmocka (a failure is a false
 * return with `diff` filled). */
#ifndef LFA_ORACLE_COMPARE_H
#define LFA_ORACLE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfa/error.h"
#include "lfa/oracle.h"
#include "lfa/table.h"

/* The dotted path of model field `i` (names from the top level; "?" marks
 * a parent id the schema lacks). */
void or_model_path(const lfa_table *t, size_t i, char *out, size_t cap);

/* The index of the model field at `path`, or SIZE_MAX. */
size_t or_model_field(const lfa_table *t, const char *path);

/* Model table `t` (keys from `keys_from`: a table read from disk has none)
 * against oracle state `o`: false with `diff` on the first difference. */
bool or_agree(const or_state *o, const lfa_table *t, const lfa_table *keys_from, char *diff, size_t cap);

/* The model's answer `st` (with `err`) against the oracle's prediction:
 * false with `diff` on a mismatch. */
bool or_judge_answer(char *diff, size_t cap, const or_prediction *p, lfa_status st, const lfa_error *err);

/* The live keys of fragment `id` of model table `t` (NULL: none), kept in
 * *keys (grown as needed, *cap entries; the caller frees it): structure
 * the oracle cannot know by itself (which rows share a fragment), never
 * state. Out of memory aborts. */
or_fragment or_fragment_keys(const lfa_table *t, uint64_t id, uint64_t **keys, size_t *cap);

#endif
