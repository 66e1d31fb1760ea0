/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procinit: what each program sets up before anything else. Descriptors 0-2 are held
 * open (a closed one on /dev/null, opened the other way round so that using it fails), so
 * that no file opened later takes their number and gets the report written into it; and
 * SIGXFSZ is ignored, so that a write past `ulimit -f` fails with EFBIG and is reported as
 * a full disk is. Process-wide state, set once from main() before any thread starts.
 */
#ifndef VMT_PROCINIT_H
#define VMT_PROCINIT_H

#include <stdbool.h>

void vmt_proc_init(void);

/* Whether standard descriptor fd (0, 1 or 2) was closed when the program started. */
bool vmt_proc_std_closed(int fd);

/* What an error err (a positive errno) on standard descriptor fd means: "it is closed" when
 * it was, else strerror(err). */
const char *vmt_proc_std_strerror(int fd, int err);

#endif
