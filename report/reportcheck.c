// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reportcheck: which of vmtrace-report's options go together, checked once the command line
 * is read (reportopt.c parses the values): several recordings and --compare take only the
 * views that apply to every recording, each view refuses the options it would ignore or
 * that would mix figures, so that nothing given is silently dropped. Usage errors end the
 * program with status 64, as argp's do.
 */
#include "config.h"

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filteropt.h"
#include "inputopt.h"
#include "log.h"
#include "reportopt.h"
#include "timefmt.h"

/*
 * One recording given twice, by any names: merged, each of its exits would count twice, which
 * is never meant (a usage error, exit 64); compared with itself, it is a sanity check of the
 * comparison (every change 0), so only a warning says the two are one file.
 */
#define NAME(f) (strcmp(f, "-") ? (f) : "standard input")
static void check_same_files(const struct report_opts *o)
{
	unsigned int i, k;

	for (i = 0; i < o->nfiles; i++) {
		for (k = i + 1; k < o->nfiles; k++) {
			if (!vmt_input_same_file(o->files[i], o->files[k]))
				continue;
			if (o->compare) {
				vmt_warn("%s and %s are the same file: comparing it with itself",
					 NAME(o->files[i]), NAME(o->files[k]));
				continue;
			}
			vmt_err("%s and %s are the same file: merged, each exit would count twice",
				NAME(o->files[i]), NAME(o->files[k]));
			exit(64);
		}
	}
}

/*
 * The views given that a merge of several recordings refuses, "--legacy, -v", into buf
 * (empty: none), each as it was given, so that the refusal names what to leave out.
 */
static void merge_conflicts(const struct report_opts *o, char *buf, size_t size)
{
	const struct {
		bool given;
		const char *name;
	} v[] = {
		{ o->legacy, "--legacy" }, { o->verbose, "-v" }, { o->why, "--why" },
		{ o->wide, "--wide" }, { o->top_given, "--top" },
		{ o->threshold_ns, "--threshold" }, { o->around, "--around" },
		{ o->interval_ns, "--interval" }, { o->html, "--html" },
		{ o->openmetrics, "--openmetrics" }, { o->nlabels, "--label" },
		{ o->histogram_given, "--histogram" },
		{ o->bucket_ns, "--bucket" }, { o->buckets, "--buckets" }, { o->hist_log, "--log" },
		{ o->hist_format_given, "--hist-format" },
	};
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(v) / sizeof(v[0]) && len < size; i++) {
		if (v[i].given)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
						v[i].name);
	}
}

/*
 * --compare takes two recordings, several without it are merged; both take only the
 * options that apply to every recording.
 */
static void check_several(struct argp_state *state, struct report_opts *o)
{
	unsigned int i, stdin_files = 0;
	char views[192];

	/* one recording's absolute figures, or a comparison's; no gate on a merge */
	if (!o->compare && o->fail_if && o->nfiles > 1)
		argp_error(state, "--fail-if goes with one recording or --compare");
	if (o->compare && o->nfiles != 2)
		argp_error(state, "--compare takes two recordings: BEFORE AFTER");
	if (o->nfiles < 2)
		return;
	for (i = 0; i < o->nfiles; i++)
		stdin_files += !strcmp(o->files[i], "-");
	if (stdin_files > 1)
		argp_error(state, "only one of the recordings can be standard input");
	check_same_files(o);
	o->file2 = o->files[1];
	/* "--openmetrics out.prom run.vmt": its FILE is joined with '=' (an optional value) */
	if (!o->compare && o->openmetrics && !o->metrics_file && access(o->files[0], F_OK) != 0)
		argp_error(state, "--openmetrics reads one recording; to write the metrics into "
			   "%s, give --openmetrics=%s", o->files[0], o->files[0]);
	merge_conflicts(o, views, sizeof(views));
	if (!o->compare && views[0])
		argp_error(state, "several recordings are merged into figures per exit reason "
			   "and per file: they take --json, --window, --no-causes and the "
			   "filters; no other view (%s given)", views);
	if (o->compare && (o->legacy || o->verbose || o->histogram || o->bucket_ns ||
			   o->buckets || o->hist_log || o->hist_cyclictest || o->threshold_ns ||
			   o->around || o->why || o->wide || o->top_given || o->interval_ns ||
			   o->openmetrics || o->nlabels))
		argp_error(state, "--compare takes --json, --html, --window, --fail-if, "
			   "--no-causes and the filters; no other view");
}

/*
 * Options that would make figures mean something other than what their labels say, or
 * change nothing: refused rather than printed beside figures they do not apply to.
 */
static void check_figures(struct argp_state *state, const struct report_opts *o)
{
	const char *filter = vmt_filter_opts_given(&o->fo);

	/*
	 * The original tool's "Number of VM events" counts every event of the file, which no
	 * filter can select from (the events of a pair the filter leaves out are still
	 * events): filtered latencies beside it would be two populations as one.
	 */
	if (o->legacy && filter)
		argp_error(state, "--legacy prints the original tool's figures, whose event count "
			   "is of every event: it takes no filter (%s given)", filter);
	/* log2 buckets have no width to set: --buckets says how many */
	if (o->hist_log && o->bucket_ns)
		argp_error(state, "--bucket sets the width of linear buckets; --log's are powers "
			   "of 2 (--buckets sets how many)");
}

/*
 * The views given that --openmetrics would drop, "--interval, --wide", into buf (empty: none):
 * the histogram's own options too, which would print nothing beside the metrics.
 */
static void openmetrics_conflicts(const struct report_opts *o, char *buf, size_t size)
{
	bool hist_opt = o->hist_cyclictest || o->hist_log || o->bucket_ns || o->buckets;
	const struct {
		bool given;
		const char *name;
	} v[] = {
		{ o->json, "--json" }, { o->html, "--html" }, { o->legacy, "--legacy" },
		{ o->verbose, "-v" }, { o->around, "--around" }, { o->threshold_ns, "--threshold" },
		{ o->top_given, "--top" }, { o->interval_ns, "--interval" },
		{ o->histogram && !hist_opt, "--histogram" },
		{ o->hist_cyclictest, "--hist-format" }, { o->hist_log, "--log" },
		{ o->bucket_ns, "--bucket" }, { o->buckets, "--buckets" }, { o->wide, "--wide" },
	};
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(v) / sizeof(v[0]) && len < size; i++) {
		if (v[i].given)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
						v[i].name);
	}
}

void report_check_views(struct argp_state *state, struct report_opts *o)
{
	char views[160] = "";

	if (o->openmetrics)
		openmetrics_conflicts(o, views, sizeof(views));
	if (views[0])
		argp_error(state, "--openmetrics prints the metrics only: it takes no other view "
			   "(%s given)", views);
	check_several(state, o);
	if (o->nlabels && !o->openmetrics)
		argp_error(state, "--label goes with --openmetrics");
	if (o->json + o->legacy + o->verbose > 1)
		argp_error(state, "--json, --legacy and --verbose exclude each other");
	if (o->why && o->no_causes)
		argp_error(state, "--why shows the causes that --no-causes leaves out: choose one");
	if (o->why && !o->verbose && !o->around)
		argp_error(state, "--why goes with -v or --around (the report shows causes "
			   "anyway)");
	if (o->verbose && o->around)
		argp_error(state, "-v prints every event, --around those near a time: "
			   "choose one");
	/* options the mode would ignore are refused, never dropped */
	if (o->legacy && (o->histogram || o->top_given || o->threshold_ns || o->around ||
			  o->wide || o->why || o->bucket_ns || o->buckets || o->hist_log))
		argp_error(state, "--legacy prints the original four lines only: it takes "
			   "no other view");
	/* a cyclictest histogram's readers parse every line: nothing else is printed */
	if (o->hist_cyclictest && (o->verbose || o->around || o->threshold_ns || o->why ||
				   o->wide || o->top_given || o->interval_ns ||
				   (o->html && strcmp(o->html, "-") == 0)))
		argp_error(state, "--hist-format cyclictest prints the histogram alone, in "
			   "cyclictest -h's layout: it takes no other view");
	/* the page is all of standard output: a second output there would be dropped */
	if (o->html && strcmp(o->html, "-") == 0 &&
	    (o->json || o->legacy || o->verbose || o->around || o->threshold_ns ||
	     o->histogram || o->bucket_ns || o->buckets || o->hist_log || o->wide))
		argp_error(state, "--html - is the page alone on standard output: no --json, "
			   "--legacy, -v, lists, histogram or --wide");
	if (o->json && (o->wide || o->hist_cyclictest))
		argp_error(state, "--json has every field: --wide and --hist-format are "
			   "for text");
	if (o->interval_ns && o->legacy)
		argp_error(state, "--interval goes with the text or JSON report");
	/*
	 * The original's last line is "within %ldms = %ldus": a window of no whole ms has no
	 * such line, and any other spelling breaks the scripts --legacy is for.
	 */
	if (o->legacy && o->window_ns % 1000000)
		argp_error(state, "--legacy prints the original's window in whole milliseconds "
			   "(\"within 1ms\"): --window %s is not",
			   vmt_fmt_exact_ns(o->window_ns, (char[32]){ 0 }, 32));
	check_figures(state, o);
}
