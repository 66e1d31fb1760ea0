// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracefs: per-CPU stats parsing (real text from this kernel), event path validation, and
 * the one-recorder-per-CPU check on a fake tracefs tree. The real tracefs is exercised by
 * the end-to-end recording tests.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
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

#include "io.h"
#include "tracefs.h"

static void test_stats(void **state)
{
	static const char text[] =
		"entries: 1373\noverrun: 1849\ncommit overrun: 2\nbytes: 66692\n"
		"oldest event ts:  4491.525020\nnow ts:  4492.145847\ndropped events: 5\n"
		"read events: 7\n";
	static const char tsc[] = "entries: 0\noverrun: 0\nnow ts: 123456789012\n";
	struct vmt_cpustats st;

	(void)state;
	assert_int_equal(vmt_tracefs_parse_stats(text, &st), 0);
	assert_int_equal(st.entries, 1373);
	assert_int_equal(st.overrun, 1849);
	assert_int_equal(st.commit_overrun, 2);
	assert_int_equal(st.dropped, 5);
	assert_int_equal(st.read, 7);
	assert_int_equal(st.now_ts, 4492145847000ULL);	/* seconds.micros -> ns */
	assert_int_equal(vmt_cpustats_lost(&st), 1849 + 2 + 5);
	assert_int_equal(vmt_tracefs_parse_stats(tsc, &st), 0);
	assert_int_equal(st.now_ts, 123456789012ULL);	/* counter clocks: raw */
	assert_int_equal(vmt_tracefs_parse_stats("nothing here", &st), -EBADMSG);
	assert_int_equal(vmt_tracefs_parse_stats("entries: x\noverrun: 1\n", &st), -EBADMSG);
	/* a line that is there but no number is no statistics, whichever line */
	assert_int_equal(vmt_tracefs_parse_stats("entries: 1\noverrun: 1\ndropped events: -3\n",
						 &st), -EBADMSG);
	assert_int_equal(vmt_tracefs_parse_stats("entries: 1\noverrun: 1\nnow ts: abc\n", &st),
			 -EBADMSG);
	/* past 2^64: saturated, a value the reader calls impossible, never wrapped */
	assert_int_equal(vmt_tracefs_parse_stats("entries: 1\noverrun: 99999999999999999999999\n",
						 &st), 0);
	assert_true(st.overrun == UINT64_MAX);
	assert_int_equal(vmt_tracefs_parse_stats("entries: 1\noverrun: 18446744073709551615\n",
						 &st), 0);
	assert_true(st.overrun == UINT64_MAX);
	assert_int_equal(vmt_tracefs_parse_stats("entries: 1\noverrun: 0\nnow ts: 99999999999.5\n",
						 &st), 0);
	assert_true(st.now_ts == UINT64_MAX);
}

static void test_event_path(void **state)
{
	static const char *const bad[] = { "kvm", ":x", "kvm:", "a:b:c", "../x:y", "a/b:c", "" };
	char buf[PATH_MAX];
	unsigned int i;

	(void)state;
	assert_int_equal(vmt_tracefs_event_path("kvm:kvm_exit", "format", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "kvm/kvm_exit/format");
	assert_int_equal(vmt_tracefs_event_path("kvm:kvm_exit", NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "kvm/kvm_exit");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(vmt_tracefs_event_path(bad[i], NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(vmt_tracefs_event_path("kvm:kvm_exit", "format", buf, 8), -ENAMETOOLONG);
}

static void fake_instance(const char *root, long pid, const char *mask)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/instances/vmtrace-%ld", root, pid);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/instances/vmtrace-%ld/tracing_cpumask", root, pid);
	f = fopen(path, "w");
	fputs(mask, f);
	fclose(f);
}

static void test_conflict(void **state)
{
	char root[] = "/tmp/vmt-tracefs-XXXXXX", path[PATH_MAX], who[256], a[128], b[128];
	struct vmt_cpulist cpus = { 0, NULL };
	long alive = (long)getppid(), dead = 999999999L;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/instances", root);
	assert_int_equal(mkdir(path, 0755), 0);
	fake_instance(root, alive, "00000000,00000002\n");	/* CPU 1, a live owner */
	fake_instance(root, dead, "ffffffff\n");		/* every CPU, owner gone */
	assert_int_equal(vmt_cli_parse_cpulist("0,2-3", &cpus), 0);
	assert_int_equal(vmt_tracefs_find_conflict(root, "vmtrace-1", &cpus, who, sizeof(who)), 0);
	vmt_cpulist_free(&cpus);
	assert_int_equal(vmt_cli_parse_cpulist("1", &cpus), 0);
	assert_int_equal(vmt_tracefs_find_conflict(root, "vmtrace-1", &cpus, who, sizeof(who)), 1);
	snprintf(path, sizeof(path), "CPU 1 (vmtrace-%ld, pid %ld)", alive, alive);
	assert_string_equal(who, path);
	/* our own instance is no conflict */
	snprintf(path, sizeof(path), "vmtrace-%ld", alive);
	assert_int_equal(vmt_tracefs_find_conflict(root, path, &cpus, who, sizeof(who)), 0);
	vmt_cpulist_free(&cpus);
	/* CPU 33 is in the second word */
	assert_int_equal(vmt_cli_parse_cpulist("33", &cpus), 0);
	snprintf(path, sizeof(path), "%s/instances/vmtrace-%ld/tracing_cpumask", root, alive);
	assert_int_equal(vmt_io_write_str(path, "00000002,00000000\n"), 0);
	assert_int_equal(vmt_tracefs_find_conflict(root, "vmtrace-1", &cpus, who, sizeof(who)), 1);
	vmt_cpulist_free(&cpus);
	/*
	 * Exactly the CPUs each recorder holds of those asked for, every recorder named (in the
	 * directory's order): 0-5 against one on 1,2,33 (only 1-2 asked for) and one on 3,7.
	 */
	assert_int_equal(vmt_io_write_str(path, "00000002,00000006\n"), 0);
	fake_instance(root, (long)getpid(), "88\n");
	assert_int_equal(vmt_cli_parse_cpulist("0-5", &cpus), 0);
	assert_int_equal(vmt_tracefs_find_conflict(root, "vmtrace-1", &cpus, who, sizeof(who)), 1);
	snprintf(a, sizeof(a), "CPUs 1-2 (vmtrace-%ld, pid %ld)", alive, alive);
	snprintf(b, sizeof(b), "CPU 3 (vmtrace-%ld, pid %ld)", (long)getpid(), (long)getpid());
	snprintf(path, sizeof(path), "%s, %s", a, b);
	if (strcmp(who, path) != 0)
		snprintf(path, sizeof(path), "%s, %s", b, a);
	assert_string_equal(who, path);
	vmt_cpulist_free(&cpus);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_event_path),
		cmocka_unit_test(test_conflict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
