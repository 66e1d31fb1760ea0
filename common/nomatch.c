// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "metakeys.h"
#include "nomatch.h"
#include "source.h"
#include "timefmt.h"

/* Whether any id of the list is in the set (or may be: the set counts ids beyond it). */
static bool any_in(const struct vmt_cpulist *l, const struct vmt_iter_ids *s)
{
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		if (vmt_iter_ids_has(s, l->cpu[i]) || (l->cpu[i] >= VMT_ITER_IDS && s->beyond))
			return true;
	}
	return false;
}

/* A time since the recording's start: "1.234567890 s", or ticks when that is the unit. */
static char *when(const struct vmt_iter *it, uint64_t ts, char *buf, size_t size)
{
	char t[32];

	if (!vmt_clock_in_ns(it->clock))
		snprintf(buf, size, "%llu ticks",
			 (unsigned long long)(ts > it->start_ts ? ts - it->start_ts : 0));
	else
		snprintf(buf, size, "%s s",
			 vmt_fmt_time(it->clock, it->start_ts, ts, t, sizeof(t)));
	return buf;
}

/*
 * The word for the events the filters select by: KVM's exits, or another pair's begins (the
 * text report's word for them). A pass without a reader (the recorder's) is KVM's.
 */
static const char *begin_word(const struct vmt_iter *it)
{
	return !it->r || vmt_reader_pairs_kvm(it->r) ? "exit" : "begin";
}

/* The criterion that on its own leaves nothing, as the first half of the line. */
static void why(const struct vmt_iter *it, char *buf, size_t size)
{
	const struct vmt_filter *f = it->filter;
	const char *w = begin_word(it);
	char list[256], t[48];

	if (f->cpus.n && !any_in(&f->cpus, &it->exit_cpus) && it->r &&
	    strcmp(vmt_source_format(vmt_reader_source(it->r)), "trace.bin") == 0) {
		/* the original tool's file holds one CPU's pages and not its number */
		snprintf(buf, size, "a trace.bin does not name the CPU it traced: its %ss are "
			 "counted as CPU 0", w);
	} else if (f->cpus.n && !any_in(&f->cpus, &it->exit_cpus)) {
		snprintf(buf, size, "no %s on CPU%s %s", w, f->cpus.n > 1 ? "s" : "",
			 vmt_cpulist_format(&f->cpus, list, sizeof(list)));
	} else if (f->vcpus_by_map && !f->cpus.n && !f->nreasons && !f->has_from &&
		   !f->has_to) {
		/* the events carry no vCPU id: the map's threads of those indices had none */
		snprintf(buf, size, "no %s of the threads of vCPU%s %s in the VM map", w,
			 f->vcpus.n > 1 ? "s" : "", vmt_cpulist_format(&f->vcpus, list,
			 sizeof(list)));
	} else if (f->vcpus.n && !f->vcpus_by_map && !vmt_iter_ids_count(&it->vcpus) &&
		   !it->vcpus.beyond) {
		snprintf(buf, size, "no %s carries a vCPU id (--vcpu needs them)", w);
	} else if (f->vcpus.n && !f->vcpus_by_map && !any_in(&f->vcpus, &it->vcpus)) {
		snprintf(buf, size, "no %s of vCPU%s %s", w, f->vcpus.n > 1 ? "s" : "",
			 vmt_cpulist_format(&f->vcpus, list, sizeof(list)));
	} else if (f->has_from && f->from_ts > it->last_exit_ts) {
		snprintf(buf, size, "--from %s is after the last %s",
			 when(it, f->from_ts, t, sizeof(t)), w);
	} else if (f->has_to && f->to_ts < it->first_exit_ts) {
		snprintf(buf, size, "--to %s is before the first %s",
			 when(it, f->to_ts, t, sizeof(t)), w);
	} else if (f->ntids && !f->cpus.n && !f->vcpus.n && !f->nreasons && !f->has_from &&
		   !f->has_to) {
		/*
		 * --vm alone: its vCPU threads made no exit in the recording, which is no fault
		 * of the filter; a poll-mode vCPU that never leaves its guest, or an idle one
		 * halted in one exit from before the start to after the end, looks the same
		 */
		snprintf(buf, size, "no %s of the VM's %u vCPU thread%s while recorded: %s the whole "
			 "time (or on CPUs not traced)", w, f->ntids, f->ntids == 1 ? "" : "s",
			 *w == 'e' ? "in the guest, or in one exit," : "between pairs, or in one,");
	} else if (f->nreasons && !f->cpus.n && !f->vcpus.n && !f->has_from && !f->has_to) {
		snprintf(buf, size, "no %s has the %s%s given (the report without --reason "
			 "lists those it has)", w, *w == 'e' ? "reason" : "id",
			 f->nreasons > 1 ? "s" : "");
	} else {
		snprintf(buf, size, "no %s meets all the filters at once", w);
	}
}

int vmt_nomatch_held_instead(const struct vmt_reader *r, char *buf, size_t size)
{
	const struct vmt_source *src = vmt_reader_source(r);
	char held[320], *cpus;
	int n;

	n = vmt_source_held_events(src, held, sizeof(held));
	if (n < 0)
		return 0;
	cpus = vmt_reader_meta(r, VMT_META_CPUS);
	snprintf(buf, size, "not one %s event in the file (the pair %s,%s; CPUs traced: %s): it "
		 "holds %s%s", vmt_reader_begin_name(r), vmt_reader_begin_name(r),
		 vmt_reader_end_name(r), cpus && *cpus ? cpus : "not stored", held,
		 n ? ": choose the pair with --pair BEGIN,END" : "");
	free(cpus);
	return 1;
}

/*
 * A finished flight recording (vmtrace-record --on-threshold) that names no trigger: it
 * holds no pages by design, which its report says ("nothing triggered").
 */
static bool untriggered_flight(const struct vmt_reader *r)
{
	char *thr = vmt_reader_meta(r, VMT_META_TRIGGER_THRESHOLD);
	char *ts = thr ? vmt_reader_meta(r, VMT_META_TRIGGER_TS) : NULL;
	bool untriggered = thr && !ts && vmt_source_status(vmt_reader_source(r))->finished;

	free(thr);
	free(ts);
	return untriggered;
}

/*
 * Not one record could be read, and chunks were damaged: the file, not the guest or the
 * filters, is why nothing is there (the warnings after it say where the damage is).
 */
static bool all_damaged(const struct vmt_reader *r, char *buf, size_t size)
{
	const struct vmt_reader_stats *rd = vmt_reader_stats(r);
	uint64_t blocks = vmt_source_status(vmt_reader_source(r))->bad_blocks;
	uint64_t bad = blocks + rd->bad_chunks;
	uint64_t all = blocks + vmt_source_nchunks_counted(vmt_reader_source(r));

	if (rd->records || (!bad && !rd->bad_pages))
		return false;
	if (bad == all)
		snprintf(buf, size, "nothing to report: all %llu chunk%s of the recording %s "
			 "damaged, not one event could be read", (unsigned long long)all,
			 all == 1 ? "" : "s", all == 1 ? "is" : "are");
	else
		snprintf(buf, size, "nothing to report: not one event could be read: %llu of the "
			 "recording's %llu chunks and %llu pages are damaged, the rest hold none",
			 (unsigned long long)bad, (unsigned long long)all,
			 (unsigned long long)rd->bad_pages);
	return true;
}

int vmt_nomatch_no_exits(const struct vmt_iter *it, const struct vmt_reader *r, char *buf,
			 size_t size)
{
	const struct vmt_source *src = vmt_reader_source(r);
	char *cpus;

	if (size)
		buf[0] = '\0';
	if (it->exits || untriggered_flight(r))
		return 0;
	if (!vmt_source_nchunks_counted(src) && !vmt_source_status(src)->finished) {
		/* not the CPUs' fault: the caller's warning says where the file ends */
		snprintf(buf, size, "nothing to report: the file ends before its first complete "
			 "chunk");
		return 1;
	}
	if (all_damaged(r, buf, size) || vmt_nomatch_held_instead(r, buf, size))
		return 1;
	cpus = vmt_reader_meta(r, VMT_META_CPUS);
	if (vmt_reader_pairs_kvm(r))
		snprintf(buf, size, "not one %s event in the recording (CPUs traced: %s): no guest "
			 "ran on those CPUs while it recorded, or the event does not fire on this "
			 "kernel; the vCPU threads' CPUs: taskset -cp TID, or virsh vcpuinfo VM",
			 vmt_reader_begin_name(r), cpus && *cpus ? cpus : "not stored");
	else	/* no guest, no vCPU threads: only the event and the CPUs can be said */
		snprintf(buf, size, "not one %s event in the recording (CPUs traced: %s): no task "
			 "made it on those CPUs while it recorded, or the event does not fire on "
			 "this kernel", vmt_reader_begin_name(r), cpus && *cpus ? cpus : "not stored");
	free(cpus);
	return 1;
}

int vmt_nomatch_open_only(const struct vmt_iter *it, size_t kept, char *buf, size_t size)
{
	bool kvm = !strcmp(begin_word(it), "exit");

	if (size)
		buf[0] = '\0';
	if (!it->filter || !kept)
		return 0;
	/* not "nothing selected": the stuck vCPU looked for is what was selected */
	snprintf(buf, size, "no %s pair meets all the filters, but %zu %s%s open at the stop "
		 "%s (listed under the orphans' line)", kvm ? "exit-entry" : "begin-end", kept,
		 begin_word(it), kept == 1 ? "" : "s", kept == 1 ? "does" : "do");
	return 1;
}

int vmt_nomatch_explain(const struct vmt_iter *it, char *buf, size_t size)
{
	char head[320], cpus[256], vcpus[256], a[48], b[48];

	if (size)
		buf[0] = '\0';
	if (!it->exits) {
		if (!it->r || (!all_damaged(it->r, buf, size) &&
			       !vmt_nomatch_held_instead(it->r, buf, size)))
			snprintf(buf, size, "nothing selected: the recording has no %ss",
				 begin_word(it));
		return 1;
	}
	if (!it->filter)
		return 0;
	why(it, head, sizeof(head));
	vmt_iter_ids_format(&it->exit_cpus, cpus, sizeof(cpus));
	vmt_iter_ids_format(&it->vcpus, vcpus, sizeof(vcpus));
	snprintf(buf, size, "nothing selected: %s; the recording has %ss on CPU%s %s%s%s%s, "
		 "from %s to %s", head, begin_word(it),
		 vmt_iter_ids_count(&it->exit_cpus) == 1 ? "" : "s",
		 cpus, vcpus[0] ? ", of vCPU" : "",
		 vcpus[0] ? (vmt_iter_ids_count(&it->vcpus) == 1 ? " " : "s ") : "", vcpus,
		 when(it, it->first_exit_ts, a, sizeof(a)),
		 when(it, it->last_exit_ts, b, sizeof(b)));
	return 1;
}
