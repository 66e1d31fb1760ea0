// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * flipcheck (tests only): flips every byte of FILE in [START, END), one at a time, and reads
 * each damaged copy the way vmtrace-report does (reader, merged walk, pairing, summary).
 * Any crash, sanitizer report or hang fails; it prints how the outcomes split.
 *
 *   flipcheck FILE START END
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io.h"
#include "iterate.h"
#include "reader.h"
#include "summary.h"

int main(int argc, char **argv)
{
	unsigned long start, end, off, refused = 0, damaged = 0, clean = 0;
	char *buf, path[64];
	size_t len;
	int fd;

	if (argc != 4 || vmt_io_read_file(argv[1], 64u << 20, &buf, &len))
		return 2;
	start = strtoul(argv[2], NULL, 10);
	end = strtoul(argv[3], NULL, 10);
	if (end > len)
		end = len;
	fd = memfd_create("flip.vmt", 0);
	if (fd < 0)
		return 2;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	for (off = start; off < end; off++) {
		struct vmt_summary_opts so = { .window_ns = VMT_DEFAULT_WINDOW_NS, .top_n = 10 };
		struct vmt_consumer c;
		struct vmt_reader *r;
		struct vmt_summary s;
		struct vmt_iter it;
		const struct vmt_source_status *st;
		char why[320];

		buf[off] ^= 0xff;
		if (ftruncate(fd, 0) || pwrite(fd, buf, len, 0) != (ssize_t)len)
			return 2;
		buf[off] ^= 0xff;
		if (vmt_reader_open(path, NULL, &r, why, sizeof(why))) {
			if (!why[0]) {
				fprintf(stderr, "flipcheck: offset %lu: refused without a reason\n", off);
				return 1;
			}
			refused++;
			continue;
		}
		if (vmt_summary_consumer(&s, &so, &c) || vmt_iterate(r, NULL, &c, 1, &it)) {
			fprintf(stderr, "flipcheck: offset %lu: analysis failed\n", off);
			return 1;
		}
		st = vmt_source_status(vmt_reader_source(r));
		if (!st->finished || st->bad_blocks || s.rd.bad_chunks || s.rd.bad_pages)
			damaged++;
		else
			clean++;
		vmt_summary_free(&s);
		vmt_reader_close(r);
	}
	printf("%lu flips: %lu refused with a reason, %lu read with damage reported, %lu read "
	       "clean\n", end - start, refused, damaged, clean);
	free(buf);
	return 0;
}
