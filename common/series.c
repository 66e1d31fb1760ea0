// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "latstat.h"
#include "series.h"
#include "timefmt.h"

/* One vCPU task: the interval it is in, and that interval's figures so far. */
struct stask {
	struct stask *next;		/* every task, for the end of the pass */
	int32_t pid;
	uint32_t vcpu;
	bool has_vcpu;
	uint64_t cur;			/* the interval being filled */
	uint64_t cur_ns;		/* where it starts, ns since the recording's start */
	uint64_t next_row;		/* intervals before this one have their rows */
	uint64_t exits, max;		/* trace clock units */
	uint64_t out_ns;		/* out-of-guest time inside this interval */
	uint64_t carry_ns;		/* of exits begun, the time after this interval's end */
	uint64_t first_ns;		/* its first exit's start, ns since the recording's */
	uint64_t last_end_ns;		/* the latest end of its exits so far */
	struct vmt_latdist d;		/* this interval's latencies only */
	struct vmt_window win;		/* runs across intervals; max_sum is per interval */
};

struct series_work {
	struct vmt_series_opts o;
	const struct vmt_clock *clock;
	uint64_t start_ts;
	uint64_t window;		/* trace clock units */
	struct stask *tasks;
	size_t rows_alloc;
	uint64_t last;			/* the latest interval any exit fell in */
	unsigned int heat_shift;	/* a heat column is 2^heat_shift intervals */
	/*
	 * opts.fit and the rows outgrew VMT_SERIES_MAX_ROWS: they are gone, and the rest of
	 * the pass only counts the tasks and the latest end (vmt_series_refit()).
	 */
	bool overflow;
	uint64_t max_end_ns;		/* the latest end of any exit, ns since the start */
};

static int push_row(struct vmt_series *s, const struct vmt_series_row *row)
{
	struct series_work *w = s->work;

	if (s->nrows == w->rows_alloc) {
		size_t n = w->rows_alloc ? w->rows_alloc * 2 : 256;
		struct vmt_series_row *bigger;

		if (s->nrows >= VMT_SERIES_MAX_ROWS)
			return -E2BIG;
		if (n > VMT_SERIES_MAX_ROWS)
			n = VMT_SERIES_MAX_ROWS;
		bigger = realloc(s->rows, n * sizeof(*bigger));
		if (!bigger)
			return -ENOMEM;
		s->rows = bigger;
		w->rows_alloc = n;
	}
	s->rows[s->nrows++] = *row;
	return 0;
}

/*
 * ret from filling rows: with opts.fit, -E2BIG drops the rows and turns the pass into a
 * count of what vmt_series_refit() needs (memory stays at the rows' bound), so 0.
 */
static int fit_or_fail(struct vmt_series *s, int ret)
{
	struct series_work *w = s->work;

	if (ret != -E2BIG || !w->o.fit)
		return ret;
	w->overflow = true;
	free(s->rows);
	s->rows = NULL;
	s->nrows = 0;
	w->rows_alloc = 0;
	return 0;
}

/*
 * The interval's p99 as vmt_latdist_percentile() finds it. While the values are still kept
 * as they are (up to VMT_LATDIST_EXACT), the answer is the m-th largest with m at most 11:
 * one pass with a small sorted list instead of sorting every interval's values.
 */
static uint64_t p99(const struct vmt_latdist *d)
{
	uint64_t n = d->st.count, rank, top[VMT_LATDIST_EXACT / 100 + 2];
	uint32_t i, m, k, j;

	if (d->hist || n != d->nexact)
		return vmt_latdist_percentile(d, 99);
	rank = vmt_percentile_rank(99, n);
	m = (uint32_t)(n - rank + 1);
	if (m > sizeof(top) / sizeof(top[0]) || rank == 1)
		return vmt_latdist_percentile(d, 99);
	/* top[0..k) holds the k largest so far, largest first */
	for (i = 0, k = 0; i < d->nexact; i++) {
		uint64_t v = d->exact[i];

		if (k == m && v <= top[m - 1])
			continue;
		j = k < m ? k++ : m - 1;
		while (j > 0 && top[j - 1] < v) {
			top[j] = top[j - 1];
			j--;
		}
		top[j] = v;
	}
	return top[m - 1];
}

/* The part of the carried time that falls into the next interval. */
static uint64_t take_carry(struct stask *t, uint64_t interval_ns)
{
	uint64_t part = t->carry_ns < interval_ns ? t->carry_ns : interval_ns;

	t->carry_ns -= part;
	return part;
}

/*
 * a + b, or UINT64_MAX when that wraps: times near 2^64 ns (a damaged page's stamp taken as
 * a time) end at the end of the range, not near 0, which would drop their time or carry
 * almost 2^64 ns into the intervals after.
 */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The part of [from, from + len) that lies within [lo, hi). */
static uint64_t overlap(uint64_t from, uint64_t len, uint64_t lo, uint64_t hi)
{
	uint64_t a = from > lo ? from : lo, b = add_sat(from, len) < hi ? add_sat(from, len) : hi;

	return b > a ? b - a : 0;
}

/*
 * Rows for t's intervals before upto: the one being filled, and those without an exit of
 * their own, which still hold the part of a long exit that ran on into them. The task is
 * traced until seen_until (its last exit's end at the end of the pass; during the pass,
 * a later exit is known to come).
 */
static int close_upto(struct vmt_series *s, struct stask *t, uint64_t upto,
		      uint64_t seen_until)
{
	const struct series_work *w = s->work;
	struct vmt_series_row row;
	int ret;

	memset(&row, 0, sizeof(row));
	row.pid = t->pid;
	row.vcpu = t->vcpu;
	row.has_vcpu = t->has_vcpu;
	for (; t->next_row < upto; t->next_row++) {
		row.start_ns = t->next_row * w->o.interval_ns;
		row.seen_ns = overlap(row.start_ns, w->o.interval_ns, t->first_ns, seen_until);
		if (t->next_row == t->cur && t->exits) {
			row.exits = t->exits;
			row.out_ns = t->out_ns;
			row.max_ns = vmt_clock_ns(w->clock, t->max);
			row.p99_ns = vmt_clock_ns(w->clock, p99(&t->d));
			row.max_window_ns = vmt_clock_ns(w->clock, t->win.max_sum);
		} else if (t->next_row > t->cur) {
			row.out_ns = take_carry(t, w->o.interval_ns);
		}
		ret = push_row(s, &row);
		if (ret)
			return ret;
		memset(&row.exits, 0, offsetof(struct vmt_series_row, pid) -
		       offsetof(struct vmt_series_row, exits));
	}
	return 0;
}

/* The interval t was filling is over: its row, then a fresh start in interval idx. */
static int next_interval(struct vmt_series *s, struct stask *t, uint64_t idx)
{
	int ret = close_upto(s, t, idx, UINT64_MAX);

	if (ret)
		return ret;
	t->cur = idx;
	t->cur_ns = idx * s->work->o.interval_ns;
	t->exits = t->max = 0;
	t->out_ns = take_carry(t, s->work->o.interval_ns);
	vmt_latdist_free(&t->d);
	vmt_latdist_init(&t->d);
	t->win.max_sum = 0;
	return 0;
}

static struct stask *new_task(struct series_work *w, const struct vmt_pair *p)
{
	struct stask *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->pid = p->end->pid;
	vmt_latdist_init(&t->d);
	vmt_window_init(&t->win, w->window);
	t->next = w->tasks;
	w->tasks = t;
	return t;
}

/* Merge pairs of heat columns until col fits. */
static void heat_fit(struct vmt_series *s, uint64_t col)
{
	struct series_work *w = s->work;
	const size_t rows = VMT_SERIES_HEAT_ROWS;
	uint32_t c, r;

	while (col >= VMT_SERIES_HEAT_MAX_COLS) {
		for (c = 0; c < s->heat_cols; c++) {
			uint64_t *to = s->heat + (c / 2) * rows, *from = s->heat + c * rows;

			for (r = 0; r < rows; r++)
				to[r] = (c & 1) ? to[r] + from[r] : from[r];
		}
		s->heat_cols = (s->heat_cols + 1) / 2;
		memset(s->heat + s->heat_cols * rows, 0,
		       (VMT_SERIES_HEAT_MAX_COLS - s->heat_cols) * rows * sizeof(*s->heat));
		w->heat_shift++;
		s->heat_col_ns *= 2;
		col /= 2;
	}
	if (col >= s->heat_cols)
		s->heat_cols = (uint32_t)col + 1;
}

static int on_start(void *state, const struct vmt_iter *it)
{
	struct vmt_series *s = state;
	struct series_work *w = s->work;

	w->clock = it->clock;
	w->start_ts = it->start_ts;
	w->window = vmt_clock_ticks(it->clock, w->o.window_ns);
	if (w->o.heatmap) {
		s->heat = calloc((size_t)VMT_SERIES_HEAT_MAX_COLS * VMT_SERIES_HEAT_ROWS,
				 sizeof(*s->heat));
		if (!s->heat)
			return -ENOMEM;
		s->heat_col_ns = w->o.interval_ns;
	}
	return 0;
}

static int on_pair(void *state, const struct vmt_iter *it, const struct vmt_pair *p, void **slot)
{
	struct vmt_series *s = state;
	struct series_work *w = s->work;
	const struct vmt_event *ex = p->begin;
	struct stask *t = *slot;
	uint64_t ns, idx, lat_ns, end_ns;
	int ret;

	(void)it;
	/* the same ns since the start as the CSV's start_ns, so both bin alike */
	ns = vmt_clock_ns(w->clock, ex->ts > w->start_ts ? ex->ts - w->start_ts : 0);
	lat_ns = vmt_clock_ns(w->clock, p->lat);
	end_ns = add_sat(ns, lat_ns);
	if (end_ns > w->max_end_ns)
		w->max_end_ns = end_ns;
	if (!t) {
		t = new_task(w, p);
		if (!t)
			return -ENOMEM;
		*slot = t;
		t->cur = ns / w->o.interval_ns;
		t->cur_ns = t->cur * w->o.interval_ns;
		t->first_ns = ns;
	}
	if (w->overflow)
		return 0;	/* the tasks and the end are all vmt_series_refit() needs */
	if (p->end->has & VMT_EVF_VCPU) {
		t->vcpu = p->end->vcpu;
		t->has_vcpu = true;
	} else if (ex->has & VMT_EVF_VCPU) {
		t->vcpu = ex->vcpu;
		t->has_vcpu = true;
	}
	/*
	 * Most exits fall in the interval of the one before (no division). A task's exits come
	 * in time order; one out of order stays in the current interval.
	 */
	if (ns - t->cur_ns >= w->o.interval_ns && ns > t->cur_ns) {
		idx = ns / w->o.interval_ns;
		ret = next_interval(s, t, idx);
		if (ret)
			return fit_or_fail(s, ret);
	}
	if (t->cur > w->last)
		w->last = t->cur;
	t->exits++;
	/* the exit's time inside this interval; the rest runs on into the next ones */
	{
		uint64_t iv_end = add_sat(t->cur_ns, w->o.interval_ns);
		uint64_t from = ns > t->cur_ns ? ns : t->cur_ns;

		if (from < iv_end)
			t->out_ns += (end_ns < iv_end ? end_ns : iv_end) - (from < end_ns ? from : end_ns);
		if (end_ns > iv_end)
			t->carry_ns += end_ns - (ns > iv_end ? ns : iv_end);
		if (end_ns > t->last_end_ns)
			t->last_end_ns = end_ns;
	}
	if (p->lat > t->max)
		t->max = p->lat;
	if (vmt_latdist_add(&t->d, p->lat) || vmt_window_add(&t->win, ex->ts, p->end->ts))
		return -ENOMEM;
	if (s->heat) {
		uint64_t col = t->cur >> w->heat_shift;

		if (col >= s->heat_cols)
			heat_fit(s, col);
		col = t->cur >> w->heat_shift;
		s->heat[col * VMT_SERIES_HEAT_ROWS +
			vmt_series_heat_row(vmt_clock_ns(w->clock, p->lat))]++;
	}
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct vmt_series_row *x = a, *y = b;
	uint64_t vx = x->has_vcpu ? x->vcpu : UINT64_MAX, vy = y->has_vcpu ? y->vcpu : UINT64_MAX;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (vx != vy)
		return vx < vy ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int on_finish(void *state, const struct vmt_iter *it)
{
	struct vmt_series *s = state;
	struct series_work *w = s->work;
	struct stask *t;
	int ret;

	(void)it;
	/* the intervals that the last exits ran on into */
	for (t = w->tasks; t; t = t->next) {
		uint64_t iv = w->o.interval_ns;
		uint64_t end = t->cur + t->carry_ns / iv + (t->carry_ns % iv != 0);

		if (end > w->last)
			w->last = end;
	}
	for (t = w->tasks; t; t = t->next) {
		s->ntasks++;
		ret = w->overflow ? 0 : fit_or_fail(s, close_upto(s, t, w->last + 1,
								   t->last_end_ns));
		if (ret)
			return ret;
	}
	if (w->overflow) {
		s->nintervals = 0;	/* no rows: vmt_series_refit() makes them */
		return 0;
	}
	s->nintervals = s->ntasks ? w->last + 1 : 0;
	if (s->nrows)
		qsort(s->rows, s->nrows, sizeof(*s->rows), by_time);
	return 0;
}

static void task_free(void *state, void *task)
{
	struct stask *t = task;

	(void)state;
	vmt_latdist_free(&t->d);
	vmt_window_free(&t->win);
	free(t);
}

static const struct vmt_consumer_ops series_ops = {
	.name = "series",
	.start = on_start,
	.pair = on_pair,
	.finish = on_finish,
	.task_free = task_free,
};

int vmt_series_consumer(struct vmt_series *s, const struct vmt_series_opts *o,
			struct vmt_consumer *out)
{
	memset(s, 0, sizeof(*s));
	if (!o->interval_ns)
		return -EINVAL;
	s->work = calloc(1, sizeof(*s->work));
	if (!s->work)
		return -ENOMEM;
	s->work->o = *o;
	s->interval_ns = o->interval_ns;
	s->window_ns = o->window_ns;
	out->ops = &series_ops;
	out->state = s;
	return 0;
}

void vmt_series_free(struct vmt_series *s)
{
	free(s->rows);
	free(s->heat);
	free(s->work);
	memset(s, 0, sizeof(*s));
}

uint64_t vmt_series_heat_low_ns(unsigned int row)
{
	unsigned int e = row / 2;

	if (row < 2)
		return row;
	if (row >= VMT_SERIES_HEAT_ROWS)
		return UINT64_MAX;
	return (row & 1) ? 3ULL << (e - 1) : 1ULL << e;
}

/*
 * Of a source whose pages are judged as read (vmt_source_pages_late()), the last page of
 * chunk i's CPU kept, i its last chunk read into cb: its time into *ts. Which pages are kept
 * takes every page before them judged (their headers read); a file whose pages open judged
 * had its last chunk end at that page.
 */
static bool last_kept_ts(const struct vmt_source *src, size_t i, struct vmt_chunkbuf *cb,
			 uint64_t *ts)
{
	const struct vmt_chunk_info *ci = vmt_source_chunk(src, i);
	size_t k = i + 1;

	vmt_source_check_pages(src, i, 0, ci->page_count, cb->raw);
	while (k-- > 0) {
		const struct vmt_chunk_info *ck = vmt_source_chunk(src, k);
		uint32_t p = ck->page_count;

		if (ck->cpu != ci->cpu)
			continue;
		while (p > 0 && vmt_source_page_left_out(src, k, p - 1))
			p--;
		if (!p)
			continue;
		if (k != i && vmt_source_read_chunk(src, k, cb, NULL))
			return false;
		*ts = get_le64(cb->raw + (size_t)(p - 1) * ck->page_size);
		return true;
	}
	return false;
}

/* The last page's time of each CPU, from its last chunk, where the index does not say. */
static uint64_t last_page_ts(const struct vmt_source *src)
{
	struct vmt_chunkbuf cb = { 0 };
	size_t i, j, n = vmt_source_nchunks(src);
	uint64_t last = 0;
	const char *why;

	for (i = 0; i < n; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(src, i);
		bool is_last = true;

		if (ci->last_ts) {
			last = ci->last_ts > last ? ci->last_ts : last;
			continue;
		}
		for (j = i + 1; j < n && is_last; j++)
			is_last = vmt_source_chunk(src, j)->cpu != ci->cpu;
		if (!is_last || !ci->page_count || !ci->page_size ||
		    vmt_source_read_chunk(src, i, &cb, &why))
			continue;
		/* every page starts with its time stamp (64 bits); only an estimate is needed */
		if (vmt_source_pages_late(src)) {
			uint64_t ts;

			if (last_kept_ts(src, i, &cb, &ts))
				last = ts > last ? ts : last;
		} else if (ci->raw_size >= (uint64_t)ci->page_count * ci->page_size) {
			size_t at = (size_t)(ci->page_count - 1) * ci->page_size;
			uint64_t ts = get_le64(cb.raw + at);

			last = ts > last ? ts : last;
		}
	}
	vmt_chunkbuf_free(&cb);
	return last;
}

/* The recording's span in ns, from its pages' times (or its duration); 0 when not known. */
static uint64_t span_ns(const struct vmt_reader *r)
{
	uint64_t start = vmt_reader_start_ts(r), last = last_page_ts(vmt_reader_source(r));
	uint64_t span = 0;

	if (last > start)
		span = vmt_clock_ns(vmt_reader_clock(r), last - start);
	/* a time stamp beyond a day from the start is not one we can trust */
	if (!span || span > 86400ULL * 1000000000ULL)
		span = vmt_reader_duration_ns(r);
	return span;
}

uint64_t vmt_series_min_rows(const struct vmt_reader *r, uint64_t interval_ns)
{
	uint64_t span = span_ns(r);

	return interval_ns ? span / interval_ns + (span % interval_ns != 0) : 0;
}

uint64_t vmt_series_fit_interval(const struct vmt_reader *r, uint64_t interval_ns,
				 const char *opt, char *msg, size_t size)
{
	char a[32], b[32];

	if (!interval_ns)
		return vmt_series_auto_interval(r);
	if (vmt_series_min_rows(r, interval_ns) <= VMT_SERIES_MAX_ROWS)
		return interval_ns;
	/* said before the pass, which would fill the rows first */
	snprintf(msg, size, "%s %s: more than the %u rows a time series holds over the "
		 "recording's span: choose at least %s (a row per interval and vCPU task: with N "
		 "tasks, N times that)", opt,
		 vmt_fmt_exact_ns(interval_ns, a, sizeof(a)), VMT_SERIES_MAX_ROWS,
		 vmt_fmt_exact_ns(vmt_series_min_rows(r, 1) / VMT_SERIES_MAX_ROWS + 1, b,
				  sizeof(b)));
	return 0;
}

/* The interval at which the tasks' rows fit up to the latest end (vmt_series_refit()). */
static uint64_t fitting_interval(const struct vmt_series *s)
{
	uint64_t cap = VMT_SERIES_MAX_ROWS / s->ntasks, want = s->work->max_end_ns / cap + 1;

	/* rows: tasks x (end / interval + 1) at most (close_upto() stops at the end) */
	return vmt_series_step_at_least(want > s->work->o.interval_ns ? want :
					s->work->o.interval_ns + 1);
}

bool vmt_series_too_many(const struct vmt_series *s, const char *opt, char *msg, size_t size)
{
	char a[32], b[32];

	if (!s->work || !s->work->overflow)
		return false;
	if (!s->ntasks || s->ntasks > VMT_SERIES_MAX_ROWS) {
		snprintf(msg, size, "%s %s: more than the %u rows a time series holds, at any "
			 "interval (a row per interval and vCPU task, %zu tasks)", opt,
			 vmt_fmt_exact_ns(s->work->o.interval_ns, a, sizeof(a)),
			 VMT_SERIES_MAX_ROWS, s->ntasks);
		return true;
	}
	snprintf(msg, size, "%s %s: more than the %u rows a time series holds, with %zu vCPU "
		 "task%s: choose at least %s", opt,
		 vmt_fmt_exact_ns(s->work->o.interval_ns, a, sizeof(a)), VMT_SERIES_MAX_ROWS,
		 s->ntasks, s->ntasks == 1 ? "" : "s",
		 vmt_fmt_exact_ns(fitting_interval(s), b, sizeof(b)));
	return true;
}

uint64_t vmt_series_step_at_least(uint64_t want)
{
	static const uint64_t steps[] = { 1, 2, 5 };
	uint64_t scale = 1000;
	unsigned int k;

	for (;;) {
		for (k = 0; k < 3 && steps[k] <= UINT64_MAX / scale; k++) {
			if (steps[k] * scale >= want)
				return steps[k] * scale;
		}
		if (scale > UINT64_MAX / 10)
			break;
		scale *= 10;
	}
	return UINT64_MAX;	/* want above 10^19 ns: no step of the kind is that long */
}

uint64_t vmt_series_auto_interval(const struct vmt_reader *r)
{
	uint64_t span = span_ns(r);

	if (!span)
		span = 1000000000ULL * 500;
	/* the smallest 1-2-5 step at least span / 500: 200 to 500 intervals */
	return vmt_series_step_at_least(span / 500);
}

int vmt_series_refit(struct vmt_series *s, struct vmt_reader *r,
		     struct vmt_filter *filter)
{
	/*
	 * The filter alone: a series reads pairs, not their why nor the context events, so
	 * working out the causes again would cost a second attribution for nothing (the engine
	 * is a good part of a pass on a recording with context events).
	 */
	const struct vmt_iter_opts io = { .filter = filter };
	uint64_t asked = s->interval_ns;
	struct vmt_series_opts o;
	struct vmt_reader *whole;
	struct vmt_consumer c;
	struct vmt_iter it;
	unsigned int tries;
	int ret;

	/* more than once only when the exits' ends lied about the span (overlapping exits) */
	for (tries = 0; s->work && s->work->overflow; tries++) {
		if (tries == 4 || !s->ntasks || s->ntasks > VMT_SERIES_MAX_ROWS)
			return -E2BIG;
		o = s->work->o;
		if (o.interval_ns == UINT64_MAX)
			return -E2BIG;	/* already one interval for all time */
		o.interval_ns = fitting_interval(s);
		vmt_series_free(s);
		ret = vmt_series_consumer(s, &o, &c);
		if (ret)
			return ret;
		s->asked_ns = asked;
		/* a slice of the whole walk: r's own figures stay those of the first pass */
		ret = vmt_reader_slice(r, 0, UINT64_MAX, &whole);
		if (ret)
			return ret;
		ret = vmt_iterate(whole, &io, &c, 1, &it);
		vmt_reader_close(whole);
		if (ret)
			return ret;
	}
	return 0;
}
