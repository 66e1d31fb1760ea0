// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "svg.h"

void vmt_scale_init(struct vmt_scale *s, bool log, double d0, double d1, double r0, double r1)
{
	if (log) {
		if (!(d0 > 0))
			d0 = 1;
		if (!(d1 > d0))
			d1 = d0 * 10;
	} else if (!(d1 > d0)) {
		d1 = d0 + 1;
	}
	s->log = log;
	s->d0 = d0;
	s->d1 = d1;
	s->r0 = r0;
	s->r1 = r1;
}

double vmt_scale_map(const struct vmt_scale *s, double v)
{
	double t;

	if (s->log) {
		if (!(v > 0))
			return s->r0;
		t = (log10(v) - log10(s->d0)) / (log10(s->d1) - log10(s->d0));
	} else {
		t = (v - s->d0) / (s->d1 - s->d0);
	}
	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	return s->r0 + t * (s->r1 - s->r0);
}

double vmt_nice_step(double range, unsigned int n)
{
	double raw = range / (n ? n : 1), p, f;

	if (!(raw > 0))
		return 1;
	p = pow(10, floor(log10(raw)));
	f = raw / p;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

double vmt_decade_floor(double v)
{
	return v > 0 ? pow(10, floor(log10(v) + 1e-9)) : 1;
}

double vmt_decade_ceil(double v)
{
	return v > 0 ? pow(10, ceil(log10(v) - 1e-9)) : 1;
}

unsigned int vmt_scale_ticks(const struct vmt_scale *s, unsigned int n, double *out,
			     unsigned int max)
{
	unsigned int k = 0;
	double v;

	if (s->log) {
		static const double mult[] = { 1, 2, 5 };
		bool fine = log10(s->d1) - log10(s->d0) < 3;
		unsigned int m;

		for (v = vmt_decade_floor(s->d0); v <= s->d1 * (1 + 1e-9) && k < max; v *= 10) {
			for (m = 0; m < (fine ? 3u : 1u) && k < max; m++) {
				double t = v * mult[m];

				if (t >= s->d0 * (1 - 1e-9) && t <= s->d1 * (1 + 1e-9))
					out[k++] = t;
			}
		}
		return k;
	}
	{
		double step = vmt_nice_step(s->d1 - s->d0, n);

		for (v = ceil(s->d0 / step - 1e-9) * step; v <= s->d1 + step * 1e-9 && k < max;
		     v += step)
			out[k++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return k;
}

void vmt_svg_esc(struct vmt_outbuf *o, const char *s)
{
	const char *run = s;

	if (!s)
		return;
	for (; *s; s++) {
		const unsigned char *u = (const unsigned char *)s;
		const char *rep;
		char ctl[16];

		/* a control character (a file name's newline, an ESC) shown as the text does */
		if (*u < 0x20 || *u == 0x7f || (u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f)) {
			vmt_outbuf_mem(o, run, (size_t)(s - run));
			vmt_outbuf_str(o, vmt_log_escape((char[]){ s[0], *u == 0xc2 ? s[1] : '\0',
								   '\0' }, 0, ctl, sizeof(ctl)));
			s += *u == 0xc2;
			run = s + 1;
			continue;
		}
		switch (*s) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = "&quot;";
			break;
		case '\'':
			rep = "&#39;";
			break;
		default:
			continue;
		}
		vmt_outbuf_mem(o, run, (size_t)(s - run));
		vmt_outbuf_str(o, rep);
		run = s + 1;
	}
	vmt_outbuf_mem(o, run, (size_t)(s - run));
}

void vmt_svg_num(struct vmt_outbuf *o, double v)
{
	long long t = llround(v * 10);

	if (t < 0) {
		vmt_outbuf_ch(o, '-');
		t = -t;
	}
	vmt_outbuf_u64(o, (uint64_t)t / 10);
	if (t % 10) {
		vmt_outbuf_ch(o, '.');
		vmt_outbuf_ch(o, (char)('0' + t % 10));
	}
}

/* v with up to three significant digits, trailing zeros dropped. */
static char *short_num(double v, const char *unit, char *buf, size_t size)
{
	char *dot;
	size_t n;

	snprintf(buf, size, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
	dot = strchr(buf, '.');
	if (dot) {
		n = strlen(buf);
		while (n > 0 && buf[n - 1] == '0')
			buf[--n] = '\0';
		if (n > 0 && buf[n - 1] == '.')
			buf[--n] = '\0';
	}
	n = strlen(buf);
	if (unit[0])
		snprintf(buf + n, size - n, "%s", unit);
	return buf;
}

char *vmt_svg_fmt_ns(double ns, char *buf, size_t size)
{
	if (ns < 1e3)
		return short_num(ns, " ns", buf, size);
	if (ns < 1e6)
		return short_num(ns / 1e3, " us", buf, size);
	if (ns < 1e9)
		return short_num(ns / 1e6, " ms", buf, size);
	return short_num(ns / 1e9, " s", buf, size);
}

char *vmt_svg_fmt_count(double v, char *buf, size_t size)
{
	if (v < 1e3)
		return short_num(v, "", buf, size);
	if (v < 1e6)
		return short_num(v / 1e3, "k", buf, size);
	if (v < 1e9)
		return short_num(v / 1e6, "M", buf, size);
	return short_num(v / 1e9, "G", buf, size);
}

char *vmt_svg_fmt_s(double ns, char *buf, size_t size)
{
	return short_num(ns / 1e9, "", buf, size);
}

char *vmt_svg_fmt_plain(double v, char *buf, size_t size)
{
	return short_num(v, "", buf, size);
}

static void line(struct vmt_outbuf *o, const char *cls, double x1, double y1, double x2,
		 double y2)
{
	vmt_outbuf_str(o, "<line");
	if (cls) {
		vmt_outbuf_str(o, " class=\"");
		vmt_outbuf_str(o, cls);
		vmt_outbuf_ch(o, '"');
	}
	vmt_outbuf_str(o, " x1=\"");
	vmt_svg_num(o, x1);
	vmt_outbuf_str(o, "\" y1=\"");
	vmt_svg_num(o, y1);
	vmt_outbuf_str(o, "\" x2=\"");
	vmt_svg_num(o, x2);
	vmt_outbuf_str(o, "\" y2=\"");
	vmt_svg_num(o, y2);
	vmt_outbuf_str(o, "\"/>");
}

void vmt_svg_axis(struct vmt_outbuf *o, const struct vmt_axis *a)
{
	const struct vmt_scale *s = a->scale;
	bool x = a->side == VMT_AXIS_BOTTOM;
	double ticks[64], mid, last_right = -1e9;
	unsigned int n, i;
	char buf[48];

	if (a->ticks) {
		n = a->ntick_given < 64 ? a->ntick_given : 64;
		memcpy(ticks, a->ticks, n * sizeof(*ticks));
	} else {
		n = vmt_scale_ticks(s, a->nticks ? a->nticks : 5, ticks, 64);
	}
	vmt_outbuf_str(o, x ? "<g class=\"axis\" data-axis=\"x\">" :
			  "<g class=\"axis\" data-axis=\"y\">");
	for (i = 0; i < n; i++) {
		double p = vmt_scale_map(s, ticks[i]);
		const char *label = a->tick_labels ? a->tick_labels[i] :
				    a->fmt(ticks[i], buf, sizeof(buf));

		vmt_outbuf_str(o, "<g class=\"tick\" data-v=\"");
		vmt_outbuf_printf(o, "%.6g", ticks[i]);
		vmt_outbuf_str(o, "\">");
		if (x) {
			/*
			 * A label as wide as an 11 px sans serif's digits (0.64 em a character,
			 * spaces too) that would touch the last one drawn is left out, its tick
			 * kept: a log axis over eight decades read "10 ms100 ms".
			 */
			double half = 0.64 * 11 * (double)strlen(label) / 2;

			line(o, "grid", p, a->grid0, p, a->grid1);
			line(o, NULL, p, a->at, p, a->at + 4);
			if (p - half < last_right + 4) {
				vmt_outbuf_str(o, "</g>");
				continue;
			}
			last_right = p + half;
			vmt_outbuf_str(o, "<text x=\"");
			vmt_svg_num(o, p);
			vmt_outbuf_str(o, "\" y=\"");
			vmt_svg_num(o, a->at + 15);
			vmt_outbuf_str(o, "\" text-anchor=\"middle\">");
		} else {
			line(o, "grid", a->grid0, p, a->grid1, p);
			line(o, NULL, a->at - 4, p, a->at, p);
			vmt_outbuf_str(o, "<text x=\"");
			vmt_svg_num(o, a->at - 6);
			vmt_outbuf_str(o, "\" y=\"");
			vmt_svg_num(o, p + 3.5);
			vmt_outbuf_str(o, "\" text-anchor=\"end\">");
		}
		vmt_svg_esc(o, label);
		vmt_outbuf_str(o, "</text></g>");
	}
	if (x)
		line(o, "base", s->r0, a->at, s->r1, a->at);
	else
		line(o, "base", a->at, s->r0, a->at, s->r1);
	if (a->label) {
		mid = (s->r0 + s->r1) / 2;
		if (x) {
			vmt_outbuf_str(o, "<text class=\"label\" x=\"");
			vmt_svg_num(o, mid);
			vmt_outbuf_str(o, "\" y=\"");
			vmt_svg_num(o, a->at + 29);
			vmt_outbuf_str(o, "\" text-anchor=\"middle\">");
		} else {
			vmt_outbuf_str(o, "<text class=\"label\" text-anchor=\"middle\" "
				       "transform=\"translate(");
			vmt_svg_num(o, a->at - 52);
			vmt_outbuf_ch(o, ' ');
			vmt_svg_num(o, mid);
			vmt_outbuf_str(o, ") rotate(-90)\">");
		}
		vmt_svg_esc(o, a->label);
		vmt_outbuf_str(o, "</text>");
	}
	vmt_outbuf_str(o, "</g>");
}
