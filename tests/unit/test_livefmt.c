// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live view's frames (record/livefmt.c) at given terminal widths: every line fits, a
 * figure is shown whole or not at all (a narrow terminal loses the columns at the right,
 * max first, then p99, never half a number), the labels keep their width, and a recording
 * made with --vm names its vCPU threads as the report does (web1/vcpu0 (pid 1000)), also
 * in the key=value lines (vm=, vcpu= from the map).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kv.h"
#include "livefmt.h"
#include "textwidth.h"
#include "vmfind.h"

struct fixture {
	struct rec_live_stat all;
	struct rec_live_task t[3], *tp[3];
	struct rec_live_reason r[1];
	struct vmt_vmmap *vmmap;
	struct vmt_commtab comms;
};

static void stat_of(struct rec_live_stat *s, const uint64_t *lat, size_t n)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	vmt_latdist_init(&s->d);
	for (i = 0; i < n; i++) {
		s->count++;
		s->sum += lat[i];
		s->max = lat[i] > s->max ? lat[i] : s->max;
		assert_int_equal(vmt_latdist_add(&s->d, lat[i]), 0);
	}
}

static struct vmt_vmmap *two_vms(void)
{
	struct vmt_vmmap *m = NULL;
	struct vmt_kvbuf kb;
	char err[128];

	vmt_kv_init(&kb);
	vmt_kv_add_str(&kb, "vm.count", "2");
	vmt_kv_add_str(&kb, "vm.0.name", "web1");
	vmt_kv_add_str(&kb, "vm.0.pid", "900");
	vmt_kv_add_str(&kb, "vm.0.vcpus", "1000:0");
	vmt_kv_add_str(&kb, "vm.1.name", "db two=x");
	vmt_kv_add_str(&kb, "vm.1.pid", "901");
	vmt_kv_add_str(&kb, "vm.1.vcpus", "2000:0");
	assert_int_equal(kb.error, 0);
	assert_int_equal(vmt_vmmap_from_meta(kb.buf, kb.len, &m, err, sizeof(err)), 0);
	vmt_kv_free(&kb);
	return m;
}

/* Three tasks (two of the map, one of no VM), one reason; 36.043 ms the longest exit. */
static void fixture_init(struct fixture *fx, bool with_map)
{
	static const uint64_t a[] = { 12576, 36043000 }, b[] = { 20000, 30000 }, c[] = { 900 };
	static const uint64_t every[] = { 12576, 36043000, 20000, 30000, 900 };
	size_t i;

	memset(fx, 0, sizeof(*fx));
	stat_of(&fx->all, every, 5);
	stat_of(&fx->t[0].s, a, 2);
	stat_of(&fx->t[1].s, b, 2);
	stat_of(&fx->t[2].s, c, 1);
	fx->t[0].pid = 1000;
	fx->t[1].pid = 2000;
	fx->t[2].pid = 3000;
	fx->t[2].open = true;	/* in an exit at the interval's end, for 850.2 us */
	fx->t[2].open_ns = 850200;
	fx->t[2].open_since_ns = 1000000000;
	stat_of(&fx->r[0].s, every, 5);
	fx->r[0].isa = 0;
	fx->r[0].key = 0x30;
	for (i = 0; i < 3; i++)
		fx->tp[i] = &fx->t[i];
	fx->vmmap = with_map ? two_vms() : NULL;
	vmt_commtab_init(&fx->comms);
}

static void fixture_free(struct fixture *fx)
{
	size_t i;

	vmt_latdist_free(&fx->all.d);
	for (i = 0; i < 3; i++)
		vmt_latdist_free(&fx->t[i].s.d);
	vmt_latdist_free(&fx->r[0].s.d);
	vmt_vmmap_free(fx->vmmap);
	vmt_commtab_free(&fx->comms);
}

/* The frame of fx as a terminal of cols columns shows it (memstream: COLUMNS is read). */
static char *frame(struct fixture *fx, unsigned int cols, bool table)
{
	struct rec_live_frame fr = {
		.index = 3, .start_ns = 900000000, .len_ns = 300000000, .active = 3,
		.all = &fx->all, .tasks = fx->tp, .ntasks = 3, .reasons = fx->r, .nreasons = 1,
		.kvm = true, .comms = &fx->comms, .vmmap = fx->vmmap,
	};
	char *text = NULL, env[16];
	size_t size = 0;

	snprintf(env, sizeof(env), "%u", cols);
	setenv("COLUMNS", env, 1);
	setenv("LINES", "40", 1);
	fr.out = open_memstream(&text, &size);
	assert_non_null(fr.out);
	if (table)
		rec_livefmt_table(&fr);
	else
		rec_livefmt_line(&fr);
	assert_int_equal(fclose(fr.out), 0);
	return text;
}

/* The line of text starting with prefix (after the clear-screen escape), or NULL. */
static const char *line_of(const char *text, const char *prefix, char *buf, size_t size)
{
	const char *p = text;

	if (!strncmp(p, "\033[H\033[2J", 7))
		p += 7;
	for (; *p; p = strchr(p, '\n') + 1) {
		size_t n = strcspn(p, "\n");

		if (!strncmp(p, prefix, strlen(prefix))) {
			snprintf(buf, size, "%.*s", (int)n, p);
			return buf;
		}
		if (!p[n])
			break;
	}
	return NULL;
}

/* Every line at most cols display columns. */
static void assert_fits(const char *text, unsigned int cols)
{
	const char *p = text;

	if (!strncmp(p, "\033[H\033[2J", 7))
		p += 7;
	while (*p) {
		size_t n = strcspn(p, "\n");

		if (vmt_textwidth_cols(p, n) > cols)
			fail_msg("%u columns: %.*s", cols, (int)n, p);
		p += n + (p[n] == '\n');
	}
}

static unsigned int count(const char *s, const char *what)
{
	unsigned int n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

static void test_widths(void **state)
{
	/* the figures shown at each width: 4, 3 (no max), 2 (no p99), 1 (exits/s), none */
	static const struct { unsigned int cols, figures; } w[] = {
		{ 120, 4 }, { 90, 4 }, { 89, 4 }, { 64, 4 }, { 63, 3 }, { 60, 3 }, { 50, 3 }, { 49, 2 },
		{ 40, 2 }, { 36, 2 }, { 35, 1 }, { 30, 1 }, { 23, 1 }, { 22, 0 }, { 20, 0 },
	};
	/* what each row of pid 1000 ends with: 2 exits in 0.3 s are 7 per s, 36.043 ms max */
	static const char *const last[] = { "pid 1000", " 7", "%", "36.043 ms", "36.043 ms" };
	struct fixture fx;
	char buf[256], want[256];
	size_t i;

	(void)state;
	fixture_init(&fx, false);
	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		char *t = frame(&fx, w[i].cols, true);
		const char *row = line_of(t, "  pid 1000", buf, sizeof(buf));
		size_t n, k;

		assert_fits(t, w[i].cols);
		assert_non_null(row);
		n = strlen(row);
		while (n && row[n - 1] == ' ')	/* the label's padding, with no figure after it */
			n--;
		k = strlen(last[w[i].figures]);
		/* whole figures: p99 and max (both 36.043 ms), the p99 alone, the share, exits/s */
		assert_int_equal(count(row, "36.043 ms"), w[i].figures >= 3 ? w[i].figures - 2 : 0);
		assert_true(n >= k && !memcmp(row + n - k, last[w[i].figures], k));
		assert_int_equal(count(row, "%"), w[i].figures >= 2);
		/* the header names what is shown, nothing more */
		assert_non_null(line_of(t, "   ", want, sizeof(want)));
		assert_true((strstr(want, "max") != NULL) == (w[i].figures == 4));
		assert_true((strstr(want, "p99") != NULL) == (w[i].figures >= 3));
		assert_true((strstr(want, "exits/s") != NULL) == (w[i].figures >= 1));
		/* and its titles end where the rows' figures do */
		assert_int_equal(strlen(want), strlen(row));
		/* the "all" row too: its label narrowed to the column, never its figures pushed */
		assert_non_null(line_of(t, "  all", buf, sizeof(buf)));
		n = strlen(buf);
		while (n && buf[n - 1] == ' ')
			n--;
		if (w[i].figures)
			assert_int_equal(n, strlen(want));
		free(t);
	}
	fixture_free(&fx);
}

static void test_open_marker(void **state)
{
	struct fixture fx;
	char buf[256];
	char *t;

	(void)state;
	fixture_init(&fx, false);
	t = frame(&fx, 120, true);
	/* under 1 s in ns/us/ms: never "0.000 s" */
	assert_string_equal(line_of(t, "    in an exit", buf, sizeof(buf)),
			    "    in an exit for 850.2 us (since 1.000 s, reason -)");
	free(t);
	fixture_free(&fx);
}

static void test_vm_labels(void **state)
{
	struct fixture fx;
	char buf[256];
	char *t;

	(void)state;
	fixture_init(&fx, true);
	t = frame(&fx, 120, true);
	assert_non_null(line_of(t, "  web1/vcpu0 (pid 1000) ", buf, sizeof(buf)));
	assert_non_null(line_of(t, "  db two=x/vcpu0 (pid 2000) ", buf, sizeof(buf)));
	assert_non_null(line_of(t, "  pid 3000 ", buf, sizeof(buf)));	/* of no VM */
	free(t);
	/* key=value: the VM's name with its space and '=' escaped, the map's vCPU index */
	t = frame(&fx, 120, false);
	assert_non_null(strstr(t, "live-task interval=3 pid=1000 vm=web1 vcpu=0 exits=2 "));
	assert_non_null(strstr(t, "live-task interval=3 pid=2000 vm=db%20two%3Dx vcpu=0 exits=2 "));
	assert_non_null(strstr(t, "live-task interval=3 pid=3000 exits=1 "));
	free(t);
	fixture_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_open_marker),
		cmocka_unit_test(test_vm_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
