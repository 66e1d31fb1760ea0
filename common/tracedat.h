/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracedat: trace-cmd's trace.dat as an input (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)).
 * vmt_tracedat_open() walks the file's headers, options and sections once and presents
 * it like a .vmt: metadata key/values (header_page, clock, CPUs, kernel, per-CPU stats)
 * and per-CPU page runs as chunks (v7 compression chunks, zstd or zlib; slices of up to
 * 256 pages of uncompressed data). The event pair is chosen later, by name, with
 * vmt_tracedat_meta(), which reads the event formats section. Nothing is read that the
 * analysis does not need (kallsyms, printk formats and saved command lines are skipped).
 * Every size and offset in the file is checked against the file before it is used.
 */
#ifndef VMT_TRACEDAT_H
#define VMT_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "container.h"
#include "kv.h"

#define VMT_TRACEDAT_MAGIC	"\x17\x08\x44tracing"
#define VMT_TRACEDAT_MAGIC_LEN	10

/* The default pair in a trace-cmd file: what `trace-cmd record -e kvm` enables. */
#define VMT_TRACEDAT_DEFAULT_PAIR "kvm:kvm_exit,kvm:kvm_entry"

/*
 * Fill c (opened by vmt_container_open, fd and file_size set) from a trace.dat.
 * Returns 0 or -errno with *why naming the problem.
 */
int vmt_tracedat_open(struct vmt_container *c, const char **why);
void vmt_tracedat_free(struct vmt_tracedat *td);

/*
 * Decompress a v7 compression chunk (zstd or zlib, flags in ci) of c into raw (raw_size
 * bytes); ctx is the caller's reusable zstd context (may be created here).
 */
int vmt_tracedat_decompress(const struct vmt_chunk_info *ci, const uint8_t *comp, uint8_t *raw,
			    void **ctx, const char **why);

/*
 * Add the event pair to kb: pair is "SYSTEM:BEGIN,SYSTEM:END" (NULL: kvm_exit/kvm_entry).
 * *source describes the file (version, compression, buffer) for the report to say.
 */
int vmt_tracedat_meta(const struct vmt_container *c, const char *pair, struct vmt_kvbuf *kb,
		      char *source, size_t source_size, const char **why);

#endif
