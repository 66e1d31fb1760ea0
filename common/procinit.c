// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "procinit.h"

static bool std_closed[3];

void vmt_proc_init(void)
{
	int fd, n;

	for (fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		std_closed[fd] = true;
		/*
		 * open() takes the lowest free number: this one. Standard input opened for
		 * writing, the outputs for reading: a program that uses one anyway fails
		 * (EBADF) instead of reading nothing or writing into nowhere.
		 */
		n = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
		if (n >= 0 && n != fd)
			close(n);	/* never: the lower ones are open */
	}
	signal(SIGXFSZ, SIG_IGN);
}

bool vmt_proc_std_closed(int fd)
{
	return fd >= 0 && fd < 3 && std_closed[fd];
}

const char *vmt_proc_std_strerror(int fd, int err)
{
	return vmt_proc_std_closed(fd) ? "it is closed" : strerror(err);
}
