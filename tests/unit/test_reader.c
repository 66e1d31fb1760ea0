// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader: a recording of three CPUs with interleaved times, several chunks per CPU, a
 * lost-events page and a damaged chunk, walked merged (global time order, gap items in
 * place) and per CPU; the context events' formats of a .vmt (context.events and
 * format.ctx.*), damaged entries among them, and a record decoded through them; the
 * recorded duration from the monotonic keys; ties in time across 40 CPUs; writers' chunk
 * sizes; the walks again with chunks read in windows.
 */
#include "config.h"

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
#include "chunk.h"
#include "container.h"
#include "ctxevent.h"
#include "io.h"
#include "kv.h"
#include "metakeys.h"
#include "pagebuilder.h"
#include "reader.h"
#include "source.h"

#define NCPU 3
#define PER_PAGE 50
#define PAGES_PER_CHUNK 4
#define CHUNKS 3

static char path[64];

static char *slurp(const char *rel, size_t *len)
{
	char p[512], *text;

	snprintf(p, sizeof(p), "%s/tests/data/formats/linux-6.18-x86_64/%s", TOP_SRCDIR, rel);
	assert_int_equal(vmt_io_read_file(p, 1 << 20, &text, len), 0);
	return text;
}

/* Event k of CPU c happens at time k * NCPU + c: the merged walk must interleave them. */
static uint64_t ts_of(unsigned int c, unsigned int k)
{
	return 1000 + (uint64_t)k * NCPU + c;
}

/* Start the file at path: the pair's formats, the CPUs, monotonic.start_ns if set. */
static struct vmt_writer *open_recording(const char *cpus, const char *mono_start,
					 struct vmt_header_page *hp, int *fd)
{
	struct vmt_kvbuf meta;
	struct vmt_writer *w;
	char *text;
	size_t len;

	snprintf(path, sizeof(path), "/tmp/vmt-reader-%d.vmt", (int)getpid());
	vmt_kv_init(&meta);
	text = slurp("header_page", &len);
	assert_int_equal(vmt_header_page_parse(text, len, hp), 0);
	vmt_kv_add(&meta, VMT_META_HEADER_PAGE, text, len);
	free(text);
	text = slurp("kvm/kvm_exit/format", &len);
	vmt_kv_add(&meta, VMT_META_FORMAT_BEGIN, text, len);
	free(text);
	text = slurp("kvm/kvm_entry/format", &len);
	vmt_kv_add(&meta, VMT_META_FORMAT_END, text, len);
	free(text);
	vmt_kv_add_str(&meta, VMT_META_EVENT_BEGIN, "kvm:kvm_exit");
	vmt_kv_add_str(&meta, VMT_META_EVENT_END, "kvm:kvm_entry");
	vmt_kv_add_str(&meta, VMT_META_CPUS, cpus);
	if (mono_start)
		vmt_kv_add_str(&meta, VMT_META_MONO_START, mono_start);
	*fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(vmt_writer_open(*fd, &meta, 1, &w), 0);
	vmt_kv_free(&meta);
	return w;
}

/* The recording, with monotonic.start_ns, END's monotonic.end_ns and kept_start_ns if set. */
static void write_recording(const char *mono_start, const char *mono_end, const char *kept)
{
	struct vmt_header_page hp;
	struct vmt_kvbuf end;
	struct vmt_writer *w;
	uint8_t *pages = malloc(PAGES_PER_CHUNK * 4096), rec[72] = { 0 };
	unsigned int c, ch, p, k;
	int fd;

	w = open_recording("0-2", mono_start, &hp, &fd);
	for (ch = 0; ch < CHUNKS; ch++) {
		for (c = 0; c < NCPU; c++) {
			struct vmt_chunk_info ci = { .cpu = c };

			for (p = 0; p < PAGES_PER_CHUNK; p++) {
				unsigned int base = (ch * PAGES_PER_CHUNK + p) * PER_PAGE;
				struct pb pb;

				pb_init(&pb, pages + p * 4096, &hp, ts_of(c, base));
				for (k = 0; k < PER_PAGE; k++) {
					put_le16(rec, 103);	/* kvm_exit id */
					put_le32(rec + 4, 100 + c);
					put_le32(rec + 8, base + k);
					assert_int_equal(pb_data(&pb, ts_of(c, base + k), rec, 72,
								 false), 0);
				}
				/* CPU 1 lost events before its second chunk */
				pb_finish(&pb, c == 1 && ch == 1 && p == 0, true, 17);
			}
			assert_int_equal(vmt_writer_chunk(w, pages, PAGES_PER_CHUNK, 4096, &ci), 0);
		}
	}
	vmt_kv_init(&end);
	if (mono_end)
		vmt_kv_add_str(&end, VMT_META_MONO_END, mono_end);
	if (kept)
		vmt_kv_add_str(&end, VMT_META_MONO_KEPT, kept);
	assert_int_equal(vmt_writer_finish(w, &end), 0);
	vmt_writer_free(w);
	close(fd);
	vmt_kv_free(&end);
	free(pages);
}

static int setup(void **state)
{
	(void)state;
	write_recording(NULL, NULL, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

/*
 * The same recording read in windows of 2 and 3 pages of its 4-page chunks (what the
 * reader does when every CPU's chunk whole would take too much memory): the same walks.
 */
static int setup_window2(void **state)
{
	setenv("VMTRACE_TEST_WINDOW", "8192", 1);
	return setup(state);
}

static int setup_window3(void **state)
{
	setenv("VMTRACE_TEST_WINDOW", "12288", 1);
	return setup(state);
}

static int teardown_window(void **state)
{
	unsetenv("VMTRACE_TEST_WINDOW");
	return teardown(state);
}

static void test_merged(void **state)
{
	const struct vmt_reader_stats *st;
	struct vmt_reader *r;
	struct vmt_item it;
	char why[128];
	uint64_t last = 0, n = 0, gaps = 0;

	(void)state;
	assert_int_equal(vmt_reader_open(path, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(vmt_reader_cpus(r)->n, 3);
	assert_string_equal(vmt_reader_path(r), path);
	assert_string_equal(vmt_reader_begin_name(r), "kvm:kvm_exit");
	assert_string_equal(vmt_reader_end_name(r), "kvm:kvm_entry");
	assert_int_equal(vmt_reader_begin_format(r)->id, 103);
	assert_string_equal(vmt_reader_clock_name(r), "local");
	assert_true(vmt_reader_clock(r)->ns_per_tick == 1.0);
	assert_int_equal(vmt_header_page_subbuf_size(vmt_reader_header_page(r)), 4096);
	/*
	 * The fixture leaves the chunk headers' first_ts 0, before its pages (from 1000): the
	 * start is the earliest pages', and each header corrected on the way (all) is damage.
	 */
	assert_int_equal(vmt_reader_start_ts(r), 1000);
	assert_int_equal(vmt_source_status(vmt_reader_source(r))->bad_first_ts,
			 vmt_source_nchunks(vmt_reader_source(r)));
	assert_null(vmt_reader_damage(r)->why);
	while (vmt_reader_next(r, &it) == 1) {
		struct vmt_event ev;

		assert_true(it.ts >= last);
		last = it.ts;
		if (it.kind == VMT_ITEM_GAP) {
			assert_int_equal(it.cpu, 1);
			assert_int_equal(it.missed, 17);
			gaps++;
			continue;
		}
		/* the exact interleaving: event k of CPU c at 1000 + 3k + c */
		assert_int_equal(it.ts, 1000 + n);
		assert_int_equal(it.cpu, n % NCPU);
		assert_int_equal(vmt_evbind_decode(vmt_reader_bind(r), &it.rec, it.cpu, &ev), 1);
		assert_int_equal(ev.kind, VMT_EV_BEGIN);
		assert_int_equal(ev.pid, 100 + (int32_t)it.cpu);
		assert_int_equal(ev.reason, n / NCPU);
		n++;
	}
	assert_int_equal(n, NCPU * CHUNKS * PAGES_PER_CHUNK * PER_PAGE);
	assert_int_equal(gaps, 1);
	st = vmt_reader_stats(r);
	assert_int_equal(st->missed_pages, 1);
	assert_int_equal(st->missed_events, 17);
	assert_int_equal(st->chunks, NCPU * CHUNKS);
	assert_int_equal(st->pages, NCPU * CHUNKS * PAGES_PER_CHUNK);
	assert_int_equal(st->records, n);
	assert_int_equal(st->bad_chunks + st->bad_pages, 0);
	vmt_reader_close(r);
}

/*
 * Ties on 40 CPUs (a heap several levels deep): every CPU has records at the same times,
 * and the odd CPUs lost events before their second page. At one time the merge hands out
 * the gaps first (they happened before the page's records), then the records by CPU.
 */
#define TIE_CPUS 40
#define TIE_PER_PAGE 10

static void test_ties(void **state)
{
	struct vmt_header_page hp;
	struct vmt_kvbuf end;
	struct vmt_writer *w;
	uint8_t *pages = calloc(2, 4096), rec[72] = { 0 };
	struct vmt_reader *r;
	struct vmt_item it;
	unsigned int c, p, k, i, n = 0, gaps = 0;
	char why[128];
	int fd;

	(void)state;
	w = open_recording("0-39", NULL, &hp, &fd);
	for (c = 0; c < TIE_CPUS; c++) {
		struct vmt_chunk_info ci = { .cpu = c };

		for (p = 0; p < 2; p++) {
			struct pb pb;

			pb_init(&pb, pages + p * 4096, &hp, 1000 + p * 100);
			for (k = 0; k < TIE_PER_PAGE; k++) {
				put_le16(rec, 103);	/* kvm_exit id */
				put_le32(rec + 4, 100 + c);
				put_le32(rec + 8, p * TIE_PER_PAGE + k);
				assert_int_equal(pb_data(&pb, 1000 + p * 100 + k, rec, 72, false), 0);
			}
			pb_finish(&pb, p == 1 && c % 2, true, c);
		}
		assert_int_equal(vmt_writer_chunk(w, pages, 2, 4096, &ci), 0);
	}
	vmt_kv_init(&end);
	assert_int_equal(vmt_writer_finish(w, &end), 0);
	vmt_writer_free(w);
	close(fd);
	vmt_kv_free(&end);
	free(pages);

	assert_int_equal(vmt_reader_open(path, NULL, &r, why, sizeof(why)), 0);
	/* the expected order: per time, the gaps by CPU (at 1100 only), then the records */
	for (p = 0; p < 2; p++) {
		for (k = 0; k < TIE_PER_PAGE; k++) {
			for (i = 0; k == 0 && p == 1 && i < TIE_CPUS / 2; i++) {
				assert_int_equal(vmt_reader_next(r, &it), 1);
				assert_int_equal(it.kind, VMT_ITEM_GAP);
				assert_int_equal(it.ts, 1100);
				assert_int_equal(it.cpu, 2 * i + 1);
				assert_int_equal(it.missed, 2 * i + 1);
				gaps++;
			}
			for (c = 0; c < TIE_CPUS; c++) {
				assert_int_equal(vmt_reader_next(r, &it), 1);
				assert_int_equal(it.kind, VMT_ITEM_RECORD);
				assert_int_equal(it.ts, 1000 + p * 100 + k);
				assert_int_equal(it.cpu, c);
				n++;
			}
		}
	}
	assert_int_equal(vmt_reader_next(r, &it), 0);
	assert_int_equal(n, TIE_CPUS * 2 * TIE_PER_PAGE);
	assert_int_equal(gaps, TIE_CPUS / 2);
	vmt_reader_close(r);
}

/* Chunk sizes for writers: 1 MiB up to 32 CPUs, 32 MiB in all beyond, 64 KiB at least. */
static void test_chunk_pages(void **state)
{
	(void)state;
	assert_int_equal(vmt_chunk_pages(1, 4096), 256);
	assert_int_equal(vmt_chunk_pages(32, 4096), 256);
	assert_int_equal(vmt_chunk_pages(64, 4096), 128);
	assert_int_equal(vmt_chunk_pages(100, 4096), 81);	/* 335544 bytes, whole pages */
	assert_int_equal(vmt_chunk_pages(512, 4096), 16);
	assert_int_equal(vmt_chunk_pages(4096, 4096), 16);
	assert_int_equal(vmt_chunk_pages(0, 4096), 256);
	assert_int_equal(vmt_chunk_pages(64, 65536), 8);
	assert_int_equal(vmt_chunk_pages(4096, 65536), 1);
	assert_int_equal(vmt_chunk_pages(1, 2u << 20), 1);
	assert_int_equal(vmt_chunk_pages(1, 0), 1);
}

static void test_per_cpu(void **state)
{
	struct vmt_reader *r;
	struct vmt_item it;
	unsigned int c;

	(void)state;
	assert_int_equal(vmt_reader_open(path, NULL, &r, NULL, 0), 0);
	for (c = 0; c < NCPU; c++) {
		uint64_t k = 0;

		while (vmt_reader_cpu_next(r, c, &it) == 1) {
			assert_int_equal(it.cpu, c);
			if (it.kind == VMT_ITEM_GAP)
				continue;
			assert_int_equal(it.ts, ts_of(c, (unsigned int)k));
			assert_int_equal(get_le32(it.rec.data + 8), k);
			k++;
		}
		assert_int_equal(k, CHUNKS * PAGES_PER_CHUNK * PER_PAGE);
	}
	assert_int_equal(vmt_reader_cpu_next(r, 7, &it), 0);
	vmt_reader_close(r);
}

/* A damaged chunk is counted and skipped; every other record still comes out in order. */
static void test_damaged_chunk(void **state)
{
	const struct vmt_damage *d;
	struct vmt_chunk_info bad;
	struct vmt_source *c;
	struct vmt_reader *r;
	struct vmt_item it;
	uint64_t n = 0, last = 0, gaps = 0;
	uint8_t byte;
	int fd;

	(void)state;
	assert_int_equal(vmt_source_open(path, NULL, &c, NULL, 0), 0);
	bad = *vmt_source_chunk(c, 4);
	fd = open(path, O_RDWR);
	/* a byte in the middle of the fifth chunk's payload */
	assert_int_equal(pread(fd, &byte, 1, (off_t)vmt_source_chunk(c, 4)->offset + 100), 1);
	byte ^= 0xff;
	assert_int_equal(pwrite(fd, &byte, 1, (off_t)vmt_source_chunk(c, 4)->offset + 100), 1);
	close(fd);
	vmt_source_close(c);
	assert_int_equal(vmt_reader_open(path, NULL, &r, NULL, 0), 0);
	while (vmt_reader_next(r, &it) == 1) {
		assert_true(it.ts >= last);
		last = it.ts;
		n += it.kind == VMT_ITEM_RECORD;
		if (it.kind != VMT_ITEM_GAP)
			continue;
		/*
		 * One gap, on the chunk's CPU, count unknown; its header's first time (0 here)
		 * would put it before the stream's last record: at the next chunk's first page
		 */
		gaps++;
		assert_int_equal(it.cpu, bad.cpu);
		assert_int_equal(it.ts, ts_of(bad.cpu, (CHUNKS - 1) * PAGES_PER_CHUNK * PER_PAGE));
		assert_int_equal(it.missed, 0);
	}
	assert_int_equal(gaps, 1);
	assert_int_equal(vmt_reader_stats(r)->bad_chunks, 1);
	assert_int_equal(n, (NCPU * CHUNKS - 1) * PAGES_PER_CHUNK * PER_PAGE);
	/* where the damage is, for the warning: the chunk as its header describes it */
	d = vmt_reader_damage(r);
	assert_string_equal(d->why, "chunk checksum mismatch");
	assert_true(d->located);
	assert_int_equal(d->offset, bad.offset);
	assert_int_equal(d->cpu, bad.cpu);
	assert_int_equal(d->pages, bad.page_count);
	assert_int_equal(d->page, UINT32_MAX);
	assert_int_equal(d->first_ts, bad.first_ts);
	assert_int_equal(d->last_ts, bad.last_ts);
	vmt_reader_close(r);
}

static void add_file(struct vmt_kvbuf *kb, const char *key, const char *rel)
{
	size_t len;
	char *text = slurp(rel, &len);

	vmt_kv_add(kb, key, text, len);
	free(text);
}

/*
 * A .vmt whose META lists context events, six of them unusable: no format, a format that
 * does not parse, the pair's own id, a format of another event, no system, a repeat. One
 * page holds a kvm_exit and a sched_switch laid out as Linux 6.18's format file says.
 */
static void test_context(void **state)
{
	static const char *const names =
		"sched:sched_switch,irq:irq_handler_entry,bad:noformat,sched:garbage,"
		"kvm:kvm_exit,irq:softirq_entry,nocolon,sched:sched_switch,nmi:nmi_handler";
	static const char *const want[3][2] = {
		{ "sched", "sched_switch" }, { "irq", "irq_handler_entry" },
		{ "nmi", "nmi_handler" },
	};
	const struct vmt_evformat *const *f;
	struct vmt_header_page hp;
	struct vmt_kvbuf meta, end;
	struct vmt_ctxbind b;
	struct vmt_writer *w;
	struct vmt_reader *r;
	struct vmt_item it;
	struct vmt_ctxev ev;
	uint8_t page[4096], rec[64] = { 0 };
	struct pb pb;
	unsigned int n, i;
	size_t len;
	char file[64], *text;
	int fd, got = 0;

	(void)state;
	snprintf(file, sizeof(file), "/tmp/vmt-reader-ctx-%d.vmt", (int)getpid());
	vmt_kv_init(&meta);
	text = slurp("header_page", &len);
	assert_int_equal(vmt_header_page_parse(text, len, &hp), 0);
	vmt_kv_add(&meta, VMT_META_HEADER_PAGE, text, len);
	free(text);
	add_file(&meta, VMT_META_FORMAT_BEGIN, "kvm/kvm_exit/format");
	add_file(&meta, VMT_META_FORMAT_END, "kvm/kvm_entry/format");
	vmt_kv_add_str(&meta, VMT_META_EVENT_BEGIN, "kvm:kvm_exit");
	vmt_kv_add_str(&meta, VMT_META_EVENT_END, "kvm:kvm_entry");
	vmt_kv_add_str(&meta, VMT_META_CONTEXT_EVENTS, names);
	vmt_kv_add_str(&meta, VMT_META_CONTEXT_MISSING, "irq_vectors:reboot_entry");
	add_file(&meta, VMT_META_FORMAT_CTX "sched:sched_switch", "sched/sched_switch/format");
	add_file(&meta, VMT_META_FORMAT_CTX "irq:irq_handler_entry",
		 "irq/irq_handler_entry/format");
	vmt_kv_add_str(&meta, VMT_META_FORMAT_CTX "sched:garbage", "garbage\n");
	add_file(&meta, VMT_META_FORMAT_CTX "kvm:kvm_exit", "kvm/kvm_exit/format");
	add_file(&meta, VMT_META_FORMAT_CTX "irq:softirq_entry", "irq/irq_handler_exit/format");
	add_file(&meta, VMT_META_FORMAT_CTX "nmi:nmi_handler", "nmi/nmi_handler/format");
	pb_init(&pb, page, &hp, 5000);
	put_le16(rec, 103);			/* kvm_exit */
	put_le32(rec + 4, 77);
	assert_int_equal(pb_data(&pb, 5000, rec, 64, false), 0);
	memset(rec, 0, sizeof(rec));
	put_le16(rec, 372);			/* sched_switch: loop (77, R) -> spin (78) */
	put_le32(rec + 4, 77);
	memcpy(rec + 8, "loop", 4);
	put_le32(rec + 24, 77);
	put_le64(rec + 32, 0);
	memcpy(rec + 40, "spin", 4);
	put_le32(rec + 56, 78);
	assert_int_equal(pb_data(&pb, 5100, rec, 64, false), 0);
	pb_finish(&pb, false, false, 0);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(vmt_writer_open(fd, &meta, 1, &w), 0);
	assert_int_equal(vmt_writer_chunk(w, page, 1, 4096, &(struct vmt_chunk_info){ .cpu = 0 }),
			 0);
	vmt_kv_init(&end);
	assert_int_equal(vmt_writer_finish(w, &end), 0);
	vmt_writer_free(w);
	close(fd);
	vmt_kv_free(&meta);
	vmt_kv_free(&end);

	assert_int_equal(vmt_reader_open(file, NULL, &r, NULL, 0), 0);
	assert_string_equal(vmt_reader_context_names(r), names);
	assert_string_equal(vmt_reader_context_missing(r), "irq_vectors:reboot_entry");
	f = vmt_reader_context_formats(r, &n);
	assert_int_equal(n, 3);
	assert_int_equal(vmt_reader_context_skipped(r), 6);
	vmt_ctxbind_init(&b);
	for (i = 0; i < n; i++) {
		assert_string_equal(f[i]->system, want[i][0]);
		assert_string_equal(f[i]->name, want[i][1]);
		assert_int_equal(vmt_ctxbind_add(&b, f[i]), 0);
	}
	assert_int_equal(f[0]->id, 372);
	while (vmt_reader_next(r, &it) == 1) {
		if (vmt_ctxbind_decode(&b, &it.rec, it.cpu, &ev) != 1)
			continue;
		assert_int_equal(ev.type, VMT_CTX_SWITCH);
		assert_int_equal(ev.ts, 5100);
		assert_int_equal(ev.u.sw.prev_pid, 77);
		assert_int_equal(ev.u.sw.next_pid, 78);
		assert_true(ev.u.sw.prev_runnable);
		assert_string_equal(ev.u.sw.next_comm, "spin");
		got++;
	}
	assert_int_equal(got, 1);
	vmt_reader_close(r);
	unlink(file);
}

/* No context.events: nothing recorded, which the reader says as NULL, not as "none". */
static void test_no_context(void **state)
{
	const struct vmt_evformat *const *f;
	struct vmt_reader *r;
	unsigned int n = 99;

	(void)state;
	assert_int_equal(vmt_reader_open(path, NULL, &r, NULL, 0), 0);
	f = vmt_reader_context_formats(r, &n);
	assert_int_equal(n, 0);
	(void)f;
	assert_null(vmt_reader_context_names(r));
	assert_null(vmt_reader_context_missing(r));
	assert_int_equal(vmt_reader_context_skipped(r), 0);
	vmt_reader_close(r);
}

static uint64_t duration_of(const char *mono_start, const char *mono_end, const char *kept)
{
	struct vmt_reader *r;
	uint64_t d;

	write_recording(mono_start, mono_end, kept);
	assert_int_equal(vmt_reader_open(path, NULL, &r, NULL, 0), 0);
	d = vmt_reader_duration_ns(r);
	vmt_reader_close(r);
	return d;
}

/*
 * The recorded duration: monotonic start to end; a flight recording's first kept page,
 * when END has it, is where its pages begin (before the start in a --continue file, after
 * it when the trigger came late, and so may its end be); a kept page after the end is not
 * believed.
 */
static void test_duration(void **state)
{
	(void)state;
	assert_int_equal(duration_of(NULL, NULL, NULL), 0);
	assert_int_equal(duration_of("1000", NULL, NULL), 0);
	assert_int_equal(duration_of("1000", "5000", NULL), 4000);
	assert_int_equal(duration_of("5000", "1000", NULL), 0);
	assert_int_equal(duration_of("1000", "5000", "400"), 4600);
	assert_int_equal(duration_of("1000", "5000", "4200"), 800);
	assert_int_equal(duration_of("1000", "5000", "6000"), 4000);
	/* a --continue file opened after its window was over: its end is before its start */
	assert_int_equal(duration_of("5000", "1000", "400"), 600);
	assert_int_equal(duration_of("5000", "1000", "1200"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_merged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_per_cpu, setup, teardown),
		cmocka_unit_test_teardown(test_ties, teardown),
		cmocka_unit_test(test_chunk_pages),
		cmocka_unit_test_setup_teardown(test_damaged_chunk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merged, setup_window2, teardown_window),
		cmocka_unit_test_setup_teardown(test_per_cpu, setup_window2, teardown_window),
		cmocka_unit_test_setup_teardown(test_damaged_chunk, setup_window2, teardown_window),
		cmocka_unit_test_setup_teardown(test_merged, setup_window3, teardown_window),
		cmocka_unit_test_setup_teardown(test_per_cpu, setup_window3, teardown_window),
		cmocka_unit_test_setup_teardown(test_damaged_chunk, setup_window3, teardown_window),
		cmocka_unit_test_setup_teardown(test_no_context, setup, teardown),
		cmocka_unit_test(test_context),
		cmocka_unit_test_teardown(test_duration, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
