// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "cli.h"
#include "livetask.h"
#include "vmfind.h"

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
	char buf[64], dur[32];

	if (!t->open)
		return false;
	/* another pair's words, as the table's: a pair and its id; "850.2 us", never "0.000 s" */
	snprintf(out, size, "    %s for %s (since %.3f s, %s %.40s)",
		 fr->kvm ? "in an exit" : "in a pair", vmt_format_ns(t->open_ns, dur, sizeof(dur)),
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

/*
 * " vm=NAME" of a key=value line: a VM's name as given to --vm, with the bytes that would
 * end the value or the line (spaces, '=', '%', controls) as %XX, so a script splits on spaces.
 */
static void put_vm(FILE *f, const char *name)
{
	const unsigned char *p;

	fputs(" vm=", f);
	for (p = (const unsigned char *)name; *p; p++) {
		if (*p <= ' ' || *p == '=' || *p == '%' || *p == 0x7f)
			fprintf(f, "%%%02X", *p);
		else
			fputc(*p, f);
	}
}

void rec_livetask_lines(const struct rec_live_frame *fr)
{
	unsigned int vm, vcpu;
	char buf[64];
	size_t i;

	/* every one, unlike the table: a script follows each vCPU */
	qsort(fr->tasks, fr->ntasks, sizeof(*fr->tasks), by_time);
	for (i = 0; i < fr->ntasks; i++) {
		const struct rec_live_task *t = fr->tasks[i];

		if (!t->s.count && !t->open)
			continue;
		fprintf(fr->out, "live-task interval=%" PRIu64 " pid=%" PRId32, fr->index, t->pid);
		if (fr->vmmap && vmt_vmmap_lookup(fr->vmmap, t->pid, &vm, &vcpu) == 0) {
			put_vm(fr->out, vmt_vmmap_name(fr->vmmap, vm));
			/* the events' own id first, as the report's JSON */
			fprintf(fr->out, " vcpu=%" PRIu32, t->has_vcpu ? t->vcpu : vcpu);
		} else if (t->has_vcpu) {
			fprintf(fr->out, " vcpu=%" PRIu32, t->vcpu);
		}
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
