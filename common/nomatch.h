/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nomatch: why a filter selected nothing, in one line for people: which of the criteria
 * given no exit met (CPUs, vCPUs, the time range, the reasons) and what the recording has
 * to select from (the CPUs and vCPUs with exits, the exits' time span), from the totals
 * the pass keeps before filtering (iterate.h). Stateless; the caller prints the line.
 */
#ifndef VMT_NOMATCH_H
#define VMT_NOMATCH_H

#include <stddef.h>

#include "iterate.h"

/*
 * After a pass (it) that selected nothing: the explanation into buf ("no exit on CPU 5000;
 * the recording has exits on CPUs 0-1, of vCPUs 0-1, from 0.000003627 s to 0.144372000 s").
 * Returns 1 when there is something to say: it ran with a filter, or the recording has no
 * exits at all; 0 (buf empty) otherwise.
 */
int vmt_nomatch_explain(const struct vmt_iter *it, char *buf, size_t size);
/*
 * After a pass with a filter that kept no pair but kept exits open at the stop (kept of
 * them): that it did, into buf ("no exit-entry pair meets all the filters, but 1 exit open
 * at the stop does ..."). Returns 1 then, else 0 (buf empty).
 */
int vmt_nomatch_open_only(const struct vmt_iter *it, size_t kept, char *buf, size_t size);

/*
 * After a pass over recording r without one begin event: the likely causes into buf (the
 * file cut before its first complete chunk, or which event never came on which CPUs).
 * Returns 1 then, else 0 (and for a flight recording that nothing triggered: it kept no
 * pages by design).
 */
int vmt_nomatch_no_exits(const struct vmt_iter *it, const struct vmt_reader *r, char *buf,
			 size_t size);

/*
 * A file that names other events than its pair's (a trace.dat) and has no begin event: what
 * it holds instead, and how to pick a pair of those, into buf ("not one kvm:kvm_exit event
 * in the file (...): it holds records of ...: choose the pair with --pair BEGIN,END").
 * Returns 1 then; 0 for other files (their formats name no other events). The caller knows
 * that the begin event is not there (a pass, or a census of every chunk).
 */
int vmt_nomatch_held_instead(const struct vmt_reader *r, char *buf, size_t size);

#endif
