/* conformance_out.h: the reports of `lfa conformance`, each rendering the
 * suite's lfa_conformance_case results: text, TAP, JSON and JUnit
 * (conformance_out.c), and the HTML pages of --html (conformance_html.c). */
#ifndef LFA_CLI_CONFORMANCE_OUT_H
#define LFA_CLI_CONFORMANCE_OUT_H

#include <stdio.h>

#include "conformance_run.h"

void conf_print_text(const suite_run *r, const tally *t);
void conf_print_tap(const suite_run *r, const tally *t);
void conf_print_json(const suite_run *r, const tally *t);
lfa_status conf_write_junit(const suite_run *r, const tally *t, lfa_error *err);
/* The page of a scenario that did not pass (lfa conformance --html,
 * conformance_case.c): at its failing step, expected against observed,
 * then its findings; `dataset_page` (or NULL) links the report of the
 * dataset it wrote. */
void conf_case_html(FILE *out, const lfa_conformance_case *c, const char *adapter, const char *dataset_page);
/* --html DIR (conformance_html.c): a page per scenario that did not pass. */
lfa_status conf_write_html(const suite_run *r, const tally *t, const char *dir, lfa_error *err);

#endif
