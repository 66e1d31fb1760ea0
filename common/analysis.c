// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"

struct task {
	struct task *next;		/* every task, for the summary at the end */
	struct vmt_group g;
	struct vmt_window win;
};

struct ctx {
	struct vmt_summary *s;
	const struct vmt_analysis_opts *o;
	const struct vmt_reader *r;
	struct task *tasks;
	size_t ntasks;
	size_t *reason_slot;		/* open addressing over s->reasons */
	size_t reason_cap;		/* slots, a power of two */
	size_t reasons_alloc;
	size_t cpus_alloc;
	uint64_t from, to;		/* filter window in trace clock units, absolute */
	uint64_t threshold;
	uint64_t vfrom, vto;		/* verbose window, absolute; vto 0: no window */
	uint64_t items, progress_ms;
	uint8_t *gap;			/* per CPU: a gap since that CPU's last row */
	uint32_t ngap;
	bool paired;			/* the event just fed completed a pair */
	uint64_t last_lat;
	int error;
};

static uint64_t to_ticks(const struct vmt_reader *r, uint64_t ns)
{
	return vmt_clock_ticks(vmt_reader_clock(r), ns);
}

static void group_init(struct vmt_group *g)
{
	memset(g, 0, sizeof(*g));
	vmt_latdist_init(&g->d);
}

static bool filter_pass(const struct ctx *c, const struct vmt_pair *p)
{
	const struct vmt_filter *f = c->o->filter;
	const struct vmt_event *ex = p->begin;
	unsigned int i;

	if (!f)
		return true;
	if (f->cpus.n && !vmt_cpulist_has(&f->cpus, ex->cpu))
		return false;
	if (f->vcpus.n) {
		const struct vmt_event *e = (ex->has & VMT_EVF_VCPU) ? ex : p->end;

		if (!(e->has & VMT_EVF_VCPU) || !vmt_cpulist_has(&f->vcpus, e->vcpu))
			return false;
	}
	if (f->nreasons) {
		uint64_t key = vmt_exitreason_key(ex->isa, ex->reason);

		if (!(ex->has & VMT_EVF_REASON))
			return false;
		for (i = 0; i < f->nreasons; i++) {
			if (f->reason_key[i] == key &&
			    (f->reason_isa[i] == VMT_ISA_ANY || !(ex->has & VMT_EVF_ISA) ||
			     f->reason_isa[i] == ex->isa))
				break;
		}
		if (i == f->nreasons)
			return false;
	}
	if (f->has_from && ex->ts < c->from)
		return false;
	if (f->has_to && ex->ts > c->to)
		return false;
	return true;
}

/* The filter for single events (conversions' --events rows). */
static bool event_pass(const struct ctx *c, const struct vmt_event *ev)
{
	const struct vmt_filter *f = c->o->filter;
	unsigned int i;

	if (!f)
		return true;
	if (f->cpus.n && !vmt_cpulist_has(&f->cpus, ev->cpu))
		return false;
	if (f->vcpus.n && (!(ev->has & VMT_EVF_VCPU) || !vmt_cpulist_has(&f->vcpus, ev->vcpu)))
		return false;
	if (f->nreasons) {
		uint64_t key = vmt_exitreason_key(ev->isa, ev->reason);

		/* entries carry no reason: a reason filter keeps exits only */
		if (ev->kind != VMT_EV_BEGIN || !(ev->has & VMT_EVF_REASON))
			return false;
		for (i = 0; i < f->nreasons; i++) {
			if (f->reason_key[i] == key)
				break;
		}
		if (i == f->nreasons)
			return false;
	}
	if (f->has_from && ev->ts < c->from)
		return false;
	if (f->has_to && ev->ts > c->to)
		return false;
	return true;
}

static size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

static struct vmt_group *reason_group(struct ctx *c, uint32_t isa, uint64_t key)
{
	struct vmt_summary *s = c->s;
	uint64_t hk = key ^ (uint64_t)isa << 60;
	size_t i;

	if (!c->reason_cap || (s->nreasons + 1) * 2 > c->reason_cap) {
		size_t cap = c->reason_cap ? c->reason_cap * 2 : 64, j;
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
		free(c->reason_slot);
		c->reason_slot = slot;
		c->reason_cap = cap;
	}
	for (i = hash64(hk);; i++) {
		size_t idx = c->reason_slot[i & (c->reason_cap - 1)];

		if (idx == SIZE_MAX)
			break;
		if (s->reasons[idx].key == key && s->reasons[idx].isa == isa)
			return &s->reasons[idx];
	}
	if (s->nreasons == c->reasons_alloc) {
		size_t n = c->reasons_alloc ? c->reasons_alloc * 2 : 16;
		struct vmt_group *bigger = realloc(s->reasons, n * sizeof(*bigger));

		if (!bigger)
			return NULL;
		s->reasons = bigger;
		c->reasons_alloc = n;
	}
	c->reason_slot[i & (c->reason_cap - 1)] = s->nreasons;
	group_init(&s->reasons[s->nreasons]);
	s->reasons[s->nreasons].isa = isa;
	s->reasons[s->nreasons].key = key;
	return &s->reasons[s->nreasons++];
}

static struct vmt_group *cpu_group(struct ctx *c, uint32_t cpu)
{
	struct vmt_summary *s = c->s;

	if (cpu >= c->cpus_alloc) {
		size_t n = cpu + 1 > c->cpus_alloc * 2 ? cpu + 1 : c->cpus_alloc * 2, i;
		struct vmt_group *bigger = realloc(s->cpus, n * sizeof(*bigger));

		if (!bigger)
			return NULL;
		for (i = c->cpus_alloc; i < n; i++) {
			group_init(&bigger[i]);
			bigger[i].key = i;
		}
		s->cpus = bigger;
		c->cpus_alloc = n;
	}
	if (cpu >= s->ncpus)
		s->ncpus = cpu + 1;
	return &s->cpus[cpu];
}

static void top_add(struct ctx *c, const struct vmt_pair *p)
{
	struct vmt_summary *s = c->s;
	unsigned int n = c->o->top_n, i;
	struct vmt_top t;

	if (!n)
		return;
	if (s->ntop == n && p->lat <= s->top[0].lat)
		return;
	t.exit = *p->begin;
	t.lat = p->lat;
	t.entry_cpu = p->end->cpu;
	/* a min-heap on latency: the root is the shortest of the kept ones */
	if (s->ntop < n) {
		i = s->ntop++;
		while (i && s->top[(i - 1) / 2].lat > t.lat) {
			s->top[i] = s->top[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		s->top[i] = t;
		return;
	}
	i = 0;
	for (;;) {
		unsigned int l = 2 * i + 1, m = l;

		if (l >= n)
			break;
		if (l + 1 < n && s->top[l + 1].lat < s->top[l].lat)
			m = l + 1;
		if (s->top[m].lat >= t.lat)
			break;
		s->top[i] = s->top[m];
		i = m;
	}
	s->top[i] = t;
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

static void hist_add(struct ctx *c, uint32_t cpu, uint64_t lat)
{
	struct vmt_summary *s = c->s;
	unsigned int row;

	for (row = 0; row < s->hist_ncpus; row++) {
		if (s->hist_cpu[row] == cpu)
			break;
	}
	if (row == s->hist_ncpus) {
		size_t w = (size_t)s->hist_buckets + 1;
		uint64_t *h = realloc(s->hist, (row + 1) * w * sizeof(*h));
		uint32_t *hc;

		if (!h) {
			c->error = -ENOMEM;
			return;
		}
		s->hist = h;
		memset(h + row * w, 0, w * sizeof(*h));
		hc = realloc(s->hist_cpu, (row + 1) * sizeof(*hc));
		if (!hc) {
			c->error = -ENOMEM;
			return;
		}
		s->hist_cpu = hc;
		hc[row] = cpu;
		s->hist_ncpus++;
	}
	s->hist[row * ((size_t)s->hist_buckets + 1) + hist_index(s, lat)]++;
}


static void print_threshold(struct ctx *c, const struct vmt_pair *p)
{
	const struct vmt_event *e = p->begin;
	char t[32], l[32], rs[96];

	fprintf(c->o->threshold_out, "  %14s %4u %5s %-28s %10s  rip 0x%" PRIx64 "\n",
		vmt_fmt_time(c->r, c->s->start_ts, e->ts, t, sizeof(t)), e->cpu,
		(e->has & VMT_EVF_VCPU) ? (snprintf(l, sizeof(l), "%u", e->vcpu), l) : "-",
		(e->has & VMT_EVF_REASON) ?
		vmt_summary_reason(c->s, e->isa, vmt_exitreason_key(e->isa, e->reason), rs,
				   sizeof(rs)) : "-",
		vmt_fmt_lat(c->r, p->lat, t, sizeof(t)), e->rip);
}

static bool gap_seen(const struct ctx *c, uint32_t cpu)
{
	return cpu < c->ngap && c->gap[cpu];
}

static void gap_clear(struct ctx *c, uint32_t cpu)
{
	if (cpu < c->ngap)
		c->gap[cpu] = 0;
}

static int gap_mark(struct ctx *c, uint32_t cpu)
{
	if (cpu >= c->ngap) {
		uint32_t n = cpu + 1 > c->ngap * 2 ? cpu + 1 : c->ngap * 2;
		uint8_t *bigger = realloc(c->gap, n);

		if (!bigger)
			return -ENOMEM;
		memset(bigger + c->ngap, 0, n - c->ngap);
		c->gap = bigger;
		c->ngap = n;
	}
	c->gap[cpu] = 1;
	return 0;
}

static void pair_hook(struct ctx *c, const struct vmt_pair *p)
{
	bool near = gap_seen(c, p->begin->cpu) || gap_seen(c, p->end->cpu);

	gap_clear(c, p->begin->cpu);
	gap_clear(c, p->end->cpu);
	c->o->pair_hook(p, near, c->o->hook_arg);
}

static void on_pair(const struct vmt_pair *p, void *arg)
{
	struct ctx *c = arg;
	struct vmt_summary *s = c->s;
	struct task *t = *p->task_ctx;
	const struct vmt_event *ex = p->begin;
	struct vmt_group *g;
	struct vmt_latval lv;

	c->paired = true;
	c->last_lat = p->lat;
	if (!filter_pass(c, p)) {
		s->filtered_out++;
		return;
	}
	if (c->o->rows_only) {
		/* conversions: the row is all they want */
		vmt_latstat_add(&s->all.st, p->lat);
		if (c->o->pair_hook)
			pair_hook(c, p);
		return;
	}
	/*
	 * Once for the three distributions below; the overall one is the sum of the
	 * per-CPU ones, merged at the end (a fourth update per exit cost more than that).
	 */
	vmt_latval_init(&lv, p->lat);
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t) {
			c->error = -ENOMEM;
			return;
		}
		group_init(&t->g);
		t->g.pid = p->end->pid;
		vmt_window_init(&t->win, s->window);
		t->next = c->tasks;
		c->tasks = t;
		c->ntasks++;
		*p->task_ctx = t;
	}
	if (vmt_latdist_add_val(&t->g.d, &lv))
		c->error = -ENOMEM;
	if (p->end->has & VMT_EVF_VCPU) {
		t->g.vcpu = p->end->vcpu;
		t->g.has_vcpu = true;
	} else if (ex->has & VMT_EVF_VCPU) {
		t->g.vcpu = ex->vcpu;
		t->g.has_vcpu = true;
	}
	if (vmt_window_add(&t->win, ex->ts, p->end->ts)) {
		c->error = -ENOMEM;
		return;
	}
	if (t->win.max_sum > s->max_window_sum) {
		s->max_window_sum = t->win.max_sum;
		s->max_window_at = t->win.max_at;
		s->max_window_pid = p->end->pid;
	}
	if (ex->has & VMT_EVF_REASON) {
		uint32_t isa = (ex->has & VMT_EVF_ISA) ? ex->isa : VMT_ISA_ANY;

		g = reason_group(c, isa, vmt_exitreason_key(isa, ex->reason));
		if (!g || vmt_latdist_add_val(&g->d, &lv))
			c->error = -ENOMEM;
	}
	g = cpu_group(c, ex->cpu);
	if (!g || vmt_latdist_add_val(&g->d, &lv))
		c->error = -ENOMEM;
	top_add(c, p);
	if (c->threshold && p->lat >= c->threshold && c->o->threshold_out)
		print_threshold(c, p);
	if (s->hist_buckets)
		hist_add(c, ex->cpu, p->lat);
	if (c->o->pair_hook)
		pair_hook(c, p);
}

static void free_task(void *ctx)
{
	struct task *t = ctx;

	vmt_window_free(&t->win);
	vmt_latdist_free(&t->g.d);
	free(t);
}

static int by_pairs(const void *a, const void *b)
{
	const struct vmt_group *x = a, *y = b;

	if (x->d.st.count != y->d.st.count)
		return x->d.st.count < y->d.st.count ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int by_total(const void *a, const void *b)
{
	const struct vmt_group *x = a, *y = b;

	if (x->d.st.sum != y->d.st.sum)
		return x->d.st.sum < y->d.st.sum ? 1 : -1;
	return (x->key > y->key) - (x->key < y->key);
}

static int by_lat_desc(const void *a, const void *b)
{
	const struct vmt_top *x = a, *y = b;

	if (x->lat != y->lat)
		return x->lat < y->lat ? 1 : -1;
	return (x->exit.ts > y->exit.ts) - (x->exit.ts < y->exit.ts);
}

/* Move every task's figures out before the pairing (which owns the tasks) is freed. */
static int collect_tasks(struct ctx *c)
{
	struct task *t;
	size_t i = 0;

	if (!c->ntasks)
		return 0;
	c->s->tasks = calloc(c->ntasks, sizeof(*c->s->tasks));
	if (!c->s->tasks)
		return -ENOMEM;
	for (t = c->tasks; t; t = t->next) {
		c->s->tasks[i] = t->g;
		c->s->tasks[i].max_window_sum = t->win.max_sum;
		c->s->tasks[i].max_window_at = t->win.max_at;
		/* the distribution's buffers now belong to the summary */
		vmt_latdist_init(&t->g.d);
		i++;
	}
	c->s->ntasks = i;
	qsort(c->s->tasks, c->s->ntasks, sizeof(*c->s->tasks), by_pairs);
	return 0;
}

static void verbose_event(struct ctx *c, const struct vmt_event *ev)
{
	FILE *f = c->o->verbose;
	char t[32], l[32], rs[96];

	fprintf(f, "%14s cpu %3u pid %7" PRId32 " ",
		vmt_fmt_time(c->r, c->s->start_ts, ev->ts, t, sizeof(t)), ev->cpu, ev->pid);
	if (ev->kind == VMT_EV_BEGIN) {
		fprintf(f, "EXIT ");
		if (ev->has & VMT_EVF_VCPU)
			fprintf(f, " vcpu %u", ev->vcpu);
		if (ev->has & VMT_EVF_REASON)
			fprintf(f, " reason %s", vmt_summary_reason(c->s, ev->isa,
				vmt_exitreason_key(ev->isa, ev->reason), rs, sizeof(rs)));
		if (ev->has & VMT_EVF_RIP)
			fprintf(f, " rip 0x%" PRIx64, ev->rip);
		if (ev->has & VMT_EVF_INFO1)
			fprintf(f, " info1 0x%" PRIx64, ev->info1);
		if (ev->has & VMT_EVF_INFO2)
			fprintf(f, " info2 0x%" PRIx64, ev->info2);
		if (ev->has & VMT_EVF_INTR_INFO)
			fprintf(f, " intr_info 0x%08" PRIx32, ev->intr_info);
		if (ev->has & VMT_EVF_ERROR_CODE)
			fprintf(f, " error_code 0x%08" PRIx32, ev->error_code);
	} else {
		fprintf(f, "ENTRY");
		if (ev->has & VMT_EVF_VCPU)
			fprintf(f, " vcpu %u", ev->vcpu);
		if (ev->has & VMT_EVF_RIP)
			fprintf(f, " rip 0x%" PRIx64, ev->rip);
		if (c->paired)
			fprintf(f, " latency %s", vmt_fmt_lat(c->r, c->last_lat, l, sizeof(l)));
		else
			fprintf(f, " (no exit)");
	}
	fputc('\n', f);
}

int vmt_analyze(struct vmt_reader *r, const struct vmt_analysis_opts *o, struct vmt_summary *s)
{
	const struct vmt_evbind *bind = vmt_reader_bind(r);
	struct ctx c;
	struct vmt_pairing *p;
	const struct vmt_item *it;
	int dec;
	struct vmt_event ev;
	size_t i;
	int ret;

	memset(s, 0, sizeof(*s));
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.o = o;
	c.r = r;
	vmt_latdist_init(&s->all);
	s->first_ts = UINT64_MAX;
	s->max_window_pid = -1;
	s->window = to_ticks(r, o->window_ns);
	s->start_ts = vmt_reader_start_ts(r);
	if (o->filter) {
		c.from = s->start_ts + to_ticks(r, o->filter->from_ns);
		c.to = s->start_ts + to_ticks(r, o->filter->to_ns);
	}
	c.threshold = o->threshold_ns ? to_ticks(r, o->threshold_ns) : 0;
	if (o->verbose_window) {
		c.vfrom = s->start_ts + to_ticks(r, o->verbose_from_ns);
		c.vto = s->start_ts + to_ticks(r, o->verbose_to_ns);
	}
	if (o->top_n) {
		s->top = calloc(o->top_n, sizeof(*s->top));
		if (!s->top)
			return -ENOMEM;
	}
	if (o->hist_bucket_ns || o->hist_log) {
		s->hist_log = o->hist_log;
		s->hist_buckets = o->hist_buckets ? o->hist_buckets : 100;
		s->hist_bucket = o->hist_log ? 0 : to_ticks(r, o->hist_bucket_ns);
		if (!s->hist_log && !s->hist_bucket)
			s->hist_bucket = 1;
	}
	ret = vmt_exitreasons_new(vmt_reader_begin_format(r), &s->names);
	if (ret)
		return ret;
	p = vmt_pairing_new(on_pair, &c);
	if (!p)
		return -ENOMEM;
	ret = 0;
	while ((it = vmt_reader_next_item(r))) {
		if (o->progress && (++c.items & 0xffff) == 0) {
			struct timespec now;
			uint64_t ms;

			clock_gettime(CLOCK_MONOTONIC, &now);
			ms = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
			if (ms - c.progress_ms >= 100) {
				c.progress_ms = ms;
				o->progress(vmt_reader_stats(r)->chunks,
					    vmt_source_nchunks(vmt_reader_source(r)),
					    o->progress_arg);
			}
		}
		if (it->kind == VMT_ITEM_GAP) {
			ret = vmt_pairing_gap(p, it->cpu);
			if (!ret && (o->pair_hook || o->event_hook))
				ret = gap_mark(&c, it->cpu);
			if (ret)
				break;
			if (o->verbose && (!c.vto || (it->ts >= c.vfrom && it->ts <= c.vto))) {
				char t[32];

				fprintf(o->verbose, "%14s cpu %3u LOST %" PRIu64 " events before this "
					"point%s\n", vmt_fmt_time(r, s->start_ts, it->ts, t, sizeof(t)), it->cpu,
					it->missed, it->missed ? "" : " (count not stored)");
			}
			continue;
		}
		dec = vmt_evbind_decode(bind, &it->rec, it->cpu, &ev);
		if (dec == 0) {
			s->other_records++;
			continue;
		}
		if (dec < 0) {
			s->bad_records++;
			continue;
		}
		s->events++;
		if (ev.ts < s->first_ts)
			s->first_ts = ev.ts;
		if (ev.ts > s->last_ts)
			s->last_ts = ev.ts;
		c.paired = false;
		ret = vmt_pairing_event(p, &ev);
		if (ret || c.error)
			break;
		if (o->verbose && (!c.vto || (ev.ts >= c.vfrom && ev.ts <= c.vto)))
			verbose_event(&c, &ev);
		if (o->event_hook && event_pass(&c, &ev)) {
			bool near = gap_seen(&c, ev.cpu);

			gap_clear(&c, ev.cpu);
			o->event_hook(&ev, c.paired ? c.last_lat : UINT64_MAX, near, o->hook_arg);
		}
	}
	if (!ret)
		ret = c.error;
	vmt_pairing_finish(p);
	s->pairing = *vmt_pairing_stats(p);
	if (!ret)
		ret = collect_tasks(&c);
	vmt_pairing_free(p, free_task);
	free(c.reason_slot);
	free(c.gap);
	if (s->first_ts == UINT64_MAX)
		s->first_ts = 0;
	/* every pair counted went to exactly one pCPU: their sum is the whole */
	for (i = 0; !o->rows_only && i < s->ncpus; i++) {
		if (!ret && vmt_latdist_merge(&s->all, &s->cpus[i].d))
			ret = -ENOMEM;
	}
	s->lat = s->all.st;
	/* keep only the CPUs that had exits */
	for (i = 0; i < s->ncpus; i++) {
		if (!s->cpus[i].d.st.count)
			vmt_latdist_free(&s->cpus[i].d);
	}
	for (i = s->ncpus; i < c.cpus_alloc; i++)
		vmt_latdist_free(&s->cpus[i].d);
	{
		size_t j = 0;

		for (i = 0; i < s->ncpus; i++) {
			if (s->cpus[i].d.st.count)
				s->cpus[j++] = s->cpus[i];
		}
		s->ncpus = j;
	}
	if (s->nreasons)
		qsort(s->reasons, s->nreasons, sizeof(*s->reasons), by_total);
	if (s->ntop)
		qsort(s->top, s->ntop, sizeof(*s->top), by_lat_desc);
	s->rd = *vmt_reader_stats(r);
	s->lost_stats = vmt_reader_stats_lost(r, &s->lost_stats_known);
	s->lost_events = s->rd.missed_events > s->lost_stats ? s->rd.missed_events : s->lost_stats;
	return ret;
}

void vmt_summary_free(struct vmt_summary *s)
{
	size_t i;

	vmt_latdist_free(&s->all);
	for (i = 0; i < s->nreasons; i++)
		vmt_latdist_free(&s->reasons[i].d);
	for (i = 0; i < s->ncpus; i++)
		vmt_latdist_free(&s->cpus[i].d);
	for (i = 0; i < s->ntasks; i++)
		vmt_latdist_free(&s->tasks[i].d);
	free(s->reasons);
	free(s->cpus);
	free(s->tasks);
	free(s->top);
	free(s->hist);
	free(s->hist_cpu);
	vmt_exitreasons_free(s->names);
	memset(s, 0, sizeof(*s));
}

uint64_t vmt_summary_orphans(const struct vmt_summary *s)
{
	return s->pairing.orphan_begins + s->pairing.orphan_ends + s->pairing.unfinished;
}

const char *vmt_summary_reason(const struct vmt_summary *s, uint32_t isa, uint64_t key,
			       char *buf, size_t size)
{
	const char *name = s->names ? vmt_exitreason_name(s->names, isa, key) : NULL;

	if (name)
		snprintf(buf, size, "%s(0x%" PRIx64 ")", name, key);
	else
		snprintf(buf, size, "0x%" PRIx64, key);
	return buf;
}
