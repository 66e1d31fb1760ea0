// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pairing.h"

struct task {
	uint64_t key;
	bool used;
	bool open;		/* a begin waits for its end */
	uint64_t epoch;		/* gap epoch when the begin was seen */
	struct vmt_event begin;
	void *ctx;
};

struct vmt_pairing {
	vmt_pair_fn fn;
	void *arg;
	struct task *tasks;	/* open addressing, power-of-two size */
	size_t ntasks, cap;
	uint64_t epoch;		/* bumped at every gap */
	uint64_t *cpu_gap_epoch;	/* per CPU: epoch of its last gap */
	uint32_t ncpus;
	struct vmt_pairing_stats st;
	struct task *last;	/* most events follow one of the same task: look it up once */
	struct vmt_pair pair;	/* the last pair, valid until the next event (pairing.h) */
};

struct vmt_pairing *vmt_pairing_new(vmt_pair_fn fn, void *arg)
{
	struct vmt_pairing *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->fn = fn;
	p->arg = arg;
	p->cap = 64;
	p->tasks = calloc(p->cap, sizeof(*p->tasks));
	if (!p->tasks) {
		free(p);
		return NULL;
	}
	return p;
}

/* Task identity: the pid, except that every CPU's idle task is pid 0. */
static uint64_t task_key(const struct vmt_event *ev)
{
	if (ev->pid == 0)
		return 1ULL << 40 | ev->cpu;
	return (uint32_t)ev->pid;
}

static size_t hash(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key;
}

static int grow(struct vmt_pairing *p)
{
	size_t cap = p->cap * 2, i;
	struct task *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < p->cap; i++) {
		size_t j;

		if (!p->tasks[i].used)
			continue;
		for (j = hash(p->tasks[i].key) & (cap - 1); t[j].used; j = (j + 1) & (cap - 1))
			;
		t[j] = p->tasks[i];
	}
	free(p->tasks);
	p->tasks = t;
	p->cap = cap;
	p->last = NULL;		/* it pointed into the old table */
	return 0;
}

/* Out of line: most events are of the task before (p->last). */
static __attribute__((noinline)) struct task *lookup(struct vmt_pairing *p, uint64_t key)
{
	size_t i;

	for (i = hash(key) & (p->cap - 1); p->tasks[i].used; i = (i + 1) & (p->cap - 1)) {
		if (p->tasks[i].key == key)
			return &p->tasks[i];
	}
	if ((p->ntasks + 1) * 4 > p->cap * 3) {
		if (grow(p))
			return NULL;
		return lookup(p, key);
	}
	p->tasks[i].used = true;
	p->tasks[i].key = key;
	p->ntasks++;
	return &p->tasks[i];
}

static uint64_t gap_epoch(const struct vmt_pairing *p, uint32_t cpu)
{
	return cpu < p->ncpus ? p->cpu_gap_epoch[cpu] : 0;
}

/*
 * The begin kept field by field, each load as wide as the decoder's store: ev was written
 * just before, and the wider loads of a struct copy (merged fields, 16-byte moves) cannot be
 * forwarded from narrower stores; the stall took a third of the pairing's time. The empty
 * asm statements keep the compiler from merging the fields again.
 */
#define NO_MERGE() __asm__("" ::: "memory")

static inline void copy_event(struct vmt_event *to, const struct vmt_event *ev)
{
	to->ts = ev->ts;
	NO_MERGE();
	to->cpu = ev->cpu;
	NO_MERGE();
	to->pid = ev->pid;
	NO_MERGE();
	to->kind = ev->kind;
	NO_MERGE();
	to->flags = ev->flags;
	NO_MERGE();
	to->has = ev->has;
	NO_MERGE();
	to->vcpu = ev->vcpu;
	NO_MERGE();
	to->isa = ev->isa;
	NO_MERGE();
	to->reason = ev->reason;
	NO_MERGE();
	to->rip = ev->rip;
	NO_MERGE();
	to->info1 = ev->info1;
	NO_MERGE();
	to->info2 = ev->info2;
	NO_MERGE();
	to->intr_info = ev->intr_info;
	NO_MERGE();
	to->error_code = ev->error_code;
}

/*
 * An end that finds its begin open, out of line (called as a tail call): the path of every
 * other event then saves no registers, and most events are begins or ends that pair.
 */
static __attribute__((noinline)) int pair_end(struct vmt_pairing *p, struct task *t,
					      const struct vmt_event *ev)
{
	struct vmt_pair *pair = &p->pair;

	t->open = false;
	if (gap_epoch(p, t->begin.cpu) > t->epoch || gap_epoch(p, ev->cpu) > t->epoch) {
		p->st.gap_dropped++;
		return 0;
	}
	if (ev->ts < t->begin.ts) {
		p->st.backwards++;
		return 0;
	}
	p->st.pairs++;
	pair->begin = &t->begin;
	pair->end = ev;
	pair->lat = ev->ts - t->begin.ts;
	pair->task_ctx = &t->ctx;
	pair->why = NULL;
	pair->why_segs = NULL;
	pair->why_nsegs = 0;
	if (p->fn)
		p->fn(pair, p->arg);
	return 0;
}

int vmt_pairing_event(struct vmt_pairing *p, const struct vmt_event *ev)
{
	uint64_t key = task_key(ev);
	struct task *t;

	t = p->last && p->last->key == key ? p->last : lookup(p, key);
	if (!t)
		return -ENOMEM;
	p->last = t;
	if (ev->kind == VMT_EV_BEGIN) {
		if (t->open)
			p->st.orphan_begins++;
		t->open = true;
		t->epoch = p->epoch;
		copy_event(&t->begin, ev);
		return 0;
	}
	if (!t->open) {
		p->st.orphan_ends++;
		return 0;
	}
	return pair_end(p, t, ev);
}

int vmt_pairing_gap(struct vmt_pairing *p, uint32_t cpu)
{
	if (cpu >= p->ncpus) {
		uint32_t n = cpu + 1 > p->ncpus * 2 ? cpu + 1 : p->ncpus * 2;
		uint64_t *bigger = realloc(p->cpu_gap_epoch, n * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		memset(bigger + p->ncpus, 0, (n - p->ncpus) * sizeof(*bigger));
		p->cpu_gap_epoch = bigger;
		p->ncpus = n;
	}
	p->cpu_gap_epoch[cpu] = ++p->epoch;
	return 0;
}

void vmt_pairing_finish(struct vmt_pairing *p)
{
	size_t i;

	for (i = 0; i < p->cap; i++) {
		if (p->tasks[i].used && p->tasks[i].open) {
			p->tasks[i].open = false;
			p->st.unfinished++;
		}
	}
}

const struct vmt_pairing_stats *vmt_pairing_stats(const struct vmt_pairing *p)
{
	return &p->st;
}

void vmt_pairing_free(struct vmt_pairing *p, void (*ctx_free)(void *ctx, void *arg),
		      void *arg)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->cap; i++) {
		if (p->tasks[i].used && p->tasks[i].ctx && ctx_free)
			ctx_free(p->tasks[i].ctx, arg);
	}
	free(p->tasks);
	free(p->cpu_gap_epoch);
	free(p);
}
