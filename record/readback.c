// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "iterate.h"
#include "log.h"
#include "nomatch.h"
#include "readback.h"
#include "reader.h"
#include "reportfmt.h"
#include "summary.h"
#include "trigger.h"

void rec_readback_summary(const char *path)
{
	struct vmt_summary_opts so = { .window_ns = VMT_DEFAULT_WINDOW_NS };
	/* the context events name the tasks (comm) as in the report: decoded, not attributed */
	struct vmt_iter_opts io = { .context = true };
	struct vmt_summary s = { 0 };
	struct vmt_consumer c;
	struct vmt_reader *r;
	struct vmt_iter it;
	char why[256];
	int ret = vmt_reader_open(path, NULL, &r, why, sizeof(why));

	if (ret) {
		vmt_err("%s: cannot read back: %s", path, why[0] ? why : strerror(-ret));
		return;
	}
	if (vmt_summary_consumer(&s, &so, &c) == 0 && vmt_iterate(r, &io, &c, 1, &it) == 0) {
		struct vmt_trigger trig;
		char msg[512];

		vmt_report_summary_text(stdout, r, &s);
		/* a flight recording's trigger, or "nothing triggered", as the report says it */
		vmt_trigger_read(r, &trig);
		vmt_trigger_text(stdout, &trig);
		if (vmt_nomatch_no_exits(&it, r, msg, sizeof(msg)))
			vmt_warn_folded("%s: %s", path, msg);
	}
	vmt_summary_free(&s);
	vmt_reader_close(r);
}
