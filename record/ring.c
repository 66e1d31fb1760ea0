// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "pagecut.h"
#include "ring.h"
#include "sysinfo.h"

/* With no chunk coming after the trigger (idle CPUs), done this long after the flush. */
#define IDLE_GRACE_NS	2000000000ULL

enum state {
	WAITING,		/* holding the last keep_ns */
	TRIGGERED,		/* an exit was over the threshold: flush at the next occasion */
	AFTER,			/* handing on chunks until after_ns past the trigger */
	DONE,
};

struct rec_ring {
	struct rec_ring_config cfg;
	uint32_t page_size;
	struct rec_chunk *head, *tail;	/* held, in arrival order */
	uint64_t newest_ts;
	enum state state;
	atomic_bool done;
	atomic_bool rearm;		/* main asks for the next trigger */
	uint64_t flush_mono;
	uint64_t fwd_end_ts;		/* the last record handed on so far */
	struct rec_ring_trigger pending;	/* came while busy, for the re-arm */
	bool has_pending;
	int error;
	struct rec_ring_stats st;
	struct rec_ring_stats done_st;	/* st when the trigger was done, for main */
};

/* Another trigger may come after this one (--continue): hold what comes meanwhile. */
static bool more(const struct rec_ring *r)
{
	return r->st.triggers < (r->cfg.max_triggers ? r->cfg.max_triggers : 1);
}

static void drop(struct rec_ring *r, struct rec_chunk *c)
{
	if (r->state == AFTER || (r->state == DONE && !more(r)))
		r->st.dropped_after++;
	else
		r->st.dropped_chunks++;
	r->cfg.recycle(r->cfg.recycle_arg, c);
}

/*
 * Where the window ends: after_ns past the end of the exit that triggered (its start plus
 * its latency), as --after promises. Nothing later is handed on.
 */
static uint64_t window_end(const struct rec_ring *r)
{
	return r->st.trigger.ts + r->st.trigger.lat_ns + r->cfg.after_ns;
}

static int forward(struct rec_ring *r, struct rec_chunk *c)
{
	/* c belongs to the next sink after put */
	uint64_t first_ts = c->info.first_ts, last_ts = c->info.last_ts;
	int ret = r->cfg.next.ops->put(r->cfg.next.arg, c);

	r->st.written_chunks++;
	if (!r->st.kept_from_ts || first_ts < r->st.kept_from_ts)
		r->st.kept_from_ts = first_ts;	/* chunks of several CPUs: any order */
	if (last_ts > r->fwd_end_ts)
		r->fwd_end_ts = last_ts;
	if (ret && !r->error)
		r->error = ret;
	return ret;
}

/* Take c out of the held list (prev: the one before it, or NULL). */
static void unlink_held(struct rec_ring *r, struct rec_chunk *prev, struct rec_chunk *c)
{
	if (prev)
		prev->next = c->next;
	else
		r->head = c->next;
	if (r->tail == c)
		r->tail = prev;
	c->next = NULL;
	r->st.held_bytes -= (size_t)c->cap_pages * r->page_size;
}

/* Chunks older than keep_ns (plus the margin) before the newest, then the oldest over max. */
static void evict(struct rec_ring *r)
{
	uint64_t span = r->cfg.keep_ns + r->cfg.hold_extra_ns;
	struct rec_chunk *prev = NULL, *c = r->head, *next;

	for (; c; c = next) {
		next = c->next;
		if (c->info.last_ts + span < r->newest_ts) {
			unlink_held(r, prev, c);
			drop(r, c);
		} else {
			prev = c;
		}
	}
	while (r->head && r->st.held_bytes > r->cfg.max_bytes) {
		c = r->head;
		unlink_held(r, NULL, c);
		r->st.dropped_full++;
		drop(r, c);
	}
}

static void finish(struct rec_ring *r)
{
	r->state = DONE;
	r->done_st = r->st;
	atomic_store(&r->done, true);	/* after done_st: main reads it once done */
}

/* c at the end of the held list. */
static void hold(struct rec_ring *r, struct rec_chunk *c)
{
	c->next = NULL;
	if (r->tail)
		r->tail->next = c;
	else
		r->head = c;
	r->tail = c;
	r->st.held_bytes += (size_t)c->cap_pages * r->page_size;
	if (r->st.held_bytes > r->st.max_held_bytes)
		r->st.max_held_bytes = r->st.held_bytes;
}

/*
 * In the window (AFTER): c's records up to its end go on, down to the record; those after
 * it are held for the next trigger when one may come (in a chunk of their own), else
 * given back. A chunk wholly after the end is held or given back.
 */
static void hand_on(struct rec_ring *r, struct rec_chunk *c)
{
	struct rec_chunk *rest = NULL;

	/* no chunk for the rest (out of memory): it is given back with the page it was on */
	if (c->info.first_ts <= window_end(r) && c->info.last_ts > window_end(r) && more(r))
		rest = r->cfg.next.ops->get(r->cfg.next.arg);
	if (!rec_pagecut_back(&r->cfg.hp, c, window_end(r), rest)) {
		if (rest)
			r->cfg.recycle(r->cfg.recycle_arg, rest);
		rest = c;	/* all of it after the end */
	} else {
		forward(r, c);
		if (rest && !rest->npages) {
			r->cfg.recycle(r->cfg.recycle_arg, rest);
			rest = NULL;
		}
	}
	if (rest && more(r))
		hold(r, rest);
	else if (rest)
		drop(r, rest);
}

/*
 * The window is whole once a record this far past its end was seen: a CPU's chunk comes
 * up to settle_ns after its records (every CPU's pages up to the end are in then).
 */
static void settle(struct rec_ring *r)
{
	if (r->state == AFTER && r->newest_ts > window_end(r) + r->cfg.settle_ns)
		finish(r);
}

/* What the ring does not hold of its bound, the queue may hold (ring.h: lend). */
static void lend(struct rec_ring *r)
{
	if (r->cfg.lend)
		r->cfg.lend(r->cfg.recycle_arg, r->st.held_bytes < r->cfg.max_bytes ?
			    r->cfg.max_bytes - r->st.held_bytes : 0);
}

/*
 * The trigger came: what is held from keep_ns before it goes on, in arrival order. The
 * pages leave the ring's bound for the queue's at once: the collector must not wait for
 * the writer to compress them (up to --ring-size) while the kernel overwrites what comes.
 */
static void flush(struct rec_ring *r)
{
	uint64_t ts = r->st.trigger.ts, cutoff = ts > r->cfg.keep_ns ? ts - r->cfg.keep_ns : 0;
	struct rec_chunk *c, *list = r->head;

	r->flush_mono = rec_sysinfo_now_ns();
	r->head = r->tail = NULL;
	r->st.held_bytes = 0;
	r->state = AFTER;
	lend(r);
	while ((c = list)) {
		list = c->next;
		c->next = NULL;
		if (!rec_pagecut_front(&r->cfg.hp, c, cutoff)) {
			r->st.dropped_chunks++;		/* before the window, not after */
			r->cfg.recycle(r->cfg.recycle_arg, c);
		} else {
			hand_on(r, c);
		}
	}
	settle(r);
}

/*
 * Main re-armed the ring: the next trigger may come, the one kept meanwhile first unless
 * it began in pages already handed on (the next file would lack its start).
 */
static void take_rearm(struct rec_ring *r)
{
	if (r->state != DONE || !atomic_load(&r->rearm))
		return;
	r->st.dropped_chunks = 0;
	r->st.dropped_after = 0;
	r->st.written_chunks = 0;
	r->st.dropped_full = 0;
	r->st.kept_from_ts = 0;
	r->st.triggered = false;
	r->state = WAITING;
	if (r->has_pending && r->pending.ts > r->fwd_end_ts) {
		r->state = TRIGGERED;
		r->st.triggered = true;
		r->st.trigger = r->pending;
		r->st.triggers++;
	}
	r->has_pending = false;
	atomic_store(&r->done, false);
	atomic_store(&r->rearm, false);	/* after done: see rec_ring_done() */
}

static struct rec_chunk *ring_get(void *arg)
{
	struct rec_ring *r = arg;

	return r->cfg.next.ops->get(r->cfg.next.arg);
}

static int ring_put(void *arg, struct rec_chunk *c)
{
	struct rec_ring *r = arg;

	c->next = NULL;
	take_rearm(r);
	if (c->info.last_ts > r->newest_ts)
		r->newest_ts = c->info.last_ts;
	if (r->state == AFTER) {
		hand_on(r, c);
		settle(r);
	} else if (r->state == DONE && !more(r)) {
		drop(r, c);
	} else {
		hold(r, c);
		if (r->state == TRIGGERED)
			flush(r);
	}
	evict(r);
	if (r->state == AFTER)
		lend(r);
	return r->error;
}

static void ring_tick(void *arg, uint64_t now_ns)
{
	struct rec_ring *r = arg;

	take_rearm(r);
	if (r->state == TRIGGERED)
		flush(r);
	if (r->state == AFTER && now_ns > r->flush_mono + r->cfg.after_ns + IDLE_GRACE_NS)
		finish(r);
}

static void ring_close(void *arg)
{
	struct rec_ring *r = arg;
	struct rec_chunk *c;

	if (r->state == TRIGGERED)
		flush(r);
	while ((c = r->head)) {	/* never triggered: nothing is written */
		unlink_held(r, NULL, c);
		drop(r, c);
	}
	r->cfg.next.ops->close(r->cfg.next.arg);
}

static const struct rec_sink_ops ring_ops = {
	.get = ring_get,
	.put = ring_put,
	.close = ring_close,
	.tick = ring_tick,
};

int rec_ring_new(const struct rec_ring_config *cfg, struct rec_ring **out)
{
	struct rec_ring *r;

	*out = NULL;
	if (!cfg->next.ops || !cfg->recycle || !vmt_header_page_subbuf_size(&cfg->hp))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->cfg = *cfg;
	r->page_size = vmt_header_page_subbuf_size(&cfg->hp);
	*out = r;
	return 0;
}

struct rec_sink rec_ring_sink(struct rec_ring *r)
{
	struct rec_sink s = { &ring_ops, r };

	return s;
}

void rec_ring_trigger(struct rec_ring *r, const struct rec_ring_trigger *t)
{
	if (!more(r))
		return;
	if (r->state == WAITING) {
		if (t->ts <= r->fwd_end_ts)
			return;		/* its start went into the previous file */
		r->state = TRIGGERED;
		r->st.triggered = true;
		r->st.trigger = *t;
		r->st.triggers++;
		return;
	}
	/* the first exit past this trigger's window, for when main re-arms */
	if (!r->has_pending && t->ts > window_end(r)) {
		r->pending = *t;
		r->has_pending = true;
	}
}

bool rec_ring_done(const struct rec_ring *r)
{
	/* rearm first: take_rearm() clears done before rearm */
	if (atomic_load(&r->rearm))
		return false;
	return atomic_load(&r->done);
}

void rec_ring_rearm(struct rec_ring *r)
{
	atomic_store(&r->rearm, true);
}

void rec_ring_stats(const struct rec_ring *r, struct rec_ring_stats *st)
{
	*st = r->st;
}

void rec_ring_done_stats(const struct rec_ring *r, struct rec_ring_stats *st)
{
	*st = r->done_st;
}

void rec_ring_free(struct rec_ring *r)
{
	struct rec_chunk *c;

	if (!r)
		return;
	while ((c = r->head)) {
		unlink_held(r, NULL, c);
		r->cfg.recycle(r->cfg.recycle_arg, c);
	}
	free(r);
}
