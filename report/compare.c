// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtrace-report --compare BEFORE AFTER: one pass over each recording with the same filters
 * (common/compare.h), the test, the table or JSON "compare" (common/comparefmt.h), the
 * page with both distributions (common/htmlcompare.h), and --fail-if's verdicts: exit status
 * 1 when a condition holds, so that CI pipelines can gate on latency.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "causes.h"
#include "compare.h"
#include "comparefmt.h"
#include "gate.h"
#include "htmlcompare.h"
#include "inputopt.h"
#include "log.h"
#include "nomatch.h"
#include "outbuf.h"
#include "procinit.h"
#include "outfile.h"
#include "report_compare.h"

/* report_compare.h: the span a recording's rates are per. */
uint64_t report_selected_span(const struct vmt_filter *f, const struct vmt_reader *r,
			      const struct vmt_iter *it)
{
	uint64_t start;

	return vmt_compare_selected_ns(f, r, it, &start);
}

int report_open_failed(const char *file, const char *msg, int ret)
{
	if (ret == VMT_INPUT_EUSAGE && strstr(msg, "does not apply"))
		vmt_err("%s: %s (they go to every recording: convert the one that needs them "
			"first, vmtrace-convert --to-vmt)", file, msg);
	else
		vmt_err("%s: %s", file, msg);
	return ret == VMT_INPUT_EUSAGE ? 64 : 1;
}

int report_same_pair(const char *file, const struct vmt_reader *r, char *first, size_t size)
{
	char pair[256];

	/* the populations are compared and merged in ns: ticks of no length would pass for ns */
	if (!vmt_clock_in_ns(vmt_reader_clock(r))) {
		vmt_err("%s: several recordings need times in ns; clock %s counts ticks of no "
			"known length", file, vmt_reader_clock_name(r));
		return 64;
	}
	snprintf(pair, sizeof(pair), "%s -> %s", vmt_reader_begin_name(r), vmt_reader_end_name(r));
	if (!first[0])
		snprintf(first, size, "%s", pair);
	else if (strcmp(first, pair) != 0) {
		vmt_err("%s: records %s, not %s as the recording before: different pairs' "
			"latencies are not one population", file, pair, first);
		return 1;
	}
	return 0;
}

/* Open one side, resolve the filters against it, run its pass. Returns an exit status. */
static int run_side(struct report_opts *o, int side, struct vmt_compare *c, int *damaged,
		    struct report_gate *g, char *pair, size_t size)
{
	const char *file = side ? o->file2 : o->file;
	struct vmt_filter_opts fo = o->fo;	/* names resolve per recording */
	/* causes too, when the recordings hold context events (unless --no-causes) */
	struct vmt_iter_opts io = { .filter = &fo.filter, .attribute = report_wants_causes(o) };
	struct vmt_input_notes notes;
	struct vmt_reader_stats rd;
	struct vmt_reader *r = NULL;
	char msg[512], warn[256];
	struct vmt_consumer cons;
	struct vmt_iter it;
	unsigned int i;
	int ret;

	fo.filter.nreasons = 0;
	ret = vmt_input_open(file, &o->in, &r, msg, sizeof(msg), warn, sizeof(warn));
	if (ret)
		return report_open_failed(file, msg, ret);
	ret = report_same_pair(file, r, pair, size);
	if (ret)
		goto out_close;
	c->neutral = !vmt_reader_pairs_kvm(r);
	c->why_off |= report_causes_off(o, r);
	ret = vmt_filter_resolve(&fo, r, msg, sizeof(msg));
	if (ret) {
		vmt_err_folded("%s: %s", file, ret == -EINVAL ? msg : strerror(-ret));
		ret = ret == -EINVAL ? 64 : ret;	/* a filter the input does not fit */
		goto out_close;
	}
	report_gate_left_out(g, &fo, r);
	ret = vmt_compare_consumer(c, side, &cons);
	if (!ret)
		ret = vmt_iterate(r, &io, &cons, 1, &it);
	if (ret) {
		vmt_err("%s: %s", file, strerror(-ret));
		goto out_close;
	}
	c->span_ns[side] = report_selected_span(&fo.filter, r, &it);
	vmt_compare_lost(c, side, r, &fo.filter);
	c->events_span_ns[side] = report_selected_span(&fo.filter, NULL, &it);
	c->recorded[side] = vmt_reader_duration_ns(r) != 0;
	/* a side with nothing selected: its column is empty, said as the single report says it */
	if (it.pairing.pairs <= it.filtered_out) {
		if (!vmt_nomatch_explain(&it, msg, sizeof(msg)))
			snprintf(msg, sizeof(msg), "no %s pairs: no latency figures",
				 c->neutral ? "begin-end" : "exit-entry");
		vmt_warn_folded("%s: %s", file, msg);
	}
	vmt_iter_read_stats(&it, &rd);
	vmt_input_notes(r, &rd, vmt_reader_damage(r), true, &notes);
	for (i = 0; i < notes.n; i++)
		vmt_warn("%s: %s", file, notes.note[i]);
	*damaged |= notes.damaged;
out_close:
	vmt_reader_close(r);
	free(fo.filter.tids);		/* this recording's own (o->fo is never resolved) */
	free(fo.filter.vcpu_tids);
	return ret == 64 ? 64 : ret ? 1 : 0;
}

static int print_json(const struct vmt_compare *c, const struct vmt_compare_view *v)
{
	struct vmt_outbuf out;
	struct vmt_jsonw w;
	int ret;

	fflush(stdout);
	ret = vmt_outbuf_init(&out, STDOUT_FILENO);
	if (ret)
		return ret;
	vmt_jsonw_init(&w, &out);
	vmt_jsonw_object_open(&w, NULL);
	vmt_compare_json(&w, c, v);
	vmt_jsonw_object_close(&w);
	vmt_outbuf_ch(&out, '\n');
	return vmt_outbuf_finish(&out);
}

/*
 * Rates over the same kind of time on both sides: a .vmt's over its recorded duration, a
 * trace.bin's or trace.dat's (no duration recorded, nor an unfinished .vmt's) over its
 * events' span. Mixed, the .vmt
 * would read at half the rate of the same exits converted (the recorder's start and stop
 * lie seconds outside the events): then both are over their events' span, and it is said.
 */
static void same_kind_of_span(const struct report_opts *o, struct vmt_compare *c)
{
	int side, without;

	if (c->recorded[0] == c->recorded[1])
		return;
	without = c->recorded[0] ? 1 : 0;
	for (side = 0; side < 2; side++)
		c->span_ns[side] = c->events_span_ns[side];
	vmt_warn_folded("%s has no recorded duration (a trace.bin, a trace.dat, a .vmt made of one "
			"or an unfinished one): the rates of both are over their events' span",
			without ? o->file2 : o->file);
}

static int publish(const struct report_opts *o, const struct vmt_compare *c,
		   const struct vmt_compare_view *v)
{
	char note[VMT_OUTFILE_MSG_SIZE];
	int ret = 0;

	if (o->html) {
		vmt_outfile_unlink_on_signal();
		ret = vmt_html_compare_file(o->html, c, v->file, note, sizeof(note));
		if (!ret && note[0])
			vmt_warn_folded("%s: %s", o->html, note);
		if (ret && note[0]) {
			vmt_err("%s", note);	/* what could not be opened, and why */
			return 1;
		}
		if (ret) {
			vmt_err("%s: cannot write the HTML page: %s", o->html,
				ret == -EINVAL ? "that is one of the recordings" : strerror(-ret));
			return 1;
		}
		if (strcmp(o->html, "-") == 0)
			return 0;	/* the page is the output */
	}
	if (o->json)
		ret = print_json(c, v);
	else
		vmt_compare_text(stdout, c, v);
	if (fflush(stdout) != 0 && !ret)
		ret = -errno;
	if (ret) {
		vmt_err("standard output: %s", vmt_proc_std_strerror(STDOUT_FILENO, -ret));
		return 1;
	}
	return 0;
}

int report_compare(struct report_opts *o)
{
	struct vmt_compare_view v = { { o->file, o->file2 }, NULL, NULL, NULL, 0 };
	static struct report_gate g;	/* large: not on the stack */
	const char *dp[REPORT_GATE_MAX];
	struct vmt_compare c;
	int code = 1, damaged = 0, held = 0;
	char pair[256] = "";
	unsigned int i;

	if (vmt_compare_init(&c, o->window_ns)) {
		vmt_err("%s", strerror(ENOMEM));
		goto out;
	}
	memset(&g, 0, sizeof(g));
	if (o->fail_if && (code = report_gate_parse(&g, o->fail_if, true)) != 0)
		goto out;
	code = run_side(o, VMT_CMP_BEFORE, &c, &damaged, &g, pair, sizeof(pair));
	if (!code)
		code = run_side(o, VMT_CMP_AFTER, &c, &damaged, &g, pair, sizeof(pair));
	if (code)
		goto out;
	same_kind_of_span(o, &c);
	vmt_compare_test(&c);
	held = report_gate_check(&g, &c, o->fo.reasons);
	if (held < 0) {
		code = 64;
		goto out;
	}
	for (i = 0; i < g.n; i++)
		dp[i] = g.details[i];
	v.conds = g.conds;
	v.verdicts = g.verdicts;
	v.details = dp;
	v.nconds = g.n;
	code = publish(o, &c, &v);
	if (!code)
		report_gate_say(&g);
	/* figures of part of a file: 2 even when a condition holds, told apart from 1 */
	if (!code)
		code = damaged ? 2 : held ? 1 : 0;
out:
	vmt_compare_free(&c);
	vmt_filter_opts_free(&o->fo);
	return code;
}
