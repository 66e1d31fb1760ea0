// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rbpage: pages built with every record type and layout, decoded and compared with what
 * was built and with libtraceevent's kbuffer; real pages from this kernel compared with the
 * kernel's own text trace; hostile pages never read out of bounds (run under ASan).
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#ifdef HAVE_TRACEEVENT
#include <traceevent/kbuffer.h>
#endif

#include "bytes.h"
#include "evformat.h"
#include "exitreason.h"
#include "kvmevent.h"
#include "io.h"
#include "pagebuilder.h"
#include "rbpage.h"

#define MAX_RECS 4096

struct expect {
	uint64_t ts;
	uint32_t len;
	uint8_t first;		/* first payload byte, a per-record marker */
};

static struct vmt_header_page layout_64(void)
{
	struct vmt_header_page hp;

	vmt_header_page_default(&hp);
	return hp;
}

static struct vmt_header_page layout_file(const char *rel)
{
	struct vmt_header_page hp;
	char path[512], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/tests/data/formats/%s", TOP_SRCDIR, rel);
	assert_int_equal(vmt_io_read_file(path, 1 << 20, &text, &len), 0);
	assert_int_equal(vmt_header_page_parse(text, len, &hp), 0);
	free(text);
	return hp;
}

static size_t decode_all(const struct vmt_header_page *hp, const uint8_t *page, size_t size,
			 struct expect *out, int *err)
{
	struct vmt_rbpage pg;
	struct vmt_rbrecord r;
	size_t n = 0;
	int ret;

	*err = vmt_rbpage_init(&pg, hp, page, size);
	if (*err)
		return 0;
	while ((ret = vmt_rbpage_next(&pg, &r)) == 1) {
		/* Every byte of every record lies inside the committed data. */
		assert_true(r.data >= page + hp->data_offset);
		assert_true(r.data + r.len <= page + hp->data_offset + pg.commit);
		if (n < MAX_RECS) {
			out[n].ts = r.ts;
			out[n].len = r.len;
			out[n].first = r.len ? r.data[0] : 0;
		}
		n++;
	}
	*err = ret;
	return n;
}

#ifdef HAVE_TRACEEVENT
/* The independent oracle: kbuffer must see the same records, times and sizes. */
static void check_kbuffer(const struct vmt_header_page *hp, uint8_t *page,
			  const struct expect *exp, size_t n)
{
	struct kbuffer *kb = kbuffer_alloc(hp->commit_size == 8 ? KBUFFER_LSIZE_8 :
					   KBUFFER_LSIZE_4, KBUFFER_ENDIAN_LITTLE);
	unsigned long long ts;
	size_t i = 0;
	void *data;

	assert_non_null(kb);
	assert_int_equal(kbuffer_load_subbuffer(kb, page), 0);
	for (data = kbuffer_read_event(kb, &ts); data; data = kbuffer_next_event(kb, &ts)) {
		assert_true(i < n);
		assert_int_equal(ts, exp[i].ts);
		assert_true((unsigned int)kbuffer_event_size(kb) >= exp[i].len);
		assert_true((unsigned int)kbuffer_event_size(kb) < exp[i].len + 4);
		if (exp[i].len)
			assert_int_equal(((uint8_t *)data)[0], exp[i].first);
		i++;
	}
	assert_int_equal(i, n);
	kbuffer_free(kb);
}
#endif

/* Build a page with every record type; return what a correct decoder must see. */
static size_t build_mixed(const struct vmt_header_page *hp, uint8_t *page, struct expect *exp,
			  uint64_t page_ts)
{
	uint8_t payload[200];
	uint64_t ts = page_ts + 5;	/* first record's delta is relative to the page */
	struct pb pb;
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 1);
	pb_init(&pb, page, hp, page_ts);
#define ADD(ts_, len_, force_)                                                          \
	do {                                                                            \
		payload[0] = (uint8_t)(n + 1);                                          \
		assert_int_equal(pb_data(&pb, (ts_), payload, (len_), (force_)), 0);    \
		exp[n].ts = (ts_);                                                      \
		exp[n].len = (((len_) + 3) & ~3u);                                      \
		if ((force_) || (len_) > 112)                                           \
			exp[n].len = (len_);                                            \
		exp[n].first = (uint8_t)(n + 1);                                        \
		n++;                                                                    \
	} while (0)
	ADD(ts, 8, false);		/* type_len 2 */
	ADD(ts + 1, 4, false);		/* type_len 1 */
	ADD(ts + 1, 112, false);	/* type_len 28, the largest inline */
	ADD(ts + 100, 116, false);	/* type_len 0: does not fit 28 words */
	ADD(ts + 200, 24, true);	/* type_len 0 by choice */
	ADD(ts + 200 + (1ULL << 27), 16, false);	/* needs a time extend */
	ADD(ts + (5ULL << 32), 12, false);		/* a large extend */
	assert_int_equal(pb_discarded(&pb, ts + (5ULL << 32) + 50, 20), 0);
	ADD(ts + (5ULL << 32) + 70, 12, false);	/* after a discarded event */
	assert_int_equal(pb_time_stamp(&pb, ts + (6ULL << 32)), 0);
	ADD(ts + (6ULL << 32) + 3, 20, false);	/* after an absolute stamp */
	ADD(ts + (6ULL << 32) + 3, 20, false);	/* equal timestamps: 0 ns apart */
#undef ADD
	pb_finish(&pb, false, false, 0);
	return n;
}

static void test_mixed_layouts(void **state)
{
	const char *layouts[] = { NULL, "32bit/header_page", "header_page_16k",
				  "linux-6.18-x86_64/header_page" };
	static struct expect exp[MAX_RECS], got[MAX_RECS];
	unsigned int l;

	(void)state;
	for (l = 0; l < 4; l++) {
		struct vmt_header_page hp = layouts[l] ? layout_file(layouts[l]) : layout_64();
		uint8_t *page = malloc(vmt_header_page_subbuf_size(&hp));
		size_t n, m, i;
		int err;

		n = build_mixed(&hp, page, exp, 1000000);
		m = decode_all(&hp, page, vmt_header_page_subbuf_size(&hp), got, &err);
		assert_int_equal(err, 0);
		assert_int_equal(m, n);
		for (i = 0; i < n; i++) {
			assert_int_equal(got[i].ts, exp[i].ts);
			assert_int_equal(got[i].len, exp[i].len);
			assert_int_equal(got[i].first, exp[i].first);
		}
#ifdef HAVE_TRACEEVENT
		check_kbuffer(&hp, page, exp, n);
#endif
		free(page);
	}
}

static void test_time_stamp_msb(void **state)
{
	struct vmt_header_page hp = layout_64();
	uint8_t page[4096], payload[8] = { 1 };
	uint64_t base = 0xf8ULL << 56;	/* top bits a TIME_STAMP cannot carry */
	struct vmt_rbrecord r;
	struct vmt_rbpage pg;
	struct pb pb;

	(void)state;
	pb_init(&pb, page, &hp, base + 10);
	assert_int_equal(pb_time_stamp(&pb, base + 1000), 0);
	assert_int_equal(pb_data(&pb, base + 1000, payload, 8, false), 0);
	pb_finish(&pb, false, false, 0);
	assert_int_equal(vmt_rbpage_init(&pg, &hp, page, sizeof(page)), 0);
	assert_int_equal(vmt_rbpage_next(&pg, &r), 1);
	assert_int_equal(r.ts, base + 1000);
	assert_int_equal(vmt_rbpage_next(&pg, &r), 0);
}

static void test_missed_flags(void **state)
{
	const char *layouts[] = { NULL, "32bit/header_page" };
	unsigned int l;

	(void)state;
	for (l = 0; l < 2; l++) {
		struct vmt_header_page hp = l ? layout_file(layouts[l]) : layout_64();
		uint8_t page[4096], payload[8] = { 0 };
		struct vmt_rbpage pg;
		struct pb pb;

		pb_init(&pb, page, &hp, 77);
		pb_data(&pb, 80, payload, 8, false);
		pb_finish(&pb, true, true, 123456);
		assert_int_equal(vmt_rbpage_init(&pg, &hp, page, sizeof(page)), 0);
		assert_true(pg.missed);
		assert_true(pg.missed_stored);
		assert_int_equal(pg.missed_count, 123456);
		assert_int_equal(pg.page_ts, 77);

		pb_init(&pb, page, &hp, 77);
		pb_data(&pb, 80, payload, 8, false);
		pb_finish(&pb, true, false, 0);
		assert_int_equal(vmt_rbpage_init(&pg, &hp, page, sizeof(page)), 0);
		assert_true(pg.missed);
		assert_false(pg.missed_stored);

		pb_init(&pb, page, &hp, 77);
		pb_finish(&pb, false, false, 0);
		assert_int_equal(vmt_rbpage_init(&pg, &hp, page, sizeof(page)), 0);
		assert_false(pg.missed);
		assert_int_equal(pg.commit, 0);
	}
}

static void test_corrupt(void **state)
{
	struct vmt_header_page hp = layout_64();
	uint8_t page[4096], payload[16] = { 0 };
	struct vmt_rbrecord r;
	struct vmt_rbpage pg;
	struct pb pb;

	(void)state;
	/* commit beyond the data area */
	pb_init(&pb, page, &hp, 1);
	pb_finish(&pb, false, false, 0);
	put_le64(page + 8, 4081);
	assert_int_equal(vmt_rbpage_init(&pg, &hp, page, sizeof(page)), -EBADMSG);
	/* a buffer shorter than the header */
	assert_int_equal(vmt_rbpage_init(&pg, &hp, page, 10), -EBADMSG);

	/* a record whose length runs past commit */
	pb_init(&pb, page, &hp, 1);
	pb_data(&pb, 2, payload, 16, false);
	pb_data(&pb, 3, payload, 16, false);
	pb_finish(&pb, false, false, 0);
	put_le32(page + 16 + 20, 28 | 1 << 5);	/* second record claims 112 bytes */
	assert_int_equal(vmt_rbpage_init(&pg, &hp, page, sizeof(page)), 0);
	assert_int_equal(vmt_rbpage_next(&pg, &r), 1);
	assert_int_equal(vmt_rbpage_next(&pg, &r), -EBADMSG);
	assert_int_equal(vmt_rbpage_next(&pg, &r), 0);

	/* type_len 0 with a length word of 0, 3 and 2^32-1 */
	{
		uint32_t bad[] = { 0, 3, 0xffffffffu };
		unsigned int i;

		for (i = 0; i < 3; i++) {
			pb_init(&pb, page, &hp, 1);
			pb_data(&pb, 2, payload, 16, true);
			pb_finish(&pb, false, false, 0);
			put_le32(page + 16 + 4, bad[i]);
			assert_int_equal(vmt_rbpage_init(&pg, &hp, page, sizeof(page)), 0);
			assert_int_equal(vmt_rbpage_next(&pg, &r), -EBADMSG);
		}
	}
	/* discarded-event padding claiming more than the page */
	pb_init(&pb, page, &hp, 1);
	pb_discarded(&pb, 2, 16);
	pb_finish(&pb, false, false, 0);
	put_le32(page + 16 + 4, 100000);
	assert_int_equal(vmt_rbpage_init(&pg, &hp, page, sizeof(page)), 0);
	assert_int_equal(vmt_rbpage_next(&pg, &r), -EBADMSG);
}

/* Random bytes: any outcome but a read outside the page (ASan) or an endless loop. */
static void test_random_pages(void **state)
{
	struct vmt_header_page hp = layout_64();
	uint64_t x = 0x12345678abcdefULL;
	unsigned int iter;

	(void)state;
	for (iter = 0; iter < 20000; iter++) {
		uint8_t *page = malloc(4096);
		struct vmt_rbrecord r;
		struct vmt_rbpage pg;
		unsigned int i, steps = 0;

		for (i = 0; i < 4096; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			page[i] = (uint8_t)x;
		}
		/* Half the time a plausible commit, so decoding gets going. */
		if (iter & 1)
			put_le64(page + 8, x % 4081);
		if (vmt_rbpage_init(&pg, &hp, page, 4096) == 0) {
			while (vmt_rbpage_next(&pg, &r) == 1)
				assert_true(++steps <= 4080 / 4);
		}
		free(page);
	}
}

/*
 * The inline record path and the full decoder taking turns, as the reader uses them: the
 * same records, times, errors and end as the full decoder alone, on random pages (most
 * words there are short data records, the rest every other kind and damage).
 */
static void test_fast_path(void **state)
{
	struct vmt_header_page hp = layout_64();
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	unsigned int iter, fast = 0;

	(void)state;
	for (iter = 0; iter < 20000; iter++) {
		uint8_t *page = malloc(4096);
		struct vmt_rbpage a, b;
		unsigned int i;

		for (i = 0; i < 4096; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			page[i] = (uint8_t)x;
		}
		put_le64(page + 8, x % 4081);
		if (vmt_rbpage_init(&a, &hp, page, 4096) == 0) {
			assert_int_equal(vmt_rbpage_init(&b, &hp, page, 4096), 0);
			for (;;) {
				struct vmt_rbrecord ra, rb;
				int want = vmt_rbpage_next(&a, &ra), got;

				if (vmt_rbpage_next_fast(&b, &rb)) {
					got = 1;
					fast++;
				} else {
					got = vmt_rbpage_next(&b, &rb);
				}
				assert_int_equal(got, want);
				if (want != 1)
					break;
				assert_int_equal(rb.ts, ra.ts);
				assert_ptr_equal(rb.data, ra.data);
				assert_int_equal(rb.len, ra.len);
			}
			assert_int_equal(b.off, a.off);
			assert_int_equal(b.ts, a.ts);
		}
		free(page);
	}
	assert_true(fast > 20000);	/* the inline path did most of the work */
}

/*
 * Real pages read from this kernel's trace_pipe_raw (raw_syscalls on CPU 1, a 64 KiB buffer
 * that overflowed) against the kernel's own text trace of the same buffer: same records,
 * same microsecond timestamps, pids and syscall numbers.
 */
static void test_real_pages(void **state)
{
	char path[512], *pages, *text, *line;
	struct vmt_header_page hp = layout_file("linux-6.18-x86_64/header_page");
	size_t plen, tlen, off, nrec = 0, missed_pages = 0;
	uint64_t missed = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/pages/raw_syscalls-cpu1.pages", TOP_SRCDIR);
	assert_int_equal(vmt_io_read_file(path, 1 << 20, &pages, &plen), 0);
	snprintf(path, sizeof(path), "%s/tests/data/pages/raw_syscalls-cpu1.trace.txt", TOP_SRCDIR);
	assert_int_equal(vmt_io_read_file(path, 1 << 22, &text, &tlen), 0);
	assert_int_equal(plen % 4096, 0);
	line = text;
	for (off = 0; off < plen; off += 4096) {
		struct vmt_rbrecord r;
		struct vmt_rbpage pg;
		static struct expect exp[MAX_RECS];
		size_t n = 0;

		assert_int_equal(vmt_rbpage_init(&pg, &hp, pages + off, 4096), 0);
		if (pg.missed) {
			missed_pages++;
			missed += pg.missed_count;
		}
		while (vmt_rbpage_next(&pg, &r) == 1) {
			unsigned long long sec, usec;
			char *p;
			int pid, nr;

			/* the next event line of the text trace */
			while (*line == '#')
				line = strchr(line, '\n') + 1;
			p = strstr(line, "] ");
			assert_non_null(p);
			assert_int_equal(sscanf(p + 2, "%*s %llu.%llu:", &sec, &usec), 2);
			/* the kernel prints nanoseconds rounded to microseconds */
			assert_int_equal((r.ts + 500) / 1000, sec * 1000000 + usec);
			{
				char task[128];

				/* "syscall_loop-5159": the pid follows the last '-' */
				assert_int_equal(sscanf(line, "%127s", task), 1);
				pid = atoi(strrchr(task, '-') + 1);
			}
			assert_int_equal((int32_t)get_le32(r.data + 4), pid);
			assert_non_null(strstr(line, "NR "));
			assert_int_equal(sscanf(strstr(line, "NR ") + 3, "%d", &nr), 1);
			assert_int_equal((int64_t)get_le64(r.data + 8), nr);
			exp[n].ts = r.ts;
			exp[n].len = r.len;
			exp[n].first = r.data[0];
			n++;
			nrec++;
			line = strchr(line, '\n') + 1;
		}
#ifdef HAVE_TRACEEVENT
		check_kbuffer(&hp, (uint8_t *)pages + off, exp, n);
#endif
	}
	assert_int_equal(nrec, 1373);	/* "entries-in-buffer/entries-written: 1373/3222" */
	assert_int_equal(missed_pages, 1);
	assert_int_equal(missed, 3222 - 1373);
	free(pages);
	free(text);
}

static struct vmt_evformat *guest_format(const char *ev)
{
	struct vmt_evformat *f = NULL;
	char path[512], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/tests/data/formats/linux-6.1-kvmhost/kvm/%s/format",
		 TOP_SRCDIR, ev);
	assert_int_equal(vmt_io_read_file(path, 1 << 20, &text, &len), 0);
	assert_int_equal(vmt_evformat_parse(text, len, "kvm", &f, NULL), 0);
	free(text);
	return f;
}

/*
 * Real kvm_exit/kvm_entry pages from a KVM host (AMD SVM, Linux 6.1 under QEMU, a 64 KiB
 * buffer that overflowed) against the kernel's own text trace of the same buffer: every
 * record's time, task, vCPU, RIP and exit reason as the kernel names it.
 */
static void test_real_kvm_pages(void **state)
{
	struct vmt_header_page hp = layout_file("linux-6.1-kvmhost/header_page");
	struct vmt_evformat *fx = guest_format("kvm_exit"), *fe = guest_format("kvm_entry");
	char path[512], *pages, *text, *line, *stats;
	struct vmt_exitreasons *names;
	size_t plen, tlen, off, nrec = 0;
	uint64_t missed = 0, overrun = 0, entries = 0;
	struct vmt_evbind b;

	(void)state;
	assert_int_equal(vmt_evbind_init(&b, fx, fe), 0);
	assert_int_equal(vmt_exitreasons_new(fx, NULL, &names), 0);
	assert_true(vmt_exitreasons_from_recording(names));
	snprintf(path, sizeof(path), "%s/tests/data/pages/kvm-svm-cpu1.pages", TOP_SRCDIR);
	assert_int_equal(vmt_io_read_file(path, 1 << 20, &pages, &plen), 0);
	snprintf(path, sizeof(path), "%s/tests/data/pages/kvm-svm-cpu1.trace.txt", TOP_SRCDIR);
	assert_int_equal(vmt_io_read_file(path, 1 << 22, &text, &tlen), 0);
	snprintf(path, sizeof(path), "%s/tests/data/pages/kvm-svm-cpu1.stats", TOP_SRCDIR);
	assert_int_equal(vmt_io_read_file(path, 1 << 16, &stats, NULL), 0);
	assert_int_equal(sscanf(stats, "entries: %" SCNu64 " overrun: %" SCNu64, &entries,
				&overrun), 2);
	line = text;
	for (off = 0; off + 4096 <= plen; off += 4096) {
		struct vmt_rbrecord r;
		struct vmt_rbpage pg;

		assert_int_equal(vmt_rbpage_init(&pg, &hp, pages + off, 4096), 0);
		if (pg.missed)
			missed += pg.missed_count;
		while (vmt_rbpage_next(&pg, &r) == 1) {
			unsigned long long sec, usec, rip;
			struct vmt_event ev;
			char task[128], what[32], *p;
			int pid;

			while (*line == '#')
				line = strchr(line, '\n') + 1;
			assert_int_equal(sscanf(line, "%127s", task), 1);
			pid = atoi(strrchr(task, '-') + 1);
			p = strstr(line, "] ");
			assert_non_null(p);
			assert_int_equal(sscanf(p + 2, "%*s %llu.%llu: %31[^:]:", &sec, &usec, what), 3);
			assert_int_equal(vmt_evbind_decode(&b, &r, 1, &ev), 1);
			assert_int_equal((r.ts + 500) / 1000, sec * 1000000 + usec);
			assert_int_equal(ev.pid, pid);
			assert_non_null(strstr(line, "vcpu 0"));
			assert_int_equal(ev.vcpu, 0);
			assert_int_equal(sscanf(strstr(line, "rip 0x") + 4, "%llx", &rip), 1);
			assert_int_equal(ev.rip, rip);
			if (ev.kind == VMT_EV_BEGIN) {
				char want[96];
				const char *name = vmt_exitreason_name(names, ev.isa,
					vmt_exitreason_key(ev.isa, ev.reason));

				assert_string_equal(what, "kvm_exit");
				assert_int_equal(ev.isa, 2);	/* SVM */
				assert_non_null(name);
				snprintf(want, sizeof(want), "reason %s rip", name);
				assert_non_null(strstr(line, want));
			} else {
				assert_string_equal(what, "kvm_entry");
			}
			nrec++;
			line = strchr(line, '\n') + 1;
		}
	}
	assert_int_equal(nrec, entries);
	assert_int_equal(missed, overrun);
	vmt_exitreasons_free(names);
	vmt_evformat_free(fx);
	vmt_evformat_free(fe);
	free(pages);
	free(text);
	free(stats);
}

static struct vmt_evformat *layout_format(const char *dir, const char *ev)
{
	struct vmt_evformat *f = NULL;
	char path[512], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/tests/data/formats/%s/kvm/%s/format", TOP_SRCDIR, dir,
		 ev);
	assert_int_equal(vmt_io_read_file(path, 1 << 20, &text, &len), 0);
	assert_int_equal(vmt_evformat_parse(text, len, "kvm", &f, NULL), 0);
	free(text);
	return f;
}

static void assert_same_event(const struct vmt_event *a, const struct vmt_event *b)
{
	assert_int_equal(a->ts, b->ts);
	assert_int_equal(a->cpu, b->cpu);
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->has, b->has);
	assert_int_equal(a->vcpu, b->vcpu);
	assert_int_equal(a->isa, b->isa);
	assert_int_equal(a->reason, b->reason);
	assert_int_equal(a->rip, b->rip);
	assert_int_equal(a->info1, b->info1);
	assert_int_equal(a->info2, b->info2);
	assert_int_equal(a->intr_info, b->intr_info);
	assert_int_equal(a->error_code, b->error_code);
}

/*
 * The pass's inline decoder against vmt_evbind_decode(), whose every field is bounds-checked:
 * the same result and fields for records of every length (shorter than the common header,
 * shorter than the fast path needs, longer) and of the begin, the end and other ids, random
 * bytes, in each layout the suite carries.
 */
static void test_decode_inline(void **state)
{
	static const char *const dirs[] = { "linux-6.18-x86_64", "linux-6.1-x86_64",
					    "linux-6.1-kvmhost", "rt-2015-x86_64", "arm64" };
	uint64_t rnd = 0x9e3779b97f4a7c15ull;
	unsigned int i, n, fast = 0, light_ends = 0;

	(void)state;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		struct vmt_evformat *fx = layout_format(dirs[i], "kvm_exit");
		struct vmt_evformat *fe = layout_format(dirs[i], "kvm_entry");
		struct vmt_evbind b, light;

		assert_int_equal(vmt_evbind_init(&b, fx, fe), 0);
		for (n = 0; n < 20000; n++) {
			uint8_t data[128];
			struct vmt_rbrecord r = { 0 };
			struct vmt_event want, got;
			unsigned int k;
			int a, c;

			for (k = 0; k < sizeof(data); k++) {
				rnd ^= rnd << 13;
				rnd ^= rnd >> 7;
				rnd ^= rnd << 17;
				data[k] = (uint8_t)rnd;
			}
			k = (unsigned int)(rnd >> 40) % 3;
			put_le16(data + b.common_type.offset,
				 (uint16_t)(k == 0 ? fx->id : k == 1 ? fe->id : fx->id + 1000));
			r.ts = rnd >> 3;
			r.data = data;
			r.len = (uint32_t)(rnd >> 48) % (sizeof(data) + 1);
			memset(&want, 0xa5, sizeof(want));
			memset(&got, 0x5a, sizeof(got));
			a = vmt_evbind_decode(&b, &r, n % 7, &want);
			c = vmt_evbind_decode_inline(&b, &r, n % 7, &got);
			assert_int_equal(a, c);
			if (a == 1) {
				assert_same_event(&want, &got);
				fast++;
			}
			/* a pass that never shows entries: the same without an entry's detail */
			light = b;
			light.end.detail = false;
			memset(&got, 0x5a, sizeof(got));
			c = vmt_evbind_decode_inline(&light, &r, n % 7, &got);
			assert_int_equal(a, c);
			if (a == 1 && want.kind == VMT_EV_END && r.len >= b.end.fast_len) {
				assert_int_equal(got.has, want.has & ~VMT_EVF_DETAIL);
				assert_true(got.rip == 0 && got.info1 == 0 && got.info2 == 0 &&
					    got.intr_info == 0 && got.error_code == 0);
				want.has = got.has;
				want.rip = want.info1 = want.info2 = 0;
				want.intr_info = want.error_code = 0;
				light_ends++;
			}
			if (a == 1)
				assert_same_event(&want, &got);
		}
		vmt_evformat_free(fx);
		vmt_evformat_free(fe);
	}
	assert_true(fast > 10000);	/* the decoded records were not all rare ones */
	assert_true(light_ends > 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mixed_layouts),
		cmocka_unit_test(test_time_stamp_msb),
		cmocka_unit_test(test_missed_flags),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_random_pages),
		cmocka_unit_test(test_fast_path),
		cmocka_unit_test(test_real_pages),
		cmocka_unit_test(test_real_kvm_pages),
		cmocka_unit_test(test_decode_inline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
