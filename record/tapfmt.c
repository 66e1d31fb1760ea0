// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"
#include "metakeys.h"
#include "reader.h"
#include "tapfmt.h"

static int parse_format(const uint8_t *meta, size_t len, const char *name_key,
			const char *fmt_key, struct vmt_evformat **fmt)
{
	char *name = vmt_kv_get_str(meta, len, name_key);
	const uint8_t *text;
	char *colon;
	uint32_t text_len;
	int ret = -EINVAL;

	text = vmt_kv_get(meta, len, fmt_key, &text_len);
	if (!name || !text)
		goto out_name;
	colon = strchr(name, ':');
	if (colon)
		*colon = '\0';
	ret = vmt_evformat_parse((const char *)text, text_len, colon ? name : NULL, fmt, NULL);
	if (ret && ret != -ENOMEM)
		ret = -EINVAL;
out_name:
	free(name);
	return ret;
}

/* The context events the META lists (none with --context none). */
static int context_formats(struct rec_tapfmt *f, const uint8_t *meta, size_t len)
{
	char *names = vmt_kv_get_str(meta, len, VMT_META_CONTEXT_EVENTS);
	uint32_t taken[2] = { f->fbegin->id, f->fend->id };
	unsigned int skipped;
	int ret;

	if (!names)
		return 0;
	ret = vmt_meta_context_formats(meta, len, names, taken, 2, &f->ctx, &f->nctx, &skipped);
	free(names);
	return ret;
}

int rec_tapfmt_load(struct rec_tapfmt *f, const uint8_t *meta, size_t len,
		    struct vmt_pass_input *in)
{
	int ret;

	memset(f, 0, sizeof(*f));
	ret = parse_format(meta, len, VMT_META_EVENT_BEGIN, VMT_META_FORMAT_BEGIN, &f->fbegin);
	if (!ret)
		ret = parse_format(meta, len, VMT_META_EVENT_END, VMT_META_FORMAT_END, &f->fend);
	if (!ret && vmt_evbind_init(&f->bind, f->fbegin, f->fend))
		ret = -EINVAL;
	if (!ret)
		ret = context_formats(f, meta, len);
	if (ret)
		return ret;
	f->machine = vmt_kv_get_str(meta, len, VMT_META_MACHINE);
	in->bind = &f->bind;
	in->begin_format = f->fbegin;
	in->machine = f->machine;
	in->context = (const struct vmt_evformat *const *)f->ctx;
	in->ncontext = f->nctx;
	return 0;
}

void rec_tapfmt_free(struct rec_tapfmt *f)
{
	vmt_evformat_free(f->fbegin);
	vmt_evformat_free(f->fend);
	while (f->nctx)
		vmt_evformat_free(f->ctx[--f->nctx]);
	free(f->ctx);
	free(f->machine);
	memset(f, 0, sizeof(*f));
}
