// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <string.h>

#include "bytes.h"
#include "pagecut.h"
#include "rbpage.h"

/* c's first_ts, last_ts and lost-event counts again, from its pages. */
static void refresh(const struct vmt_header_page *hp, struct rec_chunk *c)
{
	uint32_t psize = vmt_header_page_subbuf_size(hp), i;
	struct vmt_rbrecord rec;
	struct vmt_rbpage pg;

	c->info.missed_pages = 0;
	c->info.missed_count = 0;
	for (i = 0; i < c->npages; i++) {
		if (vmt_rbpage_init(&pg, hp, c->buf + (size_t)i * psize, psize))
			continue;
		if (i == 0)
			c->info.first_ts = pg.page_ts;
		c->info.missed_pages += pg.missed;
		c->info.missed_count += pg.missed_count;
		if (i + 1 < c->npages)
			continue;
		c->info.last_ts = pg.page_ts;
		while (vmt_rbpage_next(&pg, &rec) > 0)
			c->info.last_ts = rec.ts;
	}
}

bool rec_pagecut_front(const struct vmt_header_page *hp, struct rec_chunk *c, uint64_t cutoff)
{
	uint32_t psize = vmt_header_page_subbuf_size(hp), k = 0;
	struct vmt_rbpage pg;

	if (c->info.last_ts < cutoff)
		return false;
	while (k + 1 < c->npages &&
	       vmt_rbpage_init(&pg, hp, c->buf + (size_t)(k + 1) * psize, psize) == 0 &&
	       pg.page_ts < cutoff)
		k++;
	if (!k)
		return true;
	memmove(c->buf, c->buf + (size_t)k * psize, (size_t)(c->npages - k) * psize);
	c->npages -= k;
	refresh(hp, c);
	return true;
}

/* Set page's commit to bytes (the flags kept), and its stored lost count after them. */
static void set_commit(const struct vmt_header_page *hp, uint8_t *page, uint32_t bytes,
		       bool keep_missed)
{
	uint64_t word = get_le_n(page + hp->commit_offset, hp->commit_size);
	uint32_t flags = (uint32_t)word & ~VMT_RB_COMMIT_MASK;
	struct vmt_rbpage pg;

	if (vmt_rbpage_init(&pg, hp, page, vmt_header_page_subbuf_size(hp)))
		return;
	if (!keep_missed)
		flags &= ~(VMT_RB_MISSED_EVENTS | VMT_RB_MISSED_STORED);
	else if (pg.missed_stored)	/* it follows the data: it moves with the end */
		memcpy(page + hp->data_offset + bytes, page + hp->data_offset + pg.commit,
		       hp->commit_size);
	word = (word & ~0xffffffffULL) | flags | bytes;
	if (hp->commit_size == 8)
		put_le64(page + hp->commit_offset, word);
	else
		put_le32(page + hp->commit_offset, (uint32_t)word);
	/* bytes after the data are no data: zero them, as the kernel's reader pads */
	memset(page + hp->data_offset + bytes + (pg.missed_stored && keep_missed ?
						 hp->commit_size : 0), 0,
	       hp->data_size - bytes - (pg.missed_stored && keep_missed ? hp->commit_size : 0));
}

/*
 * In page (its time stamp at or before limit): the offset after its last record at or
 * before limit (0: none), *last_ts that record's time; *after when a record follows.
 */
static uint32_t split_point(const struct vmt_header_page *hp, const uint8_t *page,
			    uint64_t limit, uint64_t *last_ts, bool *after)
{
	struct vmt_rbrecord rec;
	struct vmt_rbpage pg;
	uint32_t off = 0;

	*after = false;
	if (vmt_rbpage_init(&pg, hp, page, vmt_header_page_subbuf_size(hp)))
		return 0;
	*last_ts = pg.page_ts;
	while (vmt_rbpage_next(&pg, &rec) > 0) {
		if (rec.ts > limit) {
			*after = true;
			break;
		}
		off = pg.off;
		*last_ts = rec.ts;
	}
	return off;
}

uint32_t rec_pagecut_back(const struct vmt_header_page *hp, struct rec_chunk *c, uint64_t limit,
			  struct rec_chunk *rest)
{
	uint32_t psize = vmt_header_page_subbuf_size(hp), i, off = 0, commit;
	uint64_t last_ts = 0;
	struct vmt_rbpage pg;
	bool after = false;
	uint8_t *page;

	if (rest)
		rest->npages = 0;
	/*
	 * The common case, every chunk a trigger hands on but the last: all of it before
	 * limit. Walking its records to learn that cost a trigger's 750 MiB of kept pages
	 * 30 to 50 ms in the collector, and the kernel overwrote events meanwhile
	 * (tests/e2e/record_flight_load.sh). last_ts is its last page's last record, unless
	 * that page does not decode (the collector then gives first_ts): walked then.
	 */
	if (c->info.last_ts <= limit && c->npages &&
	    vmt_rbpage_init(&pg, hp, c->buf + (size_t)(c->npages - 1) * psize, psize) == 0 &&
	    pg.page_ts <= limit)
		return c->npages;
	for (i = 0; i < c->npages; i++) {
		page = c->buf + (size_t)i * psize;
		off = 0;
		if (vmt_rbpage_init(&pg, hp, page, psize) == 0 && pg.page_ts > limit)
			break;
		off = split_point(hp, page, limit, &last_ts, &after);
		if (after)
			break;
	}
	if (i == c->npages)
		return c->npages;	/* nothing after limit */
	if (i == 0 && !off)
		return 0;
	if (rest) {
		rest->info = c->info;
		if (off) {	/* the crossing page's later records, on a page of their own */
			uint8_t *tail = rest->buf;

			vmt_rbpage_init(&pg, hp, page, psize);
			commit = pg.commit;
			memcpy(tail, page, hp->data_offset);
			put_le64(tail + hp->ts_offset, last_ts);
			memcpy(tail + hp->data_offset, page + hp->data_offset + off, commit - off);
			set_commit(hp, tail, commit - off, false);
			rest->npages = 1;
		}
		memcpy(rest->buf + (size_t)rest->npages * psize, c->buf + (size_t)(i + !!off) * psize,
		       (size_t)(c->npages - i - !!off) * psize);
		rest->npages += c->npages - i - !!off;
		refresh(hp, rest);
	}
	if (off)
		set_commit(hp, page, off, true);
	c->npages = i + !!off;
	refresh(hp, c);
	return c->npages;
}
