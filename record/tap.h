/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tap: a sink (sink.h) in front of another one that decodes the chunks on their way and
 * feeds their records to a pass (iterate.h) while the recorder records. Each chunk's pages
 * are copied and the chunk goes on at once; records are merged by timestamp across CPUs up
 * to a watermark a bounded look-behind below the newest time seen, so a record arriving
 * later than that is counted late and left out of the pass (the file still has it).
 * Created by main before the collector starts; its ops then run on the collector thread.
 */
#ifndef REC_TAP_H
#define REC_TAP_H

#include <stddef.h>
#include <stdint.h>

#include "evformat.h"
#include "iterate.h"
#include "sink.h"

/*
 * Items fed to the pass per chunk or tick by default, beyond which the rest waits for the
 * next: when an idle CPU's last chunk came at its maximum age the watermark jumped by that
 * age (0.5 s of records at once, a million getppid() calls in
 * tests/e2e/record_flight_load.sh) and held the collector 20 to 35 ms while the kernel's
 * buffers filled. At the 20 to 35 ns an item costs there this is some 5 to 9 ms, and puts
 * and ticks together still feed the pass many times the rate the collector reads at.
 */
#define REC_TAP_MERGE_BUDGET	(1u << 18)

struct rec_tap_config {
	struct rec_sink next;		/* where every chunk goes on (the writer queue) */
	struct vmt_header_page hp;	/* page layout */
	const uint8_t *meta;		/* the recording's META key/values: the formats */
	size_t meta_len;
	const char *clock;		/* trace clock name; the tap needs a nanosecond clock */
	uint64_t lookbehind_ns;		/* how late a CPU's records may come and count */
	size_t max_held_bytes;		/* copies held beyond this are merged at once */
	uint64_t merge_budget;		/* items fed per put or tick (0: REC_TAP_MERGE_BUDGET) */
	struct vmt_consumer *c;		/* the pass's consumers (VMT_ITER_MAX_CONSUMERS) */
	unsigned int nc;
	/*
	 * Called on the collector thread after the pass was fed every record up to ts (trace
	 * clock; but those that came late: rec_tap_stats' late), ts never less than the time
	 * before; and once with UINT64_MAX after the last one. May be NULL.
	 */
	void (*advance)(void *arg, const struct vmt_iter *it, uint64_t ts);
	/*
	 * Called once on the collector thread when every record is in the pass, before it
	 * ends (the exits still open are there: vmt_iter_each_open). May be NULL.
	 */
	void (*ending)(void *arg, const struct vmt_iter *it);
	void *advance_arg;		/* both's */
};

struct rec_tap_stats {
	uint64_t chunks, pages, records;
	uint64_t late;			/* records older than what the pass already had */
	uint64_t missed;		/* events the pages flagged lost (their stored counts) */
	uint64_t forced;		/* merges before the look-behind ran out: memory bound */
	uint64_t budget_stops;		/* merges left for the next put or tick: the budget */
	size_t held_bytes, max_held_bytes_seen;
};

struct rec_tap;

/*
 * Parse the formats of cfg->meta and begin the pass. Returns 0, -EINVAL (no nanosecond
 * clock, formats missing or unusable), -ENOMEM or a consumer's start error.
 */
int rec_tap_new(const struct rec_tap_config *cfg, struct rec_tap **out);
/* The sink the collector writes to (its close ends the pass and closes the next sink). */
struct rec_sink rec_tap_sink(struct rec_tap *t);
/* Merge what the look-behind allows, as if now_ns (CLOCK_MONOTONIC) had come. */
int rec_tap_tick(struct rec_tap *t, uint64_t now_ns);
/*
 * Tracing went off at ts (trace clock; from any thread): the pass's exits still open at
 * its end ran to there, as the file says (vmt_iter_open_until()).
 */
void rec_tap_set_stop(struct rec_tap *t, uint64_t ts);
/* The pass's totals so far (complete after the sink's close). */
const struct vmt_iter *rec_tap_iter(const struct rec_tap *t);
void rec_tap_stats(const struct rec_tap *t, struct rec_tap_stats *st);
/* The first error of the pass (a consumer's, or -ENOMEM), or 0. */
int rec_tap_error(const struct rec_tap *t);
/* Free everything (ends the pass when the sink was never closed). NULL is fine. */
void rec_tap_free(struct rec_tap *t);

#endif
