// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctxstat (tests only): what a recording holds of context events, through the reader's
 * context accessors and common/ctxevent's decoder, one fact per line for shell tests.
 *
 *   ctxstat [-p BEGIN,END] FILE [PID...]
 *
 *   events NAMES|-          context.events as the file lists it ("-": not recorded)
 *   missing NAMES|-         context.missing
 *   formats N skipped S     context formats parsed, names left out
 *   records NAME N          records of each context event (by id), in the file's order
 *   kvm_run N               sys_enter_ioctl records the decoder takes for KVM_RUN
 *   pair N                  records of the begin/end pair
 *   other N                 records of no event above
 *   missed P uncounted U counted C
 *                           pages flagged "events lost before this page", those of them
 *                           that stored no count (or 0), the sum of the counts stored
 *   task PID in N runnable R sleeping S dead D kvm_run K
 *                           for each PID given: sched_switch records switching it in, and
 *                           out by the state it left in (R/R+; S, D, I, ...; X or Z), and
 *                           its KVM_RUN ioctls
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "ctxevent.h"
#include "reader.h"

#define MAX_PIDS 16
#define TASK_REPORT_DEAD 0x30	/* X (EXIT_DEAD) and Z (EXIT_ZOMBIE) in prev_state */

struct pidcount {
	long pid;
	unsigned long long in, runnable, sleeping, dead, kvm_run;
};

int main(int argc, char **argv)
{
	struct vmt_input_opts in = { 0 };
	const struct vmt_evformat *const *f;
	unsigned long long *count, kvm_run = 0, pair = 0, other = 0;
	struct pidcount pc[MAX_PIDS];
	const struct vmt_item *item;
	struct vmt_ctxbind b;
	struct vmt_reader *r;
	unsigned int n, i, np = 0;
	char why[256];
	int a = 1;

	if (argc > 2 && strcmp(argv[1], "-p") == 0) {
		in.pair = argv[2];
		a = 3;
	}
	if (a >= argc) {
		fprintf(stderr, "usage: ctxstat [-p BEGIN,END] FILE [PID...]\n");
		return 2;
	}
	if (vmt_reader_open(argv[a], &in, &r, why, sizeof(why))) {
		fprintf(stderr, "ctxstat: %s: %s\n", argv[a], why);
		return 1;
	}
	for (a++; a < argc && np < MAX_PIDS; a++, np++) {
		memset(&pc[np], 0, sizeof(pc[np]));
		pc[np].pid = strtol(argv[a], NULL, 10);
	}
	f = vmt_reader_context_formats(r, &n);
	printf("events %s\n", vmt_reader_context_names(r) ? vmt_reader_context_names(r) : "-");
	printf("missing %s\n", vmt_reader_context_missing(r) ? vmt_reader_context_missing(r) :
	       "-");
	printf("formats %u skipped %u\n", n, vmt_reader_context_skipped(r));
	vmt_ctxbind_init(&b);
	for (i = 0; i < n; i++) {
		if (vmt_ctxbind_add(&b, f[i]))
			fprintf(stderr, "ctxstat: %s:%s: not bound\n", f[i]->system, f[i]->name);
	}
	count = calloc(n + 1, sizeof(*count));
	if (!count)
		return 1;
	while ((item = vmt_reader_next_item(r))) {
		uint16_t id;
		struct vmt_ctxev ev;

		if (item->kind != VMT_ITEM_RECORD || item->rec.len < 2)
			continue;
		id = get_le16(item->rec.data);
		if (id == vmt_reader_begin_format(r)->id || id == vmt_reader_end_format(r)->id) {
			pair++;
			continue;
		}
		for (i = 0; i < n && f[i]->id != id; i++)
			;
		if (i == n) {
			other++;
			continue;
		}
		count[i]++;
		if (vmt_ctxbind_decode(&b, &item->rec, item->cpu, &ev) != 1)
			continue;
		if (ev.type == VMT_CTX_KVM_RUN) {
			kvm_run++;
			for (i = 0; i < np; i++)
				pc[i].kvm_run += ev.pid == pc[i].pid;
		}
		if (ev.type != VMT_CTX_SWITCH)
			continue;
		for (i = 0; i < np; i++) {
			if (ev.u.sw.next_pid == pc[i].pid)
				pc[i].in++;
			if (ev.u.sw.prev_pid != pc[i].pid)
				continue;
			if (ev.u.sw.prev_runnable)
				pc[i].runnable++;
			else if (ev.u.sw.prev_state & TASK_REPORT_DEAD)
				pc[i].dead++;
			else
				pc[i].sleeping++;
		}
	}
	for (i = 0; i < n; i++)
		printf("records %s:%s %llu\n", f[i]->system, f[i]->name, count[i]);
	printf("kvm_run %llu\npair %llu\nother %llu\n", kvm_run, pair, other);
	printf("missed %llu uncounted %llu counted %llu\n",
	       (unsigned long long)vmt_reader_stats(r)->missed_pages,
	       (unsigned long long)vmt_reader_stats(r)->missed_uncounted,
	       (unsigned long long)vmt_reader_stats(r)->missed_events);
	for (i = 0; i < np; i++)
		printf("task %ld in %llu runnable %llu sleeping %llu dead %llu kvm_run %llu\n",
		       pc[i].pid, pc[i].in, pc[i].runnable, pc[i].sleeping, pc[i].dead,
		       pc[i].kvm_run);
	free(count);
	vmt_reader_close(r);
	return 0;
}
