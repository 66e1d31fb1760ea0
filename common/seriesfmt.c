// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Renderers of the time series (seriesfmt.h). An interval without exits has no longest
 * exit, p99 or window: empty cells in CSV, null in JSON, "-" in the table. out% is of the
 * time the task was traced in the interval (seen_ns), "-" where it was not traced at all.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"
#include "reportfmt.h"
#include "seriesfmt.h"
#include "textwidth.h"
#include "timefmt.h"

/* kvm: KVM's words (exits, entries, vCPUs); else another pair's (begins, ends, pairs) */
/* The task column when tasks are named: the line's 120 columns, a pid's 8 given up. */
#define NAME_COLUMNS 18

/* A row's task: a VM's vCPU thread "web1/vcpu0 (1234)", else "comm (1234)", cut to fit. */
static char *task_name(const struct vmt_commtab *names, const struct vmt_vmmap *vms,
		       int32_t pid, char *buf, size_t size)
{
	unsigned int vm, vcpu;
	char whole[320];

	if (!vms || vmt_vmmap_lookup(vms, pid, &vm, &vcpu))
		return vmt_report_task_name(pid, vmt_commtab_get(names, pid), NAME_COLUMNS, buf,
					    size);
	snprintf(whole, sizeof(whole), "%s/vcpu%u (%" PRId32 ")", vmt_vmmap_name(vms, vm), vcpu,
		 pid);
	return vmt_fmt_fit(whole, NAME_COLUMNS, buf, size);
}

/*
 * A time from the start in the 14 columns of its cell: nanoseconds while the seconds have 4
 * digits, then fewer decimals, cut, so a damaged timestamp (centuries in) moves no column.
 */
static char *time14(uint64_t ns, char *buf, size_t size)
{
	uint64_t s = ns / 1000000000, frac = ns % 1000000000, w;
	unsigned int digits = 1, decimals = 9;

	for (w = s; w >= 10; w /= 10)
		digits++;
	/* at most 11 digits (2^64 ns): 2 decimals or more */
	for (; digits > 4 && decimals > 13 - digits; decimals--)
		frac /= 10;
	snprintf(buf, size, "%4" PRIu64 ".%0*" PRIu64, s, (int)(decimals & 15), frac);
	return buf;
}

static void series_text(FILE *f, const struct vmt_series *s, bool kvm,
			const struct vmt_commtab *names, const struct vmt_vmmap *vms)
{
	bool named = names->n != 0 || (vms && vmt_vmmap_count(vms));
	char iv[32], win[32], b[4][32], task[160];	/* 18 columns of up to 4 bytes, an id */
	size_t i;

	fprintf(f, "Time series (intervals of %s from the recording's start, window %s;\n"
		"  out%%: of the time in the interval from the task's first %s to its last %s):\n",
		vmt_format_ns(s->interval_ns, iv, sizeof(iv)),
		vmt_format_ns(s->window_ns, win, sizeof(win)), kvm ? "exit" : "begin",
		kvm ? "entry" : "end");
	if (!s->nrows) {
		fprintf(f, "  no %s\n", kvm ? "exits" : "pairs");
		return;
	}
	/* another pair has no vCPU: its column is untitled and empty, as in the exit lists */
	fprintf(f, "  %14s %14s %6s %-*s %10s %10s %6s %10s %10s %10s\n", "start (s)", "end (s)",
		kvm ? "vcpu" : "", named ? NAME_COLUMNS : 8, named ? "task" : "     pid",
		kvm ? "exits" : "pairs", "out", "out%", "max", "p99", "max/window");
	for (i = 0; i < s->nrows; i++) {
		const struct vmt_series_row *r = &s->rows[i];
		uint64_t end = r->start_ns + s->interval_ns;
		char v[16], pct[16], t0[32], t1[32];

		if (r->has_vcpu)
			snprintf(v, sizeof(v), "%u", r->vcpu);
		else
			snprintf(v, sizeof(v), "%s", kvm ? "-" : "");	/* another pair: no title */
		snprintf(pct, sizeof(pct), r->seen_ns ? "%.2f" : "-",
			 vmt_share_pct(r->out_ns, r->seen_ns, 2));
		if (named)
			task_name(names, vms, r->pid, task, sizeof(task));
		else
			snprintf(task, sizeof(task), "%8" PRId32, r->pid);
		fprintf(f, "  %14s %14s %6s %-*s %10" PRIu64 " %10s %6s %10s %10s %10s\n",
			time14(r->start_ns, t0, sizeof(t0)), time14(end, t1, sizeof(t1)), v,
			vmt_textwidth_pad(task, named ? NAME_COLUMNS : 8), task, r->exits,
			vmt_format_ns(r->out_ns, b[0], sizeof(b[0])),
			pct,
			r->exits ? vmt_format_ns(r->max_ns, b[1], sizeof(b[1])) : "-",
			r->exits ? vmt_format_ns(r->p99_ns, b[2], sizeof(b[2])) : "-",
			r->exits ? vmt_format_ns(r->max_window_ns, b[3], sizeof(b[3])) : "-");
	}
}

void vmt_series_text(FILE *f, const struct vmt_series *s, bool kvm,
		     const struct vmt_summary *named_by, const struct vmt_vmmap *vms)
{
	struct vmt_commtab names;
	size_t i;

	/* the summary's names of the tasks; one the table cannot keep stays a bare pid */
	vmt_commtab_init(&names);
	for (i = 0; named_by && i < named_by->ntasks; i++)
		vmt_commtab_set(&names, named_by->tasks[i].pid, named_by->tasks[i].comm);
	series_text(f, s, kvm, &names, vms);
	vmt_commtab_free(&names);
}

/*
 * A row's VM and vCPU: the vCPU id its events carry, else its thread's index in the
 * recording's --vm map (vms), as the exit rows and the JSON's vcpus give them; the VM's
 * name from the map, NULL for a task of no VM or without a map.
 */
static const char *row_vm(const struct vmt_vmmap *vms, const struct vmt_series_row *r,
			  bool *has_vcpu, uint64_t *vcpu)
{
	unsigned int vm, idx;

	*has_vcpu = r->has_vcpu;
	*vcpu = r->vcpu;
	if (!vms || vmt_vmmap_lookup(vms, r->pid, &vm, &idx))
		return NULL;
	if (!r->has_vcpu) {
		*has_vcpu = true;
		*vcpu = idx;
	}
	return vmt_vmmap_name(vms, vm);
}

static void json_row(struct vmt_jsonw *w, const struct vmt_series *s,
		     const struct vmt_vmmap *vms, const struct vmt_series_row *r)
{
	const char *vm;
	uint64_t vcpu;
	bool has_vcpu;

	vm = row_vm(vms, r, &has_vcpu, &vcpu);
	vmt_jsonw_u64(w, "start_ns", r->start_ns);
	vmt_jsonw_u64(w, "end_ns", r->start_ns + s->interval_ns);
	vmt_jsonw_opt_u64(w, "vcpu", has_vcpu, vcpu);
	vmt_jsonw_i64(w, "pid", r->pid);
	vmt_jsonw_str(w, "vm", vm);	/* null: no VM (every row has the key) */
	vmt_jsonw_u64(w, "exits", r->exits);
	vmt_jsonw_u64(w, "out_ns", r->out_ns);
	vmt_jsonw_u64(w, "seen_ns", r->seen_ns);
	vmt_jsonw_opt_u64(w, "max_ns", r->exits, r->max_ns);
	vmt_jsonw_opt_u64(w, "p99_ns", r->exits, r->p99_ns);
	vmt_jsonw_opt_u64(w, "max_window_ns", r->exits, r->max_window_ns);
}

void vmt_series_json(struct vmt_jsonw *w, const char *name, const struct vmt_series *s,
		     const struct vmt_vmmap *vms)
{
	size_t i;

	vmt_jsonw_array_open(w, name);
	for (i = 0; i < s->nrows; i++) {
		vmt_jsonw_object_open(w, NULL);
		json_row(w, s, vms, &s->rows[i]);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
}

static void csv_opt(struct vmt_outbuf *o, bool has, uint64_t v)
{
	vmt_outbuf_ch(o, ',');
	if (has)
		vmt_outbuf_u64(o, v);
}

/* A name cell (RFC 4180): quoted, with its quotes doubled, when it holds , " CR or LF. */
static void csv_name(struct vmt_outbuf *o, const char *s)
{
	vmt_outbuf_ch(o, ',');
	if (!s)
		return;
	if (!s[strcspn(s, ",\"\r\n")]) {
		vmt_outbuf_str(o, s);
		return;
	}
	vmt_outbuf_ch(o, '"');
	for (; *s; s++) {
		if (*s == '"')
			vmt_outbuf_ch(o, '"');
		vmt_outbuf_ch(o, *s);
	}
	vmt_outbuf_ch(o, '"');
}

int vmt_series_write_rows(int fd, const struct vmt_series *s, const struct vmt_vmmap *vms,
			  bool csv)
{
	struct vmt_outbuf o;
	struct vmt_jsonw w;
	size_t i;
	int ret;

	ret = vmt_outbuf_init(&o, fd);
	if (ret)
		return ret;
	if (csv)
		vmt_outbuf_str(&o, "start_ns,end_ns,vcpu,pid,vm,exits,out_ns,max_ns,p99_ns,"
			       "max_window_ns,seen_ns\r\n");
	for (i = 0; i < s->nrows; i++) {
		const struct vmt_series_row *r = &s->rows[i];
		const char *vm;
		uint64_t vcpu;
		bool has_vcpu;

		if (!csv) {
			vmt_jsonw_init(&w, &o);
			vmt_jsonw_object_open(&w, NULL);
			json_row(&w, s, vms, r);
			vmt_jsonw_object_close(&w);
			vmt_outbuf_ch(&o, '\n');
			continue;
		}
		vm = row_vm(vms, r, &has_vcpu, &vcpu);
		vmt_outbuf_u64(&o, r->start_ns);
		csv_opt(&o, true, r->start_ns + s->interval_ns);
		csv_opt(&o, has_vcpu, vcpu);
		vmt_outbuf_ch(&o, ',');
		vmt_outbuf_i64(&o, r->pid);
		csv_name(&o, vm);
		csv_opt(&o, true, r->exits);
		csv_opt(&o, true, r->out_ns);
		csv_opt(&o, r->exits, r->max_ns);
		csv_opt(&o, r->exits, r->p99_ns);
		csv_opt(&o, r->exits, r->max_window_ns);
		csv_opt(&o, true, r->seen_ns);
		vmt_outbuf_str(&o, "\r\n");
	}
	return vmt_outbuf_finish(&o);
}
