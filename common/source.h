/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source: a recording file of any supported format, opened behind one interface. The
 * format is sniffed from the file's first bytes, once, here; each format is a loader in a
 * file of its own (source_vmt.c, source_legacy.c, source_tracedat.c) that knows nothing of
 * the others. Every source presents the same things: metadata key/values (metakeys.h) as
 * a .vmt's META and END blocks carry them, and the pages as chunks (chunk.h) read on
 * demand. A source is opened and closed by one thread; vmt_source_read_chunk() may be
 * called from several threads at once, each with its own struct vmt_chunkbuf.
 */
#ifndef VMT_SOURCE_H
#define VMT_SOURCE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chunk.h"

/* How to read inputs that do not describe themselves fully. */
struct vmt_input_opts {
	const char *format_dir;	/* a trace.bin's event formats, or NULL */
	const char *pair;	/* a trace.dat's "SYSTEM:BEGIN,SYSTEM:END", or NULL (kvm) */
	/*
	 * Refuse an option the format has no use for (VMT_SOURCE_EOPTION), once the format is
	 * known and before its loader tries the file, rather than ignore it: what the programs
	 * ask for (inputopt.h), where an option dropped would go unnoticed.
	 */
	bool refuse_unused;
	/*
	 * Judge a trace.dat's stored pages (their times, their lengths) when it is opened, every
	 * page's header read before the pass, rather than as the pass reads them: for a copy
	 * that takes the chunks as open cuts them (vmtrace-convert --to-vmt, --to-legacy).
	 */
	bool pages_at_open;
};

/* The default pair in a trace-cmd file: what `trace-cmd record -e kvm` enables. */
#define VMT_TRACEDAT_DEFAULT_PAIR "kvm:kvm_exit,kvm:kvm_entry"

/*
 * vmt_source_open()'s answer when an input option does not apply to the file's format
 * (--pair for a .vmt or a trace.bin, --format-dir for a .vmt or a trace.dat): a usage
 * error, with why naming the option. EDOM because no system call made while opening a
 * file returns it: it cannot be mistaken for an I/O error.
 */
#define VMT_SOURCE_EOPTION (-EDOM)

/* The order in which a walk wants a source's chunks (for reading ahead). */
enum vmt_chunk_order {
	VMT_ORDER_FIRST_TS,	/* by first_ts: the source knows each chunk's first time */
	VMT_ORDER_SEQ,		/* by seq: round-robin over the CPUs' runs */
};

struct vmt_source;

/*
 * Open path ("-": standard input, copied to an unlinked file in $TMPDIR or /tmp unless it
 * is a regular file). Returns 0, or -errno with why (why_size bytes, caller-owned) naming the
 * problem in a few words ("not a vmtrace recording, a trace.dat or a trace.bin (it starts
 * with 'hello world')", "no kvm:nope event format in the file (the pair
 * kvm:kvm_exit,kvm:nope); it holds records of ...: choose the pair with --pair BEGIN,END"),
 * or the error's own strerror() text when there is nothing more to say, or, with
 * opts->refuse_unused, VMT_SOURCE_EOPTION for an option the format has no use for
 * (otherwise ignored). opts may be NULL (no options); why may be NULL when why_size is 0.
 */
int vmt_source_open(const char *path, const struct vmt_input_opts *opts,
		    struct vmt_source **out, char *why, size_t why_size);
void vmt_source_close(struct vmt_source *s);

/*
 * Whether the regular file open on fd (read at its start, the offset left alone) holds a
 * recording of a format read here, judged by the loaders' own probes, as vmt_source_open()
 * judges it: the format as a user knows it (".vmt", "trace.bin", "trace.dat"), or NULL (not
 * a regular file, unreadable, or none of them). For outputs that must not replace one.
 */
const char *vmt_source_probe_fd(int fd);

/* The loader's name: "vmt", "trace.bin" or "trace.dat". */
const char *vmt_source_format(const struct vmt_source *s);
/*
 * What the source had to say about where its description came from, for the report
 * ("formats from events/ (--format-dir)", "trace-cmd trace.dat v7, zstd, buffer \"\""),
 * or "" for a file that describes itself (.vmt).
 */
const char *vmt_source_description(const struct vmt_source *s);
/* Whether the source read options it did not use (for "--pair ignored" warnings). */
bool vmt_source_uses_pair(const struct vmt_source *s);
bool vmt_source_uses_format_dir(const struct vmt_source *s);

/*
 * The events the file's pages hold, most records first, as words for a message: "records
 * of raw_syscalls:sys_enter (2000), raw_syscalls:sys_exit (2000) and 3 more events", or
 * "no event records". For a file without the pair asked for: what else it has. Reads the
 * pages (a trace.dat's first 256 MiB of them). Returns how many different events it found
 * (0: none), -EOPNOTSUPP for a format that names no events but its pair's (.vmt, trace.bin),
 * -ENOMEM, -EBADMSG.
 */
int vmt_source_held_events(const struct vmt_source *s, char *buf, size_t size);

/* META key/values (kv.h encoding, validated), and END's, or NULL when unfinished. */
const uint8_t *vmt_source_meta(const struct vmt_source *s, size_t *len);
const uint8_t *vmt_source_end(const struct vmt_source *s, size_t *len);

/* The state of the file as a whole. */
struct vmt_source_status {
	uint64_t file_size;
	bool finished;		/* the file is complete (an END block, or whole pages) */
	uint64_t truncated_at;	/* offset where reading stopped early, or 0 */
	const char *trunc_why;	/* why it stopped there, or NULL */
	uint64_t bad_blocks;	/* blocks or chunks skipped while opening */
	uint64_t bad_block_at;	/* the first one's offset, when there is one */
	char bad_block_why[96];	/* what was wrong with it, when known ("": not known) */
	/*
	 * A .vmt's END block whose header is sound and payload is not: no event was in it, so
	 * it is not damaged data that lost events, but the end statistics are not known (its
	 * offset, or 0).
	 */
	uint64_t bad_end_at;
	/*
	 * A .vmt's sound END block: the chunks its writer counted (end_chunks, when
	 * end_counts). Not finished beside it: damage took chunks, not the recorder's end.
	 */
	bool end_counts;
	uint64_t end_chunks;
	uint64_t end_at;	/* a sound END block's offset, or 0 */
	/*
	 * A .vmt's CHNK blocks with the CPU, times, pages and checksum of one before them:
	 * skipped (their events are read once), counted as damage; the first one's offset
	 * and that of the chunk it repeats.
	 */
	uint64_t dup_chunks;
	uint64_t dup_at, dup_of;
	/*
	 * Chunk headers whose first time is not their pages' (vmt_source_fix_first_ts): how
	 * many, and the first one's offset and CPU.
	 */
	/*
	 * A .vmt without END holding another recording's file header: it is read as if it
	 * ended there (its offset, or 0).
	 */
	uint64_t joined_at;
	/*
	 * A finished .vmt with bytes after its END block: where they start (0: none), and
	 * whether another recording's file header is there (files joined whole)
	 */
	uint64_t after_end_at;
	bool after_end_recording;
	uint64_t bad_first_ts;
	uint64_t bad_first_ts_at;
	uint32_t bad_first_ts_cpu;
	/*
	 * A .vmt's META block that failed its checks, read from the copy written after it
	 * (its offset, or 0): every event is still decoded, with the copy's formats.
	 */
	uint64_t meta_damaged_at;
	/*
	 * A .vmt's META blocks after the first (vmtrace-file(5) allows one): damage, skipped,
	 * but not data that lost events (not in bad_blocks); how many, and the first's offset.
	 */
	uint64_t extra_meta;
	uint64_t extra_meta_at;
};
const struct vmt_source_status *vmt_source_status(const struct vmt_source *s);
/*
 * The file's state in a word: "not finished" (no end record: cut short, or still being
 * written), "damaged" (a sound end record, so its recorder finished it, but not whole; or
 * damaged: what reading it revealed, vmt_input_damaged()), or NULL (whole).
 */
const char *vmt_source_state(const struct vmt_source *s, bool damaged);

size_t vmt_source_nchunks(const struct vmt_source *s);
const struct vmt_chunk_info *vmt_source_chunk(const struct vmt_source *s, size_t idx);
/*
 * Whether blocks skipped while opening may have held pages of chunk idx's CPU between its
 * chunk before (in the file's order, whatever part a slice reads) and it: its events are
 * then lost as a damaged chunk's are.
 */
bool vmt_source_hole_before(const struct vmt_source *s, size_t idx);
enum vmt_chunk_order vmt_source_order(const struct vmt_source *s);
/*
 * Chunk idx's header says it begins at a time its pages do not hold: ts, its first page's
 * time, stands for it from now on, and the status counts the damage.
 */
void vmt_source_fix_first_ts(struct vmt_source *s, size_t idx, uint64_t ts);
/*
 * Read, check and decompress chunk idx into cb->raw (raw_size bytes). Returns 0 or
 * -EBADMSG (checksum, size or frame mismatch), -EIO, -ENOMEM, with *why (a constant
 * string) saying which.
 */
int vmt_source_read_chunk(const struct vmt_source *s, size_t idx, struct vmt_chunkbuf *cb,
			  const char **why);
/*
 * Bytes [off, off + len) of chunk idx's pages into cb->raw (len bytes), checked as
 * vmt_source_read_chunk() checks the chunk, for a reader that cannot hold every CPU's
 * chunk whole: a .vmt's zstd frame is decompressed from its start, the bytes outside the
 * part dropped through cb->whole, to its end for the first part (off 0: the whole payload
 * checked) and up to off + len for the others; other chunks are read whole into
 * cb->whole, and the part copied. off + len must not pass the
 * chunk's raw_size. Returns as vmt_source_read_chunk().
 */
int vmt_source_read_chunk_part(const struct vmt_source *s, size_t idx, uint64_t off,
			       uint64_t len, struct vmt_chunkbuf *cb, const char **why);
/*
 * A source whose pages are judged as they are read (a trace.dat's stored pages), not when
 * it is opened: pages the open of another format would leave out of its chunks (a time out
 * of order, a length past the page) are then inside them. Whoever reads a chunk's pages in
 * order (the walk, the census) has them judged: vmt_source_check_pages() on the pages read
 * (first, n of them, at raw), then vmt_source_page_left_out() for each, a left-out page
 * skipped as a damaged block is, a hole before the next. The damage is counted in the
 * status as open counts it (bad_blocks, the first's place), vmt_source_nchunks_counted()
 * the chunks open would have cut. Called by the thread that walks, pages of a CPU from its
 * first on (pages further on have the headers between read for them, 1 MiB at a time).
 * The judgement is the loader's state, changed through the const source: such a source is
 * never walked by two threads at once (vmt_reader_sliceable() refuses it).
 */
bool vmt_source_pages_late(const struct vmt_source *s);
/* The chunks begun in those pages as vmt_source_nchunks_counted() counts (1 per chunk). */
uint32_t vmt_source_check_pages(const struct vmt_source *s, size_t idx, uint32_t first,
				uint32_t n, const uint8_t *raw);
bool vmt_source_page_left_out(const struct vmt_source *s, size_t idx, uint32_t page);
/*
 * The chunks of the file, as the messages count them: vmt_source_nchunks(), but for a
 * source whose pages are judged as read, the chunks open would have cut around the pages
 * left out (for every CPU judged to its end).
 */
size_t vmt_source_nchunks_counted(const struct vmt_source *s);

/* Ask the kernel to read chunk idx ahead (a hint; nothing happens past the last chunk). */
void vmt_source_advise(const struct vmt_source *s, size_t idx);

#endif
