// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "ctxevent.h"
#include "evdump.h"
#include "evrender.h"
#include "timefmt.h"
#include "whyfmt.h"

static int on_start(void *state, const struct vmt_iter *it)
{
	struct vmt_evdump *d = state;

	if (d->o.window) {
		d->from_ts = it->start_ts + vmt_clock_ticks(it->clock, d->o.from_ns);
		d->to_ts = it->start_ts + vmt_clock_ticks(it->clock, d->o.to_ns);
	}
	return vmt_exitreasons_new(it->begin_format, &d->names);
}

static bool in_window(const struct vmt_evdump *d, uint64_t ts)
{
	return !d->o.window || (ts >= d->from_ts && ts <= d->to_ts);
}

/*
 * Gaps and context events go with the filter's CPUs and time range (they have no exit to
 * be judged by); begin and end events are judged by their exit (iterate.h's selected).
 */
static bool filter_keeps(const struct vmt_iter *it, uint32_t cpu, uint64_t ts)
{
	const struct vmt_filter *f = it->filter;

	if (!f)
		return true;
	if (f->cpus.n && !vmt_cpulist_has(&f->cpus, cpu))
		return false;
	if ((f->has_from && ts < f->from_ts) || (f->has_to && ts > f->to_ts))
		return false;
	return true;
}

static void json_common(struct vmt_jsonw *j, const struct vmt_iter *it, uint64_t ts,
			uint32_t cpu, int32_t pid, const char *kind)
{
	vmt_jsonw_object_open(j, NULL);
	vmt_jsonw_u64(j, "time_ns", vmt_clock_ns(it->clock, ts > it->start_ts ?
						   ts - it->start_ts : 0));
	vmt_jsonw_u64(j, "cpu", cpu);
	if (pid >= 0)
		vmt_jsonw_i64(j, "pid", pid);
	vmt_jsonw_str(j, "kind", kind);
}

static void json_event(struct vmt_evdump *d, const struct vmt_iter *it,
		       const struct vmt_iter_event *e)
{
	const struct vmt_event *ev = e->ev;
	struct vmt_jsonw *j = d->o.json;
	char rs[96];

	json_common(j, it, ev->ts, ev->cpu, ev->pid, ev->kind == VMT_EV_BEGIN ? "exit" : "entry");
	if (ev->has & VMT_EVF_VCPU)
		vmt_jsonw_u64(j, "vcpu", ev->vcpu);
	if (ev->kind == VMT_EV_BEGIN && (ev->has & VMT_EVF_REASON)) {
		uint64_t key = vmt_exitreason_key(ev->isa, ev->reason);

		vmt_jsonw_str(j, "reason", vmt_exitreason_label(d->names, ev->isa, key, rs,
								 sizeof(rs)));
		vmt_jsonw_u64(j, "code", key);
	}
	vmt_hexfields_json(j, ev);
	if (ev->kind == VMT_EV_END) {
		vmt_jsonw_opt_u64(j, "latency_ns", e->pair != NULL,
				  e->pair ? vmt_clock_ns(it->clock, e->pair->lat) : 0);
		if (e->pair && e->pair->why)
			vmt_why_json(j, "why", it->clock, e->pair->why, it->why_recorded, true);
	}
	vmt_jsonw_object_close(j);
}

/*
 * An event's line is built in place and written once: with one fprintf per field, -v spent
 * two thirds of its time in stdio. The helpers give what "%s", "%*s", "%u", "%*d" and
 * "%llx" give; line[] holds the longest line (the widest fields all present).
 */
#define LINE_MAX_LEN 1024

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

static char *put_pad(char *p, const char *s, unsigned int width)
{
	size_t n = strlen(s);

	for (; n < width; width--)
		*p++ = ' ';
	memcpy(p, s, n);
	return p + n;
}

static char *put_u64(char *p, uint64_t v, unsigned int width)
{
	char b[24];
	unsigned int n = 0;

	do {
		b[sizeof(b) - 1 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (; n < width; width--)
		*p++ = ' ';
	memcpy(p, b + sizeof(b) - n, n);
	return p + n;
}

static char *put_i32(char *p, int32_t v, unsigned int width)
{
	char b[16], *e;

	if (v >= 0)
		return put_u64(p, (uint64_t)v, width);
	b[0] = '-';
	e = put_u64(b + 1, (uint64_t)-(int64_t)v, 0);
	*e = '\0';
	return put_pad(p, b, width);
}

static char *put_hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char b[16];
	unsigned int n = 0;

	do {
		b[sizeof(b) - 1 - n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	memcpy(p, b + sizeof(b) - n, n);
	return p + n;
}

static char *put_frac(char *p, uint64_t v, unsigned int digits)
{
	unsigned int i;

	for (i = digits; i-- > 0; v /= 10)
		p[i] = (char)('0' + v % 10);
	return p + digits;
}

/* vmt_fmt_time (timefmt.h): seconds since the start, nine decimals */
static char *put_time(char *p, const struct vmt_iter *it, uint64_t ts)
{
	char b[32], *e;
	uint64_t ns = vmt_clock_ns(it->clock, ts > it->start_ts ? ts - it->start_ts : 0);

	e = put_u64(b, ns / UINT64_C(1000000000), 0);
	*e++ = '.';
	e = put_frac(e, ns % UINT64_C(1000000000), 9);
	*e = '\0';
	return put_pad(p, b, 14);
}

/* vmt_fmt_lat (timefmt.h), without snprintf for the ns clocks */
static char *put_lat(char *p, const struct vmt_iter *it, uint64_t ticks)
{
	static const char *const unit[] = { " ns", " us", " ms", " s" };
	uint64_t ns, scale = 1, whole, div;
	unsigned int u = 0, decimals;
	char l[32];

	if (!vmt_clock_in_ns(it->clock))
		return put_str(p, vmt_fmt_lat(it->clock, ticks, l, sizeof(l)));
	ns = vmt_clock_ns(it->clock, ticks);
	if (ns < 1000)
		return put_str(put_u64(p, ns, 0), " ns");
	/* vmt_format_ns (cli.h): four significant digits, cut */
	while (ns / scale >= 1000 && u < 3) {
		scale *= 1000;
		u++;
	}
	whole = ns / scale;
	decimals = whole >= 100 ? 1 : whole >= 10 ? 2 : 3;
	div = scale / (decimals == 1 ? 10 : decimals == 2 ? 100 : 1000);
	p = put_u64(p, whole, 0);
	*p++ = '.';
	p = put_frac(p, (ns % scale) / (div ? div : 1), decimals);
	return put_str(p, unit[u]);
}

static int on_event(void *state, const struct vmt_iter *it, const struct vmt_iter_event *e)
{
	struct vmt_evdump *d = state;
	const struct vmt_event *ev = e->ev;
	FILE *f = d->o.out;
	char line[LINE_MAX_LEN], *p = line;
	unsigned int i;

	if (!e->selected || !in_window(d, ev->ts))
		return 0;
	d->lines++;
	if (d->o.json) {
		json_event(d, it, e);
		return 0;
	}
	p = put_time(p, it, ev->ts);
	p = put_str(p, " cpu ");
	p = put_u64(p, ev->cpu, 3);
	p = put_str(p, " pid ");
	p = put_i32(p, ev->pid, 7);
	p = put_str(p, ev->kind == VMT_EV_BEGIN ? " EXIT " : " ENTRY");
	if (ev->has & VMT_EVF_VCPU) {
		p = put_str(p, " vcpu ");
		p = put_u64(p, ev->vcpu, 0);
	}
	if (ev->kind == VMT_EV_BEGIN && (ev->has & VMT_EVF_REASON)) {
		/* vmt_exitreason_label (exitreason.h): "name(0xcode)" or "0xcode" */
		uint64_t key = vmt_exitreason_key(ev->isa, ev->reason);
		const char *name = d->names ? vmt_exitreason_name(d->names, ev->isa, key) : NULL;

		p = put_str(p, " reason ");
		if (name)
			p = put_str(p, name);
		p = put_str(p, name ? "(0x" : "0x");
		p = put_hex(p, key);
		if (name)
			*p++ = ')';
	}
	/* vmt_hexfields_text (evrender.h), into the line */
	for (i = 0; i < VMT_HF_COUNT; i++) {
		uint64_t v = vmt_hexfield_value(ev, (enum vmt_hexfield)i);

		if (vmt_hexfield_has(ev, (enum vmt_hexfield)i) &&
		    (d->o.wide || v || i == VMT_HF_RIP)) {
			*p++ = ' ';
			p = put_str(p, vmt_hexfields[i].name);
			p = put_str(p, " 0x");
			p = put_hex(p, v);
		}
	}
	if (ev->kind == VMT_EV_END) {
		if (e->pair) {
			p = put_str(p, " latency ");
			p = put_lat(p, it, e->pair->lat);
		} else {
			p = put_str(p, " (no exit)");
		}
	}
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), f);
	if (d->o.why && e->pair && e->pair->why) {
		fputs("               why: ", f);
		vmt_why_text(f, it->clock, e->pair->why, e->pair->lat, 0);
		fputc('\n', f);
	}
	return 0;
}

static int on_gap(void *state, const struct vmt_iter *it, uint32_t cpu, uint64_t ts,
		  uint64_t missed)
{
	struct vmt_evdump *d = state;
	char t[32];

	if (!in_window(d, ts) || !filter_keeps(it, cpu, ts))
		return 0;
	d->lines++;
	if (d->o.json) {
		json_common(d->o.json, it, ts, cpu, -1, "lost");
		vmt_jsonw_opt_u64(d->o.json, "missed", missed != 0, missed);
		vmt_jsonw_object_close(d->o.json);
		return 0;
	}
	fprintf(d->o.out, "%14s cpu %3u LOST %" PRIu64 " events before this point%s\n",
		vmt_fmt_time(it->clock, it->start_ts, ts, t, sizeof(t)), cpu, missed,
		missed ? "" : " (count not stored)");
	return 0;
}

/* A context event in a few words: what changed on its CPU. */
static void context_text(FILE *f, const struct vmt_ctxev *ev)
{
	const char *sirq;

	switch (ev->type) {
	case VMT_CTX_SWITCH:
		fprintf(f, "switch %s/%" PRId32 " (%s) -> %s/%" PRId32, ev->u.sw.prev_comm,
			ev->u.sw.prev_pid, ev->u.sw.prev_runnable ? "runnable" : "sleeps",
			ev->u.sw.next_comm, ev->u.sw.next_pid);
		break;
	case VMT_CTX_WAKEUP:
		fprintf(f, "%s %s/%" PRId32 "%s", ev->u.wake.waking ? "waking" : "wakeup",
			ev->u.wake.comm, ev->u.wake.pid,
			ev->flags & VMT_CTX_FLAG_HARDIRQ ? " from an irq" :
			ev->flags & VMT_CTX_FLAG_SOFTIRQ ? " from a softirq" : "");
		break;
	case VMT_CTX_IRQ_ENTRY:
		fprintf(f, "irq %" PRId32 " entry (%s)", ev->u.irq.id, ev->u.irq.name);
		break;
	case VMT_CTX_IRQ_EXIT:
		fprintf(f, "irq %" PRId32 " exit", ev->u.irq.id);
		break;
	case VMT_CTX_SOFTIRQ_ENTRY:
	case VMT_CTX_SOFTIRQ_EXIT:
		sirq = vmt_ctx_softirq_name((uint32_t)ev->u.irq.id);
		fprintf(f, "softirq %s %s", sirq ? sirq : "?",
			ev->type == VMT_CTX_SOFTIRQ_ENTRY ? "entry" : "exit");
		break;
	case VMT_CTX_VEC_ENTRY:
	case VMT_CTX_VEC_EXIT:
		fprintf(f, "%s %s (vector %" PRId32 ")", ev->u.irq.name,
			ev->type == VMT_CTX_VEC_ENTRY ? "entry" : "exit", ev->u.irq.vector);
		break;
	case VMT_CTX_NMI:
		fprintf(f, "nmi handler, %" PRId64 " ns", ev->u.nmi.delta_ns);
		break;
	case VMT_CTX_USEREXIT:
		fprintf(f, "to user space (%s)", vmt_ctx_userexit_name(ev->u.uexit.reason,
								       ev->u.uexit.err));
		break;
	case VMT_CTX_KVM_RUN:
		fputs("ioctl KVM_RUN (back from user space)", f);
		break;
	case VMT_CTX_VCPU_WAKEUP:
		fprintf(f, "vcpu wakeup after %" PRIu64 " ns (%s)", ev->u.vwake.ns,
			ev->u.vwake.waited ? "waited" : "polled");
		break;
	case VMT_CTX_INJ_VIRQ:
		fprintf(f, "inject virq %" PRIu32, ev->u.virq.vector);
		break;
	default:
		fputs("?", f);
	}
}

static int on_context(void *state, const struct vmt_iter *it, const struct vmt_ctxev *ev)
{
	struct vmt_evdump *d = state;
	char t[32];

	if (!in_window(d, ev->ts) || !filter_keeps(it, ev->cpu, ev->ts))
		return 0;
	d->lines++;
	if (d->o.json) {
		char text[256];
		FILE *m = fmemopen(text, sizeof(text), "w");

		text[0] = '\0';
		if (m) {
			context_text(m, ev);
			fclose(m);
		}
		json_common(d->o.json, it, ev->ts, ev->cpu, ev->pid, "context");
		vmt_jsonw_str(d->o.json, "what", text);
		vmt_jsonw_object_close(d->o.json);
		return 0;
	}
	fprintf(d->o.out, "%14s cpu %3u pid %7" PRId32 " CTX   ",
		vmt_fmt_time(it->clock, it->start_ts, ev->ts, t, sizeof(t)), ev->cpu, ev->pid);
	context_text(d->o.out, ev);
	fputc('\n', d->o.out);
	return 0;
}

static const struct vmt_consumer_ops evdump_ops = {
	.name = "evdump",
	.start = on_start,
	.event = on_event,
	.gap = on_gap,
	.context = on_context,
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
