// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "chunkq.h"
#include "sysinfo.h"

#define POOL_CAP 64	/* spare chunks kept; more are freed */

struct rec_chunkq {
	struct rec_chunkq_config cfg;
	pthread_t thread;
	bool started;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct rec_chunk *head, *tail;
	struct rec_chunk *pool[POOL_CAP];
	unsigned int npool;
	size_t queued_bytes;
	size_t lent_bytes;	/* rec_chunkq_lend() */
	bool closed;
	bool unblocked;
	bool writing;		/* the writer thread holds a chunk */
	int error;
	uint64_t written, written_pages;
};

int rec_chunkq_new(const struct rec_chunkq_config *cfg, struct rec_chunkq **out)
{
	struct rec_chunkq *q;

	*out = NULL;
	if (!cfg->page_size || !cfg->chunk_pages)
		return -EINVAL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->cfg = *cfg;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	*out = q;
	return 0;
}

static void chunk_free(struct rec_chunk *c)
{
	if (c) {
		free(c->buf);
		free(c);
	}
}

/* Called with the lock held. */
static void recycle_locked(struct rec_chunkq *q, struct rec_chunk *c)
{
	if (q->npool < POOL_CAP)
		q->pool[q->npool++] = c;
	else
		chunk_free(c);
}

static struct rec_chunk *sink_get(void *arg)
{
	struct rec_chunkq *q = arg;
	struct rec_chunk *c = NULL;

	pthread_mutex_lock(&q->lock);
	if (q->npool)
		c = q->pool[--q->npool];
	pthread_mutex_unlock(&q->lock);
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		c->cap_pages = q->cfg.chunk_pages;
		c->buf = malloc((size_t)c->cap_pages * q->cfg.page_size);
		if (!c->buf) {
			free(c);
			return NULL;
		}
	}
	c->next = NULL;
	c->npages = 0;
	memset(&c->info, 0, sizeof(c->info));
	return c;
}

static int sink_put(void *arg, struct rec_chunk *c)
{
	struct rec_chunkq *q = arg;
	int ret = 0;

	c->next = NULL;
	pthread_mutex_lock(&q->lock);
	/*
	 * Waiting here lets the kernel overwrite and count what we cannot take; dropping a
	 * chunk ourselves would leave a gap that no page flag marks.
	 */
	while (q->queued_bytes > q->cfg.max_queued_bytes + q->lent_bytes && !q->error &&
	       !q->unblocked && !q->closed)
		pthread_cond_wait(&q->cond, &q->lock);
	if (q->closed) {
		ret = -EPIPE;
		recycle_locked(q, c);
	} else if (q->error) {
		recycle_locked(q, c);	/* nothing more reaches the file; the error is known */
	} else {
		if (q->tail)
			q->tail->next = c;
		else
			q->head = c;
		q->tail = c;
		q->queued_bytes += (size_t)c->npages * q->cfg.page_size;
		pthread_cond_broadcast(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
	return ret;
}

void rec_chunkq_recycle(struct rec_chunkq *q, struct rec_chunk *c)
{
	pthread_mutex_lock(&q->lock);
	recycle_locked(q, c);
	pthread_mutex_unlock(&q->lock);
}

void rec_chunkq_lend(struct rec_chunkq *q, size_t bytes)
{
	pthread_mutex_lock(&q->lock);
	q->lent_bytes = bytes;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void rec_chunkq_close(struct rec_chunkq *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

static void sink_close(void *arg)
{
	rec_chunkq_close(arg);
}

static const struct rec_sink_ops chunkq_sink_ops = {
	.get = sink_get,
	.put = sink_put,
	.close = sink_close,
};

struct rec_sink rec_chunkq_sink(struct rec_chunkq *q)
{
	return (struct rec_sink){ .ops = &chunkq_sink_ops, .arg = q };
}

static void *writer_thread(void *arg)
{
	struct rec_chunkq *q = arg;
	uint64_t last_sync = rec_sysinfo_now_ns();

	rec_sysinfo_pin_self(q->cfg.cpu);
	/*
	 * A real-time writer compressing a trigger's kept pages held the collector CPU for
	 * seconds (at its priority, or using up the CPU's real-time share) while the kernel
	 * overwrote events (tests/e2e/record_flight_load.sh)
	 */
	rec_sysinfo_below_collector();
	for (;;) {
		struct vmt_writer *w;
		struct rec_chunk *c;
		bool skip;
		int ret = 0;

		pthread_mutex_lock(&q->lock);
		while (!q->head && !q->closed)
			pthread_cond_wait(&q->cond, &q->lock);
		c = q->head;
		if (!c) {
			pthread_mutex_unlock(&q->lock);
			break;
		}
		q->head = c->next;
		if (!q->head)
			q->tail = NULL;
		skip = q->error != 0;
		w = q->cfg.writer;	/* main may hand another one over while idle */
		q->writing = true;
		pthread_mutex_unlock(&q->lock);

		if (!skip) {
			ret = vmt_writer_chunk(w, c->buf, c->npages, q->cfg.page_size, &c->info);
			if (!ret && q->cfg.sync_ns &&
			    rec_sysinfo_now_ns() - last_sync >= q->cfg.sync_ns) {
				ret = vmt_writer_sync(w);
				last_sync = rec_sysinfo_now_ns();
			}
		}
		pthread_mutex_lock(&q->lock);
		q->queued_bytes -= (size_t)c->npages * q->cfg.page_size;
		if (ret && !q->error)
			q->error = ret;
		if (!ret && !skip) {
			q->written++;
			q->written_pages += c->npages;
		}
		q->writing = false;
		recycle_locked(q, c);
		pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
	}
	return NULL;
}

int rec_chunkq_start(struct rec_chunkq *q)
{
	int ret = pthread_create(&q->thread, NULL, writer_thread, q);

	if (ret)
		return -ret;
	q->started = true;
	return 0;
}

void rec_chunkq_unblock(struct rec_chunkq *q)
{
	pthread_mutex_lock(&q->lock);
	q->unblocked = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

int rec_chunkq_join(struct rec_chunkq *q)
{
	if (q->started) {
		pthread_join(q->thread, NULL);
		q->started = false;
	}
	return rec_chunkq_error(q);
}

int rec_chunkq_wait_idle(struct rec_chunkq *q)
{
	int ret;

	pthread_mutex_lock(&q->lock);
	while ((q->head || q->writing) && !q->error)
		pthread_cond_wait(&q->cond, &q->lock);
	ret = q->error;
	pthread_mutex_unlock(&q->lock);
	return ret;
}

void rec_chunkq_set_writer(struct rec_chunkq *q, struct vmt_writer *w)
{
	pthread_mutex_lock(&q->lock);
	q->cfg.writer = w;
	pthread_mutex_unlock(&q->lock);
}

int rec_chunkq_error(struct rec_chunkq *q)
{
	int ret;

	pthread_mutex_lock(&q->lock);
	ret = q->error;
	pthread_mutex_unlock(&q->lock);
	return ret;
}

uint64_t rec_chunkq_written(struct rec_chunkq *q)
{
	uint64_t n;

	pthread_mutex_lock(&q->lock);
	n = q->written;
	pthread_mutex_unlock(&q->lock);
	return n;
}

uint64_t rec_chunkq_written_pages(struct rec_chunkq *q)
{
	uint64_t n;

	pthread_mutex_lock(&q->lock);
	n = q->written_pages;
	pthread_mutex_unlock(&q->lock);
	return n;
}

unsigned int rec_chunkq_pooled(struct rec_chunkq *q)
{
	unsigned int n;

	pthread_mutex_lock(&q->lock);
	n = q->npool;
	pthread_mutex_unlock(&q->lock);
	return n;
}

void rec_chunkq_free(struct rec_chunkq *q)
{
	struct rec_chunk *c;
	unsigned int i;

	if (!q)
		return;
	while ((c = q->head)) {
		q->head = c->next;
		chunk_free(c);
	}
	for (i = 0; i < q->npool; i++)
		chunk_free(q->pool[i]);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cond);
	free(q);
}
