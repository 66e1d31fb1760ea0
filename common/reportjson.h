/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reportjson: the report as one JSON object (its keys are listed in man/vmtrace-report.1
 * and stay stable), from a finished summary and the reader it came from, through jsonw.
 * Stateless.
 */
#ifndef VMT_REPORTJSON_H
#define VMT_REPORTJSON_H

#include "outbuf.h"
#include "reader.h"
#include "summary.h"

/* One JSON object and a newline. */
void vmt_report_json(struct vmt_outbuf *o, const struct vmt_reader *r,
		     const struct vmt_summary *s);

#endif
