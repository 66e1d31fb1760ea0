// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include "causes.h"
#include "log.h"

bool report_wants_causes(const struct report_opts *o)
{
	if (o->no_causes || o->openmetrics)
		return false;
	/* their own output has none; a page beside it does */
	return !(o->legacy || o->hist_cyclictest) || o->html;
}

bool report_causes_off(const struct report_opts *o, const struct vmt_reader *r)
{
	unsigned int nctx;

	vmt_reader_context_formats(r, &nctx);
	return nctx && !report_wants_causes(o);
}

int report_check_why(const struct report_opts *o, const struct vmt_reader *r)
{
	unsigned int nctx;

	vmt_reader_context_formats(r, &nctx);
	if (!o->why || nctx)
		return 0;
	vmt_err("%s: --why: the recording has no context events, so no causes to show "
		"(vmtrace-record records them unless given --context none)", o->file);
	return 64;
}
