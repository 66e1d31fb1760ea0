// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "metrics.h"
#include "openmetrics.h"
#include "outfile.h"
#include "summary.h"
#include "sysinfo.h"
#include "vmfind.h"

struct rec_metrics {
	char *path, *host;
	struct vmt_vmmap *vmmap;	/* the vCPUs' vm labels (--vm), or NULL */
	const char *const *labels;	/* --label's, the caller's */
	size_t nlabels;
	uint64_t interval_ns;
	uint64_t next_ns;		/* CLOCK_MONOTONIC: the next publication is due */
	struct vmt_summary s;
	struct vmt_consumer c;
	uint64_t published, failed;
	int error;			/* the first failure's */
	bool noted;			/* the owner that could not be kept: said once */
	char why[VMT_OUTFILE_MSG_SIZE];	/* the last failure, in one line */
};

int rec_metrics_new(const char *path, uint64_t interval_ns, const struct vmt_kvbuf *meta,
		    const char *const *labels, size_t nlabels, struct rec_metrics **out)
{
	/* the report's defaults, so that the figures are vmtrace-report's */
	struct vmt_summary_opts so = { .window_ns = VMT_DEFAULT_WINDOW_NS };
	struct rec_metrics *m;
	char err[128];
	int ret;

	*out = NULL;
	if (!path || !interval_ns)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->interval_ns = interval_ns;
	m->labels = labels;
	m->nlabels = nlabels;
	m->path = strdup(path);
	/* the labels are the recording's, read from its META as vmtrace-report reads them */
	m->host = vmt_kv_get_str(meta->buf, meta->len, "hostname");
	ret = vmt_vmmap_from_meta(meta->buf, meta->len, &m->vmmap, err, sizeof(err));
	/* none without --vm; a map the report could not read either is left out alike */
	if (ret != -ENOMEM)
		ret = 0;
	so.vmmap = m->vmmap;	/* the per-reason samples per VM too (openmetrics.h) */
	if (!ret)
		ret = vmt_summary_consumer(&m->s, &so, &m->c);
	if (!ret && !m->path)
		ret = -ENOMEM;
	if (ret) {
		rec_metrics_free(m);
		return ret;
	}
	*out = m;
	return 0;
}

struct vmt_consumer rec_metrics_consumer(struct rec_metrics *m)
{
	return m->c;
}

static int publish(struct rec_metrics *m, struct vmt_summary *s, const struct vmt_iter *it,
		   uint64_t lost)
{
	struct vmt_openmetrics_labels l = { .host = m->host, .vmmap = m->vmmap,
					     .extra = m->labels, .nextra = m->nlabels };
	char note[VMT_OUTFILE_MSG_SIZE];
	int ret;

	/* a recording of one VM (--vm of one): its name on every sample, as the report's */
	if (m->vmmap && vmt_vmmap_count(m->vmmap) == 1)
		l.vm = vmt_vmmap_name(m->vmmap, 0);
	s->lost_events = lost;
	ret = vmt_openmetrics_publish(m->path, s, it->clock, &l, VMT_OPENMETRICS_PROMETHEUS,
				      note, sizeof(note));
	if (!ret && note[0] && !m->noted) {
		vmt_warn_folded("%s: %s", m->path, note);
		m->noted = true;
	}
	/* the temporary file that could not be made is named: not FILE, which may be there */
	if (ret && note[0])
		snprintf(m->why, sizeof(m->why), "%s", note);
	else if (ret)
		snprintf(m->why, sizeof(m->why), "%s: cannot write the metrics: %s", m->path,
			 strerror(-ret));
	if (ret && !m->error && m->published) {
		/*
		 * Said at once (the first publication's failure stops the recorder instead): one
		 * that runs for days would serve stale figures unseen.
		 */
		if (note[0])	/* what failed: FILE, or the temporary file beside it */
			vmt_warn_folded("%s (the file keeps the figures last written; tried "
					"again every interval)", note);
		else
			vmt_warn_folded("%s: writing the metrics failed: %s (the file keeps the "
					"figures last written; tried again every interval)",
					m->path, strerror(-ret));
		m->error = ret;
	}
	m->failed += ret != 0;
	m->published += !ret;
	return ret;
}

/* The exits open at a publication while recording: the gauge of a vCPU stuck now. */
struct open_add {
	struct vmt_summary *s;
	const struct vmt_iter *it;
	uint64_t until;
	int ret;
};

static void add_open(const struct vmt_event *begin, void *arg)
{
	struct open_add *a = arg;
	struct vmt_open_exit x;

	if (a->ret || !vmt_iter_open_exit(a->it, begin, false, &x))
		return;
	x.until = a->until;	/* the pass has every record up to there */
	a->ret = vmt_summary_add_open(a->s, &x);
}

int rec_metrics_advance(struct rec_metrics *m, const struct vmt_iter *it, uint64_t ts,
			uint64_t lost)
{
	uint64_t now = rec_sysinfo_now_ns();
	struct vmt_summary snap;
	int ret;

	if (ts == UINT64_MAX)
		return publish(m, &m->s, it, lost);	/* the summary is finished */
	if (now < m->next_ns)
		return 0;
	m->next_ns = now + m->interval_ns;
	ret = vmt_summary_snapshot(&m->s, it, &snap);
	if (!ret && ts) {
		struct open_add a = { &snap, it, ts, 0 };

		vmt_iter_each_open(it, add_open, &a);
		ret = a.ret;
	}
	if (ret) {
		if (!m->error)
			m->error = ret;
	} else {
		ret = publish(m, &snap, it, lost);
	}
	vmt_summary_free(&snap);
	return ret;
}

uint64_t rec_metrics_published(const struct rec_metrics *m)
{
	return m->published;
}

const char *rec_metrics_why(const struct rec_metrics *m)
{
	return m->why;
}

int rec_metrics_error(const struct rec_metrics *m, uint64_t *failed)
{
	*failed = m->failed;
	return m->error;
}

void rec_metrics_free(struct rec_metrics *m)
{
	if (!m)
		return;
	vmt_summary_free(&m->s);
	free(m->path);
	free(m->host);
	vmt_vmmap_free(m->vmmap);
	free(m);
}
