/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * readahead: decompression ahead of a merged walk, on the other cores. Chunks of a source
 * are started in the order the walk will want them (vmt_source_order()), a bounded number
 * at a time; the walking thread decompresses a chunk itself when no worker has started it,
 * so no order of requests can wait forever. The object and its threads belong to the one
 * thread that walks; the source must outlive it.
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
 * walk then reads its chunks itself.
 */
struct vmt_readahead *vmt_readahead_new(const struct vmt_source *s, unsigned int nstreams);
/* Stop and join the workers, free every buffer. */
void vmt_readahead_free(struct vmt_readahead *ra);
/*
 * The walk wants chunk idx now: wait for a worker, or decompress it here. Returns the
 * chunk's read status (vmt_source_read_chunk) with *raw (its pages, valid until the chunk
 * is released) and *why; the chunk is held until vmt_readahead_release().
 */
int vmt_readahead_take(struct vmt_readahead *ra, size_t idx, const uint8_t **raw,
		       const char **why);
/* The walk is done with chunk idx: its buffer is reused for the chunks ahead. */
void vmt_readahead_release(struct vmt_readahead *ra, size_t idx);

#endif
