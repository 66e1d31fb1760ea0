// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Design. Every open exit of a task T (from its kvm_exit at t0) has one current segment:
 * a start time and a key (kind, pid, name) saying where T's time goes now. Each event that
 * changes that closes the segment at its timestamp (its length goes to the key's part) and
 * opens the next one; the entry closes the last at t1. Segment boundaries only move
 * forward (an event stamped before the current segment's start is taken at that start), so
 * the parts add up to t1 - t0 exactly, by construction. An exit that no context event
 * touches never leaves the O(1) path: a begin stores t0, the end returns {kvm: t1 - t0}.
 *
 * T's state and what its time is:
 *   RUN (on CPU c): the innermost open interrupt frame on c (irq, vector, softirq), else
 *     userspace (after kvm_userspace_exit of T, until its KVM_RUN ioctl or the entry), else
 *     kvm. Nested frames: the innermost wins, each span counted once. An NMI (reported at
 *     its end with its length in ns) carves [ts - delta, ts] out of the current segment,
 *     clipped to the segment's start (so to the exit and the CPU's last boundary).
 *   PREEMPTED (switched out runnable from c): the task running on c, switch by switch.
 *   BLOCKED (switched out asleep): until sched_waking/sched_wakeup of T (the first; one
 *     stamped before the switch-out, even before the exit began, counts from it), then
 *     Named by the waker: the task that emitted the wake-up, or the innermost interrupt
 *     open on its CPU when common_flags say it came from an interrupt.
 *   WOKEN: until T is switched in on any CPU c. Named, at that switch-in, after what held
 *     c meanwhile, from c's history of holders (hist_push, wait_credit): the innermost
 *     interrupt frame open there, else the task, "idle" for the idle task; before c's
 *     first event, the task its first event names (a switch's prev);
 *     after lost events on c until its next event, not known (kvm, incomplete). Not the
 *     wake-up's target_cpu: sched_waking's is where T ran last (emitted before the kernel
 *     picks the CPU).
 *   LOST: where T is is unknown (see below): kvm, and the exit is incomplete.
 * Off-CPU time is only preempted, blocked or wakeup: interrupts elsewhere do not count.
 * Per CPU: the current task, the exit running there, the exits preempted off it or
 * waiting on it (intrusive lists), the stack of open interrupt frames. Per task: its open
 * exit (state, segment, the detail of its parts when it has more than kvm) in a dense
 * array with a hash index; a direct-mapped pid -> comm cache names the other tasks.
 *
 * Exact: the sums (in ticks), the order of events of one CPU, every span between two events
 * that were recorded. Approximate: events of different CPUs compared by their per-CPU
 * clocks (skew moves time between adjacent parts, never changes the sum); a preempted task
 * moved to another CPU's run queue meanwhile is named after its old CPU's tasks until the
 * old CPU's last switch before the move (migrations of waiting tasks are not recorded:
 * switched in elsewhere, its time since that switch is kvm, incomplete); time between an
 * NMI's handlers is not seen; the time
 * from an interrupt to its handler's entry event (and from its exit event to the return)
 * stays in the part it interrupted. Beyond VMT_WHY_MAXPARTS named parts, the smallest of a
 * kind are merged into its "other" part (never the culprit). While an exit goes on, at most
 * ACC_NAMED parts are told apart: a new one past those replaces the smallest if it is larger
 * (which goes to "other"), so a late large part keeps its name.
 * Before the exit (struct vmt_why's before, with VMT_WHY_REC_BEFORE): from a task's kvm_entry
 * until its next kvm_exit it is in the guest by its events, but an outermost interrupt
 * handler on the entry's CPU that interrupted it (the event's pid) shows the guest had
 * left already: the kernel traces kvm_exit after handling the interrupt that caused the exit
 * on some kernels (AMD, Linux 6.1). Those handlers' time (clipped to the entry) is the
 * exit's before, outside its parts. Lost events on that CPU (a gap) forget it; NMIs are not
 * counted (reported at their end, inside whatever they interrupted).
 * Not modelled: PREEMPT_RT's threaded softirqs (a softirq frame open at a switch looks
 * stale, so such an exit is incomplete).
 *
 * Incomplete: lost events (a gap) on T's CPU, or on the CPU it is switched in on while it
 * waits there; a second wake-up while it waits woken (it ran on a CPU not traced); a
 * switch-out or switch-in of T that contradicts its state; T's own user-space/KVM_RUN event or its entry
 * on a CPU where it was not running; interrupt frames left open at a switch or at the
 * entry, or an interrupt exit without its entry. The time since the last boundary (the
 * span whose nature is unknown) then goes to kvm, and the result says incomplete.
 * Memory: tasks, CPUs and one detail per exit with context inside it, all reused; no
 * allocation per exit in the steady state.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"

const char *const vmt_why_kind_names[VMT_WHY_NKINDS] = {
	"kvm", "userspace", "preempted", "blocked", "wakeup", "irq", "softirq", "nmi",
};

#define NONE UINT32_MAX
#define NK VMT_WHY_NKINDS
#define NAMELEN VMT_WHY_NAME_LEN
/* Parts of one exit before the "other" ones; NK more are kept for those. */
#define ACC_NAMED 40
#define ACC_CAP (ACC_NAMED + NK)
#define COMM_SLOTS 4096

_Static_assert(VMT_WHY_NKINDS == 8, "acc_fold reads struct acc's other[] as one word");

void vmt_attrib_opts_default(struct vmt_attrib_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->recorded = ~0u;
	o->tick_mul = 1;
	o->tick_div = 1;
}

/* ---- parts of one exit (or one window) ---- */

struct key {
	uint8_t kind;
	int32_t pid;
	char name[NAMELEN];
};

struct acc {
	uint64_t ticks[NK];
	uint32_t n;
	int8_t other[NK];	/* -1: none (acc_fold reads the NK as one word) */
	/* the last acc_find() moved part evicted into part evicted_to (NONE: it did not) */
	uint32_t evicted, evicted_to;
	struct vmt_whypart p[ACC_CAP];
};

static void acc_reset(struct acc *c)
{
	memset(c->ticks, 0, sizeof(c->ticks));
	memset(c->other, -1, sizeof(c->other));
	c->n = 0;
	c->evicted = NONE;
}

/* Copy a NUL-terminated name, cut to NAMELEN - 1 bytes. */
static void set_name(char *dst, const char *src)
{
	size_t n;

	for (n = 0; n < NAMELEN - 1 && src[n]; n++)
		dst[n] = src[n];
	dst[n] = '\0';
}

/*
 * strcmp() == 0 for the short names of parts (an IRQ handler's, a vector's): a loop is
 * cheaper than the library call, made once or twice per exit with an interrupt inside.
 */
static inline bool name_eq(const char *x, const char *y)
{
	while (*x && *x == *y) {
		x++;
		y++;
	}
	return *x == *y;
}

/* The index of kind's "other" part, made when it has none (there is room: NK slots). */
static uint32_t acc_other(struct acc *c, uint8_t kind)
{
	if (c->other[kind] < 0) {
		struct vmt_whypart *p = &c->p[c->n];

		p->kind = kind;
		p->pid = VMT_WHY_PID_OTHER;
		p->ticks = 0;
		set_name(p->name, "other");
		c->other[kind] = (int8_t)c->n;
		return c->n++;
	}
	return (uint32_t)c->other[kind];
}

/*
 * The part of k, which is about to be credited ticks. When ACC_NAMED parts have names, a new
 * one replaces the smallest named part (not kvm) if that is smaller than ticks: the
 * smallest goes to its kind's "other" (c->evicted says where, for the segments that point
 * to it); else the new one goes to its kind's "other" itself. So a late large part is kept
 * by name (a part credited again after its eviction starts anew: its earlier time stays in
 * "other").
 */
static uint32_t acc_find(struct acc *c, const struct key *k, uint64_t ticks)
{
	uint32_t i, small = UINT32_MAX, o;

	c->evicted = NONE;
	for (i = 0; i < c->n; i++) {
		struct vmt_whypart *p = &c->p[i];

		if (p->kind != k->kind || p->pid != k->pid)
			continue;
		if (k->pid >= 0) {
			/* a task: the first comm seen names it (it was unknown before) */
			if (!p->name[0] && k->name[0])
				set_name(p->name, k->name);
			return i;
		}
		if (name_eq(p->name, k->name))
			return i;
	}
	if (c->n < ACC_NAMED) {
		struct vmt_whypart *p = &c->p[c->n];

		p->kind = k->kind;
		p->pid = k->pid;
		p->ticks = 0;
		set_name(p->name, k->name);
		return c->n++;
	}
	for (i = 0; i < c->n; i++) {
		const struct vmt_whypart *p = &c->p[i];

		if (p->kind != VMT_WHY_KVM && p->pid != VMT_WHY_PID_OTHER &&
		    (small == UINT32_MAX || p->ticks < c->p[small].ticks))
			small = i;
	}
	/* kvm (the rest of the time) always has a part of its own */
	if (small == UINT32_MAX || (k->kind != VMT_WHY_KVM && c->p[small].ticks >= ticks))
		return acc_other(c, k->kind);
	o = acc_other(c, c->p[small].kind);
	c->p[o].ticks += c->p[small].ticks;
	/* the parts stay in the order they came (the culprit is the first on ties) */
	memmove(&c->p[small], &c->p[small + 1], (c->n - small - 1) * sizeof(c->p[0]));
	c->n--;
	for (i = 0; i < NK; i++)
		c->other[i] -= c->other[i] > (int8_t)small;
	c->evicted = small;
	c->evicted_to = o - (o > small);
	c->p[c->n].kind = k->kind;
	c->p[c->n].pid = k->pid;
	c->p[c->n].ticks = 0;
	set_name(c->p[c->n].name, k->name);
	return c->n++;
}

/* A part index from before acc_find() evicted one, after it. */
static uint32_t acc_moved(const struct acc *c, uint32_t part)
{
	if (part == NONE || c->evicted == NONE || part < c->evicted)
		return part;
	return part == c->evicted ? c->evicted_to : part - 1;
}

static void acc_add(struct acc *c, uint32_t part, uint64_t ticks)
{
	c->p[part].ticks += ticks;
	c->ticks[c->p[part].kind] += ticks;
}

static void why_culprit(struct vmt_why *w)
{
	uint64_t best = 0;
	unsigned int i;

	w->culprit = -1;
	for (i = 0; i < w->nparts; i++) {
		if (w->parts[i].kind != VMT_WHY_KVM && w->parts[i].pid != VMT_WHY_PID_OTHER &&
		    w->parts[i].ticks > best) {
			best = w->parts[i].ticks;
			w->culprit = (int8_t)i;
		}
	}
}

/*
 * Parts -> a vmt_why of at most VMT_WHY_MAXPARTS: the largest kept in their order, the rest
 * merged into one "other" part per kind. map[old] = new index when non-NULL.
 */
static void acc_fold(const struct acc *c, struct vmt_why *w, uint8_t *map)
{
	uint32_t order[ACC_CAP], i, j, k, keep = 0, ndropped[NK];
	bool kept[ACC_CAP];
	int otheridx[NK];

	memcpy(w->ticks, c->ticks, sizeof(w->ticks));
	w->plain = false;
	w->nparts = 0;
	if (c->n <= VMT_WHY_MAXPARTS) {
		uint64_t other;

		memcpy(&other, c->other, sizeof(other));
		if (other == UINT64_MAX) {
			/* all kept and no "other" part (most exits): what the loops below do */
			for (i = 0; i < c->n; i++) {
				if (!c->p[i].ticks)
					continue;
				if (map)
					map[i] = w->nparts;
				w->parts[w->nparts++] = c->p[i];
			}
			why_culprit(w);
			return;
		}
	}
	memset(kept, 0, sizeof(kept));
	if (c->n <= VMT_WHY_MAXPARTS) {
		for (i = 0; i < c->n; i++)
			kept[i] = true;
	} else {
		/* by ticks, largest first, stable */
		for (i = 0; i < c->n; i++) {
			for (j = i; j > 0 && c->p[order[j - 1]].ticks < c->p[i].ticks; j--)
				order[j] = order[j - 1];
			order[j] = i;
		}
		for (keep = VMT_WHY_MAXPARTS; keep > 0; keep--) {
			bool need[NK] = { false };
			uint32_t extra = 0;

			for (i = keep; i < c->n; i++) {
				uint8_t kd = c->p[order[i]].kind;
				int8_t o = c->other[kd];
				bool other_kept = false;

				for (j = 0; o >= 0 && j < keep; j++)
					other_kept |= order[j] == (uint32_t)o;
				if (!other_kept && !need[kd]) {
					need[kd] = true;
					extra++;
				}
			}
			if (keep + extra <= VMT_WHY_MAXPARTS)
				break;
		}
		for (i = 0; i < keep; i++)
			kept[order[i]] = true;
	}
	/*
	 * A kind with one dropped part keeps it under its own name (it takes the slot its
	 * "other" would); the others of a kind go to its "other" (a kept one, or a new one).
	 */
	memset(ndropped, 0, sizeof(ndropped));
	for (k = 0; k < NK; k++)
		otheridx[k] = -1;
	for (i = 0; i < c->n; i++) {
		if (!kept[i] && c->p[i].ticks)
			ndropped[c->p[i].kind]++;
		else if (kept[i] && c->other[c->p[i].kind] == (int8_t)i)
			ndropped[c->p[i].kind] += 2;
	}
	for (i = 0; i < c->n; i++) {
		if (c->p[i].ticks == 0 || (!kept[i] && ndropped[c->p[i].kind] != 1))
			continue;
		if (kept[i] && c->other[c->p[i].kind] == (int8_t)i)
			otheridx[c->p[i].kind] = w->nparts;
		if (map)
			map[i] = w->nparts;
		w->parts[w->nparts++] = c->p[i];
	}
	for (i = 0; i < c->n; i++) {
		uint8_t kd = c->p[i].kind;

		if (kept[i] || c->p[i].ticks == 0 || ndropped[kd] == 1)
			continue;
		if (otheridx[kd] < 0) {
			struct vmt_whypart *p = &w->parts[w->nparts];

			p->kind = kd;
			p->pid = VMT_WHY_PID_OTHER;
			p->ticks = 0;
			set_name(p->name, "other");
			otheridx[kd] = w->nparts++;
		}
		w->parts[otheridx[kd]].ticks += c->p[i].ticks;
		if (map)
			map[i] = (uint8_t)otheridx[kd];
	}
	why_culprit(w);
}

/* ---- the engine's state ---- */

enum { ST_NONE, ST_RUN, ST_PREEMPT, ST_BLOCK, ST_WOKEN, ST_LOST };
/* per CPU: runnable tasks preempted there; woken tasks queued there; the others */
enum { L_NONE, L_PREEMPT, L_WOKEN, L_WAIT, L_N };

struct detail {
	struct acc acc;
	struct vmt_whyseg *segs;
	uint32_t nsegs, capsegs;
	uint32_t last_part;	/* the part of segs[nsegs - 1] */
	uint32_t next_free;
};

struct task {
	int32_t pid;
	uint8_t st;
	uint8_t list;
	bool in_user, incomplete, uncertain;
	bool woke_waking;	/* WOKEN: by a sched_waking (a sched_wakeup may follow it) */
	uint64_t unknown;	/* ticks of this exit whose nature is not known (in kvm) */
	uint32_t cpu;		/* RUN: where; else the CPU whose list holds it */
	uint32_t lprev, lnext;
	uint32_t x;		/* detail, or NONE while all of it is kvm */
	uint32_t gaps_at_sleep;	/* BLOCK: the engine's gap count when it went to sleep */
	/*
	 * A wake-up stamped while it still ran (kind BLOCKED, the waker; else KVM): the waker
	 * emits sched_waking before the sleeper's own switch-out may be stamped.
	 */
	struct key early_waker;
	uint64_t t0, seg_start;
	/*
	 * After its kvm_entry on g_cpu at g_since (NONE: not since, or not known): g_ticks of
	 * handlers interrupting it there; before: g_ticks at its exit, for its why.
	 */
	uint32_t g_cpu;
	uint64_t g_since, g_ticks, before;
	const char *user_reason;
	char user_buf[24];	/* an exit reason past the names: "reason N" */
	struct key seg;		/* where the current segment's time goes */
};

enum { FR_IRQ, FR_VEC, FR_SOFTIRQ };

struct frame {
	uint8_t src;
	int32_t id;
	char name[NAMELEN];
};

struct cpu {
	int32_t curr;		/* -1: unknown */
	uint32_t running;	/* the task with an open exit running here, or NONE */
	uint32_t last_task;	/* the task of the last begin here (vCPUs are often pinned) */
	uint32_t head[L_N];
	uint8_t depth;
	uint32_t overflow;	/* frames past VMT_ATTRIB_MAX_NEST, popped first */
	struct frame st[VMT_ATTRIB_MAX_NEST];
	/* the outermost frame open interrupts a task in the guest: it (NONE: not), from g_start */
	uint32_t g_task;
	uint64_t g_start;
	/*
	 * Who held this CPU when (the occupants' history): a woken task's wait is charged,
	 * at its switch-in, to what ran on the CPU where it was switched in, which its
	 * wake-up does not say (sched_waking's target_cpu is the CPU it ran on last).
	 */
	struct hent *hist;
	uint32_t hhead, hlen, hcap;
	uint8_t hbefore;	/* HB_*: what is known before the first entry */
};

/* The occupant of a CPU from ts: an interrupt frame (pid -1, its name), idle (0), a task. */
struct hent {
	uint64_t ts;
	int32_t pid;
	char name[NAMELEN];
};

/* Before a CPU's first history entry: nothing yet (the first event tells), or lost. */
enum { HB_START, HB_LOST, HB_KNOWN };
#define HIST_MIN 64
#define HIST_MAX 8192

struct early {
	int32_t pid;
	struct key waker;
};

struct comm {
	int32_t pid;
	char comm[VMT_CTX_COMM_LEN];
};

struct vmt_attrib {
	struct vmt_attrib_opts o;
	struct task *tasks;
	uint32_t ntasks, captasks;
	uint32_t *index;	/* open addressing: task index + 1, 0 empty */
	uint32_t capindex;
	uint32_t last;		/* the task looked up last */
	struct cpu *cpus;
	uint32_t ncpus;
	struct detail *det;
	uint32_t ndet, capdet, free_det;
	struct comm *comms;
	/*
	 * Wake-ups of tasks without an open exit (pid 0: none), for their next switch-out: a
	 * waker's event stamped by its own CPU's clock a little before the sleeper's exit.
	 */
	struct early *early;
	struct vmt_whyseg *segbuf;
	uint32_t nseg, capseg;
	struct vmt_attrib_stats st;
	uint32_t ngaps;		/* lost-events gaps so far, on any CPU */
};

struct vmt_attrib *vmt_attrib_new(const struct vmt_attrib_opts *opts)
{
	struct vmt_attrib *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (opts)
		a->o = *opts;
	else
		vmt_attrib_opts_default(&a->o);
	a->last = NONE;
	a->free_det = NONE;
	a->capindex = 64;
	a->index = calloc(a->capindex, sizeof(*a->index));
	a->comms = calloc(COMM_SLOTS, sizeof(*a->comms));
	a->early = calloc(COMM_SLOTS, sizeof(*a->early));
	a->capseg = 16;
	a->segbuf = malloc(a->capseg * sizeof(*a->segbuf));
	if (!a->index || !a->comms || !a->early || !a->segbuf) {
		vmt_attrib_free(a);
		errno = ENOMEM;
		return NULL;
	}
	return a;
}

void vmt_attrib_free(struct vmt_attrib *a)
{
	uint32_t i;

	if (!a)
		return;
	for (i = 0; i < a->ndet; i++)
		free(a->det[i].segs);
	free(a->det);
	for (i = 0; i < a->ncpus; i++)
		free(a->cpus[i].hist);
	free(a->tasks);
	free(a->index);
	free(a->cpus);
	free(a->comms);
	free(a->early);
	free(a->segbuf);
	free(a);
}

const struct vmt_attrib_stats *vmt_attrib_stats(const struct vmt_attrib *a)
{
	return &a->st;
}

static uint32_t hash32(int32_t pid)
{
	uint32_t h = (uint32_t)pid * 0x9e3779b1u;

	return h ^ h >> 16;
}

/* The task of pid, or NONE (create: a new one; NONE then means out of memory). */
static uint32_t task_get(struct vmt_attrib *a, int32_t pid, bool create)
{
	uint32_t i, mask = a->capindex - 1;

	if (a->last != NONE && a->tasks[a->last].pid == pid)
		return a->last;
	for (i = hash32(pid) & mask; a->index[i]; i = (i + 1) & mask) {
		if (a->tasks[a->index[i] - 1].pid == pid)
			return a->last = a->index[i] - 1;
	}
	if (!create)
		return NONE;
	if ((a->ntasks + 1) * 4 > a->capindex * 3) {
		uint32_t cap = a->capindex * 2, j, *idx = calloc(cap, sizeof(*idx));

		if (!idx)
			return NONE;
		for (j = 0; j < a->capindex; j++) {
			uint32_t k;

			if (!a->index[j])
				continue;
			for (k = hash32(a->tasks[a->index[j] - 1].pid) & (cap - 1); idx[k];
			     k = (k + 1) & (cap - 1))
				;
			idx[k] = a->index[j];
		}
		free(a->index);
		a->index = idx;
		a->capindex = cap;
		mask = cap - 1;
		for (i = hash32(pid) & mask; a->index[i]; i = (i + 1) & mask)
			;
	}
	if (a->ntasks == a->captasks) {
		uint32_t cap = a->captasks ? a->captasks * 2 : 64;
		struct task *t = realloc(a->tasks, cap * sizeof(*t));

		if (!t)
			return NONE;
		a->tasks = t;
		a->captasks = cap;
	}
	memset(&a->tasks[a->ntasks], 0, sizeof(a->tasks[0]));
	a->tasks[a->ntasks].pid = pid;
	a->tasks[a->ntasks].x = NONE;
	a->tasks[a->ntasks].g_cpu = NONE;
	a->tasks[a->ntasks].lprev = a->tasks[a->ntasks].lnext = NONE;
	a->index[i] = a->ntasks + 1;
	return a->last = a->ntasks++;
}

/* The task of pid with an open exit, or NULL. */
static struct task *open_task(struct vmt_attrib *a, int32_t pid)
{
	uint32_t i = task_get(a, pid, false);

	return i != NONE && a->tasks[i].st != ST_NONE ? &a->tasks[i] : NULL;
}

static struct cpu *cpu_grow(struct vmt_attrib *a, uint32_t cpu);

static inline struct cpu *cpu_get(struct vmt_attrib *a, uint32_t cpu)
{
	if (cpu < a->ncpus)
		return &a->cpus[cpu];
	return cpu_grow(a, cpu);
}

static struct cpu *cpu_grow(struct vmt_attrib *a, uint32_t cpu)
{
	if (cpu >= VMT_ATTRIB_MAX_CPUS) {
		a->st.bad_cpu++;
		return NULL;
	}
	if (cpu >= a->ncpus) {
		uint32_t n = cpu + 1 > a->ncpus * 2 ? cpu + 1 : a->ncpus * 2, i;
		struct cpu *c = realloc(a->cpus, n * sizeof(*c));

		if (!c)
			return NULL;
		for (i = a->ncpus; i < n; i++) {
			memset(&c[i], 0, sizeof(c[i]));
			c[i].curr = -1;
			c[i].running = NONE;
			c[i].last_task = NONE;
			c[i].g_task = NONE;
			c[i].head[L_PREEMPT] = c[i].head[L_WOKEN] = c[i].head[L_WAIT] = NONE;
		}
		a->cpus = c;
		a->ncpus = n;
	}
	return &a->cpus[cpu];
}

static uint32_t tidx(const struct vmt_attrib *a, const struct task *t)
{
	return (uint32_t)(t - a->tasks);
}

static void list_del(struct vmt_attrib *a, struct task *t)
{
	if (t->list == L_NONE)
		return;
	if (t->lprev != NONE)
		a->tasks[t->lprev].lnext = t->lnext;
	else
		a->cpus[t->cpu].head[t->list] = t->lnext;
	if (t->lnext != NONE)
		a->tasks[t->lnext].lprev = t->lprev;
	t->lprev = t->lnext = NONE;
	t->list = L_NONE;
}

/* Off T's CPU bookkeeping: its list, or the CPU it runs on. */
static void detach(struct vmt_attrib *a, struct task *t)
{
	list_del(a, t);
	if (t->st == ST_RUN && t->cpu < a->ncpus && a->cpus[t->cpu].running == tidx(a, t))
		a->cpus[t->cpu].running = NONE;
}

static void list_add(struct vmt_attrib *a, struct task *t, uint32_t cpu, uint8_t list)
{
	uint32_t i = tidx(a, t), *head = &a->cpus[cpu].head[list];

	t->cpu = cpu;
	t->list = list;
	t->lprev = NONE;
	t->lnext = *head;
	if (*head != NONE)
		a->tasks[*head].lprev = i;
	*head = i;
}

static const char *comm_of(const struct vmt_attrib *a, int32_t pid)
{
	const struct comm *c = &a->comms[(uint32_t)pid & (COMM_SLOTS - 1)];

	return c->pid == pid ? c->comm : "";
}

static void comm_set(struct vmt_attrib *a, int32_t pid, const char *comm)
{
	struct comm *c = &a->comms[(uint32_t)pid & (COMM_SLOTS - 1)];

	if (!comm[0])
		return;
	c->pid = pid;
	memcpy(c->comm, comm, VMT_CTX_COMM_LEN);
	c->comm[VMT_CTX_COMM_LEN - 1] = '\0';
}

static void key_set(struct key *k, uint8_t kind, int32_t pid, const char *name)
{
	k->kind = kind;
	k->pid = pid;
	set_name(k->name, name);
}

static void key_kvm(struct key *k)
{
	k->kind = VMT_WHY_KVM;
	k->pid = -1;
	k->name[0] = '\0';
}

/* The detail of T's exit, attached at its first segment. */
static struct detail *detail_of(struct vmt_attrib *a, struct task *t)
{
	struct detail *d;

	if (t->x != NONE)
		return &a->det[t->x];
	if (a->free_det != NONE) {
		t->x = a->free_det;
		a->free_det = a->det[t->x].next_free;
	} else {
		if (a->ndet == a->capdet) {
			uint32_t cap = a->capdet ? a->capdet * 2 : 8;
			struct detail *n = realloc(a->det, cap * sizeof(*n));

			if (!n)
				return NULL;
			a->det = n;
			a->capdet = cap;
		}
		a->det[a->ndet].segs = NULL;
		a->det[a->ndet].capsegs = 0;
		t->x = a->ndet++;
	}
	d = &a->det[t->x];
	acc_reset(&d->acc);
	d->nsegs = 0;
	d->last_part = NONE;
	return d;
}

static void detail_put(struct vmt_attrib *a, struct task *t)
{
	if (t->x == NONE)
		return;
	a->det[t->x].next_free = a->free_det;
	a->free_det = t->x;
	t->x = NONE;
}

/* [start, end) of T's time goes to k. */
static void credit(struct vmt_attrib *a, struct task *t, const struct key *k, uint64_t start,
		   uint64_t end)
{
	struct detail *d;
	uint32_t part, i;

	if (end <= start)
		return;
	if (t->x == NONE && start > t->t0) {
		struct key kvm;

		/* until its detail, all of T's time was kvm and was not credited */
		d = detail_of(a, t);
		if (!d) {
			t->incomplete = true;
			return;
		}
		key_kvm(&kvm);
		credit(a, t, &kvm, t->t0, start);
	}
	d = detail_of(a, t);
	if (!d) {
		/* no memory for the parts: the time stays kvm, and the result says so */
		t->incomplete = true;
		return;
	}
	part = acc_find(&d->acc, k, end - start);
	acc_add(&d->acc, part, end - start);
	if (!a->o.segments)
		return;
	if (d->acc.evicted != NONE) {
		/* the evicted part's segments are its kind's "other" now (rare: 40 parts) */
		for (i = 0; i < d->nsegs; i++)
			d->segs[i].part = (uint8_t)acc_moved(&d->acc, d->segs[i].part);
		d->last_part = acc_moved(&d->acc, d->last_part);
	}
	if (d->nsegs && d->last_part == part && d->segs[d->nsegs - 1].end == start) {
		d->segs[d->nsegs - 1].end = end;
		return;
	}
	if (d->nsegs == d->capsegs) {
		uint32_t cap = d->capsegs ? d->capsegs * 2 : 16;
		struct vmt_whyseg *s = realloc(d->segs, cap * sizeof(*s));

		if (!s) {
			t->incomplete = true;
			return;
		}
		d->segs = s;
		d->capsegs = cap;
	}
	d->segs[d->nsegs].start = start;
	d->segs[d->nsegs].end = end;
	d->segs[d->nsegs].kind = k->kind;
	d->segs[d->nsegs].part = (uint8_t)part;
	d->nsegs++;
	d->last_part = part;
}

/* Close T's current segment at ts (never before its start). */
static void seg_close(struct vmt_attrib *a, struct task *t, uint64_t ts)
{
	uint64_t b = ts > t->seg_start ? ts : t->seg_start;

	if (b == t->seg_start)
		return;
	if (t->uncertain || t->st == ST_LOST)
		t->unknown += b - t->seg_start;
	if (t->uncertain || t->seg.kind == VMT_WHY_KVM) {
		struct key k;

		/* kvm is not credited until T has a detail: the O(1) path of a plain exit */
		key_kvm(&k);
		if (t->x != NONE)
			credit(a, t, &k, t->seg_start, b);
		t->uncertain = false;
	} else {
		credit(a, t, &t->seg, t->seg_start, b);
	}
	t->seg_start = b;
}

/* What a running T's time is on c now. */
static void run_key(const struct vmt_attrib *a, const struct task *t, struct key *k)
{
	const struct cpu *c = &a->cpus[t->cpu];

	if (c->depth) {
		const struct frame *f = &c->st[c->depth - 1];

		key_set(k, f->src == FR_SOFTIRQ ? VMT_WHY_SOFTIRQ : VMT_WHY_IRQ, -1, f->name);
	} else if (t->in_user) {
		key_set(k, VMT_WHY_USERSPACE, -1, t->user_reason ? t->user_reason : t->user_buf);
	} else {
		key_kvm(k);
	}
}

/* The state of T is not what the events say: the time since the last boundary is kvm. */
static void contradiction(struct task *t)
{
	t->incomplete = true;
	t->uncertain = true;
}

static void wait_credit(struct vmt_attrib *a, struct task *t, uint32_t cpu, uint64_t ts);

/* T is running on cpu from ts (a switch-in, or evidence that it runs there). */
static void make_running(struct vmt_attrib *a, struct task *t, uint32_t cpu, uint64_t ts)
{
	struct cpu *c = &a->cpus[cpu];

	if (t->st == ST_WOKEN)
		wait_credit(a, t, cpu, ts);
	/* preempted on another CPU: moved meanwhile, at a time no event says */
	if (t->st == ST_PREEMPT && t->cpu != cpu)
		contradiction(t);
	seg_close(a, t, ts);
	detach(a, t);
	if (c->running != NONE && c->running != tidx(a, t)) {
		struct task *o = &a->tasks[c->running];

		/* the task we thought was here left unseen */
		contradiction(o);
		seg_close(a, o, ts);
		o->st = ST_LOST;
		key_kvm(&o->seg);
		c->running = NONE;
		list_add(a, o, cpu, L_WAIT);
	}
	t->st = ST_RUN;
	t->cpu = cpu;
	c->running = tidx(a, t);
	c->curr = t->pid;
	run_key(a, t, &t->seg);
}

/* Drop c's interrupt frames (a switch, a begin, an entry or a gap says none is open). */
static void frames_clear(struct vmt_attrib *a, struct cpu *c)
{
	if (c->depth || c->overflow)
		a->st.stale_frames += c->depth + c->overflow;
	c->depth = 0;
	c->overflow = 0;
	c->g_task = NONE;	/* a frame that lost its exit: its time is not known */
}

static void resegment_running(struct vmt_attrib *a, struct cpu *c, uint64_t ts)
{
	struct task *t;

	if (c->running == NONE)
		return;
	t = &a->tasks[c->running];
	seg_close(a, t, ts);
	run_key(a, t, &t->seg);
}

/*
 * A woken task's wait, named after the task that holds the CPU it waits for: pid 0 (the
 * idle task) is the wake-up's own latency (leaving idle), "idle"; -1 is not known.
 */
static void key_holder(struct key *k, int32_t holder, const char *comm)
{
	if (holder == 0)
		key_set(k, VMT_WHY_WAKEUP, -1, "idle");
	else if (holder < 0)
		key_set(k, VMT_WHY_WAKEUP, -1, "");
	else
		key_set(k, VMT_WHY_WAKEUP, holder, comm);
}

static struct hent *hent_at(const struct cpu *c, uint32_t i)
{
	return &c->hist[(c->hhead + i) & (c->hcap - 1)];
}

/*
 * Who holds c now: the innermost interrupt frame (pid -1, its name: a softirq on an idle
 * CPU keeps a woken task waiting as much as a task does), else its task (0: idle, -1:
 * unknown). A softirq is named "softirq NAME": a wake-up's part has the wakeup kind, and
 * "timer" alone would read as a hard interrupt of that name.
 */
static void occupant(const struct vmt_attrib *a, const struct cpu *c, int32_t *pid, char *name)
{
	if (c->depth) {
		const struct frame *f = &c->st[c->depth - 1];
		char both[NAMELEN + 8];

		*pid = -1;
		if (f->src == FR_SOFTIRQ) {
			snprintf(both, sizeof(both), "softirq %s", f->name);
			set_name(name, both);
		} else {
			set_name(name, f->name);
		}
	} else {
		*pid = c->curr;
		set_name(name, c->curr > 0 ? comm_of(a, c->curr) : "");
	}
}

/*
 * Drop what no woken task can ask for: entries that ended before the oldest wait began
 * (the last one that began before it holds at its start).
 */
static void hist_trim(const struct vmt_attrib *a, struct cpu *c)
{
	uint64_t oldest = UINT64_MAX;
	uint32_t i, n0 = c->hlen;

	for (i = 0; i < a->ntasks; i++) {
		if (a->tasks[i].st == ST_WOKEN && a->tasks[i].seg_start < oldest)
			oldest = a->tasks[i].seg_start;
	}
	while (c->hlen > 1 && hent_at(c, 1)->ts <= oldest) {
		c->hhead = (c->hhead + 1) & (c->hcap - 1);
		c->hlen--;
	}
	if (c->hlen != n0)
		c->hbefore = HB_KNOWN;
}

/* c's occupant from ts on, when it changed. */
static void hist_push(struct vmt_attrib *a, struct cpu *c, uint64_t ts)
{
	struct hent *e;
	char name[NAMELEN];
	int32_t pid;

	occupant(a, c, &pid, name);
	if (pid < 0 && !name[0])
		return;		/* not known (since a gap) */
	if (c->hlen) {
		e = hent_at(c, c->hlen - 1);
		if (e->pid == pid && name_eq(e->name, name))
			return;
		if (ts < e->ts)
			ts = e->ts;
	}
	/* a scan of the tasks, at most once per doubling: at the largest, the oldest goes */
	if (c->hlen == c->hcap && c->hcap && c->hcap < HIST_MAX)
		hist_trim(a, c);
	if (c->hlen == c->hcap) {
		uint32_t cap = c->hcap ? c->hcap * 2 : HIST_MIN, i;
		struct hent *h = cap <= HIST_MAX ? malloc(cap * sizeof(*h)) : NULL;

		if (h) {
			for (i = 0; i < c->hlen; i++)
				h[i] = *hent_at(c, i);
			free(c->hist);
			c->hist = h;
			c->hcap = cap;
			c->hhead = 0;
		} else if (c->hlen) {
			/* the oldest is forgotten: a wait that began before it is not known */
			c->hhead = (c->hhead + 1) & (c->hcap - 1);
			c->hlen--;
			c->hbefore = HB_LOST;
		} else {
			c->hbefore = HB_LOST;
			return;
		}
	}
	e = hent_at(c, c->hlen++);
	e->ts = ts;
	e->pid = pid;
	set_name(e->name, name);
}

/*
 * T, woken, is switched in on cpu at ts: its wait since the wake-up, charged to what held
 * cpu meanwhile (the tasks, "idle", the interrupt handlers), entry by entry of cpu's
 * history. A span no event of cpu tells about (events lost there) is kvm and incomplete.
 */
static void wait_credit(struct vmt_attrib *a, struct task *t, uint32_t cpu, uint64_t ts)
{
	const struct cpu *c = &a->cpus[cpu];
	uint64_t at = t->seg_start;
	uint32_t i = 0;
	struct key k;

	if (t->uncertain || ts <= at)
		return;
	while (i < c->hlen && hent_at(c, i)->ts <= at)
		i++;
	while (at < ts) {
		uint64_t to = i < c->hlen && hent_at(c, i)->ts < ts ? hent_at(c, i)->ts : ts;

		if (i > 0) {
			const struct hent *e = hent_at(c, i - 1);

			if (e->pid < 0)
				key_set(&k, VMT_WHY_WAKEUP, -1, e->name);
			else
				key_holder(&k, e->pid, e->name);
		} else if (c->hbefore == HB_LOST) {
			key_kvm(&k);
			t->incomplete = true;
		} else {
			key_holder(&k, -1, "");
		}
		if (k.kind == VMT_WHY_KVM && t->x == NONE)
			;	/* kvm before T's detail is credited with it */
		else
			credit(a, t, &k, at, to);
		at = to;
		i++;
	}
	t->seg_start = ts;
}

/*
 * c went idle at ts: the tasks preempted there are not on its run queue. (Woken ones may
 * be: a wake-up queued for an idle CPU is taken after the switch to idle.)
 */
static void unqueue_preempted(struct vmt_attrib *a, struct cpu *c, uint32_t cpu, uint64_t ts)
{
	while (c->head[L_PREEMPT] != NONE) {
		struct task *t = &a->tasks[c->head[L_PREEMPT]];

		seg_close(a, t, ts);
		t->incomplete = true;
		t->st = ST_LOST;
		key_kvm(&t->seg);
		list_del(a, t);
		list_add(a, t, cpu, L_WAIT);
	}
}

/*
 * A switch of pid ends what a wake-up before its exit meant: a switch-out asleep of T (its
 * open exit) takes it as T's early waker; any other switch of pid forgets it.
 */
static void early_take(struct vmt_attrib *a, int32_t pid, struct task *t, bool sleeps)
{
	struct early *e = &a->early[(uint32_t)pid & (COMM_SLOTS - 1)];

	if (!pid || e->pid != pid)
		return;
	if (t && sleeps && t->early_waker.kind != VMT_WHY_BLOCKED)
		t->early_waker = e->waker;
	e->pid = 0;
}

static void on_switch(struct vmt_attrib *a, const struct vmt_ctxev *ev, struct cpu *c)
{
	int32_t prev = ev->u.sw.prev_pid, next = ev->u.sw.next_pid;
	uint32_t cpu = ev->cpu, i;
	struct task *tp, *tn;

	comm_set(a, prev, ev->u.sw.prev_comm);
	comm_set(a, next, ev->u.sw.next_comm);
	/* a switch runs in process context: a frame still open lost its exit */
	if (c->depth || c->overflow) {
		if (c->running != NONE)
			contradiction(&a->tasks[c->running]);
		frames_clear(a, c);
	}
	tp = prev ? open_task(a, prev) : NULL;
	early_take(a, prev, tp, !ev->u.sw.prev_runnable);
	early_take(a, next, NULL, false);
	if (c->running != NONE && (!tp || c->running != tidx(a, tp))) {
		struct task *o = &a->tasks[c->running];

		/* it left this CPU without a switch we saw */
		contradiction(o);
		seg_close(a, o, ev->ts);
		c->running = NONE;
		o->st = ST_LOST;
		key_kvm(&o->seg);
		list_add(a, o, cpu, L_WAIT);
	}
	/* the tasks waiting for this CPU: its new task takes their time */
	for (i = c->head[L_PREEMPT]; i != NONE; i = a->tasks[i].lnext) {
		struct task *t = &a->tasks[i];

		if (t->pid == next)
			continue;
		seg_close(a, t, ev->ts);
		key_set(&t->seg, VMT_WHY_PREEMPTED, next, ev->u.sw.next_comm);
	}
	if (tp) {
		if (tp->st != ST_RUN || tp->cpu != cpu)
			contradiction(tp);
		seg_close(a, tp, ev->ts);
		detach(a, tp);
		if (ev->u.sw.prev_runnable) {
			key_kvm(&tp->early_waker);	/* that wake-up kept it runnable */
			tp->st = ST_PREEMPT;
			key_set(&tp->seg, VMT_WHY_PREEMPTED, next, ev->u.sw.next_comm);
			list_add(a, tp, cpu, L_PREEMPT);
		} else {
			tp->st = ST_BLOCK;
			tp->gaps_at_sleep = a->ngaps;
			/* a wake-up stamped before this switch: it is already awake again */
			if (tp->early_waker.kind == VMT_WHY_BLOCKED) {
				tp->st = ST_WOKEN;
				tp->woke_waking = true;	/* its sched_wakeup may come yet */
				key_holder(&tp->seg, -1, "");
				key_kvm(&tp->early_waker);
				list_add(a, tp, cpu, L_WOKEN);
			} else {
				key_set(&tp->seg, VMT_WHY_BLOCKED, -1, "");
				list_add(a, tp, cpu, L_WAIT);
			}
		}
	}
	/*
	 * A CPU that goes idle has nothing runnable: the tasks preempted here (the previous
	 * one too, if it left runnable) were moved to another CPU, by a migration that the
	 * traced CPUs' events do not show when it went to one not traced. Where their time
	 * goes is not known: kvm and incomplete until they are seen again, never "preempted
	 * by swapper".
	 */
	if (next == 0)
		unqueue_preempted(a, c, cpu, ev->ts);
	c->running = NONE;
	c->curr = next;
	tn = next ? open_task(a, next) : NULL;
	if (!tn)
		return;
	switch (tn->st) {
	case ST_RUN:
		/* switched in without a switch-out */
		contradiction(tn);
		break;
	case ST_BLOCK:
		/*
		 * Without its wake-up: lost if events were lost since it went to sleep, else
		 * the wake-up ran on a CPU not traced (a vhost thread or an IPI from a
		 * housekeeping CPU): it was blocked all the same, by a waker we cannot name.
		 */
		if (!(a->o.recorded & 1u << VMT_WHY_WAKEUP))
			break;
		if (a->o.no_loss && a->ngaps == tn->gaps_at_sleep)
			key_set(&tn->seg, VMT_WHY_BLOCKED, -1, VMT_WHY_UNTRACED_WAKER);
		else
			contradiction(tn);
		break;
	default:
		break;
	}
	make_running(a, tn, cpu, ev->ts);
}

/*
 * A wake-up of T while it waits woken, not switched in on a traced CPU since: the kernel
 * wakes only a sleeping task (its try_to_wake_up() emits sched_waking after checking the
 * task's state), so T ran and slept again on a CPU not traced. What it did since its
 * first wake-up is not known (kvm, incomplete, as a preempted task moved away); from this
 * one on it waits again. The sched_wakeup of the same wake-up after its sched_waking is not
 * one.
 */
static void woken_again(struct vmt_attrib *a, struct task *t, const struct vmt_ctxev *ev)
{
	if (t->woke_waking && !ev->u.wake.waking)
		return;
	contradiction(t);
	seg_close(a, t, ev->ts);
	key_holder(&t->seg, -1, "");
	t->woke_waking = ev->u.wake.waking;
}

static void on_wakeup(struct vmt_attrib *a, const struct vmt_ctxev *ev, struct cpu *c)
{
	struct early *early = NULL;
	struct task *t;
	struct key k;

	comm_set(a, ev->u.wake.pid, ev->u.wake.comm);
	t = ev->u.wake.pid ? open_task(a, ev->u.wake.pid) : NULL;
	if (ev->u.wake.pid && !t)
		early = &a->early[(uint32_t)ev->u.wake.pid & (COMM_SLOTS - 1)];
	else if (t && t->st == ST_WOKEN)
		woken_again(a, t, ev);
	if (!early && (!t || (t->st != ST_BLOCK && t->st != ST_RUN)))
		return;
	if (ev->flags & (VMT_CTX_FLAG_HARDIRQ | VMT_CTX_FLAG_SOFTIRQ | VMT_CTX_FLAG_NMI)) {
		const char *name = ev->flags & VMT_CTX_FLAG_NMI ? "nmi" :
				   ev->flags & VMT_CTX_FLAG_HARDIRQ ? "hardirq" : "softirq";

		if (c->depth && !(ev->flags & VMT_CTX_FLAG_NMI))
			name = c->st[c->depth - 1].name;
		key_set(&k, VMT_WHY_BLOCKED, -1, name);
	} else if (ev->pid == 0) {
		char idle[NAMELEN];

		/* every CPU's idle task is pid 0: the one of the waker's CPU, not a cached name */
		snprintf(idle, sizeof(idle), "swapper/%u", ev->cpu);
		key_set(&k, VMT_WHY_BLOCKED, 0, idle);
	} else {
		key_set(&k, VMT_WHY_BLOCKED, ev->pid, comm_of(a, ev->pid));
	}
	if (early) {
		early->pid = ev->u.wake.pid;	/* for its switch-out, if an exit begins first */
		early->waker = k;
		return;
	}
	if (t->st == ST_RUN) {
		t->early_waker = k;	/* for its switch-out, if one comes */
		return;
	}
	t->seg = k;
	seg_close(a, t, ev->ts);
	t->st = ST_WOKEN;
	/*
	 * It now waits for a CPU, behind whatever runs there: not the waker's doing (the
	 * interrupt that woke it is over), but the holder's. Which CPU is known at its
	 * switch-in (target_cpu is only a guess: sched_waking is emitted before the CPU is
	 * chosen), where wait_credit() charges the wait from that CPU's history.
	 */
	list_del(a, t);
	list_add(a, t, t->cpu, L_WOKEN);
	key_holder(&t->seg, -1, "");
	t->woke_waking = ev->u.wake.waking;
}

/* An outermost handler begins on c: does it interrupt a task in the guest there? */
static void before_open(struct vmt_attrib *a, const struct vmt_ctxev *ev, struct cpu *c)
{
	uint32_t i = ev->pid ? task_get(a, ev->pid, false) : NONE;

	c->g_task = NONE;
	if (i == NONE || a->tasks[i].g_cpu != ev->cpu)
		return;
	c->g_task = i;
	c->g_start = ev->ts > a->tasks[i].g_since ? ev->ts : a->tasks[i].g_since;
}

/* The outermost handler on c ends: its time goes to the task it interrupted, still in guest. */
static void before_close(struct vmt_attrib *a, const struct vmt_ctxev *ev, struct cpu *c)
{
	struct task *t = &a->tasks[c->g_task];

	if (t->g_cpu == ev->cpu && ev->ts > c->g_start)
		t->g_ticks += ev->ts - c->g_start;
	c->g_task = NONE;
}

/* T's kvm_entry (paired or not) on cpu at ts: in the guest from then on, by its events. */
static inline void guest_enter(struct task *t, uint32_t cpu, uint64_t ts)
{
	t->g_cpu = cpu;
	t->g_since = ts;
	t->g_ticks = 0;
}

/* T's kvm_exit: the handlers since its entry are its exit's before. */
static inline void guest_leave(struct task *t)
{
	t->before = t->g_cpu != NONE ? t->g_ticks : 0;
	t->g_cpu = NONE;
}

static bool frame_match(const struct frame *f, uint8_t src, int32_t id)
{
	return f->src == src && f->id == id;
}

static void on_frame(struct vmt_attrib *a, const struct vmt_ctxev *ev, struct cpu *c)
{
	uint8_t src;
	bool entry;
	int i;

	switch (ev->type) {
	case VMT_CTX_IRQ_ENTRY:
	case VMT_CTX_IRQ_EXIT:
		src = FR_IRQ;
		entry = ev->type == VMT_CTX_IRQ_ENTRY;
		break;
	case VMT_CTX_VEC_ENTRY:
	case VMT_CTX_VEC_EXIT:
		src = FR_VEC;
		entry = ev->type == VMT_CTX_VEC_ENTRY;
		break;
	default:
		src = FR_SOFTIRQ;
		entry = ev->type == VMT_CTX_SOFTIRQ_ENTRY;
		break;
	}
	if (entry) {
		if (!c->depth && !c->overflow && (a->o.recorded & VMT_WHY_REC_BEFORE))
			before_open(a, ev, c);
		if (c->depth < VMT_ATTRIB_MAX_NEST) {
			struct frame *f = &c->st[c->depth++];

			f->src = src;
			f->id = ev->u.irq.id;
			set_name(f->name, ev->u.irq.name[0] ? ev->u.irq.name :
					  src == FR_IRQ ? "irq" : "?");
		} else {
			c->overflow++;
			if (c->running != NONE)
				contradiction(&a->tasks[c->running]);
		}
		resegment_running(a, c, ev->ts);
		return;
	}
	if (c->overflow) {
		c->overflow--;
		return;
	}
	for (i = c->depth - 1; i >= 0 && !frame_match(&c->st[i], src, ev->u.irq.id); i--)
		;
	if (i < 0 || i != c->depth - 1) {
		/*
		 * An exit without its entry, or frames above it that lost their exits. A
		 * running T began (or arrived) here with no frame open: it is affected.
		 */
		if (c->running != NONE)
			contradiction(&a->tasks[c->running]);
		if (i >= 0)
			a->st.stale_frames += (uint64_t)(c->depth - 1 - i);
	}
	if (i >= 0)
		c->depth = (uint8_t)i;
	if (i == 0 && c->g_task != NONE)
		before_close(a, ev, c);
	resegment_running(a, c, ev->ts);
}

static uint64_t ns_to_ticks(const struct vmt_attrib *a, uint64_t ns)
{
	unsigned __int128 v = (unsigned __int128)ns * a->o.tick_mul / a->o.tick_div;

	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

static void on_nmi(struct vmt_attrib *a, const struct vmt_ctxev *ev, struct cpu *c)
{
	uint64_t b, d, cut;
	struct task *t;
	struct key k;

	if (c->running == NONE || !a->o.tick_div || ev->u.nmi.delta_ns <= 0)
		return;
	t = &a->tasks[c->running];
	if (t->uncertain) {
		seg_close(a, t, ev->ts);
		return;
	}
	b = ev->ts > t->seg_start ? ev->ts : t->seg_start;
	d = ns_to_ticks(a, (uint64_t)ev->u.nmi.delta_ns);
	cut = b - t->seg_start < d ? t->seg_start : b - d;
	credit(a, t, &t->seg, t->seg_start, cut);
	key_set(&k, VMT_WHY_NMI, -1, "nmi");
	credit(a, t, &k, cut, b);
	t->seg_start = b;
}

/* T's own user-space exit or KVM_RUN: it runs on ev->cpu, in the kernel. */
static void on_user(struct vmt_attrib *a, const struct vmt_ctxev *ev)
{
	struct task *t = ev->pid ? open_task(a, ev->pid) : NULL;

	if (!t)
		return;
	if (t->st != ST_RUN || t->cpu != ev->cpu) {
		contradiction(t);
		make_running(a, t, ev->cpu, ev->ts);
	}
	seg_close(a, t, ev->ts);
	if (ev->type == VMT_CTX_USEREXIT) {
		t->in_user = true;
		/* the buffer moves with the task (the array grows): NULL says "read it there" */
		t->user_reason = vmt_ctx_userexit_name(ev->u.uexit.reason, ev->u.uexit.err);
		vmt_ctx_userexit_text(ev->u.uexit.reason, ev->u.uexit.err, t->user_buf,
				      sizeof(t->user_buf));
	} else {
		t->in_user = false;
	}
	run_key(a, t, &t->seg);
}

int vmt_attrib_context(struct vmt_attrib *a, const struct vmt_ctxev *ev)
{
	struct cpu *c = cpu_get(a, ev->cpu);

	if (!c)
		return ev->cpu >= VMT_ATTRIB_MAX_CPUS ? 0 : -ENOMEM;
	/* the CPU's first event says who held it since the start: a switch's prev, else its task */
	if (c->hbefore == HB_START && !c->hlen) {
		c->curr = ev->type == VMT_CTX_SWITCH ? ev->u.sw.prev_pid : ev->pid;
		if (ev->type == VMT_CTX_SWITCH)
			comm_set(a, ev->u.sw.prev_pid, ev->u.sw.prev_comm);
		hist_push(a, c, 0);
	}
	/* every event names the task current on its CPU (in an interrupt: the interrupted) */
	c->curr = ev->pid;
	switch (ev->type) {
	case VMT_CTX_SWITCH:
		on_switch(a, ev, c);
		break;
	case VMT_CTX_WAKEUP:
		on_wakeup(a, ev, c);
		break;
	case VMT_CTX_IRQ_ENTRY:
	case VMT_CTX_IRQ_EXIT:
	case VMT_CTX_SOFTIRQ_ENTRY:
	case VMT_CTX_SOFTIRQ_EXIT:
	case VMT_CTX_VEC_ENTRY:
	case VMT_CTX_VEC_EXIT:
		on_frame(a, ev, c);
		break;
	case VMT_CTX_NMI:
		on_nmi(a, ev, c);
		break;
	case VMT_CTX_USEREXIT:
	case VMT_CTX_KVM_RUN:
		on_user(a, ev);
		break;
	default:
		break;
	}
	hist_push(a, c, ev->ts);
	return 0;
}

/* Forget T's open exit. */
static void task_close(struct vmt_attrib *a, struct task *t)
{
	detach(a, t);
	detail_put(a, t);
	t->st = ST_NONE;
	t->in_user = false;
}

static __attribute__((noinline)) int begin_slow(struct vmt_attrib *a, const struct vmt_event *ev)
{
	struct cpu *c;
	struct task *t;
	uint32_t i;

	/* pid 0 is every CPU's idle task: no exits of its own to explain */
	if (ev->pid == 0)
		return 0;
	c = cpu_get(a, ev->cpu);
	if (!c)
		return ev->cpu >= VMT_ATTRIB_MAX_CPUS ? 0 : -ENOMEM;
	i = c->last_task;
	if (i == NONE || a->tasks[i].pid != ev->pid) {
		i = task_get(a, ev->pid, true);
		if (i == NONE)
			return -ENOMEM;
		c->last_task = i;
	}
	t = &a->tasks[i];
	guest_leave(t);
	if (t->st != ST_NONE)
		task_close(a, t);	/* a begin without its end */
	/* kvm_exit is emitted in process context: nothing is open on this CPU */
	if (c->depth || c->overflow)
		frames_clear(a, c);
	t->t0 = t->seg_start = ev->ts;
	t->incomplete = t->uncertain = false;
	t->unknown = 0;
	t->in_user = false;
	t->user_reason = NULL;
	t->cpu = ev->cpu;
	t->st = ST_RUN;
	key_kvm(&t->seg);
	key_kvm(&t->early_waker);
	if (c->running != NONE && c->running != i)
		make_running(a, t, ev->cpu, ev->ts);	/* the other one left unseen */
	c->running = i;
	c->curr = ev->pid;
	return 0;
}

static inline void why_plain(struct vmt_why *out, uint64_t lat, bool incomplete,
			     uint64_t unknown)
{
	unsigned int k;

	/*
	 * Two kinds per store: a memset of 64 bytes is a slow "rep stos" here, once per exit,
	 * and the plain loop stayed eight stores.
	 */
	for (k = 0; k < NK; k += 2) {
		vmt_whysum_u64x2 z = { k == VMT_WHY_KVM ? lat : 0, 0 };

		__builtin_memcpy(&out->ticks[k], &z, sizeof(z));
	}
	out->incomplete = incomplete;
	out->unknown = unknown < lat ? unknown : lat;
	out->before = 0;
	out->plain = true;
	out->culprit = -1;
	out->nparts = lat ? 1 : 0;
	out->parts[0].ticks = lat;
	out->parts[0].pid = -1;
	out->parts[0].kind = VMT_WHY_KVM;
	out->parts[0].name[0] = '\0';
}

static int segs_plain(struct vmt_attrib *a, uint64_t t0, uint64_t t1)
{
	a->nseg = 0;
	if (!a->o.segments || t1 == t0)
		return 0;
	/* vmt_attrib_new made room for one segment at least */
	a->segbuf[0].start = t0;
	a->segbuf[0].end = t1;
	a->segbuf[0].kind = VMT_WHY_KVM;
	a->segbuf[0].part = 0;
	a->nseg = 1;
	return 0;
}

/*
 * An entry that ended no exit the engine had (the task's first event, one after lost events):
 * the task is in the guest from it all the same (a new task when handlers are measured).
 */
static void entered(struct vmt_attrib *a, const struct vmt_event *end)
{
	uint32_t i;

	if (!end->pid || end->cpu >= VMT_ATTRIB_MAX_CPUS)
		return;
	i = task_get(a, end->pid, (a->o.recorded & VMT_WHY_REC_BEFORE) != 0);
	if (i != NONE)
		guest_enter(&a->tasks[i], end->cpu, end->ts);
}

static __attribute__((noinline)) int end_slow(struct vmt_attrib *a, const struct vmt_event *begin,
					       const struct vmt_event *end, struct vmt_why *out)
{
	uint64_t t0 = begin->ts, t1 = end->ts >= begin->ts ? end->ts : begin->ts;
	struct cpu *c = cpu_get(a, end->cpu);
	struct task *t = NULL;
	struct detail *d;
	uint8_t map[ACC_CAP];
	uint32_t i;

	a->st.exits++;
	/* vmt_attrib_end() took the O(1) path when it could */
	if (end->pid != 0) {
		i = task_get(a, end->pid, false);
		if (i != NONE && a->tasks[i].st != ST_NONE && a->tasks[i].t0 == t0)
			t = &a->tasks[i];
	}
	if (!t) {
		entered(a, end);
		if (end->pid != 0)
			a->st.unmatched++;
		/* no begin seen for it: all of its time is unknown */
		why_plain(out, t1 - t0, end->pid != 0, end->pid != 0 ? t1 - t0 : 0);
		a->st.incomplete += end->pid != 0;
		return segs_plain(a, t0, t1);
	}
	if (!c || t->st != ST_RUN || t->cpu != end->cpu)
		contradiction(t);	/* it entered where we did not see it run */
	else if (c->depth || c->overflow)
		contradiction(t);	/* kvm_entry with an interrupt still open */
	if (c) {
		frames_clear(a, c);
		if (c->running != NONE && c->running != tidx(a, t))
			make_running(a, t, end->cpu, t1);
		c->curr = end->pid;
	}
	if (t->seg_start > t1) {
		/* events stamped after the entry: the order was impossible, keep the sum */
		detail_put(a, t);
		t->incomplete = true;
		t->unknown = t1 - t0;
	} else {
		seg_close(a, t, t1);
	}
	guest_enter(t, end->cpu, end->ts);
	if (t->x == NONE) {
		why_plain(out, t1 - t0, t->incomplete, t->unknown);
		out->before = t->before;
		a->st.incomplete += t->incomplete;
		task_close(a, t);
		return segs_plain(a, t0, t1);
	}
	d = &a->det[t->x];
	acc_fold(&d->acc, out, map);
	out->incomplete = t->incomplete;
	out->unknown = t->unknown < out->ticks[VMT_WHY_KVM] ? t->unknown : out->ticks[VMT_WHY_KVM];
	out->before = t->before;
	a->st.detailed++;
	a->st.incomplete += t->incomplete;
	a->nseg = 0;
	if (a->o.segments && d->nsegs) {
		if (d->nsegs > a->capseg) {
			struct vmt_whyseg *s = realloc(a->segbuf, d->nsegs * sizeof(*s));

			if (!s) {
				task_close(a, t);
				return -ENOMEM;
			}
			a->segbuf = s;
			a->capseg = d->nsegs;
		}
		for (i = 0; i < d->nsegs; i++) {
			a->segbuf[i] = d->segs[i];
			a->segbuf[i].part = map[d->segs[i].part];
		}
		a->nseg = d->nsegs;
	}
	task_close(a, t);
	return 0;
}

/*
 * The begin and the end of most exits: what begin_slow() and end_slow() do when the task
 * is the CPU's last one and nothing is open there, in a function small enough to need no
 * saved registers (the slow ones need many, at every exit when they took it all).
 */
int vmt_attrib_begin(struct vmt_attrib *a, const struct vmt_event *ev)
{
	struct cpu *c;
	struct task *t;
	uint32_t i;

	if (ev->cpu >= a->ncpus || ev->pid == 0)
		return begin_slow(a, ev);
	c = &a->cpus[ev->cpu];
	i = c->last_task;
	if (i == NONE || c->depth || c->overflow || (c->running != NONE && c->running != i))
		return begin_slow(a, ev);
	t = &a->tasks[i];
	if (t->pid != ev->pid || t->st != ST_NONE)
		return begin_slow(a, ev);
	guest_leave(t);
	t->t0 = t->seg_start = ev->ts;
	t->incomplete = t->uncertain = false;
	t->unknown = 0;
	t->in_user = false;
	t->user_reason = NULL;
	t->cpu = ev->cpu;
	t->st = ST_RUN;
	key_kvm(&t->seg);
	key_kvm(&t->early_waker);
	c->running = i;
	c->curr = ev->pid;
	return 0;
}

int vmt_attrib_end(struct vmt_attrib *a, const struct vmt_event *begin,
		   const struct vmt_event *end, struct vmt_why *out)
{
	uint64_t t0 = begin->ts, t1 = end->ts >= begin->ts ? end->ts : begin->ts;
	struct cpu *c;
	struct task *t;

	if (end->cpu >= a->ncpus)
		return end_slow(a, begin, end, out);
	c = &a->cpus[end->cpu];
	if (c->running == NONE || c->depth || c->overflow)
		return end_slow(a, begin, end, out);
	t = &a->tasks[c->running];
	if (t->pid != end->pid || t->t0 != t0 || t->x != NONE || t->seg.kind != VMT_WHY_KVM ||
	    t->incomplete || t->uncertain || t->seg_start > t1)
		return end_slow(a, begin, end, out);
	a->st.exits++;
	why_plain(out, t1 - t0, false, 0);
	out->before = t->before;
	guest_enter(t, end->cpu, end->ts);
	t->st = ST_NONE;
	t->in_user = false;
	c->running = NONE;
	c->curr = end->pid;
	return a->o.segments ? segs_plain(a, t0, t1) : 0;
}

int vmt_attrib_open(struct vmt_attrib *a, const struct vmt_event *begin, uint64_t until,
		    struct vmt_why *out)
{
	uint64_t t0 = begin->ts, t1 = until > begin->ts ? until : begin->ts;
	struct task *t = NULL;
	uint8_t map[ACC_CAP];
	uint32_t i;

	/* pid 0 (idle) has no exits of its own to explain: kvm, as vmt_attrib_end says */
	if (begin->pid != 0) {
		i = task_get(a, begin->pid, false);
		if (i != NONE && a->tasks[i].st != ST_NONE && a->tasks[i].t0 == t0)
			t = &a->tasks[i];
	}
	if (!t) {
		why_plain(out, t1 - t0, begin->pid != 0, begin->pid != 0 ? t1 - t0 : 0);
		return 0;
	}
	if (t->seg_start > t1) {
		detail_put(a, t);	/* events stamped after the end: keep the sum */
		t->incomplete = true;
		t->unknown = t1 - t0;
	} else {
		seg_close(a, t, t1);
	}
	if (t->x == NONE) {
		why_plain(out, t1 - t0, t->incomplete, t->unknown);
	} else {
		acc_fold(&a->det[t->x].acc, out, map);
		out->incomplete = t->incomplete;
		out->unknown = t->unknown < out->ticks[VMT_WHY_KVM] ? t->unknown :
								      out->ticks[VMT_WHY_KVM];
	}
	out->before = t->before;	/* measured when the exit began, as for a pair */
	if (t->st == ST_RUN && t->cpu < a->ncpus && a->cpus[t->cpu].running == tidx(a, t))
		a->cpus[t->cpu].running = NONE;
	task_close(a, t);
	return 0;
}

void vmt_attrib_drop(struct vmt_attrib *a, const struct vmt_event *end)
{
	struct task *t = end->pid ? open_task(a, end->pid) : NULL;

	if (t)
		task_close(a, t);
	entered(a, end);
}

int vmt_attrib_gap(struct vmt_attrib *a, uint32_t cpu)
{
	struct cpu *c = cpu_get(a, cpu);
	unsigned int l;
	uint32_t i;

	if (!c)
		return cpu >= VMT_ATTRIB_MAX_CPUS ? 0 : -ENOMEM;
	a->ngaps++;	/* a wake-up may be among the lost events, of any CPU's sleeper */
	if (c->running != NONE)
		contradiction(&a->tasks[c->running]);
	for (l = L_PREEMPT; l < L_N; l++) {
		/* woken tasks wait for the CPU they are switched in on: its history says */
		if (l == L_WOKEN)
			continue;
		for (i = c->head[l]; i != NONE; i = a->tasks[i].lnext)
			contradiction(&a->tasks[i]);
	}
	/* an interrupt's exit may be among the lost events, and a switch, an exit, an entry */
	frames_clear(a, c);
	for (i = 0; i < a->ntasks; i++) {
		if (a->tasks[i].g_cpu == cpu)
			a->tasks[i].g_cpu = NONE;
	}
	c->curr = -1;
	c->hlen = 0;
	c->hbefore = HB_LOST;
	if (c->running != NONE)
		run_key(a, &a->tasks[c->running], &a->tasks[c->running].seg);
	return 0;
}

const struct vmt_whyseg *vmt_attrib_segments(const struct vmt_attrib *a, uint32_t *n)
{
	*n = a->nseg;
	return a->segbuf;
}

void vmt_attrib_segments_at(const struct vmt_attrib *a, struct vmt_whyseg *const **buf,
			    const uint32_t **n)
{
	*buf = &a->segbuf;
	*n = &a->nseg;
}

/* ---- the worst window ---- */

/*
 * The ring holds the intervals that are not plain kvm, in time order: with segments (nseg),
 * or without (plain: all kvm, but not through a kvm segment - such time goes first in the
 * breakdown, as it always did), or incomplete. Every interval is also in the plain window,
 * whose ring the breakdown walks to place the time of the plain kvm intervals.
 */
struct vmt_whywin_iv {
	uint64_t start, end;	/* clipped as in the plain window */
	uint32_t nseg;		/* 0: all kvm */
	bool incomplete;
};

struct vmt_whywin_seg {
	uint64_t start, end;
	struct key key;
};

int vmt_whywin_init(struct vmt_whywin *w, uint64_t window)
{
	memset(w, 0, sizeof(*w));
	w->window = window ? window : 1;
	w->max_why.culprit = -1;
	vmt_window_init(&w->win, w->window);
	w->acc = malloc(sizeof(struct acc));
	return w->acc ? 0 : -ENOMEM;
}

void vmt_whywin_free(struct vmt_whywin *w)
{
	vmt_window_free(&w->win);
	free(w->iv);
	free(w->sg);
	free(w->acc);
	w->iv = NULL;
	w->sg = NULL;
	w->acc = NULL;
	w->icap = w->ilen = w->scap = w->slen = 0;
}

static int grow_ring(void **ring, uint32_t *head, uint32_t len, uint32_t *cap, size_t size,
		     uint32_t need)
{
	uint32_t n = *cap ? *cap : 16, i;
	uint8_t *r;

	while (n < len + need) {
		if (n > UINT32_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (n == *cap)
		return 0;
	r = malloc((size_t)n * size);
	if (!r)
		return -ENOMEM;
	for (i = 0; i < len; i++)
		memcpy(r + (size_t)i * size,
		       (uint8_t *)*ring + (size_t)((*head + i) & (*cap - 1)) * size, size);
	free(*ring);
	*ring = r;
	*cap = n;
	*head = 0;
	return 0;
}

/* Segments that tile [start, end] exactly, with parts of why. */
static bool segs_valid(uint64_t start, uint64_t end, const struct vmt_why *why,
		       const struct vmt_whyseg *segs, uint32_t n)
{
	uint64_t at = start;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (segs[i].start != at || segs[i].end <= segs[i].start ||
		    segs[i].part >= why->nparts || segs[i].kind != why->parts[segs[i].part].kind ||
		    segs[i].kind >= NK)
			return false;
		at = segs[i].end;
	}
	return at == end;
}

/* Drop the ring's intervals that ended before the window [lo, ...). */
static void whywin_evict(struct vmt_whywin *w, uint64_t lo)
{
	while (w->ilen && w->iv[w->ihead].end <= lo) {
		const struct vmt_whywin_iv *h = &w->iv[w->ihead];

		w->shead = (w->shead + h->nseg) & (w->scap ? w->scap - 1 : 0);
		w->slen -= h->nseg;
		w->ihead = (w->ihead + 1) & (w->icap - 1);
		w->ilen--;
	}
}

/*
 * Where the first plain kvm interval of the window (one the ring does not hold) starts,
 * clipped to lo: the ring's intervals are a subsequence of the plain window's, in the same
 * order. false: there is none of positive length.
 */
static bool first_plain(const struct vmt_whywin *w, uint64_t lo, uint64_t *at)
{
	const struct vmt_window *v = &w->win;
	uint32_t i, k = 0;

	for (i = 0; i < v->len; i++) {
		uint32_t j = (v->head + i) & (v->cap - 1);
		uint64_t s = v->start[j], e = v->end[j];
		const struct vmt_whywin_iv *r = NULL;

		if (e <= s || e <= lo)
			continue;
		while (k < w->ilen) {
			r = &w->iv[(w->ihead + k) & (w->icap - 1)];
			if (r->end >= e && r->end > r->start)
				break;
			k++;
			r = NULL;
		}
		if (r && r->start == s && r->end == e) {
			k++;
			continue;
		}
		*at = s > lo ? s : lo;
		return true;
	}
	return false;
}

/*
 * The window [lo, lo + window) that holds the new maximum, broken down. The parts come in
 * the order their time first appears: the ring's plain intervals' kvm first, then the
 * segments in time order, kvm taking its place at its first segment or plain interval.
 */
static void whywin_breakdown(struct vmt_whywin *w, uint64_t lo, uint64_t covered)
{
	struct acc *c = w->acc;
	uint64_t plain = 0, total, c_at = 0;
	bool incomplete = false, kvm_in = false, has_c;
	uint32_t i, j, sk = 0;
	struct key kvm;

	key_kvm(&kvm);
	whywin_evict(w, lo);
	acc_reset(c);
	for (i = 0; i < w->ilen; i++) {
		const struct vmt_whywin_iv *r = &w->iv[(w->ihead + i) & (w->icap - 1)];

		incomplete |= r->incomplete;
		if (!r->nseg && r->end > r->start)
			plain += r->end - (r->start > lo ? r->start : lo);
	}
	if (plain) {
		acc_add(c, acc_find(c, &kvm, plain), plain);
		kvm_in = true;
	}
	total = plain;
	has_c = !kvm_in && first_plain(w, lo, &c_at);
	for (i = 0; i < w->ilen; i++) {
		const struct vmt_whywin_iv *r = &w->iv[(w->ihead + i) & (w->icap - 1)];

		for (j = 0; j < r->nseg; j++, sk++) {
			const struct vmt_whywin_seg *s = &w->sg[(w->shead + sk) & (w->scap - 1)];
			uint64_t from = s->start > lo ? s->start : lo;

			if (s->end <= from)
				continue;
			if (has_c && !kvm_in && c_at < from) {
				acc_find(c, &kvm, 0);
				kvm_in = true;
			}
			acc_add(c, acc_find(c, &s->key, s->end - from), s->end - from);
			total += s->end - from;
		}
	}
	/* the plain kvm intervals: the rest of the window's time */
	if (covered > total)
		acc_add(c, acc_find(c, &kvm, covered - total), covered - total);
	acc_fold(c, &w->max_why, NULL);
	w->max_why.incomplete = incomplete;
	w->max_why.unknown = 0;	/* a window keeps its intervals' incomplete mark only */
}

/* Not plain kvm: validated, clipped as the plain window will, kept in the ring. */
static int whywin_keep(struct vmt_whywin *w, uint64_t start, uint64_t end,
		       const struct vmt_why *why, const struct vmt_whyseg *segs, uint32_t nsegs)
{
	struct vmt_whywin_iv *iv;
	uint32_t i, kept = 0;
	bool incomplete = why && why->incomplete;

	if (why && nsegs && !segs_valid(start, end, why, segs, nsegs)) {
		w->bad_segs++;
		nsegs = 0;
	}
	if (!why)
		nsegs = 0;
	/* the same clipping as vmt_window_add */
	if (start < w->win.last_end)
		start = w->win.last_end;
	if (end < start)
		end = start;
	if (end == start && !incomplete)
		return 0;	/* nothing to break down */
	whywin_evict(w, end > w->window ? end - w->window : 0);
	if ((w->ilen == w->icap &&
	     grow_ring((void **)&w->iv, &w->ihead, w->ilen, &w->icap, sizeof(*w->iv), 1)) ||
	    (nsegs && w->slen + nsegs > w->scap &&
	     grow_ring((void **)&w->sg, &w->shead, w->slen, &w->scap, sizeof(*w->sg), nsegs)))
		return -ENOMEM;
	if (w->ilen == 0)
		w->ihead = 0;
	if (w->slen == 0)
		w->shead = 0;
	for (i = 0; i < nsegs; i++) {
		uint64_t s = segs[i].start > start ? segs[i].start : start;
		uint64_t e = segs[i].end < end ? segs[i].end : end;
		struct vmt_whywin_seg *g;
		const struct vmt_whypart *p = &why->parts[segs[i].part];

		if (e <= s)
			continue;
		g = &w->sg[(w->shead + w->slen) & (w->scap - 1)];
		g->start = s;
		g->end = e;
		g->key.kind = p->kind;
		g->key.pid = p->pid;
		/* the name whole, cut as set_name() would: fewer steps than byte by byte */
		memcpy(g->key.name, p->name, NAMELEN);
		g->key.name[NAMELEN - 1] = '\0';
		w->slen++;
		kept++;
	}
	iv = &w->iv[(w->ihead + w->ilen) & (w->icap - 1)];
	iv->start = start;
	iv->end = end;
	iv->nseg = kept;
	iv->incomplete = incomplete;
	w->ilen++;
	return 0;
}

/*
 * Not plain kvm (vmt_whywin_add took the other case): kept in the ring when there is
 * something to break down, then in the plain window.
 */
int vmt_whywin_add_kept(struct vmt_whywin *w, uint64_t start, uint64_t end,
			const struct vmt_why *why, const struct vmt_whyseg *segs, uint32_t nsegs)
{
	uint64_t max = w->win.max_sum;

	if (!w->acc || whywin_keep(w, start, end, why, segs, nsegs) ||
	    vmt_window_add(&w->win, start, end))
		return -ENOMEM;
	if (w->win.max_sum > max)
		vmt_whywin_grew(w);
	return 0;
}

void vmt_whywin_grew(struct vmt_whywin *w)
{
	w->max_sum = w->win.max_sum;
	w->max_at = w->win.max_at;
	whywin_breakdown(w, w->max_at, w->max_sum);
}

/* ---- the culprit table ---- */

struct crow {
	struct vmt_culprit r;
	uint64_t last_exit;	/* the exit that counted it last (count once per exit) */
	bool used;
};

struct vmt_culprits {
	struct crow *rows;	/* open addressing */
	uint32_t cap, n, max_rows;
	uint64_t exit_no;
	uint64_t evicted;	/* rows merged into "other" to make room */
	struct vmt_culprit *sorted;
	struct crow *scratch;	/* max_rows + NK rows: the eviction allocates nothing */
};

struct vmt_culprits *vmt_culprits_new(uint32_t max_rows)
{
	struct vmt_culprits *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->max_rows = max_rows < NK ? NK : max_rows;
	t->cap = 64;
	while (t->cap < (t->max_rows + NK) * 2)
		t->cap *= 2;
	t->rows = calloc(t->cap, sizeof(*t->rows));
	t->scratch = calloc(t->max_rows + NK, sizeof(*t->scratch));
	if (!t->rows || !t->scratch) {
		free(t->rows);
		free(t->scratch);
		free(t);
		return NULL;
	}
	return t;
}

void vmt_culprits_free(struct vmt_culprits *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->sorted);
	free(t->scratch);
	free(t);
}

static uint64_t ckey_hash(uint8_t kind, int32_t pid, const char *name)
{
	uint64_t h = 1469598103934665603ULL ^ kind;

	h = (h ^ (uint32_t)pid) * 1099511628211ULL;
	if (pid < 0) {
		for (; *name; name++)
			h = (h ^ (uint8_t)*name) * 1099511628211ULL;
	}
	return h ^ h >> 29;
}

/*
 * The slot of (kind, pid, name), or the empty slot where it would go. A task is keyed by
 * its pid and comm, as the exits' lines name it (a renamed task, or a pid used again, is
 * a row per name); an unknown comm ("") is the pid's row of any name (the hash of a task
 * leaves its name out, so they are on one probe path).
 */
static struct crow *crow_slot(struct vmt_culprits *t, uint8_t kind, int32_t pid, const char *name)
{
	uint32_t i;

	for (i = (uint32_t)ckey_hash(kind, pid, name) & (t->cap - 1); t->rows[i].used;
	     i = (i + 1) & (t->cap - 1)) {
		struct vmt_culprit *r = &t->rows[i].r;

		if (r->kind == kind && r->pid == pid &&
		    (name_eq(r->name, name) || (pid >= 0 && (!name[0] || !r->name[0]))))
			break;
	}
	return &t->rows[i];
}

static struct crow *crow_new(struct vmt_culprits *t, struct crow *slot, uint8_t kind,
			     int32_t pid, const char *name)
{
	slot->used = true;
	slot->last_exit = 0;
	memset(&slot->r, 0, sizeof(slot->r));
	slot->r.kind = kind;
	slot->r.pid = pid;
	set_name(slot->r.name, name);
	t->n++;
	return slot;
}

/* Smallest total first; ties in crow_cmp's order reversed (the same rows on every run). */
static int crow_cmp_small(const void *x, const void *y)
{
	const struct crow *a = x, *b = y;

	if (a->r.pid == VMT_WHY_PID_OTHER || b->r.pid == VMT_WHY_PID_OTHER)
		return (a->r.pid == VMT_WHY_PID_OTHER) - (b->r.pid == VMT_WHY_PID_OTHER);
	if (a->r.total != b->r.total)
		return a->r.total < b->r.total ? -1 : 1;
	if (a->r.kind != b->r.kind)
		return a->r.kind > b->r.kind ? -1 : 1;
	if (a->r.pid != b->r.pid)
		return a->r.pid > b->r.pid ? -1 : 1;
	return -strcmp(a->r.name, b->r.name);
}

/*
 * The table is full: its quarter with the least time goes to the kinds' "other" rows, so
 * that a culprit that comes late with much time is still ranked (the one that was merged
 * and comes back starts anew: its total is then a lower bound). A quarter at a time: one
 * sort per max_rows / 4 new culprits, not one per culprit.
 */
static void crow_evict(struct vmt_culprits *t)
{
	uint32_t i, m = 0, drop = t->max_rows / 4 ? t->max_rows / 4 : 1;

	for (i = 0; i < t->cap; i++) {
		if (t->rows[i].used)
			t->scratch[m++] = t->rows[i];
	}
	qsort(t->scratch, m, sizeof(*t->scratch), crow_cmp_small);
	memset(t->rows, 0, t->cap * sizeof(*t->rows));
	t->n = 0;
	for (i = 0; i < m; i++) {
		const struct crow *c = &t->scratch[i];
		struct crow *r;

		if (i < drop && c->r.pid != VMT_WHY_PID_OTHER) {
			r = crow_slot(t, c->r.kind, VMT_WHY_PID_OTHER, "other");
			if (!r->used)
				crow_new(t, r, c->r.kind, VMT_WHY_PID_OTHER, "other");
			/* an exit both rows were in counts twice: "other"'s exits are at most */
			r->r.count += c->r.count;
			r->r.total += c->r.total;
			if (c->r.max > r->r.max)
				r->r.max = c->r.max;
			t->evicted++;
			continue;
		}
		r = crow_slot(t, c->r.kind, c->r.pid, c->r.name);
		if (r->used) {
			/* the "other" row made above for an evicted one */
			r->r.count += c->r.count;
			r->r.total += c->r.total;
			if (c->r.max > r->r.max)
				r->r.max = c->r.max;
			if (c->last_exit > r->last_exit)
				r->last_exit = c->last_exit;
			continue;
		}
		*r = *c;
		t->n++;
	}
}

static struct crow *crow_find(struct vmt_culprits *t, uint8_t kind, int32_t pid, const char *name,
			      bool is_other)
{
	struct crow *r = crow_slot(t, kind, pid, name);

	if (r->used)
		return r;
	if (t->n >= t->max_rows && !is_other) {
		crow_evict(t);
		r = crow_slot(t, kind, pid, name);
	}
	return crow_new(t, r, kind, pid, name);
}

static void crow_add(struct vmt_culprits *t, uint8_t kind, int32_t pid, const char *name,
		     uint64_t count, uint64_t total, uint64_t max, uint64_t exit_no)
{
	struct crow *r;

	if (kind >= NK)
		return;
	r = crow_find(t, kind, pid, name, pid == VMT_WHY_PID_OTHER);
	/* a row of a task whose comm was not known yet takes the first one seen */
	if (name[0] && !r->r.name[0])
		set_name(r->r.name, name);
	if (!exit_no || r->last_exit != exit_no)
		r->r.count += count;
	r->last_exit = exit_no;
	r->r.total += total;
	if (max > r->r.max)
		r->r.max = max;
}

int vmt_culprits_add(struct vmt_culprits *t, const struct vmt_why *w)
{
	unsigned int i;

	t->exit_no++;
	for (i = 0; i < w->nparts && i < VMT_WHY_MAXPARTS; i++) {
		const struct vmt_whypart *p = &w->parts[i];

		if (p->kind != VMT_WHY_KVM && p->ticks)
			crow_add(t, p->kind, p->pid, p->name, 1, p->ticks, p->ticks, t->exit_no);
	}
	return 0;
}

int vmt_culprits_merge(struct vmt_culprits *into, const struct vmt_culprits *from)
{
	uint32_t i;

	for (i = 0; i < from->cap; i++) {
		const struct vmt_culprit *r = &from->rows[i].r;

		if (from->rows[i].used)
			crow_add(into, r->kind, r->pid, r->name, r->count, r->total, r->max, 0);
	}
	into->evicted += from->evicted;
	return 0;
}

uint64_t vmt_culprits_evicted(const struct vmt_culprits *t)
{
	return t->evicted;
}

static int crow_cmp(const void *x, const void *y)
{
	const struct vmt_culprit *a = x, *b = y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return strcmp(a->name, b->name);
}

size_t vmt_culprits_rows(struct vmt_culprits *t, const struct vmt_culprit **rows)
{
	struct vmt_culprit *s = realloc(t->sorted, (t->n ? t->n : 1) * sizeof(*s));
	uint32_t i, n = 0;

	if (!s) {
		*rows = NULL;
		return 0;
	}
	t->sorted = s;
	for (i = 0; i < t->cap; i++) {
		if (t->rows[i].used)
			s[n++] = t->rows[i].r;
	}
	qsort(s, n, sizeof(*s), crow_cmp);
	*rows = s;
	return n;
}

uint32_t vmt_attrib_recorded(const struct vmt_ctxbind *b)
{
	uint32_t r = 1u << VMT_WHY_KVM, t = b->types, i;
	bool sw = t & 1u << VMT_CTX_SWITCH, wake = t & 1u << VMT_CTX_WAKEUP;

	if (t & 1u << VMT_CTX_USEREXIT)
		r |= 1u << VMT_WHY_USERSPACE;
	if (sw)
		r |= 1u << VMT_WHY_PREEMPTED | 1u << VMT_WHY_BLOCKED;
	if (sw && wake)
		r |= 1u << VMT_WHY_WAKEUP;
	if ((t & 1u << VMT_CTX_IRQ_ENTRY) && (t & 1u << VMT_CTX_IRQ_EXIT))
		r |= 1u << VMT_WHY_IRQ;
	for (i = 0; i < b->nvec; i++) {
		if (b->vec_sides[i] == 3)
			r |= 1u << VMT_WHY_IRQ;
	}
	if ((t & 1u << VMT_CTX_SOFTIRQ_ENTRY) && (t & 1u << VMT_CTX_SOFTIRQ_EXIT))
		r |= 1u << VMT_WHY_SOFTIRQ;
	if (t & 1u << VMT_CTX_NMI)
		r |= 1u << VMT_WHY_NMI;
	/* handlers seen: those between an entry and the next exit can be measured */
	if (r & (1u << VMT_WHY_IRQ | 1u << VMT_WHY_SOFTIRQ))
		r |= VMT_WHY_REC_BEFORE;
	return r;
}
