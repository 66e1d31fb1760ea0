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
#include <pthread.h>
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
	char buf[1 << 16];
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

/*
 * Numbers are most of the work of a conversion: each is written in place, two digits a
 * step from a table, its length known first (no temporary, no memcpy call).
 */
static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline unsigned int u64_digits(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
		1000000000000ull, 10000000000000ull, 100000000000000ull,
		1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};
	/* log10 from the bit length (1233 / 4096 ~ log10(2)), then one correction */
	unsigned int t = ((64 - (unsigned int)__builtin_clzll(v | 1)) * 1233) >> 12;

	return v < 10 ? 1 : t + 1 - (v < pow10[t]);
}

static inline void out_u64(struct out *o, uint64_t v)
{
	unsigned int n = u64_digits(v);
	char *p;

	out_room(o, n);
	p = o->buf + o->len + n;
	o->len += n;
	while (v >= 100) {
		unsigned int i = (unsigned int)(v % 100) * 2;

		v /= 100;
		p -= 2;
		p[0] = digits2[i];
		p[1] = digits2[i + 1];
	}
	if (v >= 10) {
		p[-2] = digits2[v * 2];
		p[-1] = digits2[v * 2 + 1];
	} else {
		p[-1] = (char)('0' + v);
	}
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
	static const char digits[] = "0123456789abcdef";
	unsigned int n = (64 - (unsigned int)__builtin_clzll(v | 1) + 3) / 4;
	char *p;

	out_room(o, 2 + n);
	p = o->buf + o->len;
	o->len += 2 + n;
	p[0] = '0';
	p[1] = 'x';
	for (p += 1 + n; n > 1; n -= 2, p -= 2, v >>= 8) {
		p[0] = digits[v & 15];
		p[-1] = digits[(v >> 4) & 15];
	}
	if (n)
		p[0] = digits[v & 15];
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
	struct { uint64_t key; uint32_t isa; bool used; const char *name; } cache[256];
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
	}
	return w->cache[h].name;
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

/*
 * What one row needs, copied out of the analysis (its events live only until the next
 * one): formatting can then run on another core, in order, a batch at a time.
 */
struct qrow {
	struct vmt_event ev;		/* the exit (pair rows) or the event */
	uint64_t lat;			/* UINT64_MAX: none (event rows) */
	uint32_t end_cpu, end_vcpu;	/* pair rows: the entry's */
	uint16_t end_has;
	bool near_gap;
};

static void format_pair(struct rows *w, const struct qrow *q)
{
	const struct vmt_event *ex = &q->ev;
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
	const struct vmt_event *ev = &q->ev;
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

/*
 * The formatting thread: the analysis fills batches of rows, one thread formats and
 * writes them in order. Rows are most of a conversion's work; with a second core this
 * takes them off the thread that decodes and pairs (which the read-ahead threads share).
 */
#define BATCH_ROWS 2048
#define NBATCH 4

struct batch {
	struct qrow row[BATCH_ROWS];
	unsigned int n;
};

struct fmtq {
	struct rows *w;
	bool events;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct batch *b[NBATCH];
	uint64_t filled, formatted;	/* batches handed over and done, counting up */
	bool done;
	struct batch *cur;		/* being filled by the analysis */
};

static void format_batch(struct rows *w, bool events, const struct batch *b)
{
	unsigned int i;

	for (i = 0; i < b->n; i++) {
		if (events)
			format_event(w, &b->row[i]);
		else
			format_pair(w, &b->row[i]);
	}
}

static void *fmtq_main(void *arg)
{
	struct fmtq *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct batch *b;

		while (q->formatted == q->filled && !q->done)
			pthread_cond_wait(&q->cond, &q->lock);
		if (q->formatted == q->filled)
			break;
		b = q->b[q->formatted % NBATCH];
		pthread_mutex_unlock(&q->lock);
		format_batch(q->w, q->events, b);
		pthread_mutex_lock(&q->lock);
		q->formatted++;
		pthread_cond_broadcast(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

/* The next row to fill: hands the current batch over when it is full. */
static struct qrow *fmtq_slot(struct fmtq *q)
{
	if (q->cur->n == BATCH_ROWS) {
		pthread_mutex_lock(&q->lock);
		q->filled++;
		pthread_cond_broadcast(&q->cond);
		while (q->filled - q->formatted == NBATCH)
			pthread_cond_wait(&q->cond, &q->lock);
		q->cur = q->b[q->filled % NBATCH];
		pthread_mutex_unlock(&q->lock);
		q->cur->n = 0;
	}
	return &q->cur->row[q->cur->n++];
}

/* Start the thread, or NULL to format in line (one core, VMTRACE_NO_THREADS, no memory). */
static struct fmtq *fmtq_new(struct rows *w, bool events)
{
	struct fmtq *q;
	unsigned int i;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || getenv("VMTRACE_NO_THREADS"))
		return NULL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	for (i = 0; i < NBATCH; i++) {
		q->b[i] = malloc(sizeof(*q->b[i]));
		if (!q->b[i])
			goto fail;
	}
	q->w = w;
	q->events = events;
	q->cur = q->b[0];
	q->cur->n = 0;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	if (pthread_create(&q->thread, NULL, fmtq_main, q)) {
		pthread_mutex_destroy(&q->lock);
		pthread_cond_destroy(&q->cond);
		goto fail;
	}
	return q;
fail:
	for (i = 0; i < NBATCH; i++)
		free(q->b[i]);
	free(q);
	return NULL;
}

/* Hand over the last batch, wait for every row to be written, stop the thread. */
static void fmtq_finish(struct fmtq *q)
{
	unsigned int i;

	pthread_mutex_lock(&q->lock);
	if (q->cur->n)
		q->filled++;
	q->done = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cond);
	for (i = 0; i < NBATCH; i++)
		free(q->b[i]);
	free(q);
}

struct hookctx {
	struct rows *w;
	struct fmtq *q;		/* NULL: format right here */
};

static void pair_row(const struct vmt_pair *p, bool near_gap, void *arg)
{
	struct hookctx *h = arg;
	struct qrow tmp, *q = h->q ? fmtq_slot(h->q) : &tmp;

	q->ev = *p->begin;
	q->lat = p->lat;
	q->end_cpu = p->end->cpu;
	q->end_vcpu = p->end->vcpu;
	q->end_has = p->end->has;
	q->near_gap = near_gap;
	if (!h->q)
		format_pair(h->w, q);
}

static void event_row(const struct vmt_event *ev, uint64_t lat, bool near_gap, void *arg)
{
	struct hookctx *h = arg;
	struct qrow tmp, *q = h->q ? fmtq_slot(h->q) : &tmp;

	q->ev = *ev;
	q->lat = lat;
	q->near_gap = near_gap;
	if (!h->q)
		format_event(h->w, q);
}

static int write_rows(const struct convert_opts *o, struct vmt_reader *r, int fd)
{
	struct hookctx h;
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
		struct qrow q;

		memset(&q, 0, sizeof(q));
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
	h.w = w;
	h.q = fmtq_new(w, o->events);
	ao.hook_arg = &h;
	if (o->events)
		ao.event_hook = event_row;
	else
		ao.pair_hook = pair_row;
	ret = vmt_analyze(r, &ao, &s);
	if (h.q)
		fmtq_finish(h.q);
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
	ret = vmt_writer_open(fd, &meta, 3, &w);
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
	if (w) {
		int fd_closed = vmt_writer_close(w);

		if (!ret)
			ret = fd_closed;
	} else {
		close(fd);
	}
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
