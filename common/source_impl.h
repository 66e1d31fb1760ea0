/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source_impl: what a loader (source_*.c) sees of a source: the struct it fills and the
 * ops table it provides. Only source.c and the loaders include it. Adding a format is a
 * new source_<name>.c with one struct vmt_source_ops, and its line in source.c's table.
 */
#ifndef VMT_SOURCE_IMPL_H
#define VMT_SOURCE_IMPL_H

#include <limits.h>

#include "kv.h"
#include "source.h"

struct vmt_source_ops {
	const char *name;
	/*
	 * For the words about a file no loader takes: the format as a user knows it ("a
	 * trace.dat"), and the bytes it starts with (a file that holds them, or at least 4 of
	 * them, but is too short for probe is that format, cut).
	 */
	const char *what;
	const char *magic;
	size_t magic_len;
	/*
	 * Why --pair and --format-dir do not apply to this format ("--pair does not apply: a
	 * trace.bin holds kvm_exit and kvm_entry"), or NULL when the loader reads them: the
	 * option is refused once the format is known, before the loader tries the file.
	 */
	const char *no_pair, *no_format_dir;
	/* Whether the file's first bytes (n of them, at most 64) are this format's. */
	bool (*probe)(const uint8_t *head, size_t n);
	/*
	 * Fill s (fd and status.file_size are set): metadata, chunks, status. On failure
	 * write a few words into why (why_size bytes). priv is the loader's own.
	 */
	int (*open)(struct vmt_source *s, const struct vmt_input_opts *opts, char *why,
		    size_t why_size);
	int (*read_chunk)(const struct vmt_source *s, size_t idx, struct vmt_chunkbuf *cb,
			  const char **why);
	/* a part of a chunk (vmt_source_read_chunk_part); NULL: read whole, then copied */
	int (*read_part)(const struct vmt_source *s, size_t idx, uint64_t off, uint64_t len,
			 struct vmt_chunkbuf *cb, const char **why);
	void (*close)(struct vmt_source *s);	/* frees priv; may be NULL */
	/*
	 * vmt_source_held_events(); NULL for a format whose file names no events but its
	 * pair's (.vmt, trace.bin): the words about a missing pair have nothing to add.
	 */
	int (*held_events)(const struct vmt_source *s, char *buf, size_t size);
	/*
	 * For a loader that judges its pages as they are read (pages_late): those of chunk idx
	 * from first (n of them, at raw), the chunks begun among them; whether a page is left
	 * out; the chunks open would have cut. NULL for the others (vmt_source_check_pages()).
	 */
	uint32_t (*check_pages)(const struct vmt_source *s, size_t idx, uint32_t first,
				uint32_t n, const uint8_t *raw);
	bool (*left_out)(const struct vmt_source *s, size_t idx, uint32_t page);
	size_t (*nchunks_counted)(const struct vmt_source *s);
};

struct vmt_source {
	const struct vmt_source_ops *ops;
	int fd;
	struct vmt_source_status status;
	struct vmt_kvbuf meta;		/* META key/values */
	struct vmt_kvbuf end;		/* END key/values; end_present false when unfinished */
	bool end_present;
	struct vmt_chunk_info *chunks;
	size_t nchunks, chunks_cap;
	enum vmt_chunk_order order;
	char description[PATH_MAX + 64];	/* may name a --format-dir: a path whole */
	bool uses_pair, uses_format_dir;	/* set from the ops by source.c */
	/* .vmt: blocks skipped that may have been chunks (chunk info's holes_before) */
	uint32_t holes;
	bool pages_late;	/* its pages judged as they are read (check_pages) */
	void *priv;
};

/* Append a chunk to s->chunks. Returns 0 or -ENOMEM. */
int vmt_source_push_chunk(struct vmt_source *s, const struct vmt_chunk_info *ci);
/*
 * read_chunk for a chunk stored as it is (raw_size bytes of whole pages at offset, no
 * checksum): what trace.bin and an uncompressed trace.dat hold.
 */
int vmt_source_read_stored(const struct vmt_source *s, size_t idx, struct vmt_chunkbuf *cb,
			   const char **why);

extern const struct vmt_source_ops vmt_source_vmt_ops;
extern const struct vmt_source_ops vmt_source_tracedat_ops;
extern const struct vmt_source_ops vmt_source_legacy_ops;

#endif
