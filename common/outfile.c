// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

struct vmt_outfile {
	int fd;
	unsigned int flags;
	int slot;		/* in the signal registry, or -1 */
	bool direct;		/* standard output, a device or a FIFO: written in place */
	char *path;
	char *tmp;		/* == path when direct */
};

/*
 * The names the signal handlers remove. A slot is claimed (1) by compare-and-swap, filled,
 * then published (2); the handler only reads published slots. Lock-free atomics are
 * async-signal-safe, a mutex would not be.
 */
#define REG_SLOTS 8
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal registry needs lock-free ints");
static char reg_path[REG_SLOTS][PATH_MAX];
static atomic_int reg_state[REG_SLOTS];

static int reg_add(const char *path)
{
	int i;

	if (strlen(path) >= PATH_MAX)
		return -1;
	for (i = 0; i < REG_SLOTS; i++) {
		int expected = 0;

		if (atomic_compare_exchange_strong(&reg_state[i], &expected, 1)) {
			strcpy(reg_path[i], path);
			atomic_store(&reg_state[i], 2);
			return i;
		}
	}
	return -1;
}

static void reg_remove(int slot)
{
	if (slot >= 0)
		atomic_store(&reg_state[slot], 0);
}

static void on_signal(int sig)
{
	int saved = errno, i;

	for (i = 0; i < REG_SLOTS; i++)
		if (atomic_load(&reg_state[i]) == 2)
			unlink(reg_path[i]);
	/* The signal is blocked while we run: it kills us as soon as we return. */
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

void vmt_outfile_unlink_on_signal(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* An ignored signal stays ignored (nohup). */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

int vmt_outfile_tmp_name(const char *path, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s.%ld.part", path, (long)getpid());

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Create the temporary file and register it, with the stop signals held off in between. */
static int open_tmp(struct vmt_outfile *of)
{
	sigset_t block, old;
	int ret = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	/* O_EXCL|O_NOFOLLOW: never write through a link someone placed there. */
	of->fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (of->fd < 0)
		ret = -errno;
	else if (!(of->flags & VMT_OUTFILE_KEEP_PARTIAL))
		of->slot = reg_add(of->tmp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

int vmt_outfile_open(const char *path, unsigned int flags, struct vmt_outfile **out)
{
	struct vmt_outfile *of;
	char tmp[PATH_MAX];
	struct stat st;
	int ret;

	*out = NULL;
	if (!path || !*path)
		return -EINVAL;
	of = calloc(1, sizeof(*of));
	if (!of)
		return -ENOMEM;
	of->fd = -1;
	of->slot = -1;
	of->flags = flags;
	of->path = strdup(path);
	if (!of->path) {
		ret = -ENOMEM;
		goto out_free;
	}
	if (strcmp(path, "-") == 0) {
		of->fd = STDOUT_FILENO;
		of->direct = true;
	} else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			ret = -EISDIR;
			goto out_free;
		}
		of->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (of->fd < 0) {
			ret = -errno;
			goto out_free;
		}
		of->direct = true;
	}
	if (of->direct) {
		of->tmp = of->path;
		*out = of;
		return 0;
	}
	ret = vmt_outfile_tmp_name(path, tmp, sizeof(tmp));
	if (ret)
		goto out_free;
	of->tmp = strdup(tmp);
	if (!of->tmp) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = open_tmp(of);
	if (ret)
		goto out_free;
	*out = of;
	return 0;

out_free:
	free(of->tmp);
	free(of->path);
	free(of);
	return ret;
}

int vmt_outfile_fd(const struct vmt_outfile *of)
{
	return of->fd;
}

const char *vmt_outfile_path(const struct vmt_outfile *of)
{
	return of->path;
}

const char *vmt_outfile_tmp_path(const struct vmt_outfile *of)
{
	return of->tmp;
}

static void outfile_free(struct vmt_outfile *of)
{
	reg_remove(of->slot);
	if (of->tmp != of->path)
		free(of->tmp);
	free(of->path);
	free(of);
}

/* Close the fd we opened (never standard output); 0 or -errno. */
static int close_fd(struct vmt_outfile *of)
{
	int ret = 0;

	if (of->fd >= 0 && of->fd != STDOUT_FILENO && close(of->fd) < 0)
		ret = -errno;
	of->fd = -1;
	return ret;
}

static int move_into_place(struct vmt_outfile *of, bool *kept_old)
{
	char old[PATH_MAX];
	struct stat st;
	bool moved = false;
	int ret;

	if ((of->flags & VMT_OUTFILE_KEEP_OLD) && lstat(of->path, &st) == 0) {
		if (snprintf(old, sizeof(old), "%s.old", of->path) >= (int)sizeof(old))
			return -ENAMETOOLONG;
		if (rename(of->path, old) < 0)
			return -errno;
		moved = true;
	}
	if (rename(of->tmp, of->path) < 0) {
		ret = -errno;
		if (moved)
			rename(old, of->path);	/* the previous file back where it was */
		return ret;
	}
	if (kept_old)
		*kept_old = moved;
	return 0;
}

int vmt_outfile_commit(struct vmt_outfile *of, bool *kept_old, char **stuck)
{
	struct stat st;
	int ret = 0, r2;

	if (kept_old)
		*kept_old = false;
	if (stuck)
		*stuck = NULL;
	if (!of->direct || (fstat(of->fd, &st) == 0 && S_ISREG(st.st_mode))) {
		if (fsync(of->fd) < 0)
			ret = -errno;
	}
	r2 = close_fd(of);
	if (!ret)
		ret = r2;
	if (!of->direct) {
		if (!ret)
			ret = move_into_place(of, kept_old);
		if (ret && (of->flags & VMT_OUTFILE_KEEP_PARTIAL)) {
			if (stuck)
				*stuck = strdup(of->tmp);
		} else if (ret) {
			unlink(of->tmp);
		}
	}
	outfile_free(of);
	return ret;
}

static void drop(struct vmt_outfile *of, bool remove)
{
	if (!of)
		return;
	close_fd(of);
	if (!of->direct && remove)
		unlink(of->tmp);
	outfile_free(of);
}

void vmt_outfile_abort(struct vmt_outfile *of)
{
	drop(of, of && !(of->flags & VMT_OUTFILE_KEEP_PARTIAL));
}

void vmt_outfile_discard(struct vmt_outfile *of)
{
	drop(of, true);
}

int vmt_outfile_is_same_file(const char *path, const char *input)
{
	struct stat a, b;

	/* "-": the descriptors themselves (what /dev/stdout names may not be ours) */
	if ((strcmp(path, "-") ? stat(path, &a) : fstat(STDOUT_FILENO, &a)) < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	if ((strcmp(input, "-") ? stat(input, &b) : fstat(STDIN_FILENO, &b)) < 0)
		return -errno;
	return S_ISREG(b.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int vmt_outfile_binary_on_tty(const char *path, const char *format, char *msg, size_t size)
{
	if (strcmp(path, "-") != 0 || !isatty(STDOUT_FILENO))
		return 0;
	snprintf(msg, size, "standard output: refusing to write binary %s data to a terminal; "
		 "redirect it or use -o FILE", format);
	return 1;
}

int vmt_outfile_over_input(const char *path, const char *input, const char *what, char *msg,
			   size_t size)
{
	const char *end = ": refusing to write over it";

	if (vmt_outfile_is_same_file(path, input) != 1)
		return 0;
	if (!strcmp(path, "-") && !strcmp(input, "-"))
		snprintf(msg, size, "standard output is the file on standard input%s", end);
	else if (!strcmp(path, "-"))
		snprintf(msg, size, "standard output is the input file %s%s", input, end);
	else if (!strcmp(input, "-"))
		snprintf(msg, size, "%s: %s is the file on standard input%s", path, what, end);
	else if (!strcmp(path, input))
		snprintf(msg, size, "%s: %s is the input file%s", path, what, end);
	else
		snprintf(msg, size, "%s: %s is the input file %s (another name or a link for it)%s",
			 path, what, input, end);
	return 1;
}
