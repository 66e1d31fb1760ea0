// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"

ssize_t vmt_io_read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t vmt_io_pread_full(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int vmt_io_write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENOSPC;
		done += (size_t)n;
	}
	return 0;
}

int vmt_io_read_file(const char *path, size_t max_bytes, char **out, size_t *len_out)
{
	size_t cap = 4096, len = 0;
	char *buf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap + 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out_close;
	}
	/* tracefs and procfs files report size 0, so read until EOF instead of fstat(). */
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *bigger;

			if (cap >= max_bytes) {
				ret = -EFBIG;
				goto out_free;
			}
			cap = cap * 2 > max_bytes ? max_bytes : cap * 2;
			bigger = realloc(buf, cap + 1);
			if (!bigger) {
				ret = -ENOMEM;
				goto out_free;
			}
			buf = bigger;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out_free;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	if (len_out)
		*len_out = len;
	close(fd);
	return 0;

out_free:
	free(buf);
out_close:
	close(fd);
	return ret;
}

int vmt_io_write_str(const char *path, const char *s)
{
	int fd, ret;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = vmt_io_write_full(fd, s, strlen(s));
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	return ret;
}

const char *vmt_io_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

int vmt_io_tmpfile(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* file systems without O_TMPFILE */
	if (snprintf(path, sizeof(path), "%s/%s.XXXXXX", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}
