// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: a trace-cmd trace.dat (v6 or v7, any compression) through the container
 * reader, the event formats lookup, the merged walk, pairing and the summary, as
 * vmtrace-report reads it. The first byte picks the event pair (kvm or raw_syscalls, the
 * pairs of the seeds); the rest is the file.
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
	struct vmt_input_opts in = { NULL, NULL };
	struct vmt_reader *r;
	struct vmt_summary s;
	const char *why = NULL;
	char path[64];
	FILE *null;
	int fd;

	if (size < 1)
		return 0;
	if (data[0] & 1)
		in.pair = "raw_syscalls:sys_enter,raw_syscalls:sys_exit";
	fd = memfd_create("fuzz.dat", 0);
	if (fd < 0)
		return 0;
	if (vmt_io_write_full(fd, data + 1, size - 1)) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (vmt_reader_open_ex(path, &in, &r, &why) == 0) {
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
