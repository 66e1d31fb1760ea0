// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: a whole .vmt file, or the original tool's trace.bin, through the
 * container reader, the merged walk, pairing and the summary, as vmtrace-report reads it.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis.h"
#include "io.h"
#include "reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmt_analysis_opts ao = { .window_ns = VMT_DEFAULT_WINDOW_NS };
	struct vmt_reader *r;
	struct vmt_summary s;
	const char *why = NULL;
	char path[64];
	FILE *null;
	int fd;

	fd = memfd_create("fuzz.vmt", 0);
	if (fd < 0)
		return 0;
	if (vmt_io_write_full(fd, data, size)) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (vmt_reader_open(path, &r, &why) == 0) {
		null = fopen("/dev/null", "w");
		if (vmt_analyze(r, &ao, &s) == 0 && null) {
			vmt_summary_print_text(null, r, &s);
			vmt_summary_print_json(null, r, &s);
		}
		vmt_summary_free(&s);
		if (null)
			fclose(null);
		vmt_reader_close(r);
	}
	close(fd);
	return 0;
}
