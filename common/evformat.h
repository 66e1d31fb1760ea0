/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evformat: tracefs "format" files and events/header_page text -> event ids and field
 * offsets, sizes and signedness. Works for any kernel's layout; input is untrusted text
 * (bounded, validated, never read past len). A parsed struct vmt_evformat is owned by
 * the caller (vmt_evformat_free) and is read-only afterwards, so threads may share it.
 */
#ifndef VMT_EVFORMAT_H
#define VMT_EVFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Anything larger is not a tracepoint record; bounds offsets from hostile files. */
#define VMT_EVFORMAT_MAX_RECORD 65536
#define VMT_EVFORMAT_MAX_FIELDS 256

struct vmt_evfield {
	char *name;
	char *type;		/* the C declaration without the name, e.g. "unsigned int" */
	uint32_t offset;
	uint32_t size;
	bool is_signed;
	bool is_array;		/* "name[N]" or __data_loc */
};

struct vmt_evformat {
	char *system;		/* may be NULL when the caller did not say */
	char *name;
	uint32_t id;
	unsigned int nfields;
	struct vmt_evfield *fields;
	char *print_fmt;	/* may be NULL */
};

/* Parse a format file's text. Returns 0 or -EBADMSG (with *errline set when non-NULL). */
int vmt_evformat_parse(const char *text, size_t len, const char *system,
		       struct vmt_evformat **out, unsigned int *errline);
void vmt_evformat_free(struct vmt_evformat *fmt);
const struct vmt_evfield *vmt_evformat_field(const struct vmt_evformat *fmt, const char *name);

/* The sub-buffer ("page") header layout from events/header_page. */
struct vmt_header_page {
	uint32_t ts_offset;
	uint32_t commit_offset;
	uint32_t commit_size;	/* 8 on 64-bit kernels, 4 on 32-bit */
	uint32_t data_offset;
	uint32_t data_size;	/* bytes of record space per sub-buffer */
};

/* Largest sub-buffer accepted: far above any kernel's, small enough to allocate safely. */
#define VMT_HEADER_PAGE_MAX_SUBBUF (16u << 20)

int vmt_header_page_parse(const char *text, size_t len, struct vmt_header_page *hp);
/* Whole sub-buffer size: header plus data. */
static inline uint32_t vmt_header_page_subbuf_size(const struct vmt_header_page *hp)
{
	return hp->data_offset + hp->data_size;
}
/* The layout of 64-bit kernels with 4 KiB sub-buffers, for legacy files without a header_page. */
void vmt_header_page_default(struct vmt_header_page *hp);

#endif
