// SPDX-License-Identifier: GPL-2.0-or-later
/* svg: scales, ticks, tick labels, escaping and axes, against values worked out by hand. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "svg.h"

/* An outbuf onto a temporary file, read back as a string. */
struct capture {
	FILE *f;
	struct vmt_outbuf o;
	char text[65536];
};

static void cap_open(struct capture *c)
{
	c->f = tmpfile();
	assert_non_null(c->f);
	assert_int_equal(vmt_outbuf_init(&c->o, fileno(c->f)), 0);
}

static const char *cap_text(struct capture *c)
{
	size_t n;

	assert_int_equal(vmt_outbuf_finish(&c->o), 0);
	rewind(c->f);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->f);
	c->text[n] = '\0';
	fclose(c->f);
	return c->text;
}

static void test_linear(void **state)
{
	struct vmt_scale s;

	(void)state;
	vmt_scale_init(&s, false, 0, 10, 100, 200);
	assert_true(fabs(vmt_scale_map(&s, 0) - 100) < 1e-9);
	assert_true(fabs(vmt_scale_map(&s, 5) - 150) < 1e-9);
	assert_true(fabs(vmt_scale_map(&s, 10) - 200) < 1e-9);
	/* clamped to the range */
	assert_true(fabs(vmt_scale_map(&s, -5) - 100) < 1e-9);
	assert_true(fabs(vmt_scale_map(&s, 50) - 200) < 1e-9);
	/* inverted ranges (y grows downwards) */
	vmt_scale_init(&s, false, 0, 100, 250, 50);
	assert_true(fabs(vmt_scale_map(&s, 25) - 200) < 1e-9);
	/* an empty domain is widened, never a division by zero */
	vmt_scale_init(&s, false, 3, 3, 0, 10);
	assert_true(fabs(vmt_scale_map(&s, 3)) < 1e-9);
	assert_true(fabs(vmt_scale_map(&s, 4) - 10) < 1e-9);
}

static void test_log(void **state)
{
	struct vmt_scale s;

	(void)state;
	vmt_scale_init(&s, true, 1, 1000, 0, 300);
	assert_true(fabs(vmt_scale_map(&s, 1)) < 1e-9);
	assert_true(fabs(vmt_scale_map(&s, 10) - 100) < 1e-9);
	assert_true(fabs(vmt_scale_map(&s, 100) - 200) < 1e-9);
	assert_true(fabs(vmt_scale_map(&s, sqrt(10)) - 50) < 1e-9);
	/* zero and below go to the start of the range */
	assert_true(fabs(vmt_scale_map(&s, 0)) < 1e-9);
	assert_true(fabs(vmt_scale_map(&s, -1)) < 1e-9);
	/* a bad log domain is repaired */
	vmt_scale_init(&s, true, 0, 0, 0, 1);
	assert_true(s.d0 > 0 && s.d1 > s.d0);
}

static void test_steps(void **state)
{
	static const struct {
		double range;
		unsigned int n;
		double step;
	} c[] = {
		{ 10, 5, 2 }, { 100, 4, 50 }, { 1, 10, 0.1 }, { 7, 5, 2 },
		{ 3e9, 10, 5e8 }, { 0.03, 3, 0.01 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		assert_true(fabs(vmt_nice_step(c[i].range, c[i].n) - c[i].step) <
			    c[i].step * 1e-9);
	assert_true(fabs(vmt_decade_floor(345) - 100) < 1e-9);
	assert_true(fabs(vmt_decade_ceil(345) - 1000) < 1e-9);
	assert_true(fabs(vmt_decade_floor(1000) - 1000) < 1e-9);
	assert_true(fabs(vmt_decade_ceil(1000) - 1000) < 1e-9);
}

static void test_ticks(void **state)
{
	static const double lin[] = { 0, 2, 4, 6, 8, 10 };
	static const double dec[] = { 1e3, 1e4, 1e5, 1e6, 1e7 };
	static const double fine[] = { 20, 50, 100, 200, 500 };
	struct vmt_scale s;
	double t[64];
	unsigned int n, i;

	(void)state;
	vmt_scale_init(&s, false, 0, 10, 0, 1);
	n = vmt_scale_ticks(&s, 5, t, 64);
	assert_int_equal(n, 6);
	for (i = 0; i < n; i++)
		assert_true(fabs(t[i] - lin[i]) < 1e-9);
	/* decades only over three or more */
	vmt_scale_init(&s, true, 1e3, 1e7, 0, 1);
	n = vmt_scale_ticks(&s, 5, t, 64);
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++)
		assert_true(fabs(t[i] - dec[i]) < dec[i] * 1e-9);
	/* 1-2-5 inside a short log domain, never outside it */
	vmt_scale_init(&s, true, 15, 600, 0, 1);
	n = vmt_scale_ticks(&s, 5, t, 64);
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++)
		assert_true(fabs(t[i] - fine[i]) < fine[i] * 1e-9);
	/* never more than asked */
	vmt_scale_init(&s, false, 0, 1000, 0, 1);
	assert_int_equal(vmt_scale_ticks(&s, 1000, t, 7), 7);
}

static void test_labels(void **state)
{
	static const struct {
		char *(*fmt)(double, char *, size_t);
		double v;
		const char *want;
	} c[] = {
		{ vmt_svg_fmt_ns, 0, "0 ns" },
		{ vmt_svg_fmt_ns, 850, "850 ns" },
		{ vmt_svg_fmt_ns, 1000, "1 us" },
		{ vmt_svg_fmt_ns, 2500, "2.5 us" },
		{ vmt_svg_fmt_ns, 100e3, "100 us" },
		{ vmt_svg_fmt_ns, 12.5e6, "12.5 ms" },
		{ vmt_svg_fmt_ns, 3e9, "3 s" },
		{ vmt_svg_fmt_count, 1, "1" },
		{ vmt_svg_fmt_count, 10000, "10k" },
		{ vmt_svg_fmt_count, 2.5e6, "2.5M" },
		{ vmt_svg_fmt_s, 5e8, "0.5" },
		{ vmt_svg_fmt_s, 12e9, "12" },
		{ vmt_svg_fmt_plain, 25, "25" },
		{ vmt_svg_fmt_plain, 0.25, "0.25" },
	};
	unsigned int i;
	char buf[32];

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		assert_string_equal(c[i].fmt(c[i].v, buf, sizeof(buf)), c[i].want);
}

static void test_escape_and_numbers(void **state)
{
	struct capture c;

	(void)state;
	cap_open(&c);
	vmt_svg_esc(&c.o, "a<b>&\"c\"'d'");
	vmt_outbuf_ch(&c.o, '|');
	vmt_svg_esc(&c.o, NULL);
	vmt_svg_esc(&c.o, "plain");
	vmt_outbuf_ch(&c.o, '|');
	vmt_svg_num(&c.o, 12.0);
	vmt_outbuf_ch(&c.o, ' ');
	vmt_svg_num(&c.o, 12.34);
	vmt_outbuf_ch(&c.o, ' ');
	vmt_svg_num(&c.o, -0.04);
	vmt_outbuf_ch(&c.o, ' ');
	vmt_svg_num(&c.o, -3.25);
	vmt_outbuf_ch(&c.o, ' ');
	vmt_svg_num(&c.o, 0.96);
	assert_string_equal(cap_text(&c),
			    "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;|plain|12 12.3 0 -3.3 1");
}

static void test_axis(void **state)
{
	static const double given[] = { 1, 2 };
	static const char *const names[] = { "one", "<two>" };
	struct vmt_scale s;
	struct vmt_axis a;
	struct capture c;
	const char *t;

	(void)state;
	vmt_scale_init(&s, true, 1e3, 1e6, 50, 350);
	memset(&a, 0, sizeof(a));
	a.scale = &s;
	a.side = VMT_AXIS_BOTTOM;
	a.at = 200;
	a.grid0 = 10;
	a.grid1 = 200;
	a.fmt = vmt_svg_fmt_ns;
	a.label = "latency";
	cap_open(&c);
	vmt_svg_axis(&c.o, &a);
	t = cap_text(&c);
	/* four decades, each a tick with its grid line, mark and label, where the scale says */
	assert_non_null(strstr(t, "<g class=\"axis\" data-axis=\"x\">"));
	assert_non_null(strstr(t, "<g class=\"tick\" data-v=\"1000\"><line class=\"grid\" "
			       "x1=\"50\" y1=\"10\" x2=\"50\" y2=\"200\"/>"));
	assert_non_null(strstr(t, "<g class=\"tick\" data-v=\"10000\"><line class=\"grid\" "
			       "x1=\"150\""));
	assert_non_null(strstr(t, ">10 us</text>"));
	assert_non_null(strstr(t, ">1 ms</text>"));
	assert_non_null(strstr(t, "<line class=\"base\" x1=\"50\" y1=\"200\" x2=\"350\" "
			       "y2=\"200\"/>"));
	assert_non_null(strstr(t, ">latency</text></g>"));
	assert_null(strstr(t, "data-v=\"1e+07\""));

	/* given ticks and labels, on a vertical axis; labels escaped */
	vmt_scale_init(&s, false, 0, 3, 300, 0);
	a.scale = &s;
	a.side = VMT_AXIS_LEFT;
	a.at = 60;
	a.ticks = given;
	a.tick_labels = names;
	a.ntick_given = 2;
	a.label = NULL;
	cap_open(&c);
	vmt_svg_axis(&c.o, &a);
	t = cap_text(&c);
	assert_non_null(strstr(t, "data-axis=\"y\""));
	assert_non_null(strstr(t, "<g class=\"tick\" data-v=\"1\"><line class=\"grid\" x1=\"10\" "
			       "y1=\"200\" x2=\"200\" y2=\"200\"/>"));
	assert_non_null(strstr(t, ">&lt;two&gt;</text>"));
	assert_null(strstr(t, "class=\"label\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linear),
		cmocka_unit_test(test_log),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_ticks),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_escape_and_numbers),
		cmocka_unit_test(test_axis),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
