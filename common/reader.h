/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader: a recording opened for analysis. Takes the event formats, header_page and clock
 * from the file's own metadata, then walks the records of every CPU merged by timestamp
 * (vmt_reader_next) or of one CPU (vmt_reader_cpu_next). Pages flagged "missed events" are
 * reported as gap items in their place. Damaged chunks and pages are counted and skipped.
 * The merged walk decompresses chunks ahead on the other cores (threads owned by the
 * reader); memory: a few decompressed chunks per CPU and thread. One reader per thread.
 */
#ifndef VMT_READER_H
#define VMT_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "container.h"
#include "evformat.h"
#include "kvmevent.h"
#include "rbpage.h"

/* Metadata keys (man/vmtrace-file.5). */
#define VMT_META_EVENT_BEGIN	"event.begin"
#define VMT_META_EVENT_END	"event.end"
#define VMT_META_FORMAT_BEGIN	"format.begin"
#define VMT_META_FORMAT_END	"format.end"
#define VMT_META_HEADER_PAGE	"header_page"
#define VMT_META_HEADER_EVENT	"header_event"
#define VMT_META_CLOCK		"trace.clock"
#define VMT_META_NS_PER_TICK	"clock.ns_per_tick"
#define VMT_META_CPUS		"cpus.traced"
#define VMT_META_ENDIAN		"endian"
#define VMT_META_TSC2NSEC	"clock.tsc2nsec"	/* "MULT SHIFT" from a trace.dat */

enum vmt_item_kind {
	VMT_ITEM_RECORD = 1,
	VMT_ITEM_GAP = 2,	/* events were lost on cpu before ts */
};

struct vmt_item {
	enum vmt_item_kind kind;
	uint32_t cpu;
	uint64_t ts;
	struct vmt_rbrecord rec;	/* VMT_ITEM_RECORD */
	uint64_t missed;		/* VMT_ITEM_GAP: count, or 0 when the page did not store it */
};

struct vmt_reader_stats {
	uint64_t chunks, bad_chunks;
	uint64_t pages, bad_pages;
	uint64_t records;
	uint64_t missed_pages;		/* pages flagged "missed events" */
	uint64_t missed_events;		/* the counts those pages stored */
};

struct stream;
struct prefetch;

struct vmt_reader {
	const char *path;
	struct vmt_container *c;
	char *begin_name, *end_name;	/* "kvm:kvm_exit" */
	char *clock;
	double ns_per_tick;		/* 1 for ns clocks; 0 when unknown */
	uint32_t tsc_mult, tsc_shift;	/* trace.dat tsc2nsec (mult 0: not used) */
	struct vmt_header_page hp;
	struct vmt_evformat *fbegin, *fend;
	struct vmt_evbind bind;
	struct vmt_cpulist cpus;	/* traced CPUs from the metadata */
	struct vmt_reader_stats st;
	const char *last_error;		/* the latest damage seen, for the warning */
	char source[256];		/* trace.bin: where its formats came from; trace.dat: what it is */
	/* merged walk */
	struct stream *streams;
	uint32_t nstreams;
	struct stream **heap;
	uint32_t nheap;
	bool started;
	struct prefetch *prefetch;	/* decompression threads for the merged walk, or NULL */
};

/* Open path and prepare the walk. Returns 0 or -errno with *why saying what is wrong. */
int vmt_reader_open(const char *path, struct vmt_reader **out, const char **why);
/* How to read inputs that do not describe themselves fully. */
struct vmt_input_opts {
	const char *format_dir;	/* a trace.bin's event formats (legacy.h), or NULL */
	const char *pair;	/* a trace.dat's "SYSTEM:BEGIN,SYSTEM:END", or NULL (kvm) */
};

/* The same, for .vmt files, the original tool's trace.bin and trace-cmd's trace.dat. */
int vmt_reader_open_ex(const char *path, const struct vmt_input_opts *opts,
		       struct vmt_reader **out, const char **why);
void vmt_reader_close(struct vmt_reader *r);
/*
 * Next item of all CPUs in timestamp order: 1, or 0 at the end. item->rec.data stays valid
 * until the next call on the same reader.
 */
int vmt_reader_next(struct vmt_reader *r, struct vmt_item *item);
/* The same without a copy: the item, valid until the next call; NULL at the end. */
const struct vmt_item *vmt_reader_next_item(struct vmt_reader *r);
/* The same for one CPU only (does not mix with vmt_reader_next on the same reader). */
int vmt_reader_cpu_next(struct vmt_reader *r, uint32_t cpu, struct vmt_item *item);
/* Metadata value as a malloc'd string, from META or else END; NULL when missing. */
char *vmt_reader_meta(const struct vmt_reader *r, const char *key);
/*
 * Convert a trace-clock interval to ns (identity for ns clocks). A trace.dat with
 * trace-cmd's tsc2nsec converts as trace-cmd does, (ticks * mult) >> shift, so absolute
 * times match `trace-cmd report` to the nanosecond.
 */
static inline uint64_t vmt_reader_ns(const struct vmt_reader *r, uint64_t ticks)
{
	if (r->ns_per_tick == 1.0 || r->ns_per_tick == 0)
		return ticks;
	if (r->tsc_mult)
		return (uint64_t)(((unsigned __int128)ticks * r->tsc_mult) >> r->tsc_shift);
	return (uint64_t)((double)ticks * r->ns_per_tick + 0.5);
}
/* True when the clock's unit is nanoseconds or its rate is known. */
static inline bool vmt_reader_clock_in_ns(const struct vmt_reader *r)
{
	return r->ns_per_tick != 0;
}

/* The recording's start in trace clock units: its earliest page (0 when empty). */
uint64_t vmt_reader_start_ts(const struct vmt_reader *r);

/* How long the recording ran (monotonic start to end in the metadata), or 0 when unknown. */
uint64_t vmt_reader_duration_ns(const struct vmt_reader *r);

/* Lost events per traced CPU from the per-CPU stats at start and end (0 when unknown). */
uint64_t vmt_reader_stats_lost(const struct vmt_reader *r, bool *known);

/* Whether a trace clock counts nanoseconds (local, global, mono, ...). */
bool vmt_clock_is_ns(const char *clock);

#endif
