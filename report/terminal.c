// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "chunk.h"
#include "log.h"
#include "source.h"
#include "terminal.h"

/* zstd's DISPLAYUPDATE idea: one line, rewritten, only on a terminal. */
void report_show_progress(uint64_t done, uint64_t total, void *arg)
{
	fprintf(stderr, "\r%s: %s: %3u%% (%llu of %llu chunk%s)", vmt_log_progname(),
		(const char *)arg, total ? (unsigned int)(done * 100 / total) : 0,
		(unsigned long long)done, (unsigned long long)total, total == 1 ? "" : "s");
}

void report_hint_windows(const struct vmt_reader *r, const char *file)
{
	const struct vmt_source *src = vmt_reader_source(r);
	unsigned int ncpus = vmt_reader_streams(r);
	size_t i, n = vmt_source_nchunks(src);
	bool larger = false;

	if (!isatty(STDERR_FILENO) || !vmt_reader_window(r))
		return;
	/* the recorder's own chunks on that many CPUs (over 512) would be read so too */
	for (i = 0; i < n && !larger; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(src, i);

		larger = vmt_chunk_pages(ncpus, ci->page_size) < ci->page_count;
	}
	if (larger)
		vmt_info("%s: %" PRIu64 " KiB chunks on %u CPUs are read in parts (slower); "
			 "vmtrace-convert --to-vmt cuts them", file,
			 vmt_reader_largest_chunk(r) >> 10, ncpus);
}
