// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * textwidth_dump: for every Unicode scalar value in order (U+0000-U+10FFFF without the
 * surrogates), the display columns vmt_textwidth gives its UTF-8 form, one digit each on
 * one line, for tests/e2e/textwidth_all.sh to hold against Python's Unicode tables.
 */
#include "config.h"

#include <stdio.h>
#include <stdint.h>

#include "textwidth.h"

static size_t utf8(uint32_t cp, char *b)
{
	if (cp < 0x80) {
		b[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	b[0] = (char)(0xf0 | cp >> 18);
	b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	b[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

int main(void)
{
	uint32_t cp;
	char b[4];

	for (cp = 0; cp <= 0x10ffff; cp++) {
		size_t n;

		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		n = utf8(cp, b);
		/* a control character is still one byte of one column to the rule */
		putchar('0' + (int)vmt_textwidth_cols(b, n));
	}
	putchar('\n');
	return ferror(stdout) || fflush(stdout) ? 1 : 0;
}
