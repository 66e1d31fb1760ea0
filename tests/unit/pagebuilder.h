/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pagebuilder (tests only): writes ftrace sub-buffers the way the kernel does, with every
 * record type (data with type_len 1..28 and 0, padding at the end and discarded events,
 * time extend, absolute time stamp) and the missed-events flags, for any header_page
 * layout. Timestamps are absolute; the builder turns them into deltas.
 */
#ifndef VMT_PAGEBUILDER_H
#define VMT_PAGEBUILDER_H

#include <stdbool.h>
#include <stdint.h>

#include "evformat.h"

struct pb {
	uint8_t *page;
	struct vmt_header_page hp;
	uint32_t off;		/* bytes of records written */
	uint64_t ts;		/* time of the last record */
	bool started;
};

/* Start a zeroed page (buffer of the whole sub-buffer size) stamped page_ts. */
void pb_init(struct pb *pb, uint8_t *page, const struct vmt_header_page *hp, uint64_t page_ts);
/* Room left for records, in bytes. */
uint32_t pb_room(const struct pb *pb);
/*
 * A data record at absolute time ts (>= the previous one). A time extend is inserted when
 * the delta needs more than 27 bits. force_len0 stores the length in the next word even
 * when it would fit type_len. Returns 0 or -ENOSPC.
 */
int pb_data(struct pb *pb, uint64_t ts, const void *payload, uint32_t len, bool force_len0);
/* An explicit time extend to absolute time ts. */
int pb_time_extend(struct pb *pb, uint64_t ts);
/* An absolute time stamp record (kernel 5.x+). */
int pb_time_stamp(struct pb *pb, uint64_t ts);
/* A discarded event of len payload bytes at time ts. */
int pb_discarded(struct pb *pb, uint64_t ts, uint32_t len);
/* Set commit and flags; with missed_stored the count is written after the data. */
void pb_finish(struct pb *pb, bool missed, bool missed_stored, uint64_t missed_count);

#endif
