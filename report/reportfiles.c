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
#include "vmfind.h"

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
 * The one VM the figures are of, or NULL: the only VM of the recording's map (recorded with
 * --vm of one VM), or the one every name of the report's --vm resolves to. Its name then
 * labels every sample, so that per-VM files of one host (--vm web1, --vm web2) make
 * different series, not the same ones twice.
 */
static const char *one_vm(const struct vmt_vmmap *m, const char *vms)
{
	char *copy, *tok, *save = NULL;
	int vm = -1, k;

	if (!m || !vmt_vmmap_count(m))
		return NULL;
	if (!vms)
		return vmt_vmmap_count(m) == 1 ? vmt_vmmap_name(m, 0) : NULL;
	copy = strdup(vms);
	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		k = vmt_vmmap_find(m, tok);
		if (k < 0 || (vm >= 0 && k != vm)) {
			vm = -1;
			break;
		}
		vm = k;
	}
	free(copy);
	return vm >= 0 ? vmt_vmmap_name(m, (unsigned int)vm) : NULL;
}

/*
 * --openmetrics: host and the vCPUs' vm are the recording's (its metadata), not this machine's.
 * =FILE is for node_exporter's textfile collector: Prometheus's text format, not OpenMetrics.
 */
int report_openmetrics(const char *file, const char *path, const struct vmt_reader *r,
		       const struct vmt_summary *s, const struct report_opts *o)
{
	char *host = vmt_reader_meta(r, "hostname");
	struct vmt_openmetrics_labels l = { .host = host, .vmmap = vmt_reader_vmmap(r),
					     .extra = o->labels, .nextra = o->nlabels };
	const struct vmt_clock *clk = vmt_reader_clock(r);
	char note[VMT_OUTFILE_MSG_SIZE] = "";
	int ret;

	l.vm = one_vm(l.vmmap, o->fo.vms);

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
