/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * htmlreport: the report as one self-contained HTML page (inline CSS and SVG, no network,
 * a small inline script for hover values only): the recording's facts, the summary
 * figures, latency histograms per exit reason, percentile curves, out-of-guest time and
 * the longest exits over time per vCPU, a latency-over-time heatmap, the longest exits and
 * the worst windows. Every number comes from a finished summary (summary.h) and series
 * (series.h, with its heatmap); the page's size grows with bins, never with exits. Charts
 * carry ids and data-* attributes with their values (man/vmtrace-report.1). Stateless.
 */
#ifndef VMT_HTMLREPORT_H
#define VMT_HTMLREPORT_H

#include "outbuf.h"
#include "reader.h"
#include "series.h"
#include "summary.h"

/* Most vCPU tasks drawn over time, reasons drawn as histograms and curves. */
#define VMT_HTML_MAX_TASKS 8
#define VMT_HTML_MAX_REASONS 8
/* Most points of a line over time and columns of the heatmap. */
#define VMT_HTML_MAX_POINTS 1000
#define VMT_HTML_MAX_HEAT_COLS 200

/* The page onto o. */
void vmt_html_report(struct vmt_outbuf *o, const struct vmt_reader *r,
		     const struct vmt_summary *s, const struct vmt_series *se);
/*
 * The page into path through outfile.h (a temporary name, renamed when complete; "-" is
 * standard output). Returns 0 or -errno; -EINVAL when path is the recording itself. note
 * (note_size bytes) gets vmt_outfile_note()'s words, or ""; when the file cannot be
 * opened, vmt_outfile_open()'s line that says why (else "" on an error).
 */
int vmt_html_write_file(const char *path, const struct vmt_reader *r,
			const struct vmt_summary *s, const struct vmt_series *se, char *note,
			size_t note_size);

#endif
