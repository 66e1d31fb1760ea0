// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <stdlib.h>

#include "filter.h"

bool vmt_filter_is_empty(const struct vmt_filter *f)
{
	return !f || (!f->cpus.n && !f->vcpus.n && !f->tids && !f->nreasons && !f->has_from &&
		      !f->has_to);
}

void vmt_filter_bind(struct vmt_filter *f, const struct vmt_clock *clock, uint64_t start_ts)
{
	f->from_ts = start_ts + vmt_clock_ticks(clock, f->from_ns);
	f->to_ts = start_ts + vmt_clock_ticks(clock, f->to_ns);
}

static bool reason_matches(const struct vmt_filter *f, const struct vmt_event *ex)
{
	uint64_t key;
	unsigned int i;

	if (ex->kind != VMT_EV_BEGIN || !(ex->has & VMT_EVF_REASON))
		return false;
	key = vmt_exitreason_key(ex->isa, ex->reason);
	for (i = 0; i < f->nreasons; i++) {
		/* a number given counts as the exit's does: a VMX one by its basic reason */
		if (vmt_exitreason_key(ex->isa, f->reason_key[i]) == key &&
		    (f->reason_isa[i] == VMT_ISA_ANY || !(ex->has & VMT_EVF_ISA) ||
		     f->reason_isa[i] == ex->isa))
			return true;
	}
	return false;
}

static int cmp_tid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

bool vmt_filter_exit_slow(const struct vmt_filter *f, const struct vmt_event *ex,
			  const struct vmt_event *entry)
{
	if (f->cpus.n && !vmt_cpulist_has(&f->cpus, ex->cpu))
		return false;
	if (f->vcpus.n && f->vcpus_by_map) {
		if (!bsearch(&ex->pid, f->vcpu_tids, f->nvcpu_tids, sizeof(*f->vcpu_tids),
			     cmp_tid))
			return false;
	} else if (f->vcpus.n) {
		const struct vmt_event *e = (ex->has & VMT_EVF_VCPU) || !entry ? ex : entry;

		if (!(e->has & VMT_EVF_VCPU) || !vmt_cpulist_has(&f->vcpus, e->vcpu))
			return false;
	}
	if (f->tids && !bsearch(&ex->pid, f->tids, f->ntids, sizeof(*f->tids), cmp_tid))
		return false;
	if (f->nreasons && !reason_matches(f, ex))
		return false;
	if (f->has_from && ex->ts < f->from_ts)
		return false;
	if (f->has_to && ex->ts > f->to_ts)
		return false;
	return true;
}

bool vmt_filter_event(const struct vmt_filter *f, const struct vmt_event *ev,
		      const struct vmt_event *pair_exit)
{
	if (!f)
		return true;
	if (ev->kind == VMT_EV_END && pair_exit)
		return vmt_filter_exit_slow(f, pair_exit, ev);
	return vmt_filter_exit_slow(f, ev, NULL);
}

void vmt_filter_free(struct vmt_filter *f)
{
	vmt_cpulist_free(&f->cpus);
	vmt_cpulist_free(&f->vcpus);
	free(f->tids);
	f->tids = NULL;
	f->ntids = 0;
	free(f->vcpu_tids);
	f->vcpu_tids = NULL;
	f->nvcpu_tids = 0;
	f->vcpus_by_map = false;
}
