// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <string.h>

#include "bytes.h"
#include "pagebuilder.h"
#include "rbpage.h"

void pb_init(struct pb *pb, uint8_t *page, const struct vmt_header_page *hp, uint64_t page_ts)
{
	memset(page, 0, vmt_header_page_subbuf_size(hp));
	pb->page = page;
	pb->hp = *hp;
	pb->off = 0;
	pb->ts = page_ts;
	pb->started = false;
	put_le64(page + hp->ts_offset, page_ts);
}

uint32_t pb_room(const struct pb *pb)
{
	return pb->hp.data_size - pb->off;
}

static uint8_t *at(struct pb *pb)
{
	return pb->page + pb->hp.data_offset + pb->off;
}

static void header(uint8_t *p, uint32_t type_len, uint32_t delta)
{
	put_le32(p, type_len | delta << 5);
}

int pb_time_extend(struct pb *pb, uint64_t ts)
{
	uint64_t delta = ts - pb->ts;

	if (pb_room(pb) < 8)
		return -ENOSPC;
	header(at(pb), VMT_RB_TYPE_TIME_EXTEND, (uint32_t)(delta & ((1u << 27) - 1)));
	put_le32(at(pb) + 4, (uint32_t)(delta >> 27));
	pb->off += 8;
	pb->ts = ts;
	return 0;
}

int pb_time_stamp(struct pb *pb, uint64_t ts)
{
	if (pb_room(pb) < 8)
		return -ENOSPC;
	header(at(pb), VMT_RB_TYPE_TIME_STAMP, (uint32_t)(ts & ((1u << 27) - 1)));
	put_le32(at(pb) + 4, (uint32_t)((ts >> 27) & 0xffffffffu));
	pb->off += 8;
	pb->ts = ts;
	return 0;
}

static int small_delta(struct pb *pb, uint64_t ts, uint32_t need, uint32_t *delta)
{
	if (ts - pb->ts >= (1u << 27)) {
		if (pb_room(pb) < 8 + need)
			return -ENOSPC;
		pb_time_extend(pb, ts);
	}
	if (pb_room(pb) < need)
		return -ENOSPC;
	*delta = (uint32_t)(ts - pb->ts);
	return 0;
}

int pb_data(struct pb *pb, uint64_t ts, const void *payload, uint32_t len, bool force_len0)
{
	uint32_t padded = (len + 3) & ~3u, delta;
	bool len0 = force_len0 || padded > 28 * 4 || len == 0;
	uint32_t need = (len0 ? 8 : 4) + padded;
	int ret;

	ret = small_delta(pb, ts, need, &delta);
	if (ret)
		return ret;
	if (len0) {
		header(at(pb), 0, delta);
		put_le32(at(pb) + 4, len + 4);
		memcpy(at(pb) + 8, payload, len);
	} else {
		header(at(pb), padded / 4, delta);
		memcpy(at(pb) + 4, payload, len);
	}
	pb->off += need;
	pb->ts = ts;
	return 0;
}

int pb_discarded(struct pb *pb, uint64_t ts, uint32_t len)
{
	uint32_t padded = ((len + 3) & ~3u) < 4 ? 4 : (len + 3) & ~3u, delta;
	int ret;

	ret = small_delta(pb, ts, 4 + padded, &delta);
	if (ret)
		return ret;
	/* The kernel forces a non-zero delta so the record is not taken for end padding. */
	header(at(pb), VMT_RB_TYPE_PADDING, delta ? delta : 1);
	put_le32(at(pb) + 4, padded);
	pb->off += 4 + padded;
	pb->ts = delta ? ts : ts + 1;
	return 0;
}

void pb_finish(struct pb *pb, bool missed, bool missed_stored, uint64_t missed_count)
{
	uint64_t commit = pb->off;

	/* End padding like the kernel leaves when a record did not fit. */
	if (pb_room(pb) >= 4)
		header(at(pb), VMT_RB_TYPE_PADDING, 0);
	if (missed)
		commit |= VMT_RB_MISSED_EVENTS;
	if (missed && missed_stored && pb_room(pb) >= pb->hp.commit_size) {
		commit |= VMT_RB_MISSED_STORED;
		if (pb->hp.commit_size == 8)
			put_le64(at(pb), missed_count);
		else
			put_le32(at(pb), (uint32_t)missed_count);
	}
	if (pb->hp.commit_size == 8)
		put_le64(pb->page + pb->hp.commit_offset, commit);
	else
		put_le32(pb->page + pb->hp.commit_offset, (uint32_t)commit);
}
