/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trigsel: which exits may trigger the flight recorder (vmtrace-record --trigger-reason
 * LIST): the reasons listed, or with "-NAME" items every reason but those. Names and
 * numbers resolve as vmtrace-report --reason resolves them (filteropt.h), against the
 * begin event's format on this kernel, before anything is traced.
 */
#ifndef REC_TRIGSEL_H
#define REC_TRIGSEL_H

#include <stdbool.h>

#include "kvmevent.h"

struct rec_trigsel;

/*
 * Resolve list for the begin event ("kvm:kvm_exit") under the tracefs mount root. *out is
 * NULL when list is NULL (every exit triggers). Returns 0, or the exit status after saying
 * why: 64 for a name or number that is wrong, 1 when the format cannot be read.
 */
int rec_trigsel_resolve(struct rec_trigsel **out, const char *list, const char *root,
			const char *begin);
/* Whether the exit that began with begin may trigger (a NULL selection: every one). */
bool rec_trigsel_keeps(const struct rec_trigsel *s, const struct vmt_event *begin);
void rec_trigsel_free(struct rec_trigsel *s);

#endif
