// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "evdump.h"
#include "evrender.h"
#include "timefmt.h"

static int on_start(void *state, const struct vmt_iter *it)
{
	struct vmt_evdump *d = state;

	if (d->o.window) {
		d->from_ts = it->start_ts + vmt_clock_ticks(it->clock, d->o.from_ns);
		d->to_ts = it->start_ts + vmt_clock_ticks(it->clock, d->o.to_ns);
	}
	return vmt_exitreasons_new(vmt_reader_begin_format(it->r), &d->names);
}

static bool in_window(const struct vmt_evdump *d, uint64_t ts)
{
	return !d->o.window || (ts >= d->from_ts && ts <= d->to_ts);
}

static int on_event(void *state, const struct vmt_iter *it, const struct vmt_iter_event *e)
{
	struct vmt_evdump *d = state;
	const struct vmt_event *ev = e->ev;
	FILE *f = d->o.out;
	char t[32], l[32], rs[96];

	if (!in_window(d, ev->ts))
		return 0;
	d->lines++;
	fprintf(f, "%14s cpu %3u pid %7" PRId32 " ",
		vmt_fmt_time(it->clock, it->start_ts, ev->ts, t, sizeof(t)), ev->cpu, ev->pid);
	fputs(ev->kind == VMT_EV_BEGIN ? "EXIT " : "ENTRY", f);
	if (ev->has & VMT_EVF_VCPU)
		fprintf(f, " vcpu %u", ev->vcpu);
	if (ev->kind == VMT_EV_BEGIN && (ev->has & VMT_EVF_REASON))
		fprintf(f, " reason %s", vmt_exitreason_label(d->names, ev->isa,
			vmt_exitreason_key(ev->isa, ev->reason), rs, sizeof(rs)));
	vmt_hexfields_text(f, ev);
	if (ev->kind == VMT_EV_END) {
		if (e->pair)
			fprintf(f, " latency %s", vmt_fmt_lat(it->clock, e->pair->lat, l, sizeof(l)));
		else
			fputs(" (no exit)", f);
	}
	fputc('\n', f);
	return 0;
}

static int on_gap(void *state, const struct vmt_iter *it, uint32_t cpu, uint64_t ts,
		  uint64_t missed)
{
	struct vmt_evdump *d = state;
	char t[32];

	if (!in_window(d, ts))
		return 0;
	d->lines++;
	fprintf(d->o.out, "%14s cpu %3u LOST %" PRIu64 " events before this point%s\n",
		vmt_fmt_time(it->clock, it->start_ts, ts, t, sizeof(t)), cpu, missed,
		missed ? "" : " (count not stored)");
	return 0;
}

static const struct vmt_consumer_ops evdump_ops = {
	.name = "evdump",
	.start = on_start,
	.event = on_event,
	.gap = on_gap,
};

int vmt_evdump_consumer(struct vmt_evdump *d, const struct vmt_evdump_opts *o,
			struct vmt_consumer *out)
{
	memset(d, 0, sizeof(*d));
	d->o = *o;
	out->ops = &evdump_ops;
	out->state = d;
	return 0;
}

void vmt_evdump_free(struct vmt_evdump *d)
{
	vmt_exitreasons_free(d->names);
	d->names = NULL;
}
