/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evcensus: which events a source's pages hold: records per event id (common_type), counted
 * over its chunks with the layout of its own header_page, for the words about a file that
 * lacks the event pair asked for. The caller owns the counts; nothing is kept between calls;
 * one thread.
 */
#ifndef VMT_EVCENSUS_H
#define VMT_EVCENSUS_H

#include <stdbool.h>
#include <stdint.h>

#include "evformat.h"
#include "source.h"

#define VMT_EVCENSUS_IDS 65536u	/* common_type is an unsigned short */

struct vmt_evcensus {
	uint64_t records[VMT_EVCENSUS_IDS];	/* per event id */
	uint64_t pages;				/* pages read */
	bool cut;				/* stopped at max_bytes: more chunks follow */
};

/**
 * vmt_evcensus_count() - count the records of each event id in s's pages
 * @s: an open source whose metadata has a header_page
 * @max_bytes: stop after the chunk that passes this many bytes of pages (0: read them all)
 * @c: the counts, zeroed first
 *
 * Chunks that cannot be read (damaged, cut) are skipped, as the reader skips them.
 * Return: 0, -EBADMSG when the metadata has no usable header_page, or -ENOMEM.
 */
int vmt_evcensus_count(const struct vmt_source *s, uint64_t max_bytes, struct vmt_evcensus *c);

/**
 * vmt_evcensus_records_of() - the records of one event id in one chunk's pages
 * @hp: the recording's header_page layout
 * @raw: the chunk's pages, as read (vmt_source_read_chunk)
 * @size: their bytes (the chunk's raw_size)
 * @page_size: each page's bytes
 * @id: the event id (common_type)
 *
 * For a copy of chunks that never decodes its events (vmtrace-convert --to-vmt) and still
 * needs to know whether the pair's begin event is among them. A page that cannot be read
 * counts nothing.
 */
uint64_t vmt_evcensus_records_of(const struct vmt_header_page *hp, const uint8_t *raw,
				 uint64_t size, uint32_t page_size, uint32_t id);

#endif
