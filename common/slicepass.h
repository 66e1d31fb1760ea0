/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slicepass: the report's pass over a recording cut into time slices, each analysed on
 * any core, merged in time order into the figures one pass would give (summary.h). A slice
 * is every CPU's items with times in [from, to) (reader.h); its pass pairs, filters and
 * counts them alone and leaves its edges: the exits still open at its end, each task's
 * first event, its lost-events gaps (pairing.h), and the intervals whose windows reach back
 * before it. The merge matches those edges with the pairing's own rules and feeds the pairs
 * that span slices to the summary before the slice itself.
 *
 * Serial parts: the merge, one slice after the other, in the calling thread (per slice: a
 * few thousand buckets per group, the edges of each task); workers run at most two slices
 * per thread ahead of it, so memory holds that many slices' summaries. Not for attribution
 * (its engine's state at a slice's start is not known there), nor for the views that
 * print as the pass goes: the caller runs one pass for those.
 */
#ifndef VMT_SLICEPASS_H
#define VMT_SLICEPASS_H

#include "iterate.h"
#include "reader.h"
#include "summary.h"

struct vmt_slicepass_opts {
	unsigned int threads;	/* threads analysing slices; below 2: one pass */
	unsigned int slices;	/* 0: two per thread, fewer for files of few chunks */
};

/*
 * Fill s (made by vmt_summary_consumer, not yet fed) and it from r's slices, as
 * vmt_iterate() with s's consumer alone would. Returns the slices (2 or more) when done, 0
 * when r or o need the one pass or the slices ran out of memory (s and it untouched: r may
 * have been read, not through its merged walk), or a negative errno (s is then only to be
 * freed).
 */
int vmt_slicepass_summary(struct vmt_reader *r, const struct vmt_iter_opts *o,
			  const struct vmt_slicepass_opts *po, struct vmt_summary *s,
			  struct vmt_iter *it);

#endif
