// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "textwidth.h"
#include "timefmt.h"

char *vmt_fmt_lat(const struct vmt_clock *c, uint64_t ticks, char *buf, size_t size)
{
	if (!vmt_clock_in_ns(c)) {
		snprintf(buf, size, "%" PRIu64 " ticks", ticks);
		return buf;
	}
	return vmt_format_ns(vmt_clock_ns(c, ticks), buf, size);
}

char *vmt_fmt_time(const struct vmt_clock *c, uint64_t start_ts, uint64_t ts, char *buf,
		   size_t size)
{
	uint64_t ns = vmt_clock_ns(c, ts > start_ts ? ts - start_ts : 0);

	/* ticks of unknown length are no seconds: as they are (vmt_fmt_time_unit says so) */
	if (!vmt_clock_in_ns(c)) {
		snprintf(buf, size, "%" PRIu64, ns);
		return buf;
	}
	snprintf(buf, size, "%" PRIu64 ".%09" PRIu64, ns / UINT64_C(1000000000),
		 ns % UINT64_C(1000000000));
	return buf;
}

const char *vmt_fmt_unit(const struct vmt_clock *c)
{
	return vmt_clock_in_ns(c) ? "ns" : "ticks";
}

char *vmt_fmt_opt_ns(const struct vmt_clock *c, uint64_t ns, char *buf, size_t size)
{
	return vmt_clock_in_ns(c) ? vmt_format_ns(ns, buf, size) : vmt_fmt_lat(c, ns, buf, size);
}

const char *vmt_fmt_time_unit(const struct vmt_clock *c)
{
	return vmt_clock_in_ns(c) ? "s" : "ticks";
}

struct vmt_unit vmt_unit_for(const struct vmt_clock *c, uint64_t max)
{
	uint64_t ns = vmt_clock_ns(c, max);

	if (!vmt_clock_in_ns(c))
		return (struct vmt_unit){ "ticks", 1 };
	if (ns < 1000)
		return (struct vmt_unit){ "ns", 1 };
	if (ns < UINT64_C(10000000000))
		return (struct vmt_unit){ "us", 1000 };
	/* ms while the largest fits a 9-column cell whole (11.5 days); past it, damage: s */
	if (ns < UINT64_C(1000000000000000))
		return (struct vmt_unit){ "ms", 1000000 };
	return (struct vmt_unit){ "s", 1000000000 };
}

struct vmt_unit vmt_unit_for_total(const struct vmt_clock *c, uint64_t max)
{
	uint64_t ns = vmt_clock_ns(c, max);

	if (vmt_clock_in_ns(c) && ns >= UINT64_C(10000000000))
		return (struct vmt_unit){ "s", 1000000000 };
	if (vmt_clock_in_ns(c) && ns >= 10000000)
		return (struct vmt_unit){ "ms", 1000000 };
	return vmt_unit_for(c, max);
}

char *vmt_fmt_in(const struct vmt_clock *c, uint64_t ticks, struct vmt_unit u, char *buf,
		 size_t size)
{
	uint64_t v = vmt_clock_in_ns(c) ? vmt_clock_ns(c, ticks) : ticks;
	uint64_t whole = v / u.size, frac = v % u.size, cut = u.size, w;
	unsigned int digits = 1, decimals, room = 0;

	for (w = u.size; w >= 10; w /= 10)
		room++;			/* decimals the unit can hold: ns never split */
	for (w = whole; w >= 10; w /= 10)
		digits++;
	if (whole) {
		decimals = digits < 4 ? 4 - digits : 0;
	} else {
		/* below one unit: the leading zeros after the point do not count */
		uint64_t lim = u.size / 10;

		decimals = 4;
		while (lim && frac < lim) {
			decimals++;
			lim /= 10;
		}
	}
	if (decimals > room)
		decimals = room;
	if (!decimals || !v) {
		snprintf(buf, size, "%" PRIu64, whole);
		return buf;
	}
	for (w = 0; w < decimals; w++)
		cut /= 10;
	snprintf(buf, size, "%" PRIu64 ".%0*" PRIu64, whole, (int)decimals, frac / cut);
	return buf;
}

/*
 * A whole part of more digits than the cell has (a latency of centuries, from damaged
 * timestamps) as mantissa and exponent, "1.8446e10", its digits cut as every figure is.
 */
static char *sci_cols(char *buf, size_t digits, unsigned int cols)
{
	char exp[24], mant[32];
	size_t n;

	snprintf(exp, sizeof(exp), "e%zu", digits - 1);
	n = cols - strlen(exp) - 1;	/* the mantissa's digits: one before the point */
	if (n > digits)
		n = digits;
	mant[0] = buf[0];
	mant[1] = '.';
	memcpy(mant + 2, buf + 1, n - 1);
	mant[n + 1] = '\0';
	snprintf(buf, cols + 1, "%s%s", mant, exp);
	return buf;
}

char *vmt_fmt_in_cols(const struct vmt_clock *c, uint64_t ticks, struct vmt_unit u,
		      unsigned int cols, char *buf, size_t size)
{
	char *dot;
	size_t len;

	vmt_fmt_in(c, ticks, u, buf, size);
	len = strlen(buf);
	dot = strchr(buf, '.');
	if ((dot ? (size_t)(dot - buf) : len) > cols && cols >= 6 && size > cols)
		return sci_cols(buf, dot ? (size_t)(dot - buf) : len, cols);
	if (len <= cols || !dot || (size_t)(dot - buf) > cols || cols < 4 || size <= cols)
		return buf;
	/* fewer decimals, cut as the four digits are: a figure never shows more than it is */
	buf[(size_t)(dot - buf) + 1 < cols ? cols : (size_t)(dot - buf)] = '\0';
	if (strspn(buf, "0.") < strlen(buf))
		return buf;
	/* every digit that fits is 0, but the figure is not: the least the cell can show */
	memset(buf, '0', cols);
	buf[0] = '<';
	buf[2] = '.';
	buf[cols - 1] = '1';
	buf[cols] = '\0';
	return buf;
}

#define PATH_LINE_COLUMNS 120

void vmt_fmt_path_lines(FILE *f, const char *label, const char *name, const char *tail,
			const char *cont)
{
	/* a newline in a name would split the line, an escape sequence reach the terminal */
	char shown[PATH_MAX * 4];
	const char *path = vmt_log_escape(name, 0, shown, sizeof(shown));
	size_t room = PATH_LINE_COLUMNS - vmt_textwidth(cont), len = strlen(path), n, last;
	size_t lw = strlen(label);

	if (vmt_textwidth(label) + vmt_textwidth(path) + vmt_textwidth(tail) <= PATH_LINE_COLUMNS) {
		fprintf(f, "%s%s%s\n", label, path, tail);
		return;
	}
	while (lw && label[lw - 1] == ' ')
		lw--;
	fprintf(f, "%.*s\n", (int)lw, label);
	do {
		n = vmt_textwidth_cut(path, len, room, SIZE_MAX);
		if (n < len) {
			/* after the last '/' that fits, unless the line would hold none */
			for (last = n; last && path[last - 1] != '/'; last--)
				;
			n = last ? last : n ? n : 1;	/* 1: a character wider than a line */
		}
		fprintf(f, "%s%.*s", cont, (int)n, path);
		path += n;
		len -= n;
		if (len)
			fputc('\n', f);
	} while (len);
	last = vmt_textwidth_cols(path - n, n);
	if (!*tail) {
		fputc('\n', f);
		return;
	}
	if (last + vmt_textwidth(tail) <= room) {
		fprintf(f, "%s\n", tail);
		return;
	}
	tail += strspn(tail, ": ");
	fprintf(f, "\n%s%s\n", cont, tail);
}

char *vmt_fmt_exact_ns(uint64_t ns, char *buf, size_t size)
{
	if (ns && ns % 1000000000 == 0)
		snprintf(buf, size, "%" PRIu64 " s", ns / 1000000000);
	else if (ns && ns % 1000000 == 0)
		snprintf(buf, size, "%" PRIu64 " ms", ns / 1000000);
	else if (ns && ns % 1000 == 0)
		snprintf(buf, size, "%" PRIu64 " us", ns / 1000);
	else
		snprintf(buf, size, "%" PRIu64 " ns", ns);
	return buf;
}

static const uint64_t pct_scale[5] = { 1, 10, 100, 1000, 10000 };

double vmt_share_pct(uint64_t part, uint64_t total, unsigned int decimals)
{
	uint64_t k = decimals < 5 ? pct_scale[decimals] : pct_scale[4];

	if (!total)
		return 0.0;
	unsigned __int128 v = (unsigned __int128)part * 100 * k / total;

	return (double)(v > UINT64_MAX ? UINT64_MAX : (uint64_t)v) / (double)k;
}

double vmt_pct_cut(double pct, unsigned int decimals)
{
	double k = (double)(decimals < 5 ? pct_scale[decimals] : pct_scale[4]);

	/* toward zero (trunc), as the figures are cut; NaN (0 / 0 upstream) reads 0 */
	if (pct != pct)
		return 0.0;
	return trunc(pct * k + (pct < 0 ? -1e-9 : 1e-9)) / k;
}

char *vmt_fmt_fit(const char *name, unsigned int cols, char *buf, size_t size)
{
	size_t len = strlen(name), id = 0, keep, room, idcols, tail;
	const char *open, *slash;

	if (size < 2) {	/* no room for a '~' */
		if (size)
			buf[0] = '\0';
		return buf;
	}
	if (vmt_textwidth_cols(name, len) <= cols && len < size) {
		memcpy(buf, name, len + 1);
		return buf;
	}
	/* the id, with the blank before it: what tells two cut rows apart */
	if (len && name[len - 1] == ')' && (open = strrchr(name, '(')) != NULL) {
		id = len - (size_t)(open - name);
		if (open > name && open[-1] == ' ')
			id++;
		if (id == len)	/* all of it in parentheses: a name, no id */
			id = 0;
	}
	/* a VM's vCPU, "web1/vcpu0 (pid N)": its "/vcpu0" tells the rows apart too */
	slash = memrchr(name, '/', len - id);
	if (slash && !memchr(slash, ' ', len - id - (size_t)(slash - name))) {
		tail = len - (size_t)(slash - name);
		if (tail <= 12 + id && cols >= vmt_textwidth_cols(slash, tail) + 3)
			id = tail;
	}
	/* an id too long for the buffer (never one of the tables'): the name alone, cut */
	if (id + 2 > size)
		id = 0;
	idcols = vmt_textwidth_cols(name + len - id, id);
	/*
	 * the name's start within the columns left and the bytes the buffer has, never half
	 * a UTF-8 character (columns: textwidth.h)
	 */
	room = size - id - 2;
	keep = vmt_textwidth_cut(name, len - id, cols > idcols + 1 ? cols - idcols - 1 : 0, room);
	memcpy(buf, name, keep);
	buf[keep] = '~';
	memcpy(buf + keep + 1, name + len - id, id);
	buf[keep + 1 + id] = '\0';
	return buf;
}

unsigned int vmt_fmt_name_cols(size_t longest, unsigned int rest, bool wide)
{
	if (!wide && longest + rest > 120)
		longest = rest < 120 ? 120 - rest : 0;
	return longest > VMT_NAME_COLUMNS ? (unsigned int)longest : VMT_NAME_COLUMNS;
}
