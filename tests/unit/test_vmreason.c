// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmreason: latencies put in by VM and reason index, against a plain recount kept here:
 * each pair of VM and reason one distribution (counts and sums), the VMs past the map's
 * count taken as the unknown one, the slots widened past their first 16 reasons, the order
 * after sorting (VM, then reason), and a copy equal to its source with buffers of its own.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vmreason.h"

#define NVM 3		/* the map's VMs; index 3 stands for tasks it lacks */
#define NREASONS 40	/* more than the slots' first width */

static void test_counts(void **state)
{
	uint64_t count[NVM + 1][NREASONS] = { { 0 } }, sum[NVM + 1][NREASONS] = { { 0 } };
	struct vmt_vmreasons vr, copy;
	unsigned int i, vm, r, seen = 0;

	(void)state;
	vmt_vmreasons_init(&vr, NVM);
	assert_true(vr.on);
	for (i = 0; i < 5000; i++) {
		/* VMs 0..5: 4 and 5 are past the map, counted as its unknown one (3) */
		unsigned int v = (i * 7) % 6, want = v > NVM ? NVM : v;
		struct vmt_latdist *d;

		r = (i * 13) % NREASONS;
		d = vmt_vmreasons_get(&vr, v, r, 2, 0x400 + r);
		assert_non_null(d);
		assert_int_equal(vmt_latdist_add(d, 100 + i), 0);
		count[want][r]++;
		sum[want][r] += 100 + i;
	}
	assert_int_equal(vmt_vmreasons_copy(&copy, &vr), 0);
	vmt_vmreasons_sort(&vr);
	for (i = 0; i < vr.n; i++) {
		const struct vmt_vmreason *e = &vr.v[i];

		if (i)
			assert_true(vr.v[i - 1].vm < e->vm ||
				    (vr.v[i - 1].vm == e->vm && vr.v[i - 1].key < e->key));
		assert_true(e->vm <= NVM);
		assert_int_equal(e->isa, 2);
		r = (unsigned int)(e->key - 0x400);
		assert_int_equal(e->d.st.count, count[e->vm][r]);
		assert_int_equal(e->d.st.sum, sum[e->vm][r]);
		count[e->vm][r] = 0;	/* each pair once */
		seen++;
		assert_int_equal(copy.v[i].vm, e->vm);
		assert_int_equal(copy.v[i].key, e->key);
		assert_int_equal(copy.v[i].d.st.count, e->d.st.count);
		assert_int_equal(copy.v[i].d.st.sum, e->d.st.sum);
		assert_ptr_not_equal(&copy.v[i].d, &e->d);
	}
	for (vm = 0; vm <= NVM; vm++) {
		for (r = 0; r < NREASONS; r++)
			assert_int_equal(count[vm][r], 0);
	}
	assert_true(seen > NREASONS);
	vmt_vmreasons_free(&copy);
	vmt_vmreasons_free(&vr);
	assert_false(vr.on);
	assert_int_equal(vr.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
