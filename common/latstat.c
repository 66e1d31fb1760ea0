// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latstat.h"

void vmt_latstat_init(struct vmt_latstat *s)
{
	s->count = 0;
	s->min = UINT64_MAX;
	s->max = 0;
	s->sum = 0;
}

void vmt_latstat_merge(struct vmt_latstat *into, const struct vmt_latstat *from)
{
	into->count += from->count;
	into->sum += from->sum;
	if (from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
}

int vmt_window_init(struct vmt_window *w, uint64_t window)
{
	memset(w, 0, sizeof(*w));
	w->window = window ? window : 1;
	return 0;
}

void vmt_window_free(struct vmt_window *w)
{
	free(w->start);
	free(w->end);
	w->start = w->end = NULL;
	w->cap = w->len = 0;
}

static int ring_grow(struct vmt_window *w)
{
	uint32_t cap = w->cap ? w->cap * 2 : 16, i;
	uint64_t *s = malloc(cap * sizeof(*s)), *e = malloc(cap * sizeof(*e));

	if (!s || !e || cap < w->cap) {
		free(s);
		free(e);
		return -ENOMEM;
	}
	for (i = 0; i < w->len; i++) {
		s[i] = w->start[(w->head + i) & (w->cap - 1)];
		e[i] = w->end[(w->head + i) & (w->cap - 1)];
	}
	free(w->start);
	free(w->end);
	w->start = s;
	w->end = e;
	w->head = 0;
	w->cap = cap;
	return 0;
}

int vmt_window_add(struct vmt_window *w, uint64_t start, uint64_t end)
{
	uint64_t lo, covered;
	uint32_t tail;

	/* A task's intervals cannot overlap; clip what clock noise would make overlap. */
	if (start < w->last_end)
		start = w->last_end;
	if (end < start)
		end = start;
	w->last_end = end;
	if (w->len == w->cap && ring_grow(w))
		return -ENOMEM;
	tail = (w->head + w->len) & (w->cap - 1);
	w->start[tail] = start;
	w->end[tail] = end;
	w->len++;
	w->sum += end - start;

	/* The window [end - window, end): drop intervals that ended before it. */
	lo = end > w->window ? end - w->window : 0;
	while (w->len && w->end[w->head] <= lo) {
		w->sum -= w->end[w->head] - w->start[w->head];
		w->head = (w->head + 1) & (w->cap - 1);
		w->len--;
	}
	covered = w->sum;
	if (w->len && w->start[w->head] < lo)
		covered -= lo - w->start[w->head];
	if (covered > w->max_sum) {
		w->max_sum = covered;
		w->max_at = lo;
	}
	return 0;
}
