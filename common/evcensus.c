// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <string.h>

#include "bytes.h"
#include "chunk.h"
#include "evcensus.h"
#include "evformat.h"
#include "kv.h"
#include "metakeys.h"
#include "rbpage.h"

/*
 * One chunk's pages: every data record's common_type, its first two bytes, counted into c,
 * or with c NULL only those of id. Returns the records of id.
 */
static uint64_t count_pages(const struct vmt_header_page *hp, const uint8_t *raw,
			    uint64_t size, uint32_t page_size, struct vmt_evcensus *c, uint32_t id)
{
	uint64_t off, n = 0;

	for (off = 0; page_size && size - off >= page_size; off += page_size) {
		struct vmt_rbpage pg;
		struct vmt_rbrecord rec;

		if (c)
			c->pages++;
		if (vmt_rbpage_init(&pg, hp, raw + off, page_size))
			continue;
		while (vmt_rbpage_next(&pg, &rec) == 1) {
			if (rec.len < 2)
				continue;
			if (c)
				c->records[get_le16(rec.data)]++;
			n += get_le16(rec.data) == id;
		}
	}
	return n;
}

uint64_t vmt_evcensus_records_of(const struct vmt_header_page *hp, const uint8_t *raw,
				 uint64_t size, uint32_t page_size, uint32_t id)
{
	return count_pages(hp, raw, size, page_size, NULL, id);
}

int vmt_evcensus_count(const struct vmt_source *s, uint64_t max_bytes, struct vmt_evcensus *c)
{
	struct vmt_chunkbuf cb = { 0 };
	struct vmt_header_page hp;
	const uint8_t *meta, *text;
	uint64_t bytes = 0;
	size_t mlen, i, n = vmt_source_nchunks(s);
	uint32_t tlen;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	meta = vmt_source_meta(s, &mlen);
	text = vmt_kv_get(meta, mlen, VMT_META_HEADER_PAGE, &tlen);
	if (!text || vmt_header_page_parse((const char *)text, tlen, &hp))
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(s, i);

		if (max_bytes && bytes >= max_bytes) {
			c->cut = true;
			break;
		}
		ret = vmt_source_read_chunk(s, i, &cb, NULL);
		if (ret == -ENOMEM)
			break;
		bytes += ci->raw_size;
		if (!ret && vmt_source_pages_late(s)) {
			uint32_t p;

			/* the pages open would have left out of the chunk are not counted */
			vmt_source_check_pages(s, i, 0, ci->page_count, cb.raw);
			for (p = 0; p < ci->page_count; p++)
				if (!vmt_source_page_left_out(s, i, p))
					count_pages(&hp, cb.raw + (size_t)p * ci->page_size,
						    ci->page_size, ci->page_size, c, 0);
		} else if (!ret) {
			count_pages(&hp, cb.raw, ci->raw_size, ci->page_size, c, 0);
		}
		ret = 0;
	}
	vmt_chunkbuf_free(&cb);
	return ret;
}
