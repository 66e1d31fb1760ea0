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

static void put(char *out, size_t size, size_t *n, const char *s, size_t len)
{
	while (len-- && *n + 1 < size)
		out[(*n)++] = *s++;
}

char *vmt_log_escape(const char *s, int keep_folds, char *out, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	char e[12];

	if (!size)
		return out;
	for (; *p; p++) {
		bool c1 = p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;

		if (keep_folds && p[0] == '\n' && p[1] == ' ' && p[2] == ' ') {
			e[0] = '\n';
			e[1] = '\0';
		} else if (c1) {
			snprintf(e, sizeof(e), "\\x%02x\\x%02x", p[0], p[1]);
			p++;
		} else if (*p == '\n' || *p == '\t' || *p == '\r') {
			snprintf(e, sizeof(e), "\\%c", *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(e, sizeof(e), "\\x%02x", *p);
		} else {
			e[0] = (char)*p;
			e[1] = '\0';
		}
		put(out, size, &n, e, strlen(e));
	}
	out[n] = '\0';
	return out;
}

static void vlog(const char *prefix, const char *fmt, va_list ap)
{
	/* One buffered line, so lines from several threads never interleave mid-line. */
	char line[1024], shown[1024];
	int n;

	n = snprintf(line, sizeof(line), "%s: %s", progname, prefix);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	/* names in it are shown escaped: one message, one line (its folds kept) */
	fprintf(stderr, "%s\n", vmt_log_escape(line, 1, shown, sizeof(shown)));
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

	snprintf(line, sizeof(line), "%s", prefix);
	vsnprintf(line + strlen(line), sizeof(line) - strlen(line), fmt, ap);
	/* names shown escaped before the folds, which are then the message's only newlines */
	vmt_log_escape(line, 0, msg, sizeof(msg));
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

void vmt_err_folded(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_folded("", fmt, ap);
	va_end(ap);
}
