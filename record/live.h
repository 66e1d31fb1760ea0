/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live: vmtrace-record --live. A consumer of the pass the tap (tap.h) feeds while the
 * recorder records: per interval of trace time (DUR, from the recording's start, as a
 * report's --interval), exits/s, out-of-guest %, p99 and max overall, per vCPU task and per
 * exit reason, with the exits still open at each interval's end (their time split at the
 * edges as the report splits it). On a terminal the table is redrawn in place; otherwise
 * key=value lines per interval. Created by main before the collector starts, then used on
 * the collector thread only; freed by main.
 */
#ifndef REC_LIVE_H
#define REC_LIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "iterate.h"

struct rec_live_config {
	uint64_t interval_ns;
	FILE *out;
	bool terminal;			/* redraw the table in place */
	bool kvm;			/* KVM's pair: the table says exits and vCPUs */
	const struct vmt_kvbuf *meta;	/* the recording's: its VM map (--vm) names tasks */
};

/* What the live view printed. */
struct rec_live_totals {
	uint64_t intervals;
	uint64_t pairs;			/* in the printed intervals */
	uint64_t late;			/* records that came too late for the merge */
};

struct rec_live;

/* Returns 0, -EINVAL (no interval or stream) or -ENOMEM. */
int rec_live_new(const struct rec_live_config *cfg, struct rec_live **out);
/* The consumer to give the pass. */
struct vmt_consumer rec_live_consumer(struct rec_live *l);
/*
 * The pass has every record up to ts (trace clock): print the intervals that ended. late:
 * the tap's count so far.
 */
void rec_live_advance(struct rec_live *l, const struct vmt_iter *it, uint64_t ts,
		      uint64_t late);
/*
 * The pass has every record and has not ended (its open exits are there): print the last
 * intervals, up to stop (when tracing went off, trace clock) when that is after the last
 * event (an idle CPU's tail, a vCPU stuck in its exit, however long), else up to the last
 * event (stop 0: unknown; a stop before the recording's start, or more than within ns,
 * CLOCK_BOOTTIME's time from before tracing started to the stop (0: unknown), and a
 * second after it, is not believed). late: the tap's count at the end.
 */
void rec_live_end(struct rec_live *l, const struct vmt_iter *it, uint64_t stop, uint64_t within,
		  uint64_t late);
void rec_live_totals(const struct rec_live *l, struct rec_live_totals *t);
void rec_live_free(struct rec_live *l);

#endif
