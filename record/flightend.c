// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>

#include "flightend.h"
#include "log.h"
#include "metakeys.h"

/*
 * A trace clock time on CLOCK_MONOTONIC, through the file's start. The trace clock counts
 * ns (--on-threshold needs it). 0 when before the monotonic clock's start.
 */
static uint64_t to_mono(const struct rec_file_start *fs, uint64_t ts)
{
	if (ts >= fs->ts)
		return fs->mono_ns + (ts - fs->ts);
	return fs->ts - ts > fs->mono_ns ? 0 : fs->mono_ns - (fs->ts - ts);
}

uint64_t rec_flightend(const struct rec_ring_stats *st, const struct rec_file_start *fs,
		       const char *pair, uint64_t keep_ns, uint64_t after_ns, struct vmt_kvbuf *end)
{
	const struct rec_ring_trigger *t = &st->trigger;
	uint64_t cutoff = t->ts > keep_ns ? t->ts - keep_ns : 0, kept;
	uint64_t until = 0;

	if (!st->triggered)
		return 0;
	vmt_kv_addf(end, VMT_META_TRIGGER_TS, "%" PRIu64, t->ts);
	vmt_kv_addf(end, VMT_META_TRIGGER_LAT, "%" PRIu64, t->lat_ns);
	vmt_kv_addf(end, VMT_META_TRIGGER_CPU, "%" PRIu32, t->cpu);
	vmt_kv_addf(end, VMT_META_TRIGGER_PID, "%" PRId32, t->pid);
	/*
	 * The file holds the time up to --after past the exit's end (its pages are cut there),
	 * not up to when the recorder finished it: the collector's settling wait after the
	 * window, and with --continue the next file's, are in no file's time.
	 */
	if (fs->mono_ns)
		until = to_mono(fs, t->ts + t->lat_ns + after_ns);
	/*
	 * The pages begin at the first kept page, not at the file's start: long before it
	 * (hunting for hours), or after the previous file's end with --continue, whose next
	 * file holds what the ring kept before it was opened. Not before the previous file's
	 * end: a page cut at its window starts with that page's time stamp, and the files'
	 * times must not overlap.
	 */
	if (st->kept_from_ts && fs->mono_ns) {
		kept = to_mono(fs, st->kept_from_ts);
		if (kept < fs->prev_end_mono_ns)
			kept = fs->prev_end_mono_ns;
		if (until < kept)
			until = kept;
		vmt_kv_addf(end, VMT_META_MONO_KEPT, "%" PRIu64, kept);
	}
	vmt_info("%s %s of %" PRIu64 " ns (pid %" PRId32 ", CPU %" PRIu32 ") triggered: "
		 "%" PRIu64 " chunk%s written, %" PRIu64 " dropped before",
		 pair[0] == 'e' ? "an" : "a", pair, t->lat_ns, t->pid, t->cpu,
		 st->written_chunks, st->written_chunks == 1 ? "" : "s", st->dropped_chunks);
	/* no page at all: the window's were dropped before the exit was seen */
	if (!st->kept_from_ts)
		vmt_warn("the pages of the %s that triggered are gone (%" PRIu64 " chunk%s "
			 "dropped): try a larger --ring-size", pair, st->dropped_full,
			 st->dropped_full == 1 ? "" : "s");
	else if (st->kept_from_ts > t->ts)
		vmt_warn("the file lacks the start of the %s that triggered: its pages begin "
			 "%.3f s after it (%" PRIu64 " chunk%s over --ring-size dropped); try a "
			 "larger --ring-size", pair, (double)(st->kept_from_ts - t->ts) / 1e9,
			 st->dropped_full, st->dropped_full == 1 ? "" : "s");
	else if (st->dropped_full && st->kept_from_ts > cutoff)
		vmt_warn("the file keeps %.3f s before the %s that triggered, not --keep's "
			 "%.3f s (%" PRIu64 " chunk%s over --ring-size dropped); try a larger "
			 "--ring-size", (double)(t->ts - st->kept_from_ts) / 1e9, pair,
			 (double)keep_ns / 1e9, st->dropped_full, st->dropped_full == 1 ? "" : "s");
	return until;
}
