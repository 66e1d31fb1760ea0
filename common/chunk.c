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

uint32_t vmt_chunk_pages(unsigned int ncpus, uint32_t page_size)
{
	uint32_t bytes = VMT_CHUNK_BYTES;

	if (ncpus > VMT_CHUNK_BYTES_ALL / VMT_CHUNK_BYTES)
		bytes = VMT_CHUNK_BYTES_ALL / ncpus;
	if (bytes < VMT_CHUNK_BYTES_MIN)
		bytes = VMT_CHUNK_BYTES_MIN;
	if (!page_size || bytes <= page_size)
		return 1;
	return bytes / page_size;
}

void vmt_chunkbuf_free(struct vmt_chunkbuf *cb)
{
	/* every source that decompresses zstd keeps a ZSTD_DCtx here (NULL is fine) */
	ZSTD_freeDCtx(cb->dctx);
	free(cb->comp);
	free(cb->raw);
	free(cb->whole);
	memset(cb, 0, sizeof(*cb));
}
