// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmfind: see vmfind.h. Every file is read under env->proc_root and env->libvirt_dir, so
 * tests can point it at a fake tree; every read is bounded and its bytes checked before use.
 * Threads and processes come and go while we look: one that vanishes (ENOENT, ESRCH) is
 * skipped, not an error.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/kvm.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "io.h"
#include "timefmt.h"
#include "vmfind.h"

/* Bounds on what we read: comm is 16 bytes in the kernel, syscall about 150. */
#define SMALL_MAX 256
#define STATUS_MAX (64 * 1024)
/* QEMU's -name comes early, but a hand-made command line may be long: read up to 1 MiB. */
#define CMDLINE_MAX (1024 * 1024)
#define NAME_MAX_LEN 255
/* KVM_MAX_VCPU_IDS is 4096 * 4 on x86 today: anything far above is garbage. */
#define VCPU_MAX (1u << 24)
#define MAX_MATCHES 16
#define META_MAX_VMS 4096

struct tidlist {
	pid_t *tid;
	unsigned int n, cap;
};

struct vcpufd {
	long fd;
	unsigned int id;
	pid_t tid;		/* 0 until a thread is seen in KVM_RUN on it */
};

static const char *proc_root(const struct vmt_vmfind_env *env)
{
	return env && env->proc_root ? env->proc_root : VMT_VMFIND_PROC_ROOT;
}

static const char *libvirt_dir(const struct vmt_vmfind_env *env)
{
	return env && env->libvirt_dir ? env->libvirt_dir : VMT_VMFIND_LIBVIRT_DIR;
}

static int errf(char *err, size_t size, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int errf(char *err, size_t size, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && size) {
		va_start(ap, fmt);
		vsnprintf(err, size, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static int mkpath(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int mkpath(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* At most size - 1 bytes of a file, NUL-terminated. Returns the length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = vmt_io_read_full(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	return n;
}

static int is_digits(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
	}
	return 1;
}

/* A decimal pid of len bytes, 1..INT32_MAX. */
static int parse_pid(const char *s, size_t len, pid_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!is_digits(s, len) || len > 10)
		return -EINVAL;
	for (i = 0; i < len; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	if (v == 0 || v > INT32_MAX)
		return -EINVAL;
	*out = (pid_t)v;
	return 0;
}

static int proc_exists(const struct vmt_vmfind_env *env, pid_t pid)
{
	char path[PATH_MAX];
	struct stat st;

	if (mkpath(path, sizeof(path), "%s/%d", proc_root(env), (int)pid))
		return 0;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The value of "Key:" in a /proc status text, trimmed and NUL-terminated in place, or NULL.
 * Only whole lines match, so "Cpus_allowed:" never matches "Cpus_allowed_list:".
 */
static char *status_field(char *text, const char *key)
{
	size_t klen = strlen(key);
	char *line = text;

	while (*line) {
		char *eol = strchr(line, '\n');

		if (!strncmp(line, key, klen) && line[klen] == ':') {
			char *v = line + klen + 1, *end;

			if (eol)
				*eol = '\0';
			while (*v == ' ' || *v == '\t')
				v++;
			end = v + strlen(v);
			while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
				*--end = '\0';
			return v;
		}
		if (!eol)
			break;
		line = eol + 1;
	}
	return NULL;
}

static int tidlist_add(struct tidlist *l, pid_t tid)
{
	if (l->n == l->cap) {
		unsigned int cap = l->cap ? l->cap * 2 : 64;
		pid_t *bigger;

		bigger = realloc(l->tid, cap * sizeof(*bigger));
		if (!bigger)
			return -ENOMEM;
		l->tid = bigger;
		l->cap = cap;
	}
	l->tid[l->n++] = tid;
	return 0;
}

static int list_tasks(const struct vmt_vmfind_env *env, pid_t pid, struct tidlist *out)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	if (mkpath(path, sizeof(path), "%s/%d/task", proc_root(env), (int)pid))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t tid;

		if (parse_pid(de->d_name, strlen(de->d_name), &tid))
			continue;
		ret = tidlist_add(out, tid);
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

/* "CPU <n>/KVM", exactly: QEMU's name for a KVM vCPU thread (qemu_thread_create()). */
static int parse_vcpu_comm(const char *s, unsigned int *vcpu)
{
	const char *p = s + 4;
	unsigned long v = 0;

	if (strncmp(s, "CPU ", 4) || *p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v >= VCPU_MAX)
			return -EINVAL;
	}
	if (strcmp(p, "/KVM"))
		return -EINVAL;
	*vcpu = (unsigned int)v;
	return 0;
}

/* The thread's name without its newline, cut to the kernel's 15 bytes. */
static int read_comm(const struct vmt_vmfind_env *env, pid_t pid, pid_t tid, char *comm,
		     size_t size, char *full, size_t full_size)
{
	char path[PATH_MAX];
	ssize_t n;

	if (mkpath(path, sizeof(path), "%s/%d/task/%d/comm", proc_root(env), (int)pid, (int)tid))
		return -ENAMETOOLONG;
	n = read_small(path, full, full_size);
	if (n < 0)
		return (int)n;
	if (n > 0 && full[n - 1] == '\n')
		full[n - 1] = '\0';
	snprintf(comm, size, "%s", full);
	return 0;
}

static int read_allowed(const struct vmt_vmfind_env *env, pid_t pid, pid_t tid,
			struct vmt_cpulist *out, char *err, size_t err_size)
{
	char path[PATH_MAX], *text, *v;
	int ret;

	if (mkpath(path, sizeof(path), "%s/%d/task/%d/status", proc_root(env), (int)pid, (int)tid))
		return errf(err, err_size, -ENAMETOOLONG, "%s/%d: path too long", proc_root(env),
			    (int)pid);
	ret = vmt_io_read_file(path, STATUS_MAX, &text, NULL);
	if (ret == -ENOENT || ret == -ESRCH)
		return ret;	/* the thread is gone */
	if (ret)
		return errf(err, err_size, ret, "%s: %s", path, strerror(-ret));
	v = status_field(text, "Cpus_allowed_list");
	if (!v) {
		ret = errf(err, err_size, -EBADMSG, "%s: no Cpus_allowed_list", path);
		goto out_free;
	}
	ret = vmt_cli_parse_cpulist(v, out);
	if (ret == -ENOMEM)
		errf(err, err_size, ret, "out of memory");
	else if (ret)
		ret = errf(err, err_size, -EBADMSG, "%s: bad Cpus_allowed_list", path);
out_free:
	free(text);
	return ret;
}

/* The thread group leader of pid (a tid given by mistake names its process), else pid. */
static pid_t thread_group(const struct vmt_vmfind_env *env, pid_t pid)
{
	char path[PATH_MAX], *text, *v;
	pid_t tgid = pid;

	if (mkpath(path, sizeof(path), "%s/%d/status", proc_root(env), (int)pid))
		return pid;
	if (vmt_io_read_file(path, STATUS_MAX, &text, NULL))
		return pid;
	v = status_field(text, "Tgid");
	if (!v || parse_pid(v, strlen(v), &tgid))
		tgid = pid;
	free(text);
	return tgid;
}

static int add_thread(struct vmt_vm *vm, unsigned int *cap, pid_t tid, unsigned int vcpu,
		      const char *comm)
{
	struct vmt_vcpu_thread *t;

	if (vm->n_vcpu == *cap) {
		unsigned int c = *cap ? *cap * 2 : 16;
		struct vmt_vcpu_thread *bigger = realloc(vm->vcpu, c * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		vm->vcpu = bigger;
		*cap = c;
	}
	t = &vm->vcpu[vm->n_vcpu++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->vcpu = vcpu;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	return 0;
}

static int find_named(const struct vmt_vmfind_env *env, pid_t pid, const struct tidlist *tasks,
		      struct vmt_vm *vm, unsigned int *cap)
{
	char comm[16], full[SMALL_MAX];
	unsigned int i, vcpu;
	int ret;

	for (i = 0; i < tasks->n; i++) {
		ret = read_comm(env, pid, tasks->tid[i], comm, sizeof(comm), full, sizeof(full));
		if (ret)
			continue;	/* gone, or unreadable: not a vCPU we can name */
		if (parse_vcpu_comm(full, &vcpu))
			continue;
		ret = add_thread(vm, cap, tasks->tid[i], vcpu, comm);
		if (ret)
			return ret;
	}
	return 0;
}

/* "anon_inode:kvm-vcpu:<id>", what KVM names a vCPU's file (its create_vcpu_fd()). */
static int parse_vcpu_link(const char *s, unsigned int *id)
{
	static const char prefix[] = "anon_inode:kvm-vcpu:";
	const char *p = s + sizeof(prefix) - 1;
	unsigned long v = 0;

	if (strncmp(s, prefix, sizeof(prefix) - 1) || !*p)
		return -EINVAL;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(*p - '0');
		if (v >= VCPU_MAX)
			return -EINVAL;
	}
	*id = (unsigned int)v;
	return 0;
}

static int list_vcpu_fds(const struct vmt_vmfind_env *env, pid_t pid, struct vcpufd **out,
			 unsigned int *n_out, char *err, size_t err_size)
{
	struct vcpufd *fds = NULL;
	unsigned int n = 0, cap = 0;
	char path[PATH_MAX], link[SMALL_MAX];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	if (mkpath(path, sizeof(path), "%s/%d/fd", proc_root(env), (int)pid))
		return errf(err, err_size, -ENAMETOOLONG, "%s/%d: path too long", proc_root(env),
			    (int)pid);
	d = opendir(path);
	if (!d) {
		ret = -errno;
		return errf(err, err_size, ret, "%s: %s", path, strerror(-ret));
	}
	while ((de = readdir(d))) {
		size_t nlen = strlen(de->d_name);
		unsigned int id;
		ssize_t len;

		if (!is_digits(de->d_name, nlen) || nlen > 9)
			continue;
		len = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);
		if (len < 0)
			continue;	/* closed meanwhile */
		link[len] = '\0';
		if (parse_vcpu_link(link, &id))
			continue;
		if (n == cap) {
			struct vcpufd *bigger;

			cap = cap ? cap * 2 : 16;
			bigger = realloc(fds, cap * sizeof(*bigger));
			if (!bigger) {
				ret = errf(err, err_size, -ENOMEM, "out of memory");
				goto out_close;
			}
			fds = bigger;
		}
		fds[n].fd = strtol(de->d_name, NULL, 10);
		fds[n].id = id;
		fds[n].tid = 0;
		n++;
	}
	*out = fds;
	*n_out = n;
	fds = NULL;
out_close:
	closedir(d);
	free(fds);
	return ret;
}

static int parse_hex(const char **p, unsigned long long *v)
{
	char *end;

	if (strncmp(*p, " 0x", 3))
		return -EINVAL;
	errno = 0;
	*v = strtoull(*p + 3, &end, 16);
	if (errno || end == *p + 3 || (*end && *end != ' ' && *end != '\n'))
		return -EINVAL;
	*p = end;
	return 0;
}

/*
 * /proc/PID/task/TID/syscall of a thread asleep in a system call: "<nr> 0x<arg1> 0x<arg2>
 * ..." (proc_pid_syscall()); "running" while it is on a CPU or runnable. Sets *fd when the
 * thread sits in ioctl(fd, KVM_RUN). The number is the host's own ioctl (16 on x86-64): a
 * 32-bit VMM on a 64-bit kernel reports its compat number and is not recognised.
 */
static int in_kvm_run(const char *text, long *fd)
{
	unsigned long long a1, a2;
	const char *p = text;
	char *end;
	long nr;

	errno = 0;
	nr = strtol(p, &end, 10);
	if (errno || end == p || nr != SYS_ioctl)
		return 0;
	p = end;
	if (parse_hex(&p, &a1) || parse_hex(&p, &a2))
		return 0;
	if (a2 != KVM_RUN || a1 > INT_MAX)
		return 0;
	*fd = (long)a1;
	return 1;
}

/*
 * Kernel workers that live in the VMM's thread group (PF_USER_WORKER: KVM's
 * "kvm-nx-lpage-recovery", vhost) were cloned from a user thread, and their syscall file
 * shows that thread's registers as they were: KVM's worker, started from the first
 * KVM_RUN, shows "ioctl(vcpu fd, KVM_RUN)" for ever. The flags field of their stat says
 * what they are. A stat we cannot read or parse counts as an ordinary thread.
 */
#define PF_USER_WORKER 0x00004000u
#define PF_KTHREAD 0x00200000u
#define STAT_FLAGS 9		/* fields of /proc/PID/task/TID/stat (proc(5)), from 1 */
#define STAT_GUEST_TIME 43

/*
 * Field `field` (>= 3) of a stat text as a number: "tid (comm) state ppid ... flags ...
 * guest_time ...", where comm may hold ") ". -EINVAL when absent or not a number.
 */
static int stat_field(const char *text, int field, unsigned long long *v)
{
	const char *p = strrchr(text, ')');
	char *end;
	int f;

	if (!p)
		return -EINVAL;
	p++;
	for (f = 3; ; f++) {
		while (*p == ' ')
			p++;
		if (f == field || !*p)
			break;
		while (*p && *p != ' ')
			p++;
	}
	errno = 0;
	*v = strtoull(p, &end, 10);
	if (!*p || errno || end == p || (*end != ' ' && *end != '\n' && *end))
		return -EINVAL;
	return 0;
}

static int read_stat(const struct vmt_vmfind_env *env, pid_t pid, pid_t tid, char *text,
		     size_t size)
{
	char path[PATH_MAX];

	if (mkpath(path, sizeof(path), "%s/%d/task/%d/stat", proc_root(env), (int)pid, (int)tid))
		return -ENAMETOOLONG;
	return read_small(path, text, size) < 0 ? -ENOENT : 0;
}

static int is_kernel_worker(const struct vmt_vmfind_env *env, pid_t pid, pid_t tid)
{
	unsigned long long flags;
	char text[1024];

	if (read_stat(env, pid, tid, text, sizeof(text)) ||
	    stat_field(text, STAT_FLAGS, &flags))
		return 0;
	return (flags & (PF_USER_WORKER | PF_KTHREAD)) != 0;
}

/*
 * Has the thread run guest code? Its guest_time (clock ticks spent in the guest, only ever
 * counted for a thread inside KVM_RUN) is above zero; or, where the kernel counts no guest
 * time (a tick that finds the guest running is system time on some nested or software
 * virtualized hosts, e.g. kvm_pvm), its kernel stack, readable by root only, shows it
 * switched out inside an ioctl on a kvm-vcpu fd (kvm_vcpu_ioctl is that fd's ioctl
 * handler, a function pointer: never inlined away). A busy vCPU thread is always running,
 * so its syscall file says "running" and never shows the fd.
 */
static int ran_guest(const struct vmt_vmfind_env *env, pid_t pid, pid_t tid)
{
	char path[PATH_MAX], text[4096];
	unsigned long long ticks;

	if (!read_stat(env, pid, tid, text, sizeof(text)) &&
	    !stat_field(text, STAT_GUEST_TIME, &ticks) && ticks > 0)
		return 1;
	if (mkpath(path, sizeof(path), "%s/%d/task/%d/stack", proc_root(env), (int)pid, (int)tid))
		return 0;
	if (read_small(path, text, sizeof(text)) < 0)
		return 0;
	return strstr(text, "] kvm_vcpu_ioctl+") != NULL;
}

static void sleep_us(unsigned int us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int cmp_pid(const void *a, const void *b);

static int cmp_vcpufd_id(const void *a, const void *b)
{
	const struct vcpufd *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/*
 * Threads that ran guest code but were never seen in KVM_RUN (busy vCPUs) have no fd to
 * tell their vCPU: they take the ids of the fds left over, both in ascending order. VMMs
 * create their vCPUs in order: QEMU starts each vCPU thread and waits until it has made its
 * vCPU before the next (qemu_init_vcpu()), others make the fds first and then the threads
 * one by one. Only when that order decides every id: as many such threads as fds left over
 * (a parked vCPU's fd without a thread, or a thread that stayed in user space, would leave
 * one id to guess), and the threads seen in KVM_RUN in the same order as their ids. Else
 * none is numbered. Sets *paired to how many were given an id; returns 0 or -ENOMEM.
 */
static int pair_by_order(struct vcpufd *fds, unsigned int n_fds, const struct tidlist *tasks,
			 const unsigned char *state, unsigned int *paired)
{
	unsigned int left = 0, n = 0, i, j;
	pid_t *tid, prev_tid = 0;

	*paired = 0;
	for (j = 0; j < n_fds; j++)
		left += !fds[j].tid;
	for (i = 0; i < tasks->n; i++)
		n += state[i] == 2;
	if (n == 0 || n != left)
		return 0;
	tid = malloc(n * sizeof(*tid));
	if (!tid)
		return -ENOMEM;
	for (i = 0, n = 0; i < tasks->n; i++) {
		if (state[i] == 2)
			tid[n++] = tasks->tid[i];
	}
	qsort(tid, n, sizeof(*tid), cmp_pid);
	qsort(fds, n_fds, sizeof(*fds), cmp_vcpufd_id);
	for (i = 0, j = 0; i < n; i++) {
		while (fds[j].tid)
			j++;
		fds[j].tid = tid[i];
	}
	/* the order must hold for the threads whose ids are known too, else it is not QEMU's */
	for (j = 0; j < n_fds && prev_tid >= 0; j++) {
		prev_tid = fds[j].tid > prev_tid ? fds[j].tid : -1;
	}
	if (prev_tid < 0) {
		for (i = 0, j = 0; j < n_fds; j++) {
			if (i < n && fds[j].tid == tid[i]) {
				fds[j].tid = 0;
				i++;
			}
		}
		n = 0;
	}
	free(tid);
	*paired = n;
	return 0;
}

static int find_in_kvm_run(const struct vmt_vmfind_env *env, pid_t pid,
			   const struct tidlist *tasks, struct vmt_vm *vm, unsigned int *cap,
			   char *err, size_t err_size)
{
	unsigned int tries = env && env->kvm_run_tries ? env->kvm_run_tries :
			     VMT_VMFIND_KVM_RUN_TRIES;
	unsigned int wait_us = env && env->kvm_run_wait_us ? env->kvm_run_wait_us :
			       VMT_VMFIND_KVM_RUN_WAIT_US;
	unsigned int n_fds = 0, found = 0, by_order, try, i, j;
	char path[PATH_MAX], text[SMALL_MAX];
	char comm[16], full[SMALL_MAX];
	struct vcpufd *fds = NULL;
	unsigned char *state = NULL;
	int ret;

	ret = list_vcpu_fds(env, pid, &fds, &n_fds, err, err_size);
	if (ret)
		return ret;
	vm->n_vcpu_fds = n_fds;
	if (n_fds == 0) {
		ret = errf(err, err_size, -ENODEV, "pid %d is not a VMM (no vCPU threads)",
			   (int)pid);
		goto out_free;
	}
	state = calloc(tasks->n ? tasks->n : 1, 1);
	if (!state) {
		ret = errf(err, err_size, -ENOMEM, "out of memory");
		goto out_free;
	}
	/*
	 * state: 0 not known to be a vCPU thread; 1 skipped, a kernel worker or a thread once
	 * matched (the metadata maps tid -> one vCPU); 2 ran guest code, no fd seen yet.
	 */
	for (i = 0; i < tasks->n; i++)
		state[i] = (unsigned char)is_kernel_worker(env, pid, tasks->tid[i]);
	/*
	 * A thread shows its fd only while asleep in KVM_RUN (a halted vCPU): sample a few
	 * times. Every sample, even when all vCPU threads are known to have run guest code:
	 * one caught asleep gets its vCPU from its fd rather than by order.
	 */
	for (try = 0; try < tries && found < n_fds; try++) {
		if (try)
			sleep_us(wait_us);
		for (i = 0; i < tasks->n; i++) {
			long fd;

			if (state[i] == 1)
				continue;

			if (mkpath(path, sizeof(path), "%s/%d/task/%d/syscall", proc_root(env),
				   (int)pid, (int)tasks->tid[i]))
				continue;
			if (read_small(path, text, sizeof(text)) >= 0 && in_kvm_run(text, &fd)) {
				for (j = 0; j < n_fds; j++) {
					if (fds[j].fd != fd || fds[j].tid)
						continue;
					fds[j].tid = tasks->tid[i];
					state[i] = 1;
					found++;
					break;
				}
			}
			if (state[i] == 0 && ran_guest(env, pid, tasks->tid[i]))
				state[i] = 2;
		}
	}
	ret = pair_by_order(fds, n_fds, tasks, state, &by_order);
	if (ret) {
		ret = errf(err, err_size, ret, "out of memory");
		goto out_free;
	}
	if (found + by_order == 0) {
		ret = errf(err, err_size, -ENODEV,
			   "pid %d: no thread seen in KVM_RUN on its %u kvm-vcpu fds in %u samples "
			   "nor with guest time (no thread is named CPU n/KVM; QEMU names them with "
			   "-name ...,debug-threads=on)", (int)pid, n_fds, tries);
		goto out_free;
	}
	vm->method = by_order ? VMT_VMFIND_GUEST_TIME : VMT_VMFIND_KVM_RUN;
	vm->n_by_order = by_order;
	for (j = 0; j < n_fds; j++) {
		if (!fds[j].tid)
			continue;
		if (read_comm(env, pid, fds[j].tid, comm, sizeof(comm), full, sizeof(full)))
			comm[0] = '\0';
		ret = add_thread(vm, cap, fds[j].tid, fds[j].id, comm);
		if (ret) {
			ret = errf(err, err_size, ret, "out of memory");
			goto out_free;
		}
	}
out_free:
	free(state);
	free(fds);
	return ret;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct vmt_vcpu_thread *x = a, *y = b;

	if (x->vcpu != y->vcpu)
		return x->vcpu < y->vcpu ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The sorted, duplicate-free union of n lists. */
static int cpulist_union(const struct vmt_cpulist *const *lists, unsigned int n,
			 struct vmt_cpulist *out)
{
	unsigned int total = 0, i, j, k = 0;
	unsigned int *cpu;

	for (i = 0; i < n; i++)
		total += lists[i]->n;
	cpu = malloc((total ? total : 1) * sizeof(*cpu));
	if (!cpu)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		for (j = 0; j < lists[i]->n; j++)
			cpu[k++] = lists[i]->cpu[j];
	}
	qsort(cpu, total, sizeof(*cpu), cmp_uint);
	for (i = 0, k = 0; i < total; i++) {
		if (k == 0 || cpu[k - 1] != cpu[i])
			cpu[k++] = cpu[i];
	}
	out->n = k;
	out->cpu = cpu;
	return 0;
}

static int vm_union(struct vmt_vm *vm)
{
	const struct vmt_cpulist **lists;
	unsigned int i;
	int ret;

	lists = malloc((vm->n_vcpu ? vm->n_vcpu : 1) * sizeof(*lists));
	if (!lists)
		return -ENOMEM;
	for (i = 0; i < vm->n_vcpu; i++)
		lists[i] = &vm->vcpu[i].allowed;
	ret = cpulist_union(lists, vm->n_vcpu, &vm->cpus);
	free(lists);
	return ret;
}

void vmt_vmfind_vm_clear(struct vmt_vm *vm)
{
	unsigned int i;

	for (i = 0; i < vm->n_vcpu; i++)
		vmt_cpulist_free(&vm->vcpu[i].allowed);
	free(vm->vcpu);
	vm->vcpu = NULL;
	vm->n_vcpu = 0;
	vm->n_vcpu_fds = 0;
	vm->n_by_order = 0;
	vmt_cpulist_free(&vm->cpus);
}

int vmt_vmfind_vcpus(const struct vmt_vmfind_env *env, pid_t pid, struct vmt_vm *vm,
		     char *err, size_t err_size)
{
	struct tidlist tasks = { 0 };
	unsigned int cap = 0, i, kept;
	int ret;

	vm->vcpu = NULL;
	vm->n_vcpu = 0;
	vm->n_vcpu_fds = 0;
	vm->n_by_order = 0;
	vm->cpus.n = 0;
	vm->cpus.cpu = NULL;
	ret = list_tasks(env, pid, &tasks);
	if (ret == -ENOENT || ret == -ESRCH)
		return errf(err, err_size, -ENOENT, "no process with pid %d in %s", (int)pid,
			    proc_root(env));
	if (ret == -ENOMEM)
		return errf(err, err_size, ret, "out of memory");
	if (ret)
		return errf(err, err_size, ret, "%s/%d/task: %s", proc_root(env), (int)pid,
			    strerror(-ret));

	vm->method = VMT_VMFIND_THREAD_NAMES;
	ret = find_named(env, pid, &tasks, vm, &cap);
	if (ret) {
		errf(err, err_size, ret, "out of memory");
		goto out_clear;
	}
	if (vm->n_vcpu == 0) {
		vm->method = VMT_VMFIND_KVM_RUN;
		ret = find_in_kvm_run(env, pid, &tasks, vm, &cap, err, err_size);
		if (ret)
			goto out_clear;
	}

	/* Allowed CPUs; a thread that ended meanwhile is dropped. */
	for (i = 0, kept = 0; i < vm->n_vcpu; i++) {
		struct vmt_vcpu_thread t = vm->vcpu[i];

		ret = read_allowed(env, pid, t.tid, &t.allowed, err, err_size);
		if (ret == -ENOENT || ret == -ESRCH)
			continue;
		if (ret) {
			vm->n_vcpu = kept;	/* only those with a list to free */
			goto out_clear;
		}
		vm->vcpu[kept++] = t;
	}
	vm->n_vcpu = kept;
	if (kept == 0) {
		ret = errf(err, err_size, -ENODEV, "pid %d: its vCPU threads ended", (int)pid);
		goto out_clear;
	}
	qsort(vm->vcpu, vm->n_vcpu, sizeof(*vm->vcpu), cmp_thread);
	ret = vm_union(vm);
	if (ret) {
		errf(err, err_size, ret, "out of memory");
		goto out_clear;
	}
	free(tasks.tid);
	return 0;

out_clear:
	vmt_vmfind_vm_clear(vm);
	free(tasks.tid);
	return ret;
}

/* Has the process a thread named CPU n/KVM or a kvm-vcpu fd? (1, 0, or -errno) */
static int is_vmm(const struct vmt_vmfind_env *env, pid_t pid)
{
	struct tidlist tasks = { 0 };
	struct vmt_vm vm = { 0 };
	struct vcpufd *fds = NULL;
	unsigned int cap = 0, n_fds = 0;
	char err[8];
	int ret;

	ret = list_tasks(env, pid, &tasks);
	if (ret)
		goto out;
	ret = find_named(env, pid, &tasks, &vm, &cap);
	if (ret)
		goto out;
	if (vm.n_vcpu) {
		ret = 1;
		goto out;
	}
	ret = list_vcpu_fds(env, pid, &fds, &n_fds, err, sizeof(err));
	if (ret)
		goto out;
	ret = n_fds > 0;
out:
	free(fds);
	free(vm.vcpu);
	free(tasks.tid);
	return ret;
}

/*
 * The guest name of a QEMU -name argument: "NAME[,opt=...]" or "guest=NAME,..." where ","
 * inside a value is written ",," (QEMU's option syntax). Returns 0 with the name in out, or
 * -ENOENT (no guest name) / -ENAMETOOLONG.
 */
static int qemu_guest_name(const char *arg, char *out, size_t size)
{
	const char *p = arg;
	unsigned int idx = 0;
	int found = -ENOENT;

	while (*p) {
		char val[NAME_MAX_LEN + 1], key[16];
		size_t klen = 0, vlen = 0;
		int has_key = 0, over = 0;
		const char *q;

		/* key: up to '=' or ',' (keys never contain ",,") */
		for (q = p; *q && *q != '=' && *q != ','; q++)
			;
		if (*q == '=') {
			has_key = 1;
			klen = (size_t)(q - p);
			if (klen < sizeof(key)) {
				memcpy(key, p, klen);
				key[klen] = '\0';
			} else {
				key[0] = '\0';
			}
			p = q + 1;
		}
		for (; *p; p++) {
			if (*p == ',') {
				if (p[1] != ',')
					break;
				p++;
			}
			if (vlen < NAME_MAX_LEN)
				val[vlen++] = *p;
			else
				over = 1;
		}
		val[vlen] = '\0';
		if ((has_key && !strcmp(key, "guest")) || (!has_key && idx == 0)) {
			if (over || vlen >= size)
				found = -ENAMETOOLONG;
			else {
				memcpy(out, val, vlen + 1);
				found = 0;
			}
		}
		if (*p == ',')
			p++;
		idx++;
	}
	return found;
}

/*
 * The guest name of a command line's last -name (QEMU keeps the last one). buf[len] is NUL;
 * with cut set the file was longer than we read, and its last argument may be incomplete.
 */
static int cmdline_guest_name(const char *buf, size_t len, int cut, char *out, size_t size)
{
	const char *end = buf + len, *arg = buf, *value = NULL;

	while (arg < end) {
		const char *next = arg + strlen(arg) + 1;

		if ((!strcmp(arg, "-name") || !strcmp(arg, "--name")) && next < end) {
			const char *after = next + strlen(next) + 1;

			if (!(cut && after > end))
				value = next;
			next = after;
		}
		arg = next;
	}
	return value ? qemu_guest_name(value, out, size) : -ENOENT;
}

static int read_cmdline(const struct vmt_vmfind_env *env, pid_t pid, char *buf, size_t *len,
			int *cut)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (mkpath(path, sizeof(path), "%s/%d/cmdline", proc_root(env), (int)pid))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = vmt_io_read_full(fd, buf, CMDLINE_MAX);
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	*len = (size_t)n;
	*cut = n == CMDLINE_MAX;
	return 0;
}

/* Processes whose command line names guest `name`; sets *n (up to max). */
static int scan_cmdlines(const struct vmt_vmfind_env *env, const char *name, pid_t *pids,
			 unsigned int max, unsigned int *n)
{
	char *buf, guest[NAME_MAX_LEN + 1];
	struct dirent *de;
	DIR *d;

	*n = 0;
	buf = malloc(CMDLINE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	d = opendir(proc_root(env));
	if (!d) {
		int ret = -errno;

		free(buf);
		return ret;
	}
	while ((de = readdir(d)) && *n < max) {
		size_t len;
		pid_t pid;
		int cut;

		if (parse_pid(de->d_name, strlen(de->d_name), &pid))
			continue;
		if (read_cmdline(env, pid, buf, &len, &cut))
			continue;	/* ended, or not ours to read */
		if (cmdline_guest_name(buf, len, cut, guest, sizeof(guest)) || strcmp(guest, name))
			continue;
		pids[(*n)++] = pid;
	}
	closedir(d);
	free(buf);
	return 0;
}

/* A name we can use as a file name under the libvirt directory. */
static int pidfile_name_ok(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/*
 * <libvirt_dir>/NAME.pid naming a live VMM: 0 with *pid, or -ENOENT with the reason why
 * not in why (the caller goes on to the command lines).
 */
static int from_pidfile(const struct vmt_vmfind_env *env, const char *name, pid_t *pid,
			char *why, size_t why_size)
{
	char path[PATH_MAX], text[64];
	ssize_t n;
	size_t len;
	int ret;

	if (!pidfile_name_ok(name) ||
	    mkpath(path, sizeof(path), "%s/%s.pid", libvirt_dir(env), name))
		return errf(why, why_size, -ENOENT, "not a file name under %s", libvirt_dir(env));
	n = read_small(path, text, sizeof(text));
	if (n == -ENOENT)
		return errf(why, why_size, -ENOENT, "no %s", path);
	if (n < 0)
		return errf(why, why_size, -ENOENT, "%s: %s", path, strerror((int)-n));
	/* libvirt writes the pid and a newline; a NUL byte inside is no digit */
	len = (size_t)n;
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	if ((size_t)n == sizeof(text) - 1 || parse_pid(text, len, pid))
		return errf(why, why_size, -ENOENT, "%s holds no pid", path);
	if (!proc_exists(env, *pid))
		return errf(why, why_size, -ENOENT, "%s names pid %d, which is not running", path,
			    (int)*pid);
	ret = is_vmm(env, *pid);
	if (ret < 0 && ret != -ENOENT)
		return errf(why, why_size, -ENOENT, "%s names pid %d: %s", path, (int)*pid,
			    strerror(-ret));
	if (ret <= 0)
		return errf(why, why_size, -ENOENT, "%s names pid %d, which is not a VMM", path,
			    (int)*pid);
	return 0;
}

/*
 * A control character in a name that reaches terminals: C0, DEL, or C1 (U+0080..U+009F,
 * 0xc2 0x80..0x9f in UTF-8: a terminal may take U+009B as CSI). Other bytes pass, UTF-8 or
 * not (a Latin-1 name stays readable).
 */
static int has_control(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return 1;
	}
	return 0;
}

/* One spec's form: a pid of 1..INT32_MAX, or a name we could look up. */
static int check_spec(const char *spec, char *err, size_t err_size)
{
	pid_t pid;

	if (!*spec)
		return errf(err, err_size, -EINVAL, "empty VM name");
	if (is_digits(spec, strlen(spec))) {
		if (parse_pid(spec, strlen(spec), &pid))
			return errf(err, err_size, -EINVAL, "bad pid '%s' (1 to %d)", spec,
				    INT32_MAX);
		return 0;
	}
	if (strlen(spec) > NAME_MAX_LEN)
		return errf(err, err_size, -EINVAL, "VM name '%.40s...' is longer than %d bytes",
			    spec, NAME_MAX_LEN);
	if (has_control(spec))
		return errf(err, err_size, -EINVAL, "VM name with a control character");
	return 0;
}

/* An item of a --vm list without the spaces around it, in place. */
static char *trim_spaces(char *s)
{
	char *end;

	s += strspn(s, " \t");
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return s;
}

int vmt_vmfind_check_specs(const char *specs, char *err, size_t err_size)
{
	const char *p = specs;
	char one[NAME_MAX_LEN + 2];
	int ret;

	if (!specs || !*specs)
		return errf(err, err_size, -EINVAL, "no VM given");
	for (;;) {
		size_t len, skip = strspn(p, " \t");

		/* spaces around an item are not part of it ("web1, web2"), as report's --vm */
		p += skip;
		len = strcspn(p, ",");
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		/* longer than any good spec: cut, still too long for check_spec */
		snprintf(one, sizeof(one), "%.*s", (int)(len < sizeof(one) ? len :
							 sizeof(one) - 1), p);
		ret = check_spec(one, err, err_size);
		if (ret == -EINVAL && !*one)
			return errf(err, err_size, ret, "empty VM name in '%s'", specs);
		if (ret)
			return ret;
		p += strcspn(p, ",");
		if (!*p)
			return 0;
		p++;
	}
}

/* One spec -> pid, how and a name to show. */
static int resolve_one(const struct vmt_vmfind_env *env, const char *spec, pid_t *pid,
		       enum vmt_vmfind_how *how, char **name, char *err, size_t err_size)
{
	char why[PATH_MAX + 128], guest[NAME_MAX_LEN + 1], label[NAME_MAX_LEN + 1];
	pid_t matches[MAX_MATCHES], vmms[MAX_MATCHES], denied = 0;
	unsigned int n = 0, nvmm = 0, i;
	int ret;

	ret = check_spec(spec, err, err_size);
	if (ret)
		return ret;
	if (is_digits(spec, strlen(spec))) {
		char *buf;
		size_t len;
		int cut;

		if (parse_pid(spec, strlen(spec), pid))
			return errf(err, err_size, -EINVAL, "bad pid '%s'", spec);
		if (!proc_exists(env, *pid))
			return errf(err, err_size, -ENOENT, "no process with pid %s in %s", spec,
				    proc_root(env));
		*pid = thread_group(env, *pid);
		*how = VMT_VMFIND_BY_PID;
		/* a label: QEMU's -name when it has one, else the pid */
		snprintf(guest, sizeof(guest), "%d", (int)*pid);
		buf = malloc(CMDLINE_MAX + 1);
		if (buf && !read_cmdline(env, *pid, buf, &len, &cut) &&
		    !cmdline_guest_name(buf, len, cut, label, sizeof(label)) && *label &&
		    !has_control(label) && !strchr(label, ','))
			snprintf(guest, sizeof(guest), "%s", label);
		free(buf);
		goto out_name;
	}
	ret = from_pidfile(env, spec, pid, why, sizeof(why));
	if (ret == 0) {
		*how = VMT_VMFIND_BY_PIDFILE;
		snprintf(guest, sizeof(guest), "%s", spec);
		goto out_name;
	}
	ret = scan_cmdlines(env, spec, matches, MAX_MATCHES, &n);
	if (ret == -ENOMEM)
		return errf(err, err_size, ret, "out of memory");
	if (ret)
		return errf(err, err_size, ret, "%s: %s", proc_root(env), strerror(-ret));
	/* A wrapper (sudo, gdb --args, a shell) can carry the same -name: keep the VMMs. */
	for (i = 0; i < n; i++) {
		ret = is_vmm(env, matches[i]);
		if (ret > 0)
			vmms[nvmm++] = matches[i];
		else if (ret == -EACCES || ret == -EPERM)
			denied = matches[i];
	}
	if (nvmm > 1)
		return errf(err, err_size, -EEXIST,
			    "ambiguous VM name '%s': pids %d and %d both run -name %s%s", spec,
			    (int)vmms[0], (int)vmms[1], spec, nvmm > 2 ? " (and more)" : "");
	/* unnamed vCPU threads are told by the process's fds, which only its owner can read */
	if (nvmm == 0 && denied)
		return errf(err, err_size, -EACCES,
			    "VM '%s': pid %d has -name %s, but its vCPU threads are not named and "
			    "%s/%d/fd is not readable: %s", spec, (int)denied, spec,
			    proc_root(env), (int)denied, strerror(EACCES));
	if (nvmm == 0 && n > 0)
		return errf(err, err_size, -ENODEV,
			    "VM '%s': pid %d has -name %s but no vCPU threads", spec,
			    (int)matches[0], spec);
	if (nvmm == 0)
		return errf(err, err_size, -ENOENT,
			    "unknown VM '%s': %s, and no process in %s has -name %s", spec, why,
			    proc_root(env), spec);
	*pid = vmms[0];
	*how = VMT_VMFIND_BY_CMDLINE;
	snprintf(guest, sizeof(guest), "%s", spec);
out_name:
	*name = strdup(guest);
	if (!*name)
		return errf(err, err_size, -ENOMEM, "out of memory");
	return 0;
}

void vmt_vmfind_free(struct vmt_vmfind *f)
{
	unsigned int i;

	for (i = 0; i < f->n_vm; i++) {
		vmt_vmfind_vm_clear(&f->vm[i]);
		free(f->vm[i].name);
	}
	free(f->vm);
	vmt_cpulist_free(&f->cpus);
	f->vm = NULL;
	f->n_vm = 0;
}

int vmt_vmfind_resolve(const struct vmt_vmfind_env *env, const char *specs,
		       struct vmt_vmfind *out, char *err, size_t err_size)
{
	const struct vmt_cpulist **lists = NULL;
	const char **spec_of = NULL, **more;
	struct vmt_vmfind f = { 0 };
	char *copy, *spec, *next;
	unsigned int cap = 0, i;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	ret = vmt_vmfind_check_specs(specs, err, err_size);
	if (ret)
		return ret;
	copy = strdup(specs);
	if (!copy)
		return errf(err, err_size, -ENOMEM, "out of memory");
	for (spec = copy; spec; spec = next) {
		struct vmt_vm vm = { 0 };
		char sub[512];

		next = strchr(spec, ',');
		if (next)
			*next++ = '\0';
		spec = trim_spaces(spec);
		if (!*spec) {
			ret = errf(err, err_size, -EINVAL, "empty VM name in '%s'", specs);
			goto out_free;
		}
		ret = resolve_one(env, spec, &vm.pid, &vm.how, &vm.name, err, err_size);
		if (ret)
			goto out_free;
		for (i = 0; i < f.n_vm && f.vm[i].pid != vm.pid; i++)
			;
		if (i < f.n_vm) {
			free(vm.name);
			/* the same spec twice counts once */
			if (!strcmp(spec_of[i], spec))
				continue;
			/*
			 * Two names of one VMM: the file keeps one name per VM, and a report
			 * asked for the other would not find it.
			 */
			ret = errf(err, err_size, -EALREADY, "%s and %s are the same VM (pid %d)",
				   spec_of[i], spec, (int)vm.pid);
			goto out_free;
		}
		ret = vmt_vmfind_vcpus(env, vm.pid, &vm, sub, sizeof(sub));
		if (ret) {
			if (vm.how == VMT_VMFIND_BY_PID)
				errf(err, err_size, ret, "%s", sub);
			else
				errf(err, err_size, ret, "VM '%s': %s", spec, sub);
			free(vm.name);
			goto out_free;
		}
		if (f.n_vm == cap) {
			struct vmt_vm *bigger;

			cap = cap ? cap * 2 : 4;
			bigger = realloc(f.vm, cap * sizeof(*bigger));
			if (!bigger) {
				vmt_vmfind_vm_clear(&vm);
				free(vm.name);
				ret = errf(err, err_size, -ENOMEM, "out of memory");
				goto out_free;
			}
			f.vm = bigger;
			more = realloc(spec_of, cap * sizeof(*more));
			if (!more) {
				vmt_vmfind_vm_clear(&vm);
				free(vm.name);
				ret = errf(err, err_size, -ENOMEM, "out of memory");
				goto out_free;
			}
			spec_of = more;
		}
		spec_of[f.n_vm] = spec;	/* inside copy, which lives until the end */
		f.vm[f.n_vm++] = vm;
	}
	lists = malloc((f.n_vm ? f.n_vm : 1) * sizeof(*lists));
	if (!lists) {
		ret = errf(err, err_size, -ENOMEM, "out of memory");
		goto out_free;
	}
	for (i = 0; i < f.n_vm; i++)
		lists[i] = &f.vm[i].cpus;
	ret = cpulist_union(lists, f.n_vm, &f.cpus);
	if (ret) {
		errf(err, err_size, ret, "out of memory");
		goto out_free;
	}
	*out = f;
	memset(&f, 0, sizeof(f));
out_free:
	vmt_vmfind_free(&f);
	free(spec_of);
	free(lists);
	free(copy);
	return ret;
}

const char *vmt_vmfind_how_name(enum vmt_vmfind_how how)
{
	switch (how) {
	case VMT_VMFIND_BY_PID:
		return "pid";
	case VMT_VMFIND_BY_PIDFILE:
		return "pidfile";
	case VMT_VMFIND_BY_CMDLINE:
		return "cmdline";
	}
	return "?";
}

const char *vmt_vmfind_method_name(enum vmt_vmfind_method m)
{
	switch (m) {
	case VMT_VMFIND_THREAD_NAMES:
		return "thread-names";
	case VMT_VMFIND_KVM_RUN:
		return "kvm-run";
	case VMT_VMFIND_GUEST_TIME:
		return "guest-time";
	}
	return "?";
}

int vmt_vmfind_tids(const struct vmt_vmfind *f, pid_t **tids, unsigned int *n)
{
	unsigned int total = 0, i, j, k = 0;
	pid_t *t;

	for (i = 0; i < f->n_vm; i++)
		total += f->vm[i].n_vcpu;
	t = malloc((total ? total : 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < f->n_vm; i++) {
		for (j = 0; j < f->vm[i].n_vcpu; j++)
			t[k++] = f->vm[i].vcpu[j].tid;
	}
	qsort(t, total, sizeof(*t), cmp_pid);
	for (i = 0, k = 0; i < total; i++) {
		if (k == 0 || t[k - 1] != t[i])
			t[k++] = t[i];
	}
	*tids = t;
	*n = k;
	return 0;
}

size_t vmt_vmfind_filter_max(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return (page > 0 ? (size_t)page : 4096) - 1;
}

int vmt_vmfind_filter(const struct vmt_vmfind *f, size_t max_len, char **out, char *err,
		      size_t err_size)
{
	unsigned int n, i, j;
	size_t len = 0, cap;
	char *buf;
	pid_t *t;
	int ret;

	*out = NULL;
	ret = vmt_vmfind_tids(f, &t, &n);
	if (ret)
		return errf(err, err_size, ret, "out of memory");
	if (n == 0) {
		free(t);
		return errf(err, err_size, -ENODATA, "no vCPU thread to filter on");
	}
	/* The longest term, a range of two 10-digit tids with its " || ", is under 64 bytes. */
	cap = (size_t)n * 64 + 1;
	buf = malloc(cap);
	if (!buf) {
		free(t);
		return errf(err, err_size, -ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i = j + 1) {
		const char *sep = i ? " || " : "";
		int w;

		for (j = i; j + 1 < n && t[j + 1] == t[j] + 1; j++)
			;
		if (j - i >= 2) {
			w = snprintf(buf + len, cap - len,
				     "%s(common_pid >= %d && common_pid <= %d)", sep, (int)t[i],
				     (int)t[j]);
		} else {
			j = i;
			w = snprintf(buf + len, cap - len, "%scommon_pid == %d", sep, (int)t[i]);
		}
		len += (size_t)w;
	}
	if (len > max_len) {
		ret = errf(err, err_size, -E2BIG,
			   "a filter on %u vCPU threads needs %zu bytes, tracefs takes at most %zu",
			   n, len, max_len);
		free(buf);
		free(t);
		return ret;
	}
	free(t);
	*out = buf;
	return 0;
}

static char *format_cpus(const struct vmt_cpulist *l)
{
	/* a run "a-b," takes at most 10 bytes with CPU numbers below 8192 */
	size_t size = (size_t)l->n * 11 + 1;
	char *buf = malloc(size);

	if (buf)
		vmt_cpulist_format(l, buf, size);
	return buf;
}

void vmt_vmfind_to_meta(const struct vmt_vmfind *f, struct vmt_kvbuf *kb)
{
	unsigned int i, j;

	vmt_kv_addf(kb, "vm.count", "%u", f->n_vm);
	for (i = 0; i < f->n_vm; i++) {
		const struct vmt_vm *vm = &f->vm[i];
		char key[64], *list, *cpus;
		size_t len = 0, cap = (size_t)vm->n_vcpu * 24 + 1;

		snprintf(key, sizeof(key), "vm.%u.name", i);
		vmt_kv_add_str(kb, key, vm->name);
		snprintf(key, sizeof(key), "vm.%u.pid", i);
		vmt_kv_addf(kb, key, "%d", (int)vm->pid);
		snprintf(key, sizeof(key), "vm.%u.method", i);
		vmt_kv_add_str(kb, key, vmt_vmfind_method_name(vm->method));
		snprintf(key, sizeof(key), "vm.%u.missing", i);
		vmt_kv_addf(kb, key, "%u", vm->n_vcpu_fds > vm->n_vcpu ?
			    vm->n_vcpu_fds - vm->n_vcpu : 0);
		list = malloc(cap);
		cpus = format_cpus(&vm->cpus);
		if (!list || !cpus) {
			kb->error = kb->error ? kb->error : -ENOMEM;
			free(list);
			free(cpus);
			return;
		}
		list[0] = '\0';
		for (j = 0; j < vm->n_vcpu; j++)
			len += (size_t)snprintf(list + len, cap - len, "%s%d:%u", j ? "," : "",
						(int)vm->vcpu[j].tid, vm->vcpu[j].vcpu);
		snprintf(key, sizeof(key), "vm.%u.vcpus", i);
		vmt_kv_add_str(kb, key, list);
		snprintf(key, sizeof(key), "vm.%u.cpus", i);
		vmt_kv_add_str(kb, key, cpus);
		free(list);
		free(cpus);
	}
}

struct vmmap_vm {
	char *name;
	int32_t pid;
};

struct vmmap_ent {
	int32_t tid;
	unsigned int vm, vcpu;
};

struct vmt_vmmap {
	unsigned int n_vm;
	struct vmmap_vm *vm;
	unsigned int n;
	struct vmmap_ent *ent;		/* sorted by tid */
};

void vmt_vmmap_free(struct vmt_vmmap *m)
{
	unsigned int i;

	if (!m)
		return;
	for (i = 0; i < m->n_vm; i++)
		free(m->vm[i].name);
	free(m->vm);
	free(m->ent);
	free(m);
}

static int cmp_ent(const void *a, const void *b)
{
	const struct vmmap_ent *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Decimal digits at *p, below limit; advances *p. */
static int take_uint(const char **p, const char *end, uint64_t limit, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (s == end || *s < '0' || *s > '9')
		return -EBADMSG;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v >= limit)
			return -EBADMSG;
	}
	*p = s;
	*out = v;
	return 0;
}

/* "tid:vcpu,tid:vcpu" of VM vm, appended to m->ent. */
static int parse_vcpus(struct vmt_vmmap *m, unsigned int *cap, unsigned int vm, const char *s)
{
	const char *p = s, *end = s + strlen(s);

	while (p < end) {
		uint64_t tid, vcpu;

		if (take_uint(&p, end, (uint64_t)INT32_MAX + 1, &tid) || tid == 0 || p == end ||
		    *p++ != ':' || take_uint(&p, end, VCPU_MAX, &vcpu))
			return -EBADMSG;
		if (p < end && (*p++ != ',' || p == end))
			return -EBADMSG;
		if (m->n == *cap) {
			unsigned int c = *cap ? *cap * 2 : 16;
			struct vmmap_ent *bigger = realloc(m->ent, c * sizeof(*bigger));

			if (!bigger)
				return -ENOMEM;
			m->ent = bigger;
			*cap = c;
		}
		m->ent[m->n].tid = (int32_t)tid;
		m->ent[m->n].vm = vm;
		m->ent[m->n].vcpu = (unsigned int)vcpu;
		m->n++;
	}
	return 0;
}

int vmt_vmmap_from_meta(const uint8_t *meta, size_t len, struct vmt_vmmap **out, char *err,
			size_t err_size)
{
	struct vmt_vmmap *m;
	unsigned int cap = 0, i;
	uint64_t count, pid;
	char key[64];
	int ret;

	*out = NULL;
	if (vmt_kv_validate(meta, len))
		return errf(err, err_size, -EBADMSG, "metadata: corrupt");
	ret = vmt_kv_get_u64(meta, len, "vm.count", &count);
	if (ret == -ENOENT)
		return errf(err, err_size, -ENOENT,
			    "no VM map in this recording (made without --vm)");
	if (ret || count > META_MAX_VMS)
		return errf(err, err_size, -EBADMSG, "metadata: bad vm.count");
	m = calloc(1, sizeof(*m));
	if (!m)
		return errf(err, err_size, -ENOMEM, "out of memory");
	m->vm = calloc(count ? count : 1, sizeof(*m->vm));
	if (!m->vm) {
		ret = errf(err, err_size, -ENOMEM, "out of memory");
		goto out_free;
	}
	for (i = 0; i < count; i++) {
		char *name, *vcpus;

		snprintf(key, sizeof(key), "vm.%u.name", i);
		name = vmt_kv_get_str(meta, len, key);
		if (!name || !*name || strlen(name) > NAME_MAX_LEN || has_control(name)) {
			free(name);
			ret = errf(err, err_size, -EBADMSG, "metadata: bad or missing %s", key);
			goto out_free;
		}
		m->vm[m->n_vm].name = name;
		m->n_vm++;
		snprintf(key, sizeof(key), "vm.%u.pid", i);
		if (vmt_kv_get_u64(meta, len, key, &pid) || pid == 0 || pid > INT32_MAX) {
			ret = errf(err, err_size, -EBADMSG, "metadata: bad or missing %s", key);
			goto out_free;
		}
		m->vm[i].pid = (int32_t)pid;
		snprintf(key, sizeof(key), "vm.%u.vcpus", i);
		vcpus = vmt_kv_get_str(meta, len, key);
		if (!vcpus) {
			ret = errf(err, err_size, -EBADMSG, "metadata: missing %s", key);
			goto out_free;
		}
		ret = parse_vcpus(m, &cap, i, vcpus);
		free(vcpus);
		if (ret == -ENOMEM) {
			errf(err, err_size, ret, "out of memory");
			goto out_free;
		}
		if (ret) {
			errf(err, err_size, ret, "metadata: bad %s", key);
			goto out_free;
		}
	}
	if (m->n)
		qsort(m->ent, m->n, sizeof(*m->ent), cmp_ent);
	for (i = 1; i < m->n; i++) {
		if (m->ent[i].tid == m->ent[i - 1].tid) {
			ret = errf(err, err_size, -EBADMSG, "metadata: thread %d is in the VM map "
				   "twice", (int)m->ent[i].tid);
			goto out_free;
		}
	}
	*out = m;
	return 0;

out_free:
	vmt_vmmap_free(m);
	return ret;
}

unsigned int vmt_vmmap_count(const struct vmt_vmmap *m)
{
	return m->n_vm;
}

const char *vmt_vmmap_name(const struct vmt_vmmap *m, unsigned int vm)
{
	return vm < m->n_vm ? m->vm[vm].name : NULL;
}

int32_t vmt_vmmap_pid(const struct vmt_vmmap *m, unsigned int vm)
{
	return vm < m->n_vm ? m->vm[vm].pid : 0;
}

int vmt_vmmap_lookup(const struct vmt_vmmap *m, int32_t tid, unsigned int *vm, unsigned int *vcpu)
{
	struct vmmap_ent key = { .tid = tid }, *e;

	if (!m->n)
		return -ENOENT;
	e = bsearch(&key, m->ent, m->n, sizeof(*m->ent), cmp_ent);
	if (!e)
		return -ENOENT;
	if (vm)
		*vm = e->vm;
	if (vcpu)
		*vcpu = e->vcpu;
	return 0;
}

int vmt_vmmap_find(const struct vmt_vmmap *m, const char *name_or_pid)
{
	pid_t pid = 0;
	unsigned int i;

	for (i = 0; i < m->n_vm; i++) {
		if (!strcmp(m->vm[i].name, name_or_pid))
			return (int)i;
	}
	if (parse_pid(name_or_pid, strlen(name_or_pid), &pid))
		return -ENOENT;
	for (i = 0; i < m->n_vm; i++) {
		if (m->vm[i].pid == pid)
			return (int)i;
	}
	return -ENOENT;
}

char *vmt_vmmap_label(const struct vmt_vmmap *m, int32_t tid, char *buf, size_t size)
{
	unsigned int vm, vcpu;
	char *whole;

	if (vmt_vmmap_lookup(m, tid, &vm, &vcpu) || !size)
		return NULL;
	/* a buffer too small for a long name: cut before "/vcpuN (pid N)", never in a character */
	if (asprintf(&whole, "%s/vcpu%u (pid %" PRId32 ")", m->vm[vm].name, vcpu, tid) < 0)
		return NULL;
	vmt_fmt_fit(whole, (unsigned int)(size - 1), buf, size);
	free(whole);
	return buf;
}

int vmt_vmmap_vm_tids(const struct vmt_vmmap *m, unsigned int vm, int32_t **tids,
		      unsigned int *n)
{
	unsigned int i, more = 0;
	int32_t *bigger;

	if (vm >= m->n_vm)
		return -ENOENT;
	for (i = 0; i < m->n; i++)
		more += m->ent[i].vm == vm;
	bigger = realloc(*tids, ((size_t)*n + more + 1) * sizeof(*bigger));
	if (!bigger)
		return -ENOMEM;
	*tids = bigger;
	for (i = 0; i < m->n; i++)
		if (m->ent[i].vm == vm)
			bigger[(*n)++] = m->ent[i].tid;
	return 0;
}
