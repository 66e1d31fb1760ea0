// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "chunk.h"

int vmt_chunkbuf_grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *bigger;

	if (need <= *cap)
		return 0;
	bigger = realloc(*buf, need);
	if (!bigger)
		return -ENOMEM;
	*buf = bigger;
	*cap = need;
	return 0;
}

void vmt_chunkbuf_free(struct vmt_chunkbuf *cb)
{
	/* every source that decompresses zstd keeps a ZSTD_DCtx here (NULL is fine) */
	ZSTD_freeDCtx(cb->dctx);
	free(cb->comp);
	free(cb->raw);
	memset(cb, 0, sizeof(*cb));
}
