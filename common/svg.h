/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * svg: the small pieces every chart of the HTML report is made of: linear and log scales
 * with readable ticks (1-2-5 steps, decades), axes with their ticks, grid lines and
 * labels, coordinates as short decimal text, and text escaped for HTML and SVG. Writes onto
 * the caller's outbuf; scales are plain values. Stateless, thread-safe.
 */
#ifndef VMT_SVG_H
#define VMT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "outbuf.h"

/* Maps the domain [d0, d1] onto the range [r0, r1] (pixels), linearly or by log10. */
struct vmt_scale {
	double d0, d1, r0, r1;
	bool log;
};

/* A log scale needs 0 < d0 < d1; a linear one d0 < d1 (else the domain is widened). */
void vmt_scale_init(struct vmt_scale *s, bool log, double d0, double d1, double r0, double r1);
/* v in range units, clamped to the range (a log scale maps v <= 0 to r0). */
double vmt_scale_map(const struct vmt_scale *s, double v);
/*
 * Tick values inside the domain, ascending, at most max: about n at 1-2-5 steps (linear),
 * or every power of ten (log; with 2 and 5 too when the domain is under three decades).
 * Returns how many.
 */
unsigned int vmt_scale_ticks(const struct vmt_scale *s, unsigned int n, double *out,
			     unsigned int max);
/* The 1-2-5 step that cuts range into about n parts. */
double vmt_nice_step(double range, unsigned int n);
/* The power of ten at or below v, and at or above v (v > 0). */
double vmt_decade_floor(double v);
double vmt_decade_ceil(double v);

/* Text and attribute values: & < > " ' escaped. NULL writes nothing. */
void vmt_svg_esc(struct vmt_outbuf *o, const char *s);
/* A coordinate: at most one decimal, no trailing ".0", "-0" as "0". */
void vmt_svg_num(struct vmt_outbuf *o, double v);

/* Tick labels: into buf, returning buf. */
typedef char *(*vmt_tick_fmt)(double v, char *buf, size_t size);
/* "850 ns", "1 us", "2.5 ms", "1 s": a latency in ns, short. */
char *vmt_svg_fmt_ns(double ns, char *buf, size_t size);
/* "1", "100", "10k", "1M": a count. */
char *vmt_svg_fmt_count(double v, char *buf, size_t size);
/* "0", "0.5", "12": seconds from ns. */
char *vmt_svg_fmt_s(double ns, char *buf, size_t size);
/* "0", "25", "100": a plain number. */
char *vmt_svg_fmt_plain(double v, char *buf, size_t size);

enum vmt_axis_side {
	VMT_AXIS_BOTTOM,	/* a horizontal axis under the plot at y = at */
	VMT_AXIS_LEFT,		/* a vertical axis left of the plot at x = at */
};

struct vmt_axis {
	const struct vmt_scale *scale;
	enum vmt_axis_side side;
	double at;			/* where the axis line is (y for bottom, x for left) */
	double grid0, grid1;		/* grid lines across the plot, from grid0 to grid1 */
	unsigned int nticks;		/* about how many (linear scales) */
	vmt_tick_fmt fmt;
	const char *label;		/* NULL: none */
	const double *ticks;		/* given tick values instead of the scale's own */
	const char *const *tick_labels;	/* their labels (with ticks), or NULL: fmt */
	unsigned int ntick_given;
};

/*
 * <g class="axis" data-axis="x|y">: the line, each tick as <g class="tick" data-v="V">
 * with its mark and label, light grid lines, and the axis label.
 */
void vmt_svg_axis(struct vmt_outbuf *o, const struct vmt_axis *a);

#endif
