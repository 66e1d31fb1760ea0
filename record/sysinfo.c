// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "io.h"
#include "log.h"
#include "metakeys.h"
#include "tclock.h"
#include "sysinfo.h"
#include "collector.h"

int rec_sysinfo_parse_online(const char *text, struct vmt_cpulist *online)
{
	size_t len = strlen(text);
	char *copy;
	int ret;

	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	copy = strndup(text, len);
	if (!copy)
		return -ENOMEM;
	ret = vmt_cli_parse_cpulist(copy, online);
	free(copy);
	return ret;
}

const char *rec_sysinfo_online_path(void)
{
	/* tests take CPUs "offline" here: this machine's CPUs must stay online */
	const char *env = getenv("VMTRACE_CPU_ONLINE");

	return env && *env ? env : "/sys/devices/system/cpu/online";
}

int rec_sysinfo_online_cpus(struct vmt_cpulist *online)
{
	char *text;
	int ret;

	ret = vmt_io_read_file(rec_sysinfo_online_path(), 65536, &text, NULL);
	if (ret)
		return ret;
	ret = rec_sysinfo_parse_online(text, online);
	free(text);
	return ret;
}

int rec_sysinfo_first_offline(const struct vmt_cpulist *cpus, const struct vmt_cpulist *online)
{
	unsigned int i;

	for (i = 0; i < cpus->n; i++)
		if (!vmt_cpulist_has(online, cpus->cpu[i]))
			return (int)cpus->cpu[i];
	return -1;
}

int rec_sysinfo_split_online(const struct vmt_cpulist *cpus, const struct vmt_cpulist *online,
			     struct vmt_cpulist *kept, struct vmt_cpulist *offline)
{
	unsigned int i;

	kept->n = offline->n = 0;
	kept->cpu = calloc(cpus->n ? cpus->n : 1, sizeof(*kept->cpu));
	offline->cpu = calloc(cpus->n ? cpus->n : 1, sizeof(*offline->cpu));
	if (!kept->cpu || !offline->cpu) {
		vmt_cpulist_free(kept);
		vmt_cpulist_free(offline);
		return -ENOMEM;
	}
	for (i = 0; i < cpus->n; i++) {
		struct vmt_cpulist *to = vmt_cpulist_has(online, cpus->cpu[i]) ? kept : offline;

		to->cpu[to->n++] = cpus->cpu[i];
	}
	return kept->n ? 0 : -ENODEV;
}

/*
 * A set the recorder worked out (the CPUs a VM's threads may run on) can name CPUs that are
 * offline, or never were there (an unpinned task may run on every possible CPU): nothing
 * runs there, so they are left out, said once. Only a set with no online CPU is an error.
 */
static int keep_online(struct vmt_cpulist *traced, const char *derived,
		       const struct vmt_cpulist *online)
{
	struct vmt_cpulist kept, off;
	char all[512], out[512], on[512];
	int ret = rec_sysinfo_split_online(traced, online, &kept, &off);

	vmt_cpulist_format(traced, all, sizeof(all));
	vmt_cpulist_format(online, on, sizeof(on));
	if (ret == -ENOMEM) {
		vmt_err("%s: %s", derived, strerror(ENOMEM));
		return -1;
	}
	if (ret) {
		vmt_err("no CPU to trace: %s (%s) are all offline (online: %s)", derived, all, on);
		vmt_cpulist_free(&kept);
		vmt_cpulist_free(&off);
		return -64;
	}
	if (off.n)
		vmt_info_folded("left out offline CPU %s of %s (%s)",
				vmt_cpulist_format(&off, out, sizeof(out)), derived, all);
	vmt_cpulist_free(&off);
	vmt_cpulist_free(traced);
	*traced = kept;
	return 0;
}

int rec_sysinfo_choose_collector(const struct vmt_cpulist *traced,
				 const struct vmt_cpulist *online, int *collector)
{
	unsigned int i;

	if (*collector >= 0) {
		if (!vmt_cpulist_has(online, (unsigned int)*collector))
			return -ENODEV;
		return vmt_cpulist_has(traced, (unsigned int)*collector) ? REC_COLLECTOR_TRACED :
									   REC_COLLECTOR_FREE;
	}
	for (i = 0; i < online->n; i++) {
		if (!vmt_cpulist_has(traced, online->cpu[i])) {
			*collector = (int)online->cpu[i];
			return REC_COLLECTOR_FREE;
		}
	}
	return REC_COLLECTOR_UNPINNED;
}

int rec_sysinfo_check_cpus(struct vmt_cpulist *traced, const char *derived,
			   struct vmt_cpulist *online, int *collector)
{
	char cpus[512];
	int ret;

	if (rec_sysinfo_online_cpus(online)) {
		vmt_err("%s: cannot read the online CPUs", rec_sysinfo_online_path());
		return -1;
	}
	if (derived) {
		ret = keep_online(traced, derived, online);
		if (ret)
			return ret;
	}
	ret = rec_sysinfo_first_offline(traced, online);
	if (ret >= 0) {
		vmt_err("CPU %d is not online (online: %s)", ret,
			vmt_cpulist_format(online, cpus, sizeof(cpus)));
		return -64;
	}
	ret = rec_sysinfo_choose_collector(traced, online, collector);
	if (ret < 0) {
		vmt_err("collector CPU %d is not online", *collector);
		return -64;
	}
	return ret;
}

int rec_sysinfo_warn_collector(int choice, int collector)
{
	if (choice == REC_COLLECTOR_TRACED)
		vmt_warn("collector CPU %d is also traced: the collector's own work will show in "
			 "its latencies", collector);
	if (choice == REC_COLLECTOR_UNPINNED)
		vmt_warn("every online CPU is traced: the collector runs unpinned");
	return 0;
}

uint64_t rec_sysinfo_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int rec_sysinfo_pin_self(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET((unsigned int)cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

int rec_sysinfo_below_collector(void)
{
	struct sched_param sp = { .sched_priority = 0 };
	int policy, ret = pthread_getschedparam(pthread_self(), &policy, &sp);

	if (ret || (policy != SCHED_FIFO && policy != SCHED_RR))
		return -ret;
	sp.sched_priority = 0;
	return -pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
}

static void add_file(struct vmt_kvbuf *kb, const char *key, const char *path)
{
	char *text;
	size_t len;

	if (vmt_io_read_file(path, 1u << 20, &text, &len) == 0) {
		while (len && text[len - 1] == '\n')
			len--;
		vmt_kv_add(kb, key, text, len);
		free(text);
	}
}

static void add_cpu_model(struct vmt_kvbuf *kb)
{
	char *text, *p;

	if (vmt_io_read_file("/proc/cpuinfo", 8u << 20, &text, NULL))
		return;
	p = strstr(text, "model name");
	if (p && (p = strchr(p, ':'))) {
		char *nl = strchr(p, '\n');

		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		vmt_kv_add(kb, "cpu.model", p, nl ? (size_t)(nl - p) : strlen(p));
	}
	free(text);
}

/* key: the wall-clock time back_ns ago, in UTC to the ns. */
static void add_time_back(struct vmt_kvbuf *kb, const char *key, uint64_t back_ns)
{
	struct timespec ts;
	char buf[64];
	struct tm tm;
	uint64_t ns;

	clock_gettime(CLOCK_REALTIME, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	ns -= back_ns < ns ? back_ns : ns;
	ts.tv_sec = (time_t)(ns / 1000000000ULL);
	ts.tv_nsec = (long)(ns % 1000000000ULL);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	vmt_kv_addf(kb, key, "%s.%09ldZ", buf, ts.tv_nsec);
}

void rec_sysinfo_add_time(struct vmt_kvbuf *kb, const char *key)
{
	add_time_back(kb, key, 0);
}

/* The tracefs text files that describe the recording: the formats are required. */
static int add_formats(struct vmt_kvbuf *kb, const struct record_opts *o, const char *root)
{
	const char *names[2] = { o->begin, o->end };
	const char *fkeys[2] = { VMT_META_FORMAT_BEGIN, VMT_META_FORMAT_END };
	char rel[PATH_MAX], *text;
	size_t len;
	int i, ret;

	for (i = 0; i < 2; i++) {
		ret = vmt_tracefs_event_path(names[i], "format", rel, sizeof(rel));
		if (!ret)
			ret = vmt_tracefs_events_file(root, rel, &text, &len);
		if (ret)
			return ret;
		vmt_kv_add(kb, fkeys[i], text, len);
		free(text);
	}
	if (vmt_tracefs_events_file(root, "header_page", &text, &len) == 0) {
		vmt_kv_add(kb, VMT_META_HEADER_PAGE, text, len);
		free(text);
	}
	if (vmt_tracefs_events_file(root, "header_event", &text, &len) == 0) {
		vmt_kv_add(kb, VMT_META_HEADER_EVENT, text, len);
		free(text);
	}
	return 0;
}

int rec_sysinfo_meta(struct vmt_kvbuf *kb, const struct record_opts *o,
		     const struct rec_context *ctx, const char *root, const char *clock,
		     uint32_t page_size)
{
	struct utsname u;
	char cpus[512];
	int ret;

	vmt_kv_add_str(kb, "vmtrace.version", PACKAGE_VERSION);
	vmt_kv_add_str(kb, VMT_META_EVENT_BEGIN, o->begin);
	vmt_kv_add_str(kb, VMT_META_EVENT_END, o->end);
	ret = add_formats(kb, o, root);
	if (ret)
		return ret;
	if (ctx)
		rec_context_meta(ctx, kb);
	if (uname(&u) == 0) {
		vmt_kv_add_str(kb, "kernel.release", u.release);
		vmt_kv_add_str(kb, "kernel.version", u.version);
		vmt_kv_add_str(kb, "kernel.machine", u.machine);
		vmt_kv_add_str(kb, "hostname", u.nodename);
	}
	add_file(kb, "cmdline", "/proc/cmdline");
	add_cpu_model(kb);
	vmt_kv_add_str(kb, VMT_META_ENDIAN, "little");
	vmt_kv_addf(kb, "long_size", "%zu", sizeof(long));
	vmt_kv_add_str(kb, VMT_META_CLOCK, clock);
	vmt_kv_addf(kb, "subbuf_size", "%u", page_size);
	vmt_kv_addf(kb, "buffer_size_kb", "%" PRIu64, o->buffer_bytes / 1024);
	vmt_kv_add_str(kb, VMT_META_CPUS, vmt_cpulist_format(&o->cpus, cpus, sizeof(cpus)));
	/* -1: unpinned (every online CPU traced) */
	vmt_kv_addf(kb, "cpu.collector", "%d", o->collector);
	vmt_kv_add_str(kb, "options", o->cmdline);
	vmt_kv_addf(kb, "poll_interval_ns", "%" PRIu64, o->poll_ns);
	vmt_kv_addf(kb, "zstd_level", "%d", o->level);
	if (o->threshold_ns) {
		vmt_kv_addf(kb, VMT_META_TRIGGER_THRESHOLD, "%" PRIu64, o->threshold_ns);
		vmt_kv_addf(kb, VMT_META_TRIGGER_KEEP, "%" PRIu64, o->keep_ns);
		vmt_kv_addf(kb, VMT_META_TRIGGER_AFTER, "%" PRIu64, o->after_ns);
		if (o->trigger_reasons)
			vmt_kv_add_str(kb, VMT_META_TRIGGER_REASONS, o->trigger_reasons);
	}
	return kb->error;	/* time.start: each file's own, at its monotonic.start_ns (output.c) */
}

void rec_sysinfo_end(struct vmt_kvbuf *kb, const struct rec_end_info *e)
{
	unsigned int i, n = e->col ? rec_collector_ncpus(e->col) : 0;
	/* a flight file's time ends with its window, whenever the recorder finished it */
	uint64_t end = e->mono_held_end_ns && e->mono_held_end_ns < e->mono_end_ns ?
		       e->mono_held_end_ns : e->mono_end_ns, now = rec_sysinfo_now_ns();

	/* time.end: the wall-clock time of monotonic.end_ns (tracing off, a window's end) */
	add_time_back(kb, "time.end", end && now > end ? now - end : 0);
	vmt_kv_addf(kb, "monotonic.end_ns", "%" PRIu64, end);
	if (e->ts_stop)
		vmt_kv_addf(kb, VMT_META_TRACE_STOP, "%" PRIu64, e->ts_stop);
	vmt_kv_add_str(kb, "stop_reason", e->stop_reason);
	if (e->drain)
		vmt_kv_add_str(kb, VMT_META_DRAIN, e->drain);
	/*
	 * Constant-rate counters (x86-tsc): their rate against CLOCK_MONOTONIC over the
	 * recording. Not counter or uptime: their ticks are not of one length.
	 */
	if (vmt_clock_has_rate(e->clock) && e->ts_end > e->ts_start &&
	    e->mono_end_ns > e->mono_start_ns)
		vmt_kv_addf(kb, VMT_META_NS_PER_TICK, "%.9g",
			    (double)(e->mono_end_ns - e->mono_start_ns) /
			    (double)(e->ts_end - e->ts_start));
	for (i = 0; i < n; i++) {
		const struct rec_cpu_counts *c = rec_collector_counts(e->col, i);
		char key[64];

		snprintf(key, sizeof(key), "pages.cpu%u", c->cpu);
		vmt_kv_addf(kb, key, "%" PRIu64, c->pages);
		snprintf(key, sizeof(key), "missed_pages.cpu%u", c->cpu);
		vmt_kv_addf(kb, key, "%" PRIu64, c->missed_pages);
	}
}
