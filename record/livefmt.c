// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "livefmt.h"
#include "livetask.h"
#include "log.h"
#include "textwidth.h"
#include "timefmt.h"
#include "vmfind.h"

#define MAX_ROWS 16	/* of each list on a terminal, at most */

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

/*
 * As the report's tables name a task: "web1/vcpu0 (pid 1234)" for a vCPU thread of the
 * recording's VM map, else "comm (pid)" when the context events named it.
 */
static const char *task_label(const struct rec_live_frame *fr, const struct rec_live_task *t,
			      char *buf, size_t size)
{
	const char *comm = vmt_commtab_get(fr->comms, t->pid);

	if (fr->vmmap && vmt_vmmap_label(fr->vmmap, t->pid, buf, size))
		return buf;
	if (comm)
		snprintf(buf, size, "%s (%" PRId32 ")", comm, t->pid);
	else if (t->has_vcpu)
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

/*
 * A frame's lines: cut at the screen's width in display columns (never inside a UTF-8
 * character of a task's name), none past its height.
 */
struct screen {
	FILE *f;
	unsigned int cols, left;	/* left: the lines still free */
	int label;			/* the label column's width */
	unsigned int figures;		/* the figure columns shown, from the left */
};

/*
 * The figure columns, each with its space before it: exits/s, out of guest, p99, max. A
 * narrow terminal loses them from the right, whole, once the label is down to 8 columns:
 * a figure cut short ("36.04" of 36.043 ms) would read as another value.
 */
static const unsigned int figure_width[] = { 13, 13, 14, 14 };
#define LABEL_MIN 8
#define LABEL_MAX 34

static void screen_columns(struct screen *s)
{
	unsigned int used = 2, i;	/* the indent */

	for (i = 0; i < 4; i++)
		used += figure_width[i];
	s->figures = 4;
	while (s->figures > 0 && used + LABEL_MIN > s->cols)
		used -= figure_width[--s->figures];
	s->label = used + LABEL_MAX <= s->cols ? LABEL_MAX :
		   used + LABEL_MIN <= s->cols ? (int)(s->cols - used) : LABEL_MIN;
}

static void screen_line(struct screen *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void screen_line(struct screen *s, const char *fmt, ...)
{
	char line[512];	/* a label of 34 columns, 4 bytes each at most, and the figures */
	va_list ap;

	if (!s->left)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(s->f, "%.*s\n", (int)vmt_textwidth_cut(line, strlen(line), s->cols, SIZE_MAX),
		line);
	s->left--;
}

/* COLUMNS or LINES when a plain positive number, else def. */
static unsigned int env_size(const char *name, unsigned int def)
{
	const char *v = getenv(name);
	unsigned long n;
	char *end;

	if (!v || !*v)
		return def;
	errno = 0;
	n = strtoul(v, &end, 10);
	return *end || errno || !n || n > 10000 ? def : (unsigned int)n;
}

/*
 * The terminal's size, read again at every frame: a resized window gets frames of its new
 * size from the next interval on, without a SIGWINCH handler (each frame is drawn whole).
 * A terminal that does not say (0): COLUMNS and LINES, else 80x24.
 */
static void screen_size(FILE *f, unsigned int *cols, unsigned int *rows)
{
	struct winsize ws;

	if (ioctl(fileno(f), TIOCGWINSZ, &ws))
		ws.ws_col = ws.ws_row = 0;
	*cols = ws.ws_col ? ws.ws_col : env_size("COLUMNS", 80);
	*rows = ws.ws_row ? ws.ws_row : env_size("LINES", 24);
}

/* "  LABEL" padded, then the figure cells the screen's width keeps (screen_columns()). */
static void figures_line(struct screen *scr, const char *label, char (*cell)[32])
{
	screen_line(scr, "  %-*s%s%s%s%s", vmt_textwidth_pad(label, (unsigned int)scr->label),
		    label, scr->figures > 0 ? cell[0] : "", scr->figures > 1 ? cell[1] : "",
		    scr->figures > 2 ? cell[2] : "", scr->figures > 3 ? cell[3] : "");
}

static void table_row(struct screen *scr, const char *label, const struct rec_live_stat *s,
		      uint64_t len, uint64_t time)
{
	char p99[32] = "", max[32] = "", cut[128], cell[4][32];

	/* cut with '~' before its "(pid)" or "(0x..)", which tells the rows apart */
	label = vmt_fmt_fit(label, (unsigned int)scr->label, cut, sizeof(cut));
	/* a row with time from an open exit only has no latency yet */
	if (s->count) {
		fmt_ns(vmt_latdist_percentile(&s->d, 99), p99, sizeof(p99));
		fmt_ns(s->max, max, sizeof(max));
	}
	snprintf(cell[0], sizeof(cell[0]), " %12.0f", per_s(s->count, len));
	snprintf(cell[1], sizeof(cell[1]), " %10.2f %%", pct(s->sum, time));
	snprintf(cell[2], sizeof(cell[2]), " %13s", s->count ? p99 : "-");
	snprintf(cell[3], sizeof(cell[3]), " %13s", s->count ? max : "-");
	figures_line(scr, label, cell);
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

static bool task_shown(const struct rec_live_task *t)
{
	return t->s.count || t->open;
}

static bool reason_shown(const struct rec_live_reason *r)
{
	return r->s.count || r->s.sum;	/* an open exit's reason has time only */
}

/* The lines of a list's first k rows of n, with "... and N more" when rows are left out. */
static unsigned int list_lines(const unsigned char *cost, size_t k, size_t n)
{
	unsigned int lines = k < n;

	while (k--)
		lines += cost[k];
	return lines;
}

/* The header, the column titles, "all" and the two lists' titles; blank lines apart. */
#define FIXED_LINES 5
#define BLANK_LINES 3

/*
 * How many rows of each list fit in room lines (the fixed ones not counted), and whether
 * the blank lines do: the least important go first, the blank lines, then the last rows
 * of the longer list (the reasons' when both are as long), so that both keep their top rows.
 */
static bool fit(unsigned int room, const unsigned char *tcost, size_t nt, size_t *kt,
		const unsigned char *rcost, size_t nr, size_t *kr)
{
	bool blanks = list_lines(tcost, *kt, nt) + list_lines(rcost, *kr, nr) + BLANK_LINES <= room;
	unsigned int lt, lr;

	if (blanks)
		return true;
	while (*kt || *kr) {
		lt = list_lines(tcost, *kt, nt);
		lr = list_lines(rcost, *kr, nr);
		if (lt + lr <= room)
			break;
		if (*kr && lr >= lt)
			--*kr;
		else
			--*kt;
	}
	return false;
}

/*
 * On a terminal: the whole screen, from its top left corner (as kvm_stat does), fitted to
 * its size. The last line stays free for the cursor: a newline there would scroll the
 * frame's top away.
 */
void rec_livefmt_table(const struct rec_live_frame *fr)
{
	unsigned char tcost[MAX_ROWS], rcost[MAX_ROWS];
	size_t i, shown, nt = 0, nr = 0, kt, kr;
	unsigned int cols, rows, room;
	uint64_t len = fr->len_ns;
	struct screen scr;
	char buf[160], title[4][32];
	bool blanks;

	qsort(fr->tasks, fr->ntasks, sizeof(*fr->tasks), by_time);
	qsort(fr->reasons, fr->nreasons, sizeof(*fr->reasons), by_count);
	for (i = 0; i < fr->ntasks; i++)
		if (task_shown(fr->tasks[i]) && nt++ < MAX_ROWS)
			tcost[nt - 1] = 1 + fr->tasks[i]->open;	/* its marker's line */
	for (i = 0; i < fr->nreasons; i++)
		if (reason_shown(&fr->reasons[i]) && nr++ < MAX_ROWS)
			rcost[nr - 1] = 1;
	kt = nt < MAX_ROWS ? nt : MAX_ROWS;
	kr = nr < MAX_ROWS ? nr : MAX_ROWS;
	screen_size(fr->out, &cols, &rows);
	scr = (struct screen){ .f = fr->out, .cols = cols, .left = rows > 1 ? rows - 1 : 1 };
	screen_columns(&scr);
	room = scr.left > FIXED_LINES ? scr.left - FIXED_LINES : 0;
	blanks = fit(room, tcost, nt, &kt, rcost, nr, &kr);

	fputs("\033[H\033[2J", fr->out);
	screen_line(&scr, "vmtrace-record --live: interval %" PRIu64 ", %.3f s to %.3f s "
		    "(lost %" PRIu64 ", late %" PRIu64 ")", fr->index, (double)fr->start_ns / 1e9,
		    (double)(fr->start_ns + len) / 1e9, fr->lost, fr->late);
	if (blanks)
		screen_line(&scr, "%s", "");
	/* another pair's words are the text report's: pairs, time in pairs, task, id */
	snprintf(title[0], sizeof(title[0]), " %12s", fr->kvm ? "exits/s" : "pairs/s");
	snprintf(title[1], sizeof(title[1]), " %12s", fr->kvm ? "out of guest" : "in pairs");
	snprintf(title[2], sizeof(title[2]), " %13s", "p99");
	snprintf(title[3], sizeof(title[3]), " %13s", "max");
	figures_line(&scr, "", title);
	/* the widest that fits: a "~ (161 tasks)" cut would push the figures off the screen */
	snprintf(buf, sizeof(buf), "all (%u %s%s)", fr->active, fr->kvm ? "vCPU task" : "task",
		 fr->active == 1 ? "" : "s");
	if (strlen(buf) > (size_t)scr.label)
		snprintf(buf, sizeof(buf), "all (%u)", fr->active);
	if (strlen(buf) > (size_t)scr.label)
		snprintf(buf, sizeof(buf), "all");
	table_row(&scr, buf, fr->all, len, len * fr->active);
	if (blanks)
		screen_line(&scr, "%s", "");
	screen_line(&scr, "%s", fr->kvm ? "vCPU task" : "task");
	for (i = shown = 0; i < fr->ntasks && shown < kt; i++) {
		if (!task_shown(fr->tasks[i]))
			continue;
		table_row(&scr, task_label(fr, fr->tasks[i], buf, sizeof(buf)), &fr->tasks[i]->s, len,
			  len);
		if (rec_livetask_marker(fr, fr->tasks[i], buf, sizeof(buf)))
			screen_line(&scr, "%s", buf);
		shown++;
	}
	if (kt < nt)
		screen_line(&scr, "  ... and %zu more", nt - kt);
	if (blanks)
		screen_line(&scr, "%s", "");
	screen_line(&scr, "%s", fr->kvm ? "exit reason" : "id");
	for (i = shown = 0; i < fr->nreasons && shown < kr; i++) {
		const struct rec_live_reason *r = &fr->reasons[i];

		if (!reason_shown(r))
			continue;
		table_row(&scr, vmt_exitreason_label(fr->names, r->isa, r->key, buf, sizeof(buf)),
			  &r->s, len, len * fr->active);
		shown++;
	}
	if (kr < nr)
		screen_line(&scr, "  ... and %zu more", nr - kr);
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
