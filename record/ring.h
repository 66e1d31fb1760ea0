/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ring: the flight recorder's memory (vmtrace-record --on-threshold). A sink in front of
 * the writer queue that holds the chunks of the last keep_ns (and at most max_bytes)
 * instead of writing them; when triggered at an exit's time it hands on the pages from
 * keep_ns before that exit's start up to after_ns past its end, cut there to the record
 * (pagecut.h), then says it is done once every CPU's pages of that time came.
 * With max_triggers > 1 (--continue) it goes on holding while main starts the next file,
 * and main re-arms it for the next trigger. Created by main; its sink ops and the trigger
 * run on the collector thread; done, the figures of a done trigger and the re-arm may be
 * used by main at any time, the live figures once the collector ended.
 */
#ifndef REC_RING_H
#define REC_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evformat.h"
#include "sink.h"

/* The exit that triggered (its start, trace clock). */
struct rec_ring_trigger {
	uint64_t ts, lat_ns;
	uint32_t cpu;
	int32_t pid;
};

struct rec_ring_config {
	struct rec_sink next;		/* the writer queue */
	struct vmt_header_page hp;
	uint64_t keep_ns, after_ns;	/* trace clock (ns) */
	uint64_t hold_extra_ns;		/* held beyond keep_ns: how late a trigger comes */
	uint64_t settle_ns;		/* how late a CPU's chunk comes after its records */
	size_t max_bytes;		/* held at most; the oldest chunks go first */
	unsigned int max_triggers;	/* triggers handed on at most; 0 is 1 */
	/* a chunk that will not be written goes back here (the queue's pool) */
	void (*recycle)(void *arg, struct rec_chunk *c);
	/*
	 * Optional: the ring holds bytes fewer than max_bytes; the queue may take that much more
	 * (rec_chunkq_lend), so that handing on the kept pages at a trigger does not stall.
	 */
	void (*lend)(void *arg, size_t bytes);
	void *recycle_arg;		/* and lend's */
};

struct rec_ring_stats {
	uint64_t dropped_chunks;	/* never written: older than what was kept */
	uint64_t dropped_after;		/* never written: after the window */
	uint64_t written_chunks;
	uint64_t dropped_full;		/* of dropped_chunks: over max_bytes, not older */
	uint64_t kept_from_ts;		/* the earliest page handed on (0: none yet) */
	size_t held_bytes, max_held_bytes;
	bool triggered;
	struct rec_ring_trigger trigger;
	unsigned int triggers;		/* triggers so far, this one included */
};

struct rec_ring;

int rec_ring_new(const struct rec_ring_config *cfg, struct rec_ring **out);
struct rec_sink rec_ring_sink(struct rec_ring *r);
/*
 * An exit (t->ts, trace clock) was over the threshold: keep from ts - keep_ns. Taken when
 * waiting; while a trigger is handed on or done, the first later one is kept for the
 * re-arm (if more triggers are allowed); else ignored.
 */
void rec_ring_trigger(struct rec_ring *r, const struct rec_ring_trigger *t);
/*
 * The chunks up to after_ns past the trigger's end were handed on: a record settle_ns
 * later was seen, or none came for 2 s (any thread).
 */
bool rec_ring_done(const struct rec_ring *r);
/*
 * The next trigger may come (main, after done, once the next file is open): the ring
 * takes it at its next chunk or tick, and done is false from now on. An exit that began
 * in the pages already handed on triggers nothing (the next file would lack its start).
 */
void rec_ring_rearm(struct rec_ring *r);
/* The live figures (once the collector ended). */
void rec_ring_stats(const struct rec_ring *r, struct rec_ring_stats *st);
/* The figures as they were when the last trigger was done (main, while done is true). */
void rec_ring_done_stats(const struct rec_ring *r, struct rec_ring_stats *st);
/* Chunks still held go back to the pool. NULL is fine. */
void rec_ring_free(struct rec_ring *r);

#endif
