/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * seriesfmt: the time series (series.h) as people and programs read it: a text table, a
 * JSON array (the report's "series" key), CSV and JSON lines rows, with the same keys
 * everywhere (start_ns, end_ns, vcpu, pid, vm, exits, out_ns, max_ns, p99_ns, max_window_ns;
 * man/vmtrace-report.1). Renderers write where the caller says and keep no state.
 */
#ifndef VMT_SERIESFMT_H
#define VMT_SERIESFMT_H

#include <stdbool.h>
#include <stdio.h>

#include "jsonw.h"
#include "outbuf.h"
#include "reader.h"
#include "commtab.h"
#include "series.h"
#include "summary.h"
#include "vmfind.h"

/*
 * The table: one line per interval and vCPU task, within 120 columns. named_by: a summary
 * of the same recording whose tasks' names (comm) name the rows, or NULL; vms: the VMs a
 * recording made with --vm names (their vCPU threads are "web1/vcpu0 (pid)"), or NULL. With
 * one name at least the tasks are "name (pid)", as the report's tables name them, else
 * bare pids.
 */
void vmt_series_text(FILE *f, const struct vmt_series *s, bool kvm,
		     const struct vmt_summary *named_by, const struct vmt_vmmap *vms);
/*
 * The rows as a JSON array named name (NULL: a top value). vms: the recording's --vm map,
 * or NULL; it names a row's VM (vm) and gives its vCPU index where the events carry none.
 */
void vmt_series_json(struct vmt_jsonw *w, const char *name, const struct vmt_series *s,
		     const struct vmt_vmmap *vms);
/*
 * The rows as CSV with a header (csv) or as JSON lines, onto fd, VMs and vCPUs as in
 * vmt_series_json(). Returns 0 or -errno.
 */
int vmt_series_write_rows(int fd, const struct vmt_series *s, const struct vmt_vmmap *vms,
			  bool csv);
#endif
