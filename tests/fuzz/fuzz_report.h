/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The path both whole-file fuzz targets drive: the bytes as a file (a memfd), opened as
 * vmtrace-report opens it, walked once with every consumer (the summary, the verbose dump,
 * CSV rows), and the summary rendered as text and JSON.
 *
 * Walked twice: reading each chunk whole, then in windows of one page (the reader's way
 * for recordings of many CPUs in large chunks, common/reader.h), and every output of the
 * two walks must be the same bytes, or the target aborts: the windows' own decoding of a
 * chunk (source_vmt.c: stopped zstd streams, the first window checking the whole payload)
 * must keep and drop exactly what the whole read keeps and drops, on any damage.
 */
#ifndef VMT_FUZZ_REPORT_H
#define VMT_FUZZ_REPORT_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* What one walk printed: the text views and -v, the JSON, the CSV rows (memfds). */
struct fuzz_outputs {
	int text, json, csv;
};

static inline int fuzz_outputs_open(struct fuzz_outputs *o)
{
	o->text = memfd_create("text", 0);
	o->json = memfd_create("json", 0);
	o->csv = memfd_create("csv", 0);
	return o->text >= 0 && o->json >= 0 && o->csv >= 0 ? 0 : -1;
}

static inline void fuzz_outputs_close(struct fuzz_outputs *o)
{
	if (o->text >= 0)
		close(o->text);
	if (o->json >= 0)
		close(o->json);
	if (o->csv >= 0)
		close(o->csv);
}

/* One walk of the file at path, its outputs into out. */
static inline void fuzz_walk(const char *path, const struct vmt_input_opts *in,
			     const struct fuzz_outputs *out)
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
	char why[256];
	int textfd = dup(out->text);
	FILE *text = textfd >= 0 ? fdopen(textfd, "w") : NULL;

	if (!text) {
		if (textfd >= 0)
			close(textfd);
		return;
	}
	if (vmt_reader_open(path, in, &r, why, sizeof(why)) == 0) {
		struct vmt_evdump_opts dopts = { .out = text, .why = true };
		struct vmt_rows_opts ropts = { .format = VMT_ROWS_CSV, .fd = out->csv, .why = true };
		/* attribution too: context formats and records come from the file */
		struct vmt_iter_opts io = { .attribute = true };

		if (vmt_summary_consumer(&s, &so, &c[0]) == 0 &&
		    vmt_evdump_consumer(&d, &dopts, &c[1]) == 0 &&
		    vmt_rows_consumer(&ropts, &rows, &c[2]) == 0 &&
		    vmt_iterate(r, &io, c, 3, &it) == 0) {
			struct vmt_outbuf o;
			struct vmt_report_style st = { true };

			vmt_report_text(text, r, &s, &st);
			vmt_report_hist_text(text, r, &s, &st);
			if (vmt_outbuf_init(&o, out->json) == 0) {
				vmt_report_json(&o, r, &s);
				vmt_outbuf_finish(&o);
			}
		}
		vmt_rows_finish(rows);
		vmt_evdump_free(&d);
		vmt_summary_free(&s);
		vmt_reader_close(r);
	} else {
		fprintf(text, "not opened: %s\n", why);
	}
	fclose(text);
}

/* Whether two files hold the same bytes (both read from their start). */
static inline int fuzz_same_file(int a, int b)
{
	off_t na = lseek(a, 0, SEEK_END), nb = lseek(b, 0, SEEK_END);
	char x[4096], y[4096];
	off_t at;

	if (na != nb)
		return 0;
	for (at = 0; at < na; at += (off_t)sizeof(x)) {
		size_t n = na - at < (off_t)sizeof(x) ? (size_t)(na - at) : sizeof(x);

		if (pread(a, x, n, at) != (ssize_t)n || pread(b, y, n, at) != (ssize_t)n ||
		    memcmp(x, y, n) != 0)
			return 0;
	}
	return 1;
}

static inline void fuzz_report(const uint8_t *data, size_t size, const struct vmt_input_opts *in)
{
	struct fuzz_outputs whole = { -1, -1, -1 }, windows = { -1, -1, -1 };
	char path[64];
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		return;
	if (vmt_io_write_full(fd, data, size) == 0 && fuzz_outputs_open(&whole) == 0 &&
	    fuzz_outputs_open(&windows) == 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		/* the reader takes the window at its opening (set_window) */
		setenv("VMTRACE_TEST_WINDOW", "0", 1);
		fuzz_walk(path, in, &whole);
		setenv("VMTRACE_TEST_WINDOW", "4096", 1);
		fuzz_walk(path, in, &windows);
		unsetenv("VMTRACE_TEST_WINDOW");
		if (!fuzz_same_file(whole.text, windows.text) ||
		    !fuzz_same_file(whole.json, windows.json) ||
		    !fuzz_same_file(whole.csv, windows.csv)) {
			fprintf(stderr, "fuzz: reading in windows printed other bytes than whole "
				"chunks\n");
			abort();
		}
	}
	fuzz_outputs_close(&whole);
	fuzz_outputs_close(&windows);
	close(fd);
}

#endif
