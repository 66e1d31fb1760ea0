// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the sub-buffer decoder. The first byte picks the layout (64-bit, 32-bit
 * commit, 16 KiB sub-buffers); the rest is the page, of any length.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evformat.h"
#include "rbpage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmt_header_page hp;
	struct vmt_rbrecord r;
	struct vmt_rbpage pg;
	uint8_t *copy;
	unsigned int n = 0;

	if (size < 1)
		return 0;
	vmt_header_page_default(&hp);
	if (data[0] & 1) {
		hp.commit_size = 4;
		hp.data_offset = 12;
		hp.data_size = 4084;
	}
	if (data[0] & 2)
		hp.data_size = 16368;
	/* an exact-size heap copy, so ASan sees any read past the end */
	copy = malloc(size - 1 ? size - 1 : 1);
	memcpy(copy, data + 1, size - 1);
	if (vmt_rbpage_init(&pg, &hp, copy, size - 1) == 0) {
		while (vmt_rbpage_next(&pg, &r) == 1) {
			if (r.len)
				n += r.data[r.len - 1];
			if (r.data < copy || r.data + r.len > copy + size - 1)
				abort();
		}
	}
	free(copy);
	return (int)(n & 0);
}
