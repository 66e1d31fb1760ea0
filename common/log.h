/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log: the programs' messages on stderr, always as "program: message". Only programs call
 * it; common/ modules return errors instead. vmt_log_init() once at start; the quiet level
 * is a plain global read by every thread (set before threads start). Every message fits
 * VMT_LOG_WIDTH columns, as every output does: one that would pass it is folded at its
 * spaces, its lines after the first indented by two spaces (tests read it back with unfold).
 * A word longer than a line (a long path) stays whole on a line of its own: copied, it
 * must still name the file.
 */
#ifndef VMT_LOG_H
#define VMT_LOG_H

#include <stdarg.h>
#include <stddef.h>

/* The width every output fits, the terminal's and the text report's. */
#define VMT_LOG_WIDTH 120

void vmt_log_init(const char *progname);
const char *vmt_log_progname(void);
void vmt_log_set_quiet(int quiet);

/*
 * An error: always printed. Names in a message are shown escaped (vmt_log_escape()); a
 * message is one line where it fits, else folded as vmt_log_fold() does, "program: "
 * included (a caller may fold it its own way first: "\n  " starts its next line).
 */
void vmt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A warning: always printed, prefixed "warning: ". */
void vmt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress and notes: suppressed by -q. */
void vmt_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * The same for a message of its own lines' text only: a newline in it is shown escaped,
 * as one in a name (a list of names, a path). Written at once, as one message.
 */
void vmt_info_folded(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vmt_warn_folded(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vmt_err_folded(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * vmt_log_fold() - fold one line of text at its spaces
 * @text: the text, without newlines
 * @col: the column the text starts at (what precedes it on its first line)
 * @width: at most this many display columns per line (vmt_textwidth()), where the words
 *	   allow it
 * @indent: spaces that start each line after the first
 * @out: the folded text, without a final newline, cut to @size bytes
 * @size: the size of @out
 *
 * A space where a line ends becomes the newline; a word longer than a line stays whole on
 * a line of its own, and so does a part in parentheses when a line can hold it.
 * Stateless, thread-safe.
 *
 * Return: @out.
 */
char *vmt_log_fold(const char *text, unsigned int col, unsigned int width, unsigned int indent,
		   char *out, size_t size);

/**
 * vmt_log_escape() - a text with its control characters shown, for a terminal
 * @s: the text (a file name, as given)
 * @keep_folds: keep a newline followed by two spaces (a folded message's next line)
 * @out: the text, cut to @size bytes
 * @size: the size of @out
 *
 * A file name may hold any byte but '/' and NUL: a newline in it would forge a second
 * message line, an escape sequence would reach the terminal. Newline, tab and carriage
 * return become \n, \t, \r; other C0 controls, DEL and the C1 controls (UTF-8 c2 80 to
 * c2 9f) become \xHH per byte. Stateless, thread-safe.
 *
 * Return: @out.
 */
char *vmt_log_escape(const char *s, int keep_folds, char *out, size_t size);

#endif
