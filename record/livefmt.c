// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "livefmt.h"
#include "livetask.h"
#include "log.h"

#define MAX_ROWS 16	/* of each table on a terminal */

static char *fmt_ns(uint64_t ns, char *buf, size_t size)
{
	if (ns < 1000)
		snprintf(buf, size, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%.3f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.3f ms", (double)ns / 1e6);
	else
		snprintf(buf, size, "%.3f s", (double)ns / 1e9);
	return buf;
}

static const char *task_label(const struct rec_live_task *t, char *buf, size_t size)
{
	if (t->has_vcpu)
		snprintf(buf, size, "pid %" PRId32 " vcpu %" PRIu32, t->pid, t->vcpu);
	else
		snprintf(buf, size, "pid %" PRId32, t->pid);
	return buf;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static double per_s(uint64_t n, uint64_t len_ns)
{
	return len_ns ? (double)n * 1e9 / (double)len_ns : 0;
}

static void table_row(FILE *f, const char *label, const struct rec_live_stat *s, uint64_t len,
		      uint64_t time)
{
	char p99[32], max[32];

	/* a row with time from an open exit only has no latency yet */
	fprintf(f, "  %-34.34s %12.0f %9.2f %% %13s %13s\n", label, per_s(s->count, len),
		pct(s->sum, time),
		s->count ? fmt_ns(vmt_latdist_percentile(&s->d, 99), p99, sizeof(p99)) : "-",
		s->count ? fmt_ns(s->max, max, sizeof(max)) : "-");
}

static int by_count(const void *a, const void *b)
{
	const struct rec_live_reason *x = a, *y = b;

	return x->s.count < y->s.count ? 1 : x->s.count > y->s.count ? -1 : 0;
}

static int by_time(const void *a, const void *b)
{
	const struct rec_live_task *x = *(struct rec_live_task *const *)a;
	const struct rec_live_task *y = *(struct rec_live_task *const *)b;

	return x->s.sum < y->s.sum ? 1 : x->s.sum > y->s.sum ? -1 : 0;
}

/* On a terminal: the whole screen, from its top left corner (as kvm_stat does). */
void rec_livefmt_table(const struct rec_live_frame *fr)
{
	uint64_t len = fr->len_ns;
	FILE *f = fr->out;
	char buf[96];
	size_t i, shown;

	fputs("\033[H\033[2J", f);
	fprintf(f, "vmtrace-record --live: interval %" PRIu64 ", %.3f s to %.3f s after the start "
		"(lost %" PRIu64 ", late %" PRIu64 ")\n\n", fr->index,
		(double)fr->start_ns / 1e9, (double)(fr->start_ns + len) / 1e9, fr->lost, fr->late);
	/* another pair's words are the text report's: pairs, time in pairs, task, id */
	fprintf(f, "  %-34s %12s %11s %13s %13s\n", "", fr->kvm ? "exits/s" : "pairs/s",
		fr->kvm ? "out of guest" : "in pairs", "p99", "max");
	snprintf(buf, sizeof(buf), "all (%u %s)", fr->active, fr->kvm ? "vCPU tasks" : "tasks");
	table_row(f, buf, fr->all, len, len * fr->active);
	fprintf(f, "\n%s\n", fr->kvm ? "vCPU task" : "task");
	qsort(fr->tasks, fr->ntasks, sizeof(*fr->tasks), by_time);
	for (i = shown = 0; i < fr->ntasks && shown < MAX_ROWS; i++) {
		if (!fr->tasks[i]->s.count && !fr->tasks[i]->open)
			continue;
		table_row(f, task_label(fr->tasks[i], buf, sizeof(buf)), &fr->tasks[i]->s, len,
			  len);
		rec_livetask_marker(f, fr, fr->tasks[i]);
		shown++;
	}
	fprintf(f, "\n%s\n", fr->kvm ? "exit reason" : "id");
	qsort(fr->reasons, fr->nreasons, sizeof(*fr->reasons), by_count);
	for (i = shown = 0; i < fr->nreasons && shown < MAX_ROWS; i++) {
		const struct rec_live_reason *r = &fr->reasons[i];

		if (!r->s.count && !r->s.sum)	/* an open exit's reason has time only */
			continue;
		table_row(f, vmt_exitreason_label(fr->names, r->isa, r->key, buf, sizeof(buf)),
			  &r->s, len, len * fr->active);
		shown++;
	}
}

/*
 * Without a terminal: one line of key=value pairs (exact ns, for scripts), with the task
 * that spent the most time out of the guest and the most frequent reason.
 */
static void kv_lines(const struct rec_live_frame *fr)
{
	const struct rec_live_reason *rtop = NULL;
	const struct rec_live_task *top = NULL;
	const struct rec_live_stat *all = fr->all;
	uint64_t len = fr->len_ns;
	char buf[96];
	size_t i;

	for (i = 0; i < fr->ntasks; i++)
		if ((fr->tasks[i]->s.count || fr->tasks[i]->open) &&
		    (!top || fr->tasks[i]->s.sum > top->s.sum))
			top = fr->tasks[i];
	for (i = 0; i < fr->nreasons; i++)
		if (fr->reasons[i].s.count && (!rtop || fr->reasons[i].s.count > rtop->s.count))
			rtop = &fr->reasons[i];
	fprintf(fr->out, "live interval=%" PRIu64 " start_s=%.3f len_s=%.3f exits=%" PRIu64
		" exits_per_s=%.0f out_pct=%.3f p99_ns=%" PRIu64 " max_ns=%" PRIu64 " vcpus=%u"
		" lost=%" PRIu64 " late=%" PRIu64, fr->index, (double)fr->start_ns / 1e9,
		(double)len / 1e9, all->count, per_s(all->count, len),
		pct(all->sum, len * fr->active), vmt_latdist_percentile(&all->d, 99), all->max,
		fr->active, fr->lost, fr->late);
	if (top)
		fprintf(fr->out, " top_vcpu_pid=%" PRId32 " top_vcpu_out_pct=%.3f", top->pid,
			pct(top->s.sum, len));
	if (rtop)
		fprintf(fr->out, " top_reason=%s top_reason_exits=%" PRIu64,
			vmt_exitreason_label(fr->names, rtop->isa, rtop->key, buf, sizeof(buf)),
			rtop->s.count);
	rec_livetask_keys(fr);
	fputc('\n', fr->out);
	rec_livetask_lines(fr);
}

/*
 * The key=value lines, each folded between its pairs to VMT_LOG_WIDTH columns as every
 * output is (the lines after a line's first start with two spaces: a reader joins them).
 * They are made in memory first, to be folded whole.
 */
void rec_livefmt_line(const struct rec_live_frame *fr)
{
	struct rec_live_frame mem = *fr;
	char *text = NULL, *line, *next, *folded;
	size_t size = 0;

	mem.out = open_memstream(&text, &size);
	if (!mem.out) {
		kv_lines(fr);	/* unfolded rather than not at all */
		return;
	}
	kv_lines(&mem);
	if (fclose(mem.out) || !text) {
		free(text);
		return;
	}
	/* a break turns a space into a newline and two spaces: at most three times the text */
	folded = malloc(3 * size + 1);
	for (line = text; folded && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		fprintf(fr->out, "%s\n", vmt_log_fold(line, 0, VMT_LOG_WIDTH, 2, folded,
						       3 * size + 1));
	}
	if (!folded)
		fputs(text, fr->out);
	free(folded);
	free(text);
}
