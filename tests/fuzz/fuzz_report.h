/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The path both whole-file fuzz targets drive: the bytes as a file (a memfd), opened as
 * vmtrace-report opens it, analysed, and printed as text and JSON to /dev/null.
 */
#ifndef VMT_FUZZ_REPORT_H
#define VMT_FUZZ_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis.h"
#include "io.h"
#include "reader.h"

static inline void fuzz_report(const uint8_t *data, size_t size, const struct vmt_input_opts *in)
{
	struct vmt_analysis_opts ao = { .window_ns = VMT_DEFAULT_WINDOW_NS };
	struct vmt_reader *r;
	struct vmt_summary s;
	char path[64], why[320];
	FILE *null;
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		return;
	if (vmt_io_write_full(fd, data, size)) {
		close(fd);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (vmt_reader_open(path, in, &r, why, sizeof(why)) == 0) {
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
}

#endif
