// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The row kinds' columns are X-macro lists: X(name, kind, shown, has, value), where kind
 * says how the value is written (U64, I64, HEX, TREL/TABS (times, digits cached), REASON,
 * TEXT), shown whether the column exists (the options' choice: the why columns; never the
 * recording's layout, so that the rows of several recordings load into one table), and has
 * whether this row has a value (else the cell is empty in CSV, null in JSON). The header, the CSV
 * writer and the JSON lines writer are all expansions of the same list, so they cannot
 * disagree; the CSV expansion writes a whole row in place, which is most of the speed.
 *
 * Per-exit rows go out in exit-time order although the pass completes them in entry-time
 * order: every exit takes a place in a ring in the order the exits arrive (the pass hands
 * events over in time order), its row fills the place when its entry arrives, and rows
 * leave from the ring's head as soon as no earlier exit is still open. The row of the
 * oldest open exit is written straight from the pass (one task: always, nothing held);
 * only rows that must wait for an earlier exit are copied. The ring is bounded: when it is
 * full the oldest open exit gives up its place and its row is written late, counted.
 *
 * With why columns (rows.h) a held row keeps its exit's breakdown in a second ring of
 * the same places: the kinds' times and the culprit (struct rowwhy), not the parts.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exitreason.h"
#include "fmtpool.h"
#include "jsonw.h"
#include "numfmt.h"
#include "outbuf.h"
#include "rows.h"
#include "vmfind.h"

/* What a pair row takes: its exit, and a little of its entry (struct prow). */
#define PAIR_COLUMNS(X)								\
	X("start_ns", TREL, 1, 1, ex->ts)					\
	X("start_ts_ns", TABS, 1, 1, ex->ts)					\
	X("pcpu", U64, 1, 1, ex->cpu)						\
	X("entry_pcpu", U64, 1, 1, pr->en_cpu)					\
	X("vcpu", U64, 1, pr->has_vcpu || map_vcpu >= 0,				\
	  pr->has_vcpu ? pr->vcpu : (uint64_t)map_vcpu)				\
	X("task", I64, 1, 1, ex->pid)						\
	X("vm", NAME, 1, vmname != NULL, vmname)				\
	X("reason_code", U64, 1, has_reason, key)				\
	X("reason", REASON, 1, has_reason, key)					\
	X("latency_ns", U64, 1, 1, row_ns(f, pr->lat))			\
	X("guest_rip", HEX, 1, ex->has & VMT_EVF_RIP, ex->rip)			\
	X("info1", HEX, 1, ex->has & VMT_EVF_INFO1, ex->info1)			\
	X("info2", HEX, 1, ex->has & VMT_EVF_INFO2, ex->info2)			\
	X("intr_info", HEX, 1, ex->has & VMT_EVF_INTR_INFO, ex->intr_info)	\
	X("error_code", HEX, 1, ex->has & VMT_EVF_ERROR_CODE, ex->error_code)	\
	X("near_gap", U64, 1, 1, pr->near_gap)					\
	WHY_COLUMNS(X)

/* An exit's breakdown (iterate.h: attribution): kinds the recording cannot tell are empty. */
#define WHY_KIND(X, name, k)							\
	X(name, U64, f->why, wy && (f->recorded >> (k) & 1), wy ? row_ns(f, wy->ticks[k]) : 0)
#define WHY_COLUMNS(X)								\
	WHY_KIND(X, "kvm_ns", VMT_WHY_KVM)					\
	WHY_KIND(X, "userspace_ns", VMT_WHY_USERSPACE)				\
	WHY_KIND(X, "preempted_ns", VMT_WHY_PREEMPTED)				\
	WHY_KIND(X, "blocked_ns", VMT_WHY_BLOCKED)				\
	WHY_KIND(X, "wakeup_ns", VMT_WHY_WAKEUP)				\
	WHY_KIND(X, "irq_ns", VMT_WHY_IRQ)					\
	WHY_KIND(X, "softirq_ns", VMT_WHY_SOFTIRQ)				\
	WHY_KIND(X, "nmi_ns", VMT_WHY_NMI)					\
	X("incomplete", BOOL, f->why, wy != NULL, wy && wy->incomplete)	\
	X("culprit_kind", TEXT, f->why, cu != NULL, cu ? vmt_why_kind_names[cu->kind] : "") \
	X("culprit", NAME, f->why, cu != NULL, cu ? cu->name : "")		\
	X("culprit_pid", I64, f->why, cu && cu->pid >= 0, cu ? cu->pid : 0)	\
	X("before_exit_ns", U64, f->why, wy && (f->recorded & VMT_WHY_REC_BEFORE),	\
	  wy ? row_ns(f, wy->before) : 0)

/* What a row shows of an exit's why: the times per kind and the culprit. */
struct rowwhy {
	uint64_t ticks[VMT_WHY_NKINDS];
	uint64_t before;	/* outside the kinds: struct vmt_why's */
	struct vmt_whypart culprit;
	bool incomplete, has_culprit;
};

/* A pair row's values: pointing into the pass, or into a held place. */
struct prow {
	const struct vmt_event *ex;
	uint64_t lat;
	uint32_t en_cpu, vcpu;
	bool has_vcpu, near_gap;
	const struct rowwhy *why;	/* NULL: not attributed */
};

#define PAIR_LOCALS(pr)								\
	const struct vmt_event *ex = (pr)->ex;					\
	bool has_reason = (ex->has & VMT_EVF_REASON) != 0;			\
	int64_t map_vcpu;							\
	const char *vmname = vm_name(f, ex->pid, &map_vcpu);			\
	uint64_t key = vmt_exitreason_key(ex->isa, ex->reason);			\
	const struct rowwhy *wy = (pr)->why;					\
	const struct vmt_whypart *cu = wy && wy->has_culprit ? &wy->culprit : NULL

/* What an event row takes. */
#define EVENT_COLUMNS(X)							\
	X("time_ns", TREL, 1, 1, ev->ts)					\
	X("ts_ns", TABS, 1, 1, ev->ts)						\
	X("pcpu", U64, 1, 1, ev->cpu)						\
	X("task", I64, 1, 1, ev->pid)						\
	X("vm", NAME, 1, vmname != NULL, vmname)				\
	X("kind", TEXT, 1, 1, f->kvm ? (is_exit ? "exit" : "entry") :		\
	  (is_exit ? "begin" : "end"))						\
	X("vcpu", U64, 1, (ev->has & VMT_EVF_VCPU) || map_vcpu >= 0,		\
	  (ev->has & VMT_EVF_VCPU) ? ev->vcpu : (uint64_t)map_vcpu)		\
	X("reason_code", U64, 1, has_reason, key)				\
	X("reason", REASON, 1, has_reason, key)					\
	X("rip", HEX, 1, ev->has & VMT_EVF_RIP, ev->rip)			\
	X("info1", HEX, 1, is_exit && (ev->has & VMT_EVF_INFO1), ev->info1)	\
	X("info2", HEX, 1, is_exit && (ev->has & VMT_EVF_INFO2), ev->info2)	\
	X("intr_info", HEX, 1, ev->has & VMT_EVF_INTR_INFO, ev->intr_info)	\
	X("error_code", HEX, 1, ev->has & VMT_EVF_ERROR_CODE, ev->error_code)	\
	X("latency_ns", U64, 1, has_lat, row_ns(f, lat))				\
	X("near_gap", U64, 1, 1, near_gap)

#define EVENT_LOCALS(evp, haslat, latv)						\
	const struct vmt_event *ev = (evp);					\
	bool has_lat = (haslat);						\
	uint64_t lat = (latv);							\
	bool is_exit = ev->kind == VMT_EV_BEGIN;				\
	bool has_reason = is_exit && (ev->has & VMT_EVF_REASON);		\
	int64_t map_vcpu;							\
	const char *vmname = vm_name(f, ev->pid, &map_vcpu);			\
	uint64_t key = vmt_exitreason_key(ev->isa, ev->reason)

/*
 * A CSV row's room: at least CSV_ROW_MAX bytes (every row of ordinary names), more when the
 * recording's names need it (row_max()): CSV_ROW_FIGURES for the figures (16 fields of at
 * most 20 digits or 18 hex characters, the why columns' 10 numbers and a kind, commas, CRLF)
 * and each name cell quoted with every byte a doubled quote.
 */
#define CSV_ROW_MAX 1024
#define CSV_ROW_FIGURES 640
#define NAME_MAX_PLAIN 128

/* A reason's name, as CSV wants it, cached per (isa, key). */
struct reason_slot {
	uint64_t key;
	uint32_t isa;
	bool used;
	bool plain;		/* no quoting needed: copied as it is */
	uint8_t len;
	const char *name;	/* NULL: a code no table knows (the cell stays empty) */
	char text[NAME_MAX_PLAIN + 32];	/* a plain name, padded for fixed-size copies */
};

/* An exit's place in the order: open until its entry arrives, then its row or nothing. */
enum { HELD_OPEN, HELD_ROW, HELD_NONE };
struct held {
	struct vmt_event ex;
	uint64_t lat;
	uint32_t en_cpu, vcpu;
	bool has_vcpu, near_gap;
	uint8_t state;
	bool has_why;		/* whys[] holds its breakdown */
};
/* rows.h and man/vmtrace-convert.1 promise 48 MiB for the 2^19 places */
_Static_assert(sizeof(struct held) <= 96, "a held place grew past 96 bytes");

/* A task's open exit: its place (seq + 1), 0 when none. Key 0 marks a free slot. */
struct open_task {
	uint64_t key;
	uint64_t seq1;
};

/*
 * What formatting a row reads, and its caches: the writer's own, and a copy per formatting
 * worker (the caches are written as rows are formatted).
 */
struct rowfmt {
	const struct vmt_clock *clock;
	const struct vmt_exitreasons *names;
	uint64_t start;
	bool why;		/* the why columns */
	bool ns_clock;		/* ticks are ns: no conversion */
	bool ticks;		/* ticks of unknown length: figures in ticks, and said so */
	size_t row_max;		/* a CSV row's room (CSV_ROW_MAX or more) */
	uint32_t recorded;	/* 1 << enum vmt_why_kind the recording can tell */
	const struct vmt_vmmap *vmmap;	/* the recording's --vm map (vm column), or NULL */
	bool kvm;		/* KVM's pair: exits and entries, else begins and ends */
	size_t rec_size;	/* a row record's size (struct rowrec, with its why or not) */
	struct vmt_hicache hi_rel, hi_abs;	/* the time columns' upper digits */
	struct reason_slot cache[256];
};

/*
 * A row as the pass hands it to the formatting workers (fmtpool.h): a pair row (ev the
 * exit) or an event row, and with why columns the breakdown after it (struct rowrec_why).
 */
struct rowrec {
	struct vmt_event ev;
	uint64_t lat;
	uint32_t en_cpu, vcpu;
	bool has_vcpu, near_gap, has_lat, has_why;
};

struct rowrec_why {
	struct rowrec r;
	struct rowwhy why;
};

struct vmt_rows {
	struct vmt_rows_opts o;
	struct vmt_outbuf out;
	struct vmt_jsonw jw;
	struct rowfmt f;
	struct vmt_exitreasons *names;
	uint64_t nrows;
	/* CSV formatted by workers: the records of the batch being filled */
	struct vmt_fmtpool *pool;
	struct rowfmt *wf;	/* the workers' formatters */
	char *recs;
	size_t nrec;
	uint8_t *gap;		/* per CPU: events lost since that CPU's last row */
	uint32_t ngap;
	int error;
	/* exit-time order: places head..tail-1 of the ring, the tasks' open exits */
	struct held *ring;
	struct rowwhy *whys;	/* with why columns: the held rows' breakdowns */
	uint64_t cap, head, tail, hold_max;
	struct open_task *tasks, *last;
	size_t ntasks, tcap;
	uint64_t written_ts;	/* the latest exit time written (for the late count) */
	struct vmt_rows_stats st;
};

/*
 * The VM of a vCPU thread in the recording's --vm map, or NULL; *vcpu its index there (-1
 * when the map lacks the thread): the vcpu cell when the events carry no vCPU id, as in
 * the JSON's vcpus.
 */
static inline const char *vm_name(const struct rowfmt *f, int32_t tid, int64_t *vcpu)
{
	unsigned int vm, idx;

	*vcpu = -1;
	if (!f->vmmap || vmt_vmmap_lookup(f->vmmap, tid, &vm, &idx))
		return NULL;
	*vcpu = idx;
	return vmt_vmmap_name(f->vmmap, vm);
}

/* Fill a cache slot for (isa, key): the name, and whether CSV needs it quoted. */
static void reason_fill(struct rowfmt *f, struct reason_slot *c, uint32_t isa, uint64_t key)
{
	c->used = true;
	c->key = key;
	c->isa = isa;
	c->name = vmt_exitreason_name(f->names, isa, key);
	c->plain = true;
	c->len = 0;
	if (c->name) {
		size_t n = strcspn(c->name, ",\"\r\n");

		c->plain = !c->name[n] && n <= NAME_MAX_PLAIN;
		c->len = (uint8_t)(c->plain ? n : 0);
		memset(c->text, 0, sizeof(c->text));
		memcpy(c->text, c->name, c->len);
	}
}

/* A reason's slot: the lookup inline, the filling (once per reason) out of line. */
static inline const struct reason_slot *reason(struct rowfmt *f, uint32_t isa, uint64_t key)
{
	struct reason_slot *c = &f->cache[(unsigned int)(key * 31 + isa) & 255];

	if (__builtin_expect(!c->used || c->key != key || c->isa != isa, 0))
		reason_fill(f, c, isa, key);
	return c;
}

/* Ticks as ns; the ns clocks (nearly every recording) skip the conversion's tests. */
static inline uint64_t row_ns(const struct rowfmt *f, uint64_t ticks)
{
	return f->ns_clock ? ticks : vmt_clock_ns(f->clock, ticks);
}

/*
 * CSV cells: each writes its value (or nothing) and the comma after it. Always inlined:
 * out of line, their calls cost a fifth of the conversion (perf, 10 M rows).
 */
#define CELL inline __attribute__((always_inline))
static CELL char *csv_U64(struct rowfmt *f, char *p, bool has, uint64_t v)
{
	(void)f;
	if (has)
		p = vmt_put_u64(p, v);
	*p = ',';
	return p + 1;
}

static CELL char *csv_I64(struct rowfmt *f, char *p, bool has, int64_t v)
{
	(void)f;
	if (has) {
		if (v < 0) {
			*p++ = '-';
			p = vmt_put_u64(p, (uint64_t)-(v + 1) + 1);
		} else {
			p = vmt_put_u64(p, (uint64_t)v);
		}
	}
	*p = ',';
	return p + 1;
}

static CELL char *csv_HEX(struct rowfmt *f, char *p, bool has, uint64_t v)
{
	(void)f;
	if (has)
		p = vmt_put_hex(p, v);
	*p = ',';
	return p + 1;
}

static CELL char *csv_TREL(struct rowfmt *f, char *p, bool has, uint64_t ts)
{
	(void)has;
	p = vmt_put_u64_cached(p, row_ns(f, ts - f->start), &f->hi_rel);
	*p = ',';
	return p + 1;
}

static CELL char *csv_TABS(struct rowfmt *f, char *p, bool has, uint64_t ts)
{
	(void)has;
	p = vmt_put_u64_cached(p, row_ns(f, ts), &f->hi_abs);
	*p = ',';
	return p + 1;
}

static CELL char *csv_TEXT(struct rowfmt *f, char *p, bool has, const char *s)
{
	size_t n = has ? strlen(s) : 0;	/* constant, plain words ("exit", "preempted") */

	(void)f;
	memcpy(p, s, n);
	p[n] = ',';
	return p + n + 1;
}

static CELL char *csv_BOOL(struct rowfmt *f, char *p, bool has, bool v)
{
	(void)f;
	if (has)
		*p++ = v ? '1' : '0';
	*p = ',';
	return p + 1;
}

/* The quoted form of a name that needs it (RFC 4180: quotes doubled), whole (row_max()). */
static char *csv_quoted(char *p, const char *s)
{
	*p++ = '"';
	for (; *s; s++) {
		if (*s == '"')
			*p++ = '"';
		*p++ = *s;
	}
	*p++ = '"';
	return p;
}

/*
 * A name from the recording (a VM's, a task's comm, an IRQ handler's): quoted when it
 * needs it (RFC 4180).
 */
static CELL char *csv_NAME(struct rowfmt *f, char *p, bool has, const char *s)
{
	(void)f;
	if (has) {
		size_t n = strcspn(s, ",\"\r\n");

		if (!s[n] && n <= NAME_MAX_PLAIN) {
			memcpy(p, s, n);
			p += n;
		} else {
			p = csv_quoted(p, s);
		}
	}
	*p = ',';
	return p + 1;
}

/* REASON cells take the isa from the row's event: ISA is a local of every row kind. */
#define csv_REASON(f, p, has, key) csv_reason(f, p, has, ISA, key)
static CELL char *csv_reason(struct rowfmt *f, char *p, bool has, uint32_t isa,
			       uint64_t key)
{
	if (has) {
		const struct reason_slot *c = reason(f, isa, key);

		if (!c->name) {
			/* a code no table knows: the reason_code cell says it all */
		} else if (c->plain) {
			/* a fixed-size copy when it fits (the room is there): no memcpy call */
			if (c->len <= 32)
				memcpy(p, c->text, 32);
			else
				memcpy(p, c->text, c->len);
			p += c->len;
		} else {
			p = csv_quoted(p, c->name);
		}
	}
	*p = ',';
	return p + 1;
}

/* JSON cells. */
static inline void json_U64(struct vmt_rows *w, const char *name, bool has, uint64_t v)
{
	vmt_jsonw_opt_u64(&w->jw, name, has, v);
}

static inline void json_I64(struct vmt_rows *w, const char *name, bool has, int64_t v)
{
	if (has)
		vmt_jsonw_i64(&w->jw, name, v);
	else
		vmt_jsonw_null(&w->jw, name);
}

static inline void json_HEX(struct vmt_rows *w, const char *name, bool has, uint64_t v)
{
	if (has)
		vmt_jsonw_hex(&w->jw, name, v);
	else
		vmt_jsonw_null(&w->jw, name);
}

static inline void json_TREL(struct vmt_rows *w, const char *name, bool has, uint64_t ts)
{
	vmt_jsonw_opt_u64(&w->jw, name, has, row_ns(&w->f, ts - w->f.start));
}

static inline void json_TABS(struct vmt_rows *w, const char *name, bool has, uint64_t ts)
{
	vmt_jsonw_opt_u64(&w->jw, name, has, row_ns(&w->f, ts));
}

static inline void json_TEXT(struct vmt_rows *w, const char *name, bool has, const char *s)
{
	vmt_jsonw_str(&w->jw, name, has ? s : NULL);
}

static inline void json_BOOL(struct vmt_rows *w, const char *name, bool has, bool v)
{
	if (has)
		vmt_jsonw_bool(&w->jw, name, v);
	else
		vmt_jsonw_null(&w->jw, name);
}

static inline void json_NAME(struct vmt_rows *w, const char *name, bool has, const char *s)
{
	vmt_jsonw_str(&w->jw, name, has ? s : NULL);
}

#define json_REASON(w, name, has, key) json_reason(w, name, has, ISA, key)
static inline void json_reason(struct vmt_rows *w, const char *name, bool has, uint32_t isa,
			       uint64_t key)
{
	vmt_jsonw_str(&w->jw, name, has ? reason(&w->f, isa, key)->name : NULL);
}

/* The expansions. */
#define CSV_CELL(name, kind, shown, has, value)					\
	if (shown)								\
		p = csv_##kind(f, p, (has), (value));
#define JSON_CELL(name, kind, shown, has, value)				\
	if (shown)								\
		json_##kind(w, name, (has), (value));
#define HEADER_CELL(name, kind, shown, has, value)				\
	if (shown) {								\
		header_name(w, name);						\
		vmt_outbuf_ch(&w->out, ',');					\
	}

/*
 * A CSV column's name: its unit is in the name, so a clock whose ticks have no known
 * length names its ns columns _ticks (latency_ticks) rather than put ticks under "ns".
 */
static void header_name(struct vmt_rows *w, const char *name)
{
	size_t n = strlen(name);

	if (!w->f.ticks || n < 3 || strcmp(name + n - 3, "_ns") != 0) {
		vmt_outbuf_str(&w->out, name);
		return;
	}
	vmt_outbuf_mem(&w->out, name, n - 3);
	vmt_outbuf_str(&w->out, "_ticks");
}

/* The row ends: the last cell's comma becomes the line end. */
static inline char *csv_end(char *p)
{
	p[-1] = '\r';
	*p++ = '\n';
	return p;
}

static inline void json_begin(struct vmt_rows *w)
{
	vmt_jsonw_object_open(&w->jw, NULL);
	/* JSON keys stay as they are: the *_ns ones hold ticks, and each line says so */
	if (w->f.ticks)
		vmt_jsonw_str(&w->jw, "unit", "ticks");
}

static inline void json_end(struct vmt_rows *w)
{
	vmt_jsonw_object_close(&w->jw);
	vmt_outbuf_ch(&w->out, '\n');
	w->nrows++;
}

static void write_header(struct vmt_rows *w)
{
	const struct rowfmt *f = &w->f;

	/* HEADER_CELL reads the names and whether the column is shown, never a value */
	if (w->o.events) {
		EVENT_COLUMNS(HEADER_CELL)
	} else {
		PAIR_COLUMNS(HEADER_CELL)
	}
	w->out.len--;			/* the last comma */
	vmt_outbuf_mem(&w->out, "\r\n", 2);
}

static bool gap_take(struct vmt_rows *w, uint32_t cpu)
{
	bool seen = cpu < w->ngap && w->gap[cpu];

	if (seen)
		w->gap[cpu] = 0;
	return seen;
}

/* A pair's CSV row at p (f->row_max bytes of room); returns its end. */
static CELL char *pair_csv_row(struct rowfmt *f, char *p, const struct prow *pr)
{
	PAIR_LOCALS(pr);

#define ISA ex->isa
	PAIR_COLUMNS(CSV_CELL)
#undef ISA
	return csv_end(p);
}

/* An event's CSV row at p (f->row_max bytes of room); returns its end. */
static CELL char *event_csv_row(struct rowfmt *f, char *p, const struct rowrec *e)
{
	EVENT_LOCALS(&e->ev, e->has_lat, e->lat);
	bool near_gap = e->near_gap;

#define ISA ev->isa
	EVENT_COLUMNS(CSV_CELL)
#undef ISA
	return csv_end(p);
}

/* A record's place in the batch being filled, handing a full batch to the workers first. */
static CELL struct rowrec *rec_next(struct vmt_rows *w)
{
	if (__builtin_expect(w->nrec == VMT_FMTPOOL_BATCH, 0)) {
		void *next;
		int ret = vmt_fmtpool_submit(w->pool, w->nrec, &next);

		/* the same fd: the pass stops as on any write error */
		if (ret && !w->out.err)
			w->out.err = ret;
		w->recs = next;
		w->nrec = 0;
	}
	w->nrows++;
	return (struct rowrec *)(w->recs + w->nrec++ * w->f.rec_size);
}

static CELL void pair_csv(struct vmt_rows *w, const struct prow *pr)
{
	if (w->pool) {
		struct rowrec *r = rec_next(w);

		r->ev = *pr->ex;
		r->lat = pr->lat;
		r->en_cpu = pr->en_cpu;
		r->vcpu = pr->vcpu;
		r->has_vcpu = pr->has_vcpu;
		r->near_gap = pr->near_gap;
		r->has_why = pr->why != NULL;
		if (pr->why)
			((struct rowrec_why *)r)->why = *pr->why;
		return;
	}
	vmt_outbuf_commit(&w->out,
			  pair_csv_row(&w->f, vmt_outbuf_reserve(&w->out, w->f.row_max), pr));
	w->nrows++;
}

/* The workers' formatting of a batch (fmtpool.h). */
static size_t format_pairs(void *ctx, const void *recs, size_t n, char *out)
{
	struct rowfmt *f = ctx;
	char *p = out;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct rowrec *r = (const void *)((const char *)recs + i * f->rec_size);
		struct prow pr = { &r->ev, r->lat, r->en_cpu, r->vcpu, r->has_vcpu, r->near_gap,
				   r->has_why ? &((const struct rowrec_why *)r)->why : NULL };

		p = pair_csv_row(f, p, &pr);
	}
	return (size_t)(p - out);
}

static size_t format_events(void *ctx, const void *recs, size_t n, char *out)
{
	struct rowfmt *f = ctx;
	char *p = out;
	size_t i;

	for (i = 0; i < n; i++)
		p = event_csv_row(f, p, (const struct rowrec *)recs + i);
	return (size_t)(p - out);
}

static CELL void pair_json(struct vmt_rows *w, const struct prow *pr)
{
	struct rowfmt *f = &w->f;
	PAIR_LOCALS(pr);

	json_begin(w);
#define ISA ex->isa
	PAIR_COLUMNS(JSON_CELL)
#undef ISA
	json_end(w);
}

/* One row written; the late count: rows whose exit came before a row already written. */
static CELL void put_row(struct vmt_rows *w, const struct prow *pr, bool csv)
{
	if (pr->ex->ts < w->written_ts)
		w->st.unordered++;
	else
		w->written_ts = pr->ex->ts;
	w->st.why_incomplete += pr->why && pr->why->incomplete;
	if (csv)
		pair_csv(w, pr);
	else
		pair_json(w, pr);
}

/* What the row keeps of a pair's why. */
static void rowwhy_of(struct rowwhy *rw, const struct vmt_why *why)
{
	const struct vmt_whypart *c = vmt_why_culprit(why);

	memcpy(rw->ticks, why->ticks, sizeof(rw->ticks));
	rw->before = why->before;
	rw->incomplete = why->incomplete;
	rw->has_culprit = c != NULL;
	if (c)
		rw->culprit = *c;
}

/* A pair as the pass hands it over (e->pair, ended by e->ev), as a row's values. */
#define PROW_OF(w, e, whyp)							\
	{									\
		(e)->pair->begin, (e)->pair->lat, (e)->ev->cpu,			\
		((e)->pair->begin->has & VMT_EVF_VCPU) ? (e)->pair->begin->vcpu :	\
							 (e)->ev->vcpu,		\
		(((e)->pair->begin->has | (e)->ev->has) & VMT_EVF_VCPU) != 0,	\
		gap_take(w, (e)->pair->begin->cpu) | gap_take(w, (e)->ev->cpu),	\
		whyp,								\
	}

/* The why columns' values of a pair written now (NULL without them). */
static inline const struct rowwhy *why_now(const struct vmt_rows *w,
					   const struct vmt_iter_event *e, struct rowwhy *rw)
{
	if (!w->o.why || !e->pair->why)
		return NULL;
	rowwhy_of(rw, e->pair->why);
	return rw;
}

/* Write a pair's row now, straight from the pass: no copy. */
static __attribute__((noinline)) void put_pair_csv(struct vmt_rows *w,
						   const struct vmt_iter_event *e)
{
	struct rowwhy rw;
	struct prow pr = PROW_OF(w, e, why_now(w, e, &rw));

	put_row(w, &pr, true);
}

static __attribute__((noinline)) void put_pair_json(struct vmt_rows *w,
						    const struct vmt_iter_event *e)
{
	struct rowwhy rw;
	struct prow pr = PROW_OF(w, e, why_now(w, e, &rw));

	put_row(w, &pr, false);
}

static CELL void put_pair(struct vmt_rows *w, const struct vmt_iter_event *e, bool csv)
{
	if (csv)
		put_pair_csv(w, e);
	else
		put_pair_json(w, e);
}

/* Write the rows at the head of the ring up to the first exit still open. */
static void flush_head(struct vmt_rows *w, bool csv)
{
	while (w->head < w->tail) {
		struct held *h = &w->ring[w->head & (w->cap - 1)];

		if (h->state == HELD_OPEN)
			break;
		if (h->state == HELD_ROW) {
			struct prow pr = { &h->ex, h->lat, h->en_cpu, h->vcpu, h->has_vcpu,
					   h->near_gap,
					   h->has_why ? &w->whys[w->head & (w->cap - 1)] : NULL };

			put_row(w, &pr, csv);
		}
		w->head++;
	}
}

/* Task identity as the pairing has it (pairing.c): the pid, but per CPU for pid 0. */
static inline uint64_t task_key(const struct vmt_event *ev)
{
	return ev->pid == 0 ? 1ULL << 40 | ev->cpu : (uint32_t)ev->pid;
}

static int tasks_grow(struct vmt_rows *w)
{
	size_t cap = w->tcap ? w->tcap * 2 : 64, i;
	struct open_task *old = w->tasks, *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < w->tcap; i++) {
		size_t j;

		if (!old[i].key)
			continue;
		for (j = (size_t)(old[i].key * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1); t[j].key;
		     j = (j + 1) & (cap - 1))
			;
		t[j] = old[i];
	}
	free(old);
	w->tasks = t;
	w->tcap = cap;
	w->last = NULL;
	return 0;
}

/* The task's entry, added when new; NULL when out of memory. */
static struct open_task *task_find(struct vmt_rows *w, uint64_t key)
{
	size_t i;

	if ((w->ntasks + 1) * 4 > w->tcap * 3 && tasks_grow(w))
		return NULL;
	for (i = (size_t)(key * 0x9e3779b97f4a7c15ULL >> 20) & (w->tcap - 1); w->tasks[i].key;
	     i = (i + 1) & (w->tcap - 1)) {
		if (w->tasks[i].key == key)
			return &w->tasks[i];
	}
	w->tasks[i].key = key;
	w->ntasks++;
	return &w->tasks[i];
}

static int ring_grow(struct vmt_rows *w)
{
	uint64_t cap = w->cap ? w->cap * 2 : (w->hold_max < 64 ? w->hold_max : 64), s;
	struct held *ring = malloc(cap * sizeof(*ring));
	struct rowwhy *whys = NULL;

	if (!ring)
		return -ENOMEM;
	if (w->o.why) {
		whys = malloc(cap * sizeof(*whys));
		if (!whys) {
			free(ring);
			return -ENOMEM;
		}
	}
	for (s = w->head; s < w->tail; s++) {
		ring[s & (cap - 1)] = w->ring[s & (w->cap - 1)];
		/* has_why is set for rows only: an open place has none yet */
		if (whys && ring[s & (cap - 1)].state == HELD_ROW && ring[s & (cap - 1)].has_why)
			whys[s & (cap - 1)] = w->whys[s & (w->cap - 1)];
	}
	free(w->ring);
	free(w->whys);
	w->ring = ring;
	w->whys = whys;
	w->cap = cap;
	return 0;
}

/* A new exit takes the next place (room is there). */
static CELL void hold_open(struct vmt_rows *w, struct open_task *t)
{
	w->ring[w->tail & (w->cap - 1)].state = HELD_OPEN;
	t->seq1 = ++w->tail;
	if (w->tail - w->head > w->st.held_peak)
		w->st.held_peak = w->tail - w->head;
}

/*
 * The ring is full: grow it, or when it may not grow, the oldest open exit gives up its
 * place (its row will be written when it comes, late).
 */
static int hold_make_room(struct vmt_rows *w, bool csv)
{
	if (w->cap < w->hold_max)
		return ring_grow(w);
	w->head++;
	flush_head(w, csv);
	return 0;
}

/* The exit at seq ended without a row (not selected, dropped, or replaced). */
static void hold_close(struct vmt_rows *w, uint64_t seq, bool csv)
{
	if (seq < w->head)
		return;
	w->ring[seq & (w->cap - 1)].state = HELD_NONE;
	if (seq == w->head)
		flush_head(w, csv);
}

/*
 * Per-exit rows, from every begin/end event: a begin takes its place in the order, the
 * entry that completes a selected pair gives it its row. The general case.
 */
static CELL int pairs_event(struct vmt_rows *w, const struct vmt_iter_event *e, bool csv)
{
	const struct vmt_event *ev = e->ev;
	uint64_t key = task_key(ev), seq;
	struct open_task *t = w->last;

	if (!t || t->key != key) {
		t = task_find(w, key);
		if (!t)
			return -ENOMEM;
		w->last = t;
	}
	if (ev->kind == VMT_EV_BEGIN) {
		if (t->seq1)
			hold_close(w, t->seq1 - 1, csv);	/* a begin after a begin */
		t->seq1 = 0;
		if (w->tail - w->head == w->cap) {
			int ret = hold_make_room(w, csv);

			if (ret)
				return ret;
		}
		hold_open(w, t);
		return w->out.err;
	}
	if (!t->seq1)
		return 0;			/* an end without its begin */
	seq = t->seq1 - 1;
	t->seq1 = 0;
	if (!e->pair || !e->selected) {
		hold_close(w, seq, csv);
	} else if (seq <= w->head) {
		/* the oldest open exit (or one that gave up its place): no copy */
		put_pair(w, e, csv);
		if (seq == w->head && ++w->head != w->tail)
			flush_head(w, csv);
	} else {
		struct held *h = &w->ring[seq & (w->cap - 1)];
		struct prow pr = PROW_OF(w, e, NULL);

		h->has_why = w->o.why && e->pair->why;
		if (h->has_why)
			rowwhy_of(&w->whys[seq & (w->cap - 1)], e->pair->why);
		h->ex = *pr.ex;
		h->lat = pr.lat;
		h->en_cpu = pr.en_cpu;
		h->vcpu = pr.vcpu;
		h->has_vcpu = pr.has_vcpu;
		h->near_gap = pr.near_gap;
		h->state = HELD_ROW;
		w->st.held++;
	}
	return w->out.err;
}

static __attribute__((noinline)) int pairs_slow_csv(struct vmt_rows *w,
						    const struct vmt_iter_event *e)
{
	return pairs_event(w, e, true);
}

static __attribute__((noinline)) int pairs_slow_json(struct vmt_rows *w,
						     const struct vmt_iter_event *e)
{
	return pairs_event(w, e, false);
}

/*
 * What one task does over and over, inline: its begin (the task of the event before, no
 * exit of it open, room in the ring), and the end of the only open exit. Everything else
 * goes the general way.
 */
static CELL int pairs_fast(struct vmt_rows *w, const struct vmt_iter_event *e, bool csv)
{
	const struct vmt_event *ev = e->ev;
	struct open_task *t = w->last;

	if (t && t->key == task_key(ev)) {
		if (ev->kind == VMT_EV_BEGIN) {
			if (!t->seq1 && w->tail - w->head < w->cap) {
				hold_open(w, t);
				return 0;
			}
		} else if (t->seq1 == w->tail && w->tail == w->head + 1 && e->pair &&
			   e->selected) {
			t->seq1 = 0;
			w->head++;
			put_pair(w, e, csv);
			return w->out.err;
		}
	}
	return csv ? pairs_slow_csv(w, e) : pairs_slow_json(w, e);
}

static int on_pairs_csv(void *state, const struct vmt_iter *it, const struct vmt_iter_event *e)
{
	(void)it;
	return pairs_fast(state, e, true);
}

static int on_pairs_json(void *state, const struct vmt_iter *it, const struct vmt_iter_event *e)
{
	(void)it;
	return pairs_fast(state, e, false);
}

/* The end: the rows still held go out; exits still open have none. */
static void finish_all(struct vmt_rows *w, bool csv)
{
	while (w->head < w->tail) {
		if (w->ring[w->head & (w->cap - 1)].state == HELD_OPEN)
			w->head++;
		flush_head(w, csv);
	}
}

static int on_pairs_finish_csv(void *state, const struct vmt_iter *it)
{
	(void)it;
	finish_all(state, true);
	return ((struct vmt_rows *)state)->out.err;
}

static int on_pairs_finish_json(void *state, const struct vmt_iter *it)
{
	(void)it;
	finish_all(state, false);
	return ((struct vmt_rows *)state)->out.err;
}

static int on_event_csv(void *state, const struct vmt_iter *it, const struct vmt_iter_event *e)
{
	struct vmt_rows *w = state;
	struct rowrec rr, *r;

	(void)it;
	if (!e->selected)
		return 0;
	r = w->pool ? rec_next(w) : &rr;
	r->ev = *e->ev;
	r->has_lat = e->pair != NULL;
	r->lat = e->pair ? e->pair->lat : 0;
	r->near_gap = gap_take(w, e->ev->cpu);
	if (!w->pool) {
		char *p = vmt_outbuf_reserve(&w->out, w->f.row_max);

		vmt_outbuf_commit(&w->out, event_csv_row(&w->f, p, r));
		w->nrows++;
	}
	return w->out.err;
}

static int on_event_json(void *state, const struct vmt_iter *it, const struct vmt_iter_event *e)
{
	struct vmt_rows *w = state;
	const struct rowfmt *f = &w->f;
	EVENT_LOCALS(e->ev, e->pair != NULL, e->pair ? e->pair->lat : 0);
	bool near_gap;

	(void)it;
	if (!e->selected)
		return 0;
	near_gap = gap_take(w, ev->cpu);
	json_begin(w);
#define ISA ev->isa
	EVENT_COLUMNS(JSON_CELL)
#undef ISA
	json_end(w);
	return w->out.err;
}

static int on_gap(void *state, const struct vmt_iter *it, uint32_t cpu, uint64_t ts,
		  uint64_t missed)
{
	struct vmt_rows *w = state;

	(void)it, (void)ts, (void)missed;
	if (cpu >= w->ngap) {
		uint32_t n = cpu + 1 > w->ngap * 2 ? cpu + 1 : w->ngap * 2;
		uint8_t *bigger = realloc(w->gap, n);

		if (!bigger)
			return -ENOMEM;
		memset(bigger + w->ngap, 0, n - w->ngap);
		w->gap = bigger;
		w->ngap = n;
	}
	w->gap[cpu] = 1;
	return 0;
}

/*
 * Format CSV rows on other cores (fmtpool.h): the pass makes row records, the workers
 * text. Too few CPUs (or VMTRACE_NO_THREADS), or no thread to be had (pthread_create
 * failing under a memory or task limit): rows are formatted here, as they come, the same
 * bytes, as decompression and the time slices also carry on without their threads.
 */
static int start_workers(struct vmt_rows *w)
{
	void *ctx[VMT_FMTPOOL_MAX_WORKERS + 1];
	unsigned int n, i;

	n = w->o.threads < 0 ? vmt_fmtpool_auto_workers() : (unsigned int)w->o.threads;
	if (n > VMT_FMTPOOL_MAX_WORKERS)
		n = VMT_FMTPOOL_MAX_WORKERS;
	if (!n)
		return 0;
	w->wf = calloc(n, sizeof(*w->wf));
	if (!w->wf)
		return 0;
	for (i = 0; i < n; i++) {
		w->wf[i] = w->f;
		ctx[i] = &w->wf[i];
	}
	ctx[n] = &w->f;		/* the pass's own, when it formats a batch itself */
	if (vmt_fmtpool_new(w->o.fd, w->f.rec_size, w->f.row_max, n,
			    w->o.events ? format_events : format_pairs, ctx, &w->pool)) {
		free(w->wf);
		w->wf = NULL;
		w->pool = NULL;
		return 0;
	}
	w->recs = vmt_fmtpool_records(w->pool);
	return 0;
}

/*
 * The room of the longest row these names can make: its three name cells (VM, reason,
 * culprit) each quoted, every byte a doubled quote. -E2BIG past a quarter of the output
 * buffer (a reason name of a format made up to be huge).
 */
static int row_max(struct rowfmt *f)
{
	size_t vm = 0, n = 0, i, room;

	for (i = 0; f->vmmap && i < vmt_vmmap_count(f->vmmap); i++) {
		n = strlen(vmt_vmmap_name(f->vmmap, (unsigned int)i));
		vm = n > vm ? n : vm;
	}
	room = CSV_ROW_FIGURES + 2 * vm + 2 + 2 * vmt_exitreasons_longest(f->names) + 2 +
	       2 * (VMT_WHY_NAME_LEN - 1) + 2;
	if (room > VMT_OUTBUF_SIZE / 4)
		return -E2BIG;
	f->row_max = room > CSV_ROW_MAX ? room : CSV_ROW_MAX;
	return 0;
}

static int on_start(void *state, const struct vmt_iter *it)
{
	struct vmt_rows *w = state;
	int ret;

	w->f.clock = it->clock;
	w->f.ns_clock = it->clock->ns_per_tick == 1.0 || it->clock->ns_per_tick == 0;
	w->f.ticks = !vmt_clock_in_ns(it->clock);
	w->f.start = it->start_ts;
	w->f.why = w->o.why;
	w->f.recorded = it->why ? it->why_recorded : 0;
	w->f.vmmap = it->r ? vmt_reader_vmmap(it->r) : NULL;
	w->f.kvm = !it->r || vmt_reader_pairs_kvm(it->r);	/* as -v's EXIT or BEGIN */
	w->f.rec_size = w->o.why ? sizeof(struct rowrec_why) : sizeof(struct rowrec);
	ret = vmt_exitreasons_new(it->begin_format, it->machine, &w->names);
	if (ret)
		return ret;
	w->f.names = w->names;
	if (w->o.format != VMT_ROWS_CSV)
		return w->out.err;
	ret = row_max(&w->f);
	if (ret)
		return ret;
	write_header(w);
	/* the header goes out before the workers write any row */
	ret = vmt_outbuf_flush(&w->out);
	if (!ret && w->o.threads)
		ret = start_workers(w);
	return ret;
}

/* One ops table per row kind and format: each callback is one straight row writer. */
static const struct vmt_consumer_ops rows_ops[2][2] = {
	[VMT_ROWS_CSV] = {
		{ .name = "csv rows", .start = on_start, .event = on_pairs_csv, .gap = on_gap,
		  .finish = on_pairs_finish_csv },
		{ .name = "csv event rows", .start = on_start, .event = on_event_csv,
		  .gap = on_gap },
	},
	[VMT_ROWS_JSONL] = {
		{ .name = "json rows", .start = on_start, .event = on_pairs_json, .gap = on_gap,
		  .finish = on_pairs_finish_json },
		{ .name = "json event rows", .start = on_start, .event = on_event_json,
		  .gap = on_gap },
	},
};

int vmt_rows_consumer(const struct vmt_rows_opts *o, struct vmt_rows **out_w,
		      struct vmt_consumer *out)
{
	struct vmt_rows *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->o = *o;
	w->o.why = o->why && !o->events;
	/* a held row with its why takes 112 bytes more: a quarter of the places */
	w->hold_max = w->o.why ? VMT_ROWS_HOLD_MAX / 4 : VMT_ROWS_HOLD_MAX;
	w->st.hold_max = w->hold_max;
	if (vmt_outbuf_init(&w->out, o->fd)) {
		free(w);
		return -ENOMEM;
	}
	vmt_jsonw_init(&w->jw, &w->out);
	out->ops = &rows_ops[o->format][o->events];
	out->state = w;
	*out_w = w;
	return 0;
}

uint64_t vmt_rows_count(const struct vmt_rows *w)
{
	return w->nrows;
}

void vmt_rows_set_hold_max(struct vmt_rows *w, uint32_t n)
{
	w->hold_max = 1;
	while (w->hold_max * 2 <= n)
		w->hold_max *= 2;
	w->st.hold_max = w->hold_max;
}

const struct vmt_rows_stats *vmt_rows_stats(const struct vmt_rows *w)
{
	return &w->st;
}

int vmt_rows_finish(struct vmt_rows *w)
{
	int ret, werr;

	if (!w)
		return 0;
	ret = vmt_fmtpool_finish(w->pool, w->nrec);
	werr = vmt_outbuf_finish(&w->out);
	if (!ret)
		ret = werr;
	free(w->wf);
	vmt_exitreasons_free(w->names);
	free(w->gap);
	free(w->ring);
	free(w->whys);
	free(w->tasks);
	free(w);
	return ret;
}
