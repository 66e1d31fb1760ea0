// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "openmetrics.h"
#include "textwidth.h"
#include "outfile.h"
#include "vmfind.h"

/* One rendering: where it goes and what every sample carries. */
struct om {
	FILE *f;
	const struct vmt_summary *s;
	const struct vmt_clock *clk;
	enum vmt_openmetrics_format fmt;
	char *base;		/* host="...",vm="..." escaped, or "" */
	bool base_vm;		/* base has a vm label */
	const struct vmt_vmmap *vmmap;	/* the per-task vm labels' names, or NULL */
};

enum family_type { FAM_COUNTER, FAM_GAUGE, FAM_HISTOGRAM };

static const char *const type_names[] = { "counter", "gauge", "histogram" };

uint64_t vmt_openmetrics_bound_ns(unsigned int i)
{
	return (1ULL << (VMT_OPENMETRICS_BOUND_MIN_SHIFT + i)) - 1;
}

/*
 * name="value" with OpenMetrics's three escapes; -EINVAL for other control bytes. The text
 * format is UTF-8, and one invalid byte makes a scraper refuse the whole exposition: a byte
 * that starts no valid sequence (a name cut inside a character, a name in another
 * encoding) is written as U+FFFD, the replacement character.
 */
static int put_label(FILE *f, const char *name, const char *v)
{
	const unsigned char *p = (const unsigned char *)v;
	size_t left = strlen(v);

	fprintf(f, "%s=\"", name);
	while (left) {
		size_t n = vmt_textwidth_seq((const char *)p, left);

		if (n == 0) {
			fputs("\xef\xbf\xbd", f);
			n = 1;
		} else if (n > 1) {
			fwrite(p, 1, n, f);
		} else if (*p == '\n') {
			fputs("\\n", f);
		} else if (*p < 0x20 || *p == 0x7f) {
			return -EINVAL;
		} else {
			if (*p == '\\' || *p == '"')
				fputc('\\', f);
			fputc(*p, f);
		}
		p += n;
		left -= n;
	}
	fputc('"', f);
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
 * "n1=\"v1\",n2=\"v2\"" escaped (malloc'd into *out), a pair left out when its name is
 * NULL; "" for none. -EINVAL for a control byte, -ENOMEM.
 */
static int labels_of(const char *n1, const char *v1, const char *n2, const char *v2, char **out)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int ret = 0;

	f = open_memstream(&buf, &size);
	if (!f)
		return -errno;
	if (n1)
		ret = put_label(f, n1, v1);
	if (!ret && n2) {
		if (n1)
			fputc(',', f);
		ret = put_label(f, n2, v2);
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

/*
 * One sample: name, the base labels, then labels (escaped by labels_of(), "" or NULL for
 * none), then le="..." when le is non-NULL, then the value.
 */
static void sample(struct om *om, const char *name, const char *labels, const char *le,
		   const char *value)
{
	bool own = labels && labels[0];
	bool any = om->base[0] || own || le;

	fputs(name, om->f);
	if (any)
		fprintf(om->f, "{%s", om->base);
	if (own)
		fprintf(om->f, "%s%s", om->base[0] ? "," : "", labels);
	if (le)
		fprintf(om->f, "%sle=\"%s\"", om->base[0] || own ? "," : "", le);
	if (any)
		fputc('}', om->f);
	fprintf(om->f, " %s\n", value);
}

static void sample_u64(struct om *om, const char *name, const char *labels, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	sample(om, name, labels, NULL, buf);
}

static void sample_sec(struct om *om, const char *name, const char *labels, uint64_t ticks)
{
	char buf[32];

	sample(om, name, labels, NULL, seconds(vmt_clock_ns(om->clk, ticks), buf, sizeof(buf)));
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
		/* after a code ("0x4242"): fits, else cut at the end of buf */
		snprintf(other, sizeof(other), " (isa %" PRIu32 ")", g->isa);
		strncat(buf, other, size - strlen(buf) - 1);
		return buf;
	}
	return buf;
}

/*
 * The vm label of the map's VM vm (malloc'd; NULL: -ENOMEM): its name, unique in the map
 * unless two VMs share it (vmfind.c names a VM selected by pid with its QEMU -name, and the
 * two QEMUs of a local live migration both run -name web): then "web (pid 900)" with the
 * VMM's pid, or "web (vm 1)" with the map's index when the pid does not tell them apart
 * either, so that no two VMs' samples of a family have the same labels (OpenMetrics forbids
 * it; a scraper keeps one of the two). Every family uses it, so sum by (vm) agrees.
 */
static char *vm_label(const struct vmt_vmmap *m, unsigned int vm)
{
	const char *name = vmt_vmmap_name(m, vm);
	int32_t pid = vmt_vmmap_pid(m, vm);
	unsigned int i, n = vmt_vmmap_count(m);
	bool clash = false, same_pid = false;
	char *out;

	for (i = 0; i < n; i++) {
		if (i == vm || strcmp(vmt_vmmap_name(m, i), name) != 0)
			continue;
		clash = true;
		same_pid |= vmt_vmmap_pid(m, i) == pid;
	}
	if (!clash)
		return strdup(name);
	if ((same_pid ? asprintf(&out, "%s (vm %u)", name, vm) :
			asprintf(&out, "%s (pid %" PRId32 ")", name, pid)) < 0)
		return NULL;
	return out;
}

/* What tells a vCPU task apart in the per-task families (see openmetrics.h). */
struct task_id {
	int vm;			/* its VM's index in the map (label: vm_label()), -1: none */
	bool has_vcpu;
	uint32_t vcpu;
};

/*
 * The vCPU index is the events' own, else the map's index of the thread, as the JSON
 * report's vcpus give it (reportjson.c), so that the two views name a task alike.
 */
static void task_id(const struct vmt_group *t, const struct vmt_vmmap *m, bool per_vm,
		    struct task_id *id)
{
	unsigned int vm = 0, vcpu = 0;
	bool known = m && vmt_vmmap_lookup(m, t->pid, &vm, &vcpu) == 0;

	id->vm = per_vm && known ? (int)vm : -1;
	id->has_vcpu = t->has_vcpu || known;
	id->vcpu = t->has_vcpu ? t->vcpu : vcpu;
}

static bool same_vm(const struct task_id *a, const struct task_id *b)
{
	/* one VM, one label (vm_label()), also when two VMs share a name */
	return a->vm == b->vm;
}

/*
 * The vcpu label of task i (see openmetrics.h): unique among the tasks of its vm label, so
 * that two VMs' vCPU 0 read vm="a",vcpu="0" and vm="b",vcpu="0", not their pids.
 */
static const char *vcpu_label(const struct vmt_summary *s, const struct task_id *ids, size_t i,
			      char *buf, size_t size)
{
	const struct task_id *t = &ids[i];
	size_t j;

	if (!t->has_vcpu) {
		snprintf(buf, size, "pid %" PRId32, s->tasks[i].pid);
		return buf;
	}
	for (j = 0; j < s->ntasks; j++) {
		if (j != i && ids[j].has_vcpu && ids[j].vcpu == t->vcpu && same_vm(&ids[j], t)) {
			snprintf(buf, size, "%" PRIu32 " (pid %" PRId32 ")", t->vcpu,
				 s->tasks[i].pid);
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

static void histogram(struct om *om, const char *labels, const struct vmt_latdist *d)
{
	uint64_t cum[VMT_OPENMETRICS_BOUNDS];
	char le[32], v[32];
	unsigned int b;

	bucket_counts(d, om->clk, cum);
	for (b = 0; b < VMT_OPENMETRICS_BOUNDS; b++) {
		snprintf(v, sizeof(v), "%" PRIu64, cum[b]);
		sample(om, "vmtrace_exit_latency_seconds_bucket", labels,
		       seconds(vmt_openmetrics_bound_ns(b), le, sizeof(le)), v);
	}
	snprintf(v, sizeof(v), "%" PRIu64, d->st.count);
	sample(om, "vmtrace_exit_latency_seconds_bucket", labels, "+Inf", v);
	sample_u64(om, "vmtrace_exit_latency_seconds_count", labels, d->st.count);
	sample_sec(om, "vmtrace_exit_latency_seconds_sum", labels, vmt_latstat_total(&d->st));
}

static void free_labels(char **l, size_t n)
{
	size_t i;

	for (i = 0; l && i < n; i++)
		free(l[i]);
	free(l);
}

/*
 * The per-reason samples: their labels (labels_of()) and figures, in order: a reason's
 * distribution (d), or with a VM its compact figures (e, vmreason.h).
 */
struct reason_rows {
	size_t n;
	char **labels;			/* free_labels() */
	const struct vmt_latdist **d;
	const struct vmt_vmreason **e;
};

/* A VM's figures with the summary's index of their reason: the rows' order. */
struct vm_row {
	size_t reason;
	const struct vmt_vmreason *e;
};

static int by_reason_then_vm(const void *a, const void *b)
{
	const struct vm_row *x = a, *y = b;

	if (x->reason != y->reason)
		return x->reason < y->reason ? -1 : 1;
	return (x->e->vm > y->e->vm) - (x->e->vm < y->e->vm);
}

/* The reasons' (isa, key) with their index, sorted: found by bsearch. */
struct reason_key {
	uint32_t isa;
	uint64_t key;
	size_t i;
};

static int by_reason_key(const void *a, const void *b)
{
	const struct reason_key *x = a, *y = b;

	if (x->isa != y->isa)
		return x->isa < y->isa ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

/*
 * The VMs' figures in the rows' order: by reason (the summary's order), each reason's VMs
 * in the map's order, the tasks it lacks last. n log n, for hosts of many VMs and reasons.
 */
static struct vm_row *vm_rows(const struct vmt_summary *s, size_t *n)
{
	const struct vmt_vmreasons *vr = &s->vmreasons;
	struct reason_key *keys = calloc(s->nreasons ? s->nreasons : 1, sizeof(*keys));
	struct vm_row *rows = calloc(vr->n ? vr->n : 1, sizeof(*rows));
	size_t i, k = 0;

	if (!keys || !rows) {
		free(keys);
		free(rows);
		return NULL;
	}
	for (i = 0; i < s->nreasons; i++)
		keys[i] = (struct reason_key){ s->reasons[i].isa, s->reasons[i].key, i };
	qsort(keys, s->nreasons, sizeof(*keys), by_reason_key);
	for (i = 0; i < vr->n; i++) {
		struct reason_key want = { vr->v[i].isa, vr->v[i].key, 0 };
		const struct reason_key *r = bsearch(&want, keys, s->nreasons, sizeof(*keys),
						     by_reason_key);

		if (r)	/* every one has its reason after a pass */
			rows[k++] = (struct vm_row){ r->i, &vr->v[i] };
	}
	free(keys);
	qsort(rows, k, sizeof(*rows), by_reason_then_vm);
	*n = k;
	return rows;
}

/*
 * One row per reason; with by_vm, one per VM and reason instead (the reasons in their
 * order, each one's VMs in the map's, the tasks it lacks last as vm=""), so that two VMs'
 * exits of a reason are two series, neither summed into one nor the same one twice.
 */
static int reason_rows(const struct om *om, bool by_vm, struct reason_rows *rr)
{
	const struct vmt_summary *s = om->s;
	size_t n = s->nreasons, i, k;
	struct vm_row *rows = NULL;
	char buf[160], *vm = NULL;
	int ret = 0;

	if (by_vm && !(rows = vm_rows(s, &n)))
		return -ENOMEM;
	rr->n = n;
	rr->labels = calloc(n ? n : 1, sizeof(*rr->labels));
	rr->d = calloc(n ? n : 1, sizeof(*rr->d));
	rr->e = calloc(n ? n : 1, sizeof(*rr->e));
	if (!rr->labels || !rr->d || !rr->e) {
		free(rows);
		return -ENOMEM;
	}
	for (k = 0; !ret && k < n; k++) {
		if (!by_vm) {
			reason_label(s, k, buf, sizeof(buf));
			rr->d[k] = &s->reasons[k].d;
			ret = labels_of("reason", buf, NULL, NULL, &rr->labels[k]);
			continue;
		}
		i = rows[k].reason;
		reason_label(s, i, buf, sizeof(buf));
		rr->e[k] = rows[k].e;
		if (rows[k].e->vm < vmt_vmmap_count(om->vmmap) &&
		    !(vm = vm_label(om->vmmap, rows[k].e->vm))) {
			ret = -ENOMEM;
			break;
		}
		ret = labels_of("vm", vm ? vm : "", "reason", buf, &rr->labels[k]);
		free(vm);
		vm = NULL;
	}
	free(rows);
	return ret;
}

/* A VM's histogram of one reason, from its compact figures: the same samples as histogram(). */
static void vm_histogram(struct om *om, const char *labels, const struct vmt_vmreason *e)
{
	char le[32], v[32];
	unsigned int b;

	for (b = 0; b < VMT_OPENMETRICS_BOUNDS; b++) {
		uint64_t bound = vmt_openmetrics_bound_ns(b);

		/* bounds 2^k - 1 ns: the values of at most k bits */
		snprintf(v, sizeof(v), "%" PRIu64,
			 vmt_vmreason_at_most(e, 64 - (unsigned int)__builtin_clzll(bound)));
		sample(om, "vmtrace_exit_latency_seconds_bucket", labels,
		       seconds(bound, le, sizeof(le)), v);
	}
	snprintf(v, sizeof(v), "%" PRIu64, e->count);
	sample(om, "vmtrace_exit_latency_seconds_bucket", labels, "+Inf", v);
	sample_u64(om, "vmtrace_exit_latency_seconds_count", labels, e->count);
	sample_sec(om, "vmtrace_exit_latency_seconds_sum", labels, vmt_vmreason_total(e));
}

/* The per-reason families, from rows (reason_rows(); by_vm as they were made). */
static void per_reason(struct om *om, const struct reason_rows *rr, bool by_vm)
{
	size_t i;

	family(om, "vmtrace_exits", FAM_COUNTER, false, "Exits (exit-entry pairs) per exit reason.");
	for (i = 0; i < rr->n; i++)
		sample_u64(om, "vmtrace_exits_total", rr->labels[i],
			   by_vm ? rr->e[i]->count : rr->d[i]->st.count);
	family(om, "vmtrace_exit_latency_seconds", FAM_HISTOGRAM, true,
	       "Time from an exit to the next entry of the same task, per exit reason; "
	       "bounds 2^k-1 ns, k=6..32.");
	for (i = 0; i < rr->n; i++) {
		if (by_vm)
			vm_histogram(om, rr->labels[i], rr->e[i]);
		else
			histogram(om, rr->labels[i], rr->d[i]);
	}
}

/*
 * Every task's vm (when per_vm) and vcpu labels. A vm label per task only when the caller
 * gave none for every sample: a sample never has two (Prometheus refuses the exposition).
 */
static int task_labels(const struct om *om, char ***out)
{
	const struct vmt_summary *s = om->s;
	bool per_vm = om->vmmap && !om->base_vm;
	size_t n = s->ntasks ? s->ntasks : 1, i;
	struct task_id *ids = calloc(n, sizeof(*ids));
	char buf[64], **l = calloc(n, sizeof(*l));
	int ret = 0;

	if (!ids || !l) {
		free(ids);
		free(l);
		return -ENOMEM;
	}
	for (i = 0; i < s->ntasks; i++)
		task_id(&s->tasks[i], om->vmmap, per_vm, &ids[i]);
	for (i = 0; !ret && i < s->ntasks; i++) {
		char *vm = NULL;

		if (ids[i].vm >= 0 && !(vm = vm_label(om->vmmap, (unsigned int)ids[i].vm))) {
			ret = -ENOMEM;
			break;
		}
		ret = labels_of(per_vm ? "vm" : NULL, vm ? vm : "", "vcpu",
				vcpu_label(s, ids, i, buf, sizeof(buf)), &l[i]);
		free(vm);
	}
	free(ids);
	if (ret) {
		free_labels(l, s->ntasks);
		return ret;
	}
	*out = l;
	return 0;
}

/* The per-task families, each task's labels from task_labels(). */
static void per_task(struct om *om, char *const *labels)
{
	const struct vmt_summary *s = om->s;
	size_t i;

	family(om, "vmtrace_vcpu_exits", FAM_COUNTER, false, "Exits per vCPU task.");
	for (i = 0; i < s->ntasks; i++)
		sample_u64(om, "vmtrace_vcpu_exits_total", labels[i], s->tasks[i].d.st.count);
	family(om, "vmtrace_out_of_guest_seconds", FAM_COUNTER, true,
	       "Time the vCPU task spent between exits and entries.");
	for (i = 0; i < s->ntasks; i++)
		sample_sec(om, "vmtrace_out_of_guest_seconds_total", labels[i],
			   vmt_latstat_total(&s->tasks[i].d.st));
	family(om, "vmtrace_worst_window_seconds", FAM_GAUGE, true,
	       "The vCPU task's largest out-of-guest time inside any window of "
	       "vmtrace_window_seconds.");
	for (i = 0; i < s->ntasks; i++)
		sample_sec(om, "vmtrace_worst_window_seconds", labels[i],
			   s->tasks[i].max_window_sum);
}

static void totals(struct om *om)
{
	const struct vmt_summary *s = om->s;
	char buf[32];

	family(om, "vmtrace_window_seconds", FAM_GAUGE, true,
	       "Length of the sliding window of vmtrace_worst_window_seconds.");
	sample(om, "vmtrace_window_seconds", NULL, NULL, seconds(s->window_ns, buf, sizeof(buf)));
	family(om, "vmtrace_lost_events", FAM_COUNTER, false,
	       "Events the kernel dropped while recording.");
	sample_u64(om, "vmtrace_lost_events_total", NULL, s->lost_events);
	/* a damaged chunk lost events nobody counted: lost_events alone would read clean */
	family(om, "vmtrace_lost_uncounted", FAM_COUNTER, false,
	       "Places where events were lost uncounted (damaged data, pages flagged without a "
	       "count, no end statistics): vmtrace_lost_events_total is then a lower bound.");
	sample_u64(om, "vmtrace_lost_uncounted_total", NULL,
		   s->lost_damaged + s->lost_uncounted + s->lost_end_unknown);
	family(om, "vmtrace_orphans", FAM_COUNTER, false,
	       "Exits without their entry and entries without their exit, exits still open at "
	       "the stop among them: the whole recording's, whatever the filters (a file per "
	       "--vm repeats it; vmtrace_open_exits is the filters').");
	sample_u64(om, "vmtrace_orphans_total", NULL, vmt_summary_orphans(s));
}

/*
 * The exits still open at the end of the figures (s->open: every one the filters keep),
 * per reason (and per VM with a map, as the per-reason families): the longest open. Labels
 * made before the first line is written, as every other.
 */
struct open_rows {
	size_t n;
	uint64_t *max;		/* trace clock units */
	char **labels;
};

/* The reason label of an open exit: the per-reason families' own when they have it. */
static void open_reason_label(const struct vmt_summary *s, const struct vmt_event *ex,
			      char *buf, size_t size)
{
	uint64_t key = vmt_exitreason_key(ex->isa, ex->reason);
	const char *name;
	size_t i;

	if (!(ex->has & VMT_EVF_REASON)) {
		snprintf(buf, size, "unknown");
		return;
	}
	for (i = 0; i < s->nreasons; i++) {
		if (s->reasons[i].isa == ex->isa && s->reasons[i].key == key) {
			reason_label(s, i, buf, size);
			return;
		}
	}
	name = vmt_exitreason_name(s->names, ex->isa, key);
	if (name)
		snprintf(buf, size, "%s", name);
	else
		vmt_summary_reason(s, ex->isa, key, buf, size);
}

static int open_rows(const struct om *om, bool by_vm, struct open_rows *or)
{
	const struct vmt_summary *s = om->s;
	char reason[160], *vm, *labels;
	size_t i, k;
	int ret = 0;

	or->max = calloc(s->nopen ? s->nopen : 1, sizeof(*or->max));
	or->labels = calloc(s->nopen ? s->nopen : 1, sizeof(*or->labels));
	if (!or->max || !or->labels)
		return -ENOMEM;
	for (i = 0; !ret && i < s->nopen; i++) {
		const struct vmt_open *o = &s->open[i];
		unsigned int v = UINT_MAX, idx;

		open_reason_label(s, &o->exit, reason, sizeof(reason));
		vm = NULL;
		if (by_vm && !vmt_vmmap_lookup(om->vmmap, o->exit.pid, &v, &idx) &&
		    !(vm = vm_label(om->vmmap, v)))
			return -ENOMEM;
		ret = labels_of(by_vm ? "vm" : NULL, vm ? vm : "", "reason", reason, &labels);
		free(vm);
		if (ret)
			break;
		for (k = 0; k < or->n && strcmp(or->labels[k], labels); k++)
			;
		if (k < or->n) {
			free(labels);
		} else {
			or->labels[or->n++] = labels;
		}
		if (o->open > or->max[k])
			or->max[k] = o->open;
	}
	return ret;
}

static void open_exits(struct om *om, const struct open_rows *or)
{
	size_t k;

	family(om, "vmtrace_open_exits", FAM_GAUGE, false,
	       "Exits still open at the end of the figures: their vCPU tasks had not entered "
	       "the guest again.");
	sample_u64(om, "vmtrace_open_exits", NULL, om->s->nopen);
	family(om, "vmtrace_open_exit_seconds", FAM_GAUGE, true,
	       "Per exit reason, how long the longest exit still open at the end of the "
	       "figures had been open: a vCPU stuck out of its guest (an idle one waits in "
	       "HLT).");
	for (k = 0; k < or->n; k++)
		sample_sec(om, "vmtrace_open_exit_seconds", or->labels[k], or->max[k]);
}

/* The labels families set themselves: a user's label of one of these names would repeat it. */
static const char *const own_labels[] = { "host", "vm", "reason", "vcpu", "le" };

int vmt_openmetrics_extra_add(const char **list, size_t *n, const char *arg, char *msg,
			      size_t size)
{
	const char *eq = strchr(arg, '='), *p;
	size_t len = eq ? (size_t)(eq - arg) : 0, i;

	if (!eq || !len) {
		snprintf(msg, size, "'%s': a label is NAME=VALUE", arg);
		return -EINVAL;
	}
	for (p = arg; p < eq; p++) {
		if (!(isalpha((unsigned char)*p) || *p == '_' || (p > arg && isdigit((unsigned char)*p))) ||
		    !isascii((unsigned char)*p)) {
			snprintf(msg, size, "'%.*s': a label name is letters, digits and '_', not "
				 "starting with a digit", (int)len, arg);
			return -EINVAL;
		}
	}
	if (len >= 2 && arg[0] == '_' && arg[1] == '_') {
		snprintf(msg, size, "'%.*s': label names starting with '__' are Prometheus's own",
			 (int)len, arg);
		return -EINVAL;
	}
	for (i = 0; i < sizeof(own_labels) / sizeof(own_labels[0]); i++) {
		if (strlen(own_labels[i]) == len && !strncmp(arg, own_labels[i], len)) {
			snprintf(msg, size, "'%.*s': vmtrace sets that label itself (host, vm, "
				 "reason, vcpu, le)", (int)len, arg);
			return -EINVAL;
		}
	}
	for (i = 0; i < *n; i++) {
		if (!strncmp(list[i], arg, len + 1)) {
			snprintf(msg, size, "'%.*s': that label is given twice", (int)len, arg);
			return -EINVAL;
		}
	}
	for (p = eq + 1; *p; p++) {
		if (((unsigned char)*p < 0x20 && *p != '\n') || *p == 0x7f) {
			snprintf(msg, size, "'%.*s': the label's value holds a control character",
				 (int)len, arg);
			return -EINVAL;
		}
	}
	if (*n == VMT_OPENMETRICS_MAX_EXTRA) {
		snprintf(msg, size, "at most %d labels", VMT_OPENMETRICS_MAX_EXTRA);
		return -EINVAL;
	}
	list[(*n)++] = arg;
	return 0;
}

/* host, vm, then the caller's extra labels, escaped once (malloc'd into *out) */
static int base_labels(const struct vmt_openmetrics_labels *l, const char *host, const char *vm,
		       char **out)
{
	char *buf = NULL, name[64];
	size_t size = 0, i, len;
	int ret;
	FILE *f;

	ret = labels_of(host ? "host" : NULL, host, vm ? "vm" : NULL, vm, out);
	if (ret || !l || !l->nextra)
		return ret;
	f = open_memstream(&buf, &size);
	if (!f) {
		ret = -errno;
		goto out;
	}
	fputs(*out, f);
	for (i = 0; !ret && i < l->nextra; i++) {
		const char *eq = strchr(l->extra[i], '=');

		len = eq ? (size_t)(eq - l->extra[i]) : 0;
		if (!len || len >= sizeof(name)) {
			ret = -EINVAL;
			break;
		}
		memcpy(name, l->extra[i], len);
		name[len] = '\0';
		if ((*out)[0] || i)
			fputc(',', f);
		ret = put_label(f, name, eq + 1);
	}
	if (fclose(f) && !ret)
		ret = -ENOMEM;
out:
	free(*out);
	*out = ret ? NULL : buf;
	if (ret)
		free(buf);
	return ret;
}

int vmt_openmetrics_write(FILE *f, const struct vmt_summary *s, const struct vmt_clock *clk,
			  const struct vmt_openmetrics_labels *l, enum vmt_openmetrics_format fmt)
{
	const char *host = l && l->host && l->host[0] ? l->host : NULL;
	const char *vm = l && l->vm && l->vm[0] ? l->vm : NULL;
	struct om om = { .f = f, .s = s, .clk = clk, .fmt = fmt };
	struct reason_rows rr = { 0 };
	struct open_rows orows = { 0 };
	char **tlabels = NULL;
	bool by_vm;
	int ret;

	/*
	 * Every label first, escaped once: one that cannot be written (a control byte) stops
	 * the exposition before its first line, so that a stream can take it as it comes
	 */
	ret = base_labels(l, host, vm, &om.base);
	if (ret)
		return ret;
	om.base_vm = vm != NULL;
	om.vmmap = l ? l->vmmap : NULL;
	by_vm = om.vmmap && !om.base_vm && s->vmreasons.on;
	ret = reason_rows(&om, by_vm, &rr);
	if (!ret)
		ret = task_labels(&om, &tlabels);
	if (!ret)
		ret = open_rows(&om, by_vm, &orows);
	if (!ret) {
		per_reason(&om, &rr, by_vm);
		per_task(&om, tlabels);
		totals(&om);
		open_exits(&om, &orows);
		if (fmt == VMT_OPENMETRICS_TEXT)
			fputs("# EOF\n", f);
		free_labels(tlabels, s->ntasks);
	}
	free_labels(orows.labels, orows.n);
	free(orows.max);
	free_labels(rr.labels, rr.n);
	free(rr.d);
	free(rr.e);
	free(om.base);
	if (!ret && (fflush(f) || ferror(f)))
		ret = errno ? -errno : -EIO;
	return ret;
}

/*
 * Streamed through a buffer of its own: the text of a host of many VMs and reasons is tens
 * of MB (30 MB for 256 VMs of 40 reasons each, which peaked at 46 MB when it was built in
 * memory first: tests/e2e/report_openmetrics_big.sh).
 */
int vmt_openmetrics_write_fd(int fd, const struct vmt_summary *s, const struct vmt_clock *clk,
			     const struct vmt_openmetrics_labels *l,
			     enum vmt_openmetrics_format fmt)
{
	int ret, dupfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	FILE *f;

	if (dupfd < 0)
		return -errno;
	f = fdopen(dupfd, "w");
	if (!f) {
		ret = -errno;
		close(dupfd);
		return ret;
	}
	setvbuf(f, NULL, _IOFBF, 1u << 16);
	ret = vmt_openmetrics_write(f, s, clk, l, fmt);
	errno = 0;
	if (fclose(f) && !ret)
		ret = errno ? -errno : -EIO;
	return ret;
}

int vmt_openmetrics_publish(const char *path, const struct vmt_summary *s,
			    const struct vmt_clock *clk, const struct vmt_openmetrics_labels *l,
			    enum vmt_openmetrics_format fmt, char *note, size_t note_size)
{
	struct vmt_outfile *of;
	int ret;

	if (note_size)
		note[0] = '\0';
	ret = vmt_outfile_open(path, 0, &of, note, note_size);
	if (ret)
		return ret;
	if (note_size)
		snprintf(note, note_size, "%s", vmt_outfile_note(of));
	ret = vmt_openmetrics_write_fd(vmt_outfile_fd(of), s, clk, l, fmt);
	if (ret)
		vmt_outfile_discard(of);
	else
		ret = vmt_outfile_commit(of, NULL, NULL);
	if (ret && note_size)
		note[0] = '\0';	/* the owner's words: not what failed */
	return ret;
}
