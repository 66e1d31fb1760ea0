// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: a trace-cmd trace.dat (v6 or v7, any compression) through its loader
 * (vmt_reader_open, vmt_source_open), the event formats lookup, the merged walk, pairing
 * and the summary, as vmtrace-report reads it. The first byte picks the event pair (kvm
 * or raw_syscalls, the pairs of the seeds); the rest is the file.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmt_input_opts in = { 0 };

	if (size < 1)
		return 0;
	if (data[0] & 1)
		in.pair = "raw_syscalls:sys_enter,raw_syscalls:sys_exit";
	fuzz_report(data + 1, size - 1, &in);
	return 0;
}
