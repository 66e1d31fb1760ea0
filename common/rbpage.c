// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>

#include "bytes.h"
#include "rbpage.h"

/* The top 5 bits of a 64-bit time that an absolute TIME_STAMP record cannot hold. */
#define TS_MSB (0xf8ULL << 56)

int vmt_rbpage_init(struct vmt_rbpage *pg, const struct vmt_header_page *hp, const void *buf,
		    size_t len)
{
	const uint8_t *b = buf;
	uint64_t commit_word;
	uint32_t flags, commit, area;

	pg->data = b;
	pg->commit = 0;
	pg->off = 0;
	pg->page_ts = 0;
	pg->ts = 0;
	pg->missed = false;
	pg->missed_stored = false;
	pg->missed_count = 0;

	if (len < hp->data_offset || hp->ts_offset + 8 > len ||
	    hp->commit_offset + hp->commit_size > len)
		return -EBADMSG;
	area = len - hp->data_offset < hp->data_size ? (uint32_t)(len - hp->data_offset) :
						       hp->data_size;
	pg->data = b + hp->data_offset;
	pg->page_ts = get_le64(b + hp->ts_offset);
	pg->ts = pg->page_ts;
	/* On 64-bit kernels commit is a long; the flags live in its low 32 bits either way. */
	commit_word = get_le_n(b + hp->commit_offset, hp->commit_size);
	flags = (uint32_t)commit_word;
	commit = flags & VMT_RB_COMMIT_MASK;
	pg->missed = (flags & VMT_RB_MISSED_EVENTS) != 0;
	if (commit > area)
		return -EBADMSG;
	if (pg->missed && (flags & VMT_RB_MISSED_STORED) &&
	    (uint64_t)commit + hp->commit_size <= area) {
		pg->missed_stored = true;
		pg->missed_count = get_le_n(pg->data + commit, hp->commit_size);
	}
	pg->commit = commit;
	return 0;
}

static int bad_page(struct vmt_rbpage *pg)
{
	pg->off = pg->commit;
	return -EBADMSG;
}

int vmt_rbpage_next(struct vmt_rbpage *pg, struct vmt_rbrecord *rec)
{
	for (;;) {
		uint32_t off = pg->off, room, word, type_len, delta, len;
		const uint8_t *p;

		if (pg->commit - off < 4 || off >= pg->commit)
			return 0;
		room = pg->commit - off;
		p = pg->data + off;
		word = get_le32(p);
		type_len = word & 31;
		delta = word >> 5;

		if (type_len >= 1 && type_len <= 28) {
			len = type_len * 4;
			if (4 + len > room)
				return bad_page(pg);
			pg->ts += delta;
			pg->off = off + 4 + len;
			rec->ts = pg->ts;
			rec->data = p + 4;
			rec->len = len;
			return 1;
		}
		if (room < 8) {
			/* Every other record type has a second word; an end-of-page pad may not. */
			if (type_len == VMT_RB_TYPE_PADDING && delta == 0)
				return 0;
			return bad_page(pg);
		}
		switch (type_len) {
		case 0: {
			/* The length word counts itself; kbuffer rounds the payload to 4 bytes. */
			uint32_t alen = get_le32(p + 4);
			uint64_t total;

			if (alen < 4)
				return bad_page(pg);
			len = alen - 4;
			total = 8 + (((uint64_t)len + 3) & ~3ULL);
			if (total > room)
				return bad_page(pg);
			pg->ts += delta;
			pg->off = off + (uint32_t)total;
			rec->ts = pg->ts;
			rec->data = p + 8;
			rec->len = len;
			return 1;
		}
		case VMT_RB_TYPE_PADDING: {
			uint32_t plen;

			if (delta == 0)
				return 0;	/* the rest of the page is empty */
			/*
			 * A discarded event: its length follows. Its delta still counts, since
			 * the writer timed the next event from it (kbuffer does the same).
			 */
			plen = get_le32(p + 4);
			if (plen < 4 || (uint64_t)plen + 4 > room)
				return bad_page(pg);
			pg->ts += delta;
			pg->off = off + 4 + plen;
			break;
		}
		case VMT_RB_TYPE_TIME_EXTEND:
			pg->ts += (uint64_t)get_le32(p + 4) << VMT_RB_TS_SHIFT | delta;
			pg->off = off + 8;
			break;
		case VMT_RB_TYPE_TIME_STAMP: {
			/* Absolute, 59 bits: the top bits come from the time so far. */
			uint64_t abs = (uint64_t)get_le32(p + 4) << VMT_RB_TS_SHIFT | delta;

			if (pg->ts & TS_MSB) {
				abs |= pg->ts & TS_MSB;
				if (abs < pg->ts)
					abs += 1ULL << 59;
			}
			pg->ts = abs;
			pg->off = off + 8;
			break;
		}
		}
	}
}
