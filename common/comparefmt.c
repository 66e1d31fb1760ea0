// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "comparefmt.h"
#include "textwidth.h"
#include "timefmt.h"

/* The comparison's figures are in ns whatever the recordings' clocks. */
static const struct vmt_clock ns_clock = { 1.0, 0, 0 };

/* The columns of a block, in order: the figure, its JSON key, whether text shows it. */
static const struct {
	enum vmt_cmp_metric m;
	const char *head, *key;
	bool text;
} cols[] = {
	{ VMT_CMP_COUNT, "count", "count", true },
	{ VMT_CMP_RATE, "rate/s", "rate_per_s", true },
	{ VMT_CMP_MEAN, "mean", "mean_ns", false },	/* 120 columns */
	{ VMT_CMP_P50, "p50", "p50_ns", true },
	{ VMT_CMP_P90, "p90", "p90_ns", false },
	{ VMT_CMP_P99, "p99", "p99_ns", true },
	{ VMT_CMP_P999, "p99.9", "p99_9_ns", true },
	{ VMT_CMP_P9999, "p99.99", "p99_99_ns", false },
	{ VMT_CMP_MAX, "max", "max_ns", true },
	{ VMT_CMP_WINDOW, "window", "max_window_ns", true },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/* The change in % from before to after: NAN without a before, INFINITY from 0. */
static double change_pct(double before, double after)
{
	if (isnan(before) || isnan(after))
		return NAN;
	if (before == 0)
		return after == 0 ? 0 : INFINITY;
	return (after - before) / before * 100.0;
}

static void cell(FILE *f, const struct vmt_compare *c, const struct vmt_cmp_group *g, int side,
		 unsigned int k, struct vmt_unit lat, struct vmt_unit win)
{
	double v = vmt_compare_value(c, g, side, cols[k].m);
	char b[32];

	if (isnan(v))
		fprintf(f, " %9s", "-");
	else if (cols[k].m == VMT_CMP_COUNT)
		fprintf(f, " %9.0f", v);
	else if (cols[k].m == VMT_CMP_RATE)	/* cut, as every figure: never above it */
		fprintf(f, " %9.1f", vmt_pct_cut(v, 1));
	else	/* a double of 2^64 or more would convert to anything (0 on x86): the most */
		fprintf(f, " %9s", vmt_fmt_in_cols(&ns_clock, v < 0x1p64 ? (uint64_t)v : UINT64_MAX,
						   cols[k].m == VMT_CMP_WINDOW ? win : lat, 9, b,
						   sizeof(b)));
}

/*
 * The name column: as wide as the longest name (at least the 14 of the old layout), so
 * names read in full as --fail-if takes them, but never so wide that a line passes 120
 * columns: the rest of a line takes "fixed" of them.
 */
#define NAME_MIN 14
#define LINE_MAX_COLUMNS 120

static int name_width(const struct vmt_compare *c, int fixed)
{
	int w = NAME_MIN, cap = LINE_MAX_COLUMNS - fixed;
	size_t n;

	for (n = 0; n < c->ngroups; n++) {
		int len = (int)vmt_textwidth(c->groups[n].name);

		if (len > w)
			w = len;
	}
	return w < cap ? w : cap;
}

/*
 * A name in a column of w: cut with a '~' when longer, so a cut never passes for a name;
 * in display columns, never inside a UTF-8 character (textwidth.h).
 */
static void name_cell(FILE *f, const char *name, int w)
{
	size_t len = strlen(name), keep;
	int blank;

	if ((int)vmt_textwidth_cols(name, len) <= w) {
		fprintf(f, "  %-*s", vmt_textwidth_pad(name, (unsigned int)w), name);
		return;
	}
	keep = vmt_textwidth_cut(name, len, w > 1 ? (size_t)w - 1 : 0, SIZE_MAX);
	/* a wide character left out leaves a column: a blank keeps the figures in place */
	blank = w - 1 - (int)vmt_textwidth_cols(name, keep);
	fprintf(f, "  %.*s~%*s", (int)keep, name, blank > 0 ? blank : 0, "");
}

static bool beyond_noise(const struct vmt_cmp_group *g)
{
	return !isnan(g->ks_p) && g->ks_p < VMT_CMP_ALPHA;
}

/* "+12.3%", "new", "-" in 9 columns, as the table's changes. */
static void change_cell(FILE *f, double x)
{
	/* cut toward zero as every figure is: -99.976 % is -99.9 %, never -100.0 % */
	if (isnan(x))
		fprintf(f, " %9s", "-");
	else if (isinf(x))
		fprintf(f, " %9s", "new");
	else if (fabs(vmt_pct_cut(x, 1)) < 100000)
		fprintf(f, " %+8.1f%%", vmt_pct_cut(x, 1));
	else if (x < 1e7)	/* 9 columns still: no decimal, cut */
		fprintf(f, " %+8.0f%%", vmt_pct_cut(x, 0));
	else
		fprintf(f, " %9s", ">9999999%");
}

/* "userspace, wakeup" : the kinds of mask, for a note. */
static const char *kinds_list(uint32_t mask, char *buf, size_t size)
{
	unsigned int k;
	size_t n = 0;

	buf[0] = '\0';
	for (k = 0; k < VMT_WHY_NKINDS; k++)
		if (mask >> k & 1 && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
					      vmt_why_kind_names[k]);
	return buf;
}

static uint64_t why_total(const struct vmt_cmp_side *s)
{
	uint64_t sum = 0;
	unsigned int k;

	for (k = 0; k < VMT_WHY_NKINDS; k++)
		sum += s->why_ns[k];
	return sum;
}

/*
 * Where the exits' time went, side by side: each kind's total and share of its side's,
 * and the change of its time per second (the rates' span: recordings of other lengths).
 */
static void causes_text(FILE *f, const struct vmt_compare *c, const struct vmt_cmp_group *g)
{
	const struct vmt_cmp_side *s = g->side;
	uint64_t max = 0, tot[2] = { why_total(&s[0]), why_total(&s[1]) };
	uint32_t differ = vmt_compare_why_differ(c, g);
	char a[32];
	struct vmt_unit u;
	unsigned int k, i;

	if (!c->why[0] || !c->why[1]) {
		fprintf(f, "\nCauses: only the %s recording holds context events, nothing to compare "
			"them with.\n", c->why[0] ? "before" : "after");
		return;
	}
	for (k = 0; k < VMT_WHY_NKINDS; k++)
		for (i = 0; i < 2; i++)
			max = s[i].why_ns[k] > max ? s[i].why_ns[k] : max;
	u = vmt_unit_for_total(&ns_clock, max);
	fprintf(f, "\nCauses (context events): the %s by kind, in %s, and the change\n"
		"of each kind's time per second:\n", c->neutral ? "pairs' time" :
		"exits' time out of the guest", u.name);
	fprintf(f, "  %-10s %10s %6s %10s %6s %9s\n", "kind", "before", "share", "after",
		"share", "change/s");
	for (k = 0; k < VMT_WHY_NKINDS; k++) {
		bool told[2] = { c->why_recorded[0] >> k & 1, c->why_recorded[1] >> k & 1 };

		if (!s[0].why_ns[k] && !s[1].why_ns[k])
			continue;
		fprintf(f, "  %-10s", vmt_why_kind_names[k]);
		/* a kind a recording cannot tell: "-", not 0 */
		for (i = 0; i < 2; i++) {
			if (!told[i]) {
				fprintf(f, " %10s %6s", "-", "-");
				continue;
			}
			vmt_fmt_in(&ns_clock, s[i].why_ns[k], u, a, sizeof(a));
			fprintf(f, " %10s %5.1f%%", a, tot[i] ? vmt_pct_cut(100.0 *
				(double)s[i].why_ns[k] / (double)tot[i], 1) : 0);
		}
		/*
		 * recordings that tell other kinds count a kind one cannot tell in others
		 * (wakeup in blocked, userspace in kvm, ...): no kind's change compares
		 */
		change_cell(f, !differ ? change_pct(vmt_compare_per_s(c, 0, s[0].why_ns[k]),
						    vmt_compare_per_s(c, 1, s[1].why_ns[k])) : NAN);
		fputc('\n', f);
	}
	if (differ) {
		char l[2][128];

		/* the kinds that stop the changes, those with a row: not one no side saw */
		kinds_list(differ & c->why_recorded[0], l[0], sizeof(l[0]));
		kinds_list(differ & c->why_recorded[1], l[1], sizeof(l[1]));
		fprintf(f, "  no change compared: the recordings tell different kinds (a kind one "
			"cannot tell is counted in blocked or kvm):\n  told by before only: %s; "
			"by after only: %s\n", l[0][0] ? l[0] : "none", l[1][0] ? l[1] : "none");
	}
	for (i = 0; i < 2; i++)
		if (s[i].why_incomplete)
			fprintf(f, "  %s: %" PRIu64 " of %" PRIu64 " %s with time of unknown cause, "
				"counted as kvm\n", i ? "after" : "before", s[i].why_incomplete,
				s[i].why_exits, c->neutral ? "pairs" : "exits");
}

void vmt_compare_text(FILE *f, const struct vmt_compare *c, const struct vmt_compare_view *v)
{
	uint64_t max = 0, wmax = 0;
	struct vmt_unit lat, win;
	unsigned int k, i;
	size_t n;
	int nw;

	for (n = 0; n < c->ngroups; n++) {
		for (i = 0; i < 2; i++) {
			const struct vmt_cmp_side *s = &c->groups[n].side[i];

			if (s->d.st.count && s->d.st.max > max)
				max = s->d.st.max;
			if (s->max_window_ns > wmax)
				wmax = s->max_window_ns;
		}
	}
	lat = vmt_unit_for(&ns_clock, max);
	win = vmt_unit_for_total(&ns_clock, wmax);
	vmt_fmt_path_lines(f, "Before: ", v->file[0], "", "  ");
	vmt_fmt_path_lines(f, "After:  ", v->file[1], "", "  ");
	fprintf(f, "\nComparison; latencies in %s, worst %s windows in %s; a change is beyond "
		"noise when the\nKolmogorov-Smirnov test on the two distributions gives p < %g:\n",
		lat.name, "sliding", win.name, VMT_CMP_ALPHA);
	/* the fixed part: " before", a column of 10 per figure, " KS D        p beyond" */
	for (k = 0, nw = 2 + 7 + 7 + 9 + 7; k < NCOLS; k++)
		nw += cols[k].text ? 10 : 0;
	nw = name_width(c, nw);
	fprintf(f, "  %-*s %-6s", nw, c->neutral ? "id" : "reason", "");
	for (k = 0; k < NCOLS; k++) {
		if (cols[k].text)
			fprintf(f, " %9s", cols[k].head);
	}
	fprintf(f, " %6s %8s %s\n", "KS D", "p", "beyond");
	for (n = 0; n < c->ngroups; n++) {
		const struct vmt_cmp_group *g = &c->groups[n];

		/* a name too long for the column has a line of its own rather than a cut */
		if ((int)vmt_textwidth(g->name) > nw)
			fprintf(f, "  %s\n", g->name);
		for (i = 0; i < 2; i++) {
			const char *shown = i || (int)vmt_textwidth(g->name) > nw ? "" : g->name;

			fprintf(f, "  %-*s %-6s", vmt_textwidth_pad(shown, (unsigned int)nw), shown,
				i ? "after" : "before");
			for (k = 0; k < NCOLS; k++) {
				if (cols[k].text)
					cell(f, c, g, i, k, lat, win);
			}
			fputc('\n', f);
		}
		fprintf(f, "  %-*s %-6s", nw, "", "change");
		for (k = 0; k < NCOLS; k++) {
			if (cols[k].text)
				change_cell(f, change_pct(vmt_compare_value(c, g, 0, cols[k].m),
							  vmt_compare_value(c, g, 1, cols[k].m)));
		}
		if (isnan(g->ks_p) || !g->side[0].d.st.count || !g->side[1].d.st.count)
			fprintf(f, " %6s %8s %s\n", "-", "-", "-");
		else if (g->ks_p < 1e-300)	/* below what a double holds: not 0 */
			fprintf(f, " %6.4f %8s %s\n", g->ks_d, "<1e-300", "yes");
		else
			fprintf(f, " %6.4f %8.2g %s\n", g->ks_d, g->ks_p,
				beyond_noise(g) ? "yes" : "no");
	}
	if (c->ngroups && (c->why[0] || c->why[1]))
		causes_text(f, c, &c->groups[0]);
	else if (c->why_off)
		fprintf(f, "\nCauses: not worked out (--no-causes).\n");
	for (k = 0; k < v->nconds; k++)
		fprintf(f, "%s--fail-if: %s: %s\n", k ? "" : "\n",
			!v->verdicts || !v->verdicts[k] ? "does not hold" :
			v->verdicts[k] == 1 ? "holds" : "cannot tell, counted as holding",
			v->details ? v->details[k] : v->conds[k].text);
}

/* A double as JSON: exponent form where needed, null for NAN and infinities. */
static void json_num(struct vmt_jsonw *w, const char *name, double x)
{
	if (!isfinite(x)) {
		vmt_jsonw_null(w, name);
		return;
	}
	vmt_jsonw_member(w, name);
	vmt_outbuf_printf(w->o, "%.10g", x);
}

/* One side's figures as members of the object open. */
static void json_fields(struct vmt_jsonw *w, const struct vmt_compare *c,
			const struct vmt_cmp_group *g, int side)
{
	unsigned int k;

	for (k = 0; k < NCOLS; k++) {
		double x = vmt_compare_value(c, g, side, cols[k].m);

		if (cols[k].m == VMT_CMP_RATE)	/* to the thousandth, cut */
			json_num(w, cols[k].key, isfinite(x) ? vmt_pct_cut(x, 3) : x);
		else if (isnan(x))
			vmt_jsonw_null(w, cols[k].key);
		else
			vmt_jsonw_u64(w, cols[k].key, (uint64_t)x);
	}
}

/* A side's causes as the object key (exits, incomplete, <kind>_ns), null without them. */
static void json_side_causes(struct vmt_jsonw *w, const char *key, const struct vmt_compare *c,
			     const struct vmt_cmp_group *g, int side)
{
	const struct vmt_cmp_side *s = &g->side[side];
	char name[32];
	unsigned int k;

	if (!c->why[side]) {
		vmt_jsonw_null(w, key);
		return;
	}
	vmt_jsonw_object_open(w, key);
	vmt_jsonw_u64(w, "exits", s->why_exits);
	vmt_jsonw_u64(w, "incomplete", s->why_incomplete);
	for (k = 0; k < VMT_WHY_NKINDS; k++) {
		snprintf(name, sizeof(name), "%s_ns", vmt_why_kind_names[k]);
		/* null: the recording cannot tell this kind */
		vmt_jsonw_opt_u64(w, name, c->why_recorded[side] >> k & 1, s->why_ns[k]);
	}
	vmt_jsonw_object_close(w);
}

/* "causes": both sides' (json_side_causes), null when neither has context events. */
static void json_causes(struct vmt_jsonw *w, const struct vmt_compare *c,
			const struct vmt_cmp_group *g)
{
	if (!c->why[0] && !c->why[1]) {
		vmt_jsonw_null(w, "causes");
		return;
	}
	vmt_jsonw_object_open(w, "causes");
	json_side_causes(w, "before", c, g, 0);
	json_side_causes(w, "after", c, g, 1);
	vmt_jsonw_object_close(w);
}

static void json_side(struct vmt_jsonw *w, const struct vmt_compare *c,
		      const struct vmt_cmp_group *g, int side)
{
	vmt_jsonw_object_open(w, side ? "after" : "before");
	json_fields(w, c, g, side);
	vmt_jsonw_object_close(w);
}

void vmt_compare_json(struct vmt_jsonw *w, const struct vmt_compare *c,
		      const struct vmt_compare_view *v)
{
	unsigned int k, i;
	size_t n;

	vmt_jsonw_object_open(w, "compare");
	vmt_jsonw_str(w, "test", "kolmogorov-smirnov");
	json_num(w, "alpha", VMT_CMP_ALPHA);
	vmt_jsonw_u64(w, "window_ns", c->window_ns);
	if (c->why_off)
		vmt_jsonw_str(w, "causes_note", "not worked out (--no-causes): unknown, not zero");
	for (i = 0; i < 2; i++) {
		vmt_jsonw_object_open(w, i ? "after" : "before");
		vmt_jsonw_str(w, "file", v->file[i]);
		vmt_jsonw_u64(w, "duration_ns", c->span_ns[i]);
		vmt_jsonw_u64(w, "gap_ns", c->gap_ns[i]);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_open(w, "groups");
	for (n = 0; n < c->ngroups; n++) {
		const struct vmt_cmp_group *g = &c->groups[n];
		bool tested = g->side[0].d.st.count && g->side[1].d.st.count;

		vmt_jsonw_object_open(w, NULL);
		vmt_jsonw_str(w, "reason", g->name);
		if (g->all)
			vmt_jsonw_null(w, "reason_code");
		else
			vmt_jsonw_u64(w, "reason_code", g->key);
		json_side(w, c, g, 0);
		json_side(w, c, g, 1);
		vmt_jsonw_object_open(w, "change_pct");
		for (k = 0; k < NCOLS; k++)
			json_num(w, cols[k].key, change_pct(vmt_compare_value(c, g, 0, cols[k].m),
							   vmt_compare_value(c, g, 1, cols[k].m)));
		vmt_jsonw_object_close(w);
		json_num(w, "ks_d", tested ? g->ks_d : NAN);
		json_num(w, "ks_p", tested ? g->ks_p : NAN);
		if (tested && !isnan(g->ks_p))
			vmt_jsonw_bool(w, "beyond_noise", beyond_noise(g));
		else
			vmt_jsonw_null(w, "beyond_noise");
		json_causes(w, c, g);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
	vmt_jsonw_array_open(w, "fail_if");
	for (k = 0; k < v->nconds; k++) {
		vmt_jsonw_object_open(w, NULL);
		vmt_jsonw_str(w, "condition", v->conds[k].text);
		/* one that cannot be told (a side without these exits) counts as holding */
		vmt_jsonw_bool(w, "holds", v->verdicts && v->verdicts[k] != 0);
		vmt_jsonw_bool(w, "evaluated", !v->verdicts || v->verdicts[k] != 2);
		vmt_jsonw_str(w, "detail", v->details ? v->details[k] : NULL);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
	vmt_jsonw_object_close(w);
}

/* ---- several recordings merged (side 0 of each comparison) ---- */

/* The merged tables' fixed part: a column of 10 per figure but the mean. */
static int merge_fixed(void)
{
	unsigned int k;
	int fixed = 2;

	for (k = 0; k < NCOLS; k++)
		fixed += cols[k].m != VMT_CMP_MEAN ? 10 : 0;
	return fixed;
}

static void merge_header(FILE *f, const char *first, int nw)
{
	unsigned int k;

	fprintf(f, "  %-*s", nw, first);
	for (k = 0; k < NCOLS; k++) {
		if (cols[k].m != VMT_CMP_MEAN)
			fprintf(f, " %9s", cols[k].head);
	}
	fputc('\n', f);
}

static void merge_row(FILE *f, const struct vmt_compare *c, const struct vmt_cmp_group *g,
		      const char *label, int nw, struct vmt_unit lat, struct vmt_unit win)
{
	unsigned int k;

	name_cell(f, label, nw);
	for (k = 0; k < NCOLS; k++) {
		if (cols[k].m != VMT_CMP_MEAN)
			cell(f, c, g, 0, k, lat, win);
	}
	fputc('\n', f);
}

/* One row of shares: label, the total out of the guest, each kind's share ("-": untold). */
static void shares_row(FILE *f, const char *label, const struct vmt_compare *c, struct vmt_unit u)
{
	const struct vmt_cmp_side *s = &c->groups[0].side[0];
	uint64_t tot = why_total(s);
	char a[32];
	unsigned int k;

	vmt_fmt_in(&ns_clock, tot, u, a, sizeof(a));
	fprintf(f, "  %-9s %10s", label, a);
	for (k = 0; k < VMT_WHY_NKINDS; k++) {
		if (!(c->why_recorded[0] >> k & 1))
			fprintf(f, " %9s", "-");
		else
			fprintf(f, " %8.1f%%", tot ? vmt_pct_cut(100.0 * (double)s->why_ns[k] /
								 (double)tot, 1) : 0);
	}
	fputc('\n', f);
}

/*
 * The merge's causes: all recordings with context events together, then each, as shares of
 * each kind in their time out of the guest.
 */
static void merge_causes(FILE *f, const struct vmt_compare *merged, const struct vmt_compare *per,
			 unsigned int n)
{
	unsigned int i, k, with = 0;
	uint64_t max = why_total(&merged->groups[0].side[0]);
	char label[32];
	struct vmt_unit u = vmt_unit_for_total(&ns_clock, max);
	bool differ = false;	/* the recordings tell different kinds */

	for (i = 0; i < n; i++) {
		with += per[i].why[0];
		differ |= per[i].why[0] && per[i].why_recorded[0] != merged->why_recorded[0];
	}
	fprintf(f, "\nCauses (context events): each kind's share of the %s, total in %s",
		merged->neutral ? "time in pairs" : "time out of the guest", u.name);
	if (with < n)
		fprintf(f, ";\n\"all\" is the %u recording%s that hold%s context events", with,
			with == 1 ? "" : "s", with == 1 ? "s" : "");
	fprintf(f, ":\n");
	fprintf(f, "  %-9s %10s", "recording", "total");
	for (k = 0; k < VMT_WHY_NKINDS; k++)
		fprintf(f, " %9s", vmt_why_kind_names[k]);
	fputc('\n', f);
	shares_row(f, "all", merged, u);
	for (i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "[%u]", i + 1);
		if (per[i].why[0])
			shares_row(f, label, &per[i], u);
		else
			fprintf(f, "  %-9s no context events\n", label);
	}
	if (differ)
		fprintf(f, "  all: \"-\" where not every recording tells the kind (one that cannot "
			"counts its time in\n  blocked or kvm), so its shares do not add up to 100%%\n");
}

/*
 * The exits still open at the stop, per recording, when there are any: in no figure above
 * (one recording's report lists them), but a stuck vCPU should not go unsaid.
 */
static void merge_open(FILE *f, const struct vmt_compare *merged, const struct vmt_compare *per,
		       unsigned int n)
{
	unsigned int i, col;

	if (!merged->open_at_stop[0])
		return;
	col = (unsigned int)fprintf(f, "\nOpen at stop (in no figure; each recording's report "
				    "lists them):");
	for (i = 0; i < n; i++) {
		char cell[48];
		int len = snprintf(cell, sizeof(cell), " [%u] %" PRIu64 "%s", i + 1,
				   per[i].open_at_stop[0], i + 1 < n ? "," : "");

		if (col + (unsigned int)len > 120) {
			fputs("\n ", f);
			col = 1;
		}
		fputs(cell, f);
		col += (unsigned int)len;
	}
	fputc('\n', f);
}

void vmt_merge_text(FILE *f, const struct vmt_compare *merged, const struct vmt_compare *per,
		    const char *const *files, unsigned int n)
{
	uint64_t max = 0, wmax = 0;
	struct vmt_unit lat, win;
	int nw = name_width(merged, merge_fixed());
	char label[32];
	unsigned int i;
	size_t g;

	for (g = 0; g < merged->ngroups; g++) {
		const struct vmt_cmp_side *s = &merged->groups[g].side[0];

		if (s->d.st.count && s->d.st.max > max)
			max = s->d.st.max;
		if (s->max_window_ns > wmax)
			wmax = s->max_window_ns;
	}
	lat = vmt_unit_for(&ns_clock, max);
	win = vmt_unit_for_total(&ns_clock, wmax);
	fprintf(f, "Recordings, merged into one population:\n");
	for (i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "  [%u] ", i + 1);
		vmt_fmt_path_lines(f, label, files[i], "", "      ");
	}
	fprintf(f, "\nAll recordings; latencies in %s, worst sliding windows in %s, rates over the "
		"recordings' summed %s less gaps:\n", lat.name, win.name,
		merged->events_spans ? "spans" : "durations");
	merge_header(f, merged->neutral ? "id" : "reason", nw);
	for (g = 0; g < merged->ngroups; g++)
		merge_row(f, merged, &merged->groups[g], merged->groups[g].name, nw, lat, win);
	fprintf(f, "\nEach recording, all %s; latencies in %s, windows in %s:\n",
		merged->neutral ? "pairs" : "exits", lat.name, win.name);
	merge_header(f, "recording", nw);
	for (i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "[%u]", i + 1);
		merge_row(f, &per[i], &per[i].groups[0], label, nw, lat, win);
	}
	merge_open(f, merged, per, n);
	if (merged->why[0])
		merge_causes(f, merged, per, n);
	else if (merged->why_off)
		fprintf(f, "\nCauses: not worked out (--no-causes).\n");
}

void vmt_merge_json(struct vmt_jsonw *w, const struct vmt_compare *merged,
		    const struct vmt_compare *per, const char *const *files, unsigned int n)
{
	unsigned int i;
	size_t g;

	vmt_jsonw_array_open(w, "files");
	for (i = 0; i < n; i++) {
		vmt_jsonw_object_open(w, NULL);
		vmt_jsonw_str(w, "file", files[i]);
		vmt_jsonw_u64(w, "duration_ns", per[i].span_ns[0]);
		vmt_jsonw_u64(w, "gap_ns", per[i].gap_ns[0]);
		/* exits still open at the stop: in no figure, as in one recording's report */
		vmt_jsonw_u64(w, "open_at_stop", per[i].open_at_stop[0]);
		json_fields(w, &per[i], &per[i].groups[0], 0);
		json_side_causes(w, "causes", &per[i], &per[i].groups[0], 0);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
	vmt_jsonw_object_open(w, "merged");
	vmt_jsonw_u64(w, "duration_ns", merged->span_ns[0]);
	vmt_jsonw_u64(w, "gap_ns", merged->gap_ns[0]);
	vmt_jsonw_u64(w, "window_ns", merged->window_ns);
	if (merged->why_off)
		vmt_jsonw_str(w, "causes_note", "not worked out (--no-causes): unknown, not zero");
	vmt_jsonw_array_open(w, "groups");
	for (g = 0; g < merged->ngroups; g++) {
		const struct vmt_cmp_group *gr = &merged->groups[g];

		vmt_jsonw_object_open(w, NULL);
		vmt_jsonw_str(w, "reason", gr->name);
		if (gr->all)
			vmt_jsonw_null(w, "reason_code");
		else
			vmt_jsonw_u64(w, "reason_code", gr->key);
		json_fields(w, merged, gr, 0);
		json_side_causes(w, "causes", merged, gr, 0);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
	vmt_jsonw_object_close(w);
}
