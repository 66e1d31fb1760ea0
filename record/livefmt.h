/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * livefmt: how --live shows one interval (live.h): a table redrawn in place on a terminal,
 * fitted to its size, or one line of key=value pairs folded to 120 columns. Stateless;
 * called on the collector thread. The row structs are live.c's, shared with this file only.
 */
#ifndef REC_LIVEFMT_H
#define REC_LIVEFMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "commtab.h"
#include "exitreason.h"
#include "latstat.h"

struct vmt_vmmap;

/* One row's figures over the current interval. */
struct rec_live_stat {
	uint64_t count, max;		/* exits that ended in the interval, longest */
	uint64_t sum;			/* their time out of the guest inside the interval */
	struct vmt_latdist d;		/* for the p99 */
};

/* An interval's figures: none yet, reset for the next interval, an exit added. */
static inline void rec_live_stat_init(struct rec_live_stat *s)
{
	memset(s, 0, sizeof(*s));
	vmt_latdist_init(&s->d);
}

static inline void rec_live_stat_reset(struct rec_live_stat *s)
{
	vmt_latdist_free(&s->d);
	rec_live_stat_init(s);
}

static inline int rec_live_stat_add(struct rec_live_stat *s, const struct vmt_latval *lv,
				    uint64_t inside)
{
	s->count++;
	s->sum += inside;
	if (lv->v > s->max)
		s->max = lv->v;
	return vmt_latdist_add_val(&s->d, lv);
}

struct rec_live_task {
	int32_t pid;
	uint32_t vcpu;
	bool has_vcpu;
	struct rec_live_stat s;		/* s.sum holds the open exit's part too */
	/* in an exit at the interval's end: for how long, since when (after the start), why */
	bool open, open_has_reason;
	uint64_t open_ns, open_since_ns;
	uint32_t open_isa;
	uint64_t open_key;
};

struct rec_live_reason {
	uint32_t isa;
	uint64_t key;
	struct rec_live_stat s;
};


/* One interval to show. */
struct rec_live_frame {
	FILE *out;
	uint64_t index;			/* of the interval */
	uint64_t start_ns, len_ns;	/* its start after the first event, its length */
	uint64_t lost, late;
	unsigned int active;		/* vCPU tasks with exits in it or in one at its end */
	const struct rec_live_stat *all;
	struct rec_live_task **tasks;	/* sorted here, most time first */
	size_t ntasks;
	struct rec_live_reason *reasons;	/* sorted here, most exits first */
	size_t nreasons;
	const struct vmt_exitreasons *names;
	bool kvm;			/* KVM's words, else another pair's (the keys stay) */
	const struct vmt_commtab *comms;	/* the tasks' names known so far */
	const struct vmt_vmmap *vmmap;	/* the recording's VM map (--vm), or NULL */
};

void rec_livefmt_table(const struct rec_live_frame *f);
void rec_livefmt_line(const struct rec_live_frame *f);

#endif
