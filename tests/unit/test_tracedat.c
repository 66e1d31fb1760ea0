// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracedat: the trace.dat loader (source_tracedat.c), through vmt_source_open and
 * vmt_reader_open, on the committed trace-cmd files (tests/data/tracedat, see
 * make-tracedat.sh): chunks, buffer choice, clock, tsc2nsec, stats, the pair's formats,
 * the context events' formats (against what the fixture's events/ held and what
 * `trace-cmd report` printed of it), chunks that do not decompress to their stated size;
 * and hand-made headers that must be refused with their reason.
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
#include <cmocka.h>

#include "bytes.h"
#include "ctxevent.h"
#include "io.h"
#include "kv.h"
#include "reader.h"
#include "source.h"

/* trace-cmd.dat.v7(5): the file's first 10 bytes */
#define TRACEDAT_MAGIC		"\x17\x08\x44tracing"
#define TRACEDAT_MAGIC_LEN	10

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
	const struct vmt_source *src;
	struct vmt_reader *r;
	char why[128];
	uint64_t gaps;
	char *s;
	size_t i;

	(void)state;
	assert_int_equal(vmt_reader_open(data("kvm.v7zstd.dat"), NULL, &r, why, sizeof(why)), 0);
	src = vmt_reader_source(r);
	assert_string_equal(vmt_source_format(src), "trace.dat");
	assert_int_equal(vmt_source_order(src), VMT_ORDER_SEQ);
	assert_true(vmt_source_uses_pair(src));
	assert_false(vmt_source_uses_format_dir(src));
	assert_true(vmt_source_status(src)->finished);
	assert_true(vmt_source_nchunks(src) >= 1);
	for (i = 0; i < vmt_source_nchunks(src); i++) {
		assert_int_equal(vmt_source_chunk(src, i)->cpu, 1);
		assert_int_equal(vmt_source_chunk(src, i)->page_size, 4096);
		assert_int_equal(vmt_source_chunk(src, i)->flags, VMT_CHUNK_ZSTD);
		assert_int_equal(vmt_source_chunk(src, i)->seq, i);
	}
	/* the start comes from the first chunk's first page, read at open */
	assert_int_not_equal(vmt_reader_start_ts(r), 0);
	assert_string_equal(vmt_reader_begin_name(r), "kvm:kvm_exit");
	assert_string_equal(vmt_reader_clock_name(r), "local");
	assert_string_equal(vmt_source_description(src),
			    "trace-cmd trace.dat v7, zstd");
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

		assert_int_equal(vmt_reader_open(data(files[f]), NULL, &r, NULL, 0), 0);
		assert_int_equal(count_records(r, &gaps), 1248);
		vmt_reader_close(r);
	}
}

/* trace-cmd extract -B: the instance's buffer, its CPUs and its stats; v6 and v7. */
static void test_instance_buffer(void **state)
{
	static const char *const files[] = { "syscalls-extract.dat", "syscalls-extract.v6.dat" };
	struct vmt_input_opts in = { .pair = SYSCALLS };
	unsigned int f;

	(void)state;
	for (f = 0; f < 2; f++) {
		struct vmt_reader *r;
		bool known;
		uint64_t gaps, lost, n;

		assert_int_equal(vmt_reader_open(data(files[f]), &in, &r, NULL, 0), 0);
		assert_non_null(strstr(vmt_source_description(vmt_reader_source(r)),
				       "buffer \"vmtrace-fixture\""));
		assert_int_equal(vmt_reader_cpus(r)->n, 2);
		lost = vmt_reader_stats_lost(r, &known);
		assert_true(known);
		assert_true(lost > 0);
		n = count_records(r, &gaps);
		assert_int_equal(n, 1465);
		assert_true(gaps > 0);
		/* the ring buffer's count and the pages' own counts agree */
		assert_int_equal(vmt_reader_stats(r)->missed_events, lost);
		vmt_reader_close(r);
	}
}

static void test_tsc2nsec(void **state)
{
	struct vmt_input_opts in = { .pair = SYSCALLS };
	const struct vmt_clock *clk;
	struct vmt_reader *r;
	uint64_t t = 123456789012345ull;

	(void)state;
	assert_int_equal(vmt_reader_open(data("tsc2nsec.dat"), &in, &r, NULL, 0), 0);
	assert_string_equal(vmt_reader_clock_name(r), "x86-tsc");
	clk = vmt_reader_clock(r);
	assert_int_not_equal(clk->tsc_mult, 0);
	assert_true(vmt_clock_in_ns(clk));
	assert_int_equal(vmt_clock_ns(clk, t),
			 (uint64_t)(((unsigned __int128)t * clk->tsc_mult) >> clk->tsc_shift));
	vmt_reader_close(r);
}

static void test_missing_pair(void **state)
{
	struct vmt_input_opts in = { .pair = "kvm:kvm_exit,kvm:nope" };
	struct vmt_reader *r;
	char why[320];

	(void)state;
	assert_int_equal(vmt_reader_open(data("kvm.v6.dat"), &in, &r, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "no kvm:nope event format in the file (the pair "
			    "kvm:kvm_exit,kvm:nope); it holds records of kvm:kvm_exit (624) and "
			    "kvm:kvm_entry (624): choose the pair with --pair BEGIN,END");
	in.pair = "kvm:kvm_exit";
	assert_int_equal(vmt_reader_open(data("kvm.v6.dat"), &in, &r, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "the event pair must be SYSTEM:BEGIN,SYSTEM:END");
}

/*
 * What a file holds besides the pair: its pages' records per event, named from its formats;
 * the counts are trace-cmd report's lines of each event (syscalls-extract.report.txt.gz).
 */
static void test_held_events(void **state)
{
	struct vmt_input_opts in = { .pair = "raw_syscalls:sys_enter,raw_syscalls:sys_exit" };
	struct vmt_source *s;
	char held[160], small[12];

	(void)state;
	assert_int_equal(vmt_source_open(data("syscalls-extract.dat"), &in, &s, held,
					 sizeof(held)), 0);
	assert_int_equal(vmt_source_held_events(s, held, sizeof(held)), 2);
	assert_string_equal(held, "records of raw_syscalls:sys_enter (733) and "
			    "raw_syscalls:sys_exit (732)");
	/* cut to the buffer, never past it */
	assert_int_equal(vmt_source_held_events(s, small, sizeof(small)), 2);
	assert_string_equal(small, "records of ");
	vmt_source_close(s);
	/* a .vmt names no events but its pair's: nothing to say */
	assert_int_equal(vmt_source_open(data("../sample-kvm.vmt"), NULL, &s, held,
					 sizeof(held)), 0);
	assert_int_equal(vmt_source_held_events(s, held, sizeof(held)), -EOPNOTSUPP);
	assert_string_equal(held, "");
	vmt_source_close(s);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The comma list, sorted, as one string. */
static void sorted(const char *list, char *out, size_t size)
{
	char *copy = strdup(list), *name, *save = NULL, *v[64];
	size_t n = 0, i, used = 0;

	assert_non_null(copy);
	for (name = strtok_r(copy, ",", &save); name && n < 64; name = strtok_r(NULL, ",", &save))
		v[n++] = name;
	qsort(v, n, sizeof(v[0]), cmp_str);
	out[0] = '\0';
	for (i = 0; i < n; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%s", i ? "," : "", v[i]);
	free(copy);
}

/*
 * context.dat: trace-cmd saved the formats of the systems its events/ held (make-tracedat.sh);
 * the context events among them are those common/ctxevent binds: all of sched's wake-ups
 * and switches, irq's handlers and softirqs (not softirq_raise or tasklets), the x86
 * vector handlers (not the vector_* bookkeeping events), nmi_handler, three kvm events
 * and sys_enter_ioctl (not sys_enter_read). Their records, decoded, agree with
 * `trace-cmd report` of the same file: 33 sched_switch (12 leaving a runnable task, one a
 * dead one), 18 sched_waking, 6 and 5 local_timer and reschedule handlers, 2 softirqs.
 */
static void test_context(void **state)
{
	static const char *const want =
		"irq:irq_handler_entry,irq:irq_handler_exit,irq:softirq_entry,irq:softirq_exit,"
		"irq_vectors:call_function_entry,irq_vectors:call_function_exit,"
		"irq_vectors:call_function_single_entry,irq_vectors:call_function_single_exit,"
		"irq_vectors:error_apic_entry,irq_vectors:error_apic_exit,"
		"irq_vectors:irq_work_entry,irq_vectors:irq_work_exit,"
		"irq_vectors:local_timer_entry,irq_vectors:local_timer_exit,"
		"irq_vectors:reschedule_entry,irq_vectors:reschedule_exit,"
		"irq_vectors:spurious_apic_entry,irq_vectors:spurious_apic_exit,"
		"irq_vectors:thermal_apic_entry,irq_vectors:thermal_apic_exit,"
		"irq_vectors:x86_platform_ipi_entry,irq_vectors:x86_platform_ipi_exit,"
		"kvm:kvm_inj_virq,kvm:kvm_userspace_exit,kvm:kvm_vcpu_wakeup,nmi:nmi_handler,"
		"sched:sched_switch,sched:sched_wakeup,sched:sched_waking,"
		"syscalls:sys_enter_ioctl";
	struct vmt_input_opts in = { .pair = SYSCALLS };
	const struct vmt_evformat *const *f;
	uint64_t count[VMT_CTX_NTYPES] = { 0 }, runnable = 0, dead = 0;
	const struct vmt_item *it;
	struct vmt_ctxbind b;
	struct vmt_reader *r;
	char got[4096];
	unsigned int n, i;

	(void)state;
	assert_int_equal(vmt_reader_open(data("context.dat"), &in, &r, NULL, 0), 0);
	assert_non_null(vmt_reader_context_names(r));
	sorted(vmt_reader_context_names(r), got, sizeof(got));
	assert_string_equal(got, want);
	assert_null(vmt_reader_context_missing(r));
	f = vmt_reader_context_formats(r, &n);
	assert_int_equal(n, 30);
	assert_int_equal(vmt_reader_context_skipped(r), 0);
	vmt_ctxbind_init(&b);
	for (i = 0; i < n; i++)
		assert_int_equal(vmt_ctxbind_add(&b, f[i]), 0);
	while ((it = vmt_reader_next_item(r))) {
		struct vmt_ctxev ev;

		if (it->kind != VMT_ITEM_RECORD || vmt_ctxbind_decode(&b, &it->rec, it->cpu, &ev) != 1)
			continue;
		assert_int_equal(ev.cpu, 1);
		count[ev.type]++;
		if (ev.type == VMT_CTX_SWITCH) {
			runnable += ev.u.sw.prev_runnable;
			dead += (ev.u.sw.prev_state & 0x30) != 0;	/* X, Z */
		}
		if (ev.type == VMT_CTX_VEC_ENTRY)
			assert_true(strcmp(ev.u.irq.name, "local_timer") == 0 ||
				    strcmp(ev.u.irq.name, "reschedule") == 0);
	}
	assert_int_equal(count[VMT_CTX_SWITCH], 33);
	assert_int_equal(runnable, 12);
	assert_int_equal(dead, 1);
	assert_int_equal(count[VMT_CTX_WAKEUP], 18);
	assert_int_equal(count[VMT_CTX_VEC_ENTRY], 11);
	assert_int_equal(count[VMT_CTX_VEC_EXIT], 11);
	assert_int_equal(count[VMT_CTX_SOFTIRQ_ENTRY], 2);
	assert_int_equal(count[VMT_CTX_SOFTIRQ_EXIT], 2);
	assert_int_equal(count[VMT_CTX_IRQ_ENTRY] + count[VMT_CTX_NMI] + count[VMT_CTX_KVM_RUN], 0);
	vmt_reader_close(r);

	/* a context event chosen as the pair is the pair only */
	in.pair = "sched:sched_switch,sched:sched_waking";
	assert_int_equal(vmt_reader_open(data("context.dat"), &in, &r, NULL, 0), 0);
	vmt_reader_context_formats(r, &n);
	assert_int_equal(n, 28);
	assert_null(strstr(vmt_reader_context_names(r), "sched:sched_switch"));
	assert_null(strstr(vmt_reader_context_names(r), "sched:sched_waking"));
	vmt_reader_close(r);

	/* files whose formats hold no context event: not recorded */
	assert_int_equal(vmt_reader_open(data("kvm.v7zstd.dat"), NULL, &r, NULL, 0), 0);
	assert_null(vmt_reader_context_names(r));
	vmt_reader_context_formats(r, &n);
	assert_int_equal(n, 0);
	vmt_reader_close(r);
}

/* Write bytes to a temporary file and open it as a source. */
static int open_bytes(const void *buf, size_t len, char *why, size_t why_size)
{
	char path[] = "/tmp/vmtrace-td-XXXXXX";
	struct vmt_source *c = NULL;
	int fd = mkstemp(path), ret;

	assert_true(fd >= 0);
	assert_int_equal(vmt_io_write_full(fd, buf, len), 0);
	close(fd);
	ret = vmt_source_open(path, NULL, &c, why, why_size);
	vmt_source_close(c);
	unlink(path);
	return ret;
}

static size_t header(uint8_t *b, const char *version, uint8_t endian, uint32_t page)
{
	size_t n = 0;

	memcpy(b, TRACEDAT_MAGIC, TRACEDAT_MAGIC_LEN);
	n += TRACEDAT_MAGIC_LEN;
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
	char why[128], want[128];
	size_t n;

	(void)state;
	memset(b, 0, sizeof(b));
	n = header(b, "9", 0, 4096);
	assert_int_equal(open_bytes(b, n + 64, why, sizeof(why)), -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "unsupported trace.dat version"));
	n = header(b, "7", 1, 4096);
	assert_int_equal(open_bytes(b, n + 64, why, sizeof(why)), -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "big-endian"));
	n = header(b, "6", 0, 0);
	assert_int_equal(open_bytes(b, n + 64, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "page size"));
	/* v7: unknown compression */
	n = header(b, "7", 0, 4096);
	memcpy(b + n, "lz4\0001\000", 6);
	assert_int_equal(open_bytes(b, n + 6 + 8, why, sizeof(why)), -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "unknown algorithm"));
	/* v7: options offset past the end, and no section: the file is cut after its header */
	memcpy(b + n, "none\000\000", 6);
	put_le64(b + n + 6, 1u << 30);
	assert_int_equal(open_bytes(b, n + 6 + 8, why, sizeof(why)), -EBADMSG);
	snprintf(want, sizeof(want), "truncated: the file is cut at byte %zu, after its first "
		 "header", n + 6 + 8);
	assert_string_equal(why, want);
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
		assert_int_equal(open_bytes(b, p, why, sizeof(why)), -EBADMSG);
		assert_non_null(strstr(why, "too many options sections"));
	}
	/* v6: cut inside the headers */
	n = header(b, "6", 0, 4096);
	memcpy(b + n, "header_page", 12);
	put_le64(b + n + 12, 100000);
	assert_int_equal(open_bytes(b, n + 20, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "header_page"));
}

/* Read chunk idx of path: its status, with why. */
static int read_one(const char *path, size_t idx, const char **why)
{
	struct vmt_chunkbuf cb = { 0 };
	struct vmt_source *src;
	int ret;

	assert_int_equal(vmt_source_open(path, NULL, &src, NULL, 0), 0);
	assert_true(idx < vmt_source_nchunks(src));
	*why = NULL;
	ret = vmt_source_read_chunk(src, idx, &cb, why);
	if (!ret)
		assert_true(cb.raw_cap >= vmt_source_chunk(src, idx)->raw_size);
	vmt_chunkbuf_free(&cb);
	vmt_source_close(src);
	return ret;
}

/*
 * A compression chunk (<4 size> <4 raw size> <data>) whose raw size says more, or less,
 * than its zlib stream or zstd frame holds is refused when read, not trusted; the other
 * chunks still read.
 */
static void test_chunk_size_checked(void **state)
{
	static const char *const files[] = { "kvm.v7zlib.dat", "kvm.v7zstd.dat" };
	static const char *const codecs[] = { "zlib", "zstd" };
	char path[] = "/tmp/vmtrace-td-XXXXXX";
	unsigned int f;

	(void)state;
	for (f = 0; f < 2; f++) {
		struct vmt_chunk_info ci;
		struct vmt_source *src;
		const char *why;
		uint32_t sizes[2];
		unsigned int k;
		uint8_t *buf;
		size_t len;
		int fd;

		assert_int_equal(vmt_io_read_file(data(files[f]), 64u << 20, (char **)&buf, &len),
				 0);
		assert_int_equal(vmt_source_open(data(files[f]), NULL, &src, NULL, 0), 0);
		assert_true(vmt_source_nchunks(src) >= 2);
		ci = *vmt_source_chunk(src, 0);
		vmt_source_close(src);
		assert_true(ci.raw_size >= 2 * ci.page_size);
		assert_int_equal(get_le32(buf + ci.offset - 4), ci.raw_size);
		assert_int_equal(read_one(data(files[f]), 0, &why), 0);
		sizes[0] = (uint32_t)ci.raw_size * 2;
		sizes[1] = (uint32_t)ci.raw_size - ci.page_size;
		for (k = 0; k < 2; k++) {
			put_le32(buf + ci.offset - 4, sizes[k]);
			fd = mkstemp(path);
			assert_true(fd >= 0);
			assert_int_equal(vmt_io_write_full(fd, buf, len), 0);
			close(fd);
			assert_int_equal(read_one(path, 0, &why), -EBADMSG);
			assert_non_null(strstr(why, codecs[f]));
			assert_non_null(strstr(why, "does not decompress to its stated size"));
			assert_int_equal(read_one(path, 1, &why), 0);
			unlink(path);
			strcpy(path, "/tmp/vmtrace-td-XXXXXX");
		}
		free(buf);
	}
}

/*
 * A compression chunk that is not whole pages is skipped: the next chunk of its CPU, and
 * only that one, says a hole is before it, so that no pair spans the skipped pages.
 */
static void test_skipped_chunk_hole(void **state)
{
	char path[] = "/tmp/vmtrace-td-XXXXXX";
	struct vmt_chunk_info c0;
	struct vmt_source *src;
	size_t len, i, n;
	uint8_t *buf;
	int fd;

	(void)state;
	assert_int_equal(vmt_io_read_file(data("kvm.v7zstd.dat"), 64u << 20, (char **)&buf,
					  &len), 0);
	assert_int_equal(vmt_source_open(data("kvm.v7zstd.dat"), NULL, &src, NULL, 0), 0);
	n = vmt_source_nchunks(src);
	assert_true(n >= 2);
	assert_int_equal(vmt_source_chunk(src, 1)->cpu, vmt_source_chunk(src, 0)->cpu);
	for (i = 0; i < n; i++)
		assert_false(vmt_source_hole_before(src, i));
	c0 = *vmt_source_chunk(src, 0);
	vmt_source_close(src);
	put_le32(buf + c0.offset - 4, (uint32_t)c0.raw_size - 1);	/* not whole pages */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(vmt_io_write_full(fd, buf, len), 0);
	close(fd);
	assert_int_equal(vmt_source_open(path, NULL, &src, NULL, 0), 0);
	assert_int_equal(vmt_source_status(src)->bad_blocks, 1);
	assert_int_equal(vmt_source_nchunks(src), n - 1);
	/* the CPU's first chunk now: the pages before it were in the one skipped */
	for (i = 0; i < n - 1; i++)
		assert_int_equal(vmt_source_hole_before(src, i), i == 0);
	vmt_source_close(src);
	unlink(path);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v7_zstd),
		cmocka_unit_test(test_same_pages),
		cmocka_unit_test(test_instance_buffer),
		cmocka_unit_test(test_tsc2nsec),
		cmocka_unit_test(test_missing_pair),
		cmocka_unit_test(test_held_events),
		cmocka_unit_test(test_context),
		cmocka_unit_test(test_hostile_headers),
		cmocka_unit_test(test_chunk_size_checked),
		cmocka_unit_test(test_skipped_chunk_hole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
