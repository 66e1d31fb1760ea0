// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "io.h"
#include "rbpage.h"
#include "sysinfo.h"

#define SPLICE_ROUNDS	64	/* per CPU per tick: one busy CPU cannot starve the others */
#define READ_ROUNDS	1024	/* per CPU in the final drain; each read() is one page */

struct cpu_state {
	struct rec_cpu_counts n;
	int fd;
	int pipe[2];
	struct rec_chunk *c;		/* being filled, or NULL */
	uint64_t chunk_started_ns;
};

struct rec_collector {
	struct rec_collector_config cfg;
	uint32_t page_size;
	struct cpu_state *cs;
	unsigned int ncs;
	pthread_t thread;
	bool started;
	atomic_int stop;		/* main -> thread: tracing is off, drain and finish */
	atomic_int abort_drain;		/* second signal: finish with what is held */
	atomic_int done;		/* thread -> main: the sink is closed */
	atomic_int error;		/* thread -> main: the first error */
};

int rec_collector_new(const struct rec_collector_config *cfg, struct rec_collector **out)
{
	struct rec_collector *col;

	*out = NULL;
	if (!cfg->sink.ops || !vmt_header_page_subbuf_size(&cfg->hp))
		return -EINVAL;
	col = calloc(1, sizeof(*col));
	if (!col)
		return -ENOMEM;
	col->cfg = *cfg;
	col->page_size = vmt_header_page_subbuf_size(&cfg->hp);
	*out = col;
	return 0;
}

int rec_collector_add_cpu(struct rec_collector *col, unsigned int cpu, int fd)
{
	struct cpu_state *cs, *grown;

	grown = realloc(col->cs, (col->ncs + 1) * sizeof(*col->cs));
	if (!grown) {
		close(fd);
		return -ENOMEM;
	}
	col->cs = grown;
	cs = &col->cs[col->ncs];
	memset(cs, 0, sizeof(*cs));
	cs->n.cpu = cpu;
	cs->fd = fd;
	if (pipe2(cs->pipe, O_CLOEXEC) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	col->ncs++;
	/* A bigger pipe moves a whole chunk per splice() where the system allows. */
	if (col->cfg.pipe_bytes)
		fcntl(cs->pipe[1], F_SETPIPE_SZ, (int)col->cfg.pipe_bytes);
	return 0;
}

static void chunk_last_ts(struct rec_collector *col, struct rec_chunk *c)
{
	const uint8_t *last = c->buf + (size_t)(c->npages - 1) * col->page_size;
	struct vmt_rbrecord r;
	struct vmt_rbpage pg;

	c->info.last_ts = c->info.first_ts;
	if (vmt_rbpage_init(&pg, &col->cfg.hp, last, col->page_size))
		return;
	c->info.last_ts = pg.page_ts;
	while (vmt_rbpage_next(&pg, &r) > 0)
		c->info.last_ts = r.ts;
}

/* Hand the filled chunk to the sink, which may wait but never drops it. */
static int flush_chunk(struct rec_collector *col, struct cpu_state *cs)
{
	struct rec_chunk *c = cs->c;

	if (!c || !c->npages)
		return 0;
	chunk_last_ts(col, c);
	c->info.cpu = cs->n.cpu;
	cs->c = NULL;
	return col->cfg.sink.ops->put(col->cfg.sink.arg, c);
}

/*
 * Account a page read into the chunk at or after its end; drop it when it holds nothing.
 * A page kept after a dropped one of the same splice moves down into the gap.
 */
static void add_page(struct rec_collector *col, struct cpu_state *cs, const uint8_t *page)
{
	struct rec_chunk *c = cs->c;
	uint8_t *end = c->buf + (size_t)c->npages * col->page_size;
	struct vmt_rbpage pg;

	if (vmt_rbpage_init(&pg, &col->cfg.hp, page, col->page_size) == 0 && pg.commit == 0 &&
	    !pg.missed)
		return;
	if (page != end)
		memmove(end, page, col->page_size);
	if (c->npages == 0) {
		c->info.first_ts = pg.page_ts;
		cs->chunk_started_ns = rec_sysinfo_now_ns();
	}
	if (pg.missed) {
		c->info.missed_pages++;
		c->info.missed_count += pg.missed_count;
		cs->n.missed_pages++;
		cs->n.missed_count += pg.missed_count;
		/* a stored 0 says no more than no count (the reader counts them so too) */
		cs->n.missed_uncounted += !pg.missed_stored || !pg.missed_count;
	}
	c->npages++;
	cs->n.pages++;
}

/* A chunk with room for at least one page. */
static int ensure_room(struct rec_collector *col, struct cpu_state *cs)
{
	int ret;

	if (cs->c && cs->c->npages == cs->c->cap_pages) {
		ret = flush_chunk(col, cs);
		if (ret)
			return ret;
	}
	if (!cs->c) {
		cs->c = col->cfg.sink.ops->get(col->cfg.sink.arg);
		if (!cs->c)
			return -ENOMEM;
	}
	return 0;
}

/* Move every full page the kernel has for this CPU into chunks. */
static int pull_splice(struct rec_collector *col, struct cpu_state *cs)
{
	const uint32_t psize = col->page_size;
	unsigned int rounds;

	for (rounds = 0; rounds < SPLICE_ROUNDS; rounds++) {
		uint8_t *dst;
		ssize_t n, got;
		int ret;

		ret = ensure_room(col, cs);
		if (ret)
			return ret;
		dst = cs->c->buf + (size_t)cs->c->npages * psize;
		n = splice(cs->fd, NULL, cs->pipe[1], NULL,
			   (size_t)(cs->c->cap_pages - cs->c->npages) * psize,
			   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -errno;
		}
		if (n == 0)
			return 0;
		got = vmt_io_read_full(cs->pipe[0], dst, (size_t)n);
		if (got != n)
			return got < 0 ? (int)got : -EIO;
		/* splice() moves whole pages; a tail would be a kernel oddity: zero-pad it. */
		if (n % psize) {
			memset(dst + n, 0, psize - (size_t)n % psize);
			n += psize - n % psize;
		}
		for (got = 0; got < n; got += psize)
			add_page(col, cs, dst + got);
	}
	return 0;
}

/*
 * After tracing is off a non-blocking splice hands out only full pages: the last, partly
 * filled page comes out only through read(), one page per call.
 */
static int pull_read(struct rec_collector *col, struct cpu_state *cs)
{
	unsigned int rounds;

	for (rounds = 0; rounds < READ_ROUNDS; rounds++) {
		uint8_t *dst;
		ssize_t n;
		int ret;

		ret = ensure_room(col, cs);
		if (ret)
			return ret;
		dst = cs->c->buf + (size_t)cs->c->npages * col->page_size;
		n = read(cs->fd, dst, col->page_size);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -errno;
		}
		if (n == 0)
			return 0;
		if ((size_t)n < col->page_size)
			memset(dst + n, 0, col->page_size - (size_t)n);
		add_page(col, cs, dst);
	}
	return 0;
}

static int poll_at(struct rec_collector *col, uint64_t now)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < col->ncs && !ret; i++) {
		struct cpu_state *cs = &col->cs[i];

		ret = pull_splice(col, cs);
		/* a chunk begun by this splice began after now: age 0, not a wrapped one */
		if (!ret && cs->c && cs->c->npages && (now > cs->chunk_started_ns ?
		    now - cs->chunk_started_ns : 0) >= col->cfg.chunk_max_age_ns)
			ret = flush_chunk(col, cs);
	}
	return ret;
}

int rec_collector_poll(struct rec_collector *col)
{
	return poll_at(col, rec_sysinfo_now_ns());
}

/* Every chunk held goes to the sink; the first error is returned. */
static int flush_all(struct rec_collector *col)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < col->ncs; i++) {
		int r2 = flush_chunk(col, &col->cs[i]);

		if (!ret)
			ret = r2;
	}
	return ret;
}

int rec_collector_drain(struct rec_collector *col)
{
	unsigned int i;
	int ret = 0, r2;

	for (i = 0; i < col->ncs && !ret; i++) {
		if (!atomic_load(&col->abort_drain))
			ret = pull_splice(col, &col->cs[i]);
		if (!ret && !atomic_load(&col->abort_drain))
			ret = pull_read(col, &col->cs[i]);
	}
	r2 = flush_all(col);
	return ret ? ret : r2;
}

static void *collector_thread(void *arg)
{
	struct rec_collector *col = arg;
	struct timespec next;
	int ret = 0;

	rec_sysinfo_pin_self(col->cfg.cpu);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&col->stop)) {
		uint64_t now = rec_sysinfo_now_ns();

		ret = poll_at(col, now);
		if (ret)
			break;
		if (col->cfg.sink.ops->tick)
			col->cfg.sink.ops->tick(col->cfg.sink.arg, now);
		next.tv_nsec += (long)col->cfg.poll_ns;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		/* When a round took longer than the period, start the next one at once. */
		if ((uint64_t)next.tv_sec * 1000000000ULL + (uint64_t)next.tv_nsec < now)
			clock_gettime(CLOCK_MONOTONIC, &next);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	if (!ret)
		ret = rec_collector_drain(col);
	else
		flush_all(col);	/* what was read before the error still reaches the file */
	atomic_store(&col->error, ret);
	col->cfg.sink.ops->close(col->cfg.sink.arg);
	atomic_store(&col->done, 1);
	return NULL;
}

int rec_collector_start(struct rec_collector *col)
{
	int ret = pthread_create(&col->thread, NULL, collector_thread, col);

	if (ret)
		return -ret;
	col->started = true;
	return 0;
}

void rec_collector_stop(struct rec_collector *col)
{
	atomic_store(&col->stop, 1);
}

void rec_collector_abort_drain(struct rec_collector *col)
{
	atomic_store(&col->abort_drain, 1);
}

bool rec_collector_done(struct rec_collector *col)
{
	return !col->started || atomic_load(&col->done);
}

int rec_collector_error(struct rec_collector *col)
{
	return atomic_load(&col->error);
}

int rec_collector_join(struct rec_collector *col)
{
	if (col->started)
		pthread_join(col->thread, NULL);
	col->started = false;
	return rec_collector_error(col);
}

unsigned int rec_collector_ncpus(const struct rec_collector *col)
{
	return col->ncs;
}

const struct rec_cpu_counts *rec_collector_counts(const struct rec_collector *col,
						  unsigned int i)
{
	return i < col->ncs ? &col->cs[i].n : NULL;
}

void rec_collector_free(struct rec_collector *col)
{
	unsigned int i;

	if (!col)
		return;
	for (i = 0; i < col->ncs; i++) {
		struct cpu_state *cs = &col->cs[i];

		/* Only a collector never drained still holds one: the sink takes it back. */
		if (cs->c)
			col->cfg.sink.ops->put(col->cfg.sink.arg, cs->c);
		close(cs->fd);
		close(cs->pipe[0]);
		close(cs->pipe[1]);
	}
	free(col->cs);
	free(col);
}
