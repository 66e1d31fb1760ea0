/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recvm: vmtrace-record --vm NAME|PID[,...]. Owns what common/vmfind found (the VMs, their
 * vCPU threads and CPUs) and the filter on the pair's two events from the probe phase to
 * the end: the CPUs to trace when -p is not given, the filter written into the instance,
 * the VM map and the filter in META. Main thread only; messages are printed here.
 */
#ifndef REC_RECVM_H
#define REC_RECVM_H

#include "kv.h"
#include "recopt.h"
#include "session.h"
#include "vmfind.h"

struct rec_vm {
	const char *specs;		/* --vm; NULL: every function does nothing */
	struct vmt_vmfind found;
	char *filter;			/* "common_pid == ..." for the pair's two events */
	/* What the CPUs traced are when found here (no -p), else NULL: see sysinfo.h. */
	const char *cpus_derived;
	unsigned char *gone;		/* per VM: said to have exited (rec_vm_check_gone) */
};

/*
 * Find the VMs of o->vm (libvirt pid files in $VMTRACE_LIBVIRT_DIR when set), trace their
 * vCPU threads' CPUs when -p was not given, build the filter. 0, or -1 after one line with
 * *exit_code set: 64 for an unknown VM, a pid that is no VMM, no vCPU thread found, a filter
 * longer than tracefs takes; 1 for other failures.
 */
int rec_vm_find(struct rec_vm *v, struct record_opts *o, int *exit_code);
/* Put the filter on the pair's two events of the instance (tracing still off). 0 or -errno. */
int rec_vm_apply(const struct rec_vm *v, struct rec_session *s, const struct record_opts *o);
/* The VM map (vm.*) and filter.pair into META; errors are sticky in kb. */
void rec_vm_meta(const struct rec_vm *v, struct vmt_kvbuf *kb);
/*
 * While recording: a VM none of whose vCPU threads is left is said once (a warning). The
 * filter names those threads: a VM started again under its name is not recorded.
 */
void rec_vm_check_gone(struct rec_vm *v);
void rec_vm_free(struct rec_vm *v);

#endif
