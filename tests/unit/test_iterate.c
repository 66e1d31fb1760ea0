// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the pass in steps (iterate.h): items fed one by one through
 * vmt_pass_begin/item/end, with no reader behind them, give the summary vmt_iterate()
 * gives from the same file; the first consumer error stops the feeding and skips finish.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "iterate.h"
#include "reader.h"
#include "summary.h"

static struct vmt_reader *open_sample(const char *name)
{
	char path[512], why[256];
	struct vmt_reader *r;

	snprintf(path, sizeof(path), "%s/tests/data/%s", TOP_SRCDIR, name);
	assert_int_equal(vmt_reader_open(path, NULL, &r, why, sizeof(why)), 0);
	return r;
}

static const struct vmt_summary_opts sopts = { .window_ns = 1000000, .top_n = 10 };

static void whole(const char *name, struct vmt_summary *s, struct vmt_iter *it)
{
	struct vmt_iter_opts io = { .attribute = true };
	struct vmt_reader *r = open_sample(name);
	struct vmt_consumer c;

	assert_int_equal(vmt_summary_consumer(s, &sopts, &c), 0);
	assert_int_equal(vmt_iterate(r, &io, &c, 1, it), 0);
	vmt_reader_close(r);
}

/* The same items, fed by hand to a pass that does not know the reader. */
static void stepwise(const char *name, struct vmt_summary *s, struct vmt_iter *it)
{
	struct vmt_iter_opts io = { .attribute = true };
	struct vmt_reader *r = open_sample(name);
	const struct vmt_item *item;
	struct vmt_pass_input in;
	struct vmt_consumer c;
	struct vmt_pass *pass;

	vmt_pass_input_reader(&in, r);
	in.r = NULL;
	assert_int_equal(vmt_summary_consumer(s, &sopts, &c), 0);
	assert_int_equal(vmt_pass_begin(&in, &io, &c, 1, it, &pass), 0);
	while ((item = vmt_reader_next_item(r)))
		assert_int_equal(vmt_pass_item(pass, item), 0);
	assert_int_equal(vmt_pass_end(pass), 0);
	vmt_reader_close(r);
}

static void same_figures(const char *name)
{
	struct vmt_summary a, b;
	struct vmt_iter ia, ib;
	unsigned int i;

	whole(name, &a, &ia);
	stepwise(name, &b, &ib);
	assert_true(a.pairing.pairs > 0);
	assert_int_equal(a.events, b.events);
	assert_int_equal(a.pairing.pairs, b.pairing.pairs);
	assert_int_equal(a.lat.count, b.lat.count);
	assert_int_equal(a.lat.sum, b.lat.sum);
	assert_int_equal(a.lat.min, b.lat.min);
	assert_int_equal(a.lat.max, b.lat.max);
	assert_int_equal(a.max_window_sum, b.max_window_sum);
	assert_int_equal(a.max_window_at, b.max_window_at);
	assert_int_equal(a.nreasons, b.nreasons);
	assert_int_equal(a.ntasks, b.ntasks);
	assert_int_equal(a.ntop, b.ntop);
	for (i = 0; i < a.ntop; i++) {
		assert_int_equal(a.top[i].lat, b.top[i].lat);
		assert_int_equal(a.top[i].exit.ts, b.top[i].exit.ts);
	}
	assert_int_equal(ia.exits, ib.exits);
	assert_int_equal(ia.context_records, ib.context_records);
	assert_int_equal(a.why, b.why);
	/* no reader: no reader statistics, the rest the same */
	assert_null(ib.r);
	assert_int_equal(b.rd.chunks, 0);
	vmt_summary_free(&a);
	vmt_summary_free(&b);
}

static void test_kvm_sample(void **state)
{
	(void)state;
	same_figures("sample-kvm.vmt");
}

static void test_syscall_sample(void **state)
{
	(void)state;
	same_figures("sample-syscalls.vmt");
}

/* A consumer that fails on its third pair and counts what it is called with after. */
struct failing {
	unsigned int pairs, finished;
};

static int failing_pair(void *state, const struct vmt_iter *it, const struct vmt_pair *p,
			void **task)
{
	struct failing *f = state;

	(void)it;
	(void)p;
	(void)task;
	return ++f->pairs == 3 ? -EIO : 0;
}

static int failing_finish(void *state, const struct vmt_iter *it)
{
	struct failing *f = state;

	(void)it;
	f->finished++;
	return 0;
}

static void test_first_error_stops(void **state)
{
	static const struct vmt_consumer_ops ops = { .name = "failing", .pair = failing_pair,
						     .finish = failing_finish };
	struct vmt_reader *r = open_sample("sample-kvm.vmt");
	struct failing f = { 0 };
	struct vmt_consumer c = { &ops, &f };
	const struct vmt_item *item;
	struct vmt_pass_input in;
	struct vmt_pass *pass;
	struct vmt_iter it;
	int ret = 0, items_after = 0;

	(void)state;
	vmt_pass_input_reader(&in, r);
	assert_int_equal(vmt_pass_begin(&in, NULL, &c, 1, &it, &pass), 0);
	while ((item = vmt_reader_next_item(r))) {
		int rc = vmt_pass_item(pass, item);

		if (ret)
			items_after += rc == -EIO;
		else
			ret = rc;
	}
	assert_int_equal(ret, -EIO);
	assert_true(items_after > 0);	/* every later item got the same error back */
	assert_int_equal(f.pairs, 3);	/* and fed nothing */
	assert_int_equal(vmt_pass_end(pass), -EIO);
	assert_int_equal(f.finished, 0);
	vmt_reader_close(r);
	/* vmt_iterate says the same */
	f.pairs = 0;
	r = open_sample("sample-kvm.vmt");
	assert_int_equal(vmt_iterate(r, NULL, &c, 1, &it), -EIO);
	assert_int_equal(f.pairs, 3);
	assert_int_equal(f.finished, 0);
	vmt_reader_close(r);
}

/* The first k items of name through a pass; *pass left open. */
static struct vmt_reader *feed_first(const char *name, uint64_t k, struct vmt_summary *s,
				     struct vmt_consumer *c, struct vmt_iter *it,
				     struct vmt_pass **pass)
{
	struct vmt_reader *r = open_sample(name);
	const struct vmt_item *item;
	struct vmt_pass_input in;
	uint64_t i;

	vmt_pass_input_reader(&in, r);
	in.r = NULL;
	assert_int_equal(vmt_summary_consumer(s, &sopts, c), 0);
	assert_int_equal(vmt_pass_begin(&in, NULL, c, 1, it, pass), 0);
	for (i = 0; i < k && (item = vmt_reader_next_item(r)); i++)
		assert_int_equal(vmt_pass_item(*pass, item), 0);
	return r;
}

/*
 * vmt_summary_snapshot() in the middle of a pass: the figures of a pass over the same
 * items that ended there (pairs, latencies, windows, reasons, tasks, longest exits).
 */
static void test_snapshot(void **state)
{
	struct vmt_summary a, b, snap;
	struct vmt_pass *pa, *pb;
	struct vmt_reader *ra, *rb;
	struct vmt_consumer ca, cb;	/* the pass keeps a pointer */
	struct vmt_iter ia, ib;
	const uint64_t k = 40000;
	unsigned int i;

	(void)state;
	ra = feed_first("sample-kvm.vmt", k, &a, &ca, &ia, &pa);
	assert_int_equal(vmt_summary_snapshot(&a, &ia, &snap), 0);
	rb = feed_first("sample-kvm.vmt", k, &b, &cb, &ib, &pb);
	assert_int_equal(vmt_pass_end(pb), 0);
	assert_true(b.lat.count > 0);
	assert_true(b.lat.count < 48653);	/* the sample's pairs: k is in the middle */
	assert_int_equal(snap.lat.count, b.lat.count);
	assert_int_equal(snap.pairing.pairs, b.pairing.pairs);
	assert_int_equal(snap.lat.sum, b.lat.sum);
	assert_int_equal(snap.lat.max, b.lat.max);
	assert_int_equal(vmt_latdist_percentile(&snap.all, 99),
			 vmt_latdist_percentile(&b.all, 99));
	assert_int_equal(snap.max_window_sum, b.max_window_sum);
	assert_int_equal(snap.events, b.events);
	assert_int_equal(snap.nreasons, b.nreasons);
	for (i = 0; i < b.nreasons; i++) {
		assert_int_equal(snap.reasons[i].key, b.reasons[i].key);
		assert_int_equal(snap.reasons[i].d.st.sum, b.reasons[i].d.st.sum);
	}
	assert_int_equal(snap.ntasks, b.ntasks);
	for (i = 0; i < b.ntasks; i++) {
		assert_int_equal(snap.tasks[i].pid, b.tasks[i].pid);
		assert_int_equal(snap.tasks[i].d.st.count, b.tasks[i].d.st.count);
		assert_int_equal(snap.tasks[i].max_window_sum, b.tasks[i].max_window_sum);
	}
	assert_int_equal(snap.ntop, b.ntop);
	for (i = 0; i < b.ntop; i++)
		assert_int_equal(snap.top[i].lat, b.top[i].lat);
	/* the pass goes on unharmed */
	assert_int_equal(vmt_pass_end(pa), 0);
	assert_int_equal(a.lat.count, b.lat.count);
	vmt_summary_free(&snap);
	vmt_summary_free(&a);
	vmt_summary_free(&b);
	vmt_reader_close(ra);
	vmt_reader_close(rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kvm_sample),
		cmocka_unit_test(test_syscall_sample),
		cmocka_unit_test(test_first_error_stops),
		cmocka_unit_test(test_snapshot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
