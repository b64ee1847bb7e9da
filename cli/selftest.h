/* selftest.h: `lfa conformance --self-test` (selftest.c). */
#ifndef LFA_CLI_SELFTEST_H
#define LFA_CLI_SELFTEST_H

#include "conformance_run.h"

/* Runs a handful of the suite's scenarios through the adapter and judges
 * how it keeps the protocol (what it reported against what it left): the
 * exit status. */
int conf_self_test(suite_run *r);

#endif
