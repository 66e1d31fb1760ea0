// SPDX-License-Identifier: GPL-2.0-or-later
/* commtab: names by pid, the last one winning, growth, merges, and what context events give. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "commtab.h"

static void test_set_get(void **state)
{
	struct vmt_commtab t;
	char full[VMT_CTX_COMM_LEN];

	(void)state;
	vmt_commtab_init(&t);
	assert_null(vmt_commtab_get(&t, 1));
	assert_int_equal(vmt_commtab_set(&t, 42, "bash"), 0);
	assert_string_equal(vmt_commtab_get(&t, 42), "bash");
	/* a rename (exec, prctl): the last name */
	assert_int_equal(vmt_commtab_set(&t, 42, "CPU 0/KVM"), 0);
	assert_string_equal(vmt_commtab_get(&t, 42), "CPU 0/KVM");
	/* an empty name says nothing; the idle task and negative pids are never named */
	assert_int_equal(vmt_commtab_set(&t, 42, ""), 0);
	assert_string_equal(vmt_commtab_get(&t, 42), "CPU 0/KVM");
	assert_int_equal(vmt_commtab_set(&t, 0, "swapper/1"), 0);
	assert_int_equal(vmt_commtab_set(&t, -1, "x"), 0);
	assert_null(vmt_commtab_get(&t, 0));
	assert_null(vmt_commtab_get(&t, -1));
	assert_int_equal(t.n, 1);
	/* a field filling all 16 bytes without a NUL: 15 of them kept */
	memset(full, 'a', sizeof(full));
	assert_int_equal(vmt_commtab_set(&t, 7, full), 0);
	assert_int_equal(strlen(vmt_commtab_get(&t, 7)), VMT_CTX_COMM_LEN - 1);
	vmt_commtab_free(&t);
	assert_null(vmt_commtab_get(&t, 42));
}

/* Many pids, dense and sparse: every one found after the table grew, none invented. */
static void test_growth(void **state)
{
	struct vmt_commtab t;
	char name[VMT_CTX_COMM_LEN];
	int32_t pid;

	(void)state;
	vmt_commtab_init(&t);
	for (pid = 1; pid <= 5000; pid++) {
		snprintf(name, sizeof(name), "t%d", pid * 7);
		assert_int_equal(vmt_commtab_set(&t, pid * 7, name), 0);
	}
	assert_int_equal(t.n, 5000);
	for (pid = 1; pid <= 35000; pid++) {
		const char *got = vmt_commtab_get(&t, pid);

		if (pid % 7) {
			assert_null(got);
			continue;
		}
		snprintf(name, sizeof(name), "t%d", pid);
		assert_string_equal(got, name);
	}
	vmt_commtab_free(&t);
}

/* Past VMT_COMMTAB_MAX names a new pid is not named; a named one still takes new names. */
static void test_bound(void **state)
{
	struct vmt_commtab t;
	int32_t pid;

	(void)state;
	vmt_commtab_init(&t);
	for (pid = 1; pid <= VMT_COMMTAB_MAX + 1000; pid++)
		assert_int_equal(vmt_commtab_set(&t, pid, "worker"), 0);
	assert_int_equal(t.n, VMT_COMMTAB_MAX);
	assert_true(t.cap <= 2 * (size_t)VMT_COMMTAB_MAX);
	assert_null(vmt_commtab_get(&t, VMT_COMMTAB_MAX + 1));
	assert_int_equal(vmt_commtab_set(&t, 7, "renamed"), 0);
	assert_string_equal(vmt_commtab_get(&t, 7), "renamed");
	vmt_commtab_free(&t);
}

static void test_merge(void **state)
{
	struct vmt_commtab a, b;

	(void)state;
	vmt_commtab_init(&a);
	vmt_commtab_init(&b);
	assert_int_equal(vmt_commtab_set(&a, 1, "old"), 0);
	assert_int_equal(vmt_commtab_set(&a, 2, "kept"), 0);
	assert_int_equal(vmt_commtab_set(&b, 1, "new"), 0);
	assert_int_equal(vmt_commtab_set(&b, 3, "added"), 0);
	/* b saw its events later: its names win */
	assert_int_equal(vmt_commtab_merge(&a, &b), 0);
	assert_string_equal(vmt_commtab_get(&a, 1), "new");
	assert_string_equal(vmt_commtab_get(&a, 2), "kept");
	assert_string_equal(vmt_commtab_get(&a, 3), "added");
	assert_int_equal(a.n, 3);
	vmt_commtab_free(&a);
	vmt_commtab_free(&b);
}

static void test_context(void **state)
{
	struct vmt_ctxev sw = { .type = VMT_CTX_SWITCH, .pid = 10 };
	struct vmt_ctxev wake = { .type = VMT_CTX_WAKEUP, .pid = 10 };
	struct vmt_ctxev irq = { .type = VMT_CTX_IRQ_ENTRY, .pid = 12 };
	struct vmt_commtab t;

	(void)state;
	vmt_commtab_init(&t);
	sw.u.sw.prev_pid = 10;
	sw.u.sw.next_pid = 11;
	strcpy(sw.u.sw.prev_comm, "qemu-system-x86");
	strcpy(sw.u.sw.next_comm, "CPU 1/KVM");
	assert_int_equal(vmt_commtab_context(&t, &sw), 0);
	assert_string_equal(vmt_commtab_get(&t, 10), "qemu-system-x86");
	assert_string_equal(vmt_commtab_get(&t, 11), "CPU 1/KVM");
	/* the wakee is named, not the waker (common_pid) */
	wake.u.wake.pid = 12;
	strcpy(wake.u.wake.comm, "kworker/1:0");
	assert_int_equal(vmt_commtab_context(&t, &wake), 0);
	assert_string_equal(vmt_commtab_get(&t, 12), "kworker/1:0");
	assert_string_equal(vmt_commtab_get(&t, 10), "qemu-system-x86");
	/* an interrupt names nobody (its name is the handler's) */
	strcpy(irq.u.irq.name, "eth0");
	assert_int_equal(vmt_commtab_context(&t, &irq), 0);
	assert_string_equal(vmt_commtab_get(&t, 12), "kworker/1:0");
	assert_int_equal(t.n, 3);
	vmt_commtab_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_get),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_context),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
