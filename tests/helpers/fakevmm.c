// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fakevmm (tests only): a real KVM VMM in miniature, for finding VMs by name or pid. It
 * creates a VM with an in-kernel irqchip and N vCPUs, each in its own thread (created in
 * that thread, as QEMU does), named "CPU <i>/KVM" like QEMU's unless --unnamed, pinned as
 * asked, looping KVM_RUN on a tiny real-mode guest:
 *     idle (default): OUT 0x10 once, then CLI; HLT: the thread sleeps inside KVM_RUN
 *     --busy:         OUT 0x10 forever: the thread is always running
 * As QEMU does, each thread has made its vCPU before the next one starts, so vCPU ids
 * ascend with tids (common/vmfind.c relies on that for busy vCPUs).
 * Two threads that are no vCPUs ("IO iothread0/1", like QEMU's) make a system call every
 * 10 ms; one is created just before the vCPU threads and one just after, before any
 * KVM_RUN (whose first call starts KVM's own worker thread), so their tids border the vCPU
 * threads' on a quiet machine. Once every vCPU has made its first exit it writes --pidfile
 * (libvirt style: the pid and a newline), then prints one JSON line of what it knows for
 * itself (gettid(), the vCPU ids it passed to KVM_CREATE_VCPU, sched_getaffinity()):
 *     {"pid":P,"others":[T,T],"vcpus":[{"index":0,"kvm_id":0,"tid":T,"comm":"CPU 0/KVM",
 *      "cpus":[0]},...]}
 * and waits for SIGTERM, SIGINT or --seconds (default 60), removes the pid file and exits.
 * The main thread wakes every 20 ms while it waits: a thread of the VMM that makes system
 * calls and is no vCPU.
 *
 *   fakevmm [-name ARG] [--vcpus N] [--pin LIST:LIST:...] [--unnamed] [--busy]
 *           [--id-stride K] [--pidfile PATH] [--seconds S]
 *
 * -name is ignored, as a VMM's own option would be, so the process can be found through
 * its command line. Exit 77 when /dev/kvm cannot run a guest, 1 on other failures.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define MEM_SIZE 0x8000
#define CODE_AT 0x1000
#define MAX_VCPUS 64
#define PORT 0x10

static const uint8_t idle_code[] = {
	0xb0, 0x01,		/* 1000: mov al, 1 */
	0xe6, PORT,		/* 1002: out 0x10, al	(first exit: the vCPU runs) */
	0xfa,			/* 1004: cli */
	0xf4,			/* 1005: hlt		(asleep in KVM_RUN for good) */
	0xeb, 0xfd,		/* 1006: jmp 1005	(after a signal made KVM_RUN return) */
};

static const uint8_t busy_code[] = {
	0xb0, 0x01,		/* 1000: mov al, 1 */
	0xe6, PORT,		/* 1002: out 0x10, al */
	0xeb, 0xfc,		/* 1004: jmp 1002 */
};

struct vcpu {
	unsigned int index, kvm_id;
	pthread_t thread;
	pid_t tid;
	cpu_set_t pin;
	int pinned;
	char comm[16];
	cpu_set_t allowed;
	volatile int created;	/* its KVM_CREATE_VCPU is done */
};

static int kvm_fd, vm_fd, started_pipe[2], unnamed;
static long run_size;
static struct vcpu vcpus[MAX_VCPUS];
static pthread_barrier_t go;

struct io {
	unsigned int index;
	pthread_t thread;
	volatile pid_t tid;
};
static struct io ios[2];

static void die(int code, const char *what)
{
	fprintf(stderr, "fakevmm: %s: %s\n", what, strerror(errno));
	exit(code);
}

/* "0", "0-1", "0,2-3" into a cpu_set_t; 0 or -1. */
static int parse_cpus(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s) {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo, c;

		if (end == s)
			return -1;
		if (*end == '-') {
			s = end + 1;
			hi = strtoul(s, &end, 10);
			if (end == s || hi < lo)
				return -1;
		}
		if (hi >= CPU_SETSIZE)
			return -1;
		for (c = lo; c <= hi; c++)
			CPU_SET(c, set);
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}

static void *io_thread(void *arg)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	struct io *io = arg;
	char comm[16];

	if (!unnamed) {
		snprintf(comm, sizeof(comm), "IO iothread%u", io->index);
		prctl(PR_SET_NAME, comm);
	}
	io->tid = gettid();
	for (;;)
		nanosleep(&tick, NULL);
	return NULL;
}

static void start_io(struct io *io, unsigned int index)
{
	io->index = index;
	errno = pthread_create(&io->thread, NULL, io_thread, io);
	if (errno)
		die(1, "pthread_create");
	while (!io->tid)
		sched_yield();
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_run *run;
	int fd, told = 0;

	v->tid = gettid();
	if (v->pinned && sched_setaffinity(0, sizeof(v->pin), &v->pin))
		die(1, "sched_setaffinity");
	if (!unnamed) {
		snprintf(v->comm, sizeof(v->comm), "CPU %u/KVM", v->index);
		if (prctl(PR_SET_NAME, v->comm))
			die(1, "PR_SET_NAME");
	}
	if (prctl(PR_GET_NAME, v->comm))
		die(1, "PR_GET_NAME");
	if (sched_getaffinity(0, sizeof(v->allowed), &v->allowed))
		die(1, "sched_getaffinity");

	fd = ioctl(vm_fd, KVM_CREATE_VCPU, (unsigned long)v->kvm_id);
	if (fd < 0)
		die(77, "KVM_CREATE_VCPU");
	v->created = 1;
	run = mmap(NULL, (size_t)run_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (run == MAP_FAILED)
		die(77, "mmap vcpu");
	/* with an in-kernel irqchip only the BSP starts runnable; the others wait for SIPI */
	if (ioctl(fd, KVM_SET_MP_STATE, &mp))
		die(77, "KVM_SET_MP_STATE");
	if (ioctl(fd, KVM_GET_SREGS, &sregs))
		die(77, "KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(fd, KVM_SET_SREGS, &sregs))
		die(77, "KVM_SET_SREGS");
	memset(&regs, 0, sizeof(regs));
	regs.rip = CODE_AT;
	regs.rflags = 2;
	if (ioctl(fd, KVM_SET_REGS, &regs))
		die(77, "KVM_SET_REGS");
	pthread_barrier_wait(&go);
	for (;;) {
		if (ioctl(fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR)
				continue;
			die(77, "KVM_RUN");
		}
		if (run->exit_reason != KVM_EXIT_IO || run->io.port != PORT) {
			fprintf(stderr, "fakevmm: vCPU %u: unexpected exit %u\n", v->index,
				run->exit_reason);
			exit(77);
		}
		if (!told) {
			told = 1;
			if (write(started_pipe[1], "x", 1) != 1)
				die(1, "write");
		}
	}
	return NULL;
}

static void print_cpus(const cpu_set_t *set)
{
	const char *sep = "";
	int c;

	putchar('[');
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, set)) {
			printf("%s%d", sep, c);
			sep = ",";
		}
	}
	putchar(']');
}

int main(int argc, char **argv)
{
	const char *pidfile = NULL, *pins = NULL;
	unsigned int n = 2, stride = 1, i, got = 0;
	struct kvm_userspace_memory_region region;
	int busy = 0, seconds = 60, sig, a, ticks;
	struct timespec timeout;
	sigset_t stop;
	uint8_t *mem;

	for (a = 1; a < argc; a++) {
		const char *opt = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;

		if (!strcmp(opt, "--unnamed")) {
			unnamed = 1;
			continue;
		}
		if (!strcmp(opt, "--busy")) {
			busy = 1;
			continue;
		}
		if (!val)
			goto usage;
		a++;
		if (!strcmp(opt, "-name"))
			;
		else if (!strcmp(opt, "--vcpus"))
			n = (unsigned int)atoi(val);
		else if (!strcmp(opt, "--pin"))
			pins = val;
		else if (!strcmp(opt, "--id-stride"))
			stride = (unsigned int)atoi(val);
		else if (!strcmp(opt, "--pidfile"))
			pidfile = val;
		else if (!strcmp(opt, "--seconds"))
			seconds = atoi(val);
		else
			goto usage;
	}
	if (n == 0 || n > MAX_VCPUS || stride == 0 || seconds <= 0)
		goto usage;
	for (i = 0; i < n; i++) {
		vcpus[i].index = i;
		vcpus[i].kvm_id = i * stride;
	}
	for (i = 0; pins && *pins && i < n; i++) {
		char one[256];
		size_t len = strcspn(pins, ":");

		if (len >= sizeof(one))
			goto usage;
		memcpy(one, pins, len);
		one[len] = '\0';
		if (parse_cpus(one, &vcpus[i].pin))
			goto usage;
		vcpus[i].pinned = 1;
		pins += len + (pins[len] == ':');
	}

	/* Only the main thread takes the stop signals (the threads inherit this mask). */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);

	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0)
		die(77, "/dev/kvm");
	vm_fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm_fd < 0)
		die(77, "KVM_CREATE_VM");
	/* as QEMU does: HLT then sleeps in the kernel instead of exiting to us */
	if (ioctl(vm_fd, KVM_CREATE_IRQCHIP, 0))
		die(77, "KVM_CREATE_IRQCHIP");
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die(1, "mmap");
	if (busy)
		memcpy(mem + CODE_AT, busy_code, sizeof(busy_code));
	else
		memcpy(mem + CODE_AT, idle_code, sizeof(idle_code));
	memset(&region, 0, sizeof(region));
	region.memory_size = MEM_SIZE;
	region.userspace_addr = (uintptr_t)mem;
	if (ioctl(vm_fd, KVM_SET_USER_MEMORY_REGION, &region))
		die(77, "KVM_SET_USER_MEMORY_REGION");
	run_size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (run_size <= 0)
		die(77, "KVM_GET_VCPU_MMAP_SIZE");
	if (pipe2(started_pipe, O_CLOEXEC))
		die(1, "pipe");

	errno = pthread_barrier_init(&go, NULL, n + 1);
	if (errno)
		die(1, "pthread_barrier_init");
	start_io(&ios[0], 0);
	for (i = 0; i < n; i++) {
		errno = pthread_create(&vcpus[i].thread, NULL, vcpu_thread, &vcpus[i]);
		if (errno)
			die(1, "pthread_create");
		while (!vcpus[i].created)
			sched_yield();
	}
	start_io(&ios[1], 1);
	pthread_barrier_wait(&go);
	/* Each vCPU says once that it ran guest code; give them 10 s. */
	while (got < n) {
		struct pollfd p = { .fd = started_pipe[0], .events = POLLIN };
		char buf[MAX_VCPUS];
		ssize_t r;

		if (poll(&p, 1, 10000) <= 0) {
			fprintf(stderr, "fakevmm: only %u of %u vCPUs ran\n", got, n);
			return 1;
		}
		r = read(started_pipe[0], buf, sizeof(buf));
		if (r <= 0)
			die(1, "read");
		got += (unsigned int)r;
	}

	if (pidfile) {
		char tmp[4096];
		FILE *f;

		snprintf(tmp, sizeof(tmp), "%s.tmp", pidfile);
		f = fopen(tmp, "w");
		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) ||
		    rename(tmp, pidfile))
			die(1, pidfile);
	}

	printf("{\"pid\":%d,\"others\":[%d,%d],\"vcpus\":[", (int)getpid(), (int)ios[0].tid,
	       (int)ios[1].tid);
	for (i = 0; i < n; i++) {
		printf("%s{\"index\":%u,\"kvm_id\":%u,\"tid\":%d,\"comm\":\"%s\",\"cpus\":",
		       i ? "," : "", vcpus[i].index, vcpus[i].kvm_id, (int)vcpus[i].tid,
		       vcpus[i].comm);
		print_cpus(&vcpus[i].allowed);
		putchar('}');
	}
	printf("]}\n");
	fflush(stdout);

	timeout.tv_sec = 0;
	timeout.tv_nsec = 20 * 1000 * 1000;
	for (ticks = 0; ticks < seconds * 50; ticks++) {
		sig = sigtimedwait(&stop, NULL, &timeout);
		if (sig > 0)
			break;
	}
	if (pidfile)
		unlink(pidfile);
	/* the vCPU threads, asleep or busy in KVM_RUN, end with the process */
	_exit(0);

usage:
	fprintf(stderr, "usage: fakevmm [-name ARG] [--vcpus N] [--pin LIST:LIST:...] "
		"[--unnamed] [--busy] [--id-stride K] [--pidfile PATH] [--seconds S]\n");
	return 2;
}
