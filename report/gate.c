// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gate.h"
#include "log.h"
#include "report_compare.h"

int report_gate_parse(struct report_gate *g, const char *expr, bool compare)
{
	char msg[256];
	unsigned int i;
	int n;

	memset(g, 0, sizeof(*g));
	n = vmt_compare_parse_conds(expr, g->conds, REPORT_GATE_MAX, !compare, msg, sizeof(msg));
	if (n < 0) {
		vmt_err("--fail-if: %s", msg);
		return 64;
	}
	g->n = (unsigned int)n;
	g->single = !compare;
	for (i = 0; compare && i < g->n; i++) {
		/* the passes of --compare and of a merge take no open exits (compare.c) */
		if (g->conds[i].metric == VMT_CMP_OPEN) {
			vmt_err("--fail-if '%s': exits open at the stop are tested in one "
				"recording's report, not with --compare", g->conds[i].text);
			return 64;
		}
	}
	/* one recording has no before to change from, nor a second sample to test against */
	for (i = 0; !compare && i < g->n; i++) {
		const struct vmt_cmp_cond *cd = &g->conds[i];

		if (cd->relative) {
			vmt_err("--fail-if '%s': a change needs --compare BEFORE AFTER; one recording "
				"takes a time, a count or a rate ('p99>50us')", cd->text);
			return 64;
		}
		if (cd->metric == VMT_CMP_KS_P || cd->metric == VMT_CMP_KS_D) {
			vmt_err("--fail-if '%s': the test compares two recordings (--compare BEFORE "
				"AFTER)", cd->text);
			return 64;
		}
	}
	return 0;
}

/*
 * A condition on a reason the --reason filter leaves out finds no exits of it in any
 * recording: said as the filter's doing, not as the recordings' (names resolve per
 * recording, so each is asked).
 */
void report_gate_left_out(struct report_gate *g, const struct vmt_filter_opts *fo,
			  const struct vmt_reader *r)
{
	unsigned int i;

	g->filters = vmt_filter_opts_given(fo);
	for (i = 0; i < g->n; i++) {
		const char *reason = g->conds[i].reason;
		char msg[256];
		int known;

		if (!reason[0] || !strcasecmp(reason, "all")) {
			g->known[i] = true;
			continue;
		}
		/* one of the table's reasons (the typo guard), as --reason would resolve it */
		known = vmt_reason_known(r, reason, msg, sizeof(msg));
		if (known > 0) {
			g->known[i] = true;
		} else if (!g->known[i]) {
			g->refused[i] = known < 0;
			snprintf(g->unknown[i], sizeof(g->unknown[i]), "%s: %s", vmt_reader_path(r),
				 msg);
		}
		if (vmt_filter_keeps_reason(fo, r, reason) == 0)
			g->left_out[i] = true;
	}
}

/* A known reason without exits: " in the recording", " in the exits --from keeps", ... */
static void check_none(struct report_gate *g, const struct vmt_compare *c, unsigned int i)
{
	char reason[sizeof(g->conds[i].reason)], where[96], detail[sizeof(g->details[i])];
	int n;

	if (g->filters)
		snprintf(where, sizeof(where), "in %s exits %s keeps",
			 g->single ? "the" : "either recording's", g->filters);
	else
		snprintf(where, sizeof(where), "in %s", g->single ? "the recording" :
			 "either recording");
	memcpy(reason, g->conds[i].reason, sizeof(reason));
	g->verdicts[i] = vmt_compare_check_none(c, &g->conds[i], detail, sizeof(detail));
	n = snprintf(g->details[i], sizeof(g->details[i]), "%s (no %s '%s' %s)", detail,
		     c->neutral ? "pairs of id" : "exits of reason", reason, where);
	if (n < 0 || (size_t)n >= sizeof(g->details[i]))
		memcpy(g->details[i] + sizeof(g->details[i]) - 4, "...", 4);	/* cut, said */
	g->none[i] = true;
}

int report_gate_check(struct report_gate *g, const struct vmt_compare *c, const char *reasons)
{
	unsigned int i;
	int held = 0;

	for (i = 0; i < g->n; i++) {
		g->verdicts[i] = vmt_compare_check(c, &g->conds[i], g->details[i],
						   sizeof(g->details[i]));
		if (g->verdicts[i] < 0 && g->left_out[i]) {
			vmt_err("--fail-if %s: the --reason filter (%s) leaves exits of reason '%s' "
				"out", g->conds[i].text, reasons, g->conds[i].reason);
			return -1;
		} else if (g->verdicts[i] < 0 && !g->known[i]) {
			/* misspelt, or the other vendor's name: it must not pass a gate */
			vmt_err_folded("--fail-if %s: %s", g->conds[i].text, g->unknown[i]);
			return -1;
		} else if (g->verdicts[i] < 0) {
			check_none(g, c, i);
		}
		held += g->verdicts[i] != 0;	/* 2, cannot tell: a gate fails closed */
	}
	return held;
}

void report_gate_say(const struct report_gate *g)
{
	unsigned int i;

	for (i = 0; i < g->n; i++) {
		if (g->verdicts[i] == 1)
			vmt_warn("--fail-if holds: %s", g->details[i]);
		else if (g->verdicts[i] == 0 && g->none[i])	/* not a figure of the table's */
			vmt_info_folded("--fail-if does not hold: %s", g->details[i]);
		else if (g->verdicts[i] == 2)
			vmt_warn_folded("--fail-if cannot tell, counted as holding: %s",
					g->details[i]);
	}
}

int report_gate_one(struct report_gate *g, const struct vmt_filter_opts *fo,
		    const struct vmt_reader *r, uint64_t window_ns, struct vmt_consumer *out)
{
	unsigned int i;
	int ret;

	/* what --reason refuses is refused before the pass (an unnamed number may have exits) */
	report_gate_left_out(g, fo, r);
	for (i = 0; i < g->n; i++) {
		if (!g->known[i] && g->refused[i]) {
			vmt_err_folded("--fail-if %s: %s", g->conds[i].text, g->unknown[i]);
			return -ENOENT;
		}
	}
	ret = vmt_compare_init(&g->one, window_ns);
	if (ret)
		return ret;
	g->one_set = true;
	g->one.neutral = !vmt_reader_pairs_kvm(r);
	g->one.open = true;	/* the figure open: a vCPU stuck at the stop */
	return vmt_compare_consumer(&g->one, VMT_CMP_AFTER, out);
}

int report_gate_one_check(struct report_gate *g, const struct vmt_filter_opts *fo,
			  const struct vmt_reader *r, const struct vmt_iter *it)
{
	int held;

	g->one.span_ns[VMT_CMP_AFTER] = report_selected_span(&fo->filter, r, it);
	vmt_compare_lost(&g->one, VMT_CMP_AFTER, r, &fo->filter);
	vmt_compare_test(&g->one);
	held = report_gate_check(g, &g->one, fo->reasons);
	if (held >= 0)
		report_gate_say(g);
	return held;
}

void report_gate_free(struct report_gate *g)
{
	if (g->one_set)
		vmt_compare_free(&g->one);
	g->one_set = false;
}
