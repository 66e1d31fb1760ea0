/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysinfo: what the recorder learns about the machine and stores in the file: the online
 * CPUs, the collector CPU choice (and pinning a thread there), the key/values of the META
 * and END blocks (kernel, command lines, CPU model, clocks, times, options, page counts).
 * Stateless and thread-safe; nothing is printed (results and errors are returned).
 */
#ifndef REC_SYSINFO_H
#define REC_SYSINFO_H

#include <stdint.h>

#include "cli.h"
#include "context.h"
#include "kv.h"
#include "recopt.h"
#include "tracefs.h"

struct rec_collector;

/* CLOCK_MONOTONIC in ns. */
uint64_t rec_sysinfo_now_ns(void);
/* Pin the calling thread to cpu (-1: leave it). 0 or -errno. */
int rec_sysinfo_pin_self(int cpu);
/*
 * Under a real-time policy (the recorder started by chrt), the calling thread to
 * SCHED_OTHER: the writer's compression and main's work (a --continue file's read-back,
 * the live view) share the collector CPU and must never keep the collector from the ring
 * buffers, neither by priority nor by using up the CPU's real-time share (past
 * sched_rt_runtime_us the kernel throttles every real-time task there, the collector
 * too). 0 or -errno.
 */
int rec_sysinfo_below_collector(void);

/* The text of /sys/devices/system/cpu/online ("0-3,8\n") into online. 0 or -errno. */
int rec_sysinfo_parse_online(const char *text, struct vmt_cpulist *online);
/* That file, or the one $VMTRACE_CPU_ONLINE names (tests). */
const char *rec_sysinfo_online_path(void);
int rec_sysinfo_online_cpus(struct vmt_cpulist *online);
/*
 * cpus split into those online (kept) and the others (offline), both sorted lists the
 * caller frees. 0; -ENODEV when none is online (both still filled); -ENOMEM (both empty).
 */
int rec_sysinfo_split_online(const struct vmt_cpulist *cpus, const struct vmt_cpulist *online,
			     struct vmt_cpulist *kept, struct vmt_cpulist *offline);

/* The first CPU of cpus that is not online, or -1 when all are. */
int rec_sysinfo_first_offline(const struct vmt_cpulist *cpus, const struct vmt_cpulist *online);

enum rec_collector_choice {
	REC_COLLECTOR_FREE = 0,		/* a CPU that is not traced */
	REC_COLLECTOR_TRACED,		/* the requested CPU is also traced */
	REC_COLLECTOR_UNPINNED,		/* every online CPU is traced: *collector stays -1 */
};

/*
 * The collector CPU: *collector when >= 0 (it must be online), else the first online CPU
 * not traced. Returns a rec_collector_choice, or -ENODEV when the requested one is offline.
 */
int rec_sysinfo_choose_collector(const struct vmt_cpulist *traced,
				 const struct vmt_cpulist *online, int *collector);
/* The warning a choice deserves (a traced or no collector CPU); returns 0. */
int rec_sysinfo_warn_collector(int choice, int collector);
/*
 * Both checks at once, each failure said in one line: reads the online CPUs into online,
 * then chooses the collector. traced is either what the command line named (derived NULL)
 * or a set the recorder worked out, which derived describes ("the CPUs the vCPU threads
 * may run on"): its offline CPUs are then left out of traced, said in one line. Returns a
 * rec_collector_choice, or the exit status as a negative number: -1 when the online CPUs
 * cannot be read, -64 when a CPU the command line named (traced or collector) is not
 * online, or no CPU of a derived set is.
 */
int rec_sysinfo_check_cpus(struct vmt_cpulist *traced, const char *derived,
			   struct vmt_cpulist *online, int *collector);

/* "time.start"-style key: the realtime clock as 2026-12-01T10:00:00.123456789Z. */
void rec_sysinfo_add_time(struct vmt_kvbuf *kb, const char *key);
/*
 * The META block up to "time.start": version, events and their format files (read from
 * root/events), header_page and header_event, the context events of ctx (may be NULL:
 * none), uname, /proc/cmdline, CPU model, layout, clock, options. Returns kb's error or
 * the -errno of a missing format file.
 */
int rec_sysinfo_meta(struct vmt_kvbuf *kb, const struct record_opts *o,
		     const struct rec_context *ctx, const char *root, const char *clock,
		     uint32_t page_size);

/* What the END block says besides the per-CPU stats. */
struct rec_end_info {
	const char *stop_reason;
	const char *clock;
	uint64_t mono_start_ns, mono_end_ns;
	/* a flight file's: the end of the time it holds, when before mono_end_ns (0: none) */
	uint64_t mono_held_end_ns;
	uint64_t ts_start, ts_end;		/* the first CPU's "now ts" at start and end */
	/*
	 * VMT_META_TRACE_STOP: its "now ts" at tracing off (rec_output_finish() sets it); 0
	 * when not known, and in a flight file, whose exits open at its end ran to its
	 * window's end, not to the stop
	 */
	uint64_t ts_stop;
	const struct rec_collector *col;	/* per-CPU page counts */
	/*
	 * "complete" or "aborted" (VMT_META_DRAIN) when the end stats were read after the
	 * final drain; NULL (no key) when the collector goes on (--continue's rotation), and
	 * in a flight recording, whose pages end with the part kept: what the drain left
	 * there lies after it, not lost from the file.
	 */
	const char *drain;
};

/*
 * time.end, monotonic.end_ns (the earlier of the stop and the held end), trace.stop_ts,
 * stop_reason, drain,
 * clock.ns_per_tick (counter clocks, over the whole time the recorder ran), pages.
 */
void rec_sysinfo_end(struct vmt_kvbuf *kb, const struct rec_end_info *e);

#endif
