/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_compare: vmtrace-report --compare BEFORE AFTER, the whole mode from the parsed
 * options to the exit status (compare.c).
 */
#ifndef VMT_REPORT_COMPARE_H
#define VMT_REPORT_COMPARE_H

#include "reportopt.h"

/* Run the comparison; returns the exit status (0, 1 error or a --fail-if holds, 2, 64). */
int report_compare(struct report_opts *o);

#endif
