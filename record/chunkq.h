/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * chunkq: the recorder's chunk buffers (a pool reused across chunks), the bounded queue
 * between the collector and the writer, and the writer thread that compresses and appends
 * each chunk to the .vmt file in order, with an fdatasync every sync_ns. Created before the
 * threads start, freed after rec_chunkq_join(). Its sink runs on the collector thread; the
 * rest on main. One mutex guards the queue, the pool and the counters.
 */
#ifndef REC_CHUNKQ_H
#define REC_CHUNKQ_H

#include <stddef.h>
#include <stdint.h>

#include "container.h"
#include "sink.h"

struct rec_chunkq_config {
	struct vmt_writer *writer;	/* the caller's; written by the writer thread only */
	uint32_t page_size;
	uint32_t chunk_pages;		/* capacity of each chunk */
	size_t max_queued_bytes;	/* the sink waits above this */
	uint64_t sync_ns;		/* fdatasync at most this often; 0: never */
	int cpu;			/* pin the writer thread here; -1: do not pin */
};

struct rec_chunkq;

int rec_chunkq_new(const struct rec_chunkq_config *cfg, struct rec_chunkq **out);
/* The sink the collector writes to (put after close: -EPIPE, the chunk goes to the pool). */
struct rec_sink rec_chunkq_sink(struct rec_chunkq *q);
/* A chunk taken from the sink's get and never put: back to the pool (any thread). */
void rec_chunkq_recycle(struct rec_chunkq *q, struct rec_chunk *c);
/* Start the writer thread. 0 or -errno. */
int rec_chunkq_start(struct rec_chunkq *q);
/* No more chunks (the sink's close). The writer writes what is queued, then ends. */
void rec_chunkq_close(struct rec_chunkq *q);
/*
 * Room lent by a flight recorder's ring (ring.h): its pages held no longer, so the queue
 * may take that much beyond max_queued_bytes before the sink waits. The pages it kept
 * move to the queue at a trigger; waiting for the writer then would stall the collector
 * while the kernel overwrites what comes next (pages in memory stay within the ring's
 * bound plus max_queued_bytes).
 */
void rec_chunkq_lend(struct rec_chunkq *q, size_t bytes);
/* Stop waiting for room: the sink queues beyond the bound (a second stop signal). */
void rec_chunkq_unblock(struct rec_chunkq *q);
/* Wait for the writer thread to end (after close). Returns its first write error, or 0. */
int rec_chunkq_join(struct rec_chunkq *q);
/*
 * Wait until every chunk put so far is written (the writer thread holds none). Returns the
 * first write error, or 0. With the threads started and nothing put meanwhile, the writer
 * may then be replaced by rec_chunkq_set_writer() (the next file of --continue).
 */
int rec_chunkq_wait_idle(struct rec_chunkq *q);
void rec_chunkq_set_writer(struct rec_chunkq *q, struct vmt_writer *w);
/* The first write error so far, or 0 (any thread). */
int rec_chunkq_error(struct rec_chunkq *q);
/* Chunks written to the file without error. */
uint64_t rec_chunkq_written(struct rec_chunkq *q);
/* The pages of those chunks. */
uint64_t rec_chunkq_written_pages(struct rec_chunkq *q);
/* Chunks held in the pool for reuse (tests). */
unsigned int rec_chunkq_pooled(struct rec_chunkq *q);
/* Free everything (after join, or when the thread never started). NULL is fine. */
void rec_chunkq_free(struct rec_chunkq *q);

#endif
