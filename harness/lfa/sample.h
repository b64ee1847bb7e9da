/* sample.h: the five-version example dataset lfa ships as its default
 * input (see harness/sample.c for its history). */
#ifndef LFA_SAMPLE_H
#define LFA_SAMPLE_H

#include "lfa/error.h"

/* Writes the sample into `dir`, which must not hold any of its files. */
lfa_status lfa_sample_write(const char *dir, lfa_error *err);

#endif
