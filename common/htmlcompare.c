// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The comparison page (htmlcompare.h). Readable without colour: BEFORE is a dashed grey
 * line, AFTER a solid black one, each named in a legend; every bin's share is on a log
 * axis so that rare long exits show next to the bulk.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htmlcompare.h"
#include "outfile.h"
#include "svg.h"
#include "timefmt.h"

static const char css[] =
	"body{font:14px/1.45 system-ui,sans-serif;color:#111;background:#fff;margin:0 auto;"
	"max-width:1180px;padding:10px 20px 40px}h1{font-size:21px;margin:8px 0}"
	"h2{font-size:16px;margin:26px 0 8px;border-bottom:1px solid #888}"
	"p.note{color:#444;font-size:12.5px;margin:4px 0}"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:13px}"
	"th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}"
	"th{border-bottom:1px solid #666}td.l,th.l{text-align:left}.wrap{overflow-x:auto}"
	".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:10px}"
	"figure{margin:0}svg{width:100%;height:auto;font:11px system-ui,sans-serif;display:block}"
	"svg text{fill:#222}svg .label{font-size:11.5px;fill:#333}svg .title{font-size:12.5px;"
	"font-weight:600}svg .base,svg .tick line{stroke:#333}svg line.grid{stroke:#e3e3e3}"
	".dist{fill:none}.dist.before{stroke:#777;stroke-width:1.6;stroke-dasharray:5 3}"
	".dist.after{stroke:#000;stroke-width:1.6}"
	"@media print{@page{size:A4;margin:12mm}body{max-width:none;padding:0;font-size:10pt}"
	".grid{grid-template-columns:1fr 1fr}figure,table{break-inside:avoid}}";

/* Display bins: four per power of two (as the report's page), exact over latstat buckets. */
#define DBINS 252

static unsigned int dbin(uint64_t v)
{
	unsigned int e;

	if (v < 8)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	return 4 * (e - 1) + (unsigned int)((v >> (e - 2)) & 3);
}

static uint64_t dbin_low(unsigned int b)
{
	if (b < 8)
		return b;
	if (b >= DBINS)
		return UINT64_MAX;
	return (uint64_t)(4 + (b & 3)) << (b / 4 - 1);
}

static void fill_bins(const struct vmt_latdist *d, uint64_t *bins)
{
	unsigned int i;

	memset(bins, 0, DBINS * sizeof(*bins));
	if (d->hist) {
		for (i = 0; i < VMT_LATDIST_BUCKETS; i++) {
			uint64_t n = vmt_latdist_count(d, i);

			if (n)
				bins[dbin(vmt_latdist_bucket_low(i))] += n;
		}
		return;
	}
	for (i = 0; i < d->nexact; i++)
		bins[dbin(d->exact[i])]++;
}

static void out(struct vmt_outbuf *o, const char *s)
{
	vmt_outbuf_str(o, s);
}

static void td(struct vmt_outbuf *o, const char *cls, const char *s)
{
	out(o, cls ? "<td class=\"l\">" : "<td>");
	vmt_svg_esc(o, s);
	out(o, "</td>");
}

static const struct {
	enum vmt_cmp_metric m;
	const char *head;
} cols[] = {
	{ VMT_CMP_COUNT, "count" }, { VMT_CMP_RATE, "rate/s" }, { VMT_CMP_P50, "p50" },
	{ VMT_CMP_P99, "p99" }, { VMT_CMP_P999, "p99.9" }, { VMT_CMP_MAX, "max" },
	{ VMT_CMP_WINDOW, "worst window" },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

static const char *value_text(const struct vmt_compare *c, const struct vmt_cmp_group *g,
			      int side, unsigned int k, char *buf, size_t size)
{
	double v = vmt_compare_value(c, g, side, cols[k].m);

	if (isnan(v))
		snprintf(buf, size, "-");
	else if (cols[k].m == VMT_CMP_COUNT)
		snprintf(buf, size, "%.0f", v);
	else if (cols[k].m == VMT_CMP_RATE)	/* cut, as the text's */
		snprintf(buf, size, "%.1f", vmt_pct_cut(v, 1));
	else	/* as the text's table: four digits, cut, never above the figure */
		vmt_format_ns(v >= 0 ? (uint64_t)v : 0, buf, size);
	return buf;
}

static void figures(struct vmt_outbuf *o, const struct vmt_compare *c)
{
	char b[64];
	unsigned int k;
	size_t n;
	int i;

	vmt_outbuf_printf(o, "<section id=\"figures\"><h2>Figures</h2><div class=\"wrap\"><table>"
			  "<thead><tr><th class=\"l\">%s</th><th class=\"l\"></th>",
			  c->neutral ? "id" : "reason");
	for (k = 0; k < NCOLS; k++) {
		out(o, "<th>");
		out(o, cols[k].head);
		out(o, "</th>");
	}
	out(o, "<th>KS D</th><th>p</th><th class=\"l\">beyond noise</th></tr></thead><tbody>");
	for (n = 0; n < c->ngroups; n++) {
		const struct vmt_cmp_group *g = &c->groups[n];
		bool tested = g->side[0].d.st.count && g->side[1].d.st.count && !isnan(g->ks_p);

		for (i = 0; i < 3; i++) {
			vmt_outbuf_printf(o, "<tr data-group=\"%zu\" data-row=\"%s\">", n,
					  i == 0 ? "before" : i == 1 ? "after" : "change");
			td(o, "l", i ? "" : g->name);
			td(o, "l", i == 0 ? "before" : i == 1 ? "after" : "change");
			for (k = 0; k < NCOLS; k++) {
				double x0, x1;

				if (i < 2) {
					td(o, NULL, value_text(c, g, i, k, b, sizeof(b)));
					continue;
				}
				x0 = vmt_compare_value(c, g, 0, cols[k].m);
				x1 = vmt_compare_value(c, g, 1, cols[k].m);
				if (isnan(x0) || isnan(x1))
					snprintf(b, sizeof(b), "-");
				else if (x0 == 0)
					snprintf(b, sizeof(b), x1 == 0 ? "+0.0%%" : "new");
				else
					snprintf(b, sizeof(b), "%+.1f%%",	/* cut, as the text */
						 vmt_pct_cut((x1 - x0) / x0 * 100.0, 1));
				td(o, NULL, b);
			}
			if (i < 2 || !tested) {
				out(o, "<td></td><td></td><td></td></tr>");
				continue;
			}
			snprintf(b, sizeof(b), "%.4f", g->ks_d);
			td(o, NULL, b);
			if (g->ks_p < 1e-300)	/* below what a double holds: not 0 */
				snprintf(b, sizeof(b), "<1e-300");
			else
				snprintf(b, sizeof(b), "%.2g", g->ks_p);
			td(o, NULL, b);
			td(o, "l", g->ks_p < VMT_CMP_ALPHA ? "yes" : "no");
			out(o, "</tr>");
		}
	}
	out(o, "</tbody></table></div></section>\n");
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
 * The causes of all exits side by side, as the text's table (comparefmt.c): each kind's
 * time, its share of its recording's time out of the guest, the change of its time per
 * second; "-" where a recording cannot tell the kind. One line when one side has none.
 */
static void causes(struct vmt_outbuf *o, const struct vmt_compare *c)
{
	const struct vmt_cmp_side *s = c->groups[0].side;
	uint64_t tot[2] = { why_total(&s[0]), why_total(&s[1]) };
	uint32_t differ;
	unsigned int k, i;
	char b[64];

	if (c->ngroups && !c->why[0] && !c->why[1] && c->why_off) {
		out(o, "<section id=\"causes\"><h2>Causes</h2><p class=\"note\">Not worked out "
		    "(--no-causes).</p></section>\n");
		return;
	}
	if (!c->ngroups || (!c->why[0] && !c->why[1]))
		return;
	differ = vmt_compare_why_differ(c, &c->groups[0]);
	out(o, "<section id=\"causes\"><h2>Causes</h2>");
	if (!c->why[0] || !c->why[1]) {
		vmt_outbuf_printf(o, "<p class=\"note\">Only the %s recording holds context events: "
				  "nothing to compare its causes with.</p></section>\n",
				  c->why[0] ? "before" : "after");
		return;
	}
	vmt_outbuf_printf(o, "<p class=\"note\">Where the %s went, by kind (from the context "
			  "events), and the change of each kind's time per second.</p>",
			  c->neutral ? "pairs' time" : "time out of the guest");
	out(o, "<div class=\"wrap\"><table><thead><tr><th class=\"l\">kind</th><th>before</th>"
	    "<th>share</th><th>after</th><th>share</th><th>change/s</th></tr></thead><tbody>");
	for (k = 0; k < VMT_WHY_NKINDS; k++) {
		bool told[2] = { c->why_recorded[0] >> k & 1, c->why_recorded[1] >> k & 1 };
		double x0, x1;

		if (!s[0].why_ns[k] && !s[1].why_ns[k])
			continue;
		vmt_outbuf_printf(o, "<tr data-kind=\"%s\">", vmt_why_kind_names[k]);
		td(o, "l", vmt_why_kind_names[k]);
		for (i = 0; i < 2; i++) {
			if (!told[i]) {
				td(o, NULL, "-");
				td(o, NULL, "-");
				continue;
			}
			td(o, NULL, vmt_format_ns(s[i].why_ns[k], b, sizeof(b)));
			snprintf(b, sizeof(b), "%.1f%%", tot[i] ? vmt_pct_cut(100.0 *
				 (double)s[i].why_ns[k] / (double)tot[i], 1) : 0);
			td(o, NULL, b);
		}
		x0 = vmt_compare_per_s(c, 0, s[0].why_ns[k]);
		x1 = vmt_compare_per_s(c, 1, s[1].why_ns[k]);
		/* other kinds told: one counts a kind it cannot tell in others (comparefmt.c) */
		if (differ || isnan(x0) || isnan(x1))
			snprintf(b, sizeof(b), "-");
		else if (x0 == 0)
			snprintf(b, sizeof(b), x1 == 0 ? "+0.0%%" : "new");
		else
			snprintf(b, sizeof(b), "%+.1f%%", vmt_pct_cut((x1 - x0) / x0 * 100.0, 1));
		td(o, NULL, b);
		out(o, "</tr>");
	}
	out(o, "</tbody></table></div>");
	if (differ)
		out(o, "<p class=\"note\">No change compared: the recordings tell different kinds, "
		    "and one counts the time of a kind it cannot tell in others (blocked or kvm).</p>");
	out(o, "</section>\n");
}

/* "100%", "1%", "0.001%": a share of exits. */
static char *fmt_share(double v, char *buf, size_t size)
{
	snprintf(buf, size, "%g%%", v * 100.0);
	return buf;
}

struct axes {
	struct vmt_scale x, y;
};

/* One side as a step line of each bin's share of exits, with its bins as data. */
static void dist_path(struct vmt_outbuf *o, const struct axes *ax, const struct vmt_latdist *d,
		      const char *side, uint64_t *bins)
{
	unsigned int i;
	bool first = true;

	fill_bins(d, bins);
	vmt_outbuf_printf(o, "<path class=\"dist %s\" data-side=\"%s\" data-count=\"%" PRIu64
			  "\" data-bins=\"", side, side, d->st.count);
	for (i = 0; i < DBINS; i++) {
		if (bins[i])
			vmt_outbuf_printf(o, "%s%" PRIu64 ":%" PRIu64, first ? "" : ";",
					  dbin_low(i), bins[i]), first = false;
	}
	out(o, "\" d=\"");
	for (i = 0; i < DBINS; i++) {
		double x0, x1, y;

		if (!bins[i])
			continue;
		x0 = vmt_scale_map(&ax->x, (double)dbin_low(i));
		x1 = vmt_scale_map(&ax->x, (double)dbin_low(i + 1));
		y = vmt_scale_map(&ax->y, (double)bins[i] / (double)d->st.count);
		/* each bin a flat top between its edges; empty bins leave a gap */
		out(o, "M");
		vmt_svg_num(o, x0);
		vmt_outbuf_ch(o, ' ');
		vmt_svg_num(o, ax->y.r0);
		out(o, "V");
		vmt_svg_num(o, y);
		out(o, "H");
		vmt_svg_num(o, x1);
		out(o, "V");
		vmt_svg_num(o, ax->y.r0);
	}
	out(o, "\"><title>");
	vmt_svg_esc(o, side);
	out(o, "</title></path>");
}

static void panel(struct vmt_outbuf *o, const struct axes *ax, size_t idx,
		  const struct vmt_cmp_group *g, uint64_t *bins, bool neutral)
{
	char title[160];
	struct vmt_axis a;

	vmt_outbuf_printf(o, "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" id=\"cmp-%zu\" "
			  "class=\"cmp\" viewBox=\"0 0 380 226\" role=\"img\"", idx);
	out(o, " data-reason=\"");
	vmt_svg_esc(o, g->name);
	out(o, "\">");
	snprintf(title, sizeof(title), "%s: %" PRIu64 " before, %" PRIu64 " after", g->name,
		 g->side[0].d.st.count, g->side[1].d.st.count);
	out(o, "<text class=\"title\" x=\"60\" y=\"14\">");
	vmt_svg_esc(o, title);
	out(o, "</text>");
	a = (struct vmt_axis){ .scale = &ax->x, .side = VMT_AXIS_BOTTOM, .at = ax->y.r0,
			.grid0 = ax->y.r1, .grid1 = ax->y.r0, .fmt = vmt_svg_fmt_ns,
			.label = "latency (log)" };
	vmt_svg_axis(o, &a);
	a = (struct vmt_axis){ .scale = &ax->y, .side = VMT_AXIS_LEFT, .at = ax->x.r0,
			.grid0 = ax->x.r0, .grid1 = ax->x.r1, .fmt = fmt_share,
			.label = neutral ? "share of pairs (log)" : "share of exits (log)" };
	vmt_svg_axis(o, &a);
	if (g->side[0].d.st.count)
		dist_path(o, ax, &g->side[0].d, "before", bins);
	if (g->side[1].d.st.count)
		dist_path(o, ax, &g->side[1].d, "after", bins);
	/* the legend: the line's own pattern next to its name */
	out(o, "<g class=\"legend\"><path class=\"dist before\" d=\"M250 30H280\"/>"
	    "<text x=\"284\" y=\"33\">before</text><path class=\"dist after\" d=\"M250 44H280\"/>"
	    "<text x=\"284\" y=\"47\">after</text></g></svg></figure>");
}

static void distributions(struct vmt_outbuf *o, const struct vmt_compare *c)
{
	size_t n = c->ngroups < VMT_HTMLCMP_MAX_REASONS + 1 ? c->ngroups :
		   VMT_HTMLCMP_MAX_REASONS + 1, i;
	uint64_t *bins = calloc(DBINS, sizeof(*bins)), lo = UINT64_MAX, hi = 0, most = 1;
	double ymin = 1;
	struct axes ax;
	int s;

	out(o, "<section id=\"distributions\"><h2>Distributions</h2>");
	if (!bins) {
		o->err = o->err ? o->err : -ENOMEM;
		return;
	}
	for (s = 0; s < 2; s++) {
		const struct vmt_latdist *d = &c->groups[0].side[s].d;

		if (!d->st.count)
			continue;
		lo = d->st.min < lo ? d->st.min : lo;
		hi = d->st.max > hi ? d->st.max : hi;
	}
	if (!hi && lo == UINT64_MAX) {
		vmt_outbuf_printf(o, "<p class=\"note\">No %s pairs in either recording.</p>"
				  "</section>\n", c->neutral ? "begin-end" : "exit-entry");
		free(bins);
		return;
	}
	/* the smallest share any drawn bin can have: one exit of the largest group */
	for (i = 0; i < n; i++) {
		for (s = 0; s < 2; s++) {
			if (c->groups[i].side[s].d.st.count > most)
				most = c->groups[i].side[s].d.st.count;
		}
	}
	ymin = 1.0 / (double)most;
	vmt_scale_init(&ax.x, true, vmt_decade_floor((double)(lo > 1 ? dbin_low(dbin(lo)) : 1)),
		       vmt_decade_ceil((double)dbin_low(dbin(hi) + 1)), 60, 356);
	vmt_scale_init(&ax.y, true, vmt_decade_floor(ymin), 1, 186, 24);
	vmt_outbuf_printf(o, "<p class=\"note\">Each panel draws both recordings' latency "
			  "distributions on the same axes: the share of %s in each latency "
			  "bin (four bins per doubling), BEFORE dashed, AFTER solid. Every panel "
			  "has the same axes.</p><div class=\"grid\">",
			  c->neutral ? "pairs" : "exits");
	for (i = 0; i < n; i++)
		panel(o, &ax, i, &c->groups[i], bins, c->neutral);
	out(o, "</div>");
	if (c->ngroups > n)
		vmt_outbuf_printf(o, "<p class=\"note\">%zu more %s with less time are in "
				  "the text and JSON comparisons.</p>", c->ngroups - n,
				  c->neutral ? "ids" : "exit reasons");
	out(o, "</section>\n");
	free(bins);
}

void vmt_html_compare(struct vmt_outbuf *o, const struct vmt_compare *c,
		      const char *const files[2])
{
	out(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	    "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
	    "<meta name=\"generator\" content=\"" PACKAGE_NAME " " PACKAGE_VERSION "\">"
	    "<title>vmtrace comparison</title><script>window.onerror=function(m){document."
	    "documentElement.setAttribute('data-error',String(m));};</script><style>");
	out(o, css);
	out(o, "</style></head>\n<body>\n<h1>vmtrace comparison</h1><p>Before: <b id=\"before\">");
	vmt_svg_esc(o, files[0]);
	out(o, "</b><br>After: <b id=\"after\">");
	vmt_svg_esc(o, files[1]);
	vmt_outbuf_printf(o, "</b></p><p class=\"note\">A change is beyond noise when the "
			  "two-sample Kolmogorov-Smirnov test on the two distributions gives "
			  "p &lt; %g (vmtrace-report(1), COMPARISON).</p>\n", VMT_CMP_ALPHA);
	figures(o, c);
	causes(o, c);
	distributions(o, c);
	out(o, "<footer><p class=\"note\">Made by " PACKAGE_NAME " " PACKAGE_VERSION
	    " (vmtrace-report --compare --html).</p></footer>\n</body></html>\n");
}

int vmt_html_compare_file(const char *path, const struct vmt_compare *c,
			  const char *const files[2], char *note, size_t note_size)
{
	struct vmt_outfile *of;
	struct vmt_outbuf o;
	int ret, i;

	for (i = 0; i < 2 && strcmp(path, "-") != 0; i++) {
		if (vmt_outfile_is_same_file(path, files[i]) == 1)
			return -EINVAL;
	}
	if (note_size)
		note[0] = '\0';
	ret = vmt_outfile_open(path, 0, &of, note, note_size);
	if (ret)
		return ret;
	if (note_size)
		snprintf(note, note_size, "%s", vmt_outfile_note(of));
	ret = vmt_outbuf_init(&o, vmt_outfile_fd(of));
	if (ret)
		goto out_abort;
	vmt_html_compare(&o, c, files);
	ret = vmt_outbuf_finish(&o);
	if (ret)
		goto out_abort;
	ret = vmt_outfile_commit(of, NULL, NULL);
	if (ret && note_size)
		note[0] = '\0';	/* the owner's words: not what failed */
	return ret;

out_abort:
	vmt_outfile_abort(of);
	if (note_size)
		note[0] = '\0';
	return ret;
}
