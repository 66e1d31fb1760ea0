// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The row kinds' columns are X-macro lists: X(name, kind, shown, has, value), where kind
 * says how the value is written (U64, I64, HEX, TREL/TABS (times, digits cached), REASON,
 * TEXT), shown whether the column exists for this recording's layout, and has whether
 * this row has a value (else the cell is empty in CSV, null in JSON). The header, the CSV
 * writer and the JSON lines writer are all expansions of the same list, so they cannot
 * disagree; the CSV expansion writes a whole row in place, which is most of the speed.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exitreason.h"
#include "jsonw.h"
#include "numfmt.h"
#include "outbuf.h"
#include "rows.h"

/* What a pair row takes from the pass. */
#define PAIR_COLUMNS(X)								\
	X("start_ns", TREL, 1, 1, ex->ts)					\
	X("start_ts_ns", TABS, 1, 1, ex->ts)					\
	X("pcpu", U64, 1, 1, ex->cpu)						\
	X("entry_pcpu", U64, 1, 1, en->cpu)					\
	X("vcpu", U64, 1, has_vcpu, vcpu)					\
	X("task", I64, 1, 1, ex->pid)						\
	X("reason_code", U64, 1, has_reason, key)				\
	X("reason", REASON, 1, has_reason, key)					\
	X("latency_ns", U64, 1, 1, vmt_clock_ns(w->clock, pr->lat))		\
	X("guest_rip", HEX, 1, ex->has & VMT_EVF_RIP, ex->rip)			\
	X("info1", HEX, 1, ex->has & VMT_EVF_INFO1, ex->info1)			\
	X("info2", HEX, 1, ex->has & VMT_EVF_INFO2, ex->info2)			\
	X("intr_info", HEX, w->intr, ex->has & VMT_EVF_INTR_INFO, ex->intr_info) \
	X("error_code", HEX, w->intr, ex->has & VMT_EVF_ERROR_CODE, ex->error_code) \
	X("near_gap", U64, 1, 1, near_gap)

#define PAIR_LOCALS(p)								\
	const struct vmt_event *ex = (p)->begin, *en = (p)->end;		\
	bool has_reason = (ex->has & VMT_EVF_REASON) != 0;			\
	uint64_t key = vmt_exitreason_key(ex->isa, ex->reason);			\
	bool has_vcpu = ((ex->has | en->has) & VMT_EVF_VCPU) != 0;		\
	uint32_t vcpu = (ex->has & VMT_EVF_VCPU) ? ex->vcpu : en->vcpu

/* What an event row takes. */
#define EVENT_COLUMNS(X)							\
	X("time_ns", TREL, 1, 1, ev->ts)					\
	X("ts_ns", TABS, 1, 1, ev->ts)						\
	X("pcpu", U64, 1, 1, ev->cpu)						\
	X("task", I64, 1, 1, ev->pid)						\
	X("kind", TEXT, 1, 1, is_exit ? "exit" : "entry")			\
	X("vcpu", U64, 1, ev->has & VMT_EVF_VCPU, ev->vcpu)			\
	X("reason_code", U64, 1, has_reason, key)				\
	X("reason", REASON, 1, has_reason, key)					\
	X("rip", HEX, 1, ev->has & VMT_EVF_RIP, ev->rip)			\
	X("info1", HEX, 1, is_exit && (ev->has & VMT_EVF_INFO1), ev->info1)	\
	X("info2", HEX, 1, is_exit && (ev->has & VMT_EVF_INFO2), ev->info2)	\
	X("intr_info", HEX, w->intr, ev->has & VMT_EVF_INTR_INFO, ev->intr_info) \
	X("error_code", HEX, w->intr, ev->has & VMT_EVF_ERROR_CODE, ev->error_code) \
	X("latency_ns", U64, 1, e->pair != NULL, e->pair ? vmt_clock_ns(w->clock, e->pair->lat) : 0) \
	X("near_gap", U64, 1, 1, near_gap)

#define EVENT_LOCALS(e)								\
	const struct vmt_event *ev = (e)->ev;					\
	bool is_exit = ev->kind == VMT_EV_BEGIN;				\
	bool has_reason = is_exit && (ev->has & VMT_EVF_REASON);		\
	uint64_t key = vmt_exitreason_key(ev->isa, ev->reason)

/* The longest CSV row: 15 fields of at most 20 digits and a 128-byte reason name. */
#define CSV_ROW_MAX 512
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

struct vmt_rows {
	struct vmt_rows_opts o;
	struct vmt_outbuf out;
	struct vmt_jsonw jw;
	const struct vmt_clock *clock;
	struct vmt_exitreasons *names;
	uint64_t start;
	bool intr;		/* the layout has intr_info and error_code */
	uint64_t nrows;
	struct vmt_hicache hi_rel, hi_abs;	/* the time columns' upper digits */
	uint8_t *gap;		/* per CPU: events lost since that CPU's last row */
	uint32_t ngap;
	int error;
	struct reason_slot cache[256];
};

static const struct reason_slot *reason(struct vmt_rows *w, uint32_t isa, uint64_t key)
{
	struct reason_slot *c = &w->cache[(unsigned int)(key * 31 + isa) & 255];

	if (!c->used || c->key != key || c->isa != isa) {
		c->used = true;
		c->key = key;
		c->isa = isa;
		c->name = vmt_exitreason_name(w->names, isa, key);
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
	return c;
}

/*
 * CSV cells: each writes its value (or nothing) and the comma after it. Always inlined:
 * out of line, their calls cost a fifth of the conversion (perf, 10 M rows).
 */
#define CELL inline __attribute__((always_inline))
static CELL char *csv_U64(struct vmt_rows *w, char *p, bool has, uint64_t v)
{
	(void)w;
	if (has)
		p = vmt_put_u64(p, v);
	*p = ',';
	return p + 1;
}

static CELL char *csv_I64(struct vmt_rows *w, char *p, bool has, int64_t v)
{
	(void)w;
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

static CELL char *csv_HEX(struct vmt_rows *w, char *p, bool has, uint64_t v)
{
	(void)w;
	if (has)
		p = vmt_put_hex(p, v);
	*p = ',';
	return p + 1;
}

static CELL char *csv_TREL(struct vmt_rows *w, char *p, bool has, uint64_t ts)
{
	(void)has;
	p = vmt_put_u64_cached(p, vmt_clock_ns(w->clock, ts - w->start), &w->hi_rel);
	*p = ',';
	return p + 1;
}

static CELL char *csv_TABS(struct vmt_rows *w, char *p, bool has, uint64_t ts)
{
	(void)has;
	p = vmt_put_u64_cached(p, vmt_clock_ns(w->clock, ts), &w->hi_abs);
	*p = ',';
	return p + 1;
}

static CELL char *csv_TEXT(struct vmt_rows *w, char *p, bool has, const char *s)
{
	size_t n = strlen(s);	/* constant, plain words ("exit", "entry") */

	(void)w;
	(void)has;
	memcpy(p, s, n);
	p[n] = ',';
	return p + n + 1;
}

/* The quoted form of a name that needs it (RFC 4180: quotes doubled). */
static char *csv_quoted(char *p, const char *s)
{
	size_t n = 0;

	*p++ = '"';
	for (; *s && n < NAME_MAX_PLAIN; s++, n++) {
		if (*s == '"')
			*p++ = '"';
		*p++ = *s;
	}
	*p++ = '"';
	return p;
}

/* REASON cells take the isa from the row's event: ISA is a local of every row kind. */
#define csv_REASON(w, p, has, key) csv_reason(w, p, has, ISA, key)
static CELL char *csv_reason(struct vmt_rows *w, char *p, bool has, uint32_t isa,
			       uint64_t key)
{
	if (has) {
		const struct reason_slot *c = reason(w, isa, key);

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
	vmt_jsonw_opt_u64(&w->jw, name, has, vmt_clock_ns(w->clock, ts - w->start));
}

static inline void json_TABS(struct vmt_rows *w, const char *name, bool has, uint64_t ts)
{
	vmt_jsonw_opt_u64(&w->jw, name, has, vmt_clock_ns(w->clock, ts));
}

static inline void json_TEXT(struct vmt_rows *w, const char *name, bool has, const char *s)
{
	vmt_jsonw_str(&w->jw, name, has ? s : NULL);
}

#define json_REASON(w, name, has, key) json_reason(w, name, has, ISA, key)
static inline void json_reason(struct vmt_rows *w, const char *name, bool has, uint32_t isa,
			       uint64_t key)
{
	vmt_jsonw_str(&w->jw, name, has ? reason(w, isa, key)->name : NULL);
}

/* The expansions. */
#define CSV_CELL(name, kind, shown, has, value)					\
	if (shown)								\
		p = csv_##kind(w, p, (has), (value));
#define JSON_CELL(name, kind, shown, has, value)				\
	if (shown)								\
		json_##kind(w, name, (has), (value));
#define HEADER_CELL(name, kind, shown, has, value)				\
	if (shown) {								\
		vmt_outbuf_str(&w->out, name);					\
		vmt_outbuf_ch(&w->out, ',');					\
	}

/* The row ends: the last cell's comma becomes the line end. */
static inline void csv_end(struct vmt_rows *w, char *p)
{
	p[-1] = '\r';
	*p++ = '\n';
	vmt_outbuf_commit(&w->out, p);
	w->nrows++;
}

static inline void json_begin(struct vmt_rows *w)
{
	vmt_jsonw_object_open(&w->jw, NULL);
}

static inline void json_end(struct vmt_rows *w)
{
	vmt_jsonw_object_close(&w->jw);
	vmt_outbuf_ch(&w->out, '\n');
	w->nrows++;
}

static void write_header(struct vmt_rows *w)
{
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

/* The row's gap flag: events lost on its CPUs since their last row. */
#define PAIR_GAP(w) (gap_take(w, ex->cpu) | gap_take(w, en->cpu))

static int on_pair_csv(void *state, const struct vmt_iter *it, const struct vmt_pair *pr,
		       void **task)
{
	struct vmt_rows *w = state;
	PAIR_LOCALS(pr);
	bool near_gap = PAIR_GAP(w);
	char *p = vmt_outbuf_reserve(&w->out, CSV_ROW_MAX);

	(void)it, (void)task;
#define ISA ex->isa
	PAIR_COLUMNS(CSV_CELL)
#undef ISA
	csv_end(w, p);
	return w->out.err;
}

static int on_pair_json(void *state, const struct vmt_iter *it, const struct vmt_pair *pr,
			void **task)
{
	struct vmt_rows *w = state;
	PAIR_LOCALS(pr);
	bool near_gap = PAIR_GAP(w);

	(void)it, (void)task;
	json_begin(w);
#define ISA ex->isa
	PAIR_COLUMNS(JSON_CELL)
#undef ISA
	json_end(w);
	return w->out.err;
}

static int on_event_csv(void *state, const struct vmt_iter *it, const struct vmt_iter_event *e)
{
	struct vmt_rows *w = state;
	EVENT_LOCALS(e);
	bool near_gap;
	char *p;

	(void)it;
	if (!e->selected)
		return 0;
	near_gap = gap_take(w, ev->cpu);
	p = vmt_outbuf_reserve(&w->out, CSV_ROW_MAX);
#define ISA ev->isa
	EVENT_COLUMNS(CSV_CELL)
#undef ISA
	csv_end(w, p);
	return w->out.err;
}

static int on_event_json(void *state, const struct vmt_iter *it, const struct vmt_iter_event *e)
{
	struct vmt_rows *w = state;
	EVENT_LOCALS(e);
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

static int on_start(void *state, const struct vmt_iter *it)
{
	struct vmt_rows *w = state;
	const struct vmt_evside *b = &vmt_reader_bind(it->r)->begin;
	int ret;

	w->clock = it->clock;
	w->start = it->start_ts;
	w->intr = b->intr_info.size && b->error_code.size;
	ret = vmt_exitreasons_new(vmt_reader_begin_format(it->r), &w->names);
	if (ret)
		return ret;
	if (w->o.format == VMT_ROWS_CSV)
		write_header(w);
	return w->out.err;
}

/* One ops table per row kind and format: each callback is one straight row writer. */
static const struct vmt_consumer_ops rows_ops[2][2] = {
	[VMT_ROWS_CSV] = {
		{ .name = "csv rows", .start = on_start, .pair = on_pair_csv, .gap = on_gap },
		{ .name = "csv event rows", .start = on_start, .event = on_event_csv,
		  .gap = on_gap },
	},
	[VMT_ROWS_JSONL] = {
		{ .name = "json rows", .start = on_start, .pair = on_pair_json, .gap = on_gap },
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

int vmt_rows_finish(struct vmt_rows *w)
{
	int ret;

	if (!w)
		return 0;
	ret = vmt_outbuf_finish(&w->out);
	vmt_exitreasons_free(w->names);
	free(w->gap);
	free(w);
	return ret;
}
