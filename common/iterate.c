// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctxevent.h"
#include "iterate.h"

/* The pass's own per-task record: one pointer for each consumer. */
struct itask {
	void *slot[VMT_ITER_MAX_CONSUMERS];
};

struct vmt_pass {
	struct vmt_iter *it;
	const struct vmt_evbind *evbind;
	/* the input's binding, the entries' detail left out when no consumer sees entries */
	struct vmt_evbind bind_own;
	struct vmt_pairing *pairing;
	bool want_event, want_gap, want_record, want_context, want_open;
	bool slice;			/* logs its pairing's edges (no open exits of its own) */
	uint32_t last_cpu, last_vcpu;	/* of the latest exit, vCPU: only changes are noted */
	int ret;			/* the first error: the pass stops feeding */
	/* attribution: the context decoder, the engine and the last pair's result */
	struct vmt_ctxbind *bind;
	struct vmt_attrib *attrib;
	struct vmt_why why;
	struct vmt_consumer *c;
	unsigned int nc;
	/* the consumers that take pairs, and their index in c (for the task slots) */
	unsigned int pair_idx[VMT_ITER_MAX_CONSUMERS];
	unsigned int npair;
	/* those that take every event: the loop per event skips the others */
	unsigned int event_idx[VMT_ITER_MAX_CONSUMERS];
	unsigned int nevent;
	/* the pair the event just fed completed, if any: cur, the pairing's or pair */
	bool paired, pair_selected;
	const struct vmt_pair *cur;
	struct vmt_pair pair;		/* the pairing's with the attribution's why */
	/* where the attribution keeps the last exit's segments (vmt_attrib_segments_at) */
	struct vmt_whyseg *const *segbuf;
	const uint32_t *nseg;
	int error;
};

/*
 * The pair with the attribution's why: out of line, a pass without it inlines on_pair.
 *
 * The pairing's own pair stays valid until the next event: no copy (a struct copy's
 * 16-byte loads of what the pairing had just stored with 8-byte stores stalled on store
 * forwarding, a third of on_pair's time), but when the attribution adds to it.
 */
static __attribute__((noinline)) const struct vmt_pair *attributed(struct vmt_pass *w,
								   const struct vmt_pair *pairing_pair)
{
	const struct vmt_event *b, *e;
	uint64_t lat;
	int ret;

	/*
	 * Field by field, each load as wide as pair_end()'s 8-byte stores a moment before:
	 * a struct copy's 16-byte loads cannot be forwarded from them and stalled at every
	 * exit (the empty asm statements keep the compiler from merging them, without a
	 * memory clobber that would reload w's fields).
	 */
	b = pairing_pair->begin;
	__asm__("" : "+r"(b));
	e = pairing_pair->end;
	__asm__("" : "+r"(e));
	lat = pairing_pair->lat;
	__asm__("" : "+r"(lat));
	w->pair.task_ctx = pairing_pair->task_ctx;
	w->pair.unknown = pairing_pair->unknown;	/* the time gaps hid, as every pair has */
	w->pair.begin = b;
	w->pair.end = e;
	w->pair.lat = lat;
	ret = vmt_attrib_end(w->attrib, b, e, &w->why);
	if (ret && !w->error)
		w->error = ret;
	w->pair.why = &w->why;
	/* not merged with the store above: the consumers load each field alone */
	__asm__("" ::: "memory");
	w->pair.why_segs = *w->segbuf;
	w->pair.why_nsegs = *w->nseg;
	return &w->pair;
}

/* A task's first pair: its consumers' slots. Returns them, or NULL out of memory. */
static __attribute__((noinline)) struct itask *new_itask(struct vmt_pass *w, void **ctx)
{
	struct itask *t = calloc(1, sizeof(*t));

	if (!t)
		w->error = -ENOMEM;
	*ctx = t;
	return t;
}

/*
 * The shapes of pass the reader's loop is specialised for (a constant in each copy of
 * pass_item): it neither attributes nor feeds every event; it attributes and does not
 * feed every event; anything (the attribution and every-event consumers tested).
 */
enum shape { SHAPE_PLAIN, SHAPE_ATTRIB, SHAPE_ANY };

static inline bool shape_attrib(const struct vmt_pass *w, const enum shape shape)
{
	return shape == SHAPE_ATTRIB || (shape == SHAPE_ANY && w->attrib);
}

/* The pair the event just completed, to the consumers that take pairs. */
static inline void on_pair(const struct vmt_pair *p, struct vmt_pass *w, const enum shape shape)
{
	struct itask *t;
	unsigned int i;

	w->paired = true;
	if (shape_attrib(w, shape))
		p = attributed(w, p);
	w->cur = p;
	w->pair_selected = vmt_filter_exit(w->it->filter, p->begin, p->end);
	if (!w->pair_selected) {
		w->it->filtered_out++;
		return;
	}
	if (!w->npair)
		return;
	t = *p->task_ctx;
	if (!t && !(t = new_itask(w, p->task_ctx)))
		return;
	for (i = 0; i < w->npair; i++) {
		struct vmt_consumer *c = &w->c[w->pair_idx[i]];
		int ret = c->ops->pair(c->state, w->it, p, &t->slot[w->pair_idx[i]]);

		if (ret && !w->error)
			w->error = ret;
	}
}

/* The consumers' per-task pointers, freed with the pairing that holds them. */
static void free_itask(void *ctx, void *arg)
{
	struct vmt_pass *w = arg;
	struct itask *t = ctx;
	unsigned int i;

	for (i = 0; i < w->nc; i++) {
		struct vmt_consumer *c = &w->c[i];

		if (t->slot[i] && c->ops->task_free)
			c->ops->task_free(c->state, t->slot[i]);
	}
	free(t);
}

static void report_progress(struct vmt_reader *r, const struct vmt_iter_opts *o,
			    uint64_t *last_ms)
{
	struct timespec now;
	uint64_t ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
	if (ms - *last_ms >= 100) {
		*last_ms = ms;
		o->progress(vmt_reader_stats(r)->chunks,
			    vmt_source_nchunks(vmt_reader_source(r)), o->progress_arg);
	}
}

/* The context events the recording describes (reader.h), bound for decoding. */
static unsigned int bind_context(const struct vmt_pass_input *in, struct vmt_ctxbind *b)
{
	const struct vmt_evformat *const *fmts = in->context;
	unsigned int n = in->ncontext, i, bound = 0;

	vmt_ctxbind_init(b);
	for (i = 0; i < n; i++) {
		if (vmt_ctxbind_add(b, fmts[i]) == 0)
			bound++;
	}
	return bound;
}

/* The context events decoded for the consumers alone, without the engine. */
static int start_decoding(struct vmt_pass *w, const struct vmt_pass_input *in)
{
	w->bind = malloc(sizeof(*w->bind));
	if (!w->bind)
		return -ENOMEM;
	w->it->context_formats = bind_context(in, w->bind);
	/* what the recording could tell, though not worked out here */
	w->it->why_recorded = w->it->context_formats ? vmt_attrib_recorded(w->bind) : 0;
	return 0;
}

/* The engine, when asked for and the recording has context events to feed it. */
static int start_attribution(struct vmt_pass *w, const struct vmt_pass_input *in)
{
	const struct vmt_clock *c = w->it->clock;
	struct vmt_attrib_opts ao;

	w->bind = malloc(sizeof(*w->bind));
	if (!w->bind)
		return -ENOMEM;
	w->it->context_formats = bind_context(in, w->bind);
	if (!w->it->context_formats)
		return 0;
	vmt_attrib_opts_default(&ao);
	ao.recorded = vmt_attrib_recorded(w->bind);
	/* time between an entry and the next exit is the guest's for KVM's pair alone */
	if (!in->r || !vmt_reader_pairs_kvm(in->r))
		ao.recorded &= ~VMT_WHY_REC_BEFORE;
	ao.segments = true;
	if (in->r) {
		bool known, cut;
		uint64_t unflagged = vmt_reader_stats_unflagged(in->r, &known);

		/*
		 * Every loss on a page's flag, fed as a gap where it was: the engine judges them by
		 * time (a loss before a sleep began cannot hide its wake-up). Losses on no page's
		 * flag, or events left unread at the end (they took wake-ups along as much as
		 * overwritten ones), could be anywhere.
		 */
		ao.no_loss = known && unflagged == 0 &&
			     vmt_reader_unread(in->r, &known, &cut) == 0;
	}
	/* nmi_handler's delta_ns in ticks */
	if (c->tsc_mult) {
		ao.tick_mul = UINT64_C(1) << c->tsc_shift;
		ao.tick_div = c->tsc_mult;
	} else if (c->ns_per_tick == 1.0) {
		ao.tick_mul = ao.tick_div = 1;
	} else if (c->ns_per_tick > 0) {
		ao.tick_mul = 1000000;
		ao.tick_div = (uint64_t)(c->ns_per_tick * 1000000.0 + 0.5);
	} else {
		ao.tick_div = 0;	/* unknown rate: NMIs stay in the part they interrupted */
	}
	w->attrib = vmt_attrib_new(&ao);
	if (!w->attrib)
		return -ENOMEM;
	vmt_attrib_segments_at(w->attrib, &w->segbuf, &w->nseg);
	w->it->why = true;
	w->it->why_recorded = ao.recorded;
	return 0;
}

static inline void ids_add(struct vmt_iter_ids *s, uint32_t id)
{
	if (id < VMT_ITER_IDS)
		s->bits[id / 64] |= 1ULL << (id % 64);
	else
		s->beyond++;
}

unsigned int vmt_iter_ids_count(const struct vmt_iter_ids *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < VMT_ITER_IDS / 64; i++)
		n += (unsigned int)__builtin_popcountll(s->bits[i]);
	return n;
}

char *vmt_iter_ids_format(const struct vmt_iter_ids *s, char *buf, size_t size)
{
	size_t len = 0;
	uint32_t i = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	while (i < VMT_ITER_IDS && len < size) {
		uint32_t j;
		int n;

		if (!vmt_iter_ids_has(s, i)) {
			i++;
			continue;
		}
		for (j = i; j + 1 < VMT_ITER_IDS && vmt_iter_ids_has(s, j + 1); j++)
			;
		if (j == i)
			n = snprintf(buf + len, size - len, "%s%u", len ? "," : "", i);
		else
			n = snprintf(buf + len, size - len, "%s%u-%u", len ? "," : "", i, j);
		if (n < 0)
			return buf;
		len += (size_t)n;
		i = j + 1;
	}
	if (s->beyond && len < size)
		snprintf(buf + len, size - len, "%sids above %u", len ? " and " : "",
			 VMT_ITER_IDS - 1);
	return buf;
}

#define EACH(w, op, ...)							\
	do {									\
		unsigned int i_;						\
									\
		for (i_ = 0; i_ < (w)->nc && !ret; i_++) {			\
			struct vmt_consumer *c_ = &(w)->c[i_];			\
									\
			if (c_->ops->op)					\
				ret = c_->ops->op(c_->state, (w)->it, ##__VA_ARGS__); \
		}								\
	} while (0)

/* A record that is not of the pair: a context event for the engine, then the consumers. */
static int feed_context(struct vmt_pass *w, const struct vmt_item *item, bool want)
{
	struct vmt_ctxev cev;
	int ret;

	if (!w->bind || vmt_ctxbind_decode(w->bind, &item->rec, item->cpu, &cev) != 1)
		return 0;
	w->it->context_records++;
	ret = w->attrib ? vmt_attrib_context(w->attrib, &cev) : 0;
	if (want)
		EACH(w, context, &cev);
	return ret;
}

/* Input from a reader: its clock, time 0, formats and context formats. */
void vmt_pass_input_reader(struct vmt_pass_input *in, struct vmt_reader *r)
{
	memset(in, 0, sizeof(*in));
	in->r = r;
	in->clock = vmt_reader_clock(r);
	in->start_ts = vmt_reader_start_ts(r);
	in->bind = vmt_reader_bind(r);
	in->begin_format = vmt_reader_begin_format(r);
	in->machine = vmt_reader_machine(r);
	in->context = vmt_reader_context_formats(r, &in->ncontext);
}

int vmt_pass_begin(const struct vmt_pass_input *in, const struct vmt_iter_opts *o,
		   struct vmt_consumer *c, unsigned int nc, struct vmt_iter *it,
		   struct vmt_pass **out)
{
	static const struct vmt_iter_opts none;
	struct vmt_pass *w;
	unsigned int i;
	int ret = 0;

	*out = NULL;
	if (!o)
		o = &none;
	/* whatever happens next, *it holds the totals: none yet */
	memset(it, 0, sizeof(*it));
	it->r = in->r;
	if (nc > VMT_ITER_MAX_CONSUMERS)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	it->clock = in->clock;
	it->start_ts = in->start_ts;
	it->pass = w;
	it->bind = in->bind;
	it->begin_format = in->begin_format;
	it->machine = in->machine;
	it->first_ts = UINT64_MAX;
	if (o->filter && !vmt_filter_is_empty(o->filter)) {
		vmt_filter_bind(o->filter, it->clock, it->start_ts);
		it->filter = o->filter;
	}
	w->it = it;
	w->evbind = in->bind;
	w->c = c;
	w->nc = nc;
	w->last_cpu = w->last_vcpu = UINT32_MAX;
	for (i = 0; i < nc; i++) {
		if (c[i].ops->pair)
			w->pair_idx[w->npair++] = i;
		if (c[i].ops->event)
			w->event_idx[w->nevent++] = i;
		w->want_event |= c[i].ops->event != NULL;
		w->want_gap |= c[i].ops->gap != NULL;
		w->want_record |= c[i].ops->record != NULL;
		w->want_context |= c[i].ops->context != NULL;
		w->want_open |= c[i].ops->open != NULL;
	}
	if (in->bind) {
		w->bind_own = *in->bind;
		w->bind_own.end.detail = w->want_event;
		w->evbind = &w->bind_own;
	}
	w->pairing = vmt_pairing_new(NULL, NULL);	/* pass_item() takes its pairs */
	if (!w->pairing) {
		it->pass = NULL;
		free(w);
		return -ENOMEM;
	}
	if (o->edges) {
		vmt_pairing_log_edges(w->pairing, o->edges);
		w->slice = true;
	}
	if (o->attribute)
		ret = start_attribution(w, in);
	else if (o->context && w->want_context)
		ret = start_decoding(w, in);
	if (!ret)
		EACH(w, start);
	w->ret = ret;
	*out = w;
	return ret;
}

/*
 * The items that are not begin/end events, out of line: the pass's hot path keeps fewer
 * registers to save at every event.
 */
static __attribute__((noinline)) int pass_gap(struct vmt_pass *w, const struct vmt_item *item)
{
	int ret = vmt_pairing_gap(w->pairing, item->cpu, item->gap_from, item->gap_until);

	if (!ret && w->attrib)
		ret = vmt_attrib_gap(w->attrib, item->cpu);
	w->it->gap_from = item->gap_from;
	w->it->gap_until = item->gap_until;
	if (w->want_gap)
		EACH(w, gap, item->cpu, item->ts, item->missed);
	return w->ret = ret;
}

static __attribute__((noinline)) int pass_other(struct vmt_pass *w, const struct vmt_item *item)
{
	int ret;

	w->it->other_records++;
	if (item->ts > w->it->last_record_ts)
		w->it->last_record_ts = item->ts;
	ret = feed_context(w, item, w->want_context);
	if (w->want_record)
		EACH(w, record, item);
	return w->ret = ret;
}

/* The event to the consumers that take every event, with the pair it completed. */
static __attribute__((noinline)) int pass_event(struct vmt_pass *w, const struct vmt_event *ev)
{
	struct vmt_iter *it = w->it;
	struct vmt_iter_event e;
	unsigned int i;
	int ret = 0;

	e.ev = ev;
	e.pair = w->paired ? w->cur : NULL;
	e.selected = w->paired ? w->pair_selected :
		     !it->filter || vmt_filter_event(it->filter, ev, NULL);
	for (i = 0; i < w->nevent && !ret; i++) {
		struct vmt_consumer *c = &w->c[w->event_idx[i]];

		ret = c->ops->event(c->state, it, &e);
	}
	return ret;
}

/*
 * Inline in the reader's loop (vmt_pass_reader): a call and its register saves per event.
 * shape, a constant: what the loop tests once rather than at every event.
 */
static inline __attribute__((always_inline)) int pass_item(struct vmt_pass *w,
							   const struct vmt_item *item,
							   const enum shape shape)
{
	struct vmt_iter *it = w->it;
	/* decoded where the pairing keeps a begin without copying it */
	struct vmt_event *ev = vmt_pairing_buffer(w->pairing);
	int ret = w->ret;
	int dec;

	if (ret)
		return ret;
	if (item->kind == VMT_ITEM_GAP)
		return pass_gap(w, item);
	dec = vmt_evbind_decode_inline(w->evbind, &item->rec, item->cpu, ev);
	if (dec == 0)
		return pass_other(w, item);
	if (dec < 0) {
		it->bad_records++;
		return 0;
	}
	it->events++;
	if (ev->kind == VMT_EV_BEGIN) {
		/* events come in time order: the first and the latest exit */
		if (!it->exits++)
			it->first_exit_ts = ev->ts;
		it->last_exit_ts = ev->ts;
		/* most exits are on the CPU of the one before: note only changes */
		if (ev->cpu != w->last_cpu)
			ids_add(&it->exit_cpus, w->last_cpu = ev->cpu);
	}
	if (ev->vcpu != w->last_vcpu && (ev->has & VMT_EVF_VCPU))
		ids_add(&it->vcpus, w->last_vcpu = ev->vcpu);
	if (ev->ts < it->first_ts)
		it->first_ts = ev->ts;
	if (ev->ts > it->last_ts)
		it->last_ts = ev->ts;
	w->paired = false;
	if (shape_attrib(w, shape) && ev->kind == VMT_EV_BEGIN)
		ret = vmt_attrib_begin(w->attrib, ev);
	if (!ret) {
		ret = vmt_pairing_event(w->pairing, ev);
		if (ret > 0) {
			on_pair(vmt_pairing_last(w->pairing), w, shape);
			ret = 0;
		}
	}
	if (!ret)
		ret = w->error;
	if (shape_attrib(w, shape) && ev->kind == VMT_EV_END && !w->paired)
		vmt_attrib_drop(w->attrib, ev);
	if (shape == SHAPE_ANY && w->want_event && !ret)
		ret = pass_event(w, ev);
	return w->ret = ret;
}

int vmt_pass_item(struct vmt_pass *w, const struct vmt_item *item)
{
	return pass_item(w, item, SHAPE_ANY);
}

int vmt_pass_reader(struct vmt_pass *w, struct vmt_reader *r, const struct vmt_iter_opts *o)
{
	const struct vmt_item *item;
	uint64_t items = 0, last_ms = 0;
	int ret = w->ret;

	if (!w->want_event && !(o && o->progress)) {
		if (!w->attrib) {
			while (!ret && (item = vmt_reader_next_item(r)))
				ret = pass_item(w, item, SHAPE_PLAIN);
		} else {
			while (!ret && (item = vmt_reader_next_item(r)))
				ret = pass_item(w, item, SHAPE_ATTRIB);
		}
		return ret;
	}
	while (!ret && (item = vmt_reader_next_item(r))) {
		if (o && o->progress && (++items & 0xffff) == 0)
			report_progress(r, o, &last_ms);
		ret = pass_item(w, item, SHAPE_ANY);
	}
	return ret;
}

uint64_t vmt_iter_open_until(const struct vmt_iter *it)
{
	uint64_t stop = it->r ? vmt_reader_stop_ts(it->r) : it->stop_ts;

	return stop > it->last_record_ts ? stop : it->last_record_ts;
}

bool vmt_iter_open_exit(const struct vmt_iter *it, const struct vmt_event *begin,
			bool lost_since, struct vmt_open_exit *x)
{
	memset(x, 0, sizeof(*x));
	x->begin = begin;
	x->until = vmt_iter_open_until(it);
	x->lost_since = lost_since;
	/* no gap marks such losses: they count on no page, so none is after or before it */
	x->lost_unplaced = it->r && vmt_reader_cpu_unplaced(it->r, begin->cpu) > 0;
	return !it->filter || vmt_filter_event(it->filter, begin, NULL);
}

/* One exit still open at the end, to the consumers that take them. */
static void open_exit(const struct vmt_event *begin, bool lost_since, void *arg)
{
	struct vmt_pass *w = arg;
	struct vmt_iter *it = w->it;
	struct vmt_open_exit x;
	struct vmt_why why;
	int ret = w->ret;

	if (ret || !vmt_iter_open_exit(it, begin, lost_since, &x))
		return;
	if (w->attrib) {
		vmt_attrib_open(w->attrib, begin, x.until, &why);
		x.why = &why;
	}
	EACH(w, open, &x);
	w->ret = ret;
}

int vmt_pass_end(struct vmt_pass *w)
{
	struct vmt_iter *it;
	int ret;

	if (!w)
		return 0;
	it = w->it;
	if (it->last_ts > it->last_record_ts)
		it->last_record_ts = it->last_ts;
	if (w->want_open && !w->slice)
		vmt_pairing_each_unfinished(w->pairing, open_exit, w);
	ret = w->ret;
	if (vmt_pairing_finish(w->pairing) && !ret)
		ret = -ENOMEM;
	it->pairing = *vmt_pairing_stats(w->pairing);
	if (w->attrib)
		it->why_stats = *vmt_attrib_stats(w->attrib);
	if (it->first_ts == UINT64_MAX)
		it->first_ts = 0;
	if (!ret)
		EACH(w, finish);
	it->pass = NULL;
	vmt_pairing_free(w->pairing, free_itask, w);
	vmt_attrib_free(w->attrib);
	free(w->bind);
	free(w);
	return ret;
}

struct open_filter {
	const struct vmt_filter *f;
	void (*fn)(const struct vmt_event *begin, void *arg);
	void *arg;
};

static void open_filtered(const struct vmt_event *begin, void *arg)
{
	const struct open_filter *o = arg;

	if (vmt_filter_event(o->f, begin, NULL))
		o->fn(begin, o->arg);
}

void vmt_iter_each_open(const struct vmt_iter *it,
			void (*fn)(const struct vmt_event *begin, void *arg), void *arg)
{
	struct open_filter o = { it->filter, fn, arg };

	if (!it->pass)
		return;
	if (it->filter)
		vmt_pairing_each_open(it->pass->pairing, open_filtered, &o);
	else
		vmt_pairing_each_open(it->pass->pairing, fn, arg);
}

void vmt_iter_read_stats(const struct vmt_iter *it, struct vmt_reader_stats *out)
{
	*out = *vmt_reader_stats(it->r);
	out->bad_records = it->bad_records;
}

int vmt_iterate(struct vmt_reader *r, const struct vmt_iter_opts *o, struct vmt_consumer *c,
		unsigned int nc, struct vmt_iter *it)
{
	struct vmt_pass_input in;
	struct vmt_pass *w;
	int ret;

	vmt_pass_input_reader(&in, r);
	ret = vmt_pass_begin(&in, o, c, nc, it, &w);
	if (!ret)
		vmt_pass_reader(w, r, o);
	if (!w)
		return ret;
	return vmt_pass_end(w);
}
