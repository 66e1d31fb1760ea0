// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * textwidth: the columns of UTF-8 text by the module's own rule (1 a code point, 0 a
 * combining mark, 2 an East Asian wide one, 1 each byte of no valid sequence), cuts that
 * never split a character, and printf widths that pad to columns.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "textwidth.h"

static void test_cols(void **state)
{
	static const struct {
		const char *s;
		size_t cols;
	} cases[] = {
		{ "", 0 },
		{ "web1", 4 },
		{ "vm-caf\xc3\xa9", 7 },				/* é, 2 bytes: 1 */
		{ "\xd1\x82\xd0\xb5\xd1\x81\xd1\x82", 4 },		/* тест */
		{ "e\xcc\x81", 1 },					/* e + U+0301: 1 */
		{ "\xe4\xb8\xad\xe6\x96\x87", 4 },			/* 中文: 2 each */
		{ "\xea\xb0\x80", 2 },					/* 가 U+AC00 */
		{ "\xef\xbc\xa1", 2 },					/* Ａ U+FF21 */
		{ "\xef\xbd\xa1", 1 },					/* ｡ U+FF61 halfwidth */
		{ "\xf0\x9f\x98\x80", 2 },				/* 😀 U+1F600 */
		{ "\xf0\xa0\x80\x80", 2 },				/* U+20000 */
		{ "\xe1\x84\x80", 2 },					/* U+1100 */
		{ "\xe1\x85\xa0", 1 },					/* U+1160: past 115F */
		{ "\xe2\x80\x8b", 0 },					/* zero width space */
		{ "\xc2\xa0", 1 },					/* no-break space */
		/* a comm the kernel cut inside "й" (D0 B9): the lone lead byte is 1 */
		{ "\xd1\x82\xd0", 2 },
		{ "\xe4\xb8", 2 },					/* half of 中 */
		{ "\xe4\xb8x", 3 },
		{ "\x80\xbf", 2 },					/* stray continuations */
		{ "\xc0\xaf", 2 },					/* overlong '/' */
		{ "\xe0\x80\xaf", 3 },					/* overlong, 3 bytes */
		{ "\xed\xa0\x80", 3 },					/* a surrogate */
		{ "\xf4\x90\x80\x80", 4 },				/* past U+10FFFF */
		{ "\xf8\x88\x80\x80\x80", 5 },				/* 5-byte form */
		{ "\xff", 1 },
		{ "\x01\x7f", 2 },					/* controls: 1 each */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t got = vmt_textwidth(cases[i].s);

		if (got != cases[i].cols)
			fail_msg("case %zu: %zu columns, want %zu", i, got, cases[i].cols);
	}
	/* only the bytes given count: a sequence cut by len is bytes of 1 */
	assert_int_equal(vmt_textwidth_cols("\xe4\xb8\xad", 2), 2);
	assert_int_equal(vmt_textwidth_cols("ab\xe4\xb8\xad", 2), 2);
}

static void test_cut(void **state)
{
	static const struct {
		const char *s;
		size_t cols, max_bytes, want;
	} cases[] = {
		{ "abcdef", 3, SIZE_MAX, 3 },
		{ "abc", 10, SIZE_MAX, 3 },
		{ "abc", 0, SIZE_MAX, 0 },
		/* é is 1 column of 2 bytes: 3 columns are 4 bytes */
		{ "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3, SIZE_MAX, 6 },
		/* a wide character that does not fit whole stays out */
		{ "a\xe4\xb8\xad\xe6\x96\x87", 2, SIZE_MAX, 1 },
		{ "a\xe4\xb8\xad\xe6\x96\x87", 3, SIZE_MAX, 4 },
		{ "a\xe4\xb8\xad\xe6\x96\x87", 4, SIZE_MAX, 4 },
		{ "\xf0\x9f\x98\x80x", 1, SIZE_MAX, 0 },
		/* a combining mark stays with its letter */
		{ "e\xcc\x81x", 1, SIZE_MAX, 3 },
		/* the bytes bound the cut as well, never inside a character */
		{ "\xc3\xa9\xc3\xa9\xc3\xa9", 10, 3, 2 },
		{ "\xe4\xb8\xad\xe6\x96\x87", 10, 5, 3 },
		{ "\xe4\xb8\xad\xe6\x96\x87", 10, 2, 0 },
		{ "e\xcc\x81", 10, 2, 1 },
		/* invalid bytes are characters of their own: a cut may fall between them */
		{ "\xd1\x82\xd0", 2, SIZE_MAX, 3 },
		{ "\xe4\xb8x", 1, SIZE_MAX, 1 },
		{ "\xe4\xb8x", 2, SIZE_MAX, 2 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t got = vmt_textwidth_cut(cases[i].s, strlen(cases[i].s), cases[i].cols,
					       cases[i].max_bytes);

		if (got != cases[i].want)
			fail_msg("case %zu: %zu bytes, want %zu", i, got, cases[i].want);
	}
	/* len bounds it: the bytes past it are not looked at */
	assert_int_equal(vmt_textwidth_cut("abcdef", 2, 10, SIZE_MAX), 2);
}

static void test_pad(void **state)
{
	static const struct {
		const char *s;
		unsigned int cols;
		const char *want;
	} cases[] = {
		{ "ab", 5, "ab   |" },
		{ "vm-caf\xc3\xa9", 9, "vm-caf\xc3\xa9  |" },
		{ "\xd1\x82\xd0\xb5\xd1\x81\xd1\x82", 6, "\xd1\x82\xd0\xb5\xd1\x81\xd1\x82  |" },
		{ "\xe4\xb8\xad\xe6\x96\x87", 6, "\xe4\xb8\xad\xe6\x96\x87  |" },
		{ "e\xcc\x81", 3, "e\xcc\x81  |" },
		{ "\xd1\x82\xd0", 4, "\xd1\x82\xd0  |" },
		/* as wide as the column or wider: whole, no blank */
		{ "\xe4\xb8\xad\xe6\x96\x87", 4, "\xe4\xb8\xad\xe6\x96\x87|" },
		{ "\xe4\xb8\xad\xe6\x96\x87", 3, "\xe4\xb8\xad\xe6\x96\x87|" },
		{ "", 2, "  |" },
	};
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(buf, sizeof(buf), "%-*s|", vmt_textwidth_pad(cases[i].s, cases[i].cols),
			 cases[i].s);
		if (strcmp(buf, cases[i].want))
			fail_msg("case %zu: \"%s\", want \"%s\"", i, buf, cases[i].want);
	}
	/* right-aligned the same: "%*s" */
	snprintf(buf, sizeof(buf), "%*s|", vmt_textwidth_pad("caf\xc3\xa9", 6), "caf\xc3\xa9");
	assert_string_equal(buf, "  caf\xc3\xa9|");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cols),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_pad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
