// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Batch k lives in place k % nbatches. Three counters under one lock say where each batch
 * is: the producer fills batch `filled`, workers take batches from `next_fmt` on, and the
 * writer writes from `next_write` on; a place is free again once its batch is written.
 * Writing is done by whoever finds the oldest batch formatted, one writer at a time,
 * outside the lock. When every place is taken the producer formats the oldest batch no
 * worker has started, and waits only when there is none.
 *
 * Sleeping and waking are dear (a futex call each way, and in a virtual machine an IPI):
 * with a worker woken for every batch, 20 k wake-ups cost 10-15 % more CPU than formatting
 * on one thread (perf stat, 10 M rows). So each side waits for half the ring: a sleeping
 * worker is woken when half the places hold batches to format, a waiting producer when
 * half are free again, and neither while the other keeps up.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "cpus.h"
#include "fmtpool.h"
#include "io.h"

#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
#include <emmintrin.h>
#endif

enum { B_FREE, B_READY, B_FORMATTING, B_DONE };

struct batch {
	void *recs;		/* VMT_FMTPOOL_BATCH records */
	char *text;		/* VMT_FMTPOOL_BATCH * row_max bytes */
	size_t n, len;
	int state;
};

struct vmt_fmtpool {
	int fd;
	size_t rec_size, row_max;
	vmt_fmtpool_fn fn;
	void *own;		/* the producer's context: it formats rather than wait */
	unsigned int nworkers, nbatches;
	struct batch *b;
	unsigned int wake;	/* batches that wake the other side: half the ring */
	pthread_t thread[VMT_FMTPOOL_MAX_WORKERS];
	struct start {
		struct vmt_fmtpool *p;
		void *wctx;
	} start[VMT_FMTPOOL_MAX_WORKERS];
	pthread_mutex_t lock;
	pthread_cond_t work;	/* workers: batches to format, or the end */
	pthread_cond_t room;	/* the producer: places freed */
	uint64_t filled, next_fmt, next_write;
	unsigned int idle;	/* workers asleep on work */
	bool waiting;		/* the producer asleep on room */
	bool writing, stop;
	int err;		/* the first write error, sticky */
};

unsigned int vmt_fmtpool_auto_workers(void)
{
	unsigned int cpus;

	cpus = vmt_cpus_usable();
	if (cpus < 2)
		return 0;
	return (unsigned int)cpus / 2 > VMT_FMTPOOL_MAX_WORKERS ? VMT_FMTPOOL_MAX_WORKERS :
								   (unsigned int)cpus / 2;
}

/* Write the formatted batches from the oldest on; called and returns with the lock held. */
static void write_ready(struct vmt_fmtpool *p)
{
	if (p->writing)
		return;			/* the writer at work will find this batch too */
	p->writing = true;
	while (p->next_write < p->next_fmt) {
		struct batch *b = &p->b[p->next_write % p->nbatches];
		int ret = 0;

		if (b->state != B_DONE)
			break;
		pthread_mutex_unlock(&p->lock);
		if (!p->err)		/* only the writer sets it */
			ret = vmt_io_write_full(p->fd, b->text, b->len);
		pthread_mutex_lock(&p->lock);
		if (ret && !p->err)
			p->err = ret;
		b->state = B_FREE;
		p->next_write++;
		if (p->waiting && p->nbatches - (p->filled - p->next_write) >= p->wake)
			pthread_cond_signal(&p->room);
	}
	p->writing = false;
}

/*
 * Push a formatted batch's records out of this core's caches: the producer writes the next
 * records there, and every line it finds in another core's cache costs it a snoop (perf: the
 * producer's record stores stalled on them, the pool's largest cost, as readahead.c found
 * for its chunk buffers).
 */
static void evict(const void *p, size_t n)
{
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
	size_t i;

	for (i = 0; i < n; i += 64)
		_mm_clflush((const char *)p + i);
#else
	(void)p;
	(void)n;
#endif
}

static void *worker_main(void *arg)
{
	struct vmt_fmtpool *p = ((struct start *)arg)->p;
	void *wctx = ((struct start *)arg)->wctx;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct batch *b;

		while (p->next_fmt == p->filled && !p->stop) {
			p->idle++;
			pthread_cond_wait(&p->work, &p->lock);
			p->idle--;
		}
		if (p->next_fmt == p->filled)
			break;		/* stopped, and nothing left */
		b = &p->b[p->next_fmt++ % p->nbatches];
		b->state = B_FORMATTING;
		pthread_mutex_unlock(&p->lock);
		b->len = p->fn(wctx, b->recs, b->n, b->text);
		evict(b->recs, b->n * p->rec_size);
		pthread_mutex_lock(&p->lock);
		b->state = B_DONE;
		write_ready(p);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void free_batches(struct vmt_fmtpool *p)
{
	unsigned int i;

	for (i = 0; p->b && i < p->nbatches; i++) {
		free(p->b[i].recs);
		free(p->b[i].text);
	}
	free(p->b);
}

int vmt_fmtpool_new(int fd, size_t rec_size, size_t row_max, unsigned int nworkers,
		    vmt_fmtpool_fn fn, void *const *wctx, struct vmt_fmtpool **out)
{
	struct vmt_fmtpool *p;
	unsigned int i;
	int ret = -ENOMEM;

	if (!nworkers || nworkers > VMT_FMTPOOL_MAX_WORKERS)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->fd = fd;
	p->rec_size = rec_size;
	p->row_max = row_max;
	p->fn = fn;
	p->own = wctx[nworkers];
	/*
	 * Batches being filled and waiting, one being formatted per worker, and as many again
	 * for the half-ring wake-ups.
	 */
	p->nbatches = 2 * nworkers + 6;
	p->wake = p->nbatches / 2;
	p->b = calloc(p->nbatches, sizeof(*p->b));
	if (!p->b)
		goto out_free;
	for (i = 0; i < p->nbatches; i++) {
		p->b[i].recs = malloc(VMT_FMTPOOL_BATCH * rec_size);
		p->b[i].text = malloc(VMT_FMTPOOL_BATCH * row_max);
		if (!p->b[i].recs || !p->b[i].text)
			goto out_free;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->room, NULL);
	for (i = 0; i < nworkers; i++) {
		p->start[i].p = p;
		p->start[i].wctx = wctx[i];
		ret = -pthread_create(&p->thread[i], NULL, worker_main, &p->start[i]);
		if (ret)
			break;
		p->nworkers++;
	}
	if (!p->nworkers) {
		pthread_cond_destroy(&p->room);
		pthread_cond_destroy(&p->work);
		pthread_mutex_destroy(&p->lock);
		goto out_free;
	}
	*out = p;
	return 0;
out_free:
	free_batches(p);
	free(p);
	return ret;
}

void *vmt_fmtpool_records(struct vmt_fmtpool *p)
{
	return p->b[0].recs;
}

/* Hand the batch being filled over (with the lock held). */
static void hand_over(struct vmt_fmtpool *p, size_t n)
{
	struct batch *b = &p->b[p->filled % p->nbatches];

	b->n = n;
	b->state = B_READY;
	p->filled++;
	if (p->idle && p->filled - p->next_fmt >= p->wake)
		pthread_cond_broadcast(&p->work);
}

int vmt_fmtpool_submit(struct vmt_fmtpool *p, size_t n, void **next)
{
	int err;

	pthread_mutex_lock(&p->lock);
	hand_over(p, n);
	/* the next place is free once the batch nbatches before it is written */
	while (p->filled - p->next_write >= p->nbatches) {
		/*
		 * The workers are behind (descheduled, or fewer cores than threads): format
		 * the oldest batch no worker has started here instead of sleeping, so no CPU
		 * idles while there is work.
		 */
		if (p->next_fmt < p->filled) {
			struct batch *b = &p->b[p->next_fmt++ % p->nbatches];

			b->state = B_FORMATTING;
			pthread_mutex_unlock(&p->lock);
			b->len = p->fn(p->own, b->recs, b->n, b->text);
			pthread_mutex_lock(&p->lock);
			b->state = B_DONE;
			write_ready(p);
			continue;
		}
		/* every place taken: wake the sleepers whatever they have (never both asleep) */
		if (p->idle)
			pthread_cond_broadcast(&p->work);
		p->waiting = true;
		pthread_cond_wait(&p->room, &p->lock);
		p->waiting = false;
	}
	err = p->err;
	pthread_mutex_unlock(&p->lock);
	*next = p->b[p->filled % p->nbatches].recs;
	return err;
}

int vmt_fmtpool_finish(struct vmt_fmtpool *p, size_t n)
{
	unsigned int i;
	int err;

	if (!p)
		return 0;
	pthread_mutex_lock(&p->lock);
	if (n)
		hand_over(p, n);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nworkers; i++)
		pthread_join(p->thread[i], NULL);
	/* every batch was formatted; the last worker out wrote what the others left */
	pthread_mutex_lock(&p->lock);
	write_ready(p);
	err = p->err;
	pthread_mutex_unlock(&p->lock);
	pthread_cond_destroy(&p->room);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->lock);
	free_batches(p);
	free(p);
	return err;
}
