// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compare: Kolmogorov's Q against published table values (Q(1.36) = 0.0495, the 5 %
 * critical value); D over exact values and over histograms for distributions whose D is
 * known by hand; the --fail-if grammar, good and bad; and conditions checked on figures set
 * by hand (changes, absolute times, counts, a reason neither side has).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compare.h"

static void test_ks_q(void **state)
{
	(void)state;
	/* Kolmogorov's distribution: the table values every statistics text has */
	assert_true(fabs(vmt_compare_ks_q(0.5) - 0.96394524) < 1e-6);
	assert_true(fabs(vmt_compare_ks_q(1.0) - 0.26999967) < 1e-6);
	assert_true(fabs(vmt_compare_ks_q(1.36) - 0.04948588) < 1e-6);
	assert_true(fabs(vmt_compare_ks_q(2.0) - 0.00067093) < 1e-7);
	assert_true(vmt_compare_ks_q(0) == 1.0);
	assert_true(vmt_compare_ks_q(20) >= 0 && vmt_compare_ks_q(20) < 1e-300);
}

static void fill(struct vmt_latdist *d, uint64_t v, unsigned int n)
{
	while (n--)
		assert_int_equal(vmt_latdist_add(d, v), 0);
}

static void test_ks_exact(void **state)
{
	struct vmt_latdist a, b;
	double d, p;
	unsigned int i;

	(void)state;
	vmt_latdist_init(&a);
	vmt_latdist_init(&b);
	for (i = 1; i <= 4; i++) {
		fill(&a, i, 1);		/* 1 2 3 4 */
		fill(&b, i + 2, 1);	/* 3 4 5 6: D = 0.5 at 2 and at 4 */
	}
	assert_int_equal(vmt_compare_ks(&a, &b, &d, &p), 0);
	assert_true(fabs(d - 0.5) < 1e-12);
	/* lambda = (sqrt 2 + 0.12 + 0.11 / sqrt 2) 0.5 = 0.80599765 */
	assert_true(fabs(p - 0.53441572) < 1e-6);
	assert_int_equal(vmt_compare_ks(&a, &a, &d, &p), 0);
	assert_true(d == 0 && p == 1.0);
	vmt_latdist_free(&b);
	vmt_latdist_init(&b);
	assert_int_equal(vmt_compare_ks(&a, &b, &d, &p), 0);	/* one side empty */
	assert_true(d == 0 && p == 1.0);
	vmt_latdist_free(&a);
	vmt_latdist_free(&b);
}

static void test_ks_hist(void **state)
{
	struct vmt_latdist a, b, c;
	double d, p;

	(void)state;
	vmt_latdist_init(&a);
	vmt_latdist_init(&b);
	vmt_latdist_init(&c);
	fill(&a, 100, 2000);		/* histograms: more than VMT_LATDIST_EXACT */
	fill(&b, 100, 1000);
	fill(&b, 10000, 1000);
	fill(&c, 100, 10);		/* still its values */
	assert_non_null(a.hist);
	assert_null(c.hist);
	assert_int_equal(vmt_compare_ks(&a, &b, &d, &p), 0);
	assert_true(fabs(d - 0.5) < 1e-12);
	assert_true(p < 1e-100);
	/* one side exact, the other a histogram: the same buckets */
	assert_int_equal(vmt_compare_ks(&c, &a, &d, &p), 0);
	assert_true(d == 0 && p == 1.0);
	assert_int_equal(vmt_compare_ks(&c, &b, &d, &p), 0);
	assert_true(fabs(d - 0.5) < 1e-12);
	vmt_latdist_free(&a);
	vmt_latdist_free(&b);
	vmt_latdist_free(&c);
}

static void test_parse(void **state)
{
	static const char *const bad[] = {
		"p99", "p98>+10%", "max>2", "max>2furlongs", "p99>+x%", "ks_p<1%", "", ",",
		":p99>1%", "count>", "p99>%", "p99>1%,", ",p99>1%", "p99>1%,,max>2ms", "p99>1%, ",
		" ",
	};
	struct vmt_cmp_cond c[4];
	char msg[256];
	unsigned int i;

	(void)state;
	assert_int_equal(vmt_compare_parse_conds("p99>+10%, max>2ms,hlt:count>=5", c, 4, false, msg,
						 sizeof(msg)), 3);
	assert_int_equal(c[0].metric, VMT_CMP_P99);
	assert_int_equal(c[0].op, VMT_CMP_GT);
	assert_true(c[0].relative && c[0].value == 10.0 && !c[0].reason[0]);
	assert_int_equal(c[1].metric, VMT_CMP_MAX);
	assert_true(!c[1].relative && c[1].value == 2e6);
	assert_string_equal(c[2].reason, "hlt");
	assert_int_equal(c[2].op, VMT_CMP_GE);
	assert_true(c[2].value == 5.0);
	assert_int_equal(vmt_compare_parse_conds("p99.9<=-5%,ks_p<0.001", c, 4, false, msg,
						 sizeof(msg)), 2);
	assert_int_equal(c[0].metric, VMT_CMP_P999);
	assert_int_equal(c[0].op, VMT_CMP_LE);
	assert_true(c[0].value == -5.0);
	assert_int_equal(c[1].metric, VMT_CMP_KS_P);
	assert_int_equal(vmt_compare_parse_conds("p50>1%,p50>1%,p50>1%", c, 2, false, msg,
						 sizeof(msg)), -EINVAL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg[0] = '\0';
		assert_int_equal(vmt_compare_parse_conds(bad[i], c, 4, false, msg, sizeof(msg)),
				 -EINVAL);
		assert_true(msg[0] != '\0');
	}
	/* one recording: the hints name no change and no test's figure, which it refuses */
	assert_int_equal(vmt_compare_parse_conds("p99>abc", c, 4, true, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "'p99>abc': a bad time (500us, 2ms)");
	assert_int_equal(vmt_compare_parse_conds("p99>abc", c, 4, false, msg, sizeof(msg)),
			 -EINVAL);
	assert_string_equal(msg, "'p99>abc': a bad time (500us, 2ms) or change (+10%)");
	assert_int_equal(vmt_compare_parse_conds("p98>1ms", c, 4, true, msg, sizeof(msg)), -EINVAL);
	assert_null(strstr(msg, "ks_"));
	assert_int_equal(vmt_compare_parse_conds("p98>1ms", c, 4, false, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "ks_p, ks_d"));
}

static int check(const struct vmt_compare *cmp, const char *s)
{
	struct vmt_cmp_cond c;
	char msg[256];

	assert_int_equal(vmt_compare_parse_conds(s, &c, 1, false, msg, sizeof(msg)), 1);
	return vmt_compare_check(cmp, &c, msg, sizeof(msg));
}

static void test_check(void **state)
{
	struct vmt_compare c;

	(void)state;
	assert_int_equal(vmt_compare_init(&c, 1000000), 0);
	fill(&c.groups[0].side[VMT_CMP_BEFORE].d, 100, 1000);	/* exact: p99 100 */
	fill(&c.groups[0].side[VMT_CMP_AFTER].d, 120, 990);
	fill(&c.groups[0].side[VMT_CMP_AFTER].d, 5000, 10);	/* p99 120, max 5000 */
	c.span_ns[0] = c.span_ns[1] = 1000000000;
	vmt_compare_test(&c);
	assert_int_equal(check(&c, "p99>+10%"), 1);		/* +20 % */
	assert_int_equal(check(&c, "p99>+25%"), 0);
	assert_int_equal(check(&c, "p50<=+20%"), 1);
	assert_int_equal(check(&c, "max>4us"), 1);
	assert_int_equal(check(&c, "max>5us"), 0);
	assert_int_equal(check(&c, "max>+4900%"), 0);		/* 100 -> 5000: +4900 %, not above */
	assert_int_equal(check(&c, "max>=+4900%"), 1);
	assert_int_equal(check(&c, "count<1000"), 0);
	assert_int_equal(check(&c, "rate>=1000"), 1);
	assert_int_equal(check(&c, "all:ks_p<0.01"), 1);	/* D = 1 */
	assert_int_equal(check(&c, "ks_d>0.99"), 1);
	assert_int_equal(check(&c, "hlt:p99>+10%"), -ENOENT);
	vmt_compare_free(&c);
}

static int check_none(const struct vmt_compare *cmp, const char *s, char *msg, size_t size)
{
	struct vmt_cmp_cond c;

	assert_int_equal(vmt_compare_parse_conds(s, &c, 1, false, msg, size), 1);
	return vmt_compare_check_none(cmp, &c, msg, size);
}

/* A reason without exits on either side: count, rate and open 0; the others none. */
static void test_check_none(void **state)
{
	struct vmt_compare c;
	char msg[256];

	(void)state;
	assert_int_equal(vmt_compare_init(&c, 1000000), 0);
	fill(&c.groups[0].side[VMT_CMP_AFTER].d, 120, 990);
	c.span_ns[0] = c.span_ns[1] = 1000000000;
	c.open = true;
	vmt_compare_test(&c);
	assert_int_equal(check_none(&c, "hlt:count>0", msg, sizeof(msg)), 0);
	assert_string_equal(msg, "hlt:count>0: hlt count 0 not > 0");
	assert_int_equal(check_none(&c, "hlt:count<1", msg, sizeof(msg)), 1);
	assert_int_equal(check_none(&c, "hlt:rate>0", msg, sizeof(msg)), 0);
	assert_int_equal(check_none(&c, "hlt:open>1s", msg, sizeof(msg)), 0);
	assert_int_equal(check_none(&c, "hlt:count>+10%", msg, sizeof(msg)), 0);	/* 0 -> 0 */
	/* no exit is longer than any bound; below one cannot be told */
	assert_int_equal(check_none(&c, "hlt:max>1ms", msg, sizeof(msg)), 0);
	assert_string_equal(msg, "hlt:max>1ms: hlt max none, no exit longer: not > 1.000 ms");
	assert_int_equal(check_none(&c, "hlt:p99>=0ns", msg, sizeof(msg)), 0);
	assert_int_equal(check_none(&c, "hlt:p99<1ms", msg, sizeof(msg)), 2);
	assert_string_equal(msg, "hlt:p99<1ms: hlt p99 none < 1.000 ms");
	assert_int_equal(check_none(&c, "hlt:window>1us", msg, sizeof(msg)), 0);
	assert_int_equal(check_none(&c, "hlt:mean>1us", msg, sizeof(msg)), 0);
	/* two recordings without them: no change */
	assert_int_equal(check_none(&c, "hlt:p99>+10%", msg, sizeof(msg)), 0);
	assert_string_equal(msg, "hlt:p99>+10%: hlt p99 none -> none (no change) not > +10 %");
	assert_int_equal(check_none(&c, "hlt:p99>-10%", msg, sizeof(msg)), 1);
	assert_int_equal(check_none(&c, "hlt:ks_p<0.01", msg, sizeof(msg)), 2);
	vmt_compare_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ks_q),
		cmocka_unit_test(test_ks_exact),
		cmocka_unit_test(test_ks_hist),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_check_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
