/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * readback: the recording just published, read back through the report's own pass and
 * printed as its summary block on stdout (what vmtrace-report would say first). Main
 * thread, after the file is complete; errors are printed here.
 */
#ifndef REC_READBACK_H
#define REC_READBACK_H

void rec_readback_summary(const char *path);

#endif
