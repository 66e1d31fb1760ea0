// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "rbpage.h"
#include "sysinfo.h"
#include "tap.h"
#include "tapfmt.h"
#include "tclock.h"

/* A copy of one chunk's pages, waiting for the merge. */
struct block {
	struct block *next;
	uint32_t npages;
	uint8_t pages[];
};

/* One CPU's records: its blocks in arrival order and the cursor on the oldest. */
struct stream {
	uint32_t cpu;
	struct block *head, *tail;
	uint32_t next_page;
	bool in_page;
	bool has_item;			/* item is the next record (or gap) of this CPU */
	struct vmt_rbpage pg;
	struct vmt_item item;
};

struct rec_tap {
	struct rec_tap_config cfg;
	_Atomic uint64_t stop_ts;	/* rec_tap_set_stop(), from the main thread */
	uint32_t page_size;
	struct rec_tapfmt fmt;
	struct vmt_clock clock;
	struct vmt_iter it;
	struct vmt_pass *pass;
	bool ended, closed;
	int error;
	struct stream **s;
	unsigned int ns;
	uint64_t fed_ts;		/* the newest time the pass has had */
	uint64_t advanced_ts;		/* the time advance() was last given */
	/* the newest time seen in a chunk and when it was seen: an estimate of "now" */
	uint64_t seen_ts, seen_mono;
	bool seen;
	struct rec_tap_stats st;
};

static void stream_free_block(struct rec_tap *t, struct stream *s)
{
	struct block *b = s->head;

	s->head = b->next;
	if (!s->head)
		s->tail = NULL;
	t->st.held_bytes -= (size_t)b->npages * t->page_size;
	free(b);
	s->next_page = 0;
	s->in_page = false;
}

/* Load the stream's next record or gap into s->item; false when its blocks are used up. */
static bool stream_advance(struct rec_tap *t, struct stream *s)
{
	s->has_item = false;
	while (s->head) {
		if (s->in_page) {
			int ret = vmt_rbpage_next(&s->pg, &s->item.rec);

			if (ret == 1) {
				s->item.kind = VMT_ITEM_RECORD;
				s->item.ts = s->item.rec.ts;
				t->st.records++;
				return s->has_item = true;
			}
			s->in_page = false;	/* the end, or a damaged rest of the page */
		}
		if (s->next_page < s->head->npages) {
			const uint8_t *page = s->head->pages + (size_t)s->next_page * t->page_size;

			s->next_page++;
			if (vmt_rbpage_init(&s->pg, &t->cfg.hp, page, t->page_size))
				continue;
			s->in_page = true;
			if (s->pg.missed) {
				s->item.gap_from = vmt_item_hole_from(&s->item);
				s->item.gap_until = s->pg.page_ts;
				s->item.kind = VMT_ITEM_GAP;
				s->item.ts = s->pg.page_ts;
				s->item.missed = s->pg.missed_count;
				t->st.missed += s->pg.missed_count;
				return s->has_item = true;
			}
			continue;
		}
		/* Only now: the record handed out last may point into this block. */
		stream_free_block(t, s);
	}
	return false;
}

static struct stream *stream_of(struct rec_tap *t, uint32_t cpu)
{
	struct stream **grown, *s;
	unsigned int i;

	for (i = 0; i < t->ns; i++)
		if (t->s[i]->cpu == cpu)
			return t->s[i];
	grown = realloc(t->s, (t->ns + 1) * sizeof(*t->s));
	if (!grown)
		return NULL;
	t->s = grown;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cpu = cpu;
	s->item.cpu = cpu;
	t->s[t->ns++] = s;
	return s;
}

/* The stream whose next item comes first (a gap before records of the same time). */
static struct stream *earliest(struct rec_tap *t)
{
	struct stream *best = NULL;
	unsigned int i;

	for (i = 0; i < t->ns; i++) {
		struct stream *s = t->s[i];

		if (!s->has_item && (!s->head || !stream_advance(t, s)))
			continue;
		if (!best || s->item.ts < best->item.ts ||
		    (s->item.ts == best->item.ts && s->item.kind == VMT_ITEM_GAP &&
		     best->item.kind != VMT_ITEM_GAP))
			best = s;
	}
	return best;
}

/*
 * Feed the pass the items up to upto, at most budget of them unless the copies held exceed
 * their bound (then beyond upto too, until they do not). An item older than what the pass
 * already had is late: left out, counted.
 */
static void merge(struct rec_tap *t, uint64_t upto, uint64_t budget, bool advance)
{
	bool stopped = false;
	struct stream *s;

	while ((s = earliest(t))) {
		bool over = t->st.held_bytes > t->cfg.max_held_bytes;

		if (s->item.ts > upto && !over)
			break;
		if (!budget && !over) {
			stopped = true;
			t->st.budget_stops++;
			break;
		}
		if (budget)
			budget--;
		if (s->item.ts > upto)
			t->st.forced++;
		if (s->item.ts < t->fed_ts) {
			t->st.late += s->item.kind == VMT_ITEM_RECORD;
		} else {
			t->fed_ts = s->item.ts;
			if (!t->error)
				t->error = vmt_pass_item(t->pass, &s->item);
		}
		s->has_item = false;
	}
	/*
	 * Forced merges may have gone past upto: all before fed_ts is in the pass too. Stopped
	 * by the budget, only what came before fed_ts is (another CPU's record of that very
	 * time may wait). Never back: a chunk that came late lowers the watermark.
	 */
	if (stopped)
		upto = t->fed_ts ? t->fed_ts - 1 : 0;
	else if (t->fed_ts > upto)
		upto = t->fed_ts;
	if (upto < t->advanced_ts)
		upto = t->advanced_ts;
	t->advanced_ts = upto;
	if (advance && t->cfg.advance && !t->error)
		t->cfg.advance(t->cfg.advance_arg, &t->it, upto);
}

/* The watermark: "now" estimated from the newest record seen, less the look-behind. */
static uint64_t watermark(const struct rec_tap *t, uint64_t now_ns)
{
	uint64_t est;

	if (!t->seen)
		return 0;
	est = t->seen_ts + (now_ns > t->seen_mono ? now_ns - t->seen_mono : 0);
	return est > t->cfg.lookbehind_ns ? est - t->cfg.lookbehind_ns : 0;
}

static struct rec_chunk *tap_get(void *arg)
{
	struct rec_tap *t = arg;

	return t->cfg.next.ops->get(t->cfg.next.arg);
}

/* Copy the pages, hand the chunk on whatever happens here, then merge what is due. */
static int tap_put(void *arg, struct rec_chunk *c)
{
	struct rec_tap *t = arg;
	size_t bytes = (size_t)c->npages * t->page_size;
	uint64_t now = rec_sysinfo_now_ns();
	struct block *b = NULL;
	struct stream *s;

	if (!t->closed && !t->error && c->npages) {
		s = stream_of(t, c->info.cpu);
		b = s ? malloc(sizeof(*b) + bytes) : NULL;
		if (!b)
			t->error = -ENOMEM;
	}
	if (b) {
		b->next = NULL;
		b->npages = c->npages;
		memcpy(b->pages, c->buf, bytes);
		if (s->tail)
			s->tail->next = b;
		else
			s->head = b;
		s->tail = b;
		t->st.chunks++;
		t->st.pages += c->npages;
		t->st.held_bytes += bytes;
		if (t->st.held_bytes > t->st.max_held_bytes_seen)
			t->st.max_held_bytes_seen = t->st.held_bytes;
		/* time 0 of the views: the first page, as where a report starts the file */
		if (!t->it.start_ts || c->info.first_ts < t->it.start_ts)
			t->it.start_ts = c->info.first_ts;
		if (!t->seen || c->info.last_ts > t->seen_ts) {
			t->seen_ts = c->info.last_ts;
			t->seen_mono = now;
			t->seen = true;
		}
	}
	if (b)
		merge(t, watermark(t, now), t->cfg.merge_budget, true);
	return t->cfg.next.ops->put(t->cfg.next.arg, c);
}

int rec_tap_tick(struct rec_tap *t, uint64_t now_ns)
{
	if (!t->closed && !t->error && t->seen)
		merge(t, watermark(t, now_ns), t->cfg.merge_budget, true);
	return t->error;
}

static void tap_tick(void *arg, uint64_t now_ns)
{
	struct rec_tap *t = arg;

	rec_tap_tick(t, now_ns);
	if (t->cfg.next.ops->tick)
		t->cfg.next.ops->tick(t->cfg.next.arg, now_ns);
}

/* Everything held goes to the pass, which ends. */
static void end_pass(struct rec_tap *t)
{
	int ret;

	if (t->ended)
		return;
	if (!t->error)
		merge(t, UINT64_MAX, UINT64_MAX, false);
	t->ended = true;
	t->it.stop_ts = atomic_load(&t->stop_ts);
	if (t->cfg.ending && !t->error)
		t->cfg.ending(t->cfg.advance_arg, &t->it);
	ret = vmt_pass_end(t->pass);
	t->pass = NULL;
	if (!t->error)
		t->error = ret;
	if (t->cfg.advance && !t->error)
		t->cfg.advance(t->cfg.advance_arg, &t->it, UINT64_MAX);
}

static void tap_close(void *arg)
{
	struct rec_tap *t = arg;

	if (!t->closed) {
		end_pass(t);
		t->closed = true;
	}
	t->cfg.next.ops->close(t->cfg.next.arg);
}

static const struct rec_sink_ops tap_ops = {
	.get = tap_get,
	.put = tap_put,
	.close = tap_close,
	.tick = tap_tick,
};

int rec_tap_new(const struct rec_tap_config *cfg, struct rec_tap **out)
{
	struct vmt_iter_opts io = { 0 };
	struct vmt_pass_input in = { 0 };
	struct rec_tap *t;
	int ret;

	*out = NULL;
	if (!cfg->next.ops || !cfg->clock || !vmt_clock_is_ns(cfg->clock) ||
	    !vmt_header_page_subbuf_size(&cfg->hp))
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->cfg = *cfg;
	if (!t->cfg.merge_budget)
		t->cfg.merge_budget = REC_TAP_MERGE_BUDGET;
	t->page_size = vmt_header_page_subbuf_size(&cfg->hp);
	t->clock.ns_per_tick = 1.0;
	ret = rec_tapfmt_load(&t->fmt, cfg->meta, cfg->meta_len, &in);
	if (ret)
		goto out_free;
	in.clock = &t->clock;
	/*
	 * Live figures need the pairs, not the attribution: the context events are decoded
	 * for the consumers that take them only (the live view names its tasks by them).
	 */
	io.context = true;
	ret = vmt_pass_begin(&in, &io, cfg->c, cfg->nc, &t->it, &t->pass);
	if (ret)
		goto out_free;
	*out = t;
	return 0;
out_free:
	rec_tap_free(t);
	return ret;
}

struct rec_sink rec_tap_sink(struct rec_tap *t)
{
	struct rec_sink s = { &tap_ops, t };

	return s;
}

void rec_tap_set_stop(struct rec_tap *t, uint64_t ts)
{
	if (t)
		atomic_store(&t->stop_ts, ts);
}

const struct vmt_iter *rec_tap_iter(const struct rec_tap *t)
{
	return &t->it;
}

void rec_tap_stats(const struct rec_tap *t, struct rec_tap_stats *st)
{
	*st = t->st;
}

int rec_tap_error(const struct rec_tap *t)
{
	return t->error;
}

void rec_tap_free(struct rec_tap *t)
{
	unsigned int i;

	if (!t)
		return;
	if (t->pass) {
		/* never closed: end it without feeding what is held (a failed set-up) */
		vmt_pass_end(t->pass);
		t->pass = NULL;
	}
	for (i = 0; i < t->ns; i++) {
		while (t->s[i]->head)
			stream_free_block(t, t->s[i]);
		free(t->s[i]);
	}
	free(t->s);
	rec_tapfmt_free(&t->fmt);
	free(t);
}
