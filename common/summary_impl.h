/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * summary_impl: the summary's working state, shared by summary.c (the consumer of one
 * pass) and summarymerge.c (a summary made of time slices' summaries, slicepass.h). Not
 * for other modules.
 */
#ifndef VMT_SUMMARY_IMPL_H
#define VMT_SUMMARY_IMPL_H

#include "commtab.h"
#include "summary.h"

struct vmt_interval {
	uint64_t start, end;
};

struct task {
	struct task *next;		/* every task, for the summary at the end */
	struct vmt_group g;
	struct vmt_window win;		/* without attribution */
	/* with it: the windows broken down, their plain window in whywin.win */
	struct vmt_whywin whywin;
	bool has_whywin;
	/*
	 * Most tasks keep to one pCPU: their pairs go to the pCPU's distribution only
	 * when the pass ends (one merge instead of an update per exit), until the task's
	 * first exit on another pCPU. Then the pairs so far are merged there and the task's
	 * later exits update their pCPU's distribution directly. Merging is exact
	 * (latstat.h), so the figures are the same either way.
	 */
	uint32_t home_cpu;		/* the pCPU of the task's first exit */
	bool migrated;
	uint64_t key;			/* vmt_pairing_task_key() */
	/* opts.vmmap: the map's VM of the task (its count: none), once vm_known */
	unsigned int vm;
	bool vm_known;
	/*
	 * A slice's summary (vmt_summary_slice): the intervals whose window may reach back
	 * before the task's first exit in the slice, where an earlier slice's intervals lie
	 * (its window's figures there lack them): all that end less than a window after that
	 * exit (head_from).
	 */
	uint64_t head_from;
	struct vmt_interval *heads;
	uint32_t nheads, heads_cap;
};

struct summary_work {
	struct vmt_summary_opts o;
	struct task *tasks;
	size_t ntasks;
	size_t *reason_slot;		/* open addressing over s->reasons */
	size_t reason_cap;		/* slots, a power of two */
	/*
	 * Index + 1 in s->reasons of the small codes of the usual ISAs, 0 when not seen:
	 * one load instead of a probe whose branches the mix of reasons keeps mispredicting.
	 */
	uint32_t *reason_direct;
	size_t reasons_alloc;
	size_t cpus_alloc;
	bool slice;			/* a time slice's summary, to merge (summarymerge.c) */
	bool owns_tasks;		/* a slice's or a merged one: freed with the summary */
	struct task **index;		/* a merged summary's tasks by key (open addressing) */
	size_t index_cap;
	struct vmt_commtab comms;	/* the tasks' names, from the context events */
	bool comms_full;		/* the tasks' names alone fill it (keep_task_names) */
};

const struct vmt_consumer_ops *vmt_summary_ops(void);
struct task *vmt_summary_new_task(struct vmt_summary *s, int32_t pid);
struct vmt_group *vmt_summary_cpu_group(struct vmt_summary *s, uint32_t cpu);
struct vmt_group *vmt_summary_reason_group(struct vmt_summary *s, uint32_t isa, uint64_t key);
int vmt_summary_hist_add(struct vmt_summary *s, uint32_t cpu, uint64_t lat);
int vmt_summary_hist_row(struct vmt_summary *s, uint32_t cpu);
void vmt_summary_top_insert(struct vmt_summary *s, const struct vmt_top *t);
void vmt_summary_task_free(struct task *t);

#endif
