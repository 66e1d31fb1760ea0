// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kvmload (tests only): a tiny KVM workload with a known mix of exits, for the KVM host
 * harness. One vCPU in real mode runs, round after round:
 *     CPUID x ROUND_CPUIDS    (handled in the kernel: pure exit/entry pairs)
 *     OUT 0x10                (an I/O exit to user space)
 *     a write to 0x9000       (outside guest memory: an MMIO exit to user space)
 *     HLT                     (no in-kernel irqchip: a HLT exit to user space)
 * It pins itself to CPU, runs for SECONDS and prints what it counted:
 *     rounds R cpuid C io I mmio M hlt H pid P tid T
 * where C = R * ROUND_CPUIDS is exact for whole rounds (the last round may be cut) and T is
 * the vCPU thread's id (the tid the tracepoints carry as common_pid).
 *
 *   kvmload [OPTIONS] CPU SECONDS
 *
 *   --irqchip       an in-kernel irqchip (KVM_CREATE_IRQCHIP): the HLT blocks in the host
 *                   kernel until an interrupt wakes it. Before each HLT the guest arms the
 *                   local APIC timer (one-shot, --hlt-usec, default 1000) and its handler
 *                   acknowledges the interrupt (EOI): both are APIC MMIO writes the kernel
 *                   handles, so the HLT exit ends with a sleep and a wake-up by the timer
 *                   interrupt on CPU, never in user space. Rounds then end at the MMIO exit
 *                   (where it stops: that exit stays open); the guest counts its own HLTs
 *                   and interrupts in its memory, printed as "hlt H irqs N".
 *   --io-work USEC  spin USEC microseconds in user space on every I/O exit (the VMM's
 *                   handling time of an emulated device): printed as "io_work_us USEC".
 *   --name NAME     behave like QEMU run by libvirt: the vCPU is created and runs in a
 *                   thread of its own named "CPU 0/KVM", the command line carries
 *                   "-name NAME" (given "--name", it re-executes itself that way), and once
 *                   the vCPU exists, DIR/NAME.pid holds its pid (libvirt's pid file,
 *                   removed at exit). -name NAME is accepted as the same option.
 *   --pidfile-dir DIR  where NAME.pid goes (default /run/libvirt/qemu; must exist)
 *   --wait          once set up (pid file written, "ready pid P tid T" on stderr), wait
 *                   for SIGUSR1 before the first KVM_RUN: a recorder started meanwhile
 *                   sees the whole run.
 * A run still going 30 s after its end says where its guest is (RIP, flags, its counts)
 * and exits 1.
 *
 * Exit status: 0, 1 on a failure (one line on stderr), 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
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
#include <time.h>
#include <unistd.h>

#define ROUND_CPUIDS 200
#define MEM_SIZE 0x8000
#define CODE_AT 0x1000

/* The counter lives in SI: CPUID overwrites EAX, EBX, ECX and EDX. */
static const uint8_t code[] = {
	0xbe, ROUND_CPUIDS & 0xff, ROUND_CPUIDS >> 8,	/* 1000: mov si, ROUND_CPUIDS */
	0x66, 0x31, 0xc0,				/* 1003: xor eax, eax */
	0x0f, 0xa2,					/* 1006: cpuid */
	0x4e,						/* 1008: dec si */
	0x75, 0xf8,					/* 1009: jnz 1003 */
	0xb0, 0x01,					/* 100b: mov al, 1 */
	0xe6, 0x10,					/* 100d: out 0x10, al */
	0xa2, 0x00, 0x90,				/* 100f: mov [0x9000], al */
	0xf4,						/* 1012: hlt */
	0xeb, 0xeb,					/* 1013: jmp 1000 */
};

/*
 * --irqchip. ES is based at the local APIC (0xfee00000, set through KVM_SET_SREGS), so
 * es:0x380 is the timer's initial count (TMICT) and es:0xb0 the EOI register; the APIC
 * takes 32-bit accesses only (hence the 0x66 prefixes). FLAG is set by the handler; the
 * CLI/STI dance (STI's one-instruction shadow covers the HLT) makes sure the HLT never
 * waits for an interrupt that came already. No HLT is ever left without an armed timer.
 */
#define IRQ_VECTOR 0x40
#define SPURIOUS_VECTOR 0xff
#define ISR_AT 0x1100
#define IRET_AT 0x1120
#define FLAG_AT 0x600
#define HLTS_AT 0x604
#define IRQS_AT 0x608
#define TMICT_IMM_AT 0x1d	/* offset of the timer count in irq_code */
#define MMIO_AT 0x9000
#define APIC_BASE 0xfee00000u
#define APIC_SVR 0xf0
#define APIC_LVTT 0x320
#define APIC_TMICT 0x380
#define APIC_TDCR 0x3e0
#define STACK_TOP 0x7000

static uint8_t irq_code[] = {
	0xbe, ROUND_CPUIDS & 0xff, ROUND_CPUIDS >> 8,	/* 1000: mov si, ROUND_CPUIDS */
	0x66, 0x31, 0xc0,				/* 1003: xor eax, eax */
	0x0f, 0xa2,					/* 1006: cpuid */
	0x4e,						/* 1008: dec si */
	0x75, 0xf8,					/* 1009: jnz 1003 */
	0xb0, 0x01,					/* 100b: mov al, 1 */
	0xe6, 0x10,					/* 100d: out 0x10, al */
	0xa2, 0x00, 0x90,				/* 100f: mov [0x9000], al */
	0xc6, 0x06, 0x00, 0x06, 0x00,			/* 1012: mov byte [FLAG], 0 */
	0x26, 0x66, 0xc7, 0x06, 0x80, 0x03,		/* 1017: mov dword [es:TMICT], */
	0x00, 0x00, 0x00, 0x00,				/* 101d:     count (patched) */
	0xfa,						/* 1021: cli */
	0x80, 0x3e, 0x00, 0x06, 0x00,			/* 1022: cmp byte [FLAG], 0 */
	0x75, 0x0a,					/* 1027: jne 1033 */
	0x66, 0xff, 0x06, 0x04, 0x06,			/* 1029: inc dword [HLTS] */
	0xfb,						/* 102e: sti */
	0xf4,						/* 102f: hlt */
	0xfa,						/* 1030: cli */
	0xeb, 0xef,					/* 1031: jmp 1022 */
	0xfb,						/* 1033: sti */
	0xeb, 0xca,					/* 1034: jmp 1000 */
};

static const uint8_t isr_code[] = {
	0xc6, 0x06, 0x00, 0x06, 0x01,			/* 1100: mov byte [FLAG], 1 */
	0x66, 0xff, 0x06, 0x08, 0x06,			/* 1105: inc dword [IRQS] */
	0x26, 0x66, 0xc7, 0x06, 0xb0, 0x00,		/* 110a: mov dword [es:EOI], 0 */
	0x00, 0x00, 0x00, 0x00,
	0xcf,						/* 1114: iret */
};

_Static_assert(CODE_AT + sizeof(irq_code) <= ISR_AT, "guest code overlaps its handler");
_Static_assert(ISR_AT + sizeof(isr_code) <= IRET_AT, "handler overlaps the spurious iret");

struct opts {
	int cpu;
	double seconds;
	const char *name;
	const char *pidfile_dir;
	int irqchip;
	long io_work_us;
	long hlt_us;
	int wait;
};

struct counts {
	unsigned long long rounds, io, mmio, hlt, irqs;
};

static struct opts o = { .pidfile_dir = "/run/libvirt/qemu", .hlt_us = 1000 };
static int kvm_fd, vm_fd;
static uint8_t *mem;
static pthread_barrier_t ready, go;
static pid_t vcpu_tid;
static struct counts counts;
static char pidfile[4096];

static void die(const char *what)
{
	fprintf(stderr, "kvmload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: kvmload [--irqchip] [--hlt-usec USEC] [--io-work USEC] "
		"[--name NAME] [--pidfile-dir DIR] [--wait] CPU SECONDS\n");
	exit(2);
}

static long parse_long(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > max)
		usage();
	return v;
}

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The VMM's handling time of an I/O exit: the thread stays on its CPU, in user space. */
static void spin_us(long us)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (since(&t0) * 1e6 < (double)us)
		;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void apic_set(struct kvm_lapic_state *s, unsigned int reg, uint32_t v)
{
	memcpy(&s->regs[reg], &v, sizeof(v));
}

/*
 * The APIC as the guest will find it: software-enabled, the timer one-shot on IRQ_VECTOR
 * at the bus rate (KVM's APIC bus runs at 1 GHz: a count is nanoseconds), not yet armed.
 */
static void setup_apic(int vcpu)
{
	struct kvm_lapic_state s;

	if (ioctl(vcpu, KVM_GET_LAPIC, &s))
		die("KVM_GET_LAPIC");
	apic_set(&s, APIC_SVR, 0x100 | SPURIOUS_VECTOR);
	apic_set(&s, APIC_LVTT, IRQ_VECTOR);
	apic_set(&s, APIC_TDCR, 0xb);		/* divide by 1 */
	apic_set(&s, APIC_TMICT, 0);
	if (ioctl(vcpu, KVM_SET_LAPIC, &s))
		die("KVM_SET_LAPIC");
}

/* The vCPU in real mode at CODE_AT; with --irqchip, ES at the APIC and a stack. */
static struct kvm_run *setup_vcpu(int *vcpu_out)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_run *run;
	int vcpu;
	long size;

	vcpu = ioctl(vm_fd, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		die("KVM_CREATE_VCPU");
	size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	run = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		die("mmap vcpu");
	if (ioctl(vcpu, KVM_GET_SREGS, &sregs))
		die("KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	sregs.ds.base = 0;
	sregs.ds.selector = 0;
	if (o.irqchip) {
		sregs.es.base = APIC_BASE;
		sregs.es.selector = 0;
		sregs.es.limit = 0xffff;
		sregs.ss.base = 0;
		sregs.ss.selector = 0;
	}
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs))
		die("KVM_SET_SREGS");
	memset(&regs, 0, sizeof(regs));
	regs.rip = CODE_AT;
	regs.rflags = 2;
	if (o.irqchip) {
		regs.rflags |= 0x200;	/* IF */
		regs.rsp = STACK_TOP;
		setup_apic(vcpu);
	}
	if (ioctl(vcpu, KVM_SET_REGS, &regs))
		die("KVM_SET_REGS");
	*vcpu_out = vcpu;
	return run;
}

/*
 * A run that does not end (a guest waiting for good, a vCPU that never gets its CPU back)
 * must say where it is rather than hang its harness: SIGALRM, OVERDUE_S after the run's
 * end, interrupts KVM_RUN in the vCPU's thread (the only thread that takes it).
 */
#define OVERDUE_S 30
static volatile sig_atomic_t overdue;

static void on_alarm(int sig)
{
	(void)sig;
	overdue = 1;
}

static void arm_overdue(void)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: KVM_RUN returns EINTR */
	if (sigaction(SIGALRM, &sa, NULL))
		die("sigaction");
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	if (pthread_sigmask(SIG_UNBLOCK, &set, NULL))
		die("pthread_sigmask");
	alarm((unsigned int)o.seconds + OVERDUE_S);
}

static void stuck(int vcpu)
{
	struct kvm_regs regs;

	if (ioctl(vcpu, KVM_GET_REGS, &regs))
		die("KVM_GET_REGS");
	fprintf(stderr, "kvmload: still running %d s after its end: rip 0x%llx rflags 0x%llx; "
		"io %llu mmio %llu hlt(user) %llu; guest: hlt %u irqs %u flag %u\n", OVERDUE_S,
		(unsigned long long)regs.rip, (unsigned long long)regs.rflags, counts.io,
		counts.mmio, counts.hlt, get_le32(mem + HLTS_AT), get_le32(mem + IRQS_AT),
		mem[FLAG_AT]);
	exit(1);
}

static void handle_io(void)
{
	counts.io++;
	if (o.io_work_us)
		spin_us(o.io_work_us);
}

/* Without an irqchip every round ends with its HLT in user space: whole rounds are exact. */
static void run_plain(int vcpu, struct kvm_run *run, const struct timespec *t0)
{
	for (;;) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0) {
			if (errno != EINTR)
				die("KVM_RUN");
			if (overdue)
				stuck(vcpu);
			continue;
		}
		switch (run->exit_reason) {
		case KVM_EXIT_IO:
			handle_io();
			break;
		case KVM_EXIT_MMIO:
			counts.mmio++;
			break;
		case KVM_EXIT_HLT:
			counts.hlt++;
			if (since(t0) >= o.seconds)
				goto done;
			break;
		default:
			fprintf(stderr, "kvmload: unexpected exit %u\n", run->exit_reason);
			exit(1);
		}
	}
done:
	counts.rounds = counts.hlt;
}

/*
 * With an irqchip the HLTs stay in the kernel: a round's last exit user space sees is its
 * MMIO write, where it stops (every I/O exit so far has returned to the guest: the
 * recording has all of them).
 */
static void run_irqchip(int vcpu, struct kvm_run *run, const struct timespec *t0)
{
	for (;;) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0) {
			if (errno != EINTR)
				die("KVM_RUN");
			if (overdue)
				stuck(vcpu);
			continue;
		}
		switch (run->exit_reason) {
		case KVM_EXIT_IO:
			handle_io();
			break;
		case KVM_EXIT_MMIO:
			/* an APIC access here would mean the HLT waits for good: say so */
			if (run->mmio.phys_addr != MMIO_AT) {
				fprintf(stderr, "kvmload: unexpected MMIO at 0x%llx\n",
					(unsigned long long)run->mmio.phys_addr);
				exit(1);
			}
			counts.mmio++;
			if (since(t0) >= o.seconds)
				goto done;
			break;
		default:
			fprintf(stderr, "kvmload: unexpected exit %u\n", run->exit_reason);
			exit(1);
		}
	}
done:
	counts.rounds = counts.io;
	counts.hlt = get_le32(mem + HLTS_AT);
	counts.irqs = get_le32(mem + IRQS_AT);
}

static void wait_for_start(void)
{
	sigset_t set;
	int sig;

	fprintf(stderr, "ready pid %d tid %d\n", (int)getpid(), (int)vcpu_tid);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (sigwait(&set, &sig))
		die("sigwait");
}

static void run_vcpu(int vcpu, struct kvm_run *run)
{
	struct timespec t0;

	arm_overdue();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (o.irqchip)
		run_irqchip(vcpu, run, &t0);
	else
		run_plain(vcpu, run, &t0);
}

/* --name: the vCPU's own thread, created, named and run there as QEMU does. */
static void *vcpu_thread(void *arg)
{
	struct kvm_run *run;
	int vcpu;

	(void)arg;
	if (prctl(PR_SET_NAME, "CPU 0/KVM"))
		die("PR_SET_NAME");
	vcpu_tid = gettid();
	run = setup_vcpu(&vcpu);
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&go);
	run_vcpu(vcpu, run);
	return NULL;
}

static void remove_pidfile(void)
{
	unlink(pidfile);
}

static void write_pidfile(void)
{
	char tmp[sizeof(pidfile) + 8];
	FILE *f;

	if (snprintf(pidfile, sizeof(pidfile), "%s/%s.pid", o.pidfile_dir, o.name) >=
	    (int)sizeof(pidfile))
		usage();
	snprintf(tmp, sizeof(tmp), "%s.tmp", pidfile);
	f = fopen(tmp, "w");
	if (!f)
		die(tmp);
	fprintf(f, "%d\n", (int)getpid());
	if (fclose(f) || rename(tmp, pidfile))
		die(pidfile);
	atexit(remove_pidfile);
}

/* "--name NAME" becomes "-name NAME", as QEMU's command line has it (vmfind looks there). */
static void reexec_with_name(int argc, char **argv)
{
	char **nargv = calloc((size_t)argc + 1, sizeof(*nargv));
	static char self[4096];
	ssize_t n;
	int i;

	if (!nargv)
		die("calloc");
	for (i = 0; i < argc; i++)
		nargv[i] = strcmp(argv[i], "--name") ? argv[i] : (char *)"-name";
	/* by its own path, not /proc/self/exe: the process keeps its name (comm) */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || n == (ssize_t)sizeof(self) - 1)
		die("readlink /proc/self/exe");
	execv(self, nargv);
	die(self);
}

static void parse(int argc, char **argv)
{
	int i, npos = 0, dashdash_name = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--irqchip")) {
			o.irqchip = 1;
		} else if (!strcmp(a, "--wait")) {
			o.wait = 1;
		} else if (!strcmp(a, "--name") || !strcmp(a, "-name")) {
			if (++i == argc || !*argv[i] || strchr(argv[i], '/'))
				usage();
			dashdash_name |= a[1] == '-';
			o.name = argv[i];
		} else if (!strcmp(a, "--pidfile-dir")) {
			if (++i == argc)
				usage();
			o.pidfile_dir = argv[i];
		} else if (!strcmp(a, "--io-work")) {
			if (++i == argc)
				usage();
			o.io_work_us = parse_long(argv[i], 10 * 1000 * 1000);
		} else if (!strcmp(a, "--hlt-usec")) {
			if (++i == argc)
				usage();
			/* at least 1 us: a count of 0 would never fire and the HLT never end */
			o.hlt_us = parse_long(argv[i], 4 * 1000 * 1000);
			if (!o.hlt_us)
				usage();
		} else if (a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9')) {
			usage();
		} else if (npos == 0) {
			o.cpu = (int)parse_long(a, CPU_SETSIZE - 1);
			npos++;
		} else if (npos == 1) {
			char *end;

			o.seconds = strtod(a, &end);
			if (end == a || *end || !(o.seconds >= 0))
				usage();
			npos++;
		} else {
			usage();
		}
	}
	if (npos != 2)
		usage();
	if (dashdash_name)
		reexec_with_name(argc, argv);
}

int main(int argc, char **argv)
{
	struct kvm_userspace_memory_region region;
	pthread_t thread;
	cpu_set_t set;
	sigset_t sigs;

	parse(argc, argv);
	/* the whole process, so the vCPU thread inherits it, as libvirt pins a domain */
	CPU_ZERO(&set);
	CPU_SET(o.cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	/* blocked in every thread: SIGUSR1 taken by sigwait() only, SIGALRM by the vCPU's */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGALRM);
	if (pthread_sigmask(SIG_BLOCK, &sigs, NULL))
		die("pthread_sigmask");
	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0)
		die("/dev/kvm");
	vm_fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm_fd < 0)
		die("KVM_CREATE_VM");
	if (o.irqchip && ioctl(vm_fd, KVM_CREATE_IRQCHIP, 0))
		die("KVM_CREATE_IRQCHIP");
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap");
	if (o.irqchip) {
		put_le32(irq_code + TMICT_IMM_AT, (uint32_t)o.hlt_us * 1000);
		memcpy(mem + CODE_AT, irq_code, sizeof(irq_code));
		memcpy(mem + ISR_AT, isr_code, sizeof(isr_code));
		mem[IRET_AT] = 0xcf;
		/* the real-mode vector table: offset, then segment 0 */
		put_le32(mem + IRQ_VECTOR * 4, ISR_AT);
		put_le32(mem + SPURIOUS_VECTOR * 4, IRET_AT);
	} else {
		memcpy(mem + CODE_AT, code, sizeof(code));
	}
	memset(&region, 0, sizeof(region));
	region.memory_size = MEM_SIZE;
	region.userspace_addr = (uintptr_t)mem;
	if (ioctl(vm_fd, KVM_SET_USER_MEMORY_REGION, &region))
		die("KVM_SET_USER_MEMORY_REGION");

	if (o.name) {
		if (pthread_barrier_init(&ready, NULL, 2) || pthread_barrier_init(&go, NULL, 2))
			die("pthread_barrier_init");
		errno = pthread_create(&thread, NULL, vcpu_thread, NULL);
		if (errno)
			die("pthread_create");
		pthread_barrier_wait(&ready);
		write_pidfile();
		if (o.wait)
			wait_for_start();
		pthread_barrier_wait(&go);
		errno = pthread_join(thread, NULL);
		if (errno)
			die("pthread_join");
	} else {
		struct kvm_run *run;
		int vcpu;

		vcpu_tid = getpid();
		run = setup_vcpu(&vcpu);
		if (o.wait)
			wait_for_start();
		run_vcpu(vcpu, run);
	}
	printf("rounds %llu cpuid %llu io %llu mmio %llu hlt %llu pid %d tid %d", counts.rounds,
	       counts.rounds * ROUND_CPUIDS, counts.io, counts.mmio, counts.hlt, (int)getpid(),
	       (int)vcpu_tid);
	if (o.irqchip)
		printf(" irqs %llu hlt_us %ld", counts.irqs, o.hlt_us);
	if (o.io_work_us)
		printf(" io_work_us %ld", o.io_work_us);
	if (o.name)
		printf(" name %s", o.name);
	printf("\n");
	return 0;
}
