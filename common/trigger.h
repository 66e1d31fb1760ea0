/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trigger: the exit that triggered a flight recording (vmtrace-record --on-threshold), as
 * END names it (metakeys.h trigger.*): read from an open recording, shown as a line of
 * the text report (and of the recorder's closing summary) and a "trigger" object of the
 * JSON one, and the default centre of --around trigger. Plain values; main thread.
 */
#ifndef VMT_TRIGGER_H
#define VMT_TRIGGER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "jsonw.h"
#include "reader.h"

struct vmt_trigger {
	bool has;			/* a flight recording that triggered */
	bool flight;			/* a flight recording (threshold known) */
	bool unknown;			/* flight, but not finished: END (the trigger) missing */
	bool in_file;			/* has, and the exit's CPU has pages from its start on */
	uint64_t threshold_ns, keep_ns;
	uint64_t after_ns;		/* --after, when the file says (has_after) */
	bool has_after;
	char reasons[1024];		/* --trigger-reason as given, or "" (cut when longer) */
	uint64_t at_ns;			/* the exit, from the recording's start */
	uint64_t lat_ns;
	uint32_t cpu;
	int32_t pid;
	bool kvm;			/* KVM's pair: its line says exit, else pair */
};

/* From r's metadata; damaged or missing keys leave has false. */
void vmt_trigger_read(struct vmt_reader *r, struct vmt_trigger *t);
void vmt_trigger_text(FILE *f, const struct vmt_trigger *t);
/* Why --around trigger has no time to go to (t->in_file false), into buf; returns buf. */
const char *vmt_trigger_missing(const struct vmt_trigger *t, char *buf, size_t size);
/*
 * A "flight" member (how it was armed: threshold_ns, keep_ns, after_ns, reasons, and
 * triggered: true, false, or null when unfinished) and a "trigger" member: null for a
 * flight recording that did not trigger, an object with "known": false for an unfinished
 * one (no END: whether it triggered is unknown); neither for other recordings.
 */
void vmt_trigger_json(struct vmt_jsonw *w, const struct vmt_trigger *t);

/*
 * Several recordings reported as one (report/merge.c): a line per flight recording, named
 * by its number in the report's list of recordings ("[2]"), and a "triggers" array of
 * {"file", "trigger"}; nothing when none is one.
 */
void vmt_trigger_text_files(FILE *f, const struct vmt_trigger *t, unsigned int n);
void vmt_trigger_json_files(struct vmt_jsonw *w, const struct vmt_trigger *t,
			       const char *const *files, unsigned int n);

#endif
