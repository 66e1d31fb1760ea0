/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * commtab: the names (comm) of tasks as context events give them (sched_switch's prev and
 * next, sched_waking's and sched_wakeup's wakee), by pid: the last name seen for each, for
 * views that name tasks whose own events carry no comm. A plain struct owned by the caller
 * (zeroed, or vmt_commtab_init); not thread-safe.
 */
#ifndef VMT_COMMTAB_H
#define VMT_COMMTAB_H

#include <stddef.h>
#include <stdint.h>

#include "ctxevent.h"

struct vmt_commtab_slot {
	int32_t pid;			/* 0: free (the idle task is never named here) */
	char comm[VMT_CTX_COMM_LEN];
};

/*
 * Names kept at most (2.5 MiB of slots): a fork-heavy host's long recording names millions
 * of pids. Past it, new pids are not named: the owner first keeps only those it needs.
 */
#define VMT_COMMTAB_MAX 65536

struct vmt_commtab {
	struct vmt_commtab_slot *slot;	/* open addressing, cap a power of two */
	size_t cap, n;
};

void vmt_commtab_init(struct vmt_commtab *t);
void vmt_commtab_free(struct vmt_commtab *t);
/*
 * pid's name is now comm ("" or pid <= 0: nothing; a new pid when VMT_COMMTAB_MAX are
 * named: nothing). Returns 0 or -ENOMEM.
 */
int vmt_commtab_set(struct vmt_commtab *t, int32_t pid, const char *comm);
/* The last name set for pid, or NULL. Valid until the next set. */
const char *vmt_commtab_get(const struct vmt_commtab *t, int32_t pid);
/* The names a decoded context event gives. Returns 0 or -ENOMEM. */
int vmt_commtab_context(struct vmt_commtab *t, const struct vmt_ctxev *ev);
/* Every name of from into into, from's winning: from saw them later. 0 or -ENOMEM. */
int vmt_commtab_merge(struct vmt_commtab *into, const struct vmt_commtab *from);

#endif
