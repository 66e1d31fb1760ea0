/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evrender: how an event's optional fields look, described once for every view: their
 * names, and one rendering each for text ("rip 0x1000": lowercase hex without leading
 * zeros, the same in dumps and tables) and for JSON (hex as strings: guest addresses do
 * not fit a double). Stateless, thread-safe.
 */
#ifndef VMT_EVRENDER_H
#define VMT_EVRENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "jsonw.h"
#include "kvmevent.h"

/* The hex fields, in the order every view shows them. */
enum vmt_hexfield {
	VMT_HF_RIP,
	VMT_HF_INFO1,
	VMT_HF_INFO2,
	VMT_HF_INTR_INFO,
	VMT_HF_ERROR_CODE,
	VMT_HF_COUNT
};

struct vmt_hexfield_desc {
	const char *name;	/* "rip", "info1", ... */
	uint16_t bit;		/* VMT_EVF_* */
};

extern const struct vmt_hexfield_desc vmt_hexfields[VMT_HF_COUNT];

static inline uint64_t vmt_hexfield_value(const struct vmt_event *ev, enum vmt_hexfield f)
{
	switch (f) {
	case VMT_HF_RIP:
		return ev->rip;
	case VMT_HF_INFO1:
		return ev->info1;
	case VMT_HF_INFO2:
		return ev->info2;
	case VMT_HF_INTR_INFO:
		return ev->intr_info;
	case VMT_HF_ERROR_CODE:
		return ev->error_code;
	default:
		return 0;
	}
}

/* Whether the event carries the field (an entry shows its rip only). */
static inline int vmt_hexfield_has(const struct vmt_event *ev, enum vmt_hexfield f)
{
	if (ev->kind != VMT_EV_BEGIN && f != VMT_HF_RIP)
		return 0;
	return (ev->has & vmt_hexfields[f].bit) != 0;
}

/* Whether the text views show field f of ev: the RIP always, the others when all or not 0. */
static inline bool vmt_hexfield_shown(const struct vmt_event *ev, enum vmt_hexfield f, bool all)
{
	return vmt_hexfield_has(ev, f) && (all || f == VMT_HF_RIP || vmt_hexfield_value(ev, f));
}

/* Whether vmt_hexfields_text() writes anything for ev. */
static inline bool vmt_hexfields_any(const struct vmt_event *ev, bool all)
{
	unsigned int i;

	for (i = 0; i < VMT_HF_COUNT; i++) {
		if (vmt_hexfield_shown(ev, (enum vmt_hexfield)i, all))
			return true;
	}
	return false;
}

/*
 * " rip 0x1000 info1 0x0 ..." for the fields the event carries, into f: all of them when
 * all is set, else the RIP and the fields that are not zero (what the 120-column views
 * show; a label always names its field, so nothing is ambiguous). The line is at column
 * col; with width set, a field after the RIP that would end past width columns starts a
 * new line, indent spaces in (0: one line whatever its length).
 */
void vmt_hexfields_text(FILE *f, const struct vmt_event *ev, bool all, unsigned int col,
			unsigned int width, unsigned int indent);
/* "rip":"0x1000", ... for the fields the event carries. */
void vmt_hexfields_json(struct vmt_jsonw *w, const struct vmt_event *ev);
/* One value as text: "0x1000". */
char *vmt_hex_text(uint64_t v, char *buf, size_t size);

#endif
