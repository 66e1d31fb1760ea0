/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reportopt: vmtrace-report's command line (argp, with the shared input and filter
 * children) parsed into struct report_opts. Exits with status 64 on a usage error, as
 * argp does.
 */
#ifndef VMT_REPORTOPT_H
#define VMT_REPORTOPT_H

#include <stdbool.h>
#include <stdint.h>

#include "filteropt.h"
#include "openmetrics.h"
#include "source.h"

#define REPORT_MAX_FILES 64

struct report_opts {
	const char *file;		/* the first recording */
	const char *file2;		/* --compare: the after recording (file is before) */
	const char *files[REPORT_MAX_FILES];	/* every recording given */
	unsigned int nfiles;		/* more than one without --compare: merged */
	int compare;
	const char *fail_if;		/* --fail-if conditions, or NULL */
	struct vmt_input_opts in;
	int json, openmetrics, legacy, verbose, histogram, hist_log, hist_cyclictest, why, wide;
	/* given as such (histogram is set by --hist-format too): for naming them */
	bool histogram_given, hist_format_given;
	uint64_t window_ns, threshold_ns, bucket_ns;
	unsigned int top, buckets;
	unsigned int jobs;		/* --jobs: threads for the time slices (0: online CPUs) */
	bool no_causes;			/* --no-causes: the figures without attribution */
	bool top_given;
	bool around;
	bool around_trigger;		/* --around trigger: the flight recording's exit */
	uint64_t around_ns, around_span_ns;
	uint64_t interval_ns;		/* --interval: the time series, 0: none */
	const char *html;		/* --html FILE, or NULL */
	const char *metrics_file;	/* --openmetrics=FILE, or NULL (standard output) */
	const char *labels[VMT_OPENMETRICS_MAX_EXTRA];	/* --label NAME=VALUE, checked */
	size_t nlabels;
	struct vmt_filter_opts fo;
};

/* Fill o with the defaults and the command line; exits on a usage error. */
void report_parse_args(struct report_opts *o, int argc, char **argv);

struct argp_state;
/*
 * reportcheck.c: once every option is read, refuse the combinations a view would ignore or
 * mix (argp_error(), exit status 64), and set file2 for --compare.
 */
void report_check_views(struct argp_state *state, struct report_opts *o);

#endif
