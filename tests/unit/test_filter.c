// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * filter: one predicate for every view. A table of exits and entries against a table of
 * filters, with the expected verdict of each pair written out by hand; an entry is judged
 * by its pair's exit, an entry without one by its own CPU, vCPU and time.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli.h"
#include "filter.h"

static struct vmt_event ev(uint8_t kind, uint32_t cpu, uint64_t ts, int vcpu, int isa,
			   uint64_t reason)
{
	struct vmt_event e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.cpu = cpu;
	e.ts = ts;
	if (vcpu >= 0) {
		e.vcpu = (uint32_t)vcpu;
		e.has |= VMT_EVF_VCPU;
	}
	if (isa >= 0) {
		e.isa = (uint32_t)isa;
		e.has |= VMT_EVF_ISA;
	}
	if (kind == VMT_EV_BEGIN) {
		e.reason = reason;
		e.has |= VMT_EVF_REASON;
	}
	return e;
}

static void set_list(struct vmt_cpulist *l, const char *s)
{
	assert_int_equal(vmt_cli_parse_cpulist(s, l), 0);
}

static void test_exit_predicate(void **state)
{
	const struct vmt_clock ns = { 1.0, 0, 0 };
	struct vmt_filter f;
	/* SVM exits: hlt 0x78, io 0x7b; a VMX exit with flag bits set above the basic reason */
	struct vmt_event hlt2 = ev(VMT_EV_BEGIN, 2, 1500, 0, VMT_ISA_SVM, 0x78);
	struct vmt_event io3 = ev(VMT_EV_BEGIN, 3, 2500, 1, VMT_ISA_SVM, 0x7b);
	struct vmt_event vmx = ev(VMT_EV_BEGIN, 2, 1600, -1, VMT_ISA_VMX, 0x80000000u | 12);
	struct vmt_event novcpu = ev(VMT_EV_BEGIN, 2, 1700, -1, VMT_ISA_SVM, 0x78);
	struct vmt_event entry1 = ev(VMT_EV_END, 2, 1800, 1, -1, 0);

	(void)state;
	assert_true(vmt_filter_exit(NULL, &hlt2, NULL));
	memset(&f, 0, sizeof(f));
	assert_true(vmt_filter_is_empty(&f));
	set_list(&f.cpus, "2");
	assert_true(vmt_filter_exit(&f, &hlt2, NULL));
	assert_false(vmt_filter_exit(&f, &io3, NULL));
	vmt_filter_free(&f);

	memset(&f, 0, sizeof(f));
	set_list(&f.vcpus, "1");
	assert_false(vmt_filter_exit(&f, &hlt2, NULL));
	assert_true(vmt_filter_exit(&f, &io3, NULL));
	/* the exit has no vCPU: its entry's stands in */
	assert_false(vmt_filter_exit(&f, &novcpu, NULL));
	assert_true(vmt_filter_exit(&f, &novcpu, &entry1));
	vmt_filter_free(&f);

	memset(&f, 0, sizeof(f));
	f.nreasons = 2;
	f.reason_isa[0] = VMT_ISA_SVM;
	f.reason_key[0] = 0x78;
	f.reason_isa[1] = VMT_ISA_ANY;
	f.reason_key[1] = 12;
	assert_true(vmt_filter_exit(&f, &hlt2, NULL));
	assert_false(vmt_filter_exit(&f, &io3, NULL));
	/* VMX keys drop the flag bits; ANY matches either ISA */
	assert_true(vmt_filter_exit(&f, &vmx, NULL));
	/* the ISA counts: SVM's 0x78 is not VMX's 0x78 */
	vmx.reason = 0x78;
	assert_false(vmt_filter_exit(&f, &vmx, NULL));
	/* a VMX number given with its flags counts by its basic reason, as the exit does */
	f.reason_key[1] = 0x80000000u | 12;
	vmx.reason = 12;
	assert_true(vmt_filter_exit(&f, &vmx, NULL));
	assert_false(vmt_filter_exit(&f, &io3, NULL));
	f.reason_key[1] = 12;

	memset(&f, 0, sizeof(f));
	f.has_from = f.has_to = true;
	f.from_ns = 500;
	f.to_ns = 1000;
	vmt_filter_bind(&f, &ns, 1000);
	assert_true(vmt_filter_exit(&f, &hlt2, NULL));		/* 1500 = start + 500 */
	assert_true(vmt_filter_exit(&f, &vmx, NULL));		/* 1600 */
	assert_false(vmt_filter_exit(&f, &io3, NULL));		/* 2500 > start + 1000 */
	hlt2.ts = 1499;
	assert_false(vmt_filter_exit(&f, &hlt2, NULL));
}

/* --vm: the tasks of the VMs' vCPU threads, a sorted tid list; entries follow their exit. */
static void test_tids(void **state)
{
	int32_t tids[] = { 40, 117, 4242 };
	struct vmt_event a = ev(VMT_EV_BEGIN, 1, 100, -1, VMT_ISA_SVM, 0x78);
	struct vmt_event b = a, c = a, end = ev(VMT_EV_END, 1, 200, -1, -1, 0);
	struct vmt_filter f;

	(void)state;
	a.pid = 117;
	b.pid = 118;
	c.pid = 4242;
	end.pid = 118;
	memset(&f, 0, sizeof(f));
	f.tids = malloc(sizeof(tids));
	assert_non_null(f.tids);
	memcpy(f.tids, tids, sizeof(tids));
	f.ntids = 3;
	assert_false(vmt_filter_is_empty(&f));
	assert_true(vmt_filter_exit(&f, &a, NULL));
	assert_false(vmt_filter_exit(&f, &b, NULL));
	assert_true(vmt_filter_exit(&f, &c, NULL));
	assert_true(vmt_filter_event(&f, &end, &a));	/* judged by its exit */
	assert_false(vmt_filter_event(&f, &end, NULL));	/* its own task is none of them */
	vmt_filter_free(&f);
	assert_null(f.tids);
	assert_true(vmt_filter_is_empty(&f));
}

/*
 * --vcpu by the VM map's index (events without a vCPU id): the threads of those indices
 * decide, by task; a vCPU id an event might carry does not.
 */
static void test_vcpus_by_map(void **state)
{
	int32_t tids[] = { 1001, 2001 };
	struct vmt_event a = ev(VMT_EV_BEGIN, 1, 100, -1, VMT_ISA_SVM, 0x78);
	struct vmt_event b = a, end = ev(VMT_EV_END, 1, 200, 1, -1, 0);
	struct vmt_filter f;

	(void)state;
	a.pid = 2001;
	b.pid = 1000;
	end.pid = 1000;
	memset(&f, 0, sizeof(f));
	set_list(&f.vcpus, "1");
	f.vcpu_tids = malloc(sizeof(tids));
	assert_non_null(f.vcpu_tids);
	memcpy(f.vcpu_tids, tids, sizeof(tids));
	f.nvcpu_tids = 2;
	f.vcpus_by_map = true;
	assert_false(vmt_filter_is_empty(&f));
	assert_true(vmt_filter_exit(&f, &a, NULL));
	assert_false(vmt_filter_exit(&f, &b, NULL));
	assert_false(vmt_filter_exit(&f, &b, &end));	/* its entry's vCPU 1 is no thread's */
	assert_true(vmt_filter_event(&f, &end, &a));	/* judged by its exit */
	assert_false(vmt_filter_event(&f, &end, NULL));	/* its own task is not vCPU 1's */
	vmt_filter_free(&f);
	assert_null(f.vcpu_tids);
}

static void test_clock_binding(void **state)
{
	/* 2.5 ns per tick: 1 us is 400 ticks after the start */
	const struct vmt_clock tsc = { 2.5, 0, 0 };
	struct vmt_filter f;
	struct vmt_event e = ev(VMT_EV_BEGIN, 0, 10400, 0, VMT_ISA_SVM, 0x78);

	(void)state;
	memset(&f, 0, sizeof(f));
	f.has_from = true;
	f.from_ns = 1000;
	vmt_filter_bind(&f, &tsc, 10000);
	assert_int_equal(f.from_ts, 10400);
	assert_true(vmt_filter_exit(&f, &e, NULL));
	e.ts = 10399;
	assert_false(vmt_filter_exit(&f, &e, NULL));
}

static void test_events(void **state)
{
	struct vmt_filter f;
	struct vmt_event hlt = ev(VMT_EV_BEGIN, 2, 1500, 0, VMT_ISA_SVM, 0x78);
	struct vmt_event io = ev(VMT_EV_BEGIN, 2, 1500, 0, VMT_ISA_SVM, 0x7b);
	/* the entry ran on CPU 3 after the exit on CPU 2 (a migration) */
	struct vmt_event entry = ev(VMT_EV_END, 3, 1600, 0, -1, 0);

	(void)state;
	memset(&f, 0, sizeof(f));
	f.nreasons = 1;
	f.reason_isa[0] = VMT_ISA_SVM;
	f.reason_key[0] = 0x78;
	assert_true(vmt_filter_event(&f, &hlt, NULL));
	assert_false(vmt_filter_event(&f, &io, NULL));
	/* an entry: kept with the exit its pair began with, never on its own */
	assert_true(vmt_filter_event(&f, &entry, &hlt));
	assert_false(vmt_filter_event(&f, &entry, &io));
	assert_false(vmt_filter_event(&f, &entry, NULL));
	f.nreasons = 0;
	set_list(&f.cpus, "2");
	/* the pair's exit decides, not the entry's own CPU */
	assert_true(vmt_filter_event(&f, &entry, &hlt));
	assert_false(vmt_filter_event(&f, &entry, NULL));
	vmt_filter_free(&f);
	assert_true(vmt_filter_event(NULL, &entry, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_predicate),
		cmocka_unit_test(test_tids),
		cmocka_unit_test(test_vcpus_by_map),
		cmocka_unit_test(test_clock_binding),
		cmocka_unit_test(test_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
