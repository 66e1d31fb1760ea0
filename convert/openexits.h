/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * openexits: the exits the filters keep that were still open when the recording stopped
 * (no entry came), counted by a consumer of the conversion's pass beside its writer. A row,
 * a slice or an interval's figures need the entry, so per-exit rows, the timeline and the
 * series have none of them; this says how many there are and the longest, where
 * vmtrace-report lists them. Main thread.
 */
#ifndef VMT_CONVERT_OPENEXITS_H
#define VMT_CONVERT_OPENEXITS_H

#include <stdint.h>

#include "convertopt.h"
#include "iterate.h"

struct convert_open {
	uint64_t n;
	uint64_t longest;		/* trace clock units, up to the recording's end */
	uint64_t longest_ts;		/* that exit's time */
	int32_t longest_pid;
};

/* The consumer: st zeroed here, filled by the pass's open callbacks. */
void convert_open_consumer(struct convert_open *st, struct vmt_consumer *c);
/*
 * After the pass, when there are some: "1 exit ... ONE", "N exits ... MANY" (one: "has no
 * row", many: "have no row").
 */
void convert_say_open(const struct convert_opts *o, const struct vmt_iter *it,
		      const struct convert_open *st, const char *one, const char *many);

#endif
