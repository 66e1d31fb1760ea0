/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session: the recorder's side of tracefs, all through common/tracefs. Owns the ftrace
 * instance instances/vmtrace-PID from its creation (serialised with other recorders by a
 * lock file, after removing instances of dead recorders and refusing CPUs another recorder
 * traces) to its removal, and the page layout read from events/header_page. Main thread
 * only; failures are printed here, naming the tracefs file that failed.
 */
#ifndef REC_SESSION_H
#define REC_SESSION_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "context.h"
#include "evformat.h"
#include "kv.h"
#include "recopt.h"
#include "tracefs.h"

struct rec_session {
	char root[PATH_MAX];		/* tracefs mount */
	struct vmt_tracefs_instance inst;
	bool created;			/* inst exists and must be removed */
	char clock[64];			/* the instance's trace clock */
	struct vmt_header_page hp;
	uint32_t page_size;		/* sub-buffer size, from hp */
};

/* Find (or mount) tracefs into s->root. 0 or -errno. */
int rec_session_find(struct rec_session *s);
/*
 * Whether the pair's events exist on this kernel (their format files): 0, else the exit
 * status (printed): 64 for a name given with -e that is no event here, as --context's; 1
 * otherwise (the default kvm pair missing: no kvm module).
 */
int rec_session_check_pair(const struct rec_session *s, const struct record_opts *o);
/*
 * Whether the kernel has the -C clock (NULL: the default): 0, or 64 having said so. A
 * clock of ticks with no known length (counter, uptime) gets a note: figures in ticks.
 */
int rec_session_check_clock(const struct rec_session *s, const char *clock);
/* --cleanup: remove the instances of recorders that died and print what was removed. */
int rec_session_cleanup(struct rec_session *s);
/*
 * Create and configure the instance for o: buffer size, clock, overwrite mode, CPU mask,
 * the event pair and the context events of ctx (with their filters); then read the page
 * layout. 0 or -errno (printed).
 */
int rec_session_setup(struct rec_session *s, const struct record_opts *o,
		      const struct rec_context *ctx);
/* Open CPU cpu's trace_pipe_raw (non-blocking): the fd, or -errno (printed). */
int rec_session_open_raw(struct rec_session *s, unsigned int cpu);
/* Switch tracing on or off in the instance. 0 or -errno. */
int rec_session_tracing(struct rec_session *s, bool on);
/*
 * Add each traced CPU's per_cpu/cpuN/stats text as "stats.<when>.cpuN" to kb; the first
 * CPU's figures are parsed into *first when it is non-NULL, the events every CPU's figures
 * count lost are summed into *lost, and the entries still in the buffers into *entries,
 * when those are. Returns how many CPUs' stats were read.
 */
unsigned int rec_session_add_stats(struct rec_session *s, const struct vmt_cpulist *cpus,
				   const char *when, struct vmt_kvbuf *kb,
				   struct vmt_cpustats *first, uint64_t *lost, uint64_t *entries);
/* Remove the instance (every per-CPU fd closed first). 0 or -errno (printed). */
int rec_session_remove(struct rec_session *s);

#endif
