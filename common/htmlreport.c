// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The HTML page (htmlreport.h). Sections, in order: facts, summary figures, histograms,
 * percentile curves, over time, heatmap, longest exits, worst windows. Readable without
 * colour: bars and cells are outlined or in grey levels, each curve has its own marker and
 * dash pattern and a legend, each line its name. Print CSS lays it out on A4.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "evrender.h"
#include "htmlreport.h"
#include "inputopt.h"
#include "whyfmt.h"
#include "htmlwhy.h"
#include "outfile.h"
#include "svg.h"
#include "timefmt.h"
#include "vmfind.h"

/*
 * The page's words: KVM's, or neutral ones for any other event pair, as the text report
 * (reportfmt.c) and the text series (seriesfmt.c) word them: a begin and its end make a
 * pair, the time between them is the time in pairs, the begin event's id is its reason.
 */
struct html_words {
	const char *pairs;		/* the pairs' name on the summary card */
	const char *one, *many, *Many;	/* one item, several, at a sentence's start */
	const char *out, *out_time;	/* the time between begin and end; in a sentence */
	const char *reason, *reasons;	/* what a histogram panel or a curve is of */
	const char *task, *tasks;	/* the tasks the pairs happen in */
	const char *span;		/* the part of an interval a task was traced in */
};

static const struct html_words kvm_words = {
	"exit-entry pairs", "exit", "exits", "Exits", "out of guest", "out-of-guest time",
	"exit reason", "exit reasons", "vCPU task", "vCPU tasks", "first exit to last entry",
};

static const struct html_words neutral_words = {
	"begin-end pairs", "pair", "pairs", "Pairs", "time in pairs", "time in pairs",
	"id", "ids", "task", "tasks", "first begin to last end",
};

struct page {
	const struct html_words *w;
	struct vmt_outbuf *o;
	const struct vmt_reader *r;
	const struct vmt_clock *clk;
	const struct vmt_summary *s;
	const struct vmt_series *se;
	char why[1024];			/* the cause of the exit being written */
};

static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#111;"
	"background:#fff;margin:0 auto;max-width:1180px;padding:10px 20px 40px}"
	"h1{font-size:21px;margin:8px 0}h2{font-size:16px;margin:26px 0 8px;"
	"border-bottom:1px solid #888}p.note{color:#444;font-size:12.5px;margin:4px 0}"
	"dl#facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));"
	"gap:2px 18px;margin:0}dl#facts div{display:flex;gap:8px}dt{color:#555;min-width:92px}"
	"dd{margin:0;font-weight:600;overflow-wrap:anywhere}"
	".cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(130px,1fr));gap:6px}"
	".card{border:1px solid #bbb;border-radius:4px;padding:4px 8px}.card .v{display:block;"
	"font-size:17px;font-weight:600;font-variant-numeric:tabular-nums}.card .k{font-size:12px;"
	"color:#444}.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));"
	"gap:10px}figure{margin:0}figcaption{font-size:12.5px;color:#333}"
	"svg{width:100%;height:auto;font:11px system-ui,sans-serif;display:block}"
	"svg text{fill:#222}svg .label{font-size:11.5px;fill:#333}svg .title{font-size:12.5px;"
	"font-weight:600}svg .base,svg .tick line{stroke:#333}svg line.grid{stroke:#e3e3e3}"
	".bar{fill:#9db4d6;stroke:#1c3554;stroke-width:.6}.bar.all{fill:#b9b9b9;stroke:#222}"
	".curve{fill:none;stroke-width:1.6}.curve.c0{stroke-width:2.6}.pt{stroke-width:1.2}"
	".line{fill:none;stroke-width:1.3}.line.out{stroke:#1c3554}.line.max{stroke:#a11}"
	".line.p99{stroke:#555;stroke-dasharray:4 3}.area{fill:#c9d6ea;stroke:none}"
	".s1{fill:#e8e8e8}.s2{fill:#d0d0d0}.s3{fill:#b4b4b4}.s4{fill:#969696}.s5{fill:#767676}"
	".s6{fill:#545454}.s7{fill:#333}.s8{fill:#000}"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:13px}"
	"th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}"
	"th{border-bottom:1px solid #666}td.l,th.l{text-align:left}td.f{font:12px monospace;"
	"text-align:left;white-space:normal}.wrap{overflow-x:auto}"
	"#tip{position:fixed;display:none;pointer-events:none;background:#fffbe6;border:1px solid"
	" #333;padding:2px 6px;font:12px monospace;z-index:9}"
	"@media print{@page{size:A4;margin:12mm}body{max-width:none;padding:0;font-size:10pt}"
	".grid{grid-template-columns:1fr 1fr}figure,section>svg,table,#percentiles,#heatmap,"
	".keep{break-inside:avoid}h2,h3{break-after:avoid}#tip{display:none}.wrap{overflow:visible}td.f{font-size:8pt}}";

/*
 * Hover values: a heatmap cell's bin and count, and every line's value at the pointer in
 * the charts over time, read from the data-* attributes the page carries.
 */
static const char script[] =
	"(function(){var tip=document.getElementById('tip');"
	"function f(n){n=+n;return n<1e3?n+' ns':n<1e6?(n/1e3).toPrecision(3)+' us':"
	"n<1e9?(n/1e6).toPrecision(3)+' ms':(n/1e9).toPrecision(4)+' s';}"
	"function lo(r){var e=r>>1;return r<2?r:(r&1)?3*Math.pow(2,e-1):Math.pow(2,e);}"
	"function show(e,t){tip.textContent=t;tip.style.display='block';"
	"tip.style.left=(e.clientX+14)+'px';tip.style.top=(e.clientY+14)+'px';}"
	"function hide(){tip.style.display='none';}"
	"document.addEventListener('mousemove',function(e){var t=e.target,g,h;"
	"if(!t||!t.closest){hide();return;}h=t.closest('#heat');"
	"if(h&&t.hasAttribute('data-n')){var c=+t.getAttribute('data-c'),"
	"w=+h.getAttribute('data-col-ns'),r=+t.getAttribute('data-r');"
	"show(e,f(c*w)+' to '+f((c+1)*w)+', latency '+f(lo(r))+' to '+f(lo(r+1))+': '+"
	"t.getAttribute('data-n')+' '+h.getAttribute('data-what'));return;}g=t.closest('svg.ts');"
	"if(g){var m=g.getScreenCTM();if(!m){hide();return;}var p=g.createSVGPoint();"
	"p.x=e.clientX;p.y=e.clientY;p=p.matrixTransform(m.inverse());"
	"var x0=+g.getAttribute('data-x0'),x1=+g.getAttribute('data-x1'),"
	"n=+g.getAttribute('data-n'),dt=+g.getAttribute('data-dt'),"
	"i=Math.floor((p.x-x0)/(x1-x0)*n);if(i<0||i>=n){hide();return;}"
	"var s=f(i*dt)+' to '+f((i+1)*dt)+':',l=g.querySelectorAll('[data-values]');"
	"for(var k=0;k<l.length;k++){var v=l[k].getAttribute('data-values').split(',')[i];"
	"if(v!=='')s+=' '+l[k].getAttribute('data-name')+' '+f(v);}show(e,s);return;}hide();});"
	"document.documentElement.setAttribute('data-ready','1');})();";

/* The reason curves' markers, dash patterns and colours: told apart without colour. */
static const char *const dashes[VMT_HTML_MAX_REASONS + 1] = {
	"", "6 3", "2 2", "9 3 2 3", "1 3", "12 4", "6 2 2 2 2 2", "3 6", "14 3 3 3",
};
static const char *const colours[VMT_HTML_MAX_REASONS + 1] = {
	"#000", "#1f5fa8", "#b8281d", "#2f7d32", "#6a3d9a", "#8a5a00", "#c2185b", "#00796b",
	"#555",
};

static const double curve_p[] = { 50, 90, 99, 99.9, 99.99, 99.999 };
static const char *const curve_names[] = { "p50", "p90", "p99", "p99.9", "p99.99", "p99.999" };
#define NCURVE (sizeof(curve_p) / sizeof(curve_p[0]))

static void out(struct page *p, const char *s)
{
	vmt_outbuf_str(p->o, s);
}

static void esc(struct page *p, const char *s)
{
	vmt_svg_esc(p->o, s);
}

static void num(struct page *p, double v)
{
	vmt_svg_num(p->o, v);
}

/* name="v" with a leading space. */
static void attr_u64(struct page *p, const char *name, uint64_t v)
{
	vmt_outbuf_ch(p->o, ' ');
	out(p, name);
	out(p, "=\"");
	vmt_outbuf_u64(p->o, v);
	vmt_outbuf_ch(p->o, '"');
}

static void attr_num(struct page *p, const char *name, double v)
{
	vmt_outbuf_ch(p->o, ' ');
	out(p, name);
	out(p, "=\"");
	num(p, v);
	vmt_outbuf_ch(p->o, '"');
}

static void attr_str(struct page *p, const char *name, const char *v)
{
	vmt_outbuf_ch(p->o, ' ');
	out(p, name);
	out(p, "=\"");
	esc(p, v);
	vmt_outbuf_ch(p->o, '"');
}

static void rect(struct page *p, const char *cls, double x, double y, double w, double h)
{
	out(p, "<rect class=\"");
	out(p, cls);
	out(p, "\"");
	attr_num(p, "x", x);
	attr_num(p, "y", y);
	attr_num(p, "width", w);
	attr_num(p, "height", h);
}

static void text(struct page *p, const char *cls, double x, double y, const char *anchor,
		 const char *s)
{
	out(p, "<text");
	if (cls)
		attr_str(p, "class", cls);
	attr_num(p, "x", x);
	attr_num(p, "y", y);
	if (anchor)
		attr_str(p, "text-anchor", anchor);
	vmt_outbuf_ch(p->o, '>');
	esc(p, s);
	out(p, "</text>");
}

static void svg_open(struct page *p, const char *id, const char *cls, unsigned int w,
		     unsigned int h)
{
	out(p, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
	attr_str(p, "id", id);
	attr_str(p, "class", cls);
	vmt_outbuf_printf(p->o, " viewBox=\"0 0 %u %u\" role=\"img\"", w, h);
}

static uint64_t ns(const struct page *p, uint64_t ticks)
{
	return vmt_clock_ns(p->clk, ticks);
}

static uint64_t since_start(const struct page *p, uint64_t ts)
{
	return ns(p, ts > p->s->start_ts ? ts - p->s->start_ts : 0);
}

static const char *fmt_ns(uint64_t v, char *buf, size_t size)
{
	return vmt_format_ns(v, buf, size);
}

/* "1.234567890": seconds with ns digits. */
static const char *fmt_s(uint64_t v, char *buf, size_t size)
{
	snprintf(buf, size, "%" PRIu64 ".%09" PRIu64, v / 1000000000, v % 1000000000);
	return buf;
}

static const char *reason_label(const struct page *p, const struct vmt_group *g, char *buf,
				size_t size)
{
	return vmt_summary_reason(p->s, g->isa, g->key, buf, size);
}

static const char *task_label(const struct page *p, const struct vmt_group *t, char *buf,
			      size_t size)
{
	const struct vmt_vmmap *m = vmt_reader_vmmap(p->r);

	/* a recording made with --vm names its VMs' vCPU threads: "web1/vcpu0 (pid 1234)" */
	if (m && vmt_vmmap_label(m, t->pid, buf, size))
		return buf;
	if (t->has_vcpu)
		snprintf(buf, size, "vCPU %u (pid %" PRId32 ")", t->vcpu, t->pid);
	else if (t->comm[0])	/* the name the context events gave it (summary.h) */
		snprintf(buf, size, "%s (pid %" PRId32 ")", t->comm, t->pid);
	else
		snprintf(buf, size, "pid %" PRId32, t->pid);
	return buf;
}

/* ---- the head and the facts ---- */

static void fact(struct page *p, const char *key, const char *label, const char *value)
{
	out(p, "<div><dt>");
	esc(p, label);
	out(p, "</dt><dd");
	attr_str(p, "data-key", key);
	out(p, ">");
	esc(p, value && value[0] ? value : "unknown");
	out(p, "</dd></div>");
}

static void meta_fact(struct page *p, const char *key, const char *label, const char *meta)
{
	char *v = vmt_reader_meta(p->r, meta);

	fact(p, key, label, v);
	free(v);
}

static void head(struct page *p)
{
	const char *path = vmt_reader_path(p->r), *slash = strrchr(path, '/');

	out(p, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	    "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
	    "<meta name=\"generator\" content=\"" PACKAGE_NAME " " PACKAGE_VERSION "\">"
	    "<title>vmtrace report: ");
	esc(p, slash ? slash + 1 : path);
	/* first of all: an error anywhere shows in the DOM, for tests and for people */
	out(p, "</title><script>window.onerror=function(m){document.documentElement."
	    "setAttribute('data-error',String(m));};</script><style>");
	out(p, css);
	out(p, vmt_html_why_css);
	out(p, "</style></head>\n<body>\n");
}

static void facts(struct page *p)
{
	const struct vmt_summary *s = p->s;
	const struct vmt_source *src = vmt_reader_source(p->r);
	const struct vmt_cpulist *cpus = vmt_reader_cpus(p->r);
	const char *state;
	char a[256], b[64], c[64];
	uint64_t rec = vmt_reader_duration_ns(p->r);

	out(p, "<header><h1>vmtrace report</h1><dl id=\"facts\">");
	fact(p, "file", "File", vmt_reader_path(p->r));
	meta_fact(p, "host", "Host", "hostname");
	meta_fact(p, "kernel", "Kernel", "kernel.release");
	meta_fact(p, "cpu_model", "CPU model", "cpu.model");
	meta_fact(p, "started", "Started", "time.start");
	snprintf(a, sizeof(a), "%s (%s)", vmt_reader_clock_name(p->r), vmt_fmt_unit(p->clk));
	fact(p, "clock", "Clock", a);
	fact(p, "cpus", "Traced CPUs", cpus->n ? vmt_cpulist_format(cpus, a, sizeof(a)) : NULL);
	snprintf(a, sizeof(a), "%s \xe2\x86\x92 %s", vmt_reader_begin_name(p->r),
		 vmt_reader_end_name(p->r));
	fact(p, "events", "Events", a);
	if (rec)
		snprintf(a, sizeof(a), "%s recorded, events span %s", fmt_ns(rec, b, sizeof(b)),
			 fmt_ns(ns(p, s->last_ts - s->first_ts), c, sizeof(c)));
	else
		snprintf(a, sizeof(a), "events span %s",
			 fmt_ns(ns(p, s->last_ts - s->first_ts), c, sizeof(c)));
	fact(p, "duration", "Duration", a);
	/* uncounted losses (damaged data, flagged pages without a count) are losses too */
	snprintf(a, sizeof(a), "%" PRIu64 "%s", s->lost_events,
		 !vmt_summary_lost_exact(s) ? " counted, and an unknown number more (figures may "
		 "be incomplete)" : s->lost_events ? " (figures may be incomplete)" : "");
	fact(p, "lost_events", "Lost events", a);
	if (strcmp(vmt_source_format(src), "vmt") != 0)
		fact(p, "format", "Format", vmt_source_description(src)[0] ?
		     vmt_source_description(src) : vmt_source_format(src));
	state = vmt_source_state(src, vmt_input_damaged(p->r, &s->rd));
	if (state)
		fact(p, "finished", "Recording", strcmp(state, "damaged") ?
		     "not finished: figures cover the complete chunks" :
		     "damaged: figures cover what is whole (the warnings say where)");
	out(p, "</dl></header>\n");
}

/* ---- the summary figures ---- */

static void card(struct page *p, const char *key, uint64_t v, const char *shown,
		 const char *label)
{
	out(p, "<div class=\"card\"");
	attr_str(p, "data-key", key);
	attr_u64(p, "data-v", v);
	out(p, "><span class=\"v\">");
	esc(p, shown);
	out(p, "</span><span class=\"k\">");
	esc(p, label);
	out(p, "</span></div>");
}

static void card_count(struct page *p, const char *key, uint64_t v, const char *label)
{
	char b[32];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	card(p, key, v, b, label);
}

static void card_ns(struct page *p, const char *key, uint64_t v, const char *label)
{
	char b[32];

	card(p, key, v, fmt_ns(v, b, sizeof(b)), label);
}

static void summary(struct page *p)
{
	static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
	static const char *const keys[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
	const struct vmt_summary *s = p->s;
	char label[96], b[32];
	unsigned int k;

	out(p, "<section id=\"summary\"><h2>Summary</h2><div class=\"cards\" id=\"figures\">");
	card_count(p, "events", s->events, "events");
	card_count(p, "pairs", s->pairing.pairs, p->w->pairs);
	if (s->filtered_out)
		card_count(p, "filtered_out", s->filtered_out, "pairs left out by filters");
	if (vmt_summary_lost_exact(s)) {
		card_count(p, "lost_events", s->lost_events, "lost events");
	} else {	/* some went uncounted (damage, no end statistics): never a bare 0 */
		if (s->lost_events)
			snprintf(b, sizeof(b), "at least %" PRIu64, s->lost_events);
		else
			snprintf(b, sizeof(b), "unknown");
		card(p, "lost_events", s->lost_events, b, "lost events, not all counted");
	}
	card_count(p, "orphans", vmt_summary_orphans(s), "orphan events");
	if (s->lat.count) {
		card_ns(p, "min_ns", ns(p, s->lat.min), "minimum");
		card_ns(p, "avg_ns", ns(p, vmt_latstat_avg(&s->lat)), "average");
		for (k = 0; k < 5; k++)
			card_ns(p, keys[k], ns(p, vmt_latdist_percentile(&s->all, pcts[k])),
				keys[k]);
		card_ns(p, "max_ns", ns(p, s->lat.max), "maximum");
		card_ns(p, "stddev_ns", ns(p, (uint64_t)vmt_latdist_stddev(&s->all)), "stddev");
		card_ns(p, "total_ns", ns(p, vmt_latstat_total(&s->lat)), p->w == &kvm_words ?
			"out of guest in all" : "total time in pairs");
		if (s->max_window_pid < 0)	/* no pair took any time */
			snprintf(label, sizeof(label), "worst %s window",
				 fmt_ns(ns(p, s->window), b, sizeof(b)));
		else
			snprintf(label, sizeof(label), "worst %s window (pid %" PRId32 ")",
				 fmt_ns(ns(p, s->window), b, sizeof(b)), s->max_window_pid);
		card_ns(p, "max_window_sum_ns", ns(p, s->max_window_sum), label);
	}
	out(p, "</div></section>\n");
}

/* ---- histograms: four bins per power of two of the trace clock's units ---- */

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
	unsigned int e = b / 4 + 1;

	if (b < 8)
		return b;
	if (b >= DBINS)
		return UINT64_MAX;
	return (uint64_t)(4 + (b & 3)) << (e - 2);
}

/*
 * A distribution's counts per display bin. The log-linear buckets of latstat.h (128 per
 * power of two) each fall inside one bin, so the counts are exact.
 */
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

struct hist_axes {
	struct vmt_scale x, y;
	double y0;			/* where bars start: a count of 0.5 */
};

static void hist_panel(struct page *p, const struct hist_axes *ax, unsigned int idx,
		       const struct vmt_group *g, const char *name, uint64_t *bins)
{
	const struct vmt_latdist *d = g ? &g->d : &p->s->all;
	char id[32], b[64], lo[32], hi[32], title[160], ylabel[32];
	struct vmt_axis a;
	unsigned int i;

	fill_bins(d, bins);
	snprintf(id, sizeof(id), "hist-%u", idx);
	out(p, "<figure>");
	svg_open(p, id, "hist", 380, 206);
	attr_str(p, "data-group", g ? "reason" : "all");
	if (g) {
		attr_u64(p, "data-code", g->key);
		attr_u64(p, "data-isa", g->isa);
	}
	attr_u64(p, "data-count", d->st.count);
	out(p, ">");
	snprintf(title, sizeof(title), "%s: %" PRIu64 " %s", name, d->st.count,
		 d->st.count == 1 ? p->w->one : p->w->many);
	text(p, "title", 60, 14, NULL, title);
	a = (struct vmt_axis){ .scale = &ax->x, .side = VMT_AXIS_BOTTOM, .at = ax->y.r0,
			.grid0 = ax->y.r1, .grid1 = ax->y.r0, .fmt = vmt_svg_fmt_ns,
			.label = "latency (log)" };
	vmt_svg_axis(p->o, &a);
	a.scale = &ax->y;
	a.side = VMT_AXIS_LEFT;
	a.at = ax->x.r0;
	a.grid0 = ax->x.r0;
	a.grid1 = ax->x.r1;
	a.fmt = vmt_svg_fmt_count;
	snprintf(ylabel, sizeof(ylabel), "%s (log)", p->w->many);
	a.label = ylabel;
	vmt_svg_axis(p->o, &a);
	for (i = 0; i < DBINS; i++) {
		uint64_t l, h;
		double x0, x1, y;

		if (!bins[i])
			continue;
		l = ns(p, dbin_low(i));
		h = ns(p, dbin_low(i + 1));
		x0 = vmt_scale_map(&ax->x, (double)l);
		x1 = vmt_scale_map(&ax->x, (double)h);
		y = vmt_scale_map(&ax->y, (double)bins[i]);
		rect(p, g ? "bar" : "bar all", x0, y, x1 - x0 > 0.6 ? x1 - x0 : 0.6, ax->y0 - y);
		attr_u64(p, "data-lo", l);
		attr_u64(p, "data-hi", h);
		attr_u64(p, "data-n", bins[i]);
		snprintf(b, sizeof(b), "%s to %s: %" PRIu64 " %s", fmt_ns(l, lo, sizeof(lo)),
			 fmt_ns(h, hi, sizeof(hi)), bins[i], bins[i] == 1 ? p->w->one : p->w->many);
		out(p, "><title>");
		esc(p, b);
		out(p, "</title></rect>");
	}
	out(p, "</svg></figure>");
}

static void histograms(struct page *p)
{
	const struct vmt_summary *s = p->s;
	size_t i, n = s->nreasons < VMT_HTML_MAX_REASONS ? s->nreasons : VMT_HTML_MAX_REASONS;
	uint64_t *bins = calloc(DBINS, sizeof(*bins)), peak = 1;
	struct hist_axes ax;
	char label[128], all[32];
	double lo, hi;

	snprintf(all, sizeof(all), "all %s", p->w->many);
	out(p, "<section id=\"histograms\"><h2>Latency histograms</h2>");
	if (!bins) {
		p->o->err = p->o->err ? p->o->err : -ENOMEM;
		return;
	}
	if (!s->lat.count) {
		vmt_outbuf_printf(p->o, "<p class=\"note\">No %s.</p></section>\n", p->w->pairs);
		free(bins);
		return;
	}
	/* every panel on the axes of all exits, so they compare at a glance */
	fill_bins(&s->all, bins);
	for (i = 0; i < DBINS; i++)
		peak = bins[i] > peak ? bins[i] : peak;
	lo = (double)ns(p, dbin_low(dbin(s->lat.min)));
	hi = (double)ns(p, dbin_low(dbin(s->lat.max) + 1));
	vmt_scale_init(&ax.x, true, vmt_decade_floor(lo > 1 ? lo : 1), vmt_decade_ceil(hi), 60,
		       356);
	vmt_scale_init(&ax.y, true, 0.5, vmt_decade_ceil((double)peak * 1.01), 166, 24);
	ax.y0 = vmt_scale_map(&ax.y, 0.5);
	vmt_outbuf_printf(p->o, "<p class=\"note\">%s per latency bin (four bins per doubling), "
			  "counts on a log axis; every panel has the same axes. Hover a bar for "
			  "its values.</p><div class=\"grid\">", p->w->Many);
	hist_panel(p, &ax, 0, NULL, all, bins);
	for (i = 0; i < n; i++)
		hist_panel(p, &ax, (unsigned int)i + 1, &s->reasons[i],
			   reason_label(p, &s->reasons[i], label, sizeof(label)), bins);
	out(p, "</div>");
	if (s->nreasons > n)
		vmt_outbuf_printf(p->o, "<p class=\"note\">%zu more %s with less time are in "
				  "the text and JSON reports.</p>", s->nreasons - n, p->w->reasons);
	out(p, "</section>\n");
	free(bins);
}

/* ---- percentile curves ---- */

/* Nine shapes: filled circle, square, triangles, diamond; plus, cross, small square, ring. */
static void marker(struct page *p, unsigned int k, double x, double y)
{
	switch (k % 9) {
	case 0:
	case 8:
		vmt_outbuf_printf(p->o, "M%.1f %.1fa3.5 3.5 0 1 0 7 0a3.5 3.5 0 1 0-7 0", x - 3.5,
				  y);
		break;
	case 1:
		vmt_outbuf_printf(p->o, "M%.1f %.1fh7v7h-7z", x - 3.5, y - 3.5);
		break;
	case 2:
		vmt_outbuf_printf(p->o, "M%.1f %.1fl4.5 7.5h-9z", x, y - 4.5);
		break;
	case 3:
		vmt_outbuf_printf(p->o, "M%.1f %.1fl4.5 4.5-4.5 4.5-4.5-4.5z", x, y - 4.5);
		break;
	case 4:
		vmt_outbuf_printf(p->o, "M%.1f %.1fl4.5-7.5h-9z", x, y + 4.5);
		break;
	case 5:
		vmt_outbuf_printf(p->o, "M%.1f %.1fh9m-4.5-4.5v9", x - 4.5, y);
		break;
	case 6:
		vmt_outbuf_printf(p->o, "M%.1f %.1fl7 7m0-7l-7 7", x - 3.5, y - 3.5);
		break;
	default:
		vmt_outbuf_printf(p->o, "M%.1f %.1fh4v4h-4z", x - 2, y - 2);
		break;
	}
}

/* The markers drawn as lines only (plus, cross, ring) are not filled. */
static const char *marker_fill(unsigned int k)
{
	return k % 9 == 5 || k % 9 == 6 || k % 9 == 8 ? "none" : colours[k];
}

static double nines(double pct)
{
	return -log10(1 - pct / 100);
}

static void curve(struct page *p, const struct vmt_scale *x, const struct vmt_scale *y,
		  unsigned int k, const struct vmt_group *g, const char *name)
{
	const struct vmt_latdist *d = g ? &g->d : &p->s->all;
	char b[160], v[32];
	unsigned int i;
	uint64_t val[NCURVE];

	for (i = 0; i < NCURVE; i++)
		val[i] = ns(p, vmt_latdist_percentile(d, curve_p[i]));
	vmt_outbuf_printf(p->o, "<g class=\"curve-set\" data-group=\"%s\"", g ? "reason" : "all");
	if (g) {
		attr_u64(p, "data-code", g->key);
		attr_u64(p, "data-isa", g->isa);
	}
	attr_str(p, "data-name", name);
	vmt_outbuf_printf(p->o, "><path class=\"curve c%u\" stroke=\"%s\"", k, colours[k]);
	if (dashes[k][0])
		attr_str(p, "stroke-dasharray", dashes[k]);
	out(p, " d=\"");
	for (i = 0; i < NCURVE; i++) {
		vmt_outbuf_ch(p->o, i ? 'L' : 'M');
		num(p, vmt_scale_map(x, nines(curve_p[i])));
		vmt_outbuf_ch(p->o, ' ');
		num(p, vmt_scale_map(y, (double)val[i]));
	}
	out(p, "\"/>");
	for (i = 0; i < NCURVE; i++) {
		vmt_outbuf_printf(p->o, "<path class=\"pt m%u\" fill=\"%s\" stroke=\"%s\"",
				  k % 9, marker_fill(k), colours[k]);
		attr_str(p, "data-p", curve_names[i]);
		attr_u64(p, "data-ns", val[i]);
		out(p, " d=\"");
		marker(p, k, vmt_scale_map(x, nines(curve_p[i])), vmt_scale_map(y, (double)val[i]));
		snprintf(b, sizeof(b), "%s %s: %s", name, curve_names[i],
			 fmt_ns(val[i], v, sizeof(v)));
		out(p, "\"><title>");
		esc(p, b);
		out(p, "</title></path>");
	}
	out(p, "</g>");
	/* the legend: the same marker and dash, and the name */
	{
		double ly = 30 + 19.0 * k;

		vmt_outbuf_printf(p->o, "<g class=\"legend\"><path class=\"curve c%u\" "
				  "stroke=\"%s\" d=\"M724 %.1fh34\"", k, colours[k], ly);
		if (dashes[k][0])
			attr_str(p, "stroke-dasharray", dashes[k]);
		vmt_outbuf_printf(p->o, "/><path class=\"pt\" fill=\"%s\" stroke=\"%s\" d=\"",
				  marker_fill(k), colours[k]);
		marker(p, k, 741, ly);
		out(p, "\"/>");
		text(p, NULL, 766, ly + 4, NULL, name);
		out(p, "</g>");
	}
}

static void percentiles(struct page *p)
{
	const struct vmt_summary *s = p->s;
	size_t i, n = s->nreasons < VMT_HTML_MAX_REASONS ? s->nreasons : VMT_HTML_MAX_REASONS;
	double ticks[NCURVE], lo, hi;
	struct vmt_scale x, y;
	struct vmt_axis a;
	char label[128], all[32];

	if (!s->lat.count)
		return;
	snprintf(all, sizeof(all), "all %s", p->w->many);
	/* the range: the lowest median to the highest maximum */
	lo = (double)ns(p, vmt_latdist_percentile(&s->all, 50));
	hi = (double)ns(p, s->lat.max);
	for (i = 0; i < n; i++) {
		double m = (double)ns(p, vmt_latdist_percentile(&s->reasons[i].d, 50));

		lo = m < lo ? m : lo;
	}
	for (i = 0; i < NCURVE; i++)
		ticks[i] = nines(curve_p[i]);
	vmt_scale_init(&x, false, nines(50) - 0.15, nines(99.999) + 0.15, 72, 700);
	vmt_scale_init(&y, true, vmt_decade_floor(lo > 1 ? lo : 1), vmt_decade_ceil(hi), 270, 16);
	vmt_outbuf_printf(p->o, "<section id=\"percentiles\"><h2>Percentiles</h2><p class=\"note\">"
			  "Latency at each percentile (nearest rank), per %s; the axis counts "
			  "nines, so the tail gets room. Each %s has its own marker and dash "
			  "pattern.</p>", p->w->reason, p->w == &kvm_words ? "reason" : "id");
	svg_open(p, "pct", "pct wide", 960, 310);
	out(p, ">");
	a = (struct vmt_axis){ .scale = &x, .side = VMT_AXIS_BOTTOM, .at = 270, .grid0 = 16,
			.grid1 = 270, .ticks = ticks, .tick_labels = curve_names,
			.ntick_given = NCURVE, .label = "percentile" };
	vmt_svg_axis(p->o, &a);
	a = (struct vmt_axis){ .scale = &y, .side = VMT_AXIS_LEFT, .at = 72, .grid0 = 72,
			.grid1 = 700, .fmt = vmt_svg_fmt_ns, .label = "latency (log)" };
	vmt_svg_axis(p->o, &a);
	curve(p, &x, &y, 0, NULL, all);
	for (i = 0; i < n; i++)
		curve(p, &x, &y, (unsigned int)i + 1, &s->reasons[i],
		      reason_label(p, &s->reasons[i], label, sizeof(label)));
	out(p, "</svg></section>\n");
}

/* ---- over time, per vCPU task ---- */

/* One plotted point: k intervals merged (sums, maxima; p99 only unmerged). */
struct tpoint {
	uint64_t exits, out_ns, max_ns, p99_ns, span_ns;
};

/* The series' column of the task with this pid (rows go interval by interval). */
static long series_column(const struct vmt_series *se, int32_t pid)
{
	size_t j;

	for (j = 0; j < se->ntasks && j < se->nrows; j++) {
		if (se->rows[j].pid == pid)
			return (long)j;
	}
	return -1;
}

static void values(struct page *p, const char *cls, const char *name, const struct tpoint *pt,
		   size_t n, unsigned int what)
{
	size_t i;

	vmt_outbuf_printf(p->o, "<path class=\"line %s\" data-name=\"%s\" data-values=\"", cls,
			  name);
	for (i = 0; i < n; i++) {
		if (i)
			vmt_outbuf_ch(p->o, ',');
		if (what == 0 && pt[i].span_ns)	/* none where the task was not traced */
			vmt_outbuf_u64(p->o, pt[i].out_ns);
		else if (what && pt[i].exits)
			vmt_outbuf_u64(p->o, what == 1 ? pt[i].max_ns : pt[i].p99_ns);
	}
	out(p, "\" d=\"");
}

static void task_chart(struct page *p, unsigned int idx, const struct vmt_group *t, long col,
		       struct tpoint *pt)
{
	const struct vmt_series *se = p->se;
	uint64_t n = se->nintervals, k = (n + VMT_HTML_MAX_POINTS - 1) / VMT_HTML_MAX_POINTS;
	size_t m = (size_t)((n + k - 1) / k), i;
	double pmax = 0, lmin = 0, lmax = 0, dx, xi;
	struct vmt_scale x, yo, yl;
	struct vmt_axis a;
	char id[32], label[96], cap[256], b[32];
	unsigned int what;
	bool pen;

	memset(pt, 0, m * sizeof(*pt));
	for (i = 0; i < n; i++) {
		const struct vmt_series_row *r = &se->rows[i * se->ntasks + (size_t)col];
		struct tpoint *q = &pt[i / k];

		q->exits += r->exits;
		q->out_ns += r->out_ns;
		q->span_ns += r->seen_ns;
		if (r->exits && r->max_ns > q->max_ns)
			q->max_ns = r->max_ns;
		q->p99_ns = k == 1 ? r->p99_ns : 0;
	}
	for (i = 0; i < m; i++) {
		double pc = pt[i].span_ns ? 100.0 * (double)pt[i].out_ns / (double)pt[i].span_ns : 0;
		double lo = (double)(k == 1 ? pt[i].p99_ns : pt[i].max_ns);

		pmax = pc > pmax ? pc : pmax;
		if (pt[i].exits && (lmin == 0 || lo < lmin))
			lmin = lo;
		if ((double)pt[i].max_ns > lmax)
			lmax = (double)pt[i].max_ns;
	}
	pmax = pmax > 0 ? ceil(pmax / vmt_nice_step(pmax, 4)) * vmt_nice_step(pmax, 4) : 1;
	/* an exit longer than its interval can take the share over 100 %: drawn as it is */
	vmt_scale_init(&x, false, 0, (double)(m * k * se->interval_ns), 72, 940);
	vmt_scale_init(&yo, false, 0, pmax, 126, 38);
	vmt_scale_init(&yl, true, vmt_decade_floor(lmin > 1 ? lmin : 1),
		       vmt_decade_ceil(lmax > 1 ? lmax : 10), 254, 154);
	snprintf(id, sizeof(id), "ts-%u", idx);
	snprintf(cap, sizeof(cap), "%s: %s per %s (%% of the time), longest %s%s",
		 task_label(p, t, label, sizeof(label)), p->w->out,
		 fmt_ns(k * se->interval_ns, b, sizeof(b)), p->w->one,
		 k == 1 ? " and p99 (dashed)" : "");
	out(p, "<figure>");
	svg_open(p, id, "ts wide", 960, 286);
	attr_u64(p, "data-pid", (uint64_t)(int64_t)t->pid);
	if (t->has_vcpu)
		attr_u64(p, "data-vcpu", t->vcpu);
	attr_u64(p, "data-dt", k * se->interval_ns);
	attr_u64(p, "data-merged", k);
	attr_u64(p, "data-n", m);
	attr_num(p, "data-x0", x.r0);
	attr_num(p, "data-x1", vmt_scale_map(&x, (double)(m * k * se->interval_ns)));
	out(p, ">");
	text(p, "title", 72, 13, NULL, cap);
	a = (struct vmt_axis){ .scale = &x, .side = VMT_AXIS_BOTTOM, .at = 254, .grid0 = 38,
			.grid1 = 254, .nticks = 10, .fmt = vmt_svg_fmt_s,
			.label = "seconds since the start" };
	vmt_svg_axis(p->o, &a);
	a = (struct vmt_axis){ .scale = &yo, .side = VMT_AXIS_LEFT, .at = 72, .grid0 = 72,
			.grid1 = 940, .nticks = 4, .fmt = vmt_svg_fmt_plain, .label = "out %" };
	vmt_svg_axis(p->o, &a);
	a.scale = &yl;
	a.fmt = vmt_svg_fmt_ns;
	a.label = "latency";
	vmt_svg_axis(p->o, &a);
	dx = (vmt_scale_map(&x, (double)(k * se->interval_ns)) - x.r0);
	/*
	 * out of guest (in pairs): a step line, one step per point, and none where the task
	 * was not traced (before its first exit, after its last entry): no share there, and
	 * a 0 % would read as all the time in the guest
	 */
	values(p, "out", "out", pt, m, 0);
	for (i = 0, pen = false; i < m; i++) {
		if (!pt[i].span_ns) {
			pen = false;
			continue;
		}
		xi = x.r0 + dx * (double)i;
		vmt_outbuf_ch(p->o, pen ? 'L' : 'M');
		num(p, xi);
		vmt_outbuf_ch(p->o, ' ');
		num(p, vmt_scale_map(&yo, 100.0 * (double)pt[i].out_ns / (double)pt[i].span_ns));
		vmt_outbuf_ch(p->o, 'H');
		num(p, xi + dx);
		pen = true;
	}
	out(p, "\"/>");
	/* the longest exit, then p99: broken where an interval had no exit */
	for (what = 1; what <= (k == 1 ? 2u : 1u); what++) {
		values(p, what == 1 ? "max" : "p99", what == 1 ? "max" : "p99", pt, m, what);
		pen = false;
		for (i = 0; i < m; i++) {
			if (!pt[i].exits) {
				pen = false;
				continue;
			}
			vmt_outbuf_ch(p->o, pen ? 'L' : 'M');
			num(p, x.r0 + dx * ((double)i + 0.5));
			vmt_outbuf_ch(p->o, ' ');
			num(p, vmt_scale_map(&yl, (double)(what == 1 ? pt[i].max_ns :
							   pt[i].p99_ns)));
			pen = true;
		}
		out(p, "\"/>");
	}
	/* each panel's legend above its top edge, where no line can run */
	text(p, "label", 940, 33, "end", p->w->out);
	text(p, "label", 940, 149, "end", k == 1 ? "max (solid), p99 (dashed)" : "max");
	out(p, "</svg></figure>");
}

static void over_time(struct page *p)
{
	const struct vmt_summary *s = p->s;
	const struct vmt_series *se = p->se;
	size_t i, n = s->ntasks < VMT_HTML_MAX_TASKS ? s->ntasks : VMT_HTML_MAX_TASKS;
	struct tpoint *pt;
	char b[32], b2[32];

	out(p, "<section id=\"over-time\"><h2>Over time</h2>");
	if (!se || !se->nintervals || !n) {
		vmt_outbuf_printf(p->o, "<p class=\"note\">No %s.</p></section>\n", p->w->many);
		return;
	}
	pt = calloc(VMT_HTML_MAX_POINTS + 1, sizeof(*pt));
	if (!pt) {
		p->o->err = p->o->err ? p->o->err : -ENOMEM;
		return;
	}
	vmt_outbuf_printf(p->o, "<p class=\"note\">Per %s (most %s first), intervals of %s from "
			  "the recording's start (--interval): the %s inside each interval (a "
			  "long %s split at the edges), in per cent of the time the task was "
			  "traced in it (%s); the longest %s and p99 of those that start in it. "
			  "Hover for values.</p>", p->w->task, p->w->many,
			  fmt_ns(se->interval_ns, b, sizeof(b)),
			  p->w == &kvm_words ? "time out of the guest" : "time in pairs",
			  p->w == &kvm_words ? "exit's" : "pair's", p->w->span, p->w->one);
	/* the interval was coarsened for the rows' bound (series.h): say from what, and why */
	if (se->asked_ns)
		vmt_outbuf_printf(p->o, "<p class=\"note\" id=\"interval-note\">The interval is "
				  "%s, not the %s the recording's span asks for: a series holds "
				  "%u rows, one per interval and %s, and %zu %s need more at that."
				  "</p>", fmt_ns(se->interval_ns, b, sizeof(b)),
				  fmt_ns(se->asked_ns, b2, sizeof(b2)), VMT_SERIES_MAX_ROWS,
				  p->w->task, se->ntasks, p->w->tasks);
	for (i = 0; i < n; i++) {
		long col = series_column(se, s->tasks[i].pid);

		if (col >= 0)
			task_chart(p, (unsigned int)i, &s->tasks[i], col, pt);
	}
	if (s->ntasks > n)
		vmt_outbuf_printf(p->o, "<p class=\"note\">%zu more %s are in the JSON "
				  "series (--interval).</p>", s->ntasks - n, p->w->tasks);
	out(p, "</section>\n");
	free(pt);
}

/* ---- the heatmap ---- */

static void heat_legend(struct page *p, uint64_t peak)
{
	unsigned int l;
	char b[32];

	text(p, "label", 864, 22, NULL, p->w->many);
	for (l = 1; l <= 8; l++) {
		/* level l holds counts up to peak^(l/8) */
		double top = pow((double)peak, l / 8.0);
		char cls[8];

		snprintf(cls, sizeof(cls), "s%u", l);
		rect(p, cls, 864, 12 + 22.0 * l, 16, 16);
		out(p, " stroke=\"#888\" stroke-width=\".5\"/>");
		text(p, NULL, 886, 24 + 22.0 * l, NULL,
		     vmt_svg_fmt_count(floor(top), b, sizeof(b)));
	}
	text(p, "label", 864, 214, NULL, "(at most)");
}

static unsigned int heat_level(uint64_t n, uint64_t peak)
{
	unsigned int l;

	if (peak <= 1)
		return 8;
	l = (unsigned int)ceil(8 * log((double)n) / log((double)peak) - 1e-9);
	return l < 1 ? 1 : l > 8 ? 8 : l;
}

static void heatmap(struct page *p)
{
	const struct vmt_series *se = p->se;
	uint32_t f, ncol, c, r, rmin = VMT_SERIES_HEAT_ROWS, rmax = 0, j;
	uint64_t *grid, peak = 0, col_ns, span, lo_ns;
	struct vmt_scale x, y;
	struct vmt_axis a;
	char b[32];

	if (!se || !se->heat || !se->heat_cols)
		return;
	f = (se->heat_cols + VMT_HTML_MAX_HEAT_COLS - 1) / VMT_HTML_MAX_HEAT_COLS;
	ncol = (se->heat_cols + f - 1) / f;
	col_ns = se->heat_col_ns * f;
	grid = calloc((size_t)ncol * VMT_SERIES_HEAT_ROWS, sizeof(*grid));
	if (!grid) {
		p->o->err = p->o->err ? p->o->err : -ENOMEM;
		return;
	}
	for (c = 0; c < se->heat_cols; c++) {
		for (r = 0; r < VMT_SERIES_HEAT_ROWS; r++) {
			uint64_t n = se->heat[(size_t)c * VMT_SERIES_HEAT_ROWS + r];

			if (!n)
				continue;
			grid[(size_t)(c / f) * VMT_SERIES_HEAT_ROWS + r] += n;
			rmin = r < rmin ? r : rmin;
			rmax = r > rmax ? r : rmax;
		}
	}
	for (j = 0; j < ncol * VMT_SERIES_HEAT_ROWS; j++)
		peak = grid[j] > peak ? grid[j] : peak;
	span = se->nintervals * se->interval_ns;
	vmt_scale_init(&x, false, 0, (double)span, 72, 840);
	lo_ns = vmt_series_heat_low_ns(rmin);
	vmt_scale_init(&y, true, (double)(lo_ns ? lo_ns : 1),
		       (double)vmt_series_heat_low_ns(rmax + 1), 270, 16);
	vmt_outbuf_printf(p->o, "<section id=\"heatmap\"><h2>Latency over time</h2><p class="
			  "\"note\">Every %s, binned: columns of %s, two latency bins per "
			  "doubling; darker is more %s (grey levels on a log scale).</p>",
			  p->w->one, fmt_ns(col_ns, b, sizeof(b)), p->w->many);
	svg_open(p, "heat", "heat wide", 960, 310);
	/* what a cell counts, for the hover script's tip */
	attr_str(p, "data-what", p->w->many);
	attr_u64(p, "data-col-ns", col_ns);
	attr_u64(p, "data-cols", ncol);
	attr_u64(p, "data-peak", peak);
	out(p, ">");
	a = (struct vmt_axis){ .scale = &x, .side = VMT_AXIS_BOTTOM, .at = 270, .grid0 = 16,
			.grid1 = 270, .nticks = 10, .fmt = vmt_svg_fmt_s,
			.label = "seconds since the start" };
	vmt_svg_axis(p->o, &a);
	a = (struct vmt_axis){ .scale = &y, .side = VMT_AXIS_LEFT, .at = 72, .grid0 = 72,
			.grid1 = 840, .fmt = vmt_svg_fmt_ns, .label = "latency (log)" };
	vmt_svg_axis(p->o, &a);
	for (c = 0; c < ncol; c++) {
		double x0 = vmt_scale_map(&x, (double)(c * col_ns));
		double x1 = vmt_scale_map(&x, (double)((c + 1) * col_ns));

		for (r = rmin; r <= rmax; r++) {
			uint64_t n = grid[(size_t)c * VMT_SERIES_HEAT_ROWS + r];
			double y0 = vmt_scale_map(&y, (double)vmt_series_heat_low_ns(r + 1));
			double y1 = vmt_scale_map(&y, (double)vmt_series_heat_low_ns(r));
			char cls[8];

			if (!n)
				continue;
			snprintf(cls, sizeof(cls), "s%u", heat_level(n, peak));
			rect(p, cls, x0, y0, x1 - x0 > 0.5 ? x1 - x0 : 0.5, y1 - y0);
			attr_u64(p, "data-c", c);
			attr_u64(p, "data-r", r);
			attr_u64(p, "data-n", n);
			out(p, "/>");
		}
	}
	heat_legend(p, peak);
	out(p, "</svg></section>\n");
	free(grid);
}

/* ---- tables ---- */

/* Where the exit's time went (whyfmt.h), as its line in the report; NULL: not recorded. */
/* An exit's causes over lat (its latency, or its time open so far) as the text says them. */
static const char *why_text(struct page *p, const struct vmt_why *why, uint64_t lat)
{
	char b[128];
	FILE *m;

	m = fmemopen(p->why, sizeof(p->why), "w");
	if (!m)
		return NULL;
	vmt_why_text_vm(m, p->clk, why, lat, 0, vmt_reader_vmmap(p->r));
	if (vmt_why_before_text(p->clk, why, b, sizeof(b)))
		fprintf(m, "; %s", b);
	fclose(m);
	return p->why;
}

static const char *top_why(struct page *p, const struct vmt_top *t)
{
	return t->has_why ? why_text(p, &t->why, t->lat) : NULL;
}

static void th(struct page *p, const char *cls, const char *s)
{
	out(p, cls ? "<th class=\"l\">" : "<th>");
	esc(p, s);
	out(p, "</th>");
}

static void td(struct page *p, const char *cls, const char *s)
{
	if (cls) {
		out(p, "<td class=\"");
		out(p, cls);
		out(p, "\">");
	} else {
		out(p, "<td>");
	}
	esc(p, s);
	out(p, "</td>");
}

static void longest(struct page *p)
{
	const struct vmt_summary *s = p->s;
	char b[64], label[128];
	bool why = false, kvm = p->w == &kvm_words;
	unsigned int i, f;

	if (!s->ntop)
		return;
	for (i = 0; i < s->ntop; i++)
		why |= top_why(p, &s->top[i]) != NULL;
	/* the section's id stays: a link to it works for any pair */
	vmt_outbuf_printf(p->o, "<section id=\"longest-exits\"><h2>Longest %s</h2><div "
			  "class=\"wrap\"><table id=\"longest\"><thead><tr>", p->w->many);
	th(p, NULL, "time (s)");
	th(p, NULL, "latency");
	th(p, "l", kvm ? "reason" : "id");
	th(p, NULL, "pcpu");
	/* another pair has no vCPU: no column (as the text report leaves it untitled) */
	if (kvm)
		th(p, NULL, "vcpu");
	th(p, NULL, "pid");
	th(p, "l", "fields");
	if (why)
		th(p, "l", "cause");
	out(p, "</tr></thead><tbody>");
	for (i = 0; i < s->ntop; i++) {
		const struct vmt_top *t = &s->top[i];
		const struct vmt_event *e = &t->exit;

		out(p, "<tr");
		attr_u64(p, "data-time-ns", since_start(p, e->ts));
		attr_u64(p, "data-lat-ns", ns(p, t->lat));
		out(p, ">");
		td(p, NULL, fmt_s(since_start(p, e->ts), b, sizeof(b)));
		td(p, NULL, fmt_ns(ns(p, t->lat), b, sizeof(b)));
		td(p, "l", (e->has & VMT_EVF_REASON) ?
		   vmt_summary_reason(s, e->isa, vmt_exitreason_key(e->isa, e->reason), label,
				      sizeof(label)) : "-");
		snprintf(b, sizeof(b), "%u", e->cpu);
		td(p, NULL, b);
		snprintf(b, sizeof(b), (e->has & VMT_EVF_VCPU) ? "%u" : "-", e->vcpu);
		if (kvm)
			td(p, NULL, b);
		snprintf(b, sizeof(b), "%" PRId32, e->pid);
		td(p, NULL, b);
		out(p, "<td class=\"f\">");
		for (f = 0; f < VMT_HF_COUNT; f++) {
			if (!vmt_hexfield_has(e, f))
				continue;
			esc(p, vmt_hexfields[f].name);
			vmt_outbuf_ch(p->o, ' ');
			esc(p, vmt_hex_text(vmt_hexfield_value(e, f), b, sizeof(b)));
			vmt_outbuf_ch(p->o, ' ');
		}
		out(p, "</td>");
		if (why)
			td(p, "f", top_why(p, t) ? top_why(p, t) : "");
		out(p, "</tr>");
	}
	out(p, "</tbody></table></div>");
	if (!why && !p->s->why && p->s->context_formats)
		out(p, "<p class=\"note\">Causes: not worked out (--no-causes).</p>");
	else if (!why)
		vmt_outbuf_printf(p->o, "<p class=\"note\">Causes: not in this report (the "
				  "attribution of long %s needs context events in the recording)."
				  "</p>", kvm ? "exits" : "latencies");
	out(p, "</section>\n");
}

/*
 * The exits still open at the stop, as the text lists them under the orphans' line: the
 * longest three, their time so far up to the last event (a lower bound) and its causes.
 * In no figure of the page; an idle vCPU waits in an open HLT too.
 */
static void open_exits(struct page *p)
{
	const struct vmt_summary *s = p->s;
	bool kvm = p->w == &kvm_words, why = false;
	char b[64], label[128];
	size_t i;

	if (!s->pairing.unfinished)
		return;
	for (i = 0; i < s->nopen && i < VMT_SUMMARY_OPEN_ROWS; i++)
		why |= s->open[i].has_why;
	vmt_outbuf_printf(p->o, "<section id=\"open-at-stop\"><h2>Open at %s</h2><p "
			  "class=\"note\">%" PRIu64 " %s never %s %s, at %s s",
			  vmt_source_status(vmt_reader_source(p->r))->finished ? "the stop" :
			  "the file's end", s->pairing.unfinished, s->pairing.unfinished == 1 ? p->w->one :
			  p->w->many, kvm ? "entered" : "ended",
			  s->open_until_stop ? "before tracing stopped" : "by the last event",
			  fmt_s(since_start(p, s->open_until), b, sizeof(b)));
	if (s->nopen < s->pairing.unfinished)
		vmt_outbuf_printf(p->o, ", %zu of them kept by the filters", s->nopen);
	vmt_outbuf_printf(p->o, ": in no figure, their time runs to that event (a lower bound)%s.%s"
			  "</p>", kvm ? "; an idle vCPU waits in an open HLT too" : "",
			  vmt_source_status(vmt_reader_source(p->r))->finished ? "" : kvm ?
			  " The recording was not finished: their entries may be in what was not "
			  "written." : " The recording was not finished: their ends may be in what "
			  "was not written.");
	if (!s->nopen) {
		out(p, "</section>\n");
		return;
	}
	out(p, "<div class=\"wrap\"><table id=\"open\"><thead><tr>");
	th(p, NULL, "time (s)");
	th(p, NULL, "open");
	th(p, "l", kvm ? "reason" : "id");
	th(p, NULL, "pcpu");
	if (kvm)
		th(p, NULL, "vcpu");
	th(p, NULL, "pid");
	if (why)
		th(p, "l", "so far");
	out(p, "</tr></thead><tbody>");
	for (i = 0; i < s->nopen && i < VMT_SUMMARY_OPEN_ROWS; i++) {
		const struct vmt_open *o = &s->open[i];
		const struct vmt_event *e = &o->exit;

		out(p, "<tr");
		attr_u64(p, "data-time-ns", since_start(p, e->ts));
		attr_u64(p, "data-open-ns", ns(p, o->open));
		out(p, ">");
		td(p, NULL, fmt_s(since_start(p, e->ts), b, sizeof(b)));
		td(p, NULL, fmt_ns(ns(p, o->open), b, sizeof(b)));
		td(p, "l", (e->has & VMT_EVF_REASON) ?
		   vmt_summary_reason(s, e->isa, vmt_exitreason_key(e->isa, e->reason), label,
				      sizeof(label)) : "-");
		snprintf(b, sizeof(b), "%u", e->cpu);
		td(p, NULL, b);
		snprintf(b, sizeof(b), (e->has & VMT_EVF_VCPU) ? "%u" : "-", e->vcpu);
		if (kvm)
			td(p, NULL, b);
		snprintf(b, sizeof(b), "%" PRId32, e->pid);
		td(p, NULL, b);
		if (why)
			/* none for an exit that is itself the last event, as in the text */
			td(p, "f", o->has_why && o->open && why_text(p, &o->why, o->open) ?
				   p->why : "");
		out(p, "</tr>");
	}
	out(p, "</tbody></table></div>");
	if (s->nopen > VMT_SUMMARY_OPEN_ROWS)
		vmt_outbuf_printf(p->o, "<p class=\"note\">and %zu more (--json lists them all: "
				  "open_exits)</p>", s->nopen - VMT_SUMMARY_OPEN_ROWS);
	out(p, "</section>\n");
}

/* Share of the task's time in the guest, as the text report computes it. */
static double in_guest(const struct page *p, const struct vmt_group *t)
{
	(void)p;
	return vmt_summary_in_guest(t);
}

/*
 * The worst window first; among equal ones (windows full of exits, each the window's
 * length) the most time out of the guest in the interval, then the longest exit: the first
 * intervals in time would say nothing.
 */
static int by_window(const void *a, const void *b)
{
	const struct vmt_series_row *x = *(const struct vmt_series_row *const *)a;
	const struct vmt_series_row *y = *(const struct vmt_series_row *const *)b;

	if (x->max_window_ns != y->max_window_ns)
		return x->max_window_ns < y->max_window_ns ? 1 : -1;
	if (x->out_ns != y->out_ns)
		return x->out_ns < y->out_ns ? 1 : -1;
	if (x->max_ns != y->max_ns)
		return x->max_ns < y->max_ns ? 1 : -1;
	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

static void worst_intervals(struct page *p)
{
	const struct vmt_series *se = p->se;
	const struct vmt_series_row *best[10];
	size_t i, j, n = 0;
	bool kvm = p->w == &kvm_words;
	char b[64];

	if (!se || !se->nrows)
		return;
	/* the ten largest, kept sorted by insertion: rows are many, ten are few */
	for (i = 0; i < se->nrows; i++) {
		const struct vmt_series_row *r = &se->rows[i];

		if (!r->exits || (n == 10 && by_window(&r, &best[9]) >= 0))
			continue;
		j = n < 10 ? n++ : 9;
		while (j > 0 && by_window(&r, &best[j - 1]) < 0) {
			best[j] = best[j - 1];
			j--;
		}
		best[j] = r;
	}
	vmt_outbuf_printf(p->o, "<div class=\"keep\"><h3>Intervals with the worst windows</h3>"
			  "<p class=\"note\">An interval's worst window ends where one of the %s "
			  "that start in it ends: it may reach back into the interval before, and "
			  "forward past the interval's end with that %s.</p><table id=\"worst-"
			  "intervals\"><thead><tr><th>interval start (s)</th>%s<th>pid</th>"
			  "<th>worst window</th><th>%s</th><th>%s</th><th>max</th></tr></thead>"
			  "<tbody>", p->w->many, p->w->one, kvm ? "<th>vcpu</th>" : "",
			  p->w->many, p->w->out);
	for (i = 0; i < n; i++) {
		const struct vmt_series_row *r = best[i];

		out(p, "<tr");
		attr_u64(p, "data-start-ns", r->start_ns);
		attr_u64(p, "data-window-ns", r->max_window_ns);
		attr_u64(p, "data-out-ns", r->out_ns);
		attr_u64(p, "data-max-ns", r->max_ns);
		out(p, ">");
		td(p, NULL, fmt_s(r->start_ns, b, sizeof(b)));
		snprintf(b, sizeof(b), r->has_vcpu ? "%u" : "-", r->vcpu);
		if (kvm)
			td(p, NULL, b);
		snprintf(b, sizeof(b), "%" PRId32, r->pid);
		td(p, NULL, b);
		td(p, NULL, fmt_ns(r->max_window_ns, b, sizeof(b)));
		snprintf(b, sizeof(b), "%" PRIu64, r->exits);
		td(p, NULL, b);
		td(p, NULL, fmt_ns(r->out_ns, b, sizeof(b)));
		td(p, NULL, fmt_ns(r->max_ns, b, sizeof(b)));
		out(p, "</tr>");
	}
	out(p, "</tbody></table></div>");
}

static void windows(struct page *p)
{
	const struct vmt_summary *s = p->s;
	bool kvm = p->w == &kvm_words;
	char b[64], label[96];
	size_t i;

	if (!s->ntasks)
		return;
	/* another pair's task has no "in guest" share: no column, as in the text report */
	vmt_outbuf_printf(p->o, "<section id=\"windows\"><h2>Worst windows</h2><p class=\"note\">"
			  "The largest %s inside any sliding %s window, per %s (--window)."
			  "</p><div class=\"wrap\"><table id=\"worst-windows\"><thead><tr>"
			  "<th class=\"l\">task</th><th>worst window</th><th>starts at (s)</th>"
			  "%s<th>%s</th><th>max</th></tr></thead><tbody>", p->w->out_time,
			  fmt_ns(ns(p, s->window), b, sizeof(b)), p->w->task,
			  kvm ? "<th>in guest</th>" : "", p->w->many);
	for (i = 0; i < s->ntasks; i++) {
		const struct vmt_group *t = &s->tasks[i];

		out(p, "<tr");
		attr_u64(p, "data-pid", (uint64_t)(int64_t)t->pid);
		attr_u64(p, "data-window-ns", ns(p, t->max_window_sum));
		out(p, ">");
		td(p, "l", task_label(p, t, label, sizeof(label)));
		td(p, NULL, fmt_ns(ns(p, t->max_window_sum), b, sizeof(b)));
		td(p, NULL, fmt_s(since_start(p, t->max_window_at), b, sizeof(b)));
		if (vmt_summary_in_guest_known(t))
			snprintf(b, sizeof(b), "%.3f %%", vmt_pct_cut(in_guest(p, t), 3));
		else	/* one exit: no time in the guest to measure */
			snprintf(b, sizeof(b), "-");
		if (kvm)
			td(p, NULL, b);
		snprintf(b, sizeof(b), "%" PRIu64, t->d.st.count);
		td(p, NULL, b);
		td(p, NULL, fmt_ns(ns(p, t->d.st.max), b, sizeof(b)));
		out(p, "</tr>");
	}
	out(p, "</tbody></table>");
	worst_intervals(p);
	out(p, "</div></section>\n");
}

void vmt_html_report(struct vmt_outbuf *o, const struct vmt_reader *r,
		     const struct vmt_summary *s, const struct vmt_series *se)
{
	struct page p = { .o = o, .r = r, .clk = vmt_reader_clock(r), .s = s, .se = se,
			  .w = vmt_reader_pairs_kvm(r) ? &kvm_words : &neutral_words };

	head(&p);
	facts(&p);
	summary(&p);
	histograms(&p);
	percentiles(&p);
	over_time(&p);
	heatmap(&p);
	longest(&p);
	open_exits(&p);
	vmt_html_why(o, p.clk, s, p.w == &kvm_words, vmt_reader_vmmap(p.r));
	windows(&p);
	out(&p, "<footer><p class=\"note\">Made by " PACKAGE_NAME " " PACKAGE_VERSION
	    " (vmtrace-report --html). Times count from the recording's start.</p></footer>"
	    "<div id=\"tip\"></div><script>");
	out(&p, script);
	out(&p, "</script>\n</body></html>\n");
}

int vmt_html_write_file(const char *path, const struct vmt_reader *r,
			const struct vmt_summary *s, const struct vmt_series *se, char *note,
			size_t note_size)
{
	struct vmt_outfile *of;
	struct vmt_outbuf o;
	int ret;

	if (strcmp(path, "-") != 0 && vmt_outfile_is_same_file(path, vmt_reader_path(r)) == 1)
		return -EINVAL;
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
	vmt_html_report(&o, r, s, se);
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
