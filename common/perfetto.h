/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfetto: a consumer of the pass (iterate.h) that writes the Chrome trace-event JSON format
 * (ui.perfetto.dev, chrome://tracing) as it goes: one track per vCPU task holding each exit
 * as a complete slice named by its reason, one track per pCPU holding the interrupts and the
 * preemptions of vCPU tasks the context events show. Memory grows with tasks and CPUs, never
 * with events. Owned by the thread that runs the pass; the fd stays the caller's.
 */
#ifndef VMT_PERFETTO_H
#define VMT_PERFETTO_H

#include <stdint.h>

#include "iterate.h"

/* The trace's two processes: what Perfetto groups the tracks under. */
#define VMT_PERFETTO_PID_PCPU 1
#define VMT_PERFETTO_PID_TASKS 2

struct vmt_perfetto;

struct vmt_perfetto_counts {
	uint64_t exits;			/* exit slices ("cat": "exit") */
	uint64_t context;		/* interrupt and preemption slices ("cat": "context") */
};

/*
 * A writer onto fd and the consumer that feeds it. Returns 0 or -ENOMEM; on success the
 * caller runs the pass, then vmt_perfetto_finish() (after a failed pass too).
 */
int vmt_perfetto_consumer(int fd, struct vmt_perfetto **out, struct vmt_consumer *c);
/* The slices written so far. */
const struct vmt_perfetto_counts *vmt_perfetto_counts(const struct vmt_perfetto *p);
/* Close the JSON, flush, free p. Returns 0 or the first write error (-errno). */
int vmt_perfetto_finish(struct vmt_perfetto *p);

#endif
