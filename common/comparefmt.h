/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * comparefmt: a comparison of two recordings (compare.h) as text (one block of before,
 * after and change per group, within 120 columns) and as the JSON object "compare"; and
 * several recordings merged into one population, with a row per recording.
 * Stateless renderers writing where the caller says; the comparison stays the caller's.
 */
#ifndef VMT_COMPAREFMT_H
#define VMT_COMPAREFMT_H

#include <stdbool.h>
#include <stdio.h>

#include "compare.h"
#include "jsonw.h"

/* What a rendering names and what --fail-if found (the verdicts may be NULL when none). */
struct vmt_compare_view {
	const char *file[2];
	const struct vmt_cmp_cond *conds;
	const int *verdicts;		/* vmt_compare_check() per condition */
	const char *const *details;	/* its message per condition */
	unsigned int nconds;
};

void vmt_compare_text(FILE *f, const struct vmt_compare *c, const struct vmt_compare_view *v);
/* The member "compare" of the object w has open. */
void vmt_compare_json(struct vmt_jsonw *w, const struct vmt_compare *c,
		      const struct vmt_compare_view *v);

/*
 * Several recordings merged: merged holds every recording's exits in side 0, per[i] the
 * i-th recording's alone. As text (a table per reason of all, then one row per recording),
 * or as the members "files" and "merged" of the object w has open.
 */
void vmt_merge_text(FILE *f, const struct vmt_compare *merged, const struct vmt_compare *per,
		    const char *const *files, unsigned int n);
void vmt_merge_json(struct vmt_jsonw *w, const struct vmt_compare *merged,
		    const struct vmt_compare *per, const char *const *files, unsigned int n);

#endif
