/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metakeys: the names of the metadata keys a recording carries (man/vmtrace-file.5). Every
 * source fills them in the same spelling, whatever its file says, so the reader needs to
 * know only these. Header-only constants.
 */
#ifndef VMT_METAKEYS_H
#define VMT_METAKEYS_H

#define VMT_META_EVENT_BEGIN	"event.begin"
#define VMT_META_EVENT_END	"event.end"
#define VMT_META_FORMAT_BEGIN	"format.begin"
#define VMT_META_FORMAT_END	"format.end"
#define VMT_META_HEADER_PAGE	"header_page"
#define VMT_META_HEADER_EVENT	"header_event"
#define VMT_META_CLOCK		"trace.clock"
#define VMT_META_MACHINE	"kernel.machine"	/* uname -m of the recording kernel */
#define VMT_META_NS_PER_TICK	"clock.ns_per_tick"
#define VMT_META_CPUS		"cpus.traced"
#define VMT_META_ENDIAN		"endian"
#define VMT_META_TSC2NSEC	"clock.tsc2nsec"	/* "MULT SHIFT" from a trace.dat */
#define VMT_META_MONO_START	"monotonic.start_ns"
#define VMT_META_MONO_END	"monotonic.end_ns"	/* in END */
/*
 * In END of a recording that ran to its stop (not a flight file, whose time ends with its
 * window): the trace clock when tracing went off, which the exits still open ran to.
 */
#define VMT_META_TRACE_STOP	"trace.stop_ts"
/* in END of a flight recording: the first kept page's time, where its pages begin */
#define VMT_META_MONO_KEPT	"monotonic.kept_start_ns"
#define VMT_META_STATS_START	"stats.start.cpu"	/* + CPU number */
#define VMT_META_STATS_END	"stats.end.cpu"		/* + CPU number, in END */
/*
 * In END of vmtrace-record's last file: "complete", or "aborted" when a second stop signal
 * cut the final drain short. Its presence says stats.end.cpuN were read after the recorder
 * stopped reading, so their entries are events left unread in the ring buffer: lost.
 */
#define VMT_META_DRAIN		"drain"
/*
 * In END of a vmtrace-convert --to-vmt copy: the pages it flagged "events lost" without a
 * count to mark where it left damaged data out (man/vmtrace-file.5). Those flags are the
 * damage's, not losses while recording: a reader words them as the original's damage.
 */
#define VMT_META_COPY_MARKED	"copy.marked_pages"
/*
 * Context events (sched, irq, ... for attribution). context.events lists those recorded,
 * comma-separated "system:event"; absent means none was recorded, which is not the same
 * as none firing. context.missing: asked for, not on the recording kernel.
 */
#define VMT_META_CONTEXT_EVENTS	"context.events"
#define VMT_META_CONTEXT_MISSING "context.missing"
#define VMT_META_FORMAT_CTX	"format.ctx."	/* + "system:event": its format file */
#define VMT_META_FILTER_CTX	"filter.ctx."	/* + "system:event": its tracefs filter */
/*
 * vmtrace-record --vm: the tracefs filter put on both events of the pair (the vCPU threads'
 * pids), and the map of VMs and vCPU threads (vm.count, vm.<i>.*: common/vmfind.h).
 */
#define VMT_META_FILTER_PAIR	"filter.pair"
/*
 * The flight recorder (vmtrace-record --on-threshold): in META the threshold and how much
 * was kept before and after; in END the exit that triggered (trace clock time and latency
 * in trace clock units, its pCPU and task). No trigger.ts in END: nothing triggered.
 */
#define VMT_META_TRIGGER_THRESHOLD "trigger.threshold_ns"
#define VMT_META_TRIGGER_KEEP	"trigger.keep_ns"
#define VMT_META_TRIGGER_AFTER	"trigger.after_ns"
#define VMT_META_TRIGGER_REASONS "trigger.reasons"	/* --trigger-reason, as given */
#define VMT_META_TRIGGER_TS	"trigger.ts"		/* in END */
#define VMT_META_TRIGGER_LAT	"trigger.lat"		/* in END */
#define VMT_META_TRIGGER_CPU	"trigger.cpu"		/* in END */
#define VMT_META_TRIGGER_PID	"trigger.pid"		/* in END */

#endif
