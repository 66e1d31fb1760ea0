/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * analysis: one streaming pass over a recording (reader -> kvmevent -> pairing -> latstat)
 * producing the summary figures, and their text and JSON forms. Shared by vmtrace-record
 * (its closing summary) and vmtrace-report. Memory grows with tasks, never with events.
 * Printing goes to the FILE the caller gives (data, not diagnostics).
 */
#ifndef VMT_ANALYSIS_H
#define VMT_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latstat.h"
#include "pairing.h"
#include "reader.h"

#define VMT_DEFAULT_WINDOW_NS 1000000ULL

struct vmt_analysis_opts {
	uint64_t window_ns;
};

/* Figures of one task (a vCPU thread, for KVM). */
struct vmt_task_summary {
	int32_t pid;
	uint32_t vcpu;			/* from the events, when they carry vcpu_id */
	bool has_vcpu;
	struct vmt_latstat lat;
	uint64_t max_window_sum;
	uint64_t max_window_at;
};

struct vmt_summary {
	uint64_t events;		/* begin and end events */
	uint64_t other_records;		/* records of other events */
	uint64_t bad_records;
	struct vmt_pairing_stats pairing;
	struct vmt_latstat lat;		/* trace clock units */
	uint64_t window;		/* trace clock units */
	uint64_t max_window_sum;
	uint64_t max_window_at;
	int32_t max_window_pid;
	uint64_t first_ts, last_ts;
	uint64_t lost_events;		/* best figure: stats and page counts agree or the larger */
	uint64_t lost_stats;		/* from per-CPU stats (start/end) */
	bool lost_stats_known;
	struct vmt_reader_stats rd;
	struct vmt_task_summary *tasks;	/* most pairs first */
	size_t ntasks;
};

/* Returns 0 or -ENOMEM; vmt_summary_free() afterwards either way. */
int vmt_analyze(struct vmt_reader *r, const struct vmt_analysis_opts *o, struct vmt_summary *s);
void vmt_summary_free(struct vmt_summary *s);
uint64_t vmt_summary_orphans(const struct vmt_summary *s);
void vmt_summary_print_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s);
void vmt_summary_print_json(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s);
/* The original vm-trace's four lines, whole microseconds. */
void vmt_summary_print_legacy(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s);

/* Write s as a JSON string literal (quoted, escaped). */
void vmt_json_string(FILE *f, const char *s);

#endif
