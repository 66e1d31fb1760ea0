/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * container: the .vmt file (man/vmtrace-file.5): its on-disk constants and its writer. The
 * writer appends a file header, one META block and its copy, CHNK blocks (per-CPU runs of whole
 * sub-buffers, each an independent zstd frame) and an END block; every block is complete on
 * its own, so a file cut anywhere reads back every whole chunk (source_vmt.c reads it).
 * A writer belongs to one thread at a time.
 */
#ifndef VMT_CONTAINER_H
#define VMT_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chunk.h"
#include "kv.h"

#define VMT_FILE_MAGIC		"VMTRACE\0"
#define VMT_FILE_VERSION	1
#define VMT_FILE_HEADER_SIZE	16

#define VMT_BLOCK_META		0x4154454du	/* "META" */
#define VMT_BLOCK_CHUNK		0x4b4e4843u	/* "CHNK" */
#define VMT_BLOCK_END		0x00444e45u	/* "END\0" */
/*
 * A copy of the META block's payload, written right after it: one flipped bit in the
 * metadata (the format files every event is decoded with) would otherwise lose the whole
 * recording. Readers before it skip it as a block of unknown type.
 */
#define VMT_BLOCK_META_COPY	0x5950434du	/* "MCPY" */

#define VMT_BLOCK_HEADER_SIZE	32	/* common part */
#define VMT_CHUNK_HEADER_SIZE	88	/* common part plus the chunk fields */
#define VMT_MAX_BLOCK_HEADER	4096	/* larger header sizes are damage */

/* Offsets inside a block header (man/vmtrace-file.5). */
enum {
	VMT_BH_TYPE = 0,
	VMT_BH_HEADER_SIZE = 4,
	VMT_BH_PAYLOAD_SIZE = 8,
	VMT_BH_HEADER_CRC = 16,
	VMT_BH_PAYLOAD_CRC = 20,
	VMT_BH_RESERVED = 24,
	VMT_CH_CPU = 32,
	VMT_CH_PAGE_COUNT = 36,
	VMT_CH_PAGE_SIZE = 40,
	VMT_CH_FLAGS = 44,
	VMT_CH_RAW_SIZE = 48,
	VMT_CH_FIRST_TS = 56,
	VMT_CH_LAST_TS = 64,
	VMT_CH_MISSED_PAGES = 72,
	VMT_CH_RESERVED = 76,
	VMT_CH_MISSED_COUNT = 80,
};

#define VMT_FAST_LEVEL_MAX	3	/* zstd levels up to this store literals uncompressed */
/*
 * The writers' default zstd level. Level 1 with uncompressed literals, measured against
 * level 3 on generated KVM-like pages and on the two real samples: compression 1.3-1.5x
 * and decompression 1.1-1.5x faster; files 4 % smaller (generated KVM-like pages) to
 * 0.7 % larger (a real KVM recording), 15-40 % larger on the repetitive syscall loop.
 */
#define VMT_DEFAULT_LEVEL	1

/* The CRC32C of a block header of size bytes, computed with its header_crc field as 0. */
uint32_t vmt_container_header_crc(uint8_t *hdr, uint32_t size);

struct vmt_writer;

/*
 * Write the file header, the META block and its copy to fd (opened for writing, positioned at 0).
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
/*
 * Count n chunks of a copy's input that damage took (vmtrace-convert --to-vmt): END's
 * chunk.count includes them, so that a reader of the copy reports them lost, and the copy
 * damaged, as it does the input (its chunk.index lists the chunks written only).
 */
void vmt_writer_count_lost(struct vmt_writer *w, uint64_t n);
/* Bytes written so far. */
uint64_t vmt_writer_bytes(const struct vmt_writer *w);
/* Free the writer; its fd stays open (the caller closes it). NULL is fine. */
void vmt_writer_free(struct vmt_writer *w);

#endif
