// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "log.h"

static const char *progname = "vmtrace";
static int quiet;

void vmt_log_init(const char *name)
{
	const char *slash = strrchr(name, '/');

	progname = slash ? slash + 1 : name;
}

const char *vmt_log_progname(void)
{
	return progname;
}

void vmt_log_set_quiet(int q)
{
	quiet = q;
}

int vmt_log_quiet(void)
{
	return quiet;
}

static void vlog(const char *prefix, const char *fmt, va_list ap)
{
	/* One buffered line, so lines from several threads never interleave mid-line. */
	char line[1024];
	int n;

	n = snprintf(line, sizeof(line), "%s: %s", progname, prefix);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	fprintf(stderr, "%s\n", line);
}

void vmt_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}

void vmt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning: ", fmt, ap);
	va_end(ap);
}

void vmt_info(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}
