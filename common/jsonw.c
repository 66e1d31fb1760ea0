// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "jsonw.h"
#include "textwidth.h"

void vmt_jsonw_init(struct vmt_jsonw *w, struct vmt_outbuf *o)
{
	w->o = o;
	w->depth = 0;
	w->has_items = 0;
}

/*
 * JSON is UTF-8 (RFC 8259), and one invalid byte makes a strict reader refuse the whole
 * document: a byte that starts no valid sequence (a comm with any byte, a name cut inside a
 * character) is written as U+FFFD, the replacement character, as OpenMetrics labels are.
 * ASCII other than '"', '\\' and the controls is copied in runs.
 */
void vmt_json_escape(struct vmt_outbuf *o, const char *s)
{
	const char *run = s;

	vmt_outbuf_ch(o, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		size_t n;

		if (c != '"' && c != '\\' && c >= 0x20 && c < 0x80)
			continue;
		n = c < 0x80 ? 1 : vmt_textwidth_seq(s, strnlen(s, 4));
		if (n > 1) {
			s += n - 1;
			continue;
		}
		vmt_outbuf_mem(o, run, (size_t)(s - run));
		run = s + 1;
		if (c == '"' || c == '\\') {
			vmt_outbuf_ch(o, '\\');
			vmt_outbuf_ch(o, (char)c);
		} else if (c >= 0x80) {
			vmt_outbuf_str(o, "\xef\xbf\xbd");
		} else {
			vmt_outbuf_printf(o, "\\u%04x", c);
		}
	}
	if (s)
		vmt_outbuf_mem(o, run, (size_t)(s - run));
	vmt_outbuf_ch(o, '"');
}

/* The comma and the member's name before a value; top values stand alone (JSON lines). */
static void member(struct vmt_jsonw *w, const char *name)
{
	uint64_t bit = UINT64_C(1) << w->depth;

	if (w->depth && (w->has_items & bit))
		vmt_outbuf_ch(w->o, ',');
	w->has_items |= bit;
	if (name) {
		vmt_json_escape(w->o, name);
		vmt_outbuf_ch(w->o, ':');
	}
}

void vmt_jsonw_member(struct vmt_jsonw *w, const char *name)
{
	member(w, name);
}

static void open_container(struct vmt_jsonw *w, const char *name, char c)
{
	member(w, name);
	vmt_outbuf_ch(w->o, c);
	if (w->depth < 63)
		w->depth++;
	w->has_items &= ~(UINT64_C(1) << w->depth);
}

static void close_container(struct vmt_jsonw *w, char c)
{
	vmt_outbuf_ch(w->o, c);
	if (w->depth)
		w->depth--;
}

void vmt_jsonw_object_open(struct vmt_jsonw *w, const char *name)
{
	open_container(w, name, '{');
}

void vmt_jsonw_object_close(struct vmt_jsonw *w)
{
	close_container(w, '}');
}

void vmt_jsonw_array_open(struct vmt_jsonw *w, const char *name)
{
	open_container(w, name, '[');
}

void vmt_jsonw_array_close(struct vmt_jsonw *w)
{
	close_container(w, ']');
}

void vmt_jsonw_u64(struct vmt_jsonw *w, const char *name, uint64_t v)
{
	member(w, name);
	if (v > VMT_JSON_MAX_SAFE_INT) {
		vmt_outbuf_ch(w->o, '"');
		vmt_outbuf_u64(w->o, v);
		vmt_outbuf_ch(w->o, '"');
	} else {
		vmt_outbuf_u64(w->o, v);
	}
}

void vmt_jsonw_i64(struct vmt_jsonw *w, const char *name, int64_t v)
{
	uint64_t mag = v < 0 ? (uint64_t)-(v + 1) + 1 : (uint64_t)v;

	member(w, name);
	if (mag > VMT_JSON_MAX_SAFE_INT) {
		vmt_outbuf_ch(w->o, '"');
		vmt_outbuf_i64(w->o, v);
		vmt_outbuf_ch(w->o, '"');
	} else {
		vmt_outbuf_i64(w->o, v);
	}
}

void vmt_jsonw_hex(struct vmt_jsonw *w, const char *name, uint64_t v)
{
	member(w, name);
	vmt_outbuf_ch(w->o, '"');
	vmt_outbuf_hex(w->o, v);
	vmt_outbuf_ch(w->o, '"');
}

void vmt_jsonw_fixed(struct vmt_jsonw *w, const char *name, double v, unsigned int decimals)
{
	member(w, name);
	if (v != v || v > 1e300 || v < -1e300)	/* NaN and infinities are not JSON */
		vmt_outbuf_str(w->o, "null");
	else
		vmt_outbuf_printf(w->o, "%.*f", (int)decimals, v);
}

void vmt_jsonw_bool(struct vmt_jsonw *w, const char *name, bool v)
{
	member(w, name);
	vmt_outbuf_str(w->o, v ? "true" : "false");
}

void vmt_jsonw_null(struct vmt_jsonw *w, const char *name)
{
	member(w, name);
	vmt_outbuf_str(w->o, "null");
}

void vmt_jsonw_str(struct vmt_jsonw *w, const char *name, const char *s)
{
	member(w, name);
	if (s)
		vmt_json_escape(w->o, s);
	else
		vmt_outbuf_str(w->o, "null");
}

void vmt_jsonw_opt_u64(struct vmt_jsonw *w, const char *name, bool has, uint64_t v)
{
	if (has)
		vmt_jsonw_u64(w, name, v);
	else
		vmt_jsonw_null(w, name);
}
