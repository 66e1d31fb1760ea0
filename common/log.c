// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <stdbool.h>
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

static void put(char *out, size_t size, size_t *n, const char *s, size_t len)
{
	while (len-- && *n + 1 < size)
		out[(*n)++] = *s++;
}

/* The length of "(...)" at p with what sticks to its end up to a space, or 0. */
static size_t paren_group(const char *p)
{
	size_t i, depth = 0;

	if (*p != '(')
		return 0;
	for (i = 0; p[i]; i++) {
		depth += p[i] == '(';
		if (p[i] == ')' && --depth == 0)
			return i + 1 + strcspn(p + i + 1, " ");
	}
	return 0;
}

char *vmt_log_fold(const char *text, unsigned int col, unsigned int width, unsigned int indent,
		   char *out, size_t size)
{
	size_t n = 0, pos = col;
	bool line_empty = true;
	const char *p = text;
	unsigned int i;

	if (!size)
		return out;
	while (*p) {
		size_t len = strcspn(p, " "), group = paren_group(p);

		/* "(collector CPU 0, clock local)" reads as one: it moves to a line whole */
		if (group && indent + group <= width)
			len = group;

		if (!line_empty && pos + 1 + len > width) {
			put(out, size, &n, "\n", 1);
			for (i = 0; i < indent; i++)
				put(out, size, &n, " ", 1);
			pos = indent;
		} else if (!line_empty) {
			put(out, size, &n, " ", 1);
			pos++;
		}
		put(out, size, &n, p, len);
		pos += len;
		line_empty = false;
		p += len;
		if (*p == ' ')
			p++;
	}
	out[n] = '\0';
	return out;
}

static void vlog_folded(const char *prefix, const char *fmt, va_list ap)
{
	/* a list of a few dozen event names, the lines' indents added */
	char msg[4096], line[4608];

	snprintf(msg, sizeof(msg), "%s", prefix);
	vsnprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), fmt, ap);
	vmt_log_fold(msg, (unsigned int)strlen(progname) + 2, VMT_LOG_WIDTH, 2, line,
		     sizeof(line));
	fprintf(stderr, "%s: %s\n", progname, line);
}

void vmt_info_folded(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vlog_folded("", fmt, ap);
	va_end(ap);
}

void vmt_warn_folded(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_folded("warning: ", fmt, ap);
	va_end(ap);
}
