// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysinfo: online-CPU parsing (tables, and this machine against the cpuN lines of
 * /proc/stat), the collector choice, a derived CPU set narrowed to the online CPUs while a
 * named one with an offline CPU is refused (a fake online file: no CPU of this machine is
 * taken offline), and the META / END key/values: their values against uname(2),
 * /proc/cmdline, /proc/cpuinfo and a fake tracefs tree; their key sequence against
 * tests/data/sample-syscalls.vmt, a file the recorder wrote before it was split into
 * modules.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "collector.h"
#include "container.h"
#include "io.h"
#include "kv.h"
#include "metakeys.h"
#include "source.h"
#include "sysinfo.h"

static void expect_list(const struct vmt_cpulist *l, const char *want)
{
	char buf[256];

	assert_string_equal(vmt_cpulist_format(l, buf, sizeof(buf)), want);
}

static void test_parse_online(void **state)
{
	static const struct {
		const char *text, *want;
	} ok[] = {
		{ "0-3\n", "0-3" }, { "0\n", "0" }, { "0-3,8\n", "0-3,8" },
		{ "0,2-5,7 \n", "0,2-5,7" }, { "1-2", "1-2" },
	};
	static const char *const bad[] = { "", "\n", "x\n", "3-1\n", "0-\n" };
	struct vmt_cpulist l = { 0, NULL };
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(rec_sysinfo_parse_online(ok[i].text, &l), 0);
		expect_list(&l, ok[i].want);
		vmt_cpulist_free(&l);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(rec_sysinfo_parse_online(bad[i], &l) < 0);
		vmt_cpulist_free(&l);
	}
}

/* The kernel lists one "cpuN" line in /proc/stat per online CPU. */
static void test_online_this_machine(void **state)
{
	struct vmt_cpulist l = { 0, NULL };
	char *stat, *p;
	unsigned int n = 0, cpu;

	(void)state;
	assert_int_equal(rec_sysinfo_online_cpus(&l), 0);
	assert_int_equal(vmt_io_read_file("/proc/stat", 1 << 20, &stat, NULL), 0);
	for (p = stat; (p = strstr(p, "\ncpu")); p++) {
		if (sscanf(p + 4, "%u", &cpu) != 1)
			continue;
		assert_true(vmt_cpulist_has(&l, cpu));
		n++;
	}
	assert_int_equal(n, l.n);
	assert_true(n >= 1);
	free(stat);
	vmt_cpulist_free(&l);
}

static void test_choose_collector(void **state)
{
	static const struct {
		const char *traced, *online;
		int requested, ret, collector;
	} t[] = {
		{ "1", "0-1", -1, REC_COLLECTOR_FREE, 0 },
		{ "0", "0-3", -1, REC_COLLECTOR_FREE, 1 },
		{ "0-2,4", "0-7", -1, REC_COLLECTOR_FREE, 3 },
		{ "0-1", "0-1", -1, REC_COLLECTOR_UNPINNED, -1 },
		{ "1", "0-1", 0, REC_COLLECTOR_FREE, 0 },
		{ "1", "0-1", 1, REC_COLLECTOR_TRACED, 1 },
		{ "1", "0-1", 5, -ENODEV, 5 },
	};
	struct vmt_cpulist traced, online;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int c = t[i].requested;

		assert_int_equal(vmt_cli_parse_cpulist(t[i].traced, &traced), 0);
		assert_int_equal(vmt_cli_parse_cpulist(t[i].online, &online), 0);
		assert_int_equal(rec_sysinfo_choose_collector(&traced, &online, &c), t[i].ret);
		assert_int_equal(c, t[i].collector);
		vmt_cpulist_free(&traced);
		vmt_cpulist_free(&online);
	}
	assert_int_equal(vmt_cli_parse_cpulist("1,3", &traced), 0);
	assert_int_equal(vmt_cli_parse_cpulist("0-2", &online), 0);
	assert_int_equal(rec_sysinfo_first_offline(&traced, &online), 3);
	vmt_cpulist_free(&online);
	assert_int_equal(vmt_cli_parse_cpulist("0-3", &online), 0);
	assert_int_equal(rec_sysinfo_first_offline(&traced, &online), -1);
	vmt_cpulist_free(&online);
	vmt_cpulist_free(&traced);
}

static void test_split_online(void **state)
{
	static const struct {
		const char *cpus, *online, *kept, *offline;
		int ret;
	} t[] = {
		{ "0-3", "0-3", "0-3", "", 0 },
		{ "0-7", "0-3", "0-3", "4-7", 0 },
		{ "1,3,5", "0-2,5", "1,5", "3", 0 },
		/* an unpinned thread's CPUs: every possible one, few of them online */
		{ "0-63", "0,2", "0,2", "1,3-63", 0 },
		{ "4-7", "0-3", "", "4-7", -ENODEV },
	};
	struct vmt_cpulist cpus, online, kept, off;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(vmt_cli_parse_cpulist(t[i].cpus, &cpus), 0);
		assert_int_equal(vmt_cli_parse_cpulist(t[i].online, &online), 0);
		assert_int_equal(rec_sysinfo_split_online(&cpus, &online, &kept, &off), t[i].ret);
		expect_list(&kept, t[i].kept);
		expect_list(&off, t[i].offline);
		vmt_cpulist_free(&cpus);
		vmt_cpulist_free(&online);
		vmt_cpulist_free(&kept);
		vmt_cpulist_free(&off);
	}
}

/*
 * The whole check with the online CPUs read from a file of ours ($VMTRACE_CPU_ONLINE):
 * a derived set loses its offline CPUs and the collector is chosen among the online ones
 * left; a derived set with no online CPU, a named list with an offline CPU, are refused.
 */
static void test_check_cpus(void **state)
{
	static const struct {
		const char *online, *traced;
		bool derived;
		int collector, ret, want_collector;
		const char *want;
	} t[] = {
		{ "0-3", "2-7", true, -1, REC_COLLECTOR_FREE, 0, "2-3" },
		{ "0-3", "0-63", true, -1, REC_COLLECTOR_UNPINNED, -1, "0-3" },
		{ "1", "0-1", true, -1, REC_COLLECTOR_UNPINNED, -1, "1" },
		{ "0-1", "1", true, 0, REC_COLLECTOR_FREE, 0, "1" },
		{ "0-3", "4-7", true, -1, -64, -1, "4-7" },
		{ "0-3", "2-7", false, -1, -64, -1, "2-7" },
		{ "0-3", "2-3", false, -1, REC_COLLECTOR_FREE, 0, "2-3" },
		/* the collector named on the command line stays checked */
		{ "0-3", "2-7", true, 5, -64, 5, "2-3" },
	};
	char path[] = "/tmp/vmt-online-XXXXXX";
	struct vmt_cpulist traced, online;
	unsigned int i;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(setenv("VMTRACE_CPU_ONLINE", path, 1), 0);
	assert_string_equal(rec_sysinfo_online_path(), path);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		FILE *f = fopen(path, "w");
		int c = t[i].collector;

		assert_non_null(f);
		fprintf(f, "%s\n", t[i].online);
		fclose(f);
		assert_int_equal(vmt_cli_parse_cpulist(t[i].traced, &traced), 0);
		assert_int_equal(rec_sysinfo_check_cpus(&traced, t[i].derived ? "the test's CPUs" :
							NULL, &online, &c), t[i].ret);
		expect_list(&online, t[i].online);
		expect_list(&traced, t[i].want);
		assert_int_equal(c, t[i].want_collector);
		vmt_cpulist_free(&traced);
		vmt_cpulist_free(&online);
	}
	/* a file that is not there: -1 (the machine's error, not the command line's) */
	unlink(path);
	assert_int_equal(vmt_cli_parse_cpulist("0", &traced), 0);
	assert_int_equal(rec_sysinfo_check_cpus(&traced, NULL, &online, &(int){ -1 }), -1);
	vmt_cpulist_free(&traced);
	vmt_cpulist_free(&online);
	unsetenv("VMTRACE_CPU_ONLINE");
	assert_string_equal(rec_sysinfo_online_path(), "/sys/devices/system/cpu/online");
}

/* A tracefs tree with just what the metadata reads. */
struct fake {
	char root[64];
};

static void put(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int fake_setup(void **state)
{
	struct fake *fk = calloc(1, sizeof(*fk));

	if (!fk)
		return -1;
	strcpy(fk->root, "/tmp/vmt-sysinfo-XXXXXX");
	if (!mkdtemp(fk->root))
		return -1;
	put(fk->root, "events/sys/a/format", "name: a\nID: 1\n");
	put(fk->root, "events/sys/b/format", "name: b\nID: 2\n");
	put(fk->root, "events/header_page", "\tfield: u64 timestamp;\toffset:0;\n");
	put(fk->root, "events/header_event", "# compressed entry header\n");
	*state = fk;
	return 0;
}

static int fake_teardown(void **state)
{
	struct fake *fk = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fk->root);
	if (system(cmd) != 0)
		return -1;
	free(fk);
	return 0;
}

static void expect_kv(const struct vmt_kvbuf *kb, const char *key, const char *want)
{
	char *got = vmt_kv_get_str(kb->buf, kb->len, key);

	if (!got)
		fail_msg("no key %s", key);
	assert_string_equal(got, want);
	free(got);
}

/* The keys of kb, in order, as "k1 k2 ...". */
static void key_list(const uint8_t *buf, size_t len, char *out, size_t size)
{
	struct vmt_kv kv;
	size_t pos = 0, n = 0;

	out[0] = '\0';
	while (vmt_kv_next(buf, len, &pos, &kv) > 0 && n + kv.key_len + 2 < size) {
		n += (size_t)snprintf(out + n, size - n, "%s%.*s", n ? " " : "", (int)kv.key_len,
				      kv.key);
	}
}

/* The first "model name" of /proc/cpuinfo, read here another way (sscanf). */
static void cpu_model(char *buf, size_t size)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	buf[0] = '\0';
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + strspn(colon + 1, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, size, "%s", colon);
		break;
	}
	fclose(f);
}

static void test_meta(void **state)
{
	struct fake *fk = *state;
	struct record_opts o = { .collector = 0, .buffer_bytes = 8192 * 1024,
				 .level = 1, .poll_ns = 10000000, .cmdline = "rec -p 1,3" };
	char keys[4096], want[4096], model[256], *cmdline, when[64];
	struct vmt_source *sample;
	char msg[256];
	struct vmt_kvbuf kb;
	struct utsname u;
	struct tm tm = { 0 };
	size_t len;
	time_t t0 = time(NULL);

	o.begin = (char *)"sys:a";
	o.end = (char *)"sys:b";
	assert_int_equal(vmt_cli_parse_cpulist("1,3", &o.cpus), 0);
	vmt_kv_init(&kb);
	assert_int_equal(rec_sysinfo_meta(&kb, &o, NULL, fk->root, "local", 4096), 0);

	assert_int_equal(uname(&u), 0);
	expect_kv(&kb, "vmtrace.version", PACKAGE_VERSION);
	expect_kv(&kb, VMT_META_EVENT_BEGIN, "sys:a");
	expect_kv(&kb, VMT_META_EVENT_END, "sys:b");
	expect_kv(&kb, VMT_META_FORMAT_BEGIN, "name: a\nID: 1\n");
	expect_kv(&kb, VMT_META_FORMAT_END, "name: b\nID: 2\n");
	expect_kv(&kb, VMT_META_HEADER_PAGE, "\tfield: u64 timestamp;\toffset:0;\n");
	expect_kv(&kb, VMT_META_HEADER_EVENT, "# compressed entry header\n");
	expect_kv(&kb, "kernel.release", u.release);
	expect_kv(&kb, "kernel.version", u.version);
	expect_kv(&kb, "kernel.machine", u.machine);
	expect_kv(&kb, "hostname", u.nodename);
	assert_int_equal(vmt_io_read_file("/proc/cmdline", 1 << 20, &cmdline, &len), 0);
	assert_true(len > 0 && cmdline[len - 1] == '\n');
	cmdline[len - 1] = '\0';	/* stored without its newline */
	expect_kv(&kb, "cmdline", cmdline);
	free(cmdline);
	cpu_model(model, sizeof(model));
	if (model[0])
		expect_kv(&kb, "cpu.model", model);
	expect_kv(&kb, VMT_META_ENDIAN, "little");
	snprintf(want, sizeof(want), "%zu", sizeof(long));
	expect_kv(&kb, "long_size", want);
	expect_kv(&kb, VMT_META_CLOCK, "local");
	expect_kv(&kb, "subbuf_size", "4096");
	expect_kv(&kb, "buffer_size_kb", "8192");
	expect_kv(&kb, VMT_META_CPUS, "1,3");
	expect_kv(&kb, "cpu.collector", "0");
	expect_kv(&kb, "options", "rec -p 1,3");
	expect_kv(&kb, "poll_interval_ns", "10000000");
	expect_kv(&kb, "zstd_level", "1");
	/* time.start (output.c adds it to each file: rec_sysinfo_add_time) is UTC, now, in ns */
	assert_null(vmt_kv_get_str(kb.buf, kb.len, "time.start"));
	{
		struct vmt_kvbuf tb;
		char *ts, *rest;

		vmt_kv_init(&tb);
		rec_sysinfo_add_time(&tb, "time.start");
		ts = vmt_kv_get_str(tb.buf, tb.len, "time.start");
		vmt_kv_free(&tb);

		assert_non_null(ts);
		assert_int_equal(strlen(ts), 30);
		rest = strptime(ts, "%Y-%m-%dT%H:%M:%S", &tm);
		assert_non_null(rest);
		assert_true(rest[0] == '.' && rest[10] == 'Z');
		assert_true(timegm(&tm) >= t0 - 1 && timegm(&tm) <= time(NULL));
		snprintf(when, sizeof(when), "%s", ts);
		free(ts);
	}

	/*
	 * The same keys in the same order as a recording made by the recorder before this
	 * split, less the three output.c adds to each file: time.start, the start stats and
	 * monotonic.start_ns.
	 */
	key_list(kb.buf, kb.len, keys, sizeof(keys));
	assert_int_equal(vmt_source_open(TOP_SRCDIR "/tests/data/sample-syscalls.vmt", NULL, &sample,
					 msg, sizeof(msg)), 0);
	{
		size_t mlen;
		const uint8_t *m = vmt_source_meta(sample, &mlen);

		key_list(m, mlen, want, sizeof(want));
	}
	vmt_source_close(sample);
	assert_string_equal(want, strcat(keys, " time.start stats.start.cpu1 monotonic.start_ns"));

	/* a missing format file is an error */
	vmt_kv_free(&kb);
	vmt_kv_init(&kb);
	o.end = (char *)"sys:nosuch";
	assert_int_equal(rec_sysinfo_meta(&kb, &o, NULL, fk->root, "local", 4096), -ENOENT);
	vmt_kv_free(&kb);
	vmt_cpulist_free(&o.cpus);
}

static struct rec_chunk *no_get(void *arg)
{
	(void)arg;
	return NULL;
}

static int no_put(void *arg, struct rec_chunk *c)
{
	(void)arg;
	(void)c;
	return 0;
}

static void no_close(void *arg)
{
	(void)arg;
}

static const struct rec_sink_ops no_sink = { no_get, no_put, no_close, NULL };

static int policy_now(int *prio)
{
	struct sched_param sp;
	int policy;

	assert_int_equal(pthread_getschedparam(pthread_self(), &policy, &sp), 0);
	*prio = sp.sched_priority;
	return policy;
}

/*
 * The writer below the collector: from a real-time policy (FIFO or RR, any priority) to
 * SCHED_OTHER; a thread under SCHED_OTHER left as it is. This thread plays the writer.
 */
static void test_below_collector(void **state)
{
	struct sched_param sp = { .sched_priority = 20 };
	int prio;

	(void)state;
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		skip();		/* not root: no real-time policy to leave */
	assert_int_equal(rec_sysinfo_below_collector(), 0);
	assert_int_equal(policy_now(&prio), SCHED_OTHER);
	assert_int_equal(prio, 0);
	sp.sched_priority = sched_get_priority_min(SCHED_RR);
	assert_int_equal(pthread_setschedparam(pthread_self(), SCHED_RR, &sp), 0);
	assert_int_equal(rec_sysinfo_below_collector(), 0);
	assert_int_equal(policy_now(&prio), SCHED_OTHER);
	assert_int_equal(rec_sysinfo_below_collector(), 0);
	assert_int_equal(policy_now(&prio), SCHED_OTHER);
}

static void test_end(void **state)
{
	struct rec_collector_config cfg = { .poll_ns = 1, .cpu = -1, .sink = { &no_sink, NULL } };
	struct rec_end_info e = { .stop_reason = "SIGINT", .clock = "x86-tsc",
				  .mono_start_ns = 1000, .mono_end_ns = 5000, .ts_start = 100,
				  .ts_end = 2100 };
	struct rec_collector *col;
	struct vmt_source *sample;
	char msg[256];
	char keys[1024], want[1024];
	struct vmt_kvbuf kb;

	(void)state;
	vmt_header_page_default(&cfg.hp);
	assert_int_equal(rec_collector_new(&cfg, &col), 0);
	assert_int_equal(rec_collector_add_cpu(col, 1, open("/dev/null", O_RDONLY)), 0);
	assert_int_equal(rec_collector_add_cpu(col, 3, open("/dev/null", O_RDONLY)), 0);
	e.col = col;
	vmt_kv_init(&kb);
	rec_sysinfo_end(&kb, &e);
	assert_int_equal(kb.error, 0);
	expect_kv(&kb, "monotonic.end_ns", "5000");
	expect_kv(&kb, "stop_reason", "SIGINT");
	expect_kv(&kb, VMT_META_NS_PER_TICK, "2");	/* 4000 ns over 2000 ticks */
	expect_kv(&kb, "pages.cpu1", "0");
	expect_kv(&kb, "missed_pages.cpu3", "0");
	key_list(kb.buf, kb.len, keys, sizeof(keys));
	assert_string_equal(keys, "time.end monotonic.end_ns stop_reason clock.ns_per_tick "
			    "pages.cpu1 missed_pages.cpu1 pages.cpu3 missed_pages.cpu3");
	vmt_kv_free(&kb);

	/* a ns clock needs no rate: the keys of the sample's END, less the writer's */
	e.clock = "local";
	e.stop_reason = "duration";
	vmt_kv_init(&kb);
	rec_sysinfo_end(&kb, &e);
	assert_null(vmt_kv_get(kb.buf, kb.len, VMT_META_NS_PER_TICK, NULL));
	assert_null(vmt_kv_get(kb.buf, kb.len, VMT_META_DRAIN, NULL));	/* a --continue rotation's */
	vmt_kv_free(&kb);
	/* the last file's: how the final drain ended, right after why it was asked for */
	e.drain = "aborted";
	vmt_kv_init(&kb);
	rec_sysinfo_end(&kb, &e);
	expect_kv(&kb, VMT_META_DRAIN, "aborted");
	key_list(kb.buf, kb.len, keys, sizeof(keys));
	assert_string_equal(keys, "time.end monotonic.end_ns stop_reason drain pages.cpu1 "
			    "missed_pages.cpu1 pages.cpu3 missed_pages.cpu3");
	vmt_kv_free(&kb);
	e.drain = NULL;
	rec_collector_free(col);
	assert_int_equal(rec_collector_new(&cfg, &col), 0);
	assert_int_equal(rec_collector_add_cpu(col, 1, open("/dev/null", O_RDONLY)), 0);
	e.col = col;
	vmt_kv_init(&kb);
	rec_sysinfo_end(&kb, &e);
	key_list(kb.buf, kb.len, keys, sizeof(keys));
	assert_int_equal(vmt_source_open(TOP_SRCDIR "/tests/data/sample-syscalls.vmt", NULL, &sample,
					 msg, sizeof(msg)), 0);
	{
		size_t elen;
		const uint8_t *m = vmt_source_end(sample, &elen);

		key_list(m, elen, want, sizeof(want));
	}
	vmt_source_close(sample);
	assert_string_equal(want, "stats.end.cpu1 time.end monotonic.end_ns stop_reason "
			    "pages.cpu1 missed_pages.cpu1 chunk.count chunk.index");
	assert_string_equal(keys, "time.end monotonic.end_ns stop_reason pages.cpu1 "
			    "missed_pages.cpu1");
	vmt_kv_free(&kb);
	rec_collector_free(col);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_online),
		cmocka_unit_test(test_online_this_machine),
		cmocka_unit_test(test_split_online),
		cmocka_unit_test(test_check_cpus),
		cmocka_unit_test(test_choose_collector),
		cmocka_unit_test_setup_teardown(test_meta, fake_setup, fake_teardown),
		cmocka_unit_test(test_end),
		cmocka_unit_test(test_below_collector),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
