/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmfind: a VM named by libvirt name, QEMU -name or pid -> its VMM process and vCPU threads
 * (tid, vCPU index, allowed CPUs) read from procfs; the tracefs filter for those threads;
 * the VM -> vCPU-thread map stored as container metadata (vm.* keys) and read back.
 * Results are plain structs owned by the caller (vmt_vmfind_free(), vmt_vmmap_free()).
 * No global state: thread-safe. Never prints; errors are -errno plus one line in err.
 */
#ifndef VMT_VMFIND_H
#define VMT_VMFIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli.h"
#include "kv.h"

#define VMT_VMFIND_PROC_ROOT "/proc"
#define VMT_VMFIND_LIBVIRT_DIR "/run/libvirt/qemu"
/* Samples of /proc/PID/task/TID/syscall when threads are found through KVM_RUN. */
#define VMT_VMFIND_KVM_RUN_TRIES 20
#define VMT_VMFIND_KVM_RUN_WAIT_US 5000

/* Where to look. A zeroed struct means the defaults above. */
struct vmt_vmfind_env {
	const char *proc_root;		/* NULL: /proc */
	const char *libvirt_dir;	/* NULL: /run/libvirt/qemu (NAME.pid files) */
	unsigned int kvm_run_tries;	/* 0: VMT_VMFIND_KVM_RUN_TRIES */
	unsigned int kvm_run_wait_us;	/* 0: VMT_VMFIND_KVM_RUN_WAIT_US */
};

/* How a spec was resolved to a process. */
enum vmt_vmfind_how {
	VMT_VMFIND_BY_PID,		/* the spec was a pid */
	VMT_VMFIND_BY_PIDFILE,		/* <libvirt_dir>/NAME.pid */
	VMT_VMFIND_BY_CMDLINE,		/* a process whose command line has -name NAME */
};

/* How the vCPU threads were found. */
enum vmt_vmfind_method {
	/* Threads named "CPU <n>/KVM" (QEMU with debug-threads=on, as libvirt runs it). */
	VMT_VMFIND_THREAD_NAMES,
	/*
	 * Threads seen asleep in ioctl(<kvm-vcpu fd>, KVM_RUN); the index is KVM's vcpu_id
	 * (the APIC id on x86), which is QEMU's CPU index only for flat topologies.
	 */
	VMT_VMFIND_KVM_RUN,
	/*
	 * As KVM_RUN, and also threads that ran guest code while never seen asleep in it
	 * (busy vCPUs): a guest_time above zero in their stat, or a kernel stack inside the
	 * kvm-vcpu fd's ioctl. Their index is that of the kvm-vcpu fds left over, both taken
	 * in ascending order (the order VMMs create vCPUs in); n_by_order says how many.
	 */
	VMT_VMFIND_GUEST_TIME,
};

struct vmt_vcpu_thread {
	pid_t tid;
	unsigned int vcpu;		/* vCPU index (see enum vmt_vmfind_method) */
	char comm[16];			/* the thread's name, as the kernel keeps it */
	struct vmt_cpulist allowed;	/* Cpus_allowed_list */
};

struct vmt_vm {
	char *name;			/* the spec, or -name guest=, or the pid in digits */
	pid_t pid;			/* the VMM process (thread group leader) */
	enum vmt_vmfind_how how;
	enum vmt_vmfind_method method;
	unsigned int n_vcpu;		/* threads found, sorted by vCPU index then tid */
	struct vmt_vcpu_thread *vcpu;
	/*
	 * KVM_RUN and GUEST_TIME methods: kvm-vcpu fds the VMM holds. When larger than
	 * n_vcpu, some vCPU threads were neither seen inside KVM_RUN nor found to have run
	 * guest code, and are missing from vcpu[].
	 */
	unsigned int n_vcpu_fds;
	unsigned int n_by_order;	/* GUEST_TIME: threads whose index is by order */
	struct vmt_cpulist cpus;	/* union of the threads' allowed CPUs */
};

struct vmt_vmfind {
	unsigned int n_vm;
	struct vmt_vm *vm;		/* in the order of the specs, one per VMM process */
	struct vmt_cpulist cpus;	/* union over all VMs: what to trace without -p */
};

/**
 * vmt_vmfind_resolve() - find the VMs of a comma-separated list of specs
 * @env:	where to look (NULL or zeroed: /proc and /run/libvirt/qemu)
 * @specs:	"NAME|PID[,NAME|PID...]"
 * @out:	filled on success; release with vmt_vmfind_free()
 * @err:	one line saying what is wrong, on failure
 *
 * All digits: that pid. Otherwise <libvirt_dir>/NAME.pid naming a live VMM, else the one
 * VMM whose command line has -name NAME or -name guest=NAME,... The same spec twice counts
 * once; two specs naming the same process are refused (the metadata keeps one name per VM).
 * Returns 0, -ENOENT (unknown VM, no such pid), -ENODEV (not a VMM, no vCPU thread found),
 * -EEXIST (ambiguous name), -EALREADY (two specs, one VM: "A and B are the same VM (pid
 * N)"), -EACCES (unnamed vCPU threads of another user's VMM: its fds are unreadable),
 * -EINVAL (bad spec, see vmt_vmfind_check_specs()), -ENOMEM, ...
 */
int vmt_vmfind_resolve(const struct vmt_vmfind_env *env, const char *specs,
		       struct vmt_vmfind *out, char *err, size_t err_size);

/*
 * The form of "NAME|PID[,NAME|PID...]" alone, without looking anything up (for the command
 * line's parser): no empty item, pids 1 to 2^31-1, names of at most 255 bytes without
 * control characters. Returns 0 or -EINVAL with one line in err.
 */
int vmt_vmfind_check_specs(const char *specs, char *err, size_t err_size);

/**
 * vmt_vmfind_vcpus() - the vCPU threads of one VMM process
 * @env:	where to look
 * @pid:	the VMM
 * @vm:		its vcpu, n_vcpu, n_vcpu_fds, method and cpus are set, nothing else;
 *		release the threads with vmt_vmfind_vm_clear()
 * @err:	one line on failure
 *
 * Threads named "CPU <n>/KVM" when there are any; otherwise the threads seen inside
 * ioctl(KVM_RUN) on a kvm-vcpu fd over up to env->kvm_run_tries samples, and those that ran
 * guest code (see VMT_VMFIND_GUEST_TIME). Returns 0, -ENOENT (no such process) or -ENODEV
 * (no kvm-vcpu fd, or no vCPU thread told).
 */
int vmt_vmfind_vcpus(const struct vmt_vmfind_env *env, pid_t pid, struct vmt_vm *vm,
		     char *err, size_t err_size);

void vmt_vmfind_vm_clear(struct vmt_vm *vm);
void vmt_vmfind_free(struct vmt_vmfind *f);
const char *vmt_vmfind_how_name(enum vmt_vmfind_how how);	/* "pid", "pidfile", "cmdline" */
/* "thread-names", "kvm-run", "guest-time" */
const char *vmt_vmfind_method_name(enum vmt_vmfind_method m);

/* All vCPU tids, sorted and unique, malloc'd into *tids. Returns 0 or -ENOMEM. */
int vmt_vmfind_tids(const struct vmt_vmfind *f, pid_t **tids, unsigned int *n);

/*
 * The longest filter tracefs takes: the kernel's event_filter_write() refuses a write of a
 * page or more, so PAGE_SIZE - 1 bytes (4095 here).
 */
size_t vmt_vmfind_filter_max(void);

/**
 * vmt_vmfind_filter() - the tracefs event filter that keeps only the vCPU threads
 * @f:		found VMs
 * @max_len:	longest expression accepted (vmt_vmfind_filter_max() for tracefs)
 * @out:	malloc'd "common_pid == A || (common_pid >= B && common_pid <= C) ..."
 * @err:	one line on failure
 *
 * Runs of three or more consecutive tids become one range, so the vCPU threads QEMU starts
 * one after another fit whatever their number. Returns 0, -ENODATA (no thread), -ENOMEM,
 * or -E2BIG when the expression would be longer than max_len (then trace unfiltered, or
 * give the tids to the instance's set_event_pid, which has no such limit).
 */
int vmt_vmfind_filter(const struct vmt_vmfind *f, size_t max_len, char **out, char *err,
		      size_t err_size);

/*
 * Store the map as metadata: vm.count; per VM i: vm.<i>.name, vm.<i>.pid, vm.<i>.method,
 * vm.<i>.vcpus = "tid:vcpu,tid:vcpu", vm.<i>.cpus = "0-3", vm.<i>.missing (vCPUs with a
 * kvm-vcpu fd but no thread found). Errors are sticky in kb, as for every vmt_kv_add().
 */
void vmt_vmfind_to_meta(const struct vmt_vmfind *f, struct vmt_kvbuf *kb);

/* tid -> (VM, vCPU) read back from metadata, for reports. Opaque, immutable once built. */
struct vmt_vmmap;

/**
 * vmt_vmmap_from_meta() - read the vm.* keys back
 * @meta, @len:	encoded metadata (untrusted: validated here)
 * @out:	the map; release with vmt_vmmap_free()
 * @err:	one line on failure
 *
 * Returns 0, -ENOENT when there is no vm.count (a recording made without --vm),
 * -EBADMSG for malformed keys, or -ENOMEM.
 */
int vmt_vmmap_from_meta(const uint8_t *meta, size_t len, struct vmt_vmmap **out, char *err,
			size_t err_size);
void vmt_vmmap_free(struct vmt_vmmap *m);
unsigned int vmt_vmmap_count(const struct vmt_vmmap *m);
const char *vmt_vmmap_name(const struct vmt_vmmap *m, unsigned int vm);
int32_t vmt_vmmap_pid(const struct vmt_vmmap *m, unsigned int vm);
/* The VM and vCPU of a thread; returns 0 or -ENOENT. */
int vmt_vmmap_lookup(const struct vmt_vmmap *m, int32_t tid, unsigned int *vm, unsigned int *vcpu);
/* The index of the VM with this name, or whose VMM has this pid (digits); or -ENOENT. */
int vmt_vmmap_find(const struct vmt_vmmap *m, const char *name_or_pid);
/*
 * Append the tids of VM vm's vCPU threads to *tids (malloc'd, *n of them; unsorted).
 * Returns 0, -ENOENT for no such VM or -ENOMEM.
 */
int vmt_vmmap_vm_tids(const struct vmt_vmmap *m, unsigned int vm, int32_t **tids,
		      unsigned int *n);
/*
 * "web1/vcpu1 (pid 1234)" for the thread 1234, or NULL when tid is not a known vCPU; a name
 * too long for buf is cut with '~' before "/vcpuN (pid N)" (vmt_fmt_fit), never inside a
 * UTF-8 character.
 */
char *vmt_vmmap_label(const struct vmt_vmmap *m, int32_t tid, char *buf, size_t size);

#endif
