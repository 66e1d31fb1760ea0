/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * writers: vmtrace-convert's output formats, each from an open reader onto an fd: rows
 * (CSV, JSON lines), the original tool's trace.bin, and .vmt. Each prints its own
 * messages, naming the input or the output file as the problem lies, and returns 0 or
 * -errno.
 */
#ifndef VMT_CONVERT_WRITERS_H
#define VMT_CONVERT_WRITERS_H

#include "convertopt.h"
#include "reader.h"

/* How messages name the output. */
static inline const char *convert_output_name(const struct convert_opts *o)
{
	return o->output && o->output[0] != '-' ? o->output : "standard output";
}

int convert_rows(const struct convert_opts *o, struct vmt_reader *r, int fd);
int convert_series(const struct convert_opts *o, struct vmt_reader *r, int fd);
int convert_legacy(const struct convert_opts *o, struct vmt_reader *r, int fd);
int convert_vmt(const struct convert_opts *o, struct vmt_reader *r, int fd);

#endif
