// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmreason: latencies put in by VM and reason index, against a plain recount kept here:
 * each pair of VM and reason its count, sum and counts at every bound 2^k - 1 ns, the VMs
 * past the map's count taken as the unknown one, the slots grown past their first 48
 * entries, the order after sorting (VM, then reason), a copy equal to its source with
 * buffers of its own, and a merge of two halves equal to the whole; which VM a task's exits
 * count for, from a map as vmtrace-record --vm stores it.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kv.h"
#include "vmfind.h"
#include "vmreason.h"

#define NVM 3		/* the map's VMs; index 3 stands for tasks it lacks */
#define NREASONS 40	/* more than the slots' first width */

/* Latency i's value in ns: from 0 to past 2^32, every bit length. */
static uint64_t lat_of(unsigned int i)
{
	return (i % 7 == 0) ? (uint64_t)i : ((uint64_t)1 << (i % 36)) + i % 5;
}

static void test_counts(void **state)
{
	static uint64_t count[NVM + 1][NREASONS], sum[NVM + 1][NREASONS];
	static uint64_t le[NVM + 1][NREASONS][33];	/* values of at most k bits */
	struct vmt_vmreasons vr, copy, half[2], merged;
	unsigned int i, vm, r, k, seen = 0;

	(void)state;
	memset(count, 0, sizeof(count));
	memset(sum, 0, sizeof(sum));
	memset(le, 0, sizeof(le));
	vmt_vmreasons_init(&vr, NVM);
	vmt_vmreasons_init(&half[0], NVM);
	vmt_vmreasons_init(&half[1], NVM);
	assert_true(vr.on);
	for (i = 0; i < 5000; i++) {
		/* VMs 0..5: 4 and 5 are past the map, counted as its unknown one (3) */
		unsigned int v = (i * 7) % 6, want = v > NVM ? NVM : v;
		uint64_t lat = lat_of(i);

		r = (i * 13) % NREASONS;
		assert_int_equal(vmt_vmreasons_add(&vr, v, r, 2, 0x400 + r, lat, lat), 0);
		assert_int_equal(vmt_vmreasons_add(&half[i >= 2500], v, r, 2, 0x400 + r, lat, lat),
				 0);
		count[want][r]++;
		sum[want][r] += lat;
		for (k = 0; k <= 32; k++)
			le[want][r][k] += lat <= ((uint64_t)1 << k) - 1;
	}
	/* the second half merged into the first: the slices' way */
	for (i = 0; i < half[1].n; i++) {
		const struct vmt_vmreason *e = &half[1].v[i];

		assert_int_equal(vmt_vmreasons_merge(&half[0], (size_t)(e->key - 0x400), e), 0);
	}
	assert_int_equal(vmt_vmreasons_copy(&merged, &half[0]), 0);
	assert_int_equal(vmt_vmreasons_copy(&copy, &vr), 0);
	vmt_vmreasons_sort(&vr);
	assert_int_equal(merged.n, vr.n);
	for (i = 0; i < vr.n; i++) {
		const struct vmt_vmreason *e = &vr.v[i];

		if (i)
			assert_true(vr.v[i - 1].vm < e->vm ||
				    (vr.v[i - 1].vm == e->vm && vr.v[i - 1].key < e->key));
		assert_true(e->vm <= NVM);
		assert_int_equal(e->isa, 2);
		r = (unsigned int)(e->key - 0x400);
		assert_int_equal(e->count, count[e->vm][r]);
		assert_int_equal(vmt_vmreason_total(e), sum[e->vm][r]);
		for (k = 0; k <= 32; k++)
			assert_int_equal(vmt_vmreason_at_most(e, k), le[e->vm][r][k]);
		count[e->vm][r] = 0;	/* each pair once */
		seen++;
		assert_int_equal(copy.v[i].vm, e->vm);
		assert_int_equal(copy.v[i].key, e->key);
		assert_ptr_not_equal(&copy.v[i], e);
		assert_memory_equal(&copy.v[i], e, sizeof(*e));
		assert_memory_equal(&merged.v[i], e, sizeof(*e));
	}
	for (vm = 0; vm <= NVM; vm++) {
		for (r = 0; r < NREASONS; r++)
			assert_int_equal(count[vm][r], 0);
	}
	assert_true(seen > 48);
	vmt_vmreasons_free(&copy);
	vmt_vmreasons_free(&merged);
	vmt_vmreasons_free(&half[0]);
	vmt_vmreasons_free(&half[1]);
	vmt_vmreasons_free(&vr);
	assert_false(vr.on);
	assert_int_equal(vr.n, 0);
}

/*
 * A map of VM 0 (threads 100 and 102) and VM 1 (thread 101), both named web: a thread's
 * exits count for its VM, any other task's, and every task's without a map, for the one
 * past the map's VMs (2). The names play no part.
 */
static void test_vm_of(void **state)
{
	static const char *const vcpus[] = { "100:0,102:1", "101:0" };
	struct vmt_vmmap *m = NULL;
	struct vmt_vmreasons vr;
	struct vmt_kvbuf kb;
	char key[32], err[128];
	unsigned int i;

	(void)state;
	vmt_kv_init(&kb);
	vmt_kv_addf(&kb, "vm.count", "%u", 2u);
	for (i = 0; i < 2; i++) {
		snprintf(key, sizeof(key), "vm.%u.name", i);
		vmt_kv_add_str(&kb, key, "web");
		snprintf(key, sizeof(key), "vm.%u.pid", i);
		vmt_kv_addf(&kb, key, "%u", 900 + i);
		snprintf(key, sizeof(key), "vm.%u.vcpus", i);
		vmt_kv_add_str(&kb, key, vcpus[i]);
	}
	assert_int_equal(kb.error, 0);
	assert_int_equal(vmt_vmmap_from_meta(kb.buf, kb.len, &m, err, sizeof(err)), 0);
	vmt_kv_free(&kb);

	vmt_vmreasons_init_map(&vr, m);
	assert_true(vr.on);
	assert_int_equal(vr.nvm, 3);
	assert_int_equal(vmt_vmreasons_vm_of(&vr, 100), 0);
	assert_int_equal(vmt_vmreasons_vm_of(&vr, 102), 0);
	assert_int_equal(vmt_vmreasons_vm_of(&vr, 101), 1);
	assert_int_equal(vmt_vmreasons_vm_of(&vr, 900), 2);	/* the VMM itself: no vCPU */
	assert_int_equal(vmt_vmreasons_vm_of(&vr, -1), 2);
	vmt_vmreasons_free(&vr);

	vmt_vmreasons_init(&vr, 2);
	assert_int_equal(vmt_vmreasons_vm_of(&vr, 100), 2);
	vmt_vmreasons_free(&vr);
	vmt_vmmap_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_vm_of),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
