// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "io.h"
#include "outbuf.h"

int vmt_outbuf_init(struct vmt_outbuf *o, int fd)
{
	o->fd = fd;
	o->err = 0;
	o->len = 0;
	o->bytes = 0;
	o->buf = malloc(VMT_OUTBUF_SIZE);
	return o->buf ? 0 : -ENOMEM;
}

int vmt_outbuf_flush(struct vmt_outbuf *o)
{
	if (o->len && !o->err) {
		o->err = vmt_io_write_full(o->fd, o->buf, o->len);
		if (!o->err)
			o->bytes += o->len;
	}
	o->len = 0;
	return o->err;
}

int vmt_outbuf_finish(struct vmt_outbuf *o)
{
	int ret = o->buf ? vmt_outbuf_flush(o) : o->err;

	free(o->buf);
	o->buf = NULL;
	return ret;
}

void vmt_outbuf_mem(struct vmt_outbuf *o, const void *p, size_t n)
{
	const char *s = p;

	while (n) {
		size_t k = n < VMT_OUTBUF_SIZE ? n : VMT_OUTBUF_SIZE;
		char *dst = vmt_outbuf_reserve(o, k);

		memcpy(dst, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

void vmt_outbuf_printf(struct vmt_outbuf *o, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		vmt_outbuf_mem(o, small, (size_t)n);
		return;
	}
	{
		char *big = malloc((size_t)n + 1);

		if (!big) {
			if (!o->err)
				o->err = -ENOMEM;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		vmt_outbuf_mem(o, big, (size_t)n);
		free(big);
	}
}
