/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics: vmtrace-record --metrics FILE --interval DUR. A summary consumer (summary.h) of
 * the pass the tap (tap.h) feeds while recording; every DUR of wall time its figures so
 * far are published atomically into FILE in Prometheus's text format (openmetrics.h), for
 * node_exporter's textfile collector, and once more, complete, when the pass ends. Created
 * by main; used on the collector thread only; freed by main.
 */
#ifndef REC_METRICS_H
#define REC_METRICS_H

#include <stdint.h>

#include "iterate.h"
#include "kv.h"

struct rec_metrics;

/*
 * meta: the recording's metadata, read now for the labels (its host name; the VM map of
 * --vm for the vCPUs' vm, and vm on every sample when it has one VM); labels: --label's
 * NAME=VALUE (checked; kept by the caller until rec_metrics_free()). Returns 0, -EINVAL or
 * -ENOMEM.
 */
int rec_metrics_new(const char *path, uint64_t interval_ns, const struct vmt_kvbuf *meta,
		    const char *const *labels, size_t nlabels, struct rec_metrics **out);
/* The consumer to give the pass (its summary). */
struct vmt_consumer rec_metrics_consumer(struct rec_metrics *m);
/*
 * Between two items of the pass (ts: what it has; UINT64_MAX: it ended): publish when the
 * interval has passed since the last time (always after the end). lost: the events the
 * kernel flagged lost so far. Returns 0 or the publication's -errno (kept for
 * rec_metrics_error; the next interval tries again).
 */
int rec_metrics_advance(struct rec_metrics *m, const struct vmt_iter *it, uint64_t ts,
			uint64_t lost);
/* Publications done; the first failure's -errno (or 0), and *failed the failed ones. */
uint64_t rec_metrics_published(const struct rec_metrics *m);
int rec_metrics_error(const struct rec_metrics *m, uint64_t *failed);
/* The last failure in one line: "FILE: what failed: ERROR" ("" when none failed). */
const char *rec_metrics_why(const struct rec_metrics *m);
void rec_metrics_free(struct rec_metrics *m);

#endif
