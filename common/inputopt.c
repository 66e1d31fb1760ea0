// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "inputopt.h"

enum {
	OPT_FORMAT_DIR = 0x1100,
	OPT_PAIR,
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Input:", 40 },
	{ "format-dir", OPT_FORMAT_DIR, "DIR", 0, "event formats for a trace.bin: a copy of "
	  "the recording host's tracefs events/ directory", 40 },
	{ "pair", OPT_PAIR, "BEGIN,END", 0, "the event pair of a trace.dat (default "
	  VMT_TRACEDAT_DEFAULT_PAIR ")", 40 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct vmt_input_opts *o = state->input;

	switch (key) {
	case OPT_FORMAT_DIR:
		if (!*arg)
			argp_error(state, "empty --format-dir");
		o->format_dir = arg;
		break;
	case OPT_PAIR:
		o->pair = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp vmt_input_argp = { options, parse_opt, NULL, NULL, NULL, NULL, NULL };

int vmt_input_open(const char *path, const struct vmt_input_opts *o, struct vmt_reader **r,
		   char *msg, size_t msg_size, char *warn, size_t warn_size)
{
	const struct vmt_source *src;
	int ret;

	warn[0] = '\0';
	msg[0] = '\0';
	ret = vmt_reader_open(path, o, r, msg, msg_size);
	if (ret) {
		if (!msg[0])
			snprintf(msg, msg_size, "%s", strerror(-ret));
		return ret;
	}
	src = vmt_reader_source(*r);
	if (o->pair && !vmt_source_uses_pair(src))
		snprintf(warn, warn_size, "--pair ignored: the file names its own events");
	return 0;
}
