/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * htmlwhy: the HTML report's section on causes (htmlreport.h): where each exit reason's
 * out-of-guest time went, as one stacked bar per reason in inline SVG (each cause a fill
 * and a label, readable without colour), and the culprits as a table. Every figure is
 * also in a data-* attribute for tests and scripts. Stateless; writes through an outbuf.
 */
#ifndef VMT_HTMLWHY_H
#define VMT_HTMLWHY_H

#include <stdbool.h>

#include "outbuf.h"
#include "summary.h"
#include "tclock.h"

/* The section's style rules, for the page's <style>. */
extern const char vmt_html_why_css[];

struct vmt_vmmap;

/*
 * <section id="causes">: the bars and the culprits when the pass attributed (s->why), else
 * a note saying the recording has no context events. kvm: in KVM's words (exits, vCPU
 * tasks), else in those of any other pair (pairs, ids, tasks). vms (or NULL): the VM map,
 * whose vCPU threads the culprits name "web1/vcpu0" as the vCPU tables do.
 */
void vmt_html_why(struct vmt_outbuf *o, const struct vmt_clock *clk, const struct vmt_summary *s,
		  bool kvm, const struct vmt_vmmap *vms);

#endif
