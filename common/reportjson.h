/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reportjson: the report as one JSON object (its keys are listed in man/vmtrace-report.1
 * and stay stable), from a finished summary and the reader it came from, through jsonw.
 * Stateless.
 */
#ifndef VMT_REPORTJSON_H
#define VMT_REPORTJSON_H

#include "jsonw.h"
#include "outbuf.h"
#include "reader.h"
#include "summary.h"

/* One JSON object and a newline. */
void vmt_report_json(struct vmt_outbuf *o, const struct vmt_reader *r,
		     const struct vmt_summary *s);
/* The same in two halves, for members of the caller's between them (lists, series). */
void vmt_report_json_begin(struct vmt_jsonw *w, struct vmt_outbuf *o,
			   const struct vmt_reader *r, const struct vmt_summary *s);
void vmt_report_json_end(struct vmt_jsonw *w);
/* The members of one exit in a JSON list (time_ns, ts, cpu, pid, latency_ns, vm, ..., why). */
void vmt_report_json_exit(struct vmt_jsonw *w, const struct vmt_reader *r,
			  const struct vmt_summary *s, const struct vmt_event *e, uint64_t lat,
			  const struct vmt_why *why);

#endif
