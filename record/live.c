// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exitreason.h"
#include "iterate.h"
#include "latstat.h"
#include "log.h"
#include "live.h"
#include "livefmt.h"
#include "tap.h"

/* Copies of pages the tap may hold for the merge before it merges early. */
#define MAX_HELD_BYTES	(64u << 20)

struct rec_live {
	struct rec_live_config cfg;
	struct rec_tap *tap;
	struct vmt_consumer c;		/* the pass keeps a pointer to it */
	struct vmt_exitreasons *names;
	bool started;			/* t0 known */
	uint64_t t0, cur_start, cur_end;	/* trace clock (ns) */
	uint64_t index;			/* of the current interval */
	uint64_t lost;			/* in the current interval */
	struct rec_live_stat all;
	struct rec_live_task **tasks;
	size_t ntasks;
	struct rec_live_reason *reasons;
	size_t nreasons, last_reason;
	struct rec_live_totals tot;
};

static void iv_init(struct rec_live_stat *s)
{
	memset(s, 0, sizeof(*s));
	vmt_latdist_init(&s->d);
}

static void iv_reset(struct rec_live_stat *s)
{
	vmt_latdist_free(&s->d);
	iv_init(s);
}

static int iv_add(struct rec_live_stat *s, const struct vmt_latval *lv, uint64_t inside)
{
	s->count++;
	s->sum += inside;
	if (lv->v > s->max)
		s->max = lv->v;
	return vmt_latdist_add_val(&s->d, lv);
}

static struct rec_live_reason *reason_of(struct rec_live *l, uint32_t isa, uint64_t key)
{
	struct rec_live_reason *grown;
	size_t i;

	if (l->last_reason < l->nreasons && l->reasons[l->last_reason].key == key &&
	    l->reasons[l->last_reason].isa == isa)
		return &l->reasons[l->last_reason];
	for (i = 0; i < l->nreasons; i++)
		if (l->reasons[i].key == key && l->reasons[i].isa == isa)
			return &l->reasons[l->last_reason = i];
	grown = realloc(l->reasons, (l->nreasons + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	l->reasons = grown;
	grown += l->nreasons;
	grown->isa = isa;
	grown->key = key;
	iv_init(&grown->s);
	return &l->reasons[l->last_reason = l->nreasons++];
}

static struct rec_live_task *task_of(struct rec_live *l, const struct vmt_pair *p, void **slot)
{
	struct rec_live_task **grown, *t = *slot;

	if (t)
		return t;
	grown = realloc(l->tasks, (l->ntasks + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	l->tasks = grown;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = p->end->pid;
	iv_init(&t->s);
	l->tasks[l->ntasks++] = t;
	*slot = t;
	return t;
}

/* Print the interval [cur_start, cur_start + len) and start the next one. */
static void close_interval(struct rec_live *l, uint64_t len)
{
	struct rec_live_frame fr = {
		.out = l->cfg.out, .all = &l->all, .tasks = l->tasks, .ntasks = l->ntasks,
		.reasons = l->reasons, .nreasons = l->nreasons, .names = l->names,
	};
	unsigned int active = 0;
	size_t i;

	if (l->tap) {
		struct rec_tap_stats st;

		rec_tap_stats(l->tap, &st);
		l->tot.late = st.late;
	}
	for (i = 0; i < l->ntasks; i++)
		active += l->tasks[i]->s.count > 0;
	fr.index = l->index;
	fr.start_ns = l->cur_start - l->t0;
	fr.len_ns = len;
	fr.lost = l->lost;
	fr.late = l->tot.late;
	fr.active = active;
	if (l->cfg.terminal)
		rec_livefmt_table(&fr);
	else
		rec_livefmt_line(&fr);
	fflush(l->cfg.out);
	l->last_reason = SIZE_MAX;	/* the table sorted them */
	l->tot.intervals++;
	l->tot.pairs += l->all.count;
	iv_reset(&l->all);
	for (i = 0; i < l->ntasks; i++)
		iv_reset(&l->tasks[i]->s);
	for (i = 0; i < l->nreasons; i++)
		iv_reset(&l->reasons[i].s);
	l->lost = 0;
	l->index++;
	l->cur_start = l->cur_end;
	l->cur_end += l->cfg.interval_ns;
}

static void begin_at(struct rec_live *l, uint64_t ts)
{
	l->started = true;
	l->t0 = l->cur_start = ts;
	l->cur_end = ts + l->cfg.interval_ns;
}

/* Close every interval that ends at or before ts. */
static void move_to(struct rec_live *l, uint64_t ts)
{
	while (l->started && ts >= l->cur_end)
		close_interval(l, l->cfg.interval_ns);
}

static int live_start(void *state, const struct vmt_iter *it)
{
	struct rec_live *l = state;

	return vmt_exitreasons_new(it->begin_format, &l->names);
}

static int live_pair(void *state, const struct vmt_iter *it, const struct vmt_pair *p,
		     void **slot)
{
	struct rec_live *l = state;
	const struct vmt_event *ex = p->begin;
	struct vmt_latval lv;
	struct rec_live_task *t;
	uint64_t inside;
	int ret = 0;

	if (!l->started)
		begin_at(l, it->first_ts);
	move_to(l, p->end->ts);
	vmt_latval_init(&lv, p->lat);
	t = task_of(l, p, slot);
	if (!t)
		return -ENOMEM;
	if (p->end->has & VMT_EVF_VCPU || ex->has & VMT_EVF_VCPU) {
		t->vcpu = p->end->has & VMT_EVF_VCPU ? p->end->vcpu : ex->vcpu;
		t->has_vcpu = true;
	}
	/*
	 * An exit counts in the interval it ends in; of its time only the part inside that
	 * interval, as the intervals before it are shown already: no task exceeds 100 %.
	 */
	inside = p->end->ts > l->cur_start ? p->end->ts - l->cur_start : 0;
	if (inside > p->lat)
		inside = p->lat;
	if (iv_add(&l->all, &lv, inside) || iv_add(&t->s, &lv, inside))
		ret = -ENOMEM;
	if (ex->has & VMT_EVF_REASON) {
		uint32_t isa = (ex->has & VMT_EVF_ISA) ? ex->isa : VMT_ISA_ANY;
		struct rec_live_reason *r = reason_of(l, isa, vmt_exitreason_key(isa, ex->reason));

		if (!r || iv_add(&r->s, &lv, inside))
			ret = -ENOMEM;
	}
	return ret;
}

static int live_gap(void *state, const struct vmt_iter *it, uint32_t cpu, uint64_t ts,
		    uint64_t missed)
{
	struct rec_live *l = state;

	(void)it;
	(void)cpu;
	move_to(l, ts);
	l->lost += missed;
	return 0;
}

static void live_task_free(void *state, void *task)
{
	(void)state;
	(void)task;	/* the tasks belong to the view: they outlive the pass */
}

static const struct vmt_consumer_ops live_ops = {
	.name = "live",
	.start = live_start,
	.pair = live_pair,
	.gap = live_gap,
	.task_free = live_task_free,
};

/* The tap's hook: every record up to ts is in; UINT64_MAX: the last came. */
static void live_advance(void *arg, const struct vmt_iter *it, uint64_t ts)
{
	struct rec_live *l = arg;

	if (ts != UINT64_MAX) {
		move_to(l, ts);
		return;
	}
	/* The last interval ends with the last event. */
	if (l->started && it->last_ts >= l->cur_start && (l->all.count || l->lost))
		close_interval(l, it->last_ts - l->cur_start);
}

int rec_live_new(const struct rec_live_config *cfg, struct rec_live **out)
{
	struct rec_tap_config tc = {
		.next = cfg->next, .hp = cfg->hp, .meta = cfg->meta, .meta_len = cfg->meta_len,
		.clock = cfg->clock, .lookbehind_ns = cfg->lookbehind_ns,
		.max_held_bytes = cfg->max_held_bytes, .nc = 1, .advance = live_advance,
	};
	struct rec_live *l;
	int ret;

	*out = NULL;
	if (!cfg->interval_ns || !cfg->out)
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->cfg = *cfg;
	iv_init(&l->all);
	l->c.ops = &live_ops;
	l->c.state = l;
	tc.c = &l->c;
	tc.advance_arg = l;
	ret = rec_tap_new(&tc, &l->tap);
	if (ret) {
		rec_live_free(l);
		return ret;
	}
	*out = l;
	return 0;
}

struct rec_sink rec_live_sink(struct rec_live *l)
{
	return rec_tap_sink(l->tap);
}

void rec_live_totals(const struct rec_live *l, struct rec_live_totals *t)
{
	struct rec_tap_stats st;

	*t = l->tot;
	if (l->tap) {
		rec_tap_stats(l->tap, &st);
		t->late = st.late;
		t->error = rec_tap_error(l->tap);
	}
}

void rec_live_free(struct rec_live *l)
{
	size_t i;

	if (!l)
		return;
	rec_tap_free(l->tap);
	vmt_exitreasons_free(l->names);
	vmt_latdist_free(&l->all.d);
	for (i = 0; i < l->ntasks; i++) {
		vmt_latdist_free(&l->tasks[i]->s.d);
		free(l->tasks[i]);
	}
	free(l->tasks);
	for (i = 0; i < l->nreasons; i++)
		vmt_latdist_free(&l->reasons[i].s.d);
	free(l->reasons);
	free(l);
}

int rec_live_attach(struct rec_live **out, uint64_t interval_ns, uint64_t chunk_max_age_ns,
		    const struct vmt_header_page *hp, const struct vmt_kvbuf *meta,
		    const char *clock, struct rec_sink *sink)
{
	/* A CPU's chunk reaches the tap up to chunk_max_age_ns after its first page. */
	struct rec_live_config lc = {
		.interval_ns = interval_ns, .lookbehind_ns = 2 * chunk_max_age_ns,
		.max_held_bytes = MAX_HELD_BYTES, .out = stdout,
		.terminal = isatty(STDOUT_FILENO), .next = *sink, .hp = *hp,
		.meta = meta->buf, .meta_len = meta->len, .clock = clock,
	};
	int ret = rec_live_new(&lc, out);

	if (ret) {
		vmt_err("cannot set up the live view: %s", strerror(-ret));
		return ret;
	}
	*sink = rec_live_sink(*out);
	return 0;
}

void rec_live_report(const struct rec_live *l)
{
	struct rec_live_totals t;

	if (!l)
		return;
	rec_live_totals(l, &t);
	if (t.error)
		vmt_warn("the live view stopped: %s (the recording went on)", strerror(-t.error));
	if (t.late)
		vmt_warn("%" PRIu64 " records came too late for the live view (the file has "
			 "them)", t.late);
}
