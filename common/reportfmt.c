// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The report's text (reportfmt.h). Tables follow one rule (timefmt.h): a unit per table
 * for latencies and one for totals, named in the table's title, four significant digits.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "evrender.h"
#include "inputopt.h"
#include "reportfmt.h"
#include "reportwhy.h"
#include "textwidth.h"
#include "timefmt.h"
#include "vmfind.h"
#include "whyfmt.h"

/* Percentiles of the tables: the default columns, and those --wide adds. */
struct pct {
	double p;
	const char *name;
	bool wide_only;
};

static const struct pct pcts[] = {
	{ 50, "p50", false }, { 90, "p90", true }, { 99, "p99", false },
	{ 99.9, "p99.9", false }, { 99.99, "p99.99", true },
};
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))

/* The text's width (--wide aside). */
#define TEXT_COLUMNS 120

/* The words of the report: KVM's, or neutral ones for any other event pair. */
struct words {
	const char *events, *pairs, *begins, *ends, *lat, *reason, *reasons, *task, *tasks;
	const char *longest, *tasks_word;
	const char *begin, *end;	/* one of begins, ends */
};

static const struct words kvm_words = {
	"Number of VM events", "Exit-entry pairs", "exits", "entries",
	"VM Exit-Entry latency", "reason", "Exit reasons", "vcpu (pid)", "Per vCPU task",
	"Longest exits", "vCPU tasks", "exit", "entry",
};

static const struct words neutral_words = {
	"Number of events", "Begin-end pairs", "begins", "ends", "latency", "id",
	"Per id (the begin event's id field)", "task (pid)", "Per task", "Longest pairs",
	"tasks", "begin", "end",
};

static const struct words *words_of(const struct vmt_reader *r)
{
	return vmt_reader_pairs_kvm(r) ? &kvm_words : &neutral_words;
}

/* The file's state after its name (the warnings say where the damage is). */
static const char *file_state(const struct vmt_reader *r, const struct vmt_summary *s)
{
	const char *state = vmt_source_state(vmt_reader_source(r), vmt_input_damaged(r, &s->rd));

	return !state ? "" : strcmp(state, "damaged") ? " (recording not finished)" : " (damaged)";
}

static void source_lines(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	const struct vmt_source *src = vmt_reader_source(r);
	const struct vmt_clock *clk = vmt_reader_clock(r);
	const struct vmt_cpulist *tcpus = vmt_reader_cpus(r);
	const char *format = vmt_source_format(src);
	char cpus[256];

	vmt_fmt_path_lines(f, "File: ", vmt_reader_path(r), file_state(r, s),
			   "  ");
	if (strcmp(format, "trace.bin") == 0) {
		const char *how = vmt_source_description(src);	/* may name a --format-dir */
		char line[512];

		snprintf(line, sizeof(line), "Format: the original vm-trace trace.bin, %s; one CPU, "
			 "not named", how);
		if (vmt_textwidth(line) <= TEXT_COLUMNS || strncmp(how, "formats from /", 14) != 0)
			fprintf(f, "%s\n", line);
		else	/* a long --format-dir: on lines of its own, as File:'s path */
			vmt_fmt_path_lines(f, "Format: the original vm-trace trace.bin, one CPU, not "
					   "named, formats from ", how + 13, "", "  ");
	} else if (strcmp(format, "trace.dat") == 0)
		fprintf(f, "Format: %s\n", vmt_source_description(src));
	fprintf(f, "Events: %s -> %s, clock %s (%s)\n", vmt_reader_begin_name(r),
		vmt_reader_end_name(r), vmt_reader_clock_name(r), vmt_fmt_unit(clk));
	fprintf(f, "Traced CPUs: %s\n", tcpus->n ? vmt_cpulist_format(tcpus, cpus, sizeof(cpus)) :
		"unknown");
}

/*
 * What lost events nobody counted: "1 damaged chunk, 3 pages flagged without a count",
 * into buf. Damaged blocks are those the reader skipped at open (the rest of the damage);
 * the chunks a copy left out are damaged chunks, as the original's were.
 */
static void uncounted_words(char *buf, size_t size, const struct vmt_reader *r,
			    const struct vmt_summary *s)
{
	const uint64_t n[4] = { s->rd.bad_chunks + s->lost_holes, s->rd.bad_pages,
				vmt_source_status(vmt_reader_source(r))->bad_blocks,
				s->lost_uncounted };
	static const char *const what[4] = { "damaged chunk", "damaged page", "damaged block",
					     "page" };
	size_t len = 0;
	unsigned int k;

	buf[0] = '\0';
	for (k = 0; k < 4; k++) {
		if (n[k] && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%" PRIu64 " %s%s%s",
						len ? ", " : "", n[k], what[k],
						n[k] == 1 ? "" : "s",
						k == 3 ? " flagged without a count" : "");
	}
	if (s->lost_end_unknown && len < size)
		snprintf(buf + len, size - len, "%sno end statistics", len ? ", " : "");
}

/*
 * A --from/--to window's losses of unknown time, on a line of their own (the lost events'
 * line is full): the unread events after its end, left out, and those it kept.
 */
static void window_lost_line(FILE *f, const struct vmt_summary *s)
{
	if (!s->lost_unread_after && !s->lost_unknown_kept)
		return;
	fprintf(f, "  (in the window:");
	if (s->lost_unread_after)
		fprintf(f, " %" PRIu64 " unread after its end left out%s", s->lost_unread_after,
			s->lost_unknown_kept ? "," : "");
	if (s->lost_unknown_kept)
		fprintf(f, " %" PRIu64 " lost at unknown times kept", s->lost_unknown_kept);
	fprintf(f, ")\n");
}

static void lost_line(FILE *f, const struct vmt_reader *r, const struct words *wd,
		      const struct vmt_summary *s)
{
	static const char tail[] = "; pairs never span a gap)";
	char why[160], line[320], unread[96] = "";

	/* events the recorder never read out (a drain cut short): lost but not a gap */
	if (s->lost_unread)
		snprintf(unread, sizeof(unread), "%" PRIu64 " unread%s; ", s->lost_unread,
			 s->drain_cut ? ": drain cut short" : " at the stop");
	if (!vmt_summary_lost_exact(s)) {
		/*
		 * The events of damaged data, or behind flagged pages without a count, are
		 * lost as much as those counted: a figure of 0 would say nothing was.
		 */
		uncounted_words(why, sizeof(why), r, s);
		if (s->lost_events)
			snprintf(line, sizeof(line), "Lost events = %" PRIu64 " and an unknown "
				 "number more (%snot counted: %s", s->lost_events, unread, why);
		else
			snprintf(line, sizeof(line), "Lost events = an unknown number (not counted: "
				 "%s", why);
		/* within 120 columns: the tail on a line of its own when the causes are many */
		if (strlen(line) + sizeof(tail) - 1 <= 120)
			fprintf(f, "%s%s\n", line, tail);
		else
			fprintf(f, "%s)\n  (pairs never span a gap)\n", line);
	} else if (s->lost_events || (!s->lost_window && s->rd.missed_pages)) {
		/* every lost begin takes its end along: half the lost events, at most */
		fprintf(f, "Lost events = %" PRIu64 " (%sup to %" PRIu64 " %s may be missing; "
			"pairs never span a gap)\n", s->lost_events, unread,
			s->lost_events / 2 + s->lost_events % 2, wd->begins);	/* no wrap */
	} else {
		fprintf(f, "Lost events = 0\n");
	}
	window_lost_line(f, s);
}

/* their reason column: the longest exits' narrowest, so that a row fits 120 columns */
#define EXIT_ROW_REASON_OPEN 22

/*
 * "web1/vcpu0 (pid 1234)" for a vCPU thread the --vm map knows, else "vCPU (pid)"; a task
 * without a vCPU: "comm (pid)" when the context events named it, else "- (pid)". Whole:
 * the tables cut it to their name column. The one rule for the tables' tasks and the exits
 * open at the stop (whose task may have no pair, so no table row, but a name).
 */
static char *task_name(const struct vmt_reader *r, int32_t pid, bool has_vcpu, unsigned int vcpu,
		       const char *comm, char *buf, size_t size)
{
	const struct vmt_vmmap *m = vmt_reader_vmmap(r);

	if (m && vmt_vmmap_label(m, pid, buf, size))
		return buf;
	if (has_vcpu)
		snprintf(buf, size, "%u (%" PRId32 ")", vcpu, pid);
	else
		snprintf(buf, size, "%s (%" PRId32 ")", comm[0] ? comm : "-", pid);
	return buf;
}

static const char *exit_reason(const struct vmt_summary *s, const struct vmt_event *e,
			       char *buf, size_t size);

/*
 * The exits still open at the stop, longest first, under the orphans' line: a vCPU stuck
 * out of its guest (a lock, a hung device, a stopped VMM) shows as one of them. Their
 * time runs to the last event of the recording: at least that long, the recorder stopped
 * later.
 */
/*
 * Where the exits still open are open: at the stop, or, in a file cut short or still
 * being written, at its end (the recorder may have seen their entries later).
 */
static const char *open_at(const struct vmt_reader *r)
{
	return vmt_source_status(vmt_reader_source(r))->finished ? "stop" : "the file's end";
}

static const char *unfinished_note(const struct words *wd)
{
	return wd == &kvm_words ?
	       "(the recording was not finished: their entries may be in what was not written)" :
	       "(the recording was not finished: their ends may be in what was not written)";
}

static void open_lines(FILE *f, const struct vmt_reader *r, const struct words *wd,
		       const struct vmt_summary *s, bool wide)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	bool finished = vmt_source_status(vmt_reader_source(r))->finished;
	char label[320], task[320], rs[320], reason[320], at[48], open[48], kept[64] = "";
	size_t i;

	/* the count above is the recording's; the list, the filters' (in words when fewer) */
	if (!s->nopen && s->pairing.unfinished)
		fprintf(f, "  Open at %s: none of them kept by the filters\n", open_at(r));
	if (!s->nopen && s->pairing.unfinished && !finished)
		fprintf(f, "    %s\n", unfinished_note(wd));
	if (!s->nopen)
		return;
	if (s->nopen < s->pairing.unfinished)
		snprintf(kept, sizeof(kept), "%zu of them kept by the filters", s->nopen);
	/* not finished: the count goes under the head, which would pass 120 columns */
	fprintf(f, "  Open at %s%s%s, not %s %s at %s %s (longest first):\n",
		open_at(r), finished && kept[0] ? ", " : "", finished ? kept : "",
		wd == &kvm_words ? "entered" : "ended",
		s->open_until_stop ? "when tracing stopped" : "by the last event",
		vmt_fmt_time(clk, s->start_ts, s->open_until, at, sizeof(at)),
		vmt_fmt_time_unit(clk));
	if (!finished)
		fprintf(f, "    %s\n", unfinished_note(wd));
	if (!finished && kept[0])
		fprintf(f, "    (%s)\n", kept);
	for (i = 0; i < s->nopen && i < VMT_SUMMARY_OPEN_ROWS; i++) {
		const struct vmt_open *o = &s->open[i];

		/* --wide: the names whole, as the tables give them */
		vmt_fmt_fit(task_name(r, o->exit.pid, o->exit.has & VMT_EVF_VCPU, o->exit.vcpu,
				      o->comm, label, sizeof(label)),
			    wide ? sizeof(task) - 1 : VMT_WHY_LABEL_COLS, task, sizeof(task));
		vmt_fmt_fit(exit_reason(s, &o->exit, rs, sizeof(rs)),
			    wide ? sizeof(reason) - 1 : EXIT_ROW_REASON_OPEN, reason,
			    sizeof(reason));
		fprintf(f, "    %s  pcpu %u  %s  from %s %s  open %s\n", task, o->exit.cpu, reason,
			vmt_fmt_time(clk, s->start_ts, o->exit.ts, at, sizeof(at)),
			vmt_fmt_time_unit(clk), vmt_fmt_lat(clk, o->open, open, sizeof(open)));
		if (o->lost_since)
			fprintf(f, "      its pCPU lost events since: its %s may be among them\n",
				wd->end);
		else if (o->lost_unplaced)
			fprintf(f, "      its pCPU lost events no page places: its %s may be among "
				"them\n", wd->end);
		/* (none when the exit is itself the last event: nothing to break down) */
		if (o->has_why && o->open) {
			fputs("      so far: ", f);
			vmt_why_text_vm(f, clk, &o->why, o->open, wide ? 0 : 120 - 14,
					vmt_reader_vmmap(r));
			fputc('\n', f);
		}
	}
	if (s->nopen > VMT_SUMMARY_OPEN_ROWS)
		fprintf(f, "    and %zu more (--json lists them all: open_exits)\n",
			s->nopen - VMT_SUMMARY_OPEN_ROWS);
}

static void count_lines(FILE *f, const struct vmt_reader *r, const struct words *wd,
			const struct vmt_summary *s, bool wide)
{
	fprintf(f, "%s = %" PRIu64 "\n", wd->events, s->events);
	fprintf(f, "%s = %" PRIu64 "\n", wd->pairs, s->pairing.pairs);
	if (s->filtered_out)
		fprintf(f, "Pairs left out by the filters = %" PRIu64 "\n", s->filtered_out);
	lost_line(f, r, wd, s);
	fprintf(f, "Orphan events = %" PRIu64 " (%" PRIu64 " %s without %s, %" PRIu64
		" %s without %s, %" PRIu64 " open at %s)\n", vmt_summary_orphans(s),
		s->pairing.orphan_begins, s->pairing.orphan_begins == 1 ? wd->begin : wd->begins,
		wd->end, s->pairing.orphan_ends, s->pairing.orphan_ends == 1 ? wd->end : wd->ends,
		wd->begin,
		s->pairing.unfinished, open_at(r));
	open_lines(f, r, wd, s, wide);
	if (s->pairing.gap_dropped)
		fprintf(f, "Pairs dropped at lost-event gaps = %" PRIu64 "\n",
			s->pairing.gap_dropped);
	if (s->pairing.backwards)
		fprintf(f, "Pairs with the end before the begin (clock skew) = %" PRIu64 "\n",
			s->pairing.backwards);
}

static void latency_lines(FILE *f, const struct vmt_reader *r, const struct words *wd,
			  const struct vmt_summary *s)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	uint64_t avg = vmt_latstat_avg(&s->lat);
	char a[48], b[48], c[48];

	fprintf(f, "Minimum %s = %s\n", wd->lat, vmt_fmt_lat(clk, s->lat.min, a, sizeof(a)));
	fprintf(f, "Average %s = %s\n", wd->lat, vmt_fmt_lat(clk, avg, a, sizeof(a)));
	fprintf(f, "Maximum %s = %s\n", wd->lat, vmt_fmt_lat(clk, s->lat.max, a, sizeof(a)));
	/* the sum in the window's own unit, cut: it never reads above the window */
	{
		struct vmt_unit u = vmt_unit_for(clk, vmt_clock_ticks(clk, s->window_ns));

		/* without a known tick length --window has no ticks: its number is taken */
		if (vmt_clock_in_ns(clk))
			vmt_fmt_exact_ns(s->window_ns, b, sizeof(b));
		else
			snprintf(b, sizeof(b), "%" PRIu64 " ticks", s->window);
		if (s->max_window_pid < 0)	/* no task's window holds any time */
			fprintf(f, "Maximum cumulative latency within %s = 0 %s (no pair took "
				"any time)\n", b, u.name);
		else
			fprintf(f, "Maximum cumulative latency within %s = %s %s (task %" PRId32
				", window starting at %s %s)\n", b,
				vmt_fmt_in(clk, s->max_window_sum, u, a, sizeof(a)), u.name,
				s->max_window_pid, vmt_fmt_time(clk, s->start_ts, s->max_window_at,
								c, sizeof(c)),
				vmt_fmt_time_unit(clk));
		if (!vmt_clock_in_ns(clk))
			fprintf(f, "  (clock %s: the length of its ticks is not known, so the window "
				"is --window's number of ns taken as ticks)\n",
				vmt_reader_clock_name(r));
	}
}

/* The summary block: what vmtrace-record prints at its end, and the report's first part. */
static void summary_block(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
			  bool wide)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	uint64_t dur = s->last_ts - s->first_ts, rec_ns = vmt_reader_duration_ns(r);
	const struct words *wd = words_of(r);
	char a[48], b[48];

	source_lines(f, r, s);
	if (rec_ns)
		fprintf(f, "Duration: %s recorded, events span %s\n",
			vmt_format_ns(rec_ns, b, sizeof(b)), vmt_fmt_lat(clk, dur, a, sizeof(a)));
	else
		fprintf(f, "Duration: events span %s\n", vmt_fmt_lat(clk, dur, a, sizeof(a)));
	count_lines(f, r, wd, s, wide);
	if (!s->lat.count) {
		/* pairs there were, but none the filters kept: not "no pairs" */
		if (s->filtered_out)
			fprintf(f, "None of these pairs selected by the filters: no latency figures "
				"(standard error says what the recording has)\n");
		else
			fprintf(f, "No %s: no latency figures\n", wd == &kvm_words ?
				"exit-entry pairs" : "begin-end pairs");
		return;
	}
	latency_lines(f, r, wd, s);
}

/* The tables' first column: a label wider than this pushes the row's figures right. */
#define TASK_LABEL_COLUMNS 24

char *vmt_report_task_name(int32_t pid, const char *comm, int columns, char *buf, size_t size)
{
	char whole[64];

	snprintf(whole, sizeof(whole), "%s (%" PRId32 ")", comm && comm[0] ? comm : "-", pid);
	return vmt_fmt_fit(whole, columns > 0 ? (unsigned int)columns : 1, buf, size);
}

static char *comm_label(const struct vmt_group *t, char *buf, size_t size)
{
	return vmt_report_task_name(t->pid, t->comm, TASK_LABEL_COLUMNS, buf, size);
}

void vmt_report_summary_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	const struct vmt_vmmap *vm = vmt_reader_vmmap(r);	/* labels from --vm */
	bool kvm = words_of(r) == &kvm_words;
	size_t i, n = s->ntasks < 10 ? s->ntasks : 10;
	char a[32], b[32], c[32], name[64];
	bool named = false;

	summary_block(f, r, s, false);
	if (!n || !s->lat.count)
		return;
	/* tasks the context events named are "comm (pid)", as in the report's tables */
	for (i = 0; i < n; i++)
		named |= s->tasks[i].comm[0] != '\0';
	fprintf(f, "Tasks (most pairs first%s):\n", s->ntasks > n ? ", top 10" : "");
	/* a vCPU column for KVM's pair only: other pairs' tasks have none */
	if (named)
		fprintf(f, "  %-*s", TASK_LABEL_COLUMNS, "task");
	else
		fprintf(f, "  %8s", "pid");
	fprintf(f, "%s %12s %12s %12s %12s%s\n", kvm ? "   vcpu" : "", "pairs", "avg", "max",
		"max/window", vm ? "  vm" : "");
	for (i = 0; i < n; i++) {
		const struct vmt_group *t = &s->tasks[i];
		char v[16], whole[320], label[320];
		/* the VM's label ends the line: cut to what is left of 120 columns */
		unsigned int room = TEXT_COLUMNS - (2 + (named ? TASK_LABEL_COLUMNS : 8) +
						    (kvm ? 7 : 0) + 4 * 13 + 2);

		if (t->has_vcpu)
			snprintf(v, sizeof(v), " %6u", t->vcpu);
		else
			snprintf(v, sizeof(v), " %6s", "-");
		if (!vm || !vmt_vmmap_label(vm, t->pid, whole, sizeof(whole)))
			whole[0] = '\0';
		label[0] = label[1] = ' ';
		vmt_fmt_fit(whole, room, label + 2, sizeof(label) - 2);
		/* padded in display columns: a UTF-8 comm keeps the figures under their titles */
		if (named) {
			comm_label(t, name, sizeof(name));
			fprintf(f, "  %-*s", vmt_textwidth_pad(name, TASK_LABEL_COLUMNS), name);
		} else {
			fprintf(f, "  %8" PRId32, t->pid);
		}
		fprintf(f, "%s %12" PRIu64 " %12s %12s %12s%s\n", kvm ? v : "", t->d.st.count,
			vmt_fmt_lat(clk, vmt_latstat_avg(&t->d.st), a, sizeof(a)),
			vmt_fmt_lat(clk, t->d.st.max, b, sizeof(b)),
			vmt_fmt_lat(clk, t->max_window_sum, c, sizeof(c)), whole[0] ? label : "");
	}
}

/* A table of groups: its units and the width of its names, fixed once for all its rows. */
struct table {
	const struct vmt_reader *r;
	const struct vmt_summary *s;
	const struct vmt_report_style *st;
	struct vmt_unit lat, total;
	unsigned int name_cols;
};

static struct table table_for(const struct vmt_reader *r, const struct vmt_summary *s,
			      const struct vmt_report_style *st)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	struct table t = { r, s, st, vmt_unit_for(clk, s->lat.max),
			   vmt_unit_for_total(clk, vmt_latstat_total(&s->lat)), VMT_NAME_COLUMNS };

	return t;
}

/* The figures of a group table's row: count, shares, total, min, avg, percentiles, max. */
static unsigned int table_rest(const struct table *t)
{
	unsigned int k, n = 0;

	for (k = 0; k < NPCT; k++)
		n += !pcts[k].wide_only || t->st->wide;
	return 2 + 10 + 7 + 10 + 7 + 10 + 10 + (t->st->wide ? 10 : 0) + 10 * n + 10;
}

static void table_header(FILE *f, const struct table *t, const char *title, const char *what)
{
	unsigned int k;

	fprintf(f, "\n%s; latencies in %s, totals in %s:\n", title, t->lat.name, t->total.name);
	fprintf(f, "  %-*s %9s %6s %9s %6s %9s %9s", (int)t->name_cols, what, "count", "count%",
		"total", "time%", "min", "avg");
	if (t->st->wide)
		fprintf(f, " %9s", "stddev");
	for (k = 0; k < NPCT; k++) {
		if (!pcts[k].wide_only || t->st->wide)
			fprintf(f, " %9s", pcts[k].name);
	}
	fprintf(f, " %9s\n", "max");
}

/* A figure in its 9-column cell: cut to fit rather than pushing the row's columns right. */
static char *cell9(const struct vmt_clock *c, uint64_t ticks, struct vmt_unit u, char *buf,
		   size_t size)
{
	return vmt_fmt_in_cols(c, ticks, u, 9, buf, size);
}

/* One row: count, shares, total, min, avg, (stddev), percentiles, max. */
static void table_row(FILE *f, const struct table *t, const char *label, const struct vmt_group *g)
{
	const struct vmt_clock *clk = vmt_reader_clock(t->r);
	const struct vmt_latdist *d = &g->d;
	const struct vmt_summary *s = t->s;
	char b[32], name[320];
	unsigned int k;

	vmt_fmt_fit(label, t->name_cols, name, sizeof(name));
	fprintf(f, "  %-*s %9" PRIu64 " %6.2f", vmt_textwidth_pad(name, t->name_cols), name,
		d->st.count,
		vmt_share_pct(d->st.count, s->lat.count, 2));
	fprintf(f, " %9s", cell9(clk, vmt_latstat_total(&d->st), t->total, b, sizeof(b)));
	fprintf(f, " %6.2f", vmt_latstat_share(&d->st, &s->lat));
	fprintf(f, " %9s", cell9(clk, d->st.min, t->lat, b, sizeof(b)));
	fprintf(f, " %9s", cell9(clk, vmt_latstat_avg(&d->st), t->lat, b,
				       sizeof(b)));
	if (t->st->wide)
		fprintf(f, " %9s", cell9(clk, (uint64_t)vmt_latdist_stddev(d), t->lat, b,
					       sizeof(b)));
	for (k = 0; k < NPCT; k++) {
		if (!pcts[k].wide_only || t->st->wide)
			fprintf(f, " %9s", cell9(clk, vmt_latdist_percentile(d, pcts[k].p),
						       t->lat, b, sizeof(b)));
	}
	fprintf(f, " %9s\n", cell9(clk, d->st.max, t->lat, b, sizeof(b)));
}

/* A table's task: task_name()'s rule. */
static char *task_label(const struct vmt_reader *r, const struct vmt_group *t, char *buf,
			size_t size)
{
	return task_name(r, t->pid, t->has_vcpu, t->vcpu, t->comm, buf, size);
}

static void percentile_line(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	char a[48];
	unsigned int k;
	bool ticks = !vmt_clock_in_ns(clk);
	const struct vmt_unit tk = { "ticks", 1 };

	/*
	 * ticks: the unit once, not after each of six figures, and past 10 digits (damaged
	 * timestamps) as a mantissa, so the line stays in 120 columns
	 */
	fprintf(f, ticks ? "Percentiles in ticks:" : "Percentiles:");
	for (k = 0; k < NPCT; k++) {
		uint64_t v = vmt_latdist_percentile(&s->all, pcts[k].p);

		if (ticks)
			vmt_fmt_in_cols(clk, v, tk, 10, a, sizeof(a));
		fprintf(f, " %s %s", pcts[k].name, ticks ? a : vmt_fmt_lat(clk, v, a, sizeof(a)));
	}
	if (ticks)
		fprintf(f, "; stddev %s\n", vmt_fmt_in_cols(clk, (uint64_t)vmt_latdist_stddev(&s->all),
							    tk, 10, a, sizeof(a)));
	else
		fprintf(f, "; stddev %s\n", vmt_fmt_lat(clk, (uint64_t)vmt_latdist_stddev(&s->all),
						      a, sizeof(a)));
}

/* Whether some task's span has time in which its events may have been lost. */
static bool any_unknown(const struct vmt_summary *s)
{
	size_t i;

	for (i = 0; i < s->ntasks; i++) {
		if (vmt_summary_unknown(&s->tasks[i]))
			return true;
	}
	return false;
}

static void availability_line(FILE *f, const struct vmt_summary *s)
{
	const char *label = s->filtered_out ? " (selected exits only)" : "";
	double sum = 0, worst = 100.0;
	size_t i, n = 0, gapped = 0;

	for (i = 0; i < s->ntasks; i++) {
		double av = vmt_summary_in_guest(&s->tasks[i]);

		if (!vmt_summary_in_guest_known(&s->tasks[i])) {
			gapped += s->tasks[i].d.st.count > 1;	/* its span all lost */
			continue;
		}
		n++;
		sum += av;
		if (av < worst)
			worst = av;
	}
	/* a task of one exit has no time in the guest to measure: not 0 %, left out */
	if (!n) {
		fprintf(f, "Guest availability%s: not known: %s (no guest time between exits)\n",
			label, gapped ? "no vCPU task's span is known" : s->ntasks == 1 ?
			"the vCPU task has one exit" : "each vCPU task has one exit");
		return;
	}
	/* with filters only the selected exits count: the figure is not the guest's time */
	if (s->filtered_out)
		fprintf(f, "Guest availability%s: %.3f %% on average over %zu vCPU task(s), %.3f "
			"%% at worst\n", label, vmt_pct_cut(sum / (double)n, 3), n,
			vmt_pct_cut(worst, 3));
	else
		fprintf(f, "Guest availability: %.3f %% on average over %zu vCPU task(s), %.3f %% "
			"at worst (first exit to last entry)\n",
			vmt_pct_cut(sum / (double)n, 3), n, vmt_pct_cut(worst, 3));
	if (n < s->ntasks)
		fprintf(f, "  not counting %zu vCPU task(s) %s: no guest time between exits to "
			"measure (\"-\" below)\n", s->ntasks - n,
			gapped ? "of one exit or a span all lost" : "of one exit");
	/* a hole's time is neither in the guest nor out of it: counted as either, it lies */
	if (any_unknown(s))
		fprintf(f, "  less, per task, the time its events may have been lost in gaps "
			"(the \"gap\" column of the vCPU table)\n");
}

/*
 * Tables of tasks stay readable on a host with hundreds of them (a syscall pair traced on
 * every CPU has thousands): past TASK_ROWS, the rows of the TASK_ROWS tasks with the most
 * time out, in the usual order, and a line for the rest; --wide and JSON have every one.
 */
#define TASK_ROWS 32

static int by_total_desc(const void *a, const void *b, void *arg)
{
	const struct vmt_group *g = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	unsigned __int128 tx = g[x].d.st.sum, ty = g[y].d.st.sum;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return x < y ? -1 : 1;
}

/* shown[i]: whether task i has a row. NULL when every task has one (or out of memory). */
static bool *tasks_shown(const struct vmt_summary *s, const struct vmt_report_style *st)
{
	size_t *order, i;
	bool *shown;

	if (st->wide || s->ntasks <= TASK_ROWS)
		return NULL;
	order = malloc(s->ntasks * sizeof(*order));
	shown = calloc(s->ntasks, sizeof(*shown));
	if (!order || !shown) {
		free(order);
		free(shown);
		return NULL;
	}
	for (i = 0; i < s->ntasks; i++)
		order[i] = i;
	qsort_r(order, s->ntasks, sizeof(*order), by_total_desc, s->tasks);
	for (i = 0; i < TASK_ROWS; i++)
		shown[order[i]] = true;
	free(order);
	return shown;
}

static void tasks_not_shown(FILE *f, const struct table *t, const bool *shown, const char *what,
			    const char *pairs_word)
{
	const struct vmt_summary *s = t->s;
	struct vmt_latstat rest = { .sum = 0 };
	uint64_t count = 0;
	size_t i;

	if (!shown)
		return;
	for (i = 0; i < s->ntasks; i++) {
		if (!shown[i]) {
			count += s->tasks[i].d.st.count;
			rest.sum += s->tasks[i].d.st.sum;
		}
	}
	fprintf(f, "  (%zu more %s, %" PRIu64 " %s, %.2f %% of the time: --wide or --json "
		"lists every one)\n", s->ntasks - TASK_ROWS, what, count, pairs_word,
		vmt_latstat_share(&rest, &s->lat));
}

static void window_table(FILE *f, const struct table *t, const struct words *wd,
			 const bool *shown)
{
	const struct vmt_clock *clk = vmt_reader_clock(t->r);
	const struct vmt_summary *s = t->s;
	struct vmt_unit u = vmt_unit_for(clk, vmt_clock_ticks(clk, s->window_ns));
	bool gaps = wd == &kvm_words && any_unknown(s);
	char label[320], name[320], a[32], b[48], w[32], gap[48], at[48];
	size_t i, longest = 0;
	unsigned int cols;

	for (i = 0; i < s->ntasks; i++) {
		size_t n = vmt_textwidth(task_label(t->r, &s->tasks[i], label, sizeof(label)));

		if ((!shown || shown[i]) && n > longest)
			longest = n;
	}
	cols = vmt_fmt_name_cols(longest, 2 + 10 + 17 + 17 + (gaps ? 13 : 0), t->st->wide);
	fprintf(f, "  %-*s %9s %16s %16s%s\n", (int)cols, wd->task,
		wd == &kvm_words ? "in guest" : "", "max/window", "window starts at",
		gaps ? "          gap" : "");
	for (i = 0; i < s->ntasks; i++) {
		const struct vmt_group *g = &s->tasks[i];

		if (shown && !shown[i])
			continue;
		snprintf(w, sizeof(w), "%s %s", vmt_fmt_in(clk, g->max_window_sum, u, a, sizeof(a)),
			 u.name);
		if (wd == &kvm_words && vmt_summary_in_guest_known(g))
			snprintf(a, sizeof(a), "%.3f%%", vmt_pct_cut(vmt_summary_in_guest(g), 3));
		else if (wd == &kvm_words)
			snprintf(a, sizeof(a), "-");
		else
			a[0] = '\0';
		/* the time left out of its span: its events may have been lost then */
		if (gaps)
			snprintf(gap, sizeof(gap), " %12s", vmt_summary_unknown(g) ?
				 vmt_fmt_lat(clk, vmt_summary_unknown(g), b, sizeof(b)) : "-");
		snprintf(at, sizeof(at), "%s %s",
			 vmt_fmt_time(clk, s->start_ts, g->max_window_at, b, sizeof(b)),
			 vmt_fmt_time_unit(clk));
		vmt_fmt_fit(task_label(t->r, g, label, sizeof(label)), cols, name, sizeof(name));
		fprintf(f, "  %-*s %9s %16s %16s%s\n", vmt_textwidth_pad(name, cols), name, a, w,
			at, gaps ? gap : "");
	}
}

static void group_tables(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
			 const struct vmt_report_style *st, const bool *shown)
{
	const struct words *wd = words_of(r);
	struct table t = table_for(r, s, st);
	char label[320], title[256];
	size_t i, longest;

	if (s->nreasons) {
		for (i = 0, longest = 0; i < s->nreasons; i++) {
			const struct vmt_group *g = &s->reasons[i];
			size_t n = vmt_textwidth(vmt_summary_reason(s, g->isa, g->key, label,
								    sizeof(label)));

			longest = n > longest ? n : longest;
		}
		t.name_cols = vmt_fmt_name_cols(longest, table_rest(&t), st->wide);
		if (wd == &kvm_words)
			snprintf(title, sizeof(title), "%s, most total time first, names from %s",
				 wd->reasons, vmt_exitreasons_from_recording(s->names) ?
				 "the recording's format" : "the built-in table");
		else
			snprintf(title, sizeof(title), "%s, most total time first", wd->reasons);
		table_header(f, &t, title, wd->reason);
		for (i = 0; i < s->nreasons; i++)
			table_row(f, &t, vmt_summary_reason(s, s->reasons[i].isa, s->reasons[i].key,
							    label, sizeof(label)), &s->reasons[i]);
	}
	if (s->ncpus) {
		bool gaps = false;

		/* "12 (3 gaps)": far from VMT_NAME_COLUMNS */
		t.name_cols = VMT_NAME_COLUMNS;
		table_header(f, &t, strcmp(vmt_source_format(vmt_reader_source(r)), "trace.bin") ?
				 "Per pCPU (of the begin event)" :
				 "Per pCPU (a trace.bin does not name its one CPU: shown as 0)", "cpu");
		for (i = 0; i < s->ncpus; i++) {
			/* a pCPU that lost events (a gap, damaged data) lacks some of its exits */
			if (s->cpus[i].gaps)
				snprintf(label, sizeof(label), "%" PRIu64 " (%" PRIu64 " gap%s)",
					 s->cpus[i].key, s->cpus[i].gaps,
					 s->cpus[i].gaps == 1 ? "" : "s");
			else
				snprintf(label, sizeof(label), "%" PRIu64, s->cpus[i].key);
			gaps |= s->cpus[i].gaps != 0;
			table_row(f, &t, label, &s->cpus[i]);
		}
		if (gaps)
			fprintf(f, "  (N gaps): that pCPU lost events N times (see Lost events): "
				"its figures lack those %s\n", wd == &kvm_words ?
				"exits" : "pairs");
	}
	if (s->ntasks) {
		if (shown)
			/* chosen by time, listed as every task table is: most pairs first */
			snprintf(title, sizeof(title), "%s, the %d with the most time (most %s "
				 "first)", wd->tasks, TASK_ROWS, wd->begins);
		for (i = 0, longest = 0; i < s->ntasks; i++) {
			size_t n = vmt_textwidth(task_label(r, &s->tasks[i], label, sizeof(label)));

			if ((!shown || shown[i]) && n > longest)
				longest = n;
		}
		t.name_cols = vmt_fmt_name_cols(longest, table_rest(&t), st->wide);
		table_header(f, &t, shown ? title : wd->tasks, wd->task);
		for (i = 0; i < s->ntasks; i++) {
			if (!shown || shown[i])
				table_row(f, &t, task_label(r, &s->tasks[i], label, sizeof(label)),
					  &s->tasks[i]);
		}
		tasks_not_shown(f, &t, shown, wd->tasks_word, wd == &kvm_words ? "exits" : "pairs");
		window_table(f, &t, wd, shown);
	}
}

void vmt_report_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
		     const struct vmt_report_style *st)
{
	char *kernel = vmt_reader_meta(r, "kernel.release");
	char *host = vmt_reader_meta(r, "hostname");
	char *start = vmt_reader_meta(r, "time.start");
	const struct words *wd = words_of(r);
	bool *shown;
	size_t i;

	if (kernel || host || start)
		fprintf(f, "Recorded on %s (Linux %s)%s%s\n", host ? host : "?",
			kernel ? kernel : "?", start ? ", started " : "", start ? start : "");
	free(kernel);
	free(host);
	free(start);
	summary_block(f, r, s, st && st->wide);
	if (!s->lat.count)
		return;
	percentile_line(f, r, s);
	if (s->ntasks && wd == &kvm_words)
		availability_line(f, s);
	/* the tasks the tables list, and the worst windows broken down under them */
	shown = tasks_shown(s, st);
	group_tables(f, r, s, st, shown);
	vmt_report_why_text(f, r, s, shown);
	free(shown);
	if (s->ntop) {
		size_t longest = 0;
		unsigned int cols;

		for (i = 0; i < s->ntop; i++) {
			size_t n = vmt_report_exit_reason_len(s, &s->top[i].exit);

			longest = n > longest ? n : longest;
		}
		cols = vmt_report_exit_reason_cols(longest, st);
		fprintf(f, "\n%s:\n", wd->longest);
		vmt_report_exit_header(f, r, cols);
		for (i = 0; i < s->ntop; i++)
			vmt_report_exit_row(f, r, s, st, cols, &s->top[i].exit, s->top[i].lat,
					    s->top[i].has_why ? &s->top[i].why : NULL);
	}
}

/*
 * The exit rows' width, and where their fields start: the fixed columns of the header
 * and the rows ("  %14s %4s %5s %8s %-*s %10s ", the reason's width given), each field
 * then " name 0xvalue"; the reason column is at least EXIT_ROW_REASON wide, and at most
 * so wide that a 64-bit RIP (" rip 0x" and 16 digits) still ends within the row's width.
 */
#define EXIT_ROW_COLUMNS 120
#define EXIT_ROW_FIELDS_AT(reason) (2 + 14 + 1 + 4 + 1 + 5 + 1 + 8 + 1 + (reason) + 1 + 10 + 1)
#define EXIT_ROW_REASON 22
#define EXIT_ROW_REASON_MAX (EXIT_ROW_COLUMNS - EXIT_ROW_FIELDS_AT(0) - 23)

/* An exit's reason as the rows show it ("-": none), into buf. */
static const char *exit_reason(const struct vmt_summary *s, const struct vmt_event *e,
			       char *buf, size_t size)
{
	if (!(e->has & VMT_EVF_REASON))
		return "-";
	return vmt_summary_reason(s, e->isa, vmt_exitreason_key(e->isa, e->reason), buf, size);
}

size_t vmt_report_exit_reason_len(const struct vmt_summary *s, const struct vmt_event *e)
{
	char label[320];

	return vmt_textwidth(exit_reason(s, e, label, sizeof(label)));
}

unsigned int vmt_report_exit_reason_cols(size_t longest, const struct vmt_report_style *st)
{
	if (!st->wide && longest > EXIT_ROW_REASON_MAX)
		longest = EXIT_ROW_REASON_MAX;
	return longest > EXIT_ROW_REASON ? (unsigned int)longest : EXIT_ROW_REASON;
}

void vmt_report_exit_header(FILE *f, const struct vmt_reader *r, unsigned int reason_cols)
{
	const struct words *wd = words_of(r);
	char tu[16];

	snprintf(tu, sizeof(tu), "time (%s)", vmt_fmt_time_unit(vmt_reader_clock(r)));
	fprintf(f, "  %14s %4s %5s %8s %-*s %10s  %s\n", tu, "pcpu",
		wd == &kvm_words ? "vcpu" : "", "pid", (int)reason_cols, wd->reason, "latency",
		"fields");
}

void vmt_report_exit_row(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
			 const struct vmt_report_style *st, unsigned int reason_cols,
			 const struct vmt_event *e, uint64_t lat, const struct vmt_why *why)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	char v[16], ts[32], l[32], label[320], reason[320];
	int col;

	/* another pair has no vCPU column title: nor a "-" under it */
	if (e->has & VMT_EVF_VCPU)
		snprintf(v, sizeof(v), "%u", e->vcpu);
	else
		snprintf(v, sizeof(v), "%s", words_of(r) == &kvm_words ? "-" : "");
	vmt_fmt_fit(exit_reason(s, e, label, sizeof(label)), reason_cols, reason, sizeof(reason));
	/* the space before the fields only when there are some: no row ends in a blank */
	col = fprintf(f, "  %14s %4u %5s %8" PRId32 " %-*s %10s%s",
		      vmt_fmt_time(clk, s->start_ts, e->ts, ts, sizeof(ts)), e->cpu, v, e->pid,
		      vmt_textwidth_pad(reason, reason_cols), reason,
		      vmt_fmt_lat(clk, lat, l, sizeof(l)),
		      vmt_hexfields_any(e, st->wide) ? " " : "");
	/* the row's columns so far, not its bytes: where its fields wrap depends on them */
	if (col > 0)
		col -= (int)(strlen(reason) - vmt_textwidth(reason));
	/*
	 * the guest RIP always, the other fields when --wide or when they say something; a
	 * field that would end past column 120 continues under the header's "fields" (as -v
	 * wraps them, evdump.c), --wide keeps the row one line
	 */
	vmt_hexfields_text(f, e, st->wide, col > 0 ? (unsigned int)col : 0,
			   st->wide ? 0 : EXIT_ROW_COLUMNS, EXIT_ROW_FIELDS_AT(reason_cols));
	fputc('\n', f);
	vmt_report_why_line(f, r, why, lat, st->wide);
}

void vmt_report_legacy(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	uint64_t avg = vmt_latstat_avg(&s->lat);

	fprintf(f, "Number of VM events = %" PRIu64 "\n", s->events);
	fprintf(f, "Average VM Exit-Entry latency = %" PRIu64 "us\n", vmt_clock_ns(clk, avg) / 1000);
	fprintf(f, "Maximum VM Exit-Entry latency = %" PRIu64 "us\n",
		vmt_clock_ns(clk, s->lat.max) / 1000);
	/*
	 * The original's spelling, "within 1ms", for any window: whole ms (vmtrace-report
	 * refuses others with --legacy, report/reportcheck.c); whole microseconds, cut, never
	 * above the window.
	 */
	fprintf(f, "Maximum cumulative latency within %" PRIu64 "ms = %" PRIu64 "us\n",
		s->window_ns / 1000000, vmt_clock_ns(clk, s->max_window_sum) / 1000);
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

/* A --bucket value that puts max in the last of n buckets or before: 1, 2 or 5 x 10^k ns. */
static void wide_bucket(uint64_t max_ns, unsigned int n, char *buf, size_t size)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	uint64_t need = max_ns / n + 1, w = 1, step = 0;
	unsigned int u = 0;

	while (w < need) {
		w = w / (step % 3 == 1 ? 2 : 1) * (step % 3 == 1 ? 5 : 2);
		step++;
	}
	while (u < 3 && w % 1000 == 0) {
		w /= 1000;
		u++;
	}
	snprintf(buf, size, "%" PRIu64 "%s", w, unit[u]);
}

/*
 * Most pairs past the last bucket say little in the rows: say so, and the width that
 * would hold the longest (a tenth is the threshold: a tail is what histograms are for);
 * for log2 buckets, which have no width, how many of them would (bucket b holds 2^b to
 * 2^(b+1) - 1 ticks, summary.c's hist_index()).
 */
static void hist_over_note(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
			   uint64_t over)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	char end[48], width[48], max[48], head[160];
	int n;

	if (!s->lat.count || over * 10 <= s->lat.count)
		return;
	if (s->hist_log)
		snprintf(width, sizeof(width), "%u", s->lat.max < 2 ? 1u :
			 64u - (unsigned int)__builtin_clzll(s->lat.max));
	else
		wide_bucket(vmt_clock_ns(clk, s->lat.max), s->hist_buckets, width, sizeof(width));
	if (vmt_clock_in_ns(clk))
		vmt_format_ns(bucket_low_ns(r, s, s->hist_buckets), end, sizeof(end));
	else	/* ticks of no known length: the end in ticks; --bucket's ns are taken as ticks */
		vmt_fmt_lat(clk, bucket_low_ns(r, s, s->hist_buckets), end, sizeof(end));
	n = snprintf(head, sizeof(head), "Note: %" PRIu64 " of %" PRIu64 " pairs (%.1f %%) are over "
		     "the last bucket, which ends at %s;", over, s->lat.count,
		     vmt_pct_cut(100.0 * (double)over / (double)s->lat.count, 1), end);
	vmt_fmt_lat(clk, s->lat.max, max, sizeof(max));
	/* the advice on a line of its own when the note would pass 120 columns */
	fprintf(f, "%s%s--bucket%s %s%s would hold the longest (%s)\n", head,
		vmt_clock_in_ns(clk) && n + 36 + (s->hist_log ? 1 : 0) + strlen(width) + strlen(max) <= 120 ? " " : "\n  ",
		s->hist_log ? "s" : "", width,
		vmt_clock_in_ns(clk) || s->hist_log ? "" : " (its ns taken as ticks)", max);
}

/* The per-pCPU distribution of the histogram's column row, or NULL. */
static const struct vmt_latstat *hist_cpu_stat(const struct vmt_summary *s, unsigned int row)
{
	const struct vmt_latstat *st = NULL;
	size_t i;

	for (i = 0; i < s->ncpus; i++) {
		if (s->cpus[i].key == s->hist_cpu[row])
			st = &s->cpus[i].d.st;
	}
	return st && st->count ? st : NULL;
}

/* The min, avg or max (k 0, 1, 2) of a distribution as the histogram shows it ("-": none). */
static const char *hist_stat(const struct vmt_clock *clk, const struct vmt_latstat *st,
			     unsigned int k, char *buf, size_t size)
{
	if (!st)
		return "-";
	return vmt_fmt_lat(clk, k == 0 ? st->min : k == 1 ? vmt_latstat_avg(st) : st->max, buf,
			   size);
}

/* The width of a column: its title's, its largest count's, its figures'. */
static unsigned int hist_col(const struct vmt_clock *clk, const char *title, uint64_t count,
			     const struct vmt_latstat *st)
{
	size_t n = strlen(title), m;
	char a[48];
	unsigned int k;

	m = (size_t)snprintf(a, sizeof(a), "%" PRIu64, count);
	n = m > n ? m : n;
	for (k = 0; k < 3; k++) {
		m = strlen(hist_stat(clk, st, k, a, sizeof(a)));
		n = m > n ? m : n;
	}
	return (unsigned int)n;
}

/*
 * Text histograms fit TEXT_COLUMNS (--wide aside): each column as wide as its cells, bars
 * of at most HIST_BAR columns, shorter when the columns leave less room but never under
 * HIST_BAR_MIN; then the pCPUs' columns that do not fit are left out (the total counts them)
 * and a line says so.
 */
#define HIST_LABEL 12
#define HIST_BAR 40
#define HIST_BAR_MIN 10

void vmt_report_hist_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
			  const struct vmt_report_style *st)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	size_t w = (size_t)s->hist_buckets + 1;
	uint64_t peak = 0, *tot, *count;
	unsigned int b, row, *cw, tw, shown, width, bar_max = HIST_BAR, k;
	static const char *const what[] = { "min:", "avg:", "max:" };
	char a[48], c[48];

	if (!s->hist_buckets)
		return;
	tot = calloc(w, sizeof(*tot));
	count = calloc(s->hist_ncpus + 1, sizeof(*count));
	cw = calloc(s->hist_ncpus + 1, sizeof(*cw));
	if (!tot || !count || !cw)
		goto out_free;
	for (b = 0; b < w; b++) {
		for (row = 0; row < s->hist_ncpus; row++) {
			tot[b] += s->hist[row * w + b];
			count[row] += s->hist[row * w + b];
		}
		if (b < s->hist_buckets && tot[b] > peak)
			peak = tot[b];
	}
	for (row = 0; row < s->hist_ncpus; row++) {
		snprintf(a, sizeof(a), "CPU-%03u", s->hist_cpu[row]);
		cw[row] = hist_col(clk, a, count[row], hist_cpu_stat(s, row));
	}
	tw = hist_col(clk, "total", s->lat.count, s->lat.count ? &s->lat : NULL);
	/* the columns that fit with bars of HIST_BAR_MIN; the bars take what is left */
	width = HIST_LABEL + 1 + tw;
	for (shown = 0; shown < s->hist_ncpus; shown++) {
		if (!st->wide && width + 1 + cw[shown] + 1 + HIST_BAR_MIN > TEXT_COLUMNS)
			break;
		width += 1 + cw[shown];
	}
	if (!st->wide && width + 1 + bar_max > TEXT_COLUMNS)
		bar_max = TEXT_COLUMNS - width - 1;
	if (s->hist_log)
		fprintf(f, "# Histogram: log2 buckets, %u of them\n", s->hist_buckets);
	else
		fprintf(f, "# Histogram: buckets of %s, %u of them\n",
			vmt_fmt_lat(clk, s->hist_bucket, a, sizeof(a)), s->hist_buckets);
	if (shown < s->hist_ncpus)
		fprintf(f, "# Columns of %u of the %u pCPUs only, to fit %u columns (the total "
			"counts every one; --wide shows them)\n", shown, s->hist_ncpus,
			TEXT_COLUMNS);
	fprintf(f, "%-*s", HIST_LABEL, "# from");
	for (row = 0; row < shown; row++) {
		snprintf(a, sizeof(a), "CPU-%03u", s->hist_cpu[row]);
		fprintf(f, " %*s", (int)cw[row], a);
	}
	fprintf(f, " %*s\n", (int)tw, "total");
	for (b = 0; b < s->hist_buckets; b++) {
		unsigned int bar;

		if (!tot[b])
			continue;	/* like rtla: rows with counts only */
		/* ticks of no known length: the bucket's low end in ticks, as its width is */
		fprintf(f, "%-*s", HIST_LABEL, vmt_clock_in_ns(clk) ?
			vmt_format_ns(bucket_low_ns(r, s, b), a, sizeof(a)) :
			vmt_fmt_lat(clk, bucket_low_ns(r, s, b), a, sizeof(a)));
		for (row = 0; row < shown; row++)
			fprintf(f, " %*" PRIu64, (int)cw[row], s->hist[row * w + b]);
		bar = peak ? (unsigned int)((tot[b] * bar_max + peak - 1) / peak) : 0;
		fprintf(f, " %*" PRIu64 " ", (int)tw, tot[b]);
		while (bar--)
			fputc('#', f);
		fputc('\n', f);
	}
	fprintf(f, "%-*s", HIST_LABEL, "over:");
	for (row = 0; row < shown; row++)
		fprintf(f, " %*" PRIu64, (int)cw[row], s->hist[row * w + s->hist_buckets]);
	fprintf(f, " %*" PRIu64 "\n", (int)tw, tot[s->hist_buckets]);
	fprintf(f, "%-*s", HIST_LABEL, "count:");
	for (row = 0; row < shown; row++)
		fprintf(f, " %*" PRIu64, (int)cw[row], count[row]);
	fprintf(f, " %*" PRIu64 "\n", (int)tw, s->lat.count);
	/* min/avg/max per CPU from the per-pCPU distributions */
	for (k = 0; k < 3; k++) {
		fprintf(f, "%-*s", HIST_LABEL, what[k]);
		for (row = 0; row < shown; row++)
			fprintf(f, " %*s", (int)cw[row],
				hist_stat(clk, hist_cpu_stat(s, row), k, c, sizeof(c)));
		/* a damaged input can leave histogram rows without one pair */
		fprintf(f, " %*s\n", (int)tw,
			hist_stat(clk, s->lat.count ? &s->lat : NULL, k, c, sizeof(c)));
	}
	hist_over_note(f, r, s, tot[s->hist_buckets]);
out_free:
	free(cw);
	free(count);
	free(tot);
}

void vmt_report_hist_cyclictest(FILE *f, const struct vmt_reader *r,
				const struct vmt_summary *s)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	size_t w = (size_t)s->hist_buckets + 1;
	unsigned int b, row;
	char head[192];

	if (!s->hist_buckets)
		return;
	/*
	 * What cyclictest's header would say, as '#' comments its readers skip: the
	 * recording, the rows' unit and which pCPU each column is (cyclictest's are threads)
	 */
	snprintf(head, sizeof(head), ": %s -> %s, %" PRIu64 " pairs", vmt_reader_begin_name(r),
		 vmt_reader_end_name(r), s->lat.count);
	vmt_fmt_path_lines(f, "# vmtrace-report: ", vmt_reader_path(r), head, "#   ");
	if (s->hist_log)
		fprintf(f, "# Rows: log2 buckets (row N: 2^N to 2^(N+1) %s, row 0 from 0); "
			"columns: pCPU", vmt_fmt_unit(clk));
	else
		fprintf(f, "# Rows: buckets of %s (row N: N to N+1 bucket widths); columns: pCPU",
			vmt_clock_in_ns(clk) ? vmt_fmt_exact_ns(vmt_clock_ns(clk, s->hist_bucket),
							  (char[32]){ 0 }, 32) :
			vmt_fmt_lat(clk, s->hist_bucket, (char[32]){ 0 }, 32));
	for (row = 0; row < s->hist_ncpus; row++)
		fprintf(f, " %" PRIu32, s->hist_cpu[row]);
	fprintf(f, "%s\n", s->hist_ncpus ? "" : " none");
	/*
	 * cyclictest -h: one column per thread (here per pCPU), counts per bucket index; no
	 * rows without a column (filters that selected nothing): a row is its counts
	 */
	fprintf(f, "# Histogram\n");
	for (b = 0; s->hist_ncpus && b < s->hist_buckets; b++) {
		fprintf(f, "%06u ", b);
		for (row = 0; row < s->hist_ncpus; row++)
			fprintf(f, "%06" PRIu64 "%s", s->hist[row * w + b],
				row + 1 < s->hist_ncpus ? "\t" : "");
		fputc('\n', f);
	}
	/* the rows' sum: cyclictest's Total leaves the overflows to their own line */
	fprintf(f, "# Total:");
	for (row = 0; row < s->hist_ncpus; row++) {
		uint64_t n = 0;

		for (b = 0; b < s->hist_buckets; b++)
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
							  vmt_latstat_avg(st) : st->max);
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
