// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <argp.h>
#include <string.h>

#include "cmdline.h"
#include "convertopt.h"
#include "filteropt.h"
#include "inputopt.h"

enum {
	OPT_CSV = 256,
	OPT_JSONL,
	OPT_LEGACY,
	OPT_TO_VMT,
	OPT_PERFETTO,
	OPT_EVENTS,
	OPT_SERIES,
	OPT_WHY,
};

const char *argp_program_version = PACKAGE_NAME " " PACKAGE_VERSION;

static const char doc[] =
	"Convert a vmtrace recording (.vmt, the original vm-trace trace.bin, or a trace-cmd "
	"trace.dat) to CSV or JSON lines for spreadsheets and scripts, to the original "
	"trace.bin, to .vmt, or to a Perfetto / Chrome trace-event timeline."
	"\v"
	"Examples:\n"
	"  vmtrace-convert --csv -o run1.csv run1.vmt       # one row per exit\n"
	"  vmtrace-convert --csv --events run1.vmt          # one row per event\n"
	"  vmtrace-convert --csv --why run1.vmt             # with their causes\n"
	"  vmtrace-convert --jsonl --reason hlt run1.vmt | jq .latency_ns\n"
	"  vmtrace-convert --series=100ms --csv run1.vmt  # per interval and vCPU\n"
	"  vmtrace-convert --legacy --cpu 2 -o trace.bin run1.vmt\n"
	"  vmtrace-convert --to-vmt --format-dir events/ -o old.vmt trace.bin\n"
	"  vmtrace-convert --to-vmt -o run2.vmt trace.dat    # from trace-cmd record\n"
	"  vmtrace-convert --perfetto -o run1.json run1.vmt # open in ui.perfetto.dev\n"
	"\n"
	"Files are written under a temporary name and renamed when complete; an interrupted "
	"conversion leaves nothing under the final name. Writing over the input is refused. "
	"FILE - reads standard input (copied to a temporary file first). TIME (--from, --to) "
	"takes ns, us, ms, s, m (or min) or h (a bare number is seconds), since the recording's "
	"first page. Exit status: 0, 1 on an error, 2 when the input was unfinished or damaged "
	"(the output, with what could be read, is still written), 64 for a bad command line.";

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Output format (one of):", 1 },
	{ "csv", OPT_CSV, NULL, 0, "CSV (RFC 4180) with a header row", 1 },
	{ "jsonl", OPT_JSONL, NULL, 0, "JSON lines, one object per row", 1 },
	{ "legacy", OPT_LEGACY, NULL, 0, "the original vm-trace trace.bin (one CPU's 4 KiB "
	  "pages; needs -o)", 1 },
	{ "to-vmt", OPT_TO_VMT, NULL, 0, "a .vmt container (from a trace.bin or a trace.dat, "
	  "or a .vmt's --cpu CPUs; needs -o)", 1 },
	{ "perfetto", OPT_PERFETTO, NULL, 0, "a timeline in the Chrome trace-event JSON format "
	  "(ui.perfetto.dev, chrome://tracing): each exit a slice on its vCPU task's track, "
	  "interrupts and preemptions on the pCPUs' tracks", 1 },
	{ NULL, 0, NULL, 0, "Rows and files:", 2 },
	{ "events", OPT_EVENTS, NULL, 0, "one row per recorded event (exits and entries) "
	  "instead of per exit", 2 },
	{ "why", OPT_WHY, NULL, 0, "per-exit rows gain where each exit's time went, from the "
	  "file's context events: kvm_ns, userspace_ns, preempted_ns, blocked_ns, wakeup_ns, "
	  "irq_ns, softirq_ns, nmi_ns (they sum to latency_ns), incomplete, culprit_kind, "
	  "culprit, culprit_pid, before_exit_ns", 2 },
	{ "series", OPT_SERIES, "TIME", OPTION_ARG_OPTIONAL, "one row per interval of TIME "
	  "(default: 200 to 500 of them) and vCPU task: exits, out_ns, max_ns, p99_ns, "
	  "max_window_ns (1 ms window), as vmtrace-report --interval", 2 },
	{ "output", 'o', "FILE", 0, "output file (default: standard output for CSV and JSON "
	  "lines)", 2 },
	{ 0 }
};

/*
 * --legacy and --to-vmt copy whole pages and chunks: they honour --cpu (one CPU for the
 * single-CPU trace.bin) and refuse the filters they could not apply rather than drop them.
 */
static void check_copy_filters(struct argp_state *state, const struct convert_opts *o)
{
	const struct vmt_filter *f = &o->fo.filter;
	bool picky = f->vcpus.n || o->fo.reasons || o->fo.vms || f->has_from || f->has_to;

	if (o->format == CONVERT_LEGACY && (picky || f->cpus.n > 1))
		argp_error(state, "--legacy copies whole pages: only --cpu (one CPU) applies");
	if (o->format == CONVERT_VMT && picky)
		argp_error(state, "--to-vmt copies whole chunks: only --cpu applies");
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	static const enum convert_format formats[] = {
		[OPT_CSV - OPT_CSV] = CONVERT_CSV, [OPT_JSONL - OPT_CSV] = CONVERT_JSONL,
		[OPT_LEGACY - OPT_CSV] = CONVERT_LEGACY, [OPT_TO_VMT - OPT_CSV] = CONVERT_VMT,
		[OPT_PERFETTO - OPT_CSV] = CONVERT_PERFETTO,
	};
	struct convert_opts *o = state->input;

	switch (key) {
	case OPT_CSV:
	case OPT_JSONL:
	case OPT_LEGACY:
	case OPT_TO_VMT:
	case OPT_PERFETTO:
		if (o->format && o->format != formats[key - OPT_CSV])
			argp_error(state, "choose one of --csv, --jsonl, --legacy, --to-vmt, "
				   "--perfetto");
		o->format = formats[key - OPT_CSV];
		break;
	case OPT_WHY:
		o->why = 1;
		break;
	case OPT_EVENTS:
		o->events = 1;
		break;
	case OPT_SERIES:
		o->series = 1;
		o->series_ns = arg ? vmt_argp_time(state, "--series interval", arg) : 0;
		if (arg && !o->series_ns)
			argp_error(state, "the --series interval must be longer than 0");
		break;
	case 'o':
		if (!*arg)
			argp_error(state, "empty output file name");
		o->output = arg;
		break;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->in;
		state->child_inputs[1] = &o->fo;
		break;
	case ARGP_KEY_ARG:
		if (o->input)
			argp_error(state, "only one input file");
		o->input = arg;
		break;
	case ARGP_KEY_END:
		if (!o->input)
			argp_error(state, "no input file given");
		if (!o->format)
			argp_error(state, "choose one of --csv, --jsonl, --legacy, --to-vmt, "
				   "--perfetto");
		if ((o->format == CONVERT_LEGACY || o->format == CONVERT_VMT) && !o->output)
			argp_error(state, "--legacy and --to-vmt write binary files: give -o FILE");
		if ((o->events || o->series) && (o->format == CONVERT_LEGACY ||
		    o->format == CONVERT_VMT || o->format == CONVERT_PERFETTO))
			argp_error(state, "--events and --series go with --csv or --jsonl");
		if (o->events && o->series)
			argp_error(state, "--events and --series exclude each other");
		if (o->why && (o->events || o->series || o->format == CONVERT_LEGACY ||
			       o->format == CONVERT_VMT || o->format == CONVERT_PERFETTO))
			argp_error(state, "--why goes with per-exit rows: --csv or --jsonl, "
				   "without --events or --series");
		check_copy_filters(state, o);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

void convert_parse_args(struct convert_opts *o, int argc, char **argv)
{
	struct argp_child children[] = {
		{ &vmt_input_argp, 0, NULL, 0 },
		{ &vmt_filter_argp, 0, NULL, 0 },
		{ &vmt_cmdline_argp, 0, NULL, 0 },
		{ 0 }
	};
	struct argp argp = { options, parse_opt, "FILE", doc, children, NULL, NULL };

	memset(o, 0, sizeof(*o));
	vmt_cmdline_parse(&argp, argc, argv, o);
}
