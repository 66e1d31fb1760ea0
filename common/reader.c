// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
#include <emmintrin.h>
#endif

#include "legacy.h"
#include "tracedat.h"
#include "reader.h"
#include "tracefs.h"

/*
 * Decompression ahead of the merge, on the other cores. Chunks are started in the order
 * the merge will want them (by first timestamp), at most max_inflight at a time; the
 * merging thread decompresses a chunk itself when no worker has started it, so no
 * order of requests can wait forever.
 */
enum { SLOT_IDLE, SLOT_BUSY, SLOT_DONE, SLOT_TAKEN, SLOT_RELEASED };

struct slot {
	int state;
	int err;
	const char *why;
	struct vmt_chunkbuf cb;
};

struct prefetch {
	const struct vmt_container *c;
	pthread_t thread[8];
	unsigned int nthreads;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t *order;
	size_t next;
	struct slot *slot;
	unsigned int inflight, max_inflight;
	bool stop;
	struct vmt_chunkbuf *pool;	/* spare buffers and zstd contexts, reused */
	unsigned int npool;
};

/* Called with the lock held: a recycled buffer (with its zstd context) for a slot. */
static void slot_buf(struct prefetch *pf, struct slot *s)
{
	if (pf->npool)
		s->cb = pf->pool[--pf->npool];
	else
		memset(&s->cb, 0, sizeof(s->cb));
}

/*
 * Read-ahead order: by first timestamp; a trace.dat does not state its chunks' times, so
 * there round-robin over the CPUs (its CPUs' runs are alike in time per chunk).
 */
static int by_first_ts(const void *a, const void *b, void *arg)
{
	const struct vmt_container *c = arg;
	const struct vmt_chunk_info *x = &c->chunks[*(const size_t *)a];
	const struct vmt_chunk_info *y = &c->chunks[*(const size_t *)b];

	if (c->tracedat && x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (!c->tracedat && x->first_ts != y->first_ts)
		return x->first_ts < y->first_ts ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/*
 * Ask the kernel to read a chunk the walk will want soon: decompression then rarely waits
 * for the disk (the default read-ahead window is far smaller than a chunk).
 */
static void advise_chunk(const struct vmt_container *c, size_t idx)
{
	const struct vmt_chunk_info *ci;

	if (idx >= c->nchunks)
		return;
	ci = &c->chunks[idx];
	posix_fadvise(c->fd, (off_t)ci->offset, (off_t)(ci->header_size + ci->payload_size),
		      POSIX_FADV_WILLNEED);
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

/* With the lock held and slot idx idle: decompress it without the lock, then mark it done. */
static void decompress_slot(struct prefetch *pf, size_t idx)
{
	struct slot *s = &pf->slot[idx];

	s->state = SLOT_BUSY;
	pf->inflight++;
	slot_buf(pf, s);
	pthread_mutex_unlock(&pf->lock);
	if (s->cb.raw)
		evict_buffer(s->cb.raw, s->cb.raw_cap);
	s->err = vmt_container_read_chunk(pf->c, idx, &s->cb, &s->why);
	pthread_mutex_lock(&pf->lock);
	s->state = SLOT_DONE;
	pthread_cond_broadcast(&pf->cond);
}

static void *prefetch_main(void *arg)
{
	struct prefetch *pf = arg;

	pthread_mutex_lock(&pf->lock);
	for (;;) {
		size_t idx;

		while (!pf->stop && (pf->next == pf->c->nchunks || pf->inflight >= pf->max_inflight))
			pthread_cond_wait(&pf->cond, &pf->lock);
		if (pf->stop)
			break;
		idx = pf->order[pf->next++];
		if (pf->next + 1 < pf->c->nchunks)
			advise_chunk(pf->c, pf->order[pf->next + 1]);
		if (pf->slot[idx].state == SLOT_IDLE)	/* else the merge took it itself */
			decompress_slot(pf, idx);
	}
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

static void prefetch_free(struct prefetch *pf)
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
	for (i = 0; i < pf->c->nchunks; i++)
		vmt_chunkbuf_free(&pf->slot[i].cb);
	for (i = 0; i < pf->npool; i++)
		vmt_chunkbuf_free(&pf->pool[i]);
	free(pf->pool);
	pthread_mutex_destroy(&pf->lock);
	pthread_cond_destroy(&pf->cond);
	free(pf->slot);
	free(pf->order);
	free(pf);
}

/* Start workers when there is something to gain: several chunks and a spare core. */
static struct prefetch *prefetch_new(const struct vmt_container *c, unsigned int nstreams)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	struct prefetch *pf;
	size_t i;

	if (c->nchunks < 4 || cores < 2 || getenv("VMTRACE_NO_THREADS"))
		return NULL;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return NULL;
	pf->c = c;
	pf->order = malloc(c->nchunks * sizeof(*pf->order));
	pf->slot = calloc(c->nchunks, sizeof(*pf->slot));
	if (!pf->order || !pf->slot) {
		free(pf->order);
		free(pf->slot);
		free(pf);
		return NULL;
	}
	for (i = 0; i < c->nchunks; i++)
		pf->order[i] = i;
	qsort_r(pf->order, c->nchunks, sizeof(*pf->order), by_first_ts, (void *)c);
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->cond, NULL);
	pf->nthreads = cores - 1 > 8 ? 8 : (unsigned int)(cores - 1);
	/*
	 * Each stream holds one chunk; the rest is read-ahead. Four chunks ahead per thread (at most 16 in all): measured on 2 vCPUs, two ahead
	 * left the merge waiting whenever the host took the other vCPU away (0.78 s against
	 * 0.72 s for 20 M events); more gained nothing.
	 */
	pf->max_inflight = nstreams + (pf->nthreads * 4 < 16 ? pf->nthreads * 4 : 16);
	/* the merge may take chunks beyond the window itself: room for every stream too */
	pf->pool = calloc((size_t)pf->max_inflight + nstreams + 1, sizeof(*pf->pool));
	if (!pf->pool) {
		pf->nthreads = 0;
		prefetch_free(pf);
		return NULL;
	}
	for (i = 0; i < pf->nthreads; i++) {
		if (pthread_create(&pf->thread[i], NULL, prefetch_main, pf)) {
			pf->nthreads = (unsigned int)i;
			break;
		}
	}
	if (!pf->nthreads) {
		prefetch_free(pf);
		return NULL;
	}
	return pf;
}

/* The merge wants chunk idx: wait for a worker, or decompress it here. */
static struct slot *prefetch_take(struct prefetch *pf, size_t idx)
{
	struct slot *s = &pf->slot[idx];

	pthread_mutex_lock(&pf->lock);
	if (s->state == SLOT_IDLE) {
		decompress_slot(pf, idx);
	} else {
		while (s->state == SLOT_BUSY) {
			/*
			 * Rather than wait, decompress the next chunk in line: with fewer
			 * streams than cores, the merge is otherwise idle here.
			 */
			size_t next;

			if (pf->next == pf->c->nchunks || pf->inflight >= pf->max_inflight) {
				pthread_cond_wait(&pf->cond, &pf->lock);
				continue;
			}
			next = pf->order[pf->next++];
			if (pf->slot[next].state == SLOT_IDLE)
				decompress_slot(pf, next);
		}
	}
	s->state = SLOT_TAKEN;
	pthread_mutex_unlock(&pf->lock);
	return s;
}

static void prefetch_release(struct prefetch *pf, size_t idx)
{
	struct slot *s = &pf->slot[idx];

	pthread_mutex_lock(&pf->lock);
	/* the pool never holds more than were in flight at once */
	pf->pool[pf->npool++] = s->cb;
	memset(&s->cb, 0, sizeof(s->cb));
	s->state = SLOT_RELEASED;
	pf->inflight--;
	pthread_cond_broadcast(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
}

struct stream {
	uint32_t cpu;
	size_t *chunk;		/* indexes into c->chunks, in file order */
	size_t nchunk, next_chunk;
	size_t held;		/* the prefetched chunk in use, or SIZE_MAX */
	struct vmt_chunkbuf cb;
	const uint8_t *pages;
	uint32_t page_size, npages, next_page;
	bool in_page;
	struct vmt_rbpage pg;
	bool done;
	struct vmt_item head;	/* the next item of this stream */
};

bool vmt_clock_is_ns(const char *clock)
{
	static const char *const ns[] = { "local", "global", "perf", "mono", "mono_raw", "boot",
					  "tai", NULL };
	const char *const *p;

	for (p = ns; *p; p++) {
		if (strcmp(clock, *p) == 0)
			return true;
	}
	return false;
}

char *vmt_reader_meta(const struct vmt_reader *r, const char *key)
{
	char *s = vmt_kv_get_str(r->c->meta, r->c->meta_len, key);

	if (!s && r->c->end)
		s = vmt_kv_get_str(r->c->end, r->c->end_len, key);
	return s;
}

static int parse_format(struct vmt_reader *r, const char *name_key, const char *fmt_key,
			char **name, struct vmt_evformat **fmt)
{
	const uint8_t *text;
	uint32_t len;
	char *colon;

	*name = vmt_reader_meta(r, name_key);
	text = vmt_kv_get(r->c->meta, r->c->meta_len, fmt_key, &len);
	if (!*name || !text)
		return -EBADMSG;
	colon = strchr(*name, ':');
	if (vmt_evformat_parse((const char *)text, len, NULL, fmt, NULL))
		return -EBADMSG;
	if (colon) {
		(*fmt)->system = strndup(*name, (size_t)(colon - *name));
		if (!(*fmt)->system)
			return -ENOMEM;
	}
	return 0;
}

static int setup_streams(struct vmt_reader *r)
{
	size_t i;

	for (i = 0; i < r->c->nchunks; i++) {
		const struct vmt_chunk_info *ci = &r->c->chunks[i];
		struct stream *s = NULL;
		uint32_t j;

		for (j = 0; j < r->nstreams; j++) {
			if (r->streams[j].cpu == ci->cpu) {
				s = &r->streams[j];
				break;
			}
		}
		if (!s) {
			struct stream *bigger = realloc(r->streams,
							(r->nstreams + 1) * sizeof(*bigger));

			if (!bigger)
				return -ENOMEM;
			r->streams = bigger;
			s = &r->streams[r->nstreams++];
			memset(s, 0, sizeof(*s));
			s->cpu = ci->cpu;
			s->head.cpu = ci->cpu;
			s->held = SIZE_MAX;
		}
		if ((s->nchunk & (s->nchunk - 1)) == 0) {
			size_t *bigger = realloc(s->chunk, (s->nchunk ? s->nchunk * 2 : 1) *
							   sizeof(*bigger));

			if (!bigger)
				return -ENOMEM;
			s->chunk = bigger;
		}
		s->chunk[s->nchunk++] = i;
	}
	r->heap = calloc(r->nstreams ? r->nstreams : 1, sizeof(*r->heap));
	return r->heap ? 0 : -ENOMEM;
}

int vmt_reader_open(const char *path, struct vmt_reader **out, const char **why)
{
	return vmt_reader_open_ex(path, NULL, out, why);
}

int vmt_reader_open_ex(const char *path, const struct vmt_input_opts *opts,
		       struct vmt_reader **out, const char **why)
{
	static const struct vmt_input_opts none;
	struct vmt_reader *r;
	const uint8_t *hp;
	const char *dummy;
	char *s;
	uint32_t len;
	int ret;

	if (!why)
		why = &dummy;
	*why = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->path = path;
	if (!opts)
		opts = &none;
	ret = vmt_container_open(path, &r->c, why);
	if (ret)
		goto out_free;
	if (r->c->legacy) {
		struct vmt_kvbuf kb;

		vmt_kv_init(&kb);
		ret = vmt_legacy_meta(r->c, opts->format_dir, &kb, r->source, sizeof(r->source),
				      why);
		if (ret) {
			vmt_kv_free(&kb);
			goto out_free;
		}
		free(r->c->meta);
		r->c->meta = kb.buf;
		r->c->meta_len = kb.len;
	} else if (r->c->tracedat) {
		/* the file's own metadata, plus the pair's formats */
		struct vmt_kvbuf kb = { r->c->meta, r->c->meta_len, r->c->meta_len, 0 };

		ret = vmt_tracedat_meta(r->c, opts->pair, &kb, r->source, sizeof(r->source), why);
		r->c->meta = kb.buf;
		r->c->meta_len = kb.len;
		if (ret)
			goto out_free;
	}
	ret = -EBADMSG;
	s = vmt_reader_meta(r, VMT_META_ENDIAN);
	if (s && strcmp(s, "little") != 0) {
		free(s);
		*why = "recorded on a big-endian host (not supported)";
		goto out_free;
	}
	free(s);
	hp = vmt_kv_get(r->c->meta, r->c->meta_len, VMT_META_HEADER_PAGE, &len);
	if (!hp || vmt_header_page_parse((const char *)hp, len, &r->hp)) {
		*why = "missing or invalid header_page in the metadata";
		goto out_free;
	}
	if (parse_format(r, VMT_META_EVENT_BEGIN, VMT_META_FORMAT_BEGIN, &r->begin_name,
			 &r->fbegin) ||
	    parse_format(r, VMT_META_EVENT_END, VMT_META_FORMAT_END, &r->end_name, &r->fend)) {
		*why = "missing or invalid event format in the metadata";
		goto out_free;
	}
	if (vmt_evbind_init(&r->bind, r->fbegin, r->fend)) {
		*why = "the event formats lack common_type/common_pid or share an id";
		goto out_free;
	}
	r->clock = vmt_reader_meta(r, VMT_META_CLOCK);
	if (!r->clock)
		r->clock = strdup("local");
	if (!r->clock) {
		ret = -ENOMEM;
		goto out_free;
	}
	r->ns_per_tick = vmt_clock_is_ns(r->clock) ? 1.0 : 0;
	s = vmt_reader_meta(r, VMT_META_NS_PER_TICK);
	if (s && r->ns_per_tick == 0) {
		char *end;
		double v = strtod(s, &end);

		if (*end == '\0' && v > 0 && v < 1e9)
			r->ns_per_tick = v;
	}
	free(s);
	s = vmt_reader_meta(r, VMT_META_TSC2NSEC);
	if (s && r->ns_per_tick != 1.0) {
		unsigned int mult, shift;

		if (sscanf(s, "%u %u", &mult, &shift) == 2 && mult && shift <= 32) {
			r->tsc_mult = mult;
			r->tsc_shift = shift;
			r->ns_per_tick = (double)mult / (double)(1ull << shift);
		}
	}
	free(s);
	s = vmt_reader_meta(r, VMT_META_CPUS);
	if (s && vmt_cli_parse_cpulist(s, &r->cpus)) {
		free(s);
		*why = "invalid traced CPU list in the metadata";
		goto out_free;
	}
	free(s);
	ret = setup_streams(r);
	if (ret)
		goto out_free;
	*out = r;
	return 0;

out_free:
	vmt_reader_close(r);
	return ret;
}

void vmt_reader_close(struct vmt_reader *r)
{
	uint32_t i;

	if (!r)
		return;
	prefetch_free(r->prefetch);
	for (i = 0; i < r->nstreams; i++) {
		vmt_chunkbuf_free(&r->streams[i].cb);
		free(r->streams[i].chunk);
	}
	free(r->streams);
	free(r->heap);
	vmt_evformat_free(r->fbegin);
	vmt_evformat_free(r->fend);
	free(r->begin_name);
	free(r->end_name);
	free(r->clock);
	vmt_cpulist_free(&r->cpus);
	vmt_container_close(r->c);
	free(r);
}

/* Load the stream's next item into s->head; s->done when nothing is left. */
static void stream_advance(struct vmt_reader *r, struct stream *s)
{
	for (;;) {
		if (s->in_page) {
			int ret = vmt_rbpage_next(&s->pg, &s->head.rec);

			if (ret == 1) {
				r->st.records++;
				s->head.kind = VMT_ITEM_RECORD;
				s->head.ts = s->head.rec.ts;
				return;
			}
			if (ret < 0) {
				r->st.bad_pages++;
				r->last_error = "record header points outside its page";
			}
			s->in_page = false;
		}
		if (s->next_page < s->npages) {
			const uint8_t *page = s->pages + (size_t)s->next_page * s->page_size;

			s->next_page++;
			r->st.pages++;
			if (vmt_rbpage_init(&s->pg, &r->hp, page, s->page_size)) {
				r->st.bad_pages++;
				r->last_error = "page commit beyond the page size";
				continue;
			}
			s->in_page = true;
			if (s->pg.missed) {
				r->st.missed_pages++;
				r->st.missed_events += s->pg.missed_count;
				s->head.kind = VMT_ITEM_GAP;
				s->head.ts = s->pg.page_ts;
				s->head.missed = s->pg.missed_count;
				return;
			}
			continue;
		}
		if (s->next_chunk < s->nchunk) {
			size_t idx = s->chunk[s->next_chunk++];
			const char *why = NULL;
			const uint8_t *raw;
			int err;

			r->st.chunks++;
			if (r->prefetch) {
				struct slot *sl;

				if (s->held != SIZE_MAX)
					prefetch_release(r->prefetch, s->held);
				sl = prefetch_take(r->prefetch, idx);
				s->held = idx;
				err = sl->err;
				why = sl->why;
				raw = sl->cb.raw;
			} else {
				if (s->next_chunk < s->nchunk)
					advise_chunk(r->c, s->chunk[s->next_chunk]);
				err = vmt_container_read_chunk(r->c, idx, &s->cb, &why);
				raw = s->cb.raw;
			}
			if (err) {
				r->st.bad_chunks++;
				r->last_error = why;
				continue;
			}
			s->pages = raw;
			s->page_size = r->c->chunks[idx].page_size;
			s->npages = r->c->chunks[idx].page_count;
			s->next_page = 0;
			continue;
		}
		s->done = true;
		return;
	}
}

static bool before(const struct stream *a, const struct stream *b)
{
	if (a->head.ts != b->head.ts)
		return a->head.ts < b->head.ts;
	/* Equal times: a gap first (it happened before the page's records), then by CPU. */
	if (a->head.kind != b->head.kind)
		return a->head.kind == VMT_ITEM_GAP;
	return a->cpu < b->cpu;
}

static void sift_down(struct vmt_reader *r, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, m = i;
		struct stream *tmp;

		if (l < r->nheap && before(r->heap[l], r->heap[m]))
			m = l;
		if (l + 1 < r->nheap && before(r->heap[l + 1], r->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		tmp = r->heap[i];
		r->heap[i] = r->heap[m];
		r->heap[m] = tmp;
		i = m;
	}
}

const struct vmt_item *vmt_reader_next_item(struct vmt_reader *r)
{
	struct stream *s;

	if (!r->started) {
		uint32_t i;

		r->started = true;
		r->prefetch = prefetch_new(r->c, r->nstreams);
		for (i = 0; i < r->nstreams; i++) {
			stream_advance(r, &r->streams[i]);
			if (!r->streams[i].done)
				r->heap[r->nheap++] = &r->streams[i];
		}
		for (i = r->nheap / 2; i-- > 0;)
			sift_down(r, i);
	} else if (r->nheap) {
		/*
		 * Advance the stream returned last only now: the record handed out then
		 * points into its chunk buffer, which advancing may replace.
		 */
		s = r->heap[0];
		stream_advance(r, s);
		if (s->done)
			r->heap[0] = r->heap[--r->nheap];
		if (r->nheap > 1)
			sift_down(r, 0);
	}
	if (!r->nheap)
		return NULL;
	/*
	 * A pointer to the stream's own item: copying it here, right after the page decoder
	 * wrote it field by field, stalled on store forwarding at every record.
	 */
	return &r->heap[0]->head;
}

int vmt_reader_next(struct vmt_reader *r, struct vmt_item *item)
{
	const struct vmt_item *it = vmt_reader_next_item(r);

	if (!it)
		return 0;
	*item = *it;
	return 1;
}

int vmt_reader_cpu_next(struct vmt_reader *r, uint32_t cpu, struct vmt_item *item)
{
	uint32_t i;

	for (i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];

		if (s->cpu != cpu)
			continue;
		/* Lazily, as above: head.kind is 0 before the first item. */
		if (!s->done)
			stream_advance(r, s);
		if (s->done)
			return 0;
		*item = s->head;
		item->cpu = cpu;
		return 1;
	}
	return 0;
}

uint64_t vmt_reader_stats_lost(const struct vmt_reader *r, bool *known)
{
	uint64_t lost = 0;
	unsigned int i;

	*known = r->cpus.n > 0;
	for (i = 0; i < r->cpus.n; i++) {
		struct vmt_cpustats a = { 0 }, b;
		char key[64], *text;

		snprintf(key, sizeof(key), "stats.end.cpu%u", r->cpus.cpu[i]);
		text = vmt_reader_meta(r, key);
		if (!text || vmt_tracefs_parse_stats(text, &b)) {
			free(text);
			*known = false;
			continue;
		}
		free(text);
		snprintf(key, sizeof(key), "stats.start.cpu%u", r->cpus.cpu[i]);
		text = vmt_reader_meta(r, key);
		if (text)
			vmt_tracefs_parse_stats(text, &a);
		free(text);
		lost += vmt_cpustats_lost(&b) - vmt_cpustats_lost(&a);
	}
	return lost;
}

uint64_t vmt_reader_duration_ns(const struct vmt_reader *r)
{
	uint64_t t0 = 0, t1 = 0;

	if (vmt_kv_get_u64(r->c->meta, r->c->meta_len, "monotonic.start_ns", &t0) || !r->c->end ||
	    vmt_kv_get_u64(r->c->end, r->c->end_len, "monotonic.end_ns", &t1) || t1 < t0)
		return 0;
	return t1 - t0;
}

uint64_t vmt_reader_start_ts(const struct vmt_reader *r)
{
	uint64_t start = UINT64_MAX;
	size_t i;

	for (i = 0; i < r->c->nchunks; i++) {
		if (r->c->chunks[i].first_ts < start)
			start = r->c->chunks[i].first_ts;
	}
	return start == UINT64_MAX ? 0 : start;
}
