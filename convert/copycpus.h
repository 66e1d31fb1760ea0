/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copycpus: the CPUs of vmtrace-convert's copies of whole chunks (--to-vmt, --legacy): which
 * a recording has, the refusal of a --cpu that names none of them (and of an input
 * --legacy cannot copy), and the note when the CPUs asked for have no data. Messages
 * printed here, naming the input; one thread.
 */
#ifndef VMT_CONVERT_COPYCPUS_H
#define VMT_CONVERT_COPYCPUS_H

#include <stddef.h>
#include <stdint.h>

#include "convertopt.h"
#include "iterate.h"
#include "reader.h"

/* The CPUs that have chunks in src. */
void convert_chunk_cpus(const struct vmt_source *src, struct vmt_iter_ids *cpus);
/*
 * --to-vmt and --legacy with --cpu: 0 when the recording has one of the CPUs asked for
 * (traced, or with chunks), else -EINVAL, said in one line naming those it has. A copy of
 * none would hold nothing a reader takes (a .vmt with no traced CPU is refused), so it is
 * refused before any output is made.
 */
int convert_check_cpus(const struct convert_opts *o, const struct vmt_reader *r);
/*
 * --legacy: what it can take from the input, one CPU's kvm_exit/kvm_entry pages in 64-bit
 * 4 KiB sub-buffers: 0 and that CPU (--cpu's, or the only one), else -EINVAL said in one
 * line naming the input. Checked before any output is made: an input that does not fit
 * is a usage error (exit status 64), as a --cpu it lacks is.
 */
int convert_legacy_cpu(const struct convert_opts *o, const struct vmt_reader *r, uint32_t *cpu);
/* After a copy: a note when the CPUs asked for (asked) had no chunk to copy. */
void convert_say_copied(const struct convert_opts *o, const struct vmt_source *src,
			const struct vmt_cpulist *asked, size_t copied);

#endif
