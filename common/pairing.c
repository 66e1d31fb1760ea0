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
	struct vmt_event *begin;	/* its own, from the first begin on (NULL before) */
	void *ctx;
	/*
	 * Its latest event, for the time between it and the next that a gap may hide: the
	 * open begin, else the latest end (kept by the ends only: a begin costs no store).
	 */
	uint64_t end_ts;
	uint64_t seen_epoch;	/* the gap epoch at its latest event (or when it was made) */
	uint32_t end_cpu;
	bool has_last;		/* a join's task: its latest event came from a slice's tail */
	uint64_t unknown;	/* struct vmt_pair's unknown, after the latest event */
	uint64_t base;		/* a join's task: unknown before its first in the slice */
};

/*
 * A CPU's lost-events holes (vmt_pairing_gap), each with the epoch of its latest gap. Every
 * hole is kept, not only the latest: a task silent through several holes of a CPU may have
 * lost events in each (24 bytes a gap; holes meeting with no record between are one).
 * Disjoint and in time order, so the latest ones are at the end.
 */
struct hole {
	uint64_t from, until, epoch;
	uint64_t len;		/* its time in holes: until - from, less when merged (below) */
};

/* The share of [s, e), a part of hole h, that lies in holes (all of it unless merged). */
static inline uint64_t in_holes(const struct hole *h, uint64_t s, uint64_t e)
{
	uint64_t ext = h->until - h->from;

	if (s >= e)
		return 0;
	if (h->len == ext || e - s == ext)
		return e - s < h->len ? e - s : h->len;
	return (uint64_t)((unsigned __int128)(e - s) * h->len / ext);
}

struct holes {
	struct hole *h;
	size_t n, cap;
};

struct vmt_pairing {
	vmt_pair_fn fn;
	void *arg;
	struct task *tasks;	/* open addressing, power-of-two size */
	size_t ntasks, cap;
	uint64_t epoch;		/* bumped at every gap */
	struct holes *holes;	/* per CPU: every hole of its gaps, in time order */
	uint32_t ncpus;
	struct vmt_pairing_stats st;
	struct task *last;	/* most events follow one of the same task: look it up once */
	struct vmt_pairing_edges *edges;	/* a slice's edges (pairing.h), or NULL */
	int edge_error;
	struct vmt_pair pair;	/* the last pair, valid until the next event (pairing.h) */
	struct vmt_event *spare;	/* vmt_pairing_buffer() */
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
	p->spare = calloc(1, sizeof(*p->spare));
	if (!p->tasks || !p->spare) {
		free(p->tasks);
		free(p->spare);
		free(p);
		return NULL;
	}
	return p;
}

/* Task identity: the pid, except that every CPU's idle task is pid 0. */
static inline uint64_t task_key(const struct vmt_event *ev)
{
	if (ev->pid == 0)
		return 1ULL << 40 | ev->cpu;
	return (uint32_t)ev->pid;
}

uint64_t vmt_pairing_task_key(const struct vmt_event *ev)
{
	return task_key(ev);
}

int vmt_pairing_log_edges(struct vmt_pairing *p, struct vmt_pairing_edges *e)
{
	p->edges = e;
	return 0;
}

void vmt_pairing_edges_free(struct vmt_pairing_edges *e)
{
	free(e->log);
	free(e->tails);
	memset(e, 0, sizeof(*e));
}

static int log_edge(struct vmt_pairing *p, enum vmt_edge_kind kind, uint32_t cpu, uint64_t key,
		    const struct vmt_event *ev)
{
	struct vmt_pairing_edges *e = p->edges;
	struct vmt_edge *x;

	if (e->nlog == e->cap) {
		size_t n = e->cap ? e->cap * 2 : 64;
		struct vmt_edge *bigger = realloc(e->log, n * sizeof(*bigger));

		if (!bigger)
			return p->edge_error = -ENOMEM;
		e->log = bigger;
		e->cap = n;
	}
	x = &e->log[e->nlog++];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->cpu = cpu;
	x->key = key;
	if (ev)
		x->ev = *ev;
	return 0;
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
	/* its first event has nothing before it that a gap could hide */
	p->tasks[i].seen_epoch = p->epoch;
	p->ntasks++;
	return &p->tasks[i];
}

static uint64_t gap_epoch(const struct vmt_pairing *p, uint32_t cpu)
{
	return cpu < p->ncpus && p->holes[cpu].n ? p->holes[cpu].h[p->holes[cpu].n - 1].epoch : 0;
}

/* The CPU's latest hole (gap_epoch() non-zero). */
static const struct hole *latest_hole(const struct vmt_pairing *p, uint32_t cpu)
{
	return &p->holes[cpu].h[p->holes[cpu].n - 1];
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
 * Whether [lo, hi] meets the latest hole of CPU a or b. A damaged chunk's gap comes at the
 * hole's start, so a begin on another CPU inside the hole has an epoch past it: the hole
 * itself says its end may have lost the task's events in between. A hole without a known
 * end (0 to UINT64_MAX) is judged by its epoch alone.
 */
static bool in_hole(const struct vmt_pairing *p, uint32_t a, uint32_t b, uint64_t lo,
		    uint64_t hi)
{
	unsigned int k;

	for (k = 0; k < 2; k++) {
		uint32_t cpu = k ? b : a;

		const struct hole *h;

		if (!gap_epoch(p, cpu))
			continue;
		/*
		 * Earlier holes end before the latest starts, which is before lo when its gap
		 * came before the begin (else the epochs drop the pair): only the latest can meet
		 */
		h = latest_hole(p, cpu);
		if (h->until != UINT64_MAX && h->from < hi && h->until > lo)
			return true;
	}
	return false;
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
	t->end_ts = ev->ts;
	t->end_cpu = ev->cpu;
	if (gap_epoch(p, t->begin->cpu) > t->epoch || gap_epoch(p, ev->cpu) > t->epoch ||
	    __builtin_expect(in_hole(p, t->begin->cpu, ev->cpu, t->begin->ts, ev->ts), 0)) {
		p->st.gap_dropped++;
		return 0;
	}
	if (ev->ts < t->begin->ts) {
		p->st.backwards++;
		return 0;
	}
	p->st.pairs++;
	pair->begin = t->begin;
	pair->end = ev;
	pair->lat = ev->ts - t->begin->ts;
	pair->unknown = t->unknown;
	pair->task_ctx = &t->ctx;
	pair->why = NULL;
	pair->why_segs = NULL;
	pair->why_nsegs = 0;
	if (!p->fn)
		return 1;
	p->fn(pair, p->arg);
	return 0;
}

/*
 * The task of an event that is not the previous event's task; a slice logs each task's
 * first event (pairing.h).
 */
static __attribute__((noinline)) struct task *find(struct vmt_pairing *p, uint64_t key,
						   const struct vmt_event *ev)
{
	size_t before = p->ntasks;
	struct task *t = lookup(p, key);

	if (t && p->edges && p->ntasks != before &&
	    log_edge(p, ev->kind == VMT_EV_BEGIN ? VMT_EDGE_HEAD_BEGIN : VMT_EDGE_HEAD_END, 0,
		     key, ev))
		return NULL;
	return t;
}

/*
 * The first of CPU cpu's holes that lie in [lo, hi] with gaps since epoch: the list's tail
 * from there on. Walked back from the end: in time order, the holes to count are the last
 * ones, and a task's spans are disjoint, so each hole is walked at most once per task.
 */
static size_t holes_since(const struct vmt_pairing *p, uint32_t cpu, uint64_t epoch,
			  uint64_t lo)
{
	const struct holes *hs = &p->holes[cpu];
	size_t k = hs->n;

	while (k && hs->h[k - 1].epoch > epoch && hs->h[k - 1].until > lo)
		k--;
	return k;
}

/* The part of hole h inside [lo, hi] (s >= e: none). */
static inline void clip(const struct hole *h, uint64_t lo, uint64_t hi, uint64_t *s,
			uint64_t *e)
{
	*s = h->from > lo ? h->from : lo;
	*e = h->until < hi ? h->until : hi;
}

/* The length of [lo, hi] inside holes h[k .. n) of one CPU. */
static uint64_t inside(const struct hole *h, size_t k, size_t n, uint64_t lo, uint64_t hi)
{
	uint64_t len = 0, s, e;

	for (; k < n; k++) {
		clip(&h[k], lo, hi, &s, &e);
		len += in_holes(&h[k], s, e);
	}
	return len;
}

/*
 * Of the span [lo, hi] between two events of a task, on CPUs a and b, the time inside the
 * holes of every gap those CPUs had since epoch: there the task's events may be lost, and
 * so whether it was in the guest. A pair across such a gap is never made either. The two
 * CPUs' holes may overlap: that time counts once.
 */
static uint64_t hidden(const struct vmt_pairing *p, uint64_t epoch, uint32_t a, uint32_t b,
		       uint64_t lo, uint64_t hi)
{
	const struct hole *ha, *hb;
	size_t i, j, na, nb, ka = 0, kb;
	uint64_t n = 0;

	if (gap_epoch(p, a) > epoch) {
		ka = holes_since(p, a, epoch, lo);
		n += inside(p->holes[a].h, ka, p->holes[a].n, lo, hi);
	}
	if (a == b || gap_epoch(p, b) <= epoch)
		return n;
	kb = holes_since(p, b, epoch, lo);
	n += inside(p->holes[b].h, kb, p->holes[b].n, lo, hi);
	if (gap_epoch(p, a) <= epoch)
		return n;
	/* less the overlap of the two lists, each disjoint and in time order */
	ha = p->holes[a].h;
	hb = p->holes[b].h;
	na = p->holes[a].n;
	nb = p->holes[b].n;
	for (i = ka, j = kb; i < na && j < nb;) {
		uint64_t sa, ea, sb, eb, s, e;

		clip(&ha[i], lo, hi, &sa, &ea);
		clip(&hb[j], lo, hi, &sb, &eb);
		s = sa > sb ? sa : sb;
		e = ea < eb ? ea : eb;
		/* merged holes: their shares of the overlap, as if spread evenly */
		if (s < e)
			n -= in_holes(&hb[j], s, in_holes(&ha[i], s, e) + s);
		if (ea < eb)
			i++;
		else
			j++;
	}
	return n;
}

/* The task's latest event: its time and CPU. */
static inline uint64_t last_event(const struct task *t, uint32_t *cpu)
{
	*cpu = t->open ? t->begin->cpu : t->end_cpu;
	return t->open ? t->begin->ts : t->end_ts;
}

/* A gap came since the task's latest event (rare: out of line). */
static __attribute__((noinline)) void since_gap(struct vmt_pairing *p, struct task *t,
						const struct vmt_event *ev)
{
	uint32_t cpu;
	uint64_t ts = last_event(t, &cpu);

	t->unknown += hidden(p, t->seen_epoch, cpu, ev->cpu, ts, ev->ts);
	t->seen_epoch = p->epoch;
}

size_t vmt_pairing_holes_kept(const struct vmt_pairing *p)
{
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < p->ncpus; i++)
		n += p->holes[i].n;
	return n;
}

const struct vmt_pair *vmt_pairing_last(const struct vmt_pairing *p)
{
	return &p->pair;
}

struct vmt_event *vmt_pairing_buffer(struct vmt_pairing *p)
{
	return p->spare;
}

/*
 * A begin kept: the buffer it was decoded into changes hands, or it is copied (a first
 * begin of the task, or an event from elsewhere). Returns 0 or -ENOMEM.
 */
static inline int keep_begin(struct vmt_pairing *p, struct task *t, const struct vmt_event *ev)
{
	if (ev == p->spare && t->begin) {
		p->spare = t->begin;
		t->begin = (struct vmt_event *)ev;
		return 0;
	}
	if (!t->begin) {
		t->begin = malloc(sizeof(*t->begin));
		if (!t->begin)
			return -ENOMEM;
	}
	copy_event(t->begin, ev);
	return 0;
}

int vmt_pairing_event(struct vmt_pairing *p, const struct vmt_event *ev)
{
	uint64_t key = task_key(ev);
	struct task *t;

	t = p->last && p->last->key == key ? p->last : find(p, key, ev);
	if (!t)
		return -ENOMEM;
	p->last = t;
	if (__builtin_expect(t->seen_epoch != p->epoch, 0))
		since_gap(p, t, ev);
	if (ev->kind == VMT_EV_BEGIN) {
		if (t->open)
			p->st.orphan_begins++;
		if (keep_begin(p, t, ev)) {
			t->open = false;
			return -ENOMEM;
		}
		t->open = true;
		t->epoch = p->epoch;
		return 0;
	}
	if (!t->open) {
		p->st.orphan_ends++;
		t->end_ts = ev->ts;
		t->end_cpu = ev->cpu;
		return 0;
	}
	return pair_end(p, t, ev);
}

/* Room for CPU cpu's lists, and for one more hole in its list. */
/*
 * A CPU's holes are kept until no task can count them: hidden() takes only those whose
 * gaps came after a task's latest event (seen_epoch), and in_hole() only the latest. So a
 * full list first drops the holes older than every task's latest event, and grows only
 * when that frees nothing (a long-silent task keeps what came since: a recording with a
 * gap at every poll of every CPU would otherwise grow by 24 bytes a poll and CPU).
 */
#define HOLES_PRUNE 1024

/*
 * When tasks still need every hole of a full list (a task seen once, then never again,
 * keeps all that come after it), the older half is merged two by two, so that a CPU never
 * keeps more than HOLES_PRUNE holes (32 KiB): a merged hole spans both and keeps their
 * summed time (len), exact for a span that covers it whole, what a task silent since
 * before it has; a span starting or ending inside it, or another CPU's holes overlapping
 * it, get a share as if its time were spread evenly.
 */
static void merge_old_holes(struct holes *hs)
{
	size_t half = hs->n / 2 & ~(size_t)1, i;

	for (i = 0; i < half / 2; i++) {
		struct hole *x = &hs->h[2 * i], *y = &hs->h[2 * i + 1];

		hs->h[i] = (struct hole){ x->from, y->until, y->epoch, x->len + y->len };
	}
	memmove(hs->h + half / 2, hs->h + half, (hs->n - half) * sizeof(*hs->h));
	hs->n -= half / 2;
}

static void prune_holes(const struct vmt_pairing *p, struct holes *hs)
{
	uint64_t oldest = p->epoch;
	size_t i, drop = 0;

	for (i = 0; i < p->cap; i++) {
		if (p->tasks[i].used && p->tasks[i].seen_epoch < oldest)
			oldest = p->tasks[i].seen_epoch;
	}
	while (drop + 1 < hs->n && hs->h[drop].epoch <= oldest)
		drop++;
	if (!drop)
		return;
	memmove(hs->h, hs->h + drop, (hs->n - drop) * sizeof(*hs->h));
	hs->n -= drop;
}

static int hole_room(struct vmt_pairing *p, uint32_t cpu)
{
	struct holes *hs;

	if (cpu >= p->ncpus) {
		uint32_t n = cpu + 1 > p->ncpus * 2 ? cpu + 1 : p->ncpus * 2;
		struct holes *bigger = realloc(p->holes, n * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		memset(bigger + p->ncpus, 0, (n - p->ncpus) * sizeof(*bigger));
		p->holes = bigger;
		p->ncpus = n;
	}
	hs = &p->holes[cpu];
	if (hs->n == hs->cap && hs->cap >= HOLES_PRUNE)
		prune_holes(p, hs);
	if (hs->n == hs->cap && hs->cap >= HOLES_PRUNE)
		merge_old_holes(hs);
	if (hs->n == hs->cap) {
		size_t n = hs->cap ? hs->cap * 2 : 8;
		struct hole *bigger = realloc(hs->h, n * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		hs->h = bigger;
		hs->cap = n;
	}
	return 0;
}

int vmt_pairing_gap(struct vmt_pairing *p, uint32_t cpu, uint64_t from, uint64_t until)
{
	struct hole *h;

	if (hole_room(p, cpu))
		return -ENOMEM;
	h = p->holes[cpu].n ? &p->holes[cpu].h[p->holes[cpu].n - 1] : NULL;
	/* gaps with no record of the CPU between them (it starts before the last ends): one */
	if (h && from < h->until) {
		if (until > h->until)
			h->until = until;
	} else {
		h = &p->holes[cpu].h[p->holes[cpu].n++];
		h->from = from;
		h->until = until;
	}
	h->len = h->until - h->from;
	h->epoch = ++p->epoch;
	if (!p->edges)
		return 0;
	if (log_edge(p, VMT_EDGE_GAP, cpu, 0, NULL))
		return -ENOMEM;
	p->edges->log[p->edges->nlog - 1].from = from;
	p->edges->log[p->edges->nlog - 1].until = until;
	return 0;
}

void vmt_pairing_each_open(const struct vmt_pairing *p,
			   void (*fn)(const struct vmt_event *begin, void *arg), void *arg)
{
	size_t i;

	for (i = 0; i < p->cap; i++) {
		const struct task *t = &p->tasks[i];

		if (t->used && t->open && gap_epoch(p, t->begin->cpu) <= t->epoch)
			fn(t->begin, arg);
	}
}

void vmt_pairing_each_unfinished(const struct vmt_pairing *p,
				 void (*fn)(const struct vmt_event *begin, bool lost_since,
					    void *arg),
				 void *arg)
{
	size_t i;

	for (i = 0; i < p->cap; i++) {
		const struct task *t = &p->tasks[i];

		if (t->used && t->open)
			fn(t->begin, gap_epoch(p, t->begin->cpu) > t->epoch, arg);
	}
}

int vmt_pairing_finish(struct vmt_pairing *p)
{
	struct vmt_pairing_edges *e = p->edges;
	size_t i;

	if (e && p->ntasks) {
		e->tails = calloc(p->ntasks, sizeof(*e->tails));
		if (!e->tails)
			return -ENOMEM;
	}
	for (i = 0; i < p->cap; i++) {
		struct task *t = &p->tasks[i];

		if (!t->used)
			continue;
		if (e) {
			struct vmt_edge_tail *x = &e->tails[e->ntails++];

			x->key = t->key;
			x->open = t->open;
			x->epoch = t->epoch;
			if (t->open)
				x->begin = *t->begin;
			x->last_ts = last_event(t, &x->last_cpu);
			x->last_epoch = t->seen_epoch;
			x->unknown = t->unknown;
		}
		if (t->open) {
			t->open = false;
			p->st.unfinished++;
		}
	}
	return p->edge_error;
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
		free(p->tasks[i].begin);
	}
	free(p->spare);
	free(p->tasks);
	for (i = 0; i < p->ncpus; i++)
		free(p->holes[i].h);
	free(p->holes);
	free(p);
}

int vmt_pairing_join(struct vmt_pairing *p, const struct vmt_pairing_edges *e,
		     struct vmt_pairing_stats *st)
{
	uint64_t base = p->epoch;
	size_t i;
	int ret;

	for (i = 0; i < e->nlog; i++) {
		const struct vmt_edge *x = &e->log[i];
		struct task *t;

		if (x->kind == VMT_EDGE_GAP) {
			ret = vmt_pairing_gap(p, x->cpu, x->from, x->until);
			if (ret)
				return ret;
			continue;
		}
		t = lookup(p, x->key);
		if (!t)
			return -ENOMEM;
		/*
		 * The span from the task's last event in the slices before to its first in this
		 * one, which neither slice's pairing saw whole: unknown as in since_gap()
		 */
		if (t->has_last) {
			uint32_t cpu;
			uint64_t ts = last_event(t, &cpu);

			t->unknown += hidden(p, t->seen_epoch, cpu, x->ev.cpu, ts, x->ev.ts);
		}
		t->base = t->unknown;
		if (!t->open)
			continue;
		/* the begin an earlier slice left open was not unfinished after all */
		st->unfinished--;
		if (x->kind == VMT_EDGE_HEAD_BEGIN) {
			t->open = false;
			st->orphan_begins++;	/* a begin after a begin */
			continue;
		}
		st->orphan_ends--;		/* the end has its begin */
		pair_end(p, t, &x->ev);
	}
	for (i = 0; i < e->ntails; i++) {
		const struct vmt_edge_tail *x = &e->tails[i];
		struct task *t = lookup(p, x->key);

		if (!t)
			return -ENOMEM;
		t->open = x->open;
		t->epoch = base + x->epoch;
		t->has_last = true;
		t->end_ts = x->last_ts;	/* when open, the begin below is the latest */
		t->end_cpu = x->last_cpu;
		t->seen_epoch = base + x->last_epoch;
		t->unknown = t->base + x->unknown;
		if (x->open && keep_begin(p, t, &x->begin)) {
			t->open = false;
			return -ENOMEM;
		}
	}
	p->last = NULL;
	return 0;
}

uint64_t vmt_pairing_unknown_base(const struct vmt_pairing *p, uint64_t key)
{
	size_t i;

	for (i = hash(key) & (p->cap - 1); p->tasks[i].used; i = (i + 1) & (p->cap - 1)) {
		if (p->tasks[i].key == key)
			return p->tasks[i].base;
	}
	return 0;
}
