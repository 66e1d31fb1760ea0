/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evdump: the verbose view, a consumer of the pass (iterate.h) that prints every begin and
 * end event as one line with its decoded fields, each entry's latency, and lost-event
 * gaps and context events in their place; optionally only those inside a time window
 * (--around). It writes lines to the FILE its caller gives, or JSON objects (one per
 * event: kind exit, entry, lost or context) to its JSON writer, and keeps a reason-name
 * table for the pass. Text lines are buffered: they reach the FILE when the buffer fills,
 * before any line written otherwise, at the pass's end and on vmt_evdump_flush().
 */
#ifndef VMT_EVDUMP_H
#define VMT_EVDUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "exitreason.h"
#include "iterate.h"
#include "jsonw.h"

struct vmt_evdump_opts {
	FILE *out;			/* text lines, or NULL with json */
	struct vmt_jsonw *json;		/* or one JSON object per event, inside its array */
	bool window;			/* only events in [from_ns, to_ns] since the start */
	uint64_t from_ns, to_ns;
	bool why;			/* each entry's "why" line when the pass attributes */
	bool wide;			/* every field (else the RIP and those not zero) */
};

/* " reason NAME(0xCODE)" kept for codes below VMT_EVDUMP_KEYS of ISAs below VMT_EVDUMP_ISAS */
#define VMT_EVDUMP_ISAS 3
#define VMT_EVDUMP_KEYS 2048	/* SVM's npf is 0x400 */

struct vmt_evdump_label {
	uint8_t len;			/* 0: not made yet (or too long to keep) */
	char text[47];
};

struct vmt_evdump {
	struct vmt_evdump_opts o;
	struct vmt_exitreasons *names;
	bool neutral;			/* another pair than KVM's: BEGIN/END and id */
	uint64_t from_ts, to_ts;	/* the window in trace clock units, absolute */
	uint64_t lines;
	char *text;			/* text lines not yet written, len bytes */
	size_t len;
	struct vmt_evdump_label *labels;	/* [isa * VMT_EVDUMP_KEYS + key] */
	uint64_t sec;			/* the seconds of the last line's time ... */
	unsigned int sec_len;		/* ... as text, padded, with the point (0: none) */
	char sec_text[32];
	uint32_t task_cpu;		/* " cpu %3u pid %7d" of the last line ... */
	int32_t task_pid;
	unsigned int task_len;		/* ... as text (0: none) */
	char task_text[40];
};

/* Prepare d and its consumer. Returns 0; vmt_evdump_free() afterwards. */
int vmt_evdump_consumer(struct vmt_evdump *d, const struct vmt_evdump_opts *o,
			struct vmt_consumer *out);
/* Write the buffered text lines to the FILE (the pass's end does it too). */
void vmt_evdump_flush(struct vmt_evdump *d);
void vmt_evdump_free(struct vmt_evdump *d);

#endif
