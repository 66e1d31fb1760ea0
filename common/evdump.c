// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ctxevent.h"
#include "evdump.h"
#include "evrender.h"
#include "numfmt.h"
#include "timefmt.h"
#include "vmfind.h"
#include "whyfmt.h"

/*
 * The text lines' buffer: flushed at this much, with room for one more line past it (the
 * fixed parts take under 400 bytes; a reason's name longer than NAME_IN_LINE_MAX is
 * written around the buffer).
 */
#define LINE_MAX_LEN 1024
#define NAME_IN_LINE_MAX 256
#define TEXT_FLUSH_AT (64u * 1024)

static int on_start(void *state, const struct vmt_iter *it)
{
	struct vmt_evdump *d = state;

	if (d->o.window) {
		d->from_ts = it->start_ts + vmt_clock_ticks(it->clock, d->o.from_ns);
		d->to_ts = it->start_ts + vmt_clock_ticks(it->clock, d->o.to_ns);
	}
	/* the lines' words follow the pair, as the report's do (reportfmt.c) */
	d->neutral = it->begin_format && it->begin_format->system &&
		     strcmp(it->begin_format->system, "kvm") != 0;
	if (!d->o.json) {
		d->text = malloc(TEXT_FLUSH_AT + LINE_MAX_LEN);
		d->labels = calloc(VMT_EVDUMP_ISAS * VMT_EVDUMP_KEYS, sizeof(*d->labels));
		if (!d->text || !d->labels)
			return -ENOMEM;
	}
	return vmt_exitreasons_new(it->begin_format, it->machine, &d->names);
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
	/* the *_ns keys hold ticks when ticks have no known length: each line says so */
	if (!vmt_clock_in_ns(it->clock))
		vmt_jsonw_str(j, "unit", "ticks");
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
	/* another pair's begin and end (system calls) are no exit and entry: as convert says */
	bool kvm = !it->r || vmt_reader_pairs_kvm(it->r);
	char rs[96];

	json_common(j, it, ev->ts, ev->cpu, ev->pid, ev->kind == VMT_EV_BEGIN ?
		    (kvm ? "exit" : "begin") : (kvm ? "entry" : "end"));
	if (ev->has & VMT_EVF_VCPU)
		vmt_jsonw_u64(j, "vcpu", ev->vcpu);
	/* the VM of the task, as the JSON's top exits name it, when the recording has a map */
	if (it->r && vmt_reader_vmmap(it->r)) {
		const struct vmt_vmmap *m = vmt_reader_vmmap(it->r);
		unsigned int vm, vcpu;

		vmt_jsonw_str(j, "vm", vmt_vmmap_lookup(m, ev->pid, &vm, &vcpu) == 0 ?
				       vmt_vmmap_name(m, vm) : NULL);
	}
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
 * An event's line is built in place in a buffer of many lines, written with one fwrite when
 * it fills (with one fprintf per field, -v spent two thirds of its time in stdio; with one
 * fwrite per line, a tenth). The helpers give what "%s", "%*s", "%u", "%*d" and "%llx"
 * give. LINE_MAX_LEN holds the longest line (the widest fields all present) and the
 * fixed-size copies past its end that the number writers of numfmt.h make.
 */

/* Text the FILE has not had yet goes first: the lines keep their order. */
static void text_flush(struct vmt_evdump *d)
{
	if (d->len) {
		fwrite(d->text, 1, d->len, d->o.out);
		d->len = 0;
	}
}

/* A string literal, its length known when compiling. */
#define PUT_LIT(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

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

/* "%*u": spaces up to width, then the digits. */
static inline char *put_u64(char *p, uint64_t v, unsigned int width)
{
	unsigned int n = vmt_u64_digits(v);

	for (; n < width; width--)
		*p++ = ' ';
	return vmt_put_u64(p, v);
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

/* Exactly digits (at most three) decimal digits of v < 10^digits, leading zeros kept. */
static inline char *put_frac3(char *p, uint32_t v, unsigned int digits)
{
	char b[3];

	b[2] = (char)('0' + v % 10);
	b[1] = (char)('0' + v / 10 % 10);
	b[0] = (char)('0' + v / 100);
	memcpy(p, b + 3 - digits, digits);
	return p + digits;
}

/* A time as the lines show it: "%14s" seconds, or "N ticks" when ticks have no length. */
static const char *time_text(const struct vmt_iter *it, uint64_t ts, char *buf, size_t size)
{
	char t[32];

	if (vmt_clock_in_ns(it->clock))
		return vmt_fmt_time(it->clock, it->start_ts, ts, buf, size);
	snprintf(buf, size, "%s ticks", vmt_fmt_time(it->clock, it->start_ts, ts, t, sizeof(t)));
	return buf;
}

/*
 * vmt_fmt_time (timefmt.h) as "%14s": seconds since the start, nine decimals. The seconds
 * change once in many lines, so their text (with its padding and the point) is kept.
 */
static char *put_time(struct vmt_evdump *d, char *p, const struct vmt_iter *it, uint64_t ts)
{
	uint64_t ns = vmt_clock_ns(it->clock, ts > it->start_ts ? ts - it->start_ts : 0);
	uint64_t sec = ns / UINT64_C(1000000000);
	uint32_t frac = (uint32_t)(ns - sec * UINT64_C(1000000000));
	char t[48];

	if (!vmt_clock_in_ns(it->clock)) {
		p += sprintf(p, "%14s", time_text(it, ts, t, sizeof(t)));
		return p;
	}
	if (sec != d->sec || !d->sec_len) {
		unsigned int n = vmt_u64_digits(sec), pad = n + 10 < 14 ? 14 - (n + 10) : 0;
		char *q = d->sec_text;

		memset(q, ' ', pad);
		q = vmt_put_u64(q + pad, sec);
		*q++ = '.';
		d->sec_len = (unsigned int)(q - d->sec_text);
		d->sec = sec;
	}
	memcpy(p, d->sec_text, sizeof(d->sec_text));	/* fixed size: the room is there */
	p += d->sec_len;
	*p++ = (char)('0' + frac / 100000000);
	return vmt_put_u32_8(p, frac % 100000000);
}

/* A latency of scale ns and up (scale a constant once inlined): whole units and decimals. */
static inline __attribute__((always_inline)) char *put_scaled(char *p, uint64_t ns,
							      uint64_t scale)
{
	uint64_t whole = ns / scale, rest = ns % scale;

	p = vmt_put_u64(p, whole);
	*p++ = '.';
	/* vmt_format_ns (cli.h): four significant digits, cut */
	if (whole >= 100)
		return put_frac3(p, (uint32_t)(rest / (scale / 10)), 1);
	if (whole >= 10)
		return put_frac3(p, (uint32_t)(rest / (scale / 100)), 2);
	return put_frac3(p, (uint32_t)(rest / (scale / 1000)), 3);
}

/* vmt_fmt_lat (timefmt.h), without snprintf for the ns clocks */
static char *put_lat(char *p, const struct vmt_iter *it, uint64_t ticks)
{
	uint64_t ns;
	char l[32];

	if (!vmt_clock_in_ns(it->clock))
		return put_str(p, vmt_fmt_lat(it->clock, ticks, l, sizeof(l)));
	ns = vmt_clock_ns(it->clock, ticks);
	if (ns < 1000)
		return PUT_LIT(vmt_put_u32_small(p, (uint32_t)ns), " ns");
	if (ns < 1000000)
		return PUT_LIT(put_scaled(p, ns, 1000), " us");
	if (ns < 1000000000)
		return PUT_LIT(put_scaled(p, ns, 1000000), " ms");
	return PUT_LIT(put_scaled(p, ns, 1000000000), " s");
}

/*
 * " reason NAME(0xCODE)" or " reason 0xCODE" (vmt_exitreason_label, exitreason.h), kept
 * per ISA for small codes: the name lookup walks the recording's table, which cost as
 * much as the rest of the line.
 */
static char *put_reason(struct vmt_evdump *d, char *p, uint32_t isa, uint64_t key)
{
	struct vmt_evdump_label *l = NULL;
	const char *name;
	char *start = p;

	if (d->labels && isa < VMT_EVDUMP_ISAS && key < VMT_EVDUMP_KEYS) {
		l = &d->labels[isa * VMT_EVDUMP_KEYS + key];
		if (l->len) {
			memcpy(p, l->text, sizeof(l->text));	/* fixed size */
			return p + l->len;
		}
	}
	name = d->names ? vmt_exitreason_name(d->names, isa, key) : NULL;
	p = d->neutral ? PUT_LIT(p, " id ") : PUT_LIT(p, " reason ");
	if (name && strlen(name) > NAME_IN_LINE_MAX) {
		/* a name from a hostile format may be longer than a line's room: not copied */
		d->len = (size_t)(p - d->text);
		text_flush(d);
		fputs(name, d->o.out);
		p = start = d->text;
		l = NULL;
		*p++ = '(';
	} else if (name) {
		p = put_str(p, name);
		*p++ = '(';
	}
	p = vmt_put_hex(p, key);
	if (name)
		*p++ = ')';
	if (l && (size_t)(p - start) <= sizeof(l->text)) {
		memcpy(l->text, start, (size_t)(p - start));
		l->len = (uint8_t)(p - start);
	}
	return p;
}

/* " cpu %3u pid %7d", kept as text while the events stay with one task on one CPU */
static char *put_task(struct vmt_evdump *d, char *p, uint32_t cpu, int32_t pid)
{
	if (cpu != d->task_cpu || pid != d->task_pid || !d->task_len) {
		char *q = d->task_text;

		q = PUT_LIT(q, " cpu ");
		q = put_u64(q, cpu, 3);
		q = PUT_LIT(q, " pid ");
		q = put_i32(q, pid, 7);
		d->task_len = (unsigned int)(q - d->task_text);
		d->task_cpu = cpu;
		d->task_pid = pid;
	}
	memcpy(p, d->task_text, sizeof(d->task_text));	/* fixed size: the room is there */
	return p + d->task_len;
}

/* " rip ", " info1 ", ...: vmt_hexfields' names with their spaces, for fixed-size copies */
static const struct {
	char text[16];
	uint8_t len;
} hexfield_words[VMT_HF_COUNT] = {
	[VMT_HF_RIP] = { " rip ", 5 },
	[VMT_HF_INFO1] = { " info1 ", 7 },
	[VMT_HF_INFO2] = { " info2 ", 7 },
	[VMT_HF_INTR_INFO] = { " intr_info ", 11 },
	[VMT_HF_ERROR_CODE] = { " error_code ", 12 },
};

/* " name 0xvalue" of one field */
static inline char *put_hexfield(char *p, enum vmt_hexfield i, uint64_t v)
{
	memcpy(p, hexfield_words[i].text, sizeof(hexfield_words[i].text));	/* fixed size */
	return vmt_put_hex(p + hexfield_words[i].len, v);
}

/*
 * An exit's field that would end past the line's 120 columns (without --wide) goes on a
 * line of its own, under the "why:" of -v --why: fields come after the fixed parts, so
 * at most a few such lines (the room in the buffer: LINE_MAX_LEN).
 */
#define LINE_COLUMNS 120
#define CONT_INDENT "\n              "

static inline char *put_exitfield(const struct vmt_evdump *d, char *p, char **line,
				  enum vmt_hexfield i, uint64_t v)
{
	char *q = put_hexfield(p, i, v);

	/* a line already past them (a hostile format's long name, maybe written around the
	 * buffer: then *line is past p) stays one line */
	if (d->o.wide || q - *line <= LINE_COLUMNS || p < *line || p - *line > LINE_COLUMNS)
		return q;
	memmove(p + sizeof(CONT_INDENT) - 1, p, (size_t)(q - p));
	memcpy(p, CONT_INDENT, sizeof(CONT_INDENT) - 1);
	*line = p + 1;
	return q + sizeof(CONT_INDENT) - 1;
}

static int on_event(void *state, const struct vmt_iter *it, const struct vmt_iter_event *e)
{
	struct vmt_evdump *d = state;
	const struct vmt_event *ev = e->ev;
	FILE *f = d->o.out;
	char *p, *line;

	/*
	 * An exit in the window that ends after it: its entry too, with the latency and the
	 * causes the exit's line cannot show (the longest exits outlast a short --around)
	 */
	if (!e->selected || (!in_window(d, ev->ts) && !(ev->kind == VMT_EV_END && e->pair &&
							 in_window(d, e->pair->begin->ts))))
		return 0;
	d->lines++;
	if (d->o.json) {
		json_event(d, it, e);
		return 0;
	}
	p = line = d->text + d->len;
	p = put_time(d, p, it, ev->ts);
	p = put_task(d, p, ev->cpu, ev->pid);
	if (ev->kind == VMT_EV_BEGIN)
		p = d->neutral ? PUT_LIT(p, " BEGIN") : PUT_LIT(p, " EXIT ");
	else
		p = d->neutral ? PUT_LIT(p, " END  ") : PUT_LIT(p, " ENTRY");
	if (ev->has & VMT_EVF_VCPU) {
		p = PUT_LIT(p, " vcpu ");
		p = vmt_put_u64(p, ev->vcpu);
	}
	if (ev->kind == VMT_EV_BEGIN && (ev->has & VMT_EVF_REASON))
		p = put_reason(d, p, ev->isa, vmt_exitreason_key(ev->isa, ev->reason));
	/*
	 * vmt_hexfields_text (evrender.h), into the line, unrolled: the RIP whenever the event
	 * has it, an exit's other fields when they are not zero (all with wide)
	 */
	if (ev->has & VMT_EVF_RIP)
		p = put_hexfield(p, VMT_HF_RIP, ev->rip);
	if (ev->kind == VMT_EV_BEGIN) {
		if ((ev->has & VMT_EVF_INFO1) && (d->o.wide || ev->info1))
			p = put_exitfield(d, p, &line, VMT_HF_INFO1, ev->info1);
		if ((ev->has & VMT_EVF_INFO2) && (d->o.wide || ev->info2))
			p = put_exitfield(d, p, &line, VMT_HF_INFO2, ev->info2);
		if ((ev->has & VMT_EVF_INTR_INFO) && (d->o.wide || ev->intr_info))
			p = put_exitfield(d, p, &line, VMT_HF_INTR_INFO, ev->intr_info);
		if ((ev->has & VMT_EVF_ERROR_CODE) && (d->o.wide || ev->error_code))
			p = put_exitfield(d, p, &line, VMT_HF_ERROR_CODE, ev->error_code);
	}
	if (ev->kind == VMT_EV_END) {
		if (e->pair) {
			p = PUT_LIT(p, " latency ");
			p = put_lat(p, it, e->pair->lat);
		} else {
			p = d->neutral ? PUT_LIT(p, " (no begin)") : PUT_LIT(p, " (no exit)");
		}
	}
	*p++ = '\n';
	d->len = (size_t)(p - d->text);
	if (d->o.why && e->pair && e->pair->why) {
		char before[128];

		text_flush(d);
		fputs("               why: ", f);
		vmt_why_text_vm(f, it->clock, e->pair->why, e->pair->lat, d->o.wide ? 0 : 120 - 20,
				it->r ? vmt_reader_vmmap(it->r) : NULL);
		fputc('\n', f);
		/* outside the parts: a line of its own under them (whyfmt.h) */
		if (vmt_why_before_text(it->clock, e->pair->why, before, sizeof(before)))
			fprintf(f, "                    %s\n", before);
	} else if (d->len >= TEXT_FLUSH_AT) {
		text_flush(d);
	}
	return 0;
}

static int on_gap(void *state, const struct vmt_iter *it, uint32_t cpu, uint64_t ts,
		  uint64_t missed)
{
	struct vmt_evdump *d = state;
	/* damaged data: lost from here to its last time, not before this point */
	bool until = it->gap_until != UINT64_MAX && it->gap_until > ts;
	char t[32], u[32];

	if (!in_window(d, ts) || !filter_keeps(it, cpu, ts))
		return 0;
	d->lines++;
	if (d->o.json) {
		json_common(d->o.json, it, ts, cpu, -1, "lost");
		vmt_jsonw_opt_u64(d->o.json, "missed", missed != 0, missed);
		vmt_jsonw_opt_u64(d->o.json, "until_ns", until,
				  vmt_clock_ns(it->clock, it->gap_until - it->start_ts));
		vmt_jsonw_object_close(d->o.json);
		return 0;
	}
	text_flush(d);
	fprintf(d->o.out, "%14s cpu %3u LOST ", time_text(it, ts, t, sizeof(t)), cpu);
	if (until)
		fprintf(d->o.out, "events from this point to %s (damaged data; how many is not "
			"known)\n", time_text(it, it->gap_until, u, sizeof(u)));
	/* not "LOST 0": a page flagged without a count, or damaged data, lost some */
	else if (missed)
		fprintf(d->o.out, "%" PRIu64 " events before this point\n", missed);
	else
		fputs("events before this point (how many is not known)\n", d->o.out);
	return 0;
}

/* A context event in a few words: what changed on its CPU. */
static void context_text(FILE *f, const struct vmt_ctxev *ev)
{
	const char *sirq;
	char reason[24];

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
		fprintf(f, "to user space (%s)", vmt_ctx_userexit_text(ev->u.uexit.reason,
				ev->u.uexit.err, reason, sizeof(reason)));
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
	text_flush(d);
	fprintf(d->o.out, "%14s cpu %3u pid %7" PRId32 " CTX   ",
		time_text(it, ev->ts, t, sizeof(t)), ev->cpu, ev->pid);
	context_text(d->o.out, ev);
	fputc('\n', d->o.out);
	return 0;
}

static int on_finish(void *state, const struct vmt_iter *it)
{
	(void)it;
	vmt_evdump_flush(state);
	return 0;
}

static const struct vmt_consumer_ops evdump_ops = {
	.name = "evdump",
	.start = on_start,
	.event = on_event,
	.gap = on_gap,
	.context = on_context,
	.finish = on_finish,
};

void vmt_evdump_flush(struct vmt_evdump *d)
{
	if (d->text)
		text_flush(d);
}

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
	free(d->text);
	d->text = NULL;
	free(d->labels);
	d->labels = NULL;
}
