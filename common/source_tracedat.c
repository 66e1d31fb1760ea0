// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The loader of trace-cmd's trace.dat (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)). Open
 * walks the file's headers, options and sections once and presents it like a .vmt:
 * metadata key/values (header_page, clock, CPUs, kernel, per-CPU stats, and the event
 * pair's formats, chosen by name from the options' pair, and the formats of the context
 * events the file holds) and per-CPU page runs as chunks (v7 compression chunks, zstd or
 * zlib; slices of up to vmt_chunk_pages() of uncompressed data), read in seq order. Nothing is
 * read that the analysis does not need (kallsyms, printk formats and saved command lines
 * are skipped). Every size and offset in the file is
 * checked against the file before it is used. Only little-endian files are read (the page
 * decoder is little-endian), others are refused by name. Uncompressed pages are judged
 * (time order, length) as the walk reads them (vmt_source_pages_late(), judge()), or, for a
 * copy that takes the chunks as they are (vmt_input_opts.pages_at_open), at open. The
 * state of that judgement is the source's: one thread walks.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "bytes.h"
#include "chunk.h"
#include "cli.h"
#include "ctxevent.h"
#include "evcensus.h"
#include "evformat.h"
#include "io.h"
#include "kv.h"
#include "metakeys.h"
#include "rbpage.h"
#include "source_impl.h"
#include "tracefs.h"

#define TRACEDAT_MAGIC		"\x17\x08\x44tracing"
#define TRACEDAT_MAGIC_LEN	10

/* Option ids (trace-cmd.dat.v7(5)). */
enum {
	OPT_DONE = 0,
	OPT_CPUSTAT = 2,
	OPT_BUFFER = 3,
	OPT_TRACECLOCK = 4,
	OPT_UNAME = 5,
	OPT_CPUCOUNT = 8,
	OPT_TSC2NSEC = 14,
	OPT_HEADER_INFO = 16,
	OPT_EVENT_FORMATS = 18,
	OPT_BUFFER_TEXT = 22,
};

/* Section ids are the ids of the options that point at them. */
enum { SEC_OPTIONS = 0, SEC_FLYRECORD = 3, SEC_STRINGS = 15 };

#define SEC_COMPRESSED	1u
#define SECTION_HEADER	16
#define MAX_OPTION	(16u << 20)
#define MAX_OPTION_SECTIONS 64
#define MAX_FORMAT	(1u << 20)
#define MAX_CPUS	4096u
#define MAX_SKIP	(1ull << 32)	/* a part skipped (kallsyms...) past it is damage */
#define MAX_WALK	(1u << 16)	/* sections walked looking for a cut */

struct td_cpu {
	uint32_t cpu;
	uint64_t off, size;
};

struct td_buffer {
	char *name;
	char *clock;		/* v7; v6 takes the TRACECLOCK option */
	uint32_t page_size;
	uint64_t offset;	/* v7: its flyrecord section; v6: its table of CPU data */
	uint64_t table_end;	/* v6: the end of that table, where its CPUs' data may start */
	uint32_t ncpu;
	struct td_cpu *cpu;
	bool latency;		/* a text buffer (BUFFER_TEXT / "latency"): nothing to decode */
};

struct td_stat {
	char *buffer;
	uint32_t cpu;
	char *text;
};

/* What open learns of the file; freed when open returns. */
struct tracedat {
	uint32_t version, page_size;
	char compression[64];	/* "none", "zstd", "zlib" */
	uint32_t comp_flag;	/* VMT_CHUNK_ZSTD, VMT_CHUNK_ZLIB or 0 */
	uint8_t *header_page;
	uint64_t header_page_len;
	uint64_t formats_off;	/* v7: the EVENT FORMATS section; v6: the formats themselves */
	uint64_t header_off;	/* v7: the HEADER INFO section */
	char *clock_option;	/* TRACECLOCK: the selected clock */
	char *uname;
	uint32_t cpucount;
	bool tsc2nsec;
	uint32_t tsc_mult, tsc_shift;
	struct td_buffer *buf;
	size_t nbuf;
	struct td_stat *stat;
	size_t nstat;
	char *stat_buffer;	/* the buffer the CPUSTAT options now describe */
	size_t chosen;
	uint64_t first_section;	/* v7: where its run of sections starts */
	struct vmt_header_page hp;	/* the header_page parsed (hp_ok), for the checks */
	bool hp_ok;
	const char *part;	/* v6: the part of the headers being read */
	char msg[192];		/* a message with numbers, for *why */
};

/* A bounded reader over the file or over a decompressed section. */
struct cur {
	int fd;
	const uint8_t *mem;	/* NULL: the file */
	uint64_t pos, end;
	bool bad;
	bool eof;	/* a read ran into end: over the file, the file is cut short there */
};

static bool cur_get(struct cur *k, void *dst, uint64_t n)
{
	if (k->bad || n > k->end - k->pos) {
		k->eof |= !k->bad;
		k->bad = true;
		memset(dst, 0, n);
		return false;
	}
	if (k->mem)
		memcpy(dst, k->mem + k->pos, n);
	else if (vmt_io_pread_full(k->fd, dst, n, (off_t)k->pos) != (ssize_t)n) {
		k->bad = true;
		memset(dst, 0, n);
		return false;
	}
	k->pos += n;
	return true;
}

static uint16_t cur_u16(struct cur *k)
{
	uint8_t b[2];

	cur_get(k, b, 2);
	return get_le16(b);
}

static uint32_t cur_u32(struct cur *k)
{
	uint8_t b[4];

	cur_get(k, b, 4);
	return get_le32(b);
}

static uint64_t cur_u64(struct cur *k)
{
	uint8_t b[8];

	cur_get(k, b, 8);
	return get_le64(b);
}

/*
 * Whether n bytes of at most max are there: a size the file gave, within max but past the
 * end, is a file cut short (eof); over max, it is damage (bad alone).
 */
static bool cur_has(struct cur *k, uint64_t n, uint64_t max)
{
	if (!k->bad && n <= max && n <= k->end - k->pos)
		return true;
	k->eof |= !k->bad && n <= max;
	k->bad = true;
	return false;
}

static void cur_skip(struct cur *k, uint64_t n)
{
	if (cur_has(k, n, MAX_SKIP))
		k->pos += n;
}

/* A NUL-terminated string of at most max bytes, malloc'd; NULL (and bad) otherwise. */
static char *cur_str(struct cur *k, size_t max)
{
	char tmp[4096];
	size_t want = max < sizeof(tmp) ? max : sizeof(tmp), n = want, len;
	char *s;

	if (k->bad)
		return NULL;
	if (n > k->end - k->pos)
		n = (size_t)(k->end - k->pos);
	if (k->mem)
		memcpy(tmp, k->mem + k->pos, n);
	else if (vmt_io_pread_full(k->fd, tmp, n, (off_t)k->pos) != (ssize_t)n)
		n = 0;
	s = memchr(tmp, '\0', n);
	if (!s) {
		k->eof = n < want;	/* it ran into the end before its NUL */
		k->bad = true;
		return NULL;
	}
	len = (size_t)(s - tmp);
	k->pos += len + 1;
	s = strndup(tmp, len);
	if (!s)
		k->bad = true;
	return s;
}

/* A string option's value: NUL-terminated within size, else the size bytes as text. */
static char *opt_str(const uint8_t *data, uint32_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);

	return strndup((const char *)data, nul ? (size_t)(nul - data) : size);
}

/* "truncated: the file is cut at byte N, inside its WHAT", in td's buffer. */
static const char *cut_at(struct tracedat *td, const struct vmt_source *s, const char *what)
{
	snprintf(td->msg, sizeof(td->msg), "truncated: the file is cut at byte %llu, inside its %s",
		 (unsigned long long)s->status.file_size, what);
	return td->msg;
}

/*
 * The sections trace-cmd writes (trace-cmd.dat.v7(5): a section's id is the id of the option
 * that points at it), by name, and the words for a file cut in one, or at its end, after
 * the CPUs' data.
 */
#define SECTION(id, name) { id, name, \
	"the file is cut short after the CPUs' data, inside its " name " section, which starts", \
	"the file is cut short after the CPUs' data, at the end of its " name " section, which " \
	"starts" }
static const struct {
	uint16_t id;
	const char *name, *cut_inside, *cut_after;
} sec_names[] = {
	SECTION(SEC_OPTIONS, "options"), SECTION(SEC_FLYRECORD, "flyrecord (CPU data)"),
	SECTION(SEC_STRINGS, "strings"), SECTION(OPT_HEADER_INFO, "headers"),
	SECTION(17, "ftrace events"), SECTION(OPT_EVENT_FORMATS, "event formats"),
	SECTION(19, "kallsyms"), SECTION(20, "printk formats"), SECTION(21, "command lines"),
	SECTION(OPT_BUFFER_TEXT, "text (latency) data"),
};

/* Where a v7 file is cut: in the section at at, or (inside false) after it. */
struct cut {
	uint64_t at;
	int which;	/* its index in sec_names[]; -1: its header is cut before its id */
	bool inside;
};

/*
 * trace-cmd writes a v7 file as one run of sections from its first header to its end, each a
 * 16-byte header (id, flags, the id of its name in the strings section, size) and size
 * bytes. Walked from the first, a section whose header or body passes the end of the file
 * is where the file was cut. A run that ends where the file does is whole, unless its
 * sections name themselves from a strings section that is not there (trace-cmd writes it
 * last): then the file was cut after its last whole section. False when the file is whole,
 * or the walk meets bytes that are no section's header (damage: it cannot tell).
 */
static bool find_cut(const struct vmt_source *s, uint64_t off, struct cut *c)
{
	uint64_t file_size = s->status.file_size;
	bool named = false, strings = false;
	unsigned int n, i;

	c->at = off;
	c->which = -1;
	c->inside = true;
	if (!off)
		return false;
	for (n = 0; off < file_size && n < MAX_WALK; n++) {
		struct cur k = { s->fd, NULL, off, file_size, false, false };
		uint16_t id = cur_u16(&k), flags = cur_u16(&k);
		uint32_t name = cur_u32(&k);
		uint64_t size = cur_u64(&k);

		c->at = off;
		c->which = -1;
		if (file_size - off < 2)
			return true;	/* not even the id */
		for (i = 0; i < sizeof(sec_names) / sizeof(sec_names[0]); i++) {
			if (sec_names[i].id == id)
				c->which = (int)i;
		}
		if (c->which < 0 || flags > SEC_COMPRESSED)
			return false;
		if (k.bad || size > file_size - k.pos)
			return true;
		named |= name != 0;
		strings |= id == SEC_STRINGS;
		off = k.pos + size;
	}
	if (!n)
		return true;	/* cut right after the first header: at is the file's end */
	c->inside = false;
	return off == file_size && named && !strings;
}

/* A cut that find_cut() finds from td's first section, said in why; false when none. */
static bool say_cut(const struct vmt_source *s, const struct tracedat *td, char *why,
		    size_t why_size)
{
	unsigned long long size = s->status.file_size;
	struct cut c;

	if (td->version < 7 || !find_cut(s, td->first_section, &c))
		return false;
	if (c.which < 0 && c.at == size)
		snprintf(why, why_size, "truncated: the file is cut at byte %llu, after its first "
			 "header", size);
	else if (c.which < 0)
		snprintf(why, why_size, "truncated: the file is cut at byte %llu, inside the "
			 "header of a section at offset %llu", size, (unsigned long long)c.at);
	else
		snprintf(why, why_size, "truncated: the file is cut at byte %llu, %s its %s "
			 "section (at offset %llu)", size, c.inside ? "inside" : "at the end of",
			 sec_names[c.which].name, (unsigned long long)c.at);
	return true;
}

static void tracedat_free(struct tracedat *td)
{
	size_t i;

	if (!td)
		return;
	for (i = 0; i < td->nbuf; i++) {
		free(td->buf[i].name);
		free(td->buf[i].clock);
		free(td->buf[i].cpu);
	}
	for (i = 0; i < td->nstat; i++) {
		free(td->stat[i].buffer);
		free(td->stat[i].text);
	}
	free(td->buf);
	free(td->stat);
	free(td->stat_buffer);
	free(td->header_page);
	free(td->clock_option);
	free(td->uname);
	free(td);
}

/*
 * Decompress a v7 compression chunk (zstd or zlib, flags in ci) into raw (raw_size bytes);
 * ctx is the caller's reusable zstd context (may be created here).
 */
static int decompress(const struct vmt_chunk_info *ci, const uint8_t *comp, uint8_t *raw,
		      void **ctx, const char **why)
{
	if (ci->flags & VMT_CHUNK_ZSTD) {
		size_t got;

		/* trace-cmd writes frames without a content size: check what comes out */
		if (!*ctx) {
			*ctx = ZSTD_createDCtx();
			if (!*ctx) {
				*why = "out of memory";
				return -ENOMEM;
			}
		}
		got = ZSTD_decompressDCtx(*ctx, raw, ci->raw_size, comp, ci->payload_size);
		if (ZSTD_isError(got) || got != ci->raw_size) {
			*why = "zstd chunk does not decompress to its stated size";
			return -EBADMSG;
		}
	} else if (ci->flags & VMT_CHUNK_ZLIB) {
		uLongf got = (uLongf)ci->raw_size;

		if (uncompress(raw, &got, comp, (uLong)ci->payload_size) != Z_OK ||
		    got != ci->raw_size) {
			*why = "zlib chunk does not decompress to its stated size";
			return -EBADMSG;
		}
	} else {
		memcpy(raw, comp, ci->raw_size);
	}
	return 0;
}

/* Decompress a whole-section block (<4> compressed size, <4> size, data) or copy it. */
static int read_block(const struct vmt_source *s, const struct tracedat *td,
		      uint64_t off, uint64_t size, bool compressed, uint8_t **out,
		      uint64_t *out_len, const char **why)
{
	struct vmt_chunk_info ci = { 0 };
	uint8_t *comp = NULL, *raw = NULL;
	void *ctx = NULL;
	struct cur k = { s->fd, NULL, off, off + size, false, false };
	int ret;

	if (!compressed) {
		ci.payload_size = ci.raw_size = size;
	} else {
		ci.payload_size = cur_u32(&k);
		ci.raw_size = cur_u32(&k);
		ci.flags = td->comp_flag;
		if (k.bad || ci.payload_size > size - 8 || !td->comp_flag) {
			*why = td->comp_flag ? "compressed section larger than its header says" :
					      "compressed section in a file without compression";
			return -EBADMSG;
		}
	}
	if (ci.raw_size > VMT_MAX_META_SIZE) {
		*why = "section larger than 64 MiB";
		return -EBADMSG;
	}
	comp = malloc(ci.payload_size ? ci.payload_size : 1);
	raw = malloc(ci.raw_size + 1);
	if (!comp || !raw) {
		free(comp);
		free(raw);
		*why = "out of memory";
		return -ENOMEM;
	}
	if (!cur_get(&k, comp, ci.payload_size)) {
		*why = "section extends past the end of the file";
		ret = -EBADMSG;
	} else {
		ret = decompress(&ci, comp, raw, &ctx, why);
	}
	ZSTD_freeDCtx(ctx);
	free(comp);
	if (ret) {
		free(raw);
		return ret;
	}
	raw[ci.raw_size] = '\0';
	*out = raw;
	*out_len = ci.raw_size;
	return 0;
}

/* A v7 section at off: check its header and return its (decompressed) contents. */
static int read_section(const struct vmt_source *s, const struct tracedat *td,
			uint64_t off, uint16_t want_id, uint8_t **out, uint64_t *len,
			const char **why)
{
	struct cur k = { s->fd, NULL, off, s->status.file_size, false, false };
	uint16_t id, flags;
	uint64_t size;

	id = cur_u16(&k);
	flags = cur_u16(&k);
	cur_u32(&k);		/* the description's string id */
	size = cur_u64(&k);
	if (k.bad || id != want_id || size > s->status.file_size - k.pos) {
		*why = k.bad ? "an option points past the end of the file: the file is cut short "
			       "after a whole section, or damaged" :
		       id != want_id ? "damaged: a section is not where its option points" :
				       "damaged: a section's size passes the end of the file";
		return -EBADMSG;
	}
	return read_block(s, td, k.pos, size, flags & SEC_COMPRESSED, out, len, why);
}

/* "[local] global counter": the bracketed name. */
static char *selected_clock(const char *text)
{
	const char *a = strchr(text, '['), *b = a ? strchr(a, ']') : NULL;

	if (a && b)
		return strndup(a + 1, (size_t)(b - a - 1));
	a = text + strspn(text, " \n");
	return strndup(a, strcspn(a, " \n"));
}

static struct td_buffer *add_buffer(struct tracedat *td)
{
	struct td_buffer *bigger;

	if (td->nbuf >= 1024)
		return NULL;
	bigger = realloc(td->buf, (td->nbuf + 1) * sizeof(*bigger));
	if (!bigger)
		return NULL;
	td->buf = bigger;
	memset(&td->buf[td->nbuf], 0, sizeof(*td->buf));
	return &td->buf[td->nbuf++];
}

/* BUFFER (v6: offset, name; v7: offset, name, clock, page size, CPUs and their data). */
static int option_buffer(struct tracedat *td, const uint8_t *data, uint32_t size,
			 bool text)
{
	struct cur k = { -1, data, 0, size, false, false };
	struct td_buffer *b = add_buffer(td);
	uint32_t i;

	if (!b)
		return -ENOMEM;
	b->latency = text;
	b->offset = cur_u64(&k);
	b->name = cur_str(&k, 4096);
	if (td->version < 7 || !b->name)
		return k.bad ? -EBADMSG : 0;
	b->clock = cur_str(&k, 4096);
	if (text)
		return k.bad ? -EBADMSG : 0;
	b->page_size = cur_u32(&k);
	b->ncpu = cur_u32(&k);
	if (k.bad || b->ncpu > MAX_CPUS || b->ncpu > (size - k.pos) / 20)
		return -EBADMSG;
	b->cpu = calloc(b->ncpu ? b->ncpu : 1, sizeof(*b->cpu));
	if (!b->cpu)
		return -ENOMEM;
	for (i = 0; i < b->ncpu; i++) {
		b->cpu[i].cpu = cur_u32(&k);
		b->cpu[i].off = cur_u64(&k);
		b->cpu[i].size = cur_u64(&k);
	}
	return k.bad ? -EBADMSG : 0;
}

/*
 * CPUSTAT: "CPU: N\n<the per_cpu/cpuN/stats file>". trace-cmd writes the top instance's
 * first, then a "\nBuffer: NAME\n\n" line before each other instance's.
 */
static int option_cpustat(struct tracedat *td, const uint8_t *data, uint32_t size)
{
	char *text = opt_str(data, size), *p;
	struct td_stat *bigger;
	unsigned long cpu;

	if (!text)
		return -ENOMEM;
	p = strstr(text, "Buffer: ");
	if (p && !strstr(text, "CPU:")) {
		free(td->stat_buffer);
		td->stat_buffer = strndup(p + 8, strcspn(p + 8, "\n"));
		free(text);
		return td->stat_buffer ? 0 : -ENOMEM;
	}
	p = strstr(text, "CPU:");
	if (!p || td->nstat >= 64 * MAX_CPUS) {
		free(text);
		return 0;	/* nothing we can attribute: ignored like any unknown option */
	}
	cpu = strtoul(p + 4, NULL, 10);
	bigger = realloc(td->stat, (td->nstat + 1) * sizeof(*bigger));
	if (!bigger) {
		free(text);
		return -ENOMEM;
	}
	td->stat = bigger;
	td->stat[td->nstat].buffer = strdup(td->stat_buffer ? td->stat_buffer : "");
	td->stat[td->nstat].cpu = (uint32_t)(cpu < MAX_CPUS ? cpu : MAX_CPUS);
	td->stat[td->nstat].text = text;
	if (!td->stat[td->nstat].buffer)
		return -ENOMEM;
	td->nstat++;
	return 0;
}

/* One option; *next (v7 DONE) receives the offset of the next options section. */
static int handle_option(struct tracedat *td, uint16_t id, const uint8_t *data,
			 uint32_t size, uint64_t *next, const char **why)
{
	int ret = 0;

	switch (id) {
	case OPT_DONE:
		if (size >= 8)
			*next = get_le64(data);
		break;
	case OPT_CPUSTAT:
		ret = option_cpustat(td, data, size);
		break;
	case OPT_BUFFER:
	case OPT_BUFFER_TEXT:
		ret = option_buffer(td, data, size, id == OPT_BUFFER_TEXT);
		if (ret == -EBADMSG)
			*why = "malformed BUFFER option";
		break;
	case OPT_TRACECLOCK:
		free(td->clock_option);
		td->clock_option = opt_str(data, size);
		if (td->clock_option) {
			char *sel = selected_clock(td->clock_option);

			free(td->clock_option);
			td->clock_option = sel;
		}
		ret = td->clock_option ? 0 : -ENOMEM;
		break;
	case OPT_UNAME:
		free(td->uname);
		td->uname = opt_str(data, size);
		ret = td->uname ? 0 : -ENOMEM;
		break;
	case OPT_CPUCOUNT:
		if (size >= 4)
			td->cpucount = get_le32(data);
		break;
	case OPT_TSC2NSEC:
		if (size >= 16) {
			td->tsc_mult = get_le32(data);
			td->tsc_shift = get_le32(data + 4);
			td->tsc2nsec = td->tsc_mult && td->tsc_shift <= 32;
		}
		break;
	case OPT_HEADER_INFO:
		if (size >= 8 && td->version >= 7)
			td->header_off = get_le64(data);
		break;
	case OPT_EVENT_FORMATS:
		if (size >= 8 && td->version >= 7)
			td->formats_off = get_le64(data);
		break;
	default:
		break;		/* DATE, OFFSET, KALLSYMS, ...: not needed here */
	}
	if (ret == -ENOMEM)
		*why = "out of memory";
	else if (ret && !*why)
		*why = "malformed option";
	return ret;
}

/* Walk a run of options: v6 ends at id 0 without a size, v7 at DONE with one. */
static int walk_options(struct tracedat *td, struct cur *k, uint64_t *next,
			const char **why)
{
	uint8_t *data = NULL;
	int ret = 0;

	for (;;) {
		uint16_t id = cur_u16(k);
		uint32_t size;

		if (k->bad)
			break;
		if (id == OPT_DONE && td->version < 7)
			break;
		size = cur_u32(k);
		if (!cur_has(k, size, MAX_OPTION)) {
			*why = "option larger than the file";
			ret = -EBADMSG;
			break;
		}
		free(data);
		data = malloc(size + 1);
		if (!data) {
			ret = -ENOMEM;
			*why = "out of memory";
			break;
		}
		cur_get(k, data, size);
		data[size] = '\0';
		ret = handle_option(td, id, data, size, next, why);
		if (ret || id == OPT_DONE)
			break;
	}
	free(data);
	if (!ret && k->bad) {
		*why = "options run past the end of their section";
		ret = -EBADMSG;
	}
	return ret;
}

/* "header_page\0" <8 size> <data> "header_event\0" <8 size> <data> */
static int read_header_info(struct tracedat *td, struct cur *k, const char **why)
{
	char name[13];
	uint64_t n;

	cur_get(k, name, 12);
	if (k->bad || memcmp(name, "header_page", 12) != 0) {
		*why = "no header_page where the file format puts it";
		return -EBADMSG;
	}
	n = cur_u64(k);
	if (!cur_has(k, n, MAX_FORMAT)) {
		*why = "header_page larger than the file";
		return -EBADMSG;
	}
	free(td->header_page);
	td->header_page = malloc(n + 1);
	if (!td->header_page) {
		*why = "out of memory";
		return -ENOMEM;
	}
	cur_get(k, td->header_page, n);
	td->header_page[n] = '\0';
	td->header_page_len = n;
	td->hp_ok = !vmt_header_page_parse((const char *)td->header_page, n, &td->hp);
	cur_get(k, name, 13);
	if (k->bad || memcmp(name, "header_event", 13) != 0) {
		*why = "no header_event after header_page";
		return -EBADMSG;
	}
	n = cur_u64(k);
	cur_skip(k, n);
	if (k->bad) {
		*why = "header_event larger than the file";
		return -EBADMSG;
	}
	return 0;
}

/* Skip the event formats (systems of events, each a sized format file). */
static void skip_formats(struct cur *k)
{
	uint32_t nsys = cur_u32(k), s;

	for (s = 0; s < nsys && !k->bad; s++) {
		char *name = cur_str(k, 4096);
		uint32_t nev = cur_u32(k), e;

		free(name);
		for (e = 0; e < nev && !k->bad; e++)
			cur_skip(k, cur_u64(k));
	}
}

/* The part of the v6 headers read next, for the words about a cut: the first one cut stays. */
static void part(struct tracedat *td, const struct cur *k, const char *name)
{
	if (!k->bad)
		td->part = name;
}

static int open_v6(struct vmt_source *s, struct tracedat *td, struct cur *k,
		   const char **why)
{
	struct td_buffer *top;
	char word[10];
	uint64_t next = 0, n;
	uint32_t cpus, i;
	size_t b;
	int ret;

	td->part = "header_page and header_event";
	ret = read_header_info(td, k, why);
	if (ret)
		return ret;
	part(td, k, "ftrace event formats");
	n = cur_u32(k);
	for (i = 0; i < n && !k->bad; i++)
		cur_skip(k, cur_u64(k));
	td->formats_off = k->pos;
	part(td, k, "event formats");
	skip_formats(k);
	part(td, k, "kallsyms");
	cur_skip(k, cur_u32(k));
	part(td, k, "printk formats");
	cur_skip(k, cur_u32(k));
	part(td, k, "saved command lines");
	cur_skip(k, cur_u64(k));
	part(td, k, "headers (the CPU count and the options)");
	cpus = cur_u32(k);
	cur_get(k, word, 10);
	if (k->bad) {
		*why = "damaged headers: a size in them passes the end of the file";
		return -EBADMSG;
	}
	if (cpus > MAX_CPUS) {
		*why = "more CPUs than a trace.dat can describe";
		return -EBADMSG;
	}
	if (memcmp(word, "options  ", 10) == 0) {
		part(td, k, "options");
		ret = walk_options(td, k, &next, why);
		if (ret)
			return ret;
		cur_get(k, word, 10);
	}
	if (k->bad || (memcmp(word, "flyrecord", 10) != 0 && memcmp(word, "latency  ", 10) != 0)) {
		*why = "neither flyrecord nor latency data after the options";
		return -EBADMSG;
	}
	if (!add_buffer(td))
		return -ENOMEM;
	/* the top buffer first, as trace-cmd lists it */
	memmove(td->buf + 1, td->buf, (td->nbuf - 1) * sizeof(*td->buf));
	top = &td->buf[0];
	memset(top, 0, sizeof(*top));
	top->name = strdup("");
	if (!top->name)
		return -ENOMEM;
	top->offset = k->pos;
	top->latency = memcmp(word, "latency  ", 10) == 0;
	/* every buffer's table: cpus x (offset, size) */
	for (b = 0; b < td->nbuf; b++) {
		struct td_buffer *bf = &td->buf[b];
		struct cur t = { s->fd, NULL, bf->offset, s->status.file_size, false, false };

		bf->page_size = td->page_size;
		if (b > 0) {
			/* an instance's data starts with its own "flyrecord\0" or "latency  \0" */
			cur_get(&t, word, 10);
			if (t.eof) {
				td->part = "tables of CPU data";
				k->eof = true;
			}
			if (t.bad || (memcmp(word, "flyrecord", 10) != 0 &&
				      memcmp(word, "latency  ", 10) != 0)) {
				*why = "a BUFFER option does not point at flyrecord data";
				return -EBADMSG;
			}
			bf->latency = memcmp(word, "latency  ", 10) == 0;
		}
		if (bf->latency)
			continue;
		bf->ncpu = cpus;
		bf->cpu = calloc(cpus ? cpus : 1, sizeof(*bf->cpu));
		if (!bf->cpu)
			return -ENOMEM;
		for (i = 0; i < cpus; i++) {
			bf->cpu[i].cpu = i;
			bf->cpu[i].off = cur_u64(&t);
			bf->cpu[i].size = cur_u64(&t);
		}
		bf->table_end = t.pos;
		if (t.bad) {
			td->part = "tables of CPU data";
			k->eof |= t.eof;
			*why = "the table of CPU data runs past the end of the file";
			return -EBADMSG;
		}
	}
	return 0;
}

static int open_v7(struct vmt_source *s, struct tracedat *td, struct cur *k,
		   const char **why)
{
	uint64_t off = cur_u64(k);
	unsigned int sections = 0;
	uint8_t *buf;
	uint64_t len;
	int ret;

	if (k->bad) {
		*why = cut_at(td, s, "first header");
		return -EBADMSG;
	}
	td->first_section = k->pos;
	while (off) {
		struct cur o;
		uint64_t next = 0;

		if (++sections > MAX_OPTION_SECTIONS) {
			*why = "too many options sections (a loop?)";
			return -EBADMSG;
		}
		ret = read_section(s, td, off, SEC_OPTIONS, &buf, &len, why);
		if (ret)
			return ret;
		o = (struct cur){ -1, buf, 0, len, false, false };
		ret = walk_options(td, &o, &next, why);
		free(buf);
		if (ret)
			return ret;
		off = next;
	}
	if (!td->header_off) {
		*why = "no HEADER_INFO option";
		return -EBADMSG;
	}
	ret = read_section(s, td, td->header_off, OPT_HEADER_INFO, &buf, &len, why);
	if (ret)
		return ret;
	{
		struct cur h = { -1, buf, 0, len, false, false };

		ret = read_header_info(td, &h, why);
	}
	free(buf);
	if (ret)
		return ret;
	if (!td->formats_off) {
		*why = "no EVENT_FORMATS option";
		return -EBADMSG;
	}
	return 0;
}

/* The buffer to analyse: the first (top first) with page data. */
static size_t choose_buffer(const struct tracedat *td)
{
	size_t b, first = SIZE_MAX;
	uint32_t i;

	for (b = 0; b < td->nbuf; b++) {
		if (td->buf[b].latency)
			continue;
		if (first == SIZE_MAX)
			first = b;
		for (i = 0; i < td->buf[b].ncpu; i++) {
			if (td->buf[b].cpu[i].size)
				return b;
		}
	}
	return first;
}

static int add_chunk(struct vmt_source *s, const struct vmt_chunk_info *ci)
{
	/* every chunk takes 8 bytes of the file at least, unless CPUs share their data */
	if (s->nchunks > s->status.file_size / 8)
		return -EBADMSG;
	return vmt_source_push_chunk(s, ci);
}

/*
 * The timestamp of a compressed chunk's first page (its first 8 bytes), for the
 * recording's start: only the first chunk of each CPU, and only as far as those bytes.
 */
static uint64_t first_page_ts(const struct vmt_source *s, const struct vmt_chunk_info *ci)
{
	uint8_t *comp = malloc(ci->payload_size ? ci->payload_size : 1), ts[8];
	uint64_t out = UINT64_MAX;

	if (!comp || vmt_io_pread_full(s->fd, comp, ci->payload_size, (off_t)ci->offset) !=
		     (ssize_t)ci->payload_size) {
		free(comp);
		return out;
	}
	if (ci->flags & VMT_CHUNK_ZSTD) {
		ZSTD_DStream *ds = ZSTD_createDStream();
		ZSTD_inBuffer in = { comp, ci->payload_size, 0 };
		ZSTD_outBuffer o = { ts, sizeof(ts), 0 };

		while (ds && o.pos < o.size) {
			size_t ret = ZSTD_decompressStream(ds, &o, &in);

			if (ZSTD_isError(ret) || (ret == 0 && o.pos < o.size) ||
			    (in.pos == in.size && o.pos < o.size))
				break;
		}
		if (o.pos == o.size)
			out = get_le64(ts);
		ZSTD_freeDStream(ds);
	} else {
		z_stream zs;

		memset(&zs, 0, sizeof(zs));
		zs.next_in = comp;
		zs.avail_in = (uInt)ci->payload_size;
		zs.next_out = ts;
		zs.avail_out = sizeof(ts);
		if (inflateInit(&zs) == Z_OK) {
			int ret = inflate(&zs, Z_SYNC_FLUSH);

			if ((ret == Z_OK || ret == Z_STREAM_END) && zs.avail_out == 0)
				out = get_le64(ts);
			inflateEnd(&zs);
		}
	}
	free(comp);
	return out;
}

/* What a page's header says of it (page_time()). */
enum page_kind {
	PAGE_EMPTY,		/* no records: its time says nothing (a zeroed page has 0) */
	PAGE_BAD_COMMIT,	/* its records pass its end */
	PAGE_TIMED,		/* records, the first at its time */
};
#define WHY_ORDER	"a page whose time is out of order with its CPU's other pages"
#define WHY_COMMIT	"page commit beyond the page size"

/*
 * The latest time a page may bear. No clock reaches the top of 2^64 ns (584 years); the
 * judgement used to mark pages with the last three values of that range, so a page stamped
 * with one was judged as the mark, and differently at open and as read: such a stamp is
 * a time out of order, as one past the statistics' "now ts" is (tracedat_pages_late.sh).
 */
#define PAGE_TIME_MAX	(UINT64_MAX - 3)

/*
 * The page at pg (its header, hp's layout, ps bytes a page): PAGE_BAD_COMMIT when its
 * length passes the page (the reader could not decode it: damage, found here so that a
 * copy that does not decode pages finds it as the report does), else whether it holds
 * records, and the time of its first into *ts. The kind is apart from the time: every
 * 64-bit time is one a damaged page may bear.
 */
static enum page_kind page_time(const struct vmt_header_page *hp, const uint8_t *pg,
				uint32_t ps, uint64_t *ts)
{
	uint32_t commit = (uint32_t)get_le_n(pg + hp->commit_offset, hp->commit_size) &
			  VMT_RB_COMMIT_MASK;

	if (!commit)
		return PAGE_EMPTY;
	if (commit > hp->data_size || commit > ps - hp->data_offset)
		return PAGE_BAD_COMMIT;
	*ts = get_le64(pg + hp->ts_offset);
	return PAGE_TIMED;
}

/* Page q's header (of a CPU's pages, or a chunk's): its kind, its time into *ts. */
typedef enum page_kind (*page_header_fn)(void *ctx, uint64_t q, uint64_t *ts);

/* How far the judgement of a CPU's pages (page_verdict()) is. */
struct page_order {
	uint64_t until;		/* no page kept later: stats_now(), at most PAGE_TIME_MAX */
	uint64_t prev;		/* the last page kept with records: its time */
	bool have_prev;
	bool have_next;		/* next (the page count: none) and next_ts found */
	uint64_t next, next_ts;	/* the next page with records after one judged, its time */
};

/*
 * The kernel fills a CPU's pages one after the other, each stamped when its first record
 * is written: a page with records whose time is 0 (no trace clock reads 0 once records are
 * written), before the last sound page's, or past the next page's while that one follows
 * the last sound page (this page is then the odd one, not the next), or past until (the
 * time the CPU's statistics were read, after its last page) is damaged, and its records'
 * times with it. Page p of n, those before it judged through o: NULL when it is kept (its
 * kind into *kind, its time into *ts), else why it is left out. The one rule for the
 * pages judged at open, as read and in a decompressed chunk; the next page with records,
 * read ahead for this one, is not read again when its turn comes.
 */
static const char *page_verdict(struct page_order *o, uint64_t p, uint64_t n,
				page_header_fn header, void *ctx, enum page_kind *kind,
				uint64_t *ts)
{
	uint64_t t = 0;

	if (o->have_next && o->next == p) {
		*kind = PAGE_TIMED;
		t = o->next_ts;
	} else {
		*kind = header(ctx, p, &t);
	}
	if (*kind == PAGE_BAD_COMMIT)
		return WHY_COMMIT;
	if (*kind == PAGE_EMPTY)
		return NULL;
	if (!o->have_next || o->next <= p) {
		o->have_next = true;
		for (o->next = p + 1; o->next < n; o->next++)
			if (header(ctx, o->next, &o->next_ts) == PAGE_TIMED)
				break;
	}
	if (t == 0 || t > o->until || (o->have_prev && t < o->prev) ||
	    (o->next < n && o->next_ts < t && (!o->have_prev || o->next_ts >= o->prev)))
		return WHY_ORDER;
	o->prev = t;
	o->have_prev = true;
	*ts = t;
	return NULL;
}

/* Every event's id and name in the file's formats: for saying what a file holds. */
struct td_name {
	uint32_t id;
	char *name;		/* "system:event" */
};

/*
 * One CPU's stored pages, judged as the pass reads them (judge()): which are left out, and
 * where the chunks open would have cut begin (runs of the pages kept, cut at slice pages).
 */
struct td_pages {
	uint64_t off, pages;	/* its data's offset, and how many whole pages it holds */
	uint32_t ps, slice;
	uint32_t order;		/* its place in the buffer's list of CPUs */
	uint64_t done;		/* the pages judged, from its first */
	struct page_order po;
	uint64_t run;		/* pages in the chunk open would be cutting (0: none open) */
	uint64_t counted;	/* chunks begun so far, as open would have cut them */
	uint64_t first_ts;	/* the first of those chunks' first times (UINT64_MAX: none) */
	size_t fixed;		/* the chunks it is read in */
	uint8_t *left, *begins;	/* a bit per page: left out; a chunk open would cut begins */
	uint64_t *begin_ts;	/* judged at open: each of those chunks' first time, in order */
};

/* The source's own (s->priv), from open to close. */
struct td_priv {
	struct td_name *v;
	size_t n;
	/* the header_page, for the times of a compression chunk's pages (hp_ok: parsed) */
	struct vmt_header_page hp;
	bool hp_ok;
	/* stored pages judged as read (not when opened), each CPU's (by_cpu: its index) */
	bool late;
	struct vmt_header_page page_hp;	/* the layout page_time() reads them with */
	struct td_pages *cpu;
	uint32_t ncpu;
	uint32_t *by_cpu;
	/* the pages last read for their headers (judged_header()): blk_n from blk_at */
	uint8_t *blk;
	uint64_t blk_at, blk_n, blk_ok;	/* blk_ok: those whose header the read holds */
	uint32_t blk_ps;
	/* the status the damage is counted in, and its first damage's place (first_before) */
	struct vmt_source_status *status;
	uint32_t first_order, first_phase;
	uint64_t first_page;
};

static void pages_free(struct td_pages *c)
{
	free(c->left);
	free(c->begins);
	free(c->begin_ts);
}

static void priv_free(struct td_priv *pv)
{
	size_t i;

	if (!pv)
		return;
	for (i = 0; i < pv->n; i++)
		free(pv->v[i].name);
	for (i = 0; i < pv->ncpu; i++)
		pages_free(&pv->cpu[i]);
	free(pv->blk);
	free(pv->cpu);
	free(pv->by_cpu);
	free(pv->v);
	free(pv);
}

/*
 * When the CPU's statistics were read ("now ts:" of its CPUSTAT option, which trace-cmd reads
 * once the recording stopped), in the pages' clock: seconds and microseconds for a clock in
 * ns (rounded up to the next microsecond: the kernel prints it cut), counts for a counter
 * clock; plus VMT_NOW_SKEW_MARGIN; UINT64_MAX when the file does not say.
 */
static uint64_t stats_now(const struct tracedat *td, const struct td_buffer *b, uint32_t cpu)
{
	unsigned long long sec, us;
	const char *p;
	size_t i;
	int used;

	for (i = 0; i < td->nstat; i++) {
		if (td->stat[i].cpu != cpu || strcmp(td->stat[i].buffer, b->name) != 0)
			continue;
		p = strstr(td->stat[i].text, "\nnow ts:");
		if (!p)
			return UINT64_MAX;
		used = 0;
		if (sscanf(p + 9, " %llu.%6llu%n", &sec, &us, &used) == 2 && used &&
		    sec < UINT64_MAX / 1000000000ull - 2)
			return sec * 1000000000ull + (us + 1) * 1000ull + VMT_NOW_SKEW_MARGIN;
		return sscanf(p + 9, " %llu", &sec) == 1 && sec < UINT64_MAX - VMT_NOW_SKEW_MARGIN ?
		       sec + VMT_NOW_SKEW_MARGIN : UINT64_MAX;
	}
	return UINT64_MAX;
}

/*
 * Pages of up to 16 KiB are judged from blocks of 1 MiB when many are judged at once (at
 * open for a copy, or before the pass for a time series: series.c's last_kept_ts()): the
 * page cache reads a 4 KiB page whole for its 16-byte header all the same, and a read per
 * header took 86000 reads on 351 MB (doc/benchmarks.md). Larger pages: their headers alone.
 */
#define PAGE_TIMES_BATCH_MAX	(16u << 10)
#define PAGE_TIMES_BLOCK	(1u << 20)
/*
 * Whether damage at (order, phase, page) comes before the first one counted: open counted
 * its damage CPU by CPU in the buffer's order, a CPU's data that is not whole pages (phase
 * 0) before its pages (phase 1), which the pass now judges in its own order.
 */
static bool first_before(const struct td_priv *pv, uint32_t order, uint32_t phase,
			 uint64_t page)
{
	if (order != pv->first_order)
		return order < pv->first_order;
	return phase != pv->first_phase ? phase < pv->first_phase : page < pv->first_page;
}

/* Damage of stored data at offset at, counted in the status as open counted it. */
static void note_damage(struct td_priv *pv, uint32_t order, uint32_t phase, uint64_t page,
			uint64_t at, const char *why)
{
	struct vmt_source_status *st = pv->status;

	if (st->bad_blocks++ && !first_before(pv, order, phase, page))
		return;
	st->bad_block_at = at;
	snprintf(st->bad_block_why, sizeof(st->bad_block_why), "%s", why);
	pv->first_order = order;
	pv->first_phase = phase;
	pv->first_page = page;
}

/* Where judge() finds c's headers: the pages at hand (bn from bfirst, at buf), or the file. */
struct judged_at {
	const struct vmt_source *s;
	struct td_priv *pv;
	const struct td_pages *c;
	uint64_t through, bfirst, bn;
	const uint8_t *buf;
};

/*
 * Page q's header for judge(): from the pages at hand, from the block last read, or read:
 * the pages judge() goes on to need from q (up to through, not those at hand), 1 MiB at
 * most, when that is more than one; else q's header alone (the page after those at hand,
 * read ahead to judge the last of them: the pass then reads it whole).
 */
static enum page_kind judged_header(void *ctx, uint64_t q, uint64_t *ts)
{
	const struct judged_at *a = ctx;
	struct td_priv *pv = a->pv;
	const struct td_pages *c = a->c;
	uint32_t hlen = pv->page_hp.data_offset;
	uint64_t want = a->through > q ? a->through - q : 1, at = c->off + q * c->ps;
	uint8_t h[64];
	ssize_t got;

	if (a->buf && q >= a->bfirst && q - a->bfirst < a->bn)
		return page_time(&pv->page_hp, a->buf + (q - a->bfirst) * c->ps, c->ps, ts);
	/* (keyed by the place in the file: the CPUs' pages move as open adds CPUs) */
	if (pv->blk_ps == c->ps && at >= pv->blk_at && (at - pv->blk_at) % c->ps == 0 &&
	    (at - pv->blk_at) / c->ps < pv->blk_n)
		return (at - pv->blk_at) / c->ps < pv->blk_ok ?
		       page_time(&pv->page_hp, pv->blk + (at - pv->blk_at), c->ps, ts) :
		       PAGE_EMPTY;
	if (a->buf && q < a->bfirst && want > a->bfirst - q)
		want = a->bfirst - q;
	if (want > c->pages - q)
		want = c->pages - q;
	if (c->ps > PAGE_TIMES_BATCH_MAX)
		want = 1;
	else if (want > PAGE_TIMES_BLOCK / c->ps)
		want = PAGE_TIMES_BLOCK / c->ps;
	if (want > 1 && (pv->blk || (pv->blk = malloc(PAGE_TIMES_BLOCK)) != NULL)) {
		got = vmt_io_pread_full(a->s->fd, pv->blk, want * c->ps, (off_t)at);
		pv->blk_at = at;
		pv->blk_ps = c->ps;
		pv->blk_n = want;
		pv->blk_ok = got < (ssize_t)hlen ? 0 : ((uint64_t)got - hlen) / c->ps + 1;
		return pv->blk_ok ? page_time(&pv->page_hp, pv->blk, c->ps, ts) : PAGE_EMPTY;
	}
	return vmt_io_pread_full(a->s->fd, h, hlen, (off_t)at) == (ssize_t)hlen ?
	       page_time(&pv->page_hp, h, c->ps, ts) : PAGE_EMPTY;
}

/*
 * Judge c's pages up to through (exclusive) by page_verdict(), with the pages at hand in
 * buf (bn pages from bfirst; the others read for their headers, judged_header()): the
 * pages it leaves out are marked and counted as damage, and the chunks open cuts from the
 * rest are counted where they begin. Open judges a copy's pages all at once with it, the
 * pass the others as it reads them: the same judgement either way.
 */
static void judge(const struct vmt_source *s, struct td_priv *pv, struct td_pages *c,
		  uint64_t through, uint64_t bfirst, uint64_t bn, const uint8_t *buf)
{
	struct judged_at a = { s, pv, c, through, bfirst, bn, buf };

	while (c->done < through && c->done < c->pages) {
		uint64_t p = c->done++, t = UINT64_MAX;
		enum page_kind k;
		const char *why = page_verdict(&c->po, p, c->pages, judged_header, &a, &k, &t);

		if (why) {
			c->left[p / 8] |= (uint8_t)(1u << (p % 8));
			c->run = 0;
			note_damage(pv, c->order, 1, p, c->off + p * c->ps, why);
			continue;
		}
		if (!c->run || c->run == c->slice) {
			c->begins[p / 8] |= (uint8_t)(1u << (p % 8));
			if (c->begin_ts)
				c->begin_ts[c->counted] = k == PAGE_TIMED ? t : UINT64_MAX;
			c->counted++;
			c->run = 0;
			if (k == PAGE_TIMED && c->first_ts == UINT64_MAX)
				c->first_ts = t;
		}
		c->run++;
	}
}

/* One CPU's pages (pages of them, cut at slice), to judge; begin_ts: keep each chunk's time. */
static int pages_init(struct td_pages *c, const struct tracedat *td, const struct td_buffer *b,
		      const struct td_cpu *tc, uint64_t pages, uint32_t slice, uint32_t ps,
		      bool begin_ts)
{
	uint64_t until = stats_now(td, b, tc->cpu);

	memset(c, 0, sizeof(*c));
	c->left = calloc(pages / 8 + 1, 1);
	c->begins = calloc(pages / 8 + 1, 1);
	c->begin_ts = begin_ts ? malloc((pages ? pages : 1) * sizeof(*c->begin_ts)) : NULL;
	if (!c->left || !c->begins || (begin_ts && !c->begin_ts)) {
		pages_free(c);
		return -ENOMEM;
	}
	c->off = tc->off;
	c->pages = pages;
	c->ps = ps;
	c->slice = slice;
	c->order = (uint32_t)(tc - b->cpu);
	c->po.until = until < PAGE_TIME_MAX ? until : PAGE_TIME_MAX;
	c->first_ts = UINT64_MAX;
	return 0;
}

/*
 * One CPU's stored pages as chunks of slice pages, their pages judged as the pass reads
 * them (tracedat_check_pages()), not here: checking every page's header before the pass
 * reads the file twice where the page cache cannot hold it. What the pass needs first is
 * judged here: the recording's start, the first of the chunks' first times that open
 * would have cut (the first page of a run with records, as pages kept are in time order),
 * which takes the headers of the CPU's first pages and of the page after.
 */
static int cpu_pages_late(struct vmt_source *s, const struct tracedat *td,
			  const struct td_buffer *b, const struct td_cpu *tc, uint64_t pages,
			  uint32_t slice, struct vmt_chunk_info *ci)
{
	struct td_priv *pv = s->priv;
	struct td_pages *c, *bigger;
	uint64_t p;
	uint32_t i;
	int ret;

	if (!pv->by_cpu) {
		pv->by_cpu = malloc(VMT_CLI_MAX_CPUS * sizeof(*pv->by_cpu));
		if (!pv->by_cpu)
			return -ENOMEM;
		for (i = 0; i < VMT_CLI_MAX_CPUS; i++)
			pv->by_cpu[i] = UINT32_MAX;
	}
	bigger = realloc(pv->cpu, (pv->ncpu + 1) * sizeof(*bigger));
	if (!bigger)
		return -ENOMEM;
	pv->cpu = bigger;
	c = &pv->cpu[pv->ncpu];
	ret = pages_init(c, td, b, tc, pages, slice, ci->page_size, false);
	if (ret)
		return ret;
	pv->by_cpu[tc->cpu] = pv->ncpu++;	/* check_layout(): below the limit, each once */
	while (c->done < pages && c->first_ts == UINT64_MAX)
		judge(s, pv, c, c->done + 1, 0, 0, NULL);
	for (p = 0; p < pages; p += slice) {
		ci->page_count = (uint32_t)(pages - p < slice ? pages - p : slice);
		ci->offset = tc->off + p * c->ps;
		ci->raw_size = ci->payload_size = (uint64_t)ci->page_count * c->ps;
		ci->first_ts = p ? UINT64_MAX : c->first_ts;
		ci->seq = (uint32_t)c->fixed++;
		ret = add_chunk(s, ci);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * One CPU's stored pages judged at open, for a copy that takes the chunks as open cuts
 * them (pages_at_open): the runs of the pages kept, cut at slice pages, each with its
 * first page's time (the prefetch order for free: a page starts with its timestamp).
 */
static int cpu_pages_now(struct vmt_source *s, const struct tracedat *td,
			 const struct td_buffer *b, const struct td_cpu *tc, uint64_t pages,
			 uint32_t slice, struct vmt_chunk_info *ci)
{
	struct td_pages c;
	uint64_t p = 0, q, n = 0;
	uint32_t ps = ci->page_size, seq = 0;
	int ret = pages_init(&c, td, b, tc, pages, slice, ps, true);

	if (ret)
		return ret;
	judge(s, s->priv, &c, pages, 0, 0, NULL);
	while (p < pages && !ret) {
		if ((c.left[p / 8] >> (p % 8)) & 1) {
			/* left out, as a damaged chunk is: no pair spans the hole */
			ci->holes_before++;
			p++;
			continue;
		}
		for (q = p + 1; q < pages && !((c.left[q / 8] >> (q % 8)) & 1) &&
			    !((c.begins[q / 8] >> (q % 8)) & 1); q++)
			;
		ci->page_count = (uint32_t)(q - p);
		ci->offset = tc->off + p * ps;
		ci->raw_size = ci->payload_size = (uint64_t)ci->page_count * ps;
		ci->first_ts = c.begin_ts[n++];
		ci->seq = seq++;
		ret = add_chunk(s, ci);
		p = q;
	}
	pages_free(&c);
	return ret;
}

/*
 * One CPU's data as chunks: v7 compression chunks (<4 count>, then <4 size> <4 raw size>
 * <data> each), or slices of whole pages when stored as they are.
 */
static int cpu_chunks(struct vmt_source *s, struct tracedat *td,
		      const struct td_buffer *b, const struct td_cpu *tc, bool compressed,
		      const char **why)
{
	struct vmt_source_status *st = &s->status;
	uint64_t file_size = st->file_size, avail;
	struct vmt_chunk_info ci = { 0 };
	uint32_t ps = b->page_size, seq = 0;
	/* the merge holds a slice of each CPU at once: smaller on many CPUs */
	uint32_t slice_pages = vmt_chunk_pages(b->ncpu, ps);
	int ret;

	ci.cpu = tc->cpu;
	ci.page_size = ps;
	ci.first_ts = UINT64_MAX;
	if (!tc->size)
		return 0;
	/* (the count before compressed chunks too: file_size - tc->off may be under 4) */
	if (tc->off > file_size || tc->size > file_size - tc->off ||
	    file_size - tc->off - tc->size < (compressed ? 4 : 0)) {
		/* the first CPU cut says where: the CPUs after it start past the end */
		if (st->finished) {
			st->finished = false;
			st->truncated_at = tc->off < file_size ? tc->off : file_size;
			st->trunc_why = tc->off < file_size ?
					"the file is cut short inside a CPU's data, which starts" :
					"the file is cut short before a CPU's data";
		}
		if (tc->off >= file_size)
			return 0;
	}
	if (compressed) {
		/* trace-cmd's size counts the chunks (8 + data each) but not the count */
		struct cur k = { s->fd, NULL, tc->off, tc->off + 4 + tc->size, false, false };
		uint32_t count = cur_u32(&k), i;

		if (k.end > file_size)
			k.end = file_size;
		ci.flags = td->comp_flag;
		for (i = 0; i < count; i++) {
			uint64_t at = k.pos;

			ci.payload_size = cur_u32(&k);
			ci.raw_size = cur_u32(&k);
			ci.offset = k.pos;
			cur_skip(&k, ci.payload_size);
			if (k.bad && k.end == file_size && (k.eof || at + 8 > file_size)) {
				/* the file ends first: cut there, whatever the CPU's size said */
				st->finished = false;
				st->truncated_at = at;
				st->trunc_why = "the file is cut short inside a compression chunk, "
						"which starts";
				break;
			}
			if (k.bad) {
				st->finished = false;
				st->truncated_at = ci.offset;
				st->trunc_why = "a compression chunk extends past its CPU's data";
				break;
			}
			if (ci.raw_size % ps || !ci.raw_size || ci.raw_size > VMT_MAX_CHUNK_RAW) {
				/* not whole pages: cannot be decoded, a hole in this CPU's pages */
				if (!st->bad_blocks++) {
					st->bad_block_at = ci.offset;
					snprintf(st->bad_block_why, sizeof(st->bad_block_why), "%s",
						 "a compression chunk that is not whole pages");
				}
				ci.holes_before++;
				continue;
			}
			ci.page_count = ci.raw_size / ps;
			ci.first_ts = seq == 0 ? first_page_ts(s, &ci) : UINT64_MAX;
			ci.seq = seq++;
			ret = add_chunk(s, &ci);
			if (ret)
				return ret;
		}
		(void)why;
		return 0;
	}
	if (tc->size % ps) {
		/* pages the kernel wrote whole: a size that is not is damage, its tail unread */
		note_damage(s->priv, (uint32_t)(tc - b->cpu), 0, 0, tc->off + tc->size / ps * ps,
			    "a CPU's data that is not whole pages");
	}
	/* what the file holds of it; a size that wraps past 2^64 is no larger than that */
	avail = tc->off >= file_size ? 0 : tc->size > file_size - tc->off ?
		file_size - tc->off : tc->size;
	if (((struct td_priv *)s->priv)->late)
		return cpu_pages_late(s, td, b, tc, avail / ps, slice_pages, &ci);
	return cpu_pages_now(s, td, b, tc, avail / ps, slice_pages, &ci);
}

/*
 * A v7 file whose CPUs' data is whole but which is cut after it (in the flyrecord section's
 * padding, or in the sections trace-cmd writes last: options, strings) still reads whole,
 * yet is not the file that was written: said as a cut, with the section it is cut in.
 */
static void note_cut_after_data(struct vmt_source *s, const struct tracedat *td)
{
	struct vmt_source_status *st = &s->status;
	struct cut c;

	if (!st->finished || td->version < 7 || !find_cut(s, td->first_section, &c))
		return;
	st->finished = false;
	st->truncated_at = c.at;
	st->trunc_why = c.which < 0 ? "the file is cut short after the CPUs' data, inside the "
				      "header of a section, which starts" :
			c.inside ? sec_names[c.which].cut_inside : sec_names[c.which].cut_after;
}

/*
 * A sub-buffer ("page") is a power of two of the machine's pages (4 KiB at the least on every
 * architecture Linux runs on, more with buffer_subbuf_size_kb): a page size the kernel
 * cannot have is a damaged header, and reading with it loses or mixes pages silently.
 */
static bool page_size_possible(uint32_t ps)
{
	return ps >= 4096 && ps <= (1u << 24) && !(ps & (ps - 1));
}

static int cmp_cpu_off(const void *a, const void *b)
{
	const struct td_cpu *x = *(const struct td_cpu *const *)a;
	const struct td_cpu *y = *(const struct td_cpu *const *)b;

	return (x->off > y->off) - (x->off < y->off);
}

/*
 * What the headers say of the chosen buffer's data, checked before a page is read: its page
 * size against the kernel's possible ones and the header_page's (the page size the kernel
 * wrote it with; an instance's may differ in a v7 file, which states its own), its CPUs'
 * numbers (the reader's list takes those below VMT_CLI_MAX_CPUS, each once: a v6 file
 * numbers them itself, a v7 BUFFER option names them), and its CPUs' data after the
 * headers and apart from each other (two CPUs on the same bytes would count their events
 * twice). A cut file is not refused here: its sizes are those written.
 */
static int check_layout(struct tracedat *td, const struct td_buffer *b, bool compressed,
			const char **why)
{
	uint64_t start = td->version >= 7 ? b->offset + SECTION_HEADER : b->table_end;
	const struct td_cpu **by_off;
	uint32_t i, n = 0;
	bool bad = true;

	if (!page_size_possible(b->page_size)) {
		snprintf(td->msg, sizeof(td->msg), "damaged header: page size %u, which no kernel "
			 "writes (a power of two of at least 4096 bytes)", b->page_size);
		*why = td->msg;
		return -EBADMSG;
	}
	if (td->hp_ok && (td->version < 7 || !b->name[0]) &&
	    vmt_header_page_subbuf_size(&td->hp) != b->page_size) {
		snprintf(td->msg, sizeof(td->msg), "damaged header: page size %u, but its "
			 "header_page gives pages of %u bytes", b->page_size,
			 vmt_header_page_subbuf_size(&td->hp));
		*why = td->msg;
		return -EBADMSG;
	}
	by_off = calloc(b->ncpu ? b->ncpu : 1, sizeof(*by_off));
	if (!by_off)
		return -ENOMEM;
	for (i = 0; i < b->ncpu; i++) {
		const struct td_cpu *c = &b->cpu[i];
		uint32_t j;

		if (c->cpu >= VMT_CLI_MAX_CPUS) {
			snprintf(td->msg, sizeof(td->msg), "damaged BUFFER option: it names CPU %u, "
				 "a number a trace.dat cannot have (CPUs are numbered below %u)",
				 c->cpu, VMT_CLI_MAX_CPUS);
			break;
		}
		for (j = 0; j < i && b->cpu[j].cpu != c->cpu; j++)
			;
		if (j < i) {
			snprintf(td->msg, sizeof(td->msg), "damaged BUFFER option: it names CPU %u "
				 "twice", c->cpu);
			break;
		}
		if (!c->size)
			continue;
		if (c->off < start) {
			snprintf(td->msg, sizeof(td->msg), "damaged header: CPU %u's data starts at "
				 "offset %llu, inside the headers (they end at %llu)", c->cpu,
				 (unsigned long long)c->off, (unsigned long long)start);
			break;
		}
		by_off[n++] = c;
	}
	if (i == b->ncpu) {
		bad = false;
		qsort(by_off, n, sizeof(*by_off), cmp_cpu_off);
		for (i = 1; i < n && !bad; i++) {
			const struct td_cpu *a = by_off[i - 1], *c = by_off[i];

			/* compressed data starts with a chunk count its size leaves out */
			if (a->size + (compressed ? 4 : 0) > c->off - a->off) {
				snprintf(td->msg, sizeof(td->msg), "damaged header: the data of CPU %u "
					 "and CPU %u overlap (from offset %llu)", a->cpu, c->cpu,
					 (unsigned long long)c->off);
				bad = true;
			}
		}
	}
	free(by_off);
	if (!bad)
		return 0;
	*why = td->msg;
	return -EBADMSG;
}

/* Metadata for the reader, as a .vmt's META and END would carry it. */
static int build_meta(struct vmt_source *s, struct tracedat *td, const char **why)
{
	const struct td_buffer *b = td->chosen < td->nbuf ? &td->buf[td->chosen] : NULL;
	const char *clock = b && b->clock ? b->clock : td->clock_option ? td->clock_option :
			    "local";
	struct vmt_kvbuf meta, end;
	char list[64 * 1024];
	size_t len = 0, i;

	vmt_kv_init(&meta);
	vmt_kv_init(&end);
	vmt_kv_add(&meta, VMT_META_HEADER_PAGE, td->header_page, td->header_page_len);
	vmt_kv_add_str(&meta, VMT_META_CLOCK, clock);
	vmt_kv_add_str(&meta, VMT_META_ENDIAN, "little");
	if (td->tsc2nsec)
		/* trace-cmd converts with (ts * mult) >> shift; the reader does the same */
		vmt_kv_addf(&meta, VMT_META_TSC2NSEC, "%u %u", td->tsc_mult, td->tsc_shift);
	list[0] = '\0';
	for (i = 0; b && i < b->ncpu && len + 16 < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u", i ? "," : "",
					b->cpu[i].cpu);
	if (len)
		vmt_kv_add_str(&meta, VMT_META_CPUS, list);
	if (td->uname) {
		/* "Linux host 6.1.0-57-amd64 #1 SMP ... x86_64" */
		char host[256], rel[256];

		if (sscanf(td->uname, "%*s %255s %255s", host, rel) == 2) {
			vmt_kv_add_str(&meta, "hostname", host);
			vmt_kv_add_str(&meta, "kernel.release", rel);
		}
		vmt_kv_add_str(&meta, "uname", td->uname);
		/* its last word is the machine, which names a system call pair's ids */
		if (strrchr(td->uname, ' ') && strrchr(td->uname, ' ')[1])
			vmt_kv_add_str(&meta, VMT_META_MACHINE, strrchr(td->uname, ' ') + 1);
	}
	if (td->cpucount)
		vmt_kv_addf(&meta, "cpus.online", "%u", td->cpucount);
	for (i = 0; b && i < td->nstat; i++) {
		char key[64];

		if (strcmp(td->stat[i].buffer, b->name) != 0)
			continue;
		snprintf(key, sizeof(key), "stats.end.cpu%u", td->stat[i].cpu);
		vmt_kv_add_str(&end, key, td->stat[i].text);
	}
	if (meta.error || end.error) {
		vmt_kv_free(&meta);
		vmt_kv_free(&end);
		*why = "out of memory";
		return -ENOMEM;
	}
	s->meta = meta;
	s->end = end;
	s->end_present = true;	/* the file is whole: its stats are the end's */
	return 0;
}

/* The file's headers, options and chunks, and its metadata but for the pair. */
static int open_file(struct vmt_source *s, struct tracedat *td, const char **why)
{
	struct cur k = { s->fd, NULL, TRACEDAT_MAGIC_LEN, s->status.file_size, false, false };
	char *version, *comp = NULL, *compver = NULL;
	uint8_t endian, longsize;
	struct td_priv *pv;
	size_t i;
	int ret;

	version = cur_str(&k, 16);
	endian = 0;
	cur_get(&k, &endian, 1);
	longsize = 0;
	cur_get(&k, &longsize, 1);
	td->page_size = cur_u32(&k);
	if (k.bad || !version) {
		free(version);
		*why = k.eof ? cut_at(td, s, "first header") :
			       "damaged first header: its version is no string";
		return -EBADMSG;
	}
	td->version = (uint32_t)strtoul(version, NULL, 10);
	free(version);
	if (td->version != 6 && td->version != 7) {
		*why = "unsupported trace.dat version (6 and 7 are read)";
		return -EPROTONOSUPPORT;
	}
	if (endian != 0) {
		*why = "big-endian trace.dat (not supported)";
		return -EPROTONOSUPPORT;
	}
	if (longsize != 4 && longsize != 8) {
		*why = "bad long size in the trace.dat header";
		return -EBADMSG;
	}
	if (!page_size_possible(td->page_size)) {
		snprintf(td->msg, sizeof(td->msg), "bad page size %u in the trace.dat header (a "
			 "power of two of at least 4096 bytes)", td->page_size);
		*why = td->msg;
		return -EBADMSG;
	}
	strcpy(td->compression, "none");
	if (td->version >= 7) {
		comp = cur_str(&k, 64);
		compver = cur_str(&k, 64);
		if (!comp || !compver) {
			free(comp);
			free(compver);
			*why = k.eof ? cut_at(td, s, "compression header") :
				       "damaged compression header: its names are no strings";
			return -EBADMSG;
		}
		snprintf(td->compression, sizeof(td->compression), "%s", comp);
		free(comp);
		free(compver);
		if (strcmp(td->compression, "zstd") == 0)
			td->comp_flag = VMT_CHUNK_ZSTD;
		else if (strcmp(td->compression, "zlib") == 0)
			td->comp_flag = VMT_CHUNK_ZLIB;
		else if (strcmp(td->compression, "none") != 0) {
			*why = "trace.dat compressed with an unknown algorithm (zstd and zlib "
			       "are read)";
			return -EPROTONOSUPPORT;
		}
		ret = open_v7(s, td, &k, why);
	} else {
		ret = open_v6(s, td, &k, why);
		if (ret == -EBADMSG && k.eof)
			*why = cut_at(td, s, td->part);
	}
	if (ret)
		return ret;
	s->status.finished = true;
	td->chosen = choose_buffer(td);
	if (td->chosen == SIZE_MAX) {
		*why = "no flyrecord data in the trace.dat (a latency trace?)";
		return -EBADMSG;
	}
	{
		const struct td_buffer *b = &td->buf[td->chosen];
		bool compressed = false;

		if (td->version >= 7 && b->ncpu) {
			/* the section header says whether its CPU data is compressed */
			struct cur sec = { s->fd, NULL, b->offset, s->status.file_size, false,
					   false };
			uint16_t id = cur_u16(&sec), flags = cur_u16(&sec);

			if (sec.bad || id != SEC_FLYRECORD) {
				*why = sec.eof ? "an option points past the end of the file: the "
						 "file is cut short after a whole section, or damaged" :
						 "the BUFFER option does not point at a flyrecord section";
				return -EBADMSG;
			}
			compressed = flags & SEC_COMPRESSED;
			if (compressed && !td->comp_flag) {
				*why = "compressed CPU data in a file without compression";
				return -EBADMSG;
			}
		}
		ret = check_layout(td, b, compressed, why);
		if (ret)
			return ret;
		pv = s->priv;
		if (td->hp_ok && td->hp.data_offset <= 64)
			pv->page_hp = td->hp;
		else
			vmt_header_page_default(&pv->page_hp);	/* a 64-bit kernel's */
		pv->late &= !compressed;
		for (i = 0; i < b->ncpu; i++) {
			ret = cpu_chunks(s, td, b, &b->cpu[i], compressed, why);
			if (ret) {
				if (!*why)
					*why = ret == -ENOMEM ? "out of memory" :
					       "more chunks than the file holds (CPUs share their data?)";
				return ret;
			}
		}
	}
	note_cut_after_data(s, td);
	return build_meta(s, td, why);
}

/* Find SYSTEM:EVENT's format text in the event formats (v6 and v7 lay them out alike). */
struct want {
	const char *name;	/* "kvm:kvm_exit" */
	char *text;
	size_t len;
};

static bool name_is(const char *system, const char *text, size_t len, const char *want)
{
	size_t sl = strlen(system), el;
	const char *p = memmem(text, len, "name: ", 6), *e;

	if (strncmp(want, system, sl) != 0 || want[sl] != ':' || !p)
		return false;
	p += 6;
	e = memchr(p, '\n', len - (size_t)(p - text));
	el = e ? (size_t)(e - p) : len - (size_t)(p - text);
	return strlen(want + sl + 1) == el && memcmp(want + sl + 1, p, el) == 0;
}

static int find_formats(struct cur *k, struct want *w, unsigned int nw)
{
	uint32_t nsys = cur_u32(k), s;

	for (s = 0; s < nsys && !k->bad; s++) {
		char *system = cur_str(k, 4096);
		uint32_t nev = cur_u32(k), e;

		for (e = 0; e < nev && !k->bad && system; e++) {
			uint64_t size = cur_u64(k), at = k->pos;
			char head[256];
			size_t n = size < sizeof(head) ? (size_t)size : sizeof(head);
			unsigned int j;

			if (!cur_get(k, head, n))
				break;
			k->pos = at;
			for (j = 0; j < nw; j++) {
				if (w[j].text || size > MAX_FORMAT || !name_is(system, head, n, w[j].name))
					continue;
				w[j].text = malloc(size + 1);
				if (!w[j].text) {
					free(system);
					return -ENOMEM;
				}
				cur_get(k, w[j].text, size);
				k->pos = at;
				w[j].text[size] = '\0';
				w[j].len = size;
			}
			cur_skip(k, size);
		}
		free(system);
	}
	return k->bad ? -EBADMSG : 0;
}

/* Systems with context events (ctxevent.h); of syscalls only KVM_RUN's sys_enter_ioctl. */
static bool ctx_candidate(const char *system, const char *head, size_t n)
{
	static const char *const systems[] = { "sched", "irq", "irq_vectors", "nmi", "kvm" };
	unsigned int i;

	for (i = 0; i < sizeof(systems) / sizeof(systems[0]); i++)
		if (strcmp(system, systems[i]) == 0)
			return true;
	return strcmp(system, "syscalls") == 0 &&
	       name_is(system, head, n, "syscalls:sys_enter_ioctl");
}

static bool ctx_bound(const struct vmt_ctxbind *b, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < VMT_CTXBIND_SLOTS; i++)
		if (b->slot[i].used && b->slot[i].id == id)
			return true;
	return false;
}

/* Grow the comma list *list by name. 0 or -ENOMEM. */
static int list_add(char **list, const char *name)
{
	size_t had = *list ? strlen(*list) : 0;
	char *bigger = realloc(*list, had + strlen(name) + 2);

	if (!bigger)
		return -ENOMEM;
	snprintf(bigger + had, strlen(name) + 2, "%s%s", had ? "," : "", name);
	*list = bigger;
	return 0;
}

/*
 * One format of the file: a context event when vmt_ctxbind_add() binds it (b collects
 * them) and it is not one of the pair. Added to kb as format.ctx.<system>:<event>.
 */
static int ctx_add(struct vmt_kvbuf *kb, struct vmt_ctxbind *b, const char *system,
		   const char *text, size_t len, const char *const pair[2], char **list)
{
	char name[VMT_KV_MAX_KEY], key[sizeof(VMT_META_FORMAT_CTX) + VMT_KV_MAX_KEY];
	struct vmt_evformat *f;
	int ret, n;

	ret = vmt_evformat_parse(text, len, system, &f, NULL);
	if (ret)
		return ret == -ENOMEM ? ret : 0;
	n = snprintf(name, sizeof(name), "%s:%s", system, f->name);
	if (n < 0 || (size_t)n >= sizeof(name) - strlen(VMT_META_FORMAT_CTX) ||
	    strcmp(name, pair[0]) == 0 || strcmp(name, pair[1]) == 0 ||
	    vmt_ctxbind_add(b, f) || !ctx_bound(b, f->id)) {
		vmt_evformat_free(f);
		return 0;
	}
	vmt_evformat_free(f);
	snprintf(key, sizeof(key), VMT_META_FORMAT_CTX "%s", name);
	vmt_kv_add(kb, key, text, len);
	return list_add(list, name);
}

/*
 * The context events whose formats the file holds, listed as a .vmt lists them
 * (context.events, format.ctx.<name>). trace-cmd saves the formats of whole systems, so
 * a format here does not prove its event was enabled: such an event then has no records.
 */
static int ctx_meta(struct vmt_kvbuf *kb, struct cur *k, const char *const pair[2])
{
	uint32_t nsys = cur_u32(k), s;
	struct vmt_ctxbind *b = malloc(sizeof(*b));
	char *list = NULL;
	int ret = 0;

	if (!b)
		return -ENOMEM;
	vmt_ctxbind_init(b);
	for (s = 0; s < nsys && !k->bad && !ret; s++) {
		char *system = cur_str(k, 4096);
		uint32_t nev = cur_u32(k), e;

		for (e = 0; e < nev && !k->bad && system && !ret; e++) {
			uint64_t size = cur_u64(k), at = k->pos;
			char head[256], *text;
			size_t n = size < sizeof(head) ? (size_t)size : sizeof(head);

			if (size > MAX_FORMAT || !cur_get(k, head, n) ||
			    !ctx_candidate(system, head, n)) {
				k->pos = at;
				cur_skip(k, size);
				continue;
			}
			k->pos = at;
			text = malloc(size ? size : 1);
			if (!text)
				ret = -ENOMEM;
			else if (cur_get(k, text, size))
				ret = ctx_add(kb, b, system, text, size, pair, &list);
			free(text);
			k->pos = at;
			cur_skip(k, size);
		}
		free(system);
	}
	if (list && !ret)
		vmt_kv_add_str(kb, VMT_META_CONTEXT_EVENTS, list);
	free(list);
	free(b);
	return ret;
}

/* One format's name and id from its first bytes ("name: X\nID: N\n"). 0, or -ENOMEM. */
static int name_add(struct td_priv *nm, const char *system, const char *head, size_t n)
{
	const char *p = memmem(head, n, "name: ", 6), *e, *id = memmem(head, n, "\nID: ", 5);
	char num[16], *end;
	struct td_name *bigger;
	unsigned long v;
	size_t el, il;

	if (!p || !id)
		return 0;	/* cut or not a format: nothing to name */
	p += 6;
	e = memchr(p, '\n', n - (size_t)(p - head));
	id += 5;
	el = e ? (size_t)(e - p) : 0;
	il = (size_t)(head + n - id);
	if (il >= sizeof(num))
		il = sizeof(num) - 1;
	memcpy(num, id, il);
	num[il] = '\0';
	v = strtoul(num, &end, 10);
	if (!el || end == num || *end != '\n' || v >= VMT_EVCENSUS_IDS)
		return 0;
	if (!(nm->n & (nm->n + 1)) || !nm->v) {
		bigger = realloc(nm->v, (nm->n + 1) * 2 * sizeof(*bigger));
		if (!bigger)
			return -ENOMEM;
		nm->v = bigger;
	}
	nm->v[nm->n].id = (uint32_t)v;
	nm->v[nm->n].name = malloc(strlen(system) + el + 2);
	if (!nm->v[nm->n].name)
		return -ENOMEM;
	sprintf(nm->v[nm->n].name, "%s:%.*s", system, (int)el, p);
	nm->n++;
	return 0;
}

/* The names of every format in the formats at k. 0, -EBADMSG or -ENOMEM. */
static int read_names(struct cur *k, struct td_priv *nm)
{
	uint32_t nsys = cur_u32(k), s;
	int ret = 0;

	for (s = 0; s < nsys && !k->bad && !ret; s++) {
		char *system = cur_str(k, 4096);
		uint32_t nev = cur_u32(k), e;

		for (e = 0; e < nev && !k->bad && system && !ret; e++) {
			uint64_t size = cur_u64(k), at = k->pos;
			char head[256];
			size_t n = size < sizeof(head) ? (size_t)size : sizeof(head);

			if (cur_get(k, head, n))
				ret = name_add(nm, system, head, n);
			k->pos = at;
			cur_skip(k, size);
		}
		free(system);
	}
	return ret ? ret : k->bad ? -EBADMSG : 0;
}

static const char *name_of(const struct td_priv *nm, uint32_t id)
{
	size_t i;

	for (i = 0; nm && i < nm->n; i++)
		if (nm->v[i].id == id)
			return nm->v[i].name;
	return NULL;
}

/* What a census found, most records first (then by id): "records of A (n), ... and K more". */
#define HELD_SHOWN	4
#define HELD_MAX_BYTES	(256ull << 20)

static int tracedat_held_events(const struct vmt_source *s, char *buf, size_t size)
{
	struct vmt_evcensus *c = malloc(sizeof(*c));
	uint32_t top[HELD_SHOWN], id;
	unsigned int ntop = 0, k;
	uint64_t kinds = 0;
	size_t len = 0;
	int ret;

	if (!c)
		return -ENOMEM;
	ret = vmt_evcensus_count(s, HELD_MAX_BYTES, c);
	if (ret) {
		free(c);
		return ret;
	}
	for (id = 0; id < VMT_EVCENSUS_IDS; id++) {
		if (!c->records[id])
			continue;
		kinds++;
		/* insertion into the few kept, largest first; ties keep the smaller id first */
		for (k = ntop; k > 0 && c->records[top[k - 1]] < c->records[id]; k--)
			if (k < HELD_SHOWN)
				top[k] = top[k - 1];
		if (k < HELD_SHOWN) {
			top[k] = id;
			if (ntop < HELD_SHOWN)
				ntop++;
		}
	}
	if (!kinds)
		snprintf(buf, size, "no event records");
	ret = kinds > INT32_MAX ? INT32_MAX : (int)kinds;
	for (k = 0; k < ntop && len < size; k++) {
		const char *name = name_of(s->priv, top[k]);
		char idtext[24];

		snprintf(idtext, sizeof(idtext), "event id %u", top[k]);
		len += (size_t)snprintf(buf + len, size - len, "%s%s (%llu)",
					!k ? "records of " : k + 1 == kinds ? " and " : ", ",
					name ? name : idtext,
					(unsigned long long)c->records[top[k]]);
	}
	if (kinds > ntop && len < size)
		len += (size_t)snprintf(buf + len, size - len, " and %llu more event%s",
					(unsigned long long)(kinds - ntop),
					kinds - ntop == 1 ? "" : "s");
	if (c->cut && len < size)
		snprintf(buf + len, size - len, " in its first %llu MiB of pages",
			 HELD_MAX_BYTES >> 20);
	free(c);
	return ret;
}

/*
 * The pair's formats, or some of them, are not in the file: name what is missing, and what
 * the file holds instead.
 */
static void say_missing(const struct vmt_source *s, const struct want w[2], char *buf,
			size_t size)
{
	char held[320], what[400];

	if (!w[0].text && !w[1].text)
		snprintf(what, sizeof(what), "no %s or %s event format in the file", w[0].name,
			 w[1].name);
	else
		snprintf(what, sizeof(what), "no %s event format in the file (the pair %s,%s)",
			 !w[0].text ? w[0].name : w[1].name, w[0].name, w[1].name);
	if (tracedat_held_events(s, held, sizeof(held)) <= 0)
		snprintf(buf, size, "%s (choose the pair with --pair BEGIN,END)", what);
	else
		snprintf(buf, size, "%s; it holds %s: choose the pair with --pair BEGIN,END", what,
			 held);
}

/*
 * What the report's Format line says of the file: an instance's buffer by name; the
 * top-level buffer has none (trace-cmd's "" for it), so nothing is said of it.
 */
static void describe(struct vmt_source *s, const struct tracedat *td, const struct td_buffer *b)
{
	char which[96] = "";

	if (b->name[0])
		snprintf(which, sizeof(which), ", buffer \"%s\"", b->name);
	snprintf(s->description, sizeof(s->description), "trace-cmd trace.dat v%u, %s%s%s",
		 td->version, strcmp(td->compression, "none") ? td->compression : "uncompressed",
		 which, td->tsc2nsec ? ", tsc2nsec" : "");
}

/*
 * Add the event pair to the metadata: pair is "SYSTEM:BEGIN,SYSTEM:END" (NULL: kvm_exit /
 * kvm_entry); the description says what the file is. A pair missing from the file is
 * named in why (why_size bytes), other problems in *why.
 */
static int pair_meta(struct vmt_source *s, const struct tracedat *td, const char *pair,
		     const char **why, char *why_buf, size_t why_size)
{
	const struct td_buffer *b = &td->buf[td->chosen];
	struct vmt_kvbuf *kb = &s->meta;
	struct want w[2] = { { 0 }, { 0 } };
	char *names, *comma;
	uint8_t *buf = NULL;
	struct cur k;
	int ret;

	names = strdup(pair ? pair : VMT_TRACEDAT_DEFAULT_PAIR);
	if (!names)
		return -ENOMEM;
	comma = strchr(names, ',');
	if (!comma || !strchr(names, ':') || !strchr(comma + 1, ':') || strchr(comma + 1, ',')) {
		free(names);
		*why = "the event pair must be SYSTEM:BEGIN,SYSTEM:END";
		return -EINVAL;
	}
	*comma = '\0';
	w[0].name = names;
	w[1].name = comma + 1;
	if (td->version >= 7) {
		uint64_t len;

		ret = read_section(s, td, td->formats_off, OPT_EVENT_FORMATS, &buf, &len, why);
		if (ret) {
			free(names);
			return ret;
		}
		k = (struct cur){ -1, buf, 0, len, false, false };
	} else {
		k = (struct cur){ s->fd, NULL, td->formats_off, s->status.file_size, false, false };
	}
	ret = find_formats(&k, w, 2);
	if (!ret) {
		/* every event's name, for the words about a pair that is not there */
		struct td_priv *nm = s->priv;

		nm->hp = td->hp;
		nm->hp_ok = td->hp_ok;
		k.pos = td->version >= 7 ? 0 : td->formats_off;
		k.bad = false;
		ret = read_names(&k, nm);
	}
	if (!ret && w[0].text && w[1].text) {
		const char *const names2[2] = { w[0].name, w[1].name };

		/* the same bytes again, from the start: the pair's scan read them whole */
		k.pos = td->version >= 7 ? 0 : td->formats_off;
		k.bad = false;
		ret = ctx_meta(&s->meta, &k, names2);
	}
	free(buf);
	if (ret == -EBADMSG)
		*why = "damaged event formats section";
	else if (!ret && (!w[0].text || !w[1].text)) {
		say_missing(s, w, why_buf, why_size);
		ret = -ENOENT;
	}
	if (!ret) {
		vmt_kv_add_str(kb, VMT_META_EVENT_BEGIN, w[0].name);
		vmt_kv_add_str(kb, VMT_META_EVENT_END, w[1].name);
		vmt_kv_add(kb, VMT_META_FORMAT_BEGIN, w[0].text, w[0].len);
		vmt_kv_add(kb, VMT_META_FORMAT_END, w[1].text, w[1].len);
		describe(s, td, b);
		ret = kb->error;
	}
	free(w[0].text);
	free(w[1].text);
	free(names);
	return ret;
}

static void tracedat_close(struct vmt_source *s)
{
	priv_free(s->priv);
	s->priv = NULL;
}

static bool tracedat_probe(const uint8_t *head, size_t n)
{
	return n >= TRACEDAT_MAGIC_LEN && memcmp(head, TRACEDAT_MAGIC, TRACEDAT_MAGIC_LEN) == 0;
}

static int tracedat_open(struct vmt_source *s, const struct vmt_input_opts *opts, char *why,
			 size_t why_size)
{
	struct tracedat *td;
	struct td_priv *pv;
	const char *msg = NULL;
	int ret;

	/* its chunks do not state their times: read ahead round-robin over the CPUs' runs */
	s->order = VMT_ORDER_SEQ;
	td = calloc(1, sizeof(*td));
	pv = calloc(1, sizeof(*pv));
	if (!td || !pv) {
		free(td);
		free(pv);
		return -ENOMEM;
	}
	s->priv = pv;
	pv->status = &s->status;
	/* a copy takes the chunks as open cuts them: its pages judged before it reads one */
	pv->late = !opts->pages_at_open;
	ret = open_file(s, td, &msg);
	s->pages_late = pv->late;
	if (!ret) {
		msg = NULL;
		ret = pair_meta(s, td, opts->pair, &msg, why, why_size);
	}
	/* what failed in a file cut short: the cut, and where, rather than what ran into it */
	if (ret == -EBADMSG && say_cut(s, td, why, why_size))
		msg = NULL;
	if (ret && msg)
		snprintf(why, why_size, "%s", msg);
	tracedat_free(td);
	return ret;
}

/* A decompressed chunk's pages, for page_verdict(). */
struct raw_pages {
	const struct vmt_header_page *hp;
	const uint8_t *raw;
	uint32_t ps;
};

static enum page_kind raw_header(void *ctx, uint64_t q, uint64_t *ts)
{
	const struct raw_pages *r = ctx;

	return page_time(r->hp, r->raw + q * r->ps, r->ps, ts);
}

/*
 * Why a decompressed chunk's pages (raw) are damaged, as pages left out of stored data
 * would be (a length past its page, then page_verdict() among themselves: the pages of
 * the chunks before it are not at hand here), or NULL.
 */
static const char *chunk_damage(const struct vmt_header_page *hp,
				const struct vmt_chunk_info *ci, const uint8_t *raw)
{
	struct raw_pages r = { hp, raw, ci->page_size };
	struct page_order po = { .until = PAGE_TIME_MAX };
	const char *why = NULL;
	uint64_t p, t, n = ci->page_count;
	enum page_kind k;

	if (ci->page_size < hp->data_offset || !n)
		return NULL;
	for (p = 0; p < n; p++)
		if (raw_header(&r, p, &t) == PAGE_BAD_COMMIT)
			return WHY_COMMIT;
	for (p = 0; p < n && !why; p++)
		why = page_verdict(&po, p, n, raw_header, &r, &k, &t);
	return why;
}

static int tracedat_read_chunk(const struct vmt_source *s, size_t idx, struct vmt_chunkbuf *cb,
			       const char **why)
{
	const struct vmt_chunk_info *ci = &s->chunks[idx];
	const struct td_priv *nm = s->priv;
	ssize_t n;
	int ret;

	if (!(ci->flags & (VMT_CHUNK_ZSTD | VMT_CHUNK_ZLIB)))
		return vmt_source_read_stored(s, idx, cb, why);
	/* a compression chunk: no checksum, the size must come out */
	if (vmt_chunkbuf_grow(&cb->comp, &cb->comp_cap, ci->payload_size ? ci->payload_size : 1) ||
	    vmt_chunkbuf_grow(&cb->raw, &cb->raw_cap, ci->raw_size)) {
		*why = "out of memory";
		return -ENOMEM;
	}
	n = vmt_io_pread_full(s->fd, cb->comp, ci->payload_size, (off_t)ci->offset);
	if (n < 0 || (uint64_t)n != ci->payload_size) {
		*why = "cannot read the compressed chunk";
		return n < 0 ? (int)n : -EIO;
	}
	ret = decompress(ci, cb->comp, cb->raw, &cb->dctx, why);
	if (!ret && nm && nm->hp_ok && (*why = chunk_damage(&nm->hp, ci, cb->raw)) != NULL)
		ret = -EBADMSG;	/* its pages only come out here: damaged as a chunk that fails */
	return ret;
}

/* The CPU whose pages chunk idx holds, judged as read, and its first page; NULL: none. */
static struct td_pages *late_pages(const struct vmt_source *s, size_t idx, uint64_t *first)
{
	const struct vmt_chunk_info *ci = &s->chunks[idx];
	const struct td_priv *pv = s->priv;
	struct td_pages *c;

	if (!pv || !pv->late || ci->cpu >= VMT_CLI_MAX_CPUS || !pv->by_cpu ||
	    pv->by_cpu[ci->cpu] == UINT32_MAX)
		return NULL;
	c = &pv->cpu[pv->by_cpu[ci->cpu]];
	*first = (ci->offset - c->off) / c->ps;
	return c;
}

static uint32_t tracedat_check_pages(const struct vmt_source *s, size_t idx, uint32_t first,
				     uint32_t n, const uint8_t *raw)
{
	uint64_t p0, p;
	struct td_pages *c = late_pages(s, idx, &p0);
	uint32_t begun = 0;

	if (!c)
		return first ? 0 : 1;
	p0 += first;
	judge(s, s->priv, c, p0 + n, p0, n, raw);
	for (p = p0; p < p0 + n && p < c->pages; p++)
		begun += (c->begins[p / 8] >> (p % 8)) & 1;
	return begun;
}

static bool tracedat_left_out(const struct vmt_source *s, size_t idx, uint32_t page)
{
	uint64_t p;
	struct td_pages *c = late_pages(s, idx, &p);

	p += page;
	return c && p < c->pages && (c->left[p / 8] >> (p % 8)) & 1;
}

static size_t tracedat_nchunks_counted(const struct vmt_source *s)
{
	const struct td_priv *pv = s->priv;
	size_t n = s->nchunks;
	uint32_t i;

	/* a CPU not judged to its end: its chunks as read (what open cut, but for damage) */
	for (i = 0; pv && pv->late && i < pv->ncpu; i++)
		if (pv->cpu[i].done == pv->cpu[i].pages)
			n = n - pv->cpu[i].fixed + (size_t)pv->cpu[i].counted;
	return n;
}

const struct vmt_source_ops vmt_source_tracedat_ops = {
	.name = "trace.dat",
	.what = "a trace.dat",
	.magic = TRACEDAT_MAGIC,
	.magic_len = TRACEDAT_MAGIC_LEN,
	.no_format_dir = "--format-dir does not apply: a trace.dat carries its own event formats",
	.probe = tracedat_probe,
	.open = tracedat_open,
	.read_chunk = tracedat_read_chunk,
	.close = tracedat_close,
	.held_events = tracedat_held_events,
	.check_pages = tracedat_check_pages,
	.left_out = tracedat_left_out,
	.nchunks_counted = tracedat_nchunks_counted,
};
