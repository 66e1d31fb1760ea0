// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * readahead: chunks taken the way the merge takes them (one held per stream, in time
 * order), in reverse (every chunk outside the read-ahead window, decompressed by the taker
 * itself), and a damaged chunk; each buffer handed out must equal the chunk read directly
 * (vmt_source_read_chunk). In windows: each chunk's parts the same way, against the parts
 * read directly (vmt_source_read_chunk_part), and parts dropped. When there is nothing to
 * gain, no threads are started.
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

#include "container.h"
#include "kv.h"
#include "readahead.h"
#include "source.h"

#define NCPU 2
#define PER_CPU 12
#define PAGES 4
#define PAGE 4096
#define DAMAGED 7	/* this chunk's payload gets a flipped byte */

static char path[64];

static int setup(void **state)
{
	uint8_t *pages = malloc(PAGES * PAGE), byte;
	struct vmt_chunk_info ci;
	struct vmt_kvbuf meta, end;
	struct vmt_writer *w;
	uint64_t damaged_off = 0;
	unsigned int k, c;
	size_t i;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/vmt-readahead-%d.vmt", (int)getpid());
	vmt_kv_init(&meta);
	vmt_kv_init(&end);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(vmt_writer_open(fd, &meta, VMT_DEFAULT_LEVEL, &w), 0);
	for (k = 0; k < PER_CPU; k++) {
		for (c = 0; c < NCPU; c++) {
			/* different bytes in every chunk, times interleaved across the CPUs */
			for (i = 0; i < PAGES * PAGE; i++)
				pages[i] = (uint8_t)(i * (k * NCPU + c + 1) + (i >> 9));
			memset(&ci, 0, sizeof(ci));
			ci.cpu = c;
			ci.first_ts = 1000 * k + c;
			ci.last_ts = 1000 * k + 999;
			assert_int_equal(vmt_writer_chunk(w, pages, PAGES, PAGE, &ci), 0);
			if (k * NCPU + c == DAMAGED)
				damaged_off = ci.offset + VMT_CHUNK_HEADER_SIZE + 10;
		}
	}
	assert_int_equal(vmt_writer_finish(w, &end), 0);
	vmt_writer_free(w);
	assert_int_equal(close(fd), 0);
	vmt_kv_free(&meta);
	vmt_kv_free(&end);
	free(pages);
	fd = open(path, O_RDWR);
	assert_int_equal(pread(fd, &byte, 1, (off_t)damaged_off), 1);
	byte ^= 0x40;
	assert_int_equal(pwrite(fd, &byte, 1, (off_t)damaged_off), 1);
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

/* Take chunk idx, compare it with a direct read, release it unless told to hold it. */
static void take_check(struct vmt_readahead *ra, const struct vmt_source *s, size_t idx,
		       struct vmt_chunkbuf *direct, bool release)
{
	const char *why = NULL, *direct_why = NULL;
	const uint8_t *raw = NULL;
	int err = vmt_readahead_take(ra, idx, 0, &raw, &why);
	int want = vmt_source_read_chunk(s, idx, direct, &direct_why);

	assert_int_equal(err, want);
	if (idx == DAMAGED) {
		assert_int_equal(err, -EBADMSG);
		assert_string_equal(why, "chunk checksum mismatch");
	} else {
		assert_int_equal(err, 0);
		assert_memory_equal(raw, direct->raw, vmt_source_chunk(s, idx)->raw_size);
	}
	if (release)
		vmt_readahead_release(ra, idx, 0);
}

static struct vmt_readahead *start(const struct vmt_source *s, unsigned int nstreams)
{
	struct vmt_readahead *ra = vmt_readahead_new(s, nstreams, 0);

	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2 && !getenv("VMTRACE_NO_THREADS"))
		assert_non_null(ra);
	return ra;
}

/* As the merge does: per CPU its chunks in order, the previous one released first. */
static void test_merge_order(void **state)
{
	struct vmt_chunkbuf direct = { 0 };
	size_t held[NCPU] = { SIZE_MAX, SIZE_MAX }, i;
	struct vmt_readahead *ra;
	struct vmt_source *s;

	(void)state;
	assert_int_equal(vmt_source_open(path, NULL, &s, NULL, 0), 0);
	assert_int_equal(vmt_source_nchunks(s), NCPU * PER_CPU);
	ra = start(s, NCPU);
	if (!ra)
		skip();
	for (i = 0; i < vmt_source_nchunks(s); i++) {
		uint32_t c = vmt_source_chunk(s, i)->cpu;

		if (held[c] != SIZE_MAX)
			vmt_readahead_release(ra, held[c], 0);
		take_check(ra, s, i, &direct, false);
		held[c] = i;
	}
	vmt_readahead_free(ra);		/* with chunks still held */
	vmt_chunkbuf_free(&direct);
	vmt_source_close(s);
}

/* Against the read-ahead order: every chunk comes out right all the same. */
static void test_reverse(void **state)
{
	struct vmt_chunkbuf direct = { 0 };
	struct vmt_readahead *ra;
	struct vmt_source *s;
	size_t i;

	(void)state;
	assert_int_equal(vmt_source_open(path, NULL, &s, NULL, 0), 0);
	ra = start(s, 1);
	if (!ra)
		skip();
	for (i = vmt_source_nchunks(s); i-- > 0;)
		take_check(ra, s, i, &direct, true);
	vmt_readahead_free(ra);
	vmt_chunkbuf_free(&direct);
	vmt_source_close(s);
}

/*
 * In windows of w pages, as the merge reads a chunk too large for it: per CPU each
 * chunk's parts in order, the one before released first; each part must equal that part
 * read directly. The damaged chunk fails at its first part and the rest is dropped.
 */
static void parts_in_merge_order(uint32_t w)
{
	struct vmt_chunkbuf direct = { 0 };
	size_t held[NCPU] = { SIZE_MAX, SIZE_MAX }, i;
	uint32_t held_part[NCPU] = { 0, 0 };
	struct vmt_readahead *ra;
	struct vmt_source *s;

	assert_int_equal(vmt_source_open(path, NULL, &s, NULL, 0), 0);
	ra = vmt_readahead_new(s, NCPU, (uint64_t)w * PAGE);
	if (!ra) {
		vmt_source_close(s);
		skip();
	}
	for (i = 0; i < vmt_source_nchunks(s); i++) {
		uint32_t c = vmt_source_chunk(s, i)->cpu, first, part;

		for (first = 0, part = 0; first < PAGES; first += w, part++) {
			uint32_t n = PAGES - first < w ? PAGES - first : w;
			const char *why = NULL, *direct_why = NULL;
			const uint8_t *raw = NULL;
			int err, want;

			if (held[c] != SIZE_MAX)
				vmt_readahead_release(ra, held[c], held_part[c]);
			held[c] = SIZE_MAX;
			err = vmt_readahead_take(ra, i, part, &raw, &why);
			want = vmt_source_read_chunk_part(s, i, (uint64_t)first * PAGE,
							  (uint64_t)n * PAGE, &direct, &direct_why);
			assert_int_equal(err, want);
			if (i == DAMAGED) {
				assert_int_equal(err, -EBADMSG);
				assert_string_equal(why, direct_why);
				vmt_readahead_release(ra, i, part);
				vmt_readahead_drop(ra, i, part + 1);
				break;
			}
			assert_int_equal(err, 0);
			assert_memory_equal(raw, direct.raw, (size_t)n * PAGE);
			held[c] = i;
			held_part[c] = part;
		}
	}
	vmt_readahead_free(ra);		/* with parts still held */
	vmt_chunkbuf_free(&direct);
	vmt_source_close(s);
}

static void test_parts(void **state)
{
	(void)state;
	parts_in_merge_order(1);
	parts_in_merge_order(2);
	parts_in_merge_order(3);	/* parts of 3 pages and of 1 */
	parts_in_merge_order(PAGES);	/* no parts: the chunks whole */
}

/* Every part dropped before it is taken, then the next chunks taken: nothing waits. */
static void test_drop_all(void **state)
{
	struct vmt_chunkbuf direct = { 0 };
	struct vmt_readahead *ra;
	struct vmt_source *s;
	size_t i;

	(void)state;
	assert_int_equal(vmt_source_open(path, NULL, &s, NULL, 0), 0);
	ra = vmt_readahead_new(s, 1, PAGE);
	if (!ra) {
		vmt_source_close(s);
		skip();
	}
	for (i = 0; i < vmt_source_nchunks(s); i += 2)
		vmt_readahead_drop(ra, i, 0);
	for (i = 1; i < vmt_source_nchunks(s); i += 2) {
		const char *why = NULL, *direct_why = NULL;
		const uint8_t *raw = NULL;

		int err = vmt_readahead_take(ra, i, 3, &raw, &why);

		assert_int_equal(err, i == DAMAGED ? -EBADMSG : 0);
		assert_int_equal(vmt_source_read_chunk_part(s, i, 3 * PAGE, PAGE, &direct,
							    &direct_why), err);
		if (!err)
			assert_memory_equal(raw, direct.raw, PAGE);
		vmt_readahead_release(ra, i, 3);
	}
	vmt_readahead_free(ra);
	vmt_chunkbuf_free(&direct);
	vmt_source_close(s);
}

static void test_not_started(void **state)
{
	struct vmt_source *s;

	(void)state;
	assert_int_equal(vmt_source_open(path, NULL, &s, NULL, 0), 0);
	setenv("VMTRACE_NO_THREADS", "1", 1);
	assert_null(vmt_readahead_new(s, NCPU, 0));
	unsetenv("VMTRACE_NO_THREADS");
	vmt_source_close(s);
	vmt_readahead_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_merge_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reverse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drop_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_started, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
