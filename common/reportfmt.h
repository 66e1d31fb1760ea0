/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reportfmt: the report's text renderers, from a finished summary (summary.h) and the
 * reader it came from: the text report (120 columns unless wide) and its summary block,
 * the rows of exit lists, the original tool's four lines, and histograms as text bars or
 * in cyclictest's layout (the JSON is reportjson.h). They write to the FILE the caller
 * gives and keep no state.
 */
#ifndef VMT_REPORTFMT_H
#define VMT_REPORTFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reader.h"
#include "summary.h"

/* How much the text shows. */
struct vmt_report_style {
	bool wide;		/* every column and field, past 120 columns */
};

/*
 * A task as the tables name it: "comm (pid)", comm cut with '~' so that it fits columns, or
 * "- (pid)" for a task no context event named (comm NULL or ""). Returns buf.
 */
char *vmt_report_task_name(int32_t pid, const char *comm, int columns, char *buf, size_t size);
/* The summary block (the original four figures among them), as vmtrace-record ends. */
void vmt_report_summary_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s);
/* The full report: header, summary, percentiles, tables, causes, longest exits. */
void vmt_report_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
		     const struct vmt_report_style *st);
/*
 * The columns of a list of exits (longest exits, exits over a threshold), and one row. The
 * reason column is as wide as the longest reason of the list: the length of e's, and the
 * column's width for the longest (at least 22; within 120 columns unless --wide, a longer
 * reason cut by vmt_fmt_fit).
 */
size_t vmt_report_exit_reason_len(const struct vmt_summary *s, const struct vmt_event *e);
unsigned int vmt_report_exit_reason_cols(size_t longest, const struct vmt_report_style *st);
void vmt_report_exit_header(FILE *f, const struct vmt_reader *r, unsigned int reason_cols);
void vmt_report_exit_row(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
			 const struct vmt_report_style *st, unsigned int reason_cols,
			 const struct vmt_event *e, uint64_t lat, const struct vmt_why *why);
/* The original vm-trace's four lines, whole microseconds. */
void vmt_report_legacy(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s);
/*
 * Histogram as text bars (rtla style: within 120 columns unless --wide, columns as wide as
 * their cells, shorter bars, then fewer pCPU columns) or in cyclictest -h's gnuplot-ready
 * layout.
 */
void vmt_report_hist_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
			  const struct vmt_report_style *st);
void vmt_report_hist_cyclictest(FILE *f, const struct vmt_reader *r,
				const struct vmt_summary *s);

#endif
