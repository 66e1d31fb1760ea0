/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracefs: the only code that touches tracefs. Finds (or mounts) it, creates and removes
 * our own instance (instances/vmtrace-<pid>) without touching the top-level tracer or
 * other instances, sets its buffer, clock, CPU mask and events, opens per-CPU
 * trace_pipe_raw, and parses per-CPU stats. Functions return 0 or -errno and never print;
 * an instance object belongs to one thread (the recorder's main thread).
 */
#ifndef VMT_TRACEFS_H
#define VMT_TRACEFS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

#define VMT_INSTANCE_PREFIX "vmtrace-"

/*
 * Find tracefs: $VMTRACE_TRACEFS if set (tests point it at a missing path), else
 * /sys/kernel/tracing (mounting it there if needed), else /sys/kernel/debug/tracing.
 */
int vmt_tracefs_find(char *root, size_t size);

struct vmt_tracefs_instance {
	char root[PATH_MAX];	/* tracefs mount */
	char dir[PATH_MAX];	/* root/instances/<name> */
	char name[64];
};

/* mkdir the instance; -EEXIST when it exists. Tracing is switched off in it at once. */
int vmt_tracefs_instance_create(const char *root, const char *name,
				struct vmt_tracefs_instance *inst);
/* Switch tracing and events off and rmdir. Every per-CPU fd must be closed first. */
int vmt_tracefs_instance_remove(struct vmt_tracefs_instance *inst);
/* Write value to the instance's file rel ("buffer_size_kb", "trace_clock", ...). */
int vmt_tracefs_write(const struct vmt_tracefs_instance *inst, const char *rel,
		      const char *value);
/* Read the instance's file rel into a malloc'd string. */
int vmt_tracefs_read(const struct vmt_tracefs_instance *inst, const char *rel, char **out);
/* Enable or disable "system:event" in the instance. -ENOENT when the event does not exist. */
int vmt_tracefs_event_enable(const struct vmt_tracefs_instance *inst, const char *event, bool on);
/* Read a file under root/events/: "header_page", or "kvm/kvm_exit/format" for an event. */
int vmt_tracefs_events_file(const char *root, const char *rel, char **out, size_t *len);
/* "kvm:kvm_exit" -> "kvm/kvm_exit/format" into buf; -EINVAL when not "system:event". */
int vmt_tracefs_event_path(const char *event, const char *file, char *buf, size_t size);
/* Restrict tracing to the CPUs of list (tracing_cpumask). */
int vmt_tracefs_set_cpumask(const struct vmt_tracefs_instance *inst,
			    const struct vmt_cpulist *list);
/* open() per_cpu/cpuN/trace_pipe_raw non-blocking; returns the fd or -errno. */
int vmt_tracefs_open_raw(const struct vmt_tracefs_instance *inst, unsigned int cpu);
/* The currently selected clock ("[local] global ..." -> "local") into buf. */
int vmt_tracefs_current_clock(const struct vmt_tracefs_instance *inst, char *buf, size_t size);

/*
 * Remove instances named vmtrace-<pid> whose process is gone (left by kill -9).
 * *removed counts them; names are appended to report (comma separated) when non-NULL.
 */
int vmt_tracefs_remove_stale(const char *root, unsigned int *removed, char *report,
			     size_t report_size);

/*
 * Other live recorders' instances tracing any CPU of cpus (not self_name): returns 1 and
 * names each with exactly the CPUs of cpus it traces in who ("CPUs 0-1 (vmtrace-1234, pid
 * 1234), CPU 3 (vmtrace-99, pid 99)"), 0 when there is none, or -errno.
 */
int vmt_tracefs_find_conflict(const char *root, const char *self_name,
			      const struct vmt_cpulist *cpus, char *who, size_t who_size);

/* per_cpu/cpuN/stats */
struct vmt_cpustats {
	uint64_t entries;
	uint64_t overrun;	/* lost to overwrite */
	uint64_t commit_overrun;
	uint64_t bytes;
	uint64_t dropped;	/* lost with overwrite off */
	uint64_t read;
	uint64_t now_ts;	/* "now ts": raw units for counter clocks, else ns */
};

int vmt_tracefs_parse_stats(const char *text, struct vmt_cpustats *st);
/*
 * How much later than a CPU's statistics' "now ts" (read once tracing stopped) a page of
 * that CPU may be stamped: the statistics are read on one CPU, and per-CPU clocks (local,
 * perf) are not synchronised across CPUs. A second (10^9 counts for a counter clock) is far
 * beyond any skew and still catches a damaged time: the readers of .vmt and trace.dat
 * files leave such a page out.
 */
#define VMT_NOW_SKEW_MARGIN 1000000000ull
static inline uint64_t vmt_cpustats_lost(const struct vmt_cpustats *st)
{
	return st->overrun + st->commit_overrun + st->dropped;
}

#endif
