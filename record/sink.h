/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sink: where the collector hands its chunks (whole sub-buffers of one CPU). A sink is a
 * small ops table with a context: the writer queue (chunkq.h) today; a live view or an
 * in-memory flight recorder can take the same chunks without touching the collector.
 * The ops are called by the collector's thread (or whoever drives the collector, one thread
 * at a time); a chunk belongs to one side at a time.
 */
#ifndef REC_SINK_H
#define REC_SINK_H

#include <stdint.h>

#include "container.h"

struct rec_chunk {
	struct rec_chunk *next;		/* free for the sink's own lists */
	uint8_t *buf;			/* cap_pages sub-buffers */
	uint32_t cap_pages;
	uint32_t npages;		/* filled by the collector */
	struct vmt_chunk_info info;	/* cpu, first/last ts, missed pages and count */
};

struct rec_sink_ops {
	/* An empty chunk (its buffer included), or NULL when out of memory. */
	struct rec_chunk *(*get)(void *arg);
	/*
	 * Take c, whatever the result. May wait for room, never drops a chunk: a gap the
	 * kernel did not flag would go unnoticed. Returns 0 or -errno.
	 */
	int (*put)(void *arg, struct rec_chunk *c);
	/* No more chunks come. */
	void (*close)(void *arg);
	/*
	 * Optional: the collector's tick ended at now_ns (CLOCK_MONOTONIC), so that a sink
	 * that decodes can move on while no chunk comes. Must not block.
	 */
	void (*tick)(void *arg, uint64_t now_ns);
};

struct rec_sink {
	const struct rec_sink_ops *ops;
	void *arg;
};

#endif
