/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * chunkcut: a chunk's pages written into a .vmt as the recorder would write them, in
 * chunks of at most a given number of pages, each chunk header's figures (first and last
 * times, lost-events pages) read from its own pages. For vmtrace-convert --to-vmt: inputs
 * without chunk headers (trace.bin, trace.dat) and chunks of earlier recorders larger than
 * vmtrace-record writes now.
 */
#ifndef VMT_CHUNKCUT_H
#define VMT_CHUNKCUT_H

#include <stdint.h>

#include "chunk.h"
#include "container.h"
#include "rbpage.h"

/*
 * Write the pages of chunk whole (raw: whole->page_count pages of whole->page_size bytes)
 * to w in chunks of at most max_pages pages (at least 1). Returns vmt_writer_chunk's
 * status.
 */
int vmt_chunk_write_cut(struct vmt_writer *w, const struct vmt_header_page *hp,
			const uint8_t *raw, const struct vmt_chunk_info *whole, uint32_t max_pages);

/*
 * A damaged chunk left out of a copy: the next copied chunk of its CPU starts with a page
 * that says events were lost before it (RB_MISSED_EVENTS, no count), so that the copy's
 * readers never pair an exit across the hole, as the original's do not.
 */
void vmt_chunk_mark_missed(const struct vmt_header_page *hp, uint8_t *raw, uint32_t page_size);

#endif
