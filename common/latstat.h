/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latstat: latency statistics in constant memory: count/min/max/sum, and the largest total
 * of intervals (out-of-guest time) inside any sliding window of one task. Plain structs
 * owned by the caller; not thread-safe (one per thread, merge afterwards).
 */
#ifndef VMT_LATSTAT_H
#define VMT_LATSTAT_H

#include <errno.h>
#include <stdint.h>

struct vmt_latstat {
	uint64_t count;
	uint64_t min, max;
	/*
	 * 128 bits: timestamps come from the file, and four exits of 2^62 ns (damaged page
	 * headers) would wrap 64 bits to a total and an average of 0 beside a maximum of 146
	 * years. Read it through vmt_latstat_avg() and vmt_latstat_total().
	 */
	unsigned __int128 sum;
};

void vmt_latstat_init(struct vmt_latstat *s);
/* The average, exact (never above max): 0 when empty. */
static inline uint64_t vmt_latstat_avg(const struct vmt_latstat *s)
{
	return s->count ? (uint64_t)(s->sum / s->count) : 0;
}
/* The total as 64 bits: UINT64_MAX (584 years in ns) when it is more, never wrapped. */
static inline uint64_t vmt_latstat_total(const struct vmt_latstat *s)
{
	return s->sum > UINT64_MAX ? UINT64_MAX : (uint64_t)s->sum;
}
/*
 * part's share of total in %, cut (never rounded up) to 2 decimals as vmt_share_pct() cuts;
 * totals past 64 bits keep their ratio.
 */
double vmt_latstat_share(const struct vmt_latstat *part, const struct vmt_latstat *total);
static inline void vmt_latstat_add(struct vmt_latstat *s, uint64_t v)
{
	s->count++;
	s->sum += v;
	if (v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
}
void vmt_latstat_merge(struct vmt_latstat *into, const struct vmt_latstat *from);

/*
 * A latency distribution in constant memory: count/min/max/sum, the sum of squares (for
 * the standard deviation), and percentiles. The first VMT_LATDIST_EXACT values are kept as
 * they are, so small inputs get exact percentiles; after that a log-linear histogram with
 * 128 sub-buckets per power of two (relative error under 0.8 %) takes over.
 */
#define VMT_LATDIST_EXACT 1024
#define VMT_LATDIST_SUB_BITS 7
#define VMT_LATDIST_BUCKETS ((64 - VMT_LATDIST_SUB_BITS + 1) << VMT_LATDIST_SUB_BITS)

struct vmt_latdist {
	struct vmt_latstat st;
	unsigned __int128 sumsq;	/* exact: the variance without a division per value */
	uint64_t sumsq_wraps;	/* times sumsq passed 2^128 (values near 2^64 ns: damage) */
	uint64_t *exact;	/* the first values, until it overflows */
	uint32_t nexact;
	/*
	 * VMT_LATDIST_BUCKETS counters once exact overflowed: 32 bits each so the four a
	 * report updates per exit stay in the first-level cache, with the high halves in
	 * hist_hi (allocated at the first wrap, after 2^32 values in one bucket).
	 */
	uint32_t *hist;
	uint32_t *hist_hi;
};

void vmt_latdist_init(struct vmt_latdist *d);
void vmt_latdist_free(struct vmt_latdist *d);
static inline unsigned int vmt_latdist_bucket(uint64_t v)
{
	unsigned int e, sub;

	if (v < (1u << VMT_LATDIST_SUB_BITS))
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	sub = (unsigned int)(v >> (e - VMT_LATDIST_SUB_BITS)) & ((1u << VMT_LATDIST_SUB_BITS) - 1);
	return ((e - VMT_LATDIST_SUB_BITS + 1) << VMT_LATDIST_SUB_BITS) + sub;
}
/* The first values, and the switch to the histogram (out of line: rare). */
int vmt_latdist_add_slow(struct vmt_latdist *d, uint64_t v);
/* A counter wrapped: carry into hist_hi (out of line: once per 2^32 values). */
int vmt_latdist_carry(struct vmt_latdist *d, unsigned int bucket);
/* The count of one bucket. */
static inline uint64_t vmt_latdist_count(const struct vmt_latdist *d, unsigned int bucket)
{
	return (d->hist_hi ? (uint64_t)d->hist_hi[bucket] << 32 : 0) | d->hist[bucket];
}
/* Add from's values to into (as if each had been added to into). Returns 0 or -ENOMEM. */
int vmt_latdist_merge(struct vmt_latdist *into, const struct vmt_latdist *from);

/* One value prepared once for several distributions (the report adds each to four). */
struct vmt_latval {
	uint64_t v;
	unsigned __int128 sq;
	unsigned int bucket;
};

static inline void vmt_latval_init(struct vmt_latval *lv, uint64_t v)
{
	lv->v = v;
	lv->sq = (unsigned __int128)v * v;
	lv->bucket = vmt_latdist_bucket(v);
}

/* Returns 0 or -ENOMEM (the value still counts in st). */
static inline int vmt_latdist_add_val(struct vmt_latdist *d, const struct vmt_latval *lv)
{
	vmt_latstat_add(&d->st, lv->v);
	if (__builtin_expect(__builtin_add_overflow(d->sumsq, lv->sq, &d->sumsq), 0))
		d->sumsq_wraps++;
	if (d->hist) {
		if (__builtin_expect(++d->hist[lv->bucket] == 0, 0))
			return vmt_latdist_carry(d, lv->bucket);
		return 0;
	}
	return vmt_latdist_add_slow(d, lv->v);
}

static inline int vmt_latdist_add(struct vmt_latdist *d, uint64_t v)
{
	struct vmt_latval lv;

	vmt_latval_init(&lv, v);
	return vmt_latdist_add_val(d, &lv);
}
/*
 * Nearest-rank percentile (the smallest value with at least p % of the values at or
 * below it), 0 <= p <= 100: exact for small inputs, else within 0.8 % and inside
 * [min, max]. 0 when empty.
 */
uint64_t vmt_latdist_percentile(const struct vmt_latdist *d, double p);
/*
 * The nearest rank of p % among n values, in 1..n: ceil(p / 100 * n) in integers, as p
 * is written (to 1e-7 %): in doubles 99.9 / 100 * 1000 is 999.0000000000001, rank 1000.
 */
uint64_t vmt_percentile_rank(double p, uint64_t n);
double vmt_latdist_stddev(const struct vmt_latdist *d);
/* The bucket's lowest value (for tests and merging). */
uint64_t vmt_latdist_bucket_low(unsigned int idx);

/*
 * Sliding window: for one task's intervals [start, end], fed in time order, the maximum
 * over every window [t, t + window) of the time the intervals cover inside it. An interval
 * that crosses a window edge counts only its part inside, so the figure never exceeds the
 * window. The maximum is always reached by a window ending where an interval ends, so each
 * new interval is one evaluation. Memory: the intervals inside one window.
 */
struct vmt_window {
	uint64_t window;
	/*
	 * Ring of intervals still inside the last window, each with the total length of the
	 * intervals added before it: the ring's sum is total - before[head], so dropping an
	 * interval only moves head.
	 */
	uint64_t *start, *end, *before;
	uint32_t head, len, cap;
	uint64_t total;		/* total length of every interval added */
	uint64_t last_end;
	uint64_t max_sum;
	uint64_t max_at;	/* start of the window that holds max_sum */
};

int vmt_window_init(struct vmt_window *w, uint64_t window);
void vmt_window_free(struct vmt_window *w);
/*
 * w continued by from, a window fed the same task's later intervals from where none of w's
 * could still count (time slices, slicepass.h): from's ring, and from's maximum when it is
 * greater (on equal sums w's came first). Returns 0 or -ENOMEM.
 */
int vmt_window_adopt(struct vmt_window *w, const struct vmt_window *from);
/* Double the ring (it is full). Returns 0 or -ENOMEM. */
int vmt_window_grow(struct vmt_window *w);

/*
 * Add the next interval. Returns 0 or -ENOMEM. Inline: it runs once per exit in every
 * view, and the call with its register saves cost a quarter of it.
 */
static inline int vmt_window_add(struct vmt_window *w, uint64_t start, uint64_t end)
{
	uint64_t *ws, *we, *wb, lo, total, covered;
	uint32_t head, len, mask, tail, drop;

	/* A task's intervals cannot overlap; clip what clock noise would make overlap. */
	if (start < w->last_end)
		start = w->last_end;
	if (end < start)
		end = start;
	w->last_end = end;
	if (__builtin_expect(w->len == w->cap, 0) && vmt_window_grow(w))
		return -ENOMEM;
	/* in locals: the ring's stores could alias the struct's fields for the compiler */
	ws = w->start;
	we = w->end;
	wb = w->before;
	head = w->head;
	mask = w->cap - 1;
	tail = (head + w->len) & mask;
	total = w->total;
	ws[tail] = start;
	we[tail] = end;
	wb[tail] = total;
	total += end - start;
	len = w->len + 1;

	/*
	 * The window [end - window, end): drop intervals that ended before it. Each exit drops
	 * none, one or a few, unpredictably: the first two steps are without branches, the loop
	 * does the rest. The first step's slot holds at least the interval just added; that
	 * one drops too only at time 0 (window >= 1, so lo < end otherwise).
	 */
	lo = end > w->window ? end - w->window : 0;
	drop = we[head] <= lo;
	head = (head + drop) & mask;
	len -= drop;
	drop = (len != 0) & (we[head] <= lo);
	head = (head + drop) & mask;
	len -= drop;
	while (len && we[head] <= lo) {
		head = (head + 1) & mask;
		len--;
	}
	w->head = head;
	w->len = len;
	w->total = total;
	covered = 0;
	if (len) {
		covered = total - wb[head];
		if (ws[head] < lo)
			covered -= lo - ws[head];
	}
	if (covered > w->max_sum) {
		w->max_sum = covered;
		w->max_at = lo;
	}
	return 0;
}

#endif
