/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iterate: the one pass over a recording that every view sits on (trace-cmd's
 * tracecmd_iterate_events() is the model). It walks the reader's merged items, decodes the
 * begin/end events, pairs each exit with its entry (pairing.h), applies the filter once,
 * attributes each exit's time to its causes from the context events the recording holds
 * (attrib.h, when asked), and hands what it found to a list of consumers: each a small ops
 * table of callbacks plus its own state. Consumers never see the reader's internals and
 * the pass never prints.
 * Memory grows with tasks and CPUs, never with events. One pass per thread.
 */
#ifndef VMT_ITERATE_H
#define VMT_ITERATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attrib.h"
#include "filter.h"
#include "kvmevent.h"
#include "pairing.h"
#include "reader.h"
#include "tclock.h"

#define VMT_ITER_MAX_CONSUMERS 8

/*
 * A set of ids (CPUs, vCPUs) the pass saw: a bitmap below VMT_ITER_IDS (4096: KVM's vCPU
 * ids on x86, the CPUs of all but the largest hosts), ids above it only counted, so that
 * hostile ids cost no memory.
 */
#define VMT_ITER_IDS 4096
struct vmt_iter_ids {
	uint64_t bits[VMT_ITER_IDS / 64];
	uint64_t beyond;		/* events with an id >= VMT_ITER_IDS */
};

/* What every consumer may read during and after the pass. */
struct vmt_iter {
	struct vmt_reader *r;		/* the recording read, or NULL (vmt_pass_input) */
	struct vmt_pass *pass;		/* from vmt_pass_begin() to vmt_pass_end(), else NULL */
	const struct vmt_clock *clock;
	const struct vmt_evbind *bind;	/* the begin/end events' formats */
	const struct vmt_evformat *begin_format;
	const char *machine;		/* the recording kernel's uname -m, or NULL */
	uint64_t start_ts;		/* the recording's first page (time 0 of every view) */
	/*
	 * Without a reader (the recorder's own pages): when tracing went off, trace clock, as
	 * the file will say it, once the pass's owner knows it (0: not known)
	 */
	uint64_t stop_ts;
	const struct vmt_filter *filter;	/* bound to this recording, or NULL */
	/* running totals */
	uint64_t events;		/* begin and end events */
	uint64_t other_records;		/* records of other events */
	uint64_t bad_records;		/* too short to hold the common header */
	uint64_t filtered_out;		/* pairs the filter left out */
	uint64_t first_ts, last_ts;	/* of the begin/end events (first_ts 0 when none) */
	/*
	 * The latest time of any record (begin/end, context or other events; not gaps): where
	 * the recording's events end, which the exits still open at the stop run to.
	 */
	uint64_t last_record_ts;
	/* before the filter: what there was to select from */
	uint64_t exits;			/* begin events */
	uint64_t first_exit_ts, last_exit_ts;	/* of the begin events (0 when none) */
	struct vmt_iter_ids exit_cpus;	/* the pCPUs of begin events */
	struct vmt_iter_ids vcpus;	/* the vCPU ids of begin/end events that carry one */
	struct vmt_pairing_stats pairing;	/* complete after the pass */
	/* during a gap callback: its hole (struct vmt_item's gap_from and gap_until) */
	uint64_t gap_from, gap_until;
	/* attribution */
	bool why;			/* pairs carry their why (struct vmt_pair) */
	uint32_t why_recorded;		/* 1 << enum vmt_why_kind the recording can tell */
	unsigned int context_formats;	/* context events the recording describes */
	uint64_t context_records;	/* records decoded as context events */
	struct vmt_attrib_stats why_stats;	/* complete after the pass */
};

/* One begin or end event as the pass delivers it, in timestamp order. */
struct vmt_iter_event {
	const struct vmt_event *ev;
	/* an end that completed a pair: that pair (its exit, its latency); else NULL */
	const struct vmt_pair *pair;
	bool selected;			/* the filter keeps it (vmt_filter_event) */
};

/*
 * An exit still open when the recording stopped (pairing.h's unfinished): its entry never
 * came. Not a pair: no latency, in no statistics.
 */
struct vmt_open_exit {
	const struct vmt_event *begin;
	uint64_t until;			/* the recording's end: vmt_iter_open_until() */
	bool lost_since;		/* its pCPU lost events after it: its entry may be there */
	/*
	 * its pCPU's statistics count lost events no page places (vmt_reader_cpu_unplaced):
	 * they could be after it, its entry among them
	 */
	bool lost_unplaced;
	const struct vmt_why *why;	/* its time up to until (vmt_attrib_open), or NULL */
};

struct vmt_consumer_ops {
	const char *name;
	/* Before the first item. */
	int (*start)(void *state, const struct vmt_iter *it);
	/*
	 * Every pair the filter keeps, when its end arrives. *task is the consumer's own
	 * pointer for the pair's task (NULL the first time), freed by task_free.
	 */
	int (*pair)(void *state, const struct vmt_iter *it, const struct vmt_pair *p,
		    void **task);
	/* Every begin/end event, kept or not (see selected). */
	int (*event)(void *state, const struct vmt_iter *it, const struct vmt_iter_event *e);
	/* Events were lost on cpu before ts (missed: their count, 0 when not stored). */
	int (*gap)(void *state, const struct vmt_iter *it, uint32_t cpu, uint64_t ts,
		   uint64_t missed);
	/* A record of some other event (context events, for attribution). */
	int (*record)(void *state, const struct vmt_iter *it, const struct vmt_item *item);
	/* A context event, decoded (when the pass attributes), after the engine saw it. */
	int (*context)(void *state, const struct vmt_iter *it, const struct vmt_ctxev *ev);
	/*
	 * Each exit still open at the end that the filter keeps (unordered), after the last
	 * item and before finish; not in a time slice's pass (vmt_iter_opts' edges), whose
	 * open exits are its edges.
	 */
	int (*open)(void *state, const struct vmt_iter *it, const struct vmt_open_exit *x);
	/* After the last item; it->pairing is complete. */
	int (*finish)(void *state, const struct vmt_iter *it);
	/* Free a per-task pointer the consumer stored through pair(). */
	void (*task_free)(void *state, void *task);
};

struct vmt_consumer {
	const struct vmt_consumer_ops *ops;
	void *state;
};

struct vmt_iter_opts {
	struct vmt_filter *filter;	/* bound here; NULL or empty: everything */
	/* called at most ten times a second with chunks done and in all, or NULL */
	void (*progress)(uint64_t done, uint64_t total, void *arg);
	void *progress_arg;
	/*
	 * Attribute every exit's time to its causes when the recording holds context
	 * events, with each exit's segments (for the worst windows' breakdowns).
	 */
	bool attribute;
	/*
	 * Without attribute: decode the context events all the same, for the consumers that
	 * take them (their context callback), as the live view names its tasks by them.
	 */
	bool context;
	/*
	 * A time slice's pass (slicepass.h): log the pairing's edges here (pairing.h), or
	 * NULL.
	 */
	struct vmt_pairing_edges *edges;
};

/* Whether id is in the set. */
static inline bool vmt_iter_ids_has(const struct vmt_iter_ids *s, uint32_t id)
{
	return id < VMT_ITER_IDS && (s->bits[id / 64] >> (id % 64) & 1);
}

/* Ids in the set (those below VMT_ITER_IDS). */
unsigned int vmt_iter_ids_count(const struct vmt_iter_ids *s);

/*
 * The set as a list ("0-3,8", "0-3,8 and ids above 4095" when ids beyond the bitmap were
 * seen), "" when empty, into buf (truncated to size). Returns buf.
 */
char *vmt_iter_ids_format(const struct vmt_iter_ids *s, char *buf, size_t size);

/*
 * What a pass reads its items with: a reader (vmt_pass_input_reader), or pages decoded
 * elsewhere (the recorder's own, while it records) with their formats and clock. The
 * pointers stay valid until vmt_pass_end().
 */
struct vmt_pass_input {
	struct vmt_reader *r;		/* or NULL: consumers then have no reader statistics */
	const struct vmt_clock *clock;
	uint64_t start_ts;
	const struct vmt_evbind *bind;
	const struct vmt_evformat *begin_format;
	const char *machine;		/* the recording kernel's uname -m, or NULL */
	const struct vmt_evformat *const *context;	/* context events' formats */
	unsigned int ncontext;
};

void vmt_pass_input_reader(struct vmt_pass_input *in, struct vmt_reader *r);

/*
 * The pass in three steps, for items that arrive over time (vmt_iterate is begin, every
 * item of a reader, end). Items must come in timestamp order across CPUs, as the reader
 * merges them. vmt_pass_begin() calls the consumers' start and sets *pass even when it
 * fails (then vmt_pass_end() frees it); vmt_pass_item() returns the pass's first error and
 * feeds nothing after one; vmt_pass_end() calls finish (unless an error came first),
 * frees the pass and returns 0 or that first error. *it is complete after the end.
 */
struct vmt_pass;
int vmt_pass_begin(const struct vmt_pass_input *in, const struct vmt_iter_opts *o,
		   struct vmt_consumer *c, unsigned int nc, struct vmt_iter *it,
		   struct vmt_pass **pass);
int vmt_pass_item(struct vmt_pass *pass, const struct vmt_item *item);
/* Every item of r, as vmt_pass_item() each (o for its progress, or NULL). */
int vmt_pass_reader(struct vmt_pass *pass, struct vmt_reader *r, const struct vmt_iter_opts *o);
int vmt_pass_end(struct vmt_pass *pass);

/*
 * During the pass (it->pass set): call fn with each exit still open (begun, its end not
 * fed yet) that the filter keeps and may yet pair (vmt_pairing_each_open()); from a
 * consumer's pair callback, not that pair's own exit. Nothing after vmt_pass_end().
 */
void vmt_iter_each_open(const struct vmt_iter *it,
			void (*fn)(const struct vmt_event *begin, void *arg), void *arg);

/*
 * Where the exits still open at the end ran to: the stop (vmt_reader_stop_ts, or it->stop_ts
 * without a reader) when it is known, else (and when a record is later) the last record of
 * any event.
 */
uint64_t vmt_iter_open_until(const struct vmt_iter *it);
/*
 * An exit still open at the end (pairing.h's unfinished, lost_since as it says) into *x,
 * without its why: until vmt_iter_open_until(), lost_unplaced from it->r. Returns
 * whether the filter keeps it; the one rule for the pass and for the merge of slices.
 */
bool vmt_iter_open_exit(const struct vmt_iter *it, const struct vmt_event *begin,
			bool lost_since, struct vmt_open_exit *x);

/*
 * The reader's figures after a pass over it->r (vmt_reader_stats()) with the records the
 * pass could not decode (bad_records): what the notes on the input read (inputopt.h).
 */
void vmt_iter_read_stats(const struct vmt_iter *it, struct vmt_reader_stats *out);

/*
 * Walk r once, feeding consumers (at most VMT_ITER_MAX_CONSUMERS) in the order given.
 * *it holds the totals afterwards. Returns 0, -ENOMEM, or the first consumer error.
 */
int vmt_iterate(struct vmt_reader *r, const struct vmt_iter_opts *o, struct vmt_consumer *c,
		unsigned int nc, struct vmt_iter *it);

#endif
