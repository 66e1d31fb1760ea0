/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * chunk: what every input format hands the reader, a run of whole ring-buffer sub-buffers
 * ("pages") of one CPU, described by struct vmt_chunk_info, and the per-thread buffers a
 * chunk is read and decompressed into. Plain structs; a struct vmt_chunkbuf belongs to one
 * thread at a time.
 */
#ifndef VMT_CHUNK_H
#define VMT_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#define VMT_CHUNK_ZSTD		1u	/* flags: payload is one zstd frame (else stored raw) */
#define VMT_CHUNK_ZLIB		2u	/* payload is one zlib stream (trace.dat) */
/* Limits a reader enforces before allocating anything a file declares. */
#define VMT_MAX_META_SIZE	(64u << 20)
#define VMT_MAX_CHUNK_RAW	(256u << 20)

/* What a chunk header (or the source's index) says about its pages. */
struct vmt_chunk_info {
	uint64_t offset;	/* where the source finds it (its own meaning) */
	uint64_t payload_size;
	uint64_t raw_size;
	uint64_t first_ts, last_ts;	/* UINT64_MAX / 0 when the source does not know */
	uint64_t missed_count;	/* sum of counts stored in pages flagged "missed events" */
	uint32_t cpu;
	uint32_t page_count;
	uint32_t page_size;
	uint32_t missed_pages;
	uint32_t flags;
	uint32_t payload_crc;
	uint32_t seq;		/* position in its CPU's run */
	uint32_t header_size;	/* .vmt: of the block header, from the scan (0: read it) */
	/*
	 * Blocks skipped before it that may have held pages of its CPU (a count): where it
	 * grows from the CPU's chunk before, a reader puts a gap, as for a damaged chunk.
	 */
	uint32_t holes_before;
};

/* Per-thread decompression state and output buffer. */
struct vmt_chunkbuf {
	void *dctx;		/* a ZSTD_DCtx (vmt_chunkbuf_free frees it), or NULL */
	uint8_t *comp;
	size_t comp_cap;
	uint8_t *raw;		/* the pages, raw_size bytes after a successful read */
	size_t raw_cap;
	/*
	 * A whole chunk, for reading a part of one from a source that can only read it whole
	 * (vmt_source_read_chunk_part()): one per thread, where raw may be one per CPU.
	 */
	uint8_t *whole;
	size_t whole_cap;
};

/*
 * Pages per chunk for a writer of ncpus CPUs' pages: 1 MiB worth, less when more than 32
 * CPUs are traced, because a reader merges the CPUs in time order and so holds one
 * decompressed chunk of each: about 32 MiB in all (512 KiB each on 64 CPUs) besides the
 * chunks read ahead, and never under 64 KiB, where zstd still compresses well. At least
 * one page.
 */
#define VMT_CHUNK_BYTES		(1u << 20)
#define VMT_CHUNK_BYTES_MIN	(64u << 10)
#define VMT_CHUNK_BYTES_ALL	(32u << 20)
uint32_t vmt_chunk_pages(unsigned int ncpus, uint32_t page_size);

/*
 * Pages of a chunk read in windows of window bytes (reader.h): at least one, at most the
 * chunk's; window 0: the whole chunk. Window k holds pages [k * n, (k + 1) * n).
 */
static inline uint32_t vmt_chunk_window_pages(const struct vmt_chunk_info *ci, uint64_t window)
{
	uint64_t n = !window ? ci->page_count : ci->page_size ? window / ci->page_size : 0;

	return n ? (n < ci->page_count ? (uint32_t)n : ci->page_count) : 1;
}

/* Make room for need bytes in *buf. Returns 0 or -ENOMEM. */
int vmt_chunkbuf_grow(uint8_t **buf, size_t *cap, size_t need);
void vmt_chunkbuf_free(struct vmt_chunkbuf *cb);

#endif
