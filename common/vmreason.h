/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmreason: the exits of a recording of several VMs (vmtrace-record --vm; vmfind.h's map)
 * per VM and exit reason, one latency distribution each, so that the per-reason
 * OpenMetrics families can carry the VM (openmetrics.h). The summary keeps them when its
 * options carry a map (summary.h); they belong to it, on the thread of its pass.
 */
#ifndef VMT_VMREASON_H
#define VMT_VMREASON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latstat.h"

struct vmt_vmreason {
	/* the map's index of the VM, or the map's count for the tasks it does not know */
	unsigned int vm;
	uint32_t isa;
	uint64_t key;			/* the reason, as struct vmt_group's */
	struct vmt_latdist d;		/* trace clock units */
};

struct vmt_vmreasons {
	bool on;			/* kept (the summary had a map) */
	struct vmt_vmreason *v;		/* by vm after vmt_vmreasons_sort(), else as found */
	size_t n, alloc;
	/* during the pass: index + 1 in v by VM and the summary's index of the reason */
	uint32_t *slot;
	unsigned int nvm;		/* the map's VMs + 1 (the tasks it lacks) */
	size_t reasons_cap;		/* slot holds nvm x reasons_cap */
};

/* Start keeping them for a map of nvm VMs (vr zeroed here). */
void vmt_vmreasons_init(struct vmt_vmreasons *vr, unsigned int nvm);
/*
 * The distribution of VM vm (at most nvm: the map's count stands for unknown tasks) and
 * the reason isa/key, which is reason (an index that stays that reason's while pairs are
 * added: the summary's during its pass); made empty on first use. NULL: no memory.
 */
struct vmt_latdist *vmt_vmreasons_get(struct vmt_vmreasons *vr, unsigned int vm, size_t reason,
				      uint32_t isa, uint64_t key);
/* Order by VM (then reason), for output; the slots are then gone (no more get). */
void vmt_vmreasons_sort(struct vmt_vmreasons *vr);
/* A copy with buffers of its own, sorted (into zeroed here). 0 or -ENOMEM. */
int vmt_vmreasons_copy(struct vmt_vmreasons *into, const struct vmt_vmreasons *from);
void vmt_vmreasons_free(struct vmt_vmreasons *vr);

#endif
