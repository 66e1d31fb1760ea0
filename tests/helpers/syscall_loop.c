// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * syscall_loop (tests only): a real, high-rate source of begin/end tracepoint pairs.
 * Pins itself to CPU, makes N getppid() system calls (each fires raw_syscalls:sys_enter
 * and sys_exit), prints its pid and N.
 *
 *   syscall_loop CPU N            -> "pid PID calls N"
 *   syscall_loop CPU 0 SECONDS    -> loop for SECONDS instead, then print the count
 *   syscall_loop CPU N wait       -> "pid PID ready" once pinned, then waits for a line on
 *                                    stdin, makes the calls, prints "pid PID calls N" and
 *                                    waits for another line before it exits: asleep at
 *                                    both ends, so its context-switch counts in
 *                                    /proc/PID/status can be read while they stand still
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

int main(int argc, char **argv)
{
	unsigned long long n, i = 0;
	double seconds = 0;
	cpu_set_t set;
	int cpu, wait = 0;

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
	if (wait) {
		printf("pid %ld ready\n", (long)getpid());
		fflush(stdout);
		wait_line();
	}
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
	printf("pid %ld calls %llu\n", (long)getpid(), i);
	if (wait) {
		fflush(stdout);
		wait_line();
	}
	return 0;
}
