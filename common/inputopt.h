/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inputopt: how vmtrace-report and vmtrace-convert open their input, shared: the argp
 * child for the options of inputs that do not describe themselves (--format-dir for a
 * trace.bin, --pair for a trace.dat), the open sequence (open, then refuse the options
 * this file does not use), and what to say about the file once it has been read
 * (unfinished, damaged, events lost). Returns messages for the caller to print.
 */
#ifndef VMT_INPUTOPT_H
#define VMT_INPUTOPT_H

#include <argp.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "reader.h"
#include "source.h"

/* The argp child: set its input to a struct vmt_input_opts. */
extern const struct argp vmt_input_argp;

/*
 * vmt_input_open()'s answer when an input option does not apply to the file (--pair on a
 * .vmt, --format-dir on a trace.dat): a usage error, exit status 64 (source.h).
 */
#define VMT_INPUT_EUSAGE VMT_SOURCE_EOPTION

/*
 * Open path for reading. Returns 0, or -errno with msg saying what is wrong with the file,
 * or VMT_INPUT_EUSAGE (reader closed, *r NULL) with msg naming the option that does not
 * apply. warn is kept for callers and is always empty now.
 */
int vmt_input_open(const char *path, const struct vmt_input_opts *o, struct vmt_reader **r,
		   char *msg, size_t msg_size, char *warn, size_t warn_size);

#define VMT_INPUT_NOTE_SIZE 320

/*
 * Whether two inputs are one file, whatever names they are given by (paths, symlinks, hard
 * links, "-" for standard input): the same device and inode. 1 or 0; a file that cannot
 * be looked at is 0, left for opening it to report.
 */
int vmt_input_same_file(const char *a, const char *b);

/* The kinds of note (struct vmt_input_notes), with room for one more. */
#define VMT_INPUT_NOTES 12

/* What reading a file revealed, one line each, without the file name. */
struct vmt_input_notes {
	unsigned int n;
	/*
	 * copy, bytes after END, unfinished, first times, impossible values, copied chunks,
	 * 2nd META, damage, records of no event, time back, lost: each kind at most once
	 * (more are not kept)
	 */
	char note[VMT_INPUT_NOTES][VMT_INPUT_NOTE_SIZE];
	bool damaged;		/* unfinished, or damaged data skipped: exit status 2 */
};

/*
 * After reading r: whether it was unfinished, what damaged data was skipped and where the
 * first of it is (its file offset, and its CPU and time range when its chunk header says),
 * and how many events were lost (vmt_reader_lost(): counted, and an unknown number more
 * with damaged data or pages flagged without a count); without with_lost (the events were
 * not read), only that the damaged data's were. rd is the reader's
 * figures after a pass (vmt_reader_stats()), or what a program that copies chunks itself
 * counted; damage is where the first damage was (vmt_reader_damage()), or NULL. The
 * wording is vmtrace-report's.
 */
void vmt_input_notes(const struct vmt_reader *r, const struct vmt_reader_stats *rd,
		     const struct vmt_damage *damage, bool with_lost,
		     struct vmt_input_notes *out);
/* Whether those notes say the file was damaged or unfinished (exit status 2). */
bool vmt_input_damaged(const struct vmt_reader *r, const struct vmt_reader_stats *rd);

#endif
