// SPDX-License-Identifier: GPL-2.0-or-later
/* cli: strict number, duration, size and CPU-list parsing, table-driven. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cli.h"

static void test_durations(void **state)
{
	static const struct {
		const char *in;
		int ret;
		uint64_t ns;
	} cases[] = {
		{ "10", 0, 10000000000ULL }, { "500ms", 0, 500000000ULL }, { "2m", 0, 120000000000ULL },
		{ "1.5s", 0, 1500000000ULL }, { "250us", 0, 250000 }, { "7ns", 0, 7 },
		{ "1h", 0, 3600000000000ULL }, { "0.001", 0, 1000000 }, { "", -EINVAL, 0 },
		{ "ms", -EINVAL, 0 }, { "-1", -EINVAL, 0 }, { "10x", -EINVAL, 0 },
		{ "1.", -EINVAL, 0 }, { "99999999999999999999", -ERANGE, 0 },
		{ "99999999999h", -ERANGE, 0 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0;

		assert_int_equal(vmt_cli_parse_duration_ns(cases[i].in, &v), cases[i].ret);
		if (!cases[i].ret)
			assert_int_equal(v, cases[i].ns);
	}
}

static void test_sizes(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(vmt_cli_parse_size("64M", 1024, &v), 0);
	assert_int_equal(v, 64ULL << 20);
	assert_int_equal(vmt_cli_parse_size("512", 1024, &v), 0);
	assert_int_equal(v, 512ULL << 10);
	assert_int_equal(vmt_cli_parse_size("4096B", 1024, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(vmt_cli_parse_size("1G", 1, &v), 0);
	assert_int_equal(v, 1ULL << 30);
	assert_int_equal(vmt_cli_parse_size("1T", 1, &v), -EINVAL);
	assert_int_equal(vmt_cli_parse_size("M", 1, &v), -EINVAL);
}

static void test_u64(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(vmt_cli_parse_u64("18446744073709551615", &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(vmt_cli_parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(vmt_cli_parse_u64(" 1", &v), -EINVAL);
	assert_int_equal(vmt_cli_parse_u64("1 ", &v), -EINVAL);
	assert_int_equal(vmt_cli_parse_u64("+1", &v), -EINVAL);
}

static void test_cpulists(void **state)
{
	static const struct {
		const char *in;
		int ret;
		const char *out;
	} cases[] = {
		{ "2", 0, "2" }, { "2,4-7", 0, "2,4-7" }, { "7-4", -EINVAL, NULL },
		{ "3,1,2,2", 0, "1-3" }, { "0-3,8", 0, "0-3,8" }, { "", -EINVAL, NULL },
		{ "1,", -EINVAL, NULL }, { "a", -EINVAL, NULL }, { "1-", -EINVAL, NULL },
		{ "99999", -ERANGE, NULL }, { "1 2", -EINVAL, NULL },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vmt_cpulist l = { 0, NULL };
		char buf[64];

		assert_int_equal(vmt_cli_parse_cpulist(cases[i].in, &l), cases[i].ret);
		if (!cases[i].ret) {
			assert_string_equal(vmt_cpulist_format(&l, buf, sizeof(buf)), cases[i].out);
			vmt_cpulist_free(&l);
		}
	}
}

/* CPU numbers stop at Linux's largest NR_CPUS; vCPU ids go on (KVM's ids on large VMs). */
static void test_idlists(void **state)
{
	struct vmt_cpulist l = { 0, NULL };
	char buf[64];

	(void)state;
	assert_int_equal(vmt_cli_parse_cpulist("8191", &l), 0);
	vmt_cpulist_free(&l);
	assert_int_equal(vmt_cli_parse_cpulist("8192", &l), -ERANGE);
	assert_int_equal(vmt_cli_parse_idlist("8192,16383", VMT_CLI_MAX_VCPUS, &l), 0);
	assert_string_equal(vmt_cpulist_format(&l, buf, sizeof(buf)), "8192,16383");
	vmt_cpulist_free(&l);
	assert_int_equal(vmt_cli_parse_idlist("65535", VMT_CLI_MAX_VCPUS, &l), 0);
	vmt_cpulist_free(&l);
	assert_int_equal(vmt_cli_parse_idlist("0-65536", VMT_CLI_MAX_VCPUS, &l), -ERANGE);
}

static void test_format_ns(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(vmt_format_ns(999, buf, sizeof(buf)), "999 ns");
	assert_string_equal(vmt_format_ns(1234, buf, sizeof(buf)), "1.234 us");
	/* four significant digits, cut: a figure never reads above what it is */
	assert_string_equal(vmt_format_ns(12345678, buf, sizeof(buf)), "12.34 ms");
	assert_string_equal(vmt_format_ns(123456789012ULL, buf, sizeof(buf)), "123.4 s");
	assert_string_equal(vmt_format_ns(999999, buf, sizeof(buf)), "999.9 us");
	assert_string_equal(vmt_format_ns(1000000, buf, sizeof(buf)), "1.000 ms");
	assert_string_equal(vmt_format_ns(1999999999, buf, sizeof(buf)), "1.999 s");
	assert_string_equal(vmt_format_ns(4000000000000ULL, buf, sizeof(buf)), "4000.0 s");
	/* a million seconds or more (damaged timestamps): a mantissa, cut, never longer */
	assert_string_equal(vmt_format_ns(999999999999999ULL, buf, sizeof(buf)), "999999.9 s");
	assert_string_equal(vmt_format_ns(1000000000000000ULL, buf, sizeof(buf)), "1.000e6 s");
	assert_string_equal(vmt_format_ns(123456789012345678ULL, buf, sizeof(buf)), "1.234e8 s");
	assert_string_equal(vmt_format_ns(UINT64_MAX, buf, sizeof(buf)), "1.844e10 s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_cpulists),
		cmocka_unit_test(test_idlists),
		cmocka_unit_test(test_format_ns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
