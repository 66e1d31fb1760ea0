// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "compare.h"
#include "exitreason.h"
#include "filter.h"
#include "reader.h"
#include "tclock.h"
#include "timefmt.h"

/* One task's sliding windows: over all its exits, and over each reason's. */
struct cmp_task_reason {
	size_t group;
	struct vmt_window w;
};

struct cmp_task {
	struct vmt_window all;
	struct cmp_task_reason *r;
	size_t nr;
};

/* One side's pass. */
#define CMP_HOLES 8	/* holes kept whole per CPU (struct cmp_pass) */

struct cmp_pass {
	struct vmt_compare *c;
	int side;
	const struct vmt_clock *clock;
	uint64_t window;		/* trace clock units */
	struct vmt_exitreasons *names;
	size_t last;			/* the group of the previous pair: most follow their like */
	uint64_t start_ts;
	/*
	 * Per CPU (by number), its lost-events holes in ns since the start, disjoint and in
	 * time order (gaps with no record between them meet, and make one): the latest
	 * CMP_HOLES as [2k, 2k + 1], the older ones summed within the filter's --from/--to
	 * (they end before the recording does, the one bound known only at the end), so that
	 * memory does not grow with the gaps.
	 */
	struct cmp_holes {
		uint64_t ns[2 * CMP_HOLES];
		size_t n;
		uint64_t sum;		/* the older ones */
	} *holes;
	uint32_t nholes;
};

int vmt_compare_init(struct vmt_compare *c, uint64_t window_ns)
{
	memset(c, 0, sizeof(*c));
	c->window_ns = window_ns;
	c->cap = 16;
	c->groups = calloc(c->cap, sizeof(*c->groups));
	if (!c->groups)
		return -ENOMEM;
	c->ngroups = 1;
	c->groups[0].all = true;
	snprintf(c->groups[0].name, sizeof(c->groups[0].name), "all");
	vmt_latdist_init(&c->groups[0].side[0].d);
	vmt_latdist_init(&c->groups[0].side[1].d);
	return 0;
}

void vmt_compare_free(struct vmt_compare *c)
{
	size_t i;

	for (i = 0; i < c->ngroups; i++) {
		vmt_latdist_free(&c->groups[i].side[0].d);
		vmt_latdist_free(&c->groups[i].side[1].d);
	}
	free(c->groups);
	for (i = 0; i < c->npasses; i++) {
		vmt_exitreasons_free(c->passes[i]->names);
		free(c->passes[i]->holes);
		free(c->passes[i]);
	}
	free(c->passes);
	memset(c, 0, sizeof(*c));
}

/* The group of (isa, key), added when new; SIZE_MAX on -ENOMEM. */
static size_t group_of(struct cmp_pass *p, uint32_t isa, uint64_t key)
{
	struct vmt_compare *c = p->c;
	struct vmt_cmp_group *g;
	const char *name;
	size_t i;

	if (p->last && c->groups[p->last].isa == isa && c->groups[p->last].key == key)
		return p->last;
	for (i = 1; i < c->ngroups; i++) {
		if (c->groups[i].isa == isa && c->groups[i].key == key)
			return p->last = i;
	}
	if (c->ngroups == c->cap) {
		g = realloc(c->groups, c->cap * 2 * sizeof(*g));
		if (!g)
			return SIZE_MAX;
		c->groups = g;
		c->cap *= 2;
	}
	g = &c->groups[c->ngroups];
	memset(g, 0, sizeof(*g));
	g->isa = isa;
	g->key = key;
	name = vmt_exitreason_name(p->names, isa, key);
	if (name)
		snprintf(g->name, sizeof(g->name), "%s", name);
	else
		snprintf(g->name, sizeof(g->name), "0x%llx", (unsigned long long)key);
	vmt_latdist_init(&g->side[0].d);
	vmt_latdist_init(&g->side[1].d);
	return p->last = c->ngroups++;
}

static int cmp_start(void *state, const struct vmt_iter *it)
{
	struct cmp_pass *p = state;

	p->clock = it->clock;
	p->start_ts = it->start_ts;
	/* several passes into one side (a merge): the kinds every one of them can tell */
	if (it->why) {
		p->c->why_recorded[p->side] = p->c->why[p->side] ?
					      p->c->why_recorded[p->side] & it->why_recorded :
					      it->why_recorded;
		p->c->why[p->side] = true;
	}
	p->window = vmt_clock_ticks_ceil(it->clock, p->c->window_ns);
	return vmt_exitreasons_new(it->begin_format, it->machine, &p->names);
}

static int window_add(struct cmp_pass *p, struct vmt_window *w, uint64_t *max_ns,
		      const struct vmt_pair *pr)
{
	uint64_t ns;

	if (vmt_window_add(w, pr->begin->ts, pr->end->ts))
		return -ENOMEM;
	ns = vmt_clock_ns(p->clock, w->max_sum);
	if (ns > *max_ns)
		*max_ns = ns;
	return 0;
}

static struct cmp_task_reason *task_reason(struct cmp_pass *p, struct cmp_task *t, size_t group)
{
	struct cmp_task_reason *r;
	size_t i;

	for (i = 0; i < t->nr; i++) {
		if (t->r[i].group == group)
			return &t->r[i];
	}
	r = realloc(t->r, (t->nr + 1) * sizeof(*r));
	if (!r)
		return NULL;
	t->r = r;
	r = &t->r[t->nr++];
	r->group = group;
	vmt_window_init(&r->w, p->window);
	return r;
}

/* The pair's causes, in ns, into a side: a plain exit's whole latency is kvm's. */
static void why_add(struct vmt_cmp_side *s, const struct vmt_clock *clock,
		    const struct vmt_why *w, uint64_t lat_ns)
{
	unsigned int k;

	s->why_exits++;
	s->why_incomplete += w->incomplete;
	if (w->plain) {
		s->why_ns[VMT_WHY_KVM] += lat_ns;
		return;
	}
	for (k = 0; k < VMT_WHY_NKINDS; k++)
		s->why_ns[k] += vmt_clock_ns(clock, w->ticks[k]);
}

static int cmp_pair(void *state, const struct vmt_iter *it, const struct vmt_pair *pr,
		    void **task)
{
	struct cmp_pass *p = state;
	struct vmt_compare *c = p->c;
	const struct vmt_event *ex = pr->begin;
	struct cmp_task *t = *task;
	struct cmp_task_reason *tr;
	struct vmt_latval lv;
	size_t g;

	(void)it;
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return -ENOMEM;
		vmt_window_init(&t->all, p->window);
		*task = t;
	}
	g = group_of(p, ex->isa, (ex->has & VMT_EVF_REASON) ?
		     vmt_exitreason_key(ex->isa, ex->reason) : 0);
	if (g == SIZE_MAX)
		return -ENOMEM;
	vmt_latval_init(&lv, vmt_clock_ns(p->clock, pr->lat));
	if (pr->why) {
		why_add(&c->groups[0].side[p->side], p->clock, pr->why, lv.v);
		why_add(&c->groups[g].side[p->side], p->clock, pr->why, lv.v);
	}
	if (vmt_latdist_add_val(&c->groups[0].side[p->side].d, &lv) ||
	    vmt_latdist_add_val(&c->groups[g].side[p->side].d, &lv))
		return -ENOMEM;
	if (window_add(p, &t->all, &c->groups[0].side[p->side].max_window_ns, pr))
		return -ENOMEM;
	tr = task_reason(p, t, g);
	if (!tr)
		return -ENOMEM;
	return window_add(p, &tr->w, &c->groups[g].side[p->side].max_window_ns, pr);
}

/* An exit open at the stop: counted, its time open the longest of its group's so far. */
static int cmp_open(void *state, const struct vmt_iter *it, const struct vmt_open_exit *x)
{
	struct cmp_pass *p = state;
	const struct vmt_event *ex = x->begin;
	uint64_t ns = vmt_clock_ns(it->clock, x->until > ex->ts ? x->until - ex->ts : 0);
	struct vmt_cmp_side *s[2];
	size_t g, i;

	if (!p->c->open)
		return 0;
	g = group_of(p, ex->isa, (ex->has & VMT_EVF_REASON) ?
		     vmt_exitreason_key(ex->isa, ex->reason) : 0);
	if (g == SIZE_MAX)
		return -ENOMEM;
	s[0] = &p->c->groups[0].side[p->side];
	s[1] = &p->c->groups[g].side[p->side];
	for (i = 0; i < 2; i++) {
		s[i]->open_exits++;
		if (ns > s[i]->open_max_ns)
			s[i]->open_max_ns = ns;
	}
	return 0;
}

static void cmp_task_free(void *state, void *task)
{
	struct cmp_task *t = task;
	size_t i;

	(void)state;
	vmt_window_free(&t->all);
	for (i = 0; i < t->nr; i++)
		vmt_window_free(&t->r[i].w);
	free(t->r);
	free(t);
}

/* A trace clock time as ns since the recording's start (0 before it; UINT64_MAX kept). */
static uint64_t since_start(const struct cmp_pass *p, uint64_t ts)
{
	if (ts == UINT64_MAX)
		return UINT64_MAX;
	return ts > p->start_ts ? vmt_clock_ns(p->clock, ts - p->start_ts) : 0;
}

/* The part of [s, e) inside [lo, hi). */
static uint64_t clipped(uint64_t s, uint64_t e, uint64_t lo, uint64_t hi)
{
	s = s > lo ? s : lo;
	e = e < hi ? e : hi;
	return e > s ? e - s : 0;
}

static int cmp_gap(void *state, const struct vmt_iter *it, uint32_t cpu, uint64_t ts,
		   uint64_t missed)
{
	struct cmp_pass *p = state;
	uint64_t from = since_start(p, it->gap_from), until = since_start(p, it->gap_until);
	struct cmp_holes *h;

	(void)ts;
	(void)missed;
	if (cpu >= p->nholes) {
		struct cmp_holes *bigger = realloc(p->holes, (cpu + 1) * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		memset(bigger + p->nholes, 0, (cpu + 1 - p->nholes) * sizeof(*bigger));
		p->holes = bigger;
		p->nholes = cpu + 1;
	}
	h = &p->holes[cpu];
	if (h->n && from < h->ns[h->n - 1]) {
		if (until > h->ns[h->n - 1])
			h->ns[h->n - 1] = until;
		return 0;
	}
	if (h->n == 2 * CMP_HOLES) {
		uint64_t lo, hi = UINT64_MAX;

		lo = it->filter && it->filter->has_from ? it->filter->from_ns : 0;
		if (it->filter && it->filter->has_to)
			hi = it->filter->to_ns;
		h->sum += clipped(h->ns[0], h->ns[1], lo, hi);
		memmove(h->ns, h->ns + 2, (h->n - 2) * sizeof(*h->ns));
		h->n -= 2;
	}
	h->ns[h->n++] = from;
	h->ns[h->n++] = until > from ? until : from;
	return 0;
}

uint64_t vmt_compare_selected_ns(const struct vmt_filter *f, const struct vmt_reader *r,
				 const struct vmt_iter *it, uint64_t *start_ns)
{
	uint64_t end = r ? vmt_reader_duration_ns(r) : 0;

	if (!end)
		end = vmt_clock_ns(it->clock, it->last_ts - it->first_ts);
	*start_ns = 0;
	if (f && f->has_to && f->to_ns < end)
		end = f->to_ns;
	if (f && f->has_from)
		*start_ns = f->from_ns;
	return end > *start_ns ? end - *start_ns : 0;
}

/*
 * The CPUs whose exits count, for the average of the holes: the filter's that were traced
 * (all of the filter's when the recording does not say), else the traced ones, else those
 * with exits or holes.
 */
static uint32_t counted_cpus(const struct cmp_pass *p, const struct vmt_iter *it)
{
	const struct vmt_cpulist *traced = it->r ? vmt_reader_cpus(it->r) : NULL;
	const struct vmt_filter *f = it->filter;
	uint32_t n = 0, cpu;
	unsigned int i;

	if (f && f->cpus.n) {
		for (i = 0; i < f->cpus.n; i++)
			n += !traced || !traced->n || vmt_cpulist_has(traced, f->cpus.cpu[i]);
		return n;
	}
	if (traced && traced->n)
		return traced->n;
	for (cpu = 0; cpu < VMT_ITER_IDS || cpu < p->nholes; cpu++)
		n += vmt_iter_ids_has(&it->exit_cpus, cpu) || (cpu < p->nholes && p->holes[cpu].n);
	return n;
}

/* Whether a CPU's exits count (counted_cpus()). */
static bool counted(const struct vmt_iter *it, uint32_t cpu)
{
	const struct vmt_cpulist *traced = it->r ? vmt_reader_cpus(it->r) : NULL;

	if (it->filter && it->filter->cpus.n && !vmt_cpulist_has(&it->filter->cpus, cpu))
		return false;
	return !traced || !traced->n || vmt_cpulist_has(traced, cpu);
}

static int cmp_finish(void *state, const struct vmt_iter *it)
{
	struct cmp_pass *p = state;
	uint64_t lo, hi, sum = 0;
	uint32_t cpu, n;
	size_t k;

	hi = vmt_compare_selected_ns(it->filter, it->r, it, &lo);
	hi += lo;
	for (cpu = 0; cpu < p->nholes; cpu++) {
		const struct cmp_holes *h = &p->holes[cpu];

		if (!h->n || !counted(it, cpu))
			continue;
		sum += h->sum;
		for (k = 0; k < h->n; k += 2)
			sum += clipped(h->ns[k], h->ns[k + 1], lo, hi);
	}
	n = counted_cpus(p, it);
	if (n)
		p->c->gap_ns[p->side] += sum / n;
	return 0;
}

static const struct vmt_consumer_ops compare_ops = {
	.name = "compare",
	.start = cmp_start,
	.pair = cmp_pair,
	.gap = cmp_gap,
	.open = cmp_open,
	.finish = cmp_finish,
	.task_free = cmp_task_free,
};

int vmt_compare_consumer(struct vmt_compare *c, int side, struct vmt_consumer *out)
{
	struct cmp_pass *p, **list;

	if (side != VMT_CMP_BEFORE && side != VMT_CMP_AFTER)
		return -EINVAL;
	list = realloc(c->passes, (c->npasses + 1) * sizeof(*list));
	if (!list)
		return -ENOMEM;
	c->passes = list;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->c = c;
	p->side = side;
	c->passes[c->npasses++] = p;
	out->ops = &compare_ops;
	out->state = p;
	return 0;
}

double vmt_compare_ks_q(double lambda)
{
	double sum = 0, term, fac = 2.0, prev = 0;
	int j;

	/* Numerical Recipes' probks: the alternating series, 1 when it does not settle */
	for (j = 1; j <= 100; j++) {
		term = fac * exp(-2.0 * j * j * lambda * lambda);
		sum += term;
		if (fabs(term) <= 0.001 * prev || fabs(term) <= 1e-8 * sum)
			return sum < 0 ? 0 : sum > 1 ? 1 : sum;
		fac = -fac;
		prev = fabs(term);
	}
	return 1.0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* D over the values themselves, both distributions still exact. */
static int ks_exact(const struct vmt_latdist *a, const struct vmt_latdist *b, double *d)
{
	uint64_t *x = malloc((a->nexact + b->nexact + 1) * sizeof(*x)), *y;
	uint32_t i = 0, j = 0;
	double best = 0;

	if (!x)
		return -ENOMEM;
	y = x + a->nexact;
	memcpy(x, a->exact, a->nexact * sizeof(*x));
	memcpy(y, b->exact, b->nexact * sizeof(*y));
	qsort(x, a->nexact, sizeof(*x), cmp_u64);
	qsort(y, b->nexact, sizeof(*y), cmp_u64);
	while (i < a->nexact || j < b->nexact) {
		uint64_t v = j == b->nexact || (i < a->nexact && x[i] <= y[j]) ? x[i] : y[j];
		double diff;

		while (i < a->nexact && x[i] == v)
			i++;
		while (j < b->nexact && y[j] == v)
			j++;
		diff = fabs((double)i / a->nexact - (double)j / b->nexact);
		if (diff > best)
			best = diff;
	}
	free(x);
	*d = best;
	return 0;
}

/* One bucket's count, whether d holds a histogram or its values (counted in cnt). */
static uint64_t bucket_count(const struct vmt_latdist *d, const uint32_t *cnt, unsigned int b)
{
	return d->hist ? vmt_latdist_count(d, b) : cnt[b];
}

static uint32_t *exact_counts(const struct vmt_latdist *d)
{
	uint32_t *cnt, i;

	if (d->hist)
		return NULL;
	cnt = calloc(VMT_LATDIST_BUCKETS, sizeof(*cnt));
	for (i = 0; cnt && i < d->nexact; i++)
		cnt[vmt_latdist_bucket(d->exact[i])]++;
	return cnt;
}

int vmt_compare_ks(const struct vmt_latdist *a, const struct vmt_latdist *b, double *d,
		   double *p)
{
	uint64_t na = a->st.count, nb = b->st.count, ca = 0, cb = 0;
	uint32_t *xa = NULL, *xb = NULL;
	double ne, best = 0;
	unsigned int i;
	int ret = 0;

	*d = 0;
	*p = 1;
	if (!na || !nb)
		return 0;
	if (!a->hist && !b->hist) {
		ret = ks_exact(a, b, &best);
	} else {
		/* the histograms share their buckets: D at each bucket's upper edge */
		xa = exact_counts(a);
		xb = exact_counts(b);
		if ((!a->hist && !xa) || (!b->hist && !xb)) {
			ret = -ENOMEM;
			goto out_free;
		}
		for (i = 0; i < VMT_LATDIST_BUCKETS; i++) {
			double diff;

			ca += bucket_count(a, xa, i);
			cb += bucket_count(b, xb, i);
			diff = fabs((double)ca / (double)na - (double)cb / (double)nb);
			if (diff > best)
				best = diff;
		}
	}
	if (ret)
		goto out_free;
	ne = (double)na * (double)nb / ((double)na + (double)nb);
	*d = best;
	*p = vmt_compare_ks_q((sqrt(ne) + 0.12 + 0.11 / sqrt(ne)) * best);
out_free:
	free(xa);
	free(xb);
	return ret;
}

static unsigned __int128 total_ns(const struct vmt_cmp_group *g)
{
	return g->side[VMT_CMP_AFTER].d.st.sum + g->side[VMT_CMP_BEFORE].d.st.sum;
}

static int by_total(const void *x, const void *y)
{
	unsigned __int128 a = total_ns(x), b = total_ns(y);

	return (a < b) - (a > b);
}

void vmt_compare_lost(struct vmt_compare *c, int side, const struct vmt_reader *r,
		      const struct vmt_filter *f)
{
	const struct vmt_reader_stats *rd = vmt_reader_stats(r);
	struct vmt_lost lost;
	uint64_t unread, after;

	vmt_reader_lost(r, rd, &lost);
	unread = lost.unread;
	if (f && f->has_to && unread)
		unread = vmt_reader_unread_until(r, f->to_ts, &after);
	c->lost[side] += (rd->missed_events > lost.stats ? rd->missed_events : lost.stats) +
			 unread;
	c->lost_inexact[side] |= !vmt_lost_exact(&lost);
}

void vmt_compare_test(struct vmt_compare *c)
{
	size_t i;

	if (c->ngroups > 2)
		qsort(c->groups + 1, c->ngroups - 1, sizeof(*c->groups), by_total);
	for (i = 0; i < c->ngroups; i++) {
		struct vmt_cmp_group *g = &c->groups[i];

		if (vmt_compare_ks(&g->side[0].d, &g->side[1].d, &g->ks_d, &g->ks_p)) {
			g->ks_d = NAN;	/* out of memory: no verdict rather than a wrong one */
			g->ks_p = NAN;
		}
	}
}

static const struct {
	const char *name;
	double pct;		/* percentiles: which; others 0 */
	bool time;
} metrics[VMT_CMP_NMETRICS] = {
	[VMT_CMP_COUNT] = { "count", 0, false },
	[VMT_CMP_RATE] = { "rate", 0, false },
	[VMT_CMP_MEAN] = { "mean", 0, true },
	[VMT_CMP_P50] = { "p50", 50, true },
	[VMT_CMP_P90] = { "p90", 90, true },
	[VMT_CMP_P99] = { "p99", 99, true },
	[VMT_CMP_P999] = { "p99.9", 99.9, true },
	[VMT_CMP_P9999] = { "p99.99", 99.99, true },
	[VMT_CMP_MAX] = { "max", 0, true },
	[VMT_CMP_WINDOW] = { "window", 0, true },
	[VMT_CMP_KS_P] = { "ks_p", 0, false },
	[VMT_CMP_KS_D] = { "ks_d", 0, false },
	[VMT_CMP_LOST] = { "lost", 0, false },
	[VMT_CMP_OPEN] = { "open", 0, true },
};

double vmt_compare_per_s(const struct vmt_compare *c, int side, uint64_t ns)
{
	return c->span_ns[side] > c->gap_ns[side] ?
	       (double)ns * 1e9 / (double)(c->span_ns[side] - c->gap_ns[side]) : NAN;
}

uint32_t vmt_compare_why_differ(const struct vmt_compare *c, const struct vmt_cmp_group *g)
{
	uint32_t mask = 0;
	unsigned int k, i;

	for (k = 0; k < VMT_WHY_NKINDS; k++)
		for (i = 0; i < 2; i++)
			if ((c->why_recorded[i] & ~c->why_recorded[!i]) >> k & 1 &&
			    g->side[i].why_ns[k])
				mask |= 1u << k;
	return mask;
}

double vmt_compare_value(const struct vmt_compare *c, const struct vmt_cmp_group *g, int side,
			 enum vmt_cmp_metric m)
{
	const struct vmt_cmp_side *s = &g->side[side];
	uint64_t n = s->d.st.count;

	switch (m) {
	case VMT_CMP_COUNT:
		return (double)n;
	case VMT_CMP_RATE:
		return vmt_compare_per_s(c, side, n);
	case VMT_CMP_MEAN:
		return n ? (double)vmt_latstat_avg(&s->d.st) : NAN;
	case VMT_CMP_MAX:
		return n ? (double)s->d.st.max : NAN;
	case VMT_CMP_WINDOW:
		return n ? (double)s->max_window_ns : NAN;
	case VMT_CMP_KS_P:	/* no test without exits on both sides (the table's "-") */
		return g->side[0].d.st.count && g->side[1].d.st.count ? g->ks_p : NAN;
	case VMT_CMP_KS_D:
		return g->side[0].d.st.count && g->side[1].d.st.count ? g->ks_d : NAN;
	case VMT_CMP_LOST:	/* of the recording, whatever its exits */
		return g->all ? (double)c->lost[side] : NAN;
	case VMT_CMP_OPEN:	/* no exit open: nothing stuck, 0 */
		return c->open ? (double)s->open_max_ns : NAN;
	default:
		if (m >= VMT_CMP_NMETRICS || !metrics[m].pct)
			return NAN;
		return n ? (double)vmt_latdist_percentile(&s->d, metrics[m].pct) : NAN;
	}
}

/* "0x6e": a code as the labels write it. */
static int parse_hex(const char *s, uint64_t *out)
{
	char *end;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !isxdigit((unsigned char)s[2]))
		return -EINVAL;
	errno = 0;
	*out = strtoull(s + 2, &end, 16);
	return *end || errno ? -EINVAL : 0;
}

const struct vmt_cmp_group *vmt_compare_find(const struct vmt_compare *c, const char *reason)
{
	uint64_t code;
	size_t i;

	if (!*reason || !strcasecmp(reason, "all"))
		return &c->groups[0];
	for (i = 1; i < c->ngroups; i++) {
		if (!strcasecmp(c->groups[i].name, reason))
			return &c->groups[i];
	}
	/* a number as --reason takes it: 110 or 0x6e */
	if (vmt_cli_parse_u64(reason, &code) == 0 || parse_hex(reason, &code) == 0) {
		/* as the exits count: a VMX code by its basic reason, flags and all */
		for (i = 1; i < c->ngroups; i++) {
			if (vmt_exitreason_key(c->groups[i].isa, code) == c->groups[i].key)
				return &c->groups[i];
		}
	}
	return NULL;
}

static int run_together(const struct vmt_cmp_cond *cd, char *msg, size_t size)
{
	snprintf(msg, size, "'%s': conditions run together: separate them with ','", cd->text);
	return -EINVAL;
}

/* One condition: [REASON:]METRIC OP VALUE. */
static int parse_cond(char *s, struct vmt_cmp_cond *cd, bool single, char *msg, size_t size)
{
	char *colon = strchr(s, ':'), *op, *val, *end;
	size_t len;
	unsigned int m;
	uint64_t ns;

	memset(cd, 0, sizeof(*cd));
	snprintf(cd->text, sizeof(cd->text), "%s", s);
	/* "max>2ms;io:p99>1us": the first ':' would make "max>2ms;io" a reason */
	if (strpbrk(s, ";&|") || (colon && strcspn(s, "<>") < (size_t)(colon - s)))
		return run_together(cd, msg, size);
	if (colon) {
		*colon = '\0';
		if (strlen(s) >= sizeof(cd->reason) || !*s) {
			snprintf(msg, size, "'%s': a bad exit reason before ':'", cd->text);
			return -EINVAL;
		}
		snprintf(cd->reason, sizeof(cd->reason), "%s", s);
		s = colon + 1;
	}
	op = strpbrk(s, "<>");
	if (!op) {
		snprintf(msg, size, "'%s': no comparison (>, >=, <, <=)", cd->text);
		return -EINVAL;
	}
	len = (size_t)(op - s);
	for (m = 0; m < VMT_CMP_NMETRICS; m++) {
		if (strlen(metrics[m].name) == len && !strncasecmp(s, metrics[m].name, len))
			break;
	}
	if (m == VMT_CMP_NMETRICS) {
		/* the figures the hint names are those that work here: no test on one */
		snprintf(msg, size, "'%s': unknown figure '%.*s' (count, rate, mean, p50, p90, p99, "
			 "p99.9, p99.99, max, window, %s)", cd->text, (int)len, s,
			 single ? "lost, open" : "ks_p, ks_d, lost");
		return -EINVAL;
	}
	/* lost events belong to no exit, so to no reason */
	if (m == VMT_CMP_LOST && cd->reason[0] && strcasecmp(cd->reason, "all")) {
		snprintf(msg, size, "'%s': lost events are the recording's, not a reason's (lost>0)",
			 cd->text);
		return -EINVAL;
	}
	cd->metric = m;
	val = op + 1;
	if (*val == '=') {
		cd->op = *op == '>' ? VMT_CMP_GE : VMT_CMP_LE;
		val++;
	} else {
		cd->op = *op == '>' ? VMT_CMP_GT : VMT_CMP_LT;
	}
	/* "max>2ms p99>1us" (spaces are dropped): not a bad time */
	if (*val && strpbrk(val + 1, "<>"))
		return run_together(cd, msg, size);
	len = strlen(val);
	if (len && val[len - 1] == '%') {
		if (m == VMT_CMP_KS_P || m == VMT_CMP_KS_D) {
			snprintf(msg, size, "'%s': the test's figures take a plain number", cd->text);
			return -EINVAL;
		}
		cd->relative = true;
		val[len - 1] = '\0';
		cd->value = strtod(val, &end);
		if (!*val || *end || !isfinite(cd->value)) {
			snprintf(msg, size, "'%s': a bad percentage", cd->text);
			return -EINVAL;
		}
		return 0;
	}
	if (metrics[m].time) {
		if (vmt_cli_parse_duration_ns(val, &ns)) {
			snprintf(msg, size, "'%s': a bad time (500us, 2ms)%s", cd->text,
				 single ? "" : " or change (+10%)");
			return -EINVAL;
		}
		/* a bare number is seconds for TIME options; here it would mislead */
		if (!isalpha((unsigned char)val[len ? len - 1 : 0])) {
			snprintf(msg, size, "'%s': a time needs its unit (ns, us, ms, s)", cd->text);
			return -EINVAL;
		}
		cd->value = (double)ns;
		return 0;
	}
	cd->value = strtod(val, &end);
	if (!*val || *end || !isfinite(cd->value)) {
		snprintf(msg, size, "'%s': a bad number", cd->text);
		return -EINVAL;
	}
	return 0;
}

int vmt_compare_parse_conds(const char *s, struct vmt_cmp_cond *conds, unsigned int max,
			    bool single, char *msg, size_t size)
{
	char *copy = strdup(s), *tok, *next;
	unsigned int n = 0;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	/*
	 * Split at every ',' (not strtok, which skips empty parts): 'p99>1ms,' is a condition
	 * cut off or a typo, not one condition, and is refused like any bad one.
	 */
	for (tok = copy; tok && !ret; tok = next) {
		char *p = tok, *q;

		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		/* spaces are allowed around the parts: 'p99 > +10%' */
		for (q = tok; *q; q++) {
			if (!isspace((unsigned char)*q))
				*p++ = *q;
		}
		*p = '\0';
		if (!*tok) {
			snprintf(msg, size, "'%s': condition %u is empty (conditions are joined by one "
				 "',', with none at either end)", s, n + 1);
			ret = -EINVAL;
		} else if (n == max) {
			snprintf(msg, size, "more than %u conditions", max);
			ret = -EINVAL;
		} else {
			ret = parse_cond(tok, &conds[n++], single, msg, size);
		}
	}
	free(copy);
	return ret ? ret : (int)n;
}

static bool holds(enum vmt_cmp_op op, double x, double y)
{
	switch (op) {
	case VMT_CMP_GT:
		return x > y;
	case VMT_CMP_GE:
		return x >= y;
	case VMT_CMP_LT:
		return x < y;
	case VMT_CMP_LE:
		return x <= y;
	}
	return false;
}

static const char *const op_names[] = { ">", ">=", "<", "<=" };

/* An operator's text; bounded, which the compiler cannot see through holds()'s default. */
static const char *op_name(enum vmt_cmp_op op)
{
	return (unsigned int)op < sizeof(op_names) / sizeof(op_names[0]) ? op_names[op] : "?";
}

/* A metric's value for people: times as 3.351 ms, whole counts in full, the rest %.6g. */
static const char *value_text(enum vmt_cmp_metric m, double v, char *buf, size_t size)
{
	if (isnan(v)) {	/* a side without these exits: in buf too, which callers print */
		snprintf(buf, size, "none");
		return buf;
	}
	if (metrics[m].time && v >= 0 && v < 1.8e19)
		return vmt_format_ns((uint64_t)llround(v), buf, size);
	if (m == VMT_CMP_KS_P && v < 1e-300)	/* as the table: below a double's reach */
		snprintf(buf, size, "<1e-300");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, size, "%.0f", v);
	else if (m == VMT_CMP_RATE && fabs(v) < 1e15)	/* as the table: cut to a tenth */
		snprintf(buf, size, "%.1f", vmt_pct_cut(v, 1));
	else
		snprintf(buf, size, "%.6g", v);
	return buf;
}

/*
 * The figure a condition is judged on: the exact mean (the sum over the count, not the
 * table's whole ns: 44610.22 ns is more than 44.61 us), else vmt_compare_value()'s.
 */
static double exact_value(const struct vmt_compare *c, const struct vmt_cmp_group *g, int side,
			  enum vmt_cmp_metric m)
{
	const struct vmt_latstat *st = &g->side[side].d.st;

	if (m == VMT_CMP_MEAN && st->count)
		return (double)st->sum / (double)st->count;
	return vmt_compare_value(c, g, side, m);
}

/*
 * x and y written with as many decimals (of ns for times, " ns" after them) as it takes to
 * tell them apart, when value_text() made them read alike although they differ: a
 * verdict "rate 120401.8 > 120401.8" would read false in a CI log. Rounded, which keeps
 * their order once they differ. Returns whether it rewrote them.
 */
static bool tell_apart(enum vmt_cmp_metric m, double x, double y, char *a, char *b, size_t size)
{
	const char *unit = metrics[m].time ? " ns" : "";
	int d;

	if (x == y || isnan(x) || isnan(y) || !isfinite(x) || !isfinite(y) || strcmp(a, b))
		return false;
	for (d = 0; d <= 12; d++) {
		snprintf(a, size, "%.*f%s", d, x, unit);
		snprintf(b, size, "%.*f%s", d, y, unit);
		if (strcmp(a, b))
			return true;
	}
	return true;	/* beyond 12 decimals: as close as a double tells */
}

static int check_group(const struct vmt_compare *c, const struct vmt_cmp_group *g,
		       const struct vmt_cmp_cond *cd, char *msg, size_t size);

int vmt_compare_check(const struct vmt_compare *c, const struct vmt_cmp_cond *cd, char *msg,
		      size_t size)
{
	const struct vmt_cmp_group *g = vmt_compare_find(c, cd->reason);

	if (!g) {
		snprintf(msg, size, "%s: neither recording has exits of reason '%s'", cd->text,
			 cd->reason);
		return -ENOENT;
	}
	return check_group(c, g, cd, msg, size);
}

int vmt_compare_check_none(const struct vmt_compare *c, const struct vmt_cmp_cond *cd,
			   char *msg, size_t size)
{
	struct vmt_cmp_group none;
	int verdict;

	/* the figures of a group without exits on either side, as vmt_compare_value() has them */
	memset(&none, 0, sizeof(none));
	snprintf(none.name, sizeof(none.name), "%s", cd->reason);
	/* a latency of no exits in two recordings: no change (the rest: check_group()) */
	if (!cd->relative || !metrics[cd->metric].time || cd->metric == VMT_CMP_OPEN)
		return check_group(c, &none, cd, msg, size);
	verdict = holds(cd->op, 0, cd->value);
	snprintf(msg, size, "%s: %s %s none -> none (no change) %s%s %+g %%", cd->text,
		 none.name, metrics[cd->metric].name, verdict ? "" : "not ", op_name(cd->op),
		 cd->value);
	return verdict;
}

/*
 * A reason without exits where the condition is judged: none is longer than any bound, so
 * a latency "more than" it does not hold (a gate on a reason's worst case passes a run
 * that had none of them); "less than" cannot be told. All exits without one is a selection
 * gone wrong (the wrong file, CPUs or filters), which fails closed.
 */
static bool none_longer(const struct vmt_cmp_group *g, const struct vmt_cmp_cond *cd)
{
	return !cd->relative && !g->all && !g->side[VMT_CMP_AFTER].d.st.count &&
	       metrics[cd->metric].time && cd->metric != VMT_CMP_OPEN &&
	       (cd->op == VMT_CMP_GT || cd->op == VMT_CMP_GE);
}

static int check_group(const struct vmt_compare *c, const struct vmt_cmp_group *g,
		       const struct vmt_cmp_cond *cd, char *msg, size_t size)
{
	double before, after, x;
	char a[48], b[48], pct[48], lim[48], op[8];
	int verdict, d;

	if (none_longer(g, cd)) {
		snprintf(msg, size, "%s: %s %s none, no exit longer: not %s %s", cd->text, g->name,
			 metrics[cd->metric].name, op_name(cd->op),
			 value_text(cd->metric, cd->value, lim, sizeof(lim)));
		return 0;
	}
	before = exact_value(c, g, VMT_CMP_BEFORE, cd->metric);
	after = exact_value(c, g, VMT_CMP_AFTER, cd->metric);
	if (!cd->relative) {
		x = after;
	} else if (isnan(before) || isnan(after)) {
		x = NAN;
	} else if (before == 0) {
		/* from nothing to something is an infinite rise; from nothing to nothing none */
		x = after == 0 ? 0 : INFINITY;
	} else {
		x = (after - before) / before * 100.0;
	}
	/* a recording without these exits: no figure to compare */
	verdict = isnan(x) ? 2 : holds(cd->op, x, cd->value);
	/*
	 * Lost events some of which were not counted (damage): the figure is a lower bound. It
	 * decides "more than" when it holds and "less than" when it does not; else no one can
	 * tell, which a gate counts as holding.
	 */
	if (cd->metric == VMT_CMP_LOST && verdict != 2 &&
	    (c->lost_inexact[VMT_CMP_AFTER] || (cd->relative && c->lost_inexact[VMT_CMP_BEFORE])) &&
	    (cd->relative || verdict == (cd->op == VMT_CMP_LT || cd->op == VMT_CMP_LE)))
		verdict = 2;
	/* the relation as it is: "25145 not < 1000" when the condition does not hold */
	snprintf(op, sizeof(op), "%s%s", verdict ? "" : "not ", op_names[cd->op]);
	if (!cd->relative) {
		value_text(cd->metric, x, a, sizeof(a));
		value_text(cd->metric, cd->value, b, sizeof(b));
		tell_apart(cd->metric, x, cd->value, a, b, sizeof(a));
		snprintf(msg, size, "%s: %s %s %s%s %s %s", cd->text, g->name,
			 metrics[cd->metric].name, a,
			 cd->metric == VMT_CMP_LOST && c->lost_inexact[VMT_CMP_AFTER] ?
			 " and an unknown number more" : "", op, b);
		return verdict;
	}
	/* shown cut toward zero, as the table's changes; the verdict takes x itself */
	if (isnan(x))
		snprintf(pct, sizeof(pct), "no change to tell");
	else
		snprintf(pct, sizeof(pct), "%+.2f", isfinite(x) ? vmt_pct_cut(x, 2) : x);
	snprintf(lim, sizeof(lim), "%+g", cd->value);
	/* "+10.00 % > +10 %" for a rise of 10.004 %: the digits that tell them apart */
	if (!isnan(x) && isfinite(x) && x != cd->value && strtod(pct, NULL) == cd->value) {
		for (d = 3; d <= 12; d++) {
			snprintf(pct, sizeof(pct), "%+.*f", d, x);
			snprintf(lim, sizeof(lim), "%+.*f", d, cd->value);
			if (strcmp(pct, lim))
				break;
		}
	}
	snprintf(msg, size, "%s: %s %s %s -> %s (%s%s) %s %s %%", cd->text, g->name,
		 metrics[cd->metric].name, value_text(cd->metric, before, a, sizeof(a)),
		 value_text(cd->metric, after, b, sizeof(b)), pct, isnan(x) ? "" : " %", op, lim);
	return verdict;
}
