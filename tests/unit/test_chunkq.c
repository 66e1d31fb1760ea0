// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * chunkq: the writer thread and its bounded queue, with the test as the collector. What
 * reaches the file is read back through the container reader (chunk order, CPU, times and
 * every page byte); backpressure is watched on a pipe nobody reads yet; a write error is a
 * real ENOSPC (/dev/full put under the writer's fd); pool reuse is seen by pointer.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "chunkq.h"
#include "container.h"
#include "source.h"
#include "io.h"
#include "kv.h"

#define PAGE	4096u
#define CAP	4u	/* pages per chunk */
#define CHUNK	(PAGE * CAP)

struct fx {
	char path[64];
	int fd;
	struct vmt_writer *w;
	struct rec_chunkq *q;
	struct rec_sink sink;
};

static void fx_open(struct fx *fx, int fd, size_t max_queued)
{
	struct rec_chunkq_config cfg = {
		.page_size = PAGE, .chunk_pages = CAP, .max_queued_bytes = max_queued,
		.sync_ns = 0, .cpu = -1,
	};
	struct vmt_kvbuf meta;

	vmt_kv_init(&meta);
	vmt_kv_add_str(&meta, "test", "chunkq");
	fx->fd = fd;
	assert_int_equal(vmt_writer_open(fd, &meta, 0, &fx->w), 0);
	vmt_kv_free(&meta);
	cfg.writer = fx->w;
	assert_int_equal(rec_chunkq_new(&cfg, &fx->q), 0);
	fx->sink = rec_chunkq_sink(fx->q);
	assert_int_equal(rec_chunkq_start(fx->q), 0);
}

/* A file in /tmp. */
static void fx_open_file(struct fx *fx, size_t max_queued)
{
	int fd;

	strcpy(fx->path, "/tmp/vmt-chunkq-XXXXXX");
	fd = mkstemp(fx->path);
	assert_true(fd >= 0);
	fx_open(fx, fd, max_queued);
}

static void fx_close(struct fx *fx)
{
	rec_chunkq_free(fx->q);
	vmt_writer_free(fx->w);
	close(fx->fd);
	if (fx->path[0])
		unlink(fx->path);
}

/* Chunk i: npages pages whose every byte is (i * 7 + page) & 0xff; CPU i % 3; ts from i. */
static uint8_t pattern(unsigned int i, unsigned int page)
{
	return (uint8_t)(i * 7 + page + 1);
}

static struct rec_chunk *make_chunk(struct fx *fx, unsigned int i)
{
	struct rec_chunk *c = fx->sink.ops->get(fx->sink.arg);
	unsigned int p;

	assert_non_null(c);
	assert_int_equal(c->cap_pages, CAP);
	assert_int_equal(c->npages, 0);
	c->npages = 1 + i % CAP;
	for (p = 0; p < c->npages; p++)
		memset(c->buf + (size_t)p * PAGE, pattern(i, p), PAGE);
	c->info.cpu = i % 3;
	c->info.first_ts = 1000 * i;
	c->info.last_ts = 1000 * i + 999;
	c->info.missed_pages = i % 2;
	c->info.missed_count = i;
	return c;
}

/* The file holds exactly chunks [0, n) in order, each with its pages and figures. */
static void expect_chunks(const char *path, unsigned int n, bool finished)
{
	struct vmt_chunkbuf cb = { 0 };
	struct vmt_source *c;
	const char *why = NULL;
	char msg[256];
	unsigned int i, p;

	assert_int_equal(vmt_source_open(path, NULL, &c, msg, sizeof(msg)), 0);
	assert_int_equal(vmt_source_nchunks(c), n);
	assert_int_equal(vmt_source_status(c)->finished, finished);
	for (i = 0; i < n; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(c, i);

		assert_int_equal(ci->cpu, i % 3);
		assert_int_equal(ci->page_count, 1 + i % CAP);
		assert_int_equal(ci->first_ts, 1000 * i);
		assert_int_equal(ci->last_ts, 1000 * i + 999);
		assert_int_equal(ci->missed_pages, i % 2);
		assert_int_equal(ci->missed_count, i);
		assert_int_equal(vmt_source_read_chunk(c, i, &cb, &why), 0);
		for (p = 0; p < ci->page_count; p++) {
			const uint8_t *pg = cb.raw + (size_t)p * PAGE;
			unsigned int k;

			for (k = 0; k < PAGE; k++)
				if (pg[k] != pattern(i, p))
					fail_msg("chunk %u page %u byte %u: %u", i, p, k, pg[k]);
		}
	}
	vmt_chunkbuf_free(&cb);
	vmt_source_close(c);
}

static void test_order_kept(void **state)
{
	struct fx fx = { 0 };
	struct vmt_kvbuf end;
	uint64_t pages;
	unsigned int i;

	(void)state;
	fx_open_file(&fx, 1 << 20);
	for (i = 0; i < 100; i++)
		assert_int_equal(fx.sink.ops->put(fx.sink.arg, make_chunk(&fx, i)), 0);
	fx.sink.ops->close(fx.sink.arg);
	assert_int_equal(rec_chunkq_join(fx.q), 0);
	assert_int_equal(rec_chunkq_written(fx.q), 100);
	for (i = 0, pages = 0; i < 100; i++)
		pages += 1 + i % CAP;	/* make_chunk()'s */
	assert_int_equal(rec_chunkq_written_pages(fx.q), pages);
	vmt_kv_init(&end);
	assert_int_equal(vmt_writer_finish(fx.w, &end), 0);
	vmt_kv_free(&end);
	expect_chunks(fx.path, 100, true);
	fx_close(&fx);
}

/* The collector's side: puts n chunks, counting each put that returned. */
struct producer {
	struct fx *fx;
	unsigned int n;
	atomic_uint done;
	int err;
};

static void *produce(void *arg)
{
	struct producer *pr = arg;
	unsigned int i;

	for (i = 0; i < pr->n; i++) {
		int ret = pr->fx->sink.ops->put(pr->fx->sink.arg, make_chunk(pr->fx, i));

		if (ret && !pr->err)
			pr->err = ret;
		atomic_fetch_add(&pr->done, 1);
	}
	return NULL;
}

/* Read the pipe to its end into path. */
struct drainer {
	int rd;
	int out;
};

static void *drain(void *arg)
{
	struct drainer *d = arg;
	char buf[65536];
	ssize_t n;

	while ((n = read(d->rd, buf, sizeof(buf))) > 0)
		if (vmt_io_write_full(d->out, buf, (size_t)n))
			break;
	return NULL;
}

/*
 * The writer writes to a pipe of one page that nobody reads: it blocks on its first
 * chunk. The queue then takes chunks up to its bound (the chunk being written counts) and
 * put waits; nothing is dropped. Once the pipe is read, every chunk arrives, in order.
 * With unblock, the puts return at once although the writer is still stuck. With room
 * lent (a flight recorder's ring handing on its pages), the puts go on for that many
 * bytes more, then wait again.
 */
enum bp_mode { BP_WAIT, BP_UNBLOCK, BP_LEND };

static void backpressure(enum bp_mode mode)
{
	struct producer pr = { .n = 20 };
	struct fx fx = { 0 };
	struct drainer d;
	pthread_t tp, td;
	char path[] = "/tmp/vmt-chunkq-pipe-XXXXXX";
	unsigned int seen, lent;
	int p[2];

	assert_int_equal(pipe(p), 0);
	fx_open(&fx, p[1], CHUNK);	/* the header and META fit the empty pipe */
	assert_true(fcntl(p[1], F_SETPIPE_SZ, (int)PAGE) >= 0);
	pr.fx = &fx;
	assert_int_equal(pthread_create(&tp, NULL, produce, &pr), 0);
	usleep(200000);
	seen = atomic_load(&pr.done);
	if (mode != BP_UNBLOCK) {
		/* chunk 0 in the writer (counted), chunk 1 queued, chunk 2 waits for room */
		assert_true(seen >= 1 && seen <= 3);
		usleep(200000);
		assert_int_equal(atomic_load(&pr.done), seen);	/* still waiting */
	}
	if (mode == BP_LEND) {
		/*
		 * 5 chunks of room: chunks have 1 to 4 pages, so at least 5 more go, and not
		 * all 20 (50 pages, over the bound's 4 and the 20 lent)
		 */
		rec_chunkq_lend(fx.q, 5 * CHUNK);
		for (lent = 0; lent < 2000 && atomic_load(&pr.done) < seen + 5; lent++)
			usleep(5000);	/* a loaded machine: up to 10 s */
		usleep(200000);
		lent = atomic_load(&pr.done);
		assert_true(lent >= seen + 5 && lent < pr.n);
		usleep(200000);
		assert_int_equal(atomic_load(&pr.done), lent);	/* waiting again */
		assert_int_equal(rec_chunkq_written(fx.q), 0);
	} else if (mode == BP_UNBLOCK) {
		rec_chunkq_unblock(fx.q);
		usleep(200000);
		assert_int_equal(atomic_load(&pr.done), pr.n);
		assert_int_equal(rec_chunkq_written(fx.q), 0);	/* the writer is still stuck */
	}
	d.rd = p[0];
	d.out = mkstemp(path);
	assert_true(d.out >= 0);
	assert_int_equal(pthread_create(&td, NULL, drain, &d), 0);
	assert_int_equal(pthread_join(tp, NULL), 0);
	assert_int_equal(pr.err, 0);
	rec_chunkq_close(fx.q);
	assert_int_equal(rec_chunkq_join(fx.q), 0);
	assert_int_equal(rec_chunkq_written(fx.q), pr.n);
	close(p[1]);	/* the drainer sees the end */
	fx.fd = -1;
	assert_int_equal(pthread_join(td, NULL), 0);
	close(p[0]);
	close(d.out);
	expect_chunks(path, pr.n, false);
	unlink(path);
	fx_close(&fx);
}

static void test_backpressure_waits(void **state)
{
	(void)state;
	backpressure(BP_WAIT);
}

static void test_unblock(void **state)
{
	(void)state;
	backpressure(BP_UNBLOCK);
}

static void test_lend(void **state)
{
	(void)state;
	backpressure(BP_LEND);
}

/*
 * Two chunks reach the file, then the fd becomes /dev/full: the writer stops on ENOSPC,
 * reports it, and later puts neither block (a bound of one chunk) nor reach the file.
 */
static void test_write_error(void **state)
{
	struct fx fx = { 0 };
	unsigned int i;
	int full;

	(void)state;
	fx_open_file(&fx, CHUNK);
	for (i = 0; i < 2; i++)
		assert_int_equal(fx.sink.ops->put(fx.sink.arg, make_chunk(&fx, i)), 0);
	for (i = 0; i < 200 && rec_chunkq_written(fx.q) < 2; i++)
		usleep(5000);
	assert_int_equal(rec_chunkq_written(fx.q), 2);
	assert_int_equal(rec_chunkq_error(fx.q), 0);
	full = open("/dev/full", O_WRONLY);
	assert_true(full >= 0);
	assert_true(dup2(full, fx.fd) == fx.fd);
	close(full);
	for (i = 2; i < 50; i++)
		assert_int_equal(fx.sink.ops->put(fx.sink.arg, make_chunk(&fx, i)), 0);
	fx.sink.ops->close(fx.sink.arg);
	assert_int_equal(rec_chunkq_join(fx.q), -ENOSPC);
	assert_int_equal(rec_chunkq_error(fx.q), -ENOSPC);
	assert_int_equal(rec_chunkq_written(fx.q), 2);
	expect_chunks(fx.path, 2, false);
	fx_close(&fx);
}

static void test_pool_reuse(void **state)
{
	struct fx fx = { 0 };
	struct rec_chunk *c, *again;
	uint8_t *buf;

	(void)state;
	fx_open_file(&fx, 1 << 20);
	assert_int_equal(rec_chunkq_pooled(fx.q), 0);
	c = make_chunk(&fx, 3);
	buf = c->buf;
	assert_int_equal(fx.sink.ops->put(fx.sink.arg, c), 0);
	fx.sink.ops->close(fx.sink.arg);
	assert_int_equal(rec_chunkq_join(fx.q), 0);
	assert_int_equal(rec_chunkq_pooled(fx.q), 1);
	/* the same chunk and buffer again, emptied */
	again = fx.sink.ops->get(fx.sink.arg);
	assert_ptr_equal(again, c);
	assert_ptr_equal(again->buf, buf);
	assert_int_equal(again->npages, 0);
	assert_int_equal(again->info.first_ts, 0);
	assert_int_equal(again->info.missed_count, 0);
	assert_int_equal(rec_chunkq_pooled(fx.q), 0);
	/* after close a put is refused and the chunk goes back to the pool */
	again->npages = 1;
	assert_int_equal(fx.sink.ops->put(fx.sink.arg, again), -EPIPE);
	assert_int_equal(rec_chunkq_pooled(fx.q), 1);
	assert_int_equal(rec_chunkq_written(fx.q), 1);
	fx_close(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_kept),
		cmocka_unit_test(test_backpressure_waits),
		cmocka_unit_test(test_unblock),
		cmocka_unit_test(test_lend),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_pool_reuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
