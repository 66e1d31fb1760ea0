// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "cpus.h"

unsigned int vmt_cpus_usable(void)
{
	cpu_set_t set;
	long n;

	if (getenv("VMTRACE_NO_THREADS"))
		return 1;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned int)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned int)n : 1;
}
