/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live: vmtrace-record --live. A consumer of the pass the tap (tap.h) feeds while the
 * recorder records: per interval of trace time (DUR, from the first event), exits/s,
 * out-of-guest %, p99 and max overall, per vCPU task and per exit reason. On a terminal
 * the table is redrawn in place; otherwise one key=value line per interval. Created by
 * main before the collector starts, then used on the collector thread only; freed by main.
 */
#ifndef REC_LIVE_H
#define REC_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "evformat.h"
#include "kv.h"
#include "sink.h"

struct rec_live_config {
	uint64_t interval_ns;
	uint64_t lookbehind_ns;		/* the tap's (tap.h) */
	size_t max_held_bytes;
	FILE *out;
	bool terminal;			/* redraw the table in place */
	struct rec_sink next;		/* where the chunks go on */
	struct vmt_header_page hp;
	const uint8_t *meta;		/* META key/values: the formats */
	size_t meta_len;
	const char *clock;		/* must be a nanosecond clock */
};

/* What the live view counted, for the summary and the tests. */
struct rec_live_totals {
	uint64_t intervals;		/* printed */
	uint64_t pairs;			/* in the printed intervals */
	uint64_t late;			/* records that came too late for the merge */
	int error;			/* the pass's first error, or 0 */
};

struct rec_live;

/* The view and its tap. Returns 0, -EINVAL (see rec_tap_new) or -ENOMEM. */
int rec_live_new(const struct rec_live_config *cfg, struct rec_live **out);
/* The sink to give the collector (the tap's). */
struct rec_sink rec_live_sink(struct rec_live *l);
/* After the collector ended (its sink closed). */
void rec_live_totals(const struct rec_live *l, struct rec_live_totals *t);
void rec_live_free(struct rec_live *l);

/*
 * vmtrace-record's use: a view every interval_ns on standard output (a table when it is a
 * terminal) whose tap goes in front of *sink (replaced by the tap's), with a look-behind
 * of twice the collector's chunk_max_age_ns. The formats come from meta. Says what failed
 * (one line) and returns -errno.
 */
int rec_live_attach(struct rec_live **out, uint64_t interval_ns, uint64_t chunk_max_age_ns,
		    const struct vmt_header_page *hp, const struct vmt_kvbuf *meta,
		    const char *clock, struct rec_sink *sink);
/* After the collector ended: a warning when the view stopped or records came late. */
void rec_live_report(const struct rec_live *l);

#endif
