/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latstat: latency statistics in constant memory: count/min/max/sum, and the largest total
 * of intervals (out-of-guest time) inside any sliding window of one task. Plain structs
 * owned by the caller; not thread-safe (one per thread, merge afterwards).
 */
#ifndef VMT_LATSTAT_H
#define VMT_LATSTAT_H

#include <stdint.h>

struct vmt_latstat {
	uint64_t count;
	uint64_t min, max;
	uint64_t sum;
};

void vmt_latstat_init(struct vmt_latstat *s);
static inline void vmt_latstat_add(struct vmt_latstat *s, uint64_t v)
{
	s->count++;
	s->sum += v;
	if (v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
}
void vmt_latstat_merge(struct vmt_latstat *into, const struct vmt_latstat *from);

/*
 * Sliding window: for one task's intervals [start, end], fed in time order, the maximum
 * over every window [t, t + window) of the time the intervals cover inside it. An interval
 * that crosses a window edge counts only its part inside, so the figure never exceeds the
 * window. The maximum is always reached by a window ending where an interval ends, so each
 * new interval is one evaluation. Memory: the intervals inside one window.
 */
struct vmt_window {
	uint64_t window;
	uint64_t *start, *end;	/* ring of intervals still inside the last window */
	uint32_t head, len, cap;
	uint64_t sum;		/* total length of the intervals in the ring */
	uint64_t last_end;
	uint64_t max_sum;
	uint64_t max_at;	/* start of the window that holds max_sum */
};

int vmt_window_init(struct vmt_window *w, uint64_t window);
void vmt_window_free(struct vmt_window *w);
/* Returns 0 or -ENOMEM. */
int vmt_window_add(struct vmt_window *w, uint64_t start, uint64_t end);

#endif
