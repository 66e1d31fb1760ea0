// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtrace-convert: converts recordings to CSV, JSON lines and the legacy trace.bin.
 * The conversions themselves are not written yet; this program parses its command line
 * and says so, with a non-zero exit, rather than pretend.
 */
#include "config.h"

#include <argp.h>
#include <stdio.h>

#include "log.h"

enum {
	OPT_CSV = 256,
	OPT_JSONL,
	OPT_LEGACY,
};

struct convert_opts {
	const char *input;
	const char *output;
	int format;
};

const char *argp_program_version = PACKAGE_NAME " " PACKAGE_VERSION;

static const char doc[] =
	"Convert a vmtrace recording to CSV, JSON lines or the original vm-trace trace.bin. "
	"Not implemented yet in this version: every conversion exits with status 1."
	"\v"
	"Examples (planned):\n"
	"  vmtrace-convert --csv -o run1.csv run1.vmt\n"
	"  vmtrace-convert --jsonl run1.vmt\n"
	"  vmtrace-convert --legacy -o trace.bin run1.vmt";

static const struct argp_option options[] = {
	{ "csv", OPT_CSV, NULL, 0, "CSV, one row per exit", 1 },
	{ "jsonl", OPT_JSONL, NULL, 0, "JSON lines, one object per exit", 1 },
	{ "legacy", OPT_LEGACY, NULL, 0, "the original vm-trace trace.bin", 1 },
	{ "output", 'o', "FILE", 0, "output file (default: standard output)", 2 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct convert_opts *o = state->input;

	switch (key) {
	case OPT_CSV:
	case OPT_JSONL:
	case OPT_LEGACY:
		if (o->format && o->format != key)
			argp_error(state, "choose one of --csv, --jsonl, --legacy");
		o->format = key;
		break;
	case 'o':
		o->output = arg;
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
			argp_error(state, "choose one of --csv, --jsonl, --legacy");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct convert_opts o = { 0 };
	struct argp argp = { options, parse_opt, "FILE", doc, NULL, NULL, NULL };

	vmt_log_init(argv[0]);
	argp_parse(&argp, argc, argv, 0, NULL, &o);
	vmt_err("%s: conversion is not implemented yet in vmtrace %s", o.input, PACKAGE_VERSION);
	return 1;
}
