// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * exitreason for system call pairs: names by the recording kernel's machine, and the
 * calls that end their task (never returning) by each machine's own numbers.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "exitreason.h"

static struct vmt_exitreasons *table(const char *system, const char *name, const char *machine)
{
	struct vmt_evformat f = { .system = (char *)system, .name = (char *)name };
	struct vmt_exitreasons *t = NULL;

	assert_int_equal(vmt_exitreasons_new(&f, machine, &t), 0);
	assert_non_null(t);
	return t;
}

static void test_names(void **state)
{
	struct vmt_exitreasons *t;

	(void)state;
	/* x86-64: the kernel's numbers (arch/x86/entry/syscalls/syscall_64.tbl) */
	t = table("raw_syscalls", "sys_enter", "x86_64");
	assert_string_equal(vmt_exitreason_name(t, VMT_ISA_ANY, 110), "getppid");
	assert_string_equal(vmt_exitreason_name(t, VMT_ISA_ANY, 0), "read");
	assert_string_equal(vmt_exitreason_name(t, VMT_ISA_ANY, 231), "exit_group");
	assert_null(vmt_exitreason_name(t, VMT_ISA_ANY, 100000));
	vmt_exitreasons_free(t);
	/* another machine's numbers are others: no names rather than wrong ones */
	t = table("raw_syscalls", "sys_enter", "aarch64");
	assert_true(vmt_exitreasons_empty(t));
	vmt_exitreasons_free(t);
	t = table("raw_syscalls", "sys_enter", NULL);
	assert_true(vmt_exitreasons_empty(t));
	vmt_exitreasons_free(t);
	/* another pair on x86-64: numbers only */
	t = table("sched", "sched_switch", "x86_64");
	assert_true(vmt_exitreasons_empty(t));
	vmt_exitreasons_free(t);
}

static void test_ends_task(void **state)
{
	static const struct {
		const char *machine;
		uint64_t exit, exit_group, other;
	} m[] = {
		{ "x86_64", 60, 231, 93 }, { "aarch64", 93, 94, 60 }, { "riscv64", 93, 94, 231 },
	};
	struct vmt_exitreasons *t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		t = table("raw_syscalls", "sys_enter", m[i].machine);
		assert_true(vmt_exitreasons_ends_task(t, m[i].exit));
		assert_true(vmt_exitreasons_ends_task(t, m[i].exit_group));
		assert_false(vmt_exitreasons_ends_task(t, m[i].other));
		vmt_exitreasons_free(t);
	}
	/* unknown numbering, or not a system call pair: nothing is taken to end its task */
	t = table("raw_syscalls", "sys_enter", "mips");
	assert_false(vmt_exitreasons_ends_task(t, 60) || vmt_exitreasons_ends_task(t, 93));
	vmt_exitreasons_free(t);
	t = table("kvm", "kvm_exit", "x86_64");
	assert_false(vmt_exitreasons_ends_task(t, 60));
	vmt_exitreasons_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_ends_task),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
