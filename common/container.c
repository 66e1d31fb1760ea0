// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
/* for ZSTD_c_literalCompressionMode (an experimental parameter of the stable API) */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "bytes.h"
#include "container.h"
#include "crc32c.h"
#include "io.h"

_Static_assert(sizeof(VMT_FILE_MAGIC) - 1 == 8, "magic is 8 bytes");
_Static_assert(VMT_CHUNK_HEADER_SIZE == 88, "chunk header layout");

struct vmt_writer {
	int fd;
	int level;
	uint64_t off;
	ZSTD_CCtx *cctx;
	void *comp;
	size_t comp_cap;
	uint8_t *index;		/* 16 bytes per chunk: offset, cpu, page count */
	size_t index_len, index_cap;
	uint64_t nchunks;
	uint64_t lost_chunks;	/* a copy's input chunks lost to damage (vmt_writer_count_lost) */
	/*
	 * Whether a failed block may be cut off with ftruncate: only when the file is the
	 * recording alone (a regular file written from offset 0, not appended to). Written
	 * through a descriptor (">>", /dev/fd/N at some offset, a pipe), cutting at the
	 * recording's own offset would destroy what the file held before it.
	 */
	bool may_truncate;
};

uint32_t vmt_container_header_crc(uint8_t *hdr, uint32_t size)
{
	uint32_t saved = get_le32(hdr + VMT_BH_HEADER_CRC), crc;

	put_le32(hdr + VMT_BH_HEADER_CRC, 0);
	crc = vmt_crc32c(0, hdr, size);
	put_le32(hdr + VMT_BH_HEADER_CRC, saved);
	return crc;
}

static int write_block(struct vmt_writer *w, uint8_t *hdr, uint32_t hsize, uint32_t type,
		       const void *payload, uint64_t psize)
{
	int ret;

	put_le32(hdr + VMT_BH_TYPE, type);
	put_le32(hdr + VMT_BH_HEADER_SIZE, hsize);
	put_le64(hdr + VMT_BH_PAYLOAD_SIZE, psize);
	put_le32(hdr + VMT_BH_PAYLOAD_CRC, vmt_crc32c(0, payload, psize));
	put_le64(hdr + VMT_BH_RESERVED, 0);
	put_le32(hdr + VMT_BH_HEADER_CRC, vmt_container_header_crc(hdr, hsize));
	ret = vmt_io_write_full(w->fd, hdr, hsize);
	if (!ret && psize)
		ret = vmt_io_write_full(w->fd, payload, psize);
	if (ret) {
		/*
		 * Cut the partial block off, so the file ends on a whole block (a reader
		 * would stop there anyway; this keeps appending after ENOSPC impossible).
		 */
		if (w->may_truncate && ftruncate(w->fd, (off_t)w->off) == 0)
			lseek(w->fd, (off_t)w->off, SEEK_SET);
		return ret;
	}
	w->off += hsize + psize;
	return 0;
}

int vmt_writer_open(int fd, const struct vmt_kvbuf *meta, int level, struct vmt_writer **out)
{
	uint8_t fh[VMT_FILE_HEADER_SIZE], bh[VMT_BLOCK_HEADER_SIZE] = { 0 };
	struct vmt_writer *w;
	int ret;

	if (meta->error)
		return meta->error;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->level = level;
	{
		struct stat st;
		int fl = fcntl(fd, F_GETFL);

		w->may_truncate = fl >= 0 && !(fl & O_APPEND) && fstat(fd, &st) == 0 &&
				  S_ISREG(st.st_mode) && lseek(fd, 0, SEEK_CUR) == 0;
	}
	if (level > 0) {
		w->cctx = ZSTD_createCCtx();
		if (!w->cctx) {
			ret = -ENOMEM;
			goto out_free;
		}
		if (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1))) {
			ret = -EINVAL;
			goto out_free;
		}
#ifdef ZSTD_c_literalCompressionMode
		/*
		 * The fast levels (the recorder's) store literals as they are: no Huffman
		 * stage on either side. Measured: decompression 1.1-1.5x faster, compression
		 * 1.2-1.5x faster; files +0.7 % on a real KVM recording, +15-40 % on the very
		 * repetitive syscall loop. Higher levels are chosen for size and keep it.
		 */
		if (level <= VMT_FAST_LEVEL_MAX)
			ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_literalCompressionMode,
					       ZSTD_lcm_uncompressed);
#endif
	}
	memcpy(fh, VMT_FILE_MAGIC, 8);
	put_le32(fh + 8, VMT_FILE_VERSION);
	put_le32(fh + 12, VMT_FILE_HEADER_SIZE);
	ret = vmt_io_write_full(fd, fh, sizeof(fh));
	if (ret)
		goto out_free;
	w->off = sizeof(fh);
	ret = write_block(w, bh, sizeof(bh), VMT_BLOCK_META, meta->buf, meta->len);
	if (!ret)
		ret = write_block(w, bh, sizeof(bh), VMT_BLOCK_META_COPY, meta->buf, meta->len);
	if (ret)
		goto out_free;
	*out = w;
	return 0;

out_free:
	ZSTD_freeCCtx(w->cctx);
	free(w);
	return ret;
}

int vmt_writer_chunk(struct vmt_writer *w, const void *pages, uint32_t npages,
		     uint32_t page_size, struct vmt_chunk_info *info)
{
	uint8_t hdr[VMT_CHUNK_HEADER_SIZE] = { 0 };
	uint64_t raw = (uint64_t)npages * page_size;
	const void *payload = pages;
	size_t psize = raw;
	uint32_t flags = 0;
	int ret;

	if (npages == 0 || raw > VMT_MAX_CHUNK_RAW)
		return -EINVAL;
	if (w->cctx) {
		size_t bound = ZSTD_compressBound(raw), n;

		if (bound > w->comp_cap) {
			void *bigger = realloc(w->comp, bound);

			if (!bigger)
				return -ENOMEM;
			w->comp = bigger;
			w->comp_cap = bound;
		}
		n = ZSTD_compress2(w->cctx, w->comp, w->comp_cap, pages, raw);
		if (ZSTD_isError(n))
			return -EIO;
		payload = w->comp;
		psize = n;
		flags |= VMT_CHUNK_ZSTD;
	}
	put_le32(hdr + VMT_CH_CPU, info->cpu);
	put_le32(hdr + VMT_CH_PAGE_COUNT, npages);
	put_le32(hdr + VMT_CH_PAGE_SIZE, page_size);
	put_le32(hdr + VMT_CH_FLAGS, flags);
	put_le64(hdr + VMT_CH_RAW_SIZE, raw);
	put_le64(hdr + VMT_CH_FIRST_TS, info->first_ts);
	put_le64(hdr + VMT_CH_LAST_TS, info->last_ts);
	put_le32(hdr + VMT_CH_MISSED_PAGES, info->missed_pages);
	put_le64(hdr + VMT_CH_MISSED_COUNT, info->missed_count);

	if (w->index_len + 16 > w->index_cap) {
		size_t cap = w->index_cap ? w->index_cap * 2 : 4096;
		uint8_t *bigger = realloc(w->index, cap);

		if (!bigger)
			return -ENOMEM;
		w->index = bigger;
		w->index_cap = cap;
	}
	info->offset = w->off;
	ret = write_block(w, hdr, sizeof(hdr), VMT_BLOCK_CHUNK, payload, psize);
	if (ret)
		return ret;
	info->page_count = npages;
	info->page_size = page_size;
	info->raw_size = raw;
	info->payload_size = psize;
	info->flags = flags;
	put_le64(w->index + w->index_len, info->offset);
	put_le32(w->index + w->index_len + 8, info->cpu);
	put_le32(w->index + w->index_len + 12, npages);
	w->index_len += 16;
	w->nchunks++;
	return 0;
}

int vmt_writer_sync(struct vmt_writer *w)
{
	return fdatasync(w->fd) < 0 && errno != EINVAL ? -errno : 0;
}

int vmt_writer_finish(struct vmt_writer *w, const struct vmt_kvbuf *end)
{
	uint8_t bh[VMT_BLOCK_HEADER_SIZE] = { 0 };
	struct vmt_kvbuf kb;
	int ret;

	if (end->error)
		return end->error;
	/* The END payload is the caller's key/values plus the chunk count and index. */
	vmt_kv_init(&kb);
	if (end->len) {
		kb.buf = malloc(end->len);
		if (!kb.buf)
			return -ENOMEM;
		memcpy(kb.buf, end->buf, end->len);
		kb.len = kb.cap = end->len;
	}
	/* a copy's lost chunks counted as written: a reader reports them lost (vmtrace-file.5) */
	vmt_kv_addf(&kb, "chunk.count", "%llu", (unsigned long long)(w->nchunks + w->lost_chunks));
	vmt_kv_add(&kb, "chunk.index", w->index, w->index_len);
	ret = kb.error;
	if (!ret)
		ret = write_block(w, bh, sizeof(bh), VMT_BLOCK_END, kb.buf, kb.len);
	vmt_kv_free(&kb);
	if (!ret)
		ret = vmt_writer_sync(w);
	return ret;
}

void vmt_writer_count_lost(struct vmt_writer *w, uint64_t n)
{
	w->lost_chunks += n;
}

uint64_t vmt_writer_bytes(const struct vmt_writer *w)
{
	return w->off;
}

void vmt_writer_free(struct vmt_writer *w)
{
	if (!w)
		return;
	ZSTD_freeCCtx(w->cctx);
	free(w->comp);
	free(w->index);
	free(w);
}
