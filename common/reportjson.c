// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <string.h>

#include "evrender.h"
#include "jsonw.h"
#include "reportjson.h"
#include "reportwhy.h"
#include "timefmt.h"
#include "vmfind.h"

static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
static const char *const pct_names[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))

static void json_dist(struct vmt_jsonw *w, const struct vmt_clock *clk,
		      const struct vmt_latdist *d)
{
	unsigned int k;

	vmt_jsonw_u64(w, "count", d->st.count);
	vmt_jsonw_u64(w, "total_ns", vmt_clock_ns(clk, vmt_latstat_total(&d->st)));
	if (!d->st.count) {
		vmt_jsonw_null(w, "min_ns");
		vmt_jsonw_null(w, "avg_ns");
		vmt_jsonw_null(w, "max_ns");
		vmt_jsonw_null(w, "stddev_ns");
		vmt_jsonw_null(w, "percentiles_ns");
		return;
	}
	vmt_jsonw_u64(w, "min_ns", vmt_clock_ns(clk, d->st.min));
	vmt_jsonw_u64(w, "avg_ns", vmt_clock_ns(clk, vmt_latstat_avg(&d->st)));
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
	/* null when the file does not say (unfinished, trace.dat): never a 0 to divide by */
	vmt_jsonw_opt_u64(w, "duration_ns", vmt_reader_duration_ns(r) != 0,
			  vmt_reader_duration_ns(r));
	vmt_jsonw_u64(w, "span_ns", vmt_clock_ns(clk, s->last_ts - s->first_ts));
}

static void json_counts(struct vmt_jsonw *w, const struct vmt_summary *s)
{
	vmt_jsonw_u64(w, "events", s->events);
	vmt_jsonw_u64(w, "pairs", s->pairing.pairs);
	vmt_jsonw_u64(w, "filtered_out", s->filtered_out);
	vmt_jsonw_u64(w, "lost_events", s->lost_events);
	/* false: lost_events is a lower bound, damaged data or pages lost more uncounted */
	vmt_jsonw_bool(w, "lost_events_exact", vmt_summary_lost_exact(s));
	vmt_jsonw_opt_u64(w, "lost_events_stats", s->lost_stats_known, s->lost_stats);
	vmt_jsonw_u64(w, "lost_events_pages", s->rd.missed_events);
	/* in lost_events: left in the ring buffer at the stop (null: the file does not say) */
	vmt_jsonw_opt_u64(w, "lost_events_unread", s->lost_unread_known, s->lost_unread);
	vmt_jsonw_bool(w, "drain_cut", s->drain_cut);
	/* a --from/--to window: losses of unknown time it kept, unread ones after it left out */
	vmt_jsonw_opt_u64(w, "lost_events_unknown_time_kept", s->lost_window, s->lost_unknown_kept);
	vmt_jsonw_opt_u64(w, "lost_events_left_out", s->lost_window, s->lost_unread_after);
	vmt_jsonw_u64(w, "missed_pages", s->rd.missed_pages);
	vmt_jsonw_u64(w, "exits_maybe_missing", (s->lost_events + 1) / 2);
	vmt_jsonw_u64(w, "orphans", vmt_summary_orphans(s));
	vmt_jsonw_u64(w, "orphan_exits", s->pairing.orphan_begins);
	vmt_jsonw_u64(w, "orphan_entries", s->pairing.orphan_ends);
	vmt_jsonw_u64(w, "open_at_stop", s->pairing.unfinished);
	vmt_jsonw_u64(w, "gap_dropped", s->pairing.gap_dropped);
	vmt_jsonw_u64(w, "backwards", s->pairing.backwards);
}

static void json_latency(struct vmt_jsonw *w, const struct vmt_reader *r,
			 const struct vmt_summary *s)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	unsigned int k;

	vmt_jsonw_object_open(w, "latency_ns");
	vmt_jsonw_opt_u64(w, "min", s->lat.count, vmt_clock_ns(clk, s->lat.min));
	vmt_jsonw_opt_u64(w, "avg", s->lat.count,
			  vmt_clock_ns(clk, vmt_latstat_avg(&s->lat)));
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
	vmt_jsonw_u64(w, "total_ns", vmt_clock_ns(clk, vmt_latstat_total(&s->lat)));
	vmt_jsonw_u64(w, "window_ns", s->window_ns);
	vmt_jsonw_u64(w, "max_window_sum_ns", vmt_clock_ns(clk, s->max_window_sum));
	vmt_jsonw_u64(w, "max_window_start_ns", since_start(clk, s, s->max_window_at));
	if (s->max_window_pid < 0)	/* no pair took any time: no window is the worst */
		vmt_jsonw_null(w, "max_window_pid");
	else
		vmt_jsonw_i64(w, "max_window_pid", s->max_window_pid);
	vmt_jsonw_u64(w, "chunks", s->rd.chunks);
	vmt_jsonw_u64(w, "bad_chunks", s->rd.bad_chunks);
	/* every block skipped as damage, a second META among them (which held no events) */
	vmt_jsonw_u64(w, "bad_blocks", vmt_source_status(vmt_reader_source(r))->bad_blocks +
				       vmt_source_status(vmt_reader_source(r))->extra_meta);
	vmt_jsonw_bool(w, "meta_from_copy",
		       vmt_source_status(vmt_reader_source(r))->meta_damaged_at != 0);
	vmt_jsonw_u64(w, "pages", s->rd.pages);
	vmt_jsonw_u64(w, "bad_pages", s->rd.bad_pages);
	vmt_jsonw_u64(w, "bad_records", s->bad_records);
	vmt_jsonw_u64(w, "other_records", s->other_records);
}

/* The name of the VM whose vCPU thread tid is in the recording's map (--vm), or NULL. */
static const char *task_vm(const struct vmt_reader *r, int32_t tid)
{
	const struct vmt_vmmap *m = vmt_reader_vmmap(r);
	unsigned int vm;

	return m && vmt_vmmap_lookup(m, tid, &vm, NULL) == 0 ? vmt_vmmap_name(m, vm) : NULL;
}

/*
 * A task's vcpu: the events' own vCPU id, else the --vm map's index of its thread; and vm,
 * the VM's name in that map (null when it is none of the recording's vCPU threads).
 */
static void json_task_vm(struct vmt_jsonw *w, const struct vmt_reader *r,
			 const struct vmt_group *t)
{
	const struct vmt_vmmap *m = vmt_reader_vmmap(r);
	unsigned int vm = 0, vcpu = 0;
	bool known = m && vmt_vmmap_lookup(m, t->pid, &vm, &vcpu) == 0;

	if (t->has_vcpu)
		vmt_jsonw_u64(w, "vcpu", t->vcpu);
	else
		vmt_jsonw_opt_u64(w, "vcpu", known, vcpu);
	vmt_jsonw_str(w, "vm", known ? vmt_vmmap_name(m, vm) : NULL);
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
		vmt_jsonw_u64(w, "gaps", s->cpus[i].gaps);
		json_dist(w, clk, &s->cpus[i].d);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
	vmt_jsonw_array_open(w, "vcpus");
	for (i = 0; i < s->ntasks; i++) {
		const struct vmt_group *t = &s->tasks[i];

		vmt_jsonw_object_open(w, NULL);
		vmt_jsonw_i64(w, "pid", t->pid);
		/* the name the context events gave the pid (the text's "comm (pid)"), or null */
		vmt_jsonw_str(w, "comm", t->comm[0] ? t->comm : NULL);
		json_task_vm(w, r, t);
		vmt_jsonw_u64(w, "pairs", t->d.st.count);
		json_dist(w, clk, &t->d);
		vmt_jsonw_u64(w, "max_window_sum_ns", vmt_clock_ns(clk, t->max_window_sum));
		vmt_jsonw_u64(w, "max_window_start_ns", since_start(clk, s, t->max_window_at));
		/* cut as the text cuts it: 99.99996 never reads 100.0000 */
		if (vmt_summary_in_guest_known(t))
			vmt_jsonw_fixed(w, "in_guest_percent",
					vmt_pct_cut(vmt_summary_in_guest(t), 4), 4);
		else	/* one exit: no time in the guest to measure */
			vmt_jsonw_null(w, "in_guest_percent");
		/* left out of in_guest_percent's span: its events may have been lost then */
		vmt_jsonw_u64(w, "gap_ns", vmt_clock_ns(clk, vmt_summary_unknown(t)));
		vmt_report_why_json_window(w, r, s, t);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
}

/*
 * An exit's keys, the one writer of the longest exits (top, over_threshold) and of those open
 * at the stop: a key the exit has no value for is left out (vcpu: the event's, else the VM
 * map's), the hex fields are its own (vmt_hexfields_json); dur_key its latency or its time
 * open, in trace clock units.
 */
static void exit_keys(struct vmt_jsonw *w, const struct vmt_reader *r,
		      const struct vmt_summary *s, const struct vmt_event *e, const char *dur_key,
		      uint64_t dur)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	const struct vmt_vmmap *m = vmt_reader_vmmap(r);
	unsigned int vm, vcpu;
	char label[128];

	vmt_jsonw_u64(w, "time_ns", since_start(clk, s, e->ts));
	vmt_jsonw_u64(w, "ts", e->ts);
	vmt_jsonw_u64(w, "cpu", e->cpu);
	vmt_jsonw_i64(w, "pid", e->pid);
	vmt_jsonw_u64(w, dur_key, vmt_clock_ns(clk, dur));
	if (e->has & VMT_EVF_VCPU)
		vmt_jsonw_u64(w, "vcpu", e->vcpu);
	else if (m && vmt_vmmap_lookup(m, e->pid, &vm, &vcpu) == 0)
		vmt_jsonw_u64(w, "vcpu", vcpu);
	vmt_jsonw_str(w, "vm", task_vm(r, e->pid));
	if (e->has & VMT_EVF_REASON) {
		uint64_t key = vmt_exitreason_key(e->isa, e->reason);

		vmt_jsonw_str(w, "reason", vmt_summary_reason(s, e->isa, key, label,
							       sizeof(label)));
		vmt_jsonw_u64(w, "code", key);
	}
	vmt_hexfields_json(w, e);
}

/* One exit as the JSON lists show it (top, over_threshold). */
void vmt_report_json_exit(struct vmt_jsonw *w, const struct vmt_reader *r,
			  const struct vmt_summary *s, const struct vmt_event *e, uint64_t lat,
			  const struct vmt_why *why)
{
	exit_keys(w, r, s, e, "latency_ns", lat);
	vmt_report_why_json_exit(w, r, s, why);
}

/*
 * The exits still open at the stop (longest first): as the top exits, with open_ns, their
 * time up to the last event (open_until_ns), for a latency.
 */
static void json_open(struct vmt_jsonw *w, const struct vmt_reader *r,
		      const struct vmt_summary *s)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	bool finished = vmt_source_status(vmt_reader_source(r))->finished;
	size_t i;

	vmt_jsonw_u64(w, "open_until_ns", since_start(clk, s, s->open_until));
	vmt_jsonw_array_open(w, "open_exits");
	for (i = 0; i < s->nopen; i++) {
		const struct vmt_open *o = &s->open[i];

		vmt_jsonw_object_open(w, NULL);
		exit_keys(w, r, s, &o->exit, "open_ns", o->open);
		/* the context events' name of its task, which may have no pair (vcpus) */
		vmt_jsonw_str(w, "comm", o->comm[0] ? o->comm : NULL);
		/*
		 * lost after it, where no page says, or not written (a file not finished): its
		 * entry may be among them
		 */
		vmt_jsonw_bool(w, "lost_since", o->lost_since || o->lost_unplaced || !finished);
		vmt_report_why_json_exit(w, r, s, o->has_why ? &o->why : NULL);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
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

void vmt_report_json_begin(struct vmt_jsonw *w, struct vmt_outbuf *o,
			   const struct vmt_reader *r, const struct vmt_summary *s)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	size_t i;

	vmt_jsonw_init(w, o);
	vmt_jsonw_object_open(w, NULL);
	json_header(w, r, s);
	vmt_report_why_json_header(w, r, s);
	json_counts(w, s);
	json_latency(w, r, s);
	json_groups(w, r, s);
	vmt_report_why_json_summary(w, r, s);
	vmt_jsonw_array_open(w, "top");
	for (i = 0; i < s->ntop; i++) {
		vmt_jsonw_object_open(w, NULL);
		vmt_report_json_exit(w, r, s, &s->top[i].exit, s->top[i].lat,
				     s->top[i].has_why ? &s->top[i].why : NULL);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
	json_open(w, r, s);
	json_histogram(w, clk, s);
}

void vmt_report_json_end(struct vmt_jsonw *w)
{
	vmt_jsonw_object_close(w);
	vmt_outbuf_ch(w->o, '\n');
}

void vmt_report_json(struct vmt_outbuf *o, const struct vmt_reader *r,
		     const struct vmt_summary *s)
{
	struct vmt_jsonw w;

	vmt_report_json_begin(&w, o, r, s);
	vmt_report_json_end(&w);
}

