// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timefmt: the name columns of the tables. vmt_fmt_fit() keeps a name that fits (in display
 * columns), else cuts it with '~' before its id, never in a UTF-8 character;
 * vmt_fmt_name_cols() sizes a column between 24 and what 120 columns leave.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "timefmt.h"

static void test_fit(void **state)
{
	static const struct {
		const char *name;
		unsigned int cols;
		const char *want;
	} cases[] = {
		{ "web1/vcpu0 (pid 12345)", 24, "web1/vcpu0 (pid 12345)" },
		{ "web1/vcpu0 (pid 12345)", 22, "web1/vcpu0 (pid 12345)" },
		{ "web1/vcpu0 (pid 12345)", 21, "we~/vcpu0 (pid 12345)" },
		/* a VM's "/vcpuN" stays with the id where there is room: it tells vCPUs apart */
		{ "web1-frontend-production/vcpu0 (pid 1000)", 24, "web1-f~/vcpu0 (pid 1000)" },
		{ "web1-frontend-production/vcpu1 (pid 1001)", 24, "web1-f~/vcpu1 (pid 1001)" },
		{ "averyverylongnm (4100001)", 24, "averyverylong~ (4100001)" },
		{ "avic_unaccelerated_access(0x402)", 24, "avic_unaccelerat~(0x402)" },
		/* no id: the name cut, a '~' at the end */
		{ "kworker/u16:3-events_unbound", 24, "kworker/u16:3-events_un~" },
		/* all in parentheses is a name, not an id */
		{ "(sd-pam-with-a-long-name)", 10, "(sd-pam-w~" },
		/* an id wider than the column stays whole, after the '~' */
		{ "x (pid 4194304)", 8, "~ (pid 4194304)" },
		/* "é" is two bytes and one column: 20 columns fit 20, and a cut keeps it whole */
		{ "vm\xc3\xa9t\xc3\xa9/vcpu0 (pid 1)", 20, "vm\xc3\xa9t\xc3\xa9/vcpu0 (pid 1)" },
		{ "vm\xc3\xa9t\xc3\xa9/vcpu0 (pid 1)", 13, "vm\xc3\xa9t~ (pid 1)" },
		{ "vm\xc3\xa9t\xc3\xa9/vcpu0 (pid 1)", 12, "vm\xc3\xa9~ (pid 1)" },
		/* "中" is two columns: one that would pass the column stays out */
#define ZH "\xe4\xb8\xad\xe6\x96\x87\xe5\x90\x8d"	/* 中文名 */
		{ ZH " (pid 7)", 12, "\xe4\xb8\xad~ (pid 7)" },
		{ ZH " (pid 7)", 13, "\xe4\xb8\xad\xe6\x96\x87~ (pid 7)" },
		{ ZH " (pid 7)", 14, ZH " (pid 7)" },
		/* "тест" and half of "й", as the kernel cuts a comm: a lone byte is 1 column */
#define RU "\xd1\x82\xd0\xb5\xd1\x81\xd1\x82\xd0"
		{ RU " (42)", 10, RU " (42)" },
		{ RU " (42)", 9, "\xd1\x82\xd0\xb5\xd1\x81~ (42)" },
		{ "", 0, "" },
	};
	char buf[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		vmt_fmt_fit(cases[i].name, cases[i].cols, buf, sizeof(buf));
		if (strcmp(buf, cases[i].want))
			fail_msg("%s in %u: \"%s\", want \"%s\"", cases[i].name, cases[i].cols, buf,
				 cases[i].want);
	}
}

/* A buffer too small for the name: cut as a name too wide, never inside a character. */
static void test_fit_buffer(void **state)
{
	char buf[12];

	(void)state;
	/* "é" x 6 and " (pid 1)": 6 + 8 columns fit 100, but 12 + 8 bytes pass 12 */
	vmt_fmt_fit("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 (pid 1)", 100, buf,
		    sizeof(buf));
	assert_string_equal(buf, "\xc3\xa9~ (pid 1)");
	/* an odd room: the second byte of "é" would be the last that fits, so not its first */
	vmt_fmt_fit("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 (pid 1)", 100, buf, 11);
	assert_string_equal(buf, "~ (pid 1)");
	vmt_fmt_fit("abc", 100, buf, 1);
	assert_string_equal(buf, "");
}

static void test_name_cols(void **state)
{
	(void)state;
	assert_int_equal(vmt_fmt_name_cols(5, 96, false), 24);	/* never narrower */
	assert_int_equal(vmt_fmt_name_cols(30, 96, false), 24);	/* 120 columns full */
	assert_int_equal(vmt_fmt_name_cols(30, 96, true), 30);	/* --wide: any width */
	assert_int_equal(vmt_fmt_name_cols(60, 46, false), 60);
	assert_int_equal(vmt_fmt_name_cols(90, 46, false), 74);
	assert_int_equal(vmt_fmt_name_cols(90, 130, false), 24);
}

/*
 * Latencies past what ms can show in 9 columns (damaged timestamps) are in s, and a whole
 * part of more digits than the cell has is a mantissa with its exponent, cut.
 */
static void test_cells_huge(void **state)
{
	const struct vmt_clock ns = { .ns_per_tick = 1.0 }, ticks = { .ns_per_tick = 0 };
	const struct vmt_unit tk = { "ticks", 1 };
	char b[32];

	(void)state;
	assert_string_equal(vmt_unit_for(&ns, UINT64_C(999999999999999)).name, "ms");
	assert_string_equal(vmt_unit_for(&ns, UINT64_C(1000000000000000)).name, "s");
	assert_string_equal(vmt_fmt_in_cols(&ns, UINT64_C(999999999999999),
					    vmt_unit_for(&ns, UINT64_C(999999999999999)), 9, b,
					    sizeof(b)), "999999999");
	assert_string_equal(vmt_fmt_in_cols(&ns, UINT64_MAX, vmt_unit_for(&ns, UINT64_MAX), 9, b,
					    sizeof(b)), "1.8446e10");
	assert_string_equal(vmt_fmt_in_cols(&ns, UINT64_C(1234567890123456789),
					    vmt_unit_for(&ns, 1), 9, b, sizeof(b)), "1.2345e18");
	assert_string_equal(vmt_fmt_in_cols(&ticks, UINT64_MAX, tk, 10, b, sizeof(b)),
			    "1.84467e19");
	assert_string_equal(vmt_fmt_in_cols(&ticks, UINT64_C(9999999999), tk, 10, b, sizeof(b)),
			    "9999999999");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_fit_buffer),
		cmocka_unit_test(test_name_cols),
		cmocka_unit_test(test_cells_huge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
