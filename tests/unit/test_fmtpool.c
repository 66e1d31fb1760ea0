// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fmtpool: records formatted by 1 to 4 workers must come out as the serial loop writes
 * them, in submission order, whatever order the workers finish in (some batches are made
 * slow on purpose): the file is compared with text built here by snprintf, record by
 * record. Counts around the batch size and many more batches than the pool has places;
 * odd record sizes; a write error reported by submit and finish.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "fmtpool.h"
#include "io.h"

/* A record: a number and a tag, padded to an odd size. */
struct rec {
	uint64_t v;
	uint32_t tag;
	char pad[9];
};

struct wctx {
	unsigned int id;
	size_t batches, recs;
};

/* Text of one record: not the pool's business how; any deterministic text will do. */
static size_t put_rec(char *p, const struct rec *r)
{
	return (size_t)sprintf(p, "%llu:%u\n", (unsigned long long)r->v, r->tag);
}

static size_t format(void *ctx, const void *recs, size_t n, char *out)
{
	struct wctx *w = ctx;
	const struct rec *r = recs;
	size_t i, len = 0;

	/* every third batch waits, so later batches finish first on the other workers */
	if (r[0].v % 3 == 0) {
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
	}
	for (i = 0; i < n; i++)
		len += put_rec(out + len, &r[i]);
	w->batches++;
	w->recs += n;
	return len;
}

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Run count records through a pool of nworkers onto fd; the expected text into *want. */
static int run(int fd, unsigned int nworkers, size_t count, char **want,
	       size_t *want_len, struct wctx *ctx)
{
	void *pctx[VMT_FMTPOOL_MAX_WORKERS + 1];
	struct vmt_fmtpool *p;
	size_t i, n = 0, cap = count * 32 + 1, wl = 0;
	char *exp = malloc(cap);
	struct rec *recs;
	int ret, first = 0;

	assert_non_null(exp);
	for (i = 0; i <= nworkers; i++) {	/* the workers', and the producer's */
		ctx[i].id = (unsigned int)i;
		ctx[i].batches = ctx[i].recs = 0;
		pctx[i] = &ctx[i];
	}
	assert_int_equal(vmt_fmtpool_new(fd, sizeof(struct rec), 32, nworkers, format, pctx,
					 &p), 0);
	recs = vmt_fmtpool_records(p);
	for (i = 0; i < count; i++) {
		uint64_t r = rnd();
		struct rec *x;

		if (n == VMT_FMTPOOL_BATCH) {
			void *next;

			ret = vmt_fmtpool_submit(p, n, &next);
			if (ret && !first)
				first = ret;
			recs = next;
			n = 0;
		}
		x = &recs[n++];
		/* numbers of every length, small ones often */
		x->v = r >> (r % 64);
		x->tag = (uint32_t)i;
		wl += (size_t)snprintf(exp + wl, cap - wl, "%llu:%u\n", (unsigned long long)x->v,
				       (unsigned int)i);
	}
	ret = vmt_fmtpool_finish(p, n);
	*want = exp;
	*want_len = wl;
	return first ? first : ret;
}

static void check(unsigned int nworkers, size_t count)
{
	char path[64], *got, *want;
	struct wctx ctx[VMT_FMTPOOL_MAX_WORKERS + 1];
	size_t got_len, want_len, batches = 0, recs = 0;
	unsigned int i;
	int fd;

	snprintf(path, sizeof(path), "/tmp/vmt-fmtpool-%d.out", (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(run(fd, nworkers, count, &want, &want_len, ctx), 0);
	close(fd);
	assert_int_equal(vmt_io_read_file(path, 1 << 30, &got, &got_len), 0);
	unlink(path);
	for (i = 0; i <= nworkers; i++) {
		batches += ctx[i].batches;
		recs += ctx[i].recs;
	}
	assert_int_equal(recs, count);
	assert_int_equal(batches, (count + VMT_FMTPOOL_BATCH - 1) / VMT_FMTPOOL_BATCH);
	if (got_len != want_len || memcmp(got, want, want_len) != 0) {
		size_t at = 0;

		while (at < got_len && at < want_len && got[at] == want[at])
			at++;
		fail_msg("%u workers, %zu records: %zu bytes, expected %zu; first difference at "
			 "byte %zu", nworkers, count, got_len, want_len, at);
	}
	free(got);
	free(want);
}

static void test_order(void **state)
{
	static const size_t counts[] = {
		0, 1, VMT_FMTPOOL_BATCH - 1, VMT_FMTPOOL_BATCH, VMT_FMTPOOL_BATCH + 1,
		/* many times the places of the largest pool: each place is reused */
		VMT_FMTPOOL_BATCH * 23 + 7,
	};
	unsigned int w;
	size_t i;

	(void)state;
	for (w = 1; w <= VMT_FMTPOOL_MAX_WORKERS; w++)
		for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
			check(w, counts[i]);
}

/* A write that fails: the error comes back from submit (soon) and from finish. */
static void test_write_error(void **state)
{
	char path[64], *want;
	struct wctx ctx[VMT_FMTPOOL_MAX_WORKERS + 1];
	size_t want_len;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/vmt-fmtpool-%d.ro", (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(run(fd, 2, VMT_FMTPOOL_BATCH * 12, &want, &want_len, ctx),
			 -EBADF);
	close(fd);
	unlink(path);
	free(want);
}

static void test_bad_args(void **state)
{
	struct vmt_fmtpool *p = NULL;
	void *ctx[2] = { NULL, NULL };

	(void)state;
	assert_int_equal(vmt_fmtpool_new(1, 8, 32, 0, format, ctx, &p), -EINVAL);
	assert_int_equal(vmt_fmtpool_new(1, 8, 32, VMT_FMTPOOL_MAX_WORKERS + 1, format, ctx, &p),
			 -EINVAL);
	assert_null(p);
	assert_int_equal(vmt_fmtpool_finish(NULL, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_bad_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
