// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>

#include "evrender.h"

const struct vmt_hexfield_desc vmt_hexfields[VMT_HF_COUNT] = {
	[VMT_HF_RIP] = { "rip", VMT_EVF_RIP },
	[VMT_HF_INFO1] = { "info1", VMT_EVF_INFO1 },
	[VMT_HF_INFO2] = { "info2", VMT_EVF_INFO2 },
	[VMT_HF_INTR_INFO] = { "intr_info", VMT_EVF_INTR_INFO },
	[VMT_HF_ERROR_CODE] = { "error_code", VMT_EVF_ERROR_CODE },
};

char *vmt_hex_text(uint64_t v, char *buf, size_t size)
{
	snprintf(buf, size, "0x%" PRIx64, v);
	return buf;
}

void vmt_hexfields_text(FILE *f, const struct vmt_event *ev, bool all, unsigned int col,
			unsigned int width, unsigned int indent)
{
	char text[64];
	unsigned int i;
	int n;

	for (i = 0; i < VMT_HF_COUNT; i++) {
		uint64_t v = vmt_hexfield_value(ev, (enum vmt_hexfield)i);

		if (!vmt_hexfield_shown(ev, (enum vmt_hexfield)i, all))
			continue;
		n = snprintf(text, sizeof(text), " %s 0x%" PRIx64, vmt_hexfields[i].name, v);
		if (n < 0)
			continue;
		/* the RIP stays by the exit it names; a line holding only the indent takes any */
		if (width && i != VMT_HF_RIP && col > indent && col + (unsigned int)n > width) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		}
		fputs(text, f);
		col += (unsigned int)n;
	}
}

void vmt_hexfields_json(struct vmt_jsonw *w, const struct vmt_event *ev)
{
	unsigned int i;

	for (i = 0; i < VMT_HF_COUNT; i++) {
		if (vmt_hexfield_has(ev, (enum vmt_hexfield)i))
			vmt_jsonw_hex(w, vmt_hexfields[i].name,
				      vmt_hexfield_value(ev, (enum vmt_hexfield)i));
	}
}
