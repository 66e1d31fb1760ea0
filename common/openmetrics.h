/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * openmetrics: a finished summary (summary.h, after the pass) as metrics for Prometheus:
 * the OpenMetrics text format (vmtrace-report --openmetrics), or the same families in
 * Prometheus's text format 0.0.4 published atomically into a file for node_exporter's
 * textfile collector. Stateless renderer: the summary and labels stay the caller's and
 * are only read, so any thread may render a summary no one is changing.
 */
#ifndef VMT_OPENMETRICS_H
#define VMT_OPENMETRICS_H

#include <stdint.h>
#include <stdio.h>

#include "summary.h"
#include "tclock.h"

/*
 * The latency histogram's upper bounds (le), the same for every recording, reason and host
 * so that buckets add up across vCPUs, hosts and time: 2^k - 1 ns for k = 6 ... 32, i.e.
 * 63 ns, 127 ns, ..., 4.294967295 s (an idle vCPU halts for seconds), then +Inf. At these
 * bounds the summary's log-linear distribution (latstat.h: its buckets start at powers of
 * two) counts exactly for ns trace clocks; for a cycle clock (x86-tsc) a bound falls inside
 * one of its buckets once a reason has more than VMT_LATDIST_EXACT exits, so a count may be
 * off by the values of that bucket (under 0.8 % of the bound).
 */
#define VMT_OPENMETRICS_BOUND_MIN_SHIFT 6
#define VMT_OPENMETRICS_BOUNDS 27
uint64_t vmt_openmetrics_bound_ns(unsigned int i);

enum vmt_openmetrics_format {
	/* OpenMetrics 1.0: "# TYPE x counter" with x_total samples, "# UNIT", "# EOF" */
	VMT_OPENMETRICS_TEXT,
	/*
	 * Prometheus text 0.0.4, what node_exporter's textfile collector parses: counter
	 * families named with their _total, no UNIT and no EOF lines. Same samples, values.
	 */
	VMT_OPENMETRICS_PROMETHEUS,
};

/* The labels every sample carries. NULL or "" leaves a label out (of every sample). */
struct vmt_openmetrics_labels {
	const char *host;
	const char *vm;
};

/*
 * The families (every name starts with vmtrace_; label host, vm, then the others):
 *   vmtrace_exits_total{reason}                  counter  exit-entry pairs per exit reason
 *   vmtrace_vcpu_exits_total{vcpu}               counter  pairs per vCPU task
 *   vmtrace_out_of_guest_seconds_total{vcpu}     counter  time between exit and entry
 *   vmtrace_exit_latency_seconds{reason}         histogram _bucket{le}, _sum, _count
 *   vmtrace_worst_window_seconds{vcpu}           gauge    the task's largest out-of-guest
 *                                                         time inside any sliding window
 *   vmtrace_window_seconds                       gauge    that window's length
 *   vmtrace_lost_events_total                    counter  events the kernel dropped
 *   vmtrace_orphans_total                        counter  exits or entries without pair
 * reason: the exit reason's name ("hlt"), "NAME(0xCODE)" when two ISAs share a name, or
 * "0xCODE" when no table knows it (a syscall pair: the syscall number; "0xCODE (isa N)"
 * when two ISAs have it). vcpu: the vCPU index ("1"), "1 (pid 1234)" when two tasks have
 * the same index, "pid 1234" when the events carry none. Values: integers, seconds as exact decimals of the ns figures.
 */

/*
 * Write s (a finished pass; clk converts its trace clock units to ns) to f. Returns 0,
 * -EINVAL when a label holds a byte below 0x20 other than '\n' (kept out of the
 * exposition), or -errno of the stream (f's error indicator; f is not closed).
 */
int vmt_openmetrics_write(FILE *f, const struct vmt_summary *s, const struct vmt_clock *clk,
			  const struct vmt_openmetrics_labels *l, enum vmt_openmetrics_format fmt);
/* The same into a file descriptor (all of it, or an error: 0 or -errno). fd stays open. */
int vmt_openmetrics_write_fd(int fd, const struct vmt_summary *s, const struct vmt_clock *clk,
			     const struct vmt_openmetrics_labels *l,
			     enum vmt_openmetrics_format fmt);
/*
 * Replace path atomically (outfile.h: path.PID.part, fsync, rename) with s in fmt, so that
 * a collector reading path sees the previous text or the new one, never a part: for
 * node_exporter's textfile collector (--collector.textfile.directory, files named *.prom;
 * the temporary name does not end in .prom, so it is never read) use
 * VMT_OPENMETRICS_PROMETHEUS. Returns 0 or -errno (the temporary file removed).
 */
int vmt_openmetrics_publish(const char *path, const struct vmt_summary *s,
			    const struct vmt_clock *clk, const struct vmt_openmetrics_labels *l,
			    enum vmt_openmetrics_format fmt);

#endif
