/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_compare: vmtrace-report's modes over more than one recording, each from the parsed
 * options to the exit status: --compare BEFORE AFTER (compare.c), and several recordings
 * merged (merge.c).
 */
#ifndef VMT_REPORT_COMPARE_H
#define VMT_REPORT_COMPARE_H

#include <stdint.h>

#include "iterate.h"
#include "reportopt.h"

/* Run the comparison; returns the exit status (0, 1 error or a --fail-if holds, 2, 64). */
int report_compare(struct report_opts *o);
/* Several recordings merged; returns the exit status (0, 1, 2 damaged, 64). */
int report_merge(struct report_opts *o);
/*
 * The span a recording's rates are per: its duration (its events' span when the file does
 * not say, as a trace.dat), or the --from/--to part of it.
 */
uint64_t report_selected_span(const struct vmt_filter *f, const struct vmt_reader *r,
			      const struct vmt_iter *it);
/*
 * Whether r records the same event pair as the recordings before it (first holds the
 * first one's, "" before it): exits of different pairs are not one population. Says so in
 * one line naming file and both pairs, and returns 1, else 0. A recording in ticks of no
 * known length (counter, uptime) is refused too, with 64: the populations are in ns.
 */
int report_same_pair(const char *file, const struct vmt_reader *r, char *first, size_t size);
/*
 * A recording of several that could not be opened: its line (file: msg), with the way out
 * when --format-dir or --pair, which go to every file, do not apply to this one. Returns
 * the exit status: 64 for a usage error (ret VMT_INPUT_EUSAGE), else 1.
 */
int report_open_failed(const char *file, const char *msg, int ret);

#endif
