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
 */
unsigned int vmt_cpus_usable(void);

#endif
