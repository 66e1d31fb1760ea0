/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reportwhy: the report's sections about causes (issue "why was it long"), from a summary
 * made by an attributing pass: where each reason's out-of-guest time went, the culprits,
 * the worst windows broken down, and their JSON keys (man/vmtrace-report.1). When the
 * recording holds no context events they say so instead of showing zeros. Stateless.
 */
#ifndef VMT_REPORTWHY_H
#define VMT_REPORTWHY_H

#include <stdio.h>

#include "jsonw.h"
#include "reader.h"
#include "summary.h"

/* The "why" line under an exit of a list (indented), or nothing without a why. */
void vmt_report_why_line(FILE *f, const struct vmt_reader *r, const struct vmt_why *why,
			 uint64_t lat, bool wide);
/*
 * The text sections: per-reason kinds, culprits, worst windows; or the one-line note. shown:
 * the tasks the task tables list (shown[i] for s->tasks[i]), whose windows are broken down,
 * the rest counted; NULL for every task.
 */
void vmt_report_why_text(FILE *f, const struct vmt_reader *r, const struct vmt_summary *s,
			 const bool *shown);
/* Top-level JSON keys: context_events, why_recorded, why_note (when nothing is known). */
void vmt_report_why_json_header(struct vmt_jsonw *w, const struct vmt_reader *r,
				const struct vmt_summary *s);
/* An exit's "why" member in a JSON list: the object, or null without attribution. */
void vmt_report_why_json_exit(struct vmt_jsonw *w, const struct vmt_reader *r,
			      const struct vmt_summary *s, const struct vmt_why *why);
/* Summary JSON keys: why_by_reason and culprits. */
void vmt_report_why_json_summary(struct vmt_jsonw *w, const struct vmt_reader *r,
				 const struct vmt_summary *s);
/* A vcpus entry's worst_window_why member. */
void vmt_report_why_json_window(struct vmt_jsonw *w, const struct vmt_reader *r,
				const struct vmt_summary *s, const struct vmt_group *t);

#endif
