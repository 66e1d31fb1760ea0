// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * attrib: hand-made sequences with hand-computed answers (preemption, blocking and wake-up
 * by a task and by an interrupt, nested interrupts, NMIs, user space with and without
 * KVM_RUN, migration, lost events, impossible orders, missing context at the start); a
 * simulated machine (CPUs, run queues, interrupt stacks, vCPU threads) whose own ground
 * truth of where each vCPU's time went is compared with the engine's answer, exit by exit;
 * the same machine with events dropped, checked for the invariants; the worst-window
 * breakdown against struct vmt_window and a brute-force sum, and its parts in order against
 * a brute force over every interval; the culprit table.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "attrib.h"
#include "latstat.h"

/* ---- invariants every result must satisfy ---- */

static void check_why(const struct vmt_why *w, uint64_t t0, uint64_t t1,
		      const struct vmt_whyseg *segs, uint32_t nseg, bool have_segs)
{
	uint64_t sum = 0, psum = 0, kind[VMT_WHY_NKINDS] = { 0 }, best = 0, at = t0;
	uint64_t pseg[VMT_WHY_MAXPARTS] = { 0 };
	int culprit = -1;
	unsigned int i;

	for (i = 0; i < VMT_WHY_NKINDS; i++)
		sum += w->ticks[i];
	assert_int_equal(sum, t1 - t0);
	/* the unknown time is kvm's, and only an incomplete exit has any */
	assert_true(w->unknown <= w->ticks[VMT_WHY_KVM]);
	assert_true(w->incomplete || w->unknown == 0);
	assert_true(w->nparts <= VMT_WHY_MAXPARTS);
	for (i = 0; i < w->nparts; i++) {
		const struct vmt_whypart *p = &w->parts[i];

		assert_true(p->ticks > 0);
		assert_true(p->kind < VMT_WHY_NKINDS);
		assert_true(p->ticks <= t1 - t0);
		assert_true(memchr(p->name, '\0', VMT_WHY_NAME_LEN) != NULL);
		psum += p->ticks;
		kind[p->kind] += p->ticks;
		if (p->kind != VMT_WHY_KVM && p->pid != VMT_WHY_PID_OTHER && p->ticks > best) {
			best = p->ticks;
			culprit = (int)i;
		}
	}
	assert_int_equal(psum, t1 - t0);
	for (i = 0; i < VMT_WHY_NKINDS; i++)
		assert_int_equal(kind[i], w->ticks[i]);
	assert_int_equal(w->culprit, culprit);
	if (!have_segs)
		return;
	for (i = 0; i < nseg; i++) {
		assert_int_equal(segs[i].start, at);
		assert_true(segs[i].end > segs[i].start);
		assert_true(segs[i].part < w->nparts);
		assert_int_equal(segs[i].kind, w->parts[segs[i].part].kind);
		pseg[segs[i].part] += segs[i].end - segs[i].start;
		at = segs[i].end;
	}
	assert_int_equal(at, t1);
	for (i = 0; i < w->nparts; i++)
		assert_int_equal(pseg[i], w->parts[i].ticks);
}

/* ---- a small script language for the hand-made cases ---- */

struct run {
	struct vmt_attrib *a;
	struct vmt_event begin[1024];	/* by pid */
	struct vmt_why why;
	/* vmt_attrib_segments_at(), taken once when a is made: checked at every end */
	struct vmt_whyseg *const *seg_at;
	const uint32_t *nseg_at;
};

static struct run *R;

static int setup(void **state)
{
	struct vmt_attrib_opts o;

	vmt_attrib_opts_default(&o);
	o.segments = true;
	R = calloc(1, sizeof(*R));
	R->a = vmt_attrib_new(&o);
	assert_non_null(R->a);
	vmt_attrib_segments_at(R->a, &R->seg_at, &R->nseg_at);
	*state = R;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	vmt_attrib_free(R->a);
	free(R);
	return 0;
}

static void reopen(const struct vmt_attrib_opts *o)
{
	vmt_attrib_free(R->a);
	R->a = vmt_attrib_new(o);
	assert_non_null(R->a);
	vmt_attrib_segments_at(R->a, &R->seg_at, &R->nseg_at);
}

static void ctx(struct vmt_ctxev *ev)
{
	assert_int_equal(vmt_attrib_context(R->a, ev), 0);
}

static void sw(uint32_t cpu, uint64_t ts, int32_t prev, const char *pc, int64_t state,
	       int32_t next, const char *nc)
{
	struct vmt_ctxev ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = VMT_CTX_SWITCH;
	ev.cpu = cpu;
	ev.ts = ts;
	ev.pid = prev;
	ev.u.sw.prev_pid = prev;
	ev.u.sw.next_pid = next;
	ev.u.sw.prev_state = state;
	ev.u.sw.prev_runnable = (state & 0xff) == 0;
	snprintf(ev.u.sw.prev_comm, sizeof(ev.u.sw.prev_comm), "%s", pc);
	snprintf(ev.u.sw.next_comm, sizeof(ev.u.sw.next_comm), "%s", nc);
	ctx(&ev);
}

static void wake(uint32_t cpu, uint64_t ts, int32_t waker, uint8_t flags, int32_t pid,
		 int32_t target)
{
	struct vmt_ctxev ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = VMT_CTX_WAKEUP;
	ev.cpu = cpu;
	ev.ts = ts;
	ev.pid = waker;
	ev.flags = flags;
	ev.u.wake.pid = pid;
	ev.u.wake.target_cpu = target;
	ev.u.wake.waking = true;
	snprintf(ev.u.wake.comm, sizeof(ev.u.wake.comm), "t%d", pid);
	ctx(&ev);
}

static void frame(uint8_t type, uint32_t cpu, uint64_t ts, int32_t id, const char *name)
{
	struct vmt_ctxev ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.cpu = cpu;
	ev.ts = ts;
	ev.flags = type == VMT_CTX_SOFTIRQ_ENTRY || type == VMT_CTX_SOFTIRQ_EXIT ?
		   VMT_CTX_FLAG_SOFTIRQ : VMT_CTX_FLAG_HARDIRQ;
	ev.u.irq.id = id;
	snprintf(ev.u.irq.name, sizeof(ev.u.irq.name), "%s", name);
	ctx(&ev);
}

static void nmi(uint32_t cpu, uint64_t ts, int64_t delta_ns)
{
	struct vmt_ctxev ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = VMT_CTX_NMI;
	ev.cpu = cpu;
	ev.ts = ts;
	ev.flags = VMT_CTX_FLAG_NMI;
	ev.u.nmi.delta_ns = delta_ns;
	ctx(&ev);
}

static void user(uint8_t type, uint32_t cpu, uint64_t ts, int32_t pid, uint32_t reason)
{
	struct vmt_ctxev ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.cpu = cpu;
	ev.ts = ts;
	ev.pid = pid;
	ev.u.uexit.reason = reason;
	ctx(&ev);
}

static void begin(uint32_t cpu, uint64_t ts, int32_t pid)
{
	struct vmt_event *e = &R->begin[pid];

	memset(e, 0, sizeof(*e));
	e->kind = VMT_EV_BEGIN;
	e->cpu = cpu;
	e->ts = ts;
	e->pid = pid;
	assert_int_equal(vmt_attrib_begin(R->a, e), 0);
}

static const struct vmt_why *end(uint32_t cpu, uint64_t ts, int32_t pid)
{
	struct vmt_event e;
	const struct vmt_whyseg *segs;
	uint32_t n;

	memset(&e, 0, sizeof(e));
	e.kind = VMT_EV_END;
	e.cpu = cpu;
	e.ts = ts;
	e.pid = pid;
	assert_int_equal(vmt_attrib_end(R->a, &R->begin[pid], &e, &R->why), 0);
	segs = vmt_attrib_segments(R->a, &n);
	/* what the pass reads without a call, through the pointers taken at the start */
	assert_ptr_equal(*R->seg_at, segs);
	assert_int_equal(*R->nseg_at, n);
	check_why(&R->why, R->begin[pid].ts, ts, segs, n, true);
	return &R->why;
}

/* The ticks of the part (kind, pid, name); 0 when there is none. */
static uint64_t part(const struct vmt_why *w, uint8_t kind, int32_t pid, const char *name)
{
	unsigned int i;

	for (i = 0; i < w->nparts; i++) {
		if (w->parts[i].kind == kind && w->parts[i].pid == pid &&
		    strcmp(w->parts[i].name, name) == 0)
			return w->parts[i].ticks;
	}
	return 0;
}

#define T 100
#define X 200
#define Y 201
#define IO 2

enum { K = VMT_WHY_KVM, U = VMT_WHY_USERSPACE, P = VMT_WHY_PREEMPTED, B = VMT_WHY_BLOCKED,
       W = VMT_WHY_WAKEUP, I = VMT_WHY_IRQ, S = VMT_WHY_SOFTIRQ, N = VMT_WHY_NMI };

static void test_plain(void **state)
{
	const struct vmt_why *w;

	(void)state;
	begin(0, 100, T);
	w = end(0, 150, T);
	assert_int_equal(w->ticks[K], 50);
	assert_int_equal(w->nparts, 1);
	assert_int_equal(w->culprit, -1);
	assert_false(w->incomplete);
	begin(0, 200, T);
	w = end(0, 200, T);
	assert_int_equal(w->nparts, 0);
	assert_int_equal(vmt_attrib_stats(R->a)->detailed, 0);
	/* events of other tasks and CPUs do not make an exit detailed */
	begin(0, 300, T);
	sw(1, 310, X, "x", 0, Y, "y");
	frame(VMT_CTX_IRQ_ENTRY, 1, 311, 24, "eth0");
	frame(VMT_CTX_IRQ_EXIT, 1, 312, 24, "");
	wake(1, 313, Y, 0, X, 1);
	nmi(1, 314, 2);
	w = end(0, 350, T);
	assert_int_equal(w->ticks[K], 50);
	assert_int_equal(vmt_attrib_stats(R->a)->detailed, 0);
}

/* An exit never entered, its time so far up to the end of the events (vmt_attrib_open). */
static const struct vmt_why *open_at(uint64_t until, int32_t pid)
{
	assert_int_equal(vmt_attrib_open(R->a, &R->begin[pid], until, &R->why), 0);
	check_why(&R->why, R->begin[pid].ts, until, NULL, 0, false);
	return &R->why;
}

/*
 * The exits open at the stop: the part each is in when the events end runs to that end
 * (running: an interrupt still open, else kvm; preempted; asleep without a waker; woken and
 * waiting), the exit closed after, and the statistics count no exit for them.
 */
static void test_open(void **state)
{
	const struct vmt_why *w;

	(void)state;
	begin(0, 100, T);
	w = open_at(150, T);
	assert_int_equal(w->ticks[K], 50);
	assert_true(w->plain);
	assert_false(w->incomplete);
	/* in an interrupt handler when the events end */
	begin(0, 200, T);
	frame(VMT_CTX_IRQ_ENTRY, 0, 230, 24, "eth0");
	w = open_at(260, T);
	assert_int_equal(w->ticks[K], 30);
	assert_int_equal(part(w, I, -1, "eth0"), 30);
	/* preempted by X until the end */
	begin(0, 300, T);
	sw(0, 310, T, "vcpu", 0, X, "stress");
	w = open_at(400, T);
	assert_int_equal(w->ticks[K], 10);
	assert_int_equal(part(w, P, X, "stress"), 90);
	assert_int_equal(w->parts[w->culprit].pid, X);
	/* asleep, no wake-up: blocked by nobody named */
	sw(0, 450, X, "stress", 0, 0, "swapper/0");
	begin(0, 500, T);
	sw(0, 520, T, "vcpu", 1, 0, "swapper/0");
	w = open_at(1000, T);
	assert_int_equal(w->ticks[K], 20);
	assert_int_equal(part(w, B, -1, ""), 480);
	assert_false(w->incomplete);
	/* woken by Y, not yet run: blocked by Y, then waiting behind no named holder */
	begin(0, 1100, T);
	sw(0, 1110, T, "vcpu", 1, 0, "swapper/0");
	wake(1, 1200, Y, 0, T, 0);
	w = open_at(1500, T);
	assert_int_equal(w->ticks[K], 10);
	assert_int_equal(w->ticks[B], 90);
	assert_int_equal(part(w, W, -1, ""), 300);
	/* an exit the engine never saw begin, and pid 0's: all kvm, the former unknown */
	R->begin[X] = (struct vmt_event){ .kind = VMT_EV_BEGIN, .cpu = 1, .ts = 10, .pid = X };
	w = open_at(30, X);
	assert_true(w->incomplete);
	assert_int_equal(w->unknown, 20);
	assert_int_equal(vmt_attrib_stats(R->a)->exits, 0);
	/* closed: the task's next exit starts anew */
	begin(0, 2000, T);
	assert_int_equal(end(0, 2010, T)->ticks[K], 10);
	assert_int_equal(vmt_attrib_stats(R->a)->exits, 1);
}

static void test_preempted(void **state)
{
	const struct vmt_why *w;

	(void)state;
	begin(0, 100, T);
	sw(0, 110, T, "vcpu", 0, X, "stress");
	sw(0, 140, X, "stress", 0, T, "vcpu");
	w = end(0, 150, T);
	assert_int_equal(w->ticks[K], 20);
	assert_int_equal(w->ticks[P], 30);
	assert_int_equal(part(w, P, X, "stress"), 30);
	assert_int_equal(w->parts[w->culprit].pid, X);
	assert_false(w->incomplete);

	/* by two tasks, preempted bit set (R+) */
	begin(0, 200, T);
	sw(0, 210, T, "vcpu", 0x100, X, "stress");
	sw(0, 230, X, "stress", 1, Y, "kworker");
	sw(0, 245, Y, "kworker", 0, T, "vcpu");
	w = end(0, 250, T);
	assert_int_equal(w->ticks[K], 15);
	assert_int_equal(w->ticks[P], 35);
	assert_int_equal(part(w, P, X, "stress"), 20);
	assert_int_equal(part(w, P, Y, "kworker"), 15);
	assert_int_equal(w->parts[w->culprit].pid, X);
	assert_false(w->incomplete);
}

static void test_blocked(void **state)
{
	const struct vmt_why *w;

	(void)state;
	sw(1, 50, 0, "swapper/1", 0, 300, "vhost-300");
	begin(0, 100, T);
	sw(0, 110, T, "vcpu", 1, 0, "swapper/0");
	wake(1, 200, 300, 0, T, 0);
	sw(0, 230, 0, "swapper/0", 0, T, "vcpu");
	w = end(0, 240, T);
	assert_int_equal(w->ticks[K], 20);
	assert_int_equal(w->ticks[B], 90);
	assert_int_equal(w->ticks[W], 30);
	assert_int_equal(part(w, B, 300, "vhost-300"), 90);
	/* the wait after the wake-up: its CPU was idle, the waker is not to blame */
	assert_int_equal(part(w, W, -1, "idle"), 30);
	assert_int_equal(w->parts[w->culprit].kind, B);
	assert_false(w->incomplete);

	/* woken from a hard interrupt on CPU 1: named after the innermost open handler */
	begin(0, 300, T);
	sw(0, 310, T, "vcpu", 2, 0, "swapper/0");
	frame(VMT_CTX_SOFTIRQ_ENTRY, 1, 380, 1, "timer");
	frame(VMT_CTX_IRQ_ENTRY, 1, 390, 24, "eth0");
	wake(1, 395, 300, VMT_CTX_FLAG_HARDIRQ, T, 0);
	frame(VMT_CTX_IRQ_EXIT, 1, 398, 24, "");
	frame(VMT_CTX_SOFTIRQ_EXIT, 1, 399, 1, "timer");
	sw(0, 430, 0, "swapper/0", 0, T, "vcpu");
	w = end(0, 440, T);
	assert_int_equal(part(w, B, -1, "eth0"), 85);
	assert_int_equal(part(w, W, -1, "idle"), 35);
	assert_int_equal(w->ticks[K], 20);
	/* from a softirq; and a hard interrupt nobody recorded the entry of */
	begin(0, 500, T);
	sw(0, 510, T, "vcpu", 1, 0, "swapper/0");
	frame(VMT_CTX_SOFTIRQ_ENTRY, 1, 515, 1, "timer");
	wake(1, 520, 0, VMT_CTX_FLAG_SOFTIRQ, T, 0);
	frame(VMT_CTX_SOFTIRQ_EXIT, 1, 521, 1, "timer");
	sw(0, 530, 0, "swapper/0", 0, T, "vcpu");
	w = end(0, 540, T);
	assert_int_equal(part(w, B, -1, "timer"), 10);
	assert_int_equal(part(w, W, -1, "idle"), 10);
	begin(0, 600, T);
	sw(0, 610, T, "vcpu", 1, 0, "swapper/0");
	wake(1, 620, 0, VMT_CTX_FLAG_HARDIRQ, T, 0);
	sw(0, 630, 0, "swapper/0", 0, T, "vcpu");
	w = end(0, 640, T);
	assert_int_equal(part(w, B, -1, "hardirq"), 10);
	assert_int_equal(part(w, W, -1, "idle"), 10);
	assert_false(w->incomplete);

	/*
	 * Woken while other tasks hold its CPU: the wait is theirs, one part per holder, the
	 * largest the culprit; the timer that woke it took only the sleep.
	 */
	begin(0, 700, T);
	sw(0, 710, T, "vcpu", 1, 400, "hog");
	wake(1, 720, 0, VMT_CTX_FLAG_HARDIRQ, T, 0);
	sw(0, 750, 400, "hog", 0, 401, "kworker/0:1");
	sw(0, 770, 401, "kworker/0:1", 1, T, "vcpu");
	w = end(0, 780, T);
	assert_int_equal(part(w, B, -1, "hardirq"), 10);
	assert_int_equal(part(w, W, 400, "hog"), 30);
	assert_int_equal(part(w, W, 401, "kworker/0:1"), 20);
	assert_int_equal(w->ticks[W], 50);
	assert_int_equal(w->ticks[K], 20);
	assert_int_equal(w->parts[w->culprit].kind, W);
	assert_int_equal(w->parts[w->culprit].pid, 400);
	assert_false(w->incomplete);

	/*
	 * Lost events on the CPU it is switched in on: who held it since the wake-up is not
	 * known (the switch-in's prev held it last, since when is lost): kvm, incomplete
	 */
	begin(0, 800, T);
	sw(0, 810, T, "vcpu", 1, 400, "hog");
	assert_int_equal(vmt_attrib_gap(R->a, 0), 0);
	wake(1, 820, 0, VMT_CTX_FLAG_HARDIRQ, T, 0);
	sw(0, 850, 400, "hog", 0, T, "vcpu");
	w = end(0, 860, T);
	assert_int_equal(w->ticks[W], 0);
	assert_int_equal(w->ticks[K], 60);
	assert_true(w->incomplete);

	/*
	 * sched_waking's target_cpu is the CPU it slept on (0), not where it runs next: the
	 * wait is charged to what held CPU 2, where it was switched in (idle, then hog2),
	 * never to hog on CPU 0
	 */
	sw(2, 880, 402, "hog2", 1, 0, "swapper/2");
	begin(0, 900, T);
	sw(0, 910, T, "vcpu", 1, 400, "hog");
	wake(1, 920, 0, VMT_CTX_FLAG_HARDIRQ, T, 0);
	sw(2, 935, 0, "swapper/2", 0, 402, "hog2");
	sw(2, 950, 402, "hog2", 0, T, "vcpu");
	w = end(2, 960, T);
	assert_int_equal(part(w, W, -1, "idle"), 15);
	assert_int_equal(part(w, W, 402, "hog2"), 15);
	assert_int_equal(part(w, W, 400, "hog"), 0);
	assert_int_equal(w->ticks[W], 30);
	assert_false(w->incomplete);

	/*
	 * Switched in on a CPU with no event before: the switch's prev held it since the start
	 * (named, not unknown)
	 */
	begin(0, 1000, T);
	sw(0, 1010, T, "vcpu", 1, 400, "hog");
	wake(1, 1020, 0, VMT_CTX_FLAG_HARDIRQ, T, 0);
	sw(3, 1050, 403, "busy", 0, T, "vcpu");
	w = end(3, 1060, T);
	assert_int_equal(part(w, W, 403, "busy"), 30);
	assert_int_equal(w->ticks[W], 30);
	assert_false(w->incomplete);

	/* woken by CPU 2's idle task (no interrupt flag), after CPU 1's was named: swapper/2 */
	sw(1, 1100, 0, "swapper/1", 0, 404, "k");
	begin(0, 1200, T);
	sw(0, 1210, T, "vcpu", 1, 0, "swapper/0");
	wake(2, 1250, 0, 0, T, 0);
	sw(0, 1260, 0, "swapper/0", 0, T, "vcpu");
	w = end(0, 1270, T);
	assert_int_equal(part(w, B, 0, "swapper/2"), 40);
	assert_int_equal(w->ticks[B], 40);

	/*
	 * The waker's CPU stamped its wake-up 10 before the exit began (clock skew): it is the
	 * sleeper's early waker all the same, not lost nor a CPU not traced; it waits behind
	 * hog from its switch-out
	 */
	wake(2, 1290, 500, 0, T, 0);
	begin(0, 1300, T);
	sw(0, 1310, T, "vcpu", 1, 400, "hog");
	sw(0, 1350, 400, "hog", 0, T, "vcpu");
	w = end(0, 1360, T);
	assert_int_equal(part(w, W, 400, "hog"), 40);
	assert_int_equal(w->ticks[B], 0);
	assert_int_equal(w->ticks[K], 20);
	assert_false(w->incomplete);
	/* a switch of the task in between makes such a wake-up stale: not an early waker */
	wake(2, 1390, 500, 0, T, 0);
	sw(0, 1395, T, "vcpu", 0, 400, "hog");
	sw(0, 1398, 400, "hog", 0, T, "vcpu");
	begin(0, 1400, T);
	sw(0, 1410, T, "vcpu", 1, 400, "hog");
	sw(0, 1450, 400, "hog", 0, T, "vcpu");
	w = end(0, 1460, T);
	assert_int_equal(w->ticks[W], 0);
	assert_true(w->incomplete);
}

static void test_nested_irqs(void **state)
{
	const struct vmt_why *w;

	(void)state;
	begin(0, 100, T);
	frame(VMT_CTX_SOFTIRQ_ENTRY, 0, 110, 3, "net_rx");
	frame(VMT_CTX_IRQ_ENTRY, 0, 120, 24, "eth0");
	frame(VMT_CTX_VEC_ENTRY, 0, 121, 0, "local_timer");
	frame(VMT_CTX_VEC_EXIT, 0, 123, 0, "local_timer");
	frame(VMT_CTX_IRQ_EXIT, 0, 125, 24, "");
	frame(VMT_CTX_SOFTIRQ_EXIT, 0, 140, 3, "net_rx");
	w = end(0, 150, T);
	assert_int_equal(w->ticks[K], 20);
	assert_int_equal(w->ticks[S], 25);
	assert_int_equal(w->ticks[I], 5);
	assert_int_equal(part(w, S, -1, "net_rx"), 25);
	assert_int_equal(part(w, I, -1, "eth0"), 3);
	assert_int_equal(part(w, I, -1, "local_timer"), 2);
	assert_string_equal(w->parts[w->culprit].name, "net_rx");
	assert_false(w->incomplete);
}

static void test_nmi(void **state)
{
	struct vmt_attrib_opts o;
	const struct vmt_why *w;

	(void)state;
	begin(0, 100, T);
	nmi(0, 130, 10);
	w = end(0, 150, T);
	assert_int_equal(w->ticks[N], 10);
	assert_int_equal(w->ticks[K], 40);
	assert_int_equal(part(w, N, -1, "nmi"), 10);
	/* longer than the time since the last boundary: clipped to it (and to the exit) */
	begin(0, 200, T);
	nmi(0, 205, 50);
	w = end(0, 250, T);
	assert_int_equal(w->ticks[N], 5);
	/* inside an irq: carved out of it */
	begin(0, 300, T);
	frame(VMT_CTX_IRQ_ENTRY, 0, 310, 24, "eth0");
	nmi(0, 318, 5);
	frame(VMT_CTX_IRQ_EXIT, 0, 320, 24, "");
	w = end(0, 350, T);
	assert_int_equal(part(w, I, -1, "eth0"), 5);
	assert_int_equal(w->ticks[N], 5);
	assert_int_equal(w->ticks[K], 40);
	/* on another CPU, or while T is off its CPU: not T's */
	begin(0, 400, T);
	nmi(1, 410, 5);
	sw(0, 420, T, "vcpu", 0, X, "x");
	nmi(0, 425, 3);
	sw(0, 430, X, "x", 0, T, "vcpu");
	w = end(0, 450, T);
	assert_int_equal(w->ticks[N], 0);
	assert_int_equal(part(w, P, X, "x"), 10);
	/* a clock of 3 ticks per ns (delta_ns stays ns) */
	vmt_attrib_opts_default(&o);
	o.segments = true;
	o.tick_mul = 3;
	o.tick_div = 1;
	reopen(&o);
	begin(0, 500, T);
	nmi(0, 530, 4);
	w = end(0, 550, T);
	assert_int_equal(w->ticks[N], 12);
	/* an unknown scale: NMIs are not carved */
	o.tick_div = 0;
	reopen(&o);
	begin(0, 600, T);
	nmi(0, 630, 4);
	w = end(0, 650, T);
	assert_int_equal(w->ticks[N], 0);
	assert_int_equal(w->ticks[K], 50);
}

static void test_userspace(void **state)
{
	const struct vmt_why *w;

	(void)state;
	begin(0, 100, T);
	user(VMT_CTX_USEREXIT, 0, 110, T, IO);
	user(VMT_CTX_KVM_RUN, 0, 140, T, 0);
	w = end(0, 150, T);
	assert_int_equal(w->ticks[K], 20);
	assert_int_equal(part(w, U, -1, "IO"), 30);
	/* without the ioctl recorded: until the entry */
	begin(0, 200, T);
	user(VMT_CTX_USEREXIT, 0, 210, T, 6);
	w = end(0, 250, T);
	assert_int_equal(part(w, U, -1, "MMIO"), 40);
	assert_int_equal(w->ticks[K], 10);
	/* the next exit starts in the kernel again */
	begin(0, 300, T);
	w = end(0, 310, T);
	assert_int_equal(w->ticks[K], 10);
	/* preempted and interrupted while in user space */
	begin(0, 400, T);
	user(VMT_CTX_USEREXIT, 0, 410, T, IO);
	sw(0, 420, T, "vcpu", 0, X, "x");
	sw(0, 430, X, "x", 0, T, "vcpu");
	frame(VMT_CTX_VEC_ENTRY, 0, 432, 0, "local_timer");
	frame(VMT_CTX_VEC_EXIT, 0, 434, 0, "local_timer");
	user(VMT_CTX_KVM_RUN, 0, 440, T, 0);
	w = end(0, 450, T);
	assert_int_equal(part(w, U, -1, "IO"), 18);
	assert_int_equal(part(w, P, X, "x"), 10);
	assert_int_equal(part(w, I, -1, "local_timer"), 2);
	assert_int_equal(w->ticks[K], 20);
	assert_false(w->incomplete);
	/*
	 * A reason past KVM's names: its number, never "other" (merged parts); kept while
	 * other tasks' exits grow the task array
	 */
	begin(0, 500, T);
	user(VMT_CTX_USEREXIT, 0, 510, T, 99);
	for (int i = 0; i < 200; i++) {
		begin(1, 511 + (uint64_t)i, 800 + i);
		end(1, 511 + (uint64_t)i, 800 + i);
	}
	user(VMT_CTX_KVM_RUN, 0, 910, T, 0);
	w = end(0, 920, T);
	assert_int_equal(part(w, U, -1, "reason 99"), 400);
	assert_int_equal(part(w, U, -1, "other"), 0);
}

/*
 * A wake-up's wait over many switches on the CPU it is switched in on: each holder's time
 * while the CPU's history keeps them (it grows as long as a woken task needs it); past its
 * largest size, the oldest are forgotten and the wait is incomplete, never misnamed.
 */
static void test_wait_history(void **state)
{
	const struct vmt_why *w;
	uint64_t ts = 100;
	unsigned int n, i;

	(void)state;
	for (n = 3000; n <= 9000; n += 6000) {
		begin(0, ts, T);
		sw(0, ts + 10, T, "vcpu", 1, 0, "swapper/0");
		wake(0, ts + 20, 0, VMT_CTX_FLAG_HARDIRQ, T, 0);
		for (i = 0; i < n; i++)
			sw(1, ts + 30 + 2 * i, i % 2 ? 402 : 401, i % 2 ? "b" : "a", 0,
			   i % 2 ? 401 : 402, i % 2 ? "a" : "b");
		ts += 30 + 2 * n;
		sw(1, ts, 401, "a", 0, T, "vcpu");
		w = end(1, ts + 10, T);
		if (n < 8192) {
			/* a (the first switch's prev) for 10, then b and a by turns, 2 each */
			assert_int_equal(part(w, W, 401, "a"), 10 + n);
			assert_int_equal(part(w, W, 402, "b"), n);
			assert_false(w->incomplete);
		} else {
			assert_true(w->incomplete);
			assert_true(w->ticks[W] < 2 * n);
			assert_true(part(w, W, 402, "b") <= n);
		}
		ts += 100;
	}
}

static void test_migration(void **state)
{
	const struct vmt_why *w;

	(void)state;
	sw(1, 50, 0, "swapper/1", 0, 300, "vhost");
	begin(0, 100, T);
	sw(0, 110, T, "vcpu", 1, X, "x");
	wake(1, 120, 300, 0, T, 1);
	frame(VMT_CTX_IRQ_ENTRY, 0, 122, 30, "nvme");	/* T's old CPU: not T's */
	frame(VMT_CTX_IRQ_EXIT, 0, 124, 30, "");
	sw(1, 130, 300, "vhost", 1, T, "vcpu");
	frame(VMT_CTX_IRQ_ENTRY, 0, 132, 30, "nvme");
	frame(VMT_CTX_IRQ_EXIT, 0, 134, 30, "");
	frame(VMT_CTX_IRQ_ENTRY, 1, 135, 24, "eth0");	/* its new CPU: T's */
	frame(VMT_CTX_IRQ_EXIT, 1, 138, 24, "");
	w = end(1, 150, T);
	assert_int_equal(w->ticks[K], 27);
	assert_int_equal(part(w, B, 300, "vhost"), 10);
	assert_int_equal(part(w, W, 300, "vhost"), 10);
	assert_int_equal(part(w, I, -1, "eth0"), 3);
	assert_int_equal(part(w, I, -1, "nvme"), 0);
	assert_false(w->incomplete);
	/* preempted on 0, pulled to and run on 1: named after CPU 0's tasks */
	begin(1, 200, T);
	sw(1, 210, T, "vcpu", 0, 300, "vhost");
	sw(0, 215, X, "x", 1, Y, "y");
	sw(0, 225, Y, "y", 1, X, "x");
	sw(1, 240, 300, "vhost", 1, T, "vcpu");
	w = end(1, 250, T);
	assert_int_equal(part(w, P, 300, "vhost"), 30);
	assert_false(w->incomplete);
	/*
	 * Preempted on 1 by vhost, switched in on 0 from x: moved while it waited, when no
	 * event says; the time since it was preempted is not known (kvm, incomplete), never
	 * all "preempted by vhost"
	 */
	begin(1, 300, T);
	sw(1, 310, T, "vcpu", 256, 300, "vhost");
	sw(0, 340, X, "x", 256, T, "vcpu");
	w = end(0, 350, T);
	assert_int_equal(w->ticks[P], 0);
	assert_int_equal(w->ticks[K], 50);
	assert_true(w->incomplete);
}

static void test_incomplete(void **state)
{
	const struct vmt_why *w;

	(void)state;
	/* lost events on T's CPU */
	begin(0, 100, T);
	assert_int_equal(vmt_attrib_gap(R->a, 0), 0);
	w = end(0, 150, T);
	assert_true(w->incomplete);
	assert_int_equal(w->ticks[K], 50);
	assert_int_equal(w->unknown, 50);	/* from the begin: nothing told it since */
	/* on another CPU: no matter */
	begin(0, 200, T);
	assert_int_equal(vmt_attrib_gap(R->a, 1), 0);
	w = end(0, 250, T);
	assert_false(w->incomplete);
	/* inside an interrupt: the time up to the next event is unknown, so kvm */
	begin(0, 300, T);
	frame(VMT_CTX_IRQ_ENTRY, 0, 310, 24, "eth0");
	assert_int_equal(vmt_attrib_gap(R->a, 0), 0);
	frame(VMT_CTX_IRQ_EXIT, 0, 330, 24, "");
	w = end(0, 350, T);
	assert_true(w->incomplete);
	assert_int_equal(w->ticks[K], 50);
	assert_int_equal(w->unknown, 20);	/* 310-330; 300-310 and 330-350 are kvm's own */
	/* on the CPU it was preempted off */
	begin(0, 400, T);
	sw(0, 410, T, "vcpu", 0, X, "x");
	assert_int_equal(vmt_attrib_gap(R->a, 0), 0);
	sw(0, 430, X, "x", 0, T, "vcpu");
	w = end(0, 450, T);
	assert_true(w->incomplete);
	assert_int_equal(w->ticks[K], 50);
	assert_int_equal(w->ticks[P], 0);
	assert_int_equal(w->unknown, 20);	/* 410-430, preempted across the gap */
	/* kvm_entry with an interrupt still open */
	begin(0, 500, T);
	frame(VMT_CTX_IRQ_ENTRY, 0, 510, 24, "eth0");
	w = end(0, 550, T);
	assert_true(w->incomplete);
	assert_int_equal(w->ticks[I], 0);
	assert_int_equal(w->ticks[K], 50);
	assert_int_equal(w->unknown, 40);	/* from the interrupt's entry */
	/* nested: the closed inner part stays */
	begin(0, 600, T);
	frame(VMT_CTX_SOFTIRQ_ENTRY, 0, 610, 1, "timer");
	frame(VMT_CTX_IRQ_ENTRY, 0, 620, 24, "eth0");
	frame(VMT_CTX_IRQ_EXIT, 0, 630, 24, "");
	w = end(0, 650, T);
	assert_true(w->incomplete);
	assert_int_equal(w->ticks[S], 10);
	assert_int_equal(w->ticks[I], 10);
	assert_int_equal(w->ticks[K], 30);
	assert_int_equal(w->unknown, 20);	/* the softirq left open, 630-650 */
	/* the next exit on that CPU starts clean */
	begin(0, 700, T);
	w = end(0, 710, T);
	assert_false(w->incomplete);
	/* a switch-in without a switch-out */
	begin(0, 800, T);
	sw(1, 820, X, "x", 0, T, "vcpu");
	frame(VMT_CTX_IRQ_ENTRY, 1, 830, 24, "eth0");
	frame(VMT_CTX_IRQ_EXIT, 1, 835, 24, "");
	w = end(1, 850, T);
	assert_true(w->incomplete);
	assert_int_equal(w->ticks[K], 45);
	assert_int_equal(w->ticks[I], 5);
	/* a switch-out from a CPU it was not on */
	begin(0, 900, T);
	sw(1, 910, T, "vcpu", 0, X, "x");
	sw(1, 920, X, "x", 0, T, "vcpu");
	w = end(1, 950, T);
	assert_true(w->incomplete);
	assert_int_equal(w->ticks[K], 40);
	assert_int_equal(w->ticks[P], 10);
	/* a switch on T's CPU from another task: T left unseen */
	begin(0, 1000, T);
	sw(0, 1010, X, "x", 0, Y, "y");
	sw(0, 1030, Y, "y", 0, T, "vcpu");
	w = end(0, 1050, T);
	assert_true(w->incomplete);
	assert_int_equal(w->ticks[K], 50);
	/* woken and switched in while we thought it was asleep, events lost meanwhile (on
	 * any CPU): the wake-up may be among them */
	begin(0, 1100, T);
	sw(0, 1110, T, "vcpu", 1, X, "x");
	assert_int_equal(vmt_attrib_gap(R->a, 1), 0);
	sw(0, 1130, X, "x", 1, T, "vcpu");
	w = end(0, 1150, T);
	assert_true(w->incomplete);
	assert_int_equal(w->ticks[K], 50);
	/* the same with nothing lost, but the statistics cannot say so (a flagged page's
	 * gap comes at the hole's end): incomplete still */
	begin(0, 1160, T);
	sw(0, 1170, T, "vcpu", 1, X, "x");
	sw(0, 1190, X, "x", 1, T, "vcpu");
	w = end(0, 1195, T);
	assert_true(w->incomplete);
	assert_int_equal(w->ticks[K], 35);
	/* the statistics say nothing was lost: the wake-up ran on a CPU not traced; blocked
	 * all the same, by a waker that has no name */
	{
		struct vmt_attrib_opts o;

		vmt_attrib_opts_default(&o);
		o.segments = true;	/* as setup() opens it */
		o.no_loss = true;
		reopen(&o);
	}
	begin(0, 1160, T);
	sw(0, 1170, T, "vcpu", 1, X, "x");
	sw(0, 1190, X, "x", 1, T, "vcpu");
	w = end(0, 1195, T);
	assert_false(w->incomplete);
	assert_int_equal(w->ticks[K], 15);
	assert_int_equal(w->ticks[B], 20);
	assert_int_equal(part(w, B, -1, VMT_WHY_UNTRACED_WAKER), 20);
	/* the waker's sched_waking stamped before the sleeper's own switch-out (the waker
	 * waits for it to leave the CPU): woken, not "a CPU not traced" */
	begin(0, 1196, T);
	wake(1, 1197, X, 0, T, 0);
	sw(0, 1198, T, "vcpu", 1, Y, "y");
	sw(0, 1199, Y, "y", 1, T, "vcpu");
	w = end(0, 1199, T);
	assert_false(w->incomplete);
	assert_int_equal(w->ticks[B], 0);
	assert_int_equal(part(w, VMT_WHY_WAKEUP, Y, "y"), 1);
	/* woken for a CPU whose task then goes idle, and runs there next: a wake-up queued
	 * for an idle CPU is taken after its switch to idle, not a migration */
	begin(0, 1300, T);
	sw(0, 1310, T, "vcpu", 1, X, "x");
	wake(0, 1320, X, 0, T, 0);
	sw(0, 1330, X, "x", 1, 0, "swapper/0");
	sw(0, 1340, 0, "swapper/0", 0, T, "vcpu");
	w = end(0, 1350, T);
	assert_false(w->incomplete);
	assert_int_equal(w->ticks[B], 10);
	assert_int_equal(part(w, VMT_WHY_WAKEUP, X, "x"), 10);
	assert_int_equal(part(w, VMT_WHY_WAKEUP, -1, "idle"), 10);
	assert_int_equal(w->ticks[K], 20);
	/* preempted, then its CPU goes idle: it was moved elsewhere, not kept waiting by
	 * the idle task; unknown (kvm, incomplete) until seen again, here on CPU 1 */
	begin(0, 1200, T);
	sw(0, 1210, T, "vcpu", 0, X, "x");
	sw(0, 1220, X, "x", 1, 0, "swapper/0");
	sw(1, 1235, 0, "swapper/1", 0, T, "vcpu");
	w = end(1, 1240, T);
	assert_true(w->incomplete);
	assert_int_equal(w->ticks[P], 10);
	assert_int_equal(part(w, P, X, "x"), 10);
	assert_int_equal(w->ticks[K], 30);
	/* the same when it leaves runnable straight to idle (a migration) */
	begin(1, 1250, T);
	sw(1, 1260, T, "vcpu", 0, 0, "swapper/1");
	sw(0, 1270, X, "x", 1, T, "vcpu");
	w = end(0, 1280, T);
	assert_true(w->incomplete);
	assert_int_equal(w->ticks[P], 0);
	assert_int_equal(w->ticks[K], 30);
	/* its entry on another CPU */
	begin(0, 1200, T);
	w = end(1, 1250, T);
	assert_true(w->incomplete);
	/* an end whose begin never came (or came with another timestamp) */
	{
		struct vmt_event b = { .ts = 1300, .pid = Y, .cpu = 0, .kind = VMT_EV_BEGIN };
		struct vmt_event e = { .ts = 1350, .pid = Y, .cpu = 0, .kind = VMT_EV_END };
		struct vmt_why why;

		assert_int_equal(vmt_attrib_end(R->a, &b, &e, &why), 0);
		check_why(&why, 1300, 1350, NULL, 0, false);
		assert_true(why.incomplete);
		assert_int_equal(vmt_attrib_stats(R->a)->unmatched, 1);
	}
	/* an interrupt exit without its entry while T runs */
	begin(0, 1400, T);
	frame(VMT_CTX_IRQ_EXIT, 0, 1420, 24, "");
	w = end(0, 1450, T);
	assert_true(w->incomplete);
	/* an event stamped after the entry it precedes (unsorted input): sum still exact */
	begin(0, 1500, T);
	sw(0, 1600, T, "vcpu", 0, X, "x");
	sw(0, 1601, X, "x", 0, T, "vcpu");
	w = end(0, 1550, T);
	assert_true(w->incomplete);
	assert_int_equal(w->ticks[K], 50);
}

/* An interrupt frame's event on cpu, naming pid as the task it interrupted. */
static void frame_of(uint8_t type, uint32_t cpu, uint64_t ts, int32_t id, const char *name,
		     int32_t pid)
{
	struct vmt_ctxev ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.cpu = cpu;
	ev.ts = ts;
	ev.pid = pid;
	ev.flags = type == VMT_CTX_SOFTIRQ_ENTRY || type == VMT_CTX_SOFTIRQ_EXIT ?
		   VMT_CTX_FLAG_SOFTIRQ : VMT_CTX_FLAG_HARDIRQ;
	ev.u.irq.id = id;
	snprintf(ev.u.irq.name, sizeof(ev.u.irq.name), "%s", name);
	ctx(&ev);
}

/* A handler interrupting T between its entry and its next exit, outermost only. */
static void handlers(uint32_t cpu, uint64_t ts, int32_t pid)
{
	frame_of(VMT_CTX_IRQ_ENTRY, cpu, ts, 24, "eth0", pid);
	frame_of(VMT_CTX_SOFTIRQ_ENTRY, cpu, ts + 50, 3, "net_rx", pid);
	frame_of(VMT_CTX_SOFTIRQ_EXIT, cpu, ts + 100, 3, "", pid);
	frame_of(VMT_CTX_IRQ_EXIT, cpu, ts + 200, 24, "", pid);
}

static void test_before_exit(void **state)
{
	struct vmt_attrib_opts o;
	const struct vmt_why *w;

	(void)state;
	sw(1, 10, 0, "swapper/1", 0, T, "vcpu");
	handlers(1, 20, T);		/* before its first entry: not in the guest */
	begin(1, 100, T);
	w = end(1, 200, T);
	assert_int_equal(w->before, 0);
	handlers(1, 300, T);		/* 200, the nested softirq inside */
	handlers(2, 600, T);		/* another CPU */
	frame_of(VMT_CTX_IRQ_ENTRY, 1, 850, 25, "eth1", X);	/* another task current */
	frame_of(VMT_CTX_IRQ_EXIT, 1, 870, 25, "", X);
	begin(1, 1000, T);
	w = end(1, 1100, T);
	/* outside the parts: the latency is still exit -> entry, all kvm */
	assert_int_equal(w->before, 200);
	assert_int_equal(w->ticks[K], 100);
	assert_true(w->plain);
	begin(1, 1200, T);
	w = end(1, 1300, T);
	assert_int_equal(w->before, 0);
	/* events lost on its CPU: forgotten */
	handlers(1, 1400, T);
	assert_int_equal(vmt_attrib_gap(R->a, 1), 0);
	begin(1, 1700, T);
	w = end(1, 1800, T);
	assert_int_equal(w->before, 0);

	/* not measured without VMT_WHY_REC_BEFORE (a pair not KVM's) */
	vmt_attrib_opts_default(&o);
	o.segments = true;
	o.recorded &= ~VMT_WHY_REC_BEFORE;
	reopen(&o);
	begin(1, 100, T);
	end(1, 200, T);
	handlers(1, 300, T);
	begin(1, 1000, T);
	w = end(1, 1100, T);
	assert_int_equal(w->before, 0);
}

static void test_woken_again(void **state)
{
	const struct vmt_why *w;
	struct vmt_ctxev ev;

	(void)state;
	sw(1, 50, 0, "swapper/1", 0, T, "vcpu");
	begin(1, 100, T);
	sw(1, 200, T, "vcpu", 1, 0, "swapper/1");
	wake(1, 300, 0, VMT_CTX_FLAG_HARDIRQ, T, 1);
	/* woken again: it ran and slept on a CPU not traced */
	wake(1, 700, 0, VMT_CTX_FLAG_HARDIRQ, T, 1);
	sw(1, 1000, 0, "swapper/1", 0, T, "vcpu");
	w = end(1, 1100, T);
	assert_true(w->incomplete);
	assert_int_equal(w->unknown, 400);
	assert_int_equal(w->ticks[K], 100 + 400 + 100);
	assert_int_equal(w->ticks[B], 100);
	assert_int_equal(part(w, W, -1, "idle"), 300);

	/* the sched_wakeup of the same wake-up after its sched_waking: not a second one */
	begin(1, 2000, T);
	sw(1, 2100, T, "vcpu", 1, 0, "swapper/1");
	wake(1, 2200, 0, VMT_CTX_FLAG_HARDIRQ, T, 1);
	memset(&ev, 0, sizeof(ev));
	ev.type = VMT_CTX_WAKEUP;
	ev.cpu = 1;
	ev.ts = 2250;
	ev.flags = VMT_CTX_FLAG_HARDIRQ;
	ev.u.wake.pid = T;
	ev.u.wake.target_cpu = 1;
	ctx(&ev);
	sw(1, 2500, 0, "swapper/1", 0, T, "vcpu");
	w = end(1, 2600, T);
	assert_false(w->incomplete);
	assert_int_equal(part(w, W, -1, "idle"), 300);
}

static void test_missing_context(void **state)
{
	const struct vmt_why *w;

	(void)state;
	/* no switch ever seen on any CPU; an interrupt that began before the recording */
	frame(VMT_CTX_IRQ_EXIT, 0, 90, 24, "");
	frame(VMT_CTX_SOFTIRQ_EXIT, 1, 91, 1, "");
	begin(0, 100, T);
	sw(0, 110, T, "vcpu", 1, 0, "swapper/0");
	/* a waker whose comm we never saw */
	wake(1, 120, 555, 0, T, 0);
	sw(0, 130, 0, "swapper/0", 0, T, "vcpu");
	w = end(0, 150, T);
	assert_false(w->incomplete);
	assert_int_equal(part(w, B, 555, ""), 10);
	assert_int_equal(part(w, W, -1, "idle"), 10);
	/* an exit on a CPU whose context we never had, far out */
	begin(4000, 200, T);
	sw(4000, 210, T, "vcpu", 0, X, "x");
	sw(4000, 220, X, "x", 0, T, "vcpu");
	w = end(4000, 250, T);
	assert_int_equal(part(w, P, X, "x"), 10);
	/* CPUs past the limit are ignored, not trusted */
	begin(VMT_ATTRIB_MAX_CPUS, 300, T);
	w = end(VMT_ATTRIB_MAX_CPUS, 350, T);
	assert_int_equal(w->ticks[K], 50);
	assert_true(vmt_attrib_stats(R->a)->bad_cpu > 0);
	/* idle's "exits" are not explained */
	begin(0, 400, 0);
	w = end(0, 450, 0);
	assert_int_equal(w->ticks[K], 50);
	assert_false(w->incomplete);
}

static void test_many_parts(void **state)
{
	const struct vmt_why *w;
	uint64_t ts = 100;
	int32_t i;

	(void)state;
	/* preempted by 30 tasks in turn, i + 1 ticks each: the 15 largest stay named */
	begin(0, ts, T);
	ts += 7;
	sw(0, ts, T, "vcpu", 0, 1000, "p1000");
	for (i = 0; i < 30; i++) {
		char c1[16], c2[16];

		snprintf(c1, sizeof(c1), "p%d", 1000 + i);
		snprintf(c2, sizeof(c2), "p%d", 1001 + i);
		ts += (uint64_t)(i + 1);
		sw(0, ts, 1000 + i, c1, 0, i == 29 ? T : 1001 + i, i == 29 ? "vcpu" : c2);
	}
	w = end(0, ts + 5, T);
	assert_int_equal(w->ticks[K], 12);
	assert_int_equal(w->ticks[P], 30 * 31 / 2);
	assert_int_equal(w->nparts, VMT_WHY_MAXPARTS);
	for (i = 0; i < 16; i++) {
		char c[16];

		snprintf(c, sizeof(c), "p%d", 1000 + i);
		assert_int_equal(part(w, P, 1000 + i, c), 0);
	}
	assert_int_equal(part(w, P, 1029, "p1029"), 30);
	assert_int_equal(part(w, P, 1016, "p1016"), 17);
	/* the 16 smallest in one "other"; kvm, alone of its kind, keeps its own part */
	assert_int_equal(part(w, P, VMT_WHY_PID_OTHER, "other"), 16 * 17 / 2);
	assert_int_equal(part(w, K, -1, ""), 12);
	assert_int_equal(w->parts[w->culprit].pid, 1029);
}

/* More names than an exit keeps while it runs: the smallest go to "other". */
static void test_very_many_parts(void **state)
{
	const struct vmt_why *w;
	uint64_t ts = 100, other = 0;
	int32_t i;

	(void)state;
	begin(0, ts, T);
	for (i = 0; i < 60; i++) {
		char name[16];

		snprintf(name, sizeof(name), "irq%d", i);
		frame(VMT_CTX_IRQ_ENTRY, 0, ts + 1, i, name);
		frame(VMT_CTX_IRQ_EXIT, 0, ts + 1 + (uint64_t)(i % 7) + 1, i, "");
		ts += 10;
	}
	w = end(0, ts, T);
	for (i = 0; i < 60; i++)
		other += (uint64_t)(i % 7) + 1;
	assert_int_equal(w->ticks[I], other);
	assert_int_equal(w->ticks[K], 600 - other);
	assert_int_equal(w->nparts, VMT_WHY_MAXPARTS);
	/* the largest (7 ticks: irq6, irq13, ...) are the ones kept by name */
	assert_int_equal(part(w, I, -1, "irq6"), 7);
	assert_int_equal(part(w, I, -1, "irq0"), 0);
	assert_string_equal(w->parts[w->culprit].name, "irq6");
	assert_true(part(w, I, VMT_WHY_PID_OTHER, "other") > 0);
}

/*
 * Past the 40 names told apart while an exit runs, a late part larger than the smallest
 * takes its place: 44 tasks of 1-5 ticks, then one of 5000, then the first one again (it
 * was merged: it starts anew). The segments (checked by end()) follow the parts moved.
 */
static void test_late_large_part(void **state)
{
	const struct vmt_why *w;
	uint64_t ts = 100, sum = 0, named = 0;
	int32_t i, prev = T;
	const char *pc = "vcpu";
	char c[45][16];
	unsigned int k;

	(void)state;
	begin(0, ts, T);
	ts += 10;
	for (i = 0; i <= 44; i++) {
		uint64_t len = i == 44 ? 5000 : (uint64_t)(i % 5) + 1;

		snprintf(c[i], sizeof(c[i]), "p%d", 2000 + i);
		sw(0, ts, prev, pc, 0, 2000 + i, c[i]);
		prev = 2000 + i;
		pc = c[i];
		ts += len;
		sum += len;
	}
	sw(0, ts, prev, pc, 0, 2000, c[0]);
	ts += 3;
	sum += 3;
	sw(0, ts, 2000, c[0], 0, T, "vcpu");
	w = end(0, ts + 5, T);
	assert_int_equal(w->ticks[P], sum);
	assert_int_equal(part(w, P, 2044, "p2044"), 5000);
	assert_int_equal(w->parts[w->culprit].pid, 2044);
	/* every named task has its exact time, the rest is in "other" */
	for (k = 0; k < w->nparts; k++) {
		const struct vmt_whypart *p = &w->parts[k];

		if (p->kind != P || p->pid == VMT_WHY_PID_OTHER)
			continue;
		if (p->pid == 2044)
			assert_int_equal(p->ticks, 5000);
		else if (p->pid != 2000)
			assert_int_equal(p->ticks, (uint64_t)((p->pid - 2000) % 5) + 1);
		named += p->ticks;
	}
	assert_int_equal(part(w, P, VMT_WHY_PID_OTHER, "other"), sum - named);
}

/* ---- a simulated machine with its own ground truth ---- */

#define SNCPU 3
#define SNT 9		/* tasks: 0..2 vCPUs (pid 100..102), 3..8 others (pid 200..205) */
#define SMAXP 64

enum { W_RUN, W_RQ, W_SLEEP };
enum { M_GUEST, M_KVM, M_USER };

struct tpart {
	uint8_t kind;
	int32_t pid;
	char name[VMT_WHY_NAME_LEN];
	uint64_t ticks;
};

struct stask {
	int32_t pid;
	char comm[16];
	bool vcpu;
	int where, cpu, mode;
	bool woken;
	bool holder_known;	/* woken: its CPU's holder was known at the wake-up or a switch */
	struct tpart waker;	/* kind unused: who woke it */
	uint64_t pending_blocked;
	const char *reason;
	struct vmt_event begin;
	bool in_exit, dirty;
	struct tpart parts[SMAXP];
	unsigned int nparts;
	uint64_t kinds[VMT_WHY_NKINDS];
};

struct sframe {
	uint8_t type;	/* VMT_CTX_*_ENTRY */
	int32_t id;
	char name[32];
};

struct scpu {
	int curr;	/* task index, -1 idle */
	int rq[SNT];
	int nrq;
	struct sframe st[4];
	int depth;
	bool seen;	/* an event of this CPU reached the engine: it knows who runs there */
};

struct sim {
	uint64_t now, rnd;
	struct stask t[SNT];
	struct scpu c[SNCPU];
	struct vmt_attrib *a;
	unsigned int drop_pct;	/* events dropped (and mostly reported as gaps) */
	uint64_t exits, checked, incomplete, detailed;
	/* for the window checks: every exit of task 0, and its segments */
	struct vmt_whywin ww;
	struct vmt_window vw;
	struct { uint64_t start, end; uint8_t kind; } *segs;
	size_t nsegs, capsegs;
};

/* Copy a name, cut to n - 1 bytes (snprintf cannot tell the sim's buffers apart). */
static void scopy(char *dst, size_t n, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < n && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

static uint32_t rnd(struct sim *s, uint32_t n)
{
	s->rnd ^= s->rnd << 13;
	s->rnd ^= s->rnd >> 7;
	s->rnd ^= s->rnd << 17;
	return (uint32_t)(s->rnd % n);
}

static void tadd(struct stask *t, uint8_t kind, int32_t pid, const char *name, uint64_t ticks)
{
	unsigned int i;

	if (!ticks)
		return;
	t->kinds[kind] += ticks;
	for (i = 0; i < t->nparts; i++) {
		struct tpart *p = &t->parts[i];

		if (p->kind == kind && p->pid == pid && (pid >= 0 || strcmp(p->name, name) == 0)) {
			p->ticks += ticks;
			return;
		}
	}
	assert_true(t->nparts < SMAXP);
	t->parts[t->nparts].kind = kind;
	t->parts[t->nparts].pid = pid;
	scopy(t->parts[t->nparts].name, VMT_WHY_NAME_LEN, name);
	t->parts[t->nparts].ticks = ticks;
	t->nparts++;
}

static const char *comm_of_idx(struct sim *s, int idx, int cpu, char *buf)
{
	if (idx < 0) {
		sprintf(buf, "swapper/%d", cpu);
		return buf;
	}
	return s->t[idx].comm;
}

/* The truth: where each vCPU in an exit spends [s->now, to). */
static void truth(struct sim *s, uint64_t to, int nmi_cpu)
{
	uint64_t d = to - s->now;
	int i;

	for (i = 0; i < 3; i++) {
		struct stask *t = &s->t[i];
		char buf[32];

		if (!t->in_exit || !d)
			continue;
		if (t->where == W_RUN) {
			struct scpu *c = &s->c[t->cpu];

			if (nmi_cpu == t->cpu)
				tadd(t, VMT_WHY_NMI, -1, "nmi", d);
			else if (c->depth)
				tadd(t, c->st[c->depth - 1].type == VMT_CTX_SOFTIRQ_ENTRY ?
				     VMT_WHY_SOFTIRQ : VMT_WHY_IRQ, -1,
				     c->st[c->depth - 1].name, d);
			else if (t->mode == M_USER)
				tadd(t, VMT_WHY_USERSPACE, -1, t->reason, d);
			else
				tadd(t, VMT_WHY_KVM, -1, "", d);
		} else if (t->where == W_RQ && t->woken) {
			struct scpu *c = &s->c[t->cpu];
			int cur = c->curr;

			/*
			 * behind the interrupt handler running on the CPU it is queued on (and
			 * will run on), else the task that holds it, or idle; unknown until an
			 * event of that CPU said who runs there
			 */
			if (c->depth && c->st[c->depth - 1].type == VMT_CTX_SOFTIRQ_ENTRY) {
				/* a softirq says so: "timer" alone reads as a hard interrupt */
				snprintf(buf, sizeof(buf), "softirq %s", c->st[c->depth - 1].name);
				tadd(t, VMT_WHY_WAKEUP, -1, buf, d);
			} else if (c->depth) {
				tadd(t, VMT_WHY_WAKEUP, -1, c->st[c->depth - 1].name, d);
			} else if (!t->holder_known)
				tadd(t, VMT_WHY_WAKEUP, -1, "", d);
			else if (cur < 0)
				tadd(t, VMT_WHY_WAKEUP, -1, "idle", d);
			else
				tadd(t, VMT_WHY_WAKEUP, s->t[cur].pid, s->t[cur].comm, d);
		} else if (t->where == W_RQ) {
			int cur = s->c[t->cpu].curr;

			tadd(t, VMT_WHY_PREEMPTED, cur < 0 ? 0 : s->t[cur].pid,
			     comm_of_idx(s, cur, t->cpu, buf), d);
		} else {
			t->pending_blocked += d;
		}
	}
	s->now = to;
}

static void emit(struct sim *s, struct vmt_ctxev *ev)
{
	if (s->drop_pct && rnd(s, 100) < s->drop_pct) {
		if (rnd(s, 4))
			assert_int_equal(vmt_attrib_gap(s->a, ev->cpu), 0);
		return;
	}
	s->c[ev->cpu].seen = true;
	assert_int_equal(vmt_attrib_context(s->a, ev), 0);
}

static void s_switch(struct sim *s, int cpu, int next, int64_t state)
{
	struct scpu *c = &s->c[cpu];
	struct vmt_ctxev ev;
	char buf[32];
	int prev = c->curr;

	memset(&ev, 0, sizeof(ev));
	ev.type = VMT_CTX_SWITCH;
	ev.cpu = (uint32_t)cpu;
	ev.ts = s->now;
	ev.pid = prev < 0 ? 0 : s->t[prev].pid;
	ev.u.sw.prev_pid = ev.pid;
	ev.u.sw.next_pid = next < 0 ? 0 : s->t[next].pid;
	ev.u.sw.prev_state = state;
	ev.u.sw.prev_runnable = (state & 0xff) == 0;
	scopy(ev.u.sw.prev_comm, 16, comm_of_idx(s, prev, cpu, buf));
	scopy(ev.u.sw.next_comm, 16, comm_of_idx(s, next, cpu, buf));
	if (prev >= 0) {
		struct stask *t = &s->t[prev];

		if (ev.u.sw.prev_runnable) {
			t->where = W_RQ;
			t->woken = false;
			c->rq[c->nrq++] = prev;
		} else {
			t->where = W_SLEEP;
			t->woken = false;
			t->pending_blocked = 0;
		}
		t->cpu = cpu;
	}
	if (next >= 0) {
		int i;

		for (i = 0; i < c->nrq && c->rq[i] != next; i++)
			;
		assert_true(i < c->nrq);
		memmove(&c->rq[i], &c->rq[i + 1], (size_t)(c->nrq - i - 1) * sizeof(int));
		c->nrq--;
		s->t[next].where = W_RUN;
		s->t[next].cpu = cpu;
		s->t[next].woken = false;
	}
	c->curr = next;
	emit(s, &ev);
	if (c->seen) {
		int i;

		for (i = 0; i < c->nrq; i++)
			s->t[c->rq[i]].holder_known = true;
	}
}

static void s_wake(struct sim *s, int cpu, int who)
{
	struct scpu *c = &s->c[cpu];
	struct stask *t = &s->t[who];
	struct vmt_ctxev ev;
	int target = (int)rnd(s, SNCPU);

	memset(&ev, 0, sizeof(ev));
	ev.type = VMT_CTX_WAKEUP;
	ev.cpu = (uint32_t)cpu;
	ev.ts = s->now;
	ev.u.wake.pid = t->pid;
	ev.u.wake.target_cpu = target;
	ev.u.wake.waking = true;
	scopy(ev.u.wake.comm, 16, t->comm);
	if (c->depth) {
		ev.flags = c->st[c->depth - 1].type == VMT_CTX_SOFTIRQ_ENTRY ?
			   VMT_CTX_FLAG_SOFTIRQ : VMT_CTX_FLAG_HARDIRQ;
		ev.pid = c->curr < 0 ? 0 : s->t[c->curr].pid;
		t->waker.pid = -1;
		scopy(t->waker.name, VMT_WHY_NAME_LEN, c->st[c->depth - 1].name);
	} else {
		assert_true(c->curr >= 0);
		ev.pid = s->t[c->curr].pid;
		t->waker.pid = ev.pid;
		scopy(t->waker.name, VMT_WHY_NAME_LEN, s->t[c->curr].comm);
	}
	if (who < 3 && t->in_exit)
		tadd(t, VMT_WHY_BLOCKED, t->waker.pid, t->waker.name, t->pending_blocked);
	t->pending_blocked = 0;
	t->where = W_RQ;
	t->woken = true;
	t->cpu = target;
	s->c[target].rq[s->c[target].nrq++] = who;
	emit(s, &ev);
	t->holder_known = s->c[target].seen;
}

static void s_frame(struct sim *s, int cpu, bool entry)
{
	static const struct { uint8_t type; int32_t id; const char *name; } kinds[] = {
		{ VMT_CTX_IRQ_ENTRY, 24, "eth0" }, { VMT_CTX_IRQ_ENTRY, 30, "nvme0q1" },
		{ VMT_CTX_VEC_ENTRY, 0, "local_timer" }, { VMT_CTX_VEC_ENTRY, 1, "reschedule" },
		{ VMT_CTX_SOFTIRQ_ENTRY, 1, "timer" }, { VMT_CTX_SOFTIRQ_ENTRY, 3, "net_rx" },
	};
	struct scpu *c = &s->c[cpu];
	struct vmt_ctxev ev;

	memset(&ev, 0, sizeof(ev));
	ev.cpu = (uint32_t)cpu;
	ev.ts = s->now;
	ev.pid = c->curr < 0 ? 0 : s->t[c->curr].pid;
	if (entry) {
		/* softirqs only from process context: their handlers nest hard ones only */
		unsigned int k = rnd(s, c->depth ? 4 : 6);

		c->st[c->depth].type = kinds[k].type;
		c->st[c->depth].id = kinds[k].id;
		scopy(c->st[c->depth].name, 32, kinds[k].name);
		c->depth++;
		ev.type = kinds[k].type;
		ev.u.irq.id = kinds[k].id;
		scopy(ev.u.irq.name, VMT_CTX_NAME_LEN, kinds[k].name);
	} else {
		struct sframe *f = &c->st[--c->depth];

		ev.type = (uint8_t)(f->type + 1);	/* the matching *_EXIT */
		ev.u.irq.id = f->id;
		scopy(ev.u.irq.name, VMT_CTX_NAME_LEN, f->type == VMT_CTX_IRQ_ENTRY ? "" : f->name);
	}
	ev.flags = ev.type == VMT_CTX_SOFTIRQ_ENTRY || ev.type == VMT_CTX_SOFTIRQ_EXIT ?
		   VMT_CTX_FLAG_SOFTIRQ : VMT_CTX_FLAG_HARDIRQ;
	emit(s, &ev);
}

static void s_user(struct sim *s, int cpu, uint8_t type)
{
	struct stask *t = &s->t[s->c[cpu].curr];
	static const uint32_t reasons[] = { 2, 5, 6, 10 };
	struct vmt_ctxev ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.cpu = (uint32_t)cpu;
	ev.ts = s->now;
	ev.pid = t->pid;
	if (type == VMT_CTX_USEREXIT) {
		ev.u.uexit.reason = reasons[rnd(s, 4)];
		t->reason = vmt_ctx_userexit_name(ev.u.uexit.reason, 0);
		t->mode = M_USER;
	} else {
		t->mode = M_KVM;
	}
	emit(s, &ev);
}

static void s_check(struct sim *s, struct stask *t, const struct vmt_why *w, uint64_t t1)
{
	const struct vmt_whyseg *segs;
	unsigned int i, k;
	uint32_t n;

	segs = vmt_attrib_segments(s->a, &n);
	check_why(w, t->begin.ts, t1, segs, n, true);
	s->exits++;
	s->incomplete += w->incomplete;
	s->detailed += w->nparts > 1 || (w->nparts == 1 && w->parts[0].kind != VMT_WHY_KVM);
	if (t == &s->t[0]) {
		/* the worst window of this vCPU, both ways */
		assert_int_equal(vmt_window_add(&s->vw, t->begin.ts, t1), 0);
		assert_int_equal(vmt_whywin_add(&s->ww, t->begin.ts, t1, w, segs, n), 0);
		assert_int_equal(s->ww.max_sum, s->vw.max_sum);
		assert_int_equal(s->ww.max_at, s->vw.max_at);
		for (i = 0; i < n; i++) {
			if (s->nsegs == s->capsegs) {
				s->capsegs = s->capsegs ? s->capsegs * 2 : 1024;
				s->segs = realloc(s->segs, s->capsegs * sizeof(*s->segs));
				assert_non_null(s->segs);
			}
			s->segs[s->nsegs].start = segs[i].start;
			s->segs[s->nsegs].end = segs[i].end;
			s->segs[s->nsegs].kind = segs[i].kind;
			s->nsegs++;
		}
		if (s->ww.max_sum) {
			uint64_t lo = s->ww.max_at, hi = lo + s->ww.window;
			uint64_t kind[VMT_WHY_NKINDS] = { 0 };
			uint64_t sum = 0;
			size_t j;

			for (j = 0; j < s->nsegs; j++) {
				uint64_t a = s->segs[j].start > lo ? s->segs[j].start : lo;
				uint64_t b = s->segs[j].end < hi ? s->segs[j].end : hi;

				if (b > a)
					kind[s->segs[j].kind] += b - a;
			}
			for (k = 0; k < VMT_WHY_NKINDS; k++) {
				assert_int_equal(s->ww.max_why.ticks[k], kind[k]);
				sum += kind[k];
			}
			assert_int_equal(sum, s->ww.max_sum);
			check_why(&s->ww.max_why, 0, s->ww.max_sum, NULL, 0, false);
		}
	}
	if (s->drop_pct)
		return;
	/* a consistent stream: the engine's answer is the machine's truth */
	s->checked++;
	assert_false(w->incomplete);
	for (k = 0; k < VMT_WHY_NKINDS; k++)
		assert_int_equal(w->ticks[k], t->kinds[k]);
	if (t->nparts > VMT_WHY_MAXPARTS)
		return;
	assert_int_equal(w->nparts, t->nparts);
	for (i = 0; i < t->nparts; i++)
		assert_int_equal(part(w, t->parts[i].kind, t->parts[i].pid, t->parts[i].name),
				 t->parts[i].ticks);
}

static void s_pair(struct sim *s, int cpu, bool exit)
{
	struct stask *t = &s->t[s->c[cpu].curr];

	if (exit) {
		memset(&t->begin, 0, sizeof(t->begin));
		t->begin.kind = VMT_EV_BEGIN;
		t->begin.ts = s->now;
		t->begin.cpu = (uint32_t)cpu;
		t->begin.pid = t->pid;
		t->in_exit = true;
		t->mode = M_KVM;
		t->nparts = 0;
		memset(t->kinds, 0, sizeof(t->kinds));
		if (!(s->drop_pct && rnd(s, 200) == 0)) {
			s->c[cpu].seen = true;
			assert_int_equal(vmt_attrib_begin(s->a, &t->begin), 0);
		}
	} else {
		struct vmt_event e = t->begin;
		struct vmt_why w;

		e.kind = VMT_EV_END;
		e.ts = s->now;
		e.cpu = (uint32_t)cpu;
		t->in_exit = false;
		t->mode = M_GUEST;
		if (s->drop_pct && rnd(s, 200) == 0) {
			vmt_attrib_drop(s->a, &e);
			return;
		}
		s->c[cpu].seen = true;
		assert_int_equal(vmt_attrib_end(s->a, &t->begin, &e, &w), 0);
		s_check(s, t, &w, s->now);
	}
}

static void s_nmi(struct sim *s, int cpu, uint64_t span)
{
	struct vmt_ctxev ev;
	uint64_t d = rnd(s, (uint32_t)span + 1);

	truth(s, s->now + span - d, -1);
	truth(s, s->now + d, cpu);
	memset(&ev, 0, sizeof(ev));
	ev.type = VMT_CTX_NMI;
	ev.cpu = (uint32_t)cpu;
	ev.ts = s->now;
	ev.pid = s->c[cpu].curr < 0 ? 0 : s->t[s->c[cpu].curr].pid;
	ev.flags = VMT_CTX_FLAG_NMI;
	ev.u.nmi.delta_ns = (int64_t)d;
	emit(s, &ev);
}

/* Some sleeping task, or -1. */
static int sleeper(struct sim *s)
{
	int i = (int)rnd(s, SNT), n;

	for (n = 0; n < SNT; n++, i = (i + 1) % SNT) {
		if (s->t[i].where == W_SLEEP)
			return i;
	}
	return -1;
}

static void s_step(struct sim *s)
{
	int cpu = (int)rnd(s, SNCPU);
	struct scpu *c = &s->c[cpu];
	uint64_t span = 1 + rnd(s, 10);
	uint32_t r = rnd(s, 100);
	struct stask *x;
	int who;

	if (r < 6) {
		s_nmi(s, cpu, span);
		return;
	}
	truth(s, s->now + span, -1);
	if (c->depth) {
		if (r < 45)
			s_frame(s, cpu, false);
		else if (r < 55 && c->depth < 4)
			s_frame(s, cpu, true);
		else if (r < 70 && (who = sleeper(s)) >= 0)
			s_wake(s, cpu, who);
		return;
	}
	if (c->curr < 0) {
		if (c->nrq && r < 80)
			s_switch(s, cpu, c->rq[0], 0);
		else if (r < 95)
			s_frame(s, cpu, true);
		return;
	}
	x = &s->t[c->curr];
	if (r < 20) {
		s_frame(s, cpu, true);
		return;
	}
	r = rnd(s, 100);
	if (x->vcpu && x->mode == M_GUEST) {
		if (r < 40)
			s_pair(s, cpu, true);
		return;
	}
	if (x->vcpu && x->mode == M_KVM && r < 25) {
		s_pair(s, cpu, false);
		return;
	}
	if (x->vcpu && x->mode == M_KVM && r < 35) {
		s_user(s, cpu, VMT_CTX_USEREXIT);
		return;
	}
	if (x->vcpu && x->mode == M_USER && r < 25) {
		s_user(s, cpu, VMT_CTX_KVM_RUN);
		return;
	}
	if (r < 45) {
		/* to sleep (S, D, or the idle state I) */
		static const int64_t st[] = { 1, 2, 0x80 };

		s_switch(s, cpu, c->nrq ? c->rq[0] : -1, st[rnd(s, 3)]);
		return;
	}
	if (r < 60 && c->nrq) {
		s_switch(s, cpu, c->rq[0], rnd(s, 2) ? 0x100 : 0);
		return;
	}
	if (r < 75 && (who = sleeper(s)) >= 0)
		s_wake(s, cpu, who);
}

static void sim_run(unsigned int seed, unsigned int steps, unsigned int drop_pct,
		    struct sim *out_stats)
{
	struct vmt_attrib_opts o;
	struct sim *s = calloc(1, sizeof(*s));
	unsigned int i;

	assert_non_null(s);
	s->rnd = 0x9e3779b97f4a7c15ULL * (seed + 1);
	s->now = 1000;
	s->drop_pct = drop_pct;
	vmt_attrib_opts_default(&o);
	o.segments = true;
	s->a = vmt_attrib_new(&o);
	assert_non_null(s->a);
	assert_int_equal(vmt_whywin_init(&s->ww, 200 + rnd(s, 800)), 0);
	assert_int_equal(vmt_window_init(&s->vw, s->ww.window), 0);
	for (i = 0; i < SNT; i++) {
		struct stask *t = &s->t[i];

		t->pid = i < 3 ? 100 + (int32_t)i : 200 + (int32_t)i - 3;
		if (i < 3)
			snprintf(t->comm, sizeof(t->comm), "CPU %u/KVM", i);
		else
			snprintf(t->comm, sizeof(t->comm), "task%u", i);
		t->vcpu = i < 3;
		t->where = W_SLEEP;
		t->mode = M_GUEST;
	}
	for (i = 0; i < SNCPU; i++)
		s->c[i].curr = -1;
	/* everyone runnable somewhere to start with */
	for (i = 0; i < SNT; i++) {
		int cpu = (int)rnd(s, SNCPU);

		s->t[i].where = W_RQ;
		s->t[i].cpu = cpu;
		s->c[cpu].rq[s->c[cpu].nrq++] = (int)i;
	}
	for (i = 0; i < steps; i++)
		s_step(s);
	if (out_stats) {
		out_stats->exits += s->exits;
		out_stats->checked += s->checked;
		out_stats->incomplete += s->incomplete;
		out_stats->detailed += s->detailed;
	}
	vmt_whywin_free(&s->ww);
	vmt_window_free(&s->vw);
	free(s->segs);
	vmt_attrib_free(s->a);
	free(s);
}

static void test_sim_truth(void **state)
{
	struct sim st;
	unsigned int seed;

	(void)state;
	memset(&st, 0, sizeof(st));
	for (seed = 0; seed < 300; seed++)
		sim_run(seed, 3000, 0, &st);
	/* the runs must have exercised something */
	print_message("sim: %llu exits, %llu detailed, all equal to the truth\n",
		      (unsigned long long)st.exits, (unsigned long long)st.detailed);
	assert_int_equal(st.checked, st.exits);
	assert_true(st.exits > 10000);
	assert_true(st.detailed > st.exits / 4);
	assert_int_equal(st.incomplete, 0);
}

static void test_sim_lossy(void **state)
{
	struct sim st;
	unsigned int seed;

	(void)state;
	memset(&st, 0, sizeof(st));
	for (seed = 0; seed < 300; seed++)
		sim_run(1000 + seed, 3000, 1 + seed % 5, &st);
	print_message("lossy sim: %llu exits, %llu incomplete\n", (unsigned long long)st.exits,
		      (unsigned long long)st.incomplete);
	assert_true(st.incomplete > 0);
	assert_true(st.incomplete < st.exits);
}

/* ---- aggregates ---- */

static void test_whywin_plain(void **state)
{
	struct vmt_whywin ww;
	struct vmt_window vw;
	struct vmt_why why;
	struct vmt_whyseg seg[3];
	uint64_t t = 0;
	unsigned int i;

	(void)state;
	assert_int_equal(vmt_whywin_init(&ww, 100), 0);
	assert_int_equal(vmt_window_init(&vw, 100), 0);
	/* overlapping, reversed and random intervals, some with a preempted middle */
	for (i = 0; i < 20000; i++) {
		uint64_t start = t + (uint64_t)(rand() % 50), len = (uint64_t)(rand() % 40);

		if (i % 97 == 0)
			start = t > 10 ? t - 10 : 0;
		if (len >= 3 && i % 3 == 0) {
			memset(&why, 0, sizeof(why));
			why.nparts = 2;
			why.parts[0].kind = VMT_WHY_KVM;
			why.parts[0].pid = -1;
			why.parts[0].ticks = len - 1;
			why.parts[1].kind = VMT_WHY_PREEMPTED;
			why.parts[1].pid = 7;
			strcpy(why.parts[1].name, "seven");
			why.parts[1].ticks = 1;
			why.ticks[VMT_WHY_KVM] = len - 1;
			why.ticks[VMT_WHY_PREEMPTED] = 1;
			why.culprit = 1;
			seg[0] = (struct vmt_whyseg){ start, start + 1, VMT_WHY_KVM, 0 };
			seg[1] = (struct vmt_whyseg){ start + 1, start + 2, VMT_WHY_PREEMPTED, 1 };
			seg[2] = (struct vmt_whyseg){ start + 2, start + len, VMT_WHY_KVM, 0 };
			assert_int_equal(vmt_whywin_add(&ww, start, start + len, &why, seg, 3), 0);
		} else {
			assert_int_equal(vmt_whywin_add(&ww, start, start + len, NULL, NULL, 0), 0);
		}
		assert_int_equal(vmt_window_add(&vw, start, start + len), 0);
		assert_int_equal(ww.max_sum, vw.max_sum);
		assert_int_equal(ww.max_at, vw.max_at);
		check_why(&ww.max_why, 0, ww.max_sum, NULL, 0, false);
		t = start + len;
	}
	assert_true(ww.max_why.ticks[VMT_WHY_PREEMPTED] > 0);
	/* segments that do not tile their interval are counted and taken as kvm */
	seg[0] = (struct vmt_whyseg){ t + 5, t + 6, VMT_WHY_KVM, 0 };
	assert_int_equal(vmt_whywin_add(&ww, t + 4, t + 6, &why, seg, 1), 0);
	assert_int_equal(ww.bad_segs, 1);
	vmt_whywin_free(&ww);
	vmt_window_free(&vw);
}

/*
 * The worst window's parts in order, against a brute force over every interval kept whole:
 * vmt_whywin keeps only what is not plain kvm and places the plain kvm time from the plain
 * window's ring, so the order of the parts (the order their time first appears in the
 * window, the kvm of intervals given without segments first) is checked here part by part.
 * Intervals: plain kvm as the engine returns them, segments of a pool of keys (kvm among
 * them), no segments, incomplete, zero-length, overlapping (clipped).
 */
struct oseg {
	uint64_t start, end;
	uint8_t kind;
	int32_t pid;
	char name[VMT_WHY_NAME_LEN];
};

struct oiv {
	uint64_t start, end;	/* clipped as the window clips */
	bool noseg, incomplete;
	uint32_t first, n;	/* its segments in the brute force's list */
};

struct opart {
	uint8_t kind;
	int32_t pid;
	char name[VMT_WHY_NAME_LEN];
	uint64_t ticks;
};

static uint64_t ornd_state;

static uint64_t ornd(uint64_t n)
{
	ornd_state ^= ornd_state << 13;
	ornd_state ^= ornd_state >> 7;
	ornd_state ^= ornd_state << 17;
	return ornd_state % n;
}

static unsigned int opart_find(struct opart *p, unsigned int *n, uint8_t kind, int32_t pid,
			       const char *name)
{
	unsigned int i;

	for (i = 0; i < *n; i++) {
		if (p[i].kind == kind && p[i].pid == pid && (pid >= 0 || !strcmp(p[i].name, name)))
			return i;
	}
	p[*n].kind = kind;
	p[*n].pid = pid;
	strcpy(p[*n].name, name);
	p[*n].ticks = 0;
	return (*n)++;
}

static void whywin_order_run(uint64_t seed, unsigned int pool, uint64_t window)
{
	static const uint8_t kinds[] = { VMT_WHY_PREEMPTED, VMT_WHY_IRQ, VMT_WHY_SOFTIRQ,
					 VMT_WHY_USERSPACE, VMT_WHY_BLOCKED };
	struct oseg *sg = calloc(200000, sizeof(*sg));
	struct oiv *iv = calloc(20000, sizeof(*iv));
	struct opart ref[64];
	struct vmt_whywin ww;
	struct vmt_window vw;
	uint64_t t = 1000, last_end = 0, max = 0;
	unsigned int i, j, nsg = 0, niv = 0, grew = 0, compared = 0;

	assert_non_null(sg);
	assert_non_null(iv);
	ornd_state = seed;
	assert_int_equal(vmt_whywin_init(&ww, window), 0);
	assert_int_equal(vmt_window_init(&vw, window), 0);
	for (i = 0; i < 12000; i++) {
		uint64_t start = t + ornd(40), len = ornd(5) ? 1 + ornd(30) : 0, end, lo, cov = 0;
		struct vmt_why why;
		struct vmt_whyseg segs[8];
		unsigned int kind = (unsigned int)ornd(10), nseg = 0, nref = 0, k;
		/* rare, so that a window often holds one only: which interval it was matters */
		bool incomplete = ornd(kind == 8 ? 30 : 300) == 0, noseg = false, have_why = true;

		if (ornd(40) == 0)
			start = t > 15 ? t - 15 : 0;	/* overlaps the one before: clipped */
		end = start + len;
		memset(&why, 0, sizeof(why));
		why.incomplete = incomplete;
		why.culprit = -1;
		if (kind < 6 && len) {
			/* as vmt_attrib_end returns a plain exit */
			why.plain = true;
			why.nparts = 1;
			why.parts[0] = (struct vmt_whypart){ .ticks = len, .pid = -1,
							     .kind = VMT_WHY_KVM };
			why.ticks[VMT_WHY_KVM] = len;
			segs[0] = (struct vmt_whyseg){ start, end, VMT_WHY_KVM, 0 };
			nseg = 1;
		} else if (kind < 8 && len >= 4) {
			/* up to four segments, each of a key of the pool or kvm */
			uint64_t at = start;

			while (at < end && nseg < 4) {
				uint64_t e = nseg == 3 ? end : at + 1 + ornd(end - at);
				unsigned int key = (unsigned int)ornd(pool + 2), p;
				struct vmt_whypart part = { .ticks = e - at, .pid = -1 };

				if (key >= pool) {
					part.kind = VMT_WHY_KVM;
				} else {
					part.kind = kinds[key % 5];
					if (part.kind == VMT_WHY_PREEMPTED)
						part.pid = 300 + (int32_t)key;
					snprintf(part.name, sizeof(part.name), "k%u", key);
				}
				for (p = 0; p < why.nparts; p++) {
					if (why.parts[p].kind == part.kind &&
					    why.parts[p].pid == part.pid &&
					    !strcmp(why.parts[p].name, part.name))
						break;
				}
				if (p == why.nparts)
					why.parts[why.nparts++] = part;
				else
					why.parts[p].ticks += part.ticks;
				why.ticks[part.kind] += e - at;
				segs[nseg++] = (struct vmt_whyseg){ at, e, part.kind, (uint8_t)p };
				at = e;
			}
		} else if (kind == 9) {
			have_why = false;	/* no why: all kvm, placed first */
		} else {
			why.nparts = len ? 1 : 0;
			why.parts[0] = (struct vmt_whypart){ .ticks = len, .pid = -1,
							     .kind = VMT_WHY_KVM };
			why.ticks[VMT_WHY_KVM] = len;
			noseg = true;	/* a why without segments: the same */
		}
		noseg |= !have_why;
		assert_int_equal(vmt_whywin_add(&ww, start, end, have_why ? &why : NULL, segs,
						noseg ? 0 : nseg), 0);
		assert_int_equal(vmt_window_add(&vw, start, end), 0);
		assert_int_equal(ww.max_sum, vw.max_sum);
		assert_int_equal(ww.max_at, vw.max_at);
		assert_int_equal(ww.win.max_sum, vw.max_sum);
		t = end;

		/* the brute force: every interval, clipped as the window clips */
		if (start < last_end)
			start = last_end;
		if (end < start)
			end = start;
		last_end = end;
		iv[niv] = (struct oiv){ start, end, noseg, have_why && incomplete, nsg, 0 };
		for (j = 0; !noseg && j < nseg; j++) {
			uint64_t s = segs[j].start > start ? segs[j].start : start;
			uint64_t e = segs[j].end < end ? segs[j].end : end;
			const struct vmt_whypart *p = &why.parts[segs[j].part];

			if (e <= s)
				continue;
			sg[nsg] = (struct oseg){ s, e, p->kind, p->pid, "" };
			strcpy(sg[nsg].name, p->name);
			nsg++;
			iv[niv].n++;
		}
		niv++;
		lo = end > window ? end - window : 0;
		for (j = 0; j < niv; j++) {
			if (iv[j].end > lo)
				cov += iv[j].end - (iv[j].start > lo ? iv[j].start : lo);
		}
		if (cov <= max)
			continue;
		max = cov;
		grew++;
		assert_int_equal(ww.max_sum, cov);
		/* parts in order: kvm of intervals without segments, then time order */
		for (j = 0; j < niv; j++) {
			uint64_t from = iv[j].start > lo ? iv[j].start : lo;

			if (iv[j].noseg && iv[j].end > from)
				ref[opart_find(ref, &nref, VMT_WHY_KVM, -1, "")].ticks +=
					iv[j].end - from;
		}
		for (j = 0; j < niv; j++) {
			unsigned int m;

			for (m = 0; !iv[j].noseg && m < iv[j].n; m++) {
				const struct oseg *s = &sg[iv[j].first + m];
				uint64_t from = s->start > lo ? s->start : lo;
				unsigned int r;

				if (s->end <= from)
					continue;
				r = opart_find(ref, &nref, s->kind, s->pid, s->name);
				ref[r].ticks += s->end - from;
			}
		}
		{
			bool inc = false;

			for (j = 0; j < niv; j++)
				inc |= iv[j].end > lo && iv[j].incomplete;
			assert_int_equal(ww.max_why.incomplete, inc);
		}
		check_why(&ww.max_why, 0, cov, NULL, 0, false);
		if (nref > VMT_WHY_MAXPARTS)
			continue;	/* folded by size: the kinds are checked above */
		compared++;
		assert_int_equal(ww.max_why.nparts, nref);
		for (k = 0; k < nref; k++) {
			assert_int_equal(ww.max_why.parts[k].kind, ref[k].kind);
			assert_int_equal(ww.max_why.parts[k].pid, ref[k].pid);
			assert_string_equal(ww.max_why.parts[k].name, ref[k].name);
			assert_int_equal(ww.max_why.parts[k].ticks, ref[k].ticks);
		}
	}
	/* the maximum grew often enough for the comparison to mean something */
	assert_true(grew >= 10);
	assert_true(compared >= 5);
	vmt_whywin_free(&ww);
	vmt_window_free(&vw);
	free(sg);
	free(iv);
}

static void test_whywin_order(void **state)
{
	(void)state;
	whywin_order_run(0x9e3779b97f4a7c15ULL, 4, 300);
	whywin_order_run(0x2545f4914f6cdd1dULL, 12, 200);
	whywin_order_run(0x5851f42d4c957f2dULL, 40, 2000);
}

static void test_culprits(void **state)
{
	struct vmt_culprits *t = vmt_culprits_new(4), *u = vmt_culprits_new(100);
	const struct vmt_culprit *rows;
	struct vmt_whysum sum;
	struct vmt_why w;
	uint64_t total;
	size_t n;

	(void)state;
	memset(&w, 0, sizeof(w));
	memset(&sum, 0, sizeof(sum));
	w.nparts = 4;
	w.parts[0] = (struct vmt_whypart){ 10, -1, VMT_WHY_KVM, "" };
	w.parts[1] = (struct vmt_whypart){ 30, 5, VMT_WHY_PREEMPTED, "stress" };
	w.parts[2] = (struct vmt_whypart){ 7, -1, VMT_WHY_IRQ, "eth0" };
	w.parts[3] = (struct vmt_whypart){ 3, -1, VMT_WHY_IRQ, "nvme" };
	w.ticks[VMT_WHY_KVM] = 10;
	w.ticks[VMT_WHY_PREEMPTED] = 30;
	w.ticks[VMT_WHY_IRQ] = 10;
	assert_int_equal(vmt_culprits_add(t, &w), 0);
	vmt_whysum_add(&sum, &w);
	w.parts[1].ticks = 50;
	w.ticks[VMT_WHY_PREEMPTED] = 50;
	w.incomplete = true;
	assert_int_equal(vmt_culprits_add(t, &w), 0);
	vmt_whysum_add(&sum, &w);
	assert_int_equal(sum.count, 2);
	assert_int_equal(sum.incomplete, 1);
	assert_int_equal(sum.ticks[VMT_WHY_PREEMPTED], 80);
	assert_int_equal(sum.ticks[VMT_WHY_IRQ], 20);
	n = vmt_culprits_rows(t, &rows);
	assert_int_equal(n, 3);
	assert_int_equal(rows[0].pid, 5);
	assert_int_equal(rows[0].count, 2);
	assert_int_equal(rows[0].total, 80);
	assert_int_equal(rows[0].max, 50);
	assert_string_equal(rows[1].name, "eth0");
	assert_int_equal(rows[1].total, 14);
	assert_int_equal(rows[2].total, 6);
	/*
	 * pid 5 renamed (an exec, or QEMU naming a vCPU thread): a row of its own, named as
	 * the exits' lines name it; a part whose comm was not known goes to a row of that pid
	 */
	assert_string_equal(rows[0].name, "stress");
	w.nparts = 2;
	w.parts[1] = (struct vmt_whypart){ 2, 5, VMT_WHY_PREEMPTED, "CPU 0/KVM" };
	assert_int_equal(vmt_culprits_add(t, &w), 0);
	w.parts[1] = (struct vmt_whypart){ 1, 5, VMT_WHY_PREEMPTED, "" };	/* no name known */
	assert_int_equal(vmt_culprits_add(t, &w), 0);
	n = vmt_culprits_rows(t, &rows);
	assert_int_equal(n, 4);
	assert_int_equal(rows[0].pid, 5);
	assert_int_equal(rows[0].total, 81);
	assert_int_equal(rows[0].count, 3);
	assert_string_equal(rows[0].name, "stress");
	assert_int_equal(rows[3].pid, 5);
	assert_int_equal(rows[3].total, 2);
	assert_int_equal(rows[3].count, 1);
	assert_string_equal(rows[3].name, "CPU 0/KVM");
	w.nparts = 4;
	w.parts[1] = (struct vmt_whypart){ 50, 5, VMT_WHY_PREEMPTED, "stress" };
	/*
	 * past max_rows (at least one per kind: 8), the quarter with the least time goes to
	 * its kind's "other": the largest keep their exact totals, a late large one is ranked
	 */
	for (int i = 0; i < 10; i++) {
		w.nparts = 2;
		w.parts[1] = (struct vmt_whypart){ 1, 1000 + i, VMT_WHY_WAKEUP, "w" };
		assert_int_equal(vmt_culprits_add(t, &w), 0);
	}
	w.parts[1] = (struct vmt_whypart){ 500, 2000, VMT_WHY_WAKEUP, "late" };
	assert_int_equal(vmt_culprits_add(t, &w), 0);
	n = vmt_culprits_rows(t, &rows);
	assert_true(vmt_culprits_evicted(t) > 0);
	assert_true(n <= 8 + VMT_WHY_NKINDS);
	assert_int_equal(rows[0].pid, 2000);
	assert_int_equal(rows[0].total, 500);
	assert_int_equal(rows[1].pid, 5);
	assert_int_equal(rows[1].total, 81);
	assert_string_equal(rows[2].name, "eth0");
	assert_int_equal(rows[2].total, 14);
	total = 0;
	for (size_t i = 0; i < n; i++)
		total += rows[i].total;
	/* nothing lost: the merged rows' time is in "other" */
	assert_int_equal(total, 500 + 81 + 2 + 14 + 6 + 10);
	assert_int_equal(vmt_culprits_merge(u, t), 0);
	assert_int_equal(vmt_culprits_merge(u, t), 0);
	assert_int_equal(vmt_culprits_evicted(u), 2 * vmt_culprits_evicted(t));
	n = vmt_culprits_rows(u, &rows);
	assert_int_equal(rows[0].total, 1000);
	assert_int_equal(rows[0].count, 2);
	assert_int_equal(rows[1].total, 162);
	assert_int_equal(rows[1].count, 6);
	assert_int_equal(rows[1].max, 50);
	vmt_culprits_free(t);
	vmt_culprits_free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preempted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blocked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nested_irqs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nmi, setup, teardown),
		cmocka_unit_test_setup_teardown(test_before_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_woken_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_userspace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_history, setup, teardown),
		cmocka_unit_test_setup_teardown(test_incomplete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_context, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_parts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_very_many_parts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_large_part, setup, teardown),
		cmocka_unit_test(test_sim_truth),
		cmocka_unit_test(test_sim_lossy),
		cmocka_unit_test(test_whywin_plain),
		cmocka_unit_test(test_whywin_order),
		cmocka_unit_test(test_culprits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
