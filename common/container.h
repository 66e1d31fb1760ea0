/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * container: the .vmt file (man/vmtrace-file.5). The writer appends a file header, one
 * META block, CHNK blocks (per-CPU runs of whole sub-buffers, each an independent zstd
 * frame) and an END block; every block is complete on its own, so a file cut anywhere
 * reads back every whole chunk. The reader scans block headers once (memory grows with
 * the number of chunks, never with events) and decompresses chunks on demand.
 * A writer or reader object belongs to one thread at a time; vmt_container_read_chunk()
 * may be called from several threads at once, each with its own struct vmt_chunkbuf.
 */
#ifndef VMT_CONTAINER_H
#define VMT_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kv.h"

#define VMT_FILE_MAGIC		"VMTRACE\0"
#define VMT_FILE_VERSION	1
#define VMT_FILE_HEADER_SIZE	16

#define VMT_BLOCK_META		0x4154454du	/* "META" */
#define VMT_BLOCK_CHUNK		0x4b4e4843u	/* "CHNK" */
#define VMT_BLOCK_END		0x00444e45u	/* "END\0" */

#define VMT_BLOCK_HEADER_SIZE	32	/* common part */
#define VMT_CHUNK_HEADER_SIZE	88	/* common part plus the chunk fields */
/* Limits a reader enforces before allocating anything a file declares. */
#define VMT_MAX_META_SIZE	(64u << 20)
#define VMT_MAX_CHUNK_RAW	(256u << 20)

#define VMT_CHUNK_ZSTD		1u	/* flags: payload is one zstd frame (else stored raw) */
#define VMT_FAST_LEVEL_MAX	3	/* zstd levels up to this store literals uncompressed */
/*
 * The writers' default zstd level. Level 1 with uncompressed literals, measured against
 * level 3 on generated KVM-like pages and on the two real samples: compression 1.3-1.5x
 * and decompression 1.1-1.5x faster; files 4 % smaller (generated KVM-like pages) to
 * 0.7 % larger (a real KVM recording), 15-40 % larger on the repetitive syscall loop.
 */
#define VMT_DEFAULT_LEVEL	1
#define VMT_CHUNK_ZLIB		2u	/* trace.dat only: payload is one zlib stream */

/* What a chunk header says about its pages. */
struct vmt_chunk_info {
	uint64_t offset;	/* of the block header in the file */
	uint64_t payload_size;
	uint64_t raw_size;
	uint64_t first_ts, last_ts;
	uint64_t missed_count;	/* sum of counts stored in pages flagged "missed events" */
	uint32_t cpu;
	uint32_t page_count;
	uint32_t page_size;
	uint32_t missed_pages;
	uint32_t flags;
	uint32_t payload_crc;
	uint32_t seq;		/* trace.dat: position in its CPU's run (read-ahead order) */
	uint32_t header_size;	/* .vmt: of the block header, from the scan (0: read it) */
};

struct vmt_writer;
struct vmt_tracedat;

/*
 * Write the file header and the META block to fd (opened for writing, positioned at 0).
 * The fd stays the caller's: the writer never closes it (common/outfile.h does). level is
 * the zstd level (0 stores chunks uncompressed).
 */
int vmt_writer_open(int fd, const struct vmt_kvbuf *meta, int level, struct vmt_writer **out);
/*
 * Append one chunk: npages whole sub-buffers of page_size bytes for cpu. info carries the
 * caller's page statistics (timestamps, missed events); offsets and sizes are filled in.
 * Returns 0 or -errno (-ENOSPC, -EIO, ...). After an error the file keeps every chunk
 * written before it.
 */
int vmt_writer_chunk(struct vmt_writer *w, const void *pages, uint32_t npages,
		     uint32_t page_size, struct vmt_chunk_info *info);
/* Push written data to the disk (fdatasync). */
int vmt_writer_sync(struct vmt_writer *w);
/* Write the END block (end metadata plus the chunk index), sync; the fd stays open. */
int vmt_writer_finish(struct vmt_writer *w, const struct vmt_kvbuf *end);
/* Bytes written so far. */
uint64_t vmt_writer_bytes(const struct vmt_writer *w);
/* Free the writer; its fd stays open (the caller closes it). NULL is fine. */
void vmt_writer_free(struct vmt_writer *w);

/* Reader. */
struct vmt_container {
	int fd;
	uint64_t file_size;
	uint32_t version;
	uint8_t *meta;		/* META key/values, validated */
	size_t meta_len;
	uint8_t *end;		/* END key/values, or NULL when the recording was not finished */
	size_t end_len;
	struct vmt_chunk_info *chunks;
	size_t nchunks;
	bool finished;		/* an END block was found and matches the chunks */
	uint64_t truncated_at;	/* offset where reading stopped early, or 0 */
	const char *trunc_why;	/* why it stopped there, for the warning */
	uint64_t bad_blocks;	/* blocks skipped for a bad header checksum */
	/*
	 * The original vm-trace's trace.bin: <4 bytes> signature 0xcce96d01, <2 bytes>
	 * kvm_entry id, <2 bytes> kvm_exit id, then 4 KiB pages of one CPU. It has no
	 * metadata: meta stays empty and the reader supplies formats.
	 */
	bool legacy;
	uint16_t legacy_entry_id, legacy_exit_id;
	/*
	 * trace-cmd's trace.dat (tracedat.h): metadata and END come from its options and
	 * sections; chunks are its compression chunks or slices of its uncompressed pages,
	 * with offset pointing at the payload and no checksum.
	 */
	struct vmt_tracedat *tracedat;
};

#define VMT_LEGACY_SIGNATURE	0xcce96d01u
#define VMT_LEGACY_HEADER_SIZE	8
#define VMT_LEGACY_PAGE_SIZE	4096

/*
 * Open and scan path. Returns 0, or -errno with *why (when non-NULL) naming the problem
 * ("not a vmtrace file", "unsupported version 7", ...).
 */
int vmt_container_open(const char *path, struct vmt_container **out, const char **why);
/* For the readers of other formats (legacy, tracedat): append a chunk (cap: its array's). */
int vmt_container_push_chunk(struct vmt_container *c, size_t *cap,
			     const struct vmt_chunk_info *ci);
void vmt_container_close(struct vmt_container *c);

/* Per-thread decompression state and output buffer for vmt_container_read_chunk(). */
struct vmt_chunkbuf {
	void *dctx;
	uint8_t *comp;
	size_t comp_cap;
	uint8_t *raw;
	size_t raw_cap;
};

void vmt_chunkbuf_free(struct vmt_chunkbuf *cb);
/*
 * Read, check and decompress chunk idx into cb->raw (info->raw_size bytes). Returns 0 or
 * -EBADMSG (checksum, size or frame mismatch), -EIO, -ENOMEM; *why says which.
 */
int vmt_container_read_chunk(const struct vmt_container *c, size_t idx, struct vmt_chunkbuf *cb,
			     const char **why);

#endif
