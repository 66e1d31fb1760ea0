// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtrace-convert --perfetto: the timeline consumer (common/perfetto.h) over one pass, which
 * attributes so that the context events reach it; messages as the other writers (writers.h).
 */
#include "config.h"

#include <string.h>

#include "log.h"
#include "nomatch.h"
#include "openexits.h"
#include "perfetto.h"
#include "writers.h"

int convert_perfetto(const struct convert_opts *o, struct vmt_reader *r, int fd,
		     struct convert_found *found)
{
	struct vmt_iter_opts io = { (struct vmt_filter *)&o->fo.filter, .attribute = true };
	struct vmt_perfetto *p;
	struct vmt_consumer c[2];
	struct convert_open open;
	struct vmt_iter it;
	char msg[1024];
	uint64_t slices;
	int ret, werr;

	ret = vmt_perfetto_consumer(fd, &p, &c[0]);
	if (ret) {
		vmt_err("%s", strerror(-ret));
		return ret;
	}
	convert_open_consumer(&open, &c[1]);
	ret = vmt_iterate(r, &io, c, 2, &it);
	vmt_iter_read_stats(&it, &found->rd);
	found->damage = *vmt_reader_damage(r);
	found->decoded = true;
	slices = vmt_perfetto_counts(p)->exits;
	werr = vmt_perfetto_finish(p);
	if (werr)
		vmt_err("%s: %s", convert_output_name(o), strerror(-werr));
	else if (ret)
		vmt_err("%s: %s", o->input, strerror(-ret));
	else if (!slices && vmt_nomatch_explain(&it, msg, sizeof(msg)))
		vmt_info("%s: %s", o->input, msg);
	if (!werr && !ret)
		convert_say_open(o, &it, &open, "has no slice", "have no slice");
	return werr ? werr : ret;
}
