// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "commtab.h"
#include "exitreason.h"
#include "iterate.h"
#include "latstat.h"
#include "live.h"
#include "livefmt.h"
#include "vmfind.h"

struct rec_live {
	struct rec_live_config cfg;
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
	const struct vmt_iter *it;	/* the pass's, for the exits still open */
	const struct vmt_event *pending;	/* the exit of the pair being added */
	int error;			/* of an interval's end: for the next callback */
	struct vmt_commtab comms;	/* the tasks' names, as the context events give them */
	struct vmt_vmmap *vmmap;	/* the recording's VM map (--vm), or NULL */
};

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
	rec_live_stat_init(&grown->s);
	return &l->reasons[l->last_reason = l->nreasons++];
}

/* The task of pid, made when new: an open exit may come before the task's first pair. */
static struct rec_live_task *task_by_pid(struct rec_live *l, int32_t pid)
{
	struct rec_live_task **grown, *t;
	size_t i;

	for (i = 0; i < l->ntasks; i++)
		if (l->tasks[i]->pid == pid)
			return l->tasks[i];
	grown = realloc(l->tasks, (l->ntasks + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	l->tasks = grown;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	rec_live_stat_init(&t->s);
	l->tasks[l->ntasks++] = t;
	return t;
}

static struct rec_live_task *task_of(struct rec_live *l, const struct vmt_pair *p, void **slot)
{
	if (!*slot)
		*slot = task_by_pid(l, p->end->pid);
	return *slot;
}

/*
 * A system call that ends its task (exit, exit_group) has no sys_exit: the task is gone,
 * not held out. (A vCPU thread that leaves the traced CPUs, or ends, in an exit stays open
 * until the recording stops: nothing says so.)
 */
static bool never_returns(const struct rec_live *l, const struct vmt_event *b)
{
	return (b->has & VMT_EVF_REASON) && vmt_exitreasons_ends_task(l->names, b->reason);
}

/*
 * An exit still open at the end of the interval closing: its part inside the interval
 * counts now (the rest in the intervals it runs on into, or when it ends), as a report's
 * series splits an exit at the intervals' edges; so a task held out of its guest is
 * shown in every interval it is out, not only when it returns.
 */
static void open_exit(const struct vmt_event *b, void *arg)
{
	struct rec_live *l = arg;
	struct rec_live_task *t;
	uint64_t part;

	if (b->ts >= l->cur_end)
		return;		/* begun after the interval */
	if (never_returns(l, b))
		return;
	t = task_by_pid(l, b->pid);
	if (!t) {
		l->error = -ENOMEM;
		return;
	}
	if (b->has & VMT_EVF_VCPU) {
		t->vcpu = b->vcpu;
		t->has_vcpu = true;
	}
	part = l->cur_end - (b->ts > l->cur_start ? b->ts : l->cur_start);
	t->s.sum += part;
	l->all.sum += part;
	t->open = true;
	t->open_ns = l->cur_end - b->ts;
	t->open_since_ns = b->ts > l->t0 ? b->ts - l->t0 : 0;
	t->open_has_reason = b->has & VMT_EVF_REASON;
	if (t->open_has_reason) {
		struct rec_live_reason *r;

		t->open_isa = (b->has & VMT_EVF_ISA) ? b->isa : VMT_ISA_ANY;
		t->open_key = vmt_exitreason_key(t->open_isa, b->reason);
		r = reason_of(l, t->open_isa, t->open_key);
		if (r)
			r->s.sum += part;
		else
			l->error = -ENOMEM;
	}
}

/* Print the interval [cur_start, cur_start + len) and start the next one. */
static void close_interval(struct rec_live *l, uint64_t len)
{
	struct rec_live_frame fr;
	unsigned int active = 0;
	size_t i;

	/* first: the open exits may add tasks and reasons */
	vmt_iter_each_open(l->it, open_exit, l);
	if (l->pending)
		open_exit(l->pending, l);
	fr = (struct rec_live_frame){
		.out = l->cfg.out, .all = &l->all, .tasks = l->tasks, .ntasks = l->ntasks,
		.reasons = l->reasons, .nreasons = l->nreasons, .names = l->names,
		.kvm = l->cfg.kvm, .comms = &l->comms, .vmmap = l->vmmap,
	};
	for (i = 0; i < l->ntasks; i++)
		active += l->tasks[i]->s.count > 0 || l->tasks[i]->open;
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
	rec_live_stat_reset(&l->all);
	for (i = 0; i < l->ntasks; i++) {
		rec_live_stat_reset(&l->tasks[i]->s);
		l->tasks[i]->open = false;
	}
	for (i = 0; i < l->nreasons; i++)
		rec_live_stat_reset(&l->reasons[i].s);
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

	l->it = it;
	return vmt_exitreasons_new(it->begin_format, it->machine, &l->names);
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
		begin_at(l, it->start_ts ? it->start_ts : it->first_ts);
	/* the intervals it closes end while this pair's exit is open: the pairing closed it */
	l->pending = ex;
	move_to(l, p->end->ts);
	l->pending = NULL;
	if (l->error)
		return l->error;
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
	 * interval: the intervals before it counted theirs while it was open.
	 */
	inside = p->end->ts > l->cur_start ? p->end->ts - l->cur_start : 0;
	if (inside > p->lat)
		inside = p->lat;
	if (rec_live_stat_add(&l->all, &lv, inside) || rec_live_stat_add(&t->s, &lv, inside))
		ret = -ENOMEM;
	if (ex->has & VMT_EVF_REASON) {
		uint32_t isa = (ex->has & VMT_EVF_ISA) ? ex->isa : VMT_ISA_ANY;
		struct rec_live_reason *r = reason_of(l, isa, vmt_exitreason_key(isa, ex->reason));

		if (!r || rec_live_stat_add(&r->s, &lv, inside))
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
	return l->error;
}

/* The names only, as the report's tables name tasks: "comm (pid)". */
static int live_context(void *state, const struct vmt_iter *it, const struct vmt_ctxev *ev)
{
	struct rec_live *l = state;

	(void)it;
	/* a fork-heavy host names more pids than are kept: forget them, learn them again */
	if (l->comms.n >= VMT_COMMTAB_MAX) {
		vmt_commtab_free(&l->comms);
		vmt_commtab_init(&l->comms);
	}
	return vmt_commtab_context(&l->comms, ev);
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
	.context = live_context,
	.task_free = live_task_free,
};

void rec_live_advance(struct rec_live *l, const struct vmt_iter *it, uint64_t ts,
		      uint64_t late)
{
	l->tot.late = late;
	/* a task may be in its first exit for long: intervals start before any pair */
	if (!l->started && it->events)
		begin_at(l, it->start_ts ? it->start_ts : it->first_ts);
	move_to(l, ts);
}

void rec_live_end(struct rec_live *l, const struct vmt_iter *it, uint64_t stop, uint64_t within,
		  uint64_t late)
{
	uint64_t first = it->start_ts ? it->start_ts : it->first_ts, end, n;

	l->tot.late = late;
	/*
	 * The stop is the trace clock read from the ring buffer's statistics, the clock of
	 * the events: believed however long after the last event (a vCPU stuck for minutes
	 * is the case that matters most), but not before the recording's start, nor later
	 * than the time that passed, suspends included (a second more for the clocks'
	 * differences): intervals would be printed up to it.
	 */
	if (stop < first || (within && stop - first > within + 1000000000ULL))
		stop = 0;
	/* an idle or stuck tail is the recording's time too, as the report counts it */
	end = stop > it->last_ts ? stop : it->last_ts;
	if (!l->started && it->events) {
		/* only an exit still open came (an idle CPU's page, read at the stop): its interval */
		begin_at(l, it->start_ts ? it->start_ts : it->first_ts);
		/* (end - 1: an end on an interval's edge closes the interval before it) */
		n = end > l->t0 ? (end - l->t0 - 1) / l->cfg.interval_ns : 0;
		l->index = n;
		l->cur_start = l->t0 + n * l->cfg.interval_ns;
		l->cur_end = l->cur_start + l->cfg.interval_ns;
	}
	if (!l->started)
		return;
	move_to(l, end);
	if ((end > l->cur_start && stop > it->last_ts) ||
	    (end >= l->cur_start && (l->all.count || l->lost))) {
		l->cur_end = end;	/* the open exits' part ends there too */
		close_interval(l, end - l->cur_start);
	}
}

int rec_live_new(const struct rec_live_config *cfg, struct rec_live **out)
{
	struct rec_live *l;
	char err[128];

	*out = NULL;
	if (!cfg->interval_ns || !cfg->out)
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->cfg = *cfg;
	rec_live_stat_init(&l->all);
	vmt_commtab_init(&l->comms);
	/* none without --vm; a map the report could not read either is left out alike */
	if (cfg->meta && vmt_vmmap_from_meta(cfg->meta->buf, cfg->meta->len, &l->vmmap, err,
					     sizeof(err)) == -ENOMEM) {
		rec_live_free(l);
		return -ENOMEM;
	}
	l->cfg.meta = NULL;	/* the caller's: not kept past the start */
	*out = l;
	return 0;
}

struct vmt_consumer rec_live_consumer(struct rec_live *l)
{
	return (struct vmt_consumer){ &live_ops, l };
}

void rec_live_totals(const struct rec_live *l, struct rec_live_totals *t)
{
	*t = l->tot;
}

void rec_live_free(struct rec_live *l)
{
	size_t i;

	if (!l)
		return;
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
	vmt_commtab_free(&l->comms);
	vmt_vmmap_free(l->vmmap);
	free(l);
}
