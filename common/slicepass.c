// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slicepass.h"

/*
 * Slices of fewer chunks than this re-read too much at their edges to pay: a slice reads
 * from the start of the chunk each CPU is in at its start. So by default a slice starts
 * this many chunks per CPU (on 64 CPUs, slices of fewer would each decode again most of
 * what the others do: 4 M events in 7 chunks per CPU took 0.49 s in slices on 2 threads,
 * 0.37 s in one pass); the slices the tests ask for (VMTRACE_TEST_SLICES) this many in
 * all.
 */
#define MIN_CHUNKS_PER_SLICE 4
/*
 * A slice's reader holds a chunk of pages of every CPU (its zstd context and compressed
 * copy are one per thread): the threads' readers together hold at most SLICE_PAGES bytes
 * of pages, what one walk holds at most (reader.h), so that memory stays under 64 MB; the
 * threads are fewer where more would not fit, and none on recordings of many CPUs in
 * large chunks. Reading those chunks in windows (as one walk does) would fit any number
 * of CPUs, but each window is decoded from the chunk's start again, and on two threads
 * that took what the second thread gave: 64 CPUs, 20 M events, 1.62 s in slices and in
 * one pass, 3.03 s of CPU against 2.14 s (doc/benchmarks.md).
 */
#define SLICE_PAGES (32ull << 20)

struct slice {
	uint64_t from, to;
	struct vmt_summary s;
	struct vmt_iter it;
	struct vmt_pairing_edges edges;
	struct vmt_reader_stats st;
	struct vmt_damage damage;
	struct vmt_filter filter;	/* its own copy: a pass binds it */
	int ret;
	bool exact;
	bool done;
};

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct slice *sl;
	unsigned int n, next, merged, ahead;
	bool stop;
	const struct vmt_reader *r;
	const struct vmt_iter_opts *o;
	const struct vmt_summary_opts *so;
};

/* The pairs that span slices, on their way to the merged summary. */
struct spanning {
	struct vmt_iter *it;
	struct vmt_summary *s;
	int error;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Cut at the chunks' first times, so that each slice starts about as many chunks, and
 * no fewer than least: the slices then hold about as many events when the CPUs are about
 * as busy.
 */
static unsigned int plan(const struct vmt_reader *r, unsigned int want, size_t least,
			 uint64_t **cuts)
{
	const struct vmt_source *src = vmt_reader_source(r);
	size_t n = vmt_source_nchunks(src), i, k = 0;
	uint64_t *ts = malloc((n ? n : 1) * sizeof(*ts));
	unsigned int j, nslices = 0;

	*cuts = NULL;
	if (!ts)
		return 0;
	for (i = 0; i < n; i++) {
		uint64_t t = vmt_source_chunk(src, i)->first_ts;

		if (t != UINT64_MAX)
			ts[k++] = t;
	}
	if (want > k / least)
		want = (unsigned int)(k / least);
	if (want < 2) {
		free(ts);
		return 0;
	}
	qsort(ts, k, sizeof(*ts), cmp_u64);
	*cuts = malloc((want + 1) * sizeof(**cuts));
	if (!*cuts) {
		free(ts);
		return 0;
	}
	(*cuts)[nslices++] = 0;
	for (j = 1; j < want; j++) {
		uint64_t t = ts[k * j / want];

		if (t > (*cuts)[nslices - 1])
			(*cuts)[nslices++] = t;
	}
	(*cuts)[nslices] = UINT64_MAX;
	free(ts);
	return nslices;
}

static int run_slice(const struct pool *p, struct slice *sl)
{
	struct vmt_iter_opts o = *p->o;
	struct vmt_pass_input in;
	struct vmt_consumer c;
	struct vmt_reader *r;
	struct vmt_pass *pass;
	int ret;

	ret = vmt_reader_slice(p->r, sl->from, sl->to, &r);
	if (ret)
		return ret;
	o.progress = NULL;
	o.attribute = false;
	o.edges = &sl->edges;
	if (o.filter) {
		sl->filter = *o.filter;
		o.filter = &sl->filter;
	}
	ret = vmt_summary_consumer(&sl->s, p->so, &c);
	if (!ret)
		ret = vmt_summary_slice(&sl->s);
	if (!ret) {
		vmt_pass_input_reader(&in, r);
		ret = vmt_pass_begin(&in, &o, &c, 1, &sl->it, &pass);
		if (!ret)
			ret = vmt_pass_reader(pass, r, NULL);
		if (pass) {
			int end = vmt_pass_end(pass);

			if (!ret)
				ret = end;
		}
	}
	sl->st = *vmt_reader_stats(r);
	sl->damage = *vmt_reader_damage(r);
	sl->exact = vmt_reader_slice_exact(r);
	sl->it.r = NULL;		/* closed below */
	vmt_reader_close(r);
	return ret;
}

static void *worker(void *arg)
{
	struct pool *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		unsigned int k;

		while (!p->stop && p->next < p->n && p->next >= p->merged + p->ahead)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->stop || p->next >= p->n)
			break;
		k = p->next++;
		pthread_mutex_unlock(&p->lock);
		p->sl[k].ret = run_slice(p, &p->sl[k]);
		pthread_mutex_lock(&p->lock);
		p->sl[k].done = true;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* A pair whose begin and end lie in different slices (vmt_pairing_join). */
static void on_spanning_pair(const struct vmt_pair *p, void *arg)
{
	struct spanning *sp = arg;

	if (!vmt_filter_exit(sp->it->filter, p->begin, p->end)) {
		sp->it->filtered_out++;
		return;
	}
	if (!sp->error)
		sp->error = vmt_summary_merge_pair(sp->s, sp->it, p);
}

/*
 * An exit the last slice left open that no later one entered: open at the stop, as the one
 * pass's open callback (iterate.h) gives it.
 */
static void on_open(const struct vmt_event *begin, bool lost_since, void *arg)
{
	struct spanning *sp = arg;
	struct vmt_open_exit x;

	if (sp->error || !vmt_iter_open_exit(sp->it, begin, lost_since, &x))
		return;
	sp->error = vmt_summary_add_open(sp->s, &x);
}

static void ids_merge(struct vmt_iter_ids *into, const struct vmt_iter_ids *from)
{
	size_t i;

	for (i = 0; i < VMT_ITER_IDS / 64; i++)
		into->bits[i] |= from->bits[i];
	into->beyond += from->beyond;
}

/* A slice's totals into the whole pass's (it->first_ts is UINT64_MAX until the end). */
static void merge_totals(struct vmt_iter *it, const struct vmt_iter *x)
{
	struct vmt_pairing_stats *p = &it->pairing;

	it->events += x->events;
	it->other_records += x->other_records;
	it->bad_records += x->bad_records;
	it->filtered_out += x->filtered_out;
	if (x->events && x->first_ts < it->first_ts)
		it->first_ts = x->first_ts;
	if (x->last_ts > it->last_ts)
		it->last_ts = x->last_ts;
	if (x->last_record_ts > it->last_record_ts)
		it->last_record_ts = x->last_record_ts;
	if (x->exits) {
		if (!it->exits)
			it->first_exit_ts = x->first_exit_ts;
		it->last_exit_ts = x->last_exit_ts;
	}
	it->exits += x->exits;
	ids_merge(&it->exit_cpus, &x->exit_cpus);
	ids_merge(&it->vcpus, &x->vcpus);
	p->pairs += x->pairing.pairs;
	p->orphan_begins += x->pairing.orphan_begins;
	p->orphan_ends += x->pairing.orphan_ends;
	p->gap_dropped += x->pairing.gap_dropped;
	p->unfinished += x->pairing.unfinished;
	p->backwards += x->pairing.backwards;
}

static void add_stats(struct vmt_reader_stats *into, const struct vmt_reader_stats *x)
{
	into->chunks += x->chunks;
	into->bad_chunks += x->bad_chunks;
	into->pages += x->pages;
	into->bad_pages += x->bad_pages;
	into->records += x->records;
	into->missed_pages += x->missed_pages;
	if (__builtin_add_overflow(into->missed_events, x->missed_events, &into->missed_events))
		into->missed_events = UINT64_MAX;	/* as the reader's own sum */
	into->missed_uncounted += x->missed_uncounted;
}

static void free_slice(struct slice *sl)
{
	vmt_summary_free(&sl->s);
	vmt_pairing_edges_free(&sl->edges);
}

/* One slice into the whole: 1, 0 when it is not exact, or an error. */
static int merge_slice(struct slice *sl, struct vmt_pairing *join, struct spanning *sp)
{
	if (sl->ret)
		return sl->ret;
	if (!sl->exact)
		return 0;
	/* the slice's counts, corrected by its edges, then the pairs that end in it */
	merge_totals(sp->it, &sl->it);
	if (vmt_pairing_join(join, &sl->edges, &sp->it->pairing))
		return -ENOMEM;
	if (sp->error)
		return sp->error;
	switch (vmt_summary_merge(sp->s, &sl->s, join)) {
	case 0:
		return 1;
	case 1:
		return 0;	/* as a slice that is not exact: one pass instead */
	default:
		return -ENOMEM;
	}
}

/*
 * Merge the slices in order as the workers finish them. Returns 1 when all merged, 0 when
 * one was not exact, or an error.
 */
static int merge_all(struct pool *p, struct vmt_reader *r, struct vmt_iter *it,
		     struct vmt_summary *m, const struct vmt_iter_opts *o)
{
	struct vmt_reader_stats st = { 0 };
	struct vmt_damage damage = { 0 };
	struct spanning sp = { it, m, 0 };
	struct vmt_pairing *join = vmt_pairing_new(on_spanning_pair, &sp);
	size_t chunks = vmt_source_nchunks(vmt_reader_source(r)), done = 0;
	unsigned int k;
	int ret = join ? 1 : -ENOMEM;

	for (k = 0; k < p->n && ret == 1; k++) {
		struct slice *sl = &p->sl[k];

		pthread_mutex_lock(&p->lock);
		while (!sl->done)
			pthread_cond_wait(&p->cond, &p->lock);
		pthread_mutex_unlock(&p->lock);
		/* every slice's pass binds the same context events: the views say what they hold */
		if (k == 0) {
			m->context_formats = it->context_formats = sl->it.context_formats;
			m->why_recorded = it->why_recorded = sl->it.why_recorded;
		}
		ret = merge_slice(sl, join, &sp);
		if (ret == 1) {
			add_stats(&st, &sl->st);
			if (sl->damage.why && !damage.why)
				damage = sl->damage;
			done += sl->st.chunks;
			if (o->progress)
				o->progress(done, chunks, o->progress_arg);
		}
		free_slice(sl);
		pthread_mutex_lock(&p->lock);
		p->merged = k + 1;
		if (ret != 1)
			p->stop = true;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
	/* the reader's statistics only when the slices stand for its walk */
	if (ret == 1) {
		const struct vmt_pairing_stats *x = vmt_pairing_stats(join);

		it->pairing.pairs += x->pairs;
		it->pairing.gap_dropped += x->gap_dropped;
		it->pairing.backwards += x->backwards;
		vmt_reader_add_stats(r, &st, &damage);
	}
	/*
	 * the exits still open after the last slice's join are the recording's (after the
	 * statistics: their lost_unplaced reads the walk's counts, as one pass's would)
	 */
	if (ret == 1) {
		vmt_pairing_each_unfinished(join, on_open, &sp);
		if (sp.error)
			ret = sp.error;
	}
	vmt_pairing_free(join, NULL, NULL);
	return ret;
}

/* What a pass over r without slices would start with. */
static void start_totals(struct vmt_iter *it, struct vmt_reader *r, const struct vmt_iter_opts *o)
{
	memset(it, 0, sizeof(*it));
	it->r = r;
	it->clock = vmt_reader_clock(r);
	it->start_ts = vmt_reader_start_ts(r);
	it->bind = vmt_reader_bind(r);
	it->begin_format = vmt_reader_begin_format(r);
	it->machine = vmt_reader_machine(r);
	it->first_ts = UINT64_MAX;
	if (o->filter && !vmt_filter_is_empty(o->filter)) {
		vmt_filter_bind(o->filter, it->clock, it->start_ts);
		it->filter = o->filter;
	}
}

/* The threads (at most nthreads) whose slice readers' chunks fit SLICE_PAGES. */
static unsigned int fit_threads(const struct vmt_reader *r, unsigned int nthreads)
{
	uint64_t held = vmt_reader_streams(r) * vmt_reader_largest_chunk(r);

	if (held && nthreads > SLICE_PAGES / held)
		nthreads = (unsigned int)(SLICE_PAGES / held);
	return nthreads;
}

static unsigned int slice_count(const struct vmt_slicepass_opts *po)
{
	return po->slices ? po->slices : 2 * po->threads;
}

int vmt_slicepass_summary(struct vmt_reader *r, const struct vmt_iter_opts *o,
			  const struct vmt_slicepass_opts *po, struct vmt_summary *s,
			  struct vmt_iter *it)
{
	static const struct vmt_iter_opts none;
	struct vmt_summary_opts so = *vmt_summary_options(s);
	struct pool p = { .r = r, .so = &so };
	unsigned int nctx, i, nthreads;
	struct vmt_summary m;
	struct vmt_iter mit;
	pthread_t *tid;
	uint64_t *cuts;
	int ret;

	if (!o)
		o = &none;
	p.o = o;
	vmt_reader_context_formats(r, &nctx);
	if (po->threads < 2 || (o->attribute && nctx) || !vmt_reader_sliceable(r))
		return 0;
	p.n = plan(r, slice_count(po),
		   MIN_CHUNKS_PER_SLICE * (po->slices ? 1 : (size_t)vmt_reader_streams(r)), &cuts);
	if (!p.n)
		return 0;
	/*
	 * Two slices a thread at least, unless the tests asked: with fewer the threads wait
	 * for the longest (3 slices on 2 threads, 16 CPUs, 4 M events: 0.37 s against 0.29 s
	 * in one pass).
	 */
	nthreads = po->slices ? p.n : p.n / 2;
	nthreads = fit_threads(r, po->threads < nthreads ? po->threads : nthreads);
	if (nthreads < 2) {
		free(cuts);
		return 0;
	}
	p.ahead = 2 * nthreads;
	p.sl = calloc(p.n, sizeof(*p.sl));
	tid = calloc(nthreads, sizeof(*tid));
	if (!p.sl || !tid) {
		free(p.sl);
		free(tid);
		free(cuts);
		return 0;	/* out of memory already: the one pass may still fit */
	}
	for (i = 0; i < p.n; i++) {
		p.sl[i].from = cuts[i];
		p.sl[i].to = cuts[i + 1];
	}
	free(cuts);
	start_totals(&mit, r, o);
	ret = vmt_summary_merger(&m, &so, &mit);
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	for (i = 0; i < nthreads && !ret; i++) {
		if (pthread_create(&tid[i], NULL, worker, &p))
			break;
	}
	/*
	 * Fewer threads than asked (a limit on threads or on memory for their stacks): those
	 * made do the work; none, and the caller's one pass does.
	 */
	nthreads = i;
	if (!ret && nthreads)
		ret = merge_all(&p, r, &mit, &m, o);
	pthread_mutex_lock(&p.lock);
	p.stop = true;
	pthread_cond_broadcast(&p.cond);
	pthread_mutex_unlock(&p.lock);
	for (i = 0; i < nthreads; i++)
		pthread_join(tid[i], NULL);
	/* the slices a stop left unmerged */
	for (i = p.merged; i < p.n; i++)
		free_slice(&p.sl[i]);
	pthread_mutex_destroy(&p.lock);
	pthread_cond_destroy(&p.cond);
	free(p.sl);
	free(tid);
	if (ret == 1) {
		if (mit.first_ts == UINT64_MAX)
			mit.first_ts = 0;
		ret = vmt_summary_merge_end(&m, &mit);
		if (!ret) {
			vmt_summary_free(s);
			*s = m;
			*it = mit;
			return (int)p.n;
		}
	}
	vmt_summary_free(&m);
	/*
	 * The slices hold more at once than one pass (a summary and a chunk per thread, the
	 * slices ahead): out of memory here, the caller's one pass may still fit.
	 */
	return ret == -ENOMEM ? 0 : ret;
}
