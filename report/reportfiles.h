/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reportfiles: the report's files besides standard output, --html's page and
 * --openmetrics' text, written through outfile.h, with their messages printed here.
 */
#ifndef REPORT_FILES_H
#define REPORT_FILES_H

#include "reader.h"
#include "reportopt.h"
#include "series.h"
#include "summary.h"

/* The page into path ("-": standard output): 0, or 1 with the error said. */
int report_write_html(const char *path, const struct vmt_reader *r, const struct vmt_summary *s,
		      const struct vmt_series *se);
/*
 * The metrics of recording file: into path (=FILE), or standard output when path is NULL,
 * with o's --label labels, and vm="NAME" on every sample when the figures are of one VM.
 * 0, or 1 with the error said.
 */
int report_openmetrics(const char *file, const char *path, const struct vmt_reader *r,
		       const struct vmt_summary *s, const struct report_opts *o);

#endif
