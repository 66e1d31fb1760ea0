/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The path both whole-file fuzz targets drive: the bytes as a file (a memfd), opened as
 * vmtrace-report opens it, walked once with every consumer (the summary, the verbose dump,
 * CSV rows), and the summary rendered as text and JSON, all to /dev/null.
 */
#ifndef VMT_FUZZ_REPORT_H
#define VMT_FUZZ_REPORT_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "evdump.h"
#include "io.h"
#include "iterate.h"
#include "reader.h"
#include "reportfmt.h"
#include "reportjson.h"
#include "rows.h"
#include "summary.h"

static inline void fuzz_report(const uint8_t *data, size_t size, const struct vmt_input_opts *in)
{
	struct vmt_summary_opts so = { .window_ns = VMT_DEFAULT_WINDOW_NS, .top_n = 5,
				       .histogram = true, .hist_bucket_ns = 1000,
				       .hist_buckets = 20 };
	struct vmt_consumer c[3];
	struct vmt_reader *r;
	struct vmt_summary s = { 0 };
	struct vmt_evdump d = { 0 };
	struct vmt_rows *rows = NULL;
	struct vmt_iter it;
	char path[64], why[256];
	FILE *null;
	int fd = memfd_create("fuzz", 0), nullfd;

	if (fd < 0)
		return;
	if (vmt_io_write_full(fd, data, size)) {
		close(fd);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	null = fopen("/dev/null", "w");
	nullfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null && nullfd >= 0 && vmt_reader_open(path, in, &r, why, sizeof(why)) == 0) {
		struct vmt_evdump_opts dopts = { .out = null, .why = true };
		struct vmt_rows_opts ropts = { .format = VMT_ROWS_CSV, .fd = nullfd, .why = true };
		/* attribution too: context formats and records come from the file */
		struct vmt_iter_opts io = { .attribute = true };

		if (vmt_summary_consumer(&s, &so, &c[0]) == 0 &&
		    vmt_evdump_consumer(&d, &dopts, &c[1]) == 0 &&
		    vmt_rows_consumer(&ropts, &rows, &c[2]) == 0 &&
		    vmt_iterate(r, &io, c, 3, &it) == 0) {
			struct vmt_outbuf o;

			struct vmt_report_style st = { true };

			vmt_report_text(null, r, &s, &st);
			vmt_report_hist_text(null, r, &s);
			if (vmt_outbuf_init(&o, nullfd) == 0) {
				vmt_report_json(&o, r, &s);
				vmt_outbuf_finish(&o);
			}
		}
		vmt_rows_finish(rows);
		vmt_evdump_free(&d);
		vmt_summary_free(&s);
		vmt_reader_close(r);
	}
	if (null)
		fclose(null);
	if (nullfd >= 0)
		close(nullfd);
	close(fd);
}

#endif
