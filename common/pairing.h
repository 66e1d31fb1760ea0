/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pairing: matches each begin event (kvm_exit) with the next end event (kvm_entry) of the
 * same task, across CPUs, in timestamp order. A pair never spans a lost-events gap on the
 * CPU of either event; unmatched events are counted, never guessed; the time such gaps hid
 * from each task is kept (struct vmt_pair's unknown). Memory grows with the number of
 * tasks and CPUs (a CPU's holes, at most 1024, are merged two by two beyond), not events
 * or gaps. One struct vmt_pairing per thread.
 */
#ifndef VMT_PAIRING_H
#define VMT_PAIRING_H

#include <stdbool.h>
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
	/*
	 * The task's time so far in which its events may have been lost: between two
	 * consecutive events of the task with lost-events gaps on the CPU of either between
	 * them, the part of that span inside those gaps' holes (vmt_pairing_gap), every one.
	 * Trace clock units, a running total; the same at the pair's begin and end, which no
	 * gap separates. What lies between two pairs' values was not seen, in the guest or out
	 * of it.
	 */
	uint64_t unknown;
};

/*
 * The holes the pairing keeps, over all CPUs: at most 1024 a CPU (merged beyond, see
 * pairing.c), whatever the number of gaps. For the tests of that bound.
 */
struct vmt_pairing;
size_t vmt_pairing_holes_kept(const struct vmt_pairing *p);

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

/*
 * What a pairing fed one time slice of a recording leaves at its edges (slicepass.h), in
 * the order it happened: each lost-events gap, and each task's first event in the slice
 * (a begin, or an end counted as an orphan that a begin of an earlier slice may match).
 * At the end, every task the slice saw, with its begin still open if any (counted as
 * unfinished). Owned by the caller (vmt_pairing_edges_free).
 */
enum vmt_edge_kind {
	VMT_EDGE_GAP = 1,
	VMT_EDGE_HEAD_BEGIN,
	VMT_EDGE_HEAD_END,
};

struct vmt_edge {
	enum vmt_edge_kind kind;
	uint32_t cpu;		/* VMT_EDGE_GAP, with its hole: */
	uint64_t from, until;
	uint64_t key;		/* VMT_EDGE_HEAD_*: the task (vmt_pairing_task_key) */
	struct vmt_event ev;	/* VMT_EDGE_HEAD_*: the event (ts and cpu for a begin) */
};

struct vmt_edge_tail {
	uint64_t key;
	bool open;		/* its begin waits for an end of a later slice */
	uint64_t epoch;		/* gaps of the slice before that begin */
	struct vmt_event begin;
	/* the task's last event in the slice, the gaps before it, its unknown time there */
	uint64_t last_ts, last_epoch, unknown;
	uint32_t last_cpu;
};

struct vmt_pairing_edges {
	struct vmt_edge *log;
	size_t nlog, cap;
	struct vmt_edge_tail *tails;
	size_t ntails;
};

void vmt_pairing_edges_free(struct vmt_pairing_edges *e);
/* A task's identity: its pid, but each CPU's idle task (pid 0) is its own. */
uint64_t vmt_pairing_task_key(const struct vmt_event *ev);

struct vmt_pairing;

struct vmt_pairing *vmt_pairing_new(vmt_pair_fn fn, void *arg);
/*
 * Log the slice's edges into e (empty, the caller's) from now on; vmt_pairing_finish()
 * adds the tails. Returns 0.
 */
int vmt_pairing_log_edges(struct vmt_pairing *p, struct vmt_pairing_edges *e);
/*
 * Join slices: p, a pairing of its own fed no events, takes each slice's edges in time
 * order and matches them with the begins the slices before left open, by the rules above:
 * its callback gets the pairs that span slices, its statistics count them (pairs,
 * gap_dropped, backwards), and *st, the sum of the slices' statistics, is corrected for
 * the ends and begins they counted as orphans or unfinished that were not. Returns 0 or
 * -ENOMEM.
 */
int vmt_pairing_join(struct vmt_pairing *p, const struct vmt_pairing_edges *e,
		     struct vmt_pairing_stats *st);
/*
 * After joining a slice: the unknown time (struct vmt_pair) of task key before its first
 * event in that slice, which the slice's own pairing counted from 0; 0 for a task the join
 * has not seen.
 */
uint64_t vmt_pairing_unknown_base(const struct vmt_pairing *p, uint64_t key);
/*
 * Where to decode the next event: fed to vmt_pairing_event(), a begin there is kept by
 * taking the buffer rather than by a copy (the task's previous one becomes the next
 * buffer). Valid until the next event.
 */
struct vmt_event *vmt_pairing_buffer(struct vmt_pairing *p);
/*
 * Feed events in timestamp order (ev anywhere, or p's buffer). Returns 0 or -ENOMEM; with
 * no callback (fn NULL), 1 when ev completed a pair, which vmt_pairing_last() then holds:
 * the caller's own code runs without a call through a pointer per exit.
 */
int vmt_pairing_event(struct vmt_pairing *p, const struct vmt_event *ev);
/* The pair the latest event completed (valid as above). */
const struct vmt_pair *vmt_pairing_last(const struct vmt_pairing *p);
/*
 * Events were lost on cpu just before the events fed next: its events from time from
 * (its last one before) to until (where it is known again) may be missing (struct
 * vmt_item's gap_from and gap_until; 0 and UINT64_MAX: any time before).
 */
int vmt_pairing_gap(struct vmt_pairing *p, uint32_t cpu, uint64_t from, uint64_t until);
/*
 * Call fn with each begin still open that may yet pair: not one a lost-events gap on its
 * CPU already parted from its end (a live view shows exits in progress; unordered).
 */
void vmt_pairing_each_open(const struct vmt_pairing *p,
			   void (*fn)(const struct vmt_event *begin, void *arg), void *arg);
/*
 * Before vmt_pairing_finish(): call fn with each begin still open, every one that finish
 * counts as unfinished (unordered), and whether its CPU lost events since (lost_since: its
 * end may be among them). The report lists them as the exits open at the stop.
 */
void vmt_pairing_each_unfinished(const struct vmt_pairing *p,
				 void (*fn)(const struct vmt_event *begin, bool lost_since,
					    void *arg),
				 void *arg);
/* Count the begins still open as unfinished (and log the tails). Returns 0 or -ENOMEM. */
int vmt_pairing_finish(struct vmt_pairing *p);
const struct vmt_pairing_stats *vmt_pairing_stats(const struct vmt_pairing *p);
/* Free; ctx_free (may be NULL) is called with arg on every non-NULL task slot. */
void vmt_pairing_free(struct vmt_pairing *p, void (*ctx_free)(void *ctx, void *arg),
		      void *arg);

#endif
