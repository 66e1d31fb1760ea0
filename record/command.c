// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "command.h"
#include "log.h"
#include "sysinfo.h"

extern char **environ;

/* 0 when path is a file this process may execute, else the errno execve() would give. */
static int runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno;
	if (S_ISDIR(st.st_mode))
		return EACCES;
	return access(path, X_OK) ? errno : 0;
}

/*
 * posix_spawnp()'s search: a name with a slash as it is, else each entry of PATH (an empty
 * one is the current directory). One found but not runnable is EACCES unless a later
 * entry runs, as execvp() says. The path found into file (PATH_MAX bytes).
 */
static int lookup(const char *name, char *file)
{
	const char *path = getenv("PATH"), *p, *colon;
	int err = ENOENT, e, n;
	size_t len;

	if (!*name)
		return ENOENT;
	if (strchr(name, '/')) {
		snprintf(file, PATH_MAX, "%s", name);
		return runnable(name);
	}
	if (!path)
		path = "/bin:/usr/bin";		/* glibc's default */
	for (p = path;; p = colon + 1) {
		colon = strchr(p, ':');
		len = colon ? (size_t)(colon - p) : strlen(p);
		n = snprintf(file, PATH_MAX, "%.*s%s%s", (int)len, p, len ? "/" : "", name);
		e = n < 0 || (size_t)n >= PATH_MAX ? ENAMETOOLONG : runnable(file);
		if (!e)
			return 0;
		if (e == EACCES)
			err = EACCES;
		if (!colon)
			return err;
	}
}

int rec_command_init(struct rec_command *c, char **argv, int *exit_code)
{
	char file[PATH_MAX];
	int err;

	memset(c, 0, sizeof(*c));
	c->argv = argv;
	if (!argv)
		return 0;
	c->have_affinity = sched_getaffinity(0, sizeof(c->affinity), &c->affinity) == 0;
	/*
	 * Found now, before the file is created: a mistyped command would otherwise leave an
	 * empty recording and rename the previous one to FILE.old.
	 */
	err = lookup(argv[0], file);
	if (err == ENOENT || err == ENOTDIR || err == ENAMETOOLONG) {
		vmt_err("%s: command not found", argv[0]);
		*exit_code = 127;
		return -1;
	}
	if (err) {
		vmt_err("%s: cannot run: %s", argv[0], strerror(err));
		*exit_code = 126;
		return -1;
	}
	return 0;
}

/*
 * A file the kernel does not know how to run (no "#!", a script without it): execvp() runs
 * it with /bin/sh, which glibc's posix_spawnp() no longer does.
 */
static int spawn_shell(struct rec_command *c, const posix_spawnattr_t *attr)
{
	char file[PATH_MAX], **argv;
	size_t n = 0;
	int ret;

	if (lookup(c->argv[0], file))
		return ENOEXEC;
	while (c->argv[n])
		n++;
	argv = calloc(n + 2, sizeof(*argv));
	if (!argv)
		return ENOMEM;
	argv[0] = (char *)"/bin/sh";
	argv[1] = file;
	memcpy(argv + 2, c->argv + 1, n * sizeof(*argv));	/* the NULL after them too */
	ret = posix_spawn(&c->pid, "/bin/sh", NULL, attr, argv, environ);
	free(argv);
	return ret;
}

/*
 * The child gets an empty signal mask and the default actions: the recorder blocks its stop
 * signals (taken with sigtimedwait()) and ignores SIGPIPE, and both would be inherited
 * through exec. posix_spawnp() reports an exec failure to the parent, which fork() and
 * execvp() in a process with running threads could only do by hand.
 */
static int spawn(struct rec_command *c)
{
	static const int defaults[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD };
	posix_spawnattr_t attr;
	sigset_t none, def;
	unsigned int i;
	int ret;

	ret = posix_spawnattr_init(&attr);
	if (ret)
		return ret;
	sigemptyset(&none);
	sigemptyset(&def);
	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		sigaddset(&def, defaults[i]);
	ret = posix_spawnattr_setsigmask(&attr, &none);
	if (!ret)
		ret = posix_spawnattr_setsigdefault(&attr, &def);
	if (!ret)
		ret = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
					       POSIX_SPAWN_SETSIGDEF);
	if (!ret)
		ret = posix_spawnp(&c->pid, c->argv[0], NULL, &attr, c->argv, environ);
	if (ret == ENOEXEC)
		ret = spawn_shell(c, &attr);
	posix_spawnattr_destroy(&attr);
	return ret;
}

int rec_command_split(int argc, char **argv, char ***command)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			*command = argv + i + 1;
			return i;
		}
	}
	return argc;
}

int rec_command_start(struct rec_command *c, int collector_cpu, const char **stop_reason)
{
	const char *name;

	if (!c->argv)
		return 0;
	/* The child inherits this thread's CPU set: the one the recorder was started with. */
	if (c->have_affinity && sched_setaffinity(0, sizeof(c->affinity), &c->affinity))
		vmt_warn("cannot unpin before starting %s: it runs on the collector CPU",
			 c->argv[0]);
	c->spawn_err = spawn(c);
	if (collector_cpu >= 0 && rec_sysinfo_pin_self(collector_cpu))
		vmt_warn("cannot pin to collector CPU %d", collector_cpu);
	if (c->spawn_err) {
		c->pid = 0;
		vmt_err("%s: cannot run: %s", c->argv[0], strerror(c->spawn_err));
		*stop_reason = "command not run";
		return -c->spawn_err;
	}
	/* The program's name, not the path given: the pid identifies it, and a build tree's
	 * path would push the note past 120 columns. */
	name = strrchr(c->argv[0], '/');
	vmt_info("running %s (pid %d); the recording stops when it exits",
		 name ? name + 1 : c->argv[0], (int)c->pid);
	return 0;
}

static bool reap(struct rec_command *c, int flags)
{
	pid_t r;

	if (c->pid <= 0 || c->reaped)
		return c->reaped;
	do
		r = waitpid(c->pid, &c->status, flags);
	while (r < 0 && errno == EINTR);
	if (r == c->pid || (r < 0 && errno == ECHILD)) {
		c->reaped = true;
		if (r < 0)	/* someone else reaped it: nothing known of its status */
			c->status = 0xff00;
	}
	return c->reaped;
}

bool rec_command_exited(struct rec_command *c, const char **stop_reason)
{
	if (!c->argv || !reap(c, WNOHANG))
		return false;
	*stop_reason = "command";
	return true;
}

static void pass_on(struct rec_command *c, const siginfo_t *si)
{
	c->signals++;
	c->last_sig = si->si_signo;
	/* SI_KERNEL: the terminal's Ctrl-C etc., which the command's process group had too */
	if (si->si_code != SI_KERNEL && c->pid > 0 && !c->reaped)
		kill(c->pid, si->si_signo);
}

bool rec_command_on_signal(struct rec_command *c, const siginfo_t *si)
{
	if (!c->argv || c->pid <= 0 || c->reaped)
		return false;
	pass_on(c, si);
	if (c->signals > 1) {
		vmt_info("%s again: stopping now", strsignal(si->si_signo));
		return false;
	}
	vmt_info("%s: passed to %s, stopping when it exits (again: at once)",
		 strsignal(si->si_signo), c->argv[0]);
	return true;
}

void rec_command_finish(struct rec_command *c, const sigset_t *stop_sigs, int *exit_code)
{
	int code;

	if (!c->argv)
		return;
	if (c->spawn_err) {
		if (*exit_code == 0)
			*exit_code = c->spawn_err == ENOENT ? 127 : 126;
		return;
	}
	while (c->pid > 0 && !reap(c, WNOHANG)) {
		struct timespec to = { 0, 100000000L };
		siginfo_t si;

		if (sigtimedwait(stop_sigs, &si, &to) <= 0)
			continue;
		pass_on(c, &si);
		if (c->signals > 2) {
			vmt_warn("%s (pid %d) is left running", c->argv[0], (int)c->pid);
			if (*exit_code == 0)
				*exit_code = 128 + si.si_signo;
			return;
		}
	}
	if (c->pid <= 0)
		return;
	if (WIFSIGNALED(c->status)) {
		code = 128 + WTERMSIG(c->status);
		vmt_info("%s was killed by signal %d (%s): exit status %d", c->argv[0],
			 WTERMSIG(c->status), strsignal(WTERMSIG(c->status)), code);
	} else {
		code = WEXITSTATUS(c->status);
		vmt_info("%s exited with status %d", c->argv[0], code);
	}
	/* a recording that failed says so with 1, whatever the command did */
	if (*exit_code == 0)
		*exit_code = code;
}

const char *rec_command_signame(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" :
	       sig == SIGQUIT ? "SIGQUIT" : "signal";
}
