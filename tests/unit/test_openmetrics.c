// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * openmetrics: a summary built by hand from known latencies, rendered, and every sample read
 * back from the text: bucket counts against a recount of the raw values (below and above
 * the distribution's exact limit, values right at the bounds, a cycle clock), sums as
 * exact decimals, labels (collisions, unknown codes, escaping, the vm of each vCPU task from
 * a VM map, per VM and reason), both formats' framing, and publishing into a path.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "kv.h"
#include "openmetrics.h"
#include "outfile.h"
#include "vmfind.h"

static const struct vmt_clock ns_clock = { 1.0, 0, 0 };

#define NREASONS 4
#define NTASKS 4
#define MAXVALS 6000

struct fixture {
	struct vmt_summary s;
	struct vmt_exitreasons *names;
	struct vmt_group reasons[NREASONS];
	struct vmt_group tasks[NTASKS];
	uint64_t *vals[NREASONS];	/* the raw values, for the recount */
	size_t nvals[NREASONS];
};

static void add(struct fixture *fx, unsigned int r, uint64_t v)
{
	assert_int_equal(vmt_latdist_add(&fx->reasons[r].d, v), 0);
	fx->vals[r][fx->nvals[r]++] = v;
}

static int setup(void **state)
{
	struct vmt_evformat kvm_exit = { .name = (char *)"kvm_exit" };
	struct fixture *fx = calloc(1, sizeof(*fx));
	uint64_t x = 88172645463325252ULL;
	unsigned int r, i;

	assert_non_null(fx);
	assert_int_equal(vmt_exitreasons_new(&kvm_exit, NULL, &fx->names), 0);
	for (r = 0; r < NREASONS; r++) {
		vmt_latdist_init(&fx->reasons[r].d);
		fx->vals[r] = calloc(MAXVALS, sizeof(uint64_t));
		assert_non_null(fx->vals[r]);
	}
	/* VMX HLT: past the exact limit (the log-linear histogram), values at every bound */
	fx->reasons[0].isa = VMT_ISA_VMX;
	fx->reasons[0].key = 12;
	for (i = 0; i < VMT_OPENMETRICS_BOUNDS; i++) {
		uint64_t b = vmt_openmetrics_bound_ns(i);

		add(fx, 0, b);
		add(fx, 0, b + 1);
		add(fx, 0, b - 1);
	}
	for (i = 0; i < 5000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		add(fx, 0, (x % 4000000) >> (x % 12));
	}
	add(fx, 0, 0);
	add(fx, 0, 500000000000ULL);	/* 500 s: only in +Inf */
	/* SVM hlt: a few values, exact */
	fx->reasons[1].isa = VMT_ISA_SVM;
	fx->reasons[1].key = 0x78;
	add(fx, 1, 1023);
	add(fx, 1, 1024);
	add(fx, 1, 70);
	/* a code no table knows; empty */
	fx->reasons[2].isa = VMT_ISA_VMX;
	fx->reasons[2].key = 0x4242;
	/* the same unknown code of the other ISA: the labels must still differ */
	fx->reasons[3].isa = VMT_ISA_SVM;
	fx->reasons[3].key = 0x4242;
	add(fx, 3, 5);
	/* tasks: two with vCPU 0, one without an index, one with 3 */
	for (i = 0; i < NTASKS; i++) {
		vmt_latdist_init(&fx->tasks[i].d);
		fx->tasks[i].pid = 100 + (int32_t)i;
		fx->tasks[i].has_vcpu = i != 2;
		fx->tasks[i].vcpu = i == 3 ? 3 : 0;
		assert_int_equal(vmt_latdist_add(&fx->tasks[i].d, 1000000001ULL * (i + 1)), 0);
		fx->tasks[i].max_window_sum = 250000 + i;
	}
	fx->s.names = fx->names;
	fx->s.reasons = fx->reasons;
	fx->s.nreasons = NREASONS;
	fx->s.tasks = fx->tasks;
	fx->s.ntasks = NTASKS;
	fx->s.window_ns = 1000000;
	fx->s.lost_events = 17;
	fx->s.pairing.orphan_begins = 2;
	fx->s.pairing.orphan_ends = 3;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	unsigned int i;

	for (i = 0; i < NREASONS; i++) {
		vmt_latdist_free(&fx->reasons[i].d);
		free(fx->vals[i]);
	}
	for (i = 0; i < NTASKS; i++)
		vmt_latdist_free(&fx->tasks[i].d);
	vmt_exitreasons_free(fx->names);
	free(fx);
	return 0;
}

static char *render(const struct vmt_summary *s, const struct vmt_clock *clk,
		    const struct vmt_openmetrics_labels *l, enum vmt_openmetrics_format fmt)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	assert_non_null(f);
	assert_int_equal(vmt_openmetrics_write(f, s, clk, l, fmt), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The value of the sample whose line starts with prefix (exactly one such line). */
static double value_of(const char *text, const char *prefix)
{
	const char *p = text, *hit = NULL;
	size_t n = strlen(prefix);

	while (p && *p) {
		if (strncmp(p, prefix, n) == 0 && p[n] == ' ') {
			assert_null(hit);
			hit = p + n + 1;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!hit)
		fail_msg("no sample %s", prefix);
	return strtod(hit, NULL);
}

static uint64_t recount(const uint64_t *v, size_t n, const struct vmt_clock *clk, uint64_t ns)
{
	uint64_t c = 0;
	size_t i;

	for (i = 0; i < n; i++)
		c += vmt_clock_ns(clk, v[i]) <= ns;
	return c;
}

static void check_buckets(const char *text, const char *reason, const uint64_t *v, size_t n,
			  const struct vmt_clock *clk)
{
	char prefix[256];
	unsigned int b;

	for (b = 0; b < VMT_OPENMETRICS_BOUNDS; b++) {
		uint64_t ns = vmt_openmetrics_bound_ns(b);

		snprintf(prefix, sizeof(prefix),
			 "vmtrace_exit_latency_seconds_bucket{host=\"h1\",vm=\"web1\","
			 "reason=\"%s\",le=\"%" PRIu64 ".%09" PRIu64 "\"}", reason,
			 ns / 1000000000u, ns % 1000000000u);
		assert_int_equal((uint64_t)value_of(text, prefix), recount(v, n, clk, ns));
	}
	snprintf(prefix, sizeof(prefix), "vmtrace_exit_latency_seconds_bucket{host=\"h1\","
		 "vm=\"web1\",reason=\"%s\",le=\"+Inf\"}", reason);
	assert_int_equal((uint64_t)value_of(text, prefix), n);
	snprintf(prefix, sizeof(prefix), "vmtrace_exit_latency_seconds_count{host=\"h1\","
		 "vm=\"web1\",reason=\"%s\"}", reason);
	assert_int_equal((uint64_t)value_of(text, prefix), n);
}

static void test_values(void **state)
{
	struct fixture *fx = *state;
	struct vmt_openmetrics_labels l = { .host = "h1", .vm = "web1" };
	char *text = render(&fx->s, &ns_clock, &l, VMT_OPENMETRICS_TEXT);
	uint64_t sum = 0;
	char want[256];
	size_t i;

	assert_non_null(fx->reasons[0].d.hist);	/* the histogram, not the exact values */
	assert_null(fx->reasons[1].d.hist);
	check_buckets(text, "HLT", fx->vals[0], fx->nvals[0], &ns_clock);
	check_buckets(text, "hlt", fx->vals[1], fx->nvals[1], &ns_clock);
	check_buckets(text, "0x4242 (isa 1)", fx->vals[2], fx->nvals[2], &ns_clock);
	check_buckets(text, "0x4242 (isa 2)", fx->vals[3], fx->nvals[3], &ns_clock);
	assert_int_equal(value_of(text, "vmtrace_exits_total{host=\"h1\",vm=\"web1\","
				  "reason=\"HLT\"}"), fx->nvals[0]);
	assert_int_equal(value_of(text, "vmtrace_exits_total{host=\"h1\",vm=\"web1\","
				  "reason=\"0x4242 (isa 1)\"}"), 0);
	assert_int_equal(value_of(text, "vmtrace_exits_total{host=\"h1\",vm=\"web1\","
				  "reason=\"0x4242 (isa 2)\"}"), 1);
	/* the sum as an exact decimal: 1024 + 1023 + 70 ns */
	assert_non_null(strstr(text, "vmtrace_exit_latency_seconds_sum{host=\"h1\",vm=\"web1\","
			       "reason=\"hlt\"} 0.000002117\n"));
	for (i = 0; i < fx->nvals[0]; i++)
		sum += fx->vals[0][i];
	snprintf(want, sizeof(want), "vmtrace_exit_latency_seconds_sum{host=\"h1\",vm=\"web1\","
		 "reason=\"HLT\"} %" PRIu64 ".%09" PRIu64, sum / 1000000000u, sum % 1000000000u);
	while (want[strlen(want) - 1] == '0')
		want[strlen(want) - 1] = '\0';
	assert_non_null(strstr(text, want));
	/* tasks: colliding indexes carry their pid, a task without an index is its pid */
	assert_int_equal(value_of(text, "vmtrace_vcpu_exits_total{host=\"h1\",vm=\"web1\","
				  "vcpu=\"0 (pid 100)\"}"), 1);
	assert_int_equal(value_of(text, "vmtrace_vcpu_exits_total{host=\"h1\",vm=\"web1\","
				  "vcpu=\"0 (pid 101)\"}"), 1);
	assert_non_null(strstr(text, "vmtrace_out_of_guest_seconds_total{host=\"h1\",vm=\"web1\","
			       "vcpu=\"pid 102\"} 3.000000003\n"));
	assert_non_null(strstr(text, "vmtrace_worst_window_seconds{host=\"h1\",vm=\"web1\","
			       "vcpu=\"3\"} 0.000250003\n"));
	assert_non_null(strstr(text, "\nvmtrace_window_seconds{host=\"h1\",vm=\"web1\"} 0.001\n"));
	assert_int_equal(value_of(text, "vmtrace_lost_events_total{host=\"h1\",vm=\"web1\"}"), 17);
	assert_int_equal(value_of(text, "vmtrace_orphans_total{host=\"h1\",vm=\"web1\"}"), 5);
	/* OpenMetrics framing */
	assert_non_null(strstr(text, "# TYPE vmtrace_exits counter\n"));
	assert_non_null(strstr(text, "# UNIT vmtrace_exit_latency_seconds seconds\n"));
	assert_string_equal(text + strlen(text) - 6, "# EOF\n");
	free(text);
}

/* A cycle clock (4 ticks per ns): counts still follow the bounds in ns (exact values). */
static void test_cycle_clock(void **state)
{
	struct fixture *fx = *state;
	struct vmt_clock tsc = { 0.25, 0, 0 };
	struct vmt_openmetrics_labels l = { .host = "h1", .vm = "web1" };
	char *text = render(&fx->s, &tsc, &l, VMT_OPENMETRICS_TEXT);

	check_buckets(text, "hlt", fx->vals[1], fx->nvals[1], &tsc);
	assert_non_null(strstr(text, "vmtrace_exit_latency_seconds_sum{host=\"h1\",vm=\"web1\","
			       "reason=\"hlt\"} 0.000000529\n"));
	free(text);
}

static void test_prometheus_format(void **state)
{
	struct fixture *fx = *state;
	char *text = render(&fx->s, &ns_clock, NULL, VMT_OPENMETRICS_PROMETHEUS);

	assert_non_null(strstr(text, "# TYPE vmtrace_exits_total counter\n"));
	assert_non_null(strstr(text, "# TYPE vmtrace_exit_latency_seconds histogram\n"));
	assert_null(strstr(text, "# UNIT"));
	assert_null(strstr(text, "# EOF"));
	/* no labels at all: no braces */
	assert_non_null(strstr(text, "\nvmtrace_lost_events_total 17\n"));
	assert_non_null(strstr(text, "\nvmtrace_exits_total{reason=\"HLT\"} "));
	free(text);
}

static void test_labels(void **state)
{
	struct fixture *fx = *state;
	struct vmt_openmetrics_labels l = { .host = "a\"b\\c\nd" };
	struct vmt_openmetrics_labels bad = { .host = "tab\there" };
	char *text = render(&fx->s, &ns_clock, &l, VMT_OPENMETRICS_TEXT);
	FILE *f = fopen("/dev/null", "w");

	assert_non_null(strstr(text, "\nvmtrace_lost_events_total{host=\"a\\\"b\\\\c\\nd\"} 17\n"));
	free(text);
	l.host = "";
	l.vm = "v";
	text = render(&fx->s, &ns_clock, &l, VMT_OPENMETRICS_TEXT);
	assert_non_null(strstr(text, "\nvmtrace_lost_events_total{vm=\"v\"} 17\n"));
	free(text);
	assert_non_null(f);
	assert_int_equal(vmt_openmetrics_write(f, &fx->s, &ns_clock, &bad, VMT_OPENMETRICS_TEXT),
			 -EINVAL);
	fclose(f);
}

/* --label's NAME=VALUE: the names Prometheus takes, each once; after host and vm, escaped */
static void test_extra_labels(void **state)
{
	static const struct {
		const char *arg;
		int ok;
	} cases[] = {
		{ "site=fra1", 1 }, { "_x9=", 1 }, { "Rec_2=a\"b\\c\nd", 1 }, { "9a=x", 0 },
		{ "a-b=x", 0 }, { "__x=y", 0 }, { "host=x", 0 }, { "vm=x", 0 }, { "reason=x", 0 },
		{ "vcpu=x", 0 }, { "le=x", 0 }, { "=x", 0 }, { "x", 0 }, { "site=again", 0 },
		{ "t=a\tb", 0 }, { "caf\xc3\xa9=x", 0 },
	};
	struct fixture *fx = *state;
	const char *list[VMT_OPENMETRICS_MAX_EXTRA];
	struct vmt_openmetrics_labels l = { .host = "h1", .vm = "web1", .extra = list };
	char msg[160], *text, names[VMT_OPENMETRICS_MAX_EXTRA][8];
	size_t n = 0, i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		msg[0] = '\0';
		assert_int_equal(vmt_openmetrics_extra_add(list, &n, cases[i].arg, msg, sizeof(msg)),
				 cases[i].ok ? 0 : -EINVAL);
		assert_true(cases[i].ok ? !msg[0] : msg[0] && !strchr(msg, '\n'));
	}
	assert_int_equal(n, 3);
	l.nextra = n;
	text = render(&fx->s, &ns_clock, &l, VMT_OPENMETRICS_TEXT);
	assert_non_null(strstr(text, "\nvmtrace_lost_events_total{host=\"h1\",vm=\"web1\","
			       "site=\"fra1\",_x9=\"\",Rec_2=\"a\\\"b\\\\c\\nd\"} 17\n"));
	free(text);
	l.host = NULL;
	l.vm = NULL;
	l.nextra = 1;
	text = render(&fx->s, &ns_clock, &l, VMT_OPENMETRICS_TEXT);
	assert_non_null(strstr(text, "\nvmtrace_lost_events_total{site=\"fra1\"} 17\n"));
	free(text);
	/* at most VMT_OPENMETRICS_MAX_EXTRA */
	n = 0;
	for (i = 0; i < VMT_OPENMETRICS_MAX_EXTRA; i++) {
		snprintf(names[i], sizeof(names[i]), "k%zu=x", i);
		assert_int_equal(vmt_openmetrics_extra_add(list, &n, names[i], msg, sizeof(msg)), 0);
	}
	assert_int_equal(vmt_openmetrics_extra_add(list, &n, "more=x", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(n, VMT_OPENMETRICS_MAX_EXTRA);
}

/* A VM map as vmtrace-record --vm stores it; names[i] for VM i, vcpus[i] its threads. */
static struct vmt_vmmap *vmmap(unsigned int n, const char *const *names,
			       const char *const *vcpus)
{
	struct vmt_vmmap *m = NULL;
	struct vmt_kvbuf kb;
	char key[32], err[128];
	unsigned int i;

	vmt_kv_init(&kb);
	vmt_kv_addf(&kb, "vm.count", "%u", n);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "vm.%u.name", i);
		vmt_kv_add_str(&kb, key, names[i]);
		snprintf(key, sizeof(key), "vm.%u.pid", i);
		vmt_kv_addf(&kb, key, "%u", 900 + i);
		snprintf(key, sizeof(key), "vm.%u.vcpus", i);
		vmt_kv_add_str(&kb, key, vcpus[i]);
	}
	assert_int_equal(kb.error, 0);
	assert_int_equal(vmt_vmmap_from_meta(kb.buf, kb.len, &m, err, sizeof(err)), 0);
	vmt_kv_free(&kb);
	return m;
}

/* Lines starting with prefix holding "vm=" exactly want times each (and how many lines). */
static unsigned int vm_labels_each(const char *text, const char *prefix, unsigned int want)
{
	const char *p = text, *q, *end;
	unsigned int lines = 0, n;

	for (; *p; p = *end ? end + 1 : end) {
		end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		if (strncmp(p, prefix, strlen(prefix)) != 0)
			continue;
		for (n = 0, q = p; (q = strstr(q, "vm=\"")) && q < end; q++)
			n++;
		assert_int_equal(n, want);
		lines++;
	}
	return lines;
}

static const char *const task_families[] = {
	"vmtrace_vcpu_exits_total{", "vmtrace_out_of_guest_seconds_total{",
	"vmtrace_worst_window_seconds{",
};

/*
 * Tasks 100 and 101 are vCPU 0 of VMs a and b, 102 (no index in its events) is a's vCPU 1
 * in the map, 103 (vCPU 3) is none of theirs: one vm label per per-task sample, none on the
 * others; vcpu labels without pids, since vm tells the two vCPU 0 apart.
 */
static void test_vm_labels(void **state)
{
	struct fixture *fx = *state;
	const char *const names[] = { "a", "b" }, *const vcpus[] = { "100:0,102:1", "101:0" };
	struct vmt_vmmap *m = vmmap(2, names, vcpus);
	struct vmt_openmetrics_labels l = { .host = "h1", .vmmap = m };
	char *text = render(&fx->s, &ns_clock, &l, VMT_OPENMETRICS_TEXT);
	size_t i;

	assert_int_equal(value_of(text, "vmtrace_vcpu_exits_total{host=\"h1\",vm=\"a\","
				  "vcpu=\"0\"}"), 1);
	assert_non_null(strstr(text, "\nvmtrace_out_of_guest_seconds_total{host=\"h1\",vm=\"b\","
			       "vcpu=\"0\"} 2.000000002\n"));
	assert_non_null(strstr(text, "\nvmtrace_worst_window_seconds{host=\"h1\",vm=\"a\","
			       "vcpu=\"1\"} 0.000250002\n"));
	assert_non_null(strstr(text, "\nvmtrace_vcpu_exits_total{host=\"h1\",vm=\"\","
			       "vcpu=\"3\"} 1\n"));
	assert_null(strstr(text, "(pid "));
	for (i = 0; i < 3; i++)
		assert_int_equal(vm_labels_each(text, task_families[i], 1), NTASKS);
	assert_int_equal(vm_labels_each(text, "vmtrace_exits_total{", 0), NREASONS);
	assert_int_equal(vm_labels_each(text, "vmtrace_orphans_total{", 0), 1);
	free(text);

	/* the caller's vm for every sample: the only vm label; vCPU 0 twice needs the pids */
	l.vm = "web1";
	text = render(&fx->s, &ns_clock, &l, VMT_OPENMETRICS_PROMETHEUS);
	for (i = 0; i < 3; i++)
		assert_int_equal(vm_labels_each(text, task_families[i], 1), NTASKS);
	assert_int_equal(vm_labels_each(text, "vmtrace_orphans_total{", 1), 1);
	assert_int_equal(value_of(text, "vmtrace_vcpu_exits_total{host=\"h1\",vm=\"web1\","
				  "vcpu=\"0 (pid 101)\"}"), 1);
	assert_int_equal(value_of(text, "vmtrace_vcpu_exits_total{host=\"h1\",vm=\"web1\","
				  "vcpu=\"1\"}"), 1);
	free(text);
	vmt_vmmap_free(m);

	/*
	 * two VMs of the same name (a local live migration): each VM's label has its VMM's
	 * pid (900 and 901) in every family, so vCPU 0 needs no task pid
	 */
	m = vmmap(2, (const char *const[]){ "a", "a" }, vcpus);
	l.vm = NULL;
	l.vmmap = m;
	text = render(&fx->s, &ns_clock, &l, VMT_OPENMETRICS_TEXT);
	assert_int_equal(value_of(text, "vmtrace_vcpu_exits_total{host=\"h1\",vm=\"a (pid 900)\","
				  "vcpu=\"0\"}"), 1);
	assert_int_equal(value_of(text, "vmtrace_vcpu_exits_total{host=\"h1\",vm=\"a (pid 901)\","
				  "vcpu=\"0\"}"), 1);
	assert_non_null(strstr(text, "\nvmtrace_worst_window_seconds{host=\"h1\","
			       "vm=\"a (pid 900)\",vcpu=\"1\"} 0.000250002\n"));
	assert_null(strstr(text, "vm=\"a\""));
	free(text);
	vmt_vmmap_free(m);
}

/*
 * The summary's exits per VM and reason (summary.h's vmreasons): with the map, the
 * per-reason families have a series per VM and reason, in the reasons' order and each
 * one's VMs in the map's (vm="" for the tasks it lacks last), their counts and sums those
 * of the VM's exits alone; without the map, or with the caller's one vm, a series per
 * reason as before.
 */
static void test_vm_reasons(void **state)
{
	struct fixture *fx = *state;
	const char *const names[] = { "a", "b" }, *const vcpus[] = { "100:0,102:1", "101:0" };
	struct vmt_vmmap *m = vmmap(2, names, vcpus);
	struct vmt_openmetrics_labels l = { .host = "h1", .vmmap = m };
	struct vmt_vmreasons *vr = &fx->s.vmreasons;
	const char *p;
	char *text;

	vmt_vmreasons_init(vr, 2);
	/* SVM hlt (reason 1) in b, then in a; the unknown SVM code (reason 3) in neither */
	assert_int_equal(vmt_vmreasons_add(vr, 1, 1, VMT_ISA_SVM, 0x78, 1024, 1024), 0);
	assert_int_equal(vmt_vmreasons_add(vr, 0, 1, VMT_ISA_SVM, 0x78, 1023, 1023), 0);
	assert_int_equal(vmt_vmreasons_add(vr, 0, 1, VMT_ISA_SVM, 0x78, 70, 70), 0);
	assert_int_equal(vmt_vmreasons_add(vr, 2, 3, VMT_ISA_SVM, 0x4242, 5, 5), 0);
	vmt_vmreasons_sort(vr);
	text = render(&fx->s, &ns_clock, &l, VMT_OPENMETRICS_TEXT);
	assert_int_equal(vm_labels_each(text, "vmtrace_exits_total{", 1), 3);
	assert_int_equal(vm_labels_each(text, "vmtrace_exit_latency_seconds_count{", 1), 3);
	assert_int_equal(vm_labels_each(text, "vmtrace_exit_latency_seconds_bucket{", 1),
			 3 * (VMT_OPENMETRICS_BOUNDS + 1));
	p = strstr(text, "\nvmtrace_exits_total{host=\"h1\",vm=\"a\",reason=\"hlt\"} 2\n"
		   "vmtrace_exits_total{host=\"h1\",vm=\"b\",reason=\"hlt\"} 1\n"
		   "vmtrace_exits_total{host=\"h1\",vm=\"\",reason=\"0x4242 (isa 2)\"} 1\n");
	assert_non_null(p);
	assert_non_null(strstr(text, "\nvmtrace_exit_latency_seconds_sum{host=\"h1\",vm=\"a\","
			       "reason=\"hlt\"} 0.000001093\n"));
	assert_non_null(strstr(text, "\nvmtrace_exit_latency_seconds_bucket{host=\"h1\",vm=\"a\","
			       "reason=\"hlt\",le=\"0.000001023\"} 2\n"));
	assert_non_null(strstr(text, "\nvmtrace_exit_latency_seconds_bucket{host=\"h1\",vm=\"b\","
			       "reason=\"hlt\",le=\"0.000001023\"} 0\n"));
	free(text);
	/* the caller's vm: one series per reason, the whole summary's */
	l.vm = "web1";
	text = render(&fx->s, &ns_clock, &l, VMT_OPENMETRICS_TEXT);
	assert_int_equal(vm_labels_each(text, "vmtrace_exits_total{", 1), NREASONS);
	assert_int_equal(value_of(text, "vmtrace_exits_total{host=\"h1\",vm=\"web1\","
				  "reason=\"hlt\"}"), 3);
	free(text);
	/* two VMs named a: the same label set twice unless their VMM pids tell them apart */
	vmt_vmmap_free(m);
	m = vmmap(2, (const char *const[]){ "a", "a" }, vcpus);
	l.vm = NULL;
	l.vmmap = m;
	text = render(&fx->s, &ns_clock, &l, VMT_OPENMETRICS_TEXT);
	assert_non_null(strstr(text, "\nvmtrace_exits_total{host=\"h1\",vm=\"a (pid 900)\","
			       "reason=\"hlt\"} 2\nvmtrace_exits_total{host=\"h1\","
			       "vm=\"a (pid 901)\",reason=\"hlt\"} 1\n"));
	assert_non_null(strstr(text, "\nvmtrace_exit_latency_seconds_sum{host=\"h1\","
			       "vm=\"a (pid 901)\",reason=\"hlt\"} 0.000001024\n"));
	assert_null(strstr(text, "vm=\"a\""));
	free(text);
	/* no map: no vm label */
	l.vm = NULL;
	l.vmmap = NULL;
	text = render(&fx->s, &ns_clock, &l, VMT_OPENMETRICS_TEXT);
	assert_int_equal(vm_labels_each(text, "vmtrace_exits_total{", 0), NREASONS);
	free(text);
	vmt_vmreasons_free(vr);
	vmt_vmmap_free(m);
}

static void test_publish(void **state)
{
	struct fixture *fx = *state;
	struct vmt_openmetrics_labels l = { .host = "h1", .vm = "web1" };
	char dir[] = "/tmp/test_openmetrics.XXXXXX", path[128], tmp[160], *want, *got;
	size_t len;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/vmtrace.prom", dir);
	assert_int_equal(vmt_openmetrics_publish(path, &fx->s, &ns_clock, &l,
						 VMT_OPENMETRICS_PROMETHEUS, NULL, 0), 0);
	/* again, over the first: replaced whole, nothing left behind */
	fx->s.lost_events = 18;
	assert_int_equal(vmt_openmetrics_publish(path, &fx->s, &ns_clock, &l,
						 VMT_OPENMETRICS_PROMETHEUS, NULL, 0), 0);
	fx->s.lost_events = 17;
	want = render(&fx->s, &ns_clock, &l, VMT_OPENMETRICS_PROMETHEUS);
	f = fopen(path, "r");
	assert_non_null(f);
	got = calloc(1, strlen(want) + 16);
	assert_non_null(got);
	len = fread(got, 1, strlen(want) + 8, f);
	fclose(f);
	assert_int_equal(len, strlen(want));
	assert_non_null(strstr(got, "vmtrace_lost_events_total{host=\"h1\",vm=\"web1\"} 18\n"));
	got[len] = '\0';
	assert_int_equal(value_of(got, "vmtrace_exits_total{host=\"h1\",vm=\"web1\","
				  "reason=\"HLT\"}"), fx->nvals[0]);
	assert_int_equal(vmt_outfile_tmp_name(path, tmp, sizeof(tmp)), 0);
	assert_int_equal(access(tmp, F_OK), -1);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	/* a directory that does not exist */
	snprintf(path, sizeof(path), "%s/vmtrace.prom", dir);
	assert_int_equal(vmt_openmetrics_publish(path, &fx->s, &ns_clock, &l,
						 VMT_OPENMETRICS_PROMETHEUS, NULL, 0), -ENOENT);
	free(want);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cycle_clock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prometheus_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_labels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extra_labels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vm_labels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vm_reasons, setup, teardown),
		cmocka_unit_test_setup_teardown(test_publish, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
