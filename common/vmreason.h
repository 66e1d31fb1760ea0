/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmreason: the exits of a recording of several VMs (vmtrace-record --vm; vmfind.h's map)
 * per VM and exit reason, so that the per-reason OpenMetrics families can carry the VM
 * (openmetrics.h). Each pair of VM and reason keeps what those families print and no more:
 * a count, a sum, and counts by the latency's bit length in ns (the families' bounds are
 * 2^k - 1 ns), about 330 bytes, where a full latency distribution takes up to 38 KiB: a
 * host of 256 VMs and 40 reasons stays at a few MB. The summary keeps them when its options
 * carry a map (summary.h); they belong to it, on the thread of its pass. Which VM a task's
 * exits count for is decided here too (vmt_vmreasons_vm_of()), the map only read.
 */
#ifndef VMT_VMREASON_H
#define VMT_VMREASON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bit lengths counted apart (0 to 32: up to 2^32 - 1 ns); the last bin holds the longer. */
#define VMT_VMREASON_BINS 34

struct vmt_vmreason {
	/* the map's index of the VM, or the map's count for the tasks it does not know */
	unsigned int vm;
	uint32_t isa;
	uint64_t key;			/* the reason, as struct vmt_group's */
	uint64_t count;
	unsigned __int128 sum;		/* trace clock units */
	uint64_t bin[VMT_VMREASON_BINS];	/* by the latency's bit length in ns */
};

struct vmt_vmmap;

struct vmt_vmreasons {
	bool on;			/* kept (the summary had a map) */
	const struct vmt_vmmap *map;	/* the caller's, or NULL (vmt_vmreasons_init()) */
	struct vmt_vmreason *v;		/* by vm after vmt_vmreasons_sort(), else as found */
	size_t n, alloc;
	/* during the pass: open addressing on (VM, the summary's reason index): index + 1 in v */
	uint32_t *slot;
	uint64_t *slot_key;
	size_t slots;			/* a power of two, or 0 */
	unsigned int nvm;		/* the map's VMs + 1 (the tasks it lacks) */
};

/* Start keeping them for a map of nvm VMs (vr zeroed here). */
void vmt_vmreasons_init(struct vmt_vmreasons *vr, unsigned int nvm);
/*
 * The same for the VMs of map m (vmfind.h), which stays the caller's and is read by
 * vmt_vmreasons_vm_of() while the pairs come.
 */
void vmt_vmreasons_init_map(struct vmt_vmreasons *vr, const struct vmt_vmmap *m);
/*
 * The VM to give vmt_vmreasons_add() for the exits of task tid: its VM's index in the map,
 * or the map's count (the figures of the tasks of no VM) when the map does not know the
 * task, or when vr was started without a map.
 */
unsigned int vmt_vmreasons_vm_of(const struct vmt_vmreasons *vr, int32_t tid);
/*
 * One exit of VM vm (at most nvm: the map's count stands for unknown tasks) and the reason
 * isa/key, which is reason (an index that stays that reason's while exits are added: the
 * summary's during its pass), of lat trace clock units, lat_ns in ns. 0 or -ENOMEM.
 */
int vmt_vmreasons_add(struct vmt_vmreasons *vr, unsigned int vm, size_t reason, uint32_t isa,
		      uint64_t key, uint64_t lat, uint64_t lat_ns);
/* e's figures added to those of its VM and reason (a time slice's, summarymerge.c). */
int vmt_vmreasons_merge(struct vmt_vmreasons *vr, size_t reason, const struct vmt_vmreason *e);
/* e's exits of at most 2^bits - 1 ns (bits at most 32). */
uint64_t vmt_vmreason_at_most(const struct vmt_vmreason *e, unsigned int bits);
/* e's total as 64 bits, saturated as vmt_latstat_total() is. */
static inline uint64_t vmt_vmreason_total(const struct vmt_vmreason *e)
{
	return e->sum > UINT64_MAX ? UINT64_MAX : (uint64_t)e->sum;
}
/* Order by VM (then reason), for output; the slots are then gone (no more add). */
void vmt_vmreasons_sort(struct vmt_vmreasons *vr);
/* A copy with buffers of its own, sorted (into zeroed here). 0 or -ENOMEM. */
int vmt_vmreasons_copy(struct vmt_vmreasons *into, const struct vmt_vmreasons *from);
void vmt_vmreasons_free(struct vmt_vmreasons *vr);

#endif
