/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trigsel: which exits may trigger the flight recorder (vmtrace-record --trigger-reason
 * LIST): the reasons listed, or with "-NAME" items every reason but those. Names and
 * numbers resolve as vmtrace-report --reason resolves them (filteropt.h), against the
 * begin event's format on this kernel and, for KVM's pair, this host's vendor's names,
 * before anything is traced.
 */
#ifndef REC_TRIGSEL_H
#define REC_TRIGSEL_H

#include <argp.h>
#include <stdbool.h>

#include "kvmevent.h"

/* Longer lists are refused: every KVM reason's name fits, and the file keeps it whole. */
#define REC_TRIGSEL_MAX_LIST	1000

struct rec_trigsel;

/*
 * The option's value as given, or argp_error() (exit 64): empty, an empty item, a '-'
 * without a name, longer than REC_TRIGSEL_MAX_LIST.
 */
const char *rec_trigsel_check_list(struct argp_state *state, const char *arg);
/*
 * Resolve list for the begin event ("kvm:kvm_exit") under the tracefs mount root. *out is
 * NULL when list is NULL (every exit triggers). Returns 0, or the exit status after saying
 * why: 64 for a list that is wrong (a name or number, a list that leaves nothing to
 * trigger, a begin event without a reason), 1 when the format cannot be read.
 */
int rec_trigsel_resolve(struct rec_trigsel **out, const char *list, const char *root,
			const char *begin);
/* The same with the exits' ISA given (VMT_ISA_ANY: either vendor's names), for tests. */
int rec_trigsel_resolve_isa(struct rec_trigsel **out, const char *list, const char *root,
			    const char *begin, uint32_t isa);
/* Whether the exit that began with begin may trigger (a NULL selection: every one). */
bool rec_trigsel_keeps(const struct rec_trigsel *s, const struct vmt_event *begin);
void rec_trigsel_free(struct rec_trigsel *s);

#endif
