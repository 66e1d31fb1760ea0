// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <argp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmdline.h"
#include "filteropt.h"
#include "inputopt.h"
#include "log.h"
#include "outfile.h"
#include "reportopt.h"
#include "summary.h"

enum {
	OPT_JSON = 256,
	OPT_LEGACY,
	OPT_WINDOW,
	OPT_TOP,
	OPT_THRESHOLD,
	OPT_AROUND,
	OPT_HISTOGRAM,
	OPT_BUCKET,
	OPT_BUCKETS,
	OPT_LOG,
	OPT_HIST_FORMAT,
	OPT_WHY,
	OPT_WIDE,
	OPT_INTERVAL,
	OPT_HTML,
	OPT_OPENMETRICS,
	OPT_COMPARE,
	OPT_FAIL_IF,
	OPT_JOBS,
	OPT_LABEL,
	OPT_NO_CAUSES,
};

const char *argp_program_version = PACKAGE_NAME " " PACKAGE_VERSION;

static const char doc[] =
	"Report VM exit-entry latencies from a vmtrace recording (.vmt): events, pairs, lost "
	"events, orphans, latency distribution and percentiles per exit reason, per pCPU and "
	"per vCPU, the largest out-of-guest time inside any sliding window, and the longest "
	"exits."
	"\v"
	"Examples:\n"
	"  vmtrace-report run1.vmt\n"
	"  vmtrace-report -f run1.vmt --legacy     # the original vm-trace -f output\n"
	"  vmtrace-report --json run1.vmt | jq .percentiles_ns\n"
	"  vmtrace-report --histogram --bucket 500ns run1.vmt\n"
	"  vmtrace-report --reason hlt,io --cpu 2 --from 1s --to 2s run1.vmt\n"
	"  vmtrace-report --threshold 50us --around 1.25s,200us run1.vmt\n"
	"  vmtrace-report --format-dir events/ trace.bin  # the original tool's file\n"
	"  vmtrace-report trace.dat                       # trace-cmd record -e kvm\n"
	"  vmtrace-report --interval 100ms run1.vmt       # per interval and vCPU\n"
	"  vmtrace-report --html run1.html run1.vmt       # one page with the pictures\n"
	"  vmtrace-report --openmetrics run1.vmt          # for Prometheus\n"
	"  vmtrace-report --openmetrics=/var/lib/node_exporter/vmtrace.prom run1.vmt\n"
	"  vmtrace-report --compare before.vmt after.vmt  # A/B, with a test per change\n"
	"  vmtrace-report part1.vmt part2.vmt trace.dat   # merged, with a row per file\n"
	"  vmtrace-report --compare --fail-if 'p99>+10%,max>2ms' before.vmt after.vmt\n"
	"  vmtrace-report --fail-if 'max>2ms,p99>50us' run1.vmt  # an SLO on one run\n"
	"\n"
	"TIME takes ns, us, ms, s, m (or min) or h (a bare number is seconds). --from, --to "
	"and --around count from the start of the recording (its first page). FILE - reads "
	"standard input (copied to a temporary file first). Exit status: 0, 1 on an error, 2 "
	"when the report comes from an unfinished or damaged file, 64 for a bad command line; "
	"with --fail-if, 1 also when a condition holds (2 still for a damaged file).";

static const struct argp_option options[] = {
	{ "file", 'f', "FILE", 0, "the recording: .vmt, the original tool's trace.bin or a "
	  "trace-cmd trace.dat (the original -f; a plain argument works too)", 1 },
	{ NULL, 0, NULL, 0, "Output:", 2 },
	{ "json", OPT_JSON, NULL, 0, "print one JSON object", 2 },
	{ "legacy", OPT_LEGACY, NULL, 0, "print exactly the original vm-trace's four lines (no "
	  "filters: its event count is of every event)", 2 },
	{ "verbose", 'v', NULL, 0, "print every event first, one line each, with decoded "
	  "fields and each entry's latency", 2 },
	{ "wide", OPT_WIDE, NULL, 0, "every column and field (past 120 columns): stddev, p90, "
	  "p99.99, all of an exit's fields, every task (not the 32 with most time)", 2 },
	{ "why", OPT_WHY, NULL, 0, "with -v or --around: where each exit's time went, under "
	  "its entry (the longest exits always show it when the recording has context "
	  "events)", 2 },
	{ "no-causes", OPT_NO_CAUSES, NULL, 0, "do not work out where each exit's time went, "
	  "even when the recording has context events: the figures alone, faster (time slices "
	  "then run on such recordings too)", 2 },
	{ "top", OPT_TOP, "N", 0, "list the N longest exits (default 10, 0: none)", 2 },
	{ "threshold", OPT_THRESHOLD, "TIME", 0, "list every exit of TIME or longer", 2 },
	{ "around", OPT_AROUND, "TS[,SPAN]", 0, "print every event within SPAN (default 100us) "
	  "of time TS; TS 'trigger': the exit that triggered a flight recording", 2 },
	{ "jobs", OPT_JOBS, "N", 0, "analyse the recording on N threads, cut into time slices "
	  "(default: the CPUs it may run on; 1: one pass)", 2 },
	{ "window", OPT_WINDOW, "TIME", 0, "sliding window for the cumulative latency "
	  "(default 1ms)", 2 },
	{ "interval", OPT_INTERVAL, "TIME", 0, "a time series: exits, out-of-guest time, max, "
	  "p99 and worst window per interval of TIME and vCPU (table, JSON \"series\")", 2 },
	{ "openmetrics", OPT_OPENMETRICS, "FILE", OPTION_ARG_OPTIONAL, "print the summary as "
	  "OpenMetrics text (exits, out-of-guest seconds, latency histograms, worst window, "
	  "lost events) for Prometheus; =FILE replaces FILE atomically instead, in the text "
	  "format of node_exporter's textfile collector", 2 },
	{ "label", OPT_LABEL, "NAME=VALUE", 0, "with --openmetrics: add this label to every "
	  "sample (repeatable), e.g. to tell apart two recordings of one host", 2 },
	{ "html", OPT_HTML, "FILE", 0, "also write the report as one self-contained HTML page "
	  "with charts (\"-\": standard output, instead of the report)", 2 },
	{ NULL, 0, NULL, 0, "Comparison:", 4 },
	{ "compare", OPT_COMPARE, NULL, 0, "compare two recordings, BEFORE AFTER: per exit "
	  "reason and overall, counts, rates, p50/p99/p99.9/max and the worst window side by "
	  "side with their change, and whether the distributions differ beyond noise "
	  "(Kolmogorov-Smirnov test, p < 0.01); JSON \"compare\"", 4 },
	{ "fail-if", OPT_FAIL_IF, "EXPR", 0, "exit status 1 when a condition holds: "
	  "[REASON:]FIGURE OP VALUE joined by ',', FIGURE one of count, rate, mean, p50, "
	  "p90, p99, p99.9, p99.99, max, window, ks_p, ks_d, lost, open (the longest exit open at "
	  "the stop, one recording); OP >, >=, <, <=; VALUE a change "
	  "('+10%', with --compare), a time with its unit ('2ms') or a number (e.g. "
	  "'p99>+10%,hlt:max>2ms'; one recording: 'max>2ms,p99>50us')", 4 },
	{ NULL, 0, NULL, 0, "Histogram:", 3 },
	{ "histogram", OPT_HISTOGRAM, NULL, 0, "print a latency histogram per pCPU", 3 },
	{ "bucket", OPT_BUCKET, "TIME", 0, "bucket width (default 1us, not with --log); implies "
	  "--histogram", 3 },
	{ "buckets", OPT_BUCKETS, "N", 0, "number of buckets before the overflow row "
	  "(default 100, 40 with --log); implies --histogram", 3 },
	{ "log", OPT_LOG, NULL, 0, "log2 buckets instead of linear ones; implies --histogram",
	  3 },
	{ "hist-format", OPT_HIST_FORMAT, "FORMAT", 0, "text (bars, default) or cyclictest "
	  "(cyclictest -h's gnuplot-ready layout, alone: no text report); implies --histogram",
	  3 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct report_opts *o = state->input;
	char *comma, msg[160];
	uint64_t v;

	switch (key) {
	case 'f':
	case ARGP_KEY_ARG:
		if (o->nfiles == REPORT_MAX_FILES)
			argp_error(state, "at most %u recordings", REPORT_MAX_FILES);
		o->files[o->nfiles++] = arg;
		o->file = o->files[0];
		break;
	case OPT_JSON:
		o->json = 1;
		break;
	case OPT_LEGACY:
		o->legacy = 1;
		break;
	case 'v':
		o->verbose = 1;
		break;
	case OPT_WHY:
		o->why = 1;
		break;
	case OPT_NO_CAUSES:
		o->no_causes = true;
		break;
	case OPT_WIDE:
		o->wide = 1;
		break;
	case OPT_WINDOW:
		o->window_ns = vmt_argp_time(state, "window", arg);
		if (!o->window_ns)
			argp_error(state, "the window must be longer than 0");
		break;
	case OPT_TOP:
		if (vmt_cli_parse_u64(arg, &v) || v > 10000)
			argp_error(state, "invalid --top '%s' (0 to 10000)", arg);
		o->top = (unsigned int)v;
		o->top_given = true;
		break;
	case OPT_JOBS:
		if (vmt_cli_parse_u64(arg, &v) || v < 1 || v > 1024)
			argp_error(state, "invalid --jobs '%s' (1 to 1024)", arg);
		o->jobs = (unsigned int)v;
		break;
	case OPT_THRESHOLD:
		o->threshold_ns = vmt_argp_time(state, "threshold", arg);
		if (!o->threshold_ns)
			argp_error(state, "the threshold must be longer than 0");
		break;
	case OPT_AROUND:
		comma = strchr(arg, ',');
		if (comma)
			*comma = '\0';
		o->around = true;
		o->around_trigger = strcmp(arg, "trigger") == 0;
		o->around_ns = o->around_trigger ? 0 : vmt_argp_time(state, "time", arg);
		o->around_span_ns = comma ? vmt_argp_time(state, "span", comma + 1) : 100000;
		break;
	case OPT_HISTOGRAM:
		o->histogram = 1;
		o->histogram_given = true;
		break;
	case OPT_BUCKET:
		o->bucket_ns = vmt_argp_time(state, "bucket width", arg);
		if (!o->bucket_ns)
			argp_error(state, "the bucket width must be longer than 0");
		break;
	case OPT_BUCKETS:
		if (vmt_cli_parse_u64(arg, &v) || v == 0 || v > 100000)
			argp_error(state, "invalid --buckets '%s' (1 to 100000)", arg);
		o->buckets = (unsigned int)v;
		break;
	case OPT_LOG:
		o->hist_log = 1;
		break;
	case OPT_HIST_FORMAT:
		if (strcmp(arg, "cyclictest") == 0)
			o->hist_cyclictest = 1;
		else if (strcmp(arg, "text") != 0)
			argp_error(state, "invalid --hist-format '%s' (text or cyclictest)", arg);
		o->histogram = 1;
		o->hist_format_given = true;
		break;
	case OPT_INTERVAL:
		o->interval_ns = vmt_argp_time(state, "interval", arg);
		if (!o->interval_ns)
			argp_error(state, "the interval must be longer than 0");
		break;
	case OPT_OPENMETRICS:
		o->openmetrics = 1;
		if (arg && !*arg)
			argp_error(state, "empty --openmetrics file name");
		o->metrics_file = arg;
		break;
	case OPT_LABEL:
		if (vmt_openmetrics_extra_add(o->labels, &o->nlabels, arg, msg, sizeof(msg)))
			argp_error(state, "--label %s", msg);
		break;
	case OPT_COMPARE:
		o->compare = 1;
		break;
	case OPT_FAIL_IF:
		if (!*arg)
			argp_error(state, "empty --fail-if");
		o->fail_if = arg;
		break;
	case OPT_HTML:
		if (!*arg)
			argp_error(state, "empty --html file name");
		o->html = arg;
		break;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->in;	/* the shared input options */
		state->child_inputs[1] = &o->fo;	/* the shared filter options */
		break;
	case ARGP_KEY_END:
		/* "--html run.vmt": the recording was taken as the page's name */
		if (!o->file && o->html && strcmp(o->html, "-") && access(o->html, F_OK) == 0)
			argp_error(state, "no recording given: --html took %s as the page to write "
				   "(--html PAGE.html RECORDING)", o->html);
		if (!o->file)
			argp_error(state, "no recording given");
		report_check_views(state, o);
		if ((o->bucket_ns || o->buckets || o->hist_log) && !o->histogram)
			o->histogram = 1;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * The report's outputs (standard output, --html's page, --openmetrics' file) never write
 * over a recording: an input, by its name, a link, or as the regular file on standard input
 * ("-", read in place), nor any other file that holds one ("--html run1.vmt run2.vmt" took
 * run1.vmt for the page). A usage error, said before anything is read or written.
 */
static void check_outputs(const struct report_opts *o)
{
	const char *out[] = { "-", o->html, o->metrics_file };
	const char *what[] = { "standard output", "the --html page", "the --openmetrics file" };
	const char *kind[] = { "the report", "the HTML report", "the OpenMetrics text" };
	char msg[1024];
	unsigned int i, k;

	for (i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		for (k = 0; out[i] && k < o->nfiles; k++) {
			if (vmt_outfile_over_input(out[i], o->files[k], what[i], msg, sizeof(msg))) {
				vmt_err("%s", msg);
				exit(64);
			}
		}
		if (out[i] && vmt_outfile_over_recording(out[i], kind[i], msg, sizeof(msg))) {
			vmt_err("%s", msg);
			exit(64);
		}
	}
	/*
	 * The report (text or JSON) goes to standard output beside a --html page: one file for
	 * both would keep only the page, renamed over the report. --openmetrics=FILE takes no
	 * other view and prints nothing, --html - is the page alone.
	 */
	if (o->html && strcmp(o->html, "-") != 0 &&
	    vmt_outfile_clash(o->html, what[1], "-", "standard output (the report)", msg,
			      sizeof(msg))) {
		vmt_err("%s", msg);
		exit(64);
	}
}

void report_parse_args(struct report_opts *o, int argc, char **argv)
{
	struct argp_child children[] = {
		{ &vmt_input_argp, 0, NULL, 0 },
		{ &vmt_filter_argp, 0, NULL, 0 },
		{ &vmt_cmdline_argp, 0, NULL, 0 },
		{ 0 }
	};
	struct argp argp = { options, parse_opt, "[FILE...]", doc, children, NULL, NULL };

	memset(o, 0, sizeof(*o));
	o->window_ns = VMT_DEFAULT_WINDOW_NS;
	o->top = 10;
	vmt_cmdline_parse(&argp, argc, argv, o);
	check_outputs(o);
}
