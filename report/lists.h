/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lists: vmtrace-report's lists that grow with what they find, the exits over --threshold
 * and the events --around a time: written as the pass finds them, as text lines or JSON
 * objects (the exits of a text list as records, printed at the end with the width of their
 * longest reason), into unlinked temporary files in $TMPDIR (memory stays constant), then
 * copied into the report. The functions returning -errno have said why on stderr (the
 * file's directory named: a full one cuts the list, never silently).
 */
#ifndef VMT_REPORT_LISTS_H
#define VMT_REPORT_LISTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "evdump.h"
#include "iterate.h"
#include "jsonw.h"
#include "outbuf.h"
#include "reportfmt.h"
#include "summary.h"

struct report_list {
	FILE *tmp;			/* on fd, for the text lines and records */
	int fd;
	const char *dir, *what;		/* for messages: where the file is, what it holds */
	int err;			/* the file's first -errno */
	bool json;
	struct vmt_outbuf ob;		/* JSON: the array, on tmp's fd */
	struct vmt_jsonw jw;
	uint64_t count;			/* items written */
	/* --threshold */
	const struct vmt_reader *r;
	const struct vmt_summary *s;
	const struct vmt_report_style *st;
	uint64_t threshold_ns, threshold;
	/* --around */
	struct vmt_evdump dump;
};

/* The exits at least threshold_ns long. Returns 0 or -errno (no temporary file). A write
 * that fails stops the pass with its -errno. */
int list_threshold(struct report_list *l, bool json, uint64_t threshold_ns,
		   const struct vmt_reader *r, const struct vmt_summary *s,
		   const struct vmt_report_style *st, struct vmt_consumer *c);
/* Every event within [from_ns, to_ns] since the start, with each entry's why if asked (with
 * wide, every field and every part of the why, as -v --wide). */
int list_around(struct report_list *l, bool json, uint64_t from_ns, uint64_t to_ns, bool why,
		bool wide, struct vmt_consumer *c);
/* After an --around list printed as text: when it was empty, why (past the recording?). */
void list_around_none(const struct report_list *l, FILE *f, uint64_t at_ns, uint64_t span_ns,
		      uint64_t lasted_ns, bool filtered);
/* After the pass: the JSON array closed, everything written. Returns 0 or -errno. */
int list_finish(struct report_list *l);
/* When the pass failed: the list's error if the failure was its file's (-errno), else 0. */
int list_check(const struct report_list *l);
/* Copy the list: text lines onto out; or the JSON array as member name of w, and count. */
int list_print_text(struct report_list *l, FILE *out);
/* The text list of exits over the threshold: its header, then its rows (none: nothing). */
int list_print_exits(struct report_list *l, FILE *out);
int list_print_json(struct report_list *l, struct vmt_jsonw *w, const char *name,
		    const char *count_name);
void list_free(struct report_list *l);

#endif
