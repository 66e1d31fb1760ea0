// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "livetask.h"

static const char *reason_label(const struct rec_live_frame *fr, const struct rec_live_task *t,
				char *buf, size_t size)
{
	if (!t->open_has_reason)
		return "-";
	return vmt_exitreason_label(fr->names, t->open_isa, t->open_key, buf, size);
}

bool rec_livetask_marker(const struct rec_live_frame *fr, const struct rec_live_task *t,
			 char *out, size_t size)
{
	char buf[64];

	if (!t->open)
		return false;
	/* another pair's words, as the table's: a pair and its id */
	snprintf(out, size, "    %s for %.3f s (since %.3f s, %s %.40s)",
		 fr->kvm ? "in an exit" : "in a pair", (double)t->open_ns / 1e9,
		 (double)t->open_since_ns / 1e9, fr->kvm ? "reason" : "id",
		 reason_label(fr, t, buf, sizeof(buf)));
	return true;
}

void rec_livetask_keys(const struct rec_live_frame *fr)
{
	const struct rec_live_task *longest = NULL;
	unsigned int open = 0;
	size_t i;

	for (i = 0; i < fr->ntasks; i++) {
		const struct rec_live_task *t = fr->tasks[i];

		if (!t->open)
			continue;
		open++;
		if (!longest || t->open_ns > longest->open_ns)
			longest = t;
	}
	fprintf(fr->out, " open=%u", open);
	if (longest)
		fprintf(fr->out, " open_max_pid=%" PRId32 " open_max_ns=%" PRIu64, longest->pid,
			longest->open_ns);
}

/* Most time out of the guest first; of equal times (all of it) the longest in an exit. */
static int by_time(const void *a, const void *b)
{
	const struct rec_live_task *x = *(struct rec_live_task *const *)a;
	const struct rec_live_task *y = *(struct rec_live_task *const *)b;

	if (x->s.sum != y->s.sum)
		return x->s.sum < y->s.sum ? 1 : -1;
	if (x->open_ns != y->open_ns)
		return x->open_ns < y->open_ns ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

void rec_livetask_lines(const struct rec_live_frame *fr)
{
	char buf[64];
	size_t i;

	/* every one, unlike the table: a script follows each vCPU */
	qsort(fr->tasks, fr->ntasks, sizeof(*fr->tasks), by_time);
	for (i = 0; i < fr->ntasks; i++) {
		const struct rec_live_task *t = fr->tasks[i];

		if (!t->s.count && !t->open)
			continue;
		fprintf(fr->out, "live-task interval=%" PRIu64 " pid=%" PRId32, fr->index, t->pid);
		if (t->has_vcpu)
			fprintf(fr->out, " vcpu=%" PRIu32, t->vcpu);
		fprintf(fr->out, " exits=%" PRIu64 " out_ns=%" PRIu64 " out_pct=%.3f max_ns=%" PRIu64,
			t->s.count, t->s.sum,
			fr->len_ns ? 100.0 * (double)t->s.sum / (double)fr->len_ns : 0, t->s.max);
		if (t->open)
			fprintf(fr->out, " open_ns=%" PRIu64 " open_since_s=%.3f open_reason=%s",
				t->open_ns, (double)t->open_since_ns / 1e9,
				reason_label(fr, t, buf, sizeof(buf)));
		fputc('\n', fr->out);
	}
}
