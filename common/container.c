// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
/* for ZSTD_d_forceIgnoreChecksum (an experimental parameter of the stable API) */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "bytes.h"
#include "container.h"
#include "crc32c.h"
#include "io.h"
#include "tracedat.h"

_Static_assert(sizeof(VMT_FILE_MAGIC) - 1 == 8, "magic is 8 bytes");
_Static_assert(VMT_CHUNK_HEADER_SIZE == 88, "chunk header layout");

/* Offsets inside a block header (man/vmtrace-file.5). */
enum {
	BH_TYPE = 0,
	BH_HEADER_SIZE = 4,
	BH_PAYLOAD_SIZE = 8,
	BH_HEADER_CRC = 16,
	BH_PAYLOAD_CRC = 20,
	BH_RESERVED = 24,
	CH_CPU = 32,
	CH_PAGE_COUNT = 36,
	CH_PAGE_SIZE = 40,
	CH_FLAGS = 44,
	CH_RAW_SIZE = 48,
	CH_FIRST_TS = 56,
	CH_LAST_TS = 64,
	CH_MISSED_PAGES = 72,
	CH_RESERVED = 76,
	CH_MISSED_COUNT = 80,
};

#define MAX_BLOCK_HEADER 4096

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
};

static uint32_t header_crc(uint8_t *hdr, uint32_t size)
{
	uint32_t saved = get_le32(hdr + BH_HEADER_CRC), crc;

	put_le32(hdr + BH_HEADER_CRC, 0);
	crc = vmt_crc32c(0, hdr, size);
	put_le32(hdr + BH_HEADER_CRC, saved);
	return crc;
}

static int write_block(struct vmt_writer *w, uint8_t *hdr, uint32_t hsize, uint32_t type,
		       const void *payload, uint64_t psize)
{
	int ret;

	put_le32(hdr + BH_TYPE, type);
	put_le32(hdr + BH_HEADER_SIZE, hsize);
	put_le64(hdr + BH_PAYLOAD_SIZE, psize);
	put_le32(hdr + BH_PAYLOAD_CRC, vmt_crc32c(0, payload, psize));
	put_le64(hdr + BH_RESERVED, 0);
	put_le32(hdr + BH_HEADER_CRC, header_crc(hdr, hsize));
	ret = vmt_io_write_full(w->fd, hdr, hsize);
	if (!ret && psize)
		ret = vmt_io_write_full(w->fd, payload, psize);
	if (ret) {
		/*
		 * Cut the partial block off, so the file ends on a whole block (a reader
		 * would stop there anyway; this keeps appending after ENOSPC impossible).
		 */
		if (ftruncate(w->fd, (off_t)w->off) == 0)
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
	put_le32(hdr + CH_CPU, info->cpu);
	put_le32(hdr + CH_PAGE_COUNT, npages);
	put_le32(hdr + CH_PAGE_SIZE, page_size);
	put_le32(hdr + CH_FLAGS, flags);
	put_le64(hdr + CH_RAW_SIZE, raw);
	put_le64(hdr + CH_FIRST_TS, info->first_ts);
	put_le64(hdr + CH_LAST_TS, info->last_ts);
	put_le32(hdr + CH_MISSED_PAGES, info->missed_pages);
	put_le64(hdr + CH_MISSED_COUNT, info->missed_count);

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
	vmt_kv_addf(&kb, "chunk.count", "%llu", (unsigned long long)w->nchunks);
	vmt_kv_add(&kb, "chunk.index", w->index, w->index_len);
	ret = kb.error;
	if (!ret)
		ret = write_block(w, bh, sizeof(bh), VMT_BLOCK_END, kb.buf, kb.len);
	vmt_kv_free(&kb);
	if (!ret)
		ret = vmt_writer_sync(w);
	return ret;
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

/* Reader. */

static bool known_type(uint32_t t)
{
	return t == VMT_BLOCK_META || t == VMT_BLOCK_CHUNK || t == VMT_BLOCK_END;
}

/*
 * Read and check the block header at off. Returns 1 when whole and valid, 0 when the file
 * ends inside it, -EBADMSG when its checksum or sizes are wrong.
 */
static int read_block_header(struct vmt_container *c, uint64_t off, uint8_t *hdr,
			     uint32_t *hsize, uint64_t *psize)
{
	/* a chunk's whole header in one read: the scan is a system call per block */
	uint64_t first = c->file_size - off < VMT_CHUNK_HEADER_SIZE ? c->file_size - off :
			 VMT_CHUNK_HEADER_SIZE;
	ssize_t n;

	if (c->file_size - off < VMT_BLOCK_HEADER_SIZE)
		return 0;
	n = vmt_io_pread_full(c->fd, hdr, first, (off_t)off);
	if (n < VMT_BLOCK_HEADER_SIZE)
		return n < 0 ? (int)n : 0;
	*hsize = get_le32(hdr + BH_HEADER_SIZE);
	*psize = get_le64(hdr + BH_PAYLOAD_SIZE);
	if (*hsize < VMT_BLOCK_HEADER_SIZE || *hsize > MAX_BLOCK_HEADER || (*hsize & 7))
		return -EBADMSG;
	if (c->file_size - off < *hsize)
		return 0;
	if (*hsize > (uint64_t)n) {
		ssize_t more = vmt_io_pread_full(c->fd, hdr + n, *hsize - (uint64_t)n,
						 (off_t)(off + (uint64_t)n));

		if (more != (ssize_t)(*hsize - (uint64_t)n))
			return more < 0 ? (int)more : 0;
	}
	if (header_crc(hdr, *hsize) != get_le32(hdr + BH_HEADER_CRC))
		return -EBADMSG;
	return 1;
}

/* After a damaged header: find the next offset holding a valid block header, or 0. */
static uint64_t resync(struct vmt_container *c, uint64_t from)
{
	uint8_t window[65536 + 4], hdr[MAX_BLOCK_HEADER];
	uint64_t off = from;

	while (off < c->file_size) {
		ssize_t n = vmt_io_pread_full(c->fd, window, sizeof(window), (off_t)off);
		ssize_t i;

		if (n < 4)
			return 0;
		for (i = 0; i + 4 <= n; i++) {
			uint32_t hsize;
			uint64_t psize;

			if (!known_type(get_le32(window + i)))
				continue;
			if (read_block_header(c, off + (uint64_t)i, hdr, &hsize, &psize) == 1)
				return off + (uint64_t)i;
		}
		off += (uint64_t)n - 3;
	}
	return 0;
}

static int read_payload(const struct vmt_container *c, uint64_t off, const uint8_t *hdr,
			uint64_t psize, uint8_t **out)
{
	uint8_t *buf;
	ssize_t n;

	buf = malloc(psize ? psize : 1);
	if (!buf)
		return -ENOMEM;
	n = vmt_io_pread_full(c->fd, buf, psize, (off_t)off);
	if (n < 0 || (uint64_t)n != psize) {
		free(buf);
		return n < 0 ? (int)n : -EBADMSG;
	}
	if (vmt_crc32c(0, buf, psize) != get_le32(hdr + BH_PAYLOAD_CRC) ||
	    vmt_kv_validate(buf, psize)) {
		free(buf);
		return -EBADMSG;
	}
	*out = buf;
	return 0;
}

static int add_chunk(struct vmt_container *c, size_t *cap, uint64_t off, const uint8_t *hdr,
		     uint32_t hsize, uint64_t psize)
{
	struct vmt_chunk_info ci = { 0 };

	if (hsize < VMT_CHUNK_HEADER_SIZE)
		return -EBADMSG;
	ci.offset = off;
	ci.payload_size = psize;
	ci.header_size = hsize;
	ci.cpu = get_le32(hdr + CH_CPU);
	ci.page_count = get_le32(hdr + CH_PAGE_COUNT);
	ci.page_size = get_le32(hdr + CH_PAGE_SIZE);
	ci.flags = get_le32(hdr + CH_FLAGS);
	ci.raw_size = get_le64(hdr + CH_RAW_SIZE);
	ci.first_ts = get_le64(hdr + CH_FIRST_TS);
	ci.last_ts = get_le64(hdr + CH_LAST_TS);
	ci.missed_pages = get_le32(hdr + CH_MISSED_PAGES);
	ci.missed_count = get_le64(hdr + CH_MISSED_COUNT);
	ci.payload_crc = get_le32(hdr + BH_PAYLOAD_CRC);
	if (ci.page_count == 0 || ci.page_size < 32 || ci.page_size > (16u << 20) ||
	    ci.raw_size != (uint64_t)ci.page_count * ci.page_size ||
	    ci.raw_size > VMT_MAX_CHUNK_RAW || (ci.flags & ~VMT_CHUNK_ZSTD) ||
	    ci.cpu >= 1u << 20 ||
	    psize > ((ci.flags & VMT_CHUNK_ZSTD) ? ZSTD_compressBound(ci.raw_size) : ci.raw_size))
		return -EBADMSG;
	return vmt_container_push_chunk(c, cap, &ci);
}

int vmt_container_push_chunk(struct vmt_container *c, size_t *cap,
			     const struct vmt_chunk_info *ci)
{
	if (c->nchunks == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct vmt_chunk_info *bigger = realloc(c->chunks, ncap * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		c->chunks = bigger;
		*cap = ncap;
	}
	c->chunks[c->nchunks++] = *ci;
	return 0;
}

/* trace.bin: pages in runs of 256 (1 MiB), each run presented as an uncompressed chunk. */
static int open_legacy(struct vmt_container *c, const uint8_t *fh, const char **why)
{
	uint64_t pages = (c->file_size - VMT_LEGACY_HEADER_SIZE) / VMT_LEGACY_PAGE_SIZE, p;
	size_t cap = 0;

	c->legacy = true;
	c->legacy_entry_id = get_le16(fh + 4);
	c->legacy_exit_id = get_le16(fh + 6);
	if (c->legacy_entry_id == c->legacy_exit_id) {
		*why = "trace.bin header names the same event twice";
		return -EBADMSG;
	}
	c->meta = calloc(1, 1);
	if (!c->meta)
		return -ENOMEM;
	for (p = 0; p < pages; p += 256) {
		struct vmt_chunk_info ci = { 0 };
		uint32_t n = pages - p < 256 ? (uint32_t)(pages - p) : 256;

		ci.offset = VMT_LEGACY_HEADER_SIZE + p * VMT_LEGACY_PAGE_SIZE;
		ci.page_count = n;
		ci.page_size = VMT_LEGACY_PAGE_SIZE;
		ci.raw_size = ci.payload_size = (uint64_t)n * VMT_LEGACY_PAGE_SIZE;
		if (vmt_container_push_chunk(c, &cap, &ci))
			return -ENOMEM;
	}
	/* the original tool stopped by closing the file: whole pages are a whole file */
	c->finished = (c->file_size - VMT_LEGACY_HEADER_SIZE) % VMT_LEGACY_PAGE_SIZE == 0;
	if (!c->finished) {
		c->truncated_at = VMT_LEGACY_HEADER_SIZE + pages * VMT_LEGACY_PAGE_SIZE;
		c->trunc_why = "trace.bin ends inside a page";
	}
	return 0;
}

int vmt_container_open(const char *path, struct vmt_container **out, const char **why)
{
	uint8_t fh[VMT_FILE_HEADER_SIZE], hdr[MAX_BLOCK_HEADER];
	struct vmt_container *c;
	const char *dummy;
	size_t cap = 0;
	struct stat st;
	uint64_t off;
	uint32_t hsize;
	ssize_t n;
	int ret;

	if (!why)
		why = &dummy;
	*why = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c->fd < 0) {
		ret = -errno;
		goto out_free;
	}
	if (fstat(c->fd, &st) < 0) {
		ret = -errno;
		goto out_free;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		ret = -EINVAL;
		goto out_free;
	}
	c->file_size = (uint64_t)st.st_size;
	n = vmt_io_pread_full(c->fd, fh, sizeof(fh), 0);
	if (n < 0) {
		ret = (int)n;
		goto out_free;
	}
	if (n >= VMT_LEGACY_HEADER_SIZE && get_le32(fh) == VMT_LEGACY_SIGNATURE) {
		ret = open_legacy(c, fh, why);
		if (ret)
			goto out_free;
		*out = c;
		return 0;
	}
	if (n >= VMT_TRACEDAT_MAGIC_LEN && memcmp(fh, VMT_TRACEDAT_MAGIC, VMT_TRACEDAT_MAGIC_LEN) == 0) {
		ret = vmt_tracedat_open(c, why);
		if (ret)
			goto out_free;
		*out = c;
		return 0;
	}
	if (n < (ssize_t)sizeof(fh) || memcmp(fh, VMT_FILE_MAGIC, 8) != 0) {
		*why = n == 0 ? "empty file" : "not a vmtrace file (bad magic)";
		ret = -EBADMSG;
		goto out_free;
	}
	c->version = get_le32(fh + 8);
	if (c->version != VMT_FILE_VERSION) {
		*why = "unsupported file version";
		ret = -EPROTONOSUPPORT;
		goto out_free;
	}
	off = get_le32(fh + 12);
	if (off < VMT_FILE_HEADER_SIZE || off > c->file_size || (off & 7)) {
		*why = "bad file header size";
		ret = -EBADMSG;
		goto out_free;
	}

	while (off < c->file_size) {
		uint64_t psize;
		uint32_t type;

		ret = read_block_header(c, off, hdr, &hsize, &psize);
		if (ret == -EBADMSG) {
			uint64_t next = resync(c, off + 8);

			c->bad_blocks++;
			if (!next) {
				c->truncated_at = off;
				c->trunc_why = "damaged block header, nothing valid after it";
				break;
			}
			off = next;
			continue;
		}
		if (ret < 0)
			goto out_free;
		if (ret == 0 || psize > c->file_size - off - hsize) {
			c->truncated_at = off;
			c->trunc_why = "the file ends inside a block";
			break;
		}
		type = get_le32(hdr + BH_TYPE);
		if (type == VMT_BLOCK_META) {
			if (c->meta) {
				c->bad_blocks++;
			} else if (psize > VMT_MAX_META_SIZE ||
				   read_payload(c, off + hsize, hdr, psize, &c->meta)) {
				*why = "damaged metadata block";
				ret = -EBADMSG;
				goto out_free;
			} else {
				c->meta_len = psize;
			}
		} else if (!c->meta) {
			*why = "no metadata block at the start";
			ret = -EBADMSG;
			goto out_free;
		} else if (type == VMT_BLOCK_CHUNK) {
			ret = add_chunk(c, &cap, off, hdr, hsize, psize);
			if (ret == -ENOMEM)
				goto out_free;
			if (ret)
				c->bad_blocks++;
		} else if (type == VMT_BLOCK_END) {
			uint64_t count;

			if (psize > VMT_MAX_META_SIZE + (uint64_t)c->nchunks * 16 ||
			    read_payload(c, off + hsize, hdr, psize, &c->end)) {
				c->bad_blocks++;
			} else {
				c->end_len = psize;
				c->finished = vmt_kv_get_u64(c->end, c->end_len, "chunk.count",
							     &count) == 0 &&
					      count == c->nchunks + c->bad_blocks;
			}
			off += hsize + psize;
			break;	/* nothing after END belongs to the recording */
		}
		/* Unknown block types with a valid header are skipped (newer writers). */
		off += hsize + psize;
	}
	if (!c->meta) {
		*why = c->file_size <= VMT_FILE_HEADER_SIZE ? "no data after the file header" :
							       "damaged metadata block";
		ret = -EBADMSG;
		goto out_free;
	}
	*out = c;
	return 0;

out_free:
	vmt_container_close(c);
	return ret;
}

void vmt_container_close(struct vmt_container *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->meta);
	free(c->end);
	free(c->chunks);
	vmt_tracedat_free(c->tracedat);
	free(c);
}

void vmt_chunkbuf_free(struct vmt_chunkbuf *cb)
{
	ZSTD_freeDCtx(cb->dctx);
	free(cb->comp);
	free(cb->raw);
	memset(cb, 0, sizeof(*cb));
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *bigger;

	if (need <= *cap)
		return 0;
	bigger = realloc(*buf, need);
	if (!bigger)
		return -ENOMEM;
	*buf = bigger;
	*cap = need;
	return 0;
}

int vmt_container_read_chunk(const struct vmt_container *c, size_t idx, struct vmt_chunkbuf *cb,
			     const char **why)
{
	const struct vmt_chunk_info *ci = &c->chunks[idx];
	uint64_t hsize = VMT_CHUNK_HEADER_SIZE;
	const char *dummy;
	uint8_t hdr[8];
	ssize_t n;

	if (!why)
		why = &dummy;
	if (c->tracedat && (ci->flags & (VMT_CHUNK_ZSTD | VMT_CHUNK_ZLIB))) {
		/* a trace.dat compression chunk: no checksum, the size must come out */
		if (grow(&cb->comp, &cb->comp_cap, ci->payload_size ? ci->payload_size : 1) ||
		    grow(&cb->raw, &cb->raw_cap, ci->raw_size)) {
			*why = "out of memory";
			return -ENOMEM;
		}
		n = vmt_io_pread_full(c->fd, cb->comp, ci->payload_size, (off_t)ci->offset);
		if (n < 0 || (uint64_t)n != ci->payload_size) {
			*why = "cannot read the compressed chunk";
			return n < 0 ? (int)n : -EIO;
		}
		return vmt_tracedat_decompress(ci, cb->comp, cb->raw, &cb->dctx, why);
	}
	if (c->legacy || c->tracedat) {
		/* raw pages, nothing to check but that they are all there */
		if (grow(&cb->raw, &cb->raw_cap, ci->raw_size)) {
			*why = "out of memory";
			return -ENOMEM;
		}
		n = vmt_io_pread_full(c->fd, cb->raw, ci->raw_size, (off_t)ci->offset);
		if (n < 0 || (uint64_t)n != ci->raw_size) {
			*why = "cannot read the pages";
			return n < 0 ? (int)n : -EIO;
		}
		return 0;
	}
	/* The header size of this block, to find its payload (known since the scan). */
	if (ci->header_size) {
		hsize = ci->header_size;
	} else {
		n = vmt_io_pread_full(c->fd, hdr, 8, (off_t)ci->offset);
		if (n != 8) {
			*why = "cannot read the chunk header";
			return n < 0 ? (int)n : -EIO;
		}
		hsize = get_le32(hdr + BH_HEADER_SIZE);
	}
	if (grow(&cb->comp, &cb->comp_cap, ci->payload_size ? ci->payload_size : 1) ||
	    grow(&cb->raw, &cb->raw_cap, ci->raw_size)) {
		*why = "out of memory";
		return -ENOMEM;
	}
	n = vmt_io_pread_full(c->fd, cb->comp, ci->payload_size, (off_t)(ci->offset + hsize));
	if (n < 0 || (uint64_t)n != ci->payload_size) {
		*why = "cannot read the chunk payload";
		return n < 0 ? (int)n : -EIO;
	}
	if (vmt_crc32c(0, cb->comp, ci->payload_size) != ci->payload_crc) {
		*why = "chunk checksum mismatch";
		return -EBADMSG;
	}
	if (ci->flags & VMT_CHUNK_ZSTD) {
		unsigned long long fsize = ZSTD_getFrameContentSize(cb->comp, ci->payload_size);
		size_t got;

		if (fsize != ci->raw_size) {
			*why = "zstd frame size differs from the chunk header";
			return -EBADMSG;
		}
		if (!cb->dctx) {
			cb->dctx = ZSTD_createDCtx();
			if (!cb->dctx) {
				*why = "out of memory";
				return -ENOMEM;
			}
#ifdef ZSTD_d_forceIgnoreChecksum
			/*
			 * The CRC32C above already proved these compressed bytes are the ones
			 * written, and decompression is deterministic: the frame's own XXH64 of
			 * the output would be a second pass over every byte for nothing.
			 */
			ZSTD_DCtx_setParameter(cb->dctx, ZSTD_d_forceIgnoreChecksum,
					       ZSTD_d_ignoreChecksum);
#endif
		}
		got = ZSTD_decompressDCtx(cb->dctx, cb->raw, ci->raw_size, cb->comp,
					  ci->payload_size);
		if (ZSTD_isError(got) || got != ci->raw_size) {
			*why = "zstd frame does not decompress";
			return -EBADMSG;
		}
	} else {
		memcpy(cb->raw, cb->comp, ci->raw_size);
	}
	return 0;
}
