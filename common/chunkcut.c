// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include "chunkcut.h"

/*
 * A chunk's figures from its pages: the first and last times of the pages that hold
 * records (an empty page's time says nothing: a zeroed one has 0), and the pages flagged
 * "missed events". What the pages do not tell stays as the caller set it.
 */
static void chunk_figures(const struct vmt_header_page *hp, const uint8_t *raw,
			  struct vmt_chunk_info *ci)
{
	struct vmt_rbrecord rec;
	struct vmt_rbpage pg;
	bool first = true;
	uint32_t p;

	ci->missed_pages = 0;
	ci->missed_count = 0;
	for (p = 0; p < ci->page_count; p++) {
		if (vmt_rbpage_init(&pg, hp, raw + (size_t)p * ci->page_size, ci->page_size))
			continue;
		if (pg.missed) {
			ci->missed_pages++;
			ci->missed_count += pg.missed_count;
		}
		if (!pg.commit)
			continue;
		if (first)
			ci->first_ts = pg.page_ts;
		first = false;
		ci->last_ts = pg.page_ts;
		while (vmt_rbpage_next(&pg, &rec) > 0)
			ci->last_ts = rec.ts;
	}
}

/*
 * Pages are self-contained (each states its time): any cut between two is one the
 * recorder could have made. A piece's ends that its pages do not give are unknown, not
 * the whole chunk's.
 */
int vmt_chunk_write_cut(struct vmt_writer *w, const struct vmt_header_page *hp,
			const uint8_t *raw, const struct vmt_chunk_info *whole, uint32_t max_pages)
{
	uint32_t p;
	int ret = 0;

	if (!max_pages)
		max_pages = 1;
	for (p = 0; !ret && p < whole->page_count; p += max_pages) {
		struct vmt_chunk_info ci = *whole;
		const uint8_t *pages = raw + (size_t)p * whole->page_size;

		ci.page_count = whole->page_count - p;
		if (ci.page_count > max_pages)
			ci.page_count = max_pages;
		if (p > 0)
			ci.first_ts = UINT64_MAX;
		if (p + ci.page_count < whole->page_count)
			ci.last_ts = 0;
		chunk_figures(hp, pages, &ci);
		ret = vmt_writer_chunk(w, pages, ci.page_count, ci.page_size, &ci);
	}
	return ret;
}

void vmt_chunk_mark_missed(const struct vmt_header_page *hp, uint8_t *raw, uint32_t page_size)
{
	/* the flag is bit 31 of the commit word, little-endian, whatever its size */
	if (hp->commit_offset + 4 <= page_size)
		raw[hp->commit_offset + 3] |= (uint8_t)(VMT_RB_MISSED_EVENTS >> 24);
}
