// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The summary of a recording made from its time slices' summaries (summary.h,
 * slicepass.h). Counters, distributions and histograms add (latstat.h: merging is exact);
 * the longest exits are kept in a total order (summary.c), so the same whatever order they
 * come in. A task's sliding window needs care: a slice's figures for the windows that
 * reach back before the task's first exit in the slice lack the earlier slices' intervals,
 * so those intervals (the slice's "heads") are fed again to the window carried from the
 * earlier slices, which then takes the slice's own ring and maximum (vmt_window_adopt).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commtab.h"
#include "summary.h"
#include "summary_impl.h"

static size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

static int index_put(struct summary_work *w, struct task *t)
{
	size_t i;

	if ((w->ntasks + 1) * 2 > w->index_cap) {
		size_t cap = w->index_cap ? w->index_cap * 2 : 64, j;
		struct task **idx = calloc(cap, sizeof(*idx));

		if (!idx)
			return -ENOMEM;
		for (j = 0; j < w->index_cap; j++) {
			if (!w->index[j])
				continue;
			for (i = hash64(w->index[j]->key);; i++) {
				if (!idx[i & (cap - 1)]) {
					idx[i & (cap - 1)] = w->index[j];
					break;
				}
			}
		}
		free(w->index);
		w->index = idx;
		w->index_cap = cap;
	}
	for (i = hash64(t->key);; i++) {
		if (!w->index[i & (w->index_cap - 1)]) {
			w->index[i & (w->index_cap - 1)] = t;
			return 0;
		}
	}
}

/* The merged summary's task of key, made (with its pCPU's group) when new; NULL: -ENOMEM. */
static struct task *task_of(struct vmt_summary *s, uint64_t key, int32_t pid, uint32_t cpu)
{
	struct summary_work *w = s->work;
	struct task *t;
	size_t i;

	for (i = w->index_cap ? hash64(key) : 0; w->index_cap; i++) {
		t = w->index[i & (w->index_cap - 1)];
		if (!t)
			break;
		if (t->key == key)
			return t;
	}
	if (!vmt_summary_cpu_group(s, cpu))
		return NULL;
	t = vmt_summary_new_task(s, pid);
	if (!t)
		return NULL;
	t->key = t->g.key = key;
	t->home_cpu = cpu;
	/* its pairs go to their pCPU's group at once: merged groups hold the slices' */
	t->migrated = true;
	if (index_put(w, t))
		return NULL;
	return t;
}

static struct vmt_consumer merger_consumer(struct vmt_summary *s)
{
	struct vmt_consumer c = { .ops = vmt_summary_ops(), .state = s };

	return c;
}

int vmt_summary_merger(struct vmt_summary *s, const struct vmt_summary_opts *o,
		       const struct vmt_iter *it)
{
	struct vmt_consumer c;
	int ret = vmt_summary_consumer(s, o, &c);

	if (ret)
		return ret;
	s->work->owns_tasks = true;
	return c.ops->start(c.state, it);
}

int vmt_summary_merge_pair(struct vmt_summary *into, const struct vmt_iter *it,
			   const struct vmt_pair *p)
{
	struct vmt_consumer c = merger_consumer(into);
	struct task *t = task_of(into, vmt_pairing_task_key(p->end), p->end->pid, p->begin->cpu);
	void *slot = t;

	if (!t)
		return -ENOMEM;
	return c.ops->pair(c.state, it, p, &slot);
}

static int merge_task(struct vmt_summary *into, const struct task *f,
		      const struct vmt_pairing *join)
{
	struct task *t = task_of(into, f->key, f->g.pid, f->home_cpu);
	/* the slice counted the task's unknown time from 0; the join knows what came before */
	uint64_t base = join ? vmt_pairing_unknown_base(join, f->key) : 0;
	uint32_t i;

	if (!t || vmt_latdist_merge(&t->g.d, &f->g.d))
		return -ENOMEM;
	if (f->g.first_ts < t->g.first_ts)
		t->g.first_ts = f->g.first_ts;
	if (f->g.last_ts > t->g.last_ts)
		t->g.last_ts = f->g.last_ts;
	if (f->g.d.st.count && base + f->g.unknown_lo < t->g.unknown_lo)
		t->g.unknown_lo = base + f->g.unknown_lo;
	if (f->g.d.st.count && base + f->g.unknown_hi > t->g.unknown_hi)
		t->g.unknown_hi = base + f->g.unknown_hi;
	if (f->g.has_vcpu) {
		t->g.vcpu = f->g.vcpu;
		t->g.has_vcpu = true;
	}
	/* the windows that reach back into earlier slices, now with them */
	for (i = 0; i < f->nheads; i++) {
		if (vmt_window_add(&t->win, f->heads[i].start, f->heads[i].end))
			return -ENOMEM;
	}
	/* past its heads, the slice's own window is the whole recording's */
	if (f->g.d.st.count > f->nheads)
		return vmt_window_adopt(&t->win, &f->win);
	return 0;
}

static int merge_hist(struct vmt_summary *into, const struct vmt_summary *from)
{
	size_t w = (size_t)from->hist_buckets + 1, b;
	unsigned int row;

	for (row = 0; row < from->hist_ncpus; row++) {
		int to = vmt_summary_hist_row(into, from->hist_cpu[row]);

		if (to < 0)
			return to;
		for (b = 0; b < w; b++)
			into->hist[(size_t)to * w + b] += from->hist[row * w + b];
	}
	return 0;
}

int vmt_summary_merge(struct vmt_summary *into, struct vmt_summary *from,
		      const struct vmt_pairing *join)
{
	const struct task *f;
	size_t i;

	for (f = from->work->tasks; f; f = f->next) {
		if (merge_task(into, f, join))
			return -ENOMEM;
	}
	/* a slice's tasks were all counted in its pCPUs' groups when its pass ended */
	for (i = 0; i < from->ncpus; i++) {
		struct vmt_group *g;

		if (!from->cpus[i].d.st.count && !from->cpus[i].gaps)
			continue;
		g = vmt_summary_cpu_group(into, (uint32_t)i);
		if (!g || vmt_latdist_merge(&g->d, &from->cpus[i].d))
			return -ENOMEM;
		g->gaps += from->cpus[i].gaps;
	}
	if (__builtin_add_overflow(into->lost_pages_window, from->lost_pages_window,
				   &into->lost_pages_window))
		into->lost_pages_window = UINT64_MAX;
	for (i = 0; i < from->nreasons; i++) {
		const struct vmt_group *r = &from->reasons[i];
		struct vmt_group *g = vmt_summary_reason_group(into, r->isa, r->key);

		if (!g || vmt_latdist_merge(&g->d, &r->d))
			return -ENOMEM;
	}
	for (i = 0; i < from->vmreasons.n; i++) {
		const struct vmt_vmreason *e = &from->vmreasons.v[i];
		struct vmt_group *g = vmt_summary_reason_group(into, e->isa, e->key);

		if (!g || vmt_vmreasons_merge(&into->vmreasons, (size_t)(g - into->reasons), e))
			return -ENOMEM;
	}
	for (i = 0; i < from->ntop; i++)
		vmt_summary_top_insert(into, &from->top[i]);
	/* in time order: a later slice's name for a pid is the later one, as in one pass */
	if (vmt_commtab_merge(&into->work->comms, &from->work->comms))
		return -ENOMEM;
	if (into->work->comms.n >= VMT_COMMTAB_MAX)
		return 1;
	return merge_hist(into, from);
}

int vmt_summary_merge_end(struct vmt_summary *s, const struct vmt_iter *it)
{
	struct vmt_consumer c = merger_consumer(s);

	return c.ops->finish(c.state, it);
}
