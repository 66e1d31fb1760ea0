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
#include <sys/types.h>
#include <unistd.h>

#include "outfile.h"
#include "procinit.h"
#include "source.h"

struct vmt_outfile {
	int fd;
	unsigned int flags;
	int slot;		/* in the signal registry, or -1 */
	int created_slot;	/* the created target's, or -1 */
	bool direct;		/* standard output, a device or a FIFO: written in place */
	bool created;		/* target made through a dangling link: removed on abort */
	char *path;
	char *target;		/* path, or where its symbolic links lead (== path if none) */
	char *tmp;		/* == path when direct */
	char note[256];		/* why the old file's owner or group could not be kept */
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
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
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

/*
 * The descriptor of ours that p names, through /dev/fd/N, /dev/stdout, /proc/self/fd/N,
 * /proc/PID/fd/N (this process) or /proc/thread-self/fd/N: N, else -1. Such a name is an
 * open file description, not a place: written through a copy of the descriptor, at its
 * offset and with its flags (">>" appends), as the shell does for these names.
 */
static int own_fd(const char *p)
{
	char dir[PATH_MAX], real[PATH_MAX], mine[64];
	const char *slash = strrchr(p, '/'), *base = slash ? slash + 1 : p;
	size_t dlen = slash ? (size_t)(slash - p) : 0;
	char *end;
	long n;

	if (!slash || !*base || dlen >= sizeof(dir))
		return -1;
	errno = 0;
	n = strtol(base, &end, 10);
	if (*end || errno || n < 0 || n > INT_MAX || base[0] == '-' || base[0] == '+')
		return -1;
	memcpy(dir, p, dlen);
	dir[dlen] = '\0';
	if (!realpath(dlen ? dir : "/", real))
		return -1;
	snprintf(mine, sizeof(mine), "/proc/%ld/", (long)getpid());
	if (strncmp(real, mine, strlen(mine)) != 0)
		return -1;
	end = real + strlen(mine);
	if (strcmp(end, "fd") == 0)
		return (int)n;
	/* /proc/PID/task/TID/fd: the threads of a process share its descriptors */
	if (strncmp(end, "task/", 5) == 0 && strlen(end) > 8 &&
	    strcmp(end + strlen(end) - 3, "/fd") == 0)
		return (int)n;
	return -1;
}

/*
 * Whether the symbolic link at path (lst its lstat) may be followed: the kernel's
 * fs.protected_symlinks rule, kept whatever the sysctl says (it is 0 on some hosts), as
 * the program may run as root. A link in a sticky, world-writable directory (/tmp) is
 * followed only when it is ours or the directory owner's, so another user's link there
 * cannot send an output over a file of theirs choosing.
 */
static bool link_may_be_followed(const char *path, const struct stat *lst)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat dst;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if (snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path) >= (int)sizeof(dir))
		return false;
	if (stat(dir, &dst) < 0)
		return false;
	return !(dst.st_mode & S_ISVTX) || !(dst.st_mode & S_IWOTH) ||
	       lst->st_uid == geteuid() || lst->st_uid == dst.st_uid;
}

/* Whether path, through its chain of symbolic links, names a descriptor of ours (own_fd). */
static int link_to_own_fd(const char *path)
{
	char p[PATH_MAX], link[PATH_MAX], next[PATH_MAX];
	struct stat st;
	int depth, fd;

	if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p))
		return -1;
	for (depth = 0; depth < 40; depth++) {
		ssize_t n;
		char *slash;

		fd = own_fd(p);
		if (fd >= 0)
			return fd;
		if (lstat(p, &st) < 0 || !S_ISLNK(st.st_mode))
			return -1;
		if (!link_may_be_followed(p, &st))
			return -2;
		n = readlink(p, link, sizeof(link) - 1);
		if (n < 0)
			return -1;
		link[n] = '\0';
		slash = strrchr(p, '/');
		if (link[0] == '/' || !slash)
			snprintf(next, sizeof(next), "%s", link);
		else if (snprintf(next, sizeof(next), "%.*s/%s", (int)(slash - p), p, link) >=
			 (int)sizeof(next))
			return -1;
		memcpy(p, next, sizeof(p));
	}
	return -1;
}

/*
 * Where a symbolic link at path leads, into buf, as the kernel follows it (so that
 * fs.protected_symlinks applies as it does to the shell's ">"): a dangling link's target is
 * created through it (*created). *st is what it leads to. Returns 0 or -errno.
 */
static int follow_link(const char *path, char *buf, size_t size, struct stat *st,
		       bool *created)
{
	char self[64];
	ssize_t n;
	int fd;

	*created = false;
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* no O_EXCL: it would refuse the link itself */
		fd = open(path, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, 0644);
		*created = fd >= 0;
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		n = -errno;
		goto out;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	n = readlink(self, buf, size - 1);
	if (n < 0 || (size_t)n >= size - 1 || buf[0] != '/') {
		/* no /proc: the C library's walk, or the link's own name for a device or pipe */
		if (!realpath(path, buf) && snprintf(buf, size, "%s", path) >= (int)size)
			n = -ENAMETOOLONG;
		else
			n = 0;
	} else {
		buf[n] = '\0';
		n = 0;
	}
out:
	close(fd);
	return (int)n;
}

/* the words for fs.protected_symlinks' refusal (link_may_be_followed) */
#define FOREIGN_LINK "refusing to follow another user's symbolic link in a sticky, " \
		     "world-writable directory"

/*
 * How path is written: 1 directly (standard output, one of our descriptors, an existing
 * file that is not regular: *fd set when it is one of ours, else -1), 0 through a temporary
 * file next to target (path, or where its links lead), -errno when it cannot be told. *st is
 * the existing file (st_mode 0 when there is none). *what: the step that failed, in words.
 */
static int resolve(const char *path, char *target, size_t size, int *fd, struct stat *st,
		   bool *created, const char **what)
{
	struct stat lst;
	int ret;

	*what = "cannot open";
	*fd = -1;
	*created = false;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "-") == 0) {
		*fd = STDOUT_FILENO;
		return 1;
	}
	*fd = link_to_own_fd(path);
	if (*fd == -2) {
		*what = FOREIGN_LINK;
		return -EACCES;
	}
	if (*fd >= 0) {
		int fl = fcntl(*fd, F_GETFD);

		/*
		 * Only a descriptor given to the program: every one it opens itself is
		 * close-on-exec (an input's copy, the recorder's pipes), and one given across
		 * exec cannot be. Writing into those would lose the output, or damage data.
		 */
		*what = "cannot write into that descriptor (not one given to the program)";
		return fl < 0 || (fl & FD_CLOEXEC) ? -EBADF : 1;
	}
	if (snprintf(target, size, "%s", path) >= (int)size)
		return -ENAMETOOLONG;
	if (lstat(path, &lst) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(lst.st_mode)) {
		*what = FOREIGN_LINK;
		if (!link_may_be_followed(path, &lst))
			return -EACCES;
		*what = "cannot follow its symbolic link";
		ret = follow_link(path, target, size, st, created);
		if (ret)
			return ret;
		*what = "cannot open";
	} else {
		*st = lst;
	}
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	return S_ISREG(st->st_mode) ? 0 : 1;
}

int vmt_outfile_tmp_name(const char *path, char *buf, size_t size)
{
	char target[PATH_MAX], link[PATH_MAX];
	struct stat st, lst;
	const char *what;
	bool created;
	int fd, ret, n;

	if (strcmp(path, "-") != 0 && link_to_own_fd(path) < 0 && lstat(path, &lst) == 0 &&
	    S_ISLNK(lst.st_mode) && stat(path, &st) < 0) {
		/* a dangling link: its target's name, without creating it for a message */
		const char *slash = strrchr(path, '/');
		ssize_t len = readlink(path, link, sizeof(link) - 1);

		if (len < 0)
			return -errno;
		link[len] = '\0';
		if (link[0] == '/' || !slash)
			n = snprintf(target, sizeof(target), "%s", link);
		else
			n = snprintf(target, sizeof(target), "%.*s/%s", (int)(slash - path), path,
				     link);
		if (n < 0 || (size_t)n >= sizeof(target))
			return -ENAMETOOLONG;
	} else {
		ret = resolve(path, target, sizeof(target), &fd, &st, &created, &what);
		if (ret)
			return ret < 0 ? ret : 1;
	}
	n = snprintf(buf, size, "%s.%ld.part", target, (long)getpid());
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
	sigaddset(&block, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	/* O_EXCL|O_NOFOLLOW: never write through a link someone placed there. */
	of->fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (of->fd < 0)
		ret = -errno;
	else if (!(of->flags & VMT_OUTFILE_KEEP_PARTIAL)) {
		of->slot = reg_add(of->tmp);
		/* the empty file made through a dangling link goes with it */
		if (of->created)
			of->created_slot = reg_add(of->target);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/*
 * The replaced file's permission bits, owner and group, given to the temporary file before
 * any byte is in it: readers that rely on them (node_exporter's textfile collector running
 * as another user, a group's members) keep reading. Only root may give a file to another
 * user, and a user only to a group of theirs: what could not be kept is said in of->note.
 */
static void keep_owner(struct vmt_outfile *of, const struct stat *old)
{
	mode_t mode = old->st_mode & 07777;
	struct stat now;

	if (fstat(of->fd, &now) < 0)
		return;
	if ((now.st_uid != old->st_uid || now.st_gid != old->st_gid) &&
	    fchown(of->fd, old->st_uid, old->st_gid) < 0) {
		/* the group at least, when the owner cannot be given */
		if (now.st_gid != old->st_gid && fchown(of->fd, (uid_t)-1, old->st_gid) == 0)
			now.st_gid = old->st_gid;
		if (now.st_uid != old->st_uid || now.st_gid != old->st_gid) {
			snprintf(of->note, sizeof(of->note), "owner:group %lu:%lu, not the "
				 "replaced file's %lu:%lu (only root can give a file away)", (unsigned long)now.st_uid,
				 (unsigned long)now.st_gid, (unsigned long)old->st_uid,
				 (unsigned long)old->st_gid);
			/* set-id bits belong to the old owner and group only */
			mode &= ~(mode_t)(S_ISUID | S_ISGID);
		}
	}
	fchmod(of->fd, mode);
}

/* "PATH: WHAT: ERROR" into msg (when there is one); returns err. */
static int say(char *msg, size_t size, const char *path, const char *what, int err)
{
	if (msg && size)
		snprintf(msg, size, "%s: %s: %s", path, what, strerror(-err));
	return err;
}

/*
 * Why the temporary file could not be made, in msg. When FILE is there (or something is at
 * the temporary name), the file itself is not what failed: "No such file or directory"
 * about an existing /proc/version, or "Permission denied" about a file the user may write
 * in a directory they may not, would send them looking in the wrong place.
 */
static int say_tmp(char *msg, size_t size, const struct vmt_outfile *of, bool exists, int err)
{
	char what[2 * PATH_MAX + 96];

	if (!exists && err != -EEXIST)
		return say(msg, size, of->path, "cannot create", err);
	if (of->target == of->path)
		snprintf(what, sizeof(what), "cannot create the temporary file beside it (%s)",
			 of->tmp);
	else
		snprintf(what, sizeof(what), "cannot create the temporary file beside %s, where "
			 "its link leads (%s)", of->target, of->tmp);
	return say(msg, size, of->path, what, err);
}

int vmt_outfile_open(const char *path, unsigned int flags, struct vmt_outfile **out,
		     char *msg, size_t msg_size)
{
	struct vmt_outfile *of;
	char target[PATH_MAX], tmp[PATH_MAX];
	const char *what = "cannot open";
	struct stat st;
	int ret, fd;

	*out = NULL;
	if (msg && msg_size)
		msg[0] = '\0';
	if (!path || !*path)
		return say(msg, msg_size, "(no name)", "cannot open", -EINVAL);
	of = calloc(1, sizeof(*of));
	if (!of)
		return say(msg, msg_size, path, what, -ENOMEM);
	of->fd = -1;
	of->slot = of->created_slot = -1;
	of->flags = flags;
	of->path = strdup(path);
	if (!of->path) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = resolve(path, target, sizeof(target), &fd, &st, &of->created, &what);
	if (ret < 0)
		goto out_free;
	what = "cannot open";
	if (ret == 1) {
		of->direct = true;
		if (fd == STDOUT_FILENO && strcmp(path, "-") == 0)
			of->fd = fd;
		else if (fd >= 0)
			of->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		else
			of->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (of->fd < 0) {
			ret = -errno;
			goto out_free;
		}
		/* closed when we started: procinit.c holds its number on /dev/null, read-only */
		if (fd == STDOUT_FILENO && vmt_proc_std_closed(STDOUT_FILENO)) {
			snprintf(msg, msg_size, "standard output: it is closed");
			ret = -EBADF;
			goto out_free;
		}
		/* one of ours opened for reading only (/dev/stdin): no output there */
		if (fd >= 0 && (fcntl(of->fd, F_GETFL) & O_ACCMODE) == O_RDONLY) {
			what = "cannot write into a descriptor open for reading only";
			ret = -EBADF;
			goto out_free;
		}
		of->tmp = of->target = of->path;
		*out = of;
		return 0;
	}
	of->target = strcmp(target, path) ? strdup(target) : of->path;
	if (!of->target) {
		ret = -ENOMEM;
		goto out_free;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.%ld.part", target, (long)getpid()) >=
	    (int)sizeof(tmp)) {
		what = "cannot name the temporary file beside it";
		ret = -ENAMETOOLONG;
		goto out_free;
	}
	of->tmp = strdup(tmp);
	if (!of->tmp) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = open_tmp(of);
	if (ret) {
		say_tmp(msg, msg_size, of, st.st_mode != 0, ret);
		goto out_free;
	}
	if (S_ISREG(st.st_mode) && !of->created)
		keep_owner(of, &st);
	*out = of;
	return 0;

out_free:
	if (msg && msg_size && !msg[0])
		say(msg, msg_size, path, what, ret);
	if (of->fd >= 0 && of->fd != STDOUT_FILENO)
		close(of->fd);
	if (of->created)
		unlink(target);
	if (of->tmp != of->path)
		free(of->tmp);
	if (of->target && of->target != of->path)
		free(of->target);
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

const char *vmt_outfile_target(const struct vmt_outfile *of)
{
	return of->target;
}

const char *vmt_outfile_note(const struct vmt_outfile *of)
{
	return of->note;
}

static void outfile_free(struct vmt_outfile *of)
{
	reg_remove(of->slot);
	reg_remove(of->created_slot);
	if (of->tmp != of->path)
		free(of->tmp);
	if (of->target != of->path)
		free(of->target);
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

static int move_into_place(struct vmt_outfile *of, bool *kept_old, bool *old_failed)
{
	char old[PATH_MAX];
	struct stat st;
	bool moved = false;
	int ret;

	/* a target made through a dangling link is empty: nothing to keep */
	if ((of->flags & VMT_OUTFILE_KEEP_OLD) && !of->created && lstat(of->target, &st) == 0) {
		if (snprintf(old, sizeof(old), "%s.old", of->target) >= (int)sizeof(old))
			return -ENAMETOOLONG;
		if (rename(of->target, old) < 0) {
			if (old_failed)
				*old_failed = true;
			return -errno;
		}
		moved = true;
	}
	if (rename(of->tmp, of->target) < 0) {
		ret = -errno;
		if (moved)
			rename(old, of->target);	/* the previous file back where it was */
		return ret;
	}
	if (kept_old)
		*kept_old = moved;
	return 0;
}

static int commit(struct vmt_outfile *of, bool *kept_old, char **stuck, bool *old_failed)
{
	struct stat st;
	int ret = 0, r2;

	if (kept_old)
		*kept_old = false;
	if (old_failed)
		*old_failed = false;
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
		/* before the rename: then the target holds the output, no signal removes it */
		reg_remove(of->created_slot);
		of->created_slot = -1;
		if (!ret)
			ret = move_into_place(of, kept_old, old_failed);
		if (ret && (of->flags & VMT_OUTFILE_KEEP_PARTIAL)) {
			if (stuck)
				*stuck = strdup(of->tmp);
		} else if (ret) {
			unlink(of->tmp);
			if (of->created)
				unlink(of->target);
		}
	}
	outfile_free(of);
	return ret;
}

int vmt_outfile_commit(struct vmt_outfile *of, bool *kept_old, char **stuck)
{
	return commit(of, kept_old, stuck, NULL);
}

int vmt_outfile_commit_keeping(struct vmt_outfile *of, bool *kept_old, bool *old_failed)
{
	return commit(of, kept_old, NULL, old_failed);
}

static void drop(struct vmt_outfile *of, bool remove)
{
	if (!of)
		return;
	close_fd(of);
	if (!of->direct && remove) {
		unlink(of->tmp);
		if (of->created)
			unlink(of->target);
	}
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

/* What path, or standard output for "-", is: 0, or -errno (-ENOENT: nothing there yet). */
static int stat_out(const char *path, struct stat *st)
{
	if ((strcmp(path, "-") ? stat(path, st) : fstat(STDOUT_FILENO, st)) < 0)
		return -errno;
	return 0;
}

int vmt_outfile_same_output(const char *a, const char *b)
{
	struct stat sa, sb;
	int ret;

	ret = stat_out(a, &sa);
	if (!ret)
		ret = stat_out(b, &sb);
	if (ret)
		return ret == -ENOENT || ret == -ENOTDIR || ret == -EBADF ? 0 : ret;
	/* a device takes any number of writers (/dev/null, a terminal) */
	return !S_ISCHR(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int vmt_outfile_clash(const char *a, const char *what_a, const char *b, const char *what_b,
		      char *msg, size_t size)
{
	if (vmt_outfile_same_output(a, b) != 1)
		return 0;
	snprintf(msg, size, "%s: %s is the same file as %s: refusing to write both into it", a,
		 what_a, what_b);
	return 1;
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
	struct stat st;

	if (vmt_outfile_is_same_file(path, input) != 1)
		return 0;
	/*
	 * "> in.vmt" has emptied it before we ran: refusing saves nothing then, and a user
	 * told only that would look for the recording in vain.
	 */
	if (!strcmp(path, "-") && fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size == 0)
		end = ": the shell has already emptied it (> truncates before the program starts)";
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

int vmt_outfile_over_recording(const char *path, const char *what, char *msg, size_t size)
{
	const char *kind;
	struct stat st;
	int fd;

	if (!strcmp(path, "-") || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	kind = vmt_source_probe_fd(fd);
	close(fd);
	if (!kind)
		return 0;
	snprintf(msg, size, "%s holds a recording (%s): refusing to write %s over it", path, kind,
		 what);
	return 1;
}
