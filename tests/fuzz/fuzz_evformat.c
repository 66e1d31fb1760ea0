// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: format and header_page parsing, and binding an event pair. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evformat.h"
#include "kvmevent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmt_evformat *f = NULL, *g = NULL;
	struct vmt_header_page hp;
	char *text = malloc(size ? size : 1);
	size_t half = size / 2;

	memcpy(text, data, size);
	vmt_header_page_parse(text, size, &hp);
	if (vmt_evformat_parse(text, size, "kvm", &f, NULL) == 0) {
		unsigned int i;

		for (i = 0; i < f->nfields; i++)
			if (vmt_evformat_field(f, f->fields[i].name) != &f->fields[i])
				abort();
	}
	/* two formats from the two halves, bound as a pair */
	if (vmt_evformat_parse(text + half, size - half, NULL, &g, NULL) == 0 && f) {
		struct vmt_evbind b;

		vmt_evbind_init(&b, f, g);
	}
	vmt_evformat_free(f);
	vmt_evformat_free(g);
	free(text);
	return 0;
}
