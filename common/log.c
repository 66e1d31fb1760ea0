// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "textwidth.h"

/* a message with a list of a few dozen event names */
#define LOG_MAX 4096

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

/*
 * Each line of a message that passes VMT_LOG_WIDTH, folded at its spaces; the lines after
 * the first start with two spaces (a fold a caller made is such a line too). Every message
 * fits so, whichever function says it: no caller can forget a long one.
 */
static void fit(const char *text, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	while (*text && n + 1 < size) {
		size_t len = strcspn(text, "\n");
		char one[LOG_MAX];
		bool cont = n > 0;	/* a line after the first: "  " and its text */
		const char *body = text + (cont ? 2 : 0);
		size_t blen = len - (cont ? 2 : 0);

		if (cont)
			put(out, size, &n, "\n  ", 3);
		if (vmt_textwidth_cols(text, len) <= VMT_LOG_WIDTH) {
			put(out, size, &n, body, blen);
		} else {
			snprintf(one, sizeof(one), "%.*s", (int)blen, body);
			vmt_log_fold(one, cont ? 2 : 0, VMT_LOG_WIDTH, 2, out + n, size - n);
			n += strlen(out + n);
		}
		text += len + (text[len] == '\n');
	}
	out[n] = '\0';
}

/*
 * @keep_folds: the message's own folds ("\n  ") kept, as a caller folded it; without, a
 * newline in it is shown escaped like any in a name.
 */
static void vlog(const char *prefix, int keep_folds, const char *fmt, va_list ap)
{
	/* One buffered message, so lines from several threads never interleave mid-line. */
	char line[LOG_MAX], shown[LOG_MAX], folded[LOG_MAX + LOG_MAX / 8];
	int n;

	n = snprintf(line, sizeof(line), "%s: %s", progname, prefix);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	/* names in it shown escaped before the folds, which are then its only newlines */
	vmt_log_escape(line, keep_folds, shown, sizeof(shown));
	fit(shown, folded, sizeof(folded));
	fprintf(stderr, "%s\n", folded);
}

void vmt_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("", 1, fmt, ap);
	va_end(ap);
}

void vmt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning: ", 1, fmt, ap);
	va_end(ap);
}

void vmt_info(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vlog("", 1, fmt, ap);
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

/*
 * At p, after a word of len bytes that ends in a digit: the length of " unit" when a unit
 * follows ("0.150242702 s", "3 ms,", "12 %)"), so that a figure never leaves its unit at
 * the start of the next line; else 0.
 */
static size_t unit_after(const char *p, size_t len)
{
	static const char *const units[] = { "s", "ms", "us", "ns", "%", "KiB", "MiB", "GiB",
					     "KB", "MB", "GB" };
	size_t ulen, i;
	const char *u;

	if (!len || p[len - 1] < '0' || p[len - 1] > '9' || p[len] != ' ')
		return 0;
	u = p + len + 1;
	ulen = strcspn(u, " ");
	/* what may stick to the unit: a comma, a colon, a closing parenthesis... */
	while (ulen && strchr(",;:.)", u[ulen - 1]))
		ulen--;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strlen(units[i]) == ulen && memcmp(u, units[i], ulen) == 0)
			return 1 + strcspn(u, " ");
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
		size_t len = strcspn(p, " "), group = paren_group(p), cols;

		/* "(collector CPU 0, clock local)" reads as one: it moves to a line whole */
		if (group && indent + vmt_textwidth_cols(p, group) <= width)
			len = group;
		else
			len += unit_after(p, len);
		/* display columns: a name in UTF-8 takes fewer than its bytes */
		cols = vmt_textwidth_cols(p, len);

		if (!line_empty && pos + 1 + cols > width) {
			put(out, size, &n, "\n", 1);
			for (i = 0; i < indent; i++)
				put(out, size, &n, " ", 1);
			pos = indent;
		} else if (!line_empty) {
			put(out, size, &n, " ", 1);
			pos++;
		}
		put(out, size, &n, p, len);
		pos += cols;
		line_empty = false;
		p += len;
		if (*p == ' ')
			p++;
	}
	out[n] = '\0';
	return out;
}

void vmt_info_folded(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vlog("", 0, fmt, ap);
	va_end(ap);
}

void vmt_warn_folded(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning: ", 0, fmt, ap);
	va_end(ap);
}

void vmt_err_folded(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("", 0, fmt, ap);
	va_end(ap);
}
