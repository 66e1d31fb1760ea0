/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * writers: vmtrace-convert's output formats, each from an open reader onto an fd: rows
 * (CSV, JSON lines), the original tool's trace.bin, .vmt, and the Perfetto timeline. Each prints its own
 * messages, naming the input or the output file as the problem lies (and a note when the
 * filters selected nothing), fills in what it met in the input, and returns 0 or -errno
 * (or EXIT_USAGE: an option the input does not fit, said).
 */
#ifndef VMT_CONVERT_WRITERS_H
#define VMT_CONVERT_WRITERS_H

#include "convertopt.h"
#include "reader.h"

/* Exit statuses: the report's (README), with 64 for the command line as argp has it. */
enum { EXIT_ERROR = 1, EXIT_DAMAGED = 2, EXIT_USAGE = 64 };

/* What a conversion met in its input, said after the output is published. */
struct convert_found {
	struct vmt_reader_stats rd;	/* damaged chunks and pages skipped, events lost */
	struct vmt_damage damage;	/* where the first damage was (why NULL: none) */
	bool decoded;			/* the events were read: their losses are known */
};

/* How messages name the output. */
static inline const char *convert_output_name(const struct convert_opts *o)
{
	return o->output && o->output[0] != '-' ? o->output : "standard output";
}

int convert_rows(const struct convert_opts *o, struct vmt_reader *r, int fd,
		 struct convert_found *found);
int convert_series(const struct convert_opts *o, struct vmt_reader *r, int fd,
		   struct convert_found *found);
int convert_legacy(const struct convert_opts *o, struct vmt_reader *r, int fd,
		   struct convert_found *found);
int convert_vmt(const struct convert_opts *o, struct vmt_reader *r, int fd,
		struct convert_found *found);
int convert_perfetto(const struct convert_opts *o, struct vmt_reader *r, int fd,
		     struct convert_found *found);

#endif
