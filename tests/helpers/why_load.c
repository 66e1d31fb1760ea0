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
 */
#include "config.h"

#include <fcntl.h>
#include <sched.h>
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

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "block") == 0)
		return block(atoi(argv[2]), atol(argv[3]), atol(argv[4]));
	if (argc == 5 && strcmp(argv[1], "zero") == 0)
		return zero(atoi(argv[2]), atof(argv[3]), atol(argv[4]));
	if (argc == 4 && strcmp(argv[1], "hog") == 0)
		return hog(atoi(argv[2]), atof(argv[3]));
	fprintf(stderr, "usage: why_load block CPU ROUNDS SPIN_US | zero CPU SECONDS KIB | "
		"hog CPU SECONDS\n");
	return 2;
}
