// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "htmlreport.h"
#include "log.h"
#include "openmetrics.h"
#include "outfile.h"
#include "reportfiles.h"

int report_write_html(const char *path, const struct vmt_reader *r, const struct vmt_summary *s,
		      const struct vmt_series *se)
{
	/* "-" is standard output, named as the other outputs name it */
	const char *name = strcmp(path, "-") ? path : "standard output";
	char note[VMT_OUTFILE_MSG_SIZE];
	int ret;

	vmt_outfile_unlink_on_signal();
	ret = vmt_html_write_file(path, r, s, se, note, sizeof(note));
	if (ret && note[0])
		vmt_err("%s", note);	/* what could not be opened, and why */
	else if (ret)
		vmt_err("%s: cannot write the HTML report: %s", name,
			ret == -EINVAL ? "that is the recording" : strerror(-ret));
	if (ret)
		return 1;
	/* the replaced page's owner or group that could not be kept (outfile.h) */
	if (note[0])
		vmt_warn_folded("%s: %s", name, note);
	return 0;
}

/*
 * --openmetrics: host and the vCPUs' vm are the recording's (its metadata), not this machine's.
 * =FILE is for node_exporter's textfile collector: Prometheus's text format, not OpenMetrics.
 */
int report_openmetrics(const char *file, const char *path, const struct vmt_reader *r,
		       const struct vmt_summary *s)
{
	char *host = vmt_reader_meta(r, "hostname");
	struct vmt_openmetrics_labels l = { .host = host, .vmmap = vmt_reader_vmmap(r) };
	const struct vmt_clock *clk = vmt_reader_clock(r);
	char note[VMT_OUTFILE_MSG_SIZE] = "";
	int ret;

	/* a path that is the recording was refused with the options (reportopt.c) */
	if (path) {
		vmt_outfile_unlink_on_signal();
		ret = vmt_openmetrics_publish(path, s, clk, &l, VMT_OPENMETRICS_PROMETHEUS, note,
					      sizeof(note));
		if (!ret && note[0])
			vmt_warn_folded("%s: %s", path, note);
	} else {
		fflush(stdout);
		ret = vmt_openmetrics_write_fd(STDOUT_FILENO, s, clk, &l, VMT_OPENMETRICS_TEXT);
	}
	if (ret == -EINVAL)
		vmt_err("%s: its host name holds a control character", file);
	else if (ret && note[0])
		vmt_err("%s", note);
	else if (ret)
		vmt_err("%s: cannot write the metrics: %s", path ? path : "standard output",
			strerror(-ret));
	free(host);
	return ret ? 1 : 0;
}
