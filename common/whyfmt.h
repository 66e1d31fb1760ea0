/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * whyfmt: where an exit's time went (attrib.h), rendered once for every view: the one-line
 * text ("3.647 ms = preempted 3.58 ms by kworker/1:2 (pid 51) + irq 12 us (virtio0-input)
 * + kvm 55 us"), the JSON object (man/vmtrace-report.1: kvm_ns ... nmi_ns, incomplete,
 * culprit, parts) and totals per kind. Stateless, thread-safe.
 */
#ifndef VMT_WHYFMT_H
#define VMT_WHYFMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "attrib.h"
#include "jsonw.h"
#include "tclock.h"

struct vmt_vmmap;

/*
 * The columns a mapped vCPU thread's name takes at most in a why line or its head
 * ("web1-with-a-lo~/vcpu0 (pid 100)", cut by vmt_fmt_fit), so that the line keeps room.
 */
#define VMT_WHY_LABEL_COLS 32

/*
 * The one line, without a newline: the named parts largest first, as many as fit in width
 * columns with the tail (0: all), the rest summed as "+ N more". vms (or NULL): the VM map
 * of the recording, whose vCPU threads are named "web1/vcpu0 (pid 100)" as the vCPU tables
 * name them.
 */
void vmt_why_text_vm(FILE *f, const struct vmt_clock *c, const struct vmt_why *w, uint64_t lat,
		     unsigned int width, const struct vmt_vmmap *vms);
void vmt_why_text(FILE *f, const struct vmt_clock *c, const struct vmt_why *w, uint64_t lat,
		  unsigned int width);
/*
 * The exit's before (attrib.h: handlers before its trace point, outside the parts) as text,
 * "+ 11.22 ms of host interrupts before the exit's trace point (not in its latency)", at most
 * 90 bytes; NULL when it has none. The text views print it on a line under the why line
 * (which has no room left in 120 columns), the HTML after it.
 */
const char *vmt_why_before_text(const struct vmt_clock *c, const struct vmt_why *w, char *buf,
				size_t size);
/* One part as text: "preempted 3.58 ms by kworker/1:2 (pid 51)"; vms as above. */
char *vmt_whypart_text_vm(const struct vmt_clock *c, const struct vmt_whypart *p,
			  const struct vmt_vmmap *vms, char *buf, size_t size);
char *vmt_whypart_text(const struct vmt_clock *c, const struct vmt_whypart *p, char *buf,
		       size_t size);
/*
 * The members kvm_ns ... nmi_ns (in ns) of the current object; kinds the recording cannot
 * tell (not in recorded, 1 << enum vmt_why_kind) are null, never a 0 that reads "no cause".
 */
void vmt_why_json_kinds(struct vmt_jsonw *jw, const struct vmt_clock *c, const uint64_t *ticks,
			uint32_t recorded);
/* The why object under name: the kinds, incomplete, culprit and (with parts) the parts. */
void vmt_why_json(struct vmt_jsonw *jw, const char *name, const struct vmt_clock *c,
		  const struct vmt_why *w, uint32_t recorded, bool with_parts);

#endif
