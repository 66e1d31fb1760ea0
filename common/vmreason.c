// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmfind.h"
#include "vmreason.h"

void vmt_vmreasons_init(struct vmt_vmreasons *vr, unsigned int nvm)
{
	memset(vr, 0, sizeof(*vr));
	vr->on = true;
	vr->nvm = nvm + 1;
}

void vmt_vmreasons_init_map(struct vmt_vmreasons *vr, const struct vmt_vmmap *m)
{
	vmt_vmreasons_init(vr, vmt_vmmap_count(m));
	vr->map = m;
}

unsigned int vmt_vmreasons_vm_of(const struct vmt_vmreasons *vr, int32_t tid)
{
	unsigned int vm, vcpu;

	if (!vr->map || vmt_vmmap_lookup(vr->map, tid, &vm, &vcpu) || vm >= vr->nvm - 1)
		return vr->nvm - 1;
	return vm;
}

static inline uint64_t slot_hash(uint64_t k)
{
	return k * 0x9e3779b97f4a7c15ULL >> 17;
}

/* The slots twice as many, every entry placed again (they hold n entries at most 3/4). */
static int grow_slots(struct vmt_vmreasons *vr)
{
	size_t slots = vr->slots ? vr->slots * 2 : 64, i, j;
	uint32_t *slot = calloc(slots, sizeof(*slot));
	uint64_t *slot_key = malloc(slots * sizeof(*slot_key));

	if (!slot || !slot_key) {
		free(slot);
		free(slot_key);
		return -ENOMEM;
	}
	for (i = 0; i < vr->slots; i++) {
		if (!vr->slot[i])
			continue;
		for (j = slot_hash(vr->slot_key[i]) & (slots - 1); slot[j]; j = (j + 1) & (slots - 1))
			;
		slot[j] = vr->slot[i];
		slot_key[j] = vr->slot_key[i];
	}
	free(vr->slot);
	free(vr->slot_key);
	vr->slot = slot;
	vr->slot_key = slot_key;
	vr->slots = slots;
	return 0;
}

/* The entry of vm and reason, made empty when new; NULL: no memory. */
static struct vmt_vmreason *entry(struct vmt_vmreasons *vr, unsigned int vm, size_t reason,
				  uint32_t isa, uint64_t key)
{
	struct vmt_vmreason *e;
	uint64_t k;
	size_t i;

	if (vm >= vr->nvm)
		vm = vr->nvm - 1;
	k = (uint64_t)reason << 32 | vm;
	if ((vr->n + 1) * 4 > vr->slots * 3 && grow_slots(vr))
		return NULL;
	for (i = slot_hash(k) & (vr->slots - 1); vr->slot[i]; i = (i + 1) & (vr->slots - 1)) {
		if (vr->slot_key[i] == k)
			return &vr->v[vr->slot[i] - 1];
	}
	if (vr->n == vr->alloc) {
		size_t n = vr->alloc ? vr->alloc * 2 : 16;
		struct vmt_vmreason *bigger;

		if (n > UINT32_MAX)	/* the slots hold 32-bit indices */
			return NULL;
		bigger = realloc(vr->v, n * sizeof(*bigger));
		if (!bigger)
			return NULL;
		vr->v = bigger;
		vr->alloc = n;
	}
	e = &vr->v[vr->n];
	memset(e, 0, sizeof(*e));
	e->vm = vm;
	e->isa = isa;
	e->key = key;
	vr->slot[i] = (uint32_t)++vr->n;
	vr->slot_key[i] = k;
	return e;
}

int vmt_vmreasons_add(struct vmt_vmreasons *vr, unsigned int vm, size_t reason, uint32_t isa,
		      uint64_t key, uint64_t lat, uint64_t lat_ns)
{
	struct vmt_vmreason *e = entry(vr, vm, reason, isa, key);
	unsigned int bits = lat_ns ? 64 - (unsigned int)__builtin_clzll(lat_ns) : 0;

	if (!e)
		return -ENOMEM;
	e->count++;
	e->sum += lat;
	e->bin[bits < VMT_VMREASON_BINS - 1 ? bits : VMT_VMREASON_BINS - 1]++;
	return 0;
}

int vmt_vmreasons_merge(struct vmt_vmreasons *vr, size_t reason, const struct vmt_vmreason *e)
{
	struct vmt_vmreason *into = entry(vr, e->vm, reason, e->isa, e->key);
	unsigned int b;

	if (!into)
		return -ENOMEM;
	into->count += e->count;
	into->sum += e->sum;
	for (b = 0; b < VMT_VMREASON_BINS; b++)
		into->bin[b] += e->bin[b];
	return 0;
}

uint64_t vmt_vmreason_at_most(const struct vmt_vmreason *e, unsigned int bits)
{
	uint64_t n = 0;
	unsigned int b;

	/* a value of at most 2^bits - 1 has at most bits bits */
	for (b = 0; b <= bits && b < VMT_VMREASON_BINS - 1; b++)
		n += e->bin[b];
	return n;
}

static int by_vm(const void *a, const void *b)
{
	const struct vmt_vmreason *x = a, *y = b;

	if (x->vm != y->vm)
		return x->vm < y->vm ? -1 : 1;
	if (x->isa != y->isa)
		return x->isa < y->isa ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

void vmt_vmreasons_sort(struct vmt_vmreasons *vr)
{
	free(vr->slot);
	free(vr->slot_key);
	vr->slot = NULL;
	vr->slot_key = NULL;
	vr->slots = 0;
	if (vr->n)
		qsort(vr->v, vr->n, sizeof(*vr->v), by_vm);
}

int vmt_vmreasons_copy(struct vmt_vmreasons *into, const struct vmt_vmreasons *from)
{
	memset(into, 0, sizeof(*into));
	into->on = from->on;
	into->map = from->map;
	into->nvm = from->nvm;
	if (!from->n)
		return 0;
	into->v = malloc(from->n * sizeof(*into->v));
	if (!into->v)
		return -ENOMEM;
	memcpy(into->v, from->v, from->n * sizeof(*into->v));
	into->n = into->alloc = from->n;
	vmt_vmreasons_sort(into);
	return 0;
}

void vmt_vmreasons_free(struct vmt_vmreasons *vr)
{
	free(vr->v);
	free(vr->slot);
	free(vr->slot_key);
	memset(vr, 0, sizeof(*vr));
}
