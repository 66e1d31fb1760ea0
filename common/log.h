/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log: the programs' messages on stderr, always as "program: message". Only programs call
 * it; common/ modules return errors instead. vmt_log_init() once at start; the quiet level
 * is a plain global read by every thread (set before threads start).
 */
#ifndef VMT_LOG_H
#define VMT_LOG_H

#include <stdarg.h>

void vmt_log_init(const char *progname);
const char *vmt_log_progname(void);
void vmt_log_set_quiet(int quiet);
int vmt_log_quiet(void);

/* An error: always printed. */
void vmt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A warning: always printed, prefixed "warning: ". */
void vmt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress and notes: suppressed by -q. */
void vmt_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
