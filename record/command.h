/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * command: `vmtrace-record [options] -- COMMAND [ARGS]`, the command the recording runs
 * around. Owns the child from its start (with the recorder's stdin, stdout, stderr, CPUs
 * and an empty signal mask) until it is reaped, the stop signals passed on to it and its
 * exit status. Main thread only; messages are printed here.
 */
#ifndef REC_COMMAND_H
#define REC_COMMAND_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct rec_command {
	char **argv;			/* NULL: no command, every function does nothing */
	pid_t pid;			/* > 0 while started and not reaped */
	bool reaped;
	int status;			/* its wait status, once reaped */
	int spawn_err;			/* posix_spawnp()'s error: it never ran */
	int signals;			/* stop signals the recorder received while it ran */
	int last_sig;
	cpu_set_t affinity;		/* the recorder's CPUs before it pinned itself */
	bool have_affinity;
};

/*
 * Remember argv (NULL: none) and the CPUs the command may run on: before pinning. Then
 * look the command up as rec_command_start() will run it: when it cannot be found or run,
 * say so in one line, set *exit_code to 127 or 126 (as a shell) and return -1, before
 * anything is recorded. 0 otherwise.
 */
int rec_command_init(struct rec_command *c, char **argv, int *exit_code);
/*
 * The command is what follows the first "--" of argv: *command points there (else stays
 * as it was), and the count of arguments before it is returned, for argp to parse; cut
 * there before argp sees it, since argp would permute it and take its options (sh -c ...)
 * for ours. An option's value cannot be "--" then (-o -- fails as a missing value).
 */
int rec_command_split(int argc, char **argv, char ***command);
/*
 * Start the command (tracing is on). The calling thread's CPU set is the recorder's
 * original one meanwhile, then collector_cpu again (-1: left). 0 or -errno (printed; then
 * *stop_reason is "command not run": the recording stops whole, the exit status says it).
 */
int rec_command_start(struct rec_command *c, int collector_cpu, const char **stop_reason);
/*
 * True when the command has exited (it is reaped then, and *stop_reason is "command");
 * false without a command.
 */
bool rec_command_exited(struct rec_command *c, const char **stop_reason);
/*
 * A stop signal reached the recorder. Returns true when the recording goes on until the
 * command exits: the first signal, passed on to the command unless the terminal sent it
 * (then the command, in the same foreground process group, has it already).
 */
bool rec_command_on_signal(struct rec_command *c, const siginfo_t *si);
/* A stop signal's name as the file's stop_reason says it ("SIGINT"; "signal" for others). */
const char *rec_command_signame(int sig);
/*
 * After the recording: wait for the command (stop signals passed on meanwhile), say how it
 * ended and turn *exit_code 0 (the file is finished) into its status: N, or 128+N for a
 * signal; 127 or 126 when it could not be run.
 */
void rec_command_finish(struct rec_command *c, const sigset_t *stop_sigs, int *exit_code);

#endif
