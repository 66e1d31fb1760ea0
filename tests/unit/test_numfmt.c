// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * numfmt: every decimal length and every hex length (both hex forms), each power of ten
 * and of two and their neighbours, and pseudo-random values, against snprintf.
 */
#include "config.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "numfmt.h"

static void check(uint64_t v)
{
	char want[32], got[32], *end;

	snprintf(want, sizeof(want), "%" PRIu64, v);
	memset(got, 'x', sizeof(got));
	end = vmt_put_u64(got, v);
	*end = '\0';
	assert_string_equal(got, want);
	assert_int_equal(vmt_u64_digits(v), strlen(want));
	snprintf(want, sizeof(want), "0x%" PRIx64, v);
	end = vmt_put_hex(got, v);
	*end = '\0';
	assert_string_equal(got, want);
	/* where the SSE2 form is the one in use, the portable one still has to be right */
	end = vmt_put_hex_portable(got, v);
	*end = '\0';
	assert_string_equal(got, want);
	/* the cached form, cold and warm */
	{
		static struct vmt_hicache c;

		snprintf(want, sizeof(want), "%" PRIu64, v);
		end = vmt_put_u64_cached(got, v, &c);
		*end = '\0';
		assert_string_equal(got, want);
		end = vmt_put_u64_cached(got, v, &c);
		*end = '\0';
		assert_string_equal(got, want);
	}
}

static void test_edges(void **state)
{
	uint64_t p = 1;
	unsigned int i;

	(void)state;
	check(0);
	check(UINT64_MAX);
	for (i = 0; i < 20; i++, p *= 10) {
		check(p);
		check(p - 1);
		check(p + 1);
	}
	for (i = 0; i < 64; i++) {
		check(1ull << i);
		check((1ull << i) - 1);
		check((1ull << i) + 1);
	}
}

/* Increasing timestamps, as in a CSV column: the cache follows every carry. */
static void test_cached_column(void **state)
{
	struct vmt_hicache c = { 0 };
	uint64_t v = 1764689999999990000ull;
	char want[32], got[32], *end;
	unsigned int i;

	(void)state;
	for (i = 0; i < 100000; i++, v += 997 + (i % 7) * 100003) {
		snprintf(want, sizeof(want), "%" PRIu64, v);
		end = vmt_put_u64_cached(got, v, &c);
		*end = '\0';
		assert_string_equal(got, want);
	}
}

static void test_random(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned int i;

	(void)state;
	for (i = 0; i < 200000; i++) {
		/* xorshift, then a random length so every digit count is hit often */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		check(x >> (x % 64));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_cached_column),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
