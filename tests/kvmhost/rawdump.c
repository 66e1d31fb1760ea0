// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rawdump (tests only): copies a trace_pipe_raw file to standard output with
 * non-blocking reads until it is empty, one sub-buffer per read, padding short pages to
 * PAGE bytes. (A blocking read can return 0 while the writer holds the reader page.)
 *
 *   rawdump FILE PAGE
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t page;
	char *buf;
	int fd;

	if (argc != 3)
		return 2;
	page = (size_t)atol(argv[2]);
	buf = malloc(page);
	fd = open(argv[1], O_RDONLY | O_NONBLOCK);
	if (fd < 0 || !buf) {
		perror(argv[1]);
		return 1;
	}
	for (;;) {
		ssize_t n = read(fd, buf, page);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		memset(buf + n, 0, page - (size_t)n);
		if (fwrite(buf, 1, page, stdout) != page)
			return 1;
	}
	return 0;
}
