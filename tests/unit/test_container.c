// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * container: the .vmt writer and the .vmt loader (read through vmt_source_open): round
 * trips, and every kind of damage a file can suffer: cut at any offset, flipped bytes, a
 * wrong version, absurd sizes, a zstd frame larger than declared. The outcome is always a
 * clean error or the complete chunks, never a crash (run under ASan).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zstd.h>

#include "bytes.h"
#include "container.h"
#include "crc32c.h"
#include "io.h"
#include "kv.h"
#include "source.h"

#define NCHUNKS 5
#define PAGES 8
#define PAGE 4096

struct fixture {
	char dir[64];
	char path[128];
	uint8_t *pages[NCHUNKS];
	uint8_t *file;
	size_t file_len;
	uint64_t chunk_off[NCHUNKS];
	uint64_t meta_off, meta_len;	/* META's payload */
	uint64_t copy_off;		/* the MCPY block */
};

/* what vmt_source_open says of a file no loader takes, before what the file is */
#define NOT_READ "not a vmtrace recording, a trace.dat or a trace.bin "

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	/* compressible, but different per chunk */
	for (i = 0; i < n; i++)
		p[i] = (uint8_t)((i / 64) * seed + (i % 13));
}

static void write_file(struct fixture *fx, int level, bool finish)
{
	struct vmt_kvbuf meta, end;
	struct vmt_writer *w;
	unsigned int c;
	int fd;

	vmt_kv_init(&meta);
	vmt_kv_add_str(&meta, "event.begin", "kvm:kvm_exit");
	vmt_kv_addf(&meta, "number", "%d", 42);
	vmt_kv_init(&end);
	vmt_kv_add_str(&end, "stop_reason", "duration");
	fd = open(fx->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(vmt_writer_open(fd, &meta, level, &w), 0);
	for (c = 0; c < NCHUNKS; c++) {
		struct vmt_chunk_info ci = { .cpu = c % 2, .first_ts = c * 100, .last_ts = c * 100 + 99,
					     .missed_pages = c, .missed_count = c * 10 };

		assert_int_equal(vmt_writer_chunk(w, fx->pages[c], PAGES, PAGE, &ci), 0);
		fx->chunk_off[c] = ci.offset;
	}
	if (finish)
		assert_int_equal(vmt_writer_finish(w, &end), 0);
	vmt_writer_free(w);
	assert_int_equal(close(fd), 0);
	vmt_kv_free(&meta);
	vmt_kv_free(&end);
	free(fx->file);
	assert_int_equal(vmt_io_read_file(fx->path, 64 << 20, (char **)&fx->file, &fx->file_len), 0);
	/* META right after the file header, then its copy, then the chunks */
	fx->meta_off = VMT_FILE_HEADER_SIZE + VMT_BLOCK_HEADER_SIZE;
	fx->meta_len = get_le64(fx->file + VMT_FILE_HEADER_SIZE + VMT_BH_PAYLOAD_SIZE);
	fx->copy_off = fx->meta_off + fx->meta_len;
	assert_int_equal(get_le32(fx->file + fx->copy_off), VMT_BLOCK_META_COPY);
	assert_memory_equal(fx->file + fx->copy_off + VMT_BLOCK_HEADER_SIZE,
			    fx->file + fx->meta_off, fx->meta_len);
	assert_int_equal(fx->copy_off + VMT_BLOCK_HEADER_SIZE + fx->meta_len, fx->chunk_off[0]);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	unsigned int c;

	snprintf(fx->dir, sizeof(fx->dir), "/tmp/vmt-test-XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	snprintf(fx->path, sizeof(fx->path), "%s/t.vmt", fx->dir);
	for (c = 0; c < NCHUNKS; c++) {
		fx->pages[c] = malloc(PAGES * PAGE);
		fill(fx->pages[c], PAGES * PAGE, c + 3);
	}
	write_file(fx, 3, true);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char cut[160];
	unsigned int c;

	unlink(fx->path);
	snprintf(cut, sizeof(cut), "%s/cut.vmt", fx->dir);
	unlink(cut);
	rmdir(fx->dir);
	for (c = 0; c < NCHUNKS; c++)
		free(fx->pages[c]);
	free(fx->file);
	free(fx);
	return 0;
}

/* Write bytes to cut.vmt and open it. */
static int open_bytes(struct fixture *fx, const uint8_t *b, size_t n, struct vmt_source **c,
		      char *why, size_t why_size)
{
	char cut[160];
	int fd;

	snprintf(cut, sizeof(cut), "%s/cut.vmt", fx->dir);
	fd = open(cut, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(vmt_io_write_full(fd, b, n), 0);
	close(fd);
	return vmt_source_open(cut, NULL, c, why, why_size);
}

static void check_chunks(struct vmt_source *c, struct fixture *fx, size_t expect)
{
	struct vmt_chunkbuf cb = { 0 };
	size_t i;

	assert_string_equal(vmt_source_format(c), "vmt");
	assert_int_equal(vmt_source_nchunks(c), expect);
	for (i = 0; i < vmt_source_nchunks(c); i++) {
		assert_int_equal(vmt_source_read_chunk(c, i, &cb, NULL), 0);
		assert_int_equal(vmt_source_chunk(c, i)->cpu, i % 2);
		assert_int_equal(vmt_source_chunk(c, i)->first_ts, i * 100);
		assert_int_equal(vmt_source_chunk(c, i)->missed_count, i * 10);
		assert_memory_equal(cb.raw, fx->pages[i], PAGES * PAGE);
	}
	vmt_chunkbuf_free(&cb);
}

static void test_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct vmt_source *c;
	const uint8_t *meta, *end;
	size_t meta_len, end_len;
	uint64_t v;
	char *s;
	int level;

	for (level = 0; level <= 3; level += 3) {
		write_file(fx, level, true);
		assert_int_equal(vmt_source_open(fx->path, NULL, &c, NULL, 0), 0);
		assert_true(vmt_source_status(c)->finished);
		assert_int_equal(vmt_source_status(c)->truncated_at, 0);
		assert_int_equal(vmt_source_status(c)->file_size, fx->file_len);
		assert_int_equal(vmt_source_order(c), VMT_ORDER_FIRST_TS);
		assert_string_equal(vmt_source_description(c), "");
		assert_false(vmt_source_uses_pair(c));
		assert_false(vmt_source_uses_format_dir(c));
		meta = vmt_source_meta(c, &meta_len);
		s = vmt_kv_get_str(meta, meta_len, "event.begin");
		assert_string_equal(s, "kvm:kvm_exit");
		free(s);
		assert_int_equal(vmt_kv_get_u64(meta, meta_len, "number", &v), 0);
		assert_int_equal(v, 42);
		end = vmt_source_end(c, &end_len);
		assert_non_null(end);
		assert_int_equal(vmt_kv_get_u64(end, end_len, "chunk.count", &v), 0);
		assert_int_equal(v, NCHUNKS);
		check_chunks(c, fx, NCHUNKS);
		vmt_source_close(c);
	}
	/* unfinished: no END to read */
	write_file(fx, 3, false);
	assert_int_equal(vmt_source_open(fx->path, NULL, &c, NULL, 0), 0);
	assert_false(vmt_source_status(c)->finished);
	assert_null(vmt_source_end(c, &end_len));
	check_chunks(c, fx, NCHUNKS);
	vmt_source_close(c);
	write_file(fx, 3, true);
	/* compressed well below the raw pages */
	assert_true(fx->file_len < NCHUNKS * PAGES * PAGE / 10);
}

/* Cut anywhere: the whole chunks before the cut come back, with "not finished". */
static void test_truncation(void **state)
{
	struct fixture *fx = *state;
	size_t n;

	for (n = 0; n < fx->file_len; n += (n < 200 ? 1 : 61)) {
		struct vmt_source *c = NULL;
		char why[128] = "";
		size_t whole = 0, i;
		int ret = open_bytes(fx, fx->file, n, &c, why, sizeof(why));

		for (i = 0; i < NCHUNKS; i++) {
			uint64_t end = i + 1 < NCHUNKS ? fx->chunk_off[i + 1] : fx->file_len;

			if (i + 1 == NCHUNKS) {
				/* the last chunk is whole once the END block starts */
				const uint8_t *hdr = fx->file + fx->chunk_off[i];

				end = fx->chunk_off[i] + get_le32(hdr + 4) + get_le64(hdr + 8);
			}
			if (end <= n)
				whole++;
		}
		if (ret) {
			/* only a cut inside the file header or the metadata may fail */
			assert_true(n < fx->chunk_off[0]);
			assert_true(why[0]);
			/* with its file header whole, the file is said to be cut, not damaged */
			if (n >= VMT_FILE_HEADER_SIZE)
				assert_true(strncmp(why, "truncated: ", 11) == 0);
			continue;
		}
		assert_false(vmt_source_status(c)->finished);
		check_chunks(c, fx, whole);
		vmt_source_close(c);
	}
}

static void test_flips(void **state)
{
	struct fixture *fx = *state;
	uint8_t *copy = malloc(fx->file_len);
	size_t off;

	/* every byte of the header, META and the first chunk's header and some payload */
	for (off = 0; off < fx->chunk_off[0] + VMT_CHUNK_HEADER_SIZE + 64; off++) {
		struct vmt_source *c = NULL;
		struct vmt_chunkbuf cb = { 0 };
		const char *chunk_why = NULL;
		char why[128] = "";
		size_t i, good = 0, meta_len;
		const uint8_t *meta;

		memcpy(copy, fx->file, fx->file_len);
		copy[off] ^= 0x5a;
		if (open_bytes(fx, copy, fx->file_len, &c, why, sizeof(why))) {
			assert_true(why[0]);
			/* the metadata has its copy: only the file header itself may fail */
			if (off >= VMT_FILE_HEADER_SIZE)
				print_error("offset %zu: %s\n", off, why);
			assert_true(off < VMT_FILE_HEADER_SIZE);
			continue;
		}
		/* a flip in META: its copy's metadata, whole; in the copy: META, unread copy */
		meta = vmt_source_meta(c, &meta_len);
		assert_int_equal(meta_len, fx->meta_len);
		assert_memory_equal(meta, fx->file + fx->meta_off, meta_len);
		assert_int_equal(vmt_source_status(c)->meta_damaged_at,
				 off >= VMT_FILE_HEADER_SIZE && off < fx->copy_off ?
				 VMT_FILE_HEADER_SIZE : 0);
		/* a flipped chunk header skips the block; a flipped payload, the chunk's read */
		assert_int_equal(vmt_source_status(c)->bad_blocks,
				 off >= fx->chunk_off[0] &&
				 off < fx->chunk_off[0] + VMT_CHUNK_HEADER_SIZE);
		for (i = 0; i < vmt_source_nchunks(c); i++)
			good += vmt_source_read_chunk(c, i, &cb, &chunk_why) == 0;
		/* one chunk at most is lost to one flipped byte */
		if (good < NCHUNKS - 1)
			print_error("offset %zu: %zu good of %zu\n", off, good,
				    vmt_source_nchunks(c));
		assert_true(good >= NCHUNKS - 1);
		vmt_chunkbuf_free(&cb);
		vmt_source_close(c);
	}
	free(copy);
}

static void test_bad_headers(void **state)
{
	struct fixture *fx = *state;
	uint8_t *copy = malloc(fx->file_len);
	struct vmt_source *c = NULL;
	char why[128];

	memcpy(copy, fx->file, fx->file_len);
	put_le32(copy + 8, 99);
	assert_int_equal(open_bytes(fx, copy, fx->file_len, &c, why, sizeof(why)),
			 -EPROTONOSUPPORT);
	assert_string_equal(why, "unsupported file version");

	memcpy(copy, fx->file, fx->file_len);
	put_le32(copy + 12, 12);	/* a header size below the header's own */
	assert_int_equal(open_bytes(fx, copy, fx->file_len, &c, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "bad file header size");

	/* the header alone */
	assert_int_equal(open_bytes(fx, fx->file, VMT_FILE_HEADER_SIZE, &c, why, sizeof(why)),
			 -EBADMSG);
	assert_string_equal(why, "truncated: the file is cut after its header, before its "
				 "metadata block");

	memcpy(copy, fx->file, fx->file_len);
	copy[0] = 'X';
	assert_int_equal(open_bytes(fx, copy, fx->file_len, &c, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, NOT_READ "(it starts with 'XMTRACE')");

	assert_int_equal(open_bytes(fx, copy, 0, &c, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, NOT_READ "(it is empty)");

	/* a chunk declaring a 2^63 payload, with a valid header checksum */
	memcpy(copy, fx->file, fx->file_len);
	{
		uint8_t *h = copy + fx->chunk_off[1];
		uint32_t crc;

		put_le64(h + 8, 1ULL << 63);
		put_le32(h + 16, 0);
		crc = vmt_crc32c(0, h, VMT_CHUNK_HEADER_SIZE);
		put_le32(h + 16, crc);
	}
	assert_int_equal(open_bytes(fx, copy, fx->file_len, &c, why, sizeof(why)), 0);
	assert_int_equal(vmt_source_nchunks(c), 1);
	assert_false(vmt_source_status(c)->finished);
	vmt_source_close(c);
	free(copy);
}

/* A zstd frame that inflates to more than its chunk header says: refused, not trusted. */
static void test_zip_bomb(void **state)
{
	struct fixture *fx = *state;
	size_t big = 64 << 20, clen;
	uint8_t *zeros = calloc(1, big), *frame = malloc(ZSTD_compressBound(big));
	struct vmt_source *c = NULL;
	struct vmt_chunkbuf cb = { 0 };
	uint8_t hdr[VMT_CHUNK_HEADER_SIZE] = { 0 }, fh[16];
	const char *why = NULL;
	char path[160];
	int fd;

	(void)fx;
	clen = ZSTD_compress(frame, ZSTD_compressBound(big), zeros, big, 1);
	assert_false(ZSTD_isError(clen));
	snprintf(path, sizeof(path), "%s/cut.vmt", fx->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	memcpy(fh, VMT_FILE_MAGIC, 8);
	put_le32(fh + 8, 1);
	put_le32(fh + 12, 16);
	vmt_io_write_full(fd, fh, 16);
	{
		uint8_t meta[32] = { 0 };

		put_le32(meta + 0, VMT_BLOCK_META);
		put_le32(meta + 4, 32);
		put_le64(meta + 8, 0);
		put_le32(meta + 20, vmt_crc32c(0, "", 0));
		put_le32(meta + 16, vmt_crc32c(0, meta, 32));
		vmt_io_write_full(fd, meta, 32);
	}
	put_le32(hdr + 0, VMT_BLOCK_CHUNK);
	put_le32(hdr + 4, VMT_CHUNK_HEADER_SIZE);
	put_le64(hdr + 8, clen);
	put_le32(hdr + 20, vmt_crc32c(0, frame, clen));
	put_le32(hdr + 36, 1);			/* one page ... */
	put_le32(hdr + 40, 4096);		/* ... of 4 KiB */
	put_le32(hdr + 44, VMT_CHUNK_ZSTD);
	put_le64(hdr + 48, 4096);
	put_le32(hdr + 16, vmt_crc32c(0, hdr, sizeof(hdr)));
	vmt_io_write_full(fd, hdr, sizeof(hdr));
	vmt_io_write_full(fd, frame, clen);
	close(fd);
	assert_int_equal(vmt_source_open(path, NULL, &c, NULL, 0), 0);
	if (vmt_source_nchunks(c)) {
		assert_int_equal(vmt_source_read_chunk(c, 0, &cb, &why), -EBADMSG);
		assert_non_null(why);
	}
	assert_true(cb.raw_cap <= 4096);
	vmt_chunkbuf_free(&cb);
	vmt_source_close(c);
	free(zeros);
	free(frame);
}

/* Payload bytes of one chunk of pages written at level. */
static uint64_t payload_at(struct fixture *fx, const uint8_t *pages, int level)
{
	struct vmt_kvbuf meta;
	struct vmt_writer *w;
	struct vmt_chunk_info ci = { 0 };
	int fd;

	vmt_kv_init(&meta);
	fd = open(fx->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(vmt_writer_open(fd, &meta, level, &w), 0);
	assert_int_equal(vmt_writer_chunk(w, pages, PAGES, PAGE, &ci), 0);
	assert_int_equal(ci.flags, VMT_CHUNK_ZSTD);
	vmt_writer_free(w);
	assert_int_equal(close(fd), 0);
	vmt_kv_free(&meta);
	return ci.payload_size;
}

/*
 * The fast levels store literals as they are, the others entropy-code them (container.h):
 * random bytes of sixteen symbols, which only entropy coding shrinks (about 2x: matches
 * are rare), stay near their raw size at VMT_DEFAULT_LEVEL and shrink above
 * VMT_FAST_LEVEL_MAX.
 */
static void test_fast_literals(void **state)
{
	struct fixture *fx = *state;
	uint8_t *pages = malloc(PAGES * PAGE);
	uint64_t fast, slow;
	uint32_t x = 12345;
	size_t i;

	for (i = 0; i < PAGES * PAGE; i++) {
		x ^= x << 13;	/* xorshift32 */
		x ^= x >> 17;
		x ^= x << 5;
		pages[i] = "ACGTacgtMNOPmnop"[x >> 28];
	}
	fast = payload_at(fx, pages, VMT_DEFAULT_LEVEL);
	slow = payload_at(fx, pages, VMT_FAST_LEVEL_MAX + 6);
	if (fast < slow * 3 / 2)
		print_error("level %d: %" PRIu64 " bytes, level %d: %" PRIu64 "\n",
			    VMT_DEFAULT_LEVEL, fast, VMT_FAST_LEVEL_MAX + 6, slow);
	assert_true(fast > slow * 3 / 2);
	free(pages);
}

static void test_kv(void **state)
{
	struct vmt_kvbuf kb;
	uint8_t bad[12] = { 0 };
	struct vmt_kv kv;
	size_t pos = 0;
	uint64_t v;

	(void)state;
	vmt_kv_init(&kb);
	vmt_kv_add_str(&kb, "a", "1");
	vmt_kv_addf(&kb, "long", "%0300d", 7);
	vmt_kv_add(&kb, "empty", NULL, 0);
	assert_int_equal(kb.error, 0);
	assert_int_equal(vmt_kv_validate(kb.buf, kb.len), 0);
	assert_int_equal(vmt_kv_get_u64(kb.buf, kb.len, "a", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(vmt_kv_get_u64(kb.buf, kb.len, "empty", &v), -EBADMSG);
	assert_int_equal(vmt_kv_get_u64(kb.buf, kb.len, "none", &v), -ENOENT);
	assert_int_equal(vmt_kv_next(kb.buf, kb.len, &pos, &kv), 1);
	/* lengths that run past the end */
	put_le32(bad, 1);
	put_le32(bad + 4, 0xffffffffu);
	assert_int_equal(vmt_kv_validate(bad, sizeof(bad)), -EBADMSG);
	assert_int_equal(vmt_kv_validate(kb.buf, kb.len - 1), -EBADMSG);
	vmt_kv_add(&kb, "", "x", 1);
	assert_int_equal(kb.error, -EINVAL);
	vmt_kv_free(&kb);
}

static void test_crc32c(void **state)
{
	(void)state;
	/* the standard check value of CRC-32C */
	assert_int_equal(vmt_crc32c(0, "123456789", 9), 0xe3069283u);
	assert_int_equal(vmt_crc32c(vmt_crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
	assert_int_equal(vmt_crc32c_portable(0, "123456789", 9), 0xe3069283u);
	/* the instruction and the tables agree on every length and alignment */
	{
		uint8_t buf[300];
		size_t off, len;

		for (off = 0; off < sizeof(buf); off++)
			buf[off] = (uint8_t)(off * 131 + 7);
		for (off = 0; off < 9; off++)
			for (len = 0; len + off <= sizeof(buf); len += 7)
				assert_int_equal(vmt_crc32c(0x1234, buf + off, len),
						 vmt_crc32c_portable(0x1234, buf + off, len));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_headers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zip_bomb, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_literals, setup, teardown),
		cmocka_unit_test(test_kv),
		cmocka_unit_test(test_crc32c),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
