/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader: a recording opened for analysis. Takes the event formats, header_page and clock
 * from its source's metadata, then walks the records of every CPU merged by timestamp
 * (vmt_reader_next_item) or of one CPU (vmt_reader_cpu_next). Pages flagged "missed
 * events" are reported as gap items in their place. Damaged chunks and pages are counted
 * and skipped, and their events are lost as a gap's are: a gap item where the chunk's
 * header says it began (else at the next page that holds records). The merged walk
 * decompresses chunks ahead on the other cores (readahead.h); memory: a few decompressed
 * chunks per CPU and thread. When a chunk of every CPU would
 * pass 32 MiB (VMT_CHUNK_BYTES_ALL: recordings of many CPUs in large chunks), each CPU's
 * chunk is read a window at a time instead (vmt_source_read_chunk_part), the windows
 * ahead as parts of chunks.
 * The handle is opaque; one reader per thread.
 */
#ifndef VMT_READER_H
#define VMT_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "evformat.h"
#include "kvmevent.h"
#include "rbpage.h"
#include "source.h"
#include "tclock.h"

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
	/*
	 * VMT_ITEM_GAP: when the CPU's events may have been lost, from its last record before
	 * (0: none) to the first time known again: a flagged page's time, a damaged chunk's
	 * last time (UINT64_MAX when not known).
	 */
	uint64_t gap_from, gap_until;
};

/*
 * Where a hole that follows item prev (a CPU's previous item; kind 0: none) starts: its
 * record's time, or where the gap before it started (no record came between the two).
 */
static inline uint64_t vmt_item_hole_from(const struct vmt_item *prev)
{
	return prev->kind == VMT_ITEM_RECORD ? prev->ts :
	       prev->kind == VMT_ITEM_GAP ? prev->gap_from : 0;
}

struct vmt_reader_stats {
	uint64_t chunks, bad_chunks;
	uint64_t pages, bad_pages;
	uint64_t records;
	uint64_t missed_pages;		/* pages flagged "missed events" */
	uint64_t missed_events;		/* the counts those pages stored */
	uint64_t missed_uncounted;	/* those of them that stored no count */
	/*
	 * Records before their CPU's record before them (chunks out of order, a page's time
	 * wrong): each CPU's stream is analysed in the file's order all the same, which is
	 * damage a program must report. The first one's CPU, its time and the time before it.
	 */
	uint64_t time_back;
	uint32_t time_back_cpu;
	uint64_t time_back_ts, time_back_prev;
	/*
	 * Records of no event, too short for the common header every event starts with (a
	 * broken writer's): the pass counts them as it decodes, not the reader, and
	 * vmt_iter_read_stats() puts its count here; always 0 in the reader's own figures.
	 */
	uint64_t bad_records;
};

/*
 * Where damaged data was found, for the warning that says so: the first damaged chunk or
 * page of a walk (or of the chunks a program copied itself), with what its chunk header
 * says of it. Plain data.
 */
struct vmt_damage {
	const char *why;		/* what was wrong (a constant string), NULL: no damage */
	bool located;			/* the fields below are known */
	uint64_t offset;		/* the chunk's place in the file (a .vmt: its block) */
	uint32_t cpu, pages;		/* its CPU and page count */
	uint32_t page;			/* its first damaged page; UINT32_MAX: all of it */
	uint64_t first_ts, last_ts;	/* its header's times; UINT64_MAX / 0 when not known */
};

/* Record damage in chunk ci (page as above) into d, unless d holds some already. */
void vmt_damage_note(struct vmt_damage *d, const struct vmt_chunk_info *ci, uint32_t page,
		     const char *why);

struct vmt_reader;

/*
 * Open path (opts and why as for vmt_source_open()) and prepare the walk. Returns 0 or
 * -errno with why (caller's buffer) set.
 */
int vmt_reader_open(const char *path, const struct vmt_input_opts *opts,
		    struct vmt_reader **out, char *why, size_t why_size);
void vmt_reader_close(struct vmt_reader *r);

/* What the recording is. */
const char *vmt_reader_path(const struct vmt_reader *r);
const struct vmt_source *vmt_reader_source(const struct vmt_reader *r);
const char *vmt_reader_begin_name(const struct vmt_reader *r);	/* "kvm:kvm_exit" */
const char *vmt_reader_end_name(const struct vmt_reader *r);
/* Whether the pair is KVM's (the report's words: exits, vCPUs, out of the guest). */
bool vmt_reader_pairs_kvm(const struct vmt_reader *r);
const struct vmt_evformat *vmt_reader_begin_format(const struct vmt_reader *r);
/* The recording kernel's machine ("x86_64", uname -m), or NULL when not known. */
const char *vmt_reader_machine(const struct vmt_reader *r);
const struct vmt_evformat *vmt_reader_end_format(const struct vmt_reader *r);
const struct vmt_evbind *vmt_reader_bind(const struct vmt_reader *r);
const struct vmt_header_page *vmt_reader_header_page(const struct vmt_reader *r);
const char *vmt_reader_clock_name(const struct vmt_reader *r);
const struct vmt_clock *vmt_reader_clock(const struct vmt_reader *r);
/* Traced CPUs from the metadata (n == 0: unknown). */
const struct vmt_cpulist *vmt_reader_cpus(const struct vmt_reader *r);
/*
 * The context events recorded besides the pair (scheduler, interrupts, ...: for
 * attribution), parsed, each with its system set: *n formats in the order the recording
 * lists them, valid while r is open; *n = 0 when none was recorded. A .vmt lists them in
 * META (metakeys.h: context.events and a format.ctx.<name> each); the trace.dat loader
 * lists the context events whose formats the file holds; a trace.bin has none. A listed
 * event whose format is absent, does not parse, names another event or repeats an id is
 * left out (counted by vmt_reader_context_skipped).
 */
const struct vmt_evformat *const *vmt_reader_context_formats(const struct vmt_reader *r,
							    unsigned int *n);
/**
 * vmt_meta_context_formats() - the context events' formats a META block lists
 * @meta: the block (key-value, metakeys.h), @mlen its length
 * @names: its context.events list ("sched:sched_switch,irq:irq_handler_entry,...")
 * @taken: ids in use already (the pair's), @ntaken how many
 * @fmts: the formats kept, in a new array; the caller frees each (vmt_evformat_free) and
 *	the array, also after an error
 * @n: how many were kept
 * @skipped: how many were left out (no format, one that does not parse, names another
 *	event or repeats an id): the pairs do not need them
 *
 * What vmt_reader_context_formats() gives, for a block not yet in a file (the recorder's).
 *
 * Return: 0 or -ENOMEM.
 */
int vmt_meta_context_formats(const uint8_t *meta, size_t mlen, const char *names,
			     const uint32_t *taken, unsigned int ntaken,
			     struct vmt_evformat ***fmts, unsigned int *n, unsigned int *skipped);
/* context.events as the file has it ("sched:sched_switch,irq:..."); NULL: not recorded. */
const char *vmt_reader_context_names(const struct vmt_reader *r);
/* context.missing: asked for but not on the recording kernel; NULL when none or unknown. */
const char *vmt_reader_context_missing(const struct vmt_reader *r);
unsigned int vmt_reader_context_skipped(const struct vmt_reader *r);
/* vmtrace-record --vm's VMs and vCPU threads (vmfind.h), or NULL when it has none. */
struct vmt_vmmap;
const struct vmt_vmmap *vmt_reader_vmmap(const struct vmt_reader *r);
/* Metadata value as a malloc'd string, from META or else END; NULL when missing. */
char *vmt_reader_meta(const struct vmt_reader *r, const char *key);
/* The recording's start in trace clock units: its earliest page (0 when empty). */
uint64_t vmt_reader_start_ts(const struct vmt_reader *r);
/*
 * When tracing went off, in trace clock units (END's trace.stop_ts), which the exits still
 * open at the stop ran to; 0 when the file does not say (earlier recorders, flight files,
 * other formats, a value past 2^63: damage, said).
 */
uint64_t vmt_reader_stop_ts(const struct vmt_reader *r);
/*
 * How long the recording ran (monotonic start, or a flight recording's first kept page, to
 * end in the metadata), or 0 when unknown.
 */
uint64_t vmt_reader_duration_ns(const struct vmt_reader *r);
/*
 * The first metadata key whose value no recorder writes (a monotonic time or ring-buffer
 * counter past 2^63, an end before the start, counters going back), with *n how many:
 * damage, and what the key gives (the duration, the statistics' lost events) not known.
 * NULL when none.
 */
const char *vmt_reader_bad_value(const struct vmt_reader *r, unsigned int *n);
/* Lost events per traced CPU from the per-CPU stats at start and end (0 when unknown). */
uint64_t vmt_reader_stats_lost(const struct vmt_reader *r, bool *known);
/*
 * Of those, the ones no page's lost-events flag reports (dropped with overwrite off, commit
 * overruns): overwritten events are reported at the first page after them, these nowhere.
 */
uint64_t vmt_reader_stats_unflagged(const struct vmt_reader *r, bool *known);
/*
 * Of cpu's lost events as its statistics count them, those no page of its chunks places
 * (the statistics' count beyond the chunks' stored counts): they could be anywhere in its
 * recording. 0 when its statistics are not known. A file whose chunks store no counts
 * (not a .vmt): the whole recording's statistics beyond the counts its walk read so far.
 */
uint64_t vmt_reader_cpu_unplaced(const struct vmt_reader *r, uint32_t cpu);
/*
 * Events the recorder left unread in the ring buffers when it stopped: the entries of the
 * stats at the end when END's drain key says those were read after reading stopped.
 * *known: there is such a key and every traced CPU's end stats; *cut: the key says the
 * drain was cut short. 0 when unknown.
 */
uint64_t vmt_reader_unread(const struct vmt_reader *r, bool *known, bool *cut);
/*
 * Of those, the ones that can lie up to to_ts (a --to): a CPU's were left after the last
 * record read from it (its chunks' last time), so those of a CPU whose last record lies
 * after to_ts cannot, and go to *after. A CPU without a known last time keeps its own.
 */
uint64_t vmt_reader_unread_until(const struct vmt_reader *r, uint64_t to_ts, uint64_t *after);

/*
 * What is known of the events a recording lost, after a walk: those counted, and what
 * lost more that nobody counted. Damaged data (blocks, chunks, pages skipped) holds
 * events, how many is not known; so do pages flagged "missed events" without their
 * count, unless the ring buffer's statistics count the kernel's losses (they then include
 * those pages'). One rule for every view.
 */
struct vmt_lost {
	uint64_t counted;	/* the larger of the pages' counts and the statistics' */
	uint64_t stats;		/* the statistics' count, when stats_known */
	bool stats_known;
	uint64_t damaged;	/* blocks, chunks and pages skipped: their events not counted */
	/*
	 * Of damaged: chunks a sound end record counts that the file lacks, as a copy leaves
	 * a damaged chunk out (vmtrace-convert(1), --to-vmt). The pages the copy flagged lost
	 * without a count to mark its holes (copy.marked_pages) are not in uncounted.
	 */
	uint64_t holes;
	uint64_t uncounted;	/* flagged pages without a count the statistics do not cover */
	/*
	 * Statistics stored at the start and none at the end (a file not finished, a damaged
	 * END): what the ring buffers counted lost (dropped events flag no page) is not known.
	 */
	bool end_unknown;
	/*
	 * Events the recorder left unread in the ring buffer when it stopped (stats.end's
	 * entries, END's drain key): lost too, and part of counted. unread_known: the file
	 * says (a drain key and every CPU's end stats); drain_cut: a second stop signal cut
	 * the final drain short.
	 */
	uint64_t unread;
	bool unread_known, drain_cut;
};
/* From r's metadata and rd, the walk's figures (vmt_reader_stats(), or a program's own). */
void vmt_reader_lost(const struct vmt_reader *r, const struct vmt_reader_stats *rd,
		     struct vmt_lost *out);
/* Whether lost->counted is all of the lost events. */
static inline bool vmt_lost_exact(const struct vmt_lost *lost)
{
	return !lost->damaged && !lost->uncounted && !lost->end_unknown;
}

/* The walk. */
/*
 * Next item of all CPUs in timestamp order, valid until the next call; NULL at the end.
 * item->rec.data points into the reader's buffers.
 */
const struct vmt_item *vmt_reader_next_item(struct vmt_reader *r);
/* The same, copied: 1, or 0 at the end. */
int vmt_reader_next(struct vmt_reader *r, struct vmt_item *item);
/* The same for one CPU only (does not mix with the merged walk on the same reader). */
int vmt_reader_cpu_next(struct vmt_reader *r, uint32_t cpu, struct vmt_item *item);
/*
 * Slices: the merged walk cut by time, for analysing a recording on several threads
 * (slicepass.h). vmt_reader_sliceable() says whether every CPU's chunks are in time order
 * by their first times (what cutting needs), and is never true of a source whose pages are
 * judged as read (vmt_source_pages_late(): one thread walks it). vmt_reader_slice() makes
 * a reader of r's items with times in [from, to) only (to UINT64_MAX: no end), sharing
 * r's recording (r must stay open and is not read through); its walk reads no chunk ahead,
 * and its statistics count the records and gaps that lie inside it and the chunks (with
 * all their pages) whose first time does, so that the slices' sums are the whole walk's.
 * vmt_reader_slice_exact(), after its walk, says whether the concatenated slices are the
 * whole walk: false when a CPU's times went back, a chunk held times before its stated
 * first time, or pages were damaged (then walk the recording whole).
 */
bool vmt_reader_sliceable(const struct vmt_reader *r);
int vmt_reader_slice(const struct vmt_reader *r, uint64_t from, uint64_t to,
		     struct vmt_reader **out);
bool vmt_reader_slice_exact(const struct vmt_reader *r);
/* The CPUs whose chunks the walk merges (at least 1). */
unsigned int vmt_reader_streams(const struct vmt_reader *r);
/* The largest chunk's pages in bytes: what a stream holds at most (0: no chunks). */
uint64_t vmt_reader_largest_chunk(const struct vmt_reader *r);
/*
 * The bytes of its chunk each CPU's stream holds when chunks are read in windows (one
 * chunk of every CPU would pass 32 MiB: slower, see set_window), 0 when every chunk is
 * read whole.
 */
uint64_t vmt_reader_window(const struct vmt_reader *r);

/* Count a slice's statistics (and its damage, if r has none yet) as r's own walk's. */
void vmt_reader_add_stats(struct vmt_reader *r, const struct vmt_reader_stats *st,
			  const struct vmt_damage *damage);

/* Counters of the walk so far. */
const struct vmt_reader_stats *vmt_reader_stats(const struct vmt_reader *r);
/* The first damage the walk met (why NULL when none). */
const struct vmt_damage *vmt_reader_damage(const struct vmt_reader *r);

#endif
