/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * causes: what vmtrace-report does about the causes of exits (common/attrib.h) once the
 * options and the recording are known: whether the pass works them out, whether the views
 * must say they were left out, and --why on a recording that cannot tell them.
 */
#ifndef VMT_REPORT_CAUSES_H
#define VMT_REPORT_CAUSES_H

#include <stdbool.h>

#include "reader.h"
#include "reportopt.h"

/*
 * Whether the pass works out each exit's causes: not with --no-causes, nor for the views
 * that never show them (--legacy, --openmetrics, a cyclictest histogram without a page),
 * which then run as fast as on a recording without context events (in time slices).
 * Without them the pass still decodes the context events, which name the tasks.
 */
bool report_wants_causes(const struct report_opts *o);
/*
 * Whether r holds the context events that would tell causes o leaves out (--no-causes):
 * the views then say the causes were not worked out, not that there are none.
 */
bool report_causes_off(const struct report_opts *o, const struct vmt_reader *r);
/*
 * --why on a recording without context events: an option the file has no use for, said
 * in one line naming it. Returns 0, or the exit status 64.
 */
int report_check_why(const struct report_opts *o, const struct vmt_reader *r);

#endif
