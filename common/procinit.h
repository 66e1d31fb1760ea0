/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procinit: what each program sets up before anything else: SIGXFSZ is ignored, so that a
 * write past `ulimit -f` fails with EFBIG and is reported as a full disk is (its default
 * action kills without a word and leaves the temporary files). Process-wide state, set
 * once from main() before any thread starts.
 */
#ifndef VMT_PROCINIT_H
#define VMT_PROCINIT_H

void vmt_proc_init(void);

#endif
