// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmfind on fake procfs trees built in a temporary directory: libvirt pid files, QEMU -name
 * forms, ambiguous and stale names, vCPU threads by name and through KVM_RUN, allowed CPUs,
 * the tracefs filter (checked by evaluating it), the metadata round trip, and hostile
 * contents. The real /proc with a real KVM VMM is tests/e2e/vmfind.sh.
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "kv.h"
#include "vmfind.h"

struct fake {
	char root[64];
	char proc[96];
	char libvirt[96];
	struct vmt_vmfind_env env;
	char err[512];
};

static void mkdirs(const char *path)
{
	char buf[PATH_MAX], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	mkdir(buf, 0755);
}

/* Write len bytes (NULs allowed) to <dir>/<rel>, making the folders on the way. */
static void put_file(const char *dir, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void put_filef(const char *dir, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void put_filef(const char *dir, const char *rel, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof(buf));
	put_file(dir, rel, buf, (size_t)n);
}

struct fthread {
	int tid;
	const char *comm;
	const char *allowed;	/* Cpus_allowed_list; NULL: no status file */
	const char *syscall;	/* NULL: none */
	unsigned long flags;	/* the stat flags field */
	unsigned long guest;	/* the stat guest_time field */
	const char *stack;	/* the kernel stack file; NULL: none */
};

/* A process with its threads; cmdline holds NUL-separated arguments of cmdlen bytes. */
static void fake_proc(struct fake *fk, int pid, const char *cmdline, size_t cmdlen,
		      const struct fthread *t, unsigned int n)
{
	char rel[128], path[PATH_MAX];
	unsigned int i;

	snprintf(rel, sizeof(rel), "%d/cmdline", pid);
	put_file(fk->proc, rel, cmdline, cmdlen);
	snprintf(rel, sizeof(rel), "%d/status", pid);
	put_filef(fk->proc, rel, "Name:\tqemu\nTgid:\t%d\nPid:\t%d\n", pid, pid);
	snprintf(path, sizeof(path), "%s/%d/fd", fk->proc, pid);
	mkdirs(path);
	for (i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "%d/task/%d/comm", pid, t[i].tid);
		put_filef(fk->proc, rel, "%s\n", t[i].comm);
		snprintf(rel, sizeof(rel), "%d/task/%d/stat", pid, t[i].tid);
		/* fields 1-20, 21-42 zero, guest_time (43), cguest_time (44) */
		put_filef(fk->proc, rel, "%d (%s) S 1 %d %d 0 -1 %lu 0 0 0 0 0 0 0 20 0 1 0"
			  " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 %lu 0\n",
			  t[i].tid, t[i].comm, pid, pid, t[i].flags ? t[i].flags : 0x400040UL,
			  t[i].guest);
		if (t[i].stack) {
			snprintf(rel, sizeof(rel), "%d/task/%d/stack", pid, t[i].tid);
			put_filef(fk->proc, rel, "%s", t[i].stack);
		}
		if (t[i].allowed) {
			snprintf(rel, sizeof(rel), "%d/task/%d/status", pid, t[i].tid);
			put_filef(fk->proc, rel,
				  "Name:\t%s\nTgid:\t%d\nPid:\t%d\nCpus_allowed:\tff\n"
				  "Cpus_allowed_list:\t%s\nMems_allowed_list:\t0\n", t[i].comm,
				  pid, t[i].tid, t[i].allowed);
		}
		if (t[i].syscall) {
			snprintf(rel, sizeof(rel), "%d/task/%d/syscall", pid, t[i].tid);
			put_filef(fk->proc, rel, "%s\n", t[i].syscall);
		}
	}
}

static void fake_fd(struct fake *fk, int pid, int fd, const char *target)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%d/fd/%d", fk->proc, pid, fd);
	assert_int_equal(symlink(target, path), 0);
}

static void fake_pidfile(struct fake *fk, const char *name, const char *text)
{
	char rel[300];

	snprintf(rel, sizeof(rel), "%s.pid", name);
	put_file(fk->libvirt, rel, text, strlen(text));
}

#define ARGS(s) s, sizeof(s)	/* a literal with its final NUL: a real cmdline */

/*
 * The VMs most tests use:
 *   1000 "web1" by libvirt pid file, QEMU's own form -name guest=web1,debug-threads=on;
 *        CPU 0/KVM on 0-1, CPU 12/KVM on 2,4-5, plus an I/O thread and the main thread
 *   2000 "web2" by -name web2 only (no pid file); CPU 1/KVM on 3, CPU 0/KVM on 6-7
 */
static void fake_web1(struct fake *fk)
{
	static const struct fthread t[] = {
		{ 1000, "qemu-system-x86", "0-7", "7 0x5 0x3 0x0", 0, 0, NULL },
		{ 1001, "CPU 0/KVM", "0-1", "running", 0, 0, NULL },
		{ 1002, "CPU 12/KVM", "2,4-5", "running", 0, 0, NULL },
		{ 1003, "IO iothread1", "0-7", "running", 0, 0, NULL },
	};

	fake_proc(fk, 1000, ARGS("/usr/bin/qemu-system-x86_64\0-name\0"
				 "guest=web1,debug-threads=on\0-m\0" "1024"), t, 4);
	fake_pidfile(fk, "web1", "1000\n");
}

static void fake_web2(struct fake *fk)
{
	static const struct fthread t[] = {
		{ 2000, "qemu-system-x86", "0-7", NULL, 0, 0, NULL },
		{ 2001, "CPU 1/KVM", "3", NULL, 0, 0, NULL },
		{ 2002, "CPU 0/KVM", "6-7", NULL, 0, 0, NULL },
	};

	fake_proc(fk, 2000, ARGS("qemu-system-x86_64\0-enable-kvm\0-name\0web2"), t, 3);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	struct fake *fk = calloc(1, sizeof(*fk));

	if (!fk)
		return -1;
	snprintf(fk->root, sizeof(fk->root), "/tmp/vmt-vmfind-XXXXXX");
	if (!mkdtemp(fk->root))
		return -1;
	snprintf(fk->proc, sizeof(fk->proc), "%s/proc", fk->root);
	snprintf(fk->libvirt, sizeof(fk->libvirt), "%s/libvirt", fk->root);
	mkdirs(fk->proc);
	mkdirs(fk->libvirt);
	fk->env.proc_root = fk->proc;
	fk->env.libvirt_dir = fk->libvirt;
	fk->env.kvm_run_tries = 3;
	fk->env.kvm_run_wait_us = 1000;
	*state = fk;
	return 0;
}

static int teardown(void **state)
{
	struct fake *fk = *state;

	nftw(fk->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(fk);
	return 0;
}

static char *cpus_str(const struct vmt_cpulist *l, char *buf, size_t size)
{
	return vmt_cpulist_format(l, buf, size);
}

static void test_pidfile(void **state)
{
	struct fake *fk = *state;
	struct vmt_vmfind f;
	const struct vmt_vm *vm;
	char buf[64];

	fake_web1(fk);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "web1", &f, fk->err, sizeof(fk->err)), 0);
	assert_int_equal(f.n_vm, 1);
	vm = &f.vm[0];
	assert_string_equal(vm->name, "web1");
	assert_int_equal(vm->pid, 1000);
	assert_int_equal(vm->how, VMT_VMFIND_BY_PIDFILE);
	assert_int_equal(vm->method, VMT_VMFIND_THREAD_NAMES);
	assert_int_equal(vm->n_vcpu, 2);
	assert_int_equal(vm->vcpu[0].tid, 1001);
	assert_int_equal(vm->vcpu[0].vcpu, 0);
	assert_string_equal(vm->vcpu[0].comm, "CPU 0/KVM");
	assert_string_equal(cpus_str(&vm->vcpu[0].allowed, buf, sizeof(buf)), "0-1");
	assert_int_equal(vm->vcpu[1].tid, 1002);
	assert_int_equal(vm->vcpu[1].vcpu, 12);
	assert_string_equal(vm->vcpu[1].comm, "CPU 12/KVM");
	assert_string_equal(cpus_str(&vm->vcpu[1].allowed, buf, sizeof(buf)), "2,4-5");
	/* the I/O thread's 0-7 is not in the union: only vCPU threads count */
	assert_string_equal(cpus_str(&vm->cpus, buf, sizeof(buf)), "0-2,4-5");
	assert_string_equal(cpus_str(&f.cpus, buf, sizeof(buf)), "0-2,4-5");
	vmt_vmfind_free(&f);
}

static void test_cmdline_forms(void **state)
{
	static const struct fthread vcpu[] = { { 0, "CPU 0/KVM", "1", NULL, 0, 0, NULL } };
	static const struct {
		int pid;
		const char *cmd;
		size_t len;
	} procs[] = {
		{ 3100, ARGS("qemu\0-name\0guest=g1,debug-threads=on") },
		{ 3200, ARGS("qemu\0--name\0g2,process=qemu-g2") },
		{ 3300, ARGS("qemu\0-name\0process=p,guest=g3") },
		{ 3400, ARGS("qemu\0-name\0guest=g4,,x\0-m\0" "1") },	/* guest "g4,x" */
		{ 3500, ARGS("qemu\0-name\0old\0-name\0g5") },	/* QEMU keeps the last */
		{ 3600, ARGS("qemu\0-name\0g66") },
		{ 3700, ARGS("qemu\0-namex\0g7\0g7") },
		{ 3800, "qemu\0-name\0g8", 13 },			/* no final NUL */
	};
	static const struct {
		const char *spec;
		int pid;	/* 0: unknown */
	} cases[] = {
		{ "g1", 3100 }, { "g2", 3200 }, { "g3", 3300 }, { "p", 0 }, { "g4", 0 },
		{ "old", 0 }, { "g5", 3500 }, { "g6", 0 }, { "g66", 3600 }, { "g7", 0 },
		{ "qemu", 0 }, { "g8", 3800 },
	};
	struct fake *fk = *state;
	unsigned int i;

	for (i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		struct fthread t = vcpu[0];

		t.tid = procs[i].pid + 1;
		fake_proc(fk, procs[i].pid, procs[i].cmd, procs[i].len, &t, 1);
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vmt_vmfind f;
		int ret = vmt_vmfind_resolve(&fk->env, cases[i].spec, &f, fk->err,
					     sizeof(fk->err));

		if (!cases[i].pid) {
			assert_int_equal(ret, -ENOENT);
			assert_non_null(strstr(fk->err, "unknown VM"));
			continue;
		}
		assert_int_equal(ret, 0);
		assert_int_equal(f.n_vm, 1);
		assert_int_equal(f.vm[0].pid, cases[i].pid);
		assert_int_equal(f.vm[0].how, VMT_VMFIND_BY_CMDLINE);
		assert_string_equal(f.vm[0].name, cases[i].spec);
		assert_int_equal(f.vm[0].vcpu[0].tid, cases[i].pid + 1);
		vmt_vmfind_free(&f);
	}
}

static void test_unknown_says_where(void **state)
{
	struct fake *fk = *state;
	struct vmt_vmfind f;
	char expect[512];

	fake_web1(fk);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "nosuch", &f, fk->err, sizeof(fk->err)),
			 -ENOENT);
	snprintf(expect, sizeof(expect), "unknown VM 'nosuch': no %s/nosuch.pid, and no process "
		 "in %s has -name nosuch", fk->libvirt, fk->proc);
	assert_string_equal(fk->err, expect);
	assert_null(strchr(fk->err, '\n'));
	/* a name that cannot be a file name is still looked for on command lines */
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "../web1", &f, fk->err, sizeof(fk->err)),
			 -ENOENT);
	assert_non_null(strstr(fk->err, "not a file name under"));
}

static void test_ambiguous(void **state)
{
	static const struct fthread a[] = { { 4001, "CPU 0/KVM", "0", NULL, 0, 0, NULL } };
	static const struct fthread b[] = { { 4101, "CPU 0/KVM", "1", NULL, 0, 0, NULL } };
	static const struct fthread sudo[] = { { 4200, "sudo", "0-1", NULL, 0, 0, NULL } };
	static const struct fthread c[] = { { 4301, "CPU 0/KVM", "1", NULL, 0, 0, NULL } };
	struct fake *fk = *state;
	struct vmt_vmfind f;

	fake_proc(fk, 4000, ARGS("qemu-system-x86_64\0-name\0twin"), a, 1);
	fake_proc(fk, 4100, ARGS("qemu-system-x86_64\0-name\0guest=twin"), b, 1);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "twin", &f, fk->err, sizeof(fk->err)),
			 -EEXIST);
	assert_non_null(strstr(fk->err, "ambiguous VM name 'twin'"));
	assert_true(strstr(fk->err, "4000") && strstr(fk->err, "4100"));

	/* a wrapper carrying the same -name is not a VMM: the one VMM is the answer */
	fake_proc(fk, 4200, ARGS("sudo\0qemu-system-x86_64\0-name\0solo"), sudo, 1);
	fake_proc(fk, 4300, ARGS("qemu-system-x86_64\0-name\0solo"), c, 1);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "solo", &f, fk->err, sizeof(fk->err)), 0);
	assert_int_equal(f.vm[0].pid, 4300);
	vmt_vmfind_free(&f);
	/* only the wrapper: found, but no vCPU threads */
	fake_proc(fk, 4400, ARGS("sudo\0qemu-system-x86_64\0-name\0wrapped"), sudo, 1);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "wrapped", &f, fk->err, sizeof(fk->err)),
			 -ENODEV);
	assert_non_null(strstr(fk->err, "pid 4400 has -name wrapped but no vCPU threads"));
}

static void test_stale_pidfile(void **state)
{
	static const struct fthread sh[] = { { 5000, "bash", "0-1", NULL, 0, 0, NULL } };
	static const struct fthread vm[] = { { 5101, "CPU 0/KVM", "1", NULL, 0, 0, NULL } };
	struct fake *fk = *state;
	struct vmt_vmfind f;

	fake_pidfile(fk, "gone", "99999\n");
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "gone", &f, fk->err, sizeof(fk->err)),
			 -ENOENT);
	assert_non_null(strstr(fk->err, "gone.pid names pid 99999, which is not running"));
	/* the pid was reused by something else */
	fake_proc(fk, 5000, ARGS("bash"), sh, 1);
	fake_pidfile(fk, "reused", "5000");
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "reused", &f, fk->err, sizeof(fk->err)),
			 -ENOENT);
	assert_non_null(strstr(fk->err, "names pid 5000, which is not a VMM"));
	/* stale file, but the VM runs by hand with the same -name: found on its command line */
	fake_proc(fk, 5100, ARGS("qemu\0-name\0gone"), vm, 1);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "gone", &f, fk->err, sizeof(fk->err)), 0);
	assert_int_equal(f.vm[0].pid, 5100);
	assert_int_equal(f.vm[0].how, VMT_VMFIND_BY_CMDLINE);
	vmt_vmfind_free(&f);
	/* garbage in the pid file */
	fake_pidfile(fk, "junk", "12ab\n");
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "junk", &f, fk->err, sizeof(fk->err)),
			 -ENOENT);
	assert_non_null(strstr(fk->err, "junk.pid holds no pid"));
	put_file(fk->libvirt, "nul.pid", "1000\0" "5", 6);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "nul", &f, fk->err, sizeof(fk->err)),
			 -ENOENT);
	assert_non_null(strstr(fk->err, "nul.pid holds no pid"));
	fake_pidfile(fk, "long", "000000000000000000000000000000000000000000000000000000000001000");
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "long", &f, fk->err, sizeof(fk->err)),
			 -ENOENT);
}

static void test_by_pid(void **state)
{
	static const struct fthread sh[] = { { 6000, "bash", "0-1", NULL, 0, 0, NULL },
					     { 6001, "CPU 0/TCG", "0", NULL, 0, 0, NULL } };
	struct fake *fk = *state;
	struct vmt_vmfind f;

	fake_web1(fk);
	fake_web2(fk);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "2000", &f, fk->err, sizeof(fk->err)), 0);
	assert_int_equal(f.vm[0].how, VMT_VMFIND_BY_PID);
	assert_string_equal(f.vm[0].name, "web2");	/* its -name, as a label */
	assert_int_equal(f.vm[0].n_vcpu, 2);
	assert_int_equal(f.vm[0].vcpu[0].tid, 2002);	/* sorted by vCPU index */
	assert_int_equal(f.vm[0].vcpu[0].vcpu, 0);
	assert_int_equal(f.vm[0].vcpu[1].tid, 2001);
	vmt_vmfind_free(&f);

	assert_int_equal(vmt_vmfind_resolve(&fk->env, "1000", &f, fk->err, sizeof(fk->err)), 0);
	assert_string_equal(f.vm[0].name, "web1");
	vmt_vmfind_free(&f);

	/* a thread id given for its process */
	put_filef(fk->proc, "1002/status", "Name:\tCPU 12/KVM\nTgid:\t1000\nPid:\t1002\n");
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "1002", &f, fk->err, sizeof(fk->err)), 0);
	assert_int_equal(f.vm[0].pid, 1000);
	vmt_vmfind_free(&f);

	/* a TCG guest's threads are no KVM vCPUs */
	fake_proc(fk, 6000, ARGS("qemu\0-accel\0tcg"), sh, 2);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "6000", &f, fk->err, sizeof(fk->err)),
			 -ENODEV);
	assert_string_equal(fk->err, "pid 6000 is not a VMM (no vCPU threads)");
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "77777", &f, fk->err, sizeof(fk->err)),
			 -ENOENT);
	assert_non_null(strstr(fk->err, "no process with pid 77777"));
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "0", &f, fk->err, sizeof(fk->err)), -EINVAL);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "99999999999", &f, fk->err, sizeof(fk->err)),
			 -EINVAL);
}

static void test_several(void **state)
{
	struct fake *fk = *state;
	struct vmt_vmfind f;
	char buf[64];

	fake_web1(fk);
	fake_web2(fk);
	/* the same spec twice counts once */
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "web1,web2,web1", &f, fk->err,
					    sizeof(fk->err)), 0);
	assert_int_equal(f.n_vm, 2);
	assert_string_equal(f.vm[0].name, "web1");
	assert_string_equal(f.vm[1].name, "web2");
	assert_string_equal(cpus_str(&f.vm[1].cpus, buf, sizeof(buf)), "3,6-7");
	assert_string_equal(cpus_str(&f.cpus, buf, sizeof(buf)), "0-7");
	vmt_vmfind_free(&f);
	/* spaces around the items are not part of them ("web1, web2"), as in report's --vm */
	assert_int_equal(vmt_vmfind_check_specs(" web1 ,\tweb2 ", fk->err, sizeof(fk->err)), 0);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, " web1 ,\tweb2 , web1", &f, fk->err,
					    sizeof(fk->err)), 0);
	assert_int_equal(f.n_vm, 2);
	assert_string_equal(f.vm[0].name, "web1");
	assert_string_equal(f.vm[1].name, "web2");
	vmt_vmfind_free(&f);
	assert_int_equal(vmt_vmfind_check_specs("web1, ,web2", fk->err, sizeof(fk->err)),
			 -EINVAL);
	assert_string_equal(fk->err, "empty VM name in 'web1, ,web2'");

	/* two names of one VM: the file would keep one, a report asked for the other fails */
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "web1,web2,1000", &f, fk->err,
					    sizeof(fk->err)), -EALREADY);
	assert_string_equal(fk->err, "web1 and 1000 are the same VM (pid 1000)");
	assert_int_equal(f.n_vm, 0);

	/* the form alone, before anything is looked up */
	assert_int_equal(vmt_vmfind_check_specs("web1,2000,x", fk->err, sizeof(fk->err)), 0);
	assert_int_equal(vmt_vmfind_check_specs("web1,0", fk->err, sizeof(fk->err)), -EINVAL);
	assert_string_equal(fk->err, "bad pid '0' (1 to 2147483647)");
	assert_int_equal(vmt_vmfind_check_specs("2147483648", fk->err, sizeof(fk->err)),
			 -EINVAL);
	assert_int_equal(vmt_vmfind_check_specs("a,,b", fk->err, sizeof(fk->err)), -EINVAL);
	assert_string_equal(fk->err, "empty VM name in 'a,,b'");
	assert_int_equal(vmt_vmfind_check_specs("a,b\tc", fk->err, sizeof(fk->err)), -EINVAL);
	assert_string_equal(fk->err, "VM name with a control character");
	/* C1 too (U+009B, CSI to some terminals); Latin-1 and other UTF-8 pass */
	assert_int_equal(vmt_vmfind_check_specs("ev\xc2\x9b" "31mil", fk->err, sizeof(fk->err)),
			 -EINVAL);
	assert_string_equal(fk->err, "VM name with a control character");
	assert_int_equal(vmt_vmfind_check_specs("caf\xc3\xa9,caf\xe9,\xc2\xa0x", fk->err,
						sizeof(fk->err)), 0);
	/* "no VM 'nope'" is no question of form: 0 here */
	assert_int_equal(vmt_vmfind_check_specs("nope", fk->err, sizeof(fk->err)), 0);
	/* a bad form is found before the VMs before it are looked up */
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "nope,0", &f, fk->err, sizeof(fk->err)),
			 -EINVAL);
	assert_string_equal(fk->err, "bad pid '0' (1 to 2147483647)");

	assert_int_equal(vmt_vmfind_resolve(&fk->env, "web1,,web2", &f, fk->err,
					    sizeof(fk->err)), -EINVAL);
	assert_non_null(strstr(fk->err, "empty VM name"));
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "web1,", &f, fk->err, sizeof(fk->err)),
			 -EINVAL);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "", &f, fk->err, sizeof(fk->err)), -EINVAL);
	/* one bad spec fails the lot, naming it */
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "web1,nope", &f, fk->err, sizeof(fk->err)),
			 -ENOENT);
	assert_non_null(strstr(fk->err, "'nope'"));
}

static void syscall_text(char *buf, size_t size, int fd, unsigned long cmd)
{
	snprintf(buf, size, "%d 0x%x 0x%lx 0x0 0x7ffd1234 0x0 0x0 0x7ffd0000 0x7f0000001234",
		 (int)SYS_ioctl, fd, cmd);
}

static void test_kvm_run(void **state)
{
	char run12[128], run13[128], tcgets[128], worker[128];
	struct fthread t[] = {
		{ 7000, "qemu-system-x86", "0-7", "7 0x9 0x2 0x0 0x0 0x0 0x0 0x1 0x2", 0, 0, NULL },
		{ 7001, "qemu-system-x86", "0", run12, 0, 0, NULL },
		{ 7002, "qemu-system-x86", "1", run13, 0, 0, NULL },
		{ 7003, "qemu-system-x86", "0-7", tcgets, 0, 0, NULL },
		{ 7004, "qemu-system-x86", "2", "running", 0, 0, NULL },
		/* KVM's worker, a copy of the thread that made the first KVM_RUN on fd 14 */
		{ 7005, "kvm-nx-lpage-re", "0-7", worker, 0x404040UL, 0, NULL },
	};
	struct fake *fk = *state;
	struct vmt_vmfind f;
	struct vmt_vm *vm;
	char buf[64];

	syscall_text(run12, sizeof(run12), 12, 0xae80);
	syscall_text(run13, sizeof(run13), 13, 0xae80);
	syscall_text(tcgets, sizeof(tcgets), 0, 0x5401);
	syscall_text(worker, sizeof(worker), 14, 0xae80);
	fake_proc(fk, 7000, ARGS("qemu-system-x86_64\0-name\0plain"), t, 6);
	fake_fd(fk, 7000, 0, "/dev/pts/0");
	fake_fd(fk, 7000, 10, "/dev/kvm");
	fake_fd(fk, 7000, 11, "anon_inode:kvm-vm");
	fake_fd(fk, 7000, 12, "anon_inode:kvm-vcpu:0");
	fake_fd(fk, 7000, 13, "anon_inode:kvm-vcpu:2");	/* an APIC id with a gap */
	fake_fd(fk, 7000, 14, "anon_inode:kvm-vcpu:4");	/* its thread is busy */
	fake_fd(fk, 7000, 15, "anon_inode:kvm-vcpu:");
	fake_fd(fk, 7000, 16, "anon_inode:kvm-vcpu:1x");
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "plain", &f, fk->err, sizeof(fk->err)), 0);
	vm = &f.vm[0];
	assert_int_equal(vm->method, VMT_VMFIND_KVM_RUN);
	assert_int_equal(vm->n_vcpu_fds, 3);
	assert_int_equal(vm->n_vcpu, 2);
	assert_int_equal(vm->vcpu[0].tid, 7001);
	assert_int_equal(vm->vcpu[0].vcpu, 0);
	assert_string_equal(vm->vcpu[0].comm, "qemu-system-x86");
	assert_int_equal(vm->vcpu[1].tid, 7002);
	assert_int_equal(vm->vcpu[1].vcpu, 2);
	assert_string_equal(cpus_str(&vm->cpus, buf, sizeof(buf)), "0-1");
	vmt_vmfind_free(&f);

	/* the busy thread now sleeps in KVM_RUN too */
	syscall_text(run12, sizeof(run12), 14, 0xae80);
	put_filef(fk->proc, "7000/task/7004/syscall", "%s\n", run12);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "7000", &f, fk->err, sizeof(fk->err)), 0);
	assert_int_equal(f.vm[0].n_vcpu, 3);
	assert_int_equal(f.vm[0].vcpu[2].tid, 7004);
	assert_int_equal(f.vm[0].vcpu[2].vcpu, 4);
	vmt_vmfind_free(&f);

	/* every vCPU busy: the fds say it is a VMM, but no thread can be told */
	put_filef(fk->proc, "7000/task/7001/syscall", "running\n");
	put_filef(fk->proc, "7000/task/7002/syscall", "running\n");
	put_filef(fk->proc, "7000/task/7004/syscall", "running\n");
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "7000", &f, fk->err, sizeof(fk->err)),
			 -ENODEV);
	assert_non_null(strstr(fk->err, "no thread seen in KVM_RUN on its 3 kvm-vcpu fds in 3 "
			       "samples"));
}

/*
 * Busy vCPU threads, never asleep in KVM_RUN: told by their guest time, or by a kernel
 * stack inside kvm_vcpu_ioctl where guest time is not counted; they take the ids of the
 * fds left over in ascending order, by ascending tid. One thread caught in KVM_RUN keeps
 * its fd's id.
 */
static const char vcpu_stack[] =
	"[<0>] xfer_to_guest_mode_handle_work+0x75/0xa0\n"
	"[<0>] kvm_arch_vcpu_ioctl_run+0xda4/0x1d50\n"
	"[<0>] kvm_vcpu_ioctl+0x119/0xa60\n"
	"[<0>] __x64_sys_ioctl+0x9b/0x100\n";
static const char sleep_stack[] =
	"[<0>] hrtimer_nanosleep+0xb5/0x130\n"
	"[<0>] __x64_sys_clock_nanosleep+0xde/0x150\n";
/* a name that only begins like the handler's is not it */
static const char other_stack[] =
	"[<0>] kvm_vcpu_ioctl_x86_get_xsave+0x10/0x20\n";

static void test_guest_time(void **state)
{
	char run21[128], worker[128];
	struct fthread t[] = {
		{ 8000, "vmm", "0-7", "7 0x9 0x2 0x0 0x0 0x0 0x0 0x1 0x2", 0, 0, sleep_stack },
		{ 8007, "vmm", "3", "running", 0, 5, NULL },		/* guest time */
		{ 8002, "vmm", "2", "running", 0, 0, vcpu_stack },	/* stack only */
		{ 8003, "vmm", "1", run21, 0, 9, vcpu_stack },	/* asleep in KVM_RUN */
		{ 8004, "vmm", "0-7", "running", 0, 0, sleep_stack },	/* an I/O thread */
		{ 8005, "vmm", "0-7", "running", 0, 0, other_stack },
		{ 8006, "kvm-nx-lpage-re", "0-7", worker, 0x404040UL, 3, vcpu_stack },
	};
	struct fake *fk = *state;
	struct vmt_vmfind f;
	struct vmt_vm *vm;
	char buf[64], path[PATH_MAX];

	syscall_text(run21, sizeof(run21), 21, 0xae80);
	syscall_text(worker, sizeof(worker), 20, 0xae80);
	fake_proc(fk, 8000, ARGS("vmm\0-name\0busy"), t, 7);
	fake_fd(fk, 8000, 21, "anon_inode:kvm-vcpu:2");
	fake_fd(fk, 8000, 22, "anon_inode:kvm-vcpu:0");
	fake_fd(fk, 8000, 23, "anon_inode:kvm-vcpu:4");
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "busy", &f, fk->err, sizeof(fk->err)), 0);
	vm = &f.vm[0];
	assert_int_equal(vm->method, VMT_VMFIND_GUEST_TIME);
	assert_string_equal(vmt_vmfind_method_name(vm->method), "guest-time");
	assert_int_equal(vm->n_vcpu_fds, 3);
	assert_int_equal(vm->n_vcpu, 3);
	assert_int_equal(vm->n_by_order, 2);
	/* ids left over 0, 4; threads by order 8002, 8007; 8003 has fd 21's id 2 */
	assert_int_equal(vm->vcpu[0].tid, 8002);
	assert_int_equal(vm->vcpu[0].vcpu, 0);
	assert_int_equal(vm->vcpu[1].tid, 8003);
	assert_int_equal(vm->vcpu[1].vcpu, 2);
	assert_int_equal(vm->vcpu[2].tid, 8007);
	assert_int_equal(vm->vcpu[2].vcpu, 4);
	assert_string_equal(cpus_str(&vm->cpus, buf, sizeof(buf)), "1-3");
	vmt_vmfind_free(&f);

	/*
	 * One fd left over without a thread (a parked vCPU, or a thread that stayed in user
	 * space): two busy threads for ids 0, 4 and 6 would be a guess, so none is numbered.
	 */
	fake_fd(fk, 8000, 20, "anon_inode:kvm-vcpu:6");
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "8000", &f, fk->err, sizeof(fk->err)), 0);
	vm = &f.vm[0];
	assert_int_equal(vm->method, VMT_VMFIND_KVM_RUN);
	assert_int_equal(vm->n_vcpu_fds, 4);
	assert_int_equal(vm->n_by_order, 0);
	assert_int_equal(vm->n_vcpu, 1);
	assert_int_equal(vm->vcpu[0].tid, 8003);
	vmt_vmfind_free(&f);
	snprintf(path, sizeof(path), "%s/8000/fd/20", fk->proc);
	assert_int_equal(unlink(path), 0);
	/*
	 * The thread seen in KVM_RUN out of the order (8003, between 8002 and 8007, on vCPU
	 * 6 above both ids left over): the order is not the VMM's, none is numbered.
	 */
	snprintf(path, sizeof(path), "%s/8000/fd/21", fk->proc);
	assert_int_equal(unlink(path), 0);
	fake_fd(fk, 8000, 21, "anon_inode:kvm-vcpu:6");
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "8000", &f, fk->err, sizeof(fk->err)), 0);
	vm = &f.vm[0];
	assert_int_equal(vm->n_by_order, 0);
	assert_int_equal(vm->n_vcpu, 1);
	assert_int_equal(vm->vcpu[0].tid, 8003);
	assert_int_equal(vm->vcpu[0].vcpu, 6);
	vmt_vmfind_free(&f);

	/* more threads with guest time than fds left over: none is numbered by a guess */
	snprintf(path, sizeof(path), "%s/8000/fd/22", fk->proc);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/8000/fd/23", fk->proc);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "8000", &f, fk->err, sizeof(fk->err)), 0);
	vm = &f.vm[0];
	assert_int_equal(vm->method, VMT_VMFIND_KVM_RUN);
	assert_int_equal(vm->n_vcpu_fds, 1);
	assert_int_equal(vm->n_by_order, 0);
	assert_int_equal(vm->n_vcpu, 1);
	assert_int_equal(vm->vcpu[0].tid, 8003);
	assert_int_equal(vm->vcpu[0].vcpu, 6);
	vmt_vmfind_free(&f);
}

/* Evaluate a filter the way the kernel would for one pid: an independent reading. */
static int filter_matches(const char *expr, long pid)
{
	const char *p = expr;

	while (*p) {
		long a, b;
		int n = 0;

		if (sscanf(p, "(common_pid >= %ld && common_pid <= %ld)%n", &a, &b, &n) == 2 && n) {
			if (pid >= a && pid <= b)
				return 1;
		} else if (sscanf(p, "common_pid == %ld%n", &a, &n) == 1 && n) {
			if (pid == a)
				return 1;
		} else {
			fail_msg("unparsable filter at '%.40s'", p);
		}
		p += n;
		if (*p) {
			assert_true(!strncmp(p, " || ", 4));
			p += 4;
		}
	}
	return 0;
}

static void check_filter(const pid_t *tids, unsigned int n, size_t max_len, int expect)
{
	struct vmt_vcpu_thread *t = calloc(n ? n : 1, sizeof(*t));
	struct vmt_vm vm = { 0 };
	struct vmt_vmfind f = { 0 };
	char err[256], *expr = NULL;
	long lo = INT32_MAX, hi = 0, pid;
	unsigned int i;
	int ret;

	assert_non_null(t);
	for (i = 0; i < n; i++) {
		t[i].tid = tids[i];
		t[i].vcpu = i;
		lo = tids[i] < lo ? tids[i] : lo;
		hi = tids[i] > hi ? tids[i] : hi;
	}
	vm.n_vcpu = n;
	vm.vcpu = t;
	f.n_vm = 1;
	f.vm = &vm;
	ret = vmt_vmfind_filter(&f, max_len, &expr, err, sizeof(err));
	assert_int_equal(ret, expect);
	if (ret == 0) {
		assert_true(strlen(expr) <= max_len);
		for (pid = lo - 3; pid <= hi + 3; pid++) {
			int want = 0;

			for (i = 0; i < n; i++)
				want |= tids[i] == pid;
			assert_int_equal(filter_matches(expr, pid), want);
		}
	} else if (ret == -E2BIG) {
		assert_non_null(strstr(err, "tracefs takes at most"));
	}
	free(expr);
	free(t);
}

static void test_filter(void **state)
{
	static const pid_t mixed[] = { 23, 5, 6, 7, 9, 20, 21, 22, 12, 13, 7 };
	pid_t many[400];
	struct fake *fk = *state;
	struct vmt_vmfind f;
	char *expr;
	unsigned int i;

	fake_web1(fk);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "web1", &f, fk->err, sizeof(fk->err)), 0);
	assert_int_equal(vmt_vmfind_filter(&f, 4095, &expr, fk->err, sizeof(fk->err)), 0);
	assert_string_equal(expr, "common_pid == 1001 || common_pid == 1002");
	free(expr);
	vmt_vmfind_free(&f);

	check_filter(mixed, sizeof(mixed) / sizeof(mixed[0]), 4095, 0);
	/* 400 threads started one after another: one range */
	for (i = 0; i < 400; i++)
		many[i] = 4000000 + (pid_t)i;
	check_filter(many, 400, 4095, 0);
	/* 400 scattered 7-digit tids need about 25 bytes each: too long for one page */
	for (i = 0; i < 400; i++)
		many[i] = 4000000 + 2 * (pid_t)i;
	check_filter(many, 400, 4095, -E2BIG);
	check_filter(many, 400, 16384, 0);
	check_filter(many, 0, 4095, -ENODATA);
	assert_int_equal(vmt_vmfind_filter_max(), (size_t)sysconf(_SC_PAGESIZE) - 1);
}

static void test_meta_roundtrip(void **state)
{
	struct fake *fk = *state;
	struct vmt_vmmap *m;
	struct vmt_vmfind f;
	struct vmt_kvbuf kb;
	unsigned int vm, vcpu;
	char label[128], *s;

	fake_web1(fk);
	fake_web2(fk);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "web1,web2", &f, fk->err, sizeof(fk->err)),
			 0);
	vmt_kv_init(&kb);
	vmt_kv_add_str(&kb, "clock", "mono");	/* other metadata around it */
	vmt_vmfind_to_meta(&f, &kb);
	assert_int_equal(kb.error, 0);
	s = vmt_kv_get_str(kb.buf, kb.len, "vm.0.vcpus");
	assert_string_equal(s, "1001:0,1002:12");
	free(s);
	s = vmt_kv_get_str(kb.buf, kb.len, "vm.1.vcpus");
	assert_string_equal(s, "2002:0,2001:1");
	free(s);
	s = vmt_kv_get_str(kb.buf, kb.len, "vm.0.cpus");
	assert_string_equal(s, "0-2,4-5");
	free(s);
	s = vmt_kv_get_str(kb.buf, kb.len, "vm.1.method");
	assert_string_equal(s, "thread-names");
	free(s);

	assert_int_equal(vmt_vmmap_from_meta(kb.buf, kb.len, &m, fk->err, sizeof(fk->err)), 0);
	assert_int_equal(vmt_vmmap_count(m), 2);
	assert_string_equal(vmt_vmmap_name(m, 1), "web2");
	assert_int_equal(vmt_vmmap_pid(m, 1), 2000);
	assert_null(vmt_vmmap_name(m, 2));
	/* every thread of the original maps back */
	for (vm = 0; vm < f.n_vm; vm++) {
		unsigned int i;

		for (i = 0; i < f.vm[vm].n_vcpu; i++) {
			unsigned int got_vm, got_vcpu;

			assert_int_equal(vmt_vmmap_lookup(m, f.vm[vm].vcpu[i].tid, &got_vm,
							  &got_vcpu), 0);
			assert_int_equal(got_vm, vm);
			assert_int_equal(got_vcpu, f.vm[vm].vcpu[i].vcpu);
		}
	}
	assert_int_equal(vmt_vmmap_lookup(m, 1000, &vm, &vcpu), -ENOENT);	/* main thread */
	assert_int_equal(vmt_vmmap_lookup(m, 1003, NULL, NULL), -ENOENT);	/* I/O thread */
	assert_string_equal(vmt_vmmap_label(m, 1002, label, sizeof(label)),
			    "web1/vcpu12 (pid 1002)");
	assert_string_equal(vmt_vmmap_label(m, 2001, label, sizeof(label)),
			    "web2/vcpu1 (pid 2001)");
	assert_null(vmt_vmmap_label(m, 1003, label, sizeof(label)));
	assert_int_equal(vmt_vmmap_find(m, "web2"), 1);
	assert_int_equal(vmt_vmmap_find(m, "1000"), 0);
	assert_int_equal(vmt_vmmap_find(m, "1001"), -ENOENT);	/* a tid is not a VM */
	assert_int_equal(vmt_vmmap_find(m, "web3"), -ENOENT);
	/* --vm in reports: each VM's threads appended, in the map's (tid) order */
	{
		int32_t *tids = NULL;
		unsigned int n = 0;

		assert_int_equal(vmt_vmmap_vm_tids(m, 1, &tids, &n), 0);
		assert_int_equal(n, 2);
		assert_int_equal(tids[0], 2001);
		assert_int_equal(tids[1], 2002);
		assert_int_equal(vmt_vmmap_vm_tids(m, 0, &tids, &n), 0);
		assert_int_equal(n, 4);
		assert_int_equal(tids[2], 1001);
		assert_int_equal(tids[3], 1002);
		assert_int_equal(vmt_vmmap_vm_tids(m, 2, &tids, &n), -ENOENT);
		assert_int_equal(n, 4);
		free(tids);
	}
	vmt_vmmap_free(m);
	vmt_kv_free(&kb);
	vmt_vmfind_free(&f);

	/* no vm.* keys at all */
	vmt_kv_init(&kb);
	vmt_kv_add_str(&kb, "clock", "mono");
	assert_int_equal(vmt_vmmap_from_meta(kb.buf, kb.len, &m, fk->err, sizeof(fk->err)),
			 -ENOENT);
	assert_null(m);
	vmt_kv_free(&kb);
}

/* Metadata a hostile file could hold: each must be refused, none may crash. */
static void test_meta_hostile(void **state)
{
	static const struct {
		const char *count, *name, *pid, *vcpus;
		int expect;
	} cases[] = {
		{ "1", "a", "10", "11:0,12:1", 0 },
		{ "1", "a", "10", "", 0 },
		{ "1", "a", "10", "11:0,", -EBADMSG },
		{ "1", "a", "10", "11:0,,12:1", -EBADMSG },
		{ "1", "a", "10", "11", -EBADMSG },
		{ "1", "a", "10", "11:", -EBADMSG },
		{ "1", "a", "10", ":1", -EBADMSG },
		{ "1", "a", "10", "0:1", -EBADMSG },
		{ "1", "a", "10", "11:0,11:1", -EBADMSG },
		{ "1", "a", "10", "99999999999:0", -EBADMSG },
		{ "1", "a", "10", "11:99999999999", -EBADMSG },
		{ "1", "a", "10", "11:-1", -EBADMSG },
		{ "1", "a", "10", " 11:0", -EBADMSG },
		{ "1", "a", "0", "11:0", -EBADMSG },
		{ "1", "a", "x", "11:0", -EBADMSG },
		{ "1", "a", NULL, "11:0", -EBADMSG },
		{ "1", "", "10", "11:0", -EBADMSG },
		{ "1", "a\nb", "10", "11:0", -EBADMSG },
		{ "1", "a\xc2\x9b" "b", "10", "11:0", -EBADMSG },
		{ "1", "caf\xe9", "10", "11:0", 0 },
		{ "1", NULL, "10", "11:0", -EBADMSG },
		{ "1", "a", "10", NULL, -EBADMSG },
		{ "2", "a", "10", "11:0", -EBADMSG },
		{ "4294967296", "a", "10", "11:0", -EBADMSG },
		{ "-1", "a", "10", "11:0", -EBADMSG },
		{ "0", NULL, NULL, NULL, 0 },
	};
	struct fake *fk = *state;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vmt_vmmap *m = NULL;
		struct vmt_kvbuf kb;

		vmt_kv_init(&kb);
		vmt_kv_add_str(&kb, "vm.count", cases[i].count);
		if (cases[i].name)
			vmt_kv_add_str(&kb, "vm.0.name", cases[i].name);
		if (cases[i].pid)
			vmt_kv_add_str(&kb, "vm.0.pid", cases[i].pid);
		if (cases[i].vcpus)
			vmt_kv_add_str(&kb, "vm.0.vcpus", cases[i].vcpus);
		assert_int_equal(kb.error, 0);
		fk->err[0] = '\0';
		assert_int_equal(vmt_vmmap_from_meta(kb.buf, kb.len, &m, fk->err, sizeof(fk->err)),
				 cases[i].expect);
		if (cases[i].expect)
			assert_non_null(strstr(fk->err, "metadata"));
		vmt_vmmap_free(m);
		/* and cut anywhere: the kv checks refuse it before we read it */
		if (kb.len > 3) {
			assert_int_equal(vmt_vmmap_from_meta(kb.buf, kb.len - 3, &m, fk->err,
							     sizeof(fk->err)), -EBADMSG);
		}
		vmt_kv_free(&kb);
	}
}

static void test_hostile_proc(void **state)
{
	static const char *const bad_comm[] = {
		"CPU 1/KVMx", "CPU /KVM", "CPU -1/KVM", "CPU 99999999999/KVM", "cpu 1/KVM",
		"CPU 1/TCG", "CPU 1 /KVM", "CPU 1/KVM\nCPU 2/KVM",
	};
	struct fthread t[] = { { 8001, "CPU 3/KVM", "3", NULL, 0, 0, NULL } };
	struct fake *fk = *state;
	struct vmt_vmfind f;
	char big[600], rel[64], *cmd;
	size_t len;
	unsigned int i;

	/* names that only look like a vCPU thread's */
	for (i = 0; i < sizeof(bad_comm) / sizeof(bad_comm[0]); i++) {
		struct fthread b = { 8100 + (int)i * 10 + 1, bad_comm[i], "0", "running", 0, 0, NULL };

		fake_proc(fk, 8100 + (int)i * 10, ARGS("x"), &b, 1);
		snprintf(rel, sizeof(rel), "%d", 8100 + (int)i * 10);
		assert_int_equal(vmt_vmfind_resolve(&fk->env, rel, &f, fk->err, sizeof(fk->err)),
				 -ENODEV);
	}
	/* an overlong comm starting like one */
	memset(big, 'x', sizeof(big));
	memcpy(big, "CPU 1/KVM", 9);
	big[sizeof(big) - 1] = '\0';
	t[0].comm = big;
	fake_proc(fk, 8200, ARGS("x"), t, 1);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "8200", &f, fk->err, sizeof(fk->err)),
			 -ENODEV);

	/* garbage in the allowed list, or none */
	t[0].comm = "CPU 3/KVM";
	t[0].tid = 8301;
	t[0].allowed = "zz";
	fake_proc(fk, 8300, ARGS("x"), t, 1);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "8300", &f, fk->err, sizeof(fk->err)),
			 -EBADMSG);
	assert_non_null(strstr(fk->err, "8301/status: bad Cpus_allowed_list"));
	put_filef(fk->proc, "8300/task/8301/status", "Cpus_allowed:\t3\nName:\tx");
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "8300", &f, fk->err, sizeof(fk->err)),
			 -EBADMSG);
	assert_non_null(strstr(fk->err, "no Cpus_allowed_list"));
	put_filef(fk->proc, "8300/task/8301/status", "Cpus_allowed_list:\t3-1\n");
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "8300", &f, fk->err, sizeof(fk->err)),
			 -EBADMSG);
	/* a status larger than any real one */
	cmd = malloc(200000);
	assert_non_null(cmd);
	memset(cmd, 'a', 200000);
	put_file(fk->proc, "8300/task/8301/status", cmd, 200000);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "8300", &f, fk->err, sizeof(fk->err)),
			 -EFBIG);
	/* the thread's status is gone: the thread ended, and with it the last vCPU */
	snprintf(big, sizeof(big), "%s/8300/task/8301/status", fk->proc);
	assert_int_equal(unlink(big), 0);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "8300", &f, fk->err, sizeof(fk->err)),
			 -ENODEV);
	assert_non_null(strstr(fk->err, "ended"));

	/* a 1.5 MiB command line: -name early is found, -name past 1 MiB is not */
	len = 1536 * 1024;
	memset(cmd, 0, 200000);
	free(cmd);
	cmd = calloc(1, len);
	assert_non_null(cmd);
	memcpy(cmd, "qemu\0-name\0early\0", 17);
	memset(cmd + 17, 'z', len - 17 - 1);
	t[0].tid = 8401;
	t[0].allowed = "1";
	fake_proc(fk, 8400, cmd, len, t, 1);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "early", &f, fk->err, sizeof(fk->err)), 0);
	vmt_vmfind_free(&f);
	memset(cmd, 'z', len);
	memcpy(cmd + len - 12, "\0-name\0late", 12);
	t[0].tid = 8501;
	fake_proc(fk, 8500, cmd, len, t, 1);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "late", &f, fk->err, sizeof(fk->err)),
			 -ENOENT);
	/* cut in the middle of the value at exactly 1 MiB: "latest" must not pass for "lat" */
	memset(cmd, 'z', len);
	memcpy(cmd + 1024 * 1024 - 10, "\0-name\0latest", 14);
	t[0].tid = 8601;
	fake_proc(fk, 8600, cmd, len, t, 1);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "lat", &f, fk->err, sizeof(fk->err)),
			 -ENOENT);
	free(cmd);
	/* an empty command line (a kernel thread) */
	t[0].tid = 8701;
	fake_proc(fk, 8700, "", 0, t, 1);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "8700", &f, fk->err, sizeof(fk->err)), 0);
	assert_string_equal(f.vm[0].name, "8700");
	vmt_vmfind_free(&f);

	/* a process without a task folder, and a VM name too long to be one */
	put_filef(fk->proc, "8800/cmdline", "x");
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "8800", &f, fk->err, sizeof(fk->err)),
			 -ENOENT);
	memset(big, 'n', sizeof(big));
	big[300] = '\0';
	assert_int_equal(vmt_vmfind_resolve(&fk->env, big, &f, fk->err, sizeof(fk->err)), -EINVAL);
	assert_non_null(strstr(fk->err, "is longer than 255 bytes"));
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "a\tb", &f, fk->err, sizeof(fk->err)),
			 -EINVAL);
}

static void test_hostile_syscall(void **state)
{
	static const char *const bad[] = {
		"16 0xZZ 0xae80", "16", "16 0xc", "16 0xc 0xae81", "16 0xc 0xae80x",
		"-1 0x7ffd 0x7f00", "", "running", "016x 0xc 0xae80",
		"16 0xffffffffffffffffffff 0xae80",
	};
	char text[700];
	struct fthread t = { 9001, "qemu", "0", text, 0, 0, NULL };
	struct fake *fk = *state;
	struct vmt_vmfind f;
	unsigned int i;

	snprintf(text, sizeof(text), "running");
	fake_proc(fk, 9000, ARGS("x"), &t, 1);
	fake_fd(fk, 9000, 12, "anon_inode:kvm-vcpu:0");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!strncmp(bad[i], "16", 2) && SYS_ioctl != 16)
			continue;	/* these spell x86-64's number */
		put_filef(fk->proc, "9000/task/9001/syscall", "%s\n", bad[i]);
		assert_int_equal(vmt_vmfind_resolve(&fk->env, "9000", &f, fk->err,
						    sizeof(fk->err)), -ENODEV);
		assert_non_null(strstr(fk->err, "no thread seen in KVM_RUN"));
	}
	/* a syscall file longer than we read (700 bytes, we read 255): parsed from its start */
	snprintf(text, sizeof(text), "%d 0xc 0xae80", (int)SYS_ioctl);
	memset(text + strlen(text), ' ', sizeof(text) - strlen(text) - 1);
	text[sizeof(text) - 1] = '\0';
	put_filef(fk->proc, "9000/task/9001/syscall", "%s\n", text);
	assert_int_equal(vmt_vmfind_resolve(&fk->env, "9000", &f, fk->err, sizeof(fk->err)), 0);
	assert_int_equal(f.vm[0].vcpu[0].tid, 9001);
	assert_int_equal(f.vm[0].vcpu[0].vcpu, 0);
	vmt_vmfind_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pidfile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmdline_forms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_says_where, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ambiguous, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_pidfile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_by_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_several, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kvm_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guest_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_meta_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_meta_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_proc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_syscall, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
