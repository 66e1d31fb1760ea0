/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpus: how many CPUs this process may run on, for sizing its threads. Stateless and
 * thread-safe.
 */
#ifndef VMT_CPUS_H
#define VMT_CPUS_H

/*
 * The CPUs of the process's affinity (as taskset sets it), else the online ones; at
 * least 1. Threads beyond it would only take turns with the thread that starts them.
 * 1 when VMTRACE_NO_THREADS is set: every program's switch to do all its work on the
 * thread that reads the events, the same for each pool that sizes itself here.
 */
unsigned int vmt_cpus_usable(void);

#endif
