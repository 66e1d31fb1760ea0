// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commtab.h"

void vmt_commtab_init(struct vmt_commtab *t)
{
	memset(t, 0, sizeof(*t));
}

void vmt_commtab_free(struct vmt_commtab *t)
{
	free(t->slot);
	vmt_commtab_init(t);
}

static size_t slot_of(int32_t pid, size_t cap)
{
	uint32_t h = (uint32_t)pid * 0x9e3779b1u;	/* pids are dense: spread them */

	return (size_t)(h >> 7) & (cap - 1);
}

static struct vmt_commtab_slot *find(const struct vmt_commtab *t, int32_t pid)
{
	size_t i;

	if (!t->cap)
		return NULL;
	for (i = slot_of(pid, t->cap);; i = (i + 1) & (t->cap - 1)) {
		if (t->slot[i].pid == pid || !t->slot[i].pid)
			return &t->slot[i];
	}
}

static int grow(struct vmt_commtab *t)
{
	struct vmt_commtab old = *t;
	size_t i;

	t->cap = old.cap ? old.cap * 2 : 256;
	t->slot = calloc(t->cap, sizeof(*t->slot));
	if (!t->slot) {
		*t = old;
		return -ENOMEM;
	}
	for (i = 0; i < old.cap; i++) {
		if (old.slot[i].pid)
			*find(t, old.slot[i].pid) = old.slot[i];
	}
	free(old.slot);
	return 0;
}

int vmt_commtab_set(struct vmt_commtab *t, int32_t pid, const char *comm)
{
	struct vmt_commtab_slot *s;
	size_t len;

	if (pid <= 0 || !comm[0])
		return 0;
	if (t->n >= VMT_COMMTAB_MAX && !vmt_commtab_get(t, pid))
		return 0;
	/* at most half full: probes stay short */
	if ((t->n + 1) * 2 > t->cap && grow(t))
		return -ENOMEM;
	s = find(t, pid);
	if (!s->pid) {
		s->pid = pid;
		t->n++;
	}
	/* the event's field may fill all 16 bytes: always one NUL */
	len = strnlen(comm, sizeof(s->comm) - 1);
	memcpy(s->comm, comm, len);
	s->comm[len] = '\0';
	return 0;
}

const char *vmt_commtab_get(const struct vmt_commtab *t, int32_t pid)
{
	const struct vmt_commtab_slot *s = pid > 0 ? find(t, pid) : NULL;

	return s && s->pid ? s->comm : NULL;
}

int vmt_commtab_context(struct vmt_commtab *t, const struct vmt_ctxev *ev)
{
	switch (ev->type) {
	case VMT_CTX_SWITCH:
		if (vmt_commtab_set(t, ev->u.sw.prev_pid, ev->u.sw.prev_comm))
			return -ENOMEM;
		return vmt_commtab_set(t, ev->u.sw.next_pid, ev->u.sw.next_comm);
	case VMT_CTX_WAKEUP:
		return vmt_commtab_set(t, ev->u.wake.pid, ev->u.wake.comm);
	default:
		return 0;
	}
}

int vmt_commtab_merge(struct vmt_commtab *into, const struct vmt_commtab *from)
{
	size_t i;

	for (i = 0; i < from->cap; i++) {
		const struct vmt_commtab_slot *s = &from->slot[i];

		if (s->pid && vmt_commtab_set(into, s->pid, s->comm))
			return -ENOMEM;
	}
	return 0;
}
