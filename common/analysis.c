// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

struct task {
	struct task *next;		/* every task, for the summary at the end */
	struct vmt_task_summary sum;
	struct vmt_window win;
};

struct ctx {
	struct vmt_summary *s;
	struct task *tasks;
	size_t ntasks;
	int error;
};

static void on_pair(const struct vmt_pair *p, void *arg)
{
	struct ctx *c = arg;
	struct task *t = *p->task_ctx;

	vmt_latstat_add(&c->s->lat, p->lat);
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t) {
			c->error = -ENOMEM;
			return;
		}
		t->sum.pid = p->end->pid;
		vmt_latstat_init(&t->sum.lat);
		vmt_window_init(&t->win, c->s->window);
		t->next = c->tasks;
		c->tasks = t;
		c->ntasks++;
		*p->task_ctx = t;
	}
	vmt_latstat_add(&t->sum.lat, p->lat);
	if (p->end->has & VMT_EVF_VCPU) {
		t->sum.vcpu = p->end->vcpu;
		t->sum.has_vcpu = true;
	}
	if (vmt_window_add(&t->win, p->begin->ts, p->end->ts)) {
		c->error = -ENOMEM;
		return;
	}
	if (t->win.max_sum > c->s->max_window_sum) {
		c->s->max_window_sum = t->win.max_sum;
		c->s->max_window_at = t->win.max_at;
		c->s->max_window_pid = p->end->pid;
	}
}

static void free_task(void *ctx)
{
	struct task *t = ctx;

	vmt_window_free(&t->win);
	free(t);
}

static int by_pairs(const void *a, const void *b)
{
	const struct vmt_task_summary *x = a, *y = b;

	if (x->lat.count != y->lat.count)
		return x->lat.count < y->lat.count ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Copy every task's figures out before the pairing (which owns the tasks) is freed. */
static int collect_tasks(struct ctx *c)
{
	struct task *t;
	size_t i = 0;

	if (!c->ntasks)
		return 0;
	c->s->tasks = calloc(c->ntasks, sizeof(*c->s->tasks));
	if (!c->s->tasks)
		return -ENOMEM;
	for (t = c->tasks; t; t = t->next) {
		c->s->tasks[i] = t->sum;
		c->s->tasks[i].max_window_sum = t->win.max_sum;
		c->s->tasks[i].max_window_at = t->win.max_at;
		i++;
	}
	c->s->ntasks = i;
	qsort(c->s->tasks, c->s->ntasks, sizeof(*c->s->tasks), by_pairs);
	return 0;
}

void vmt_summary_free(struct vmt_summary *s)
{
	free(s->tasks);
	s->tasks = NULL;
	s->ntasks = 0;
}

int vmt_analyze(struct vmt_reader *r, const struct vmt_analysis_opts *o, struct vmt_summary *s)
{
	struct ctx c = { s, NULL, 0, 0 };
	struct vmt_pairing *p;
	struct vmt_item it;
	struct vmt_event ev;
	int ret;

	memset(s, 0, sizeof(*s));
	vmt_latstat_init(&s->lat);
	s->first_ts = UINT64_MAX;
	s->max_window_pid = -1;
	/* The window is given in ns; the walk works in trace clock units. */
	s->window = o->window_ns;
	if (r->ns_per_tick > 0 && r->ns_per_tick != 1.0)
		s->window = (uint64_t)((double)o->window_ns / r->ns_per_tick + 0.5);
	p = vmt_pairing_new(on_pair, &c);
	if (!p)
		return -ENOMEM;
	while ((ret = vmt_reader_next(r, &it)) > 0) {
		if (it.kind == VMT_ITEM_GAP) {
			ret = vmt_pairing_gap(p, it.cpu);
			if (ret)
				break;
			continue;
		}
		ret = vmt_evbind_decode(&r->bind, &it.rec, it.cpu, &ev);
		if (ret == 0) {
			s->other_records++;
			continue;
		}
		if (ret < 0) {
			s->bad_records++;
			continue;
		}
		s->events++;
		if (ev.ts < s->first_ts)
			s->first_ts = ev.ts;
		if (ev.ts > s->last_ts)
			s->last_ts = ev.ts;
		ret = vmt_pairing_event(p, &ev);
		if (ret || c.error)
			break;
	}
	if (!ret)
		ret = c.error;
	vmt_pairing_finish(p);
	s->pairing = *vmt_pairing_stats(p);
	if (!ret)
		ret = collect_tasks(&c);
	vmt_pairing_free(p, free_task);
	if (s->first_ts == UINT64_MAX)
		s->first_ts = 0;
	s->rd = r->st;
	s->lost_stats = vmt_reader_stats_lost(r, &s->lost_stats_known);
	s->lost_events = s->rd.missed_events > s->lost_stats ? s->rd.missed_events : s->lost_stats;
	return ret;
}

uint64_t vmt_summary_orphans(const struct vmt_summary *s)
{
	return s->pairing.orphan_begins + s->pairing.orphan_ends + s->pairing.unfinished;
}

static const char *unit(const struct vmt_reader *r)
{
	return vmt_reader_clock_in_ns(r) ? "ns" : "ticks";
}

/* A latency in readable units; in raw ticks when the clock's rate is unknown. */
static char *fmt_lat(const struct vmt_reader *r, uint64_t ticks, char *buf, size_t size)
{
	if (!vmt_reader_clock_in_ns(r)) {
		snprintf(buf, size, "%" PRIu64 " ticks", ticks);
		return buf;
	}
	return vmt_format_ns(vmt_reader_ns(r, ticks), buf, size);
}

void vmt_summary_print_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	char a[48], b[48], cpus[256];
	uint64_t avg = s->lat.count ? s->lat.sum / s->lat.count : 0;
	uint64_t dur = s->last_ts - s->first_ts;

	fprintf(f, "File: %s%s\n", r->path, r->c->finished ? "" : " (recording not finished)");
	fprintf(f, "Events: %s -> %s, clock %s (%s)\n", r->begin_name, r->end_name, r->clock,
		unit(r));
	fprintf(f, "Traced CPUs: %s\n", r->cpus.n ? vmt_cpulist_format(&r->cpus, cpus,
								   sizeof(cpus)) : "unknown");
	{
		uint64_t rec_ns = vmt_reader_duration_ns(r);

		if (rec_ns)
			fprintf(f, "Duration: %s recorded, events span %s\n",
				vmt_format_ns(rec_ns, b, sizeof(b)), fmt_lat(r, dur, a, sizeof(a)));
		else
			fprintf(f, "Duration: events span %s\n", fmt_lat(r, dur, a, sizeof(a)));
	}
	fprintf(f, "Number of VM events = %" PRIu64 "\n", s->events);
	fprintf(f, "Exit-entry pairs = %" PRIu64 "\n", s->pairing.pairs);
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
	} else {
		fprintf(f, "Minimum VM Exit-Entry latency = %s\n", fmt_lat(r, s->lat.min, a, sizeof(a)));
		fprintf(f, "Average VM Exit-Entry latency = %s\n", fmt_lat(r, avg, a, sizeof(a)));
		fprintf(f, "Maximum VM Exit-Entry latency = %s\n", fmt_lat(r, s->lat.max, a, sizeof(a)));
		fprintf(f, "Maximum cumulative latency within %s = %s (task %" PRId32
			", window starting at +%s)\n",
			vmt_format_ns(vmt_reader_ns(r, s->window), b, sizeof(b)),
			fmt_lat(r, s->max_window_sum, a, sizeof(a)), s->max_window_pid,
			fmt_lat(r, s->max_window_at > s->first_ts ?
				s->max_window_at - s->first_ts : 0, cpus, sizeof(cpus)));
	}
	if (s->ntasks) {
		size_t i, n = s->ntasks < 10 ? s->ntasks : 10;

		fprintf(f, "Tasks (most pairs first%s):\n", s->ntasks > n ? ", top 10" : "");
		fprintf(f, "  %8s %6s %12s %12s %12s %12s\n", "pid", "vcpu", "pairs", "avg",
			"max", "max/window");
		for (i = 0; i < n; i++) {
			const struct vmt_task_summary *t = &s->tasks[i];
			char v[16], c1[48], c2[48];

			snprintf(v, sizeof(v), t->has_vcpu ? "%u" : "-", t->vcpu);
			fprintf(f, "  %8" PRId32 " %6s %12" PRIu64 " %12s %12s %12s\n", t->pid, v,
				t->lat.count, fmt_lat(r, t->lat.sum / t->lat.count, a, sizeof(a)),
				fmt_lat(r, t->lat.max, c1, sizeof(c1)),
				fmt_lat(r, t->max_window_sum, c2, sizeof(c2)));
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

void vmt_summary_print_json(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	size_t i;

	fprintf(f, "{\"file\":");
	vmt_json_string(f, r->path);
	fprintf(f, ",\"finished\":%s,\"begin_event\":", r->c->finished ? "true" : "false");
	vmt_json_string(f, r->begin_name);
	fprintf(f, ",\"end_event\":");
	vmt_json_string(f, r->end_name);
	fprintf(f, ",\"clock\":");
	vmt_json_string(f, r->clock);
	fprintf(f, ",\"unit\":\"%s\",\"cpus\":[", unit(r));
	for (i = 0; i < r->cpus.n; i++)
		fprintf(f, "%s%u", i ? "," : "", r->cpus.cpu[(unsigned int)i]);
	fprintf(f, "],\"duration_ns\":%" PRIu64 ",\"span_ns\":%" PRIu64,
		vmt_reader_duration_ns(r), vmt_reader_ns(r, s->last_ts - s->first_ts));
	fprintf(f, ",\"events\":%" PRIu64 ",\"pairs\":%" PRIu64 ",\"lost_events\":%" PRIu64,
		s->events, s->pairing.pairs, s->lost_events);
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
			",\"max\":%" PRIu64 "}", vmt_reader_ns(r, s->lat.min),
			vmt_reader_ns(r, s->lat.sum / s->lat.count), vmt_reader_ns(r, s->lat.max));
	else
		fprintf(f, ",\"latency_ns\":{\"min\":null,\"avg\":null,\"max\":null}");
	fprintf(f, ",\"total_ns\":%" PRIu64 ",\"window_ns\":%" PRIu64
		",\"max_window_sum_ns\":%" PRIu64 ",\"max_window_start_ns\":%" PRIu64
		",\"max_window_pid\":%" PRId32, vmt_reader_ns(r, s->lat.sum),
		vmt_reader_ns(r, s->window), vmt_reader_ns(r, s->max_window_sum),
		vmt_reader_ns(r, s->max_window_at > s->first_ts ? s->max_window_at - s->first_ts : 0),
		s->max_window_pid);
	fprintf(f, ",\"chunks\":%" PRIu64 ",\"bad_chunks\":%" PRIu64 ",\"pages\":%" PRIu64
		",\"bad_pages\":%" PRIu64 ",\"bad_records\":%" PRIu64 ",\"other_records\":%" PRIu64,
		s->rd.chunks, s->rd.bad_chunks, s->rd.pages, s->rd.bad_pages,
		s->bad_records, s->other_records);
	fprintf(f, ",\"tasks\":[");
	for (i = 0; i < s->ntasks; i++) {
		const struct vmt_task_summary *t = &s->tasks[i];

		fprintf(f, "%s{\"pid\":%" PRId32 ",\"vcpu\":", i ? "," : "", t->pid);
		if (t->has_vcpu)
			fprintf(f, "%u", t->vcpu);
		else
			fprintf(f, "null");
		fprintf(f, ",\"pairs\":%" PRIu64 ",\"min_ns\":%" PRIu64 ",\"avg_ns\":%" PRIu64
			",\"max_ns\":%" PRIu64 ",\"total_ns\":%" PRIu64 ",\"max_window_sum_ns\":%"
			PRIu64 "}", t->lat.count, vmt_reader_ns(r, t->lat.min),
			vmt_reader_ns(r, t->lat.sum / t->lat.count), vmt_reader_ns(r, t->lat.max),
			vmt_reader_ns(r, t->lat.sum), vmt_reader_ns(r, t->max_window_sum));
	}
	fprintf(f, "]}\n");
}

void vmt_summary_print_legacy(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	uint64_t avg = s->lat.count ? s->lat.sum / s->lat.count : 0;

	fprintf(f, "Number of VM events = %" PRIu64 "\n", s->events);
	fprintf(f, "Average VM Exit-Entry latency = %" PRIu64 "us\n", vmt_reader_ns(r, avg) / 1000);
	fprintf(f, "Maximum VM Exit-Entry latency = %" PRIu64 "us\n",
		vmt_reader_ns(r, s->lat.max) / 1000);
	fprintf(f, "Maximum cumulative latency within 1ms = %" PRIu64 "us\n",
		vmt_reader_ns(r, s->max_window_sum) / 1000);
}
