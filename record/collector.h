/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * collector: the traced CPUs' trace_pipe_raw fds, the chunks being filled and the collector
 * thread. On a timer it moves whole pages with non-blocking splice() (no reader ever sleeps
 * on the ring buffer, so no wake-up interrupt hits a traced CPU); after tracing is off it
 * drains, read() taking the last partial pages. Finished chunks go to a sink. Set up and
 * freed by main; between start and join the per-CPU state is the collector thread's.
 */
#ifndef REC_COLLECTOR_H
#define REC_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "evformat.h"
#include "sink.h"

struct rec_collector_config {
	struct vmt_header_page hp;	/* page layout, from events/header_page */
	uint64_t poll_ns;		/* tick period */
	uint64_t chunk_max_age_ns;	/* a chunk older than this is handed over at a tick */
	uint32_t pipe_bytes;		/* size asked for each CPU's splice pipe */
	int cpu;			/* pin the thread here; -1: do not pin */
	struct rec_sink sink;
};

/* What one traced CPU gave: pages kept (empty ones are dropped), pages flagged lossy. */
struct rec_cpu_counts {
	unsigned int cpu;
	uint64_t pages;
	uint64_t missed_pages;
	uint64_t missed_count;		/* sum of the counts stored in those pages */
	uint64_t missed_uncounted;	/* those of them that stored no count (or 0) */
};

struct rec_collector;

int rec_collector_new(const struct rec_collector_config *cfg, struct rec_collector **out);
/* Read CPU cpu from fd (trace_pipe_raw opened O_NONBLOCK); the collector closes fd. */
int rec_collector_add_cpu(struct rec_collector *col, unsigned int cpu, int fd);
/* Start the thread: ticks until rec_collector_stop() or an error. 0 or -errno. */
int rec_collector_start(struct rec_collector *col);
/*
 * One tick (the thread's body, callable directly in tests): up to 64 splices per CPU, then
 * chunks older than chunk_max_age_ns go to the sink. Returns 0 or -errno.
 */
int rec_collector_poll(struct rec_collector *col);
/*
 * The final drain (after tracing is off): full pages by splice, then the partial ones by
 * read(), unless the drain was aborted; then every chunk held goes to the sink.
 */
int rec_collector_drain(struct rec_collector *col);
/* Tracing is off: the thread drains, hands over its chunks, closes the sink and ends. */
void rec_collector_stop(struct rec_collector *col);
/* A second stop: finish with what is held, without draining. */
void rec_collector_abort_drain(struct rec_collector *col);
/* True once the thread has closed the sink (or when it never started). */
bool rec_collector_done(struct rec_collector *col);
/* The thread's error so far (any thread), or 0. */
int rec_collector_error(struct rec_collector *col);
/* Wait for the thread; returns its error, or 0. */
int rec_collector_join(struct rec_collector *col);
unsigned int rec_collector_ncpus(const struct rec_collector *col);
/* Counts of the i-th CPU added (read after join). */
const struct rec_cpu_counts *rec_collector_counts(const struct rec_collector *col,
						  unsigned int i);
/* Close every fd and free, with any chunk still held. NULL is fine. */
void rec_collector_free(struct rec_collector *col);

#endif
