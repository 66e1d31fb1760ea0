// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rows: per-exit rows in exit-time order on recordings built here event by event (the
 * Linux 6.18 kvm_exit/kvm_entry layout), through the real reader and pass: overlapping
 * exits on several CPUs, one task (nothing held), the hold's bound (one late row),
 * exits that never get a row (orphaned, unfinished, filtered out, dropped at a loss) not
 * holding the others back, and JSON lines in the same order. Each case states the rows it
 * expects, by exit time and task, from the events it wrote. CSV formatted by 1 to 4
 * threads (fmtpool.h) is byte for byte the serial writer's, per exit and per event.
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
#include "container.h"
#include "io.h"
#include "iterate.h"
#include "kv.h"
#include "metakeys.h"
#include "pagebuilder.h"
#include "reader.h"
#include "rows.h"

#define NCPU 4
#define MAX_PAGES 512

/* One event of a test recording; GAP starts a new page on cpu flagged "events lost". */
enum { EXIT, ENTRY, GAP };
struct tev {
	int kind;
	uint32_t cpu;
	uint64_t ts;
	int32_t pid;
};

/* The rows a case expects: exit time and task, in the order they must come out. */
struct trow {
	uint64_t ts;
	int32_t pid;
};

struct fixture {
	char vmt[64], out[64];
};

static char *slurp(const char *rel, size_t *len)
{
	char p[512], *text;

	snprintf(p, sizeof(p), "%s/tests/data/formats/linux-6.18-x86_64/%s", TOP_SRCDIR, rel);
	assert_int_equal(vmt_io_read_file(p, 1 << 20, &text, len), 0);
	return text;
}

/*
 * The record of an event in the 6.18 layout (tests/data/formats/linux-6.18-x86_64):
 * kvm_exit id 103 (exit_reason @8, guest_rip @16, isa @24, info1 @32, vcpu_id @56, 72
 * bytes), kvm_entry id 115 (vcpu_id @8, rip @16, 40 bytes). The vCPU is the task's pid.
 */
static uint32_t record(const struct tev *e, uint8_t *rec)
{
	memset(rec, 0, 72);
	put_le32(rec + 4, (uint32_t)e->pid);
	if (e->kind == EXIT) {
		put_le16(rec, 103);
		put_le32(rec + 8, 0x78);	/* SVM hlt */
		put_le64(rec + 16, 0x1000);
		put_le32(rec + 24, 2);
		put_le64(rec + 32, e->ts);
		put_le32(rec + 56, (uint32_t)e->pid);
		return 72;
	}
	put_le16(rec, 115);
	put_le32(rec + 8, (uint32_t)e->pid);
	put_le64(rec + 16, 0x1000);
	return 40;
}

/* Write the events (in time order) as a .vmt: one chunk per CPU, a page per loss. */
static void write_vmt(const char *path, const struct tev *ev, size_t n)
{
	struct vmt_header_page hp;
	struct vmt_kvbuf meta, end;
	struct vmt_writer *w;
	uint8_t *pages[NCPU], rec[72];
	struct pb pb[NCPU];
	uint32_t npages[NCPU] = { 0 };
	bool open_page[NCPU] = { false }, gap[NCPU] = { false }, flag[NCPU] = { false };
	uint64_t first[NCPU] = { 0 }, last[NCPU] = { 0 };
	unsigned int c;
	char *text;
	size_t len, i;
	int fd;

	vmt_kv_init(&meta);
	text = slurp("header_page", &len);
	assert_int_equal(vmt_header_page_parse(text, len, &hp), 0);
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
	vmt_kv_add_str(&meta, VMT_META_CPUS, "0-3");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(vmt_writer_open(fd, &meta, 1, &w), 0);
	for (c = 0; c < NCPU; c++)
		pages[c] = calloc(MAX_PAGES, 4096);
	for (i = 0; i < n; i++) {
		c = ev[i].cpu;
		assert_true(c < NCPU);
		/* a page flagged "events lost" (flag) follows a loss (gap): the kernel's way */
		if (ev[i].kind == GAP || (open_page[c] && pb_room(&pb[c]) < 128)) {
			if (open_page[c])
				pb_finish(&pb[c], flag[c], flag[c], flag[c] ? 3 : 0);
			open_page[c] = false;
			gap[c] |= ev[i].kind == GAP;
			if (ev[i].kind == GAP)
				continue;
		}
		if (!open_page[c]) {
			assert_true(npages[c] < MAX_PAGES);
			pb_init(&pb[c], pages[c] + (size_t)npages[c]++ * 4096, &hp, ev[i].ts);
			if (npages[c] == 1)
				first[c] = ev[i].ts;
			open_page[c] = true;
			flag[c] = gap[c];
			gap[c] = false;
		}
		assert_int_equal(pb_data(&pb[c], ev[i].ts, rec, record(&ev[i], rec), false), 0);
		last[c] = ev[i].ts;
	}
	for (c = 0; c < NCPU; c++) {
		struct vmt_chunk_info ci = { .cpu = c };

		if (open_page[c])
			pb_finish(&pb[c], flag[c], flag[c], flag[c] ? 3 : 0);
		if (npages[c]) {
			ci.first_ts = first[c];
			ci.last_ts = last[c];
			assert_int_equal(vmt_writer_chunk(w, pages[c], npages[c], 4096, &ci), 0);
		}
		free(pages[c]);
	}
	vmt_kv_init(&end);
	assert_int_equal(vmt_writer_finish(w, &end), 0);
	vmt_writer_free(w);
	close(fd);
	vmt_kv_free(&meta);
	vmt_kv_free(&end);
}

/*
 * Convert path into out (CSV or JSON lines) with hold places and the filter (or none);
 * return the rows' exit times and tasks, and the order's figures.
 */
static size_t convert(struct fixture *fx, enum vmt_rows_format fmt, uint32_t hold,
		      struct vmt_filter *filter, struct trow *got, size_t max,
		      struct vmt_rows_stats *st)
{
	struct vmt_rows_opts ro = { .format = fmt, .fd = -1 };
	struct vmt_iter_opts io = { .filter = filter };
	struct vmt_consumer c;
	struct vmt_reader *r;
	struct vmt_rows *w;
	struct vmt_iter it;
	char line[1024];
	size_t n = 0;
	FILE *f;

	ro.fd = open(fx->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(ro.fd >= 0);
	assert_int_equal(vmt_reader_open(fx->vmt, NULL, &r, NULL, 0), 0);
	assert_int_equal(vmt_rows_consumer(&ro, &w, &c), 0);
	if (hold)
		vmt_rows_set_hold_max(w, hold);
	assert_int_equal(vmt_iterate(r, &io, &c, 1, &it), 0);
	*st = *vmt_rows_stats(w);
	assert_int_equal(vmt_rows_finish(w), 0);
	vmt_reader_close(r);
	close(ro.fd);
	f = fopen(fx->out, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long ts;
		int pid;

		if (fmt == VMT_ROWS_CSV) {
			if (strncmp(line, "start_ns,", 9) == 0)
				continue;
			/* start_ns,start_ts_ns,pcpu,entry_pcpu,vcpu,task,... */
			assert_int_equal(sscanf(line, "%*u,%llu,%*u,%*u,%*u,%d,", &ts, &pid), 2);
		} else {
			const char *a = strstr(line, "\"start_ts_ns\":");
			const char *b = strstr(line, "\"task\":");

			assert_non_null(a);
			assert_non_null(b);
			assert_int_equal(sscanf(a, "\"start_ts_ns\":%llu", &ts), 1);
			assert_int_equal(sscanf(b, "\"task\":%d", &pid), 1);
		}
		assert_true(n < max);
		got[n].ts = ts;
		got[n].pid = pid;
		n++;
	}
	fclose(f);
	return n;
}

static void expect_rows(const struct trow *got, size_t n, const struct trow *want, size_t nw)
{
	size_t i;

	for (i = 0; i < n && i < nw; i++) {
		if (got[i].ts != want[i].ts || got[i].pid != want[i].pid)
			fail_msg("row %zu: exit at %llu of task %d, expected %llu of task %d",
				 i + 1, (unsigned long long)got[i].ts, got[i].pid,
				 (unsigned long long)want[i].ts, want[i].pid);
	}
	assert_int_equal(n, nw);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	snprintf(fx->vmt, sizeof(fx->vmt), "/tmp/vmt-rows-%d.vmt", (int)getpid());
	snprintf(fx->out, sizeof(fx->out), "/tmp/vmt-rows-%d.out", (int)getpid());
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	unlink(fx->vmt);
	unlink(fx->out);
	free(fx);
	return 0;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A long exit on CPU 0 while CPU 1 exits three times: the three wait, then all in order. */
static void test_overlap(void **state)
{
	static const struct tev ev[] = {
		{ EXIT, 0, 1000, 10 },
		{ EXIT, 1, 1100, 11 }, { ENTRY, 1, 1200, 11 },
		{ EXIT, 1, 1300, 11 }, { ENTRY, 1, 1400, 11 },
		{ EXIT, 2, 1450, 12 },
		{ EXIT, 1, 1500, 11 }, { ENTRY, 1, 1600, 11 },
		{ ENTRY, 2, 1650, 12 },
		{ ENTRY, 0, 9000, 10 },
		{ EXIT, 1, 9100, 11 }, { ENTRY, 1, 9200, 11 },
	};
	static const struct trow want[] = {
		{ 1000, 10 }, { 1100, 11 }, { 1300, 11 }, { 1450, 12 }, { 1500, 11 }, { 9100, 11 },
	};
	struct fixture *fx = *state;
	struct vmt_rows_stats st;
	struct trow got[16];
	size_t n;

	write_vmt(fx->vmt, ev, N(ev));
	n = convert(fx, VMT_ROWS_CSV, 0, NULL, got, N(got), &st);
	expect_rows(got, n, want, N(want));
	assert_int_equal(st.unordered, 0);
	assert_int_equal(st.held, 4);		/* 1100, 1300, 1450, 1500 waited for 1000 */
	assert_int_equal(st.held_peak, 5);	/* 1000 and the four after it */
	/* JSON lines: the same order */
	n = convert(fx, VMT_ROWS_JSONL, 0, NULL, got, N(got), &st);
	expect_rows(got, n, want, N(want));
}

/* One task on one CPU: every row is the oldest open exit's, written at once, none held. */
static void test_one_task(void **state)
{
	struct fixture *fx = *state;
	struct tev ev[400];
	struct trow want[200], got[200];
	struct vmt_rows_stats st;
	size_t i, n;

	for (i = 0; i < 200; i++) {
		ev[2 * i] = (struct tev){ EXIT, 2, 1000 + i * 100, 7 };
		ev[2 * i + 1] = (struct tev){ ENTRY, 2, 1000 + i * 100 + 30 + i % 50, 7 };
		want[i] = (struct trow){ 1000 + i * 100, 7 };
	}
	write_vmt(fx->vmt, ev, N(ev));
	n = convert(fx, VMT_ROWS_CSV, 0, NULL, got, N(got), &st);
	expect_rows(got, n, want, N(want));
	assert_int_equal(st.held, 0);
	assert_int_equal(st.held_peak, 1);
	assert_int_equal(st.unordered, 0);
}

/*
 * A hold of 4 places: the long exit gives up its place when the fifth exit after it
 * begins; its row comes last and is counted late; every other row in order.
 */
static void test_bound(void **state)
{
	struct fixture *fx = *state;
	struct tev ev[32];
	struct trow want[12], got[16];
	struct vmt_rows_stats st;
	size_t i, k = 0, n;

	ev[k++] = (struct tev){ EXIT, 0, 1000, 10 };
	for (i = 0; i < 10; i++) {
		ev[k++] = (struct tev){ EXIT, 1, 2000 + i * 100, 11 };
		ev[k++] = (struct tev){ ENTRY, 1, 2000 + i * 100 + 50, 11 };
		want[i] = (struct trow){ 2000 + i * 100, 11 };
	}
	ev[k++] = (struct tev){ ENTRY, 0, 5000, 10 };
	want[10] = (struct trow){ 1000, 10 };
	write_vmt(fx->vmt, ev, k);
	n = convert(fx, VMT_ROWS_CSV, 4, NULL, got, N(got), &st);
	expect_rows(got, n, want, 11);
	assert_int_equal(st.unordered, 1);
	assert_true(st.held_peak <= 4);
	/* with room for all, no row is late */
	n = convert(fx, VMT_ROWS_CSV, 16, NULL, got, N(got), &st);
	assert_int_equal(st.unordered, 0);
	assert_int_equal(got[0].ts, 1000);
	assert_int_equal(n, 11);
}

/*
 * Exits that never get a row do not hold the others back: one orphaned by its task's next
 * exit, one still open at the end (its rows come out at the finish), one whose pair spans
 * a loss on its CPU; and an entry without its exit changes nothing.
 */
static void test_no_row(void **state)
{
	static const struct tev ev[] = {
		{ EXIT, 3, 900, 13 },			/* open to the end: unfinished */
		{ EXIT, 0, 1000, 10 },			/* orphaned by the next exit of 10 */
		{ ENTRY, 2, 1050, 99 },			/* an entry without its exit */
		{ EXIT, 1, 1100, 11 }, { ENTRY, 1, 1200, 11 },
		{ EXIT, 0, 1300, 10 },
		{ EXIT, 2, 1350, 12 },			/* its CPU loses events before its entry */
		{ EXIT, 1, 1400, 11 }, { ENTRY, 1, 1500, 11 },
		{ GAP, 2, 0, 0 },
		{ ENTRY, 2, 1600, 12 },			/* dropped: the pair spans the loss */
		{ ENTRY, 0, 1700, 10 },
		{ EXIT, 1, 1800, 11 }, { ENTRY, 1, 1900, 11 },
	};
	static const struct trow want[] = {
		{ 1100, 11 }, { 1300, 10 }, { 1400, 11 }, { 1800, 11 },
	};
	struct fixture *fx = *state;
	struct vmt_rows_stats st;
	struct trow got[16];
	size_t n;

	write_vmt(fx->vmt, ev, N(ev));
	n = convert(fx, VMT_ROWS_CSV, 0, NULL, got, N(got), &st);
	expect_rows(got, n, want, N(want));
	assert_int_equal(st.unordered, 0);
	n = convert(fx, VMT_ROWS_JSONL, 0, NULL, got, N(got), &st);
	expect_rows(got, n, want, N(want));
}

/* Exits the filter leaves out only delay the rows after them, in order. */
static void test_filtered(void **state)
{
	static const struct tev ev[] = {
		{ EXIT, 0, 1000, 10 },
		{ EXIT, 1, 1100, 11 }, { ENTRY, 1, 1200, 11 },
		{ EXIT, 1, 1300, 11 }, { ENTRY, 1, 1400, 11 },
		{ ENTRY, 0, 2000, 10 },
		{ EXIT, 0, 2100, 10 }, { ENTRY, 0, 2200, 10 },
		{ EXIT, 1, 2300, 11 }, { ENTRY, 1, 2400, 11 },
	};
	static const struct trow want[] = { { 1100, 11 }, { 1300, 11 }, { 2300, 11 } };
	struct fixture *fx = *state;
	struct vmt_filter f = { 0 };
	struct vmt_rows_stats st;
	struct trow got[16];
	size_t n;

	assert_int_equal(vmt_cli_parse_cpulist("1", &f.cpus), 0);
	write_vmt(fx->vmt, ev, N(ev));
	n = convert(fx, VMT_ROWS_CSV, 0, &f, got, N(got), &st);
	expect_rows(got, n, want, N(want));
	assert_int_equal(st.unordered, 0);
	vmt_filter_free(&f);
}

/* Convert into out with threads formatting; the bytes written. */
static char *convert_bytes(struct fixture *fx, bool events, int threads, uint32_t hold,
			   size_t *len)
{
	struct vmt_rows_opts ro = { .format = VMT_ROWS_CSV, .events = events,
				    .threads = threads };
	struct vmt_iter_opts io = { 0 };
	struct vmt_consumer c;
	struct vmt_reader *r;
	struct vmt_rows *w;
	struct vmt_iter it;
	char *text;

	ro.fd = open(fx->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(ro.fd >= 0);
	assert_int_equal(vmt_reader_open(fx->vmt, NULL, &r, NULL, 0), 0);
	assert_int_equal(vmt_rows_consumer(&ro, &w, &c), 0);
	if (hold)
		vmt_rows_set_hold_max(w, hold);
	assert_int_equal(vmt_iterate(r, &io, &c, 1, &it), 0);
	assert_int_equal(vmt_rows_finish(w), 0);
	vmt_reader_close(r);
	close(ro.fd);
	assert_int_equal(vmt_io_read_file(fx->out, 1 << 30, &text, len), 0);
	return text;
}

static size_t count_lines(const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		n += s[i] == '\n';
	return n;
}

/*
 * Many batches of rows (tens of thousands of exits of 6 tasks migrating over 4 CPUs, long
 * exits overlapping short ones, losses): with 1 to 4 formatting threads the file is the
 * serial writer's, byte for byte, per exit (with a small hold too: late rows) and per event;
 * and it has a row per pair and per event.
 */
static void test_threads(void **state)
{
	enum { NTASK = 6, PER_TASK = 6000 };
	struct fixture *fx = *state;
	struct tev *ev = calloc(NTASK * PER_TASK * 2 + 16, sizeof(*ev)), *e;
	uint64_t x = 0x9e3779b97f4a7c15ULL, ts[NTASK];
	size_t n = 0, i, j, k, pairs = 0, len0, len;
	unsigned int t, cpu[NTASK];

	assert_non_null(ev);
	for (t = 0; t < NTASK; t++) {
		ts[t] = 1000 + t * 7;
		cpu[t] = t % NCPU;
	}
	/* each task: exit, entry, exit, entry...; the events merged by time below */
	for (t = 0; t < NTASK; t++) {
		for (i = 0; i < PER_TASK; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			ts[t] += 100 + x % 900;
			ev[n++] = (struct tev){ EXIT, cpu[t], ts[t] * 8 + t, 100 + (int32_t)t };
			ts[t] += x % 97 == 0 ? 20000 + x % 50000 : 50 + (x >> 20) % 400;
			if (x % 13 == 0)
				cpu[t] = (unsigned int)(x >> 40) % NCPU;	/* migrates */
			ev[n++] = (struct tev){ ENTRY, cpu[t], ts[t] * 8 + t, 100 + (int32_t)t };
		}
	}
	/* insertion by merge: each task's events are already in time order */
	{
		struct tev *m = calloc(n + 16, sizeof(*m));
		size_t pos[NTASK] = { 0 }, out = 0;

		assert_non_null(m);
		for (k = 0; k < n; k++) {
			size_t best = NTASK;

			for (t = 0; t < NTASK; t++) {
				if (pos[t] < 2 * PER_TASK &&
				    (best == NTASK || ev[t * 2 * PER_TASK + pos[t]].ts <
							      ev[best * 2 * PER_TASK + pos[best]].ts))
					best = t;
			}
			m[out++] = ev[best * 2 * PER_TASK + pos[best]++];
			/* a loss on CPU 2 now and then: the pairs across it have no row */
			if (k % 9973 == 5000)
				m[out++] = (struct tev){ GAP, 2, 0, 0 };
		}
		free(ev);
		ev = m;
		n = out;
	}
	write_vmt(fx->vmt, ev, n);
	for (e = ev, k = 0; k < n; k++, e++)
		pairs += e->kind == ENTRY;
	for (j = 0; j < 3; j++) {
		bool events = j == 2;
		uint32_t hold = j == 1 ? 64 : 0;
		char *serial = convert_bytes(fx, events, 0, hold, &len0);
		size_t rows = count_lines(serial, len0) - 1;

		/* every event a row; every pair but those the losses drop (a few per loss) */
		if (events)
			assert_int_equal(rows, 2 * pairs);
		else
			assert_true(rows <= pairs && rows + 40 > pairs);
		for (t = 1; t <= 4; t++) {
			char *par = convert_bytes(fx, events, (int)t, hold, &len);

			if (len != len0 || memcmp(par, serial, len) != 0)
				fail_msg("%s, hold %u, %u threads: %zu bytes, serial %zu",
					 events ? "events" : "exits", hold, t, len, len0);
			free(par);
		}
		free(serial);
	}
	free(ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_overlap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_task, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filtered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
