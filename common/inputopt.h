/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inputopt: how vmtrace-report and vmtrace-convert open their input, shared: the argp
 * child for the options of inputs that do not describe themselves (--format-dir for a
 * trace.bin, --pair for a trace.dat) and the open sequence (open, then say which given
 * options this file does not use). Returns messages for the caller to print.
 */
#ifndef VMT_INPUTOPT_H
#define VMT_INPUTOPT_H

#include <argp.h>
#include <stddef.h>

#include "reader.h"
#include "source.h"

/* The argp child: set its input to a struct vmt_input_opts. */
extern const struct argp vmt_input_argp;

/*
 * Open path for reading. Returns 0 (and in warn, when not empty, a note about options the
 * file does not use), or -errno with msg saying what is wrong with the file.
 */
int vmt_input_open(const char *path, const struct vmt_input_opts *o, struct vmt_reader **r,
		   char *msg, size_t msg_size, char *warn, size_t warn_size);

#endif
