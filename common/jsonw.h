/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jsonw: the one JSON writer: objects and arrays opened and closed by name, commas and
 * escaping done here, onto a struct vmt_outbuf.
 * Integers above 2^53 are written as strings ("9007199254740993"): many readers (Python's
 * json aside) parse numbers as doubles and would lose their last digits. Hex fields are
 * strings ("0x1f"). Compact output; the caller adds a newline after the top value. A
 * writer belongs to one thread; nesting is limited to 63 levels.
 */
#ifndef VMT_JSONW_H
#define VMT_JSONW_H

#include <stdbool.h>
#include <stdint.h>

#include "outbuf.h"

#define VMT_JSON_MAX_SAFE_INT ((UINT64_C(1) << 53))

struct vmt_jsonw {
	struct vmt_outbuf *o;
	unsigned int depth;
	uint64_t has_items;	/* bit d: the container at depth d has a member already */
};

void vmt_jsonw_init(struct vmt_jsonw *w, struct vmt_outbuf *o);

/*
 * Every value call takes the member's name: a string inside an object, NULL inside an
 * array or for the top value.
 */
void vmt_jsonw_object_open(struct vmt_jsonw *w, const char *name);
void vmt_jsonw_object_close(struct vmt_jsonw *w);
void vmt_jsonw_array_open(struct vmt_jsonw *w, const char *name);
void vmt_jsonw_array_close(struct vmt_jsonw *w);

void vmt_jsonw_u64(struct vmt_jsonw *w, const char *name, uint64_t v);
void vmt_jsonw_i64(struct vmt_jsonw *w, const char *name, int64_t v);
/* "0x..." as a string. */
void vmt_jsonw_hex(struct vmt_jsonw *w, const char *name, uint64_t v);
/* A fixed-point number with decimals digits after the point. */
void vmt_jsonw_fixed(struct vmt_jsonw *w, const char *name, double v, unsigned int decimals);
void vmt_jsonw_bool(struct vmt_jsonw *w, const char *name, bool v);
void vmt_jsonw_null(struct vmt_jsonw *w, const char *name);
/* A string, escaped; NULL writes null. */
void vmt_jsonw_str(struct vmt_jsonw *w, const char *name, const char *s);
/* An unsigned value, or null when !has. */
void vmt_jsonw_opt_u64(struct vmt_jsonw *w, const char *name, bool has, uint64_t v);

/*
 * The separator and name of a member whose value the caller writes itself, whole and
 * valid, straight onto the outbuf (e.g. an array kept in a temporary file).
 */
void vmt_jsonw_member(struct vmt_jsonw *w, const char *name);

/*
 * Write s as a JSON string literal (quotes included) without a member name; bytes that are
 * no part of a valid UTF-8 sequence become U+FFFD, so the output is always valid UTF-8.
 */
void vmt_json_escape(struct vmt_outbuf *o, const char *s);

#endif
