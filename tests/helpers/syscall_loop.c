// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * syscall_loop (tests only): a real, high-rate source of begin/end tracepoint pairs.
 * Pins itself to CPU, makes N getppid()
 * system calls (each fires raw_syscalls:sys_enter and sys_exit), prints its pid and N.
 *
 *   syscall_loop [-r] CPU N            -> "pid PID calls N iwi D"
 *   syscall_loop [-r] CPU 0 SECONDS    -> loop for SECONDS instead, then print the count
 *   syscall_loop [-r] CPU N wait       -> "pid PID ready" once pinned, then waits for a line
 *                                         on stdin, makes the calls, prints the line above
 *                                         and waits for another line before it exits:
 *                                         asleep at both ends, so its context-switch counts
 *                                         in /proc/PID/status can be read while they stand
 *                                         still
 *
 * D is how many irq_work interrupts (/proc/interrupts row IWI) CPU took during the loop,
 * or "-" where the kernel has no such row. -r runs the loop at SCHED_FIFO priority 10, so
 * that no ordinary task shares CPU with it meanwhile: on a loaded machine the interrupts
 * counted are then those of the loop and of what watches it, not of other work.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Block until a line (or EOF) arrives on stdin, byte by byte: nothing read ahead. */
static void wait_line(void)
{
	char c;

	while (read(0, &c, 1) == 1 && c != '\n')
		;
}

/* The IWI count of cpu, or -1 when /proc/interrupts has no IWI row. */
static long long iwi_count(int cpu)
{
	char line[8192];
	long long v = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		int i;

		while (*p == ' ')
			p++;
		if (strncmp(p, "IWI:", 4) != 0)
			continue;
		p += 4;
		/* one column per online CPU, in order: this machine's CPUs are 0..n-1 */
		for (i = 0; i <= cpu; i++) {
			v = strtoll(p, &end, 10);
			if (end == p) {
				v = -1;
				break;
			}
			p = end;
		}
		break;
	}
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	unsigned long long n, i = 0;
	double seconds = 0;
	long long iwi0, iwi1;
	cpu_set_t set;
	int cpu, rt = 0, wait = 0;

	if (argc > 1 && strcmp(argv[1], "-r") == 0) {
		rt = 1;
		argv++;
		argc--;
	}
	if (argc < 3)
		return 2;
	cpu = atoi(argv[1]);
	n = strtoull(argv[2], NULL, 10);
	if (argc > 3 && strcmp(argv[3], "wait") == 0)
		wait = 1;
	else if (argc > 3)
		seconds = atof(argv[3]);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	if (rt) {
		struct sched_param sp = { .sched_priority = 10 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("sched_setscheduler");
			return 1;
		}
	}
	if (wait) {
		printf("pid %ld ready\n", (long)getpid());
		fflush(stdout);
		wait_line();
	}
	iwi0 = iwi_count(cpu);
	if (seconds > 0) {
		struct timespec t0, t;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			unsigned int k;

			for (k = 0; k < 1000; k++)
				syscall(SYS_getppid);
			i += 1000;
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	} else {
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
	}
	iwi1 = iwi_count(cpu);
	if (iwi0 < 0 || iwi1 < 0)
		printf("pid %ld calls %llu iwi -\n", (long)getpid(), i);
	else
		printf("pid %ld calls %llu iwi %lld\n", (long)getpid(), i, iwi1 - iwi0);
	if (wait) {
		fflush(stdout);
		wait_line();
	}
	return 0;
}
