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

struct vmt_vmmap;

/* At most this many constant labels of the user's (--label NAME=VALUE). */
#define VMT_OPENMETRICS_MAX_EXTRA 16

/*
 * The labels every sample carries. NULL or "" leaves a label out (of every sample). vm is a
 * caller's name for the whole exposition (a recording of one VM, a report filtered to
 * one); vmmap gives the vCPU tasks' own.
 */
struct vmt_openmetrics_labels {
	const char *host;
	const char *vm;
	/*
	 * "NAME=VALUE" each (checked by vmt_openmetrics_extra_add()), after host and vm on
	 * every sample: what tells apart two expositions of one host, e.g. two recorders on
	 * disjoint CPUs publishing into one textfile directory.
	 */
	const char *const *extra;
	size_t nextra;
	/*
	 * The recording's VM map (vmtrace-record --vm; vmfind.h) or NULL. When vm is not
	 * given, every sample of the per-task families (and the per-reason ones, with the
	 * summary's vmreasons) then has a vm label too: its task's
	 * VM's name ("web (pid 900)" with the VMM's pid when two VMs of the map share the
	 * name, so that no label set repeats), "" when the map does not know the task
	 * (Prometheus reads an empty value as no label), so that sum by (vm) adds a VM's vCPUs. Never two vm labels on a
	 * sample: a given vm is the only one. Read only; the caller keeps it.
	 */
	const struct vmt_vmmap *vmmap;
};

/*
 * The families (every name starts with vmtrace_; labels host, vm, the caller's extra ones,
 * then the others):
 *   vmtrace_exits_total{vm,reason}               counter  exit-entry pairs per exit reason
 *   vmtrace_vcpu_exits_total{vm,vcpu}            counter  pairs per vCPU task
 *   vmtrace_out_of_guest_seconds_total{vm,vcpu}  counter  time between exit and entry
 *   vmtrace_exit_latency_seconds{vm,reason}      histogram _bucket{le}, _sum, _count
 *   vmtrace_worst_window_seconds{vm,vcpu}        gauge    the task's largest out-of-guest
 *                                                         time inside any sliding window
 *   vmtrace_window_seconds                       gauge    that window's length
 *   vmtrace_lost_events_total                    counter  events the kernel dropped
 *   vmtrace_orphans_total                        counter  exits or entries without pair
 * reason: the exit reason's name ("hlt"), "NAME(0xCODE)" when two ISAs share a name, or
 * "0xCODE" when no table knows it (a syscall pair: the syscall number; "0xCODE (isa N)"
 * when two ISAs have it). vm: only with a map and no vm of the caller's (above); on the
 * per-reason families only when the summary kept its exits per VM (summary.h's opts.vmmap,
 * s->vmreasons): a series per VM and reason, the tasks of no VM last as vm="". vcpu: the
 * vCPU index (the events' own, else the map's index of the thread, as the JSON report's
 * vcpus), "1 (pid 1234)" when two tasks of the same vm label have the same index (two VMs'
 * vCPU 0 are vm="a",vcpu="0" and vm="b",vcpu="0"), "pid 1234" when neither gives one.
 * Values: integers, seconds as exact decimals of the ns figures.
 */

/*
 * Check arg ("NAME=VALUE", --label's) and add it to list (*n of them so far, room for
 * VMT_OPENMETRICS_MAX_EXTRA). NAME as Prometheus's data model has them ([a-zA-Z_][a-zA-Z0-9_]*,
 * not starting with "__", reserved), none of the labels the families set themselves (host,
 * vm, reason, vcpu, le) nor one given before: a repeated label makes a scraper refuse the
 * whole exposition. VALUE: any UTF-8 text without control bytes but '\n' (escaped when
 * written). Returns 0, or -EINVAL with msg saying what is wrong in one line.
 */
int vmt_openmetrics_extra_add(const char **list, size_t *n, const char *arg, char *msg,
			      size_t size);

/*
 * Write s (a finished pass; clk converts its trace clock units to ns) to f. Returns 0,
 * -EINVAL when a label holds a byte below 0x20 other than '\n' (kept out of the
 * exposition), or -errno of the stream (f's error indicator; f is not closed).
 */
int vmt_openmetrics_write(FILE *f, const struct vmt_summary *s, const struct vmt_clock *clk,
			  const struct vmt_openmetrics_labels *l, enum vmt_openmetrics_format fmt);
/*
 * The same into a file descriptor, streamed 64 KiB at a time in constant memory: 0, or
 * -errno (a label that cannot be written is found before the first byte; a write error
 * may leave part of the text written). fd stays open.
 */
int vmt_openmetrics_write_fd(int fd, const struct vmt_summary *s, const struct vmt_clock *clk,
			     const struct vmt_openmetrics_labels *l,
			     enum vmt_openmetrics_format fmt);
/*
 * Replace path atomically (outfile.h: path.PID.part, fsync, rename) with s in fmt, so that
 * a collector reading path sees the previous text or the new one, never a part: for
 * node_exporter's textfile collector (--collector.textfile.directory, files named *.prom;
 * the temporary name does not end in .prom, so it is never read) use
 * VMT_OPENMETRICS_PROMETHEUS. The replaced file's mode, owner and group are kept; note
 * (note_size bytes) gets vmt_outfile_note()'s words when they could not all be, else "";
 * when the file cannot be opened, vmt_outfile_open()'s line that says why (else "" on an
 * error).
 * Returns 0 or -errno (the temporary file removed).
 */
int vmt_openmetrics_publish(const char *path, const struct vmt_summary *s,
			    const struct vmt_clock *clk, const struct vmt_openmetrics_labels *l,
			    enum vmt_openmetrics_format fmt, char *note, size_t note_size);

#endif
