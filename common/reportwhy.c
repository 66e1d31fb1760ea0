// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reportwhy.h"
#include "textwidth.h"
#include "timefmt.h"
#include "vmfind.h"
#include "whyfmt.h"

/* Short column titles of the kinds, in enum vmt_why_kind order. */
static const char *const kind_cols[VMT_WHY_NKINDS] = {
	"kvm", "user", "preempt", "blocked", "wakeup", "irq", "softirq", "nmi",
};

void vmt_report_why_line(FILE *f, const struct vmt_reader *r, const struct vmt_why *why,
			 uint64_t lat, bool wide)
{
	char b[128];

	if (!why)
		return;
	fputs("      why: ", f);
	/* within 120 columns, the smallest parts summed; --wide: every part, as -v --why */
	vmt_why_text_vm(f, vmt_reader_clock(r), why, lat, wide ? 0 : 120 - 11, vmt_reader_vmmap(r));
	fputc('\n', f);
	if (vmt_why_before_text(vmt_reader_clock(r), why, b, sizeof(b)))
		fprintf(f, "           %s\n", b);
}

/*
 * The sections' words: KVM's, or neutral ones for another pair, whose kind "kvm" is the
 * traced task's own time between begin and end (the kinds keep their names everywhere).
 */
struct whywords {
	const char *where, *reason, *from, *task, *none, *count;
};

static const struct whywords kvm_whywords = {
	"Where the out-of-guest time went (share of each reason's total)", "reason",
	"vCPU tasks", "vCPU task", "every exit's time was the host kernel's own (kvm)", "exits",
};

static const struct whywords neutral_whywords = {
	"Where the time from begin to end went (share of each id's total; kvm: the task's own)",
	"id", "the traced tasks", "task", "every pair's time was the traced task's own (kvm)",
	"pairs",
};

static const struct whywords *whywords_of(const struct vmt_reader *r)
{
	return vmt_reader_pairs_kvm(r) ? &kvm_whywords : &neutral_whywords;
}

static void not_recorded(FILE *f, uint32_t recorded)
{
	unsigned int k, n = 0;

	for (k = 0; k < VMT_WHY_NKINDS; k++) {
		if (recorded & 1u << k)
			continue;
		fprintf(f, "%s%s", n++ ? ", " : "Not recorded, so counted as kvm: ",
			vmt_why_kind_names[k]);
	}
	if (n)
		fputs(" (their context events are not in the file)\n", f);
}

/* The columns of the reasons' rows but the name's: total, the kinds, incomplete, unknown. */
#define KINDS_REST (2 + 11 + 8 * VMT_WHY_NKINDS + 10 + 8)

static void kinds_row(FILE *f, const char *label, unsigned int cols, const struct vmt_clock *c,
		      const struct vmt_whysum *w, uint32_t recorded)
{
	uint64_t total = 0;
	unsigned int k;
	char t[32], name[320];

	for (k = 0; k < VMT_WHY_NKINDS; k++)
		total += w->ticks[k];
	/* cut and padded in display columns (textwidth.h) */
	vmt_fmt_fit(label, cols, name, sizeof(name));
	fprintf(f, "  %-*s %10s", vmt_textwidth_pad(name, cols), name,
		vmt_fmt_lat(c, total, t, sizeof(t)));
	for (k = 0; k < VMT_WHY_NKINDS; k++) {
		if (!(recorded & 1u << k))
			fprintf(f, " %7s", "-");
		else
			fprintf(f, " %6.1f%%", vmt_share_pct(w->ticks[k], total, 1));
	}
	/* the share of the total (in kvm's) that incomplete exits could not tell */
	fprintf(f, " %9" PRIu64 " %6.1f%%\n", w->incomplete, vmt_share_pct(w->unknown, total, 1));
}

static void reasons_table(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	const struct vmt_clock *c = vmt_reader_clock(r);
	char label[320];
	unsigned int k, cols;
	size_t i, longest = 0;

	for (i = 0; i < s->nreasons; i++) {
		size_t n = vmt_textwidth(vmt_summary_reason(s, s->reasons[i].isa, s->reasons[i].key,
							    label, sizeof(label)));

		longest = n > longest ? n : longest;
	}
	cols = vmt_fmt_name_cols(longest, KINDS_REST, false);
	fprintf(f, "\n%s:\n", whywords_of(r)->where);
	fprintf(f, "  %-*s %10s", (int)cols, whywords_of(r)->reason, "total");
	for (k = 0; k < VMT_WHY_NKINDS; k++)
		fprintf(f, " %7s", kind_cols[k]);
	fprintf(f, " %9s %7s\n", "incompl.", "unknown");
	for (i = 0; i < s->nreasons; i++)
		kinds_row(f, vmt_summary_reason(s, s->reasons[i].isa, s->reasons[i].key, label,
						sizeof(label)), cols, c, &s->reasons[i].why,
			  s->why_recorded);
	kinds_row(f, "all", cols, c, &s->why_all, s->why_recorded);
	if (s->why_all.unknown)
		fprintf(f, "unknown: the part of kvm that incomplete %s could not tell (%s)\n",
			whywords_of(r)->count, vmt_fmt_lat(c, s->why_all.unknown, label,
							   sizeof(label)));
	/* outside the table: time the latencies do not hold (man vmtrace-report, CAUSES) */
	if ((s->why_recorded & VMT_WHY_REC_BEFORE) && s->why_all.before_n)
		fprintf(f, "host interrupts before the exits' trace points: %s in %" PRIu64
			" %s (the guest had left; not in the latencies)\n",
			vmt_fmt_lat(c, s->why_all.before, label, sizeof(label)),
			s->why_all.before_n, s->why_all.before_n == 1 ? "exit" : "exits");
	/* an exit out longer than the maximum latency says: the worst case is that one */
	if ((s->why_recorded & VMT_WHY_REC_BEFORE) && s->why_all.before_max) {
		char out[48], lat[48];

		fprintf(f, "  with them, the longest time out of the guest: %s (an exit of %s)%s\n",
			vmt_fmt_lat(c, s->why_all.before_max, out, sizeof(out)),
			vmt_fmt_lat(c, s->why_all.before_max_lat, lat, sizeof(lat)),
			s->why_all.before_max > s->lat.max ?
			", more than the maximum latency" : "");
	}
	not_recorded(f, s->why_recorded);
}

/* A culprit's name: a vCPU thread of a VM the recording maps as the vCPU tables name it. */
static const char *culprit_name(const struct vmt_reader *r, const struct vmt_culprit *c,
				char *buf, size_t size)
{
	const struct vmt_vmmap *m = vmt_reader_vmmap(r);
	unsigned int vm, vcpu;

	if (m && c->pid > 0 && vmt_vmmap_lookup(m, c->pid, &vm, &vcpu) == 0) {
		snprintf(buf, size, "%s/vcpu%u", vmt_vmmap_name(m, vm), vcpu);
		return buf;
	}
	return c->name[0] ? c->name : "-";
}

/*
 * The culprits, ranked: tasks and interrupts. A kind's "other" row (VMT_WHY_PID_OTHER: the
 * parts merged past what an exit or the table names) is no one culprit: not ranked, its
 * time said under the table, kept in the JSON.
 */
static void culprits_table(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s)
{
	const struct vmt_clock *c = vmt_reader_clock(r);
	const struct vmt_culprit *rows;
	size_t i, shown = 0, named = 0, n = vmt_culprits_rows(s->culprits, &rows), longest = 0;
	uint64_t other = 0, other_exits = 0, evicted = vmt_culprits_evicted(s->culprits);
	unsigned int other_kinds = 0, kind = 0, cols;
	char t[32], m[32];

	for (i = 0; i < n; i++) {
		if (rows[i].pid != VMT_WHY_PID_OTHER) {
			named++;
			continue;
		}
		other += rows[i].total;
		other_exits += rows[i].count;
		other_kinds++;
		kind = rows[i].kind;
	}
	if (!n) {
		fprintf(f, "\nCulprits: none, %s\n", whywords_of(r)->none);
		return;
	}
	/* the name column: the rows' columns but the name's are kind, pid, count, total, max */
	for (i = 0; i < n && shown < 10; i++) {
		if (rows[i].pid == VMT_WHY_PID_OTHER)
			continue;
		shown++;
		if (vmt_textwidth(culprit_name(r, &rows[i], t, sizeof(t))) > longest)
			longest = vmt_textwidth(culprit_name(r, &rows[i], t, sizeof(t)));
	}
	cols = vmt_fmt_name_cols(longest, 2 + 11 + 9 + 11 * 3, false);
	shown = 0;
	if (named) {
		fprintf(f, "\nCulprits (what took the most time from %s%s):\n",
			whywords_of(r)->from, named > 10 ? ", top 10" : "");
		fprintf(f, "  %-10s %-*s %8s %10s %10s %10s\n", "kind", (int)cols, "name", "pid",
			whywords_of(r)->count, "total", "max");
	} else {
		fprintf(f, "\nCulprits: none named\n");
	}
	for (i = 0; i < n && shown < 10; i++) {
		char pid[16], name[320], vmname[320];

		if (rows[i].pid == VMT_WHY_PID_OTHER)
			continue;
		shown++;
		if (rows[i].pid >= 0)
			snprintf(pid, sizeof(pid), "%" PRId32, rows[i].pid);
		else
			snprintf(pid, sizeof(pid), "-");
		vmt_fmt_fit(culprit_name(r, &rows[i], vmname, sizeof(vmname)), cols, name,
			    sizeof(name));
		fprintf(f, "  %-10s %-*s %8s %10" PRIu64 " %10s %10s\n",
			rows[i].kind < VMT_WHY_NKINDS ? vmt_why_kind_names[rows[i].kind] : "?",
			vmt_textwidth_pad(name, cols), name, pid, rows[i].count,
			vmt_fmt_lat(c, rows[i].total, t, sizeof(t)),
			vmt_fmt_lat(c, rows[i].max, m, sizeof(m)));
	}
	/* "exits" / "pairs", without its s for one; merged rows may share an exit */
	if (other_kinds == 1)
		fprintf(f, "  (not ranked: \"other\", %s of %s time in %s%" PRIu64 " %.*s, the parts "
			"too many to name one by one)\n", vmt_fmt_lat(c, other, t, sizeof(t)),
			kind < VMT_WHY_NKINDS ? vmt_why_kind_names[kind] : "?",
			evicted ? "at most " : "", other_exits,
			(int)strlen(whywords_of(r)->count) - (other_exits == 1), whywords_of(r)->count);
	else if (other_kinds)
		fprintf(f, "  (not ranked: \"other\", %s of %u kinds' time, the parts too many "
			"to name one by one)\n", vmt_fmt_lat(c, other, t, sizeof(t)), other_kinds);
	if (evicted)
		fprintf(f, "  (%" PRIu64 " culprits with the least time merged into \"other\" to "
			"bound the table: a total above may be a lower bound)\n", evicted);
}

/* The worst window of each task the tables above list, in their order; the others counted. */
static void windows(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
		    const bool *shown)
{
	const struct vmt_clock *c = vmt_reader_clock(r);
	const struct vmt_vmmap *vm = vmt_reader_vmmap(r);
	size_t i, listed = 0, left = 0, cols;

	for (i = 0; i < s->ntasks; i++) {
		const struct vmt_group *t = &s->tasks[i];
		char ts[32], sum[32], whole[320], label[160], head[256];

		if (shown && !shown[i]) {
			left++;
			continue;
		}
		if (!t->max_window_sum)
			continue;	/* no time out of the guest: nothing to break down */
		if (!listed++)
			fprintf(f, "\nWorst window of each %s%s, broken down:\n",
				whywords_of(r)->task, shown ? " in the tables above" : "");
		/* a vCPU thread of a mapped VM as the vCPU tables name it; the why in what is left */
		if (vm && vmt_vmmap_label(vm, t->pid, whole, sizeof(whole)))
			snprintf(head, sizeof(head), "  %s at %s %s: ",
				 vmt_fmt_fit(whole, VMT_WHY_LABEL_COLS, label, sizeof(label)),
				 vmt_fmt_time(c, s->start_ts, t->max_window_at, ts, sizeof(ts)),
				 vmt_fmt_time_unit(c));
		else
			snprintf(head, sizeof(head), "  pid %" PRId32 " at %s %s: ", t->pid,
				 vmt_fmt_time(c, s->start_ts, t->max_window_at, ts, sizeof(ts)),
				 vmt_fmt_time_unit(c));
		fputs(head, f);
		cols = vmt_textwidth(head);
		if (t->has_window_why)
			vmt_why_text_vm(f, c, &t->window_why, t->max_window_sum,
					cols < 120 - 40 ? 120 - (unsigned int)cols : 40, vm);
		else	/* its attributed window is not the one the figures give */
			fprintf(f, "%s, not broken down",
				vmt_fmt_lat(c, t->max_window_sum, sum, sizeof(sum)));
		fputc('\n', f);
	}
	if (listed && left)
		fprintf(f, "  (%zu more %ss not shown, as in the tables above: --wide or --json "
			"lists every one)\n", left, whywords_of(r)->task);
}

void vmt_report_why_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
			 const bool *shown)
{
	if (!s->why && s->context_formats) {
		fprintf(f, "\nCauses: not worked out (--no-causes); the recording has the context "
			"events to tell them.\n");
		return;
	}
	if (!s->why) {
		fprintf(f, "\nCauses: this recording has no context events (scheduler, interrupts, "
			"returns to user space),\nso the causes of long latencies cannot be told; "
			"vmtrace-record records them unless given --context none.\n");
		return;
	}
	if (!s->lat.count)
		return;
	reasons_table(f, r, s);
	culprits_table(f, r, s);
	windows(f, r, s, shown);
}

void vmt_report_why_json_header(struct vmt_jsonw *w, const struct vmt_reader *r,
				const struct vmt_summary *s)
{
	const struct vmt_evformat *const *fmts;
	unsigned int k, n;

	/* the events the file describes, as SYSTEM:EVENT */
	fmts = vmt_reader_context_formats(r, &n);
	vmt_jsonw_array_open(w, "context_events");
	for (k = 0; k < n; k++) {
		char name[256];

		snprintf(name, sizeof(name), "%s:%s", fmts[k]->system ? fmts[k]->system : "?",
			 fmts[k]->name);
		vmt_jsonw_str(w, NULL, name);
	}
	vmt_jsonw_array_close(w);
	vmt_jsonw_array_open(w, "why_recorded");
	for (k = 0; (s->why || s->context_formats) && k < VMT_WHY_NKINDS; k++) {
		if (s->why_recorded & 1u << k)
			vmt_jsonw_str(w, NULL, vmt_why_kind_names[k]);
	}
	vmt_jsonw_array_close(w);
	if (!s->why && s->context_formats)
		vmt_jsonw_str(w, "why_note", "causes not worked out (--no-causes): unknown, not "
			      "zero");
	else if (!s->why)
		vmt_jsonw_str(w, "why_note", "no context events in this recording: the causes "
			      "of exits are unknown (not zero)");
}

void vmt_report_why_json_exit(struct vmt_jsonw *w, const struct vmt_reader *r,
			      const struct vmt_summary *s, const struct vmt_why *why)
{
	if (!why)
		vmt_jsonw_null(w, "why");
	else
		vmt_why_json(w, "why", vmt_reader_clock(r), why, s->why_recorded, true);
}

/* Not a kind either: the handlers before the exits' trace points, null when not measured. */
static void before_json(struct vmt_jsonw *w, const struct vmt_clock *c,
			const struct vmt_summary *s, const struct vmt_whysum *g)
{
	bool has = s->why_recorded & VMT_WHY_REC_BEFORE;

	vmt_jsonw_opt_u64(w, "before_exit_exits", has, g->before_n);
	vmt_jsonw_opt_u64(w, "before_exit_ns", has, vmt_clock_ns(c, g->before));
	/* the longest out of the guest with them (latency and before), null without any */
	vmt_jsonw_opt_u64(w, "before_exit_max_out_ns", has && g->before_n,
			  vmt_clock_ns(c, g->before_max));
	vmt_jsonw_opt_u64(w, "before_exit_max_out_latency_ns", has && g->before_n,
			  vmt_clock_ns(c, g->before_max_lat));
}

void vmt_report_why_json_summary(struct vmt_jsonw *w, const struct vmt_reader *r,
				 const struct vmt_summary *s)
{
	const struct vmt_clock *c = vmt_reader_clock(r);
	const struct vmt_culprit *rows;
	size_t i, n;

	if (!s->why) {
		vmt_jsonw_null(w, "why_by_reason");
		vmt_jsonw_null(w, "culprits");
		vmt_jsonw_null(w, "culprits_merged");
		return;
	}
	vmt_jsonw_array_open(w, "why_by_reason");
	for (i = 0; i < s->nreasons; i++) {
		const struct vmt_group *g = &s->reasons[i];

		vmt_jsonw_object_open(w, NULL);
		vmt_jsonw_str(w, "name", vmt_exitreason_name(s->names, g->isa, g->key));
		vmt_jsonw_u64(w, "code", g->key);
		vmt_jsonw_u64(w, "isa", g->isa);
		vmt_jsonw_u64(w, "count", g->why.count);
		vmt_jsonw_u64(w, "incomplete", g->why.incomplete);
		vmt_why_json_kinds(w, c, g->why.ticks, s->why_recorded);
		/* not a kind: the part of kvm_ns that incomplete exits could not tell */
		vmt_jsonw_u64(w, "unknown_ns", vmt_clock_ns(c, g->why.unknown));
		before_json(w, c, s, &g->why);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
	before_json(w, c, s, &s->why_all);
	vmt_jsonw_array_open(w, "culprits");
	n = vmt_culprits_rows(s->culprits, &rows);
	for (i = 0; i < n; i++) {
		vmt_jsonw_object_open(w, NULL);
		vmt_jsonw_str(w, "kind", rows[i].kind < VMT_WHY_NKINDS ?
			      vmt_why_kind_names[rows[i].kind] : "?");
		vmt_jsonw_str(w, "name", rows[i].name);
		if (rows[i].pid >= 0)
			vmt_jsonw_i64(w, "pid", rows[i].pid);
		else
			vmt_jsonw_null(w, "pid");
		vmt_jsonw_u64(w, "count", rows[i].count);
		vmt_jsonw_u64(w, "total_ns", vmt_clock_ns(c, rows[i].total));
		vmt_jsonw_u64(w, "max_ns", vmt_clock_ns(c, rows[i].max));
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
	vmt_jsonw_u64(w, "culprits_merged", vmt_culprits_evicted(s->culprits));
}

void vmt_report_why_json_window(struct vmt_jsonw *w, const struct vmt_reader *r,
				const struct vmt_summary *s, const struct vmt_group *t)
{
	if (!s->why || !t->has_window_why)
		vmt_jsonw_null(w, "worst_window_why");
	else
		vmt_why_json(w, "worst_window_why", vmt_reader_clock(r), &t->window_why,
			     s->why_recorded, false);
}
