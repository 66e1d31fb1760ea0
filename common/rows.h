/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rows: the tabular views, a consumer of the pass (iterate.h) writing one row per exit
 * (with its entry and latency) or one per event, as CSV (RFC 4180, a header row) or as
 * JSON lines. The columns of each row kind are described once (rows.c) and that one
 * description drives the header and both formats; man/vmtrace-convert.1 documents them.
 * Per-exit rows come out in exit-time order, held in memory (at most hold_max exits) only
 * while an earlier exit is still open. Rows go through an outbuf on the caller's fd, or CSV
 * rows to formatting threads that write them there in order. One writer per pass.
 */
#ifndef VMT_ROWS_H
#define VMT_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#include "iterate.h"

enum vmt_rows_format {
	VMT_ROWS_CSV,
	VMT_ROWS_JSONL,
};

/*
 * Exits held at most while an earlier one is open: 2^19 places of 96 bytes, 48 MiB. An
 * exit open longer than that many exits of other tasks has its row written late.
 */
#define VMT_ROWS_HOLD_MAX (1u << 19)

struct vmt_rows_opts {
	enum vmt_rows_format format;
	bool events;		/* one row per event instead of one per exit */
	int fd;
	/*
	 * Per-exit rows: the why columns (kvm_ns ... nmi_ns, incomplete, culprit_kind,
	 * culprit, culprit_pid), filled when the pass attributes (iterate.h); then at most
	 * VMT_ROWS_HOLD_MAX / 4 exits are held (224 bytes each, 28 MiB).
	 */
	bool why;
	/*
	 * CSV only: threads formatting rows while the pass goes on (fmtpool.h), in the same
	 * bytes; 0 none (rows formatted as they come), < 0 as many as are worth it.
	 */
	int threads;
};

struct vmt_rows_stats {
	uint64_t unordered;	/* rows written after a row whose exit came later */
	uint64_t held;		/* rows that waited for an earlier exit (copied) */
	uint64_t held_peak;	/* the most exits in the order at once */
	uint64_t hold_max;	/* the most it may hold: a row waits for no more exits */
	uint64_t why_incomplete;	/* rows written with incomplete causes (--why) */
};

struct vmt_rows;

/* Prepare a writer and its consumer. Returns 0 or -ENOMEM. */
int vmt_rows_consumer(const struct vmt_rows_opts *o, struct vmt_rows **w,
		      struct vmt_consumer *out);
/* Rows written so far. */
uint64_t vmt_rows_count(const struct vmt_rows *w);
/* Hold at most n exits (a power of two, before the pass; tests use small ones). */
void vmt_rows_set_hold_max(struct vmt_rows *w, uint32_t n);
/* How the order went (per-exit rows). */
const struct vmt_rows_stats *vmt_rows_stats(const struct vmt_rows *w);
/* Flush and free; returns the first write error (0 when none). */
int vmt_rows_finish(struct vmt_rows *w);

#endif
