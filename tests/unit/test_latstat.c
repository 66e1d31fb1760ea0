// SPDX-License-Identifier: GPL-2.0-or-later
/* latstat: counters, and the sliding window against a brute-force oracle. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "latstat.h"

static void test_counters(void **state)
{
	struct vmt_latstat s, t;

	(void)state;
	vmt_latstat_init(&s);
	vmt_latstat_add(&s, 5);
	vmt_latstat_add(&s, 0);
	vmt_latstat_add(&s, 10);
	assert_int_equal(s.count, 3);
	assert_int_equal(s.min, 0);
	assert_int_equal(s.max, 10);
	assert_int_equal(s.sum, 15);
	vmt_latstat_init(&t);
	vmt_latstat_add(&t, 100);
	vmt_latstat_merge(&s, &t);
	assert_int_equal(s.count, 4);
	assert_int_equal(s.max, 100);
}

struct wcase {
	uint64_t window;
	uint64_t iv[8][2];
	unsigned int n;
	uint64_t max_sum;
};

/* Hand-computed answers. */
static const struct wcase wcases[] = {
	{ 1000, { { 0, 100 } }, 1, 100 },
	{ 1000, { { 0, 100 }, { 500, 600 }, { 1500, 1600 } }, 3, 200 },
	/* an exit longer than the window counts only the window */
	{ 1000, { { 0, 5000 } }, 1, 1000 },
	/* straddling: best window [600,1600) holds 400 of the first and 100 of the second */
	{ 1000, { { 0, 1000 }, { 1500, 1600 } }, 2, 1000 },
	{ 1000, { { 0, 300 }, { 900, 1000 }, { 1600, 1700 } }, 3, 300 + 100 },
	{ 1000, { { 100, 400 }, { 1050, 1350 } }, 2, 300 + 50 },
	{ 1000, { { 10, 10 }, { 20, 20 } }, 2, 0 },
	/* intervals at time 0 drop out of the window as soon as they are added */
	{ 1000, { { 0, 0 }, { 0, 0 }, { 0, 5 }, { 5, 5 }, { 900, 1200 } }, 5, 300 },
};

static uint64_t brute(const uint64_t (*iv)[2], unsigned int n, uint64_t w)
{
	uint64_t best = 0;
	unsigned int i, e;

	/* candidate windows start at every interval start and end at every interval end */
	for (e = 0; e < 2 * n; e++) {
		uint64_t lo = e < n ? iv[e][0] : (iv[e - n][1] > w ? iv[e - n][1] - w : 0);
		uint64_t hi = lo + w, sum = 0;

		for (i = 0; i < n; i++) {
			uint64_t a = iv[i][0] > lo ? iv[i][0] : lo;
			uint64_t b = iv[i][1] < hi ? iv[i][1] : hi;

			if (b > a)
				sum += b - a;
		}
		if (sum > best)
			best = sum;
	}
	return best;
}

static void test_window_cases(void **state)
{
	unsigned int i, k;

	(void)state;
	for (i = 0; i < sizeof(wcases) / sizeof(wcases[0]); i++) {
		struct vmt_window w;

		vmt_window_init(&w, wcases[i].window);
		for (k = 0; k < wcases[i].n; k++)
			assert_int_equal(vmt_window_add(&w, wcases[i].iv[k][0], wcases[i].iv[k][1]), 0);
		assert_int_equal(w.max_sum, wcases[i].max_sum);
		assert_int_equal(brute(wcases[i].iv, wcases[i].n, wcases[i].window), wcases[i].max_sum);
		vmt_window_free(&w);
	}
}

static void test_window_random(void **state)
{
	static uint64_t iv[2000][2];
	uint64_t x = 88172645463325252ULL;
	unsigned int round;

	(void)state;
	for (round = 0; round < 200; round++) {
		unsigned int n = 1 + round * 7 % 1999, i;
		uint64_t t = 0, w = 1 + round * 977 % 20000;
		struct vmt_window win;

		vmt_window_init(&win, w);
		for (i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			t += x % 3000;
			iv[i][0] = t;
			t += (x >> 20) % (round % 3 ? 800 : 30000);
			iv[i][1] = t;
			assert_int_equal(vmt_window_add(&win, iv[i][0], iv[i][1]), 0);
		}
		assert_int_equal(win.max_sum, brute((const uint64_t (*)[2])iv, n, w));
		assert_true(win.max_sum <= w);
		vmt_window_free(&win);
	}
}

static int cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Small inputs: exact nearest-rank percentiles, mean and standard deviation. */
static void test_percentiles_exact(void **state)
{
	static const uint64_t v[] = { 50, 10, 40, 20, 30, 1000000, 7, 7, 9, 100 };
	struct vmt_latdist d;
	unsigned int i;

	(void)state;
	vmt_latdist_init(&d);
	assert_int_equal(vmt_latdist_percentile(&d, 50), 0);
	for (i = 0; i < 10; i++)
		assert_int_equal(vmt_latdist_add(&d, v[i]), 0);
	/* sorted: 7 7 9 10 20 30 40 50 100 1000000 */
	assert_int_equal(vmt_latdist_percentile(&d, 50), 20);	/* rank 5 */
	assert_int_equal(vmt_latdist_percentile(&d, 90), 100);	/* rank 9 */
	assert_int_equal(vmt_latdist_percentile(&d, 99), 1000000);
	assert_int_equal(vmt_latdist_percentile(&d, 0), 7);
	assert_int_equal(vmt_latdist_percentile(&d, 10), 7);
	assert_int_equal(vmt_latdist_percentile(&d, 11), 7);	/* rank 2 */
	assert_int_equal(vmt_latdist_percentile(&d, 21), 9);	/* rank 3 */
	assert_int_equal(d.st.sum, 1000273);
	assert_true(vmt_latdist_stddev(&d) > 316200 && vmt_latdist_stddev(&d) < 316240);
	vmt_latdist_free(&d);
}

/*
 * Ranks as a person counts them: p99.9 of 1000 values is the 999th, not the last (in
 * doubles 99.9 / 100 * 1000 is 999.0000000000001). Every multiple of 1000 up to 2e6 and the
 * percentiles the report prints, against the rank in integers: ceil(p * 10^k * n / 10^(k+2)).
 */
static void test_percentile_ranks(void **state)
{
	static const struct { double p; uint64_t num, den; } ps[] = {
		{ 50, 50, 100 }, { 90, 90, 100 }, { 99, 99, 100 }, { 99.9, 999, 1000 },
		{ 99.99, 9999, 10000 }, { 99.999, 99999, 100000 }, { 0.1, 1, 1000 },
	};
	struct vmt_latdist d;
	uint64_t n, i;
	size_t k;

	(void)state;
	for (n = 1000; n <= 2000000; n += 1000)
		for (k = 0; k < sizeof(ps) / sizeof(ps[0]); k++)
			assert_int_equal(vmt_percentile_rank(ps[k].p, n),
					 (ps[k].num * n + ps[k].den - 1) / ps[k].den);
	for (n = 1; n <= 3000; n++)
		for (k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
			uint64_t r = (ps[k].num * n + ps[k].den - 1) / ps[k].den;

			assert_int_equal(vmt_percentile_rank(ps[k].p, n), r ? r : 1);
		}
	assert_int_equal(vmt_percentile_rank(0, 10), 1);
	assert_int_equal(vmt_percentile_rank(100, 10), 10);
	/* the values 1..1000: p99.9 is 999 */
	vmt_latdist_init(&d);
	for (i = 1000; i >= 1; i--)
		assert_int_equal(vmt_latdist_add(&d, i), 0);
	assert_int_equal(vmt_latdist_percentile(&d, 99.9), 999);
	assert_int_equal(vmt_latdist_percentile(&d, 99), 990);
	vmt_latdist_free(&d);
}

/* Large inputs: every percentile within 0.8 % of the exact one, memory fixed. */
static void test_percentiles_hist(void **state)
{
	static uint64_t all[200000];
	static const double ps[] = { 1, 50, 90, 99, 99.9, 99.99, 100 };
	uint64_t x = 0x2545f4914f6cdd1dULL;
	struct vmt_latdist d;
	unsigned int i;

	(void)state;
	vmt_latdist_init(&d);
	for (i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* log-uniform from 1 ns to about 1 s */
		all[i] = (uint64_t)1 << (x % 30);
		all[i] += (x >> 32) % all[i];
		assert_int_equal(vmt_latdist_add(&d, all[i]), 0);
	}
	assert_null(d.exact);
	assert_non_null(d.hist);
	qsort(all, 200000, sizeof(all[0]), cmp64);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		uint64_t rank = (uint64_t)(ps[i] / 100.0 * 200000 + 0.999999);
		uint64_t exact = all[(rank ? rank : 1) - 1], got = vmt_latdist_percentile(&d, ps[i]);
		double err = (double)(got > exact ? got - exact : exact - got) / (double)exact;

		assert_true(err < 0.008);
	}
	assert_int_equal(vmt_latdist_percentile(&d, 100), all[199999]);
	vmt_latdist_free(&d);
}

static void test_buckets(void **state)
{
	uint64_t v;
	unsigned int prev = 0;

	(void)state;
	/* monotonic, and every value lies in [low(b), low(b + 1)) */
	for (v = 0; v < 100000; v += 1 + v / 50) {
		unsigned int b = vmt_latdist_bucket(v);

		assert_true(b >= prev);
		assert_true(vmt_latdist_bucket_low(b) <= v);
		assert_true(vmt_latdist_bucket_low(b + 1) > v);
		prev = b;
	}
	assert_true(vmt_latdist_bucket(UINT64_MAX) < VMT_LATDIST_BUCKETS);
}

/* Merging groups gives what adding every value to one distribution gives. */
static void test_merge(void **state)
{
	static const unsigned int sizes[][3] = {
		{ 10, 20, 30 },		/* all exact */
		{ 500, 500, 24 },	/* exactly 1024: still exact */
		{ 500, 500, 25 },	/* one more: a histogram */
		{ 3000, 5, 0 },		/* one histogram, one exact, one empty */
		{ 0, 4000, 4000 },
	};
	unsigned int k, g, i;
	uint64_t x = 12345;

	(void)state;
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct vmt_latdist one, part[3], all;
		static const double pct[] = { 1, 25, 50, 90, 99, 99.9 };

		vmt_latdist_init(&one);
		vmt_latdist_init(&all);
		for (g = 0; g < 3; g++) {
			vmt_latdist_init(&part[g]);
			for (i = 0; i < sizes[k][g]; i++) {
				uint64_t v;

				x = x * 6364136223846793005ull + 1442695040888963407ull;
				v = (x >> 20) % 5000000;
				assert_int_equal(vmt_latdist_add(&part[g], v), 0);
				assert_int_equal(vmt_latdist_add(&one, v), 0);
			}
		}
		for (g = 0; g < 3; g++)
			assert_int_equal(vmt_latdist_merge(&all, &part[g]), 0);
		assert_int_equal(all.st.count, one.st.count);
		assert_int_equal(all.st.sum, one.st.sum);
		assert_int_equal(all.st.min, one.st.min);
		assert_int_equal(all.st.max, one.st.max);
		assert_true(all.sumsq == one.sumsq);
		assert_int_equal(!all.hist, !one.hist);
		for (i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
			assert_int_equal(vmt_latdist_percentile(&all, pct[i]),
					 vmt_latdist_percentile(&one, pct[i]));
		for (g = 0; g < 3; g++)
			vmt_latdist_free(&part[g]);
		vmt_latdist_free(&one);
		vmt_latdist_free(&all);
	}
}

/* A bucket past 2^32 values carries into the high halves (set up near the edge). */
static void test_counter_carry(void **state)
{
	struct vmt_latdist d, m;
	unsigned int b = vmt_latdist_bucket(5000), i;

	(void)state;
	vmt_latdist_init(&d);
	vmt_latdist_init(&m);
	for (i = 0; i < 2000; i++)
		assert_int_equal(vmt_latdist_add(&d, 5000), 0);
	assert_non_null(d.hist);
	assert_null(d.hist_hi);
	d.hist[b] = UINT32_MAX - 1;	/* as if 2^32 - 2 values had landed there */
	assert_int_equal(vmt_latdist_add(&d, 5000), 0);
	assert_null(d.hist_hi);
	assert_int_equal(vmt_latdist_add(&d, 5000), 0);	/* wraps */
	assert_non_null(d.hist_hi);
	assert_int_equal(vmt_latdist_count(&d, b), 1ull << 32);
	/* merging twice carries too */
	assert_int_equal(vmt_latdist_merge(&m, &d), 0);
	assert_int_equal(vmt_latdist_merge(&m, &d), 0);
	assert_int_equal(vmt_latdist_count(&m, b), 2ull << 32);
	vmt_latdist_free(&d);
	vmt_latdist_free(&m);
}

/*
 * Latencies near 2^64 ns come only from damaged timestamps, but the figures must still agree:
 * the sum is wider than a value, the sum of squares counts its wraps past 2^128, the total
 * saturates and the standard deviation never exceeds the range. The expected averages and
 * deviations are exact rational arithmetic (Python's fractions), written here as numbers.
 */
static void test_huge_values(void **state)
{
	struct vmt_latdist d, e, m;
	double sd;
	int i;

	(void)state;
	vmt_latdist_init(&d);
	for (i = 0; i < 4; i++)
		assert_int_equal(vmt_latdist_add(&d, UINT64_C(1) << 62), 0);
	/* 4 * 2^62 is 2^64: one past what 64 bits hold */
	assert_true(vmt_latstat_avg(&d.st) == UINT64_C(1) << 62);
	assert_true(vmt_latstat_total(&d.st) == UINT64_MAX);
	assert_true(vmt_latdist_stddev(&d) == 0.0);
	assert_true(vmt_latstat_share(&d.st, &d.st) == 100.0);
	vmt_latdist_free(&d);

	/* 2^63 three times and 2^63 + 2^40: the squares pass 2^128 */
	vmt_latdist_init(&d);
	vmt_latdist_init(&e);
	vmt_latdist_init(&m);
	for (i = 0; i < 3; i++)
		assert_int_equal(vmt_latdist_add(&d, UINT64_C(1) << 63), 0);
	assert_int_equal(vmt_latdist_add(&e, (UINT64_C(1) << 63) + (UINT64_C(1) << 40)), 0);
	assert_int_equal(vmt_latdist_merge(&m, &d), 0);
	assert_int_equal(vmt_latdist_merge(&m, &e), 0);
	assert_true(vmt_latstat_avg(&m.st) == UINT64_C(9223372311732682752));
	sd = vmt_latdist_stddev(&m);
	assert_true(fabs(sd - 549755813888.0) < 549755813888.0 * 1e-3);
	/* the three of the four: 3 * 2^63 / (4 * 2^63 + 2^40) is 74.99999998 %, cut to 74.99 */
	assert_true(vmt_latstat_share(&d.st, &m.st) == 74.99);
	vmt_latdist_free(&d);
	vmt_latdist_free(&e);
	vmt_latdist_free(&m);

	/* 2^63, 2^63, 2^62: the sum passes 2^64, the average does not */
	vmt_latdist_init(&d);
	assert_int_equal(vmt_latdist_add(&d, UINT64_C(1) << 63), 0);
	assert_int_equal(vmt_latdist_add(&d, UINT64_C(1) << 63), 0);
	assert_int_equal(vmt_latdist_add(&d, UINT64_C(1) << 62), 0);
	assert_true(vmt_latstat_avg(&d.st) == UINT64_C(7686143364045646506));
	sd = vmt_latdist_stddev(&d);
	assert_true(fabs(sd - 2.6625581641570857e18) < 2.6625581641570857e18 * 1e-6);
	vmt_latdist_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_window_cases),
		cmocka_unit_test(test_window_random),
		cmocka_unit_test(test_percentiles_exact),
		cmocka_unit_test(test_percentile_ranks),
		cmocka_unit_test(test_percentiles_hist),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_counter_carry),
		cmocka_unit_test(test_huge_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
