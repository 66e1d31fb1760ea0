// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * log: vmt_log_fold(), table-driven: lines within the width (display columns), breaks at
 * spaces only, a part in parentheses kept whole, a figure kept with its unit, a word longer
 * than a line kept whole, the indent, the first line's column, a short buffer; and
 * unfolding gives the text back.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "log.h"

static void test_fold_table(void **state)
{
	static const struct {
		const char *in;
		unsigned int col, width, indent;
		const char *out;
	} cases[] = {
		{ "", 0, 10, 2, "" },
		{ "fits", 0, 10, 2, "fits" },
		{ "aaa bbb ccc", 0, 7, 2, "aaa bbb\n  ccc" },
		/* the first line starts at col: less room there */
		{ "aaa bbb ccc", 4, 11, 2, "aaa bbb\n  ccc" },
		{ "aaa bbb ccc", 5, 11, 2, "aaa\n  bbb ccc" },
		/* exactly the width: no break */
		{ "aa bb", 0, 5, 0, "aa bb" },
		{ "aa bbb", 0, 5, 0, "aa\nbbb" },
		/* a word longer than a line: whole, on its own line */
		{ "a longerthanwidth b", 0, 6, 1, "a\n longerthanwidth\n b" },
		{ "longerthanwidth", 3, 6, 1, "longerthanwidth" },
		/* a part in parentheses moves whole, with what sticks to it */
		{ "x on CPU 1 (collector CPU 0, clock local) into f", 0, 40, 2,
		  "x on CPU 1\n  (collector CPU 0, clock local) into f" },
		{ "x (a b), c", 0, 6, 0, "x\n(a b),\nc" },
		/* ... unless no line can hold it: then at its spaces */
		{ "x (a b c d)", 0, 5, 2, "x (a\n  b c\n  d)" },
		/* an open parenthesis never closed: plain words */
		{ "x (a b", 0, 4, 0, "x (a\nb" },
		/* display columns, not bytes: an accented letter is 1, a wide character 2 */
		{ "\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\xc3\xa9", 0, 7, 2,
		  "\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\xc3\xa9" },
		{ "\xe8\xa8\x98\xe8\xa8\x98 \xe8\xa8\x98", 0, 7, 2,
		  "\xe8\xa8\x98\xe8\xa8\x98 \xe8\xa8\x98" },
		{ "\xe8\xa8\x98\xe8\xa8\x98 \xe8\xa8\x98", 0, 6, 2,
		  "\xe8\xa8\x98\xe8\xa8\x98\n  \xe8\xa8\x98" },
		/* a figure keeps its unit, and what sticks to the unit */
		{ "to 0.150242702 s", 0, 14, 2, "to\n  0.150242702 s" },
		{ "took 3 ms, then", 0, 8, 0, "took\n3 ms,\nthen" },
		{ "a 12 %) b", 0, 5, 0, "a\n12 %)\nb" },
		/* not a unit: a word that only starts like one, a word after a word */
		{ "3 sss", 0, 3, 0, "3\nsss" },
		{ "x s", 0, 2, 0, "x\ns" },
		/* a list, as the note of missing context events */
		{ "missing: e:a, e:b, e:c", 10, 24, 2, "missing: e:a,\n  e:b, e:c" },
	};
	unsigned int i;
	char buf[256];

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		vmt_log_fold(cases[i].in, cases[i].col, cases[i].width, cases[i].indent, buf,
			     sizeof(buf));
		if (strcmp(buf, cases[i].out))
			fail_msg("case %u: '%s' -> '%s', expected '%s'", i, cases[i].in, buf,
				 cases[i].out);
	}
}

/* Long lists of names: every line within the width, and the text back when unfolded. */
static void test_fold_lists(void **state)
{
	char in[2048], out[4096], back[2048];
	unsigned int n, i, width;

	(void)state;
	for (width = 40; width <= 120; width += 40) {
		for (n = 1; n < 60; n += 7) {
			size_t len = 0, col = 16, blen = 0;
			const char *p;

			len = (size_t)snprintf(in, sizeof(in), "not on this kernel:");
			for (i = 0; i < n; i++)
				len += (size_t)snprintf(in + len, sizeof(in) - len, "%s sys%u:event_%u",
							i ? "," : "", i % 7, i * 13);
			vmt_log_fold(in, (unsigned int)col, width, 2, out, sizeof(out));
			for (p = out; *p; p++) {
				if (*p == '\n') {
					assert_true(col <= width);
					assert_memory_equal(p + 1, "  ", 2);
					col = 0;
					back[blen++] = ' ';
					p += 2;
					col += 2;
					continue;
				}
				col++;
				back[blen++] = *p;
			}
			assert_true(col <= width);
			back[blen] = '\0';
			assert_string_equal(back, in);
		}
	}
}

/* A buffer too short: cut, terminated, never overrun. */
static void test_fold_short_buffer(void **state)
{
	char buf[8];

	(void)state;
	memset(buf, 'X', sizeof(buf));
	vmt_log_fold("aaa bbb ccc ddd", 0, 7, 2, buf, 6);
	assert_string_equal(buf, "aaa b");
	assert_int_equal(buf[6], 'X');
	vmt_log_fold("aaa", 0, 7, 2, buf, 1);
	assert_string_equal(buf, "");
}

/* Control characters of a name shown escaped; a folded message's newlines kept on request. */
static void test_escape(void **state)
{
	static const struct {
		const char *in;
		int keep_folds;
		const char *want;
	} t[] = {
		{ "plain.vmt", 0, "plain.vmt" },
		{ "evil\nvmtrace-report: x", 0, "evil\\nvmtrace-report: x" },
		{ "a\tb\rc\x1b[31md\x7f", 0, "a\\tb\\rc\\x1b[31md\\x7f" },
		{ "c1 \xc2\x9b here, \xc3\xa9 kept", 0, "c1 \\xc2\\x9b here, \xc3\xa9 kept" },
		{ "one\n  two\nthree", 1, "one\n  two\\nthree" },
		{ "one\n  two", 0, "one\\n  two" },
	};
	char out[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_string_equal(vmt_log_escape(t[i].in, t[i].keep_folds, out, sizeof(out)),
				    t[i].want);
	/* cut to the buffer, never past it */
	assert_string_equal(vmt_log_escape("ab\ncd", 0, out, 5), "ab\\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold_table),
		cmocka_unit_test(test_fold_lists),
		cmocka_unit_test(test_fold_short_buffer),
		cmocka_unit_test(test_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
