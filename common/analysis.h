/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * analysis: one streaming pass over a recording (reader -> kvmevent -> pairing -> latstat)
 * producing every figure of the report: the summary, latency distributions with
 * percentiles per exit reason, per pCPU and per vCPU task, the worst sliding windows, the
 * longest exits, exits over a threshold, a verbose event dump and histograms. Memory grows
 * with tasks, CPUs and reasons, never with events. Shared by vmtrace-record (its closing
 * summary) and vmtrace-report. Output goes to the FILE the caller gives.
 */
#ifndef VMT_ANALYSIS_H
#define VMT_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "exitreason.h"
#include "latstat.h"
#include "pairing.h"
#include "reader.h"

#define VMT_DEFAULT_WINDOW_NS 1000000ULL
#define VMT_MAX_FILTER_REASONS 64

/* Which exits count; every view honours it. Empty lists mean "all". */
struct vmt_filter {
	struct vmt_cpulist cpus;	/* pCPU of the exit */
	struct vmt_cpulist vcpus;
	unsigned int nreasons;
	uint32_t reason_isa[VMT_MAX_FILTER_REASONS];
	uint64_t reason_key[VMT_MAX_FILTER_REASONS];
	uint64_t from_ns, to_ns;	/* exit time since the recording start */
	bool has_from, has_to;
};

struct vmt_analysis_opts {
	uint64_t window_ns;
	const struct vmt_filter *filter;	/* NULL: everything */
	unsigned int top_n;
	uint64_t threshold_ns;			/* 0: no list */
	FILE *threshold_out;			/* the list, as exits are found */
	FILE *verbose;				/* every event, one line each, or NULL */
	bool verbose_window;			/* only events in [from, to] since the start */
	uint64_t verbose_from_ns, verbose_to_ns;
	uint64_t hist_bucket_ns;		/* 0: no histogram */
	unsigned int hist_buckets;
	bool hist_log;				/* log2 buckets instead of linear */
	/*
	 * Row hooks for conversions: every pair the filter keeps, and every begin/end event
	 * (lat is the pair's latency when the event is an end that completed one, else
	 * UINT64_MAX). near_gap: events were lost on a CPU of the row just before it.
	 */
	void (*pair_hook)(const struct vmt_pair *p, bool near_gap, void *arg);
	bool rows_only;				/* hooks only: skip the report's statistics */
	void (*event_hook)(const struct vmt_event *ev, uint64_t lat, bool near_gap, void *arg);
	void *hook_arg;
	/* called at most ten times a second with chunks done and in all, or NULL */
	void (*progress)(uint64_t done, uint64_t total, void *arg);
	void *progress_arg;
};

/* One group of exits: all, one reason, one pCPU or one task. */
struct vmt_group {
	uint32_t isa;
	uint64_t key;			/* reason key, or CPU number */
	int32_t pid;
	uint32_t vcpu;
	bool has_vcpu;
	struct vmt_latdist d;		/* trace clock units */
	uint64_t max_window_sum, max_window_at;
};

struct vmt_top {
	struct vmt_event exit;
	uint64_t lat;
	uint32_t entry_cpu;
};

struct vmt_summary {
	uint64_t events;		/* begin and end events */
	uint64_t other_records;		/* records of other events */
	uint64_t bad_records;
	uint64_t filtered_out;		/* pairs the filter left out */
	struct vmt_pairing_stats pairing;
	struct vmt_latdist all;		/* trace clock units */
	struct vmt_latstat lat;		/* all.st, kept for the summary code */
	uint64_t window;		/* trace clock units */
	uint64_t max_window_sum, max_window_at;
	int32_t max_window_pid;
	uint64_t start_ts;		/* the recording's first page */
	uint64_t first_ts, last_ts;	/* first and last event */
	uint64_t lost_events, lost_stats;
	bool lost_stats_known;
	struct vmt_reader_stats rd;
	struct vmt_exitreasons *names;
	struct vmt_group *reasons;	/* most total time first */
	size_t nreasons;
	struct vmt_group *cpus;		/* by CPU number */
	size_t ncpus;
	struct vmt_group *tasks;	/* vCPU threads, most pairs first */
	size_t ntasks;
	struct vmt_top *top;		/* longest first */
	unsigned int ntop;
	uint64_t *hist;			/* [ncpus_hist][buckets + 1], the last one overflow */
	uint32_t *hist_cpu;
	unsigned int hist_ncpus, hist_buckets;
	uint64_t hist_bucket;		/* trace clock units; log: 0 */
	bool hist_log;
};

/* Returns 0 or -ENOMEM; vmt_summary_free() afterwards either way. */
int vmt_analyze(struct vmt_reader *r, const struct vmt_analysis_opts *o, struct vmt_summary *s);
void vmt_summary_free(struct vmt_summary *s);
uint64_t vmt_summary_orphans(const struct vmt_summary *s);
/* "NAME(0xCODE)", or "0xCODE" when no table knows it; into buf. */
const char *vmt_summary_reason(const struct vmt_summary *s, uint32_t isa, uint64_t key,
			       char *buf, size_t size);

/* The summary block (the original four figures among them). */
void vmt_summary_print_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s);
/* The full report: header, summary, percentiles, tables, top exits. */
void vmt_report_print_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s);
void vmt_summary_print_json(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s);
/* The original vm-trace's four lines, whole microseconds. */
void vmt_summary_print_legacy(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s);
/* Histogram as text bars (rtla style) or in cyclictest -h's gnuplot-ready layout. */
void vmt_hist_print_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s);
void vmt_hist_print_cyclictest(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s);

/* A latency in readable units ("1.234 us"), or raw ticks when the clock's rate is unknown. */
char *vmt_fmt_lat(const struct vmt_reader *r, uint64_t ticks, char *buf, size_t size);
/* Seconds since start_ts with nanosecond digits: "1.234567890". */
char *vmt_fmt_time(const struct vmt_reader *r, uint64_t start_ts, uint64_t ts, char *buf,
		   size_t size);

/* Write s as a JSON string literal (quoted, escaped). */
void vmt_json_string(FILE *f, const char *s);

#endif
