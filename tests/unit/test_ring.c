// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the flight recorder's ring (record/ring.h), on a recorded file's chunks
 * handed over one by one: before a trigger nothing goes on and what is older than the
 * hold is given back; a trigger hands on exactly the pages from keep_ns before it (the
 * page holding the cutoff included, none wholly before it), then chunks up to after_ns
 * past it, then says done and gives back the rest; the byte bound gives back the oldest.
 * With more triggers allowed (--continue) it holds again once done, takes the next trigger
 * after the re-arm, never one that began in pages already handed on, and at most that many.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rbpage.h"
#include "reader.h"
#include "ring.h"
#include "source.h"

/* The next sink: keeps the first timestamps of what reaches it. */
struct next {
	unsigned int puts, recycled, closes;
	uint64_t pages;
	uint64_t first_page_ts;		/* of the first chunk put */
	uint64_t second_page_ts;	/* its second page's (UINT64_MAX: none) */
	uint64_t last_first_ts;		/* first_ts of the last chunk put */
};

static struct rec_chunk *next_get(void *arg)
{
	(void)arg;
	return calloc(1, sizeof(struct rec_chunk));
}

static struct vmt_header_page hp;
static uint32_t page_size;

static int next_put(void *arg, struct rec_chunk *c)
{
	struct next *n = arg;
	struct vmt_rbpage pg;

	if (!n->puts) {
		assert_int_equal(vmt_rbpage_init(&pg, &hp, c->buf, page_size), 0);
		n->first_page_ts = pg.page_ts;
		n->second_page_ts = UINT64_MAX;
		if (c->npages > 1 && vmt_rbpage_init(&pg, &hp, c->buf + page_size, page_size) == 0)
			n->second_page_ts = pg.page_ts;
		assert_int_equal(c->info.first_ts, n->first_page_ts);
	}
	n->puts++;
	n->pages += c->npages;
	n->last_first_ts = c->info.first_ts;
	free(c->buf);
	free(c);
	return 0;
}

static void next_close(void *arg)
{
	((struct next *)arg)->closes++;
}

static void next_recycle(void *arg, struct rec_chunk *c)
{
	((struct next *)arg)->recycled++;
	free(c->buf);
	free(c);
}

static const struct rec_sink_ops next_ops = { next_get, next_put, next_close, NULL };

struct feed {
	struct vmt_reader *r;
	const struct vmt_source *src;
	struct vmt_chunkbuf cb;
	size_t nchunks;
};

static void feed_open(struct feed *f)
{
	char path[512], why[256];

	snprintf(path, sizeof(path), "%s/tests/data/sample-syscalls.vmt", TOP_SRCDIR);
	memset(f, 0, sizeof(*f));
	assert_int_equal(vmt_reader_open(path, NULL, &f->r, why, sizeof(why)), 0);
	f->src = vmt_reader_source(f->r);
	f->nchunks = vmt_source_nchunks(f->src);
	hp = *vmt_reader_header_page(f->r);
	page_size = vmt_header_page_subbuf_size(&hp);
	assert_true(f->nchunks >= 8);
}

static void feed_close(struct feed *f)
{
	vmt_chunkbuf_free(&f->cb);
	vmt_reader_close(f->r);
}

static void put_chunk(struct feed *f, struct rec_sink s, size_t i)
{
	const struct vmt_chunk_info *ci = vmt_source_chunk(f->src, i);
	const char *why = NULL;
	struct rec_chunk *c = s.ops->get(s.arg);

	assert_non_null(c);
	assert_int_equal(vmt_source_read_chunk(f->src, i, &f->cb, &why), 0);
	c->buf = malloc(ci->raw_size);
	assert_non_null(c->buf);
	memcpy(c->buf, f->cb.raw, ci->raw_size);
	c->npages = c->cap_pages = ci->page_count;
	c->info = *ci;
	assert_int_equal(s.ops->put(s.arg, c), 0);
}

static unsigned int max_triggers;	/* for the next ring_for(); 0 is 1 */

static struct rec_ring *ring_for(struct next *n, uint64_t keep, uint64_t after,
				 uint64_t extra, size_t max_bytes)
{
	struct rec_ring_config rc = {
		.next = { &next_ops, n }, .keep_ns = keep, .after_ns = after,
		.hold_extra_ns = extra, .max_bytes = max_bytes, .recycle = next_recycle,
		.recycle_arg = n, .max_triggers = max_triggers,
	};
	struct rec_ring *r;

	rc.hp = hp;
	memset(n, 0, sizeof(*n));
	assert_int_equal(rec_ring_new(&rc, &r), 0);
	return r;
}

/* Trigger in the middle: the kept pages start at the cutoff's page, the window ends it. */
static void test_trigger(void **state)
{
	struct rec_ring_stats st;
	struct rec_ring *r;
	struct rec_sink s;
	struct next n;
	struct feed f;
	size_t i, mid;
	uint64_t trig, keep, cutoff, after;

	(void)state;
	feed_open(&f);
	mid = f.nchunks / 2;
	trig = vmt_source_chunk(f.src, mid)->first_ts +
	       (vmt_source_chunk(f.src, mid)->last_ts - vmt_source_chunk(f.src, mid)->first_ts) / 2;
	/* a cutoff inside an earlier chunk, the window ending inside a later one */
	keep = trig - (vmt_source_chunk(f.src, mid - 2)->first_ts +
		       vmt_source_chunk(f.src, mid - 2)->last_ts) / 2;
	cutoff = trig - keep;
	after = vmt_source_chunk(f.src, mid + 2)->first_ts - trig + 1;
	r = ring_for(&n, keep, after, UINT64_MAX / 4, SIZE_MAX);
	s = rec_ring_sink(r);
	for (i = 0; i <= mid; i++)
		put_chunk(&f, s, i);
	assert_int_equal(n.puts, 0);	/* nothing before the trigger */
	rec_ring_trigger(r, &(struct rec_ring_trigger){ .ts = trig, .lat_ns = 1 });
	assert_false(rec_ring_done(r));
	for (i = mid + 1; i < f.nchunks; i++)
		put_chunk(&f, s, i);
	assert_true(rec_ring_done(r));
	s.ops->close(s.arg);
	rec_ring_stats(r, &st);
	/* the first page handed on holds the cutoff: it starts at or before, the next after */
	assert_true(n.first_page_ts <= cutoff);
	assert_true(n.second_page_ts > cutoff);
	/* chunks mid - 2 to mid + 2 went on; those before were given back, and after */
	assert_int_equal(n.puts, 5);
	assert_int_equal(n.last_first_ts, vmt_source_chunk(f.src, mid + 2)->first_ts);
	assert_int_equal(st.dropped_chunks, mid - 2);
	assert_int_equal(st.dropped_after, f.nchunks - mid - 3);
	assert_int_equal(n.recycled, f.nchunks - 5);
	assert_int_equal(n.closes, 1);
	rec_ring_free(r);
	feed_close(&f);
}

/* Never triggered: nothing goes on, the hold and the byte bound give chunks back. */
static void test_no_trigger(void **state)
{
	struct rec_ring_stats st;
	struct rec_ring *r;
	struct rec_sink s;
	struct next n;
	struct feed f;
	size_t i;

	(void)state;
	feed_open(&f);
	/* a hold of about one chunk's span: the older chunks are given back at once */
	r = ring_for(&n, 1, 1, 0, SIZE_MAX);
	s = rec_ring_sink(r);
	for (i = 0; i < f.nchunks; i++)
		put_chunk(&f, s, i);
	rec_ring_stats(r, &st);
	assert_int_equal(n.puts, 0);
	assert_true(st.dropped_chunks >= f.nchunks - 2);
	assert_true(st.held_bytes <= 2 * (size_t)vmt_source_chunk(f.src, 0)->page_count *
				    page_size);
	s.ops->close(s.arg);
	assert_int_equal(n.recycled, f.nchunks);
	rec_ring_free(r);
	/* the byte bound: after every chunk at most the bound is held, the oldest go */
	r = ring_for(&n, UINT64_MAX / 4, 1, 0,
		     (size_t)vmt_source_chunk(f.src, 0)->page_count * page_size);
	s = rec_ring_sink(r);
	for (i = 0; i < f.nchunks; i++) {
		put_chunk(&f, s, i);
		rec_ring_stats(r, &st);
		assert_true(st.held_bytes <= (size_t)vmt_source_chunk(f.src, 0)->page_count *
					     page_size);
	}
	assert_true(st.dropped_chunks >= f.nchunks / 2);
	assert_int_equal(n.puts, 0);
	rec_ring_free(r);
	assert_int_equal(n.recycled, f.nchunks);
	feed_close(&f);
}

static void trigger_at(struct rec_ring *r, uint64_t ts)
{
	rec_ring_trigger(r, &(struct rec_ring_trigger){ .ts = ts, .lat_ns = 1, .pid = 7 });
}

/* Two triggers allowed: two windows handed on, the chunks between held then given back. */
static void test_continue(void **state)
{
	const struct vmt_chunk_info *ci;
	struct rec_ring_stats st;
	struct rec_ring *r;
	struct rec_sink s;
	struct next n;
	struct feed f;
	uint64_t t1, t2;

	(void)state;
	feed_open(&f);
	max_triggers = 2;
	r = ring_for(&n, 1, 1, UINT64_MAX / 4, SIZE_MAX);
	max_triggers = 0;
	s = rec_ring_sink(r);
	put_chunk(&f, s, 0);
	put_chunk(&f, s, 1);
	t1 = vmt_source_chunk(f.src, 1)->first_ts + 1;
	trigger_at(r, t1);
	put_chunk(&f, s, 2);		/* the flush: chunk 1 (from the cutoff) and 2 */
	assert_int_equal(n.puts, 2);
	assert_false(rec_ring_done(r));
	put_chunk(&f, s, 3);		/* past the window: done, and held, not given back */
	assert_true(rec_ring_done(r));
	assert_int_equal(n.puts, 2);
	assert_int_equal(n.recycled, 1);
	rec_ring_done_stats(r, &st);
	assert_true(st.triggered);
	assert_int_equal(st.trigger.ts, t1);
	assert_int_equal(st.written_chunks, 2);
	/* an exit that began in chunk 2, already handed on: kept meanwhile, refused then */
	trigger_at(r, vmt_source_chunk(f.src, 2)->first_ts + 1);
	rec_ring_rearm(r);
	assert_false(rec_ring_done(r));	/* until the ring took the re-arm, and after */
	put_chunk(&f, s, 4);
	assert_false(rec_ring_done(r));
	assert_int_equal(n.puts, 2);
	ci = vmt_source_chunk(f.src, 5);
	t2 = ci->first_ts + (ci->last_ts - ci->first_ts) / 2;
	put_chunk(&f, s, 5);
	trigger_at(r, t2);
	put_chunk(&f, s, 6);		/* chunks 3 and 4 are before the cutoff */
	assert_int_equal(n.puts, 4);
	assert_int_equal(n.last_first_ts, vmt_source_chunk(f.src, 6)->first_ts);
	put_chunk(&f, s, 7);		/* done; no third trigger: given back */
	assert_true(rec_ring_done(r));
	trigger_at(r, vmt_source_chunk(f.src, 7)->last_ts + 1000000000ULL);
	rec_ring_done_stats(r, &st);
	assert_int_equal(st.trigger.ts, t2);
	assert_int_equal(st.triggers, 2);
	assert_int_equal(st.written_chunks, 2);
	assert_int_equal(st.dropped_chunks, 2);
	s.ops->close(s.arg);
	assert_int_equal(n.puts, 4);
	assert_int_equal(n.recycled, 4);	/* 0, 3, 4, 7 */
	rec_ring_stats(r, &st);
	assert_int_equal(st.triggers, 2);
	rec_ring_free(r);
	feed_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trigger),
		cmocka_unit_test(test_no_trigger),
		cmocka_unit_test(test_continue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
