// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * outfile: every path is checked on the real file system of a scratch directory, with
 * stat()/readlink() and the bytes read back: the temporary name (built here from getpid()),
 * the rename and FILE.old at commit, abort and KEEP_PARTIAL, /dev/null, a FIFO and standard
 * output written directly, a directory refused, a link planted at the temporary name never
 * followed, a link at FILE followed to its target (kept, the target replaced), /dev/fd/N
 * written through the descriptor (the bytes read from the pipe), the replaced file's mode
 * and owner (stat), same-file detection, and the signal handlers in forked children.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "io.h"
#include "outfile.h"

struct fx {
	char dir[64];
	char path[PATH_MAX];	/* dir/out.bin */
	char tmp[PATH_MAX];	/* dir/out.bin.PID.part */
	char old[PATH_MAX];	/* dir/out.bin.old */
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	strcpy(fx->dir, "/tmp/vmt-outfile-XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	snprintf(fx->path, sizeof(fx->path), "%s/out.bin", fx->dir);
	snprintf(fx->tmp, sizeof(fx->tmp), "%s/out.bin.%ld.part", fx->dir, (long)getpid());
	snprintf(fx->old, sizeof(fx->old), "%s/out.bin.old", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
	if (system(cmd) != 0)
		return -1;
	free(fx);
	return 0;
}

static void put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(vmt_io_write_full(fd, text, strlen(text)), 0);
	close(fd);
}

static void expect_file(const char *path, const char *text)
{
	char *got;
	size_t len;

	assert_int_equal(vmt_io_read_file(path, 1 << 20, &got, &len), 0);
	assert_int_equal(len, strlen(text));
	assert_memory_equal(got, text, len);
	free(got);
}

static void expect_bytes(const char *path, const void *bytes, size_t n)
{
	char *got;
	size_t len;

	assert_int_equal(vmt_io_read_file(path, 1 << 20, &got, &len), 0);
	assert_int_equal(len, n);
	assert_memory_equal(got, bytes, len);
	free(got);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void write_str(struct vmt_outfile *of, const char *text)
{
	assert_int_equal(vmt_io_write_full(vmt_outfile_fd(of), text, strlen(text)), 0);
}

static void test_commit_renames(void **state)
{
	struct fx *fx = *state;
	struct vmt_outfile *of;
	bool kept_old = true;
	char name[PATH_MAX];
	mode_t mask = umask(0);
	struct stat st;

	umask(mask);
	assert_int_equal(vmt_outfile_open(fx->path, 0, &of, NULL, 0), 0);
	assert_string_equal(vmt_outfile_path(of), fx->path);
	assert_string_equal(vmt_outfile_tmp_path(of), fx->tmp);
	assert_int_equal(vmt_outfile_tmp_name(fx->path, name, sizeof(name)), 0);
	assert_string_equal(name, fx->tmp);
	assert_true(exists(fx->tmp));
	assert_false(exists(fx->path));
	write_str(of, "new");
	assert_int_equal(vmt_outfile_commit(of, &kept_old, NULL), 0);
	assert_false(kept_old);
	assert_false(exists(fx->tmp));
	expect_file(fx->path, "new");
	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644 & ~mask);

	/* Without KEEP_OLD an existing file is replaced, and nothing is kept. */
	assert_int_equal(vmt_outfile_open(fx->path, 0, &of, NULL, 0), 0);
	write_str(of, "newer");
	assert_int_equal(vmt_outfile_commit(of, &kept_old, NULL), 0);
	assert_false(kept_old);
	expect_file(fx->path, "newer");
	assert_false(exists(fx->old));
	assert_int_equal(vmt_outfile_tmp_name(fx->path, name, 8), -ENAMETOOLONG);
}

static void test_keep_old(void **state)
{
	struct fx *fx = *state;
	char target[PATH_MAX], link[PATH_MAX + 8];
	struct vmt_outfile *of;
	bool kept_old = false;
	struct stat st;
	ssize_t n;

	put_file(fx->path, "old");
	assert_int_equal(vmt_outfile_open(fx->path, VMT_OUTFILE_KEEP_OLD, &of, NULL, 0), 0);
	expect_file(fx->path, "old");	/* untouched until commit */
	write_str(of, "new");
	assert_int_equal(vmt_outfile_commit(of, &kept_old, NULL), 0);
	assert_true(kept_old);
	expect_file(fx->path, "new");
	expect_file(fx->old, "old");

	/*
	 * A link at FILE is followed: its target is replaced (kept as target.old), the link
	 * stays, pointing at the new file.
	 */
	snprintf(target, sizeof(target), "%s/target", fx->dir);
	put_file(target, "target");
	unlink(fx->old);
	unlink(fx->path);
	assert_int_equal(symlink("target", fx->path), 0);
	assert_int_equal(vmt_outfile_open(fx->path, VMT_OUTFILE_KEEP_OLD, &of, NULL, 0), 0);
	write_str(of, "new");
	assert_int_equal(vmt_outfile_commit(of, &kept_old, NULL), 0);
	assert_true(kept_old);
	expect_file(target, "new");
	snprintf(link, sizeof(link), "%s.old", target);
	expect_file(link, "target");
	assert_false(exists(fx->old));
	assert_int_equal(lstat(fx->path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	n = readlink(fx->path, link, sizeof(link));
	assert_int_equal(n, 6);
	assert_memory_equal(link, "target", 6);
	expect_file(fx->path, "new");
}

/* A dangling link: its target is created, the link kept; abort removes the new target. */
static void test_dangling_link(void **state)
{
	struct fx *fx = *state;
	char target[PATH_MAX], name[PATH_MAX + 32], want[PATH_MAX + 32];
	struct vmt_outfile *of;
	struct stat st;

	snprintf(target, sizeof(target), "%s/later", fx->dir);
	assert_int_equal(symlink("later", fx->path), 0);
	assert_int_equal(vmt_outfile_tmp_name(fx->path, name, sizeof(name)), 0);
	snprintf(want, sizeof(want), "%s.%ld.part", target, (long)getpid());
	assert_string_equal(name, want);
	assert_false(exists(target));	/* not created for a name */
	assert_int_equal(vmt_outfile_open(fx->path, VMT_OUTFILE_KEEP_OLD, &of, NULL, 0), 0);
	vmt_outfile_abort(of);
	assert_false(exists(target));
	assert_int_equal(vmt_outfile_open(fx->path, VMT_OUTFILE_KEEP_OLD, &of, NULL, 0), 0);
	write_str(of, "made");
	assert_int_equal(vmt_outfile_commit(of, NULL, NULL), 0);
	expect_file(target, "made");
	snprintf(want, sizeof(want), "%s.old", target);
	assert_false(exists(want));	/* the empty file made through the link is no old one */
	assert_int_equal(lstat(fx->path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
}

/* The replaced file's mode, owner and group go to the new one (owner and group: as root). */
static void test_mode_owner_kept(void **state)
{
	struct fx *fx = *state;
	struct vmt_outfile *of;
	struct stat st;
	bool root = geteuid() == 0;

	put_file(fx->path, "old");
	assert_int_equal(chmod(fx->path, 0640), 0);
	if (root)
		assert_int_equal(chown(fx->path, 65534, 65534), 0);
	assert_int_equal(vmt_outfile_open(fx->path, 0, &of, NULL, 0), 0);
	assert_string_equal(vmt_outfile_note(of), "");
	write_str(of, "new");
	assert_int_equal(vmt_outfile_commit(of, NULL, NULL), 0);
	expect_file(fx->path, "new");
	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	if (root) {
		assert_int_equal(st.st_uid, 65534);
		assert_int_equal(st.st_gid, 65534);
	}
	/* a new file: the usual mode, less the umask */
	unlink(fx->path);
	assert_int_equal(vmt_outfile_open(fx->path, 0, &of, NULL, 0), 0);
	assert_int_equal(vmt_outfile_commit(of, NULL, NULL), 0);
	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644 & ~(unsigned int)umask(022));
}

/*
 * /dev/fd/N, /proc/self/fd/N and a link to them write through descriptor N itself: the
 * bytes arrive on the pipe, nothing is renamed, the link and /proc are left alone.
 */
static void test_own_descriptor(void **state)
{
	struct fx *fx = *state;
	char name[PATH_MAX], buf[PATH_MAX + 32];
	struct vmt_outfile *of;
	struct stat st;
	int p[2], i;

	assert_int_equal(pipe(p), 0);
	for (i = 0; i < 3; i++) {
		if (i == 0)
			snprintf(name, sizeof(name), "/dev/fd/%d", p[1]);
		else if (i == 1)
			snprintf(name, sizeof(name), "/proc/self/fd/%d", p[1]);
		else {
			snprintf(buf, sizeof(buf), "/proc/self/fd/%d", p[1]);
			assert_int_equal(symlink(buf, fx->path), 0);
			snprintf(name, sizeof(name), "%s", fx->path);
		}
		assert_int_equal(vmt_outfile_tmp_name(name, buf, sizeof(buf)), 1);
		assert_int_equal(vmt_outfile_open(name, VMT_OUTFILE_KEEP_OLD, &of, NULL, 0), 0);
		assert_ptr_equal(vmt_outfile_tmp_path(of), vmt_outfile_path(of));
		write_str(of, "piped");
		assert_int_equal(vmt_outfile_commit(of, NULL, NULL), 0);
		assert_int_equal(read(p[0], buf, sizeof(buf)), 5);
		assert_memory_equal(buf, "piped", 5);
	}
	assert_int_equal(lstat(fx->path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_false(exists(fx->old));
	/* the read end, or a descriptor not open: no output there */
	snprintf(name, sizeof(name), "/dev/fd/%d", p[0]);
	assert_int_equal(vmt_outfile_open(name, 0, &of, NULL, 0), -EBADF);
	close(p[0]);
	close(p[1]);
	assert_int_equal(vmt_outfile_open(name, 0, &of, NULL, 0), -EBADF);
	/*
	 * One the program opened itself (close-on-exec, as an input's copy is): not given
	 * to it, so not an output (the review wrote the CSV into the piped input's copy)
	 */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	snprintf(name, sizeof(name), "/dev/fd/%d", p[1]);
	assert_int_equal(vmt_outfile_open(name, 0, &of, NULL, 0), -EBADF);
	close(p[0]);
	close(p[1]);
}

static void test_abort(void **state)
{
	struct fx *fx = *state;
	struct vmt_outfile *of;

	put_file(fx->path, "old");
	assert_int_equal(vmt_outfile_open(fx->path, VMT_OUTFILE_KEEP_OLD, &of, NULL, 0), 0);
	write_str(of, "partial");
	vmt_outfile_abort(of);
	assert_false(exists(fx->tmp));
	assert_false(exists(fx->old));
	expect_file(fx->path, "old");
	vmt_outfile_abort(NULL);

	/* KEEP_PARTIAL: abort leaves the temporary file and what was written. */
	assert_int_equal(vmt_outfile_open(fx->path, VMT_OUTFILE_KEEP_PARTIAL, &of, NULL, 0), 0);
	write_str(of, "partial");
	vmt_outfile_abort(of);
	expect_file(fx->tmp, "partial");
	expect_file(fx->path, "old");
	unlink(fx->tmp);

	/* discard removes it whatever the flags */
	assert_int_equal(vmt_outfile_open(fx->path, VMT_OUTFILE_KEEP_PARTIAL, &of, NULL, 0), 0);
	vmt_outfile_discard(of);
	assert_false(exists(fx->tmp));
}

/* A directory appearing at FILE after open makes the rename fail. */
static void test_commit_fails(void **state)
{
	struct fx *fx = *state;
	struct vmt_outfile *of;
	char *stuck = (char *)"x";
	bool kept_old = true;

	assert_int_equal(vmt_outfile_open(fx->path, VMT_OUTFILE_KEEP_PARTIAL, &of, NULL, 0), 0);
	write_str(of, "precious");
	assert_int_equal(mkdir(fx->path, 0755), 0);
	assert_int_equal(vmt_outfile_commit(of, &kept_old, &stuck), -EISDIR);
	assert_false(kept_old);
	assert_non_null(stuck);
	assert_string_equal(stuck, fx->tmp);
	expect_file(stuck, "precious");
	free(stuck);
	unlink(fx->tmp);

	/* without KEEP_PARTIAL the temporary file goes */
	assert_int_equal(rmdir(fx->path), 0);
	assert_int_equal(vmt_outfile_open(fx->path, 0, &of, NULL, 0), 0);
	assert_int_equal(mkdir(fx->path, 0755), 0);
	assert_int_equal(vmt_outfile_commit(of, NULL, &stuck), -EISDIR);
	assert_null(stuck);
	assert_false(exists(fx->tmp));
	assert_int_equal(rmdir(fx->path), 0);
}

/*
 * KEEP_OLD with a directory at FILE.old: the move of the previous FILE fails, and the
 * caller is told it was that step (its message names FILE.old, not FILE); FILE stays.
 */
static void test_commit_old_fails(void **state)
{
	struct fx *fx = *state;
	struct vmt_outfile *of;
	bool kept_old = true, old_failed = false;
	char old[PATH_MAX + 8];
	FILE *f;

	f = fopen(fx->path, "w");
	assert_non_null(f);
	fputs("previous", f);
	fclose(f);
	snprintf(old, sizeof(old), "%s.old", fx->path);
	assert_int_equal(mkdir(old, 0755), 0);
	assert_int_equal(vmt_outfile_open(fx->path, VMT_OUTFILE_KEEP_OLD | VMT_OUTFILE_KEEP_PARTIAL,
					  &of, NULL, 0), 0);
	write_str(of, "new");
	assert_true(vmt_outfile_commit_keeping(of, &kept_old, &old_failed) < 0);
	assert_true(old_failed);
	assert_false(kept_old);
	expect_file(fx->path, "previous");
	expect_file(fx->tmp, "new");
	unlink(fx->tmp);
	assert_int_equal(rmdir(old), 0);

	/* the output's own rename failing is not that step */
	assert_int_equal(vmt_outfile_open(fx->path, VMT_OUTFILE_KEEP_OLD | VMT_OUTFILE_KEEP_PARTIAL,
					  &of, NULL, 0), 0);
	write_str(of, "new");
	assert_int_equal(vmt_outfile_commit_keeping(of, &kept_old, &old_failed), 0);
	assert_false(old_failed);
	assert_true(kept_old);
	expect_file(fx->path, "new");
	expect_file(old, "previous");
	unlink(old);
}

static void test_directory_refused(void **state)
{
	struct fx *fx = *state;
	struct vmt_outfile *of = (struct vmt_outfile *)&of;

	assert_int_equal(vmt_outfile_open(fx->dir, 0, &of, NULL, 0), -EISDIR);
	assert_null(of);
	assert_int_equal(vmt_outfile_open("", 0, &of, NULL, 0), -EINVAL);
	assert_int_equal(vmt_outfile_open("/nonexistent-dir/x", 0, &of, NULL, 0), -ENOENT);
	assert_null(of);
}

/*
 * What failed, in the message: a new file that cannot be made is "cannot create"; an existing
 * one whose directory takes no new file (/proc) is the temporary file's failure, named, not
 * "No such file" about a file that is there; a link names where it leads; a directory and
 * something planted at the temporary name (EEXIST) say so.
 */
static void test_open_messages(void **state)
{
	struct fx *fx = *state;
	struct vmt_outfile *of;
	char msg[VMT_OUTFILE_MSG_SIZE], want[VMT_OUTFILE_MSG_SIZE], link[PATH_MAX];
	long pid = (long)getpid();

	assert_int_equal(vmt_outfile_open("/nonexistent-dir/x", 0, &of, msg, sizeof(msg)),
			 -ENOENT);
	assert_string_equal(msg, "/nonexistent-dir/x: cannot create: No such file or directory");
	assert_int_equal(vmt_outfile_open(fx->dir, 0, &of, msg, sizeof(msg)), -EISDIR);
	snprintf(want, sizeof(want), "%s: cannot open: Is a directory", fx->dir);
	assert_string_equal(msg, want);
	if (access("/proc/version", F_OK) == 0) {
		assert_int_equal(vmt_outfile_open("/proc/version", 0, &of, msg, sizeof(msg)),
				 -ENOENT);
		snprintf(want, sizeof(want), "/proc/version: cannot create the temporary file "
			 "beside it (/proc/version.%ld.part): No such file or directory", pid);
		assert_string_equal(msg, want);
		snprintf(link, sizeof(link), "%s/v", fx->dir);
		assert_int_equal(symlink("/proc/version", link), 0);
		assert_int_equal(vmt_outfile_open(link, 0, &of, msg, sizeof(msg)), -ENOENT);
		snprintf(want, sizeof(want), "%s: cannot create the temporary file beside "
			 "/proc/version, where its link leads (/proc/version.%ld.part): No such file "
			 "or directory", link, pid);
		assert_string_equal(msg, want);
	}
	/* a new file, but something at its temporary name: that is what failed */
	assert_int_equal(mkdir(fx->tmp, 0755), 0);
	assert_int_equal(vmt_outfile_open(fx->path, 0, &of, msg, sizeof(msg)), -EEXIST);
	snprintf(want, sizeof(want), "%s: cannot create the temporary file beside it (%s): File "
		 "exists", fx->path, fx->tmp);
	assert_string_equal(msg, want);
	assert_int_equal(rmdir(fx->tmp), 0);
	/* success leaves msg empty, and NULL is fine */
	assert_int_equal(vmt_outfile_open(fx->path, 0, &of, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "");
	vmt_outfile_discard(of);
}

/* Someone planted a link at the temporary name: open refuses, the target is untouched. */
static void test_tmp_link_not_followed(void **state)
{
	struct fx *fx = *state;
	char target[PATH_MAX];
	struct vmt_outfile *of;

	snprintf(target, sizeof(target), "%s/victim", fx->dir);
	put_file(target, "victim");
	assert_int_equal(symlink(target, fx->tmp), 0);
	assert_int_equal(vmt_outfile_open(fx->path, 0, &of, NULL, 0), -EEXIST);
	assert_null(of);
	expect_file(target, "victim");
	/* a dangling link too: O_CREAT would otherwise create its target */
	unlink(fx->tmp);
	unlink(target);
	assert_int_equal(symlink(target, fx->tmp), 0);
	assert_int_equal(vmt_outfile_open(fx->path, 0, &of, NULL, 0), -EEXIST);
	assert_false(exists(target));
	assert_false(exists(fx->path));
}

static void test_dev_null(void **state)
{
	struct vmt_outfile *of;
	bool kept_old = true;
	struct stat st;

	(void)state;
	assert_int_equal(vmt_outfile_open("/dev/null", VMT_OUTFILE_KEEP_OLD, &of, NULL, 0), 0);
	assert_ptr_equal(vmt_outfile_tmp_path(of), vmt_outfile_path(of));
	write_str(of, "nothing");
	assert_int_equal(vmt_outfile_commit(of, &kept_old, NULL), 0);
	assert_false(kept_old);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_false(exists("/dev/null.old"));
}

static void test_fifo(void **state)
{
	struct fx *fx = *state;
	struct vmt_outfile *of;
	char buf[16];
	struct stat st;
	int rd;

	assert_int_equal(mkfifo(fx->path, 0600), 0);
	/* a reader first, so opening for writing does not wait */
	rd = open(fx->path, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(vmt_outfile_open(fx->path, VMT_OUTFILE_KEEP_OLD, &of, NULL, 0), 0);
	assert_string_equal(vmt_outfile_tmp_path(of), fx->path);
	assert_false(exists(fx->tmp));
	write_str(of, "through");
	assert_int_equal(vmt_outfile_commit(of, NULL, NULL), 0);
	assert_int_equal(read(rd, buf, sizeof(buf)), 7);
	assert_memory_equal(buf, "through", 7);
	assert_int_equal(read(rd, buf, sizeof(buf)), 0);	/* the writer closed it */
	close(rd);
	assert_int_equal(lstat(fx->path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_false(exists(fx->old));
}

static void test_stdout(void **state)
{
	struct vmt_outfile *of;

	(void)state;
	assert_int_equal(vmt_outfile_open("-", 0, &of, NULL, 0), 0);
	assert_int_equal(vmt_outfile_fd(of), STDOUT_FILENO);
	assert_string_equal(vmt_outfile_path(of), "-");
	assert_int_equal(vmt_outfile_commit(of, NULL, NULL), 0);
	assert_true(fcntl(STDOUT_FILENO, F_GETFD) >= 0);	/* never closed */
	assert_int_equal(vmt_outfile_open("-", 0, &of, NULL, 0), 0);
	vmt_outfile_abort(of);
	assert_true(fcntl(STDOUT_FILENO, F_GETFD) >= 0);
}

/* Two outputs of one run: the same file by any name, a device never. */
static void test_same_output(void **state)
{
	struct fx *fx = *state;
	char soft[PATH_MAX], other[PATH_MAX], msg[PATH_MAX * 2];

	snprintf(soft, sizeof(soft), "%s/soft", fx->dir);
	snprintf(other, sizeof(other), "%s/other", fx->dir);
	put_file(fx->path, "a");
	put_file(other, "b");
	assert_int_equal(symlink("out.bin", soft), 0);
	assert_int_equal(vmt_outfile_same_output(fx->path, soft), 1);
	assert_int_equal(vmt_outfile_same_output(fx->path, other), 0);
	assert_int_equal(vmt_outfile_same_output("/nonexistent-x", fx->path), 0);
	assert_int_equal(vmt_outfile_same_output("/dev/null", "/dev/null"), 0);
	assert_int_equal(vmt_outfile_clash(soft, "the page", fx->path, "the file", msg,
					   sizeof(msg)), 1);
	assert_non_null(strstr(msg, ": the page is the same file as the file: refusing"));
	assert_int_equal(vmt_outfile_clash(other, "the page", fx->path, "the file", msg,
					   sizeof(msg)), 0);
}

static void test_same_file(void **state)
{
	struct fx *fx = *state;
	char hard[PATH_MAX], soft[PATH_MAX], other[PATH_MAX];

	snprintf(hard, sizeof(hard), "%s/hard", fx->dir);
	snprintf(soft, sizeof(soft), "%s/soft", fx->dir);
	snprintf(other, sizeof(other), "%s/other", fx->dir);
	put_file(fx->path, "in");
	put_file(other, "in");
	assert_int_equal(link(fx->path, hard), 0);
	assert_int_equal(symlink("out.bin", soft), 0);
	assert_int_equal(vmt_outfile_is_same_file(fx->path, fx->path), 1);
	assert_int_equal(vmt_outfile_is_same_file(hard, fx->path), 1);
	assert_int_equal(vmt_outfile_is_same_file(soft, fx->path), 1);
	assert_int_equal(vmt_outfile_is_same_file(fx->path, soft), 1);
	assert_int_equal(vmt_outfile_is_same_file(other, fx->path), 0);	/* same bytes only */
	assert_int_equal(vmt_outfile_is_same_file(fx->tmp, fx->path), 0);	/* missing */
	assert_int_equal(vmt_outfile_is_same_file(fx->path, fx->tmp), -ENOENT);
}

/*
 * The line that refuses an output over the input names the output, and the input when it is
 * named otherwise; nothing when they differ.
 */
static void test_over_input(void **state)
{
	struct fx *fx = *state;
	char soft[PATH_MAX], other[PATH_MAX], msg[3 * PATH_MAX], want[3 * PATH_MAX];

	snprintf(soft, sizeof(soft), "%s/soft", fx->dir);
	snprintf(other, sizeof(other), "%s/other", fx->dir);
	put_file(fx->path, "in");
	put_file(other, "in");
	assert_int_equal(symlink("out.bin", soft), 0);
	assert_int_equal(vmt_outfile_over_input(fx->path, fx->path, "the output", msg,
						sizeof(msg)), 1);
	snprintf(want, sizeof(want), "%s: the output is the input file: refusing to write over it",
		 fx->path);
	assert_string_equal(msg, want);
	assert_int_equal(vmt_outfile_over_input(soft, fx->path, "the --html page", msg,
						sizeof(msg)), 1);
	snprintf(want, sizeof(want), "%s: the --html page is the input file %s (another name or "
		 "a link for it): refusing to write over it", soft, fx->path);
	assert_string_equal(msg, want);
	msg[0] = '\0';
	assert_int_equal(vmt_outfile_over_input(other, fx->path, "the output", msg, sizeof(msg)),
			 0);
	assert_int_equal(vmt_outfile_over_input(fx->tmp, fx->path, "the output", msg,
						sizeof(msg)), 0);
	assert_string_equal(msg, "");
}

static void put_bytes(const char *path, const void *b, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, n), (ssize_t)n);
	close(fd);
}

/*
 * Outputs that are not recordings never replace a file that holds one, known by its first
 * bytes as written here from the formats' own descriptions (man/vmtrace-file.5: "VMTRACE\0"
 * and a 16-byte header; the original trace.bin: the 32-bit signature 0xcce96d01 and two
 * ids; trace-cmd's trace.dat: "\027\010\104tracing"): 1 with the line naming the file and
 * its kind, through a link too; any other file, a cut header, an empty file, a device, a
 * missing file and standard output are 0. Nothing is written to any of them.
 */
static void test_over_recording(void **state)
{
	static const uint8_t vmt[24] = "VMTRACE\0\x01\0\0\0\x10\0\0\0META";
	static const uint8_t bin[12] = { 0x01, 0x6d, 0xe9, 0xcc, 0x10, 0x00, 0x11, 0x00 };
	static const uint8_t dat[16] = "\x17\x08\x44tracing6\0";
	static const struct {
		const char *name;
		const void *bytes;
		size_t n;		/* SIZE_MAX: a string's length */
		const char *kind;	/* NULL: no recording */
	} cases[] = {
		{ "a.vmt", vmt, sizeof(vmt), ".vmt" },
		{ "a.bin", bin, sizeof(bin), "trace.bin" },
		{ "a.dat", dat, sizeof(dat), "trace.dat" },
		{ "cut.vmt", vmt, 8, NULL },		/* its magic, not its header */
		{ "cut.bin", bin, 4, NULL },
		{ "page.html", "<!DOCTYPE html>\n<p>old page</p>\n", SIZE_MAX, NULL },
		{ "rows.csv", "start_ns,latency_ns\n1,2\n", SIZE_MAX, NULL },
		{ "empty", "", 0, NULL },
	};
	struct fx *fx = *state;
	char path[PATH_MAX], link[PATH_MAX], msg[2 * PATH_MAX], want[2 * PATH_MAX];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", fx->dir, cases[i].name);
		put_bytes(path, cases[i].bytes, cases[i].n == SIZE_MAX ?
			  strlen(cases[i].bytes) : cases[i].n);
		msg[0] = '\0';
		assert_int_equal(vmt_outfile_over_recording(path, "the CSV", msg, sizeof(msg)),
				 cases[i].kind != NULL);
		if (cases[i].kind) {
			snprintf(want, sizeof(want), "%s holds a recording (%s): refusing to write "
				 "the CSV over it", path, cases[i].kind);
			assert_string_equal(msg, want);
		} else {
			assert_string_equal(msg, "");
		}
		assert_int_equal(unlink(path), 0);
	}
	snprintf(path, sizeof(path), "%s/a.vmt", fx->dir);
	snprintf(link, sizeof(link), "%s/link", fx->dir);
	put_bytes(path, vmt, sizeof(vmt));
	assert_int_equal(symlink("a.vmt", link), 0);
	assert_int_equal(vmt_outfile_over_recording(link, "the HTML report", msg, sizeof(msg)), 1);
	snprintf(want, sizeof(want), "%s holds a recording (.vmt): refusing to write the HTML "
		 "report over it", link);
	assert_string_equal(msg, want);
	expect_bytes(path, vmt, sizeof(vmt));	/* untouched */
	assert_int_equal(vmt_outfile_over_recording(fx->path, "the CSV", msg, sizeof(msg)), 0);
	assert_int_equal(vmt_outfile_over_recording("/dev/null", "the CSV", msg, sizeof(msg)), 0);
	assert_int_equal(vmt_outfile_over_recording("-", "the CSV", msg, sizeof(msg)), 0);
	unlink(link);
	unlink(path);
}

/*
 * "vmtrace-convert --csv in.vmt > in.vmt": the shell emptied the input before the program
 * ran, and the line says so rather than that it refuses to write over it; with ">>" (the
 * input still whole) it refuses as before.
 */
static void test_stdout_emptied(void **state)
{
	struct fx *fx = *state;
	int saved_out = dup(STDOUT_FILENO), fd;
	char msg[3 * PATH_MAX], want[3 * PATH_MAX];

	assert_true(saved_out >= 0);
	put_file(fx->path, "in");
	fd = open(fx->path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0 && dup2(fd, STDOUT_FILENO) == STDOUT_FILENO);
	close(fd);
	assert_int_equal(vmt_outfile_over_input("-", fx->path, "the output", msg, sizeof(msg)), 1);
	snprintf(want, sizeof(want), "standard output is the input file %s: refusing to write "
		 "over it", fx->path);
	assert_string_equal(msg, want);
	fd = open(fx->path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0 && dup2(fd, STDOUT_FILENO) == STDOUT_FILENO);
	close(fd);
	assert_int_equal(vmt_outfile_over_input("-", fx->path, "the output", msg, sizeof(msg)), 1);
	snprintf(want, sizeof(want), "standard output is the input file %s: the shell has already "
		 "emptied it (> truncates before the program starts)", fx->path);
	assert_string_equal(msg, want);
	/* an output named by the user, empty or not, is not the shell's doing */
	assert_int_equal(vmt_outfile_over_input(fx->path, fx->path, "the output", msg,
						sizeof(msg)), 1);
	assert_null(strstr(msg, "emptied"));
	assert_int_equal(dup2(saved_out, STDOUT_FILENO), STDOUT_FILENO);
	close(saved_out);
}

/*
 * "-" as the input is standard input: the regular file there is the input (read in place),
 * a pipe is not (it is copied first); "-" as the path is standard output.
 */
static void test_stdin_input(void **state)
{
	struct fx *fx = *state;
	int saved_in = dup(STDIN_FILENO), saved_out = dup(STDOUT_FILENO), fd, p[2];
	char msg[3 * PATH_MAX], want[3 * PATH_MAX];

	assert_true(saved_in >= 0 && saved_out >= 0);
	put_file(fx->path, "in");
	fd = open(fx->path, O_RDONLY);
	assert_true(fd >= 0 && dup2(fd, STDIN_FILENO) == STDIN_FILENO);
	close(fd);
	assert_int_equal(vmt_outfile_is_same_file(fx->path, "-"), 1);
	assert_int_equal(vmt_outfile_over_input(fx->path, "-", "the output", msg, sizeof(msg)), 1);
	snprintf(want, sizeof(want), "%s: the output is the file on standard input: refusing to "
		 "write over it", fx->path);
	assert_string_equal(msg, want);
	fd = open(fx->path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0 && dup2(fd, STDOUT_FILENO) == STDOUT_FILENO);
	close(fd);
	assert_int_equal(vmt_outfile_over_input("-", "-", "the output", msg, sizeof(msg)), 1);
	assert_string_equal(msg, "standard output is the file on standard input: refusing to "
			    "write over it");
	assert_int_equal(vmt_outfile_over_input("-", fx->path, "the output", msg, sizeof(msg)), 1);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(dup2(p[0], STDIN_FILENO), STDIN_FILENO);
	assert_int_equal(dup2(p[1], STDOUT_FILENO), STDOUT_FILENO);
	close(p[0]);
	close(p[1]);
	assert_int_equal(vmt_outfile_is_same_file("-", "-"), 0);	/* a pipe both ways */
	assert_int_equal(vmt_outfile_is_same_file(fx->path, "-"), 0);
	assert_int_equal(dup2(saved_in, STDIN_FILENO), STDIN_FILENO);
	assert_int_equal(dup2(saved_out, STDOUT_FILENO), STDOUT_FILENO);
	close(saved_in);
	close(saved_out);
}

/*
 * A forked child installs the handlers, opens an outfile, reports its temporary name and
 * waits for the signal. Returns the child's wait status.
 */
static int signal_child(struct fx *fx, unsigned int flags, int ignore, int sig, int *alive)
{
	int status, p[2], i;
	char name[PATH_MAX];
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct vmt_outfile *of;

		close(p[0]);
		/*
		 * The stop signals as in a terminal: a test run in the background (nohup, or
		 * `cmd &` from a script) inherits SIGINT and SIGHUP ignored.
		 */
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (ignore)
			signal(ignore, SIG_IGN);
		vmt_outfile_unlink_on_signal();
		if (vmt_outfile_open(fx->path, flags, &of, NULL, 0))
			_exit(3);
		if (write(p[1], vmt_outfile_tmp_path(of), strlen(vmt_outfile_tmp_path(of))) < 0)
			_exit(4);
		close(p[1]);
		for (;;)
			pause();
	}
	close(p[1]);
	n = read(p[0], name, sizeof(name) - 1);
	close(p[0]);
	assert_true(n > 0);
	name[n] = '\0';
	assert_string_not_equal(name, fx->path);
	assert_true(exists(name));
	/* The child prints its own pid into the name: not ours. */
	snprintf(fx->tmp, sizeof(fx->tmp), "%s", name);
	assert_int_equal(kill(pid, sig), 0);
	/*
	 * A signal that kills may take a while on a loaded machine: wait up to 10 s for it.
	 * One the child ignores was dropped when sent; 100 ms show the child lives on.
	 */
	for (i = 0; i < (ignore ? 1 : 100); i++) {
		usleep(100000);
		*alive = waitpid(pid, &status, WNOHANG) == 0;
		if (!*alive)
			break;
	}
	if (*alive) {
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &status, 0), pid);
	}
	return status;
}

static void test_signal_removes(void **state)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct fx *fx = *state;
	unsigned int i;
	int status, alive;

	for (i = 0; i < 3; i++) {
		status = signal_child(fx, 0, 0, sigs[i], &alive);
		assert_false(alive);
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), sigs[i]);
		assert_false(exists(fx->tmp));
	}
	/* KEEP_PARTIAL files stay (the recorder's chunks are worth keeping) */
	status = signal_child(fx, VMT_OUTFILE_KEEP_PARTIAL, 0, SIGTERM, &alive);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_true(exists(fx->tmp));
	unlink(fx->tmp);
	/* an ignored signal stays ignored (nohup): the child lives on, the file stays */
	status = signal_child(fx, 0, SIGHUP, SIGHUP, &alive);
	assert_true(alive);
	assert_int_equal(WTERMSIG(status), SIGKILL);
	assert_true(exists(fx->tmp));
	unlink(fx->tmp);
	assert_false(exists(fx->path));
	/* a target created through a dangling link goes with the temporary file (review) */
	{
		char target[PATH_MAX + 8];
		struct stat st;

		snprintf(target, sizeof(target), "%s.to", fx->path);
		assert_int_equal(symlink(target, fx->path), 0);
		status = signal_child(fx, 0, 0, SIGTERM, &alive);
		assert_true(WIFSIGNALED(status));
		assert_false(exists(fx->tmp));
		assert_false(exists(target));
		assert_int_equal(lstat(fx->path, &st), 0);	/* the link itself stays */
		unlink(fx->path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_commit_renames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keep_old, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dangling_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mode_owner_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_descriptor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_directory_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tmp_link_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dev_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stdout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_over_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_over_recording, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stdout_emptied, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stdin_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_removes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_old_fails, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
