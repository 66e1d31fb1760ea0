/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * convertopt: vmtrace-convert's command line (argp, with the shared input and filter
 * children) parsed into struct convert_opts. Exits with status 64 on a usage error.
 */
#ifndef VMT_CONVERTOPT_H
#define VMT_CONVERTOPT_H

#include "filteropt.h"
#include "source.h"

enum convert_format {
	CONVERT_CSV = 1,
	CONVERT_JSONL,
	CONVERT_LEGACY,
	CONVERT_VMT,
	CONVERT_PERFETTO,
};

struct convert_opts {
	const char *input;
	const char *output;		/* NULL or "-": standard output */
	struct vmt_input_opts in;
	enum convert_format format;
	int events;
	int why;			/* --why: per-exit rows with their breakdown */
	int series;			/* --series: per interval and vCPU instead */
	uint64_t series_ns;		/* its interval, 0: chosen from the span (open_input) */
	struct vmt_filter_opts fo;
};

/* Fill o from the command line; exits on a usage error. */
void convert_parse_args(struct convert_opts *o, int argc, char **argv);

#endif
