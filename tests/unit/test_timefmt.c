// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timefmt: the name columns of the tables. vmt_fmt_fit() keeps a name that fits, else cuts
 * it with '~' before its id, never in a UTF-8 character; vmt_fmt_name_cols() sizes a column
 * between 24 and what 120 columns leave.
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
		/* "é" is two bytes (columns count bytes): the cut never keeps half of it */
		{ "vm\xc3\xa9t\xc3\xa9/vcpu0 (pid 1)", 13, "vm\xc3\xa9~ (pid 1)" },
		{ "vm\xc3\xa9t\xc3\xa9/vcpu0 (pid 1)", 12, "vm~ (pid 1)" },
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_name_cols),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
