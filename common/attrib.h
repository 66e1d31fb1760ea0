/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * attrib: "why was it long" - partitions the time of every exit (kvm_exit to the next
 * kvm_entry of its task) into kinds (host kernel, user space, preempted, blocked, wake-up
 * latency, irq, softirq, nmi) and named parts that add up exactly to the latency, from the
 * context events fed in timestamp order. A struct vmt_attrib is one consumer's state (one
 * per thread); it owns its memory. Also: the worst-window breakdown (vmt_whywin) and the
 * aggregates a report needs (vmt_whysum, vmt_culprits). None of it is thread-safe.
 */
#ifndef VMT_ATTRIB_H
#define VMT_ATTRIB_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctxevent.h"
#include "kvmevent.h"
#include "latstat.h"

enum vmt_why_kind {
	VMT_WHY_KVM,		/* the task in the host kernel handling the exit (the rest) */
	VMT_WHY_USERSPACE,	/* the VMM in user space (kvm_userspace_exit .. KVM_RUN) */
	VMT_WHY_PREEMPTED,	/* runnable, another task on its CPU */
	VMT_WHY_BLOCKED,	/* asleep until its wake-up */
	VMT_WHY_WAKEUP,		/* woken, waiting to run */
	VMT_WHY_IRQ,		/* hard interrupt handlers (irq and x86 vectors) on its CPU */
	VMT_WHY_SOFTIRQ,
	VMT_WHY_NMI,
	VMT_WHY_NKINDS
};

/*
 * A bit of vmt_attrib_opts.recorded and vmtrace-report's recorded kinds past the kinds': the
 * host interrupt handlers before an exit's begin event are measured (struct vmt_why's
 * before): a KVM pair with irq, vector or softirq events.
 */
#define VMT_WHY_REC_BEFORE (1u << 8)
_Static_assert(VMT_WHY_NKINDS <= 8, "VMT_WHY_REC_BEFORE is past the kinds' bits");

/* "kvm", "userspace", "preempted", "blocked", "wakeup", "irq", "softirq", "nmi" */
extern const char *const vmt_why_kind_names[VMT_WHY_NKINDS];

#define VMT_WHY_MAXPARTS 16
#define VMT_WHY_NAME_LEN 32
/* A blocked part's name when the wake-up was not on a traced CPU (and no event was lost). */
#define VMT_WHY_UNTRACED_WAKER "a CPU not traced"

/* The pid of a kind's "other" part: the parts merged past VMT_WHY_MAXPARTS. */
#define VMT_WHY_PID_OTHER (-2)

struct vmt_whypart {
	uint64_t ticks;		/* never 0 */
	int32_t pid;		/* a task (preempted by, woken by, waited behind), -1, PID_OTHER */
	uint8_t kind;		/* enum vmt_why_kind */
	/*
	 * comm of the task ("" when unknown), IRQ handler name, vector name ("local_timer"),
	 * softirq name ("net_rx"), user-space exit reason ("IO", "MMIO", "HLT"), the
	 * interrupt a wake-up came from, "nmi", "other" (parts merged past
	 * VMT_WHY_MAXPARTS), "" for kvm
	 */
	char name[VMT_WHY_NAME_LEN];
};

struct vmt_why {
	uint64_t ticks[VMT_WHY_NKINDS];	/* trace-clock ticks per kind; sum = end - begin */
	/*
	 * Of ticks[VMT_WHY_KVM], the ticks whose nature is not known (incomplete only; 0 in
	 * a worst window's breakdown, which keeps the mark only): kvm time, not kvm's own.
	 */
	uint64_t unknown;
	/*
	 * Outside the parts (not in ticks[], not in the latency): ticks of the outermost host
	 * interrupt handlers (irq, vector, softirq) on the CPU of the task's previous kvm_entry
	 * that interrupted the task after that entry, before this exit's kvm_exit. Some
	 * kernels (AMD, Linux 6.1) trace kvm_exit only after the host handled the interrupt
	 * that made the exit: the guest was out, the events say it was in. 0 when not measured
	 * (recorded without VMT_WHY_REC_BEFORE) and in a worst window's breakdown.
	 */
	uint64_t before;
	bool incomplete;	/* events lost or an impossible order: unknown time went to kvm */
	/*
	 * All kvm: at most one part, kvm's (pid -1, no name), the other kinds 0 - what most
	 * exits are. false says nothing (a why made elsewhere may be all kvm too).
	 */
	bool plain;
	uint8_t nparts;
	/* index of the largest part but kvm and "other" parts (the first on ties), or -1 */
	int8_t culprit;
	struct vmt_whypart parts[VMT_WHY_MAXPARTS];	/* sum = end - begin too */
};

static inline const struct vmt_whypart *vmt_why_culprit(const struct vmt_why *w)
{
	return w->culprit >= 0 ? &w->parts[w->culprit] : NULL;
}

/* One stretch of an exit's time: [start, end) belongs to parts[part]. */
struct vmt_whyseg {
	uint64_t start, end;
	uint8_t kind;
	uint8_t part;
};

/*
 * Which kinds of time (1 << enum vmt_why_kind) the events bound in b can tell, and
 * VMT_WHY_REC_BEFORE with handler events (the caller clears it for a pair not KVM's).
 */
uint32_t vmt_attrib_recorded(const struct vmt_ctxbind *b);

struct vmt_attrib_opts {
	/* vmt_attrib_recorded(): without wake-up events, blocked lasts until the switch-in */
	uint32_t recorded;
	/*
	 * nmi_handler's delta_ns -> ticks: ticks = ns * tick_mul / tick_div (1/1 for the ns
	 * clocks). tick_div 0: the scale is unknown, NMIs stay in the part they interrupted.
	 */
	uint64_t tick_mul, tick_div;
	bool segments;		/* keep every exit's segments for vmt_attrib_segments() */
	/*
	 * The ring buffers' statistics say every lost event is on a page's flag, so fed as a
	 * gap (vmt_attrib_gap) after it: a sleeper switched in without its wake-up and no gap
	 * since it went to sleep was woken from a CPU not traced. Else (unknown, or losses no
	 * page reports) that wake-up may be among the lost events.
	 */
	bool no_loss;
};

/* Everything recorded, ns clock, no segments. */
void vmt_attrib_opts_default(struct vmt_attrib_opts *o);

struct vmt_attrib_stats {
	uint64_t exits;		/* results returned */
	uint64_t detailed;	/* of which had a context event inside */
	uint64_t incomplete;
	uint64_t unmatched;	/* vmt_attrib_end without the matching vmt_attrib_begin */
	uint64_t stale_frames;	/* interrupt frames dropped at a switch, a begin or a gap */
	uint64_t bad_cpu;	/* events of a CPU >= VMT_ATTRIB_MAX_CPUS, ignored */
};

#define VMT_ATTRIB_MAX_CPUS 8192
#define VMT_ATTRIB_MAX_NEST 8	/* interrupt frames kept per CPU */

struct vmt_attrib;

/* NULL with errno set. */
struct vmt_attrib *vmt_attrib_new(const struct vmt_attrib_opts *opts);
void vmt_attrib_free(struct vmt_attrib *a);
/*
 * Feed, in timestamp order, with the begin/end events and gaps of the same walk:
 * a context event; the begin (kvm_exit) of the measured pair as it comes; when the pairing
 * completes a pair, its begin and end (*out filled: always, even when incomplete); an end
 * that completed no pair (optional: it only frees the task's state sooner); lost events
 * on cpu just before the events fed next. Each returns 0 or -ENOMEM (then the state of
 * that event is lost: the exits it touched are incomplete).
 */
int vmt_attrib_context(struct vmt_attrib *a, const struct vmt_ctxev *ev);
int vmt_attrib_begin(struct vmt_attrib *a, const struct vmt_event *begin);
int vmt_attrib_end(struct vmt_attrib *a, const struct vmt_event *begin,
		   const struct vmt_event *end, struct vmt_why *out);
void vmt_attrib_drop(struct vmt_attrib *a, const struct vmt_event *end);
int vmt_attrib_gap(struct vmt_attrib *a, uint32_t cpu);
/*
 * After the last event: the time so far of an exit still open (begin, its kvm_exit, never
 * entered), from its begin to until (the recording's end), into *out as vmt_attrib_end
 * would give it had its entry come then: the part it is in when the events stop runs to
 * until (blocked by no waker when still asleep, wake-up latency behind no named holder
 * when woken and waiting). Closes that exit (not counted in the statistics). Returns 0.
 */
int vmt_attrib_open(struct vmt_attrib *a, const struct vmt_event *begin, uint64_t until,
		    struct vmt_why *out);
/*
 * With opts.segments: the segments of the exit vmt_attrib_end returned last, in time order,
 * contiguous from its begin to its end, part indices into that vmt_why. Valid until the
 * next call on a. *n = 0 for a 0-tick exit.
 */
const struct vmt_whyseg *vmt_attrib_segments(const struct vmt_attrib *a, uint32_t *n);
/*
 * Where vmt_attrib_segments() reads: *buf and *n hold what it would return, until a is
 * freed. For the pass, which takes the segments at every exit, without a call.
 */
void vmt_attrib_segments_at(const struct vmt_attrib *a, struct vmt_whyseg *const **buf,
			    const uint32_t **n);
const struct vmt_attrib_stats *vmt_attrib_stats(const struct vmt_attrib *a);

/*
 * The worst window of one task, broken down: holds the struct vmt_window (latstat.h) of the
 * same intervals (win: read the plain maximum there) and reaches the same max_sum and
 * max_at; whenever the maximum grows, the window [max_at, max_at + window) is broken down
 * into max_why (segments clipped to it). An interval that is all kvm and complete costs
 * only the plain window's update; the ring keeps the others (segments of another kind,
 * incomplete, or without segments), and the breakdown walks it with the plain window's
 * ring. Memory: the intervals and segments inside one window. Owned by the caller.
 */
struct vmt_whywin {
	uint64_t window;
	struct vmt_window win;		/* every interval: the plain maximum */
	struct vmt_whywin_iv *iv;	/* ring of the intervals that are not plain kvm */
	uint32_t ihead, ilen, icap;
	struct vmt_whywin_seg *sg;	/* ring of the segments of intervals that have them */
	uint32_t shead, slen, scap;
	uint64_t max_sum, max_at;	/* = win's, kept with max_why */
	struct vmt_why max_why;
	void *acc;		/* scratch */
	uint64_t bad_segs;	/* intervals whose segments did not tile them: counted as kvm */
};

int vmt_whywin_init(struct vmt_whywin *w, uint64_t window);
void vmt_whywin_free(struct vmt_whywin *w);
/* vmt_whywin_add's other paths, out of line: the interval is not plain kvm; the max grew. */
int vmt_whywin_add_kept(struct vmt_whywin *w, uint64_t start, uint64_t end,
			const struct vmt_why *why, const struct vmt_whyseg *segs, uint32_t nsegs);
void vmt_whywin_grew(struct vmt_whywin *w);

/*
 * One interval [start, end] with its why and segments (from vmt_attrib_end and
 * vmt_attrib_segments); why NULL or nsegs 0: all kvm. Also adds it to w->win (do not add
 * it there again). Returns 0 or -ENOMEM. Inline: once per exit, and most exits are plain
 * kvm (one kvm segment over the whole), which cost only the plain window's update.
 */
static inline int vmt_whywin_add(struct vmt_whywin *w, uint64_t start, uint64_t end,
				 const struct vmt_why *why, const struct vmt_whyseg *segs,
				 uint32_t nsegs)
{
	uint64_t max = w->win.max_sum;

	if (!why || !why->plain || why->incomplete || nsegs != 1 || end <= start ||
	    segs[0].start != start || segs[0].end != end || segs[0].part != 0 ||
	    segs[0].kind != VMT_WHY_KVM)
		return vmt_whywin_add_kept(w, start, end, why, segs, nsegs);
	if (!w->acc || vmt_window_add(&w->win, start, end))
		return -ENOMEM;
	if (w->win.max_sum > max)
		vmt_whywin_grew(w);
	return 0;
}

/* Totals per kind, e.g. per exit reason. */
struct vmt_whysum {
	uint64_t count, incomplete;
	uint64_t ticks[VMT_WHY_NKINDS];
	uint64_t unknown;	/* of ticks[VMT_WHY_KVM], incomplete exits' unknown time */
	uint64_t before, before_n;	/* struct vmt_why's before: its sum, the exits with any */
	/*
	 * Of the exits with any: the longest time out of the guest, latency and before
	 * (ticks), and that exit's latency; 0: none
	 */
	uint64_t before_max, before_max_lat;
};

/* An exit with host interrupts before it: the longest out of the guest so far? */
static inline void vmt_whysum_before_max(struct vmt_whysum *s, uint64_t out, uint64_t lat)
{
	if (out > s->before_max || (out == s->before_max && lat > s->before_max_lat)) {
		s->before_max = out;
		s->before_max_lat = lat;
	}
}

typedef uint64_t vmt_whysum_u64x2 __attribute__((vector_size(16)));
_Static_assert(VMT_WHY_NKINDS % 2 == 0, "vmt_whysum_add adds the kinds two at a time");

/*
 * Per exit that is not plain when the pass attributes (task, reason; summary.c adds the
 * plain ones at the end): two kinds per add (the plain loop stayed a scalar loop at -O2).
 * memcpy: the arrays are only 8-byte aligned. A plain why adds its kvm time only.
 */
static inline void vmt_whysum_add(struct vmt_whysum *s, const struct vmt_why *w)
{
	unsigned int k;

	s->count++;
	s->incomplete += w->incomplete;
	s->unknown += w->unknown;
	s->before += w->before;
	s->before_n += w->before != 0;
	if (__builtin_expect(w->before != 0, 0)) {
		uint64_t lat = 0;

		for (k = 0; k < VMT_WHY_NKINDS; k++)
			lat += w->ticks[k];
		vmt_whysum_before_max(s, lat + w->before, lat);
	}
	if (w->plain) {
		s->ticks[VMT_WHY_KVM] += w->ticks[VMT_WHY_KVM];
		return;
	}
	for (k = 0; k < VMT_WHY_NKINDS; k += 2) {
		vmt_whysum_u64x2 a, b;

		__builtin_memcpy(&a, &s->ticks[k], sizeof(a));
		__builtin_memcpy(&b, &w->ticks[k], sizeof(b));
		a += b;
		__builtin_memcpy(&s->ticks[k], &a, sizeof(a));
	}
}

static inline void vmt_whysum_merge(struct vmt_whysum *into, const struct vmt_whysum *from)
{
	unsigned int k;

	into->count += from->count;
	into->incomplete += from->incomplete;
	into->unknown += from->unknown;
	into->before += from->before;
	into->before_n += from->before_n;
	vmt_whysum_before_max(into, from->before_max, from->before_max_lat);
	for (k = 0; k < VMT_WHY_NKINDS; k++)
		into->ticks[k] += from->ticks[k];
}

/*
 * The culprit table: every part other than kvm of every exit, keyed by kind, pid and comm
 * (tasks: the name the exits give it) or name, with the exits it appeared in, its total
 * and its largest share of one exit.
 * At most max_rows keys: when full, the quarter with the least time is merged into the
 * per-kind "other" rows (VMT_WHY_PID_OTHER) to make room, so the largest stay exact (one
 * merged that comes back starts anew: its total is then a lower bound).
 */
struct vmt_culprit {
	uint8_t kind;
	int32_t pid;
	char name[VMT_WHY_NAME_LEN];
	uint64_t count, total, max;
};

struct vmt_culprits;

struct vmt_culprits *vmt_culprits_new(uint32_t max_rows);
void vmt_culprits_free(struct vmt_culprits *t);
int vmt_culprits_add(struct vmt_culprits *t, const struct vmt_why *w);
/* Adds from's rows (max of maxima). */
int vmt_culprits_merge(struct vmt_culprits *into, const struct vmt_culprits *from);
/* How many rows were merged into "other" to make room (0: every total is exact). */
uint64_t vmt_culprits_evicted(const struct vmt_culprits *t);
/* The rows, by total (largest first, then kind, pid, name); valid until the next call. */
size_t vmt_culprits_rows(struct vmt_culprits *t, const struct vmt_culprit **rows);

#endif
