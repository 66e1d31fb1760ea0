// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracedat: the committed trace-cmd files (tests/data/tracedat, see make-tracedat.sh)
 * opened as containers and readers: chunks, buffer choice, clock, tsc2nsec, stats, the
 * pair's formats; and hand-made headers that must be refused with their reason.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <cmocka.h>

#include "bytes.h"
#include "container.h"
#include "io.h"
#include "kv.h"
#include "reader.h"
#include "tracedat.h"

#define SYSCALLS "raw_syscalls:sys_enter,raw_syscalls:sys_exit"

static const char *data(const char *name)
{
	static char p[512];

	snprintf(p, sizeof(p), "%s/tests/data/tracedat/%s", TOP_SRCDIR, name);
	return p;
}

static uint64_t count_records(struct vmt_reader *r, uint64_t *gaps)
{
	struct vmt_item it;
	uint64_t n = 0, last = 0;

	*gaps = 0;
	while (vmt_reader_next(r, &it) > 0) {
		assert_true(it.ts >= last);
		last = it.ts;
		if (it.kind == VMT_ITEM_RECORD)
			n++;
		else
			(*gaps)++;
	}
	return n;
}

static void test_v7_zstd(void **state)
{
	struct vmt_reader *r;
	const char *why = NULL;
	uint64_t gaps;
	char *s;
	size_t i;

	(void)state;
	assert_int_equal(vmt_reader_open(data("kvm.v7zstd.dat"), &r, &why), 0);
	assert_non_null(r->c->tracedat);
	assert_true(r->c->finished);
	assert_true(r->c->nchunks >= 1);
	for (i = 0; i < r->c->nchunks; i++) {
		assert_int_equal(r->c->chunks[i].cpu, 1);
		assert_int_equal(r->c->chunks[i].page_size, 4096);
		assert_int_equal(r->c->chunks[i].flags, VMT_CHUNK_ZSTD);
	}
	/* the start comes from the first chunk's first page, read at open */
	assert_int_not_equal(vmt_reader_start_ts(r), 0);
	assert_string_equal(r->begin_name, "kvm:kvm_exit");
	assert_string_equal(r->clock, "local");
	assert_string_equal(r->source, "trace-cmd trace.dat v7, zstd, buffer \"\"");
	s = vmt_reader_meta(r, "kernel.release");
	assert_non_null(s);
	assert_string_equal(s, "6.1.0-57-amd64");
	free(s);
	assert_int_equal(count_records(r, &gaps), 1248);
	assert_int_equal(gaps, 0);
	vmt_reader_close(r);
}

/* The zlib file and the v6 file hold the same pages as the zstd one. */
static void test_same_pages(void **state)
{
	static const char *const files[] = { "kvm.v6.dat", "kvm.v7zlib.dat" };
	unsigned int f;

	(void)state;
	for (f = 0; f < 2; f++) {
		struct vmt_reader *r;
		uint64_t gaps;

		assert_int_equal(vmt_reader_open(data(files[f]), &r, NULL), 0);
		assert_int_equal(count_records(r, &gaps), 1248);
		vmt_reader_close(r);
	}
}

/* trace-cmd extract -B: the instance's buffer, its CPUs and its stats; v6 and v7. */
static void test_instance_buffer(void **state)
{
	static const char *const files[] = { "syscalls-extract.dat", "syscalls-extract.v6.dat" };
	struct vmt_input_opts in = { NULL, SYSCALLS };
	unsigned int f;

	(void)state;
	for (f = 0; f < 2; f++) {
		struct vmt_reader *r;
		bool known;
		uint64_t gaps, lost, n;

		assert_int_equal(vmt_reader_open_ex(data(files[f]), &in, &r, NULL), 0);
		assert_non_null(strstr(r->source, "buffer \"vmtrace-fixture\""));
		assert_int_equal(r->cpus.n, 2);
		lost = vmt_reader_stats_lost(r, &known);
		assert_true(known);
		assert_true(lost > 0);
		n = count_records(r, &gaps);
		assert_int_equal(n, 1465);
		assert_true(gaps > 0);
		/* the ring buffer's count and the pages' own counts agree */
		assert_int_equal(r->st.missed_events, lost);
		vmt_reader_close(r);
	}
}

static void test_tsc2nsec(void **state)
{
	struct vmt_input_opts in = { NULL, SYSCALLS };
	struct vmt_reader *r;
	uint64_t t = 123456789012345ull;

	(void)state;
	assert_int_equal(vmt_reader_open_ex(data("tsc2nsec.dat"), &in, &r, NULL), 0);
	assert_string_equal(r->clock, "x86-tsc");
	assert_int_not_equal(r->tsc_mult, 0);
	assert_true(vmt_reader_clock_in_ns(r));
	assert_int_equal(vmt_reader_ns(r, t),
			 (uint64_t)(((unsigned __int128)t * r->tsc_mult) >> r->tsc_shift));
	vmt_reader_close(r);
}

static void test_missing_pair(void **state)
{
	struct vmt_input_opts in = { NULL, "kvm:kvm_exit,kvm:nope" };
	struct vmt_reader *r;
	const char *why = NULL;

	(void)state;
	assert_int_equal(vmt_reader_open_ex(data("kvm.v6.dat"), &in, &r, &why), -ENOENT);
	assert_non_null(strstr(why, "no kvm:nope event format"));
	in.pair = "kvm:kvm_exit";
	assert_int_equal(vmt_reader_open_ex(data("kvm.v6.dat"), &in, &r, &why), -EINVAL);
}

/* Write bytes to a temporary file and open it as a container. */
static int open_bytes(const void *buf, size_t len, const char **why)
{
	char path[] = "/tmp/vmtrace-td-XXXXXX";
	struct vmt_container *c = NULL;
	int fd = mkstemp(path), ret;

	assert_true(fd >= 0);
	assert_int_equal(vmt_io_write_full(fd, buf, len), 0);
	close(fd);
	ret = vmt_container_open(path, &c, why);
	vmt_container_close(c);
	unlink(path);
	return ret;
}

static size_t header(uint8_t *b, const char *version, uint8_t endian, uint32_t page)
{
	size_t n = 0;

	memcpy(b, VMT_TRACEDAT_MAGIC, VMT_TRACEDAT_MAGIC_LEN);
	n += VMT_TRACEDAT_MAGIC_LEN;
	memcpy(b + n, version, strlen(version) + 1);
	n += strlen(version) + 1;
	b[n++] = endian;
	b[n++] = 8;
	put_le32(b + n, page);
	return n + 4;
}

static void test_hostile_headers(void **state)
{
	uint8_t b[256];
	const char *why;
	size_t n;

	(void)state;
	memset(b, 0, sizeof(b));
	n = header(b, "9", 0, 4096);
	assert_int_equal(open_bytes(b, n + 64, &why), -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "unsupported trace.dat version"));
	n = header(b, "7", 1, 4096);
	assert_int_equal(open_bytes(b, n + 64, &why), -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "big-endian"));
	n = header(b, "6", 0, 0);
	assert_int_equal(open_bytes(b, n + 64, &why), -EBADMSG);
	assert_non_null(strstr(why, "page size"));
	/* v7: unknown compression */
	n = header(b, "7", 0, 4096);
	memcpy(b + n, "lz4\0001\000", 6);
	assert_int_equal(open_bytes(b, n + 6 + 8, &why), -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "unknown algorithm"));
	/* v7: options offset past the end */
	memcpy(b + n, "none\000\000", 6);
	put_le64(b + n + 6, 1u << 30);
	assert_int_equal(open_bytes(b, n + 6 + 8, &why), -EBADMSG);
	assert_non_null(strstr(why, "past the end"));
	/* v7: an options section whose DONE option points at itself */
	{
		size_t opt = n + 6 + 8, p = opt;

		put_le64(b + n + 6, opt);
		put_le16(b + p, 0);		/* section id: options */
		put_le16(b + p + 2, 0);
		put_le32(b + p + 4, 0);
		put_le64(b + p + 8, 14);
		p += 16;
		put_le16(b + p, 0);		/* DONE */
		put_le32(b + p + 2, 8);
		put_le64(b + p + 6, opt);
		p += 14;
		assert_int_equal(open_bytes(b, p, &why), -EBADMSG);
		assert_non_null(strstr(why, "too many options sections"));
	}
	/* v6: cut inside the headers */
	n = header(b, "6", 0, 4096);
	memcpy(b + n, "header_page", 12);
	put_le64(b + n + 12, 100000);
	assert_int_equal(open_bytes(b, n + 20, &why), -EBADMSG);
	assert_non_null(strstr(why, "header_page"));
}

static void test_decompress_checks_size(void **state)
{
	uint8_t raw[4096], comp[8192], out[8192];
	struct vmt_chunk_info ci = { 0 };
	uLongf clen = sizeof(comp);
	const char *why = NULL;
	void *ctx = NULL;

	(void)state;
	memset(raw, 0x5a, sizeof(raw));
	assert_int_equal(compress2(comp, &clen, raw, sizeof(raw), 6), Z_OK);
	ci.flags = VMT_CHUNK_ZLIB;
	ci.payload_size = clen;
	ci.raw_size = sizeof(raw);
	assert_int_equal(vmt_tracedat_decompress(&ci, comp, out, &ctx, &why), 0);
	assert_memory_equal(out, raw, sizeof(raw));
	ci.raw_size = 2 * sizeof(raw);	/* says more than the stream holds */
	assert_int_equal(vmt_tracedat_decompress(&ci, comp, out, &ctx, &why), -EBADMSG);
	assert_non_null(strstr(why, "zlib"));
	ci.flags = VMT_CHUNK_ZSTD;	/* a zlib stream is no zstd frame */
	ci.raw_size = sizeof(raw);
	assert_int_equal(vmt_tracedat_decompress(&ci, comp, out, &ctx, &why), -EBADMSG);
	assert_non_null(strstr(why, "zstd"));
	ZSTD_freeDCtx(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v7_zstd),
		cmocka_unit_test(test_same_pages),
		cmocka_unit_test(test_instance_buffer),
		cmocka_unit_test(test_tsc2nsec),
		cmocka_unit_test(test_missing_pair),
		cmocka_unit_test(test_hostile_headers),
		cmocka_unit_test(test_decompress_checks_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
