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

/* The next sink: keeps the first timestamps of what reaches it, and its records' times. */
struct next {
	unsigned int puts, recycled, closes;
	unsigned int lends, puts_at_lend;	/* puts before the first lend */
	size_t lent;			/* the last room lent */
	uint64_t pages;
	uint64_t first_page_ts;		/* of the first chunk put */
	uint64_t second_page_ts;	/* its second page's (UINT64_MAX: none) */
	uint64_t last_first_ts;		/* first_ts of the last chunk put */
	uint64_t nrec, min_ts, max_ts;	/* records of every chunk put (min_ts 0: none) */
};

static struct vmt_header_page hp;
static uint32_t page_size, max_pages;
/* The file's records' times in order, and where each chunk's begin among them. */
static uint64_t *all_ts;
static size_t nall, *chunk_at;

/* An empty chunk as the writer queue's pool gives: room for the largest chunk. */
static struct rec_chunk *next_get(void *arg)
{
	struct rec_chunk *c = calloc(1, sizeof(*c));

	(void)arg;
	assert_non_null(c);
	c->cap_pages = max_pages;
	c->buf = malloc((size_t)max_pages * page_size);
	assert_non_null(c->buf);
	return c;
}

/* Count c's records into n, each checked to decode within its page. */
static void count_records(struct next *n, const struct rec_chunk *c)
{
	struct vmt_rbrecord rec;
	struct vmt_rbpage pg;
	uint32_t i;

	for (i = 0; i < c->npages; i++) {
		assert_int_equal(vmt_rbpage_init(&pg, &hp, c->buf + (size_t)i * page_size,
						 page_size), 0);
		while (vmt_rbpage_next(&pg, &rec) > 0) {
			n->nrec++;
			if (!n->min_ts || rec.ts < n->min_ts)
				n->min_ts = rec.ts;
			if (rec.ts > n->max_ts)
				n->max_ts = rec.ts;
		}
	}
}

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
	count_records(n, c);
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

static void next_lend(void *arg, size_t bytes)
{
	if (!((struct next *)arg)->lends++)
		((struct next *)arg)->puts_at_lend = ((struct next *)arg)->puts;
	((struct next *)arg)->lent = bytes;
}

static const struct rec_sink_ops next_ops = { next_get, next_put, next_close, NULL };

struct feed {
	struct vmt_reader *r;
	const struct vmt_source *src;
	struct vmt_chunkbuf cb;
	size_t nchunks;
};

static void read_times(struct feed *f)
{
	struct vmt_rbrecord rec;
	struct vmt_rbpage pg;
	const char *why = NULL;
	size_t i, cap = 1 << 20;
	uint32_t p;

	all_ts = malloc(cap * sizeof(*all_ts));
	chunk_at = calloc(f->nchunks + 1, sizeof(*chunk_at));
	assert_non_null(all_ts);
	assert_non_null(chunk_at);
	nall = 0;
	max_pages = 0;
	for (i = 0; i < f->nchunks; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(f->src, i);

		assert_int_equal(vmt_source_read_chunk(f->src, i, &f->cb, &why), 0);
		chunk_at[i] = nall;
		if (ci->page_count > max_pages)
			max_pages = ci->page_count;
		for (p = 0; p < ci->page_count; p++) {
			assert_int_equal(vmt_rbpage_init(&pg, &hp, f->cb.raw + (size_t)p * page_size,
							 page_size), 0);
			while (vmt_rbpage_next(&pg, &rec) > 0) {
				assert_true(nall < cap);
				assert_true(!nall || rec.ts >= all_ts[nall - 1]);
				all_ts[nall++] = rec.ts;
			}
		}
	}
	chunk_at[f->nchunks] = nall;
}

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
	read_times(f);
}

static void feed_close(struct feed *f)
{
	vmt_chunkbuf_free(&f->cb);
	vmt_reader_close(f->r);
	free(all_ts);
	free(chunk_at);
}

/* The k-th record's time of chunk i (the file has one CPU: times in order). */
static uint64_t rec_ts(size_t i, size_t k)
{
	assert_true(chunk_at[i] + k < chunk_at[i + 1]);
	return all_ts[chunk_at[i] + k];
}

/* The file's records from lo to hi (inclusive). */
static uint64_t count_between(uint64_t lo, uint64_t hi)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < nall; i++)
		n += all_ts[i] >= lo && all_ts[i] <= hi;
	return n;
}

static void put_chunk(struct feed *f, struct rec_sink s, size_t i)
{
	const struct vmt_chunk_info *ci = vmt_source_chunk(f->src, i);
	const char *why = NULL;
	struct rec_chunk *c = s.ops->get(s.arg);

	assert_non_null(c);
	assert_int_equal(vmt_source_read_chunk(f->src, i, &f->cb, &why), 0);
	free(c->buf);	/* the pool's room: this chunk's own size instead */
	c->buf = malloc(ci->raw_size);
	assert_non_null(c->buf);
	memcpy(c->buf, f->cb.raw, ci->raw_size);
	c->npages = c->cap_pages = ci->page_count;
	c->info = *ci;
	assert_int_equal(s.ops->put(s.arg, c), 0);
}

static unsigned int max_triggers;	/* for the next ring_for(); 0 is 1 */
static uint64_t settle_ns;		/* for the next ring_for() */

static struct rec_ring *ring_for(struct next *n, uint64_t keep, uint64_t after,
				 uint64_t extra, size_t max_bytes)
{
	struct rec_ring_config rc = {
		.next = { &next_ops, n }, .keep_ns = keep, .after_ns = after,
		.hold_extra_ns = extra, .max_bytes = max_bytes, .recycle = next_recycle,
		.lend = next_lend, .recycle_arg = n, .max_triggers = max_triggers, .settle_ns = settle_ns,
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
	assert_int_equal(n.lends, 0);	/* nor room lent to the queue */
	rec_ring_trigger(r, &(struct rec_ring_trigger){ .ts = trig, .lat_ns = 1 });
	assert_false(rec_ring_done(r));
	put_chunk(&f, s, mid + 1);
	/* the kept pages went on: their room is the queue's, before it took them */
	assert_true(n.lends >= 1);
	assert_int_equal(n.puts_at_lend, 0);
	assert_int_equal(n.lent, SIZE_MAX);
	for (i = mid + 2; i < f.nchunks; i++)
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

static void trigger_lat(struct rec_ring *r, uint64_t ts, uint64_t lat)
{
	rec_ring_trigger(r, &(struct rec_ring_trigger){ .ts = ts, .lat_ns = lat, .pid = 7 });
}

/*
 * The window ends after_ns past the exit's end, to the record: every record up to it goes
 * on (the one at the end included), none after it, though its chunk reaches beyond. With
 * settle_ns 0 done at once; with more, only once a record that far past the end came.
 */
static void test_cut(void **state)
{
	struct rec_ring_stats st;
	uint64_t trig, lat, end, keep;
	struct rec_ring *r;
	struct rec_sink s;
	struct next n;
	struct feed f;
	size_t i, mid;
	int pass;

	(void)state;
	feed_open(&f);
	mid = f.nchunks / 2;
	trig = rec_ts(mid, 50);
	lat = rec_ts(mid, 60) - trig;
	end = rec_ts(mid + 1, 100);
	keep = trig - rec_ts(mid - 1, 200);
	for (pass = 0; pass < 2; pass++) {
		/* the second pass: done when chunk mid + 3 comes, not mid + 2 */
		settle_ns = pass ? vmt_source_chunk(f.src, mid + 2)->last_ts - end : 0;
		r = ring_for(&n, keep, end - trig - lat, UINT64_MAX / 4, SIZE_MAX);
		settle_ns = 0;
		s = rec_ring_sink(r);
		for (i = 0; i <= mid; i++)
			put_chunk(&f, s, i);
		trigger_lat(r, trig, lat);
		put_chunk(&f, s, mid + 1);
		assert_int_equal(n.puts, 3);
		assert_int_equal(n.max_ts, end);
		assert_int_equal(n.nrec - count_between(n.min_ts, trig - keep - 1),
				 count_between(trig - keep, end));
		assert_int_equal(rec_ring_done(r), !pass);
		if (pass) {
			put_chunk(&f, s, mid + 2);
			assert_false(rec_ring_done(r));
			put_chunk(&f, s, mid + 3);
			assert_true(rec_ring_done(r));
		}
		for (i = mid + 2 + 2 * pass; i < f.nchunks; i++)
			put_chunk(&f, s, i);
		s.ops->close(s.arg);
		rec_ring_stats(r, &st);
		/* nothing after the end, though chunks came after it */
		assert_int_equal(n.puts, 3);
		assert_int_equal(n.max_ts, end);
		assert_int_equal(st.dropped_after, f.nchunks - mid - 2);
		rec_ring_free(r);
	}
	feed_close(&f);
}

/*
 * Two triggers allowed: the first window ends inside a chunk, whose later records are held
 * for the next: the second window, whose --keep reaches back into the first, begins with
 * the record after the first's last (the split page decodes to the same times), none
 * twice, none lost; an exit that began in pages handed on triggers nothing; no third.
 */
static void test_continue(void **state)
{
	struct rec_ring_stats st;
	uint64_t t1, end1, t2, end2, keep, after, nrec1;
	struct rec_ring *r;
	struct rec_sink s;
	struct next n;
	struct feed f;
	size_t i;

	(void)state;
	feed_open(&f);
	t1 = rec_ts(1, 10);
	end1 = rec_ts(1, 20);
	after = end1 - t1 - 1;
	t2 = rec_ts(1, 30);
	end2 = t2 + 1 + after;
	keep = t2 - vmt_source_chunk(f.src, 0)->first_ts + 1;
	max_triggers = 2;
	r = ring_for(&n, keep, after, UINT64_MAX / 4, SIZE_MAX);
	max_triggers = 0;
	s = rec_ring_sink(r);
	put_chunk(&f, s, 0);
	put_chunk(&f, s, 1);
	trigger_at(r, t1);
	put_chunk(&f, s, 2);	/* the flush: chunk 0, chunk 1 up to end1; done (settle 0) */
	assert_true(rec_ring_done(r));
	assert_int_equal(n.puts, 2);
	assert_int_equal(n.max_ts, end1);
	assert_int_equal(n.nrec, count_between(0, end1));
	assert_int_equal(n.recycled, 0);	/* the rest of chunk 1 and chunk 2 are held */
	rec_ring_done_stats(r, &st);
	assert_true(st.triggered);
	assert_int_equal(st.trigger.ts, t1);
	assert_int_equal(st.written_chunks, 2);
	nrec1 = n.nrec;
	rec_ring_rearm(r);
	assert_false(rec_ring_done(r));
	put_chunk(&f, s, 3);
	/* an exit that began in the pages handed on: refused */
	trigger_at(r, rec_ts(1, 15));
	put_chunk(&f, s, 4);
	assert_false(rec_ring_done(r));
	assert_int_equal(n.puts, 2);
	trigger_at(r, t2);
	put_chunk(&f, s, 5);
	assert_true(rec_ring_done(r));
	assert_int_equal(n.puts, 3);
	/* the second window: from the record after end1 to end2, each once */
	assert_int_equal(n.max_ts, rec_ts(1, count_between(0, end2) - 1 - chunk_at[1]));
	assert_true(n.max_ts <= end2);
	assert_int_equal(n.nrec - nrec1, count_between(end1 + 1, end2));
	rec_ring_done_stats(r, &st);
	assert_int_equal(st.trigger.ts, t2);
	assert_int_equal(st.triggers, 2);
	assert_int_equal(st.kept_from_ts, rec_ts(1, 20));	/* the split page's time */
	trigger_at(r, vmt_source_chunk(f.src, 5)->last_ts + 1000000000ULL);
	for (i = 6; i < f.nchunks; i++)
		put_chunk(&f, s, i);
	s.ops->close(s.arg);
	assert_int_equal(n.puts, 3);	/* no third */
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
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_continue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
