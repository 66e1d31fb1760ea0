// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pairing: exit->entry per task across CPUs, orphans, gaps, idle tasks, clock skew, and
 * slices joined against one pairing.
 */
#include "config.h"

#include <setjmp.h>
#include <stdbool.h>
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
	unsigned int bad_begin;	/* pairs whose begin is not the event that began them */
};

static void on_pair(const struct vmt_pair *p, void *arg)
{
	struct got *g = arg;

	if (g->n < MAXP) {
		g->lat[g->n] = p->lat;
		g->pid[g->n] = p->end->pid;
	}
	/* each begin carries its own time * 7 in reason, each end 0 */
	if (p->begin->kind != VMT_EV_BEGIN || p->begin->ts != p->end->ts - p->lat ||
	    p->begin->reason != p->begin->ts * 7 || p->begin->pid != p->end->pid ||
	    p->end->reason != 0)
		g->bad_begin++;
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

/*
 * The time a gap hides between two events of a task (struct vmt_pair's unknown): script
 * steps as above, a gap's hole from ts to until; the pairs' unknown values in order.
 */
struct ustep {
	char what;
	uint32_t cpu;
	uint64_t ts;
	int32_t pid;
	uint64_t until;
};

struct ucase {
	const char *name;
	struct ustep steps[10];
	unsigned int pairs;
	uint64_t unknown[3];
};

static const struct ucase ucases[] = {
	{ "a hole inside the span between two pairs",
	  { { 'B', 0, 100, 5, 0 }, { 'E', 0, 200, 5, 0 }, { 'G', 0, 250, 0, 400 },
	    { 'B', 0, 500, 5, 0 }, { 'E', 0, 600, 5, 0 }, { 0 } }, 2, { 0, 150 } },
	{ "a hole that began before the task's last event: from that event on",
	  { { 'B', 0, 100, 5, 0 }, { 'E', 0, 200, 5, 0 }, { 'G', 0, 150, 0, 300 },
	    { 'B', 0, 500, 5, 0 }, { 'E', 0, 600, 5, 0 }, { 0 } }, 2, { 0, 100 } },
	{ "the CPU the task left: its hole up to the next event elsewhere",
	  { { 'B', 0, 100, 5, 0 }, { 'E', 0, 200, 5, 0 }, { 'G', 0, 120, 0, 10000 },
	    { 'B', 1, 500, 5, 0 }, { 'E', 1, 600, 5, 0 }, { 0 } }, 2, { 0, 300 } },
	{ "holes on both CPUs: their overlap once",
	  { { 'B', 0, 100, 5, 0 }, { 'E', 0, 200, 5, 0 }, { 'G', 0, 220, 0, 400 },
	    { 'G', 1, 300, 0, 450 }, { 'B', 1, 500, 5, 0 }, { 'E', 1, 600, 5, 0 }, { 0 } }, 2,
	  { 0, 230 } },
	{ "a hole on another CPU hides nothing",
	  { { 'B', 0, 100, 5, 0 }, { 'E', 0, 200, 5, 0 }, { 'G', 2, 0, 0, 1000 },
	    { 'B', 0, 500, 5, 0 }, { 'E', 0, 600, 5, 0 }, { 0 } }, 2, { 0, 0 } },
	{ "two gaps without a record between: one hole",
	  { { 'B', 0, 100, 5, 0 }, { 'E', 0, 200, 5, 0 }, { 'G', 0, 210, 0, 300 },
	    { 'G', 0, 210, 0, 350 }, { 'B', 0, 500, 5, 0 }, { 'E', 0, 600, 5, 0 }, { 0 } }, 2,
	  { 0, 140 } },
	{ "a pair dropped at a gap: its hidden part counts",
	  { { 'B', 0, 100, 5, 0 }, { 'G', 0, 150, 0, 300 }, { 'E', 0, 400, 5, 0 },
	    { 'B', 0, 500, 5, 0 }, { 'E', 0, 600, 5, 0 }, { 0 } }, 1, { 150 } },
	{ "a begin inside a damaged chunk's hole (its gap at the start) on another CPU: the "
	  "pair to an end after the hole is dropped",
	  { { 'B', 0, 100, 5, 0 }, { 'E', 0, 200, 5, 0 }, { 'G', 0, 2000, 0, 5000 },
	    { 'B', 1, 3000, 5, 0 }, { 'E', 0, 6000, 5, 0 }, { 'B', 0, 7000, 5, 0 },
	    { 'E', 0, 7100, 5, 0 }, { 0 } }, 2, { 0, 1000 } },
	{ "two holes of a CPU with another task's records between: both count (not the latest "
	  "alone)",
	  { { 'B', 0, 100, 5, 0 }, { 'E', 0, 200, 5, 0 }, { 'G', 0, 250, 0, 300 },
	    { 'B', 0, 300, 6, 0 }, { 'E', 0, 350, 6, 0 }, { 'G', 0, 350, 0, 400 },
	    { 'B', 0, 500, 5, 0 }, { 'E', 0, 600, 5, 0 }, { 0 } }, 3, { 0, 0, 100 } },
	{ "two holes of the CPU left, one of the CPU come to across both: their union",
	  { { 'B', 0, 100, 5, 0 }, { 'E', 0, 200, 5, 0 }, { 'G', 0, 250, 0, 300 },
	    { 'G', 1, 280, 0, 320 }, { 'B', 0, 300, 6, 0 }, { 'G', 0, 300, 0, 400 },
	    { 'B', 1, 500, 5, 0 }, { 'E', 1, 600, 5, 0 }, { 0 } }, 2, { 0, 150 } },
};

static void on_pair_unknown(const struct vmt_pair *p, void *arg)
{
	uint64_t *u = arg;

	if (u[0] < 3)
		u[1 + u[0]] = p->unknown;
	u[0]++;
}

static void test_unknown(void **state)
{
	unsigned int i, k;

	(void)state;
	for (i = 0; i < sizeof(ucases) / sizeof(ucases[0]); i++) {
		const struct ucase *c = &ucases[i];
		uint64_t got[4] = { 0 };
		struct vmt_pairing *p = vmt_pairing_new(on_pair_unknown, got);

		assert_non_null(p);
		print_message("case: %s\n", c->name);
		for (k = 0; c->steps[k].what; k++) {
			const struct ustep *s = &c->steps[k];
			struct vmt_event ev = { .cpu = s->cpu, .ts = s->ts, .pid = s->pid };

			if (s->what == 'G') {
				assert_int_equal(vmt_pairing_gap(p, s->cpu, s->ts, s->until), 0);
				continue;
			}
			ev.kind = s->what == 'B' ? VMT_EV_BEGIN : VMT_EV_END;
			assert_int_equal(vmt_pairing_event(p, &ev), 0);
		}
		assert_int_equal(got[0], c->pairs);
		for (k = 0; k < c->pairs; k++)
			assert_int_equal(got[1 + k], c->unknown[k]);
		vmt_pairing_free(p, NULL, NULL);
	}
}

/*
 * Many holes on one CPU, each between two records of a busy task (so none merge): the
 * list is pruned of those every task has passed, or merged two by two while a task silent
 * through all of them needs them, and that task still counts every one exactly (5000
 * holes of 10 ticks, in a span where its CPU also had the busy task's records); at most
 * 1024 are kept; the busy task's pairs count the one hole before each, and the
 * count holds after the prunes.
 */
static void test_many_holes(void **state)
{
	uint64_t got[4] = { 0 };
	struct vmt_pairing *p = vmt_pairing_new(on_pair_unknown, got);
	struct vmt_event ev = { .cpu = 0 };
	uint64_t t = 1000, k;

	(void)state;
	assert_non_null(p);
	/* task 9: an exit at 500 on CPU 1, its entry after every hole */
	ev = (struct vmt_event){ .kind = VMT_EV_BEGIN, .cpu = 1, .ts = 500, .pid = 9 };
	assert_int_equal(vmt_pairing_event(p, &ev), 0);
	for (k = 0; k < 5000; k++, t += 100) {
		ev = (struct vmt_event){ .kind = VMT_EV_BEGIN, .cpu = 0, .ts = t, .pid = 5 };
		assert_int_equal(vmt_pairing_event(p, &ev), 0);
		ev = (struct vmt_event){ .kind = VMT_EV_END, .cpu = 0, .ts = t + 10, .pid = 5 };
		assert_int_equal(vmt_pairing_event(p, &ev), 0);
		assert_int_equal(vmt_pairing_gap(p, 0, t + 50, t + 60), 0);
	}
	/* task 9 needs every hole: merged two by two past 1024, so never more are kept */
	assert_true(vmt_pairing_holes_kept(p) <= 1024);
	/* task 5's pairs: the hole between two of them adds to its running total */
	assert_int_equal(got[0], 5000);
	assert_int_equal(got[1], 0);
	assert_int_equal(got[2], 10);
	assert_int_equal(got[3], 20);
	/* task 9 ends on CPU 0: its span crossed all 5000 holes of CPU 0 */
	got[0] = 0;
	ev = (struct vmt_event){ .kind = VMT_EV_END, .cpu = 0, .ts = t, .pid = 9 };
	assert_int_equal(vmt_pairing_event(p, &ev), 0);
	assert_int_equal(got[0], 0);	/* dropped: a pair across a gap is never made */
	/* its next pair, on CPU 0 right away: nothing hidden since */
	ev = (struct vmt_event){ .kind = VMT_EV_BEGIN, .cpu = 0, .ts = t + 1, .pid = 9 };
	assert_int_equal(vmt_pairing_event(p, &ev), 0);
	ev = (struct vmt_event){ .kind = VMT_EV_END, .cpu = 0, .ts = t + 2, .pid = 9 };
	assert_int_equal(vmt_pairing_event(p, &ev), 0);
	assert_int_equal(got[0], 1);
	assert_int_equal(got[1], 5000 * 10);	/* the dropped pair's hidden time, carried */
	assert_int_equal(vmt_pairing_stats(p)->gap_dropped, 1);
	/*
	 * 5000 more with task 9 past them all, so the list is pruned; task 7 begins on CPU 1
	 * before the last 3 holes and ends after them: those 3 count, nothing older.
	 */
	t += 100;
	for (k = 0; k < 5000; k++, t += 100) {
		if (k == 4997) {
			ev = (struct vmt_event){ .kind = VMT_EV_BEGIN, .cpu = 1, .ts = t, .pid = 7 };
			assert_int_equal(vmt_pairing_event(p, &ev), 0);
		}
		ev = (struct vmt_event){ .kind = VMT_EV_BEGIN, .cpu = 0, .ts = t, .pid = 5 };
		assert_int_equal(vmt_pairing_event(p, &ev), 0);
		ev = (struct vmt_event){ .kind = VMT_EV_END, .cpu = 0, .ts = t + 10, .pid = 5 };
		assert_int_equal(vmt_pairing_event(p, &ev), 0);
		assert_int_equal(vmt_pairing_gap(p, 0, t + 50, t + 60), 0);
	}
	got[0] = 0;
	ev = (struct vmt_event){ .kind = VMT_EV_END, .cpu = 0, .ts = t, .pid = 7 };
	assert_int_equal(vmt_pairing_event(p, &ev), 0);	/* dropped, across gaps */
	ev = (struct vmt_event){ .kind = VMT_EV_BEGIN, .cpu = 0, .ts = t + 1, .pid = 7 };
	assert_int_equal(vmt_pairing_event(p, &ev), 0);
	ev = (struct vmt_event){ .kind = VMT_EV_END, .cpu = 0, .ts = t + 2, .pid = 7 };
	assert_int_equal(vmt_pairing_event(p, &ev), 0);
	assert_int_equal(got[0], 1);
	assert_int_equal(got[1], 3 * 10);
	assert_true(vmt_pairing_holes_kept(p) <= 1024);
	vmt_pairing_free(p, NULL, NULL);
}

/*
 * Each case three ways: events from the caller's memory with a callback; decoded into
 * the pairing's buffer (begins kept by taking it) with a callback; and into the buffer
 * without one, the pairs returned (1, vmt_pairing_last()).
 */
static void test_cases(void **state)
{
	unsigned int i, k, mode;

	(void)state;
	for (mode = 0; mode < 3; mode++) {
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			const struct pcase *c = &cases[i];
			struct got g = { 0 };
			struct vmt_pairing *p = vmt_pairing_new(mode < 2 ? on_pair : NULL, &g);
			const struct vmt_pairing_stats *st;

			assert_non_null(p);
			for (k = 0; c->steps[k].what; k++) {
				const struct step *s = &c->steps[k];
				struct vmt_event local, *ev = mode ? vmt_pairing_buffer(p) : &local;
				int ret;

				memset(ev, 0, sizeof(*ev));
				ev->cpu = s->cpu;
				ev->ts = s->ts;
				ev->pid = s->pid;
				if (s->what == 'G') {
					assert_int_equal(vmt_pairing_gap(p, s->cpu, 0, UINT64_MAX),
							 0);
					continue;
				}
				ev->kind = s->what == 'B' ? VMT_EV_BEGIN : VMT_EV_END;
				ev->reason = s->what == 'B' ? s->ts * 7 : 0;
				ret = vmt_pairing_event(p, ev);
				if (mode == 2 && ret == 1) {
					on_pair(vmt_pairing_last(p), &g);
					ret = 0;
				}
				assert_int_equal(ret, 0);
			}
			vmt_pairing_finish(p);
			st = vmt_pairing_stats(p);
			print_message("case: %s (way %u)\n", c->name, mode);
			assert_int_equal(g.n, c->pairs);
			assert_int_equal(g.bad_begin, 0);
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

/*
 * Slices joined (vmt_pairing_join) against one pairing: random events of a few tasks on
 * a few CPUs (migrations, orphans of both kinds, gaps, idle tasks, ends stamped before
 * their begins), cut at random places into 1 to 12 slices. The pairs (as a sum of a hash
 * of each, order aside) and every count must be the same.
 */
struct pairsum {
	uint64_t n, hash;
};

static void on_pair_sum(const struct vmt_pair *p, void *arg)
{
	struct pairsum *ps = arg;
	uint64_t h = p->begin->ts * 0x9e3779b97f4a7c15ULL ^ p->end->ts * 0xc2b2ae3d27d4eb4fULL ^
		     (uint64_t)(uint32_t)p->end->pid << 7 ^ p->begin->cpu << 3 ^ p->end->cpu;

	ps->n++;
	ps->hash += h * 0xff51afd7ed558ccdULL + p->lat;
}

#define JOIN_EVENTS 4000

static void test_join(void **state)
{
	static struct vmt_event evs[JOIN_EVENTS];
	static bool gap[JOIN_EVENTS];
	uint64_t seed = 88172645463325252ULL, ts = 0;
	unsigned int round, i;

	(void)state;
	for (round = 0; round < 200; round++) {
		struct pairsum one = { 0 }, joined = { 0 };
		struct vmt_pairing *p = vmt_pairing_new(on_pair_sum, &one);
		struct vmt_pairing *join = vmt_pairing_new(on_pair_sum, &joined);
		struct vmt_pairing_stats sum = { 0 };
		const struct vmt_pairing_stats *a, *b;
		unsigned int nslices, cut[13], k;

#define RND() (seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17, seed)
		for (i = 0; i < JOIN_EVENTS; i++) {
			struct vmt_event *ev = &evs[i];

			memset(ev, 0, sizeof(*ev));
			gap[i] = RND() % 97 == 0;
			ts += RND() % 5;
			ev->ts = RND() % 211 ? ts : ts - RND() % 3;	/* now and then backwards */
			ev->cpu = (uint32_t)(RND() % 4);
			ev->pid = RND() % 13 ? (int32_t)(100 + RND() % 6) : 0;
			ev->kind = RND() % 2 ? VMT_EV_BEGIN : VMT_EV_END;
		}
		nslices = 1 + (unsigned int)(RND() % 12);
		cut[0] = 0;
		for (k = 1; k < nslices; k++)
			cut[k] = (unsigned int)(RND() % JOIN_EVENTS);
		cut[nslices] = JOIN_EVENTS;
		for (k = 1; k < nslices; k++) {	/* in order (insertion sort) */
			unsigned int j, c = cut[k];

			for (j = k; j > 1 && cut[j - 1] > c; j--)
				cut[j] = cut[j - 1];
			cut[j] = c;
		}
		assert_non_null(p);
		assert_non_null(join);
		for (i = 0; i < JOIN_EVENTS; i++) {
			if (gap[i])
				assert_int_equal(vmt_pairing_gap(p, evs[i].cpu, 0, UINT64_MAX), 0);
			assert_int_equal(vmt_pairing_event(p, &evs[i]), 0);
		}
		vmt_pairing_finish(p);
		for (k = 0; k < nslices; k++) {
			struct vmt_pairing_edges e = { 0 };
			struct vmt_pairing *sl = vmt_pairing_new(on_pair_sum, &joined);

			assert_non_null(sl);
			vmt_pairing_log_edges(sl, &e);
			for (i = cut[k]; i < cut[k + 1]; i++) {
				if (gap[i])
					assert_int_equal(vmt_pairing_gap(sl, evs[i].cpu, 0,
									 UINT64_MAX), 0);
				assert_int_equal(vmt_pairing_event(sl, &evs[i]), 0);
			}
			assert_int_equal(vmt_pairing_finish(sl), 0);
			a = vmt_pairing_stats(sl);
			sum.pairs += a->pairs;
			sum.orphan_begins += a->orphan_begins;
			sum.orphan_ends += a->orphan_ends;
			sum.gap_dropped += a->gap_dropped;
			sum.unfinished += a->unfinished;
			sum.backwards += a->backwards;
			assert_int_equal(vmt_pairing_join(join, &e, &sum), 0);
			vmt_pairing_edges_free(&e);
			vmt_pairing_free(sl, NULL, NULL);
		}
		b = vmt_pairing_stats(join);
		sum.pairs += b->pairs;
		sum.gap_dropped += b->gap_dropped;
		sum.backwards += b->backwards;
		a = vmt_pairing_stats(p);
		assert_int_equal(joined.n, one.n);
		assert_int_equal(joined.hash, one.hash);
		assert_int_equal(sum.pairs, a->pairs);
		assert_int_equal(sum.orphan_begins, a->orphan_begins);
		assert_int_equal(sum.orphan_ends, a->orphan_ends);
		assert_int_equal(sum.gap_dropped, a->gap_dropped);
		assert_int_equal(sum.unfinished, a->unfinished);
		assert_int_equal(sum.backwards, a->backwards);
		vmt_pairing_free(p, NULL, NULL);
		vmt_pairing_free(join, NULL, NULL);
	}
}

/* The open begins: (pid, ts) of each, summed into a key that needs no order. */
struct opens {
	unsigned int n;
	uint64_t sum;
};

static void on_open(const struct vmt_event *b, void *arg)
{
	struct opens *o = arg;

	assert_int_equal(b->kind, VMT_EV_BEGIN);
	o->n++;
	o->sum += (uint64_t)b->pid * 1000 + b->ts;
}

static struct opens opens_of(const struct vmt_pairing *p)
{
	struct opens o = { 0 };

	vmt_pairing_each_open(p, on_open, &o);
	return o;
}

static void feed(struct vmt_pairing *p, char what, uint32_t cpu, uint64_t ts, int32_t pid)
{
	struct vmt_event ev = { .cpu = cpu, .ts = ts, .pid = pid };

	ev.kind = what == 'B' ? VMT_EV_BEGIN : VMT_EV_END;
	assert_true(vmt_pairing_event(p, &ev) >= 0);
}

/*
 * Exits in progress, as a live view asks for them: a begin is open until its end, a later
 * begin of the task replaces it, and one whose CPU lost events since can no longer pair.
 */
static void test_each_open(void **state)
{
	struct vmt_pairing *p = vmt_pairing_new(NULL, NULL);
	struct opens o;

	(void)state;
	assert_non_null(p);
	o = opens_of(p);
	assert_int_equal(o.n, 0);
	feed(p, 'B', 0, 10, 5);
	feed(p, 'B', 1, 11, 6);
	o = opens_of(p);
	assert_int_equal(o.n, 2);
	assert_int_equal(o.sum, 5010 + 6011);
	feed(p, 'E', 0, 12, 5);
	o = opens_of(p);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.sum, 6011);
	feed(p, 'B', 1, 13, 6);		/* an orphan: the newer begin is the open one */
	feed(p, 'B', 0, 14, 7);
	o = opens_of(p);
	assert_int_equal(o.n, 2);
	assert_int_equal(o.sum, 6013 + 7014);
	assert_int_equal(vmt_pairing_gap(p, 1, 13, 20), 0);
	o = opens_of(p);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.sum, 7014);
	feed(p, 'B', 1, 21, 6);		/* after the gap: open again */
	o = opens_of(p);
	assert_int_equal(o.n, 2);
	assert_int_equal(o.sum, 6021 + 7014);
	vmt_pairing_finish(p);
	o = opens_of(p);
	assert_int_equal(o.n, 0);
	vmt_pairing_free(p, NULL, NULL);
}

struct unfinished {
	unsigned int n, lost;
	uint64_t sum;
};

static void on_unfinished(const struct vmt_event *b, bool lost_since, void *arg)
{
	struct unfinished *u = arg;

	u->n++;
	u->lost += lost_since;
	u->sum += (uint64_t)b->pid * 1000 + b->ts;
}

/*
 * The exits open at the stop (what finish counts as unfinished): every open begin, those a
 * gap on their CPU parted from their end too (said so), none after finish; a join hands on
 * the last slice's.
 */
static void test_each_unfinished(void **state)
{
	struct vmt_pairing *p = vmt_pairing_new(NULL, NULL), *j;
	struct vmt_pairing_edges e = { 0 };
	struct vmt_pairing_stats st = { 0 };
	struct unfinished u = { 0 };

	(void)state;
	assert_non_null(p);
	feed(p, 'B', 0, 10, 5);
	feed(p, 'E', 0, 12, 5);
	feed(p, 'B', 0, 14, 5);
	feed(p, 'B', 1, 15, 6);
	feed(p, 'B', 2, 16, 7);
	assert_int_equal(vmt_pairing_gap(p, 1, 15, 20), 0);
	vmt_pairing_each_unfinished(p, on_unfinished, &u);
	assert_int_equal(u.n, 3);
	assert_int_equal(u.lost, 1);
	assert_int_equal(u.sum, 5014 + 6015 + 7016);
	assert_int_equal(vmt_pairing_finish(p), 0);
	assert_int_equal(vmt_pairing_stats(p)->unfinished, 3);
	memset(&u, 0, sizeof(u));
	vmt_pairing_each_unfinished(p, on_unfinished, &u);
	assert_int_equal(u.n, 0);
	vmt_pairing_free(p, NULL, NULL);

	/* a slice leaves 5 and 6 open; the join's pairing holds them as the stop's */
	p = vmt_pairing_new(NULL, NULL);
	j = vmt_pairing_new(NULL, NULL);
	assert_non_null(p);
	assert_non_null(j);
	vmt_pairing_log_edges(p, &e);
	feed(p, 'B', 0, 10, 5);
	feed(p, 'B', 1, 11, 6);
	assert_int_equal(vmt_pairing_gap(p, 0, 10, 30), 0);
	assert_int_equal(vmt_pairing_finish(p), 0);
	st = *vmt_pairing_stats(p);
	assert_int_equal(vmt_pairing_join(j, &e, &st), 0);
	memset(&u, 0, sizeof(u));
	vmt_pairing_each_unfinished(j, on_unfinished, &u);
	assert_int_equal(u.n, 2);
	assert_int_equal(u.lost, 1);
	assert_int_equal(u.sum, 5010 + 6011);
	vmt_pairing_edges_free(&e);
	vmt_pairing_free(p, NULL, NULL);
	vmt_pairing_free(j, NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_many_holes),
		cmocka_unit_test(test_many_tasks),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_each_open),
		cmocka_unit_test(test_each_unfinished),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
