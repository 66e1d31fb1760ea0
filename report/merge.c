// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtrace-report A B ...: several recordings (any formats, mixed) as one population. One
 * pass per recording with the same filters feeds two consumers (common/compare.h): the
 * merged figures, whose distributions are one histogram over every file (exact, not an
 * average of percentiles), and the recording's own; then the tables or JSON
 * (common/comparefmt.h).
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
#include "inputopt.h"
#include "log.h"
#include "metakeys.h"
#include "outbuf.h"
#include "procinit.h"
#include "report_compare.h"
#include "trigger.h"

/*
 * A copy of one recording (cp run.vmt copy.vmt) is another inode, which reportcheck.c's
 * check of the names cannot see: its metadata is the same. Two files of one recorder that
 * started at the same wall-clock and CLOCK_MONOTONIC time and traced the same CPUs are one
 * recording (the files of --continue each have their own monotonic.start_ns). ids[i] keeps
 * file i's for the files after it; returns 64 (merged, each exit would count twice) or 0.
 */
static int check_copy(const struct report_opts *o, unsigned int i, const struct vmt_reader *r,
		      char **ids)
{
	char *wall = vmt_reader_meta(r, "time.start");
	char *mono = vmt_reader_meta(r, VMT_META_MONO_START);
	char *cpus = vmt_reader_meta(r, VMT_META_CPUS);
	unsigned int k;

	/* copies of other CPUs of it (vmtrace-convert --to-vmt --cpu) hold other exits */
	if (wall && mono && asprintf(&ids[i], "%s %s %s", wall, mono, cpus ? cpus : "") < 0)
		ids[i] = NULL;
	free(wall);
	free(mono);
	free(cpus);
	for (k = 0; ids[i] && k < i; k++) {
		if (!ids[k] || strcmp(ids[k], ids[i]))
			continue;
		vmt_err("%s and %s are one recording (the same time.start and monotonic.start_ns): "
			"merged, each exit would count twice", o->files[k], o->files[i]);
		return 64;
	}
	return 0;
}

/* One recording into merged and its own; returns an exit status. */
static int run_file(struct report_opts *o, unsigned int i, struct vmt_compare *merged,
		    struct vmt_compare *own, struct vmt_trigger *trig, int *damaged,
		    char pair[static 256], char **ids)
{
	const char *file = o->files[i];
	struct vmt_filter_opts fo = o->fo;	/* names resolve per recording */
	/* causes too, when a recording holds context events (unless --no-causes) */
	struct vmt_iter_opts io = { .filter = &fo.filter, .attribute = report_wants_causes(o) };
	struct vmt_input_notes notes;
	struct vmt_reader_stats rd;
	struct vmt_reader *r = NULL;
	char msg[512], warn[256];
	struct vmt_consumer cons[2];
	struct vmt_iter it;
	unsigned int k;
	int ret;

	fo.filter.nreasons = 0;
	ret = vmt_input_open(file, &o->in, &r, msg, sizeof(msg), warn, sizeof(warn));
	if (ret)
		return report_open_failed(file, msg, ret);
	ret = report_same_pair(file, r, pair, 256);
	if (!ret)
		ret = check_copy(o, i, r, ids);
	if (ret)
		goto out_close;
	vmt_trigger_read(r, trig);
	merged->neutral = own->neutral = !vmt_reader_pairs_kvm(r);
	merged->why_off |= report_causes_off(o, r);
	ret = vmt_filter_resolve(&fo, r, msg, sizeof(msg));
	if (ret) {
		vmt_err_folded("%s: %s", file, ret == -EINVAL ? msg : strerror(-ret));
		ret = ret == -EINVAL ? 64 : ret;	/* a filter the input does not fit */
		goto out_close;
	}
	ret = vmt_compare_consumer(merged, 0, &cons[0]);
	if (!ret)
		ret = vmt_compare_consumer(own, 0, &cons[1]);
	if (!ret)
		ret = vmt_iterate(r, &io, cons, 2, &it);
	if (ret) {
		vmt_err("%s: %s", file, strerror(-ret));
		goto out_close;
	}
	own->span_ns[0] = report_selected_span(&fo.filter, r, &it);
	own->events_span_ns[0] = report_selected_span(&fo.filter, NULL, &it);
	own->recorded[0] = vmt_reader_duration_ns(r) != 0;
	own->open_at_stop[0] = it.pairing.unfinished;	/* as one recording's report counts */
	merged->open_at_stop[0] += own->open_at_stop[0];
	vmt_iter_read_stats(&it, &rd);
	vmt_input_notes(r, &rd, vmt_reader_damage(r), true, &notes);
	for (k = 0; k < notes.n; k++)
		vmt_warn("%s: %s", file, notes.note[k]);
	*damaged |= notes.damaged;
out_close:
	vmt_reader_close(r);
	free(fo.filter.tids);		/* this recording's own (o->fo is never resolved) */
	free(fo.filter.vcpu_tids);
	return ret == 64 ? 64 : ret ? 1 : 0;
}

/*
 * The merged rates are over the recordings' summed spans, each recording's over its own:
 * a .vmt's recorded duration, or the events' span of a file without one (trace.bin,
 * trace.dat, an unfinished .vmt). Mixed, the .vmt would read at half the rate of the same
 * exits converted: then every span is its events', and it is said, as --compare does.
 */
static void same_kind_of_span(const struct report_opts *o, struct vmt_compare *merged,
			      struct vmt_compare *per)
{
	unsigned int i, with = 0, first = 0;

	for (i = 0; i < o->nfiles; i++) {
		if (per[i].recorded[0])
			with++;
		else if (with == i)
			first = i;	/* the first file without, for the warning */
	}
	merged->events_spans = with && with < o->nfiles;
	for (i = 0; i < o->nfiles; i++) {
		if (merged->events_spans)
			per[i].span_ns[0] = per[i].events_span_ns[0];
		merged->span_ns[0] += per[i].span_ns[0];
	}
	if (merged->events_spans)
		vmt_warn_folded("%s%s has no recorded duration (a trace.bin, a trace.dat, a .vmt "
				"made of one or an unfinished one): the rates of all are over their "
				"events' span", o->files[first], o->nfiles - with > 1 ? " (and others)" :
				"");
}

static int print_json(const struct report_opts *o, const struct vmt_compare *merged,
		      const struct vmt_compare *per, const struct vmt_trigger *trig)
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
	vmt_merge_json(&w, merged, per, o->files, o->nfiles);
	vmt_trigger_json_files(&w, trig, o->files, o->nfiles);
	vmt_jsonw_object_close(&w);
	vmt_outbuf_ch(&out, '\n');
	return vmt_outbuf_finish(&out);
}

int report_merge(struct report_opts *o)
{
	struct vmt_compare merged, *per = calloc(o->nfiles, sizeof(*per));
	struct vmt_trigger *trig = calloc(o->nfiles, sizeof(*trig));
	char **ids = calloc(o->nfiles, sizeof(*ids));
	int code = 1, damaged = 0, ret = 0;
	unsigned int i, ready = 0;
	char pair[256] = "";

	if (!per || !trig || !ids || vmt_compare_init(&merged, o->window_ns)) {
		vmt_err("%s", strerror(ENOMEM));
		free(per);
		free(trig);
		free(ids);
		return 1;
	}
	for (ready = 0; ready < o->nfiles; ready++) {
		if (vmt_compare_init(&per[ready], o->window_ns)) {
			vmt_err("%s", strerror(ENOMEM));
			goto out;
		}
	}
	for (i = 0; i < o->nfiles; i++) {
		code = run_file(o, i, &merged, &per[i], &trig[i], &damaged, pair, ids);
		if (code)
			goto out;
	}
	same_kind_of_span(o, &merged, per);
	vmt_compare_test(&merged);	/* the reasons in order of time */
	if (o->json)
		ret = print_json(o, &merged, per, trig);
	else {
		vmt_merge_text(stdout, &merged, per, o->files, o->nfiles);
		vmt_trigger_text_files(stdout, trig, o->nfiles);
	}
	if (fflush(stdout) != 0 && !ret)
		ret = -errno;
	if (ret) {
		vmt_err("standard output: %s", vmt_proc_std_strerror(STDOUT_FILENO, -ret));
		code = 1;
	} else {
		code = damaged ? 2 : 0;
	}
out:
	for (i = 0; i < ready; i++)
		vmt_compare_free(&per[i]);
	for (i = 0; i < o->nfiles; i++)
		free(ids[i]);
	free(ids);
	free(per);
	free(trig);
	vmt_compare_free(&merged);
	vmt_filter_opts_free(&o->fo);
	return code;
}
