// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "metakeys.h"
#include "recvm.h"

/* The bad inputs the command line names (64); anything else is the machine's (1). */
static int exit_status(int err)
{
	return err == -ENOENT || err == -ENODEV || err == -EEXIST || err == -EINVAL ||
	       err == -E2BIG || err == -EALREADY ? 64 : 1;
}

static void say_found(const struct vmt_vmfind *f, const struct vmt_cpulist *traced)
{
	char cpus[256];
	unsigned int i, j;

	for (i = 0; i < f->n_vm; i++) {
		const struct vmt_vm *vm = &f->vm[i];

		vmt_info("VM %s: pid %d (by %s), %u vCPU thread(s) (by %s) on CPU %s", vm->name,
			 (int)vm->pid, vmt_vmfind_how_name(vm->how), vm->n_vcpu,
			 vmt_vmfind_method_name(vm->method),
			 vmt_cpulist_format(&vm->cpus, cpus, sizeof(cpus)));
		if (vm->n_by_order)
			vmt_info("VM %s: %u busy vCPU thread(s) numbered in thread order (never "
				 "seen in KVM_RUN)", vm->name, vm->n_by_order);
		if (vm->n_vcpu_fds > vm->n_vcpu)
			vmt_warn("VM %s: %u vCPU(s) with no thread found (never seen in KVM_RUN, "
				 "no guest time): not recorded", vm->name,
				 vm->n_vcpu_fds - vm->n_vcpu);
		for (j = 0; j < vm->cpus.n; j++) {
			if (!vmt_cpulist_has(traced, vm->cpus.cpu[j])) {
				vmt_warn("VM %s: its vCPU threads may run on CPU %u, which -p "
					 "leaves out", vm->name, vm->cpus.cpu[j]);
				break;
			}
		}
	}
}

int rec_vm_find(struct rec_vm *v, struct record_opts *o, int *exit_code)
{
	struct vmt_vmfind_env env = { .libvirt_dir = getenv("VMTRACE_LIBVIRT_DIR") };
	char err[512];
	int ret;

	memset(v, 0, sizeof(*v));
	v->specs = o->vm;
	if (!v->specs)
		return 0;
	if (env.libvirt_dir && !*env.libvirt_dir)
		env.libvirt_dir = NULL;
	ret = vmt_vmfind_resolve(&env, v->specs, &v->found, err, sizeof(err));
	if (ret) {
		vmt_err("%s%s", ret == -EALREADY ? "--vm: " : "", err);
		*exit_code = exit_status(ret);
		return -1;
	}
	if (!o->cpus.n) {
		o->cpus.cpu = calloc(v->found.cpus.n ? v->found.cpus.n : 1, sizeof(*o->cpus.cpu));
		if (!o->cpus.cpu) {
			vmt_err("--vm %s: %s", v->specs, strerror(ENOMEM));
			return -1;
		}
		memcpy(o->cpus.cpu, v->found.cpus.cpu, v->found.cpus.n * sizeof(*o->cpus.cpu));
		o->cpus.n = v->found.cpus.n;
		v->cpus_derived = "the CPUs the vCPU threads may run on";
	}
	say_found(&v->found, &o->cpus);
	/*
	 * Too many scattered tids for one filter: refused rather than set_event_pid, which
	 * would also drop the context events of the tasks that preempt a vCPU thread.
	 */
	ret = vmt_vmfind_filter(&v->found, vmt_vmfind_filter_max(), &v->filter, err,
				sizeof(err));
	if (ret) {
		vmt_err("--vm %s: %s%s", v->specs, err, ret == -E2BIG ? "; record fewer VMs "
			"at once, or their CPUs with -p and no --vm" : "");
		*exit_code = exit_status(ret);
		return -1;
	}
	return 0;
}

int rec_vm_apply(const struct rec_vm *v, struct rec_session *s, const struct record_opts *o)
{
	const char *ev[2] = { o->begin, o->end };
	unsigned int i;
	int ret;

	if (!v->specs)
		return 0;
	/* The pair only: the context events of other tasks on those CPUs explain the exits. */
	for (i = 0; i < 2; i++) {
		char rel[PATH_MAX] = "events/";

		ret = vmt_tracefs_event_path(ev[i], "filter", rel + 7, sizeof(rel) - 7);
		if (!ret)
			ret = vmt_tracefs_write(&s->inst, rel, v->filter);
		if (ret) {
			vmt_err("%s/%s: cannot set the filter '%s': %s", s->inst.dir, rel,
				v->filter, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

void rec_vm_meta(const struct rec_vm *v, struct vmt_kvbuf *kb)
{
	if (!v->specs)
		return;
	vmt_vmfind_to_meta(&v->found, kb);
	vmt_kv_add_str(kb, VMT_META_FILTER_PAIR, v->filter);
}

/* Whether any of vm's vCPU threads still exists (not reaped: a zombie's task is gone). */
static bool vcpus_left(const struct vmt_vm *vm)
{
	char path[64];
	struct stat st;
	unsigned int i;

	for (i = 0; i < vm->n_vcpu; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)vm->pid,
			 (int)vm->vcpu[i].tid);
		if (stat(path, &st) == 0)
			return true;
	}
	return false;
}

void rec_vm_check_gone(struct rec_vm *v)
{
	unsigned int i;

	if (!v->specs || !v->found.n_vm)
		return;
	if (!v->gone && !(v->gone = calloc(v->found.n_vm, 1)))
		return;
	for (i = 0; i < v->found.n_vm; i++) {
		const struct vmt_vm *vm = &v->found.vm[i];

		if (v->gone[i] || vcpus_left(vm))
			continue;
		v->gone[i] = 1;
		vmt_warn_folded("VM %s (pid %d) is gone: none of its vCPU threads is left; the "
				"recording goes on without them, and a VM started again as %s is "
				"not recorded (its threads are new): record it anew", vm->name,
				(int)vm->pid, vm->name);
	}
}

void rec_vm_free(struct rec_vm *v)
{
	if (!v->specs)
		return;
	free(v->gone);
	v->gone = NULL;
	vmt_vmfind_free(&v->found);
	free(v->filter);
	v->filter = NULL;
}
