/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * summary: the statistics consumer of the pass (iterate.h). From the pairs the filter keeps
 * it builds every figure of the report: latency distributions with percentiles overall,
 * per exit reason, per pCPU and per vCPU task, each task's worst sliding window, the
 * longest exits and per-pCPU histograms. Memory grows with tasks, CPUs and reasons, never
 * with events. Values stay in trace clock units; renderers (reportfmt.h) convert. The
 * summary belongs to the thread that runs the pass.
 */
#ifndef VMT_SUMMARY_H
#define VMT_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "attrib.h"
#include "exitreason.h"
#include "iterate.h"
#include "latstat.h"
#include "pairing.h"
#include "reader.h"
#include "vmreason.h"

#define VMT_DEFAULT_WINDOW_NS 1000000ULL

struct vmt_summary_opts {
	uint64_t window_ns;		/* sliding window of the cumulative latency */
	unsigned int top_n;		/* longest exits kept */
	bool histogram;
	uint64_t hist_bucket_ns;	/* linear bucket width */
	unsigned int hist_buckets;	/* buckets before the overflow one */
	bool hist_log;			/* log2 buckets instead of linear */
	/*
	 * A recording's VM map (vmfind.h), or NULL: with one, the exits per VM and reason too
	 * (vmreasons), for OpenMetrics. Read only; the caller keeps it past the summary's end.
	 */
	const struct vmt_vmmap *vmmap;
};

/* One group of exits: all, one reason, one pCPU or one task. */
struct vmt_group {
	uint32_t isa;
	uint64_t key;			/* reason key, CPU number, or vmt_pairing_task_key() */
	int32_t pid;
	uint32_t vcpu;
	bool has_vcpu;
	struct vmt_latdist d;		/* trace clock units */
	uint64_t max_window_sum, max_window_at;
	uint64_t first_ts, last_ts;	/* tasks: first exit, last entry */
	/*
	 * Tasks: struct vmt_pair's unknown at the first and the last pair: the time between,
	 * hi - lo, lies between those pairs where its events may have been lost (a gap).
	 */
	uint64_t unknown_lo, unknown_hi;
	uint64_t gaps;			/* pCPUs: lost-events gaps there (flagged, damaged) */
	struct vmt_whysum why;		/* where the time went (when attributed) */
	/* tasks: the name the context events gave the pid last (commtab.h), "" if none */
	char comm[VMT_CTX_COMM_LEN];
	bool has_window_why;		/* tasks: window_why is the worst window's breakdown */
	struct vmt_why window_why;
};

struct vmt_top {
	struct vmt_event exit;
	uint64_t lat;
	uint32_t entry_cpu;
	bool has_why;
	struct vmt_why why;
};

/* The rows of exits open at the stop the text and the HTML page list (--json: all). */
#define VMT_SUMMARY_OPEN_ROWS 3

/* An exit still open at the stop (struct vmt_open_exit): no latency, in no statistics. */
struct vmt_open {
	struct vmt_event exit;
	uint64_t open;			/* trace clock units: from the exit to the recording's end */
	bool lost_since;		/* its pCPU lost events after it */
	bool lost_unplaced;		/* or lost events no page places (vmt_open_exit) */
	bool has_why;
	char comm[VMT_CTX_COMM_LEN];	/* its task's name from the context events, or "" */
	struct vmt_why why;		/* its time so far (vmt_attrib_open) */
};

struct summary_work;

struct vmt_summary {
	/* the pass's totals, copied at its end */
	uint64_t events, other_records, bad_records, filtered_out;
	uint64_t start_ts;		/* the recording's first page */
	uint64_t first_ts, last_ts;	/* first and last event */
	struct vmt_pairing_stats pairing;
	struct vmt_reader_stats rd;
	uint64_t lost_events, lost_stats;
	bool lost_stats_known;
	/*
	 * Lost events nobody counted (struct vmt_lost): lost_events is then a lower bound.
	 * Damaged blocks, chunks and pages; flagged pages without a count.
	 */
	uint64_t lost_damaged, lost_uncounted;
	uint64_t lost_holes;	/* of lost_damaged: chunks a copy left out (struct vmt_lost) */
	bool lost_end_unknown;		/* vmt_lost.end_unknown */
	/* vmt_lost.unread (in lost_events), unread_known, drain_cut */
	uint64_t lost_unread;
	bool lost_unread_known, drain_cut;
	/*
	 * A --from/--to window (lost_window): the losses of unknown time it kept in
	 * lost_events, as they can lie inside it (the ring-buffer statistics' count beyond the
	 * pages', known per CPU only; unread events kept), and the unread events it left out
	 * (left on CPUs whose last record read lies after --to, so after the window).
	 */
	bool lost_window;
	uint64_t lost_unknown_kept, lost_unread_after;
	/*
	 * With a --from/--to filter: the counts flagged pages store of the gaps that can lie
	 * in the window (from the CPU's item before the gap to the page's time), which stand
	 * for the pages' counts in lost_events; the pCPUs' gaps are those gaps too.
	 */
	uint64_t lost_pages_window;
	/* the figures */
	struct vmt_latdist all;		/* trace clock units */
	struct vmt_latstat lat;		/* all.st */
	uint64_t window;		/* trace clock units: the shortest reaching window_ns */
	uint64_t window_ns;		/* as asked for */
	uint64_t max_window_sum, max_window_at;
	int32_t max_window_pid;
	struct vmt_exitreasons *names;
	struct vmt_group *reasons;	/* most total time first */
	size_t nreasons;
	struct vmt_vmreasons vmreasons;	/* with opts.vmmap: per VM and reason, by VM */
	struct vmt_group *cpus;		/* by CPU number */
	size_t ncpus;
	struct vmt_group *tasks;	/* vCPU threads, most pairs first */
	size_t ntasks;
	struct vmt_top *top;		/* longest first */
	unsigned int ntop;
	/*
	 * The exits still open at the stop that the filters keep, longest open first; the
	 * recording's end they were open until (vmt_iter_open_until()), and whether that is
	 * the stop the file gives (else its last record).
	 */
	struct vmt_open *open;		/* the text and the page list VMT_SUMMARY_OPEN_ROWS */
	size_t nopen, open_cap;
	uint64_t open_until;
	bool open_until_stop;
	uint64_t *hist;			/* [hist_ncpus][hist_buckets + 1], the last one overflow */
	uint32_t *hist_cpu;
	unsigned int hist_ncpus, hist_buckets;
	uint64_t hist_bucket;		/* trace clock units; log: 0 */
	bool hist_log;
	/* attribution (iterate.h): false when the pass did not attribute */
	bool why;
	uint32_t why_recorded;		/* 1 << enum vmt_why_kind the recording can tell */
	unsigned int context_formats;
	struct vmt_attrib_stats why_stats;
	struct vmt_whysum why_all;
	struct vmt_culprits *culprits;	/* tasks and interrupts that took the most time */
	struct summary_work *work;	/* the consumer's working state during the pass */
};

/*
 * Prepare s (zeroed here) and a consumer that fills it during vmt_iterate(). Returns 0 or
 * -ENOMEM; vmt_summary_free() afterwards either way.
 */
int vmt_summary_consumer(struct vmt_summary *s, const struct vmt_summary_opts *o,
			 struct vmt_consumer *out);
void vmt_summary_free(struct vmt_summary *s);
/*
 * Time slices (slicepass.h). vmt_summary_slice(), after vmt_summary_consumer() and before
 * the pass, makes s the summary of one slice: its pass leaves it unfinished, to be merged.
 * vmt_summary_merger() makes s (zeroed here) the summary the slices merge into, in time
 * order: first the pairs the slice completes with a begin of an earlier slice
 * (vmt_summary_merge_pair), then the slice (vmt_summary_merge, which empties from; join is
 * the pairing that joined the slice, whose unknown bases its tasks' figures take); then
 * vmt_summary_merge_end() finishes it as a pass would have, it holding the whole pass's
 * totals. The figures are the same as one pass's over the whole recording. Without
 * attribution only. All return 0 or -ENOMEM; vmt_summary_merge() returns 1 when the
 * slices cannot stand for one pass: the pids the context events name reach
 * VMT_COMMTAB_MAX, where one pass keeps its tasks' names alone (summary.c) at a moment
 * the slices do not see.
 */
int vmt_summary_slice(struct vmt_summary *s);
/* The options s was made with. */
const struct vmt_summary_opts *vmt_summary_options(const struct vmt_summary *s);
int vmt_summary_merger(struct vmt_summary *s, const struct vmt_summary_opts *o,
		       const struct vmt_iter *it);
int vmt_summary_merge_pair(struct vmt_summary *into, const struct vmt_iter *it,
			   const struct vmt_pair *p);
int vmt_summary_merge(struct vmt_summary *into, struct vmt_summary *from,
		      const struct vmt_pairing *join);
int vmt_summary_merge_end(struct vmt_summary *s, const struct vmt_iter *it);
/*
 * The figures of s so far, during the pass it is fed by (between two items, on the thread
 * of the pass), as a finished summary in out with copies of its own (vmt_summary_free()
 * it, also on failure): counts, distributions per reason, pCPU and task, windows, longest
 * exits; no histogram, no attribution, and orphans only at the end (pairing.pairs is the
 * pairs so far). Returns 0 or -ENOMEM.
 */
int vmt_summary_snapshot(const struct vmt_summary *s, const struct vmt_iter *it,
			 struct vmt_summary *out);
/*
 * An exit still open at the stop into s's list (the consumer's open callback, or the merge
 * of slices for the one the last slice left open). Returns 0 or -ENOMEM.
 */
int vmt_summary_add_open(struct vmt_summary *s, const struct vmt_open_exit *x);
uint64_t vmt_summary_orphans(const struct vmt_summary *s);
/* Whether lost_events is all of the lost events (none went uncounted). */
static inline bool vmt_summary_lost_exact(const struct vmt_summary *s)
{
	return !s->lost_damaged && !s->lost_uncounted && !s->lost_end_unknown;
}
/*
 * A vCPU task's share of time in the guest, in %: 100 x (1 - its out-of-guest time / the
 * span from its first exit to its last entry, less the time in which its events may have
 * been lost (vmt_summary_unknown): there it was neither in the guest nor out of it as far
 * as anyone knows). The same for every input format: it needs nothing but the task's own
 * events and the gaps.
 */
double vmt_summary_in_guest(const struct vmt_group *t);
/*
 * Whether that share measures anything: a task of one exit (in the selection) has a span
 * that is the exit itself, with no time in the guest in it, and one whose span is all
 * unknown has none either; their share is shown as not known ("-", null), not as 0 %.
 */
bool vmt_summary_in_guest_known(const struct vmt_group *t);
/* That time of task t, in trace clock units (0 without gaps). */
uint64_t vmt_summary_unknown(const struct vmt_group *t);
/* "NAME(0xCODE)", or "0xCODE" when no table knows it; into buf. */
const char *vmt_summary_reason(const struct vmt_summary *s, uint32_t isa, uint64_t key,
			       char *buf, size_t size);

#endif
