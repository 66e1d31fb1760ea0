// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "textwidth.h"
#include "timefmt.h"
#include "vmfind.h"
#include "whyfmt.h"

static const char *const json_keys[VMT_WHY_NKINDS] = {
	"kvm_ns", "userspace_ns", "preempted_ns", "blocked_ns", "wakeup_ns", "irq_ns",
	"softirq_ns", "nmi_ns",
};

char *vmt_whypart_text_vm(const struct vmt_clock *c, const struct vmt_whypart *p,
			  const struct vmt_vmmap *vms, char *buf, size_t size)
{
	const char *kind = p->kind < VMT_WHY_NKINDS ? vmt_why_kind_names[p->kind] : "?";
	char t[32], who[256] = "", whole[320], label[160];

	vmt_fmt_lat(c, p->ticks, t, sizeof(t));
	/* preempted by the task that ran; blocked until woken by; a wake-up's wait behind */
	if (p->pid >= 0) {
		const char *how = p->kind == VMT_WHY_PREEMPTED ? "by" :
				  p->kind == VMT_WHY_WAKEUP ? "behind" : "woken by";

		/* a vCPU thread of a VM the recording maps: named as the vCPU tables name it */
		if (vms && p->pid > 0 && vmt_vmmap_label(vms, p->pid, whole, sizeof(whole)))
			snprintf(who, sizeof(who), " %s %s", how,
				 vmt_fmt_fit(whole, VMT_WHY_LABEL_COLS, label, sizeof(label)));
		else
			snprintf(who, sizeof(who), " %s %s (pid %" PRId32 ")", how,
				 p->name[0] ? p->name : "?", p->pid);
	} else if (p->name[0]) {
		snprintf(who, sizeof(who), p->kind == VMT_WHY_BLOCKED ? " woken by %s" : " (%s)",
			 p->name);
	}
	snprintf(buf, size, "%s %s%s", kind, t, who);
	return buf;
}

char *vmt_whypart_text(const struct vmt_clock *c, const struct vmt_whypart *p, char *buf,
		       size_t size)
{
	return vmt_whypart_text_vm(c, p, NULL, buf, size);
}

static int by_ticks_desc(const void *a, const void *b)
{
	const struct vmt_whypart *x = *(const struct vmt_whypart *const *)a;
	const struct vmt_whypart *y = *(const struct vmt_whypart *const *)b;

	if (x->ticks != y->ticks)
		return x->ticks < y->ticks ? 1 : -1;
	return x->kind - y->kind;
}

/* The columns of " + N more TIME", the tail that sums the parts not shown. */
static size_t tail_cols(const struct vmt_clock *c, unsigned int more, uint64_t ticks)
{
	char t[32], tail[64];

	if (!more)
		return 0;
	return (size_t)snprintf(tail, sizeof(tail), " + %u more %s", more,
				vmt_fmt_lat(c, ticks, t, sizeof(t)));
}

void vmt_why_text_vm(FILE *f, const struct vmt_clock *c, const struct vmt_why *w, uint64_t lat,
		     unsigned int width, const struct vmt_vmmap *vms)
{
	const struct vmt_whypart *order[VMT_WHY_MAXPARTS];
	unsigned int i, n = w->nparts < VMT_WHY_MAXPARTS ? w->nparts : VMT_WHY_MAXPARTS, shown;
	/* within a width, the short note: the man page and the JSON say what it means */
	const char *incomplete = width ? " (incomplete)" :
				 " (incomplete: unknown time counted as kvm)";
	uint64_t rest = 0, after[VMT_WHY_MAXPARTS + 1];
	char line[1024], part[320], t[32];
	size_t len, budget, used;

	for (i = 0; i < n; i++)
		order[i] = &w->parts[i];
	qsort(order, n, sizeof(order[0]), by_ticks_desc);
	/* after[i]: the time of the parts from i on, which a tail would sum */
	after[n] = 0;
	for (i = n; i > 0; i--)
		after[i - 1] = after[i] + order[i - 1]->ticks;
	len = (size_t)snprintf(line, sizeof(line), "%s =", vmt_fmt_lat(c, lat, t, sizeof(t)));
	used = len;	/* columns: a task's UTF-8 name has fewer than its bytes (textwidth.h) */
	/* room for the parts and the tail "+ N more ...", keeping the incomplete note's */
	budget = width ? width : sizeof(line) - 1;
	if (budget > sizeof(line) - 1)
		budget = sizeof(line) - 1;
	if (w->incomplete)
		budget = budget > strlen(incomplete) + 20 ? budget - strlen(incomplete) : 20;

	for (i = 0, shown = 0; i < n; i++) {
		size_t plen;

		vmt_whypart_text_vm(c, order[i], vms, part, sizeof(part));
		plen = vmt_textwidth(part) + (shown ? 3 : 1);
		/*
		 * The first part always; the next ones, in order, while they fit with the tail
		 * of the parts after them (exactly as it will read)
		 */
		if (shown && (rest || used + plen + tail_cols(c, n - i - 1, after[i + 1]) > budget ||
			      len + strlen(part) + 3 >= sizeof(line))) {
			rest += order[i]->ticks;
			continue;
		}
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s %s", shown ? " +" : "",
					part);
		used += plen;
		shown++;
	}
	fputs(line, f);
	if (rest)
		fprintf(f, " + %u more %s", n - shown, vmt_fmt_lat(c, rest, t, sizeof(t)));
	if (w->incomplete)
		fputs(incomplete, f);
}

const char *vmt_why_before_text(const struct vmt_clock *c, const struct vmt_why *w, char *buf,
				size_t size)
{
	char t[32];

	if (!w->before)
		return NULL;
	snprintf(buf, size, "+ %s of host interrupts before the exit's trace point (not in its "
		 "latency)", vmt_fmt_lat(c, w->before, t, sizeof(t)));
	return buf;
}

void vmt_why_text(FILE *f, const struct vmt_clock *c, const struct vmt_why *w, uint64_t lat,
		  unsigned int width)
{
	vmt_why_text_vm(f, c, w, lat, width, NULL);
}

void vmt_why_json_kinds(struct vmt_jsonw *jw, const struct vmt_clock *c, const uint64_t *ticks,
			uint32_t recorded)
{
	unsigned int k;

	for (k = 0; k < VMT_WHY_NKINDS; k++)
		vmt_jsonw_opt_u64(jw, json_keys[k], recorded & 1u << k, vmt_clock_ns(c, ticks[k]));
}

static void json_part(struct vmt_jsonw *jw, const char *name, const struct vmt_clock *c,
		      const struct vmt_whypart *p)
{
	vmt_jsonw_object_open(jw, name);
	vmt_jsonw_str(jw, "kind", p->kind < VMT_WHY_NKINDS ? vmt_why_kind_names[p->kind] : "?");
	vmt_jsonw_str(jw, "name", p->name);
	if (p->pid >= 0)
		vmt_jsonw_i64(jw, "pid", p->pid);
	else
		vmt_jsonw_null(jw, "pid");
	vmt_jsonw_u64(jw, "ns", vmt_clock_ns(c, p->ticks));
	vmt_jsonw_object_close(jw);
}

void vmt_why_json(struct vmt_jsonw *jw, const char *name, const struct vmt_clock *c,
		  const struct vmt_why *w, uint32_t recorded, bool with_parts)
{
	const struct vmt_whypart *culprit = vmt_why_culprit(w);
	unsigned int i;

	vmt_jsonw_object_open(jw, name);
	vmt_why_json_kinds(jw, c, w->ticks, recorded);
	vmt_jsonw_bool(jw, "incomplete", w->incomplete);
	if (with_parts) {
		if (culprit)
			json_part(jw, "culprit", c, culprit);
		else
			vmt_jsonw_null(jw, "culprit");
		vmt_jsonw_array_open(jw, "parts");
		for (i = 0; i < w->nparts && i < VMT_WHY_MAXPARTS; i++)
			json_part(jw, NULL, c, &w->parts[i]);
		vmt_jsonw_array_close(jw);
		/* an exit's own figure, outside the kinds (a window has none) */
		vmt_jsonw_opt_u64(jw, "before_exit_ns", recorded & VMT_WHY_REC_BEFORE,
				  vmt_clock_ns(c, w->before));
	}
	vmt_jsonw_object_close(jw);
}
