// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
#include <emmintrin.h>
#endif

#include "chunk.h"
#include "cpus.h"
#include "readahead.h"
#include "source.h"

enum { SLOT_IDLE, SLOT_BUSY, SLOT_DONE, SLOT_TAKEN, SLOT_RELEASED };

/* a decompressed chunk's pages */
struct pages {
	uint8_t *raw;
	size_t cap;
};

struct slot {
	int state;
	int err;
	const char *why;
	struct pages pg;
};

struct vmt_readahead {
	const struct vmt_source *s;
	size_t nchunks;
	/*
	 * What is read ahead, one slot each: the chunks, or with a window their parts, chunk
	 * idx's part k being unit base[idx] + k (unit_chunk[] the way back).
	 */
	uint64_t window;
	size_t nunits;
	size_t *base;
	uint32_t *unit_chunk;
	pthread_t thread[8];
	unsigned int nthreads;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t *order;
	size_t next;
	struct slot *slot;
	unsigned int inflight, max_inflight;
	bool stop;
	struct pages *pool;		/* spare page buffers, reused */
	unsigned int npool;
	/*
	 * A zstd context and a compressed buffer per decompressing thread, not per chunk
	 * held: on 64 CPUs, 64 fewer. The merge's own is take_scratch.
	 */
	struct vmt_chunkbuf take_scratch;
};

/* Called with the lock held: a recycled page buffer for a slot. */
static void slot_buf(struct vmt_readahead *pf, struct slot *s)
{
	if (pf->npool)
		s->pg = pf->pool[--pf->npool];
	else
		memset(&s->pg, 0, sizeof(s->pg));
}

/* How many parts chunk ci is read in (1: whole), and the pages of each. */
static uint32_t parts_of(const struct vmt_readahead *pf, const struct vmt_chunk_info *ci,
			 uint32_t *pages)
{
	*pages = vmt_chunk_window_pages(ci, pf->window);
	return *pages < ci->page_count ? (ci->page_count + *pages - 1) / *pages : 1;
}

/*
 * When the walk will want a unit: its chunk's first time, and for a part the time as far
 * into the chunk as the part is into its pages (a guess: the records are not read yet).
 * UINT64_MAX when the chunk's time is unknown.
 */
static uint64_t unit_time(const struct vmt_readahead *pf, size_t u)
{
	const struct vmt_chunk_info *ci = vmt_source_chunk(pf->s, pf->unit_chunk[u]);
	uint32_t pages, n = parts_of(pf, ci, &pages), k = (uint32_t)(u - pf->base[pf->unit_chunk[u]]);

	if (ci->first_ts == UINT64_MAX || n == 1 || ci->last_ts <= ci->first_ts)
		return ci->first_ts;
	return ci->first_ts + (ci->last_ts - ci->first_ts) / n * k;
}

/*
 * Read-ahead order, as the source says: by first timestamp; a source that does not state
 * its chunks' times (trace.dat) round-robin over the CPUs by seq (its CPUs' runs are alike
 * in time per chunk). A chunk's parts by their guessed times, in their order.
 */
static int by_order(const void *a, const void *b, void *arg)
{
	const struct vmt_readahead *pf = arg;
	size_t ua = *(const size_t *)a, ub = *(const size_t *)b;
	const struct vmt_chunk_info *x = vmt_source_chunk(pf->s, pf->unit_chunk[ua]);
	const struct vmt_chunk_info *y = vmt_source_chunk(pf->s, pf->unit_chunk[ub]);
	uint64_t tx, ty;

	if (vmt_source_order(pf->s) == VMT_ORDER_SEQ) {
		if (x->seq != y->seq)
			return x->seq < y->seq ? -1 : 1;
		tx = ua - pf->base[pf->unit_chunk[ua]];
		ty = ub - pf->base[pf->unit_chunk[ub]];
	} else {
		tx = unit_time(pf, ua);
		ty = unit_time(pf, ub);
	}
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return ua < ub ? -1 : 1;
}

/*
 * Before a recycled buffer takes a new chunk, its old one leaves every cache. The merge
 * read it on another core: writing over lines that core still holds costs a snoop per
 * line, and on 2 vCPUs that doubled zstd's time (0.86 s against 0.43 s for 20 M events).
 * Flushed first, the writes go to memory without asking the other core. Flushing here, on
 * the decompressing thread, rather than when the merge lets go keeps the work off the
 * merge, which is the busier thread: 20 M events, medians of 7, wall: report 0.71 s with
 * no flush, 0.54 s flushed by the merge, 0.50 s here; CSV 0.91, 0.81, 0.77 s.
 */
static void evict_buffer(const uint8_t *p, size_t n)
{
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
	size_t i;

	for (i = 0; i < n; i += 64)
		_mm_clflush(p + i);
#else
	(void)p;
	(void)n;
#endif
}

/* Read unit u (a chunk, or a part of one) into scratch->raw. */
static int read_unit(const struct vmt_readahead *pf, size_t u, struct vmt_chunkbuf *scratch,
		     const char **why)
{
	size_t idx = pf->unit_chunk[u];
	const struct vmt_chunk_info *ci = vmt_source_chunk(pf->s, idx);
	uint32_t pages, first, n;

	if (parts_of(pf, ci, &pages) == 1)
		return vmt_source_read_chunk(pf->s, idx, scratch, why);
	first = (uint32_t)(u - pf->base[idx]) * pages;
	n = ci->page_count - first < pages ? ci->page_count - first : pages;
	return vmt_source_read_chunk_part(pf->s, idx, (uint64_t)first * ci->page_size,
					  (uint64_t)n * ci->page_size, scratch, why);
}

/*
 * With the lock held and slot idx idle: decompress it without the lock, with the calling
 * thread's scratch (zstd context, compressed buffer), then mark it done.
 */
static void decompress_slot(struct vmt_readahead *pf, size_t idx, struct vmt_chunkbuf *scratch)
{
	struct slot *s = &pf->slot[idx];

	s->state = SLOT_BUSY;
	pf->inflight++;
	slot_buf(pf, s);
	pthread_mutex_unlock(&pf->lock);
	if (s->pg.raw)
		evict_buffer(s->pg.raw, s->pg.cap);
	scratch->raw = s->pg.raw;
	scratch->raw_cap = s->pg.cap;
	s->err = read_unit(pf, idx, scratch, &s->why);
	s->pg.raw = scratch->raw;
	s->pg.cap = scratch->raw_cap;
	scratch->raw = NULL;
	scratch->raw_cap = 0;
	pthread_mutex_lock(&pf->lock);
	s->state = SLOT_DONE;
	pthread_cond_broadcast(&pf->cond);
}

static void *worker_main(void *arg)
{
	struct vmt_readahead *pf = arg;
	struct vmt_chunkbuf scratch = { 0 };

	pthread_mutex_lock(&pf->lock);
	for (;;) {
		size_t idx;

		while (!pf->stop && (pf->next == pf->nunits || pf->inflight >= pf->max_inflight))
			pthread_cond_wait(&pf->cond, &pf->lock);
		if (pf->stop)
			break;
		idx = pf->order[pf->next++];
		if (pf->next + 1 < pf->nunits)
			vmt_source_advise(pf->s, pf->unit_chunk[pf->order[pf->next + 1]]);
		if (pf->slot[idx].state == SLOT_IDLE)	/* else the merge took it itself */
			decompress_slot(pf, idx, &scratch);
	}
	pthread_mutex_unlock(&pf->lock);
	vmt_chunkbuf_free(&scratch);
	return NULL;
}

void vmt_readahead_free(struct vmt_readahead *pf)
{
	size_t i;
	unsigned int t;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = true;
	pthread_cond_broadcast(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
	for (t = 0; t < pf->nthreads; t++)
		pthread_join(pf->thread[t], NULL);
	for (i = 0; i < pf->nunits; i++)
		free(pf->slot[i].pg.raw);
	for (i = 0; i < pf->npool; i++)
		free(pf->pool[i].raw);
	free(pf->pool);
	vmt_chunkbuf_free(&pf->take_scratch);
	pthread_mutex_destroy(&pf->lock);
	pthread_cond_destroy(&pf->cond);
	free(pf->slot);
	free(pf->order);
	free(pf->base);
	free(pf->unit_chunk);
	free(pf);
}

/*
 * The units: a slot per chunk, or per part. At most MAX_PARTS_PER_CHUNK parts a chunk on
 * average, or nothing is read ahead: the slots then cost no more than the chunk index
 * (windows of automatic size cut a chunk in 2 to 8 parts; only forced tiny windows cut
 * more). 0 or -ENOMEM / -E2BIG.
 */
#define MAX_PARTS_PER_CHUNK 16
static int make_units(struct vmt_readahead *pf)
{
	size_t i, u = 0;

	pf->base = malloc(pf->nchunks * sizeof(*pf->base));
	if (!pf->base)
		return -ENOMEM;
	for (i = 0; i < pf->nchunks; i++) {
		uint32_t pages;

		pf->base[i] = u;
		u += parts_of(pf, vmt_source_chunk(pf->s, i), &pages);
	}
	if (u > (size_t)MAX_PARTS_PER_CHUNK * pf->nchunks || u > UINT32_MAX)
		return -E2BIG;
	pf->nunits = u;
	pf->unit_chunk = malloc(u * sizeof(*pf->unit_chunk));
	pf->order = malloc(u * sizeof(*pf->order));
	pf->slot = calloc(u, sizeof(*pf->slot));
	if (!pf->unit_chunk || !pf->order || !pf->slot)
		return -ENOMEM;
	for (i = 0; i < pf->nchunks; i++) {
		size_t end = i + 1 < pf->nchunks ? pf->base[i + 1] : u, k;

		for (k = pf->base[i]; k < end; k++)
			pf->unit_chunk[k] = (uint32_t)i;
	}
	for (u = 0; u < pf->nunits; u++)
		pf->order[u] = u;
	qsort_r(pf->order, pf->nunits, sizeof(*pf->order), by_order, pf);
	return 0;
}

struct vmt_readahead *vmt_readahead_new(const struct vmt_source *s, unsigned int nstreams,
					uint64_t window)
{
	/* on one CPU a thread would only take turns with the merge (and flush its caches) */
	unsigned int cores = vmt_cpus_usable();
	size_t nchunks = vmt_source_nchunks(s);
	struct vmt_readahead *pf;
	size_t i;

	if (nchunks < 4 || cores < 2)
		return NULL;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return NULL;
	pf->s = s;
	pf->nchunks = nchunks;
	pf->window = window;
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->cond, NULL);
	if (make_units(pf)) {
		vmt_readahead_free(pf);
		return NULL;
	}
	pf->nthreads = cores - 1 > 8 ? 8 : cores - 1;
	/*
	 * Each stream holds one chunk (or window); the rest is read-ahead. Four ahead per
	 * thread (at most 16 in all): measured on 2 vCPUs, two ahead left the merge waiting
	 * whenever the host took the other vCPU away (0.78 s against 0.72 s for 20 M events);
	 * more gained nothing.
	 */
	pf->max_inflight = nstreams + (pf->nthreads * 4 < 16 ? pf->nthreads * 4 : 16);
	/* the merge may take chunks beyond the window itself: room for every stream too */
	pf->pool = calloc((size_t)pf->max_inflight + nstreams + 1, sizeof(*pf->pool));
	if (!pf->pool) {
		pf->nthreads = 0;
		vmt_readahead_free(pf);
		return NULL;
	}
	for (i = 0; i < pf->nthreads; i++) {
		if (pthread_create(&pf->thread[i], NULL, worker_main, pf)) {
			pf->nthreads = (unsigned int)i;
			break;
		}
	}
	if (!pf->nthreads) {
		vmt_readahead_free(pf);
		return NULL;
	}
	return pf;
}

int vmt_readahead_take(struct vmt_readahead *pf, size_t chunk, uint32_t part,
		       const uint8_t **raw, const char **why)
{
	size_t idx = pf->base[chunk] + part;
	struct slot *s = &pf->slot[idx];

	pthread_mutex_lock(&pf->lock);
	if (s->state == SLOT_IDLE) {
		decompress_slot(pf, idx, &pf->take_scratch);
	} else {
		while (s->state == SLOT_BUSY) {
			/*
			 * Rather than wait, decompress the next chunk in line: with fewer
			 * streams than cores, the merge is otherwise idle here.
			 */
			size_t next;

			if (pf->next == pf->nunits || pf->inflight >= pf->max_inflight) {
				pthread_cond_wait(&pf->cond, &pf->lock);
				continue;
			}
			next = pf->order[pf->next++];
			if (pf->slot[next].state == SLOT_IDLE)
				decompress_slot(pf, next, &pf->take_scratch);
		}
	}
	s->state = SLOT_TAKEN;
	pthread_mutex_unlock(&pf->lock);
	*raw = s->pg.raw;
	*why = s->why;
	return s->err;
}

/* With the lock held: slot s read (taken or not) is done with, its buffer pooled. */
static void slot_release(struct vmt_readahead *pf, struct slot *s)
{
	/* the pool never holds more than were in flight at once */
	pf->pool[pf->npool++] = s->pg;
	memset(&s->pg, 0, sizeof(s->pg));
	s->state = SLOT_RELEASED;
	pf->inflight--;
	pthread_cond_broadcast(&pf->cond);
}

void vmt_readahead_release(struct vmt_readahead *pf, size_t chunk, uint32_t part)
{
	pthread_mutex_lock(&pf->lock);
	slot_release(pf, &pf->slot[pf->base[chunk] + part]);
	pthread_mutex_unlock(&pf->lock);
}

void vmt_readahead_drop(struct vmt_readahead *pf, size_t chunk, uint32_t part)
{
	size_t end = chunk + 1 < pf->nchunks ? pf->base[chunk + 1] : pf->nunits, u;

	pthread_mutex_lock(&pf->lock);
	for (u = pf->base[chunk] + part; u < end; u++) {
		struct slot *s = &pf->slot[u];

		while (s->state == SLOT_BUSY)
			pthread_cond_wait(&pf->cond, &pf->lock);
		if (s->state == SLOT_DONE)
			slot_release(pf, s);
		else if (s->state == SLOT_IDLE)
			s->state = SLOT_RELEASED;	/* the workers pass it by */
	}
	pthread_mutex_unlock(&pf->lock);
}
