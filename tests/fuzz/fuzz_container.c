// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: a whole .vmt file, or the original tool's trace.bin, through its loader
 * (vmt_reader_open, vmt_source_open), the merged walk, pairing and the summary, as
 * vmtrace-report reads it.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_report(data, size, NULL);
	return 0;
}
