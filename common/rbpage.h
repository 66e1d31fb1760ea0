/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rbpage: one ftrace ring-buffer sub-buffer ("page") -> its records with absolute
 * timestamps, with kbuffer's semantics. Layout sizes come from events/header_page, never
 * assumed. The bytes are untrusted: no read ever goes past the page's commit or the buffer.
 * A struct vmt_rbpage is a cursor on the caller's buffer (no allocation, no cleanup); one
 * cursor per thread.
 */
#ifndef VMT_RBPAGE_H
#define VMT_RBPAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "evformat.h"

#define VMT_RB_TYPE_PADDING	29
#define VMT_RB_TYPE_TIME_EXTEND	30
#define VMT_RB_TYPE_TIME_STAMP	31
#define VMT_RB_TS_SHIFT		27
#define VMT_RB_COMMIT_MASK	((1u << 27) - 1)
#define VMT_RB_MISSED_EVENTS	(1u << 31)	/* events were lost before this page */
#define VMT_RB_MISSED_STORED	(1u << 30)	/* and their count follows the data */

struct vmt_rbpage {
	const uint8_t *data;	/* start of the record area */
	uint32_t commit;	/* bytes of records */
	uint32_t off;		/* next record */
	uint64_t page_ts;
	uint64_t ts;		/* timestamp of the last record returned */
	bool missed;		/* RB_MISSED_EVENTS */
	bool missed_stored;	/* RB_MISSED_STORED: missed_count is exact */
	uint64_t missed_count;
};

struct vmt_rbrecord {
	uint64_t ts;
	const uint8_t *data;	/* the tracepoint record (common_type first) */
	uint32_t len;
};

/*
 * Start decoding buf (len bytes, normally one whole sub-buffer) with layout hp.
 * Returns 0, or -EBADMSG when the header is impossible (commit beyond the page); the
 * cursor then yields no records.
 */
int vmt_rbpage_init(struct vmt_rbpage *pg, const struct vmt_header_page *hp, const void *buf,
		    size_t len);

/*
 * The next data record. Returns 1 with *rec filled, 0 at the end of the page, or -EBADMSG
 * when a record header points outside the committed data (the rest of the page is then
 * skipped; records already returned stay valid).
 */
int vmt_rbpage_next(struct vmt_rbpage *pg, struct vmt_rbrecord *rec);

/*
 * The same for the usual record, a data record whose length fits the header word (4 to
 * 112 bytes) and the page: returns true with *rec filled. Anything else (time extends,
 * padding, longer records, the page's end, damage) returns false with nothing consumed,
 * for vmt_rbpage_next() to take from the same place. Inline: the merge reads every record
 * through it, and the full decoder's call and switch cost as much as the record.
 */
static inline bool vmt_rbpage_next_fast(struct vmt_rbpage *pg, struct vmt_rbrecord *rec)
{
	/* off never passes commit: every step, and a damaged page's end, keep it inside */
	uint32_t off = pg->off, room = pg->commit - off, word, type_len, len;
	const uint8_t *p = pg->data + off;

	if (room < 4)
		return false;
	word = get_le32(p);
	type_len = word & 31;
	len = type_len * 4;
	if (type_len - 1 > 27 || 4 + len > room)
		return false;
	pg->ts += word >> 5;
	pg->off = off + 4 + len;
	rec->ts = pg->ts;
	rec->data = p + 4;
	rec->len = len;
	return true;
}

#endif
