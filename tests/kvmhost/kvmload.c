// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kvmload (tests only): a tiny KVM workload with a known mix of exits, for the KVM host
 * harness. One vCPU in real mode runs, round after round:
 *     CPUID x ROUND_CPUIDS    (handled in the kernel: pure exit/entry pairs)
 *     OUT 0x10                (an I/O exit to user space)
 *     a write to 0x9000       (outside guest memory: an MMIO exit to user space)
 *     HLT                     (no in-kernel irqchip: a HLT exit to user space)
 * It pins itself to CPU, runs for SECONDS and at least MIN_ROUNDS rounds (however slow the
 * emulation is today) and prints what it counted:
 *     rounds R cpuid C io I mmio M hlt H
 * where C = R * ROUND_CPUIDS is exact for whole rounds (the last round may be cut).
 *
 *   kvmload CPU SECONDS [MIN_ROUNDS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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

static void die(const char *what)
{
	fprintf(stderr, "kvmload: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	struct kvm_userspace_memory_region region;
	unsigned long long io = 0, mmio = 0, hlt = 0;
	struct timespec t0, t;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_run *run;
	int kvm, vm, vcpu, cpu;
	double seconds;
	unsigned long long min_rounds = 0;
	cpu_set_t set;
	uint8_t *mem;
	long size;

	if (argc != 3 && argc != 4)
		return 2;
	cpu = atoi(argv[1]);
	seconds = atof(argv[2]);
	if (argc == 4)
		min_rounds = strtoull(argv[3], NULL, 10);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		die("/dev/kvm");
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		die("KVM_CREATE_VM");
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap");
	memcpy(mem + CODE_AT, code, sizeof(code));
	memset(&region, 0, sizeof(region));
	region.memory_size = MEM_SIZE;
	region.userspace_addr = (uintptr_t)mem;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region))
		die("KVM_SET_USER_MEMORY_REGION");
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		die("KVM_CREATE_VCPU");
	size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	run = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		die("mmap vcpu");
	if (ioctl(vcpu, KVM_GET_SREGS, &sregs))
		die("KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	sregs.ds.base = 0;
	sregs.ds.selector = 0;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs))
		die("KVM_SET_SREGS");
	memset(&regs, 0, sizeof(regs));
	regs.rip = CODE_AT;
	regs.rflags = 2;
	if (ioctl(vcpu, KVM_SET_REGS, &regs))
		die("KVM_SET_REGS");

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0) {
			if (errno == EINTR)
				continue;
			die("KVM_RUN");
		}
		switch (run->exit_reason) {
		case KVM_EXIT_IO:
			io++;
			break;
		case KVM_EXIT_MMIO:
			mmio++;
			break;
		case KVM_EXIT_HLT:
			hlt++;
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= seconds &&
			    hlt >= min_rounds)
				goto done;
			break;
		default:
			fprintf(stderr, "kvmload: unexpected exit %u\n", run->exit_reason);
			return 1;
		}
	}
done:
	/* every round ends with its HLT: whole rounds are exact */
	printf("rounds %llu cpuid %llu io %llu mmio %llu hlt %llu\n", hlt,
	       hlt * ROUND_CPUIDS, io, mmio, hlt);
	return 0;
}
