/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * textwidth: how many terminal columns a name takes, for the text tables' name columns:
 * UTF-8 decoded by a fixed rule of its own, whatever the locale (the tools run in the C
 * locale too, where wcwidth() knows no character past ASCII). A code point is 1 column,
 * a combining mark 0, an East Asian wide one 2, and each byte that is no part of a valid
 * sequence (a comm the kernel cut inside a character) 1. Nothing is rewritten: the bytes
 * are printed as they are. Stateless, thread-safe.
 */
#ifndef VMT_TEXTWIDTH_H
#define VMT_TEXTWIDTH_H

#include <stddef.h>

/*
 * The length of the valid UTF-8 sequence at s (n > 0 bytes left: 1 for ASCII), or 0 when
 * its first byte starts none (a stray byte, a cut or overlong sequence, a surrogate).
 */
size_t vmt_textwidth_seq(const char *s, size_t n);
/* The columns of the first len bytes of s. */
size_t vmt_textwidth_cols(const char *s, size_t len);
/* The columns of the string s. */
size_t vmt_textwidth(const char *s);
/*
 * vmt_textwidth_cut() - where to cut a text to fit
 * @s: the text
 * @len: its length in bytes
 * @cols: at most this many columns kept
 * @max_bytes: at most this many bytes kept (a buffer's room; SIZE_MAX: no bound)
 *
 * Return: the length in bytes of the longest start of @s within both bounds that ends
 * between two characters (never inside a UTF-8 sequence; a combining mark stays with the
 * character before it when it fits).
 */
size_t vmt_textwidth_cut(const char *s, size_t len, size_t cols, size_t max_bytes);
/*
 * The printf field width that pads s to cols columns: "%-*s" (or "%*s") given it writes s
 * and the blanks up to cols columns, as it would for ASCII with cols itself. A text of
 * cols columns or more gets no blank (printf writes it whole, as with cols).
 */
int vmt_textwidth_pad(const char *s, unsigned int cols);

#endif
