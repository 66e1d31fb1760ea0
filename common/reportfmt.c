// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Renderers of the report (reportfmt.h). Text goes to a FILE, JSON through jsonw.h.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "evrender.h"
#include "jsonw.h"
#include "reportfmt.h"
#include "reportwhy.h"
#include "timefmt.h"

static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
static const char *const pct_names[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))

static void summary_block(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
			  bool with_tasks);

void vmt_report_summary_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	summary_block(f, r, s, true);
}

static void summary_block(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
			  bool with_tasks)
{
	const struct vmt_source *src = vmt_reader_source(r);
	const struct vmt_clock *clk = vmt_reader_clock(r);
	const struct vmt_cpulist *tcpus = vmt_reader_cpus(r);
	const char *format = vmt_source_format(src);
	char a[48], b[48], c[48], cpus[256];
	uint64_t avg = s->lat.count ? s->lat.sum / s->lat.count : 0;
	uint64_t dur = s->last_ts - s->first_ts, rec_ns = vmt_reader_duration_ns(r);
	size_t i, n;

	fprintf(f, "File: %s%s\n", vmt_reader_path(r),
		vmt_source_status(src)->finished ? "" : " (recording not finished)");
	if (strcmp(format, "trace.bin") == 0)
		fprintf(f, "Format: the original vm-trace trace.bin, %s; one CPU, not named\n",
			vmt_source_description(src));
	else if (strcmp(format, "trace.dat") == 0)
		fprintf(f, "Format: %s\n", vmt_source_description(src));
	fprintf(f, "Events: %s -> %s, clock %s (%s)\n", vmt_reader_begin_name(r),
		vmt_reader_end_name(r), vmt_reader_clock_name(r), vmt_fmt_unit(clk));
	fprintf(f, "Traced CPUs: %s\n", tcpus->n ? vmt_cpulist_format(tcpus, cpus, sizeof(cpus)) :
		"unknown");
	if (rec_ns)
		fprintf(f, "Duration: %s recorded, events span %s\n",
			vmt_format_ns(rec_ns, b, sizeof(b)), vmt_fmt_lat(clk, dur, a, sizeof(a)));
	else
		fprintf(f, "Duration: events span %s\n", vmt_fmt_lat(clk, dur, a, sizeof(a)));
	fprintf(f, "Number of VM events = %" PRIu64 "\n", s->events);
	fprintf(f, "Exit-entry pairs = %" PRIu64 "\n", s->pairing.pairs);
	if (s->filtered_out)
		fprintf(f, "Pairs left out by the filters = %" PRIu64 "\n", s->filtered_out);
	if (s->lost_events || s->rd.missed_pages)
		/* every lost exit takes its entry along: half the lost events, at most */
		fprintf(f, "Lost events = %" PRIu64 " (up to %" PRIu64 " exits may be missing; "
			"pairs never span a gap)\n", s->lost_events, (s->lost_events + 1) / 2);
	else
		fprintf(f, "Lost events = 0\n");
	fprintf(f, "Orphan events = %" PRIu64 " (%" PRIu64 " exits without entry, %" PRIu64
		" entries without exit, %" PRIu64 " open at stop)\n", vmt_summary_orphans(s),
		s->pairing.orphan_begins, s->pairing.orphan_ends, s->pairing.unfinished);
	if (s->pairing.gap_dropped)
		fprintf(f, "Pairs dropped at lost-event gaps = %" PRIu64 "\n",
			s->pairing.gap_dropped);
	if (s->pairing.backwards)
		fprintf(f, "Pairs with entry before exit (clock skew) = %" PRIu64 "\n",
			s->pairing.backwards);
	if (!s->lat.count) {
		fprintf(f, "No exit-entry pairs: no latency figures\n");
		return;
	}
	fprintf(f, "Minimum VM Exit-Entry latency = %s\n", vmt_fmt_lat(clk, s->lat.min, a, sizeof(a)));
	fprintf(f, "Average VM Exit-Entry latency = %s\n", vmt_fmt_lat(clk, avg, a, sizeof(a)));
	fprintf(f, "Maximum VM Exit-Entry latency = %s\n", vmt_fmt_lat(clk, s->lat.max, a, sizeof(a)));
	fprintf(f, "Maximum cumulative latency within %s = %s (task %" PRId32
		", window starting at +%s)\n", vmt_format_ns(vmt_clock_ns(clk, s->window), b,
							     sizeof(b)),
		vmt_fmt_lat(clk, s->max_window_sum, a, sizeof(a)), s->max_window_pid,
		vmt_fmt_lat(clk, s->max_window_at > s->start_ts ? s->max_window_at - s->start_ts : 0, c,
			sizeof(c)));
	n = s->ntasks < 10 ? s->ntasks : 10;
	if (!n || !with_tasks)
		return;
	fprintf(f, "Tasks (most pairs first%s):\n", s->ntasks > n ? ", top 10" : "");
	fprintf(f, "  %8s %6s %12s %12s %12s %12s\n", "pid", "vcpu", "pairs", "avg", "max",
		"max/window");
	for (i = 0; i < n; i++) {
		const struct vmt_group *t = &s->tasks[i];
		char v[16], c1[48], c2[48];

		snprintf(v, sizeof(v), t->has_vcpu ? "%u" : "-", t->vcpu);
		fprintf(f, "  %8" PRId32 " %6s %12" PRIu64 " %12s %12s %12s\n", t->pid, v,
			t->d.st.count, vmt_fmt_lat(clk, t->d.st.sum / t->d.st.count, a, sizeof(a)),
			vmt_fmt_lat(clk, t->d.st.max, c1, sizeof(c1)),
			vmt_fmt_lat(clk, t->max_window_sum, c2, sizeof(c2)));
	}
}

/* One table row: count, shares, total, min, avg, stddev, percentiles, max. */
static void group_row(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
		      const char *label, const struct vmt_group *g)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	const struct vmt_latdist *d = &g->d;
	char b[16][32];
	unsigned int k;

	fprintf(f, "  %-30s %10" PRIu64 " %6.2f %10s %6.2f %9s %9s %9s", label, d->st.count,
		s->lat.count ? 100.0 * (double)d->st.count / (double)s->lat.count : 0.0,
		vmt_fmt_lat(clk, d->st.sum, b[0], sizeof(b[0])),
		s->lat.sum ? 100.0 * (double)d->st.sum / (double)s->lat.sum : 0.0,
		vmt_fmt_lat(clk, d->st.min, b[1], sizeof(b[1])),
		vmt_fmt_lat(clk, d->st.sum / (d->st.count ? d->st.count : 1), b[2], sizeof(b[2])),
		vmt_fmt_lat(clk, (uint64_t)vmt_latdist_stddev(d), b[3], sizeof(b[3])));
	for (k = 0; k < NPCT; k++)
		fprintf(f, " %9s", vmt_fmt_lat(clk, vmt_latdist_percentile(d, pcts[k]), b[4 + k],
					   sizeof(b[4 + k])));
	fprintf(f, " %9s\n", vmt_fmt_lat(clk, d->st.max, b[10], sizeof(b[10])));
}

static void group_header(FILE *f, const char *what)
{
	unsigned int k;

	fprintf(f, "  %-30s %10s %6s %10s %6s %9s %9s %9s", what, "count", "count%", "total",
		"time%", "min", "avg", "stddev");
	for (k = 0; k < NPCT; k++)
		fprintf(f, " %9s", pct_names[k]);
	fprintf(f, " %9s\n", "max");
}

/* Share of the task's time spent in the guest over the recording. */
static double availability(const struct vmt_reader *r, const struct vmt_summary *s,
			   const struct vmt_group *g)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	uint64_t span = vmt_reader_duration_ns(r);

	if (!span)
		span = vmt_clock_ns(clk, s->last_ts - s->first_ts);
	if (!span)
		return 100.0;
	return 100.0 * (1.0 - (double)vmt_clock_ns(clk, g->d.st.sum) / (double)span);
}

void vmt_report_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	char a[48], label[128];
	size_t i;
	unsigned int k;
	char *kernel = vmt_reader_meta(r, "kernel.release");
	char *host = vmt_reader_meta(r, "hostname");
	char *start = vmt_reader_meta(r, "time.start");

	if (kernel || host || start)
		fprintf(f, "Recorded on %s (Linux %s)%s%s\n", host ? host : "?",
			kernel ? kernel : "?", start ? ", started " : "", start ? start : "");
	free(kernel);
	free(host);
	free(start);
	summary_block(f, r, s, false);
	if (!s->lat.count)
		return;
	fprintf(f, "Percentiles:");
	for (k = 0; k < NPCT; k++)
		fprintf(f, " %s %s", pct_names[k],
			vmt_fmt_lat(clk, vmt_latdist_percentile(&s->all, pcts[k]), a, sizeof(a)));
	fprintf(f, "; stddev %s\n", vmt_fmt_lat(clk, (uint64_t)vmt_latdist_stddev(&s->all), a,
					     sizeof(a)));
	if (s->ntasks) {
		double sum = 0, worst = 100.0;

		for (i = 0; i < s->ntasks; i++) {
			double av = availability(r, s, &s->tasks[i]);

			sum += av;
			if (av < worst)
				worst = av;
		}
		fprintf(f, "Guest availability: %.3f %% of the time in guest on average over %zu "
			"vCPU task(s), %.3f %% at worst\n", sum / (double)s->ntasks, s->ntasks, worst);
	}
	if (s->nreasons) {
		fprintf(f, "\nExit reasons (most total time first; names from %s):\n",
			vmt_exitreasons_from_recording(s->names) ? "the recording's format" :
			"the built-in table");
		group_header(f, "reason");
		for (i = 0; i < s->nreasons; i++)
			group_row(f, r, s, vmt_summary_reason(s, s->reasons[i].isa,
							      s->reasons[i].key, label,
							      sizeof(label)), &s->reasons[i]);
	}
	if (s->ncpus) {
		fprintf(f, "\nPer pCPU (of the exit):\n");
		group_header(f, "cpu");
		for (i = 0; i < s->ncpus; i++) {
			snprintf(label, sizeof(label), "%" PRIu64, s->cpus[i].key);
			group_row(f, r, s, label, &s->cpus[i]);
		}
	}
	if (s->ntasks) {
		fprintf(f, "\nPer vCPU task:\n");
		group_header(f, "vcpu (pid)");
		for (i = 0; i < s->ntasks; i++) {
			const struct vmt_group *t = &s->tasks[i];

			if (t->has_vcpu)
				snprintf(label, sizeof(label), "%u (%" PRId32 ")", t->vcpu, t->pid);
			else
				snprintf(label, sizeof(label), "- (%" PRId32 ")", t->pid);
			group_row(f, r, s, label, t);
		}
		fprintf(f, "  %-30s %14s %10s %22s\n", "vcpu (pid)", "in guest",
			"max/window", "window starts at");
		for (i = 0; i < s->ntasks; i++) {
			const struct vmt_group *t = &s->tasks[i];
			char ts[32];

			if (t->has_vcpu)
				snprintf(label, sizeof(label), "%u (%" PRId32 ")", t->vcpu, t->pid);
			else
				snprintf(label, sizeof(label), "- (%" PRId32 ")", t->pid);
			fprintf(f, "  %-30s %13.3f%% %10s %22s\n", label, availability(r, s, t),
				vmt_fmt_lat(clk, t->max_window_sum, a, sizeof(a)),
				vmt_fmt_time(clk, s->start_ts, t->max_window_at, ts, sizeof(ts)));
		}
	}
	vmt_report_why_text(f, r, s);
	if (s->ntop) {
		fprintf(f, "\nLongest exits:\n");
		vmt_report_exit_header(f);
		for (i = 0; i < s->ntop; i++)
			vmt_report_exit_row(f, r, s, &s->top[i].exit, s->top[i].lat,
					    s->top[i].has_why ? &s->top[i].why : NULL);
	}
}

void vmt_report_exit_header(FILE *f)
{
	fprintf(f, "  %14s %4s %5s %8s %-28s %10s  %s\n", "time (s)", "pcpu", "vcpu", "pid",
		"reason", "latency", "fields");
}

void vmt_report_exit_row(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
			 const struct vmt_event *e, uint64_t lat, const struct vmt_why *why)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	char v[16], ts[32], l[32], label[128];

	snprintf(v, sizeof(v), (e->has & VMT_EVF_VCPU) ? "%u" : "-", e->vcpu);
	fprintf(f, "  %14s %4u %5s %8" PRId32 " %-28s %10s",
		vmt_fmt_time(clk, s->start_ts, e->ts, ts, sizeof(ts)), e->cpu, v, e->pid,
		(e->has & VMT_EVF_REASON) ?
		vmt_summary_reason(s, e->isa, vmt_exitreason_key(e->isa, e->reason), label,
				   sizeof(label)) : "-",
		vmt_fmt_lat(clk, lat, l, sizeof(l)));
	if (e->has & (VMT_EVF_RIP | VMT_EVF_INFO1 | VMT_EVF_INFO2 | VMT_EVF_INTR_INFO |
		      VMT_EVF_ERROR_CODE))
		fputc(' ', f);
	vmt_hexfields_text(f, e);
	fputc('\n', f);
	vmt_report_why_line(f, r, why, lat);
}

static void json_dist(struct vmt_jsonw *w, const struct vmt_clock *clk,
		      const struct vmt_latdist *d)
{
	unsigned int k;

	vmt_jsonw_u64(w, "count", d->st.count);
	vmt_jsonw_u64(w, "total_ns", vmt_clock_ns(clk, d->st.sum));
	if (!d->st.count) {
		vmt_jsonw_null(w, "min_ns");
		vmt_jsonw_null(w, "avg_ns");
		vmt_jsonw_null(w, "max_ns");
		vmt_jsonw_null(w, "stddev_ns");
		vmt_jsonw_null(w, "percentiles_ns");
		return;
	}
	vmt_jsonw_u64(w, "min_ns", vmt_clock_ns(clk, d->st.min));
	vmt_jsonw_u64(w, "avg_ns", vmt_clock_ns(clk, d->st.sum / d->st.count));
	vmt_jsonw_u64(w, "max_ns", vmt_clock_ns(clk, d->st.max));
	vmt_jsonw_u64(w, "stddev_ns", vmt_clock_ns(clk, (uint64_t)vmt_latdist_stddev(d)));
	vmt_jsonw_u64(w, "p99_ns", vmt_clock_ns(clk, vmt_latdist_percentile(d, 99)));
	vmt_jsonw_object_open(w, "percentiles_ns");
	for (k = 0; k < NPCT; k++)
		vmt_jsonw_u64(w, pct_names[k], vmt_clock_ns(clk, vmt_latdist_percentile(d, pcts[k])));
	vmt_jsonw_object_close(w);
}

/* Time since the recording's start, in ns. */
static uint64_t since_start(const struct vmt_clock *clk, const struct vmt_summary *s,
			    uint64_t ts)
{
	return vmt_clock_ns(clk, ts > s->start_ts ? ts - s->start_ts : 0);
}

static void json_header(struct vmt_jsonw *w, const struct vmt_reader *r,
			const struct vmt_summary *s)
{
	const struct vmt_source *src = vmt_reader_source(r);
	const struct vmt_clock *clk = vmt_reader_clock(r);
	const struct vmt_cpulist *cpus = vmt_reader_cpus(r);
	const char *desc = vmt_source_description(src);
	unsigned int k;

	vmt_jsonw_str(w, "file", vmt_reader_path(r));
	vmt_jsonw_bool(w, "finished", vmt_source_status(src)->finished);
	vmt_jsonw_bool(w, "legacy", strcmp(vmt_source_format(src), "trace.bin") == 0);
	vmt_jsonw_str(w, "format_source", desc[0] ? desc : "recording");
	vmt_jsonw_str(w, "begin_event", vmt_reader_begin_name(r));
	vmt_jsonw_str(w, "end_event", vmt_reader_end_name(r));
	vmt_jsonw_str(w, "clock", vmt_reader_clock_name(r));
	vmt_jsonw_str(w, "unit", vmt_fmt_unit(clk));
	vmt_jsonw_array_open(w, "cpus");
	for (k = 0; k < cpus->n; k++)
		vmt_jsonw_u64(w, NULL, cpus->cpu[k]);
	vmt_jsonw_array_close(w);
	vmt_jsonw_u64(w, "duration_ns", vmt_reader_duration_ns(r));
	vmt_jsonw_u64(w, "span_ns", vmt_clock_ns(clk, s->last_ts - s->first_ts));
}

static void json_counts(struct vmt_jsonw *w, const struct vmt_summary *s)
{
	vmt_jsonw_u64(w, "events", s->events);
	vmt_jsonw_u64(w, "pairs", s->pairing.pairs);
	vmt_jsonw_u64(w, "filtered_out", s->filtered_out);
	vmt_jsonw_u64(w, "lost_events", s->lost_events);
	vmt_jsonw_opt_u64(w, "lost_events_stats", s->lost_stats_known, s->lost_stats);
	vmt_jsonw_u64(w, "lost_events_pages", s->rd.missed_events);
	vmt_jsonw_u64(w, "missed_pages", s->rd.missed_pages);
	vmt_jsonw_u64(w, "exits_maybe_missing", (s->lost_events + 1) / 2);
	vmt_jsonw_u64(w, "orphans", vmt_summary_orphans(s));
	vmt_jsonw_u64(w, "orphan_exits", s->pairing.orphan_begins);
	vmt_jsonw_u64(w, "orphan_entries", s->pairing.orphan_ends);
	vmt_jsonw_u64(w, "open_at_stop", s->pairing.unfinished);
	vmt_jsonw_u64(w, "gap_dropped", s->pairing.gap_dropped);
	vmt_jsonw_u64(w, "backwards", s->pairing.backwards);
}

static void json_latency(struct vmt_jsonw *w, const struct vmt_clock *clk,
			 const struct vmt_summary *s)
{
	unsigned int k;

	vmt_jsonw_object_open(w, "latency_ns");
	vmt_jsonw_opt_u64(w, "min", s->lat.count, vmt_clock_ns(clk, s->lat.min));
	vmt_jsonw_opt_u64(w, "avg", s->lat.count,
			  vmt_clock_ns(clk, s->lat.count ? s->lat.sum / s->lat.count : 0));
	vmt_jsonw_opt_u64(w, "max", s->lat.count, vmt_clock_ns(clk, s->lat.max));
	vmt_jsonw_object_close(w);
	if (s->lat.count) {
		vmt_jsonw_object_open(w, "percentiles_ns");
		for (k = 0; k < NPCT; k++)
			vmt_jsonw_u64(w, pct_names[k],
				      vmt_clock_ns(clk, vmt_latdist_percentile(&s->all, pcts[k])));
		vmt_jsonw_object_close(w);
		vmt_jsonw_u64(w, "stddev_ns",
			      vmt_clock_ns(clk, (uint64_t)vmt_latdist_stddev(&s->all)));
	} else {
		vmt_jsonw_null(w, "percentiles_ns");
		vmt_jsonw_null(w, "stddev_ns");
	}
	vmt_jsonw_u64(w, "total_ns", vmt_clock_ns(clk, s->lat.sum));
	vmt_jsonw_u64(w, "window_ns", vmt_clock_ns(clk, s->window));
	vmt_jsonw_u64(w, "max_window_sum_ns", vmt_clock_ns(clk, s->max_window_sum));
	vmt_jsonw_u64(w, "max_window_start_ns", since_start(clk, s, s->max_window_at));
	vmt_jsonw_i64(w, "max_window_pid", s->max_window_pid);
	vmt_jsonw_u64(w, "chunks", s->rd.chunks);
	vmt_jsonw_u64(w, "bad_chunks", s->rd.bad_chunks);
	vmt_jsonw_u64(w, "pages", s->rd.pages);
	vmt_jsonw_u64(w, "bad_pages", s->rd.bad_pages);
	vmt_jsonw_u64(w, "bad_records", s->bad_records);
	vmt_jsonw_u64(w, "other_records", s->other_records);
}

static void json_groups(struct vmt_jsonw *w, const struct vmt_reader *r,
			const struct vmt_summary *s)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	size_t i;

	vmt_jsonw_array_open(w, "reasons");
	for (i = 0; i < s->nreasons; i++) {
		const struct vmt_group *g = &s->reasons[i];

		vmt_jsonw_object_open(w, NULL);
		vmt_jsonw_str(w, "name", vmt_exitreason_name(s->names, g->isa, g->key));
		vmt_jsonw_u64(w, "code", g->key);
		vmt_jsonw_u64(w, "isa", g->isa);
		json_dist(w, clk, &g->d);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
	vmt_jsonw_array_open(w, "cpus_detail");
	for (i = 0; i < s->ncpus; i++) {
		vmt_jsonw_object_open(w, NULL);
		vmt_jsonw_u64(w, "cpu", s->cpus[i].key);
		json_dist(w, clk, &s->cpus[i].d);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
	vmt_jsonw_array_open(w, "vcpus");
	for (i = 0; i < s->ntasks; i++) {
		const struct vmt_group *t = &s->tasks[i];

		vmt_jsonw_object_open(w, NULL);
		vmt_jsonw_i64(w, "pid", t->pid);
		vmt_jsonw_opt_u64(w, "vcpu", t->has_vcpu, t->vcpu);
		vmt_jsonw_u64(w, "pairs", t->d.st.count);
		json_dist(w, clk, &t->d);
		vmt_jsonw_u64(w, "max_window_sum_ns", vmt_clock_ns(clk, t->max_window_sum));
		vmt_jsonw_u64(w, "max_window_start_ns", since_start(clk, s, t->max_window_at));
		vmt_jsonw_fixed(w, "in_guest_percent", availability(r, s, t), 4);
		vmt_report_why_json_window(w, r, s, t);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
}

/* One exit as the JSON lists show it (top). */
static void json_exit(struct vmt_jsonw *w, const struct vmt_clock *clk,
		      const struct vmt_summary *s, const struct vmt_event *e, uint64_t lat)
{
	char label[128];

	vmt_jsonw_u64(w, "time_ns", since_start(clk, s, e->ts));
	vmt_jsonw_u64(w, "ts", e->ts);
	vmt_jsonw_u64(w, "cpu", e->cpu);
	vmt_jsonw_i64(w, "pid", e->pid);
	vmt_jsonw_u64(w, "latency_ns", vmt_clock_ns(clk, lat));
	if (e->has & VMT_EVF_VCPU)
		vmt_jsonw_u64(w, "vcpu", e->vcpu);
	if (e->has & VMT_EVF_REASON) {
		uint64_t key = vmt_exitreason_key(e->isa, e->reason);

		vmt_jsonw_str(w, "reason", vmt_summary_reason(s, e->isa, key, label,
							       sizeof(label)));
		vmt_jsonw_u64(w, "code", key);
	}
	vmt_hexfields_json(w, e);
}

static void json_histogram(struct vmt_jsonw *w, const struct vmt_clock *clk,
			   const struct vmt_summary *s)
{
	unsigned int b, row;

	if (!s->hist_buckets) {
		vmt_jsonw_null(w, "histogram");
		return;
	}
	vmt_jsonw_object_open(w, "histogram");
	vmt_jsonw_bool(w, "log2", s->hist_log);
	vmt_jsonw_u64(w, "bucket_ns", vmt_clock_ns(clk, s->hist_bucket));
	vmt_jsonw_array_open(w, "cpus");
	for (row = 0; row < s->hist_ncpus; row++) {
		const uint64_t *h = s->hist + row * ((size_t)s->hist_buckets + 1);

		vmt_jsonw_object_open(w, NULL);
		vmt_jsonw_u64(w, "cpu", s->hist_cpu[row]);
		vmt_jsonw_array_open(w, "counts");
		for (b = 0; b < s->hist_buckets; b++)
			vmt_jsonw_u64(w, NULL, h[b]);
		vmt_jsonw_array_close(w);
		vmt_jsonw_u64(w, "overflow", h[s->hist_buckets]);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
	vmt_jsonw_object_close(w);
}

void vmt_report_json(struct vmt_outbuf *o, const struct vmt_reader *r,
		     const struct vmt_summary *s)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	struct vmt_jsonw w;
	size_t i;

	vmt_jsonw_init(&w, o);
	vmt_jsonw_object_open(&w, NULL);
	json_header(&w, r, s);
	vmt_report_why_json_header(&w, r, s);
	json_counts(&w, s);
	json_latency(&w, clk, s);
	json_groups(&w, r, s);
	vmt_report_why_json_summary(&w, r, s);
	vmt_jsonw_array_open(&w, "top");
	for (i = 0; i < s->ntop; i++) {
		vmt_jsonw_object_open(&w, NULL);
		json_exit(&w, clk, s, &s->top[i].exit, s->top[i].lat);
		vmt_report_why_json_exit(&w, r, s, s->top[i].has_why ? &s->top[i].why : NULL);
		vmt_jsonw_object_close(&w);
	}
	vmt_jsonw_array_close(&w);
	json_histogram(&w, clk, s);
	vmt_jsonw_object_close(&w);
	vmt_outbuf_ch(o, '\n');
}

void vmt_report_legacy(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	uint64_t avg = s->lat.count ? s->lat.sum / s->lat.count : 0;

	fprintf(f, "Number of VM events = %" PRIu64 "\n", s->events);
	fprintf(f, "Average VM Exit-Entry latency = %" PRIu64 "us\n", vmt_clock_ns(clk, avg) / 1000);
	fprintf(f, "Maximum VM Exit-Entry latency = %" PRIu64 "us\n",
		vmt_clock_ns(clk, s->lat.max) / 1000);
	fprintf(f, "Maximum cumulative latency within 1ms = %" PRIu64 "us\n",
		vmt_clock_ns(clk, s->max_window_sum) / 1000);
}

/* The lower edge of bucket b, in ns. */
static uint64_t bucket_low_ns(const struct vmt_reader *r, const struct vmt_summary *s,
			      unsigned int b)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	if (s->hist_log)
		return b ? vmt_clock_ns(clk, 1ULL << b) : 0;
	return vmt_clock_ns(clk, (uint64_t)b * s->hist_bucket);
}

void vmt_report_hist_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	size_t w = (size_t)s->hist_buckets + 1;
	uint64_t peak = 0, *tot;
	unsigned int b, row;
	char a[48], c[48];

	if (!s->hist_buckets)
		return;
	tot = calloc(w, sizeof(*tot));
	if (!tot)
		return;
	for (b = 0; b < w; b++) {
		for (row = 0; row < s->hist_ncpus; row++)
			tot[b] += s->hist[row * w + b];
		if (b < s->hist_buckets && tot[b] > peak)
			peak = tot[b];
	}
	if (s->hist_log)
		fprintf(f, "# Histogram: log2 buckets, %u of them\n", s->hist_buckets);
	else
		fprintf(f, "# Histogram: buckets of %s, %u of them\n",
			vmt_fmt_lat(clk, s->hist_bucket, a, sizeof(a)), s->hist_buckets);
	fprintf(f, "%-12s", "# from");
	for (row = 0; row < s->hist_ncpus; row++)
		fprintf(f, " %10s%03u", "CPU-", s->hist_cpu[row]);
	fprintf(f, " %12s\n", "total");
	for (b = 0; b < s->hist_buckets; b++) {
		unsigned int bar;

		if (!tot[b])
			continue;	/* like rtla: rows with counts only */
		fprintf(f, "%-12s", vmt_format_ns(bucket_low_ns(r, s, b), a, sizeof(a)));
		for (row = 0; row < s->hist_ncpus; row++)
			fprintf(f, " %13" PRIu64, s->hist[row * w + b]);
		bar = peak ? (unsigned int)((tot[b] * 40 + peak - 1) / peak) : 0;
		fprintf(f, " %12" PRIu64 " ", tot[b]);
		while (bar--)
			fputc('#', f);
		fputc('\n', f);
	}
	fprintf(f, "%-12s", "over:");
	for (row = 0; row < s->hist_ncpus; row++)
		fprintf(f, " %13" PRIu64, s->hist[row * w + s->hist_buckets]);
	fprintf(f, " %12" PRIu64 "\n", tot[s->hist_buckets]);
	fprintf(f, "%-12s", "count:");
	for (row = 0; row < s->hist_ncpus; row++) {
		uint64_t n = 0;

		for (b = 0; b < w; b++)
			n += s->hist[row * w + b];
		fprintf(f, " %13" PRIu64, n);
	}
	fprintf(f, " %12" PRIu64 "\n", s->lat.count);
	/* min/avg/max per CPU from the per-pCPU distributions */
	{
		static const char *const what[] = { "min:", "avg:", "max:" };
		unsigned int k;

		for (k = 0; k < 3; k++) {
			fprintf(f, "%-12s", what[k]);
			for (row = 0; row < s->hist_ncpus; row++) {
				const struct vmt_latstat *st = NULL;
				size_t i;

				for (i = 0; i < s->ncpus; i++) {
					if (s->cpus[i].key == s->hist_cpu[row])
						st = &s->cpus[i].d.st;
				}
				fprintf(f, " %13s", !st || !st->count ? "-" :
					vmt_fmt_lat(clk, k == 0 ? st->min : k == 1 ? st->sum / st->count :
						st->max, c, sizeof(c)));
			}
			fprintf(f, " %12s\n", vmt_fmt_lat(clk, k == 0 ? s->lat.min : k == 1 ?
						     s->lat.sum / s->lat.count : s->lat.max, c,
						     sizeof(c)));
		}
	}
	free(tot);
}

void vmt_report_hist_cyclictest(FILE *f, const struct vmt_reader *r,
				const struct vmt_summary *s)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	size_t w = (size_t)s->hist_buckets + 1;
	unsigned int b, row;

	if (!s->hist_buckets)
		return;
	/* cyclictest -h: one column per thread (here per pCPU), counts per bucket index */
	fprintf(f, "# Histogram\n");
	for (b = 0; b < s->hist_buckets; b++) {
		fprintf(f, "%06u ", b);
		for (row = 0; row < s->hist_ncpus; row++)
			fprintf(f, "%06" PRIu64 "%s", s->hist[row * w + b],
				row + 1 < s->hist_ncpus ? "\t" : "");
		fputc('\n', f);
	}
	fprintf(f, "# Total:");
	for (row = 0; row < s->hist_ncpus; row++) {
		uint64_t n = 0;

		for (b = 0; b < w; b++)
			n += s->hist[row * w + b];
		fprintf(f, " %09" PRIu64, n);
	}
	fputc('\n', f);
	{
		static const char *const what[] = { "# Min Latencies:", "# Avg Latencies:",
						    "# Max Latencies:" };
		unsigned int k;

		for (k = 0; k < 3; k++) {
			fprintf(f, "%s", what[k]);
			for (row = 0; row < s->hist_ncpus; row++) {
				uint64_t v = 0, unit_ns = s->hist_log ? 1000 :
					vmt_clock_ns(clk, s->hist_bucket);
				size_t i;

				for (i = 0; i < s->ncpus; i++) {
					const struct vmt_latstat *st = &s->cpus[i].d.st;

					if (s->cpus[i].key != s->hist_cpu[row] || !st->count)
						continue;
					v = vmt_clock_ns(clk, k == 0 ? st->min : k == 1 ?
							  st->sum / st->count : st->max);
				}
				/* in bucket units, as cyclictest prints microseconds */
				fprintf(f, " %05" PRIu64, unit_ns ? v / unit_ns : v);
			}
			fputc('\n', f);
		}
	}
	fprintf(f, "# Histogram Overflows:");
	for (row = 0; row < s->hist_ncpus; row++)
		fprintf(f, " %05" PRIu64, s->hist[row * w + s->hist_buckets]);
	fputc('\n', f);
}
