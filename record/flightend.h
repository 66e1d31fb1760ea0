/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flightend: what a flight recording (--on-threshold) says of its trigger when its file
 * ends: the triggering exit's keys into END (metakeys.h trigger.*), a line naming it, a
 * warning when the pages handed on do not reach back to its start or (pages dropped for
 * --ring-size) cover less than --keep before it, which the file would lack silently; and
 * the end of the time the file holds. Main thread.
 */
#ifndef REC_FLIGHTEND_H
#define REC_FLIGHTEND_H

#include <stdint.h>

#include "kv.h"
#include "ring.h"

/*
 * The file's start: CLOCK_MONOTONIC and the trace clock, read together (0: unknown); and
 * with --continue the end the previous file claims (0: none), where this one's time begins.
 */
struct rec_file_start {
	uint64_t mono_ns, ts;
	uint64_t prev_end_mono_ns;
};

/*
 * The trigger of st (none: returns 0 and adds nothing) for the file that started at fs;
 * pair is the messages' word ("exit", or "pair" for another event pair). Returns the end
 * of the time the file holds on CLOCK_MONOTONIC: after_ns past the triggering exit's end,
 * or its first kept page when that is later.
 */
uint64_t rec_flightend(const struct rec_ring_stats *st, const struct rec_file_start *fs,
		       const char *pair, uint64_t keep_ns, uint64_t after_ns,
		       struct vmt_kvbuf *end);

#endif
