// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latstat.h"

void vmt_latstat_init(struct vmt_latstat *s)
{
	s->count = 0;
	s->min = UINT64_MAX;
	s->max = 0;
	s->sum = 0;
}

double vmt_latstat_share(const struct vmt_latstat *part, const struct vmt_latstat *total)
{
	unsigned __int128 p = part->sum, t = total->sum;

	/* both halved together until t fits 64 bits: p * 10000 then fits 128 */
	while (t > UINT64_MAX) {
		p >>= 1;
		t >>= 1;
	}
	if (!t)
		return 0.0;
	return (double)(uint64_t)(p * 10000 / t) / 100.0;
}

void vmt_latstat_merge(struct vmt_latstat *into, const struct vmt_latstat *from)
{
	into->count += from->count;
	into->sum += from->sum;
	if (from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
}

int vmt_window_init(struct vmt_window *w, uint64_t window)
{
	memset(w, 0, sizeof(*w));
	w->window = window ? window : 1;
	return 0;
}

void vmt_window_free(struct vmt_window *w)
{
	free(w->start);
	free(w->end);
	free(w->before);
	w->start = w->end = w->before = NULL;
	w->cap = w->len = 0;
}

int vmt_window_grow(struct vmt_window *w)
{
	uint32_t cap = w->cap ? w->cap * 2 : 16, i;
	uint64_t *s = malloc(cap * sizeof(*s)), *e = malloc(cap * sizeof(*e));
	uint64_t *b = malloc(cap * sizeof(*b));

	if (!s || !e || !b || cap < w->cap) {
		free(s);
		free(e);
		free(b);
		return -ENOMEM;
	}
	for (i = 0; i < w->len; i++) {
		uint32_t j = (w->head + i) & (w->cap - 1);

		s[i] = w->start[j];
		e[i] = w->end[j];
		b[i] = w->before[j];
	}
	free(w->start);
	free(w->end);
	free(w->before);
	w->start = s;
	w->end = e;
	w->before = b;
	w->head = 0;
	w->cap = cap;
	return 0;
}

void vmt_latdist_init(struct vmt_latdist *d)
{
	memset(d, 0, sizeof(*d));
	vmt_latstat_init(&d->st);
}

void vmt_latdist_free(struct vmt_latdist *d)
{
	free(d->exact);
	free(d->hist);
	free(d->hist_hi);
	d->exact = NULL;
	d->hist = d->hist_hi = NULL;
}

int vmt_latdist_carry(struct vmt_latdist *d, unsigned int bucket)
{
	if (!d->hist_hi) {
		d->hist_hi = calloc(VMT_LATDIST_BUCKETS, sizeof(*d->hist_hi));
		if (!d->hist_hi) {
			d->hist[bucket]--;	/* keep the count rather than lose 2^32 */
			return -ENOMEM;
		}
	}
	d->hist_hi[bucket]++;
	return 0;
}

uint64_t vmt_latdist_bucket_low(unsigned int idx)
{
	unsigned int e, sub;

	if (idx < (1u << VMT_LATDIST_SUB_BITS))
		return idx;
	e = (idx >> VMT_LATDIST_SUB_BITS) + VMT_LATDIST_SUB_BITS - 1;
	sub = idx & ((1u << VMT_LATDIST_SUB_BITS) - 1);
	return ((uint64_t)(1u << VMT_LATDIST_SUB_BITS) + sub) << (e - VMT_LATDIST_SUB_BITS);
}

static int to_hist(struct vmt_latdist *d)
{
	uint32_t i;

	d->hist = calloc(VMT_LATDIST_BUCKETS, sizeof(*d->hist));
	if (!d->hist)
		return -ENOMEM;
	for (i = 0; i < d->nexact; i++)
		d->hist[vmt_latdist_bucket(d->exact[i])]++;	/* at most 1024: no wrap */
	free(d->exact);
	d->exact = NULL;
	return 0;
}

int vmt_latdist_add_slow(struct vmt_latdist *d, uint64_t v)
{
	if (d->nexact == VMT_LATDIST_EXACT) {
		if (to_hist(d))
			return -ENOMEM;
		d->hist[vmt_latdist_bucket(v)]++;	/* the 1025th value: no wrap either */
		return 0;
	}
	if (!d->exact) {
		d->exact = malloc(VMT_LATDIST_EXACT * sizeof(*d->exact));
		if (!d->exact)
			return -ENOMEM;
	}
	d->exact[d->nexact++] = v;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

uint64_t vmt_percentile_rank(double p, uint64_t n)
{
	/* parts per 1e9, rounded to the nearest: p as the user wrote it */
	uint64_t ppb = p <= 0 ? 0 : p >= 100 ? 1000000000u : (uint64_t)llround(p * 1e7);
	unsigned __int128 r = ((unsigned __int128)ppb * n + 999999999u) / 1000000000u;

	return r < 1 ? 1 : r > n ? n : (uint64_t)r;
}

uint64_t vmt_latdist_percentile(const struct vmt_latdist *d, double p)
{
	uint64_t n = d->st.count, rank, seen = 0, v;
	unsigned int i;

	if (!n)
		return 0;
	rank = vmt_percentile_rank(p, n);
	/* the extremes are known exactly */
	if (rank == n)
		return d->st.max;
	if (rank == 1)
		return d->st.min;
	if (!d->hist) {
		/* sorting a copy keeps the struct const and the order of arrival */
		uint64_t *s = malloc(d->nexact * sizeof(*s));

		if (!s)
			return 0;
		memcpy(s, d->exact, d->nexact * sizeof(*s));
		qsort(s, d->nexact, sizeof(*s), cmp_u64);
		v = s[rank - 1];
		free(s);
		return v;
	}
	for (i = 0; i < VMT_LATDIST_BUCKETS; i++) {
		seen += vmt_latdist_count(d, i);
		if (seen >= rank)
			break;
	}
	if (i == VMT_LATDIST_BUCKETS)
		return d->st.max;
	/* the middle of the bucket, inside what was seen */
	v = vmt_latdist_bucket_low(i);
	if (i >= (1u << VMT_LATDIST_SUB_BITS) && i + 1 < VMT_LATDIST_BUCKETS)
		v += (vmt_latdist_bucket_low(i + 1) - v) / 2;
	if (v < d->st.min)
		v = d->st.min;
	if (v > d->st.max)
		v = d->st.max;
	return v;
}

/* Add n to one bucket, carrying into the high halves when they are needed. */
static int add_count(struct vmt_latdist *d, unsigned int b, uint64_t n)
{
	uint64_t total = vmt_latdist_count(d, b) + n;

	if ((total >> 32) && !d->hist_hi) {
		d->hist_hi = calloc(VMT_LATDIST_BUCKETS, sizeof(*d->hist_hi));
		if (!d->hist_hi)
			return -ENOMEM;
	}
	d->hist[b] = (uint32_t)total;
	if (d->hist_hi)
		d->hist_hi[b] = (uint32_t)(total >> 32);
	return 0;
}

int vmt_latdist_merge(struct vmt_latdist *into, const struct vmt_latdist *from)
{
	uint32_t i;

	if (!from->st.count)
		return 0;
	if (!into->hist && !from->hist && (uint64_t)into->nexact + from->nexact <= VMT_LATDIST_EXACT) {
		/* both still exact: the union of the values stays exact */
		for (i = 0; i < from->nexact; i++) {
			if (vmt_latdist_add_slow(into, from->exact[i]))
				return -ENOMEM;
		}
	} else {
		if (!into->hist && to_hist(into))
			return -ENOMEM;
		for (i = 0; from->hist && i < VMT_LATDIST_BUCKETS; i++) {
			uint64_t n = vmt_latdist_count(from, i);

			if (n && add_count(into, i, n))
				return -ENOMEM;
		}
		for (i = 0; !from->hist && i < from->nexact; i++) {
			if (add_count(into, vmt_latdist_bucket(from->exact[i]), 1))
				return -ENOMEM;
		}
	}
	vmt_latstat_merge(&into->st, &from->st);
	into->sumsq_wraps += from->sumsq_wraps;
	if (__builtin_add_overflow(into->sumsq, from->sumsq, &into->sumsq))
		into->sumsq_wraps++;
	return 0;
}

double vmt_latdist_stddev(const struct vmt_latdist *d)
{
	long double n = (long double)d->st.count, sum = (long double)d->st.sum, var, sd;
	long double sumsq = (long double)d->sumsq + ldexpl((long double)d->sumsq_wraps, 128);
	uint64_t range = d->st.max - d->st.min;

	if (d->st.count < 2 || !range)
		return 0.0;
	/* sample variance: (sum of squares - sum^2 / n) / (n - 1), never below 0 */
	var = (sumsq - sum * sum / n) / (n - 1);
	sd = var > 0 ? sqrtl(var) : 0.0L;
	/*
	 * A sample's standard deviation never exceeds its range: with values near 2^63 ns the
	 * difference above loses its low digits, and the figure must not contradict min and max.
	 */
	return (double)(sd > (long double)range ? (long double)range : sd);
}

int vmt_window_adopt(struct vmt_window *w, const struct vmt_window *from)
{
	uint32_t i;

	w->head = 0;
	w->len = 0;
	while (w->cap < from->len) {
		if (vmt_window_grow(w))
			return -ENOMEM;
	}
	for (i = 0; i < from->len; i++) {
		uint32_t j = (from->head + i) & (from->cap - 1);

		w->start[i] = from->start[j];
		w->end[i] = from->end[j];
		w->before[i] = from->before[j];
	}
	w->len = from->len;
	w->total = from->total;
	w->last_end = from->last_end;
	if (from->max_sum > w->max_sum) {
		w->max_sum = from->max_sum;
		w->max_at = from->max_at;
	}
	return 0;
}
