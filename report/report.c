// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtrace-report: read a .vmt recording and print the exit-entry latency summary (text,
 * JSON, or the original vm-trace's four lines). Thin: options, then common/analysis.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cli.h"
#include "log.h"
#include "reader.h"

enum {
	OPT_JSON = 256,
	OPT_LEGACY,
	OPT_WINDOW,
};

struct report_opts {
	const char *file;
	int json;
	int legacy;
	uint64_t window_ns;
};

const char *argp_program_version = PACKAGE_NAME " " PACKAGE_VERSION;

static const char doc[] =
	"Report VM exit-entry latencies from a vmtrace recording (.vmt): events, pairs, lost "
	"events, orphans, minimum, average and maximum latency, and the largest out-of-guest "
	"time of one task inside any sliding window."
	"\v"
	"Examples:\n"
	"  vmtrace-report run1.vmt\n"
	"  vmtrace-report -f run1.vmt            # the original vm-trace -f spelling\n"
	"  vmtrace-report --json run1.vmt | jq .latency_ns\n"
	"  vmtrace-report --window 10ms run1.vmt\n"
	"\n"
	"Exit status: 0 when the file was read whole, 1 on an error, 2 when the report was "
	"printed but the file is damaged or was not finished (figures may be incomplete).";

static const struct argp_option options[] = {
	{ "file", 'f', "FILE", 0, "the recording (the original tool's -f; a plain argument "
	  "works too)", 1 },
	{ "json", OPT_JSON, NULL, 0, "print one JSON object", 2 },
	{ "legacy", OPT_LEGACY, NULL, 0, "print exactly the original vm-trace's four lines", 2 },
	{ "window", OPT_WINDOW, "TIME", 0, "sliding window for the cumulative latency "
	  "(default 1ms)", 3 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct report_opts *o = state->input;

	switch (key) {
	case 'f':
	case ARGP_KEY_ARG:
		if (o->file)
			argp_error(state, "only one recording at a time");
		o->file = arg;
		break;
	case OPT_JSON:
		o->json = 1;
		break;
	case OPT_LEGACY:
		o->legacy = 1;
		break;
	case OPT_WINDOW:
		if (vmt_cli_parse_duration_ns(arg, &o->window_ns) || o->window_ns == 0)
			argp_error(state, "invalid window '%s' (expected e.g. 1ms, 500us)", arg);
		break;
	case ARGP_KEY_END:
		if (!o->file)
			argp_error(state, "no recording given");
		if (o->json && o->legacy)
			argp_error(state, "--json and --legacy exclude each other");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct report_opts o = { .window_ns = VMT_DEFAULT_WINDOW_NS };
	struct argp argp = { options, parse_opt, "[FILE]", doc, NULL, NULL, NULL };
	struct vmt_analysis_opts ao;
	struct vmt_reader *r;
	struct vmt_summary s;
	const char *why = NULL;
	int ret, exit_code = 0;

	vmt_log_init(argv[0]);
	argp_parse(&argp, argc, argv, 0, NULL, &o);
	ret = vmt_reader_open(o.file, &r, &why);
	if (ret) {
		vmt_err("%s: %s", o.file, why ? why : strerror(-ret));
		return 1;
	}
	ao.window_ns = o.window_ns;
	ret = vmt_analyze(r, &ao, &s);
	if (ret) {
		vmt_err("%s: %s", o.file, strerror(-ret));
		vmt_summary_free(&s);
		vmt_reader_close(r);
		return 1;
	}
	if (o.json)
		vmt_summary_print_json(stdout, r, &s);
	else if (o.legacy)
		vmt_summary_print_legacy(stdout, r, &s);
	else
		vmt_summary_print_text(stdout, r, &s);
	if (fflush(stdout) != 0) {
		vmt_err("standard output: %s", strerror(errno));
		exit_code = 1;
	}
	/* Damage and truncation: say so, every time, on stderr. */
	if (!r->c->finished) {
		vmt_warn("%s: the recording was not finished (%s at offset %llu); figures cover "
			 "the %zu complete chunks", o.file,
			 r->c->trunc_why ? r->c->trunc_why : "no end record",
			 (unsigned long long)r->c->truncated_at, r->c->nchunks);
		exit_code = exit_code ? exit_code : 2;
	}
	if (r->c->bad_blocks || s.rd.bad_chunks || s.rd.bad_pages) {
		vmt_warn("%s: damaged data skipped: %llu blocks, %llu chunks, %llu pages (%s)",
			 o.file, (unsigned long long)r->c->bad_blocks,
			 (unsigned long long)s.rd.bad_chunks, (unsigned long long)s.rd.bad_pages,
			 r->last_error ? r->last_error : "bad block header");
		exit_code = exit_code ? exit_code : 2;
	}
	if (s.lost_events || s.rd.missed_pages)
		vmt_warn("%s: %llu events were lost while recording; figures may be incomplete",
			 o.file, (unsigned long long)s.lost_events);
	vmt_summary_free(&s);
	vmt_reader_close(r);
	return exit_code;
}
