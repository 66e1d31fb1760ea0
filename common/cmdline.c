// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "log.h"
#include "procinit.h"
#include "textwidth.h"

enum {
	OPT_USAGE = 0x1200,
};

static const struct argp_option options[] = {
	{ "help", 'h', NULL, 0, "give this help list", -1 },
	{ NULL, '?', NULL, OPTION_ALIAS, NULL, 0 },
	{ "usage", OPT_USAGE, NULL, 0, "give a short usage message", -1 },
	{ "version", 'V', NULL, 0, "print the program version", -1 },
	{ 0 }
};

/*
 * argp's hint after a usage error, "Try `PROG --help' or `PROG --usage' for more
 * information.", is wrapped at 79 columns: two lines for vmtrace-convert. The error stream
 * goes through this filter, which passes every line but that hint and writes its own in
 * one line. A translated hint does not start so and passes as it is. An error line that
 * would pass 120 columns is folded as the programs' messages are (common/log.h).
 */
struct hint_filter {
	char line[1024];
	size_t len;
	bool in_hint;		/* dropping the rest of a wrapped hint */
};

static void filter_line(struct hint_filter *h)
{
	const char *name = program_invocation_short_name;

	h->line[h->len] = '\0';
	if (h->in_hint) {
		h->in_hint = !strstr(h->line, "information.");
	} else if (strncmp(h->line, "Try `", 5) == 0) {
		fprintf(stderr, "Try '%s --help' for more information.\n", name);
		h->in_hint = !strstr(h->line, "information.");
	} else if (vmt_textwidth(h->line) > VMT_LOG_WIDTH + 1) {
		/* a usage error that would pass 120 columns (its newline counted): folded as
		 * vmt_err() folds one */
		char folded[sizeof(h->line) + sizeof(h->line) / 8];

		h->line[strcspn(h->line, "\n")] = '\0';
		fprintf(stderr, "%s\n", vmt_log_fold(h->line, 0, VMT_LOG_WIDTH, 2, folded,
						      sizeof(folded)));
	} else {
		fputs(h->line, stderr);
	}
	h->len = 0;
}

static ssize_t hint_write(void *cookie, const char *buf, size_t size)
{
	struct hint_filter *h = cookie;
	size_t i;

	for (i = 0; i < size; i++) {
		if (h->len < sizeof(h->line) - 2)
			h->line[h->len++] = buf[i];
		if (buf[i] == '\n')
			filter_line(h);
	}
	return (ssize_t)size;
}

static FILE *hint_stream(void)
{
	static struct hint_filter filter;
	static FILE *f;
	cookie_io_functions_t io = { NULL, hint_write, NULL, NULL };

	if (!f) {
		f = fopencookie(&filter, "w", io);
		if (!f)
			return stderr;
		/* unbuffered: argp exits right after writing, nothing may wait in a buffer */
		setvbuf(f, NULL, _IONBF, 0);
	}
	return f;
}

/*
 * After --help, --usage or --version: exit 0 only when the text got out. A full disk or a
 * closed pipe (--help >/dev/full) is an error like any output's, not a silent success.
 */
static void exit_written(FILE *out)
{
	if (fflush(out) == 0 && !ferror(out))
		exit(0);
	fprintf(stderr, "%s: standard output: %s\n", program_invocation_short_name,
		vmt_proc_std_strerror(STDOUT_FILENO, errno ? errno : EIO));
	exit(1);
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	switch (key) {
	case 'h':
	case '?':
		argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP & ~ARGP_HELP_EXIT_OK);
		exit_written(state->out_stream);
		break;
	case OPT_USAGE:
		argp_state_help(state, state->out_stream, ARGP_HELP_USAGE);
		exit_written(state->out_stream);
		break;
	case 'V':
		/* as GNU programs say it: the program, its package, the version */
		fprintf(state->out_stream, "%s (%s) %s\n", program_invocation_short_name,
			PACKAGE_NAME, PACKAGE_VERSION);
		exit_written(state->out_stream);
		break;
	case ARGP_KEY_INIT:
		state->err_stream = hint_stream();
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp vmt_cmdline_argp = { options, parse_opt, NULL, NULL, NULL, NULL, NULL };

void vmt_cmdline_parse(const struct argp *argp, int argc, char **argv, void *input)
{
	/* getopt names the program by argv[0]: "./vmtrace-report" when run by path */
	if (argc > 0)
		argv[0] = program_invocation_short_name;
	argp_parse(argp, argc, argv, ARGP_NO_HELP, NULL, input);
}
