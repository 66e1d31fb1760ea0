// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * collector without tracefs: sub-buffers written by the test page builder into a regular
 * file or a pipe stand in for trace_pipe_raw, and a test sink keeps the chunks (as a live
 * view would). Checked against the pages the test built: chunk contents byte for byte,
 * empty pages dropped, missed-event pages and counts, chunk times, the age flush, the
 * bounded splice rounds per tick, the read() path of the final drain (splice answering
 * EAGAIN, as after tracing is off, through -Wl,--wrap=splice), the aborted drain, the thread;
 * and the recorder's note on losses from those counts (record/losses.c), pages flagged
 * without a count included.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bytes.h"
#include "collector.h"
#include "io.h"
#include "losses.h"
#include "pagebuilder.h"

#define PAGE 4096u

/* splice() as the kernel's: real, or EAGAIN as when only a partial page is left. */
ssize_t __real_splice(int fd_in, loff_t *off_in, int fd_out, loff_t *off_out, size_t len,
		      unsigned int flags);
ssize_t __wrap_splice(int fd_in, loff_t *off_in, int fd_out, loff_t *off_out, size_t len,
		      unsigned int flags);
static bool splice_eagain;
static unsigned int splice_calls;

ssize_t __wrap_splice(int fd_in, loff_t *off_in, int fd_out, loff_t *off_out, size_t len,
		      unsigned int flags)
{
	splice_calls++;
	if (splice_eagain) {
		errno = EAGAIN;
		return -1;
	}
	return __real_splice(fd_in, off_in, fd_out, off_out, len, flags);
}

/* A sink that keeps every chunk, in order. */
struct tsink {
	uint32_t cap;
	bool fail_get;
	struct rec_chunk *got[256];
	unsigned int n;
	unsigned int closed;
};

static struct rec_chunk *tsink_get(void *arg)
{
	struct tsink *t = arg;
	struct rec_chunk *c;

	if (t->fail_get)
		return NULL;
	c = calloc(1, sizeof(*c));
	assert_non_null(c);
	c->cap_pages = t->cap;
	c->buf = malloc((size_t)t->cap * PAGE);
	assert_non_null(c->buf);
	return c;
}

static int tsink_put(void *arg, struct rec_chunk *c)
{
	struct tsink *t = arg;

	assert_true(t->n < 256);
	t->got[t->n++] = c;
	return 0;
}

static void tsink_close(void *arg)
{
	((struct tsink *)arg)->closed++;
}

static const struct rec_sink_ops tsink_ops = { tsink_get, tsink_put, tsink_close, NULL };

static void tsink_free(struct tsink *t)
{
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		free(t->got[i]->buf);
		free(t->got[i]);
	}
	t->n = 0;
}

/* The pages a test feeds in, and for each what the collector must make of it. */
struct page {
	uint8_t bytes[PAGE];
	uint64_t page_ts, last_ts;
	bool kept;
	bool missed;
	uint64_t missed_count;
};

static struct vmt_header_page hp;

/* nrec 8-byte records from page_ts + 10, 10 ns apart; missed flags as given. */
static void build(struct page *pg, uint64_t page_ts, unsigned int nrec, bool missed,
		  bool stored, uint64_t count)
{
	uint8_t payload[8];
	struct pb pb;
	unsigned int k;

	memset(pg, 0, sizeof(*pg));
	pb_init(&pb, pg->bytes, &hp, page_ts);
	pg->page_ts = pg->last_ts = page_ts;
	for (k = 0; k < nrec; k++) {
		put_le64(payload, page_ts + k);
		assert_int_equal(pb_data(&pb, page_ts + 10 * (k + 1), payload, 8, false), 0);
		pg->last_ts = page_ts + 10 * (k + 1);
	}
	pb_finish(&pb, missed, stored, count);
	pg->kept = nrec > 0 || missed;
	pg->missed = missed;
	pg->missed_count = stored ? count : 0;
}

static int feed_file(const struct page *pages, unsigned int n, size_t tail)
{
	char path[] = "/tmp/vmt-collector-XXXXXX";
	unsigned int i;
	int fd = mkstemp(path), rd;

	assert_true(fd >= 0);
	for (i = 0; i < n; i++)
		assert_int_equal(vmt_io_write_full(fd, pages[i].bytes,
						   i + 1 == n && tail ? tail : PAGE), 0);
	close(fd);
	rd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	unlink(path);
	return rd;
}

static struct rec_collector *new_collector(struct tsink *t, uint32_t cap, uint64_t age_ns,
					   uint32_t pipe_bytes)
{
	struct rec_collector_config cfg = {
		.hp = hp, .poll_ns = 1000000, .chunk_max_age_ns = age_ns,
		.pipe_bytes = pipe_bytes, .cpu = -1,
		.sink = { .ops = &tsink_ops, .arg = t },
	};
	struct rec_collector *col;

	memset(t, 0, sizeof(*t));
	t->cap = cap;
	assert_int_equal(rec_collector_new(&cfg, &col), 0);
	return col;
}

/* The chunks received hold the kept pages in order, split every cap pages. */
static void expect_chunks(const struct tsink *t, unsigned int cpu, const struct page *pages,
			  unsigned int n)
{
	unsigned int i, c = 0, in_chunk = 0;
	const struct page *first = NULL, *last = NULL;
	uint64_t missed_pages = 0, missed_count = 0;

	for (i = 0; i <= n; i++) {
		const struct rec_chunk *ch = c < t->n ? t->got[c] : NULL;

		if (i == n || (pages[i].kept && in_chunk == t->cap)) {
			if (!in_chunk)
				break;
			assert_non_null(ch);
			assert_int_equal(ch->npages, in_chunk);
			assert_int_equal(ch->info.cpu, cpu);
			assert_int_equal(ch->info.first_ts, first->page_ts);
			assert_int_equal(ch->info.last_ts, last->last_ts);
			assert_int_equal(ch->info.missed_pages, missed_pages);
			assert_int_equal(ch->info.missed_count, missed_count);
			c++;
			in_chunk = 0;
			missed_pages = missed_count = 0;
			if (i == n)
				break;
		}
		if (!pages[i].kept)
			continue;
		assert_true(c < t->n);
		assert_memory_equal(t->got[c]->buf + (size_t)in_chunk * PAGE, pages[i].bytes, PAGE);
		if (!in_chunk)
			first = &pages[i];
		last = &pages[i];
		in_chunk++;
		missed_pages += pages[i].missed;
		missed_count += pages[i].missed_count;
	}
	assert_int_equal(t->n, c);
}

static int setup(void **state)
{
	(void)state;
	vmt_header_page_default(&hp);
	splice_eagain = false;
	splice_calls = 0;
	return 0;
}

static struct page *ten_pages(void)
{
	struct page *pages = calloc(10, sizeof(*pages));
	unsigned int i;

	assert_non_null(pages);
	build(&pages[0], 1000, 3, false, false, 0);
	build(&pages[1], 2000, 0, false, false, 0);	/* empty: dropped */
	build(&pages[2], 3000, 2, true, true, 17);	/* 17 events lost before it */
	build(&pages[3], 4000, 0, true, false, 0);	/* lost, count unknown, no data: kept */
	for (i = 4; i < 10; i++)
		build(&pages[i], 1000 * (i + 1), 5, false, false, 0);
	return pages;
}

static void test_pages_to_chunks(void **state)
{
	struct page *pages = ten_pages();
	const struct rec_cpu_counts *n;
	struct rec_collector *col;
	struct rec_losses ls;
	struct tsink t;

	(void)state;
	col = new_collector(&t, 4, UINT64_MAX, 0);
	assert_int_equal(rec_collector_add_cpu(col, 5, feed_file(pages, 10, 0)), 0);
	assert_int_equal(rec_collector_poll(col), 0);
	assert_int_equal(t.n, 2);	/* 9 pages kept: two full chunks, one page held */
	assert_int_equal(rec_collector_drain(col), 0);
	expect_chunks(&t, 5, pages, 10);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.got[0]->info.missed_pages, 2);
	assert_int_equal(t.got[0]->info.missed_count, 17);
	n = rec_collector_counts(col, 0);
	assert_int_equal(n->cpu, 5);
	assert_int_equal(n->pages, 9);
	assert_int_equal(n->missed_pages, 2);
	assert_int_equal(n->missed_count, 17);
	assert_int_equal(n->missed_uncounted, 1);	/* page 3 */
	rec_losses_sum(col, &ls);
	assert_int_equal(ls.pages, 9);
	assert_int_equal(ls.missed_pages, 2);
	assert_int_equal(ls.counted, 17);
	assert_int_equal(ls.uncounted, 1);
	assert_int_equal(ls.stats, 0);
	assert_null(rec_collector_counts(col, 1));
	assert_int_equal(t.closed, 0);	/* closing the sink is the thread's */
	rec_collector_free(col);
	tsink_free(&t);
	free(pages);
}

/* After tracing is off splice has nothing; read() gives pages, the last one short. */
static void test_drain_reads_partial_page(void **state)
{
	struct page pages[3];
	struct rec_collector *col;
	struct tsink t;

	(void)state;
	build(&pages[0], 100, 50, false, false, 0);
	build(&pages[1], 200, 50, false, false, 0);
	build(&pages[2], 300, 4, false, false, 0);	/* 16 + 4 * 16 bytes of data */
	col = new_collector(&t, 8, UINT64_MAX, 0);
	assert_int_equal(rec_collector_add_cpu(col, 1, feed_file(pages, 3, 1000)), 0);
	splice_eagain = true;
	assert_int_equal(rec_collector_drain(col), 0);
	assert_true(splice_calls >= 1);
	/* the short read is zero-padded: the same bytes as the page the builder made */
	expect_chunks(&t, 1, pages, 3);
	assert_int_equal(rec_collector_counts(col, 0)->pages, 3);
	rec_collector_free(col);
	tsink_free(&t);
}

static void test_age_flush(void **state)
{
	struct page *pages = ten_pages();
	struct rec_collector *col;
	struct tsink t;

	(void)state;
	/* a young chunk stays with the collector */
	col = new_collector(&t, 16, UINT64_MAX, 0);
	assert_int_equal(rec_collector_add_cpu(col, 2, feed_file(pages, 3, 0)), 0);
	assert_int_equal(rec_collector_poll(col), 0);
	assert_int_equal(t.n, 0);
	rec_collector_free(col);	/* the held chunk is given to the sink */
	assert_int_equal(t.n, 1);
	tsink_free(&t);
	/* an old one goes at the tick */
	col = new_collector(&t, 16, 0, 0);
	assert_int_equal(rec_collector_add_cpu(col, 2, feed_file(pages, 3, 0)), 0);
	assert_int_equal(rec_collector_poll(col), 0);
	expect_chunks(&t, 2, pages, 3);
	assert_int_equal(t.n, 1);
	rec_collector_free(col);
	tsink_free(&t);
	free(pages);
}

/* A one-page pipe moves one page per splice: 64 of them per CPU per tick, no more. */
static void test_rounds_bounded(void **state)
{
	struct page *pages = calloc(100, sizeof(*pages));
	struct rec_collector *col;
	struct tsink t;
	unsigned int i;

	(void)state;
	assert_non_null(pages);
	for (i = 0; i < 100; i++)
		build(&pages[i], 100 * (i + 1), 1, false, false, 0);
	col = new_collector(&t, 256, UINT64_MAX, PAGE);
	assert_int_equal(rec_collector_add_cpu(col, 0, feed_file(pages, 100, 0)), 0);
	assert_int_equal(rec_collector_add_cpu(col, 3, feed_file(pages, 10, 0)), 0);
	assert_int_equal(rec_collector_ncpus(col), 2);
	assert_int_equal(rec_collector_poll(col), 0);
	assert_int_equal(rec_collector_counts(col, 0)->pages, 64);
	assert_int_equal(rec_collector_counts(col, 1)->pages, 10);	/* not starved */
	assert_int_equal(rec_collector_poll(col), 0);
	assert_int_equal(rec_collector_counts(col, 0)->pages, 100);
	assert_int_equal(rec_collector_drain(col), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.got[0]->info.cpu, 0);
	assert_int_equal(t.got[0]->npages, 100);
	assert_int_equal(t.got[1]->info.cpu, 3);
	assert_int_equal(t.got[1]->npages, 10);
	assert_memory_equal(t.got[1]->buf, pages[0].bytes, PAGE);
	rec_collector_free(col);
	tsink_free(&t);
	free(pages);
}

/* A pipe as the source; a second stop hands over what is held and reads no more. */
static void test_abort_drain(void **state)
{
	struct page *pages = ten_pages();
	struct rec_collector *col;
	struct tsink t;
	char rest[PAGE];
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	col = new_collector(&t, 16, UINT64_MAX, 0);
	assert_int_equal(rec_collector_add_cpu(col, 4, p[0]), 0);
	assert_int_equal(vmt_io_write_full(p[1], pages[0].bytes, PAGE), 0);
	assert_int_equal(rec_collector_poll(col), 0);
	assert_int_equal(rec_collector_poll(col), 0);	/* an empty pipe: EAGAIN, no error */
	assert_int_equal(vmt_io_write_full(p[1], pages[4].bytes, PAGE), 0);
	rec_collector_abort_drain(col);
	assert_int_equal(rec_collector_drain(col), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.got[0]->npages, 1);
	assert_memory_equal(t.got[0]->buf, pages[0].bytes, PAGE);
	assert_int_equal(read(p[0], rest, PAGE), PAGE);	/* left in the source */
	assert_memory_equal(rest, pages[4].bytes, PAGE);
	close(p[1]);
	rec_collector_free(col);
	tsink_free(&t);
	free(pages);
}

static void test_thread(void **state)
{
	struct page *pages = ten_pages();
	struct rec_collector *col;
	struct tsink t;

	(void)state;
	col = new_collector(&t, 4, UINT64_MAX, 0);
	assert_true(rec_collector_done(col));	/* not started */
	assert_int_equal(rec_collector_add_cpu(col, 5, feed_file(pages, 10, 0)), 0);
	assert_int_equal(rec_collector_start(col), 0);
	usleep(20000);
	rec_collector_stop(col);
	assert_int_equal(rec_collector_join(col), 0);
	assert_true(rec_collector_done(col));
	assert_int_equal(t.closed, 1);
	expect_chunks(&t, 5, pages, 10);
	rec_collector_free(col);
	tsink_free(&t);
	free(pages);
}

static void test_errors(void **state)
{
	struct page *pages = ten_pages();
	struct rec_collector_config bad = { .poll_ns = 1 };
	struct rec_collector *col;
	struct tsink t;

	(void)state;
	assert_int_equal(rec_collector_new(&bad, &col), -EINVAL);	/* no sink, no layout */
	assert_null(col);
	col = new_collector(&t, 4, UINT64_MAX, 0);
	t.fail_get = true;
	assert_int_equal(rec_collector_add_cpu(col, 5, feed_file(pages, 10, 0)), 0);
	assert_int_equal(rec_collector_poll(col), -ENOMEM);
	/* the thread stops on it, reports it and still closes the sink */
	assert_int_equal(rec_collector_start(col), 0);
	assert_int_equal(rec_collector_join(col), -ENOMEM);
	assert_int_equal(rec_collector_error(col), -ENOMEM);
	assert_int_equal(t.closed, 1);
	rec_collector_free(col);
	/* reading a descriptor that is not readable is an error too */
	col = new_collector(&t, 4, UINT64_MAX, 0);
	assert_int_equal(rec_collector_add_cpu(col, 5, open("/dev/null", O_WRONLY)), 0);
	assert_true(rec_collector_poll(col) < 0);
	rec_collector_free(col);
	tsink_free(&t);
	free(pages);
}

/*
 * Two CPUs, losses flagged every way the kernel flags them: a count stored, a count of 0
 * stored (which says no more than none), no count stored (the page filled to within 8
 * bytes of its end); each counted on its CPU and summed over both.
 */
static void test_uncounted_pages(void **state)
{
	struct page a[3], b[2];
	struct rec_collector *col;
	struct rec_losses ls;
	struct tsink t;

	(void)state;
	build(&a[0], 1000, 2, true, true, 5);
	build(&a[1], 2000, 2, true, true, 0);
	build(&a[2], 3000, 2, false, false, 0);
	build(&b[0], 1500, 3, true, false, 0);
	build(&b[1], 2500, 0, true, false, 0);	/* no data, a loss: kept */
	col = new_collector(&t, 16, UINT64_MAX, 0);
	assert_int_equal(rec_collector_add_cpu(col, 0, feed_file(a, 3, 0)), 0);
	assert_int_equal(rec_collector_add_cpu(col, 1, feed_file(b, 2, 0)), 0);
	assert_int_equal(rec_collector_poll(col), 0);
	assert_int_equal(rec_collector_drain(col), 0);
	assert_int_equal(rec_collector_counts(col, 0)->missed_pages, 2);
	assert_int_equal(rec_collector_counts(col, 0)->missed_count, 5);
	assert_int_equal(rec_collector_counts(col, 0)->missed_uncounted, 1);
	assert_int_equal(rec_collector_counts(col, 1)->missed_pages, 2);
	assert_int_equal(rec_collector_counts(col, 1)->missed_count, 0);
	assert_int_equal(rec_collector_counts(col, 1)->missed_uncounted, 2);
	rec_losses_sum(col, &ls);
	assert_int_equal(ls.pages, 5);
	assert_int_equal(ls.missed_pages, 4);
	assert_int_equal(ls.counted, 5);
	assert_int_equal(ls.uncounted, 3);
	rec_collector_free(col);
	tsink_free(&t);
	rec_losses_sum(NULL, &ls);
	assert_int_equal(ls.pages + ls.missed_pages + ls.counted + ls.uncounted, 0);
}

/*
 * The note: what each count says, and "not known" when only uncounted pages saw losses;
 * events left unread at the end (a drain cut short) after those, or alone.
 */
static void test_losses_note(void **state)
{
	static const struct {
		struct rec_losses l;
		const char *note;	/* NULL: none */
		bool bare;		/* no advice: a bigger buffer would not have kept them */
	} t[] = {
		{ { 0, 9, 0, 0, 0, 0, true, false }, NULL, false },
		{ { 40, 9, 2, 40, 0, 0, true, false }, "events were lost: 40 (ring buffer stats), 40 "
		  "(page flags)", false },
		{ { 40, 9, 0, 0, 0, 0, true, false }, "events were lost: 40 (ring buffer stats), 0 "
		  "(page flags)", false },
		{ { 0, 9, 1, 7, 0, 0, true, false }, "events were lost: 0 (ring buffer stats), 7 "
		  "(page flags)", false },
		/* the statistics counted the uncounted pages' losses: a known number */
		{ { 50, 9, 3, 40, 1, 0, true, false }, "events were lost: 50 (ring buffer stats), 40 "
		  "(page flags, and 1 page flagged without a count)", false },
		/* nobody counted them */
		{ { 0, 9, 3, 40, 2, 0, true, false }, "events were lost: 40 (page flags) and an "
		  "unknown number more, before 2 pages flagged without a count", false },
		{ { 0, 9, 1, 0, 1, 0, true, false }, "events were lost, how many is not known: 1 "
		  "page flagged without a count, none in the ring buffer stats", false },
		{ { 0, 9, 4, 0, 4, 0, true, false }, "events were lost, how many is not known: 4 "
		  "pages flagged without a count, none in the ring buffer stats", false },
		/* never read out: a bigger buffer would not have kept them, no advice */
		{ { 0, 9, 0, 0, 0, 13342, true, true }, "events were lost: 13342 left unread in the "
		  "ring buffer (the final drain was cut short)", true },
		{ { 40, 9, 2, 40, 0, 5, true, true }, "events were lost: 40 (ring buffer stats), 40 "
		  "(page flags); and 5 left unread in the ring buffer (the final drain was cut "
		  "short)", false },
		{ { 0, 9, 0, 0, 0, 3, true, false }, "events were lost: 3 left unread in the ring "
		  "buffer (the final drain did not read them)", true },
		/* cut short, but its statistics could not say what it left */
		{ { 0, 9, 0, 0, 0, 0, false, true }, "events were lost: an unknown number left "
		  "unread in the ring buffer (the final drain was cut short, its statistics "
		  "unreadable)", true },
		/* cut short after it had read everything */
		{ { 0, 9, 0, 0, 0, 0, true, true }, NULL, false },
	};
	static const char advice[] = "; try a larger --buffer-size or a shorter --poll-interval";
	unsigned int i;
	char buf[512], want[512];

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		strcpy(buf, "untouched");
		if (!t[i].note) {
			assert_false(rec_losses_note(&t[i].l, buf, sizeof(buf)));
			assert_string_equal(buf, "untouched");
			continue;
		}
		assert_true(rec_losses_note(&t[i].l, buf, sizeof(buf)));
		snprintf(want, sizeof(want), "%s%s", t[i].note, t[i].bare ? "" : advice);
		assert_string_equal(buf, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_pages_to_chunks, setup),
		cmocka_unit_test_setup(test_drain_reads_partial_page, setup),
		cmocka_unit_test_setup(test_age_flush, setup),
		cmocka_unit_test_setup(test_rounds_bounded, setup),
		cmocka_unit_test_setup(test_abort_drain, setup),
		cmocka_unit_test_setup(test_thread, setup),
		cmocka_unit_test_setup(test_errors, setup),
		cmocka_unit_test_setup(test_uncounted_pages, setup),
		cmocka_unit_test(test_losses_note),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
