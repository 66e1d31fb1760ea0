// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtrace-convert: a recording (.vmt or the original trace.bin) as CSV or JSON lines (one
 * row per exit with its entry, or per event), as the original tool's trace.bin, or wrapped
 * into a .vmt. Rows come from the same streaming pass and filters as vmtrace-report, in
 * constant memory; files are written under a temporary name and renamed when complete.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "bytes.h"
#include "container.h"
#include "filteropt.h"
#include "io.h"
#include "kv.h"
#include "log.h"
#include "numfmt.h"
#include "rbpage.h"
#include "reader.h"
#include "tracedat.h"

enum {
	OPT_CSV = 256,
	OPT_JSONL,
	OPT_LEGACY,
	OPT_TO_VMT,
	OPT_EVENTS,
	OPT_FORMAT_DIR,
	OPT_PAIR,
};

struct convert_opts {
	const char *input;
	const char *output;
	struct vmt_input_opts in;
	int format;
	int events;
	struct vmt_filter_opts fo;
};

const char *argp_program_version = PACKAGE_NAME " " PACKAGE_VERSION;

static const char doc[] =
	"Convert a vmtrace recording (.vmt, the original vm-trace trace.bin, or a trace-cmd "
	"trace.dat) to CSV or JSON lines for spreadsheets and scripts, to the original "
	"trace.bin, or to .vmt."
	"\v"
	"Examples:\n"
	"  vmtrace-convert --csv -o run1.csv run1.vmt       # one row per exit\n"
	"  vmtrace-convert --csv --events run1.vmt          # one row per event\n"
	"  vmtrace-convert --jsonl --reason hlt run1.vmt | jq .latency_ns\n"
	"  vmtrace-convert --legacy --cpu 2 -o trace.bin run1.vmt\n"
	"  vmtrace-convert --to-vmt --format-dir events/ -o old.vmt trace.bin\n"
	"  vmtrace-convert --to-vmt -o run2.vmt trace.dat    # from trace-cmd record\n"
	"\n"
	"Files are written under a temporary name and renamed when complete; an interrupted "
	"conversion leaves nothing under the final name.";

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Output format (one of):", 1 },
	{ "csv", OPT_CSV, NULL, 0, "CSV (RFC 4180) with a header row", 1 },
	{ "jsonl", OPT_JSONL, NULL, 0, "JSON lines, one object per row", 1 },
	{ "legacy", OPT_LEGACY, NULL, 0, "the original vm-trace trace.bin (one CPU's 4 KiB "
	  "pages; needs -o)", 1 },
	{ "to-vmt", OPT_TO_VMT, NULL, 0, "a .vmt container (from a trace.bin or a trace.dat; "
	  "needs -o)", 1 },
	{ NULL, 0, NULL, 0, "Rows and files:", 2 },
	{ "events", OPT_EVENTS, NULL, 0, "one row per recorded event (exits and entries) "
	  "instead of per exit", 2 },
	{ "output", 'o', "FILE", 0, "output file (default: standard output for CSV and JSON "
	  "lines)", 2 },
	{ "format-dir", OPT_FORMAT_DIR, "DIR", 0, "event formats for a trace.bin input (as in "
	  "vmtrace-report)", 2 },
	{ "pair", OPT_PAIR, "BEGIN,END", 0, "the event pair of a trace.dat input (default "
	  VMT_TRACEDAT_DEFAULT_PAIR ")", 2 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct convert_opts *o = state->input;

	switch (key) {
	case OPT_CSV:
	case OPT_JSONL:
	case OPT_LEGACY:
	case OPT_TO_VMT:
		if (o->format && o->format != key)
			argp_error(state, "choose one of --csv, --jsonl, --legacy, --to-vmt");
		o->format = key;
		break;
	case OPT_EVENTS:
		o->events = 1;
		break;
	case 'o':
		if (!*arg)
			argp_error(state, "empty output file name");
		o->output = arg;
		break;
	case OPT_FORMAT_DIR:
		o->in.format_dir = arg;
		break;
	case OPT_PAIR:
		o->in.pair = arg;
		break;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->fo;
		break;
	case ARGP_KEY_ARG:
		if (o->input)
			argp_error(state, "only one input file");
		o->input = arg;
		break;
	case ARGP_KEY_END:
		if (!o->input)
			argp_error(state, "no input file given");
		if (!o->format)
			argp_error(state, "choose one of --csv, --jsonl, --legacy, --to-vmt");
		if ((o->format == OPT_LEGACY || o->format == OPT_TO_VMT) && !o->output)
			argp_error(state, "--legacy and --to-vmt write binary files: give -o FILE");
		if (o->events && (o->format == OPT_LEGACY || o->format == OPT_TO_VMT))
			argp_error(state, "--events goes with --csv or --jsonl");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Output: a temporary file renamed into place, removed if anything stops us. */

static char tmp_path[4096];
static volatile sig_atomic_t have_tmp;

static void on_signal(int sig)
{
	if (have_tmp)
		unlink(tmp_path);	/* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

static int open_output(const char *final)
{
	struct stat st;
	int fd;

	/*
	 * A device or a pipe (/dev/null, /dev/stdout, a FIFO) is written as it is: renaming
	 * a file over it would replace the device.
	 */
	if (stat(final, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		fd = open(final, O_WRONLY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (snprintf(tmp_path, sizeof(tmp_path), "%s.%ld.part", final, (long)getpid()) >=
	    (int)sizeof(tmp_path))
		return -ENAMETOOLONG;
	fd = open(tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	have_tmp = 1;
	return fd;
}

static void drop_output(void)
{
	if (have_tmp) {
		unlink(tmp_path);
		have_tmp = 0;
	}
}

/* A buffered writer with its own number formatting: rows are most of the work. */
struct out {
	int fd;
	int err;
	size_t len;
	char buf[1 << 20];	/* a system call per MiB: they are dear in virtual machines */
};

static void out_flush(struct out *o)
{
	if (o->len && !o->err)
		o->err = vmt_io_write_full(o->fd, o->buf, o->len);
	o->len = 0;
}

static inline void out_room(struct out *o, size_t n)
{
	if (o->len + n > sizeof(o->buf))
		out_flush(o);
}

static void out_mem(struct out *o, const char *p, size_t n)
{
	while (n) {
		size_t k;

		out_room(o, n < sizeof(o->buf) ? n : sizeof(o->buf));
		k = sizeof(o->buf) - o->len < n ? sizeof(o->buf) - o->len : n;
		memcpy(o->buf + o->len, p, k);
		o->len += k;
		p += k;
		n -= k;
	}
}

static inline void out_ch(struct out *o, char c)
{
	out_room(o, 1);
	o->buf[o->len++] = c;
}

/* Numbers through numfmt.h, with room made first (at most 20 digits, or 0x and 16). */
static inline void out_u64(struct out *o, uint64_t v)
{
	out_room(o, 20);
	o->len = (size_t)(vmt_put_u64(o->buf + o->len, v) - o->buf);
}

static void out_i64(struct out *o, int64_t v)
{
	if (v < 0) {
		out_ch(o, '-');
		out_u64(o, (uint64_t)-(v + 1) + 1);
	} else {
		out_u64(o, (uint64_t)v);
	}
}

static inline void out_hex(struct out *o, uint64_t v)
{
	out_room(o, 18);
	o->len = (size_t)(vmt_put_hex(o->buf + o->len, v) - o->buf);
}

/* Row formats: a small ops table; each field call writes a name (header) or a value. */
struct rows;

struct rowfmt {
	void (*begin)(struct rows *w);
	void (*end)(struct rows *w);
	void (*u64)(struct rows *w, const char *name, uint64_t v);
	void (*i64)(struct rows *w, const char *name, int64_t v);
	void (*hex)(struct rows *w, const char *name, uint64_t v);
	void (*str)(struct rows *w, const char *name, const char *s);	/* NULL: empty/null */
};

/* The task's columns, as text, for its run of rows (csv_pair_row). */
struct midcols {
	bool valid, has_vcpu;
	uint32_t cpu, end_cpu, vcpu;
	int32_t pid;
	size_t len;
	char text[4 * 21 + 2];	/* four numbers, a sign (>= 48: copied 48 at a time) */
};

struct rows {
	struct out out;
	const struct rowfmt *fmt;
	bool header;			/* CSV: write the names instead of values */
	unsigned int field;		/* within the row */
	const struct vmt_reader *r;
	struct vmt_exitreasons *names;
	uint64_t start;
	bool intr;			/* the layout has intr_info and error_code */
	uint64_t nrows;
	struct midcols mid;
	struct vmt_hicache hi_rel, hi_abs;	/* the time columns' upper digits */
	struct {
		uint64_t key;
		uint32_t isa;
		bool used;
		bool plain;		/* CSV: no quoting needed, copied as it is */
		uint8_t len;		/* its length when plain */
		const char *name;
		uint8_t csv_len;	/* plain: "CODE,NAME," as CSV text */
		char csv[21 + 128 + 2];
	} cache[256];
};

static void csv_sep(struct rows *w)
{
	if (w->field++)
		out_ch(&w->out, ',');
}

static void csv_begin(struct rows *w)
{
	w->field = 0;
}

static void csv_end(struct rows *w)
{
	out_mem(&w->out, "\r\n", 2);	/* RFC 4180 line ends */
}

static void csv_name(struct rows *w, const char *name)
{
	csv_sep(w);
	out_mem(&w->out, name, strlen(name));
}

static void csv_u64(struct rows *w, const char *name, uint64_t v)
{
	if (w->header)
		return csv_name(w, name);
	csv_sep(w);
	out_u64(&w->out, v);
}

static void csv_i64(struct rows *w, const char *name, int64_t v)
{
	if (w->header)
		return csv_name(w, name);
	csv_sep(w);
	out_i64(&w->out, v);
}

static void csv_hex(struct rows *w, const char *name, uint64_t v)
{
	if (w->header)
		return csv_name(w, name);
	csv_sep(w);
	out_hex(&w->out, v);
}

static void csv_str(struct rows *w, const char *name, const char *s)
{
	const char *c;

	if (w->header)
		return csv_name(w, name);
	csv_sep(w);
	if (!s)
		return;
	/* exit reason names, mostly: short, plain, copied as they are */
	for (c = s; *c && *c != ',' && *c != '"' && *c != '\r' && *c != '\n'; c++)
		;
	if (!*c) {
		out_mem(&w->out, s, (size_t)(c - s));
		return;
	}
	out_ch(&w->out, '"');
	for (; *s; s++) {
		if (*s == '"')
			out_ch(&w->out, '"');
		out_ch(&w->out, *s);
	}
	out_ch(&w->out, '"');
}

static const struct rowfmt csv = { csv_begin, csv_end, csv_u64, csv_i64, csv_hex, csv_str };

static void json_key(struct rows *w, const char *name)
{
	out_ch(&w->out, w->field++ ? ',' : '{');
	out_ch(&w->out, '"');
	out_mem(&w->out, name, strlen(name));
	out_mem(&w->out, "\":", 2);
}

static void json_begin(struct rows *w)
{
	w->field = 0;
}

static void json_end(struct rows *w)
{
	out_mem(&w->out, "}\n", 2);
}

static void json_u64(struct rows *w, const char *name, uint64_t v)
{
	json_key(w, name);
	out_u64(&w->out, v);
}

static void json_i64(struct rows *w, const char *name, int64_t v)
{
	json_key(w, name);
	out_i64(&w->out, v);
}

static void json_hex(struct rows *w, const char *name, uint64_t v)
{
	/* as a string: JSON numbers above 2^53 lose digits in many readers */
	json_key(w, name);
	out_ch(&w->out, '"');
	out_hex(&w->out, v);
	out_ch(&w->out, '"');
}

static void json_str(struct rows *w, const char *name, const char *s)
{
	json_key(w, name);
	if (!s) {
		out_mem(&w->out, "null", 4);
		return;
	}
	out_ch(&w->out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			out_ch(&w->out, '\\');
			out_ch(&w->out, (char)c);
		} else if (c < 0x20) {
			char esc[8];

			snprintf(esc, sizeof(esc), "\\u%04x", c);
			out_mem(&w->out, esc, 6);
		} else {
			out_ch(&w->out, (char)c);
		}
	}
	out_ch(&w->out, '"');
}

static const struct rowfmt jsonl = { json_begin, json_end, json_u64, json_i64, json_hex,
				     json_str };

static const char *reason_name(struct rows *w, uint32_t isa, uint64_t key)
{
	unsigned int h = (unsigned int)(key * 31 + isa) & 255;

	if (!w->cache[h].used || w->cache[h].key != key || w->cache[h].isa != isa) {
		w->cache[h].used = true;
		w->cache[h].key = key;
		w->cache[h].isa = isa;
		w->cache[h].name = vmt_exitreason_name(w->names, isa, key);
		w->cache[h].plain = false;
		if (w->cache[h].name) {
			size_t n = strcspn(w->cache[h].name, ",\"\r\n");

			w->cache[h].plain = !w->cache[h].name[n] && n <= 128;
			w->cache[h].len = (uint8_t)n;
		}
		if (!w->cache[h].name || w->cache[h].plain) {
			char *t = vmt_put_u64(w->cache[h].csv, key);
			size_t n = w->cache[h].name ? w->cache[h].len : 0;

			*t++ = ',';
			if (n)	/* name may be NULL (an unknown code) */
				memcpy(t, w->cache[h].name, n);
			t += n;
			*t++ = ',';
			w->cache[h].csv_len = (uint8_t)(t - w->cache[h].csv);
		}
	}
	return w->cache[h].name;
}

/*
 * CSV rows written by one function each, the fastest path of all: room for the whole
 * row is made once, then every field goes straight into the buffer. Their output is
 * byte for byte the generic writer's (tested).
 */
#define CSV_ROW_MAX 512		/* 15 fields of at most 20 digits, a 128-byte name */

static inline __attribute__((always_inline)) char *put_opt_hex(char *p, bool has, uint64_t v)
{
	if (has)
		p = vmt_put_hex(p, v);
	*p = ',';
	return p + 1;
}

/* The reason column: a cached plain name, else false (the caller takes the slow path). */
static inline bool plain_reason(struct rows *w, uint32_t isa, uint64_t key, const char **name,
				size_t *len)
{
	unsigned int h = (unsigned int)(key * 31 + isa) & 255;

	*name = reason_name(w, isa, key);
	if (!*name) {
		*len = 0;
		return true;
	}
	*len = w->cache[h].len;
	return w->cache[h].plain;
}

/* Optional fields are written empty (CSV) or null (JSON) so every row has the columns. */
static void opt_u64(struct rows *w, const char *name, bool has, uint64_t v)
{
	if (has || w->header)
		w->fmt->u64(w, name, v);
	else
		w->fmt->str(w, name, NULL);
}

static void opt_hex(struct rows *w, const char *name, bool has, uint64_t v)
{
	if (has || w->header)
		w->fmt->hex(w, name, v);
	else
		w->fmt->str(w, name, NULL);
}

/* What one row needs: the exit (or the event), and for pair rows the entry's CPU and vCPU. */
struct qrow {
	const struct vmt_event *ev;	/* the exit (pair rows) or the event */
	uint64_t lat;			/* UINT64_MAX: none (event rows) */
	uint32_t end_cpu, end_vcpu;	/* pair rows: the entry's */
	uint16_t end_has;
	bool near_gap;
};

static void format_pair(struct rows *w, const struct qrow *q)
{
	const struct vmt_event *ex = q->ev;
	const struct vmt_reader *r = w->r;
	bool has_reason = ex->has & VMT_EVF_REASON;
	uint64_t key = vmt_exitreason_key(ex->isa, ex->reason);
	bool has_vcpu = (ex->has | q->end_has) & VMT_EVF_VCPU;

	w->fmt->begin(w);
	w->fmt->u64(w, "start_ns", vmt_reader_ns(r, ex->ts - w->start));
	w->fmt->u64(w, "start_ts_ns", vmt_reader_ns(r, ex->ts));
	w->fmt->u64(w, "pcpu", ex->cpu);
	w->fmt->u64(w, "entry_pcpu", q->end_cpu);
	opt_u64(w, "vcpu", has_vcpu, (ex->has & VMT_EVF_VCPU) ? ex->vcpu : q->end_vcpu);
	w->fmt->i64(w, "task", ex->pid);
	opt_u64(w, "reason_code", has_reason, key);
	w->fmt->str(w, "reason", has_reason ? reason_name(w, ex->isa, key) : NULL);
	w->fmt->u64(w, "latency_ns", vmt_reader_ns(r, q->lat));
	opt_hex(w, "guest_rip", ex->has & VMT_EVF_RIP, ex->rip);
	opt_hex(w, "info1", ex->has & VMT_EVF_INFO1, ex->info1);
	opt_hex(w, "info2", ex->has & VMT_EVF_INFO2, ex->info2);
	if (w->intr) {
		opt_hex(w, "intr_info", ex->has & VMT_EVF_INTR_INFO, ex->intr_info);
		opt_hex(w, "error_code", ex->has & VMT_EVF_ERROR_CODE, ex->error_code);
	}
	w->fmt->u64(w, "near_gap", q->near_gap);
	w->fmt->end(w);
	w->nrows++;
}

static void format_event(struct rows *w, const struct qrow *q)
{
	const struct vmt_event *ev = q->ev;
	const struct vmt_reader *r = w->r;
	bool exit = ev->kind == VMT_EV_BEGIN, has_reason = exit && (ev->has & VMT_EVF_REASON);
	uint64_t key = vmt_exitreason_key(ev->isa, ev->reason);

	w->fmt->begin(w);
	w->fmt->u64(w, "time_ns", vmt_reader_ns(r, ev->ts - w->start));
	w->fmt->u64(w, "ts_ns", vmt_reader_ns(r, ev->ts));
	w->fmt->u64(w, "pcpu", ev->cpu);
	w->fmt->i64(w, "task", ev->pid);
	w->fmt->str(w, "kind", exit ? "exit" : "entry");
	opt_u64(w, "vcpu", ev->has & VMT_EVF_VCPU, ev->vcpu);
	opt_u64(w, "reason_code", has_reason, key);
	w->fmt->str(w, "reason", has_reason ? reason_name(w, ev->isa, key) : NULL);
	opt_hex(w, "rip", ev->has & VMT_EVF_RIP, ev->rip);
	opt_hex(w, "info1", exit && (ev->has & VMT_EVF_INFO1), ev->info1);
	opt_hex(w, "info2", exit && (ev->has & VMT_EVF_INFO2), ev->info2);
	if (w->intr) {
		opt_hex(w, "intr_info", ev->has & VMT_EVF_INTR_INFO, ev->intr_info);
		opt_hex(w, "error_code", ev->has & VMT_EVF_ERROR_CODE, ev->error_code);
	}
	opt_u64(w, "latency_ns", q->lat != UINT64_MAX,
		vmt_reader_ns(r, q->lat == UINT64_MAX ? 0 : q->lat));
	w->fmt->u64(w, "near_gap", q->near_gap);
	w->fmt->end(w);
	w->nrows++;
}

static void csv_pair_row(struct rows *w, const struct qrow *q)
{
	const struct vmt_event *ex = q->ev;
	const struct vmt_reader *r = w->r;
	bool has_reason = ex->has & VMT_EVF_REASON;
	uint64_t key = vmt_exitreason_key(ex->isa, ex->reason);
	const char *name = NULL;
	size_t nlen = 0;
	char *p;

	bool has_vcpu = (ex->has | q->end_has) & VMT_EVF_VCPU;
	uint32_t vcpu = (ex->has & VMT_EVF_VCPU) ? ex->vcpu : q->end_vcpu;
	struct midcols *m = &w->mid;

	if (has_reason && !plain_reason(w, ex->isa, key, &name, &nlen))
		return format_pair(w, q);
	out_room(&w->out, CSV_ROW_MAX);
	p = w->out.buf + w->out.len;
	p = vmt_put_u64_cached(p, vmt_reader_ns(r, ex->ts - w->start), &w->hi_rel);
	*p++ = ',';
	p = vmt_put_u64_cached(p, vmt_reader_ns(r, ex->ts), &w->hi_abs);
	*p++ = ',';
	/*
	 * pcpu, entry_pcpu, vcpu and task are the same for long runs of a vCPU's exits: the
	 * text is kept and copied while they stay alike.
	 */
	if (!m->valid || m->cpu != ex->cpu || m->end_cpu != q->end_cpu || m->vcpu != vcpu ||
	    m->pid != ex->pid || m->has_vcpu != has_vcpu) {
		char *t = m->text;

		t = vmt_put_u64(t, ex->cpu);
		*t++ = ',';
		t = vmt_put_u64(t, q->end_cpu);
		*t++ = ',';
		if (has_vcpu)
			t = vmt_put_u64(t, vcpu);
		*t++ = ',';
		if (ex->pid < 0) {
			*t++ = '-';
			t = vmt_put_u64(t, (uint64_t)-(int64_t)ex->pid);
		} else {
			t = vmt_put_u64(t, (uint64_t)ex->pid);
		}
		*t++ = ',';
		m->len = (size_t)(t - m->text);
		m->valid = true;
		m->cpu = ex->cpu;
		m->end_cpu = q->end_cpu;
		m->vcpu = vcpu;
		m->pid = ex->pid;
		m->has_vcpu = has_vcpu;
	}
	/* a fixed-size copy when it fits (the room is there): no memcpy call */
	if (m->len <= 48)
		memcpy(p, m->text, 48);
	else
		memcpy(p, m->text, m->len);
	p += m->len;
	if (has_reason) {
		/* "CODE,NAME," rendered once per reason (plain_reason filled the cache) */
		unsigned int h = (unsigned int)(key * 31 + ex->isa) & 255;

		if (w->cache[h].csv_len <= 32)
			memcpy(p, w->cache[h].csv, 32);
		else
			memcpy(p, w->cache[h].csv, w->cache[h].csv_len);
		p += w->cache[h].csv_len;
	} else {
		*p++ = ',';
		*p++ = ',';
	}
	p = vmt_put_u64(p, vmt_reader_ns(r, q->lat));
	*p++ = ',';
	p = put_opt_hex(p, ex->has & VMT_EVF_RIP, ex->rip);
	p = put_opt_hex(p, ex->has & VMT_EVF_INFO1, ex->info1);
	p = put_opt_hex(p, ex->has & VMT_EVF_INFO2, ex->info2);
	if (w->intr) {
		p = put_opt_hex(p, ex->has & VMT_EVF_INTR_INFO, ex->intr_info);
		p = put_opt_hex(p, ex->has & VMT_EVF_ERROR_CODE, ex->error_code);
	}
	*p++ = q->near_gap ? '1' : '0';
	*p++ = '\r';
	*p++ = '\n';
	w->out.len = (size_t)(p - w->out.buf);
	w->nrows++;
}

static void csv_event_row(struct rows *w, const struct qrow *q)
{
	const struct vmt_event *ev = q->ev;
	const struct vmt_reader *r = w->r;
	bool exit = ev->kind == VMT_EV_BEGIN, has_reason = exit && (ev->has & VMT_EVF_REASON);
	uint64_t key = vmt_exitreason_key(ev->isa, ev->reason);
	const char *name = NULL;
	size_t nlen = 0;
	char *p;

	if (has_reason && !plain_reason(w, ev->isa, key, &name, &nlen))
		return format_event(w, q);
	out_room(&w->out, CSV_ROW_MAX);
	p = w->out.buf + w->out.len;
	p = vmt_put_u64_cached(p, vmt_reader_ns(r, ev->ts - w->start), &w->hi_rel);
	*p++ = ',';
	p = vmt_put_u64_cached(p, vmt_reader_ns(r, ev->ts), &w->hi_abs);
	*p++ = ',';
	p = vmt_put_u64(p, ev->cpu);
	*p++ = ',';
	if (ev->pid < 0) {
		*p++ = '-';
		p = vmt_put_u64(p, (uint64_t)-(int64_t)ev->pid);
	} else {
		p = vmt_put_u64(p, (uint64_t)ev->pid);
	}
	*p++ = ',';
	if (exit) {
		memcpy(p, "exit,", 5);
		p += 5;
	} else {
		memcpy(p, "entry,", 6);
		p += 6;
	}
	if (ev->has & VMT_EVF_VCPU)
		p = vmt_put_u64(p, ev->vcpu);
	*p++ = ',';
	if (has_reason)
		p = vmt_put_u64(p, key);
	*p++ = ',';
	if (nlen)	/* name may be NULL */
		memcpy(p, name, nlen);
	p += nlen;
	*p++ = ',';
	p = put_opt_hex(p, ev->has & VMT_EVF_RIP, ev->rip);
	p = put_opt_hex(p, exit && (ev->has & VMT_EVF_INFO1), ev->info1);
	p = put_opt_hex(p, exit && (ev->has & VMT_EVF_INFO2), ev->info2);
	if (w->intr) {
		p = put_opt_hex(p, ev->has & VMT_EVF_INTR_INFO, ev->intr_info);
		p = put_opt_hex(p, ev->has & VMT_EVF_ERROR_CODE, ev->error_code);
	}
	if (q->lat != UINT64_MAX)
		p = vmt_put_u64(p, vmt_reader_ns(r, q->lat));
	*p++ = ',';
	*p++ = q->near_gap ? '1' : '0';
	*p++ = '\r';
	*p++ = '\n';
	w->out.len = (size_t)(p - w->out.buf);
	w->nrows++;
}

static inline void format_row(struct rows *w, bool events, const struct qrow *q)
{
	if (w->fmt == &csv)
		events ? csv_event_row(w, q) : csv_pair_row(w, q);
	else
		events ? format_event(w, q) : format_pair(w, q);
}

static void pair_row(const struct vmt_pair *p, bool near_gap, void *arg)
{
	struct qrow q;

	q.ev = p->begin;
	q.lat = p->lat;
	q.end_cpu = p->end->cpu;
	q.end_vcpu = p->end->vcpu;
	q.end_has = p->end->has;
	q.near_gap = near_gap;
	format_row(arg, false, &q);
}

static void event_row(const struct vmt_event *ev, uint64_t lat, bool near_gap, void *arg)
{
	struct qrow q;

	q.ev = ev;
	q.lat = lat;
	q.near_gap = near_gap;
	format_row(arg, true, &q);
}

static int write_rows(const struct convert_opts *o, struct vmt_reader *r, int fd)
{
	struct vmt_analysis_opts ao;
	struct vmt_summary s;
	struct rows *w;
	int ret;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->out.fd = fd;
	w->fmt = o->format == OPT_CSV ? &csv : &jsonl;
	w->r = r;
	w->start = vmt_reader_start_ts(r);
	w->intr = r->bind.begin.intr_info.size && r->bind.begin.error_code.size;
	ret = vmt_exitreasons_new(r->fbegin, &w->names);
	if (ret) {
		free(w);
		return ret;
	}
	if (o->format == OPT_CSV) {
		/* the header row: the same writer, names instead of values */
		struct vmt_event ev;
		struct qrow q;

		memset(&ev, 0, sizeof(ev));
		memset(&q, 0, sizeof(q));
		q.ev = &ev;
		w->header = true;
		if (o->events)
			format_event(w, &q);
		else
			format_pair(w, &q);
		w->header = false;
		w->nrows = 0;
	}
	memset(&ao, 0, sizeof(ao));
	ao.window_ns = VMT_DEFAULT_WINDOW_NS;
	ao.filter = &o->fo.filter;
	ao.rows_only = true;
	ao.hook_arg = w;
	if (o->events)
		ao.event_hook = event_row;
	else
		ao.pair_hook = pair_row;
	ret = vmt_analyze(r, &ao, &s);
	vmt_summary_free(&s);
	out_flush(&w->out);
	if (!ret)
		ret = w->out.err;
	vmt_exitreasons_free(w->names);
	free(w);
	return ret;
}

/* The original tool's trace.bin: its 8-byte header, then one CPU's 4 KiB pages as they are. */
static int write_legacy(const struct convert_opts *o, struct vmt_reader *r, int fd,
			const char **why)
{
	const struct vmt_filter *f = &o->fo.filter;
	struct vmt_chunkbuf cb = { 0 };
	uint8_t hdr[VMT_LEGACY_HEADER_SIZE];
	bool several = false;
	uint32_t cpu = 0;
	size_t i;
	int ret = 0;

	if (vmt_header_page_subbuf_size(&r->hp) != VMT_LEGACY_PAGE_SIZE || r->hp.commit_size != 8) {
		*why = "the original trace.bin holds 64-bit 4 KiB sub-buffers only";
		return -EINVAL;
	}
	if (f->vcpus.n || f->nreasons || f->has_from || f->has_to || f->cpus.n > 1) {
		*why = "--legacy copies whole pages: only --cpu (one CPU) applies";
		return -EINVAL;
	}
	for (i = 0; i < r->c->nchunks; i++) {
		if (r->c->chunks[i].cpu != r->c->chunks[0].cpu)
			several = true;
	}
	if (f->cpus.n) {
		cpu = f->cpus.cpu[0];
	} else if (several) {
		*why = "the recording has several CPUs and trace.bin holds one: choose with --cpu";
		return -EINVAL;
	} else if (r->c->nchunks) {
		cpu = r->c->chunks[0].cpu;
	}
	put_le32(hdr, VMT_LEGACY_SIGNATURE);
	put_le16(hdr + 4, (uint16_t)r->fend->id);
	put_le16(hdr + 6, (uint16_t)r->fbegin->id);
	ret = vmt_io_write_full(fd, hdr, sizeof(hdr));
	for (i = 0; !ret && i < r->c->nchunks; i++) {
		const struct vmt_chunk_info *ci = &r->c->chunks[i];

		if (ci->cpu != cpu)
			continue;
		if (vmt_container_read_chunk(r->c, i, &cb, why)) {
			vmt_warn("%s: chunk %zu skipped: %s", o->input, i, *why);
			continue;
		}
		ret = vmt_io_write_full(fd, cb.raw, ci->raw_size);
	}
	vmt_chunkbuf_free(&cb);
	if (ret)
		*why = strerror(-ret);
	return ret;
}

/* Any input into a .vmt: its metadata, and its pages in compressed chunks. */
static int write_vmt(const struct convert_opts *o, struct vmt_reader *r, int fd,
		     const char **why)
{
	struct vmt_chunkbuf cb = { 0 };
	struct vmt_kvbuf meta, end;
	struct vmt_writer *w = NULL;
	size_t i;
	int ret;

	vmt_kv_init(&meta);
	vmt_kv_init(&end);
	if (r->c->meta_len) {
		meta.buf = malloc(r->c->meta_len);
		if (!meta.buf)
			return -ENOMEM;
		memcpy(meta.buf, r->c->meta, r->c->meta_len);
		meta.len = meta.cap = r->c->meta_len;
	}
	vmt_kv_add_str(&meta, "converted_from", o->input);
	if (r->source[0])
		vmt_kv_add_str(&meta, "format_source", r->source);
	ret = vmt_writer_open(fd, &meta, VMT_DEFAULT_LEVEL, &w);
	for (i = 0; !ret && i < r->c->nchunks; i++) {
		struct vmt_chunk_info ci = r->c->chunks[i];
		const uint8_t *last;
		struct vmt_rbrecord rec;
		struct vmt_rbpage pg;
		uint32_t p;

		if (vmt_container_read_chunk(r->c, i, &cb, why)) {
			vmt_warn("%s: chunk %zu skipped: %s", o->input, i, *why);
			continue;
		}
		/* a trace.bin has no chunk headers: take the figures from its pages */
		ci.missed_pages = 0;
		ci.missed_count = 0;
		for (p = 0; p < ci.page_count; p++) {
			if (vmt_rbpage_init(&pg, &r->hp, cb.raw + (size_t)p * ci.page_size,
					    ci.page_size))
				continue;
			if (p == 0)
				ci.first_ts = pg.page_ts;
			if (pg.missed) {
				ci.missed_pages++;
				ci.missed_count += pg.missed_count;
			}
		}
		last = cb.raw + (size_t)(ci.page_count - 1) * ci.page_size;
		if (vmt_rbpage_init(&pg, &r->hp, last, ci.page_size) == 0) {
			ci.last_ts = pg.page_ts;
			while (vmt_rbpage_next(&pg, &rec) > 0)
				ci.last_ts = rec.ts;
		}
		ret = vmt_writer_chunk(w, cb.raw, ci.page_count, ci.page_size, &ci);
	}
	if (!ret) {
		if (r->c->end && r->c->end_len) {
			struct vmt_kv kv;
			size_t pos = 0;

			/* keep the recording's end figures, not its old chunk index */
			while (vmt_kv_next(r->c->end, r->c->end_len, &pos, &kv) > 0) {
				char key[VMT_KV_MAX_KEY + 1];

				memcpy(key, kv.key, kv.key_len);
				key[kv.key_len] = '\0';
				if (strncmp(key, "chunk.", 6) != 0)
					vmt_kv_add(&end, key, kv.val, kv.val_len);
			}
		}
		ret = vmt_writer_finish(w, &end);
	}
	if (ret && !*why)
		*why = strerror(-ret);
	vmt_writer_free(w);
	if (close(fd) < 0 && !ret)
		ret = -errno;
	vmt_chunkbuf_free(&cb);
	vmt_kv_free(&meta);
	vmt_kv_free(&end);
	return ret;
}

int main(int argc, char **argv)
{
	struct convert_opts o = { 0 };
	struct argp_child children[] = { { &vmt_filter_argp, 0, NULL, 0 }, { 0 } };
	struct argp argp = { options, parse_opt, "FILE", doc, children, NULL, NULL };
	struct vmt_reader *r;
	const char *why = NULL;
	char msg[256];
	int fd = STDOUT_FILENO, ret;

	vmt_log_init(argv[0]);
	argp_parse(&argp, argc, argv, 0, NULL, &o);
	ret = vmt_reader_open_ex(o.input, &o.in, &r, &why);
	if (ret) {
		vmt_err("%s: %s", o.input, why ? why : strerror(-ret));
		vmt_filter_opts_free(&o.fo);
		return 1;
	}
	if (o.in.pair && !r->c->tracedat)
		vmt_warn("%s: --pair ignored: the file names its own events", o.input);
	ret = vmt_filter_resolve(&o.fo, r, msg, sizeof(msg));
	if (ret) {
		vmt_err("%s: %s", o.input, ret == -EINVAL ? msg : strerror(-ret));
		goto out;
	}
	if (o.output && strcmp(o.output, "-") != 0) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		signal(SIGHUP, on_signal);
		fd = open_output(o.output);
		if (fd < 0) {
			ret = fd;
			vmt_err("%s: cannot create: %s", o.output, strerror(-fd));
			goto out;
		}
	}
	why = NULL;
	switch (o.format) {
	case OPT_CSV:
	case OPT_JSONL:
		ret = write_rows(&o, r, fd);
		if (ret)
			vmt_err("%s: %s", o.output ? o.output : "standard output", strerror(-ret));
		break;
	case OPT_LEGACY:
		ret = write_legacy(&o, r, fd, &why);
		if (ret)
			vmt_err("%s: %s", ret == -EINVAL ? o.input : o.output, why);
		break;
	case OPT_TO_VMT:
		ret = write_vmt(&o, r, fd, &why);
		fd = -1;	/* the writer closed it */
		if (ret)
			vmt_err("%s: %s", o.output, why ? why : strerror(-ret));
		break;
	}
	if (have_tmp) {
		if (fd >= 0 && (fsync(fd) < 0 || close(fd) < 0) && !ret) {
			ret = -errno;
			vmt_err("%s: %s", o.output, strerror(errno));
		}
		if (ret)
			drop_output();
		else if (rename(tmp_path, o.output) < 0) {
			ret = -errno;
			vmt_err("%s: cannot rename into place: %s", o.output, strerror(errno));
			drop_output();
		}
		have_tmp = 0;
	}
	if (!r->c->finished)
		vmt_warn("%s: the recording was not finished; the complete chunks were converted",
			 o.input);
out:
	vmt_filter_opts_free(&o.fo);
	vmt_reader_close(r);
	return ret ? 1 : 0;
}
