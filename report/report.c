// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtrace-report: read a .vmt recording in one streaming pass and print the exit-entry
 * latency report: summary, percentiles, per-reason, per-pCPU and per-vCPU tables, the
 * longest exits, exits over a threshold, events around a time, histograms; as text or
 * JSON, or the original vm-trace's four lines. Thin: options, then common/analysis.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cli.h"
#include "filteropt.h"
#include "log.h"
#include "reader.h"
#include "source.h"

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
	OPT_FORMAT_DIR,
	OPT_PAIR,
};

struct report_opts {
	const char *file;
	struct vmt_input_opts in;
	int json, legacy, verbose, histogram, hist_log, hist_cyclictest;
	uint64_t window_ns, threshold_ns, bucket_ns;
	unsigned int top, buckets;
	bool around;
	uint64_t around_ns, around_span_ns;
	struct vmt_filter_opts fo;
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
	"\n"
	"TIME takes ns, us, ms, s, m (a bare number is seconds). --from, --to and --around "
	"count from the start of the recording. Exit status: 0, 1 on an error, 2 when the "
	"report comes from an unfinished or damaged file.";

static const struct argp_option options[] = {
	{ "file", 'f', "FILE", 0, "the recording: .vmt, the original tool's trace.bin or a "
	  "trace-cmd trace.dat (the original -f; a plain argument works too)", 1 },
	{ "format-dir", OPT_FORMAT_DIR, "DIR", 0, "event formats for a trace.bin: a copy of "
	  "the recording host's tracefs events/ directory", 1 },
	{ "pair", OPT_PAIR, "BEGIN,END", 0, "the event pair of a trace.dat (default "
	  VMT_TRACEDAT_DEFAULT_PAIR ")", 1 },
	{ NULL, 0, NULL, 0, "Output:", 2 },
	{ "json", OPT_JSON, NULL, 0, "print one JSON object", 2 },
	{ "legacy", OPT_LEGACY, NULL, 0, "print exactly the original vm-trace's four lines", 2 },
	{ "verbose", 'v', NULL, 0, "print every event first, one line each, with decoded "
	  "fields and each entry's latency", 2 },
	{ "top", OPT_TOP, "N", 0, "list the N longest exits (default 10, 0: none)", 2 },
	{ "threshold", OPT_THRESHOLD, "TIME", 0, "list every exit longer than TIME", 2 },
	{ "around", OPT_AROUND, "TS[,SPAN]", 0, "print every event within SPAN (default 100us) "
	  "of time TS", 2 },
	{ "window", OPT_WINDOW, "TIME", 0, "sliding window for the cumulative latency "
	  "(default 1ms)", 2 },
	{ NULL, 0, NULL, 0, "Histogram:", 3 },
	{ "histogram", OPT_HISTOGRAM, NULL, 0, "print a latency histogram per pCPU", 3 },
	{ "bucket", OPT_BUCKET, "TIME", 0, "bucket width (default 1us)", 3 },
	{ "buckets", OPT_BUCKETS, "N", 0, "number of buckets before the overflow row "
	  "(default 100)", 3 },
	{ "log", OPT_LOG, NULL, 0, "log2 buckets instead of linear ones", 3 },
	{ "hist-format", OPT_HIST_FORMAT, "FORMAT", 0, "text (bars, default) or cyclictest "
	  "(cyclictest -h's gnuplot-ready layout)", 3 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct report_opts *o = state->input;
	uint64_t v;
	char *comma;

	switch (key) {
	case 'f':
	case ARGP_KEY_ARG:
		if (o->file)
			argp_error(state, "only one recording at a time");
		o->file = arg;
		break;
	case OPT_FORMAT_DIR:
		o->in.format_dir = arg;
		break;
	case OPT_PAIR:
		o->in.pair = arg;
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
	case OPT_WINDOW:
		o->window_ns = vmt_argp_time(state, "window", arg);
		if (!o->window_ns)
			argp_error(state, "the window must be longer than 0");
		break;
	case OPT_TOP:
		if (vmt_cli_parse_u64(arg, &v) || v > 100000)
			argp_error(state, "invalid --top '%s' (0 to 100000)", arg);
		o->top = (unsigned int)v;
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
		o->around_ns = vmt_argp_time(state, "time", arg);
		o->around_span_ns = comma ? vmt_argp_time(state, "span", comma + 1) : 100000;
		break;
	case OPT_HISTOGRAM:
		o->histogram = 1;
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
		break;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->fo;	/* the shared filter options */
		break;
	case ARGP_KEY_END:
		if (!o->file)
			argp_error(state, "no recording given");
		if (o->json + o->legacy + o->verbose > 1)
			argp_error(state, "--json, --legacy and --verbose exclude each other");
		if ((o->bucket_ns || o->buckets || o->hist_log) && !o->histogram)
			o->histogram = 1;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* zstd's DISPLAYUPDATE idea: one line, rewritten, only on a terminal. */
static void show_progress(uint64_t done, uint64_t total, void *arg)
{
	fprintf(stderr, "\r%s: %s: %3u%% (%llu of %llu chunks)", vmt_log_progname(),
		(const char *)arg, total ? (unsigned int)(done * 100 / total) : 0,
		(unsigned long long)done, (unsigned long long)total);
}

/* Copy what a side pass wrote to a temporary file. */
static void copy_out(FILE *from, FILE *to)
{
	char buf[65536];
	size_t n;

	rewind(from);
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		fwrite(buf, 1, n, to);
}

int main(int argc, char **argv)
{
	struct report_opts o = { .window_ns = VMT_DEFAULT_WINDOW_NS, .top = 10 };
	struct argp_child children[] = { { &vmt_filter_argp, 0, NULL, 0 }, { 0 } };
	struct argp argp = { options, parse_opt, "[FILE]", doc, children, NULL, NULL };
	char msg[256], why[320];
	struct vmt_analysis_opts ao;
	FILE *thr = NULL, *near = NULL;
	struct vmt_reader *r;
	struct vmt_summary s;
	const struct vmt_source *src;
	int ret, exit_code = 0;

	vmt_log_init(argv[0]);
	argp_parse(&argp, argc, argv, 0, NULL, &o);
	ret = vmt_reader_open(o.file, &o.in, &r, why, sizeof(why));
	if (ret) {
		vmt_err("%s: %s", o.file, why[0] ? why : strerror(-ret));
		return 1;
	}
	src = vmt_reader_source(r);
	if (o.in.pair && !vmt_source_uses_pair(src))
		vmt_warn("%s: --pair ignored: the file names its own events", o.file);
	ret = vmt_filter_resolve(&o.fo, r, msg, sizeof(msg));
	if (ret) {
		vmt_err("%s: %s", o.file, ret == -EINVAL ? msg : strerror(-ret));
		vmt_filter_opts_free(&o.fo);
		vmt_reader_close(r);
		return 1;
	}
	memset(&ao, 0, sizeof(ao));
	ao.window_ns = o.window_ns;
	ao.filter = &o.fo.filter;
	ao.top_n = o.legacy ? 0 : o.top;
	ao.threshold_ns = o.threshold_ns;
	if (o.threshold_ns && !o.json && !o.legacy) {
		thr = tmpfile();
		ao.threshold_out = thr;
	}
	if (o.verbose) {
		ao.verbose = stdout;
	} else if (o.around && !o.json && !o.legacy) {
		near = tmpfile();
		ao.verbose = near;
		ao.verbose_from_ns = o.around_ns > o.around_span_ns ? o.around_ns - o.around_span_ns : 0;
		ao.verbose_to_ns = o.around_ns + o.around_span_ns;
		ao.verbose_window = true;
	}
	if (o.histogram) {
		ao.hist_bucket_ns = o.bucket_ns ? o.bucket_ns : 1000;
		ao.hist_buckets = o.buckets ? o.buckets : (o.hist_log ? 40 : 100);
		ao.hist_log = o.hist_log;
	}
	if ((o.threshold_ns && !thr && !o.json && !o.legacy) || (o.around && !near && !o.verbose &&
								 !o.json && !o.legacy)) {
		vmt_err("cannot create a temporary file: %s", strerror(errno));
		vmt_reader_close(r);
		return 1;
	}
	/* Large files only, and only when someone watches stderr. */
	if (isatty(STDERR_FILENO) && vmt_source_status(src)->file_size > (32u << 20)) {
		ao.progress = show_progress;
		ao.progress_arg = (void *)o.file;
	}
	ret = vmt_analyze(r, &ao, &s);
	if (ao.progress)
		fprintf(stderr, "\r\033[K");
	if (ret) {
		vmt_err("%s: %s", o.file, strerror(-ret));
		vmt_summary_free(&s);
		vmt_reader_close(r);
		return 1;
	}
	if (o.json) {
		vmt_summary_print_json(stdout, r, &s);
	} else if (o.legacy) {
		vmt_summary_print_legacy(stdout, r, &s);
	} else {
		if (o.verbose)
			fputc('\n', stdout);
		vmt_report_print_text(stdout, r, &s);
		if (thr) {
			fprintf(stdout, "\nExits longer than %s:\n", vmt_format_ns(o.threshold_ns,
				(char[32]){ 0 }, 32));
			copy_out(thr, stdout);
		}
		if (near) {
			fprintf(stdout, "\nEvents within %s of %s:\n",
				vmt_format_ns(o.around_span_ns, (char[32]){ 0 }, 32),
				vmt_format_ns(o.around_ns, (char[32]){ 0 }, 32));
			copy_out(near, stdout);
		}
		if (o.histogram) {
			fputc('\n', stdout);
			if (o.hist_cyclictest)
				vmt_hist_print_cyclictest(stdout, r, &s);
			else
				vmt_hist_print_text(stdout, r, &s);
		}
	}
	if (thr)
		fclose(thr);
	if (near)
		fclose(near);
	if (fflush(stdout) != 0) {
		vmt_err("standard output: %s", strerror(errno));
		exit_code = 1;
	}
	/* Damage and truncation: say so, every time, on stderr. */
	if (!vmt_source_status(src)->finished) {
		vmt_warn("%s: the recording was not finished (%s at offset %llu); figures cover "
			 "the %zu complete chunks", o.file,
			 vmt_source_status(src)->trunc_why ? vmt_source_status(src)->trunc_why :
			 "no end record",
			 (unsigned long long)vmt_source_status(src)->truncated_at,
			 vmt_source_nchunks(src));
		exit_code = exit_code ? exit_code : 2;
	}
	if (vmt_source_status(src)->bad_blocks || s.rd.bad_chunks || s.rd.bad_pages) {
		vmt_warn("%s: damaged data skipped: %llu blocks, %llu chunks, %llu pages (%s)",
			 o.file, (unsigned long long)vmt_source_status(src)->bad_blocks,
			 (unsigned long long)s.rd.bad_chunks, (unsigned long long)s.rd.bad_pages,
			 vmt_reader_last_error(r) ? vmt_reader_last_error(r) : "bad block header");
		exit_code = exit_code ? exit_code : 2;
	}
	if (s.lost_events || s.rd.missed_pages)
		vmt_warn("%s: %llu events were lost while recording; figures may be incomplete",
			 o.file, (unsigned long long)s.lost_events);
	vmt_summary_free(&s);
	vmt_filter_opts_free(&o.fo);
	vmt_reader_close(r);
	return exit_code;
}
