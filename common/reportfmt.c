// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The report's output forms, from a finished struct vmt_summary: text, JSON, the original
 * tool's four lines, and histograms. Declared in analysis.h; data goes to the FILE given.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
static const char *const pct_names[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))

/* A trace-clock interval in ns (tclock.h). */
static inline uint64_t reader_ns(const struct vmt_reader *r, uint64_t ticks)
{
	return vmt_clock_ns(vmt_reader_clock(r), ticks);
}

static const char *unit(const struct vmt_reader *r)
{
	return vmt_clock_in_ns(vmt_reader_clock(r)) ? "ns" : "ticks";
}

char *vmt_fmt_lat(const struct vmt_reader *r, uint64_t ticks, char *buf, size_t size)
{
	if (!vmt_clock_in_ns(vmt_reader_clock(r))) {
		snprintf(buf, size, "%" PRIu64 " ticks", ticks);
		return buf;
	}
	return vmt_format_ns(reader_ns(r, ticks), buf, size);
}

char *vmt_fmt_time(const struct vmt_reader *r, uint64_t start_ts, uint64_t ts, char *buf,
		   size_t size)
{
	uint64_t ns = reader_ns(r, ts > start_ts ? ts - start_ts : 0);

	snprintf(buf, size, "%" PRIu64 ".%09" PRIu64, ns / UINT64_C(1000000000),
		 ns % UINT64_C(1000000000));
	return buf;
}


static void summary_block(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
			  bool with_tasks);

void vmt_summary_print_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	summary_block(f, r, s, true);
}

static void summary_block(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
			  bool with_tasks)
{
	char a[48], b[48], c[48], cpus[256];
	uint64_t avg = s->lat.count ? s->lat.sum / s->lat.count : 0;
	uint64_t dur = s->last_ts - s->first_ts, rec_ns = vmt_reader_duration_ns(r);
	const struct vmt_source *src = vmt_reader_source(r);
	size_t i, n;

	fprintf(f, "File: %s%s\n", vmt_reader_path(r),
		vmt_source_status(src)->finished ? "" : " (recording not finished)");
	if (strcmp(vmt_source_format(src), "trace.bin") == 0)
		fprintf(f, "Format: the original vm-trace trace.bin, %s; one CPU, not named\n",
			vmt_source_description(src));
	else if (strcmp(vmt_source_format(src), "trace.dat") == 0)
		fprintf(f, "Format: %s\n", vmt_source_description(src));
	fprintf(f, "Events: %s -> %s, clock %s (%s)\n", vmt_reader_begin_name(r),
		vmt_reader_end_name(r), vmt_reader_clock_name(r), unit(r));
	fprintf(f, "Traced CPUs: %s\n", vmt_reader_cpus(r)->n ?
		vmt_cpulist_format(vmt_reader_cpus(r), cpus, sizeof(cpus)) : "unknown");
	if (rec_ns)
		fprintf(f, "Duration: %s recorded, events span %s\n",
			vmt_format_ns(rec_ns, b, sizeof(b)), vmt_fmt_lat(r, dur, a, sizeof(a)));
	else
		fprintf(f, "Duration: events span %s\n", vmt_fmt_lat(r, dur, a, sizeof(a)));
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
	fprintf(f, "Minimum VM Exit-Entry latency = %s\n", vmt_fmt_lat(r, s->lat.min, a, sizeof(a)));
	fprintf(f, "Average VM Exit-Entry latency = %s\n", vmt_fmt_lat(r, avg, a, sizeof(a)));
	fprintf(f, "Maximum VM Exit-Entry latency = %s\n", vmt_fmt_lat(r, s->lat.max, a, sizeof(a)));
	fprintf(f, "Maximum cumulative latency within %s = %s (task %" PRId32
		", window starting at +%s)\n", vmt_format_ns(reader_ns(r, s->window), b,
							     sizeof(b)),
		vmt_fmt_lat(r, s->max_window_sum, a, sizeof(a)), s->max_window_pid,
		vmt_fmt_lat(r, s->max_window_at > s->start_ts ? s->max_window_at - s->start_ts : 0, c,
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
			t->d.st.count, vmt_fmt_lat(r, t->d.st.sum / t->d.st.count, a, sizeof(a)),
			vmt_fmt_lat(r, t->d.st.max, c1, sizeof(c1)),
			vmt_fmt_lat(r, t->max_window_sum, c2, sizeof(c2)));
	}
}

/* One table row: count, shares, total, min, avg, stddev, percentiles, max. */
static void group_row(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
		      const char *label, const struct vmt_group *g)
{
	const struct vmt_latdist *d = &g->d;
	char b[16][32];
	unsigned int k;

	fprintf(f, "  %-30s %10" PRIu64 " %6.2f %10s %6.2f %9s %9s %9s", label, d->st.count,
		s->lat.count ? 100.0 * (double)d->st.count / (double)s->lat.count : 0.0,
		vmt_fmt_lat(r, d->st.sum, b[0], sizeof(b[0])),
		s->lat.sum ? 100.0 * (double)d->st.sum / (double)s->lat.sum : 0.0,
		vmt_fmt_lat(r, d->st.min, b[1], sizeof(b[1])),
		vmt_fmt_lat(r, d->st.sum / (d->st.count ? d->st.count : 1), b[2], sizeof(b[2])),
		vmt_fmt_lat(r, (uint64_t)vmt_latdist_stddev(d), b[3], sizeof(b[3])));
	for (k = 0; k < NPCT; k++)
		fprintf(f, " %9s", vmt_fmt_lat(r, vmt_latdist_percentile(d, pcts[k]), b[4 + k],
					   sizeof(b[4 + k])));
	fprintf(f, " %9s\n", vmt_fmt_lat(r, d->st.max, b[10], sizeof(b[10])));
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
	uint64_t span = vmt_reader_duration_ns(r);

	if (!span)
		span = reader_ns(r, s->last_ts - s->first_ts);
	if (!span)
		return 100.0;
	return 100.0 * (1.0 - (double)reader_ns(r, g->d.st.sum) / (double)span);
}

void vmt_report_print_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	char a[48], b[48], label[128];
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
			vmt_fmt_lat(r, vmt_latdist_percentile(&s->all, pcts[k]), a, sizeof(a)));
	fprintf(f, "; stddev %s\n", vmt_fmt_lat(r, (uint64_t)vmt_latdist_stddev(&s->all), a,
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
				vmt_fmt_lat(r, t->max_window_sum, a, sizeof(a)),
				vmt_fmt_time(r, s->start_ts, t->max_window_at, ts, sizeof(ts)));
		}
	}
	if (s->ntop) {
		fprintf(f, "\nLongest exits:\n  %14s %4s %5s %8s %-28s %10s %18s %18s %18s\n",
			"time (s)", "pcpu", "vcpu", "pid", "reason", "latency", "guest rip",
			"info1", "info2");
		for (i = 0; i < s->ntop; i++) {
			const struct vmt_top *t = &s->top[i];
			const struct vmt_event *e = &t->exit;
			char v[16], ts[32];

			snprintf(v, sizeof(v), (e->has & VMT_EVF_VCPU) ? "%u" : "-", e->vcpu);
			fprintf(f, "  %14s %4u %5s %8" PRId32 " %-28s %10s 0x%016" PRIx64
				" 0x%016" PRIx64 " 0x%016" PRIx64, vmt_fmt_time(r, s->start_ts, e->ts, ts, sizeof(ts)),
				e->cpu, v, e->pid, (e->has & VMT_EVF_REASON) ?
				vmt_summary_reason(s, e->isa, vmt_exitreason_key(e->isa, e->reason),
						   label, sizeof(label)) : "-",
				vmt_fmt_lat(r, t->lat, b, sizeof(b)), e->rip, e->info1, e->info2);
			if (e->has & (VMT_EVF_INTR_INFO | VMT_EVF_ERROR_CODE))
				fprintf(f, " intr_info 0x%08" PRIx32 " error_code 0x%08" PRIx32,
					e->intr_info, e->error_code);
			fputc('\n', f);
		}
	}
}

void vmt_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_dist(FILE *f, const struct vmt_reader *r, const struct vmt_latdist *d)
{
	unsigned int k;

	fprintf(f, "\"count\":%" PRIu64 ",\"total_ns\":%" PRIu64, d->st.count,
		reader_ns(r, d->st.sum));
	if (!d->st.count) {
		fprintf(f, ",\"min_ns\":null,\"avg_ns\":null,\"max_ns\":null,\"stddev_ns\":null,"
			"\"percentiles_ns\":null");
		return;
	}
	fprintf(f, ",\"min_ns\":%" PRIu64 ",\"avg_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64
		",\"stddev_ns\":%" PRIu64, reader_ns(r, d->st.min),
		reader_ns(r, d->st.sum / d->st.count), reader_ns(r, d->st.max),
		reader_ns(r, (uint64_t)vmt_latdist_stddev(d)));
	fprintf(f, ",\"p99_ns\":%" PRIu64 ",\"percentiles_ns\":{",
		reader_ns(r, vmt_latdist_percentile(d, 99)));
	for (k = 0; k < NPCT; k++)
		fprintf(f, "%s\"%s\":%" PRIu64, k ? "," : "", pct_names[k],
			reader_ns(r, vmt_latdist_percentile(d, pcts[k])));
	fputc('}', f);
}

void vmt_summary_print_json(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	const struct vmt_source *src = vmt_reader_source(r);
	char label[128];
	size_t i;
	unsigned int k;

	fprintf(f, "{\"file\":");
	vmt_json_string(f, vmt_reader_path(r));
	fprintf(f, ",\"finished\":%s,\"legacy\":%s,\"format_source\":",
		vmt_source_status(src)->finished ? "true" : "false",
		strcmp(vmt_source_format(src), "trace.bin") == 0 ? "true" : "false");
	vmt_json_string(f, vmt_source_description(src)[0] ? vmt_source_description(src) :
			   "recording");
	fprintf(f, ",\"begin_event\":");
	vmt_json_string(f, vmt_reader_begin_name(r));
	fprintf(f, ",\"end_event\":");
	vmt_json_string(f, vmt_reader_end_name(r));
	fprintf(f, ",\"clock\":");
	vmt_json_string(f, vmt_reader_clock_name(r));
	fprintf(f, ",\"unit\":\"%s\",\"cpus\":[", unit(r));
	for (k = 0; k < vmt_reader_cpus(r)->n; k++)
		fprintf(f, "%s%u", k ? "," : "", vmt_reader_cpus(r)->cpu[k]);
	fprintf(f, "],\"duration_ns\":%" PRIu64 ",\"span_ns\":%" PRIu64,
		vmt_reader_duration_ns(r), reader_ns(r, s->last_ts - s->first_ts));
	fprintf(f, ",\"events\":%" PRIu64 ",\"pairs\":%" PRIu64 ",\"filtered_out\":%" PRIu64
		",\"lost_events\":%" PRIu64, s->events, s->pairing.pairs, s->filtered_out,
		s->lost_events);
	fprintf(f, ",\"lost_events_stats\":");
	if (s->lost_stats_known)
		fprintf(f, "%" PRIu64, s->lost_stats);
	else
		fprintf(f, "null");
	fprintf(f, ",\"lost_events_pages\":%" PRIu64 ",\"missed_pages\":%" PRIu64
		",\"exits_maybe_missing\":%" PRIu64, s->rd.missed_events, s->rd.missed_pages,
		(s->lost_events + 1) / 2);
	fprintf(f, ",\"orphans\":%" PRIu64 ",\"orphan_exits\":%" PRIu64
		",\"orphan_entries\":%" PRIu64 ",\"open_at_stop\":%" PRIu64
		",\"gap_dropped\":%" PRIu64 ",\"backwards\":%" PRIu64,
		vmt_summary_orphans(s), s->pairing.orphan_begins, s->pairing.orphan_ends,
		s->pairing.unfinished, s->pairing.gap_dropped, s->pairing.backwards);
	if (s->lat.count)
		fprintf(f, ",\"latency_ns\":{\"min\":%" PRIu64 ",\"avg\":%" PRIu64
			",\"max\":%" PRIu64 "}", reader_ns(r, s->lat.min),
			reader_ns(r, s->lat.sum / s->lat.count), reader_ns(r, s->lat.max));
	else
		fprintf(f, ",\"latency_ns\":{\"min\":null,\"avg\":null,\"max\":null}");
	fprintf(f, ",\"percentiles_ns\":");
	if (s->lat.count) {
		fputc('{', f);
		for (k = 0; k < NPCT; k++)
			fprintf(f, "%s\"%s\":%" PRIu64, k ? "," : "", pct_names[k],
				reader_ns(r, vmt_latdist_percentile(&s->all, pcts[k])));
		fprintf(f, "},\"stddev_ns\":%" PRIu64,
			reader_ns(r, (uint64_t)vmt_latdist_stddev(&s->all)));
	} else {
		fprintf(f, "null,\"stddev_ns\":null");
	}
	fprintf(f, ",\"total_ns\":%" PRIu64 ",\"window_ns\":%" PRIu64
		",\"max_window_sum_ns\":%" PRIu64 ",\"max_window_start_ns\":%" PRIu64
		",\"max_window_pid\":%" PRId32, reader_ns(r, s->lat.sum),
		reader_ns(r, s->window), reader_ns(r, s->max_window_sum),
		reader_ns(r, s->max_window_at > s->start_ts ? s->max_window_at - s->start_ts : 0),
		s->max_window_pid);
	fprintf(f, ",\"chunks\":%" PRIu64 ",\"bad_chunks\":%" PRIu64 ",\"pages\":%" PRIu64
		",\"bad_pages\":%" PRIu64 ",\"bad_records\":%" PRIu64 ",\"other_records\":%" PRIu64,
		s->rd.chunks, s->rd.bad_chunks, s->rd.pages, s->rd.bad_pages,
		s->bad_records, s->other_records);
	fprintf(f, ",\"reasons\":[");
	for (i = 0; i < s->nreasons; i++) {
		const struct vmt_group *g = &s->reasons[i];
		const char *name = vmt_exitreason_name(s->names, g->isa, g->key);

		fprintf(f, "%s{\"name\":", i ? "," : "");
		if (name)
			vmt_json_string(f, name);
		else
			fprintf(f, "null");
		fprintf(f, ",\"code\":%" PRIu64 ",\"isa\":%" PRIu32 ",", g->key, g->isa);
		json_dist(f, r, &g->d);
		fputc('}', f);
	}
	fprintf(f, "],\"cpus_detail\":[");
	for (i = 0; i < s->ncpus; i++) {
		fprintf(f, "%s{\"cpu\":%" PRIu64 ",", i ? "," : "", s->cpus[i].key);
		json_dist(f, r, &s->cpus[i].d);
		fputc('}', f);
	}
	fprintf(f, "],\"vcpus\":[");
	for (i = 0; i < s->ntasks; i++) {
		const struct vmt_group *t = &s->tasks[i];

		fprintf(f, "%s{\"pid\":%" PRId32 ",\"vcpu\":", i ? "," : "", t->pid);
		if (t->has_vcpu)
			fprintf(f, "%u", t->vcpu);
		else
			fprintf(f, "null");
		fprintf(f, ",\"pairs\":%" PRIu64 ",", t->d.st.count);
		json_dist(f, r, &t->d);
		fprintf(f, ",\"max_window_sum_ns\":%" PRIu64 ",\"max_window_start_ns\":%" PRIu64
			",\"in_guest_percent\":%.4f}", reader_ns(r, t->max_window_sum),
			reader_ns(r, t->max_window_at > s->start_ts ?
				      t->max_window_at - s->start_ts : 0), availability(r, s, t));
	}
	fprintf(f, "],\"top\":[");
	for (i = 0; i < s->ntop; i++) {
		const struct vmt_top *t = &s->top[i];
		const struct vmt_event *e = &t->exit;

		fprintf(f, "%s{\"time_ns\":%" PRIu64 ",\"ts\":%" PRIu64 ",\"cpu\":%u,\"pid\":%" PRId32
			",\"latency_ns\":%" PRIu64, i ? "," : "",
			reader_ns(r, e->ts > s->start_ts ? e->ts - s->start_ts : 0), e->ts,
			e->cpu, e->pid, reader_ns(r, t->lat));
		if (e->has & VMT_EVF_VCPU)
			fprintf(f, ",\"vcpu\":%u", e->vcpu);
		if (e->has & VMT_EVF_REASON) {
			uint64_t key = vmt_exitreason_key(e->isa, e->reason);

			fprintf(f, ",\"reason\":");
			vmt_json_string(f, vmt_summary_reason(s, e->isa, key, label, sizeof(label)));
			fprintf(f, ",\"code\":%" PRIu64, key);
		}
		if (e->has & VMT_EVF_RIP)
			fprintf(f, ",\"rip\":%" PRIu64, e->rip);
		if (e->has & VMT_EVF_INFO1)
			fprintf(f, ",\"info1\":%" PRIu64, e->info1);
		if (e->has & VMT_EVF_INFO2)
			fprintf(f, ",\"info2\":%" PRIu64, e->info2);
		if (e->has & VMT_EVF_INTR_INFO)
			fprintf(f, ",\"intr_info\":%" PRIu32, e->intr_info);
		if (e->has & VMT_EVF_ERROR_CODE)
			fprintf(f, ",\"error_code\":%" PRIu32, e->error_code);
		fputc('}', f);
	}
	fprintf(f, "],\"histogram\":");
	if (s->hist_buckets) {
		unsigned int b, row;

		fprintf(f, "{\"log2\":%s,\"bucket_ns\":%" PRIu64 ",\"cpus\":[",
			s->hist_log ? "true" : "false", reader_ns(r, s->hist_bucket));
		for (row = 0; row < s->hist_ncpus; row++) {
			const uint64_t *h = s->hist + row * ((size_t)s->hist_buckets + 1);

			fprintf(f, "%s{\"cpu\":%u,\"counts\":[", row ? "," : "", s->hist_cpu[row]);
			for (b = 0; b < s->hist_buckets; b++)
				fprintf(f, "%s%" PRIu64, b ? "," : "", h[b]);
			fprintf(f, "],\"overflow\":%" PRIu64 "}", h[s->hist_buckets]);
		}
		fprintf(f, "]}");
	} else {
		fprintf(f, "null");
	}
	fprintf(f, "}\n");
}

void vmt_summary_print_legacy(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	uint64_t avg = s->lat.count ? s->lat.sum / s->lat.count : 0;

	fprintf(f, "Number of VM events = %" PRIu64 "\n", s->events);
	fprintf(f, "Average VM Exit-Entry latency = %" PRIu64 "us\n", reader_ns(r, avg) / 1000);
	fprintf(f, "Maximum VM Exit-Entry latency = %" PRIu64 "us\n",
		reader_ns(r, s->lat.max) / 1000);
	fprintf(f, "Maximum cumulative latency within 1ms = %" PRIu64 "us\n",
		reader_ns(r, s->max_window_sum) / 1000);
}

/* The lower edge of bucket b, in ns. */
static uint64_t bucket_low_ns(const struct vmt_reader *r, const struct vmt_summary *s,
			      unsigned int b)
{
	if (s->hist_log)
		return b ? reader_ns(r, 1ULL << b) : 0;
	return reader_ns(r, (uint64_t)b * s->hist_bucket);
}

void vmt_hist_print_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
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
			vmt_fmt_lat(r, s->hist_bucket, a, sizeof(a)), s->hist_buckets);
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
					vmt_fmt_lat(r, k == 0 ? st->min : k == 1 ? st->sum / st->count :
						st->max, c, sizeof(c)));
			}
			fprintf(f, " %12s\n", vmt_fmt_lat(r, k == 0 ? s->lat.min : k == 1 ?
						     s->lat.sum / s->lat.count : s->lat.max, c,
						     sizeof(c)));
		}
	}
	free(tot);
}

void vmt_hist_print_cyclictest(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
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
					reader_ns(r, s->hist_bucket);
				size_t i;

				for (i = 0; i < s->ncpus; i++) {
					const struct vmt_latstat *st = &s->cpus[i].d.st;

					if (s->cpus[i].key != s->hist_cpu[row] || !st->count)
						continue;
					v = reader_ns(r, k == 0 ? st->min : k == 1 ?
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
