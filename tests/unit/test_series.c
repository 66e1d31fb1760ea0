// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * series: the consumer fed pairs by hand (as the pass feeds them), against answers worked
 * out by hand and a brute-force recount: rows in every interval, sums, maxima, p99,
 * per-interval windows, heatmap columns merged past their limit, the row limit; the
 * heatmap's bins; the automatic interval of the bundled sample; the 1-2-5 steps up to
 * 10^19 ns and exits ending past 2^64 ns.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "series.h"

static const struct vmt_clock ns_clock = { 1.0, 0, 0 };

/* A pass in miniature: start, pairs, finish, then the tasks freed as the pass frees them. */
struct feed {
	struct vmt_series s;
	struct vmt_consumer c;
	struct vmt_iter it;
	void *slot[4];			/* per task, by pid - 100 */
	int ret;
};

/* The pass's clock: ns, unless a test sets another before feed_start() */
static const struct vmt_clock *feed_clock = &ns_clock;

static void feed_start_fit(struct feed *f, uint64_t interval, uint64_t window, bool heat,
			   bool fit)
{
	struct vmt_series_opts o = { interval, window, heat, fit };

	memset(f, 0, sizeof(*f));
	assert_int_equal(vmt_series_consumer(&f->s, &o, &f->c), 0);
	f->it.clock = feed_clock;
	f->it.start_ts = 1000;		/* times below are since this start */
	assert_int_equal(f->c.ops->start(f->c.state, &f->it), 0);
}

static void feed_start(struct feed *f, uint64_t interval, uint64_t window, bool heat)
{
	feed_start_fit(f, interval, window, heat, false);
}

static void feed_pair(struct feed *f, int32_t pid, uint64_t start, uint64_t lat, int vcpu)
{
	struct vmt_event b = { 0 }, e = { 0 };
	struct vmt_pair p;

	b.ts = 1000 + start;
	b.pid = e.pid = pid;
	e.ts = b.ts + lat;
	if (vcpu >= 0) {
		b.has = e.has = VMT_EVF_VCPU;
		b.vcpu = e.vcpu = (uint32_t)vcpu;
	}
	p.begin = &b;
	p.end = &e;
	p.lat = lat;
	p.task_ctx = NULL;
	if (!f->ret)
		f->ret = f->c.ops->pair(f->c.state, &f->it, &p, &f->slot[pid - 100]);
}

static void feed_finish(struct feed *f)
{
	unsigned int i;

	if (!f->ret)
		f->ret = f->c.ops->finish(f->c.state, &f->it);
	for (i = 0; i < 4; i++) {
		if (f->slot[i])
			f->c.ops->task_free(f->c.state, f->slot[i]);
	}
}

static void test_rows(void **state)
{
	const struct vmt_series_row *r;
	struct feed f;

	(void)state;
	feed_start(&f, 100, 1000000, false);
	/* task 100, vCPU 1: two exits in [0,100), none in [100,200), one in [200,300) */
	feed_pair(&f, 100, 10, 5, 1);
	feed_pair(&f, 100, 50, 30, 1);
	/* task 101, vCPU 0: one exit starting in [100,200) that ends in the next interval */
	feed_pair(&f, 101, 190, 40, 0);
	feed_pair(&f, 100, 250, 7, 1);
	feed_finish(&f);
	assert_int_equal(f.ret, 0);
	assert_int_equal(f.s.ntasks, 2);
	assert_int_equal(f.s.nintervals, 3);
	assert_int_equal(f.s.nrows, 6);
	/* by start, then vCPU: vCPU 0 first */
	r = f.s.rows;
	assert_int_equal(r[0].start_ns, 0);
	assert_int_equal(r[0].pid, 101);
	assert_int_equal(r[0].exits, 0);
	assert_int_equal(r[0].max_ns, 0);
	assert_int_equal(r[1].pid, 100);
	assert_true(r[1].has_vcpu && r[1].vcpu == 1);
	assert_int_equal(r[1].exits, 2);
	assert_int_equal(r[1].out_ns, 35);
	assert_int_equal(r[1].max_ns, 30);
	assert_int_equal(r[1].p99_ns, 30);
	assert_int_equal(r[1].max_window_ns, 35);
	assert_int_equal(r[2].start_ns, 100);
	assert_int_equal(r[2].pid, 101);
	assert_int_equal(r[2].exits, 1);
	assert_int_equal(r[2].out_ns, 10);	/* 190 to 200: the rest is the next's */
	assert_int_equal(r[3].pid, 100);
	assert_int_equal(r[3].exits, 0);
	assert_int_equal(r[3].out_ns, 0);
	assert_int_equal(r[4].start_ns, 200);
	assert_int_equal(r[4].exits, 0);	/* task 101 is padded to the end */
	assert_int_equal(r[4].out_ns, 30);	/* its exit ran on until 230 */
	assert_int_equal(r[4].max_ns, 0);	/* but no exit began here */
	assert_int_equal(r[5].exits, 1);
	assert_int_equal(r[5].out_ns, 7);
	/* the window reaches back: 35 + 7 inside 1 ms, though its interval holds 7 */
	assert_int_equal(r[5].max_window_ns, 42);
	/* traced: task 100 from 10 to 257, task 101 from 190 to 230 */
	assert_int_equal(r[0].seen_ns, 0);	/* 101 before its first exit */
	assert_int_equal(r[1].seen_ns, 90);
	assert_int_equal(r[2].seen_ns, 10);
	assert_int_equal(r[3].seen_ns, 100);	/* no exit, but between two: traced */
	assert_int_equal(r[4].seen_ns, 30);
	assert_int_equal(r[5].seen_ns, 57);
	vmt_series_free(&f.s);
}

static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Random exits of three tasks (no vCPU ids: by pid), then each interval recounted by brute
 * force: counts, sums, maxima, p99 by nearest rank (exact up to 1024, else within 0.8 %),
 * and the window as the largest coverage of [end - W, end) over the task's exits.
 */
static void test_recount(void **state)
{
	enum { N = 9000, T = 3 };
	static uint64_t st[T][N], lt[T][N], tmp[N];
	const uint64_t iv = 1000000, win = 50000;
	unsigned int n[T] = { 0 }, t, hist_rows = 0;
	uint64_t x = 42, now[T] = { 0 };
	struct feed f;
	size_t i;

	(void)state;
	feed_start(&f, iv, win, true);
	for (i = 0; i < N; i++) {
		uint64_t lat;

		t = (unsigned int)(lcg(&x) % T);
		/* task 1 is busy first (over 1024 exits in an interval), the others sparse */
		if (t == 1 && i < 2 * N / 3) {
			now[t] += 50 + lcg(&x) % 150;
			lat = lcg(&x) % 64 == 0 ? 1000 + lcg(&x) % 3000 : 100 + lcg(&x) % 400;
		} else {
			now[t] += 5000 + lcg(&x) % 40000;
			lat = lcg(&x) % 16 == 0 ? 1000 + lcg(&x) % 30000 : 100 + lcg(&x) % 900;
		}
		st[t][n[t]] = now[t];
		lt[t][n[t]++] = lat;
		feed_pair(&f, 100 + (int32_t)t, now[t], lat, -1);
		now[t] += lat;
	}
	feed_finish(&f);
	assert_int_equal(f.ret, 0);
	assert_int_equal(f.s.ntasks, T);
	assert_int_equal(f.s.nrows, f.s.ntasks * f.s.nintervals);
	for (i = 0; i < f.s.nrows; i++) {
		const struct vmt_series_row *r = &f.s.rows[i];
		uint64_t lo = r->start_ns, hi = lo + iv, sum = 0, max = 0, wmax = 0;
		unsigned int k, m = 0, j;

		t = (unsigned int)(r->pid - 100);
		assert_int_equal(r->start_ns, (i / T) * iv);
		assert_int_equal(r->pid, 100 + (int32_t)(i % T));	/* no vCPU: by pid */
		for (k = 0; k < n[t]; k++) {
			uint64_t cover = 0, wlo;

			/* the time out of the guest inside the interval, of any exit */
			if (st[t][k] < hi && st[t][k] + lt[t][k] > lo)
				sum += (st[t][k] + lt[t][k] < hi ? st[t][k] + lt[t][k] : hi) -
				       (st[t][k] > lo ? st[t][k] : lo);
			if (st[t][k] < lo || st[t][k] >= hi)
				continue;
			tmp[m++] = lt[t][k];
			max = lt[t][k] > max ? lt[t][k] : max;
			/* the window ending where this exit ends */
			wlo = st[t][k] + lt[t][k] > win ? st[t][k] + lt[t][k] - win : 0;
			for (j = 0; j <= k; j++) {
				uint64_t a = st[t][j] > wlo ? st[t][j] : wlo;
				uint64_t b = st[t][j] + lt[t][j];

				cover += b > a ? b - a : 0;
			}
			wmax = cover > wmax ? cover : wmax;
		}
		assert_int_equal(r->exits, m);
		assert_int_equal(r->out_ns, sum);
		if (!m) {
			assert_int_equal(r->max_ns, 0);
			continue;
		}
		assert_int_equal(r->max_ns, max);
		assert_int_equal(r->max_window_ns, wmax);
		qsort(tmp, m, sizeof(*tmp), cmp_u64);
		k = (unsigned int)ceil(99 / 100.0 * m);
		if (m <= 1024) {
			assert_int_equal(r->p99_ns, tmp[k - 1]);
		} else {
			hist_rows++;
			assert_true(fabs((double)r->p99_ns - (double)tmp[k - 1]) <=
				    0.008 * (double)tmp[k - 1]);
		}
	}
	assert_true(hist_rows > 0);	/* both ways of p99 were seen */
	/* every exit is in the heatmap once, in its column and latency bin */
	{
		uint64_t total = 0, c0 = 0;
		unsigned int r;

		for (i = 0; i < (size_t)f.s.heat_cols * VMT_SERIES_HEAT_ROWS; i++)
			total += f.s.heat[i];
		assert_int_equal(total, N);
		for (t = 0; t < T; t++) {
			for (i = 0; i < n[t]; i++) {
				if (st[t][i] < f.s.heat_col_ns && lt[t][i] >= 512 && lt[t][i] < 768)
					c0++;
			}
		}
		r = vmt_series_heat_row(512);
		assert_int_equal(r, vmt_series_heat_row(767));
		assert_int_equal(f.s.heat[r], c0);
	}
	vmt_series_free(&f.s);
}

/* Columns merge in pairs past the limit, and no count is lost or moved to another time. */
static void test_heat_merge(void **state)
{
	const uint64_t iv = 10;
	struct feed f;
	uint64_t total = 0, i;
	unsigned int r = vmt_series_heat_row(5);

	(void)state;
	feed_start(&f, iv, 1000, true);
	/* one exit of 5 ns in each of 3000 intervals: past 1024, then past 2048 columns */
	for (i = 0; i < 3000; i++)
		feed_pair(&f, 100, i * iv, 5, 0);
	feed_finish(&f);
	assert_int_equal(f.ret, 0);
	assert_int_equal(f.s.heat_col_ns, 4 * iv);
	assert_int_equal(f.s.heat_cols, 750);
	for (i = 0; i < f.s.heat_cols; i++) {
		assert_int_equal(f.s.heat[i * VMT_SERIES_HEAT_ROWS + r], 4);
		total += f.s.heat[i * VMT_SERIES_HEAT_ROWS + r];
	}
	assert_int_equal(total, 3000);
	vmt_series_free(&f.s);
}

static void test_limits(void **state)
{
	struct vmt_series_opts o = { 0, 1000, false, false };
	struct vmt_series s;
	struct vmt_consumer c;
	struct feed f;

	(void)state;
	assert_int_equal(vmt_series_consumer(&s, &o, &c), -EINVAL);
	vmt_series_free(&s);
	/* an exit far from the start needs more rows than allowed */
	feed_start(&f, 1, 1000, false);
	feed_pair(&f, 100, (uint64_t)VMT_SERIES_MAX_ROWS + 5, 3, 0);
	assert_int_equal(f.ret, 0);
	feed_finish(&f);
	assert_int_equal(f.ret, -E2BIG);
	vmt_series_free(&f.s);
	/* with fit, the same pass ends well: no rows, its tasks counted for vmt_series_refit() */
	feed_start_fit(&f, 1, 1000, false, true);
	feed_pair(&f, 100, 10, 3, 0);
	feed_pair(&f, 101, (uint64_t)VMT_SERIES_MAX_ROWS + 5, 3, 1);
	feed_pair(&f, 102, (uint64_t)VMT_SERIES_MAX_ROWS + 9, 3, 2);
	feed_finish(&f);
	assert_int_equal(f.ret, 0);
	assert_int_equal(f.s.nrows, 0);
	assert_null(f.s.rows);
	assert_int_equal(f.s.nintervals, 0);
	assert_int_equal(f.s.ntasks, 3);
	vmt_series_free(&f.s);
	/* an empty pass: no rows */
	feed_start(&f, 1000, 1000, true);
	feed_finish(&f);
	assert_int_equal(f.ret, 0);
	assert_int_equal(f.s.nrows, 0);
	assert_int_equal(f.s.nintervals, 0);
	vmt_series_free(&f.s);
}

static void test_heat_bins(void **state)
{
	uint64_t v;
	unsigned int r;

	(void)state;
	/* each value lies in its bin: low(row) <= v < low(row + 1), bins two per doubling */
	for (v = 0; v < 100000; v++) {
		r = vmt_series_heat_row(v);
		assert_true(vmt_series_heat_low_ns(r) <= v);
		assert_true(v < vmt_series_heat_low_ns(r + 1));
	}
	for (r = 0; r < VMT_SERIES_HEAT_ROWS; r++)
		assert_int_equal(vmt_series_heat_row(vmt_series_heat_low_ns(r)), r);
	assert_int_equal(vmt_series_heat_row(UINT64_MAX), VMT_SERIES_HEAT_ROWS - 1);
	assert_int_equal(vmt_series_heat_low_ns(4), 4);
	assert_int_equal(vmt_series_heat_low_ns(5), 6);
	assert_int_equal(vmt_series_heat_low_ns(20), 1024);
	assert_int_equal(vmt_series_heat_low_ns(21), 1536);
}

/* The bundled sample: its events span 2.0 s, so 5 ms gives 400 intervals. */
static void test_auto_interval(void **state)
{
	struct vmt_reader *r;
	char why[256];

	(void)state;
	assert_int_equal(vmt_reader_open(TOP_SRCDIR "/tests/data/sample-kvm.vmt", NULL, &r, why,
					 sizeof(why)), 0);
	assert_int_equal(vmt_series_auto_interval(r), 5000000);
	vmt_reader_close(r);
	/* a trace.dat has no chunk index: its pages' own times are read */
	assert_int_equal(vmt_reader_open(TOP_SRCDIR "/tests/data/tracedat/kvm.v6.dat", NULL, &r,
					 why, sizeof(why)), 0);
	{
		uint64_t iv = vmt_series_auto_interval(r);

		assert_true(iv >= 1000 && iv < 1000000000);
	}
	vmt_reader_close(r);
}

/* One pass of a series of r at interval_ns into s, on a reader of its own: its result. */
static int series_of(const char *path, uint64_t interval_ns, bool fit, struct vmt_series *s,
		      struct vmt_reader **r)
{
	struct vmt_series_opts o = { interval_ns, 1000000, true, fit };
	struct vmt_iter_opts io = { 0 };
	struct vmt_consumer c;
	struct vmt_iter it;
	char why[256];

	assert_int_equal(vmt_reader_open(path, NULL, r, why, sizeof(why)), 0);
	assert_int_equal(vmt_series_consumer(s, &o, &c), 0);
	return vmt_iterate(*r, &io, &c, 1, &it);
}

/*
 * Recordings at an interval at which their rows do not fit. With fit the pass ends well and
 * vmt_series_refit() takes the shortest 1-2-5 step (1 us at least) that fits; its rows and
 * heatmap are those of a fresh pass at that interval, and the reader's figures stay the
 * first pass's.
 */
static void refit_one(const char *path, uint64_t first_ns, uint64_t want_ns)
{
	struct vmt_reader_stats before;
	struct vmt_series s, fresh, at_fit;
	struct vmt_reader *r, *r2, *r3;
	uint64_t iv;

	assert_int_equal(series_of(path, first_ns, true, &s, &r), 0);
	assert_int_equal(s.nrows, 0);
	assert_true(s.ntasks > 0);
	before = *vmt_reader_stats(r);
	assert_int_equal(vmt_series_refit(&s, r, NULL), 0);
	assert_memory_equal(&before, vmt_reader_stats(r), sizeof(before));
	iv = s.interval_ns;
	assert_int_equal(iv, want_ns);
	assert_int_equal(s.asked_ns, first_ns);
	assert_true(s.nrows > 0 && s.nrows <= VMT_SERIES_MAX_ROWS);
	assert_int_equal(s.nrows, s.ntasks * s.nintervals);
	/* 1, 2 or 5 times a power of ten, and the step below does not fit */
	{
		uint64_t m = iv, below;

		while (m % 10 == 0)
			m /= 10;
		assert_true(m == 1 || m == 2 || m == 5);
		if (iv == 1000)
			goto at_fit;	/* no step below */
		below = m == 2 ? iv / 2 : m == 5 ? iv / 5 * 2 : iv / 2;
		assert_int_equal(series_of(path, below, false, &fresh, &r2), -E2BIG);
		vmt_series_free(&fresh);
		vmt_reader_close(r2);
	}
at_fit:
	assert_int_equal(series_of(path, iv, false, &at_fit, &r3), 0);
	assert_int_equal(at_fit.nrows, s.nrows);
	assert_int_equal(at_fit.nintervals, s.nintervals);
	assert_memory_equal(at_fit.rows, s.rows, s.nrows * sizeof(*s.rows));
	assert_int_equal(at_fit.heat_cols, s.heat_cols);
	assert_memory_equal(at_fit.heat, s.heat,
			    (size_t)VMT_SERIES_HEAT_MAX_COLS * VMT_SERIES_HEAT_ROWS * sizeof(*s.heat));
	vmt_series_free(&at_fit);
	vmt_reader_close(r3);
	/* rows that fit: nothing to do */
	assert_int_equal(vmt_series_refit(&s, r, NULL), 0);
	assert_int_equal(s.interval_ns, iv);
	vmt_series_free(&s);
	vmt_reader_close(r);
}

/*
 * vmt_series_step_at_least() against the list of every step written out (1, 2 and 5 times
 * 10^3 ... 10^18, and 10^19: 2 * 10^19 is past 2^64): for wants at, just below and just
 * above each step, the first step of the list not below want, UINT64_MAX past the last;
 * never below want.
 */
static void test_step_at_least(void **state)
{
	uint64_t steps[3 * 16 + 1], wants[3], p = 1000, got, expect;
	unsigned int n = 0, i, j, k;

	(void)state;
	for (i = 3; i <= 18; i++, p *= 10) {
		steps[n++] = p;
		steps[n++] = 2 * p;
		steps[n++] = 5 * p;
	}
	steps[n++] = 10000000000000000000ULL;
	assert_int_equal(p, 10000000000000000000ULL);
	for (i = 0; i < n; i++) {
		wants[0] = steps[i] - 1;
		wants[1] = steps[i];
		wants[2] = steps[i] + 1;
		for (j = 0; j < 3; j++) {
			for (k = 0, expect = UINT64_MAX; k < n; k++) {
				if (steps[k] >= wants[j]) {
					expect = steps[k];
					break;
				}
			}
			got = vmt_series_step_at_least(wants[j]);
			assert_int_equal(got, expect);
			assert_true(got >= wants[j]);
		}
	}
	assert_int_equal(vmt_series_step_at_least(0), 1000);
	assert_int_equal(vmt_series_step_at_least(500000000000000001ULL), 1000000000000000000ULL);
	assert_int_equal(vmt_series_step_at_least(100000000000000001ULL), 200000000000000000ULL);
	assert_int_equal(vmt_series_step_at_least(UINT64_MAX), UINT64_MAX);
}

/*
 * An exit whose end in ns is past 2^64 (a clock of 2 ns per tick, the exit 200 ticks before
 * 2^63): it ends at the end of the range, 2^64 - 1, not 1599 ns after 0. Its interval's row
 * (interval 10^18 or 10^19, whose end is past 2^64 too) holds the 399 ns up to there, and
 * the task is seen as long; no interval after it.
 */
static void test_end_past_2_64(void **state)
{
	static const struct vmt_clock x2 = { 2.0, 2, 0 };
	const uint64_t start = (1ULL << 63) - 200, ns = start * 2, ivs[] = {
		1000000000000000000ULL, 10000000000000000000ULL };
	const struct vmt_series_row *r;
	unsigned int i;
	struct feed f;

	(void)state;
	assert_int_equal(ns, UINT64_MAX - 399);
	feed_clock = &x2;
	for (i = 0; i < 2; i++) {
		feed_start(&f, ivs[i], 1000, false);
		feed_pair(&f, 100, start, 1000, 0);	/* 2000 ns */
		feed_finish(&f);
		assert_int_equal(f.ret, 0);
		assert_int_equal(f.s.nrows, ns / ivs[i] + 1);
		r = &f.s.rows[f.s.nrows - 1];
		assert_int_equal(r->start_ns, ns / ivs[i] * ivs[i]);
		assert_int_equal(r->exits, 1);
		assert_int_equal(r->max_ns, 2000);
		assert_int_equal(r->out_ns, 399);
		assert_int_equal(r->seen_ns, 399);
		vmt_series_free(&f.s);
	}
	feed_clock = &ns_clock;
}

static void test_refit(void **state)
{
	(void)state;
	/*
	 * Worked out from vmtrace-convert --csv's rows: the last exit's end E ns and T tasks
	 * need the first step above E / (262144 / T). 2.0006 s of one task: 7632 ns, so 10 us.
	 */
	refit_one(TOP_SRCDIR "/tests/data/sample-kvm.vmt", 1000, 10000);
	/* a trace.dat (no chunk index, chunks read in another order), 36 ms of one task */
	refit_one(TOP_SRCDIR "/tests/data/tracedat/kvm.v7zstd.dat", 100, 1000);
	/* with context events, 2.06 s of two tasks: 15752 ns, so 20 us */
	refit_one(TOP_SRCDIR "/tests/data/why/sample/kvm.vmt", 1000, 20000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_recount),
		cmocka_unit_test(test_heat_merge),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_heat_bins),
		cmocka_unit_test(test_auto_interval),
		cmocka_unit_test(test_refit),
		cmocka_unit_test(test_step_at_least),
		cmocka_unit_test(test_end_past_2_64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
