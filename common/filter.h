/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter: which exits count, for every view alike. A filter is given in the user's terms
 * (CPUs, vCPUs, exit reasons, a time range since the recording's start), bound once to a
 * recording's clock and start, then asked about exits: one predicate, so the summary,
 * rows, event rows and dumps can never disagree. Plain struct, read-only once bound
 * (threads may share it).
 */
#ifndef VMT_FILTER_H
#define VMT_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "exitreason.h"
#include "kvmevent.h"
#include "tclock.h"

#define VMT_MAX_FILTER_REASONS 64

struct vmt_filter {
	struct vmt_cpulist cpus;	/* pCPU of the exit; empty: all */
	struct vmt_cpulist vcpus;	/* empty: all */
	int32_t *tids;			/* tasks (--vm's vCPU threads), sorted; NULL: all */
	unsigned int ntids;
	/*
	 * vcpus by the VM map's index (events without a vCPU id, a recording with a map):
	 * the threads the map gives those indices, sorted
	 */
	int32_t *vcpu_tids;
	unsigned int nvcpu_tids;
	bool vcpus_by_map;
	unsigned int nreasons;		/* 0: all */
	uint32_t reason_isa[VMT_MAX_FILTER_REASONS];	/* VMT_ISA_ANY matches either */
	uint64_t reason_key[VMT_MAX_FILTER_REASONS];
	uint64_t from_ns, to_ns;	/* exit time since the recording's start */
	bool has_from, has_to;
	/* set by vmt_filter_bind(): the time range in trace clock units, absolute */
	uint64_t from_ts, to_ts;
};

/* Whether the filter selects everything. */
bool vmt_filter_is_empty(const struct vmt_filter *f);
/* Bind the time range to a recording's clock and start (its first page). */
void vmt_filter_bind(struct vmt_filter *f, const struct vmt_clock *clock, uint64_t start_ts);

/*
 * Whether the exit counts. entry is its entry when it has one (its vCPU stands in when the
 * exit does not carry one), else NULL. A NULL filter keeps everything.
 */
bool vmt_filter_exit_slow(const struct vmt_filter *f, const struct vmt_event *exit,
			  const struct vmt_event *entry);
static inline bool vmt_filter_exit(const struct vmt_filter *f, const struct vmt_event *exit,
				   const struct vmt_event *entry)
{
	return !f || vmt_filter_exit_slow(f, exit, entry);
}

/*
 * Whether an event counts on its own (event rows, dumps): an exit or an entry that
 * completed a pair is judged by the pair's exit (so --reason keeps the entries of the
 * exits it keeps); an entry without its exit by its own CPU, vCPU and time (a reason
 * filter then leaves it out: it has no reason).
 */
bool vmt_filter_event(const struct vmt_filter *f, const struct vmt_event *ev,
		      const struct vmt_event *pair_exit);

void vmt_filter_free(struct vmt_filter *f);

#endif
