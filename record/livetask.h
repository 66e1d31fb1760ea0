/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * livetask: the vCPU tasks of one --live interval (livefmt.h's frame) beyond the summary:
 * the exit a task is still in at the interval's end (a marker under its table row, keys
 * on the key=value line) and, without a terminal, one key=value line per task. Stateless;
 * called on the collector thread by livefmt.
 */
#ifndef REC_LIVETASK_H
#define REC_LIVETASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "livefmt.h"

/*
 * The line under t's table row, when t is in an exit at the interval's end (since when, why),
 * into out; false when t is not.
 */
bool rec_livetask_marker(const struct rec_live_frame *fr, const struct rec_live_task *t,
			 char *out, size_t size);
/* The interval line's keys of the open exits (appended before its end). */
void rec_livetask_keys(const struct rec_live_frame *fr);
/* After the interval line: a line per task with exits or in an exit, most time first. */
void rec_livetask_lines(const struct rec_live_frame *fr);

#endif
