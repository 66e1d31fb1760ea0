// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmreason.h"

void vmt_vmreasons_init(struct vmt_vmreasons *vr, unsigned int nvm)
{
	memset(vr, 0, sizeof(*vr));
	vr->on = true;
	vr->nvm = nvm + 1;
}

/* Room in the slots for reason index reason: the table laid out again, wider. */
static int grow_slots(struct vmt_vmreasons *vr, size_t reason)
{
	size_t cap = vr->reasons_cap ? vr->reasons_cap : 16, vm, r;
	uint32_t *slot;

	while (cap <= reason)
		cap *= 2;
	slot = calloc(vr->nvm * cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (vm = 0; vr->slot && vm < vr->nvm; vm++) {
		for (r = 0; r < vr->reasons_cap; r++)
			slot[vm * cap + r] = vr->slot[vm * vr->reasons_cap + r];
	}
	free(vr->slot);
	vr->slot = slot;
	vr->reasons_cap = cap;
	return 0;
}

struct vmt_latdist *vmt_vmreasons_get(struct vmt_vmreasons *vr, unsigned int vm, size_t reason,
				      uint32_t isa, uint64_t key)
{
	struct vmt_vmreason *e;
	uint32_t *s;

	if (vm >= vr->nvm)
		vm = vr->nvm - 1;
	if (reason >= vr->reasons_cap && grow_slots(vr, reason))
		return NULL;
	s = &vr->slot[vm * vr->reasons_cap + reason];
	if (*s)
		return &vr->v[*s - 1].d;
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
	e->vm = vm;
	e->isa = isa;
	e->key = key;
	vmt_latdist_init(&e->d);
	*s = (uint32_t)++vr->n;
	return &e->d;
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
	vr->slot = NULL;
	vr->reasons_cap = 0;
	if (vr->n)
		qsort(vr->v, vr->n, sizeof(*vr->v), by_vm);
}

int vmt_vmreasons_copy(struct vmt_vmreasons *into, const struct vmt_vmreasons *from)
{
	size_t i;

	memset(into, 0, sizeof(*into));
	into->on = from->on;
	into->nvm = from->nvm;
	if (!from->n)
		return 0;
	into->v = calloc(from->n, sizeof(*into->v));
	if (!into->v)
		return -ENOMEM;
	into->alloc = from->n;
	for (i = 0; i < from->n; i++) {
		into->v[i] = from->v[i];
		vmt_latdist_init(&into->v[i].d);
		into->n = i + 1;
		if (vmt_latdist_merge(&into->v[i].d, &from->v[i].d))
			return -ENOMEM;
	}
	vmt_vmreasons_sort(into);
	return 0;
}

void vmt_vmreasons_free(struct vmt_vmreasons *vr)
{
	size_t i;

	for (i = 0; i < vr->n; i++)
		vmt_latdist_free(&vr->v[i].d);
	free(vr->v);
	free(vr->slot);
	memset(vr, 0, sizeof(*vr));
}
