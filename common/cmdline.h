/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmdline: what the three programs' command lines share beyond their options: -h, -? and
 * --help, --usage and -V/--version as one argp child (in place of argp's own, which has no
 * -h), messages under the short program name however the program was run, and usage
 * errors as one message (past 120 columns folded as common/log.h folds one) plus a
 * one-line --help hint. Like every argp parser it prints and
 * exits on --help and on bad command lines; it keeps no state but the hint filter's line.
 */
#ifndef VMT_CMDLINE_H
#define VMT_CMDLINE_H

#include <argp.h>

/* The argp child with -h/-?/--help, --usage and -V/--version: every program lists it. */
extern const struct argp vmt_cmdline_argp;

/*
 * argp_parse() with argp's own help options replaced by vmt_cmdline_argp (which argp must
 * have among its children) and argv[0] cut to the program's name, so getopt's messages
 * name it as the others do. Exits 64 on a bad command line, 0 after --help.
 */
void vmt_cmdline_parse(const struct argp *argp, int argc, char **argv, void *input);

#endif
