/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * terminal: what vmtrace-report tells whoever watches it on a terminal, on standard
 * error, and never in the logs of scripts: the progress line, a hint on slow files.
 */
#ifndef VMT_REPORT_TERMINAL_H
#define VMT_REPORT_TERMINAL_H

#include <stdint.h>

#include "reader.h"

/* A vmt_iter_opts progress callback: one line, rewritten (arg: the file's name). */
void report_show_progress(uint64_t done, uint64_t total, void *arg);
/*
 * On a terminal: when r read chunks in windows (slower, common/reader.h) that are larger
 * than vmtrace-record writes for as many CPUs, that vmtrace-convert --to-vmt cuts them.
 */
void report_hint_windows(const struct vmt_reader *r, const char *file);

#endif
