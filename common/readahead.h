/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * readahead: decompression ahead of a merged walk, on the other cores. Chunks of a source
 * (or their parts, when the walk reads chunks in windows) are started in the order the
 * walk will want them (vmt_source_order()), a bounded number at a time; the walking thread
 * decompresses one itself when no worker has started it, so no order of requests can wait
 * forever. The object and its threads belong to the one thread that walks; the source
 * must outlive it.
 */
#ifndef VMT_READAHEAD_H
#define VMT_READAHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "source.h"

struct vmt_readahead;

/*
 * Start workers for a walk holding nstreams chunks at once, when there is something to
 * gain (several chunks and a spare core, VMTRACE_NO_THREADS unset). NULL otherwise: the
 * walk then reads its chunks itself. window: 0, or the bytes of a chunk the walk holds at
 * once (reader.h): chunks larger are read in parts of vmt_chunk_window_pages() pages, each
 * taken and released alone, part k holding its pages [k * n, (k + 1) * n).
 */
struct vmt_readahead *vmt_readahead_new(const struct vmt_source *s, unsigned int nstreams,
					uint64_t window);
/* Stop and join the workers, free every buffer. */
void vmt_readahead_free(struct vmt_readahead *ra);
/*
 * The walk wants part `part` of chunk idx (0 for a chunk read whole) now: wait for a
 * worker, or decompress it here. Returns its read status (vmt_source_read_chunk, or
 * vmt_source_read_chunk_part for a part) with *raw (its pages, valid until it is
 * released) and *why; the part is held until vmt_readahead_release().
 */
int vmt_readahead_take(struct vmt_readahead *ra, size_t idx, uint32_t part,
		       const uint8_t **raw, const char **why);
/* The walk is done with that part: its buffer is reused for the parts ahead. */
void vmt_readahead_release(struct vmt_readahead *ra, size_t idx, uint32_t part);
/*
 * The walk will take none of chunk idx's parts from `part` on (it skips a chunk whose
 * part failed): those read ahead are released, the others never read.
 */
void vmt_readahead_drop(struct vmt_readahead *ra, size_t idx, uint32_t part);

#endif
