// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * evcensus: records per event id over a source's pages. Oracle: the reader's merged walk
 * of the same file (its own page decoding and chunk handling), each record's common_type
 * counted (by the census of a source, and one id in each chunk's pages); and the committed
 * trace.dat's counts from trace-cmd report.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bytes.h"
#include "evcensus.h"
#include "reader.h"
#include "source.h"

static const char *data(const char *rel)
{
	static char p[512];

	snprintf(p, sizeof(p), "%s/tests/data/%s", TOP_SRCDIR, rel);
	return p;
}

/* The reader's records of path per id, into want (VMT_EVCENSUS_IDS). */
static void reader_counts(const char *path, const struct vmt_input_opts *in, uint64_t *want)
{
	struct vmt_reader *r;
	struct vmt_item it;
	char why[320];

	memset(want, 0, VMT_EVCENSUS_IDS * sizeof(*want));
	assert_int_equal(vmt_reader_open(path, in, &r, why, sizeof(why)), 0);
	while (vmt_reader_next(r, &it) > 0)
		if (it.kind == VMT_ITEM_RECORD && it.rec.len >= 2)
			want[get_le16(it.rec.data)]++;
	vmt_reader_close(r);
}

/*
 * vmt_evcensus_records_of() summed over every chunk, for each id the reader met and for one
 * it did not: the reader's counts (want).
 */
static void records_of_as_reader(const char *path, const struct vmt_input_opts *in,
				 const uint64_t *want)
{
	struct vmt_chunkbuf cb = { 0 };
	struct vmt_reader *r;
	char why[320];
	uint32_t id;
	size_t i;

	assert_int_equal(vmt_reader_open(path, in, &r, why, sizeof(why)), 0);
	for (id = 0; id < VMT_EVCENSUS_IDS; id++) {
		const struct vmt_source *s = vmt_reader_source(r);
		uint64_t n = 0;

		if (!want[id] && id != 65535)
			continue;
		for (i = 0; i < vmt_source_nchunks(s); i++) {
			const struct vmt_chunk_info *ci = vmt_source_chunk(s, i);

			assert_int_equal(vmt_source_read_chunk(s, i, &cb, NULL), 0);
			n += vmt_evcensus_records_of(vmt_reader_header_page(r), cb.raw,
						     ci->raw_size, ci->page_size, id);
		}
		assert_int_equal(n, want[id]);
	}
	vmt_chunkbuf_free(&cb);
	vmt_reader_close(r);
}

static void same_as_reader(const char *path, const struct vmt_input_opts *in)
{
	struct vmt_evcensus *c = malloc(sizeof(*c));
	uint64_t *want = malloc(VMT_EVCENSUS_IDS * sizeof(*want)), total = 0;
	struct vmt_source *s;
	char why[320];
	uint32_t id;

	assert_non_null(c);
	assert_non_null(want);
	reader_counts(path, in, want);
	assert_int_equal(vmt_source_open(path, in, &s, why, sizeof(why)), 0);
	assert_int_equal(vmt_evcensus_count(s, 0, c), 0);
	assert_false(c->cut);
	for (id = 0; id < VMT_EVCENSUS_IDS; id++) {
		assert_int_equal(c->records[id], want[id]);
		total += want[id];
	}
	assert_true(total > 0);
	records_of_as_reader(path, in, want);
	/* a limit of one byte: the first chunk only, and said to be cut when more follow */
	assert_int_equal(vmt_evcensus_count(s, 1, c), 0);
	assert_int_equal(c->cut, vmt_source_nchunks(s) > 1);
	vmt_source_close(s);
	free(want);
	free(c);
}

static void test_vmt(void **state)
{
	(void)state;
	same_as_reader(data("sample-kvm.vmt"), NULL);
	same_as_reader(data("why/sample/kvm.vmt"), NULL);	/* context events too */
}

static void test_tracedat(void **state)
{
	struct vmt_input_opts in = { .pair = "raw_syscalls:sys_enter,raw_syscalls:sys_exit" };
	struct vmt_evcensus *c = malloc(sizeof(*c));
	struct vmt_source *s;
	uint64_t total = 0;
	char why[320];
	uint32_t id;

	(void)state;
	same_as_reader(data("tracedat/context.dat"), &in);
	same_as_reader(data("tracedat/kvm.v7zstd.dat"), NULL);
	/* trace-cmd report -t prints 733 sys_enter and 732 sys_exit lines of this file */
	assert_non_null(c);
	assert_int_equal(vmt_source_open(data("tracedat/syscalls-extract.dat"), &in, &s, why,
					 sizeof(why)), 0);
	assert_int_equal(vmt_evcensus_count(s, 0, c), 0);
	for (id = 0; id < VMT_EVCENSUS_IDS; id++)
		total += c->records[id];
	assert_int_equal(total, 733 + 732);
	vmt_source_close(s);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vmt),
		cmocka_unit_test(test_tracedat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
