// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtrace-convert: a recording (.vmt, the original trace.bin, or a trace-cmd trace.dat) as
 * CSV or JSON lines (one row per exit with its entry, or per event), as the original
 * tool's trace.bin, or wrapped into a .vmt. Rows come from the same pass and filters as
 * vmtrace-report, in constant memory; files are written under a temporary name and
 * renamed when complete (common/outfile.h). Thin: options, open, write, publish, and what
 * the input turned out to be (exit status 2 for an unfinished or damaged one, as the report).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convertopt.h"
#include "copycpus.h"
#include "inputopt.h"
#include "log.h"
#include "outfile.h"
#include "procinit.h"
#include "series.h"
#include "writers.h"

/*
 * Writing over the input would destroy it while it is read, or on the final rename: refuse
 * when the output is the input's inode, through hard or symbolic links, standard output
 * included (">> in.vmt"), and a regular file on standard input too, which is read in place
 * ("-o in.vmt - < in.vmt"). Before anything is opened: the input is left as it was.
 */
static int check_not_input(const struct convert_opts *o)
{
	char msg[1024];

	if (!vmt_outfile_over_input(o->output ? o->output : "-", o->input, "the output", msg,
				    sizeof(msg)))
		return 0;	/* errors about the input are open_input()'s to say */
	vmt_err("%s", msg);
	return EXIT_USAGE;
}

/*
 * Rows or a timeline never replace another recording ("-o run1.vmt run2.vmt": the names
 * swapped): one is lost for good, the other is not even converted. A recording written
 * over one (--to-vmt, --legacy) may be what was asked for, or the same swap: the one it
 * replaces is kept as FILE.old, as vmtrace-record keeps the one it replaces.
 */
static int check_not_recording(const struct convert_opts *o)
{
	static const char *const what[] = {
		[CONVERT_CSV] = "the CSV", [CONVERT_JSONL] = "the JSON lines",
		[CONVERT_PERFETTO] = "the Perfetto timeline",
	};
	char msg[1024];

	if (!o->output || o->format == CONVERT_LEGACY || o->format == CONVERT_VMT ||
	    !vmt_outfile_over_recording(o->output, what[o->format], msg, sizeof(msg)))
		return 0;
	vmt_err("%s", msg);
	return EXIT_USAGE;
}

/* Binary output on a terminal garbles it and is lost: a usage error, before any reading. */
static int check_not_tty(const struct convert_opts *o)
{
	char msg[160];

	if ((o->format != CONVERT_LEGACY && o->format != CONVERT_VMT) ||
	    !vmt_outfile_binary_on_tty(o->output, o->format == CONVERT_VMT ? ".vmt" : "trace.bin",
				       msg, sizeof(msg)))
		return 0;
	vmt_err("%s", msg);
	return EXIT_USAGE;
}

static int open_input(struct convert_opts *o, struct vmt_reader **r)
{
	char msg[512], warn[256];
	uint32_t cpu;
	int ret;

	/* a copy takes the chunks as they are: a trace.dat's pages judged before, when opened */
	o->in.pages_at_open = o->format == CONVERT_LEGACY || o->format == CONVERT_VMT;
	ret = vmt_input_open(o->input, &o->in, r, msg, sizeof(msg), warn, sizeof(warn));
	if (ret) {
		vmt_err("%s: %s", o->input, msg);
		return ret == VMT_INPUT_EUSAGE ? EXIT_USAGE : EXIT_ERROR;
	}
	if (warn[0])
		vmt_warn("%s: %s", o->input, warn);
	ret = vmt_filter_resolve(&o->fo, *r, msg, sizeof(msg));
	if (ret) {
		vmt_err_folded("%s: %s", o->input, ret == -EINVAL ? msg : strerror(-ret));
		/* -EINVAL: a filter the input does not fit, as an unused option is */
		return ret == -EINVAL ? EXIT_USAGE : EXIT_ERROR;
	}
	if (convert_check_cpus(o, *r))
		return EXIT_USAGE;
	/* an input a trace.bin cannot hold: refused before any output, as an unfit option */
	if (o->format == CONVERT_LEGACY && convert_legacy_cpu(o, *r, &cpu))
		return EXIT_USAGE;
	/* a timeline and a series are in ns by their formats: ticks would pass for ns */
	if (!vmt_clock_in_ns(vmt_reader_clock(*r)) && (o->format == CONVERT_PERFETTO || o->series)) {
		vmt_err("%s: --%s needs times in ns; clock %s counts ticks of no known length",
			o->input, o->series ? "series" : "perfetto", vmt_reader_clock_name(*r));
		return EXIT_USAGE;
	}
	/* an interval the span cannot hold: an option value the input does not fit */
	if (o->series) {
		o->series_ns = vmt_series_fit_interval(*r, o->series_ns, "--series", msg,
						       sizeof(msg));
		if (!o->series_ns) {
			vmt_err_folded("%s: too many rows: %s", o->input, msg);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* Whether the output replaces a recording: --to-vmt or --legacy over one (see above). */
static bool replaces_recording(const struct convert_opts *o)
{
	char msg[1024];

	return o->output && (o->format == CONVERT_LEGACY || o->format == CONVERT_VMT) &&
	       vmt_outfile_over_recording(o->output, "", msg, sizeof(msg));
}

static int open_output(const struct convert_opts *o, struct vmt_outfile **of)
{
	char msg[VMT_OUTFILE_MSG_SIZE], target[PATH_MAX];
	bool keep_old = replaces_recording(o);
	struct stat st;
	int ret;

	vmt_outfile_unlink_on_signal();
	ret = vmt_outfile_open(o->output ? o->output : "-", keep_old ? VMT_OUTFILE_KEEP_OLD : 0,
			       of, msg, sizeof(msg));
	if (ret) {
		vmt_err("%s", msg);	/* the file, and what failed: it or its temporary file */
		return EXIT_ERROR;
	}
	/* "-o run.vmt run.vmt.old": keeping run.vmt would move it over the input */
	snprintf(target, sizeof(target), "%s", vmt_outfile_target(*of));
	snprintf(msg, sizeof(msg), "%s.old", target);
	if (keep_old && vmt_outfile_is_same_file(msg, o->input) == 1) {
		vmt_outfile_discard(*of);
		*of = NULL;
		vmt_err("%s.old is the input, where the recording %s would be kept: refusing to "
			"replace %s", target, target, target);
		return EXIT_USAGE;
	}
	/* said before the conversion runs, not after it */
	if (keep_old && stat(msg, &st) == 0 && S_ISDIR(st.st_mode)) {
		vmt_outfile_discard(*of);
		*of = NULL;
		vmt_err("%s.old: a directory, where the recording %s would be kept: refusing to "
			"replace %s", target, target, target);
		return EXIT_ERROR;
	}
	if (*vmt_outfile_note(*of))
		vmt_warn_folded("%s: %s", o->output, vmt_outfile_note(*of));
	return 0;
}

static int write_output(const struct convert_opts *o, struct vmt_reader *r, int fd,
			struct convert_found *found)
{
	switch (o->format) {
	case CONVERT_CSV:
	case CONVERT_JSONL:
		if (o->series)
			return convert_series(o, r, fd, found);
		return convert_rows(o, r, fd, found);
	case CONVERT_LEGACY:
		return convert_legacy(o, r, fd, found);
	case CONVERT_VMT:
		return convert_vmt(o, r, fd, found);
	case CONVERT_PERFETTO:
		return convert_perfetto(o, r, fd, found);
	}
	return -EINVAL;
}

/* Rename a complete file into place (a recording it replaces to FILE.old); remove others. */
static int publish(const struct convert_opts *o, struct vmt_outfile *of, int ret)
{
	char target[PATH_MAX], old[PATH_MAX + 8];
	bool kept_old = false, old_failed = false, had_old;

	if (ret) {
		vmt_outfile_abort(of);
		return ret == EXIT_USAGE ? EXIT_USAGE : EXIT_ERROR;
	}
	/* where FILE.old goes: next to what a link at FILE leads to */
	snprintf(target, sizeof(target), "%s", vmt_outfile_target(of));
	snprintf(old, sizeof(old), "%s.old", target);
	had_old = access(old, F_OK) == 0;
	ret = vmt_outfile_commit_keeping(of, &kept_old, &old_failed);
	if (ret && old_failed) {
		vmt_err("%s.old: cannot move the recording %s there: %s; nothing was written",
			target, target, strerror(-ret));
		return EXIT_ERROR;
	}
	if (ret) {
		vmt_err("%s: %s", convert_output_name(o), strerror(-ret));
		return EXIT_ERROR;
	}
	if (kept_old)
		vmt_info_folded("the recording %s replaced is kept as %s%s%s", target, old,
				had_old ? ", replacing the earlier " : "", had_old ? old : "");
	return 0;
}

/* Unfinished, damaged, events lost: vmtrace-report's warnings, and its exit status 2. */
static int input_state(const struct convert_opts *o, const struct vmt_reader *r,
		       const struct convert_found *found)
{
	struct vmt_input_notes notes;
	unsigned int i;

	vmt_input_notes(r, &found->rd, &found->damage, found->decoded, &notes);
	for (i = 0; i < notes.n; i++)
		vmt_warn("%s: %s", o->input, notes.note[i]);
	return notes.damaged ? EXIT_DAMAGED : 0;
}

int main(int argc, char **argv)
{
	struct convert_found found = { 0 };
	struct vmt_outfile *of = NULL;
	struct vmt_reader *r = NULL;
	struct convert_opts o;
	int code;

	vmt_log_init(argv[0]);
	vmt_proc_init();
	convert_parse_args(&o, argc, argv);
	code = check_not_input(&o);
	if (!code)
		code = check_not_recording(&o);
	if (!code)
		code = check_not_tty(&o);
	if (!code)
		code = open_input(&o, &r);
	if (!code)
		code = open_output(&o, &of);
	if (!code) {
		code = publish(&o, of, write_output(&o, r, vmt_outfile_fd(of), &found));
		if (!code)
			code = input_state(&o, r, &found);
	}
	vmt_filter_opts_free(&o.fo);
	vmt_reader_close(r);
	return code;
}
