// SPDX-License-Identifier: GPL-2.0-or-later
/* vmtrace-convert's row writers (writers.h): CSV and JSON lines, and --series. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "nomatch.h"
#include "openexits.h"
#include "outbuf.h"
#include "rows.h"
#include "seriesfmt.h"
#include "timefmt.h"
#include "writers.h"

/* After the pass: why nothing came out, and rows written out of order. */
static void say_rows(const struct convert_opts *o, const struct vmt_iter *it, uint64_t rows,
		     const struct vmt_rows_stats *st)
{
	char msg[1024];

	if (!rows && vmt_nomatch_explain(it, msg, sizeof(msg)))
		vmt_info("%s: %s", o->input, msg);
	if (o->why && !it->why)
		vmt_warn("%s: no context events in this recording: the why columns are empty "
			 "(causes unknown, not zero); vmtrace-record records them unless given "
			 "--context none", o->input);
	else if (o->why && st->why_incomplete)
		/* the rows written, not every exit attributed: the filters left some out */
		vmt_info("%s: %llu row%s with incomplete causes (events lost, the task moved "
			 "off the traced CPUs, or an interrupt still open at the entry): their "
			 "unknown time is in kvm_ns, incomplete = 1", o->input,
			 (unsigned long long)st->why_incomplete,
			 st->why_incomplete == 1 ? "" : "s");
	if (st->unordered)
		vmt_warn("%s: %llu row%s written out of exit-time order: %s exit stayed open while "
			 "%llu later exits began (vmtrace-convert(1), DESCRIPTION)", o->input,
			 (unsigned long long)st->unordered, st->unordered == 1 ? "" : "s",
			 st->unordered == 1 ? "its" : "each", (unsigned long long)st->hold_max);
}

int convert_rows(const struct convert_opts *o, struct vmt_reader *r, int fd,
		 struct convert_found *found)
{
	struct vmt_rows_opts ro = { .format = o->format == CONVERT_CSV ? VMT_ROWS_CSV :
								 VMT_ROWS_JSONL,
				    .events = o->events != 0, .fd = fd, .why = o->why != 0,
				    .threads = -1 };
	struct vmt_iter_opts io = { .filter = (struct vmt_filter *)&o->fo.filter,
				    .attribute = o->why != 0 };
	struct vmt_rows_stats st;
	struct vmt_consumer c[2];
	struct convert_open open;
	struct vmt_rows *w;
	struct vmt_iter it;
	uint64_t rows;
	int ret, werr;

	ret = vmt_rows_consumer(&ro, &w, &c[0]);
	if (ret) {
		vmt_err("%s", strerror(-ret));
		return ret;
	}
	/* per event, an open exit has its row: per exit, it has none without its entry */
	convert_open_consumer(&open, &c[1]);
	ret = vmt_iterate(r, &io, c, o->events ? 1 : 2, &it);
	vmt_iter_read_stats(&it, &found->rd);
	found->damage = *vmt_reader_damage(r);
	found->decoded = true;
	rows = vmt_rows_count(w);
	st = *vmt_rows_stats(w);
	werr = vmt_rows_finish(w);
	if (werr) {
		vmt_err("%s: %s", convert_output_name(o), strerror(-werr));
		return werr;
	}
	if (ret == -E2BIG)	/* vmt_rows' start: a row could not fit the output's buffer */
		vmt_err("%s: a name in the recording (an exit reason or a VM) is too long for a "
			"CSV row: the row would pass %u KiB", o->input, VMT_OUTBUF_SIZE / 4 / 1024);
	else if (ret)
		vmt_err("%s: %s", o->input, strerror(-ret));
	else
		say_rows(o, &it, rows, &st);
	if (!ret)
		convert_say_open(o, &it, &open, "has no row", "have no row");
	return ret;
}

/* --series: the time series consumer (common/series.h), its rows written after the pass. */
int convert_series(const struct convert_opts *o, struct vmt_reader *r, int fd,
		   struct convert_found *found)
{
	/* fit: rows past the bound leave a count of the tasks, for the interval that fits */
	struct vmt_series_opts so = { o->series_ns, VMT_DEFAULT_WINDOW_NS, false, true };
	char msg[256];
	struct vmt_iter_opts io = { .filter = (struct vmt_filter *)&o->fo.filter };
	struct convert_open open;
	struct vmt_series se;
	struct vmt_consumer c[2];
	struct vmt_iter it;
	int ret;

	/* so.interval_ns: the one that fits, chosen or checked as the input was opened */
	ret = vmt_series_consumer(&se, &so, &c[0]);
	if (!ret) {
		convert_open_consumer(&open, &c[1]);
		ret = vmt_iterate(r, &io, c, 2, &it);
		vmt_iter_read_stats(&it, &found->rd);
		found->damage = *vmt_reader_damage(r);
		found->decoded = true;
	}
	if (!ret && vmt_series_too_many(&se, "--series", msg, sizeof(msg))) {
		/* the interval fitted at open, for more vCPU tasks than that took */
		vmt_err_folded("%s: %s", o->input, msg);
		ret = EXIT_USAGE;	/* as a --series too short for the span is refused at open */
	} else if (ret) {
		vmt_err("%s: %s", o->input, strerror(-ret));
	} else {
		ret = vmt_series_write_rows(fd, &se, vmt_reader_vmmap(r),
					    o->format == CONVERT_CSV);
		if (ret)
			vmt_err("%s: %s", convert_output_name(o), strerror(-ret));
		else if (!se.nrows)	/* empty results say why, as the rows' do */
			say_rows(o, &it, 0, &(struct vmt_rows_stats){ 0 });
		if (!ret)
			convert_say_open(o, &it, &open, "is in no interval's figures",
					 "are in no interval's figures");
	}
	vmt_series_free(&se);
	return ret;
}
