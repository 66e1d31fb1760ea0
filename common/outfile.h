/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile: one discipline for every output file. A regular FILE is written as FILE.PID.part
 * next to it (created exclusively, never through a planted link) and renamed into place by
 * vmt_outfile_commit(), keeping the replaced file's mode, owner and group; a symbolic link
 * at FILE is followed, the file it leads to replaced and the link kept. Standard output
 * ("-"), names of our own descriptors (/dev/stdout, /dev/fd/N), devices and FIFOs are
 * written directly.
 * An outfile belongs to one thread from open to commit, abort or discard. The registry of
 * temporary names the signal handlers remove is static, shared and async-signal-safe.
 */
#ifndef VMT_OUTFILE_H
#define VMT_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

struct vmt_outfile;

/* Enough for vmt_outfile_open()'s message: two names and some words. */
#define VMT_OUTFILE_MSG_SIZE	(2 * 4096 + 160)

/* At commit an existing FILE is renamed FILE.old. */
#define VMT_OUTFILE_KEEP_OLD	 (1u << 0)
/*
 * The temporary file is worth keeping (the recorder's chunks): abort and a failed commit
 * leave it, and the signal handlers do not remove it.
 */
#define VMT_OUTFILE_KEEP_PARTIAL (1u << 1)

/*
 * Open path for writing. "-" is standard output. A name of one of our descriptors, through
 * any links (/dev/stdout, /dev/fd/N, /proc/self/fd/N), is written through a copy of that
 * descriptor, at its offset and with its flags, as the shell does (-EBADF when it is not
 * open or open for reading only). A symbolic link is followed by the kernel (so
 * fs.protected_symlinks applies), a dangling one creating its target; what it leads to is
 * then FILE below. An existing device, FIFO or socket (/dev/null, a pipe) is written
 * directly (renaming over it would replace the device); a directory is -EISDIR; else
 * FILE.PID.part is created O_EXCL|O_NOFOLLOW next to FILE, mode 0644 (less the umask), or
 * the mode, owner and group of the regular FILE it replaces (vmt_outfile_note() says what
 * of them could not be kept). Returns 0, or -errno with *out NULL (-EEXIST when something,
 * a link included, is at the temporary name) and, when msg is not NULL, the one line that
 * says what failed in msg: "FILE: cannot create: ERROR" for a new file, "FILE: cannot create
 * the temporary file beside it (FILE.PID.part): ERROR" when FILE exists (its directory takes
 * no new file: /proc, a read-only mount), "FILE: cannot open: ERROR" for the rest.
 */
int vmt_outfile_open(const char *path, unsigned int flags, struct vmt_outfile **out,
		     char *msg, size_t msg_size);
/*
 * The temporary name vmt_outfile_open() uses for path, into buf (for messages): 0, or 1
 * when path is written directly (no temporary name), or -errno.
 */
int vmt_outfile_tmp_name(const char *path, char *buf, size_t size);
int vmt_outfile_fd(const struct vmt_outfile *of);
/* The final name, as given ("-" for standard output). */
const char *vmt_outfile_path(const struct vmt_outfile *of);
/*
 * Where the bytes go now: the temporary name, or the final name itself when written
 * directly (then the same pointer as vmt_outfile_path()).
 */
const char *vmt_outfile_tmp_path(const struct vmt_outfile *of);
/* The file replaced at commit: the final name, or where its symbolic links lead. */
const char *vmt_outfile_target(const struct vmt_outfile *of);
/*
 * "" or, when the replaced file's owner or group could not be given to the new one (not
 * root), a few words saying so, for a warning: the file is written all the same.
 */
const char *vmt_outfile_note(const struct vmt_outfile *of);

/*
 * Finish: fsync (regular files), close, keep an existing FILE as FILE.old when asked
 * (*kept_old), rename into place; frees of. Returns 0 or -errno. On an error the temporary
 * file is kept with KEEP_PARTIAL (a malloc'd copy of its name in *stuck when stuck is
 * non-NULL; the caller frees it) and removed without it (*stuck NULL). A FILE moved to
 * FILE.old is moved back when the last rename fails.
 */
int vmt_outfile_commit(struct vmt_outfile *of, bool *kept_old, char **stuck);
/*
 * The same, with VMT_OUTFILE_KEEP_OLD: *old_failed says the error was in moving the
 * existing FILE to FILE.old (a directory there, say), not in renaming the output.
 */
int vmt_outfile_commit_keeping(struct vmt_outfile *of, bool *kept_old, bool *old_failed);
/* Give up: close; remove the temporary file unless KEEP_PARTIAL; frees of. NULL is fine. */
void vmt_outfile_abort(struct vmt_outfile *of);
/* Give up and remove the temporary file whatever the flags (nothing in it is worth keeping). */
void vmt_outfile_discard(struct vmt_outfile *of);

/*
 * Install SIGINT, SIGTERM, SIGHUP and SIGQUIT handlers (those not ignored) that remove every
 * open temporary file without KEEP_PARTIAL, then die by the same signal. For programs that do
 * not block those signals; the registry holds 8 files at a time (more are not removed).
 */
void vmt_outfile_unlink_on_signal(void);

/*
 * 1 when path names the same file as input (same device and inode, through links), 0 when
 * not or when path does not exist, -errno on other errors. Path "-" is standard output,
 * input "-" standard input. Only a regular input counts: a pipe or terminal on standard
 * input is copied before it is read, never written over (and is often standard output too).
 */
int vmt_outfile_is_same_file(const char *path, const char *input);
/*
 * Whether writing path would write over input (vmt_outfile_is_same_file() is 1): then 1,
 * with msg the line that says so, "FILE: WHAT is the input file: refusing to write over
 * it" (what: "the output", "the --html page"; "standard output is ...", "... the file on
 * standard input" for "-", and "...: the shell has already emptied it (...)" instead of the
 * refusal when standard output is that file and now empty); else 0, errors left to the
 * open that follows.
 */
int vmt_outfile_over_input(const char *path, const char *input, const char *what, char *msg,
			   size_t size);
/*
 * Whether an output that is not a recording (what: "the HTML report", "the CSV") would
 * replace path, an existing regular file (through links) that holds one: a .vmt, a
 * trace.bin or a trace.dat, as the loaders' probes know them (source.h). Then 1, with msg
 * "FILE holds a recording (.vmt): refusing to write WHAT over it"; else 0 (nothing there,
 * another file, or unreadable: errors left to the open that follows). Standard output ("-")
 * is never replaced: the shell's ">" has emptied it already, ">>" appends.
 */
int vmt_outfile_over_recording(const char *path, const char *what, char *msg, size_t size);
/*
 * 1 when outputs a and b ("-": standard output) are the same file (device and inode,
 * through links), so that one would write over or into the other; a character device
 * (/dev/null, a terminal) never is. 0 when not or when one does not exist, -errno on
 * other errors.
 */
int vmt_outfile_same_output(const char *a, const char *b);
/*
 * Whether output a is the same file as output b (vmt_outfile_same_output()): then 1 with
 * msg "A: WHAT_A is the same file as WHAT_B: refusing to write both into it"; else 0.
 */
int vmt_outfile_clash(const char *a, const char *what_a, const char *b, const char *what_b,
		      char *msg, size_t size);
/*
 * Whether writing binary data of the named format (".vmt", "trace.bin") to path would put
 * it on a terminal: path "-" with standard output a terminal, where the bytes garble the
 * screen and the data is lost. Then 1, with msg the line that refuses it; else 0.
 */
int vmt_outfile_binary_on_tty(const char *path, const char *format, char *msg, size_t size);

#endif
