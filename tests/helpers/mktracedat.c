// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mktracedat (tests only): writes a .vmt recording's pages and metadata as a trace-cmd
 * trace.dat, laid out as trace-cmd.dat.v6(5) / trace-cmd.dat.v7(5) describe, so tests
 * can feed the same pages to trace-cmd (the oracle) and to our reader, including what
 * this machine's trace-cmd cannot write itself (zlib, tsc2nsec, many CPUs).
 *
 *   mktracedat [-V 6|7] [-z none|zstd|zlib] [-n PAGES_PER_CHUNK] [-b NAME] [-m MAX_PAGES]
 *              IN.vmt OUT.dat
 *
 * -m keeps each CPU's first MAX_PAGES pages only (small fixtures from big recordings).
 * -b puts the data in an instance buffer NAME (v7; the top buffer stays empty, as
 * `trace-cmd extract -B` writes it). An x86-tsc recording with a known rate gets a
 * TSC2NSEC option (mult, shift) equal to that rate.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "bytes.h"
#include "io.h"
#include "kv.h"
#include "metakeys.h"
#include "reader.h"

/* trace-cmd.dat.v7(5): the file's first 10 bytes */
#define TRACEDAT_MAGIC "\x17\x08\x44tracing"

struct out {
	uint8_t *buf;
	size_t len, cap;
};

static void grow(struct out *o, size_t n)
{
	if (o->len + n <= o->cap)
		return;
	while (o->len + n > o->cap)
		o->cap = o->cap ? o->cap * 2 : 1 << 16;
	o->buf = realloc(o->buf, o->cap);
	if (!o->buf) {
		perror("mktracedat");
		exit(1);
	}
}

static void put(struct out *o, const void *p, size_t n)
{
	if (!n)
		return;		/* p may be NULL (an empty buffer) */
	grow(o, n);
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void put16(struct out *o, uint16_t v)
{
	uint8_t b[2];

	put_le16(b, v);
	put(o, b, 2);
}

static void put32(struct out *o, uint32_t v)
{
	uint8_t b[4];

	put_le32(b, v);
	put(o, b, 4);
}

static void put64(struct out *o, uint64_t v)
{
	uint8_t b[8];

	put_le64(b, v);
	put(o, b, 8);
}

static void putstr(struct out *o, const char *s)
{
	put(o, s, strlen(s) + 1);
}

static void pad_to(struct out *o, size_t align)
{
	static const uint8_t zero[1];

	while (o->len % align)
		put(o, zero, 1);
}

static const char header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";

static int version = 7;
static const char *comp = "zstd";

/* Compress in; returns the compressed size written at o's end. */
static size_t compress_into(struct out *o, const void *in, size_t n)
{
	size_t bound = strcmp(comp, "zlib") == 0 ? compressBound(n) : ZSTD_compressBound(n);
	size_t got;

	grow(o, bound);
	if (strcmp(comp, "zlib") == 0) {
		uLongf dst = bound;

		if (compress2(o->buf + o->len, &dst, in, n, 6) != Z_OK) {
			fprintf(stderr, "mktracedat: zlib failed\n");
			exit(1);
		}
		got = dst;
	} else {
		got = ZSTD_compress(o->buf + o->len, bound, in, n, 3);
		if (ZSTD_isError(got)) {
			fprintf(stderr, "mktracedat: zstd failed\n");
			exit(1);
		}
	}
	o->len += got;
	return got;
}

static bool compressed(void)
{
	return version >= 7 && strcmp(comp, "none") != 0;
}

/* A v7 section: header, then body (compressed as a block when the file is). */
static uint64_t section(struct out *o, uint16_t id, const struct out *body)
{
	uint64_t at = o->len;
	size_t size_at;

	put16(o, id);
	put16(o, compressed() ? 1 : 0);
	put32(o, 0);
	size_at = o->len;
	put64(o, 0);
	if (compressed()) {
		size_t csize_at = o->len, c;

		put32(o, 0);
		put32(o, (uint32_t)body->len);
		c = compress_into(o, body->buf, body->len);
		put_le32(o->buf + csize_at, (uint32_t)c);
		put_le64(o->buf + size_at, 8 + c);
	} else {
		put(o, body->buf, body->len);
		put_le64(o->buf + size_at, body->len);
	}
	return at;
}

struct cpu_pages {
	uint32_t cpu;
	struct out pages;
	uint64_t off, size;
};

int main(int argc, char **argv)
{
	const char *buffer = "", *in, *outpath;
	unsigned int chunk_pages = 16, max_pages = 0;
	struct vmt_chunkbuf cb = { 0 };
	struct vmt_reader *r;
	const struct vmt_source *src;
	const struct vmt_cpulist *cpus;
	const uint8_t *meta;
	size_t meta_len;
	struct cpu_pages *cp = NULL;
	uint32_t ncp = 0, page_size = 4096, i, maxcpu = 0;
	struct out o = { 0 }, hdr = { 0 }, fmts = { 0 }, opts = { 0 }, empty = { 0 };
	const char *why = NULL, *fb, *fe;
	char open_why[320];
	uint32_t lb, le;
	char *clock, *sysb, *syse, *evb, *eve;
	int opt, fd;
	size_t k;

	while ((opt = getopt(argc, argv, "V:z:n:b:m:")) != -1) {
		switch (opt) {
		case 'V':
			version = atoi(optarg);
			break;
		case 'z':
			comp = optarg;
			break;
		case 'n':
			chunk_pages = (unsigned int)atoi(optarg);
			break;
		case 'b':
			buffer = optarg;
			break;
		case 'm':
			max_pages = (unsigned int)atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (argc - optind != 2 || (version != 6 && version != 7) || !chunk_pages) {
		fprintf(stderr, "usage: mktracedat [-V 6|7] [-z none|zstd|zlib] [-n PAGES] "
			"[-b NAME] [-m MAX_PAGES] IN.vmt OUT.dat\n");
		return 2;
	}
	in = argv[optind];
	outpath = argv[optind + 1];
	if (vmt_reader_open(in, NULL, &r, open_why, sizeof(open_why))) {
		fprintf(stderr, "mktracedat: %s: %s\n", in, open_why);
		return 1;
	}
	src = vmt_reader_source(r);
	meta = vmt_source_meta(src, &meta_len);
	cpus = vmt_reader_cpus(r);
	/* pages per CPU, in file order */
	for (i = 0; i < cpus->n; i++) {
		cp = realloc(cp, (ncp + 1) * sizeof(*cp));
		memset(&cp[ncp], 0, sizeof(*cp));
		cp[ncp++].cpu = cpus->cpu[i];
	}
	for (k = 0; k < vmt_source_nchunks(src); k++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(src, k);
		struct cpu_pages *p = NULL;

		for (i = 0; i < ncp; i++)
			if (cp[i].cpu == ci->cpu)
				p = &cp[i];
		if (!p) {
			cp = realloc(cp, (ncp + 1) * sizeof(*cp));
			memset(&cp[ncp], 0, sizeof(*cp));
			cp[ncp].cpu = ci->cpu;
			p = &cp[ncp++];
		}
		if (vmt_source_read_chunk(src, k, &cb, &why)) {
			fprintf(stderr, "mktracedat: %s: %s\n", in, why);
			return 1;
		}
		page_size = ci->page_size;
		if (!max_pages)
			put(&p->pages, cb.raw, ci->raw_size);
		else if (p->pages.len < (size_t)max_pages * page_size)
			put(&p->pages, cb.raw, ci->raw_size < (size_t)max_pages * page_size -
			    p->pages.len ? ci->raw_size : (size_t)max_pages * page_size -
			    p->pages.len);
	}
	for (i = 0; i < ncp; i++)
		if (cp[i].cpu > maxcpu)
			maxcpu = cp[i].cpu;

	/* header info, as in both versions */
	fb = (const char *)vmt_kv_get(meta, meta_len, VMT_META_HEADER_PAGE, &lb);
	putstr(&hdr, "header_page");
	put64(&hdr, lb);
	put(&hdr, fb, lb);
	putstr(&hdr, "header_event");
	put64(&hdr, sizeof(header_event) - 1);
	put(&hdr, header_event, sizeof(header_event) - 1);
	/* event formats: one system per event (or one for both) */
	fb = (const char *)vmt_kv_get(meta, meta_len, VMT_META_FORMAT_BEGIN, &lb);
	fe = (const char *)vmt_kv_get(meta, meta_len, VMT_META_FORMAT_END, &le);
	sysb = strdup(vmt_reader_begin_name(r));
	syse = strdup(vmt_reader_end_name(r));
	evb = strchr(sysb, ':');
	eve = strchr(syse, ':');
	*evb = *eve = '\0';
	if (strcmp(sysb, syse) == 0) {
		put32(&fmts, 1);
		putstr(&fmts, sysb);
		put32(&fmts, 2);
		put64(&fmts, lb);
		put(&fmts, fb, lb);
		put64(&fmts, le);
		put(&fmts, fe, le);
	} else {
		put32(&fmts, 2);
		putstr(&fmts, sysb);
		put32(&fmts, 1);
		put64(&fmts, lb);
		put(&fmts, fb, lb);
		putstr(&fmts, syse);
		put32(&fmts, 1);
		put64(&fmts, le);
		put(&fmts, fe, le);
	}
	clock = vmt_reader_meta(r, VMT_META_CLOCK);

	/* the common options */
	{
		char text[512];
		char *kernel = vmt_reader_meta(r, "kernel.release");
		double ns_per_tick = vmt_reader_clock(r)->ns_per_tick;

		snprintf(text, sizeof(text), "local global counter uptime perf mono mono_raw boot "
			 "tai x86-tsc");
		{
			/* bracket the recording's clock, as the trace_clock file does */
			char sel[512], *p = strstr(text, clock ? clock : "local");

			if (p) {
				size_t l = strlen(clock ? clock : "local");

				snprintf(sel, sizeof(sel), "%.*s[%.*s]%s", (int)(p - text), text,
					 (int)l, p, p + l);
				strcpy(text, sel);
			}
		}
		put16(&opts, 4);
		put32(&opts, (uint32_t)strlen(text) + 2);
		put(&opts, text, strlen(text));
		put(&opts, "\n", 2);
		snprintf(text, sizeof(text), "Linux testhost %s #1 SMP x86_64",
			 kernel ? kernel : "6.1.0");
		free(kernel);
		put16(&opts, 5);
		put32(&opts, (uint32_t)strlen(text) + 1);
		putstr(&opts, text);
		if (ns_per_tick != 0 && ns_per_tick != 1.0) {
			/* mult / 2^shift == ns per tick */
			uint32_t shift = 24, mult = (uint32_t)llround(ns_per_tick * (1 << 24));

			put16(&opts, 14);
			put32(&opts, 16);
			put32(&opts, mult);
			put32(&opts, shift);
			put64(&opts, 0);
		}
		if (*buffer) {
			/* the top buffer's stats, then the instance's, as trace-cmd does */
			snprintf(text, sizeof(text), "\nBuffer: %s\n\n", buffer);
			put16(&opts, 2);
			put32(&opts, (uint32_t)strlen(text) + 1);
			putstr(&opts, text);
		}
		for (i = 0; i < ncp; i++) {
			char key[64], *st;

			snprintf(key, sizeof(key), "stats.end.cpu%u", cp[i].cpu);
			st = vmt_reader_meta(r, key);
			if (!st)
				continue;
			snprintf(text, sizeof(text), "CPU: %u\n%s", cp[i].cpu, st);
			free(st);
			put16(&opts, 2);
			put32(&opts, (uint32_t)strlen(text) + 1);
			putstr(&opts, text);
		}
	}

	put(&o, TRACEDAT_MAGIC, 10);
	putstr(&o, version == 6 ? "6" : "7");
	put(&o, "\0\x08", 2);
	put32(&o, page_size);
	if (version == 6) {
		size_t table;

		put(&o, hdr.buf, hdr.len);
		put32(&o, 0);			/* ftrace formats */
		put(&o, fmts.buf, fmts.len);
		put32(&o, 0);			/* kallsyms */
		put32(&o, 0);			/* printk formats */
		put64(&o, 0);			/* saved command lines */
		put32(&o, maxcpu + 1);
		put(&o, "options  ", 10);
		put(&o, opts.buf, opts.len);
		put16(&o, 0);
		put(&o, "flyrecord", 10);
		table = o.len;
		for (i = 0; i <= maxcpu; i++) {
			put64(&o, 0);
			put64(&o, 0);
		}
		pad_to(&o, page_size);
		for (i = 0; i < ncp; i++) {
			put_le64(o.buf + table + 16 * cp[i].cpu, o.len);
			put_le64(o.buf + table + 16 * cp[i].cpu + 8, cp[i].pages.len);
			put(&o, cp[i].pages.buf, cp[i].pages.len);
		}
	} else {
		uint64_t opt_at, hdr_at, fmt_at, ftr_at, fly_at, top_at = 0;
		struct out ftrace = { 0 }, b = { 0 }, all = { 0 };
		size_t optoff_at, fly_size_at, bufopt_at;

		if (compressed()) {
			putstr(&o, comp);
			putstr(&o, strcmp(comp, "zlib") == 0 ? zlibVersion() : ZSTD_versionString());
		} else {
			putstr(&o, "none");
			putstr(&o, "");
		}
		optoff_at = o.len;
		put64(&o, 0);
		hdr_at = section(&o, 16, &hdr);
		put32(&ftrace, 0);
		ftr_at = section(&o, 17, &ftrace);
		fmt_at = section(&o, 18, &fmts);
		/* the options section: offsets of the above, the common ones, BUFFER */
		put16(&all, 16);
		put32(&all, 8);
		put64(&all, hdr_at);
		put16(&all, 17);
		put32(&all, 8);
		put64(&all, ftr_at);
		put16(&all, 18);
		put32(&all, 8);
		put64(&all, fmt_at);
		put16(&all, 8);
		put32(&all, 4);
		put32(&all, maxcpu + 1);
		put(&all, opts.buf, opts.len);
		if (*buffer) {
			/* an empty top buffer, as `trace-cmd extract -B` leaves it */
			top_at = 1;
			put16(&all, 3);
			put32(&all, 8 + 1 + (uint32_t)strlen(clock ? clock : "local") + 1 + 8);
			put64(&all, 0);	/* patched below */
			putstr(&all, "");
			putstr(&all, clock ? clock : "local");
			put32(&all, page_size);
			put32(&all, 0);
		}
		put16(&all, 3);
		put32(&all, 8 + (uint32_t)strlen(buffer) + 1 + (uint32_t)strlen(clock ? clock :
			"local") + 1 + 8 + 20 * ncp);
		bufopt_at = all.len;
		put64(&all, 0);
		putstr(&all, buffer);
		putstr(&all, clock ? clock : "local");
		put32(&all, page_size);
		put32(&all, ncp);
		for (i = 0; i < ncp; i++) {
			put32(&all, cp[i].cpu);
			put64(&all, 0);
			put64(&all, 0);
		}
		put16(&all, 0);
		put32(&all, 8);
		put64(&all, 0);
		/* options stay uncompressed, so they can be patched after the data is placed */
		opt_at = o.len;
		put16(&o, 0);
		put16(&o, 0);
		put32(&o, 0);
		put64(&o, all.len);
		{
			size_t all_at = o.len;

			put(&o, all.buf, all.len);
			put_le64(o.buf + optoff_at, opt_at);
			if (top_at) {
				/* the empty top buffer's (empty) section */
				uint64_t at = o.len;

				put16(&o, 3);
				put16(&o, 0);
				put32(&o, 0);
				put64(&o, 0);
				/* its BUFFER option is the one after the opts */
				put_le64(o.buf + all_at + 3 * 14 + 10 + opts.len + 6, at);
			}
			fly_at = o.len;
			put16(&o, 3);
			put16(&o, compressed() ? 1 : 0);
			put32(&o, 0);
			fly_size_at = o.len;
			put64(&o, 0);
			pad_to(&o, page_size);
			for (i = 0; i < ncp; i++) {
				size_t at = o.len, count_at, p, npages = cp[i].pages.len / page_size;
				uint32_t nchunks = 0;

				if (!compressed()) {
					put(&o, cp[i].pages.buf, cp[i].pages.len);
					cp[i].off = at;
					cp[i].size = cp[i].pages.len;
					continue;
				}
				if (!npages) {
					cp[i].off = cp[i].size = 0;
					continue;
				}
				count_at = o.len;
				put32(&o, 0);
				for (p = 0; p < npages; p += chunk_pages) {
					size_t n = npages - p < chunk_pages ? npages - p : chunk_pages;
					size_t csize_at = o.len, c;

					put32(&o, 0);
					put32(&o, (uint32_t)(n * page_size));
					c = compress_into(&o, cp[i].pages.buf + p * page_size,
							  n * page_size);
					put_le32(o.buf + csize_at, (uint32_t)c);
					nchunks++;
				}
				put_le32(o.buf + count_at, nchunks);
				cp[i].off = at;
				/* trace-cmd's size leaves out the 4-byte chunk count */
				cp[i].size = o.len - at - 4;
				pad_to(&o, page_size);
			}
			put_le64(o.buf + fly_size_at, o.len - fly_size_at - 8);
			put_le64(o.buf + all_at + bufopt_at, fly_at);
			for (i = 0; i < ncp; i++) {
				size_t at = all_at + bufopt_at + 8 + strlen(buffer) + 1 +
					    strlen(clock ? clock : "local") + 1 + 8 + 20 * i;

				put_le64(o.buf + at + 4, cp[i].off);
				put_le64(o.buf + at + 12, cp[i].size);
			}
		}
		free(ftrace.buf);
		free(b.buf);
		free(all.buf);
	}
	fd = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || vmt_io_write_full(fd, o.buf, o.len) || close(fd)) {
		perror(outpath);
		return 1;
	}
	for (i = 0; i < ncp; i++)
		free(cp[i].pages.buf);
	free(cp);
	free(o.buf);
	free(hdr.buf);
	free(fmts.buf);
	free(opts.buf);
	free(empty.buf);
	free(clock);
	free(sysb);
	free(syse);
	vmt_chunkbuf_free(&cb);
	vmt_reader_close(r);
	return 0;
}
