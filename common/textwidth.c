// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "textwidth.h"

struct range {
	uint32_t lo, hi;
};

/*
 * The ranges of 0 and of 2 columns, generated from Unicode's tables by
 * scripts/gen-textwidth.py (the rule is written there; tests/helpers/textcols.py applies it
 * independently): sorted and disjoint, so a binary search finds a code point.
 */
#include "textwidth_tables.h"

static int in(const struct range *r, size_t n, uint32_t cp)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cp < r[mid].lo)
			hi = mid;
		else if (cp > r[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

static unsigned int cp_cols(uint32_t cp)
{
	if (cp < 0x300)
		return 1;
	if (in(zero, sizeof(zero) / sizeof(zero[0]), cp))
		return 0;
	return in(wide, sizeof(wide) / sizeof(wide[0]), cp) ? 2 : 1;
}

/*
 * The character at s (n > 0 bytes left): its length in bytes and its columns. A valid
 * sequence is the shortest form of a scalar value (no overlong form, no surrogate, none
 * past U+10FFFF), as Unicode's table 3-7 has it; anything else is one byte of 1 column.
 */
static size_t next_char(const unsigned char *s, size_t n, unsigned int *cols)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, i;
	uint32_t cp;

	*cols = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
		lo = c == 0xe0 ? 0xa0 : 0x80;
		hi = c == 0xed ? 0x9f : 0xbf;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 1;
	}
	if (n < len)
		return 1;
	for (i = 1; i < len; i++) {
		/* the second byte's bounds rule out the overlong, surrogate and too large */
		if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
			return 1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	*cols = cp_cols(cp);
	return len;
}

size_t vmt_textwidth_seq(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int w;
	size_t len;

	if (p[0] < 0x80)
		return 1;
	len = next_char(p, n, &w);
	return len > 1 ? len : 0;
}

size_t vmt_textwidth_cols(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t at = 0, cols = 0;
	unsigned int w;

	while (at < len) {
		at += next_char(p + at, len - at, &w);
		cols += w;
	}
	return cols;
}

size_t vmt_textwidth(const char *s)
{
	return vmt_textwidth_cols(s, strlen(s));
}

size_t vmt_textwidth_cut(const char *s, size_t len, size_t cols, size_t max_bytes)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t at = 0, used = 0, n;
	unsigned int w;

	while (at < len) {
		n = next_char(p + at, len - at, &w);
		if (used + w > cols || n > max_bytes - at)
			break;
		at += n;
		used += w;
	}
	return at;
}

int vmt_textwidth_pad(const char *s, unsigned int cols)
{
	size_t len = strlen(s), w = vmt_textwidth_cols(s, len);

	if (w >= cols)
		return 0;
	/* the bytes beyond the columns on top of cols: printf pads bytes */
	return len - w + cols > INT_MAX ? INT_MAX : (int)(len - w + cols);
}
