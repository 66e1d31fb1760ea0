/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * losses: what a recording lost, as the recorder says it at its end: the ring buffer's
 * statistics, the counts the kernel stored in flagged pages, and the flagged pages that
 * stored none, in one warning that follows the reports' rule (vmt_reader_lost()). Sums are
 * read from a collector after its thread ended; the rest is stateless. Main thread.
 */
#ifndef REC_LOSSES_H
#define REC_LOSSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector.h"

struct rec_losses {
	uint64_t stats;		/* events lost by the per-CPU statistics, end minus start */
	uint64_t pages;		/* pages kept, over the CPUs */
	uint64_t missed_pages;	/* pages flagged "events lost before this page" */
	uint64_t counted;	/* the counts those pages stored */
	uint64_t uncounted;	/* flagged pages that stored no count */
	uint64_t unread;	/* the entries of the stats at the end: never read out */
	bool unread_known;	/* every traced CPU's stats at the end were read */
	bool drain_cut;		/* a second stop signal cut the final drain short */
};

/* The collector's counts summed over its CPUs (after join); the rest is left 0. */
void rec_losses_sum(const struct rec_collector *col, struct rec_losses *l);
/*
 * The warning, without "program: warning: ", into buf: how many were lost by each count,
 * and when only pages without a count saw losses that the statistics did not count, that
 * the number is not known; then the events left unread in the ring buffer (a drain cut
 * short). false (buf untouched) when nothing was lost.
 */
bool rec_losses_note(const struct rec_losses *l, char *buf, size_t size);

#endif
