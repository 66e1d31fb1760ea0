// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the recorder's tap (record/tap.h): a recorded file's chunks handed to the
 * tap one by one, as the collector hands them, give the same summary as vmt_iterate() on
 * the file; the file's chunks dealt to three CPUs and handed over out of order merge back
 * into the file's order; every chunk goes on to the next sink; a CPU whose chunks come
 * after the look-behind is counted late and left out; the bound on the copies held forces
 * the merge early; a merge budget leaves what is due for the next put, and changes nothing
 * else.
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

#include "reader.h"
#include "source.h"
#include "summary.h"
#include "tap.h"

/* The next sink: counts the chunks that reach it and frees them. */
struct next {
	unsigned int gets, puts, closes;
	uint64_t pages;
};

static struct rec_chunk *next_get(void *arg)
{
	struct next *n = arg;
	struct rec_chunk *c = calloc(1, sizeof(*c));

	n->gets++;
	return c;
}

static int next_put(void *arg, struct rec_chunk *c)
{
	struct next *n = arg;

	n->puts++;
	n->pages += c->npages;
	free(c->buf);
	free(c);
	return 0;
}

static void next_close(void *arg)
{
	((struct next *)arg)->closes++;
}

static const struct rec_sink_ops next_ops = { next_get, next_put, next_close, NULL };

/* A consumer that counts the begin and end events fed, and can keep their times. */
struct evlog {
	uint64_t n;
	uint64_t *ts;		/* with keep: every event's time, in the order fed */
	bool keep;
};

static int evlog_event(void *state, const struct vmt_iter *it, const struct vmt_iter_event *e)
{
	struct evlog *l = state;

	(void)it;
	if (l->keep) {
		l->ts = realloc(l->ts, (l->n + 1) * sizeof(*l->ts));
		assert_non_null(l->ts);
		l->ts[l->n] = e->ev->ts;
	}
	l->n++;
	return 0;
}

static const struct vmt_consumer_ops evlog_ops = { .name = "evlog", .event = evlog_event };

/*
 * The tap's advance hook: every call's ts at least the one before, and every event up to
 * ts fed by then (all: the recording's events' times in order, from the file).
 */
struct adv {
	uint64_t last, calls;
	bool backwards, final, unfed;
	const struct evlog *fed, *all;
};

static void on_advance(void *arg, const struct vmt_iter *it, uint64_t ts)
{
	struct adv *a = arg;
	uint64_t due = 0;

	(void)it;
	if (ts < a->last)
		a->backwards = true;
	a->final |= ts == UINT64_MAX;
	a->last = ts;
	a->calls++;
	while (a->all && ts != UINT64_MAX && due < a->all->n && a->all->ts[due] <= ts)
		due++;
	if (a->all && a->fed->n < due)
		a->unfed = true;
}

static const struct vmt_summary_opts sopts = { .window_ns = 1000000, .top_n = 10 };

static struct vmt_reader *open_sample(const char *name)
{
	char path[512], why[256];
	struct vmt_reader *r;

	snprintf(path, sizeof(path), "%s/tests/data/%s", TOP_SRCDIR, name);
	assert_int_equal(vmt_reader_open(path, NULL, &r, why, sizeof(why)), 0);
	return r;
}

/*
 * The samples hold one CPU: their chunks are dealt to NCPU CPUs in turn (chunk i to CPU
 * i % NCPU), each CPU's chunks still in time order, as the collector would hand over the
 * chunks of CPUs that run one after the other.
 */
#define NCPU 3

enum order {
	FILE_ORDER,		/* as the collector wrote them */
	ROUNDS_REVERSED,	/* of each NCPU chunks in a row, the last first */
	CPU_BY_CPU,		/* all of one CPU, then the next: the others come late */
};

/*
 * Feed the chunks of name in the order asked to a tap with a summary consumer; the
 * summary and the tap's figures come back.
 */
static void feed(const char *name, enum order order, uint64_t lookbehind, size_t max_held,
		 uint64_t budget, struct vmt_summary *s, struct rec_tap_stats *st, struct next *n,
		 struct adv *a)
{
	struct vmt_reader *r = open_sample(name);
	const struct vmt_source *src = vmt_reader_source(r);
	struct vmt_chunkbuf cb = { 0 };
	struct rec_tap_config tc = {
		.next = { &next_ops, n }, .hp = *vmt_reader_header_page(r),
		.clock = vmt_reader_clock_name(r), .lookbehind_ns = lookbehind,
		.max_held_bytes = max_held, .merge_budget = budget,
		.advance = on_advance, .advance_arg = a,
	};
	size_t i, k, nchunks = vmt_source_nchunks(src), done = 0;
	const struct evlog *all = a->all;
	struct evlog fed = { 0 };
	struct vmt_consumer c[2] = { [1] = { &evlog_ops, &fed } };
	struct rec_sink sink;
	struct rec_tap *tap;
	uint32_t cpu = 0;

	memset(n, 0, sizeof(*n));
	memset(a, 0, sizeof(*a));
	a->all = all;
	a->fed = &fed;
	tc.meta = vmt_source_meta(src, &tc.meta_len);
	assert_int_equal(vmt_summary_consumer(s, &sopts, &c[0]), 0);
	tc.c = c;
	tc.nc = 2;
	assert_int_equal(rec_tap_new(&tc, &tap), 0);
	sink = rec_tap_sink(tap);
	while (done < nchunks) {
		for (k = 0; k < nchunks; k++) {
			const struct vmt_chunk_info *ci;
			const char *why = NULL;
			struct rec_chunk *rc;

			i = k;
			if (order == ROUNDS_REVERSED) {
				i = k - k % NCPU + (NCPU - 1 - k % NCPU);
				if (i >= nchunks)
					i = k;	/* the last, incomplete round as it is */
			}
			if (order == CPU_BY_CPU && i % NCPU != cpu)
				continue;
			ci = vmt_source_chunk(src, i);
			assert_int_equal(vmt_source_read_chunk(src, i, &cb, &why), 0);
			rc = sink.ops->get(sink.arg);
			assert_non_null(rc);
			rc->buf = malloc(ci->raw_size);
			assert_non_null(rc->buf);
			memcpy(rc->buf, cb.raw, ci->raw_size);
			rc->npages = ci->page_count;
			rc->cap_pages = ci->page_count;
			rc->info = *ci;
			rc->info.cpu = (uint32_t)(i % NCPU);
			assert_int_equal(sink.ops->put(sink.arg, rc), 0);
			done++;
		}
		cpu++;
	}
	sink.ops->close(sink.arg);
	assert_int_equal(rec_tap_error(tap), 0);
	rec_tap_stats(tap, st);
	rec_tap_free(tap);
	vmt_chunkbuf_free(&cb);
	assert_int_equal(n->puts, nchunks);
	assert_int_equal(n->gets, nchunks);
	assert_int_equal(n->closes, 1);
	a->fed = NULL;		/* fed goes out of scope; its count is in s */
	vmt_reader_close(r);
}

/* The file in one pass: its summary, and its events' times into all. */
static void whole(const char *name, struct vmt_summary *s, struct evlog *all)
{
	struct vmt_reader *r = open_sample(name);
	struct vmt_consumer c[2] = { [1] = { &evlog_ops, all } };
	struct vmt_iter it;

	memset(all, 0, sizeof(*all));
	all->keep = true;
	assert_int_equal(vmt_summary_consumer(s, &sopts, &c[0]), 0);
	assert_int_equal(vmt_iterate(r, NULL, c, 2, &it), 0);
	vmt_reader_close(r);
}

static void same_as_file(const char *name)
{
	struct rec_tap_stats st;
	struct vmt_summary a, b;
	struct evlog all;
	struct next n;
	struct adv adv;
	unsigned int i;

	whole(name, &a, &all);
	adv.all = &all;
	/* a look-behind longer than the recording: one merge at the end */
	feed(name, FILE_ORDER, UINT64_MAX / 4, SIZE_MAX, 0, &b, &st, &n, &adv);
	assert_true(a.pairing.pairs > 0);
	assert_int_equal(st.late, 0);
	assert_int_equal(st.forced, 0);
	assert_int_equal(st.held_bytes, 0);
	assert_int_equal(n.pages, st.pages);
	assert_int_equal(a.events, b.events);
	assert_int_equal(a.pairing.pairs, b.pairing.pairs);
	assert_int_equal(a.pairing.orphan_begins, b.pairing.orphan_begins);
	assert_int_equal(a.pairing.orphan_ends, b.pairing.orphan_ends);
	assert_int_equal(a.lat.sum, b.lat.sum);
	assert_int_equal(a.lat.max, b.lat.max);
	assert_int_equal(a.lat.min, b.lat.min);
	assert_int_equal(a.max_window_sum, b.max_window_sum);
	assert_int_equal(a.ntasks, b.ntasks);
	assert_int_equal(a.nreasons, b.nreasons);
	for (i = 0; i < a.ntop; i++)
		assert_int_equal(a.top[i].exit.ts, b.top[i].exit.ts);
	assert_false(adv.backwards);
	assert_true(adv.final);
	vmt_summary_free(&b);
	/* out of order across CPUs, within the look-behind: merged back */
	feed(name, ROUNDS_REVERSED, UINT64_MAX / 4, SIZE_MAX, 0, &b, &st, &n, &adv);
	assert_int_equal(st.late, 0);
	assert_int_equal(a.events, b.events);
	assert_int_equal(a.pairing.pairs, b.pairing.pairs);
	assert_int_equal(a.lat.sum, b.lat.sum);
	assert_int_equal(a.lat.max, b.lat.max);
	assert_int_equal(a.max_window_sum, b.max_window_sum);
	vmt_summary_free(&b);
	/* the memory bound forces merges all along; in file order nothing comes late */
	feed(name, FILE_ORDER, UINT64_MAX / 4, 1, 7, &b, &st, &n, &adv);
	assert_true(st.forced > 0);
	assert_int_equal(st.budget_stops, 0);	/* the bound goes before the budget */
	assert_int_equal(a.pairing.pairs, b.pairing.pairs);
	assert_int_equal(a.lat.sum, b.lat.sum);
	assert_false(adv.backwards);
	vmt_summary_free(&b);
	/*
	 * No look-behind, a budget of 7 items a put: each put leaves most of what is due for
	 * the next, the close feeds the rest, and nothing changes but when
	 */
	feed(name, FILE_ORDER, 0, SIZE_MAX, 7, &b, &st, &n, &adv);
	assert_true(st.budget_stops > 0);
	assert_int_equal(st.forced, 0);
	assert_int_equal(st.late, 0);
	assert_int_equal(a.events, b.events);
	assert_int_equal(a.pairing.pairs, b.pairing.pairs);
	assert_int_equal(a.lat.sum, b.lat.sum);
	assert_int_equal(a.lat.max, b.lat.max);
	assert_int_equal(a.max_window_sum, b.max_window_sum);
	assert_false(adv.backwards);
	assert_true(adv.final);
	/* stopped by the budget, it advances only as far as every event was fed */
	assert_true(adv.calls > 2);
	assert_false(adv.unfed);
	vmt_summary_free(&b);
	vmt_summary_free(&a);
	free(all.ts);
}

static void test_kvm_sample(void **state)
{
	(void)state;
	same_as_file("sample-kvm.vmt");
}

static void test_syscall_sample(void **state)
{
	(void)state;
	same_as_file("sample-syscalls.vmt");
}

/*
 * One CPU after the other, with no look-behind: the first CPU's records all go in, the
 * others' are older than what the pass has, so they are late, and fewer pairs result.
 * The same order with a long look-behind loses nothing.
 */
static void test_late(void **state)
{
	struct rec_tap_stats st;
	struct vmt_summary a, b;
	struct evlog all;
	struct next n;
	struct adv adv = { 0 };

	(void)state;
	whole("sample-kvm.vmt", &a, &all);
	feed("sample-kvm.vmt", CPU_BY_CPU, 0, SIZE_MAX, 0, &b, &st, &n, &adv);
	assert_true(st.late > 0);
	assert_true(b.pairing.pairs < a.pairing.pairs);
	assert_int_equal(st.records, b.events + b.other_records + st.late);
	vmt_summary_free(&b);
	feed("sample-kvm.vmt", CPU_BY_CPU, UINT64_MAX / 4, SIZE_MAX, 0, &b, &st, &n, &adv);
	assert_int_equal(st.late, 0);
	assert_int_equal(a.pairing.pairs, b.pairing.pairs);
	assert_int_equal(a.lat.sum, b.lat.sum);
	vmt_summary_free(&b);
	vmt_summary_free(&a);
	free(all.ts);
}

/* No nanosecond clock, no formats: refused. */
static void test_refused(void **state)
{
	struct vmt_reader *r = open_sample("sample-kvm.vmt");
	struct next n = { 0 };
	struct rec_tap_config tc = {
		.next = { &next_ops, &n }, .hp = *vmt_reader_header_page(r), .clock = "x86-tsc",
	};
	struct rec_tap *tap;

	(void)state;
	tc.meta = vmt_source_meta(vmt_reader_source(r), &tc.meta_len);
	assert_int_equal(rec_tap_new(&tc, &tap), -EINVAL);
	tc.clock = "local";
	tc.meta_len = 0;
	assert_int_equal(rec_tap_new(&tc, &tap), -EINVAL);
	assert_null(tap);
	vmt_reader_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kvm_sample),
		cmocka_unit_test(test_syscall_sample),
		cmocka_unit_test(test_late),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
