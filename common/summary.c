// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "summary_impl.h"

static void group_init(struct vmt_group *g)
{
	memset(g, 0, sizeof(*g));
	vmt_latdist_init(&g->d);
}

static size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

#define REASON_DIRECT_ISAS 4	/* VMT_ISA_ANY, VMX, SVM and one more */
#define REASON_DIRECT_CODES 2048	/* VMX basic reasons and SVM codes up to NPF and past */

static struct vmt_group *reason_group_hashed(struct vmt_summary *s, uint32_t isa, uint64_t key)
{
	struct summary_work *w = s->work;
	uint64_t hk = key ^ (uint64_t)isa << 60;
	size_t i;

	if (!w->reason_cap || (s->nreasons + 1) * 2 > w->reason_cap) {
		size_t cap = w->reason_cap ? w->reason_cap * 2 : 64, j;
		size_t *slot = malloc(cap * sizeof(*slot));

		if (!slot)
			return NULL;
		for (j = 0; j < cap; j++)
			slot[j] = SIZE_MAX;
		for (j = 0; j < s->nreasons; j++) {
			size_t h = hash64(s->reasons[j].key ^ (uint64_t)s->reasons[j].isa << 60);

			while (slot[h & (cap - 1)] != SIZE_MAX)
				h++;
			slot[h & (cap - 1)] = j;
		}
		free(w->reason_slot);
		w->reason_slot = slot;
		w->reason_cap = cap;
	}
	for (i = hash64(hk);; i++) {
		size_t idx = w->reason_slot[i & (w->reason_cap - 1)];

		if (idx == SIZE_MAX)
			break;
		if (s->reasons[idx].key == key && s->reasons[idx].isa == isa)
			return &s->reasons[idx];
	}
	if (s->nreasons == w->reasons_alloc) {
		size_t n = w->reasons_alloc ? w->reasons_alloc * 2 : 16;
		struct vmt_group *bigger = realloc(s->reasons, n * sizeof(*bigger));

		if (!bigger)
			return NULL;
		s->reasons = bigger;
		w->reasons_alloc = n;
	}
	w->reason_slot[i & (w->reason_cap - 1)] = s->nreasons;
	group_init(&s->reasons[s->nreasons]);
	s->reasons[s->nreasons].isa = isa;
	s->reasons[s->nreasons].key = key;
	return &s->reasons[s->nreasons++];
}

/* A reason's group the first time, or past the direct table: out of line. */
static __attribute__((noinline)) struct vmt_group *reason_group_new(struct vmt_summary *s,
								     uint32_t isa, uint64_t key)
{
	struct summary_work *w = s->work;
	struct vmt_group *g;
	uint32_t *d;

	if (isa >= REASON_DIRECT_ISAS || key >= REASON_DIRECT_CODES)
		return reason_group_hashed(s, isa, key);
	if (!w->reason_direct) {
		w->reason_direct = calloc(REASON_DIRECT_ISAS * REASON_DIRECT_CODES,
					  sizeof(*w->reason_direct));
		if (!w->reason_direct)
			return NULL;
	}
	d = &w->reason_direct[isa * REASON_DIRECT_CODES + key];
	if (*d)
		return &s->reasons[*d - 1];
	g = reason_group_hashed(s, isa, key);
	if (g && s->nreasons < UINT32_MAX)
		*d = (uint32_t)(g - s->reasons) + 1;
	return g;
}

/* Once per exit: a reason seen before is one load from the direct table, inline. */
static inline struct vmt_group *reason_group(struct vmt_summary *s, uint32_t isa, uint64_t key)
{
	const uint32_t *direct = s->work->reason_direct;
	uint32_t d;

	if (isa < REASON_DIRECT_ISAS && key < REASON_DIRECT_CODES && direct &&
	    (d = direct[isa * REASON_DIRECT_CODES + key]) != 0)
		return &s->reasons[d - 1];
	return reason_group_new(s, isa, key);
}

struct vmt_group *vmt_summary_cpu_group(struct vmt_summary *s, uint32_t cpu)
{
	struct summary_work *w = s->work;

	if (cpu >= w->cpus_alloc) {
		size_t n = cpu + 1 > w->cpus_alloc * 2 ? cpu + 1 : w->cpus_alloc * 2, i;
		struct vmt_group *bigger = realloc(s->cpus, n * sizeof(*bigger));

		if (!bigger)
			return NULL;
		for (i = w->cpus_alloc; i < n; i++) {
			group_init(&bigger[i]);
			bigger[i].key = i;
		}
		s->cpus = bigger;
		w->cpus_alloc = n;
	}
	if (cpu >= s->ncpus)
		s->ncpus = cpu + 1;
	return &s->cpus[cpu];
}

/* Whether an exit of lat may enter the top list: most do not, once it is full. */
static inline bool top_wants(const struct vmt_summary *s, uint64_t lat)
{
	unsigned int n = s->work->o.top_n;

	return n && (s->ntop < n || lat >= s->top[0].lat);
}

/*
 * The order of the longest exits: longer first, then the earlier exit, then by pCPU, pid
 * and entry pCPU. A total order, so that the list is the same whatever order the exits
 * are added in (time slices merged, slicepass.h).
 */
static int top_cmp(const struct vmt_top *x, const struct vmt_top *y)
{
	if (x->lat != y->lat)
		return x->lat < y->lat ? 1 : -1;
	if (x->exit.ts != y->exit.ts)
		return x->exit.ts < y->exit.ts ? -1 : 1;
	if (x->exit.cpu != y->exit.cpu)
		return x->exit.cpu < y->exit.cpu ? -1 : 1;
	if (x->exit.pid != y->exit.pid)
		return x->exit.pid < y->exit.pid ? -1 : 1;
	return (x->entry_cpu > y->entry_cpu) - (x->entry_cpu < y->entry_cpu);
}

/* Add t to the list: a heap whose root is the last of the kept ones in top_cmp order. */
static void top_insert(struct vmt_summary *s, const struct vmt_top *t)
{
	unsigned int n = s->work->o.top_n, i;

	if (s->ntop < n) {
		i = s->ntop++;
		while (i && top_cmp(&s->top[(i - 1) / 2], t) < 0) {
			s->top[i] = s->top[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		s->top[i] = *t;
		return;
	}
	if (top_cmp(t, &s->top[0]) >= 0)
		return;
	i = 0;
	for (;;) {
		unsigned int l = 2 * i + 1, m = l;

		if (l >= n)
			break;
		if (l + 1 < n && top_cmp(&s->top[l + 1], &s->top[l]) > 0)
			m = l + 1;
		if (top_cmp(&s->top[m], t) <= 0)
			break;
		s->top[i] = s->top[m];
		i = m;
	}
	s->top[i] = *t;
}

/* Out of line: on_pair's own test keeps most exits from it (see top_wants). */
static __attribute__((noinline)) void top_add(struct vmt_summary *s, const struct vmt_pair *p)
{
	unsigned int n = s->work->o.top_n;
	struct vmt_top t;

	if (!n)
		return;
	if (s->ntop == n && p->lat < s->top[0].lat)
		return;
	memset(&t, 0, sizeof(t));
	t.exit = *p->begin;
	t.lat = p->lat;
	t.entry_cpu = p->end->cpu;
	t.has_why = p->why != NULL;
	if (p->why)
		t.why = *p->why;
	top_insert(s, &t);
}

static unsigned int hist_index(const struct vmt_summary *s, uint64_t lat)
{
	if (s->hist_log) {
		unsigned int b = lat < 2 ? 0 : 63 - (unsigned int)__builtin_clzll(lat);

		return b < s->hist_buckets ? b : s->hist_buckets;
	}
	lat /= s->hist_bucket;
	return lat < s->hist_buckets ? (unsigned int)lat : s->hist_buckets;
}

/* The histogram's row of cpu, made when it has none: its index, or -ENOMEM. */
int vmt_summary_hist_row(struct vmt_summary *s, uint32_t cpu)
{
	unsigned int row;

	for (row = 0; row < s->hist_ncpus; row++) {
		if (s->hist_cpu[row] == cpu)
			break;
	}
	if (row == s->hist_ncpus) {
		size_t w = (size_t)s->hist_buckets + 1;
		uint64_t *h = realloc(s->hist, (row + 1) * w * sizeof(*h));
		uint32_t *hc;

		if (!h)
			return -ENOMEM;
		s->hist = h;
		memset(h + row * w, 0, w * sizeof(*h));
		hc = realloc(s->hist_cpu, (row + 1) * sizeof(*hc));
		if (!hc)
			return -ENOMEM;
		s->hist_cpu = hc;
		hc[row] = cpu;
		s->hist_ncpus++;
	}
	return (int)row;
}

int vmt_summary_hist_add(struct vmt_summary *s, uint32_t cpu, uint64_t lat)
{
	int row = vmt_summary_hist_row(s, cpu);

	if (row < 0)
		return row;
	s->hist[(size_t)row * ((size_t)s->hist_buckets + 1) + hist_index(s, lat)]++;
	return 0;
}

static int on_start(void *state, const struct vmt_iter *it)
{
	struct vmt_summary *s = state;
	const struct vmt_summary_opts *o = &s->work->o;

	s->window_ns = o->window_ns;
	s->window = vmt_clock_ticks_ceil(it->clock, o->window_ns);
	s->start_ts = it->start_ts;
	s->why = it->why;
	s->why_recorded = it->why_recorded;
	s->context_formats = it->context_formats;
	if (s->why) {
		s->culprits = vmt_culprits_new(4096);
		if (!s->culprits)
			return -ENOMEM;
	}
	if (o->top_n) {
		s->top = calloc(o->top_n, sizeof(*s->top));
		if (!s->top)
			return -ENOMEM;
	}
	if (o->histogram) {
		s->hist_log = o->hist_log;
		s->hist_buckets = o->hist_buckets ? o->hist_buckets : 100;
		s->hist_bucket = o->hist_log ? 0 : vmt_clock_ticks(it->clock, o->hist_bucket_ns);
		if (!s->hist_log && !s->hist_bucket)
			s->hist_bucket = 1;
	}
	return vmt_exitreasons_new(it->begin_format, it->machine, &s->names);
}

struct task *vmt_summary_new_task(struct vmt_summary *s, int32_t pid)
{
	struct task *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	group_init(&t->g);
	t->g.pid = pid;
	t->g.first_ts = UINT64_MAX;
	t->g.unknown_lo = UINT64_MAX;
	if (vmt_window_init(&t->win, s->window)) {
		free(t);
		return NULL;
	}
	if (s->why) {
		if (vmt_whywin_init(&t->whywin, s->window)) {
			vmt_window_free(&t->win);
			free(t);
			return NULL;
		}
		t->has_whywin = true;
	}
	t->next = s->work->tasks;
	s->work->tasks = t;
	s->work->ntasks++;
	return t;
}

/* The task's sliding window: the plain one, or the one broken down when attributing. */
static inline const struct vmt_window *task_window(const struct task *t)
{
	return t->has_whywin ? &t->whywin.win : &t->win;
}

/*
 * A plain complete exit (all kvm) is left out of its task's and reason's sums during the
 * pass: the groups' distributions count it with its latency, so why_fill() adds the count
 * and the kvm time of all of them at the end, exactly. Not one with host interrupts before
 * it: their sum is not in the distributions.
 */
static inline bool why_deferred(const struct vmt_why *w)
{
	return w->plain && !w->incomplete && !w->before;
}

/* g's plain complete exits into its sums: g->d has every exit g->why has, and those. */
static void why_fill(struct vmt_group *g)
{
	uint64_t sum = 0, total;
	unsigned int k;

	for (k = 0; k < VMT_WHY_NKINDS; k++)
		sum += g->why.ticks[k];
	total = vmt_latstat_total(&g->d.st);
	g->why.ticks[VMT_WHY_KVM] += total > sum ? total - sum : 0;
	g->why.count = g->d.st.count;
}

/* Where the pair's time went, into the task's figures and the culprits. */
static int add_why(struct vmt_summary *s, struct task *t, const struct vmt_pair *p)
{
	if (why_deferred(p->why))
		return 0;
	/* every other pair goes to its task's sums: the whole is their sum, made at the end */
	vmt_whysum_add(&t->g.why, p->why);
	/* only parts other than kvm make culprits: a plain exit costs nothing here */
	if (!p->why->plain &&
	    (p->why->nparts > 1 || (p->why->nparts == 1 && p->why->parts[0].kind != VMT_WHY_KVM)))
		return vmt_culprits_add(s->culprits, p->why);
	return 0;
}

/* Out of line: only a slice's summary keeps its tasks' first intervals. */
static __attribute__((noinline)) int add_head(struct task *t, uint64_t start, uint64_t end)
{
	if (t->nheads == t->heads_cap) {
		uint32_t n = t->heads_cap ? t->heads_cap * 2 : 16;
		struct vmt_interval *bigger = realloc(t->heads, n * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		t->heads = bigger;
		t->heads_cap = n;
	}
	t->heads[t->nheads].start = start;
	t->heads[t->nheads++].end = end;
	return 0;
}

/* opts.vmmap: the pair in its task's VM's figures of reason g (vmreason.h). */
static int vm_reason_add(struct vmt_summary *s, struct task *t, const struct vmt_group *g,
			 uint64_t lat, const struct vmt_clock *clk)
{
	if (!t->vm_known)
		t->vm = vmt_vmreasons_vm_of(&s->vmreasons, t->g.pid);
	t->vm_known = true;
	return vmt_vmreasons_add(&s->vmreasons, t->vm, (size_t)(g - s->reasons), g->isa, g->key,
				 lat, vmt_clock_ns(clk, lat));
}

static int on_pair(void *state, const struct vmt_iter *it, const struct vmt_pair *p, void **slot)
{
	struct vmt_summary *s = state;
	const struct vmt_event *ex = p->begin;
	struct task *t = *slot;
	struct vmt_group *g;
	struct vmt_latval lv;
	int ret = 0;

	/*
	 * Once for the three distributions below; the overall one is the sum of the
	 * per-CPU ones, merged at the end (a fourth update per exit cost more than that).
	 */
	vmt_latval_init(&lv, p->lat);
	if (!t) {
		t = vmt_summary_new_task(s, p->end->pid);
		if (!t)
			return -ENOMEM;
		*slot = t;
		t->home_cpu = ex->cpu;
		t->key = t->g.key = vmt_pairing_task_key(p->end);
		t->head_from = ex->ts;
		/* the pCPU's group exists from its first exit on, as before */
		if (!vmt_summary_cpu_group(s, ex->cpu))
			return -ENOMEM;
	}
	if (t->migrated) {
		g = vmt_summary_cpu_group(s, ex->cpu);
		if (!g || vmt_latdist_add_val(&g->d, &lv))
			ret = -ENOMEM;
	} else if (ex->cpu != t->home_cpu) {
		/* the first exit elsewhere: the home pCPU takes the task's pairs so far */
		t->migrated = true;
		g = vmt_summary_cpu_group(s, t->home_cpu);
		if (!g || vmt_latdist_merge(&g->d, &t->g.d))
			ret = -ENOMEM;
		g = vmt_summary_cpu_group(s, ex->cpu);
		if (!g || vmt_latdist_add_val(&g->d, &lv))
			ret = -ENOMEM;
	}
	if (vmt_latdist_add_val(&t->g.d, &lv))
		ret = -ENOMEM;
	if (ex->ts < t->g.first_ts)
		t->g.first_ts = ex->ts;
	if (p->end->ts > t->g.last_ts)
		t->g.last_ts = p->end->ts;
	/* a running total: the first and last pairs' bound the time unknown between them */
	if (p->unknown < t->g.unknown_lo)
		t->g.unknown_lo = p->unknown;
	if (p->unknown > t->g.unknown_hi)
		t->g.unknown_hi = p->unknown;
	if (p->end->has & VMT_EVF_VCPU) {
		t->g.vcpu = p->end->vcpu;
		t->g.has_vcpu = true;
	} else if (ex->has & VMT_EVF_VCPU) {
		t->g.vcpu = ex->vcpu;
		t->g.has_vcpu = true;
	}
	if (t->has_whywin) {
		/* its window as well: the windows are broken down only when the maximum grows */
		if (vmt_whywin_add(&t->whywin, ex->ts, p->end->ts, p->why, p->why_segs,
				   p->why_nsegs))
			return -ENOMEM;
	} else if (vmt_window_add(&t->win, ex->ts, p->end->ts)) {
		return -ENOMEM;
	}
	/* a difference: that exit + window may not fit in 64 bits (hostile times) */
	if (__builtin_expect(s->work->slice, 0) &&
	    (p->end->ts < t->head_from || p->end->ts - t->head_from < s->window) &&
	    add_head(t, ex->ts, p->end->ts))
		return -ENOMEM;
	if (p->why && add_why(s, t, p))
		ret = -ENOMEM;
	if (ex->has & VMT_EVF_REASON) {
		uint32_t isa = (ex->has & VMT_EVF_ISA) ? ex->isa : VMT_ISA_ANY;

		g = reason_group(s, isa, vmt_exitreason_key(isa, ex->reason));
		if (!g || vmt_latdist_add_val(&g->d, &lv))
			ret = -ENOMEM;
		else if (p->why && !why_deferred(p->why))
			vmt_whysum_add(&g->why, p->why);
		if (g && s->vmreasons.on && vm_reason_add(s, t, g, p->lat, it->clock))
			ret = -ENOMEM;
	}
	if (top_wants(s, p->lat))
		top_add(s, p);
	if (s->hist_buckets && vmt_summary_hist_add(s, ex->cpu, p->lat))
		ret = -ENOMEM;
	(void)it;
	return ret;
}

void vmt_summary_task_free(struct task *t)
{
	vmt_window_free(&t->win);
	if (t->has_whywin)
		vmt_whywin_free(&t->whywin);
	vmt_latdist_free(&t->g.d);
	free(t->heads);
	free(t);
}

/* A slice's and a merged summary's tasks outlive the pass: vmt_summary_free() frees them. */
static void task_free(void *state, void *task)
{
	struct vmt_summary *s = state;

	if (!s->work->owns_tasks)
		vmt_summary_task_free(task);
}

static int by_pairs(const void *a, const void *b)
{
	const struct vmt_group *x = a, *y = b;

	if (x->d.st.count != y->d.st.count)
		return x->d.st.count < y->d.st.count ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	/* each pCPU's idle task is pid 0: the task's key tells them apart */
	return (x->key > y->key) - (x->key < y->key);
}

static int by_total(const void *a, const void *b)
{
	const struct vmt_group *x = a, *y = b;

	if (x->d.st.sum != y->d.st.sum)
		return x->d.st.sum < y->d.st.sum ? 1 : -1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	/*
	 * One code under both ISAs (a recording with both): a total order, the same whatever
	 * order the groups were made in (time slices, slicepass.h).
	 */
	return (x->isa > y->isa) - (x->isa < y->isa);
}

static int by_lat_desc(const void *a, const void *b)
{
	return top_cmp(a, b);
}

/* Histogram rows in CPU order (they were made in the order CPUs first had an exit). */
static void sort_hist_rows(struct vmt_summary *s)
{
	size_t w = (size_t)s->hist_buckets + 1, row, j;

	for (row = 1; row < s->hist_ncpus; row++) {
		for (j = row; j > 0 && s->hist_cpu[j - 1] > s->hist_cpu[j]; j--) {
			uint32_t c = s->hist_cpu[j];
			size_t b;

			s->hist_cpu[j] = s->hist_cpu[j - 1];
			s->hist_cpu[j - 1] = c;
			for (b = 0; b < w; b++) {
				uint64_t v = s->hist[j * w + b];

				s->hist[j * w + b] = s->hist[(j - 1) * w + b];
				s->hist[(j - 1) * w + b] = v;
			}
		}
	}
}

/* The pairs of the tasks that kept to one pCPU, into that pCPU's distribution. */
static int merge_home_cpus(struct vmt_summary *s)
{
	struct task *t;

	for (t = s->work->tasks; t; t = t->next) {
		struct vmt_group *g;

		if (t->migrated)
			continue;
		g = vmt_summary_cpu_group(s, t->home_cpu);
		if (!g || vmt_latdist_merge(&g->d, &t->g.d))
			return -ENOMEM;
		t->migrated = true;	/* counted there now */
	}
	return 0;
}

/*
 * The worst window of all: the task whose window held the most, the earliest such window
 * on equal sums, then the lowest pid (the same in whatever order the pairs came).
 */
static void pick_worst_window(struct vmt_summary *s)
{
	size_t i;

	for (i = 0; i < s->ntasks; i++) {
		const struct vmt_group *t = &s->tasks[i];

		if (!t->max_window_sum || t->max_window_sum < s->max_window_sum)
			continue;
		if (t->max_window_sum == s->max_window_sum &&
		    (t->max_window_at > s->max_window_at ||
		     (t->max_window_at == s->max_window_at && t->pid >= s->max_window_pid)))
			continue;
		s->max_window_sum = t->max_window_sum;
		s->max_window_at = t->max_window_at;
		s->max_window_pid = t->pid;
	}
}

/*
 * A task's name: what the context events called its pid last. Its own begin/end events
 * carry no comm; without context events it stays "" (time slices merge their names in
 * time order: summarymerge.c).
 */
static void name_task(const struct vmt_summary *s, struct vmt_group *g)
{
	const char *comm = vmt_commtab_get(&s->work->comms, g->pid);

	snprintf(g->comm, sizeof(g->comm), "%s", comm ? comm : "");
}

/* Copy every task's figures out: the tasks themselves go with the pass's pairing. */
static int collect_tasks(struct vmt_summary *s)
{
	struct task *t;
	size_t i = 0;

	if (!s->work->ntasks)
		return 0;
	s->tasks = calloc(s->work->ntasks, sizeof(*s->tasks));
	if (!s->tasks)
		return -ENOMEM;
	for (t = s->work->tasks; t; t = t->next) {
		if (s->why)
			why_fill(&t->g);
		vmt_whysum_merge(&s->why_all, &t->g.why);
		s->tasks[i] = t->g;
		name_task(s, &s->tasks[i]);
		s->tasks[i].max_window_sum = task_window(t)->max_sum;
		s->tasks[i].max_window_at = task_window(t)->max_at;
		if (t->has_whywin && t->whywin.max_sum == t->whywin.win.max_sum &&
		    t->whywin.max_at == t->whywin.win.max_at) {
			s->tasks[i].has_window_why = true;
			s->tasks[i].window_why = t->whywin.max_why;
		}
		/* the distribution's buffers now belong to the summary */
		vmt_latdist_init(&t->g.d);
		i++;
	}
	s->ntasks = i;
	qsort(s->tasks, s->ntasks, sizeof(*s->tasks), by_pairs);
	pick_worst_window(s);
	return 0;
}

/* Keep only the CPUs that had exits, in CPU order. */
static void compact_cpus(struct vmt_summary *s)
{
	size_t i, j = 0;

	for (i = s->ncpus; i < s->work->cpus_alloc; i++)
		vmt_latdist_free(&s->cpus[i].d);
	for (i = 0; i < s->ncpus; i++) {
		if (s->cpus[i].d.st.count)
			s->cpus[j++] = s->cpus[i];
		else
			vmt_latdist_free(&s->cpus[i].d);
	}
	s->ncpus = j;
	s->work->cpus_alloc = j;
}

/*
 * Events were lost on cpu (a flagged page, or damaged data): its pCPU's figures lack them,
 * which its row says. Every CPU with exits has a group; one without keeps its count there
 * until compact_cpus() drops it.
 */
static int on_gap(void *state, const struct vmt_iter *it, uint32_t cpu, uint64_t ts,
		  uint64_t missed)
{
	const struct vmt_filter *f = it->filter;
	struct vmt_summary *s = state;
	struct vmt_group *g;

	/*
	 * a --from/--to window: only the losses that can lie in it, it->gap_from .. the later
	 * of ts and it->gap_until (a damaged chunk's hole runs to its last time)
	 */
	if (f && ((f->has_to && it->gap_from > f->to_ts) ||
		  (f->has_from && (ts > it->gap_until ? ts : it->gap_until) < f->from_ts)))
		return 0;
	g = vmt_summary_cpu_group(s, cpu);
	if (!g)
		return -ENOMEM;
	g->gaps++;
	/* a count past 2^63 is no count (the reader's rule): the sum saturates all the same */
	if (missed < (1ull << 63) &&
	    __builtin_add_overflow(s->lost_pages_window, missed, &s->lost_pages_window))
		s->lost_pages_window = UINT64_MAX;
	return 0;
}

/*
 * A --from/--to window counts the losses that can lie inside it. Unread events came after
 * the last record read from their CPU: a window ending before that has none of them. The
 * statistics' count beyond the flagged pages' is known per CPU only, not when: it stays,
 * and so do unread events the window reaches, said as kept (the text and JSON).
 */
static void lost_in_window(struct vmt_summary *s, const struct vmt_iter *it)
{
	const struct vmt_filter *f = it->filter;

	if (!f || (!f->has_from && !f->has_to))
		return;
	s->lost_window = true;
	if (it->r && f->has_to && s->lost_unread)
		s->lost_unread = vmt_reader_unread_until(it->r, f->to_ts, &s->lost_unread_after);
	s->lost_unknown_kept = s->lost_unread;
	if (s->lost_stats_known && s->lost_stats > s->rd.missed_events)
		s->lost_unknown_kept += s->lost_stats - s->rd.missed_events;
}

int vmt_summary_add_open(struct vmt_summary *s, const struct vmt_open_exit *x)
{
	const char *comm;
	struct vmt_open *o;

	if (s->nopen == s->open_cap) {
		size_t n = s->open_cap ? s->open_cap * 2 : 8;
		struct vmt_open *bigger = realloc(s->open, n * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		s->open = bigger;
		s->open_cap = n;
	}
	o = &s->open[s->nopen++];
	memset(o, 0, sizeof(*o));
	o->exit = *x->begin;
	o->open = x->until > x->begin->ts ? x->until - x->begin->ts : 0;
	o->lost_since = x->lost_since;
	o->lost_unplaced = x->lost_unplaced;
	o->has_why = x->why != NULL;
	/* a task whose only exit is open has no group to take its name from */
	comm = s->work ? vmt_commtab_get(&s->work->comms, x->begin->pid) : NULL;
	snprintf(o->comm, sizeof(o->comm), "%s", comm ? comm : "");
	if (x->why)
		o->why = *x->why;
	s->open_until = x->until;
	return 0;
}

static int on_open(void *state, const struct vmt_iter *it, const struct vmt_open_exit *x)
{
	(void)it;
	return vmt_summary_add_open(state, x);
}

/* Longest open first; then by time, pid and CPU: a total order, the same in slices. */
static int by_open_desc(const void *a, const void *b)
{
	const struct vmt_open *x = a, *y = b;

	if (x->open != y->open)
		return x->open < y->open ? 1 : -1;
	if (x->exit.ts != y->exit.ts)
		return x->exit.ts < y->exit.ts ? -1 : 1;
	if (x->exit.pid != y->exit.pid)
		return x->exit.pid < y->exit.pid ? -1 : 1;
	return (x->exit.cpu > y->exit.cpu) - (x->exit.cpu < y->exit.cpu);
}

static int on_finish(void *state, const struct vmt_iter *it)
{
	struct vmt_summary *s = state;
	size_t i;
	int ret;

	s->events = it->events;
	s->other_records = it->other_records;
	s->bad_records = it->bad_records;
	s->filtered_out = it->filtered_out;
	s->first_ts = it->first_ts;
	s->last_ts = it->last_ts;
	s->pairing = it->pairing;
	s->why_stats = it->why_stats;
	s->open_until = vmt_iter_open_until(it);
	s->open_until_stop = s->open_until > it->last_record_ts;
	ret = merge_home_cpus(s);
	if (s->work->slice)
		return ret;	/* the rest when merged (summarymerge.c) */
	for (i = 0; s->why && i < s->nreasons; i++)
		why_fill(&s->reasons[i]);
	if (!ret)
		ret = collect_tasks(s);
	/* every pair counted went to exactly one pCPU: their sum is the whole */
	for (i = 0; !ret && i < s->ncpus; i++) {
		if (vmt_latdist_merge(&s->all, &s->cpus[i].d))
			ret = -ENOMEM;
	}
	s->lat = s->all.st;
	compact_cpus(s);
	vmt_vmreasons_sort(&s->vmreasons);	/* by the reasons' keys: theirs are sorted next */
	if (s->nreasons)
		qsort(s->reasons, s->nreasons, sizeof(*s->reasons), by_total);
	if (s->ntop)
		qsort(s->top, s->ntop, sizeof(*s->top), by_lat_desc);
	if (s->nopen)
		qsort(s->open, s->nopen, sizeof(*s->open), by_open_desc);
	sort_hist_rows(s);
	/* a pass fed without a reader (the recorder's own pages) has no reader statistics */
	if (it->r) {
		struct vmt_lost lost;

		vmt_iter_read_stats(it, &s->rd);
		vmt_reader_lost(it->r, &s->rd, &lost);
		s->lost_stats = lost.stats;
		s->lost_stats_known = lost.stats_known;
		s->lost_damaged = lost.damaged;
		s->lost_holes = lost.holes;
		s->lost_uncounted = lost.uncounted;
		s->lost_end_unknown = lost.end_unknown;
		s->lost_unread = lost.unread;
		s->lost_unread_known = lost.unread_known;
		s->drain_cut = lost.drain_cut;
	}
	lost_in_window(s, it);
	if (s->lost_window) {
		/* the window's pages, and the statistics' count beyond all pages' (kept) */
		uint64_t beyond = s->lost_stats > s->rd.missed_events ?
				  s->lost_stats - s->rd.missed_events : 0;

		s->lost_events = s->lost_pages_window + beyond + s->lost_unread;
	} else {
		s->lost_events = (s->rd.missed_events > s->lost_stats ? s->rd.missed_events :
									s->lost_stats) + s->lost_unread;
	}
	return ret;
}

/* A deep copy of one group: the distribution's buffers its own. */
static int group_copy(struct vmt_group *to, const struct vmt_group *from)
{
	*to = *from;
	vmt_latdist_init(&to->d);
	return vmt_latdist_merge(&to->d, &from->d);
}

int vmt_summary_snapshot(const struct vmt_summary *s, const struct vmt_iter *it,
			 struct vmt_summary *out)
{
	const struct task *t;
	size_t i, n = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->events = it->events;
	out->other_records = it->other_records;
	out->bad_records = it->bad_records;
	out->filtered_out = it->filtered_out;
	out->start_ts = s->start_ts;
	out->first_ts = it->first_ts == UINT64_MAX ? 0 : it->first_ts;
	out->last_ts = it->last_ts;
	out->window = s->window;
	out->window_ns = s->window_ns;
	out->max_window_pid = -1;
	vmt_latdist_init(&out->all);
	ret = vmt_exitreasons_new(it->begin_format, it->machine, &out->names);
	out->reasons = calloc(s->nreasons ? s->nreasons : 1, sizeof(*out->reasons));
	out->cpus = calloc(s->ncpus ? s->ncpus : 1, sizeof(*out->cpus));
	out->tasks = calloc(s->work->ntasks ? s->work->ntasks : 1, sizeof(*out->tasks));
	out->top = calloc(s->ntop ? s->ntop : 1, sizeof(*out->top));
	if (ret || !out->reasons || !out->cpus || !out->tasks || !out->top)
		return -ENOMEM;
	for (i = 0; i < s->nreasons && !ret; i++, out->nreasons++) {
		ret = group_copy(&out->reasons[i], &s->reasons[i]);
		if (s->why)
			why_fill(&out->reasons[i]);
	}
	if (!ret)
		ret = vmt_vmreasons_copy(&out->vmreasons, &s->vmreasons);
	/* by CPU number, as during the pass; the empty ones go below */
	for (i = 0; i < s->ncpus && !ret; i++, out->ncpus++)
		ret = group_copy(&out->cpus[i], &s->cpus[i]);
	for (t = s->work->tasks; t && !ret; t = t->next, out->ntasks++) {
		ret = group_copy(&out->tasks[n], &t->g);
		name_task(s, &out->tasks[n]);
		if (s->why)
			why_fill(&out->tasks[n]);
		out->tasks[n].max_window_sum = task_window(t)->max_sum;
		out->tasks[n++].max_window_at = task_window(t)->max_at;
		/* a task on one pCPU has its pairs there only at the end (struct task) */
		if (!ret && !t->migrated && t->home_cpu < out->ncpus)
			ret = vmt_latdist_merge(&out->cpus[t->home_cpu].d, &t->g.d);
	}
	for (i = n = 0; i < out->ncpus && !ret; i++) {
		if (!out->cpus[i].d.st.count) {
			vmt_latdist_free(&out->cpus[i].d);
			continue;
		}
		ret = vmt_latdist_merge(&out->all, &out->cpus[i].d);
		out->cpus[n++] = out->cpus[i];
	}
	out->ncpus = n;
	if (ret)
		return -ENOMEM;
	out->lat = out->all.st;
	out->pairing.pairs = out->lat.count;	/* the orphans are known at the end only */
	if (s->ntop)
		memcpy(out->top, s->top, s->ntop * sizeof(*out->top));
	out->ntop = s->ntop;
	qsort(out->tasks, out->ntasks, sizeof(*out->tasks), by_pairs);
	pick_worst_window(out);
	if (out->nreasons)
		qsort(out->reasons, out->nreasons, sizeof(*out->reasons), by_total);
	if (out->ntop)
		qsort(out->top, out->ntop, sizeof(*out->top), by_lat_desc);
	return 0;
}

/*
 * The table full (every pid a fork-heavy host made): only the tasks' own names are
 * needed, the rest go. When tasks alone fill half of it, it stays full: a new pid is then
 * not named (commtab.h), rather than emptied again at every event.
 */
static int keep_task_names(struct summary_work *w)
{
	struct vmt_commtab kept;
	const struct task *t;

	vmt_commtab_init(&kept);
	for (t = w->tasks; t; t = t->next) {
		const char *comm = vmt_commtab_get(&w->comms, t->g.pid);

		if (comm && vmt_commtab_set(&kept, t->g.pid, comm)) {
			vmt_commtab_free(&kept);
			return -ENOMEM;
		}
	}
	w->comms_full = kept.n * 2 > VMT_COMMTAB_MAX;
	vmt_commtab_free(&w->comms);
	w->comms = kept;
	return 0;
}

/* Only the names: the causes are the attribution's (iterate.c), read through pair->why. */
static int on_context(void *state, const struct vmt_iter *it, const struct vmt_ctxev *ev)
{
	struct vmt_summary *s = state;

	(void)it;
	if (s->work->comms.n >= VMT_COMMTAB_MAX && !s->work->comms_full &&
	    keep_task_names(s->work))
		return -ENOMEM;
	return vmt_commtab_context(&s->work->comms, ev);
}

static const struct vmt_consumer_ops summary_ops = {
	.name = "summary",
	.start = on_start,
	.pair = on_pair,
	.gap = on_gap,
	.context = on_context,
	.finish = on_finish,
	.task_free = task_free,
	.open = on_open,
};

const struct vmt_consumer_ops *vmt_summary_ops(void)
{
	return &summary_ops;
}

int vmt_summary_consumer(struct vmt_summary *s, const struct vmt_summary_opts *o,
			 struct vmt_consumer *out)
{
	memset(s, 0, sizeof(*s));
	vmt_latdist_init(&s->all);
	s->max_window_pid = -1;
	s->work = calloc(1, sizeof(*s->work));
	if (!s->work)
		return -ENOMEM;
	s->work->o = *o;
	if (o->vmmap)
		vmt_vmreasons_init_map(&s->vmreasons, o->vmmap);
	out->ops = &summary_ops;
	out->state = s;
	return 0;
}

void vmt_summary_free(struct vmt_summary *s)
{
	size_t i, ncpus = s->ncpus;

	if (s->work && s->work->cpus_alloc > ncpus)
		ncpus = s->work->cpus_alloc;	/* the pass did not finish: all of them */
	vmt_latdist_free(&s->all);
	for (i = 0; i < s->nreasons; i++)
		vmt_latdist_free(&s->reasons[i].d);
	vmt_vmreasons_free(&s->vmreasons);
	for (i = 0; i < ncpus; i++)
		vmt_latdist_free(&s->cpus[i].d);
	for (i = 0; i < s->ntasks; i++)
		vmt_latdist_free(&s->tasks[i].d);
	free(s->reasons);
	free(s->cpus);
	free(s->tasks);
	free(s->top);
	free(s->open);
	free(s->hist);
	free(s->hist_cpu);
	vmt_exitreasons_free(s->names);
	vmt_culprits_free(s->culprits);
	if (s->work && s->work->owns_tasks) {
		struct task *t, *next;

		for (t = s->work->tasks; t; t = next) {
			next = t->next;
			vmt_summary_task_free(t);
		}
		free(s->work->index);
	}
	if (s->work) {
		free(s->work->reason_slot);
		free(s->work->reason_direct);
		vmt_commtab_free(&s->work->comms);
	}
	free(s->work);
	memset(s, 0, sizeof(*s));
}

uint64_t vmt_summary_unknown(const struct vmt_group *t)
{
	return t->unknown_hi > t->unknown_lo ? t->unknown_hi - t->unknown_lo : 0;
}

bool vmt_summary_in_guest_known(const struct vmt_group *t)
{
	uint64_t span = t->last_ts > t->first_ts ? t->last_ts - t->first_ts : 0;

	return t->d.st.count >= 2 && span > vmt_summary_unknown(t);
}

double vmt_summary_in_guest(const struct vmt_group *t)
{
	uint64_t span = t->last_ts > t->first_ts ? t->last_ts - t->first_ts : 0;
	uint64_t unknown = vmt_summary_unknown(t);

	/* what is known of the span: the time around lost events was neither in nor out */
	span = span > unknown ? span - unknown : 0;
	if (!span)
		return t->d.st.sum ? 0.0 : 100.0;
	return 100.0 * (1.0 - (double)t->d.st.sum / (double)span);
}

uint64_t vmt_summary_orphans(const struct vmt_summary *s)
{
	return s->pairing.orphan_begins + s->pairing.orphan_ends + s->pairing.unfinished;
}

const char *vmt_summary_reason(const struct vmt_summary *s, uint32_t isa, uint64_t key,
			       char *buf, size_t size)
{
	return vmt_exitreason_label(s->names, isa, key, buf, size);
}

struct vmt_group *vmt_summary_reason_group(struct vmt_summary *s, uint32_t isa, uint64_t key)
{
	return reason_group(s, isa, key);
}

void vmt_summary_top_insert(struct vmt_summary *s, const struct vmt_top *t)
{
	if (s->work->o.top_n)
		top_insert(s, t);
}

int vmt_summary_slice(struct vmt_summary *s)
{
	s->work->slice = true;
	s->work->owns_tasks = true;
	return 0;
}

const struct vmt_summary_opts *vmt_summary_options(const struct vmt_summary *s)
{
	return &s->work->o;
}
