// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "openmetrics.h"
#include "outfile.h"

/* One rendering: where it goes and what every sample carries. */
struct om {
	FILE *f;
	const struct vmt_summary *s;
	const struct vmt_clock *clk;
	enum vmt_openmetrics_format fmt;
	char *base;		/* host="...",vm="..." escaped, or "" */
};

enum family_type { FAM_COUNTER, FAM_GAUGE, FAM_HISTOGRAM };

static const char *const type_names[] = { "counter", "gauge", "histogram" };

uint64_t vmt_openmetrics_bound_ns(unsigned int i)
{
	return (1ULL << (VMT_OPENMETRICS_BOUND_MIN_SHIFT + i)) - 1;
}

/* name="value" with OpenMetrics's three escapes; -EINVAL for other control bytes. */
static int put_label(FILE *f, const char *name, const char *v)
{
	const unsigned char *p;

	fprintf(f, "%s=\"", name);
	for (p = (const unsigned char *)v; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', f);
		if (*p == '\n') {
			fputs("\\n", f);
			continue;
		}
		if (*p < 0x20 || *p == 0x7f)
			return -EINVAL;
		fputc(*p, f);
	}
	fputc('"', f);
	return 0;
}

/* The labels every sample has, as one escaped string (malloc'd into *out). */
static int make_base(const struct vmt_openmetrics_labels *l, char **out)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int ret = 0;

	f = open_memstream(&buf, &size);
	if (!f)
		return -errno;
	if (l && l->host && l->host[0])
		ret = put_label(f, "host", l->host);
	if (!ret && l && l->vm && l->vm[0]) {
		if (l->host && l->host[0])
			fputc(',', f);
		ret = put_label(f, "vm", l->vm);
	}
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	return 0;
}

/* Exact decimal seconds of a ns figure, without trailing zeros: "0.000001023", "2". */
static const char *seconds(uint64_t ns, char *buf, size_t size)
{
	size_t n;

	snprintf(buf, size, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
	n = strlen(buf);
	while (buf[n - 1] == '0')
		buf[--n] = '\0';
	if (buf[n - 1] == '.')
		buf[n - 1] = '\0';
	return buf;
}

/*
 * help is KVM's wording for every pair, unlike the reports' words: node_exporter's textfile
 * collector refuses a family whose HELP differs between two files of its directory, and a
 * KVM recording's and a syscall recording's metrics may share one (tests/e2e/prometheus.sh).
 */
static void family(struct om *om, const char *name, enum family_type type, bool unit,
		   const char *help)
{
	const char *total = type == FAM_COUNTER && om->fmt == VMT_OPENMETRICS_PROMETHEUS ?
			    "_total" : "";

	fprintf(om->f, "# HELP %s%s %s\n", name, total, help);
	fprintf(om->f, "# TYPE %s%s %s\n", name, total, type_names[type]);
	/* the unit is the name's last word (OpenMetrics wants them to agree) */
	if (unit && om->fmt == VMT_OPENMETRICS_TEXT)
		fprintf(om->f, "# UNIT %s %s\n", name, strrchr(name, '_') + 1);
}

/*
 * One sample: name, the base labels, then label=value (escaped) when label is non-NULL,
 * then le="..." when le is non-NULL, then the value.
 */
static int sample(struct om *om, const char *name, const char *label, const char *value_of,
		  const char *le, const char *value)
{
	bool any = om->base[0] || label || le;
	int ret = 0;

	fputs(name, om->f);
	if (any)
		fprintf(om->f, "{%s", om->base);
	if (label) {
		if (om->base[0])
			fputc(',', om->f);
		ret = put_label(om->f, label, value_of);
	}
	if (le)
		fprintf(om->f, "%sle=\"%s\"", om->base[0] || label ? "," : "", le);
	if (any)
		fputc('}', om->f);
	fprintf(om->f, " %s\n", value);
	return ret;
}

static int sample_u64(struct om *om, const char *name, const char *label, const char *value_of,
		      uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return sample(om, name, label, value_of, NULL, buf);
}

static int sample_sec(struct om *om, const char *name, const char *label, const char *value_of,
		      uint64_t ticks)
{
	char buf[32];

	return sample(om, name, label, value_of, NULL,
		      seconds(vmt_clock_ns(om->clk, ticks), buf, sizeof(buf)));
}

/* The reason label but for clashes of two ISAs: name, else "0xCODE". */
static const char *reason_base(const struct vmt_summary *s, size_t i, char *buf, size_t size)
{
	const struct vmt_group *g = &s->reasons[i];
	const char *name = vmt_exitreason_name(s->names, g->isa, g->key);

	if (name)
		snprintf(buf, size, "%s", name);
	else
		vmt_summary_reason(s, g->isa, g->key, buf, size);
	return buf;
}

/*
 * The reason label (see openmetrics.h): unique, as Prometheus rejects a whole exposition
 * that repeats a series. A name two ISAs share gets its code; a code no table knows that
 * two ISAs share gets the ISA's number.
 */
static const char *reason_label(const struct vmt_summary *s, size_t i, char *buf, size_t size)
{
	const struct vmt_group *g = &s->reasons[i];
	char other[160];
	size_t j;

	reason_base(s, i, buf, size);
	for (j = 0; j < s->nreasons; j++) {
		if (j == i || strcmp(reason_base(s, j, other, sizeof(other)), buf) != 0)
			continue;
		if (vmt_exitreason_name(s->names, g->isa, g->key))
			return vmt_summary_reason(s, g->isa, g->key, buf, size);
		snprintf(other, sizeof(other), "%s (isa %" PRIu32 ")", buf, g->isa);
		snprintf(buf, size, "%s", other);
		return buf;
	}
	return buf;
}

/* The vcpu label of task i (see openmetrics.h). */
static const char *vcpu_label(const struct vmt_summary *s, size_t i, char *buf, size_t size)
{
	const struct vmt_group *t = &s->tasks[i];
	size_t j;

	if (!t->has_vcpu) {
		snprintf(buf, size, "pid %" PRId32, t->pid);
		return buf;
	}
	for (j = 0; j < s->ntasks; j++) {
		if (j != i && s->tasks[j].has_vcpu && s->tasks[j].vcpu == t->vcpu) {
			snprintf(buf, size, "%" PRIu32 " (pid %" PRId32 ")", t->vcpu, t->pid);
			return buf;
		}
	}
	snprintf(buf, size, "%" PRIu32, t->vcpu);
	return buf;
}

/*
 * The largest tick count that lasts at most ns: the latdist counts below limit + 1. For ns
 * clocks that is ns itself.
 */
static uint64_t ticks_at_most(const struct vmt_clock *clk, uint64_t ns)
{
	uint64_t t = vmt_clock_ticks_ceil(clk, ns + 1);

	return t ? t - 1 : 0;
}

/* Cumulative counts at every bound into cum[] (values <= bound). */
static void bucket_counts(const struct vmt_latdist *d, const struct vmt_clock *clk,
			  uint64_t cum[VMT_OPENMETRICS_BOUNDS])
{
	unsigned int b, idx = 0, end;
	uint64_t seen = 0, lim;
	uint32_t k;

	for (b = 0; b < VMT_OPENMETRICS_BOUNDS; b++) {
		lim = ticks_at_most(clk, vmt_openmetrics_bound_ns(b));
		if (!d->hist) {
			cum[b] = 0;
			for (k = 0; k < d->nexact; k++)
				cum[b] += d->exact[k] <= lim;
			continue;
		}
		/* buckets wholly at or below lim: exact when lim + 1 starts a bucket */
		end = lim == UINT64_MAX ? VMT_LATDIST_BUCKETS : vmt_latdist_bucket(lim + 1);
		for (; idx < end; idx++)
			seen += vmt_latdist_count(d, idx);
		cum[b] = seen;
	}
}

static int histogram(struct om *om, const char *label, const char *value_of,
		     const struct vmt_latdist *d)
{
	uint64_t cum[VMT_OPENMETRICS_BOUNDS];
	char le[32], v[32];
	unsigned int b;
	int ret;

	bucket_counts(d, om->clk, cum);
	for (b = 0; b < VMT_OPENMETRICS_BOUNDS; b++) {
		snprintf(v, sizeof(v), "%" PRIu64, cum[b]);
		ret = sample(om, "vmtrace_exit_latency_seconds_bucket", label, value_of,
			     seconds(vmt_openmetrics_bound_ns(b), le, sizeof(le)), v);
		if (ret)
			return ret;
	}
	snprintf(v, sizeof(v), "%" PRIu64, d->st.count);
	ret = sample(om, "vmtrace_exit_latency_seconds_bucket", label, value_of, "+Inf", v);
	if (!ret)
		ret = sample_u64(om, "vmtrace_exit_latency_seconds_count", label, value_of,
				 d->st.count);
	if (!ret)
		ret = sample_sec(om, "vmtrace_exit_latency_seconds_sum", label, value_of,
				 d->st.sum);
	return ret;
}

static int per_reason(struct om *om)
{
	const struct vmt_summary *s = om->s;
	char buf[160];
	size_t i;
	int ret = 0;

	family(om, "vmtrace_exits", FAM_COUNTER, false,
	       "Exits (exit-entry pairs) per exit reason.");
	for (i = 0; !ret && i < s->nreasons; i++)
		ret = sample_u64(om, "vmtrace_exits_total", "reason",
				 reason_label(s, i, buf, sizeof(buf)), s->reasons[i].d.st.count);
	if (ret)
		return ret;
	family(om, "vmtrace_exit_latency_seconds", FAM_HISTOGRAM, true,
	       "Time from an exit to the next entry of the same task, per exit reason; bounds "
	       "2^k-1 ns, k=6..32.");
	for (i = 0; !ret && i < s->nreasons; i++)
		ret = histogram(om, "reason", reason_label(s, i, buf, sizeof(buf)),
				&s->reasons[i].d);
	return ret;
}

static int per_task(struct om *om)
{
	const struct vmt_summary *s = om->s;
	char buf[64];
	size_t i;
	int ret = 0;

	family(om, "vmtrace_vcpu_exits", FAM_COUNTER, false, "Exits per vCPU task.");
	for (i = 0; !ret && i < s->ntasks; i++)
		ret = sample_u64(om, "vmtrace_vcpu_exits_total", "vcpu",
				 vcpu_label(s, i, buf, sizeof(buf)), s->tasks[i].d.st.count);
	if (ret)
		return ret;
	family(om, "vmtrace_out_of_guest_seconds", FAM_COUNTER, true,
	       "Time the vCPU task spent between exits and entries.");
	for (i = 0; !ret && i < s->ntasks; i++)
		ret = sample_sec(om, "vmtrace_out_of_guest_seconds_total", "vcpu",
				 vcpu_label(s, i, buf, sizeof(buf)), s->tasks[i].d.st.sum);
	if (ret)
		return ret;
	family(om, "vmtrace_worst_window_seconds", FAM_GAUGE, true,
	       "The vCPU task's largest out-of-guest time inside any window of "
	       "vmtrace_window_seconds.");
	for (i = 0; !ret && i < s->ntasks; i++)
		ret = sample_sec(om, "vmtrace_worst_window_seconds", "vcpu",
				 vcpu_label(s, i, buf, sizeof(buf)), s->tasks[i].max_window_sum);
	return ret;
}

static int totals(struct om *om)
{
	const struct vmt_summary *s = om->s;
	char buf[32];
	int ret;

	family(om, "vmtrace_window_seconds", FAM_GAUGE, true,
	       "Length of the sliding window of vmtrace_worst_window_seconds.");
	ret = sample(om, "vmtrace_window_seconds", NULL, NULL, NULL,
		     seconds(s->window_ns, buf, sizeof(buf)));
	family(om, "vmtrace_lost_events", FAM_COUNTER, false,
	       "Events the kernel dropped while recording.");
	if (!ret)
		ret = sample_u64(om, "vmtrace_lost_events_total", NULL, NULL, s->lost_events);
	/* a damaged chunk lost events nobody counted: lost_events alone would read clean */
	family(om, "vmtrace_lost_uncounted", FAM_COUNTER, false,
	       "Places where events were lost uncounted (damaged data, pages flagged without a "
	       "count, no end statistics): vmtrace_lost_events_total is then a lower bound.");
	if (!ret)
		ret = sample_u64(om, "vmtrace_lost_uncounted_total", NULL, NULL,
				 s->lost_damaged + s->lost_uncounted + s->lost_end_unknown);
	family(om, "vmtrace_orphans", FAM_COUNTER, false,
	       "Exits without their entry and entries without their exit, exits still open at "
	       "the stop among them.");
	if (!ret)
		ret = sample_u64(om, "vmtrace_orphans_total", NULL, NULL,
				 vmt_summary_orphans(s));
	return ret;
}

int vmt_openmetrics_write(FILE *f, const struct vmt_summary *s, const struct vmt_clock *clk,
			  const struct vmt_openmetrics_labels *l, enum vmt_openmetrics_format fmt)
{
	struct om om = { .f = f, .s = s, .clk = clk, .fmt = fmt };
	int ret;

	ret = make_base(l, &om.base);
	if (ret)
		return ret;
	ret = per_reason(&om);
	if (!ret)
		ret = per_task(&om);
	if (!ret)
		ret = totals(&om);
	if (!ret && fmt == VMT_OPENMETRICS_TEXT)
		fputs("# EOF\n", f);
	free(om.base);
	if (!ret && (fflush(f) || ferror(f)))
		ret = errno ? -errno : -EIO;
	return ret;
}

int vmt_openmetrics_write_fd(int fd, const struct vmt_summary *s, const struct vmt_clock *clk,
			     const struct vmt_openmetrics_labels *l,
			     enum vmt_openmetrics_format fmt)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int ret;

	f = open_memstream(&buf, &size);
	if (!f)
		return -errno;
	ret = vmt_openmetrics_write(f, s, clk, l, fmt);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (!ret)
		ret = vmt_io_write_full(fd, buf, size);
	free(buf);
	return ret;
}

int vmt_openmetrics_publish(const char *path, const struct vmt_summary *s,
			    const struct vmt_clock *clk, const struct vmt_openmetrics_labels *l,
			    enum vmt_openmetrics_format fmt)
{
	struct vmt_outfile *of;
	int ret;

	ret = vmt_outfile_open(path, 0, &of);
	if (ret)
		return ret;
	ret = vmt_openmetrics_write_fd(vmt_outfile_fd(of), s, clk, l, fmt);
	if (ret) {
		vmt_outfile_discard(of);
		return ret;
	}
	return vmt_outfile_commit(of, NULL, NULL);
}
