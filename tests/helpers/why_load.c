// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * why_load (tests only): workloads whose system calls take long for a known reason, to
 * check the attribution of causes on real scheduler events (raw_syscalls as the pair):
 *
 *   why_load block CPU ROUNDS SPIN_US
 *	a reader and a writer pinned to CPU, lock-stepped by two pipes: each round the
 *	reader's read() blocks while the writer spins SPIN_US of wall time, then writes
 *	the byte that wakes it. The writer starts its spin only once the reader sleeps,
 *	so the whole spin lies inside the read's sleep however the two are scheduled.
 *	Prints "reader PID writer PID rounds N spin_us US".
 *   why_load zero CPU SECONDS KIB
 *	read()s of KIB KiB from /dev/zero, pinned to CPU, for SECONDS: long system calls
 *	with reschedule points inside, where a competing task takes the CPU.
 *	Prints "reader PID reads N".
 *   why_load hog CPU SECONDS
 *	a busy loop pinned to CPU, the competitor. Prints "hog PID".
 *   why_load spikes CPU ROUNDS BLOCK_US BURST_MS PAUSE_US
 *	known long system calls for the flight recorder, in a process that looks like a
 *	VMM with one vCPU (its thread is named "CPU 0/KVM", as QEMU names them), so that
 *	vmtrace-record --vm PID filters on it alone. Prints "pid PID ready", waits for a line
 *	on stdin, then each round: BURST_MS of getppid() calls, 50 at a time with a PAUSE_US
 *	sleep between (0: flat out), then a read() that a forked waker answers after
 *	BLOCK_US (nanosleep); a last burst after the rounds (it fills the page that holds the
 *	last read's end: a CPU's page reaches the reader when full). Then prints
 *	"reader PID rounds N block_us US".
 *   why_load stuck CPU
 *	a vCPU stuck in its exit: pinned to CPU, named "CPU 0/KVM" as above, prints
 *	"pid PID ready", reads the go line from stdin, then blocks in a read() of stdin
 *	until it is killed: no other system call between (its only pair-less events).
 */
#include "config.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * Until task pid sleeps (state S in /proc/PID/stat), give it the CPU: woken by the
 * reader's byte, the writer may run before the reader has reached its next read(), and a
 * spin begun then would partly precede the sleep it is meant to cause.
 */
static int wait_asleep(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	for (;;) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return -1;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return -1;
		buf[n] = 0;
		p = strrchr(buf, ')');	/* the comm may hold spaces and parentheses */
		if (p && p[1] == ' ' && p[2] == 'S')
			return 0;
		sched_yield();
	}
}

static int block(int cpu, long rounds, long spin_us)
{
	int to_reader[2], to_writer[2];
	pid_t writer;
	char c = 0;
	long i;

	if (pipe(to_reader) || pipe(to_writer))
		return 1;
	pin(cpu);
	writer = fork();
	if (writer < 0)
		return 1;
	if (writer == 0) {
		pid_t reader = getppid();

		for (i = 0; i < rounds; i++) {
			double until;

			if (wait_asleep(reader))
				_exit(1);
			until = now() + (double)spin_us / 1e6;
			while (now() < until)
				;
			if (write(to_reader[1], &c, 1) != 1 || read(to_writer[0], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	for (i = 0; i < rounds; i++) {
		if (read(to_reader[0], &c, 1) != 1 || write(to_writer[1], &c, 1) != 1)
			return 1;
	}
	waitpid(writer, NULL, 0);
	printf("reader %ld writer %ld rounds %ld spin_us %ld\n", (long)getpid(), (long)writer,
	       rounds, spin_us);
	return 0;
}

static int zero(int cpu, double seconds, long kib)
{
	char *buf = malloc((size_t)kib * 1024);
	int fd = open("/dev/zero", O_RDONLY), ret = 1;
	double until;
	long n = 0;

	if (!buf || fd < 0)
		goto out;
	pin(cpu);
	until = now() + seconds;
	while (now() < until) {
		if (read(fd, buf, (size_t)kib * 1024) < 0)
			goto out;
		n++;
	}
	printf("reader %ld reads %ld\n", (long)getpid(), n);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);	/* the suite also runs under LeakSanitizer */
	return ret;
}

static int hog(int cpu, double seconds)
{
	double until;

	pin(cpu);
	printf("hog %ld\n", (long)getpid());
	fflush(stdout);
	until = now() + seconds;
	while (now() < until)
		;
	return 0;
}

static void sleep_us(long us)
{
	struct timespec t = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&t, &t))
		;
}

static int spikes(int cpu, long rounds, long block_us, long burst_ms, long pause_us)
{
	int to_reader[2], to_waker[2];
	pid_t waker;
	char c = 0;
	long i, k;

	if (pipe(to_reader) || pipe(to_waker))
		return 1;
	pin(cpu);
	waker = fork();
	if (waker < 0)
		return 1;
	if (waker == 0) {
		close(to_waker[1]);	/* the reader's close is then the end */
		while (read(to_waker[0], &c, 1) == 1) {
			sleep_us(block_us);
			if (write(to_reader[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(to_waker[0]);
	if (prctl(PR_SET_NAME, "CPU 0/KVM", 0, 0, 0))
		return 1;
	printf("pid %ld ready\n", (long)getpid());
	fflush(stdout);
	while (read(STDIN_FILENO, &c, 1) == 1 && c != '\n')
		;
	for (i = 0; i <= rounds; i++) {
		double until = now() + (double)burst_ms / 1e3;

		while (now() < until) {
			for (k = 0; k < 50; k++)
				getppid();
			if (pause_us)
				sleep_us(pause_us);
		}
		if (i < rounds &&
		    (write(to_waker[1], &c, 1) != 1 || read(to_reader[0], &c, 1) != 1))
			return 1;
	}
	close(to_waker[1]);	/* the waker ends */
	waitpid(waker, NULL, 0);
	printf("reader %ld rounds %ld block_us %ld\n", (long)getpid(), rounds, block_us);
	return 0;
}

static int stuck(int cpu)
{
	char c;

	pin(cpu);
	if (prctl(PR_SET_NAME, "CPU 0/KVM", 0, 0, 0))
		return 1;
	printf("pid %ld ready\n", (long)getpid());
	fflush(stdout);
	while (read(STDIN_FILENO, &c, 1) == 1 && c != '\n')
		;
	/* the go line's end came in one read: the next blocks for good */
	return read(STDIN_FILENO, &c, 1) < 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "block") == 0)
		return block(atoi(argv[2]), atol(argv[3]), atol(argv[4]));
	if (argc == 5 && strcmp(argv[1], "zero") == 0)
		return zero(atoi(argv[2]), atof(argv[3]), atol(argv[4]));
	if (argc == 3 && strcmp(argv[1], "stuck") == 0)
		return stuck(atoi(argv[2]));
	if (argc == 4 && strcmp(argv[1], "hog") == 0)
		return hog(atoi(argv[2]), atof(argv[3]));
	if (argc == 7 && strcmp(argv[1], "spikes") == 0)
		return spikes(atoi(argv[2]), atol(argv[3]), atol(argv[4]), atol(argv[5]),
			      atol(argv[6]));
	fprintf(stderr, "usage: why_load block CPU ROUNDS SPIN_US | zero CPU SECONDS KIB | "
		"hog CPU SECONDS | spikes CPU ROUNDS BLOCK_US BURST_MS PAUSE_US\n");
	return 2;
}
