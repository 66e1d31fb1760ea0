// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the live view's end (record/live.h): a vCPU stuck in its exit with nothing
 * else traced (the real sample-kvm.vmt fed up to its first exit, as a stuck vCPU's page
 * reaches the view at the stop) gets its last interval up to the stop, however long after
 * the exit the stop came (6 s: it once printed nothing past 5 s), with the exit open for
 * that long; a stop later than the monotonic time that passed, or before the recording's
 * start, is not believed and the view ends with the last event.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "iterate.h"
#include "live.h"
#include "reader.h"

#define NS 1000000000ULL

/*
 * The view's lines for a stop after ns past the last event fed (within: the monotonic
 * time the recorder says passed, 0: unknown), into buf; returns the intervals printed.
 */
static uint64_t stuck(uint64_t after_ns, uint64_t within, char *buf, size_t size,
		      uint64_t *open_since)
{
	struct rec_live_config cfg = { .interval_ns = 300000000ULL, .kvm = true };
	struct rec_live_totals t;
	const struct vmt_item *item;
	struct vmt_pass_input in;
	struct vmt_consumer c;
	struct vmt_reader *r;
	struct vmt_pass *pass;
	struct rec_live *l;
	struct vmt_iter it;
	char path[512], why[256];
	FILE *f = fmemopen(buf, size, "w");

	assert_non_null(f);
	cfg.out = f;
	snprintf(path, sizeof(path), "%s/tests/data/sample-kvm.vmt", TOP_SRCDIR);
	assert_int_equal(vmt_reader_open(path, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(rec_live_new(&cfg, &l), 0);
	c = rec_live_consumer(l);
	vmt_pass_input_reader(&in, r);
	assert_int_equal(vmt_pass_begin(&in, NULL, &c, 1, &it, &pass), 0);
	/* up to the first exit: it stays open, nothing else pairs */
	while ((item = vmt_reader_next_item(r)) && it.exits == 0)
		assert_int_equal(vmt_pass_item(pass, item), 0);
	assert_int_equal(it.exits, 1);
	*open_since = it.last_ts - it.start_ts;
	rec_live_end(l, &it, it.last_ts + after_ns, within, 0);
	rec_live_totals(l, &t);
	assert_int_equal(vmt_pass_end(pass), 0);
	rec_live_free(l);
	vmt_reader_close(r);
	fclose(f);
	return t.intervals;
}

/* Lines past 120 columns go on with two spaces: one line each again. */
static void unfold(char *buf)
{
	char *fold;

	while ((fold = strstr(buf, "\n  ")) != NULL)
		memmove(fold, fold + 2, strlen(fold + 2) + 1);	/* "\n  x" -> " x" */
}

/* The value of key=VALUE on the last line that starts with prefix, or NULL. */
static const char *last_value(const char *buf, const char *prefix, const char *key, char *out,
			      size_t size)
{
	const char *line = NULL, *p = buf, *v;
	char pat[64];

	for (; (p = strstr(p, prefix)) != NULL; p++)
		if (p == buf || p[-1] == '\n')
			line = p;
	if (!line)
		return NULL;
	snprintf(pat, sizeof(pat), " %s=", key);
	v = strstr(line, pat);
	if (!v || (strchr(line, '\n') && v > strchr(line, '\n')))
		return NULL;
	v += strlen(pat);
	snprintf(out, size, "%.*s", (int)strcspn(v, " \n"), v);
	return out;
}

static void test_stuck_long(void **state)
{
	static char buf[1 << 16];
	uint64_t since, after;
	char v[64];

	(void)state;
	for (after = 4 * NS; after <= 6 * NS; after += 2 * NS) {
		memset(buf, 0, sizeof(buf));
		assert_int_equal(stuck(after, 0, buf, sizeof(buf), &since), 1);
		unfold(buf);
		assert_non_null(last_value(buf, "live ", "open", v, sizeof(v)));
		assert_string_equal(v, "1");
		/* open from its exit to the stop: after the last event fed, which is the exit */
		assert_non_null(last_value(buf, "live ", "open_max_ns", v, sizeof(v)));
		assert_int_equal(strtoull(v, NULL, 10), after);
	}
	/* the monotonic time that passed bounds the stop, a second given */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(stuck(6 * NS, since + 6 * NS, buf, sizeof(buf), &since), 1);
	/* a second more than passed: the clocks may differ that much */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(stuck(6 * NS + NS / 2, since + 6 * NS, buf, sizeof(buf), &since), 1);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(stuck(600 * NS, since + 6 * NS, buf, sizeof(buf), &since), 0);
	assert_null(strstr(buf, "live "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stuck_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
