/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pairing: matches each begin event (kvm_exit) with the next end event (kvm_entry) of the
 * same task, across CPUs, in timestamp order. A pair never spans a lost-events gap on the
 * CPU of either event; unmatched events are counted, never guessed. Memory grows with the
 * number of tasks, not events. One struct vmt_pairing per thread.
 */
#ifndef VMT_PAIRING_H
#define VMT_PAIRING_H

#include <stdint.h>

#include "kvmevent.h"

struct vmt_why;
struct vmt_whyseg;

struct vmt_pair {
	const struct vmt_event *begin;
	const struct vmt_event *end;
	uint64_t lat;		/* end->ts - begin->ts, trace clock units */
	void **task_ctx;	/* the caller's per-task slot (NULL at first), freed by ctx_free */
	/*
	 * Where the time went (attrib.h), when the pass attributes: NULL otherwise. The
	 * segments tile [begin, end] in time order (for window breakdowns).
	 */
	const struct vmt_why *why;
	const struct vmt_whyseg *why_segs;
	uint32_t why_nsegs;
};

/* pair (and what it points to) stays valid until the next event or gap is fed. */
typedef void (*vmt_pair_fn)(const struct vmt_pair *pair, void *arg);

struct vmt_pairing_stats {
	uint64_t pairs;
	uint64_t orphan_begins;	/* a begin followed by another begin of the same task */
	uint64_t orphan_ends;	/* an end with no begin before it */
	uint64_t gap_dropped;	/* begin/end whose partner may have been lost in a gap */
	uint64_t unfinished;	/* begins still open when the recording stopped */
	uint64_t backwards;	/* end stamped before its begin (unsynchronised clocks) */
};

struct vmt_pairing;

struct vmt_pairing *vmt_pairing_new(vmt_pair_fn fn, void *arg);
/* Feed events in timestamp order. Returns 0 or -ENOMEM. */
int vmt_pairing_event(struct vmt_pairing *p, const struct vmt_event *ev);
/* Events were lost on cpu just before the events fed next. */
int vmt_pairing_gap(struct vmt_pairing *p, uint32_t cpu);
/* Count the begins still open as unfinished. */
void vmt_pairing_finish(struct vmt_pairing *p);
const struct vmt_pairing_stats *vmt_pairing_stats(const struct vmt_pairing *p);
/* Free; ctx_free (may be NULL) is called with arg on every non-NULL task slot. */
void vmt_pairing_free(struct vmt_pairing *p, void (*ctx_free)(void *ctx, void *arg),
		      void *arg);

#endif
