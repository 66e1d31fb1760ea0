/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * watch: what vmtrace-record does with the pages while it records (--live, --metrics,
 * --on-threshold): the tap (tap.h) in front of the writer queue's sink, or of the flight
 * recorder's ring (ring.h), with the live view (live.h), the metrics publisher
 * (metrics.h) and the trigger as the consumers of its pass. Set up by main before the collector
 * starts, used on the collector thread, read and freed by main after the collector ended.
 */
#ifndef REC_WATCH_H
#define REC_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "evformat.h"
#include "kv.h"
#include "collector.h"
#include "flightend.h"
#include "recopt.h"
#include "session.h"
#include "sink.h"

struct rec_watch;

/*
 * For o->live_ns, o->metrics and o->threshold_ns (then the ring in front of q's sink
 * cc->sink, whose chunks go back to q's pool when dropped): the tap in front of cc->sink
 * (replaced by the tap's), with a look-behind of twice cc->chunk_max_age_ns, the page
 * layout and clock of ses, the formats, host name and VM map (--vm) from meta, the live
 * view on standard output (a table when it is a terminal), and a first publication of the
 * metrics (nothing yet) so that a file that cannot be written is said at once. Says what
 * failed (one line) and returns -errno; *out NULL when nothing is asked for.
 */
struct rec_chunkq;
int rec_watch_attach(struct rec_watch **out, const struct record_opts *o,
		     const struct rec_session *ses, const struct vmt_kvbuf *meta,
		     struct rec_chunkq *q, struct rec_collector_config *cc);
/*
 * --on-threshold: the exit came and what follows it is written: time to stop (any
 * thread). Then *reason is set to "threshold" and true returned.
 */
bool rec_watch_done(const struct rec_watch *w, const char **reason);
/*
 * After the collector ended: the triggering exit's keys (metakeys.h) into END, a line
 * naming it, and a warning when the watchers stopped or records came late. Returns the end
 * of what the file holds on CLOCK_MONOTONIC, --after past the triggering exit's end (the
 * caller takes the earlier of it and the stop), or 0: no trigger, the end is the stop.
 */
uint64_t rec_watch_end(const struct rec_watch *w, const struct rec_file_start *fs,
		       struct vmt_kvbuf *end);
/* After the collector ended: a trigger came for the file in progress (--on-threshold). */
bool rec_watch_triggered(const struct rec_watch *w);
/*
 * --continue, while rec_watch_done() is true: the keys and line of the trigger that is
 * done into END of its file (the collector goes on meanwhile), and its end as
 * rec_watch_end() returns it; then, once the next file is open, rec_watch_rearm() lets the
 * next trigger come.
 */
uint64_t rec_watch_end_done(const struct rec_watch *w, const struct rec_file_start *fs,
			    struct vmt_kvbuf *end);
void rec_watch_rearm(struct rec_watch *w);
/* Tracing went off at ts (trace clock, 0: unknown): the live view's last intervals end there. */
void rec_watch_tracing_off(struct rec_watch *w, uint64_t ts);
/*
 * After the collector ended: when the live figures' pass saw not one begin event (--live,
 * --metrics, --on-threshold), a warning that says so and what it may mean, as the
 * readback's (which a run without a file to read back lacks). Returns whether it said it.
 */
bool rec_watch_said_none(const struct rec_watch *w);
/*
 * After the collector ended, when nothing triggered the file in progress (--on-threshold):
 * rec_watch_said_none()'s warning when no exit came at all, else a line saying so and what
 * was written: file, published without pages; or with --continue
 * (file NULL) no file, or files files before it, stopped by stop. Nothing otherwise.
 */
void rec_watch_untriggered(const struct rec_watch *w, const char *stop, const char *file,
			   unsigned int files);
/* After the collector is freed (its last chunks go through the tap). NULL is fine. */
void rec_watch_free(struct rec_watch *w);

#endif
