/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outbuf: a buffered writer on a file descriptor with in-place number formatting
 * (numfmt.h), for every output that is mostly numbers (CSV, JSON). Writes a MiB at a time
 * (system calls are dear in virtual machines); the first write error sticks and is
 * returned by vmt_outbuf_flush(). Owned by one thread; the fd stays the caller's.
 */
#ifndef VMT_OUTBUF_H
#define VMT_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "numfmt.h"

#define VMT_OUTBUF_SIZE (1u << 20)

struct vmt_outbuf {
	int fd;
	int err;		/* first -errno of a write, sticky */
	size_t len;
	uint64_t bytes;		/* written to the fd so far */
	char *buf;		/* VMT_OUTBUF_SIZE bytes */
};

/* Returns 0 or -ENOMEM. */
int vmt_outbuf_init(struct vmt_outbuf *o, int fd);
/* Write what is buffered; returns the sticky error (0 when every write succeeded). */
int vmt_outbuf_flush(struct vmt_outbuf *o);
/* Flush, then free the buffer; returns the sticky error. */
int vmt_outbuf_finish(struct vmt_outbuf *o);

/* Make room for n bytes (n <= VMT_OUTBUF_SIZE) and return where they go. */
static inline char *vmt_outbuf_reserve(struct vmt_outbuf *o, size_t n)
{
	if (o->len + n > VMT_OUTBUF_SIZE)
		vmt_outbuf_flush(o);
	return o->buf + o->len;
}

/* After writing into what vmt_outbuf_reserve() returned: end is one past the last byte. */
static inline void vmt_outbuf_commit(struct vmt_outbuf *o, const char *end)
{
	o->len = (size_t)(end - o->buf);
}

void vmt_outbuf_mem(struct vmt_outbuf *o, const void *p, size_t n);

static inline void vmt_outbuf_str(struct vmt_outbuf *o, const char *s)
{
	vmt_outbuf_mem(o, s, strlen(s));
}

static inline void vmt_outbuf_ch(struct vmt_outbuf *o, char c)
{
	vmt_outbuf_reserve(o, 1)[0] = c;
	o->len++;
}

static inline void vmt_outbuf_u64(struct vmt_outbuf *o, uint64_t v)
{
	vmt_outbuf_commit(o, vmt_put_u64(vmt_outbuf_reserve(o, 24), v));
}

static inline void vmt_outbuf_i64(struct vmt_outbuf *o, int64_t v)
{
	char *p = vmt_outbuf_reserve(o, 25);

	if (v < 0) {
		*p++ = '-';
		p = vmt_put_u64(p, (uint64_t)-(v + 1) + 1);
	} else {
		p = vmt_put_u64(p, (uint64_t)v);
	}
	vmt_outbuf_commit(o, p);
}

/* "0x" and lowercase digits, no leading zeros. */
static inline void vmt_outbuf_hex(struct vmt_outbuf *o, uint64_t v)
{
	vmt_outbuf_commit(o, vmt_put_hex(vmt_outbuf_reserve(o, 24), v));
}

void vmt_outbuf_printf(struct vmt_outbuf *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
