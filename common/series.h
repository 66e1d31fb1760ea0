/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * series: the time-series consumer of the pass (iterate.h). Time is cut into intervals of
 * a fixed length from the recording's start; an exit belongs to the interval its start
 * falls in, but its time out of the guest is split at the intervals' edges (an interval's
 * share never passes 100 %). Per interval and per vCPU task it keeps exits, out-of-guest
 * time, the longest exit, p99 and the worst sliding window, with one latency distribution per task reset at
 * each interval (constant memory per interval), and optionally a heatmap of every exit by
 * time and latency. The rows and the heatmap belong to the caller's struct vmt_series; one
 * pass, one thread.
 */
#ifndef VMT_SERIES_H
#define VMT_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iterate.h"
#include "reader.h"

/*
 * Rows in all (tasks times intervals) before the pass gives up with -E2BIG: 16 MiB of rows
 * (64 bytes each), so that the report stays within the suite's 64 MB (4 M rows took 298 MB).
 */
#define VMT_SERIES_MAX_ROWS (1u << 18)
/* Heatmap: two latency bins per power of two of ns, and at most this many time columns. */
#define VMT_SERIES_HEAT_ROWS 128
#define VMT_SERIES_HEAT_MAX_COLS 1024

/* One interval of one vCPU task. Times in ns; max, p99 and window are 0 when exits is 0. */
struct vmt_series_row {
	uint64_t start_ns;		/* since the recording's start; the end is + interval */
	uint64_t exits;
	/* out-of-guest time inside the interval: the parts of exits begun in it or before */
	uint64_t out_ns;
	/*
	 * The part of the interval the task was traced in: from its first exit to the end of
	 * its last (the summary's guest availability counts the same span), so that a task
	 * born or gone within the interval, or an interval past the recording's end, is not
	 * read as time in the guest. 0 where the task was not traced at all.
	 */
	uint64_t seen_ns;
	uint64_t max_ns;
	uint64_t p99_ns;		/* nearest rank: exact to 1024 exits, else within 0.8 % */
	/* the largest out-of-guest total in a window ending at one of its exits' ends */
	uint64_t max_window_ns;
	int32_t pid;
	uint32_t vcpu;
	bool has_vcpu;
};

struct vmt_series_opts {
	uint64_t interval_ns;		/* > 0 */
	uint64_t window_ns;		/* the sliding window, as the summary's */
	bool heatmap;			/* also count every exit by time and latency */
	/*
	 * Rows past VMT_SERIES_MAX_ROWS end the rows, not the pass: the rest of it counts the
	 * tasks and the exits' end, and vmt_series_refit() makes the series again at an
	 * interval they fit (an interval chosen for the caller, not one the user gave).
	 */
	bool fit;
};

struct series_work;

struct vmt_series {
	uint64_t interval_ns;
	uint64_t window_ns;
	/* after the pass: every task has a row in every interval 0 .. nintervals - 1 */
	struct vmt_series_row *rows;	/* by start, then vCPU (tasks without one last), pid */
	size_t nrows;
	uint64_t nintervals;
	size_t ntasks;
	/*
	 * The heatmap: heat[col * VMT_SERIES_HEAT_ROWS + row] counts the exits that started in
	 * [col * heat_col_ns, (col + 1) * heat_col_ns) with a latency in heat row row
	 * (vmt_series_heat_row()). A column is 2^k intervals, k growing so that there are
	 * never more than VMT_SERIES_HEAT_MAX_COLS. NULL without opts.heatmap.
	 */
	uint64_t *heat;
	uint32_t heat_cols;
	uint64_t heat_col_ns;
	/* the interval first chosen when vmt_series_refit() had to take interval_ns instead */
	uint64_t asked_ns;
	struct series_work *work;	/* the consumer's working state during the pass */
};

/*
 * Prepare s (zeroed here) and a consumer that fills it during vmt_iterate(). Returns 0,
 * -EINVAL (interval 0) or -ENOMEM; vmt_series_free() afterwards either way. The pass
 * returns -E2BIG when the rows would pass VMT_SERIES_MAX_ROWS (without opts.fit).
 */
int vmt_series_consumer(struct vmt_series *s, const struct vmt_series_opts *o,
			struct vmt_consumer *out);
void vmt_series_free(struct vmt_series *s);

/* The heatmap row of a latency in ns, and the lowest latency of a row. */
static inline unsigned int vmt_series_heat_row(uint64_t ns)
{
	unsigned int e;

	if (ns < 2)
		return (unsigned int)ns;
	e = 63 - (unsigned int)__builtin_clzll(ns);
	return 2 * e + (unsigned int)((ns >> (e - 1)) & 1);
}

uint64_t vmt_series_heat_low_ns(unsigned int row);

/*
 * The rows a series of interval_ns needs at least (one task's intervals over the
 * recording's span, as its pages' times give it): more than VMT_SERIES_MAX_ROWS is refused
 * before the pass (a 1 ns interval would fill the rows first). 0 when the span is unknown.
 */
uint64_t vmt_series_min_rows(const struct vmt_reader *r, uint64_t interval_ns);
/*
 * The interval a series of r takes: interval_ns, or vmt_series_auto_interval() for 0; 0
 * when interval_ns needs more than VMT_SERIES_MAX_ROWS, with msg saying so and the
 * shortest that fits ("--interval 1 ns: more than the ... rows ...: choose at least ...",
 * opt naming the option).
 */
uint64_t vmt_series_fit_interval(const struct vmt_reader *r, uint64_t interval_ns,
				 const char *opt, char *msg, size_t size);
/*
 * After the pass of a series with opts.fit at an interval the user gave: whether its rows
 * did not fit (then msg says so, with the vCPU tasks and the interval that fits them up to
 * the latest exit's end, as vmt_series_refit() would take it: "--interval 8591 ns: more
 * than the 262144 rows a time series holds, with 2 vCPU tasks: choose at least 20 us").
 */
bool vmt_series_too_many(const struct vmt_series *s, const char *opt, char *msg, size_t size);
/*
 * An interval for r that gives 100 to 1000 of them (1, 2 or 5 times a power of ten ns,
 * at least 1 us), from the span of its pages: the chunk index where the file has one,
 * else the last page of each CPU, else the recorded duration; 1 s when none is known.
 */
uint64_t vmt_series_auto_interval(const struct vmt_reader *r);
/*
 * The smallest interval of 1, 2 or 5 times a power of ten ns, at least 1 us, not below
 * want: 10^19 ns is the longest; above it, UINT64_MAX (one interval for every time).
 */
uint64_t vmt_series_step_at_least(uint64_t want);
/*
 * After the pass of a series with opts.fit: when its rows did not fit, the series again,
 * in a pass of its own (a slice of r's whole walk with the first pass's filter, bound by
 * it; no causes worked out, no context events decoded: the series reads neither; and no
 * progress callback, so a progress line stays where the first pass left it) at the
 * shortest interval of 1, 2 or 5 times a power of ten ns above the first at which its
 * tasks' rows fit up to the latest exit's end; s->asked_ns then holds the first. 0 (also
 * when the rows
 * had fit), -E2BIG (more tasks than rows, or the rows outgrew the bound again and again),
 * -ENOMEM or the pass's error; vmt_series_free() afterwards either way.
 */
int vmt_series_refit(struct vmt_series *s, struct vmt_reader *r,
		     struct vmt_filter *filter);

#endif
