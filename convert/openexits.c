// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "log.h"
#include "openexits.h"
#include "reader.h"
#include "timefmt.h"

static int on_open(void *state, const struct vmt_iter *it, const struct vmt_open_exit *x)
{
	struct convert_open *st = state;
	uint64_t d = x->until > x->begin->ts ? x->until - x->begin->ts : 0;

	(void)it;
	if (!st->n++ || d > st->longest) {
		st->longest = d;
		st->longest_ts = x->begin->ts;
		st->longest_pid = x->begin->pid;
	}
	return 0;
}

static const struct vmt_consumer_ops open_ops = {
	.name = "open exits",
	.open = on_open,
};

void convert_open_consumer(struct convert_open *st, struct vmt_consumer *c)
{
	memset(st, 0, sizeof(*st));
	c->ops = &open_ops;
	c->state = st;
}

void convert_say_open(const struct convert_opts *o, const struct vmt_iter *it,
		      const struct convert_open *st, const char *one, const char *many)
{
	bool kvm = vmt_reader_pairs_kvm(it->r);
	char lat[48], at[48];

	if (!st->n)
		return;
	vmt_info_folded("%s: %" PRIu64 " %s%s still open at the stop (no %s came) %s: %s %s, "
			"task %" PRId32 ", from %s %s; vmtrace-report lists %s", o->input, st->n,
			kvm ? "exit" : "begin event", st->n == 1 ? "" : "s",
			kvm ? "entry" : "end event", st->n == 1 ? one : many,
			st->n == 1 ? "open" : "the longest open",
			vmt_fmt_lat(it->clock, st->longest, lat, sizeof(lat)), st->longest_pid,
			vmt_fmt_time(it->clock, it->start_ts, st->longest_ts, at, sizeof(at)),
			vmt_fmt_time_unit(it->clock), st->n == 1 ? "it" : "them");
}
