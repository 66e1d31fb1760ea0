/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * htmlcompare: a comparison of two recordings (compare.h) as one self-contained HTML page
 * (inline CSS and SVG, no network, no script but an error catcher): the figures side by side
 * with their change and the test's verdict, and per group (all exits, then the reasons with
 * the most time) both latency distributions drawn on the same axes. The size grows with
 * groups and bins, never with exits. Stateless.
 */
#ifndef VMT_HTMLCOMPARE_H
#define VMT_HTMLCOMPARE_H

#include "compare.h"
#include "outbuf.h"

/* Most reasons drawn (all exits come first, and are always drawn). */
#define VMT_HTMLCMP_MAX_REASONS 8

/* The page onto o; files are BEFORE's and AFTER's names. */
void vmt_html_compare(struct vmt_outbuf *o, const struct vmt_compare *c,
		      const char *const files[2]);
/*
 * The page into path through outfile.h ("-" is standard output). Returns 0 or -errno;
 * -EINVAL when path is one of the recordings. note (note_size bytes) gets
 * vmt_outfile_note()'s words, or ""; when the file cannot be opened, vmt_outfile_open()'s
 * line that says why (else "" on an error).
 */
int vmt_html_compare_file(const char *path, const struct vmt_compare *c,
			  const char *const files[2], char *note, size_t note_size);

#endif
