// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"
#include "metakeys.h"
#include "readahead.h"
#include "reader.h"
#include "tracefs.h"
#include "vmfind.h"

struct stream {
	uint32_t cpu;
	size_t *chunk;		/* indexes of the source's chunks, in file order */
	size_t nchunk, next_chunk;
	size_t held;		/* the read-ahead chunk in use, or SIZE_MAX */
	uint32_t held_part;	/* its part held (0: the chunk whole) */
	uint8_t *raw;		/* the chunk read without read-ahead: its pages */
	size_t raw_cap;
	const uint8_t *pages;
	uint32_t page_size, npages, next_page;
	/* a chunk read in windows (vmt_reader.window): its pages, the window's first */
	uint32_t chunk_pages, win_first;
	bool in_page;
	bool after_bad;		/* a damaged chunk was skipped: a gap before the next page */
	struct vmt_rbpage pg;
	bool done;
	struct vmt_item head;	/* the next item of this stream */
	uint64_t prev_ts;	/* the stream's latest record's time, to see it go back */
	uint64_t *chunk_hi;	/* a slice: the next chunk's first time, per chunk */
	uint64_t *chunk_lo;	/* a slice: the chunk's first time (chunk_span), per chunk */
	uint64_t cur_hi, cur_lo;	/* those of the chunk being read */
	/* the latest time a page may bear (stream_until()); UINT64_MAX when not known */
	uint64_t until;
};

struct vmt_reader {
	char *path;
	struct vmt_source *src;
	char *begin_name, *end_name;	/* "kvm:kvm_exit" */
	char *clock_name;
	struct vmt_clock clock;
	struct vmt_header_page hp;
	struct vmt_evformat *fbegin, *fend;
	struct vmt_evbind bind;
	struct vmt_cpulist cpus;	/* traced CPUs from the metadata */
	struct vmt_evformat **ctxfmt;	/* the context events' formats */
	unsigned int nctx, ctx_skipped;
	char *ctx_names, *ctx_missing;	/* context.events, context.missing (or NULL) */
	char *machine;			/* kernel.machine (or NULL) */
	struct vmt_vmmap *vmmap;	/* vmtrace-record --vm's map, or NULL */
	struct vmt_reader_stats st;
	struct vmt_damage damage;	/* the first damage seen, for the warning */
	/* merged walk */
	struct stream *streams;
	uint32_t nstreams;
	/*
	 * The merge: a tournament tree of losers over the streams (leaves, a power of two;
	 * node 0 the winner, node n > 0 the loser of the match there) and each stream's
	 * order_key(), KEY_DONE once it has nothing left.
	 */
	uint32_t *tree;
	unsigned __int128 *key;
	uint32_t leaves;
	/*
	 * Without read-ahead, chunks are read one at a time: one zstd context and one
	 * compressed buffer serve every stream, which keeps only its pages. On 64 CPUs that
	 * is 64 contexts and compressed chunks fewer.
	 */
	struct vmt_chunkbuf scratch;
	/*
	 * When every CPU's chunk whole would pass VMT_CHUNK_BYTES_ALL (a recording of many
	 * CPUs in large chunks), each stream holds a window of this many bytes of its chunk
	 * (read with vmt_source_read_chunk_part, windows read ahead as parts); 0: whole chunks.
	 */
	uint64_t window;
	uint64_t largest;		/* the largest chunk's pages, bytes */
	bool in_parts;			/* some chunk is read in more than one window */
	bool started;
	struct stream *cur;		/* the stream of the item returned last, NULL at the end */
	struct vmt_readahead *ra;	/* decompression threads for the merged walk, or NULL */
	/* a slice (vmt_reader_slice): the parent's recording, items in [from, to) only */
	const struct vmt_reader *parent;
	uint64_t from, to;
	bool unordered;			/* a stream's time went back: the slice is not exact */
	/* metadata values no recorder writes (check_values), taken as not known */
	uint64_t stop_ts;		/* vmt_reader_stop_ts() */
	char bad_value[64];		/* the first one's key, "" when none */
	unsigned int bad_values;
	bool bad_mono, bad_stats;
	bool late;			/* the source judges its pages as they are read */
};

#define KEY_DONE (~(unsigned __int128)0)	/* a finished stream's key: loses to all */

/* The merge's tree and keys for up to n streams. 0 or -ENOMEM. */
static int alloc_merge(struct vmt_reader *r, uint32_t n)
{
	uint32_t leaves = 1;

	while (leaves < n)
		leaves *= 2;
	r->tree = calloc(leaves, sizeof(*r->tree));
	r->key = calloc(leaves, sizeof(*r->key));
	return r->tree && r->key ? 0 : -ENOMEM;
}

const char *vmt_reader_path(const struct vmt_reader *r)
{
	return r->path;
}

const struct vmt_source *vmt_reader_source(const struct vmt_reader *r)
{
	return r->src;
}

const char *vmt_reader_begin_name(const struct vmt_reader *r)
{
	return r->begin_name;
}

const char *vmt_reader_end_name(const struct vmt_reader *r)
{
	return r->end_name;
}

bool vmt_reader_pairs_kvm(const struct vmt_reader *r)
{
	return vmt_evpair_is_kvm(r->begin_name);
}

const struct vmt_evformat *vmt_reader_begin_format(const struct vmt_reader *r)
{
	return r->fbegin;
}

const struct vmt_evformat *vmt_reader_end_format(const struct vmt_reader *r)
{
	return r->fend;
}

const struct vmt_evbind *vmt_reader_bind(const struct vmt_reader *r)
{
	return &r->bind;
}

const struct vmt_header_page *vmt_reader_header_page(const struct vmt_reader *r)
{
	return &r->hp;
}

const char *vmt_reader_clock_name(const struct vmt_reader *r)
{
	return r->clock_name;
}

const struct vmt_clock *vmt_reader_clock(const struct vmt_reader *r)
{
	return &r->clock;
}

const struct vmt_cpulist *vmt_reader_cpus(const struct vmt_reader *r)
{
	return &r->cpus;
}

const struct vmt_evformat *const *vmt_reader_context_formats(const struct vmt_reader *r,
							    unsigned int *n)
{
	*n = r->nctx;
	return (const struct vmt_evformat *const *)r->ctxfmt;
}

const char *vmt_reader_machine(const struct vmt_reader *r)
{
	return r->machine;
}

const char *vmt_reader_context_names(const struct vmt_reader *r)
{
	return r->ctx_names;
}

const char *vmt_reader_context_missing(const struct vmt_reader *r)
{
	return r->ctx_missing;
}

unsigned int vmt_reader_context_skipped(const struct vmt_reader *r)
{
	return r->ctx_skipped;
}

const struct vmt_reader_stats *vmt_reader_stats(const struct vmt_reader *r)
{
	return &r->st;
}

const struct vmt_damage *vmt_reader_damage(const struct vmt_reader *r)
{
	return &r->damage;
}

void vmt_damage_note(struct vmt_damage *d, const struct vmt_chunk_info *ci, uint32_t page,
		     const char *why)
{
	if (d->why)
		return;		/* the first one is where a user starts looking */
	memset(d, 0, sizeof(*d));
	d->why = why ? why : "damaged";
	if (!ci)
		return;
	d->located = true;
	d->offset = ci->offset;
	d->cpu = ci->cpu;
	d->pages = ci->page_count;
	d->page = page;
	d->first_ts = ci->first_ts;
	d->last_ts = ci->last_ts;
}

/* The chunk the stream reads (or has just failed to read). */
static const struct vmt_chunk_info *stream_chunk(const struct vmt_reader *r,
						 const struct stream *s)
{
	return s->next_chunk ? vmt_source_chunk(r->src, s->chunk[s->next_chunk - 1]) : NULL;
}

/* The page just taken from s (its last one read) is damaged: left out, counted, noted. */
static __attribute__((cold)) void bad_page(struct vmt_reader *r, struct stream *s,
					 const char *why)
{
	r->st.bad_pages++;
	s->after_bad = true;
	vmt_damage_note(&r->damage, stream_chunk(r, s), s->win_first + s->next_page - 1, why);
}

char *vmt_reader_meta(const struct vmt_reader *r, const char *key)
{
	const uint8_t *meta, *end;
	size_t len;
	char *s;

	meta = vmt_source_meta(r->src, &len);
	s = vmt_kv_get_str(meta, len, key);
	end = vmt_source_end(r->src, &len);
	if (!s && end)
		s = vmt_kv_get_str(end, len, key);
	return s;
}

static int parse_format(struct vmt_reader *r, const char *name_key, const char *fmt_key,
			char **name, struct vmt_evformat **fmt)
{
	const uint8_t *meta, *text;
	uint32_t len;
	size_t mlen;
	char *colon;

	*name = vmt_reader_meta(r, name_key);
	meta = vmt_source_meta(r->src, &mlen);
	text = vmt_kv_get(meta, mlen, fmt_key, &len);
	if (!*name || !text)
		return -EBADMSG;
	colon = strchr(*name, ':');
	if (vmt_evformat_parse((const char *)text, len, NULL, fmt, NULL))
		return -EBADMSG;
	if (colon) {
		(*fmt)->system = strndup(*name, (size_t)(colon - *name));
		if (!(*fmt)->system)
			return -ENOMEM;
	}
	return 0;
}

static bool id_taken(uint32_t id, const uint32_t *taken, unsigned int ntaken,
		     struct vmt_evformat *const *fmts, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < ntaken; i++)
		if (taken[i] == id)
			return true;
	for (i = 0; i < n; i++)
		if (fmts[i]->id == id)
			return true;
	return false;
}

/* One name of context.events with its format.ctx.<name>: 1 kept, 0 skipped, -ENOMEM. */
static int load_context_event(const uint8_t *meta, size_t mlen, const char *name,
			      const uint32_t *taken, unsigned int ntaken,
			      struct vmt_evformat **fmts, unsigned int *n)
{
	const char *colon = strchr(name, ':');
	char key[VMT_KV_MAX_KEY + 1], system[VMT_KV_MAX_KEY];
	struct vmt_evformat *f;
	const uint8_t *text;
	uint32_t len;
	int ret;

	ret = snprintf(key, sizeof(key), VMT_META_FORMAT_CTX "%s", name);
	if (!colon || colon == name || !colon[1] || ret < 0 || (size_t)ret >= sizeof(key))
		return 0;
	snprintf(system, sizeof(system), "%.*s", (int)(colon - name), name);
	text = vmt_kv_get(meta, mlen, key, &len);
	if (!text)
		return 0;
	ret = vmt_evformat_parse((const char *)text, len, system, &f, NULL);
	if (ret)
		return ret == -ENOMEM ? ret : 0;
	if (strcmp(f->name, colon + 1) != 0 || id_taken(f->id, taken, ntaken, fmts, *n)) {
		vmt_evformat_free(f);
		return 0;
	}
	fmts[(*n)++] = f;
	return 1;
}

int vmt_meta_context_formats(const uint8_t *meta, size_t mlen, const char *names,
			     const uint32_t *taken, unsigned int ntaken,
			     struct vmt_evformat ***fmts, unsigned int *n, unsigned int *skipped)
{
	char *list, *name, *save = NULL;
	unsigned int max = 1;
	const char *p;
	int ret = 0;

	*fmts = NULL;
	*n = *skipped = 0;
	for (p = names; *p; p++)
		max += *p == ',';
	list = strdup(names);
	*fmts = calloc(max, sizeof(**fmts));
	if (!list || !*fmts) {
		free(list);
		return -ENOMEM;
	}
	for (name = strtok_r(list, ",", &save); name && ret >= 0;
	     name = strtok_r(NULL, ",", &save)) {
		ret = load_context_event(meta, mlen, name, taken, ntaken, *fmts, n);
		if (ret == 0)
			++*skipped;
	}
	free(list);
	return ret < 0 ? ret : 0;
}

/*
 * vmtrace-record --vm's map of VMs and vCPU threads. A damaged one is left out (NULL):
 * labels and --vm are a convenience, the recording stands without them.
 */
static void read_vmmap(struct vmt_reader *r)
{
	const uint8_t *meta;
	char err[128];
	size_t len;

	meta = vmt_source_meta(r->src, &len);
	if (!meta || vmt_vmmap_from_meta(meta, len, &r->vmmap, err, sizeof(err)))
		r->vmmap = NULL;
}

const struct vmt_vmmap *vmt_reader_vmmap(const struct vmt_reader *r)
{
	return r->vmmap;
}

/*
 * The context events (metakeys.h): a damaged entry is skipped and counted, never fatal:
 * the pairs do not need it.
 */
static int load_context(struct vmt_reader *r)
{
	uint32_t taken[2] = { r->fbegin->id, r->fend->id };
	const uint8_t *meta;
	size_t mlen;

	r->ctx_names = vmt_reader_meta(r, VMT_META_CONTEXT_EVENTS);
	r->ctx_missing = vmt_reader_meta(r, VMT_META_CONTEXT_MISSING);
	r->machine = vmt_reader_meta(r, VMT_META_MACHINE);
	read_vmmap(r);
	if (!r->ctx_names)
		return 0;
	meta = vmt_source_meta(r->src, &mlen);
	return vmt_meta_context_formats(meta, mlen, r->ctx_names, taken, 2, &r->ctxfmt,
					&r->nctx, &r->ctx_skipped);
}

/* The clock and its unit (tclock.h) from the metadata. */
static int setup_clock(struct vmt_reader *r)
{
	struct vmt_clock *c = &r->clock;
	char *s;

	r->clock_name = vmt_reader_meta(r, VMT_META_CLOCK);
	if (!r->clock_name)
		r->clock_name = strdup("local");
	if (!r->clock_name)
		return -ENOMEM;
	c->ns_per_tick = vmt_clock_is_ns(r->clock_name) ? 1.0 : 0;
	/*
	 * Earlier recorders stored a rate for counter and uptime too, the recording's
	 * duration spread evenly over its ticks: invented ns. Only a constant-rate counter's
	 * rate is taken.
	 */
	s = vmt_clock_has_rate(r->clock_name) ? vmt_reader_meta(r, VMT_META_NS_PER_TICK) : NULL;
	if (s && c->ns_per_tick == 0) {
		char *end;
		double v = strtod(s, &end);

		if (*end == '\0' && v > 0 && v < 1e9)
			c->ns_per_tick = v;
	}
	free(s);
	s = vmt_clock_has_rate(r->clock_name) ? vmt_reader_meta(r, VMT_META_TSC2NSEC) : NULL;
	if (s && c->ns_per_tick != 1.0) {
		unsigned int mult, shift;

		if (sscanf(s, "%u %u", &mult, &shift) == 2 && mult && shift <= 32) {
			c->tsc_mult = mult;
			c->tsc_shift = shift;
			c->ns_per_tick = (double)mult / (double)(1ull << shift);
		}
	}
	free(s);
	return 0;
}

/*
 * Whether the streams read their chunks in windows, and how large: the merge holds a chunk
 * of each CPU at once, which files of many CPUs in chunks of 1 MiB (earlier recorders,
 * more than 32 CPUs) or of the smallest size (more than 512 CPUs) would take past the
 * memory the report may use. The first window of a .vmt chunk decodes its whole frame
 * (to check it), each later one from its start to the window's end: two windows decode
 * it twice (source_vmt.c); the other formats' chunks are read whole for every window.
 */
static void set_window(struct vmt_reader *r)
{
	size_t i, n = vmt_source_nchunks(r->src);
	const char *test = getenv("VMTRACE_TEST_WINDOW");	/* bytes: for the tests */

	r->largest = 0;
	for (i = 0; i < n; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(r->src, i);

		if (ci->raw_size > r->largest)
			r->largest = ci->raw_size;
	}
	r->window = 0;
	if (test && *test)
		r->window = strtoull(test, NULL, 10);
	else if (r->nstreams && r->largest > VMT_CHUNK_BYTES_ALL / r->nstreams)
		r->window = VMT_CHUNK_BYTES_ALL / r->nstreams;
	/* a window holds a page at least: chunks of one page are read whole all the same */
	r->in_parts = false;
	for (i = 0; r->window && i < n && !r->in_parts; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(r->src, i);

		r->in_parts = vmt_chunk_window_pages(ci, r->window) < ci->page_count;
	}
}

/*
 * A .vmt's pages were all written before its CPU's end statistics were read: a page with
 * records stamped after that (plus VMT_NOW_SKEW_MARGIN, and a microsecond for an ns clock's
 * "now ts", which the kernel prints cut) is damaged. UINT64_MAX when the file does not say:
 * another format, no or damaged statistics, none at the end, a "now ts" of 0 (never read).
 */
static uint64_t stream_until(struct vmt_reader *r, uint32_t cpu)
{
	struct vmt_cpustats st;
	uint64_t until = UINT64_MAX;
	char key[64], *text;

	if (r->bad_stats || strcmp(vmt_source_format(r->src), "vmt") != 0)
		return until;
	snprintf(key, sizeof(key), VMT_META_STATS_END "%u", cpu);
	text = vmt_reader_meta(r, key);
	if (text && !vmt_tracefs_parse_stats(text, &st) && st.now_ts &&
	    st.now_ts < UINT64_MAX - VMT_NOW_SKEW_MARGIN - 1000)
		until = st.now_ts + VMT_NOW_SKEW_MARGIN + (vmt_clock_is_ns(r->clock_name) ? 1000 : 0);
	free(text);
	return until;
}

static int setup_streams(struct vmt_reader *r)
{
	size_t i, n = vmt_source_nchunks(r->src);

	for (i = 0; i < n; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(r->src, i);
		struct stream *s = NULL;
		uint32_t j;

		for (j = 0; j < r->nstreams; j++) {
			if (r->streams[j].cpu == ci->cpu) {
				s = &r->streams[j];
				break;
			}
		}
		if (!s) {
			struct stream *bigger = realloc(r->streams,
							(r->nstreams + 1) * sizeof(*bigger));

			if (!bigger)
				return -ENOMEM;
			r->streams = bigger;
			s = &r->streams[r->nstreams++];
			memset(s, 0, sizeof(*s));
			s->cpu = ci->cpu;
			s->head.cpu = ci->cpu;
			s->held = SIZE_MAX;
			s->until = stream_until(r, ci->cpu);
		}
		if ((s->nchunk & (s->nchunk - 1)) == 0) {
			size_t *bigger = realloc(s->chunk, (s->nchunk ? s->nchunk * 2 : 1) *
							   sizeof(*bigger));

			if (!bigger)
				return -ENOMEM;
			s->chunk = bigger;
		}
		s->chunk[s->nchunk++] = i;
	}
	set_window(r);
	return alloc_merge(r, r->nstreams);
}

/* A clock or counter value past 2^63: none runs that long, only damage writes one. */
#define VALUE_IMPOSSIBLE (1ull << 63)

static void bad_value(struct vmt_reader *r, const char *key)
{
	if (!r->bad_values++)
		snprintf(r->bad_value, sizeof(r->bad_value), "%s", key);
}

/* A CPU's stats at start and end: counters past 2^63 or going back are impossible. */
static bool stats_impossible(const struct vmt_cpustats *a, const struct vmt_cpustats *b)
{
	return a->overrun >= VALUE_IMPOSSIBLE || a->commit_overrun >= VALUE_IMPOSSIBLE ||
	       a->dropped >= VALUE_IMPOSSIBLE || b->overrun >= VALUE_IMPOSSIBLE ||
	       b->commit_overrun >= VALUE_IMPOSSIBLE || b->dropped >= VALUE_IMPOSSIBLE ||
	       b->overrun < a->overrun || b->commit_overrun < a->commit_overrun ||
	       b->dropped < a->dropped;
}

/*
 * Values of the metadata that sums and differences would wrap (a duration of 2^64 - 1 ns,
 * a lost-event count 3 short of 2^64): monotonic times past 2^63 or an end before the
 * start (unless a flight recording's kept start explains it), ring-buffer counters past
 * 2^63 or going back. Each is damage, and what it gives is not known.
 */
static void check_values(struct vmt_reader *r)
{
	const uint8_t *meta, *end;
	size_t mlen, elen;
	uint64_t t0, t1, kept;
	bool has0, has1;
	uint32_t vlen;
	unsigned int i;

	meta = vmt_source_meta(r->src, &mlen);
	end = vmt_source_end(r->src, &elen);
	has0 = !vmt_kv_get_u64(meta, mlen, VMT_META_MONO_START, &t0);
	has1 = end && !vmt_kv_get_u64(end, elen, VMT_META_MONO_END, &t1);
	/* there but not a number: no more known than an impossible one */
	if (!has0 && vmt_kv_get(meta, mlen, VMT_META_MONO_START, &vlen))
		has0 = true, t0 = UINT64_MAX;
	if (!has1 && end && vmt_kv_get(end, elen, VMT_META_MONO_END, &vlen))
		has1 = true, t1 = UINT64_MAX;
	if (end && !vmt_kv_get_u64(end, elen, VMT_META_TRACE_STOP, &r->stop_ts) &&
	    r->stop_ts >= VALUE_IMPOSSIBLE)
		r->stop_ts = 0;
	if (end && !r->stop_ts && vmt_kv_get(end, elen, VMT_META_TRACE_STOP, &vlen))
		bad_value(r, VMT_META_TRACE_STOP);	/* not a number, 0 or past 2^63 */
	if (has0 && t0 >= VALUE_IMPOSSIBLE) {
		bad_value(r, VMT_META_MONO_START);
		r->bad_mono = true;
	}
	if (has1 && (t1 >= VALUE_IMPOSSIBLE ||
		     (has0 && t0 < VALUE_IMPOSSIBLE && t1 < t0 &&
		      vmt_kv_get_u64(end, elen, VMT_META_MONO_KEPT, &kept)))) {
		bad_value(r, VMT_META_MONO_END);
		r->bad_mono = true;
	}
	for (i = 0; i < r->cpus.n; i++) {
		struct vmt_cpustats a = { 0 }, b = { 0 };
		char key0[64], key1[64], *text;
		bool has_end, bad_start, bad_end;

		snprintf(key0, sizeof(key0), VMT_META_STATS_START "%u", r->cpus.cpu[i]);
		text = vmt_reader_meta(r, key0);
		bad_start = text && vmt_tracefs_parse_stats(text, &a);
		free(text);
		snprintf(key1, sizeof(key1), VMT_META_STATS_END "%u", r->cpus.cpu[i]);
		text = vmt_reader_meta(r, key1);
		has_end = text && !vmt_tracefs_parse_stats(text, &b);
		bad_end = text && !has_end;
		free(text);
		if (!has_end)
			b = a;
		/* statistics there but unreadable are as impossible as a counter going back */
		if (bad_start || bad_end) {
			bad_value(r, bad_start ? key0 : key1);
			r->bad_stats = true;
		} else if (stats_impossible(&a, &b)) {
			bad_value(r, stats_impossible(&a, &a) ? key0 : key1);
			r->bad_stats = true;
		}
	}
}

const char *vmt_reader_bad_value(const struct vmt_reader *r, unsigned int *n)
{
	*n = r->bad_values;
	return r->bad_values ? r->bad_value : NULL;
}

/*
 * The pages' first time of chunk idx, read from its first window: the time of the first
 * page that holds records, or of a page before it that the header's time (header) names
 * (a recorder keeps an empty page only when it flags lost events, and dates its chunk by
 * it). 1 with *ts set when the header is wrong, 0 when it is right or cannot be told, or
 * a negative errno.
 */
static int pages_first_ts(struct vmt_reader *r, size_t idx, uint64_t header, uint64_t *ts)
{
	const struct vmt_chunk_info *ci = vmt_source_chunk(r->src, idx);
	uint32_t n = vmt_chunk_window_pages(ci, VMT_CHUNK_BYTES), p;
	struct vmt_chunkbuf cb = { 0 };
	const char *why;
	int ret;

	ret = vmt_source_read_chunk_part(r->src, idx, 0, (uint64_t)n * ci->page_size, &cb, &why);
	if (ret) {
		vmt_chunkbuf_free(&cb);
		return ret == -ENOMEM ? ret : 0;	/* a damaged chunk: the walk says so */
	}
	for (p = 0; p < n; p++) {
		struct vmt_rbpage pg;

		if (vmt_rbpage_init(&pg, &r->hp, cb.raw + (size_t)p * ci->page_size,
				    ci->page_size))
			continue;
		if (pg.page_ts == header)
			break;
		if (pg.commit) {
			*ts = pg.page_ts;
			ret = 1;
			break;
		}
	}
	vmt_chunkbuf_free(&cb);
	return ret;
}

/*
 * A chunk whose header knows no first time (a piece vmtrace-convert cut without records)
 * that a CPU's run begins with may hold records before the start all the same, when its
 * header is wrong: its pages' time then stands for it, counted as damage. Only those
 * that come before the CPU's first dated chunk: a later one's records lie between its
 * neighbours' times, or the walk finds the CPU going back.
 */
static int check_undated(struct vmt_reader *r)
{
	size_t i, n = vmt_source_nchunks(r->src);
	uint8_t *dated = calloc(1, (1u << 20) / 8);	/* CPUs below 2^20 (source_vmt.c) */
	int ret = 0;

	if (!dated)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(r->src, i);
		uint64_t ts;

		if (ci->cpu >= 1u << 20 || dated[ci->cpu / 8] & 1u << (ci->cpu % 8))
			continue;
		if (ci->first_ts != UINT64_MAX) {
			dated[ci->cpu / 8] |= (uint8_t)(1u << (ci->cpu % 8));
			continue;
		}
		ret = pages_first_ts(r, i, UINT64_MAX, &ts);
		if (ret > 0) {
			vmt_source_fix_first_ts(r->src, i, ts);
			ret = 0;
		}
	}
	free(dated);
	return ret;
}

/*
 * The recording's start (vmt_reader_start_ts) is its earliest chunk header's time, and
 * every time shown and every --from and --to counts from it: a header that says its chunk
 * began before its pages did (a first time of 0) would move them all. The earliest chunk's
 * header is checked against its pages, then the next earliest while one is wrong: each
 * wrong one is counted as damage and dated by its pages. Each check decodes a chunk.
 */
static int check_start(struct vmt_reader *r)
{
	size_t i, n = vmt_source_nchunks(r->src), tries;
	int undated;

	if (vmt_source_order(r->src) != VMT_ORDER_FIRST_TS)
		return 0;
	undated = check_undated(r);
	if (undated)
		return undated;
	for (tries = 0; tries < n; tries++) {
		size_t first = SIZE_MAX;
		uint64_t ts;
		int ret;

		for (i = 0; i < n; i++) {
			const struct vmt_chunk_info *ci = vmt_source_chunk(r->src, i);

			if (ci->first_ts != UINT64_MAX && (first == SIZE_MAX ||
			    ci->first_ts < vmt_source_chunk(r->src, first)->first_ts))
				first = i;
		}
		if (first == SIZE_MAX)
			return 0;
		ret = pages_first_ts(r, first, vmt_source_chunk(r->src, first)->first_ts, &ts);
		if (ret <= 0)
			return ret;
		vmt_source_fix_first_ts(r->src, first, ts);
	}
	return 0;
}

int vmt_reader_open(const char *path, const struct vmt_input_opts *opts,
		    struct vmt_reader **out, char *why, size_t why_size)
{
	struct vmt_reader *r;
	const uint8_t *meta, *hp;
	const char *msg = NULL;
	size_t mlen;
	char *s;
	uint32_t len;
	int ret;

	if (why_size)
		why[0] = '\0';
	r = calloc(1, sizeof(*r));
	if (!r) {
		ret = -ENOMEM;
		goto out_why;
	}
	r->path = strdup(path);
	if (!r->path) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = vmt_source_open(path, opts, &r->src, why, why_size);
	if (ret)
		goto out_free;
	r->late = vmt_source_pages_late(r->src);
	ret = -EBADMSG;
	s = vmt_reader_meta(r, VMT_META_ENDIAN);
	if (s && strcmp(s, "little") != 0) {
		free(s);
		msg = "recorded on a big-endian host (not supported)";
		goto out_free;
	}
	free(s);
	meta = vmt_source_meta(r->src, &mlen);
	hp = vmt_kv_get(meta, mlen, VMT_META_HEADER_PAGE, &len);
	if (!hp || vmt_header_page_parse((const char *)hp, len, &r->hp)) {
		msg = "missing or invalid header_page in the metadata";
		goto out_free;
	}
	if (parse_format(r, VMT_META_EVENT_BEGIN, VMT_META_FORMAT_BEGIN, &r->begin_name,
			 &r->fbegin) ||
	    parse_format(r, VMT_META_EVENT_END, VMT_META_FORMAT_END, &r->end_name, &r->fend)) {
		msg = "missing or invalid event format in the metadata";
		goto out_free;
	}
	if (vmt_evbind_init(&r->bind, r->fbegin, r->fend)) {
		msg = "the event formats lack common_type/common_pid or share an id";
		goto out_free;
	}
	ret = load_context(r);
	if (!ret)
		ret = setup_clock(r);
	if (ret)
		goto out_free;
	ret = -EBADMSG;
	s = vmt_reader_meta(r, VMT_META_CPUS);
	if (s && vmt_cli_parse_cpulist(s, &r->cpus)) {
		free(s);
		msg = "invalid traced CPU list in the metadata";
		goto out_free;
	}
	free(s);
	check_values(r);
	ret = check_start(r);
	if (!ret)
		ret = setup_streams(r);
	if (ret)
		goto out_free;
	*out = r;
	return 0;

out_free:
	vmt_reader_close(r);
out_why:
	if (why_size && msg)
		snprintf(why, why_size, "%s", msg);
	else if (why_size && !why[0])
		snprintf(why, why_size, "%s", strerror(-ret));
	return ret;
}

void vmt_reader_close(struct vmt_reader *r)
{
	uint32_t i;

	if (!r)
		return;
	vmt_readahead_free(r->ra);
	for (i = 0; i < r->nstreams; i++) {
		free(r->streams[i].raw);
		free(r->streams[i].chunk);
		free(r->streams[i].chunk_hi);
		free(r->streams[i].chunk_lo);
	}
	free(r->streams);
	free(r->tree);
	free(r->key);
	vmt_chunkbuf_free(&r->scratch);
	if (r->parent) {
		free(r);	/* the rest is the parent's */
		return;
	}
	vmt_evformat_free(r->fbegin);
	vmt_evformat_free(r->fend);
	while (r->nctx)
		vmt_evformat_free(r->ctxfmt[--r->nctx]);
	free(r->ctxfmt);
	free(r->ctx_names);
	free(r->ctx_missing);
	free(r->machine);
	vmt_vmmap_free(r->vmmap);
	free(r->begin_name);
	free(r->end_name);
	free(r->clock_name);
	vmt_cpulist_free(&r->cpus);
	vmt_source_close(r->src);
	free(r->path);
	free(r);
}

/*
 * Whether a slice keeps the stream's item: 1 yes, 0 no (before the slice), -1 no and
 * nothing after it either. Out of line: a whole recording's walk never calls it.
 */
static __attribute__((noinline)) int slice_keeps(struct vmt_reader *r, struct stream *s)
{
	uint64_t ts = s->head.ts;

	if (ts < s->prev_ts)
		r->unordered = true;
	s->prev_ts = ts;
	if (ts < r->from) {
		/*
		 * Before the slice in a chunk said to begin at or after its start (a chunk
		 * header's first time later than its records): the slices before this one
		 * did not read the chunk, so none keeps the item.
		 */
		if (r->from <= s->cur_lo)
			r->unordered = true;
		return 0;
	}
	/* the last slice's end, UINT64_MAX, stands for no end: a record may have that time */
	if (ts < r->to || r->to == UINT64_MAX)
		return 1;
	/*
	 * The stream stops here, so the rest of this chunk is seen (and its order checked)
	 * only if the next slice reads this chunk too: when the next chunk's first time is
	 * not before this slice's end.
	 */
	if (s->cur_hi < r->to)
		r->unordered = true;
	return -1;
}

static void stream_advance(struct vmt_reader *r, struct stream *s);

/*
 * Chunk ci could not be read at all: its events are lost as those the kernel flags are.
 * Where its header says it began, the stream's next item is a gap (true: s->head is set),
 * the hole's start: an exit before it is then never paired with an entry in it, even on
 * another CPU, and a damaged last chunk still makes a gap. A header without a first time
 * (other formats), one that would put the gap out of the stream's time order, or a slice
 * that does not keep that time: at the next page that holds records (after_bad), as for a
 * damaged page.
 */
static bool chunk_skipped(struct vmt_reader *r, struct stream *s,
			  const struct vmt_chunk_info *ci)
{
	uint64_t next = UINT64_MAX;
	int in = 1;

	r->st.bad_chunks++;
	s->after_bad = true;
	if (s->next_chunk < s->nchunk)
		next = vmt_source_chunk(r->src, s->chunk[s->next_chunk])->first_ts;
	/* s->head is still the item the stream gave last (kind 0 before its first) */
	if (ci->first_ts == UINT64_MAX || (s->head.kind && ci->first_ts < s->head.ts) ||
	    (next != UINT64_MAX && ci->first_ts > next))
		return false;
	s->head.gap_from = vmt_item_hole_from(&s->head);
	/* the chunk's records end at its last time; a header that says otherwise: the next's */
	s->head.gap_until = ci->last_ts >= ci->first_ts && ci->last_ts <= next ? ci->last_ts :
			    next;
	s->head.kind = VMT_ITEM_GAP;
	s->head.ts = ci->first_ts;
	s->head.missed = 0;
	if (r->parent)
		in = slice_keeps(r, s);
	if (in < 0)
		s->done = true;		/* past the slice's end: the stream stops here */
	if (in <= 0)
		return in < 0;
	s->after_bad = false;
	return true;
}

/*
 * A slice's record read inline (vmt_reader_next_item): kept, or the stream goes on to the
 * next it keeps, or it is done, as in stream_advance().
 */
static void slice_record(struct vmt_reader *r, struct stream *s)
{
	uint64_t ts = s->head.ts;
	int in;

	/* the usual case inline: in order and inside the slice */
	if (ts >= s->prev_ts && ts >= r->from && ts < r->to) {
		s->prev_ts = ts;
		r->st.records++;
		return;
	}
	in = slice_keeps(r, s);
	if (in > 0)
		r->st.records++;
	else if (in < 0)
		s->done = true;
	else
		stream_advance(r, s);
}

/*
 * The whole walk met a record before its CPU's previous one (a slice's are its
 * unordered, and a slice that is not exact is walked again whole): counted, the first kept.
 */
static __attribute__((noinline)) void time_back(struct vmt_reader *r, const struct stream *s)
{
	if (!r->st.time_back++) {
		r->st.time_back_cpu = s->cpu;
		r->st.time_back_ts = s->head.ts;
		r->st.time_back_prev = s->prev_ts;
	}
}

/* Pages of chunk ci in a window: at least one. */
static uint32_t window_pages(const struct vmt_reader *r, const struct vmt_chunk_info *ci)
{
	return vmt_chunk_window_pages(ci, r->window);
}

/* Let go of the read-ahead chunk or part the stream holds. */
static void stream_release(struct vmt_reader *r, struct stream *s)
{
	if (s->held != SIZE_MAX)
		vmt_readahead_release(r->ra, s->held, s->held_part);
	s->held = SIZE_MAX;
}

/*
 * The stream's next window of the chunk it reads (the first when s->npages is 0): from
 * the read-ahead, or into its own buffer. false when the chunk cannot be read (counted by
 * the caller; the read-ahead reads none of the rest of it).
 */
static bool next_window(struct vmt_reader *r, struct stream *s)
{
	size_t idx = s->chunk[s->next_chunk - 1];
	const struct vmt_chunk_info *ci = vmt_source_chunk(r->src, idx);
	uint32_t first = s->win_first + s->npages, n = window_pages(r, ci);
	const uint8_t *raw;
	const char *why = NULL;
	int err;

	if (n > s->chunk_pages - first)
		n = s->chunk_pages - first;
	if (r->ra) {
		uint32_t part = first / window_pages(r, ci);

		stream_release(r, s);
		err = vmt_readahead_take(r->ra, idx, part, &raw, &why);
		s->held = idx;
		s->held_part = part;
		if (err) {
			stream_release(r, s);
			vmt_readahead_drop(r->ra, idx, part + 1);
		}
	} else {
		r->scratch.raw = s->raw;
		r->scratch.raw_cap = s->raw_cap;
		err = vmt_source_read_chunk_part(r->src, idx, (uint64_t)first * ci->page_size,
						 (uint64_t)n * ci->page_size, &r->scratch, &why);
		raw = s->raw = r->scratch.raw;
		s->raw_cap = r->scratch.raw_cap;
		r->scratch.raw = NULL;
		r->scratch.raw_cap = 0;
	}
	if (err) {
		/* the first window fails: the chunk whole; a later one: its pages from there */
		vmt_damage_note(&r->damage, ci, first ? first : UINT32_MAX, why);
		if (r->late && !first)
			r->st.chunks++;
		return false;
	}
	if (r->late)
		r->st.chunks += vmt_source_check_pages(r->src, idx, first, n, raw);
	s->pages = raw;
	s->page_size = ci->page_size;
	s->win_first = first;
	s->npages = n;
	s->next_page = 0;
	return true;
}

/* Load the stream's next item into s->head; s->done when nothing is left. */
static void stream_advance(struct vmt_reader *r, struct stream *s)
{
	for (;;) {
		if (s->in_page) {
			int ret = vmt_rbpage_next(&s->pg, &s->head.rec);

			if (ret == 1) {
				s->head.kind = VMT_ITEM_RECORD;
				s->head.ts = s->head.rec.ts;
				if (__builtin_expect(r->parent != NULL, 0)) {
					int in = slice_keeps(r, s);

					if (in < 0)
						break;
					if (!in)
						continue;
				}
				r->st.records++;
				if (__builtin_expect(s->head.ts < s->prev_ts, 0) && !r->parent)
					time_back(r, s);
				s->prev_ts = s->head.ts;
				/*
				 * Among many CPUs' streams this one's next record is read only
				 * after the others have had their turn, by when its lines have
				 * left the cache: ask now for the line after the one this record
				 * starts in (that one is still warm from decoding it). One stream
				 * reads its page in order, which the hardware prefetches alone.
				 */
				if (r->leaves > 1)
					__builtin_prefetch(s->pg.data + s->pg.off + 64);
				return;
			}
			if (ret < 0) {
				bad_page(r, s, "record header points outside its page");
			}
			s->in_page = false;
		}
		if (s->next_page < s->npages) {
			const uint8_t *page = s->pages + (size_t)s->next_page * s->page_size;

			s->next_page++;
			/*
			 * A page the source leaves out as it reads it (vmt_source_pages_late()): a
			 * hole, as skipped blocks before a chunk make one.
			 */
			if (r->late && vmt_source_page_left_out(r->src, s->chunk[s->next_chunk - 1],
								s->win_first + s->next_page - 1)) {
				s->after_bad = true;
				continue;
			}
			/*
			 * A slice counted its chunks' pages when it was made: an empty page's time
			 * says nothing of where it lies (a zeroed page of a trace.bin has 0).
			 */
			if (!r->parent)
				r->st.pages++;
			if (vmt_rbpage_init(&s->pg, &r->hp, page, s->page_size)) {
				bad_page(r, s, "page commit beyond the page size");
				continue;
			}
			if (__builtin_expect(s->pg.commit && s->pg.page_ts > s->until, 0)) {
				bad_page(r, s, "a page stamped after its CPU's end statistics were read");
				continue;
			}
			s->in_page = true;
			/*
			 * Events of a skipped chunk or page are lost as much as those the kernel
			 * flags: no pair may span them (the count unknown, none is added). At the
			 * next page that holds records: an empty page's time says nothing.
			 */
			if (s->pg.missed || (s->after_bad && s->pg.commit)) {
				s->head.gap_from = vmt_item_hole_from(&s->head);
				s->head.gap_until = s->pg.page_ts;
				s->head.kind = VMT_ITEM_GAP;
				s->head.ts = s->pg.page_ts;
				s->head.missed = s->pg.missed ? s->pg.missed_count : 0;
				s->after_bad = false;
				if (r->parent) {
					int in = slice_keeps(r, s);

					if (in < 0)
						break;
					if (!in)
						continue;
				}
				if (s->pg.missed) {
					r->st.missed_pages++;
					/*
					 * A stored 0 says no more than no count, nor does one past
					 * 2^63 (no ring buffer holds that many): a sum of those
					 * would wrap. The sum saturates all the same.
					 */
					bool none = !s->pg.missed_stored || !s->pg.missed_count ||
						    s->pg.missed_count >= VALUE_IMPOSSIBLE;

					if (!none && __builtin_add_overflow(r->st.missed_events,
									    s->pg.missed_count,
									    &r->st.missed_events))
						r->st.missed_events = UINT64_MAX;
					r->st.missed_uncounted += none;
				}
				return;
			}
			continue;
		}
		if (s->win_first + s->npages < s->chunk_pages) {
			if (next_window(r, s))
				continue;
			r->st.bad_chunks++;	/* the rest of the chunk is skipped */
			s->after_bad = true;
			s->chunk_pages = 0;
			continue;
		}
		if (s->next_chunk < s->nchunk) {
			size_t idx = s->chunk[s->next_chunk++];
			const struct vmt_chunk_info *ci;
			const char *why = NULL;
			const uint8_t *raw;
			int err;

			/* a slice counted its own when it was made; a late source's, as judged */
			if (!r->parent && !r->late)
				r->st.chunks++;
			ci = vmt_source_chunk(r->src, idx);
			if (vmt_source_hole_before(r->src, idx))
				s->after_bad = true;
			if (s->chunk_hi) {
				s->cur_hi = s->chunk_hi[s->next_chunk - 1];
				s->cur_lo = s->chunk_lo[s->next_chunk - 1];
			}
			if (r->window && window_pages(r, ci) < ci->page_count) {
				if (!r->ra && s->next_chunk < s->nchunk)
					vmt_source_advise(r->src, s->chunk[s->next_chunk]);
				s->chunk_pages = ci->page_count;
				s->win_first = 0;
				s->npages = 0;
				if (!next_window(r, s)) {
					s->chunk_pages = 0;
					if (chunk_skipped(r, s, ci))
						return;
				}
				continue;
			}
			if (r->ra) {
				stream_release(r, s);
				err = vmt_readahead_take(r->ra, idx, 0, &raw, &why);
				s->held = idx;
				s->held_part = 0;
			} else {
				if (s->next_chunk < s->nchunk)
					vmt_source_advise(r->src, s->chunk[s->next_chunk]);
				r->scratch.raw = s->raw;	/* decompressed into the stream's own */
				r->scratch.raw_cap = s->raw_cap;
				err = vmt_source_read_chunk(r->src, idx, &r->scratch, &why);
				raw = s->raw = r->scratch.raw;
				s->raw_cap = r->scratch.raw_cap;
				r->scratch.raw = NULL;
				r->scratch.raw_cap = 0;
			}
			if (err) {
				vmt_damage_note(&r->damage, ci, UINT32_MAX, why);
				r->st.chunks += r->late && !r->parent;
				if (chunk_skipped(r, s, ci))
					return;
				continue;
			}
			if (r->late)
				r->st.chunks += vmt_source_check_pages(r->src, idx, 0, ci->page_count,
								       raw);
			s->pages = raw;
			s->page_size = ci->page_size;
			s->npages = ci->page_count;
			s->chunk_pages = ci->page_count;
			s->win_first = 0;
			s->next_page = 0;
			continue;
		}
		break;
	}
	s->done = true;
}

/*
 * The merge order of a stream's head as one integer: time, then a gap before the records
 * of the same time (it happened before the page's records), then CPU. Keeping it in the
 * merge's own array spares each comparison two pointer chases into streams that, on a
 * recording of many CPUs, are seldom in cache.
 */
static unsigned __int128 order_key(const struct stream *s)
{
	return (unsigned __int128)s->head.ts << 64 |
	       (uint64_t)(s->head.kind != VMT_ITEM_GAP) << 32 | s->cpu;
}

/* Play the tournament again from stream i's leaf up, after its key changed. */
static void replay(struct vmt_reader *r, uint32_t i)
{
	unsigned __int128 k = r->key[i];
	uint32_t n, w = i;

	/*
	 * Which stream wins a match is as good as random among many CPUs' streams: selects
	 * rather than branches, which would mispredict about every other level.
	 */
	for (n = (i + r->leaves) >> 1; n; n >>= 1) {
		uint32_t l = r->tree[n];
		unsigned __int128 kl = r->key[l];
		bool up = kl < k;	/* the stored loser wins here: carry it up */
		uint32_t m = 0 - (uint32_t)up, swap = (w ^ l) & m;

		r->tree[n] = l ^ swap;
		w ^= swap;
		k = up ? kl : k;
	}
	r->tree[0] = w;
}

/* The match at node n of the first tournament: stores the loser, returns the winner. */
static uint32_t play(struct vmt_reader *r, uint32_t n)
{
	uint32_t a, b;

	if (n >= r->leaves)
		return n - r->leaves;
	a = play(r, 2 * n);
	b = play(r, 2 * n + 1);
	if (r->key[b] < r->key[a]) {
		r->tree[n] = a;
		return b;
	}
	r->tree[n] = b;
	return a;
}

/* The first tournament, once every stream has its first item. */
static void build_tree(struct vmt_reader *r)
{
	uint32_t i;

	r->leaves = 1;
	while (r->leaves < r->nstreams)
		r->leaves *= 2;
	for (i = 0; i < r->leaves; i++)
		r->key[i] = i < r->nstreams && !r->streams[i].done ?
			    order_key(&r->streams[i]) : KEY_DONE;
	r->tree[0] = play(r, 1);
}

/* The first item: every stream's, and the first tournament. */
static __attribute__((noinline)) const struct vmt_item *first_item(struct vmt_reader *r)
{
	uint32_t i, w;

	r->started = true;
	/* a slice's thread decompresses its own chunks: the slices share the cores */
	if (!r->parent)
		r->ra = vmt_readahead_new(r->src, r->nstreams, r->window);
	for (i = 0; i < r->nstreams; i++)
		stream_advance(r, &r->streams[i]);
	build_tree(r);
	w = r->tree[0];
	r->cur = r->key[w] == KEY_DONE ? NULL : &r->streams[w];
	return r->cur ? &r->cur->head : NULL;
}

const struct vmt_item *vmt_reader_next_item(struct vmt_reader *r)
{
	struct stream *s = r->cur;
	uint32_t w;

	if (__builtin_expect(!r->started, 0))
		return first_item(r);
	if (!s)
		return NULL;
	/*
	 * Advance the stream returned last only now: the record handed out then points into
	 * its chunk buffer, which advancing may replace. The usual record inline; the page's
	 * end, a new chunk, a slice's bounds and the rest out of line.
	 */
	if (s->in_page && vmt_rbpage_next_fast(&s->pg, &s->head.rec)) {
		s->head.kind = VMT_ITEM_RECORD;	/* the item before may have been a gap */
		s->head.ts = s->head.rec.ts;
		if (__builtin_expect(r->parent != NULL, 0)) {
			slice_record(r, s);
		} else {
			r->st.records++;
			if (__builtin_expect(s->head.ts < s->prev_ts, 0))
				time_back(r, s);
			s->prev_ts = s->head.ts;
		}
		/*
		 * Alone, a stream's key is never compared: one CPU skips all of the merge
		 * (unless a slice's record ended the stream, which then ends the walk).
		 */
		if (r->leaves == 1 && !s->done)
			return &s->head;
		__builtin_prefetch(s->pg.data + s->pg.off + 64);
	} else {
		stream_advance(r, s);
	}
	w = (uint32_t)(s - r->streams);
	if (s->done) {
		r->key[w] = KEY_DONE;
		replay(r, w);
	} else if (r->leaves > 1) {
		r->key[w] = order_key(s);
		replay(r, w);
	}
	w = r->tree[0];
	r->cur = r->key[w] == KEY_DONE ? NULL : &r->streams[w];
	/*
	 * A pointer to the stream's own item: copying it here, right after the page decoder
	 * wrote it field by field, stalled on store forwarding at every record.
	 */
	return r->cur ? &r->cur->head : NULL;
}

int vmt_reader_next(struct vmt_reader *r, struct vmt_item *item)
{
	const struct vmt_item *it = vmt_reader_next_item(r);

	if (!it)
		return 0;
	*item = *it;
	return 1;
}

int vmt_reader_cpu_next(struct vmt_reader *r, uint32_t cpu, struct vmt_item *item)
{
	uint32_t i;

	for (i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];

		if (s->cpu != cpu)
			continue;
		/* Lazily, as above: head.kind is 0 before the first item. */
		if (!s->done)
			stream_advance(r, s);
		if (s->done)
			return 0;
		*item = s->head;
		item->cpu = cpu;
		return 1;
	}
	return 0;
}

static uint64_t stats_sum(const struct vmt_reader *r, bool *known, bool unflagged)
{
	uint64_t lost = 0;
	unsigned int i;

	*known = r->cpus.n > 0 && !r->bad_stats;
	for (i = 0; *known && i < r->cpus.n; i++) {
		struct vmt_cpustats a = { 0 }, b;
		char key[64], *text;

		snprintf(key, sizeof(key), VMT_META_STATS_END "%u", r->cpus.cpu[i]);
		text = vmt_reader_meta(r, key);
		if (!text || vmt_tracefs_parse_stats(text, &b)) {
			free(text);
			*known = false;
			continue;
		}
		free(text);
		snprintf(key, sizeof(key), VMT_META_STATS_START "%u", r->cpus.cpu[i]);
		text = vmt_reader_meta(r, key);
		if (text)
			vmt_tracefs_parse_stats(text, &a);
		free(text);
		if (unflagged)
			lost += b.dropped + b.commit_overrun - a.dropped - a.commit_overrun;
		else
			lost += vmt_cpustats_lost(&b) - vmt_cpustats_lost(&a);
	}
	return lost;
}

uint64_t vmt_reader_stats_lost(const struct vmt_reader *r, bool *known)
{
	return stats_sum(r, known, false);
}

uint64_t vmt_reader_stats_unflagged(const struct vmt_reader *r, bool *known)
{
	return stats_sum(r, known, true);
}

uint64_t vmt_reader_cpu_unplaced(const struct vmt_reader *r, uint32_t cpu)
{
	struct vmt_cpustats a = { 0 }, b;
	size_t i, n = vmt_source_nchunks(r->src);
	uint64_t lost, placed = 0;
	char key[64], *text;
	bool known;

	snprintf(key, sizeof(key), VMT_META_STATS_END "%u", cpu);
	text = vmt_reader_meta(r, key);
	known = text && !r->bad_stats && !vmt_tracefs_parse_stats(text, &b);
	free(text);
	if (!known)
		return 0;
	snprintf(key, sizeof(key), VMT_META_STATS_START "%u", cpu);
	text = vmt_reader_meta(r, key);
	if (text)
		vmt_tracefs_parse_stats(text, &a);
	free(text);
	lost = vmt_cpustats_lost(&b) - vmt_cpustats_lost(&a);
	if (strcmp(vmt_source_format(r->src), "vmt")) {
		/*
		 * Only a .vmt's chunks store their pages' counts: other files' are counted as
		 * walked, for all CPUs at once, so the recording's statistics against those
		 */
		lost = vmt_reader_stats_lost(r, &known);
		return known && lost > r->st.missed_events ? lost - r->st.missed_events : 0;
	}
	for (i = 0; i < n; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(r->src, i);

		if (ci->cpu == cpu && __builtin_add_overflow(placed, ci->missed_count, &placed))
			placed = UINT64_MAX;
	}
	return lost > placed ? lost - placed : 0;
}

/* The latest last time of cpu's chunks that know theirs: its last record read (0: none). */
static uint64_t cpu_last_ts(const struct vmt_reader *r, uint32_t cpu)
{
	size_t i, n = vmt_source_nchunks(r->src);
	uint64_t last = 0;

	for (i = 0; i < n; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(r->src, i);

		if (ci->cpu == cpu && ci->last_ts > last)
			last = ci->last_ts;
	}
	return last;
}

/*
 * The entries of each traced CPU's end stats, when END's drain key says they were read after
 * the recorder stopped reading (else they are still to be read: a --continue file's).
 * *drain: there is such a key; *all: every CPU's end stats were there too. A CPU's entries
 * came after the last record read from it: those of a CPU whose last record lies after
 * to_ts go to *after instead (UINT64_MAX: none do).
 */
static uint64_t unread_sum(const struct vmt_reader *r, uint64_t to_ts, uint64_t *after,
			   bool *drain, bool *all, bool *cut)
{
	char key[64], *text = vmt_reader_meta(r, VMT_META_DRAIN);
	uint64_t sum = 0;
	unsigned int i;

	*drain = text != NULL;
	*cut = text && strcmp(text, "aborted") == 0;
	*all = *drain && r->cpus.n > 0;
	*after = 0;
	free(text);
	for (i = 0; *drain && i < r->cpus.n; i++) {
		struct vmt_cpustats st;

		snprintf(key, sizeof(key), VMT_META_STATS_END "%u", r->cpus.cpu[i]);
		text = vmt_reader_meta(r, key);
		if (text && vmt_tracefs_parse_stats(text, &st) == 0) {
			if (to_ts != UINT64_MAX && cpu_last_ts(r, r->cpus.cpu[i]) > to_ts)
				*after += st.entries;
			else
				sum += st.entries;
		} else {
			*all = false;
		}
		free(text);
	}
	return sum;
}

uint64_t vmt_reader_unread(const struct vmt_reader *r, bool *known, bool *cut)
{
	uint64_t after;
	bool drain;

	return unread_sum(r, UINT64_MAX, &after, &drain, known, cut);
}

uint64_t vmt_reader_unread_until(const struct vmt_reader *r, uint64_t to_ts, uint64_t *after)
{
	bool drain, known, cut;

	return unread_sum(r, to_ts, after, &drain, &known, &cut);
}

/* Whether the recorder stored the ring buffers' statistics at its start (vmtrace-record). */
static bool start_stats(const struct vmt_reader *r)
{
	char key[64], *text;

	if (!r->cpus.n)
		return false;
	snprintf(key, sizeof(key), VMT_META_STATS_START "%u", r->cpus.cpu[0]);
	text = vmt_reader_meta(r, key);
	free(text);
	return text != NULL;
}

void vmt_reader_lost(const struct vmt_reader *r, const struct vmt_reader_stats *rd,
		     struct vmt_lost *out)
{
	const struct vmt_source_status *st = vmt_source_status(r->src);
	uint64_t after, held, marks = 0, n;
	const uint8_t *end;
	size_t elen;
	bool drain;

	memset(out, 0, sizeof(*out));
	out->stats = vmt_reader_stats_lost(r, &out->stats_known);
	out->counted = rd->missed_events > out->stats ? rd->missed_events : out->stats;
	end = vmt_source_end(r->src, &elen);
	if (end && vmt_kv_get_u64(end, elen, VMT_META_COPY_MARKED, &n) == 0)
		marks = n;
	held = vmt_source_nchunks(r->src) + st->bad_blocks;
	if (st->end_counts && st->end_chunks > held)
		out->holes = st->end_chunks - held;
	out->damaged = st->bad_blocks + rd->bad_chunks + rd->bad_pages + out->holes;
	/*
	 * Statistics that saw losses counted the flagged pages' too; statistics of none beside
	 * flagged pages (a copy that marks a damaged chunk's hole so) did not see those. The
	 * pages a copy says it marked are the damage, said as the original says it.
	 */
	if (!out->stats_known || !out->stats)
		out->uncounted = rd->missed_uncounted - (rd->missed_uncounted < marks ?
							 rd->missed_uncounted : marks);
	out->end_unknown = (!vmt_source_end(r->src, &elen) && start_stats(r)) || r->bad_stats;
	/* never read out: lost as much as those overwritten, and counted by the kernel too */
	out->unread = unread_sum(r, UINT64_MAX, &after, &drain, &out->unread_known,
				 &out->drain_cut);
	out->counted += out->unread;
	/* a drain that says so, without a CPU's end stats: what it left is not known */
	if (drain && !out->unread_known)
		out->end_unknown = true;
}

/* The latest last time of the chunks that know theirs (0: none). */
static uint64_t last_page_ts(const struct vmt_reader *r)
{
	size_t i, n = vmt_source_nchunks(r->src);
	uint64_t last = 0;

	for (i = 0; i < n; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(r->src, i);

		if (ci->last_ts > last)
			last = ci->last_ts;
	}
	return last;
}

/*
 * A flight recording's pages: from its first page to --after past the triggering exit's
 * end, where they are cut, or to its last page when later (a recorder before that cut);
 * UINT64_MAX when the file does not say (no trigger, no page).
 */
static uint64_t flight_held_ns(const struct vmt_reader *r, const uint8_t *meta, size_t mlen,
			       const uint8_t *end, size_t elen)
{
	const struct vmt_clock *c = &r->clock;
	uint64_t ts, lat, after, start, last, window = 0, pages = 0, gap;

	if (vmt_kv_get_u64(end, elen, VMT_META_TRIGGER_TS, &ts) ||
	    vmt_kv_get_u64(end, elen, VMT_META_TRIGGER_LAT, &lat) ||
	    vmt_kv_get_u64(meta, mlen, VMT_META_TRIGGER_AFTER, &after))
		return UINT64_MAX;
	start = vmt_reader_start_ts(r);
	if (!start)
		return UINT64_MAX;
	last = last_page_ts(r);
	if (last > start)
		pages = vmt_clock_ns(c, last - start);
	if (ts + lat >= start) {
		window = vmt_clock_ns(c, ts + lat - start) + after;
	} else {
		gap = vmt_clock_ns(c, start - ts - lat);	/* the exit ended before the pages */
		window = after > gap ? after - gap : 0;
	}
	return pages > window ? pages : window;
}

uint64_t vmt_reader_duration_ns(const struct vmt_reader *r)
{
	const uint8_t *meta, *end;
	size_t mlen, elen;
	uint64_t t0 = 0, t1 = 0, kept, held;

	meta = vmt_source_meta(r->src, &mlen);
	end = vmt_source_end(r->src, &elen);
	if (r->bad_mono || vmt_kv_get_u64(meta, mlen, VMT_META_MONO_START, &t0) || !end ||
	    vmt_kv_get_u64(end, elen, VMT_META_MONO_END, &t1))
		return 0;
	/*
	 * A flight recording holds its pages from there: before t0 in a --continue file, and
	 * so may its end be (its window was over before the file was opened).
	 */
	if (!vmt_kv_get_u64(end, elen, VMT_META_MONO_KEPT, &kept) && kept <= t1)
		t0 = kept;
	if (t1 < t0)
		return 0;
	/*
	 * Its time ends with its pages, not when the recorder finished the file. Older
	 * recorders wrote the latter (a second or more later, overlapping the next --continue
	 * file's time), and the oldest no kept start: the pages' own span bounds it. The
	 * recorder writes the end of its pages now, so this changes only old files.
	 */
	held = flight_held_ns(r, meta, mlen, end, elen);
	return t1 - t0 > held ? held : t1 - t0;
}

uint64_t vmt_reader_stop_ts(const struct vmt_reader *r)
{
	return r->stop_ts;
}

uint64_t vmt_reader_start_ts(const struct vmt_reader *r)
{
	uint64_t start = UINT64_MAX;
	size_t i, n = vmt_source_nchunks(r->src);

	for (i = 0; i < n; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(r->src, i);

		if (ci->first_ts < start)
			start = ci->first_ts;
	}
	return start == UINT64_MAX ? 0 : start;
}

/*
 * Chunk i of a CPU's run (its k-th, of n) holds times from lo to hi, when the run's known
 * first times never go back: lo is the latest first time known up to it (0 before any),
 * hi the next chunk's known first time (UINT64_MAX after the last).
 */
static void chunk_span(const struct vmt_reader *r, const struct stream *s, size_t k,
		       uint64_t *lo, uint64_t *hi)
{
	size_t j;

	*lo = 0;
	for (j = k + 1; j-- > 0;) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(r->src, s->chunk[j]);

		if (ci->first_ts != UINT64_MAX) {
			*lo = ci->first_ts;
			break;
		}
	}
	*hi = UINT64_MAX;
	for (j = k + 1; j < s->nchunk; j++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(r->src, s->chunk[j]);

		if (ci->first_ts != UINT64_MAX) {
			*hi = ci->first_ts;
			break;
		}
	}
}

bool vmt_reader_sliceable(const struct vmt_reader *r)
{
	uint32_t i;
	size_t k;

	/*
	 * A source whose pages are judged as read keeps that judgement in its loader's state,
	 * which vmt_source_check_pages() changes through a const source: one thread walks it
	 * (its chunks hold no times anyway: VMT_ORDER_SEQ).
	 */
	if (r->parent || vmt_source_order(r->src) != VMT_ORDER_FIRST_TS ||
	    vmt_source_pages_late(r->src))
		return false;
	for (i = 0; i < r->nstreams; i++) {
		uint64_t prev = 0;

		for (k = 0; k < r->streams[i].nchunk; k++) {
			uint64_t ts = vmt_source_chunk(r->src, r->streams[i].chunk[k])->first_ts;

			if (ts == UINT64_MAX)
				continue;
			if (ts < prev)
				return false;
			prev = ts;
		}
	}
	return true;
}

int vmt_reader_slice(const struct vmt_reader *r, uint64_t from, uint64_t to,
		     struct vmt_reader **out)
{
	struct vmt_reader *sl;
	uint32_t i;

	*out = NULL;
	/* slices are walked by threads at once: never of a source judged as read (above) */
	assert(!vmt_source_pages_late(r->src));
	sl = malloc(sizeof(*sl));
	if (!sl)
		return -ENOMEM;
	*sl = *r;
	sl->parent = r;
	sl->from = from;
	sl->to = to;
	sl->unordered = false;
	sl->started = false;
	sl->cur = NULL;
	sl->ra = NULL;
	sl->leaves = 0;
	memset(&sl->scratch, 0, sizeof(sl->scratch));
	memset(&sl->st, 0, sizeof(sl->st));
	memset(&sl->damage, 0, sizeof(sl->damage));
	sl->streams = calloc(r->nstreams ? r->nstreams : 1, sizeof(*sl->streams));
	sl->nstreams = 0;
	if (alloc_merge(sl, r->nstreams) || !sl->streams)
		goto fail;
	for (i = 0; i < r->nstreams; i++) {
		const struct stream *ps = &r->streams[i];
		struct stream *s = &sl->streams[sl->nstreams];
		size_t k;

		memset(s, 0, sizeof(*s));
		sl->nstreams++;
		s->cpu = ps->cpu;
		s->head.cpu = ps->cpu;
		s->held = SIZE_MAX;
		s->until = ps->until;
		for (k = 0; k < ps->nchunk; k++) {
			uint64_t lo, hi;

			chunk_span(r, ps, k, &lo, &hi);
			if (lo >= to || hi < from)
				continue;
			/* each chunk and its pages are counted by the slice its first time falls in */
			if (lo >= from) {
				sl->st.chunks++;
				sl->st.pages += vmt_source_chunk(r->src, ps->chunk[k])->page_count;
			}
			if (!s->chunk) {
				s->chunk = malloc((ps->nchunk - k) * sizeof(*s->chunk));
				s->chunk_hi = malloc((ps->nchunk - k) * sizeof(*s->chunk_hi));
				s->chunk_lo = malloc((ps->nchunk - k) * sizeof(*s->chunk_lo));
				if (!s->chunk || !s->chunk_hi || !s->chunk_lo)
					goto fail;
			}
			s->chunk_hi[s->nchunk] = hi;
			s->chunk_lo[s->nchunk] = lo;
			s->chunk[s->nchunk++] = ps->chunk[k];
		}
	}
	*out = sl;
	return 0;
fail:
	vmt_reader_close(sl);
	return -ENOMEM;
}

bool vmt_reader_slice_exact(const struct vmt_reader *r)
{
	return !r->unordered && !r->st.bad_chunks && !r->st.bad_pages;
}

void vmt_reader_add_stats(struct vmt_reader *r, const struct vmt_reader_stats *st,
			  const struct vmt_damage *damage)
{
	r->st.chunks += st->chunks;
	r->st.bad_chunks += st->bad_chunks;
	r->st.pages += st->pages;
	r->st.bad_pages += st->bad_pages;
	r->st.records += st->records;
	r->st.missed_pages += st->missed_pages;
	if (__builtin_add_overflow(r->st.missed_events, st->missed_events, &r->st.missed_events))
		r->st.missed_events = UINT64_MAX;
	r->st.missed_uncounted += st->missed_uncounted;
	if (st->time_back && !r->st.time_back) {
		r->st.time_back_cpu = st->time_back_cpu;
		r->st.time_back_ts = st->time_back_ts;
		r->st.time_back_prev = st->time_back_prev;
	}
	r->st.time_back += st->time_back;
	if (damage && damage->why && !r->damage.why)
		r->damage = *damage;
}

unsigned int vmt_reader_streams(const struct vmt_reader *r)
{
	return r->nstreams ? r->nstreams : 1;
}

uint64_t vmt_reader_largest_chunk(const struct vmt_reader *r)
{
	return r->largest;
}

uint64_t vmt_reader_window(const struct vmt_reader *r)
{
	return r->in_parts ? r->window : 0;
}
