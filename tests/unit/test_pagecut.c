// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of record/pagecut.h on pages written by the page builder (time extends, an
 * absolute time stamp, a stored count of lost events): a cut at a time keeps exactly the
 * records up to it, the rest decodes to exactly the later ones with the same times, the
 * lost count stays with the first page (moved after its new end), and the front cut drops
 * whole pages only.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pagebuilder.h"
#include "pagecut.h"
#include "rbpage.h"

#define NPAGES	3
#define MAXREC	64

static struct vmt_header_page hp;
static uint32_t psize;
static uint64_t want[MAXREC];	/* every record's time, in order */
static unsigned int nwant;

static void add(struct pb *pb, uint64_t ts)
{
	uint32_t payload[2] = { 7, (uint32_t)nwant };

	assert_int_equal(pb_data(pb, ts, payload, sizeof(payload), false), 0);
	want[nwant++] = ts;
}

/* Three pages: 10 records and 5 lost before; a time extend and a time stamp; 4 more. */
static struct rec_chunk *build(void)
{
	struct rec_chunk *c = calloc(1, sizeof(*c));
	uint64_t ts;
	struct pb pb;
	unsigned int i;

	assert_non_null(c);
	c->cap_pages = NPAGES;
	c->buf = calloc(NPAGES, psize);
	assert_non_null(c->buf);
	nwant = 0;
	pb_init(&pb, c->buf, &hp, 1000);
	for (i = 0; i < 10; i++)
		add(&pb, 1000 + 10 * i);
	pb_finish(&pb, true, true, 5);
	pb_init(&pb, c->buf + psize, &hp, 2000);
	add(&pb, 2000);
	add(&pb, 2010);
	add(&pb, 2010 + (1ULL << 30));	/* a time extend before it */
	ts = 2020 + (1ULL << 30);
	assert_int_equal(pb_time_stamp(&pb, ts), 0);
	add(&pb, ts);
	add(&pb, ts + 5);
	pb_finish(&pb, false, false, 0);
	pb_init(&pb, c->buf + 2 * psize, &hp, ts + 100);
	for (i = 0; i < 4; i++)
		add(&pb, ts + 100 + i);
	pb_finish(&pb, false, false, 0);
	c->npages = NPAGES;
	c->info.cpu = 3;
	c->info.first_ts = 1000;
	c->info.last_ts = ts + 103;
	c->info.missed_pages = 1;
	c->info.missed_count = 5;
	return c;
}

static struct rec_chunk *empty(void)
{
	struct rec_chunk *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->cap_pages = NPAGES;
	c->buf = malloc((size_t)NPAGES * psize);
	assert_non_null(c->buf);
	memset(c->buf, 0xa5, (size_t)NPAGES * psize);	/* the pool's old bytes */
	return c;
}

static void chunk_free(struct rec_chunk *c)
{
	free(c->buf);
	free(c);
}

/* c's records are want[from..to): times in order, and its infos agree. */
static void expect(const struct rec_chunk *c, unsigned int from, unsigned int to)
{
	struct vmt_rbrecord rec;
	struct vmt_rbpage pg;
	unsigned int i, k = from;

	for (i = 0; i < c->npages; i++) {
		assert_int_equal(vmt_rbpage_init(&pg, &hp, c->buf + (size_t)i * psize, psize), 0);
		while (vmt_rbpage_next(&pg, &rec) > 0) {
			assert_true(k < to);
			assert_int_equal(rec.ts, want[k]);
			assert_int_equal(((const uint32_t *)rec.data)[1], k);
			k++;
		}
	}
	assert_int_equal(k, to);
	if (to > from)
		assert_int_equal(c->info.last_ts, want[to - 1]);
}

static void test_back(void **state)
{
	static const struct {
		uint64_t limit;
		uint32_t kept, rest_pages;
		unsigned int nkept;
	} t[] = {
		{ 1045, 1, 3, 5 },		/* inside the first page: its lost count stays */
		{ 1090, 1, 2, 10 },		/* its last record: the later pages go whole */
		{ 2010 + (1ULL << 30) - 1, 2, 2, 12 },	/* before the time extend's record */
		{ 2025 + (1ULL << 30), 2, 1, 15 },	/* the page's end */
		{ 2122 + (1ULL << 30), 3, 1, 18 },	/* before the last record */
		{ 2123 + (1ULL << 30), 3, 0, 19 },	/* the last record: nothing after */
		{ UINT64_MAX, 3, 0, 19 },	/* nothing after */
	};
	struct rec_chunk *c, *rest;
	struct vmt_rbpage pg;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		c = build();
		rest = empty();
		assert_int_equal(rec_pagecut_back(&hp, c, t[i].limit, rest), t[i].kept);
		assert_int_equal(c->npages, t[i].kept);
		expect(c, 0, t[i].nkept);
		assert_int_equal(rest->npages, t[i].rest_pages);
		expect(rest, t[i].nkept, nwant);
		/* the lost count stays on the first page, moved after its new end */
		assert_int_equal(vmt_rbpage_init(&pg, &hp, c->buf, psize), 0);
		assert_true(pg.missed && pg.missed_stored);
		assert_int_equal(pg.missed_count, 5);
		assert_int_equal(c->info.missed_count, 5);
		if (rest->npages) {
			assert_int_equal(rest->info.cpu, 3);
			assert_int_equal(rest->info.missed_count, 0);
		}
		chunk_free(rest);
		/* without a rest chunk the later records are only cut off */
		chunk_free(c);
		c = build();
		assert_int_equal(rec_pagecut_back(&hp, c, t[i].limit, NULL), t[i].kept);
		expect(c, 0, t[i].nkept);
		chunk_free(c);
	}
	/*
	 * a last page that does not decode (its commit past the page): the collector gives the
	 * chunk its first_ts as last_ts, which says nothing of the pages after the limit
	 */
	c = build();
	memset(c->buf + 2 * psize + hp.commit_offset, 0xff, hp.commit_size);
	c->info.last_ts = c->info.first_ts;
	assert_int_equal(rec_pagecut_back(&hp, c, 1500, NULL), 1);
	expect(c, 0, 10);
	chunk_free(c);
	/* every record after the limit: c stays whole, rest empty */
	c = build();
	rest = empty();
	assert_int_equal(rec_pagecut_back(&hp, c, 999, rest), 0);
	assert_int_equal(c->npages, NPAGES);
	assert_int_equal(rest->npages, 0);
	expect(c, 0, nwant);
	chunk_free(rest);
	chunk_free(c);
}

static void test_front(void **state)
{
	struct rec_chunk *c;

	(void)state;
	c = build();
	assert_true(rec_pagecut_front(&hp, c, 1500));	/* the first page holds 1500's time */
	assert_int_equal(c->npages, NPAGES);
	assert_true(rec_pagecut_front(&hp, c, 2005));
	assert_int_equal(c->npages, 2);
	assert_int_equal(c->info.first_ts, 2000);
	assert_int_equal(c->info.missed_count, 0);
	expect(c, 10, nwant);
	assert_false(rec_pagecut_front(&hp, c, want[nwant - 1] + 1));
	chunk_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_back),
		cmocka_unit_test(test_front),
	};

	vmt_header_page_default(&hp);
	psize = vmt_header_page_subbuf_size(&hp);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
