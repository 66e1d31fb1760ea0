// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chunkq.h"
#include "flightend.h"
#include "live.h"
#include "log.h"
#include "metrics.h"
#include "ring.h"
#include "tap.h"
#include "timefmt.h"
#include "watch.h"

/* Copies of pages the tap may hold for the merge before it merges early. */
#define MAX_HELD_BYTES	(64u << 20)

struct rec_watch {
	struct rec_tap *tap;
	struct rec_live *live;
	struct rec_metrics *metrics;
	const char *metrics_path;
	struct vmt_consumer c[3];	/* the pass keeps a pointer to them */
	unsigned int nc;
	/* --on-threshold */
	struct rec_ring *ring;
	const struct record_opts *o;	/* --on-threshold, --keep, --after, --trigger-reason */
	const char *pair;		/* "exit" (KVM's pair) or "pair": the messages' word */
	const char *begin;		/* the begin event ("kvm:kvm_exit"), the options' */
	bool no_output;			/* no file to read back, which would say "not one" */
	char cpus[64];			/* the traced CPUs, as the messages give them */
	_Atomic uint64_t stop_ts;	/* when tracing went off (trace clock), or 0; main's */
	/*
	 * CLOCK_BOOTTIME ns from before tracing started to when it went off (boottime: a
	 * suspend counts, as in the boot trace clock); main's
	 */
	uint64_t boot_start;
	_Atomic uint64_t stop_within;
};

/* The flight recorder's consumer: an exit over the threshold triggers the ring. */
static int trigger_pair(void *state, const struct vmt_iter *it, const struct vmt_pair *p,
			void **task)
{
	struct rec_watch *w = state;
	struct rec_ring_trigger t;

	(void)it;
	(void)task;
	if (p->lat < w->o->threshold_ns || !rec_trigsel_keeps(w->o->trigsel, p->begin))
		return 0;
	t.ts = p->begin->ts;
	t.lat_ns = p->lat;
	t.cpu = p->begin->cpu;
	t.pid = p->begin->pid;
	rec_ring_trigger(w->ring, &t);	/* the ring knows whether it takes one */
	return 0;
}

static const struct vmt_consumer_ops trigger_ops = {
	.name = "trigger",
	.pair = trigger_pair,
};

/* The tap's hook, between two items of the pass. */
static void on_advance(void *arg, const struct vmt_iter *it, uint64_t ts)
{
	struct rec_watch *w = arg;
	struct rec_tap_stats st;

	if (!w->tap)
		return;
	rec_tap_stats(w->tap, &st);
	if (w->live && ts != UINT64_MAX)	/* the end is on_ending's */
		rec_live_advance(w->live, it, ts, st.late);
	if (w->metrics)
		rec_metrics_advance(w->metrics, it, ts, st.missed);
}

/* The tap's hook once the pass has every record, before it ends. */
static void on_ending(void *arg, const struct vmt_iter *it)
{
	struct rec_watch *w = arg;
	struct rec_tap_stats st;

	rec_tap_stats(w->tap, &st);	/* the final merge's late records too */
	if (w->live)
		rec_live_end(w->live, it, atomic_load(&w->stop_ts), atomic_load(&w->stop_within),
			     st.late);
}

static uint64_t boottime_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static void recycle(void *q, struct rec_chunk *c)
{
	rec_chunkq_recycle(q, c);
}

static void lend(void *q, size_t bytes)
{
	rec_chunkq_lend(q, bytes);
}

/* The ring in front of the writer queue's sink. */
static int add_ring(struct rec_watch *w, const struct record_opts *o, uint64_t extra_ns,
		    uint64_t settle_ns, const struct vmt_header_page *hp, struct rec_chunkq *q,
		    struct rec_sink *sink)
{
	struct rec_ring_config rc = {
		.next = *sink, .hp = *hp, .keep_ns = o->keep_ns, .after_ns = o->after_ns,
		.hold_extra_ns = extra_ns, .settle_ns = settle_ns, .max_bytes = (size_t)o->ring_bytes,
		.max_triggers = o->continue_n ? o->continue_n : 1,
		.recycle = recycle,
		.lend = lend,
		.recycle_arg = q,
	};
	int ret = rec_ring_new(&rc, &w->ring);

	if (ret)
		return ret;
	w->o = o;
	w->c[w->nc].ops = &trigger_ops;
	w->c[w->nc++].state = w;
	*sink = rec_ring_sink(w->ring);
	return 0;
}

static int add_watchers(struct rec_watch *w, const struct record_opts *o,
			const struct vmt_kvbuf *meta)
{
	struct rec_live_config lc = {
		.interval_ns = o->live_ns, .out = stdout, .terminal = isatty(STDOUT_FILENO),
		.kvm = vmt_evpair_is_kvm(o->begin), .meta = meta,
	};
	int ret = 0;

	if (o->live_ns) {
		ret = rec_live_new(&lc, &w->live);
		if (ret)
			return ret;
		w->c[w->nc++] = rec_live_consumer(w->live);
	}
	if (o->metrics) {
		/* the labels are the recording's, as vmtrace-report --openmetrics gives them */
		ret = rec_metrics_new(o->metrics, o->metrics_interval_ns, meta, o->labels,
				      o->nlabels, &w->metrics);
		if (ret)
			return ret;
		w->c[w->nc++] = rec_metrics_consumer(w->metrics);
	}
	return 0;
}

int rec_watch_attach(struct rec_watch **out, const struct record_opts *o,
		     const struct rec_session *ses, const struct vmt_kvbuf *meta,
		     struct rec_chunkq *q, struct rec_collector_config *cc)
{
	/* A CPU's chunk reaches the tap up to chunk_max_age_ns after its first page. */
	struct rec_tap_config tc = {
		.next = cc->sink, .hp = ses->hp, .meta = meta->buf, .meta_len = meta->len,
		.clock = ses->clock, .lookbehind_ns = 2 * cc->chunk_max_age_ns,
		.max_held_bytes = MAX_HELD_BYTES, .advance = on_advance, .ending = on_ending,
	};
	uint64_t chunk_max_age_ns = cc->chunk_max_age_ns;
	const struct vmt_header_page *hp = &ses->hp;
	struct rec_sink *sink = &cc->sink;
	struct rec_watch *w;
	int ret;

	*out = NULL;
	if (!o->live_ns && !o->metrics && !o->threshold_ns)
		return 0;
	w = calloc(1, sizeof(*w));
	if (!w) {
		vmt_err("cannot set up the live view: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	*out = w;
	w->boot_start = boottime_ns();
	w->metrics_path = o->metrics;
	w->pair = vmt_evpair_is_kvm(o->begin) ? "exit" : "pair";
	w->begin = o->begin;
	w->no_output = o->no_output;
	vmt_cpulist_format(&o->cpus, w->cpus, sizeof(w->cpus));
	/*
	 * The exit that triggers is seen at its end, the look-behind and a chunk's age later:
	 * the ring holds that much more than --keep, and twice the threshold for the exit
	 * itself (--keep is before its start). The window after it is whole when a record
	 * the look-behind past its end came, as for the tap's merge.
	 */
	ret = o->threshold_ns ? add_ring(w, o, 4 * chunk_max_age_ns + 2 * o->threshold_ns,
					 tc.lookbehind_ns, hp, q, sink) : 0;
	if (!ret)
		ret = add_watchers(w, o, meta);
	if (!ret) {
		tc.next = *sink;
		tc.c = w->c;
		tc.nc = w->nc;
		tc.advance_arg = w;
		ret = rec_tap_new(&tc, &w->tap);
	}
	if (ret) {
		vmt_err("cannot set up the %s: %s", o->live_ns ? "live view" : o->metrics ?
			"metrics" : "flight recorder", strerror(-ret));
		return ret;
	}
	if (w->metrics) {
		ret = rec_metrics_advance(w->metrics, rec_tap_iter(w->tap), 0, 0);
		if (ret) {
			vmt_err("%s", rec_metrics_why(w->metrics));
			return ret;
		}
	}
	*sink = rec_tap_sink(w->tap);
	return 0;
}

/* A warning when the watchers stopped or records came late. */
static void report(const struct rec_watch *w)
{
	struct rec_tap_stats st;
	uint64_t failed;
	int err;

	if (!w->tap)
		return;
	rec_tap_stats(w->tap, &st);
	err = rec_tap_error(w->tap);
	if (err)
		vmt_warn("the live figures stopped: %s (the recording went on)", strerror(-err));
	if (st.late)
		vmt_warn("%" PRIu64 " records came too late for the live figures (the file has "
			 "them)", st.late);
	err = w->metrics ? rec_metrics_error(w->metrics, &failed) : 0;
	if (err)
		vmt_warn_folded("%s: writing the metrics failed %" PRIu64 " of %" PRIu64 " times, "
				"first: %s", w->metrics_path, failed,
				failed + rec_metrics_published(w->metrics), strerror(-err));
	if (w->no_output && !w->ring)	/* (a flight recording's line says it) */
		rec_watch_said_none(w);
}

bool rec_watch_done(const struct rec_watch *w, const char **reason)
{
	if (!w || !w->ring || !rec_ring_done(w->ring))
		return false;
	*reason = "threshold";
	return true;
}

uint64_t rec_watch_end(const struct rec_watch *w, const struct rec_file_start *fs,
		       struct vmt_kvbuf *end)
{
	struct rec_ring_stats st;

	if (!w)
		return 0;
	report(w);
	if (!w->ring)
		return 0;
	rec_ring_stats(w->ring, &st);
	return rec_flightend(&st, fs, w->pair, w->o->keep_ns, w->o->after_ns, end);
}

bool rec_watch_triggered(const struct rec_watch *w)
{
	struct rec_ring_stats st;

	if (!w || !w->ring)
		return false;
	rec_ring_stats(w->ring, &st);
	return st.triggered;
}

uint64_t rec_watch_end_done(const struct rec_watch *w, const struct rec_file_start *fs,
			    struct vmt_kvbuf *end)
{
	struct rec_ring_stats st;

	rec_ring_done_stats(w->ring, &st);
	return rec_flightend(&st, fs, w->pair, w->o->keep_ns, w->o->after_ns, end);
}

bool rec_watch_said_none(const struct rec_watch *w)
{
	const struct vmt_iter *it = w && w->tap ? rec_tap_iter(w->tap) : NULL;

	if (!it || it->exits || rec_tap_error(w->tap))
		return false;
	/* the readback's words (nomatch.c), for a run that has no file to read back */
	if (!strcmp(w->pair, "exit"))
		vmt_warn_folded("not one %s event on the traced CPUs (%s) while it ran: no guest ran "
				"on those CPUs, or the event does not fire on this kernel; the vCPU "
				"threads' CPUs: taskset -cp TID, or virsh vcpuinfo VM", w->begin,
				w->cpus);
	else
		vmt_warn_folded("not one %s event on the traced CPUs (%s) while it ran: no task made "
				"it on those CPUs, or the event does not fire on this kernel",
				w->begin, w->cpus);
	return true;
}

void rec_watch_untriggered(const struct rec_watch *w, const char *stop, const char *file,
			   unsigned int files)
{
	const char *reasons;
	char thr[32], why[256];
	bool none;

	if (!w || !w->ring || rec_watch_triggered(w))
		return;
	reasons = w->o->trigger_reasons;
	none = rec_watch_said_none(w);	/* then not "no exit reached": none came at all */
	vmt_fmt_exact_ns(w->o->threshold_ns, thr, sizeof(thr));
	/* a long list cut: the line stays one, the file has the list */
	snprintf(why, sizeof(why), none ? "not one %s came" :
		 "no %s%s%.60s%s reached --on-threshold %s", w->pair,
		 reasons ? " of --trigger-reason " : "", reasons ? reasons : "",
		 reasons && strlen(reasons) > 60 ? "..." : "", thr);
	/* not the readback's "not one event": nothing was kept, as asked */
	if (file)
		vmt_info_folded("nothing triggered: %s; %s holds the recording's metadata, no pages",
				why, file);
	else if (!files)
		vmt_info("stopped by %s: %s, no file written", stop, why);
	else
		vmt_info("stopped by %s: %u file%s written, no trigger since", stop, files,
			 files == 1 ? "" : "s");
}

void rec_watch_rearm(struct rec_watch *w)
{
	rec_ring_rearm(w->ring);
}

void rec_watch_tracing_off(struct rec_watch *w, uint64_t ts)
{
	if (!w)
		return;
	atomic_store(&w->stop_within, boottime_ns() - w->boot_start);
	atomic_store(&w->stop_ts, ts);
	rec_tap_set_stop(w->tap, ts);
}

void rec_watch_free(struct rec_watch *w)
{
	if (!w)
		return;
	rec_tap_free(w->tap);
	rec_ring_free(w->ring);
	rec_live_free(w->live);
	rec_metrics_free(w->metrics);
	free(w);
}
