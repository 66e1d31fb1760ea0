// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtrace-convert: a recording (.vmt, the original trace.bin, or a trace-cmd trace.dat) as
 * CSV or JSON lines (one row per exit with its entry, or per event), as the original
 * tool's trace.bin, or wrapped into a .vmt. Rows come from the same pass and filters as
 * vmtrace-report, in constant memory; files are written under a temporary name and
 * renamed when complete (common/outfile.h). Thin: options, open, write, publish.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "convertopt.h"
#include "inputopt.h"
#include "log.h"
#include "outfile.h"
#include "writers.h"

static int open_input(struct convert_opts *o, struct vmt_reader **r)
{
	char msg[512], warn[256];
	int ret;

	ret = vmt_input_open(o->input, &o->in, r, msg, sizeof(msg), warn, sizeof(warn));
	if (ret) {
		vmt_err("%s: %s", o->input, msg);
		return ret;
	}
	if (warn[0])
		vmt_warn("%s: %s", o->input, warn);
	ret = vmt_filter_resolve(&o->fo, *r, msg, sizeof(msg));
	if (ret)
		vmt_err("%s: %s", o->input, ret == -EINVAL ? msg : strerror(-ret));
	return ret;
}

static int open_output(const struct convert_opts *o, struct vmt_outfile **of)
{
	int ret;

	vmt_outfile_unlink_on_signal();
	ret = vmt_outfile_open(o->output ? o->output : "-", 0, of);
	if (ret)
		vmt_err("%s: cannot create: %s", o->output, strerror(-ret));
	return ret;
}

static int write_output(const struct convert_opts *o, struct vmt_reader *r, int fd)
{
	switch (o->format) {
	case CONVERT_CSV:
	case CONVERT_JSONL:
		if (o->series)
			return convert_series(o, r, fd);
		return convert_rows(o, r, fd);
	case CONVERT_LEGACY:
		return convert_legacy(o, r, fd);
	case CONVERT_VMT:
		return convert_vmt(o, r, fd);
	}
	return -EINVAL;
}

/* Rename a complete file into place; remove an incomplete one. */
static int publish(const struct convert_opts *o, struct vmt_outfile *of, int ret)
{
	if (ret) {
		vmt_outfile_abort(of);
		return ret;
	}
	ret = vmt_outfile_commit(of, NULL, NULL);
	if (ret)
		vmt_err("%s: %s", convert_output_name(o), strerror(-ret));
	return ret;
}

static void warn_unfinished(const struct convert_opts *o, const struct vmt_reader *r)
{
	if (!vmt_source_status(vmt_reader_source(r))->finished)
		vmt_warn("%s: the recording was not finished; the complete chunks were converted",
			 o->input);
}

int main(int argc, char **argv)
{
	struct convert_opts o;
	struct vmt_outfile *of = NULL;
	struct vmt_reader *r = NULL;
	int ret;

	vmt_log_init(argv[0]);
	convert_parse_args(&o, argc, argv);
	ret = open_input(&o, &r);
	if (!ret)
		ret = open_output(&o, &of);
	if (!ret) {
		ret = write_output(&o, r, vmt_outfile_fd(of));
		ret = publish(&o, of, ret);
		warn_unfinished(&o, r);
	}
	vmt_filter_opts_free(&o.fo);
	vmt_reader_close(r);
	return ret ? 1 : 0;
}
