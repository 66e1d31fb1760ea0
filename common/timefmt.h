/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timefmt: trace-clock values as text for people: a latency in readable units
 * ("12.3 us", or raw ticks when the clock's rate is unknown), a time since the
 * recording's start with nanosecond digits ("1.234567890", or a count of ticks), and the
 * one rule of every table: a unit per column, chosen from the column's values, and four
 * significant digits, cut rather than rounded so a figure never shows more than it is (a
 * sum in a 1 ms window never reads "1000 us" above it). Stateless, thread-safe.
 */
#ifndef VMT_TIMEFMT_H
#define VMT_TIMEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tclock.h"

char *vmt_fmt_lat(const struct vmt_clock *c, uint64_t ticks, char *buf, size_t size);
char *vmt_fmt_time(const struct vmt_clock *c, uint64_t start_ts, uint64_t ts, char *buf,
		   size_t size);
/* "ns", or "ticks" when the clock's rate is unknown. */
const char *vmt_fmt_unit(const struct vmt_clock *c);
/*
 * An option's time as the report uses it: the ns given ("100.0 us"), or, when ticks have no
 * known length, its number taken as ticks ("100000 ticks"), as the window is.
 */
char *vmt_fmt_opt_ns(const struct vmt_clock *c, uint64_t ns, char *buf, size_t size);
/* The unit of vmt_fmt_time: "s", or "ticks" (a plain count since the start). */
const char *vmt_fmt_time_unit(const struct vmt_clock *c);

/* A column's unit: its name ("us") and how many ns (or ticks) it holds. */
struct vmt_unit {
	const char *name;
	uint64_t size;
};
/*
 * The unit of a column of latencies whose largest value is max (ticks): us for most,
 * ns below 1 us, ms from 10 s, s from 10^15 ns (11.5 days: damaged timestamps; ms would not
 * fit 9 columns); "ticks" when the clock's rate is unknown.
 */
struct vmt_unit vmt_unit_for(const struct vmt_clock *c, uint64_t max);
/* The same for totals: ms from 10 ms, s from 10 s. */
struct vmt_unit vmt_unit_for_total(const struct vmt_clock *c, uint64_t max);
/* ticks in unit u: four significant digits (more for large values), cut, no unit name. */
char *vmt_fmt_in(const struct vmt_clock *c, uint64_t ticks, struct vmt_unit u, char *buf,
		 size_t size);
/*
 * The same within cols columns, for a table's cell: a small figure in a large unit (a
 * 94 ns total in a column of seconds) keeps the decimals that fit, cut, and one whose
 * digits that fit would all be 0 reads "<0.000001" (cols 9: less than the last digit).
 * A whole part of more digits than cols (from cols 6) is a mantissa and its exponent, cut:
 * 2^64 ns in s, cols 9, reads "1.8446e10".
 */
char *vmt_fmt_in_cols(const struct vmt_clock *c, uint64_t ticks, struct vmt_unit u,
		      unsigned int cols, char *buf, size_t size);
/*
 * vmt_fmt_path_lines() - a line naming a file, within 120 columns
 * @f: where to write
 * @label: what comes before the path, with its blank ("File: ", "  [1] ")
 * @path: the file's path, as given (its control characters shown escaped: vmt_log_escape())
 * @tail: what comes after it ("" for nothing)
 * @cont: the start of the lines the path continues on ("  ", "#   ")
 *
 * label, path and tail on one line when they fit; else the label alone (its blanks cut),
 * then the path on lines of its own after @cont, broken after a '/' when longer than a line
 * (inside a name longer than a line, between two characters), and the tail after the path
 * where it fits (else on a line of its own): the path's lines without @cont, joined, are the path.
 */
void vmt_fmt_path_lines(FILE *f, const char *label, const char *path, const char *tail,
			const char *cont);
/* An exact duration in the largest unit that divides it: "1 ms", "250 us", "999999 ns". */
char *vmt_fmt_exact_ns(uint64_t ns, char *buf, size_t size);
/*
 * Percentages cut as the figures are (99.9996 % never reads "100.000"): part of total
 * (0 when total is 0), exactly, from the integers; or a computed percentage, with 1e-9 of
 * slack for a decimal value's binary fraction. decimals: at most 4. The value to print
 * with "%.*f" and the same decimals.
 */
double vmt_share_pct(uint64_t part, uint64_t total, unsigned int decimals);
double vmt_pct_cut(double pct, unsigned int decimals);
/*
 * A name for a table's name column, in at most cols columns: whole when it fits, else cut
 * with '~' before its trailing id, so a cut row still says which task or code it is
 * ("web1-with-a-long-na~ (pid 12345)", "AVIC_UNACCELERATED_~(0x402)"; the id is a last
 * "(...)"). An id wider than cols alone is kept whole, after the '~'. Columns are display
 * columns (textwidth.h: "é" is 1, "中" 2); the cut never splits a UTF-8 character, nor
 * passes size bytes (a name too long for buf is cut as one too wide).
 */
char *vmt_fmt_fit(const char *name, unsigned int cols, char *buf, size_t size);
/*
 * The width of a table's name column: as wide as its longest name (longest: in display
 * columns, vmt_textwidth()), never narrower than VMT_NAME_COLUMNS (the layout scripts
 * know) nor so wide that a row passes 120 columns (unless wide: --wide has no limit); a
 * longer name is cut (vmt_fmt_fit). rest: the columns of the row but the name's.
 */
#define VMT_NAME_COLUMNS 24
unsigned int vmt_fmt_name_cols(size_t longest, unsigned int rest, bool wide);

#endif
