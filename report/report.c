// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtrace-report: read a recording in one streaming pass and print the exit-entry latency
 * report: summary, percentiles, per-reason, per-pCPU and per-vCPU tables, where the time
 * went, the longest exits, exits over a threshold, events around a time, histograms; as
 * text, JSON or OpenMetrics, or the original vm-trace's four lines. Thin: options
 * (reportopt.c), then the pass with its consumers (common/iterate.h, lists.c), then the
 * renderers (common/reportfmt.h, common/reportjson.h, common/openmetrics.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "causes.h"
#include "cpus.h"
#include "evdump.h"
#include "gate.h"
#include "inputopt.h"
#include "iterate.h"
#include "lists.h"
#include "log.h"
#include "nomatch.h"
#include "procinit.h"
#include "reportfiles.h"
#include "reportfmt.h"
#include "reportjson.h"
#include "report_compare.h"
#include "reportopt.h"
#include "seriesfmt.h"
#include "slicepass.h"
#include "summary.h"
#include "terminal.h"
#include "timefmt.h"
#include "trigger.h"

struct report {
	struct report_opts *o;
	struct vmt_report_style style;
	struct vmt_reader *r;
	struct vmt_summary s;
	struct vmt_evdump dump;		/* -v */
	struct report_list thr, near;	/* --threshold, --around */
	struct vmt_series series;	/* --interval and --html */
	struct vmt_consumer c[6];
	unsigned int nc;
	struct vmt_iter it;
	struct vmt_trigger trig;	/* a flight recording's exit */
	uint64_t around_ns;		/* --around's centre */
	struct report_gate *gate;	/* --fail-if, or NULL */
};

/* 0, or the exit status: 64 for an option the file has no use for, as the merge's. */
static int open_input(struct report *rep)
{
	char msg[512], warn[256];
	int ret;

	ret = vmt_input_open(rep->o->file, &rep->o->in, &rep->r, msg, sizeof(msg), warn,
			     sizeof(warn));
	if (ret) {
		vmt_err("%s: %s", rep->o->file, msg);
		return ret == VMT_INPUT_EUSAGE ? 64 : 1;
	}
	if (warn[0])
		vmt_warn("%s: %s", rep->o->file, warn);
	ret = vmt_filter_resolve(&rep->o->fo, rep->r, msg, sizeof(msg));
	if (ret) {
		vmt_err_folded("%s: %s", rep->o->file, ret == -EINVAL ? msg : strerror(-ret));
		return ret == -EINVAL ? 64 : 1;	/* a filter the input does not fit */
	}
	/* seconds by their formats: ticks of no known length would be passed off as ns */
	if (!vmt_clock_in_ns(vmt_reader_clock(rep->r)) &&
	    (rep->o->openmetrics || rep->o->html || rep->o->interval_ns || rep->o->legacy)) {
		vmt_err("%s: --%s needs times in ns; clock %s counts ticks of no known length",
			rep->o->file, rep->o->openmetrics ? "openmetrics" : rep->o->html ? "html" :
			rep->o->legacy ? "legacy" : "interval", vmt_reader_clock_name(rep->r));
		return 64;
	}
	return report_check_why(rep->o, rep->r);
}

/* --interval, --html: the time series (common/series.h), with a heatmap for the page. */
static int add_series(struct report *rep)
{
	/* fit: past the bound, the tasks counted: the page's interval grows, the user's is refused */
	struct vmt_series_opts so = { rep->o->interval_ns, rep->o->window_ns,
				       rep->o->html != NULL, true };

	char msg[256];

	if (!so.interval_ns && !so.heatmap)
		return 0;
	so.interval_ns = vmt_series_fit_interval(rep->r, so.interval_ns, "--interval", msg,
						 sizeof(msg));
	if (!so.interval_ns) {
		vmt_err_folded("%s: %s", rep->o->file, msg);
		return -E2BIG;
	}
	return vmt_series_consumer(&rep->series, &so, &rep->c[rep->nc++]);
}

/* The consumers the options ask for, the summary always: 0, or the exit status (said). */
static int set_up_views(struct report *rep)
{
	const struct report_opts *o = rep->o;
	struct vmt_summary_opts so = { 0 };
	char msg[96];
	int ret;

	so.window_ns = o->window_ns;
	so.top_n = o->legacy || o->hist_cyclictest ? 0 : o->top;
	so.histogram = o->histogram;
	so.hist_bucket_ns = o->bucket_ns ? o->bucket_ns : 1000;
	so.hist_buckets = o->buckets ? o->buckets : (o->hist_log ? 40 : 100);
	so.hist_log = o->hist_log;
	so.vmmap = o->openmetrics ? vmt_reader_vmmap(rep->r) : NULL;	/* per VM and reason */
	vmt_trigger_read(rep->r, &rep->trig);
	rep->around_ns = o->around_trigger ? rep->trig.at_ns : o->around_ns;
	if (o->around_trigger && !rep->trig.in_file) {
		vmt_err("%s: --around trigger: %s", o->file,
			vmt_trigger_missing(&rep->trig, msg, sizeof(msg)));
		return rep->trig.flight ? 1 : 64;	/* no flight recording: no use for it */
	}
	ret = vmt_summary_consumer(&rep->s, &so, &rep->c[rep->nc++]);
	if (!ret && o->threshold_ns && list_threshold(&rep->thr, o->json, o->threshold_ns, rep->r,
						       &rep->s, &rep->style, &rep->c[rep->nc++]))
		return 1;	/* said */
	if (!ret && o->verbose) {
		struct vmt_evdump_opts d = { .out = stdout, .why = o->why != 0,
					     .wide = o->wide != 0 };

		ret = vmt_evdump_consumer(&rep->dump, &d, &rep->c[rep->nc++]);
	} else if (!ret && o->around &&
		   list_around(&rep->near, o->json, rep->around_ns > o->around_span_ns ?
			       rep->around_ns - o->around_span_ns : 0,
			       rep->around_ns + o->around_span_ns, o->why != 0, o->wide != 0,
			       &rep->c[rep->nc++])) {
		return 1;
	}
	if (!ret)
		ret = add_series(rep);
	if (!ret && rep->gate)	/* one pass: the gate's figures are the report's exits */
		ret = report_gate_one(rep->gate, &o->fo, rep->r, o->window_ns, &rep->c[rep->nc++]);
	/* said already: -E2BIG, which interval fits; -ENOENT, a --fail-if reason the file lacks */
	if (ret && ret != -E2BIG && ret != -ENOENT)
		vmt_err("cannot set up the report: %s", strerror(-ret));
	return ret == -E2BIG || ret == -ENOENT ? 64 : ret ? 1 : 0;
}

/*
 * The summary alone analysed in time slices on several threads (common/slicepass.h): 1
 * when done, 0 when the views or the recording need the one pass. VMTRACE_TEST_SLICES=N
 * asks for N slices and says on standard error how many there were (for the tests).
 */
static int run_slices(struct report *rep, const struct vmt_iter_opts *io)
{
	struct vmt_slicepass_opts po = { rep->o->jobs ? rep->o->jobs : vmt_cpus_usable(), 0 };
	const char *slices = getenv("VMTRACE_TEST_SLICES");
	int ret;

	if (rep->nc != 1)
		return 0;
	if (slices)
		po.slices = (unsigned int)strtoul(slices, NULL, 10);
	ret = vmt_slicepass_summary(rep->r, io, &po, &rep->s, &rep->it);
	if (slices && ret >= 0)
		fprintf(stderr, "vmtrace-report: %d time slices\n", ret);
	return ret > 0 ? 1 : ret;
}

static int run_pass(struct report *rep)
{
	struct vmt_iter_opts io = { .filter = &rep->o->fo.filter,
				    .attribute = report_wants_causes(rep->o), .context = true };
	const struct vmt_source *src = vmt_reader_source(rep->r);
	char msg[256] = "";
	int ret;

	/* Large files only, and only when someone watches stderr. */
	if (isatty(STDERR_FILENO) && vmt_source_status(src)->file_size > (32u << 20)) {
		io.progress = report_show_progress;
		io.progress_arg = (void *)rep->o->file;
	}
	ret = run_slices(rep, &io);
	if (ret == 0)
		ret = vmt_iterate(rep->r, &io, rep->c, rep->nc, &rep->it);
	else if (ret == 1)
		ret = 0;
	/* the user's interval is refused, the page's own grows until its rows fit */
	if (!ret && rep->o->interval_ns &&
	    vmt_series_too_many(&rep->series, "--interval", msg, sizeof(msg)))
		ret = -E2BIG;
	ret = ret ? ret : vmt_series_refit(&rep->series, rep->r, io.filter);
	/* -v's lines so far, also when the pass stopped early (its end writes them too) */
	vmt_evdump_flush(&rep->dump);
	if (io.progress)
		fprintf(stderr, "\r\033[K");
	report_hint_windows(rep->r, rep->o->file);
	if (ret == -E2BIG && msg[0])
		vmt_err_folded("%s: %s", rep->o->file, msg);
	else if (ret == -E2BIG)
		vmt_err("%s: more than %u rows in the time series at any interval the page could "
			"take (a row per interval and vCPU task)", rep->o->file, VMT_SERIES_MAX_ROWS);
	else if (ret && !list_check(&rep->thr) && !list_check(&rep->near))	/* the input's */
		vmt_err("%s: %s", rep->o->file, strerror(-ret));
	if (!ret && !(ret = list_finish(&rep->thr)))
		ret = list_finish(&rep->near);
	return ret;
}

/* 0, -errno of standard output, or 1 when a list could not be read back (said) */
static int print_json(struct report *rep)
{
	struct vmt_outbuf out;
	struct vmt_jsonw w;
	int ret;

	fflush(stdout);
	ret = vmt_outbuf_init(&out, STDOUT_FILENO);
	if (ret)
		return ret;
	vmt_report_json_begin(&w, &out, rep->r, &rep->s);
	vmt_trigger_json(&w, &rep->trig);
	if (list_print_json(&rep->thr, &w, "over_threshold", "over_threshold_count") ||
	    list_print_json(&rep->near, &w, "around", NULL)) {
		vmt_outbuf_finish(&out);
		return 1;	/* said */
	}
	if (rep->o->interval_ns)
		vmt_series_json(&w, "series", &rep->series, vmt_reader_vmmap(rep->r));
	vmt_report_json_end(&w);
	return vmt_outbuf_finish(&out);
}

/* 0, or 1 when a list could not be read back (said) */
static int print_text(struct report *rep)
{
	const struct report_opts *o = rep->o;
	const struct vmt_clock *clk = vmt_reader_clock(rep->r);
	char a[32], b[32];

	/* what cyclictest's histogram readers parse, alone (other views refused: reportopt.c) */
	if (o->hist_cyclictest) {
		vmt_report_hist_cyclictest(stdout, rep->r, &rep->s);
		return 0;
	}
	if (o->verbose)
		fputc('\n', stdout);
	vmt_report_text(stdout, rep->r, &rep->s, &rep->style);
	vmt_trigger_text(stdout, &rep->trig);
	if (rep->thr.tmp) {
		fprintf(stdout, "\n%s of at least %s: %llu\n",
			vmt_reader_pairs_kvm(rep->r) ? "Exits" : "Pairs",
			vmt_fmt_opt_ns(clk, o->threshold_ns, a, sizeof(a)),
			(unsigned long long)rep->thr.count);
		if (list_print_exits(&rep->thr, stdout))
			return 1;
	}
	if (rep->near.tmp) {
		/* the time as the event lines give theirs: seconds to the ns (ticks as they are) */
		snprintf(b, sizeof(b), "%" PRIu64 ".%09" PRIu64 " s", rep->around_ns / 1000000000,
			 rep->around_ns % 1000000000);
		fprintf(stdout, "\nEvents within %s of %s:\n", vmt_fmt_opt_ns(clk, o->around_span_ns, a,
			sizeof(a)), vmt_clock_in_ns(clk) ? b : vmt_fmt_opt_ns(clk, rep->around_ns, b, sizeof(b)));
		if (list_print_text(&rep->near, stdout))
			return 1;
		list_around_none(&rep->near, stdout, rep->around_ns, o->around_span_ns,
				 vmt_reader_duration_ns(rep->r), !vmt_filter_is_empty(&o->fo.filter));
	}
	if (o->histogram) {
		fputc('\n', stdout);
		vmt_report_hist_text(stdout, rep->r, &rep->s, &rep->style);
	}
	if (o->interval_ns) {
		fputc('\n', stdout);
		vmt_series_text(stdout, &rep->series, vmt_reader_pairs_kvm(rep->r), &rep->s,
				vmt_reader_vmmap(rep->r));
	}
	return 0;
}

static int print_views(struct report *rep)
{
	int ret = 0;

	if (rep->o->html) {
		if (report_write_html(rep->o->html, rep->r, &rep->s, &rep->series))
			return 1;
		if (strcmp(rep->o->html, "-") == 0)
			return 0;	/* the page is the output */
	}
	if (rep->o->openmetrics)
		return report_openmetrics(rep->o->file, rep->o->metrics_file, rep->r, &rep->s,
					  rep->o);
	if (rep->o->json)
		ret = print_json(rep);
	else if (rep->o->legacy)
		vmt_report_legacy(stdout, rep->r, &rep->s);
	else
		ret = print_text(rep);
	if (ret == 1)
		return 1;	/* a list's file, said */
	if (fflush(stdout) != 0 && !ret)
		ret = -errno;
	if (ret) {
		vmt_err("standard output: %s", vmt_proc_std_strerror(STDOUT_FILENO, -ret));
		return 1;
	}
	return 0;
}

/* Damage and truncation: say so, every time, on stderr; exit status 2. */
static int input_state(const struct report *rep)
{
	const struct vmt_summary *s = &rep->s;
	const char *file = rep->o->file;
	struct vmt_input_notes notes;
	unsigned int k;

	/* s->rd: the figures of every slice's reader too; lost events as the summary has them */
	vmt_input_notes(rep->r, &s->rd, vmt_reader_damage(rep->r), true, &notes);
	for (k = 0; k < notes.n; k++)
		vmt_warn("%s: %s", file, notes.note[k]);
	return notes.damaged ? 2 : 0;
}

/*
 * Empty results say why: a recording without one exit (which event never came, on which
 * CPUs), or filters that matched nothing (which one, and what there was).
 */
static void say_why_empty(const struct report *rep)
{
	const struct vmt_iter *it = &rep->it;
	const char *file = rep->o->file;
	char msg[1024];

	if (!it->exits) {
		if (vmt_nomatch_no_exits(it, rep->r, msg, sizeof(msg)))
			vmt_info("%s: %s", file, msg);
	} else if (!rep->s.lat.count &&
		   (vmt_nomatch_open_only(it, rep->s.nopen, msg, sizeof(msg)) ||
		    vmt_nomatch_explain(it, msg, sizeof(msg)))) {
		vmt_info("%s: %s", file, msg);
	}
}

static void clean_up(struct report *rep)
{
	list_free(&rep->thr);
	list_free(&rep->near);
	vmt_evdump_free(&rep->dump);
	vmt_series_free(&rep->series);
	vmt_summary_free(&rep->s);
	vmt_filter_opts_free(&rep->o->fo);
	vmt_reader_close(rep->r);
	if (rep->gate)
		report_gate_free(rep->gate);
}

int main(int argc, char **argv)
{
	static struct report_gate gate;	/* large: not on the stack */
	struct report_opts o;
	struct report rep = { .o = &o };
	int code, state, held = 0;

	vmt_log_init(argv[0]);
	vmt_proc_init();
	report_parse_args(&o, argc, argv);
	if (o.compare)
		return report_compare(&o);
	if (o.nfiles > 1)
		return report_merge(&o);
	rep.style.wide = o.wide != 0;
	if (o.fail_if && report_gate_parse(&gate, o.fail_if, false))
		return 64;
	rep.gate = o.fail_if ? &gate : NULL;
	code = open_input(&rep);
	if (!code && !(code = set_up_views(&rep)) && (code = run_pass(&rep)))
		code = code == -E2BIG && o.interval_ns ? 64 : 1;	/* as before the pass */
	if (code)
		goto out;
	code = print_views(&rep);
	say_why_empty(&rep);
	state = input_state(&rep);
	if (!code && rep.gate)
		held = report_gate_one_check(rep.gate, &o.fo, rep.r, &rep.it);
	/* figures of part of a file: 2 even when a condition holds, told apart from 1 */
	if (!code)
		code = held < 0 ? 64 : state ? state : held ? 1 : 0;
out:
	clean_up(&rep);
	return code;
}
