// SPDX-License-Identifier: GPL-2.0-or-later
/* pairing: exit->entry per task across CPUs, orphans, gaps, idle tasks, clock skew. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pairing.h"

#define MAXP 16

struct got {
	unsigned int n;
	uint64_t lat[MAXP];
	int32_t pid[MAXP];
};

static void on_pair(const struct vmt_pair *p, void *arg)
{
	struct got *g = arg;

	if (g->n < MAXP) {
		g->lat[g->n] = p->lat;
		g->pid[g->n] = p->end->pid;
	}
	g->n++;
}

/* Script: B/E = begin/end, G = gap; cpu, ts, pid. */
struct step {
	char what;
	uint32_t cpu;
	uint64_t ts;
	int32_t pid;
};

struct pcase {
	const char *name;
	struct step steps[12];
	unsigned int pairs;
	uint64_t lat[4];
	uint64_t orphan_begins, orphan_ends, gap_dropped, unfinished, backwards;
};

static const struct pcase cases[] = {
	{ "simple", { { 'B', 0, 10, 5 }, { 'E', 0, 15, 5 }, { 0 } }, 1, { 5 }, 0, 0, 0, 0, 0 },
	{ "zero ns", { { 'B', 0, 10, 5 }, { 'E', 0, 10, 5 }, { 0 } }, 1, { 0 }, 0, 0, 0, 0, 0 },
	{ "two tasks interleaved",
	  { { 'B', 0, 10, 5 }, { 'B', 1, 11, 6 }, { 'E', 1, 14, 6 }, { 'E', 0, 20, 5 }, { 0 } },
	  2, { 3, 10 }, 0, 0, 0, 0, 0 },
	{ "migration across CPUs", { { 'B', 0, 10, 5 }, { 'E', 1, 30, 5 }, { 0 } }, 1, { 20 },
	  0, 0, 0, 0, 0 },
	{ "begin twice", { { 'B', 0, 10, 5 }, { 'B', 0, 12, 5 }, { 'E', 0, 13, 5 }, { 0 } }, 1,
	  { 1 }, 1, 0, 0, 0, 0 },
	{ "end without begin", { { 'E', 0, 10, 5 }, { 'B', 0, 12, 5 }, { 'E', 0, 13, 5 }, { 0 } },
	  1, { 1 }, 0, 1, 0, 0, 0 },
	{ "open at stop", { { 'B', 0, 10, 5 }, { 0 } }, 0, { 0 }, 0, 0, 0, 1, 0 },
	{ "gap on the begin CPU", { { 'B', 0, 10, 5 }, { 'G', 0, 12, 0 }, { 'E', 0, 15, 5 }, { 0 } },
	  0, { 0 }, 0, 0, 1, 0, 0 },
	{ "gap on the end CPU after a migration",
	  { { 'B', 0, 10, 5 }, { 'G', 1, 12, 0 }, { 'E', 1, 15, 5 }, { 0 } }, 0, { 0 }, 0, 0, 1, 0,
	  0 },
	{ "gap elsewhere does not matter",
	  { { 'B', 0, 10, 5 }, { 'G', 2, 12, 0 }, { 'E', 0, 15, 5 }, { 0 } }, 1, { 5 }, 0, 0, 0, 0,
	  0 },
	{ "gap before the begin does not matter",
	  { { 'G', 0, 5, 0 }, { 'B', 0, 10, 5 }, { 'E', 0, 15, 5 }, { 0 } }, 1, { 5 }, 0, 0, 0, 0,
	  0 },
	{ "idle tasks of two CPUs are different tasks",
	  { { 'B', 0, 10, 0 }, { 'B', 1, 11, 0 }, { 'E', 0, 12, 0 }, { 'E', 1, 14, 0 }, { 0 } }, 2,
	  { 2, 3 }, 0, 0, 0, 0, 0 },
	{ "entry stamped before its exit",
	  { { 'B', 0, 10, 5 }, { 'E', 1, 9, 5 }, { 0 } }, 0, { 0 }, 0, 0, 0, 0, 1 },
};

static void test_cases(void **state)
{
	unsigned int i, k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pcase *c = &cases[i];
		struct got g = { 0 };
		struct vmt_pairing *p = vmt_pairing_new(on_pair, &g);
		const struct vmt_pairing_stats *st;

		assert_non_null(p);
		for (k = 0; c->steps[k].what; k++) {
			const struct step *s = &c->steps[k];
			struct vmt_event ev;

			memset(&ev, 0, sizeof(ev));
			ev.cpu = s->cpu;
			ev.ts = s->ts;
			ev.pid = s->pid;
			if (s->what == 'G') {
				assert_int_equal(vmt_pairing_gap(p, s->cpu), 0);
				continue;
			}
			ev.kind = s->what == 'B' ? VMT_EV_BEGIN : VMT_EV_END;
			assert_int_equal(vmt_pairing_event(p, &ev), 0);
		}
		vmt_pairing_finish(p);
		st = vmt_pairing_stats(p);
		print_message("case: %s\n", c->name);
		assert_int_equal(g.n, c->pairs);
		assert_int_equal(st->pairs, c->pairs);
		for (k = 0; k < c->pairs && k < 4; k++)
			assert_int_equal(g.lat[k], c->lat[k]);
		assert_int_equal(st->orphan_begins, c->orphan_begins);
		assert_int_equal(st->orphan_ends, c->orphan_ends);
		assert_int_equal(st->gap_dropped, c->gap_dropped);
		assert_int_equal(st->unfinished, c->unfinished);
		assert_int_equal(st->backwards, c->backwards);
		vmt_pairing_free(p, NULL, NULL);
	}
}

/* Many tasks: the table grows and keeps every task apart. */
static void test_many_tasks(void **state)
{
	struct got g = { 0 };
	struct vmt_pairing *p = vmt_pairing_new(on_pair, &g);
	struct vmt_event ev;
	int32_t pid;

	(void)state;
	memset(&ev, 0, sizeof(ev));
	for (pid = 1; pid <= 5000; pid++) {
		ev.pid = pid;
		ev.kind = VMT_EV_BEGIN;
		ev.ts = (uint64_t)pid;
		assert_int_equal(vmt_pairing_event(p, &ev), 0);
	}
	for (pid = 1; pid <= 5000; pid++) {
		ev.pid = pid;
		ev.kind = VMT_EV_END;
		ev.ts = 10000 + (uint64_t)pid;
		assert_int_equal(vmt_pairing_event(p, &ev), 0);
	}
	assert_int_equal(vmt_pairing_stats(p)->pairs, 5000);
	assert_int_equal(g.lat[0], 10000);
	vmt_pairing_free(p, NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_many_tasks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
