// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "attrib.h"
#include "htmlwhy.h"
#include "timefmt.h"
#include "svg.h"
#include "cli.h"
#include "vmfind.h"

#define MAX_ROWS 12		/* reasons shown, most total time first, then "all" */
#define MAX_CULPRITS 15
#define BAR_X 190.0		/* where the bars start; reason labels to the left */
#define BAR_W 640.0
#define ROW_H 26.0

/*
 * One fill per kind, and stripes over the light ones (userspace vertical, wakeup
 * horizontal, softirq dashed): told apart without colour; the legend and labels say it.
 */
const char vmt_html_why_css[] =
	".k0{fill:#c8c8c8}.k1{fill:#dff0df}.k2{fill:#b8281d}.k3{fill:#1f5fa8}"
	".k4{fill:#dde8f6}.k5{fill:#8a5a00}.k6{fill:#f6dde8}.k7{fill:#000}"
	"#causes path.st{fill:none;stroke-width:1.4}#causes path.st.k1{stroke:#2f7d32}"
	"#causes path.st.k4{stroke:#1f5fa8}#causes path.st.k6{stroke:#c2185b;stroke-dasharray:2 2}"
	"#causes rect.seg{stroke:#fff;stroke-width:.8}#causes text.in{fill:#fff;font-size:10.5px}"
	"#causes text.in.k0{fill:#111}#causes text.in.k1,#causes text.in.k4,#causes text.in.k6{fill:#111;"
	"paint-order:stroke;stroke:#fff;stroke-width:3px}";

static void fmt_ns_text(uint64_t ns, char *buf, size_t size)
{
	vmt_format_ns(ns, buf, size);
}

/* The stripes over a light kind's box (no SVG pattern: the page refers to nothing). */
static void stripes(struct vmt_outbuf *o, unsigned int kind, double x, double y, double w,
		    double h)
{
	double v;

	if (kind != VMT_WHY_USERSPACE && kind != VMT_WHY_WAKEUP && kind != VMT_WHY_SOFTIRQ)
		return;
	vmt_outbuf_printf(o, "<path class=\"st k%u\" d=\"", kind);
	if (kind == VMT_WHY_WAKEUP) {
		for (v = y + 3; v < y + h - 1; v += 4) {
			vmt_outbuf_ch(o, 'M');
			vmt_svg_num(o, x);
			vmt_outbuf_ch(o, ' ');
			vmt_svg_num(o, v);
			vmt_outbuf_ch(o, 'h');
			vmt_svg_num(o, w);
		}
	} else {
		for (v = x + 2.5; v < x + w - 1; v += 5) {
			vmt_outbuf_ch(o, 'M');
			vmt_svg_num(o, v);
			vmt_outbuf_ch(o, ' ');
			vmt_svg_num(o, y);
			vmt_outbuf_ch(o, 'v');
			vmt_svg_num(o, h);
		}
	}
	vmt_outbuf_str(o, "\"/>");
}

/* One bar: the kinds' shares of this row's total, left to right in kind order. */
static void bar(struct vmt_outbuf *o, const struct vmt_clock *clk, double y, const char *label,
		const struct vmt_whysum *w, uint32_t recorded)
{
	uint64_t total = 0, ns;
	double x = BAR_X;
	unsigned int k;
	char b[48];

	for (k = 0; k < VMT_WHY_NKINDS; k++)
		total += w->ticks[k];
	vmt_outbuf_printf(o, "<g class=\"row\" data-total-ns=\"%" PRIu64 "\" data-incomplete=\"%"
			  PRIu64 "\" data-unknown-ns=\"%" PRIu64 "\" data-count=\"%" PRIu64
			  "\" data-reason=\"", vmt_clock_ns(clk, total), w->incomplete,
			  vmt_clock_ns(clk, w->unknown), w->count);
	vmt_svg_esc(o, label);
	vmt_outbuf_str(o, "\"><text class=\"label\" x=\"");
	vmt_svg_num(o, BAR_X - 8);
	vmt_outbuf_str(o, "\" y=\"");
	vmt_svg_num(o, y + 15);
	vmt_outbuf_str(o, "\" text-anchor=\"end\">");
	vmt_svg_esc(o, label);
	vmt_outbuf_str(o, "</text>");
	for (k = 0; total && k < VMT_WHY_NKINDS; k++) {
		double wpx = BAR_W * (double)w->ticks[k] / (double)total;

		if (!(recorded & 1u << k) || !w->ticks[k])
			continue;
		ns = vmt_clock_ns(clk, w->ticks[k]);
		vmt_outbuf_printf(o, "<rect class=\"seg k%u\" data-kind=\"%s\" data-ns=\"%" PRIu64
				  "\" x=\"", k, vmt_why_kind_names[k], ns);
		vmt_svg_num(o, x);
		vmt_outbuf_str(o, "\" y=\"");
		vmt_svg_num(o, y);
		vmt_outbuf_str(o, "\" width=\"");
		vmt_svg_num(o, wpx);
		vmt_outbuf_printf(o, "\" height=\"%g\"><title>%s ", ROW_H - 6,
				  vmt_why_kind_names[k]);
		fmt_ns_text(ns, b, sizeof(b));
		vmt_svg_esc(o, b);
		/* cut as the text's shares are: never above what it is */
		vmt_outbuf_printf(o, " (%.1f%%)",
				  vmt_pct_cut(100.0 * (double)w->ticks[k] / (double)total, 1));
		if (k == VMT_WHY_KVM && w->unknown) {
			fmt_ns_text(vmt_clock_ns(clk, w->unknown), b, sizeof(b));
			vmt_outbuf_str(o, ", of which ");
			vmt_svg_esc(o, b);
			vmt_outbuf_printf(o, " unknown (%" PRIu64 " incomplete)", w->incomplete);
		}
		vmt_outbuf_str(o, "</title></rect>");
		stripes(o, k, x, y, wpx, ROW_H - 6);
		/*
		 * the share written in the bar where it fits, on a patch of the kind's own fill:
		 * over the stripes, a stripe beside a digit read as a minus sign ("-73%")
		 */
		if (wpx >= 34) {
			vmt_outbuf_printf(o, "<rect class=\"chip k%u\" x=\"", k);
			vmt_svg_num(o, x + 1);
			vmt_outbuf_str(o, "\" y=\"");
			vmt_svg_num(o, y + 3);
			vmt_outbuf_printf(o, "\" width=\"30\" height=\"%g\"/>", ROW_H - 12);
			vmt_outbuf_printf(o, "<text class=\"in k%u\" x=\"", k);
			vmt_svg_num(o, x + 3);
			vmt_outbuf_str(o, "\" y=\"");
			vmt_svg_num(o, y + 14);
			vmt_outbuf_printf(o, "\">%.0f%%</text>",
					  vmt_pct_cut(100.0 * (double)w->ticks[k] /
						      (double)total, 0));
		}
		x += wpx;
	}
	fmt_ns_text(vmt_clock_ns(clk, total), b, sizeof(b));
	vmt_outbuf_str(o, "<text class=\"label\" x=\"");
	vmt_svg_num(o, BAR_X + BAR_W + 8);
	vmt_outbuf_str(o, "\" y=\"");
	vmt_svg_num(o, y + 15);
	vmt_outbuf_str(o, "\">");
	vmt_svg_esc(o, b);
	vmt_outbuf_str(o, "</text></g>");
}

static void legend(struct vmt_outbuf *o, double y, uint32_t recorded)
{
	double x = BAR_X;
	unsigned int k;

	for (k = 0; k < VMT_WHY_NKINDS; k++) {
		if (!(recorded & 1u << k))
			continue;
		vmt_outbuf_printf(o, "<rect class=\"k%u\" x=\"", k);
		vmt_svg_num(o, x);
		vmt_outbuf_str(o, "\" y=\"");
		vmt_svg_num(o, y);
		vmt_outbuf_str(o, "\" width=\"12\" height=\"12\" stroke=\"#333\" stroke-width=\".6\"/>");
		stripes(o, k, x, y, 12, 12);
		vmt_outbuf_str(o, "<text class=\"label\" x=\"");
		vmt_svg_num(o, x + 16);
		vmt_outbuf_str(o, "\" y=\"");
		vmt_svg_num(o, y + 10);
		vmt_outbuf_printf(o, "\">%s</text>", vmt_why_kind_names[k]);
		x += 96;
	}
}

static void bars(struct vmt_outbuf *o, const struct vmt_clock *clk, const struct vmt_summary *s,
		 bool kvm)
{
	size_t n = s->nreasons < MAX_ROWS ? s->nreasons : MAX_ROWS, i;
	double h = (double)(n + 1) * ROW_H + 44;
	char label[128];

	vmt_outbuf_printf(o, "<svg id=\"why-bars\" viewBox=\"0 0 960 %.0f\" role=\"img\" "
			  "aria-label=\"%s\">", h, kvm ? "where each exit reason's out-of-guest "
			  "time went" : "where each id's time from begin to end went");
	for (i = 0; i < n; i++) {
		const struct vmt_group *g = &s->reasons[i];

		bar(o, clk, 8 + (double)i * ROW_H, vmt_summary_reason(s, g->isa, g->key, label,
								     sizeof(label)),
		    &g->why, s->why_recorded);
	}
	bar(o, clk, 8 + (double)n * ROW_H, kvm ? "all exits" : "all pairs", &s->why_all,
	    s->why_recorded);
	legend(o, 16 + (double)(n + 1) * ROW_H, s->why_recorded);
	vmt_outbuf_str(o, "</svg>");
	if (s->why_all.unknown) {
		fmt_ns_text(vmt_clock_ns(clk, s->why_all.unknown), label, sizeof(label));
		vmt_outbuf_printf(o, "<p class=\"note\" id=\"why-unknown\" data-unknown-ns=\"%"
				  PRIu64 "\" data-incomplete=\"%" PRIu64 "\">Of kvm, %s is time "
				  "that %" PRIu64 " incomplete %s could not tell (events lost, the "
				  "task moved off the traced CPUs, or an interrupt still open at the "
				  "%s), not the %s.</p>",
				  vmt_clock_ns(clk, s->why_all.unknown), s->why_all.incomplete, label,
				  s->why_all.incomplete, kvm ? "exits" : "pairs", kvm ? "entry" : "end",
				  kvm ? "host kernel's own" : "traced task's own");
	}
}

static void cell(struct vmt_outbuf *o, const char *cls, const char *s)
{
	vmt_outbuf_str(o, cls ? "<td class=\"l\">" : "<td>");
	vmt_svg_esc(o, s);
	vmt_outbuf_str(o, "</td>");
}

static void culprits(struct vmt_outbuf *o, const struct vmt_clock *clk,
		     const struct vmt_summary *s, bool kvm, const struct vmt_vmmap *vms)
{
	const struct vmt_culprit *rows;
	size_t n = vmt_culprits_rows(s->culprits, &rows), i, shown;
	uint64_t other = 0;
	unsigned int vm, vcpu;
	char b[48], name[320];

	/* the words of reportwhy.c's sections; the kinds keep their names ("kvm") for any pair */
	if (!n) {
		vmt_outbuf_printf(o, "<p class=\"note\">Culprits: none, %s.</p>", kvm ?
				  "every exit's time was the host kernel's own (kvm)" :
				  "every pair's time was the traced task's own (kvm)");
		return;
	}
	vmt_outbuf_printf(o, "<h3>Culprits</h3><p class=\"note\">What took the most time from %s: "
			  "the tasks that preempted them, woke them or held their CPU after a "
			  "wake-up, and the interrupts and %s that held them.</p>"
			  "<div class=\"wrap\"><table id=\"culprits\"><thead><tr>"
			  "<th class=\"l\">kind</th><th class=\"l\">name</th><th>pid</th>"
			  "<th>%s</th><th>total</th><th>max</th></tr></thead><tbody>",
			  kvm ? "vCPU tasks" : "the traced tasks",
			  kvm ? "user-space exits" : "returns to user space",
			  kvm ? "exits" : "pairs");
	for (i = 0, shown = 0; i < n && shown < MAX_CULPRITS; i++) {
		const struct vmt_culprit *c = &rows[i];

		/* a kind's "other": parts merged past what an exit names, no one culprit */
		if (c->pid == VMT_WHY_PID_OTHER)
			continue;
		shown++;
		vmt_outbuf_printf(o, "<tr data-kind=\"%s\" data-pid=\"%" PRId32 "\" data-count=\"%"
				  PRIu64 "\" data-total-ns=\"%" PRIu64 "\" data-max-ns=\"%" PRIu64
				  "\">", vmt_why_kind_names[c->kind], c->pid, c->count,
				  vmt_clock_ns(clk, c->total), vmt_clock_ns(clk, c->max));
		cell(o, "l", vmt_why_kind_names[c->kind]);
		/* a vCPU thread of a mapped VM: named as the vCPU tables name it */
		if (vms && c->pid > 0 && vmt_vmmap_lookup(vms, c->pid, &vm, &vcpu) == 0) {
			snprintf(name, sizeof(name), "%s/vcpu%u", vmt_vmmap_name(vms, vm), vcpu);
			cell(o, "l", name);
		} else {
			cell(o, "l", c->name);
		}
		if (c->pid >= 0)
			snprintf(b, sizeof(b), "%" PRId32, c->pid);
		else
			snprintf(b, sizeof(b), "-");
		cell(o, NULL, b);
		snprintf(b, sizeof(b), "%" PRIu64, c->count);
		cell(o, NULL, b);
		fmt_ns_text(vmt_clock_ns(clk, c->total), b, sizeof(b));
		cell(o, NULL, b);
		fmt_ns_text(vmt_clock_ns(clk, c->max), b, sizeof(b));
		cell(o, NULL, b);
		vmt_outbuf_str(o, "</tr>");
	}
	vmt_outbuf_str(o, "</tbody></table></div>");
	for (i = 0; i < n; i++)
		other += rows[i].pid == VMT_WHY_PID_OTHER ? rows[i].total : 0;
	if (other) {
		fmt_ns_text(vmt_clock_ns(clk, other), b, sizeof(b));
		vmt_outbuf_printf(o, "<p class=\"note\" id=\"culprits-other\" data-total-ns=\"%"
				  PRIu64 "\">Not ranked: &ldquo;other&rdquo;, %s, the parts too "
				  "many to name one by one.</p>", vmt_clock_ns(clk, other), b);
	}
	if (vmt_culprits_evicted(s->culprits))
		vmt_outbuf_printf(o, "<p class=\"note\" id=\"culprits-merged\" data-count=\"%"
				  PRIu64 "\">%" PRIu64 " culprits with the least time merged into "
				  "&ldquo;other&rdquo; to bound the table: a total above may be a "
				  "lower bound.</p>", vmt_culprits_evicted(s->culprits),
				  vmt_culprits_evicted(s->culprits));
}

void vmt_html_why(struct vmt_outbuf *o, const struct vmt_clock *clk, const struct vmt_summary *s,
		  bool kvm, const struct vmt_vmmap *vms)
{
	vmt_outbuf_str(o, "<section id=\"causes\"><h2>Where the time went</h2>");
	if (!s->why && s->context_formats) {
		vmt_outbuf_str(o, "<p class=\"note\">Causes: not worked out (--no-causes); the "
			       "recording has the context events to tell them.</p></section>\n");
		return;
	}
	if (!s->why) {
		vmt_outbuf_str(o, "<p class=\"note\">Causes: this recording has no context events "
			       "(scheduler, interrupts, returns to user space), so they cannot be "
			       "told; vmtrace-record records them unless given --context none.</p>"
			       "</section>\n");
		return;
	}
	if (!s->lat.count) {
		vmt_outbuf_printf(o, "<p class=\"note\">No %s.</p></section>\n",
				  kvm ? "exits" : "pairs");
		return;
	}
	if (kvm)
		vmt_outbuf_str(o, "<p class=\"note\">Each exit reason's out-of-guest time split "
			       "into its causes (vmtrace-report(1), CAUSES), as shares of the "
			       "reason's total; the reasons with the most total time first.</p>");
	else
		vmt_outbuf_str(o, "<p class=\"note\">Each id's time from begin to end split into "
			       "its causes (vmtrace-report(1), CAUSES; kvm: the task's own), as "
			       "shares of the id's total; the ids with the most total time "
			       "first.</p>");
	vmt_outbuf_str(o, "<figure class=\"keep\">");
	bars(o, clk, s, kvm);
	vmt_outbuf_str(o, "</figure>");
	culprits(o, clk, s, kvm, vms);
	vmt_outbuf_str(o, "</section>\n");
}
