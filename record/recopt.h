/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recopt: vmtrace-record's command line (argp tables, --help text) parsed into a struct
 * record_opts. Main thread, once at start; the options live until rec_opts_free() and are
 * read-only afterwards (the collector CPU is filled in by the probe phase).
 */
#ifndef REC_RECOPT_H
#define REC_RECOPT_H

#include <stdint.h>

#include "cli.h"
#include "openmetrics.h"
#include "trigsel.h"

#define REC_DEFAULT_BEGIN	"kvm:kvm_exit"
#define REC_DEFAULT_END		"kvm:kvm_entry"
#define REC_DEFAULT_OUTPUT	"trace.vmt"
#define REC_DEFAULT_BUFFER_KB	8192
#define REC_DEFAULT_POLL_NS	10000000ULL	/* 10 ms */
#define REC_DEFAULT_LIVE_NS	1000000000ULL	/* 1 s */
#define REC_DEFAULT_METRICS_NS	10000000000ULL	/* 10 s */
#define REC_DEFAULT_KEEP_NS	10000000000ULL	/* 10 s */
#define REC_DEFAULT_AFTER_NS	1000000000ULL	/* 1 s */
#define REC_DEFAULT_RING_BYTES	(512ULL << 20)

struct record_opts {
	struct vmt_cpulist cpus;
	int collector;			/* -1: choose */
	uint64_t duration_ns;		/* 0: until a signal */
	const char *output;
	uint64_t buffer_bytes;
	char *begin, *end;
	const char *context;		/* --context LIST; NULL: the default list */
	const char *vm;			/* --vm NAME|PID[,...]; NULL: none */
	const char *clock;
	int level;
	int quiet;
	int cleanup_only;
	int other_key;			/* the first option given but --cleanup (its key), or 0 */
	uint64_t poll_ns;
	uint64_t live_ns;		/* --live interval; 0: no live view */
	int no_output;
	const char *metrics;		/* --metrics FILE, or NULL */
	uint64_t metrics_interval_ns;	/* --interval */
	const char *labels[VMT_OPENMETRICS_MAX_EXTRA];	/* --label NAME=VALUE, checked */
	size_t nlabels;
	uint64_t threshold_ns;		/* --on-threshold; 0: record everything */
	uint64_t keep_ns, after_ns;	/* --keep, --after */
	unsigned int continue_n;	/* --continue: files at most; 0: one file, -o's name */
	uint64_t ring_bytes;		/* --ring-size */
	const char *trigger_reasons;	/* --trigger-reason LIST as given, or NULL */
	struct rec_trigsel *trigsel;	/* that list resolved (the probe phase), or NULL */
	char cmdline[1024];		/* the command line as given, for the metadata */
	char **command;			/* after "--": the command to record around; or NULL */
};

/*
 * Fill o with the defaults, parse argv and set the log's quiet level. What follows the
 * first "--" is the command (o->command points into argv). A bad command line exits with
 * status 64 (argp, with a message); returns 0 or -ENOMEM.
 */
int rec_opts_parse(int argc, char **argv, struct record_opts *o);
void rec_opts_free(struct record_opts *o);

#endif
