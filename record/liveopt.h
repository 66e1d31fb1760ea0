/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liveopt: the options of vmtrace-record that watch while it records or keep only part of
 * it (--live, --no-output, --metrics, --interval, --on-threshold, --keep, --after,
 * --continue, --ring-size) and their checks against the rest of the command line. Called
 * by recopt's argp parser, main thread, once at start.
 */
#ifndef REC_LIVEOPT_H
#define REC_LIVEOPT_H

#include <argp.h>

#include "recopt.h"

/* Their argp keys (recopt's own long-only options are below 0x200). */
enum {
	REC_OPT_LIVE = 0x200, REC_OPT_NO_OUTPUT, REC_OPT_METRICS, REC_OPT_INTERVAL,
	REC_OPT_THRESHOLD, REC_OPT_KEEP, REC_OPT_AFTER, REC_OPT_CONTINUE, REC_OPT_RING_SIZE,
	REC_OPT_LABEL, REC_OPT_TRIGGER_REASON,
};

/*
 * One of those options (key, arg), or ARGP_KEY_END: what they need from the other options
 * and their defaults. A bad command line exits 64 (argp_error), as every option's.
 */
void rec_liveopt_parse(struct argp_state *state, struct record_opts *o, int key,
		       const char *arg);

#endif
