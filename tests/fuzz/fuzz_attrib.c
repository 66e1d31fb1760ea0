// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the attribution engine. The input is a program: each step picks a context
 * event (decoded fields from the bytes, or a raw record through ctxevent with the layouts
 * of Linux 6.18), a begin, an end, a gap or a drop, on a few CPUs and tasks, at times that
 * mostly move forward. Every result must add up exactly: kinds, parts and segments to the
 * latency, the culprit the largest part; the worst window must equal struct vmt_window's.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "ctxevent.h"
#include "evformat.h"
#include "latstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HDR "format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* The fields of tests/data/formats/linux-6.18-x86_64 (ids renumbered 1..). */
static const char *const formats[][2] = {
	{ "sched", "name: sched_switch\nID: 1\n" HDR
	  "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	  "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	  "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"%s\", (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | "
	  "0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? "
	  "__print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | "
	  "0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), "
	  "\"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, "
	  "{ 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, "
	  "{ 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\"\n" },
	{ "sched", "name: sched_waking\nID: 2\n" HDR
	  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n" },
	{ "irq", "name: irq_handler_entry\nID: 3\n" HDR
	  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n" },
	{ "irq", "name: irq_handler_exit\nID: 4\n" HDR
	  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n" },
	{ "irq", "name: softirq_entry\nID: 5\n" HDR
	  "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n" },
	{ "irq", "name: softirq_exit\nID: 6\n" HDR
	  "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n" },
	{ "irq_vectors", "name: local_timer_entry\nID: 7\n" HDR
	  "\tfield:int vector;\toffset:8;\tsize:4;\tsigned:1;\n" },
	{ "irq_vectors", "name: local_timer_exit\nID: 8\n" HDR
	  "\tfield:int vector;\toffset:8;\tsize:4;\tsigned:1;\n" },
	{ "nmi", "name: nmi_handler\nID: 9\n" HDR
	  "\tfield:void * handler;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:s64 delta_ns;\toffset:16;\tsize:8;\tsigned:1;\n"
	  "\tfield:int handled;\toffset:24;\tsize:4;\tsigned:1;\n" },
	{ "kvm", "name: kvm_userspace_exit\nID: 10\n" HDR
	  "\tfield:__u32 reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:int errno;\toffset:12;\tsize:4;\tsigned:1;\n" },
	{ "syscalls", "name: sys_enter_ioctl\nID: 11\n" HDR
	  "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned int cmd;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long arg;\toffset:32;\tsize:8;\tsigned:0;\n" },
	{ "kvm", "name: kvm_vcpu_wakeup\nID: 12\n" HDR
	  "\tfield:__u64 ns;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:bool waited;\toffset:16;\tsize:1;\tsigned:0;\n"
	  "\tfield:bool valid;\toffset:17;\tsize:1;\tsigned:0;\n" },
};
#define NFMT (sizeof(formats) / sizeof(formats[0]))

/* 64 tasks: idle, 62 that can have exits, and a negative pid */
#define NPID 64

static int32_t pid_of(uint8_t slot)
{
	slot %= NPID;
	return slot == 0 ? 0 : slot == NPID - 1 ? -5 : 99 + slot;
}

struct cursor {
	const uint8_t *p, *end;
};

static uint8_t byte(struct cursor *c)
{
	return c->p < c->end ? *c->p++ : 0;
}

static void check(const struct vmt_why *w, uint64_t lat, const struct vmt_whyseg *segs,
		  uint32_t n, uint64_t t0)
{
	uint64_t sum = 0, kind[VMT_WHY_NKINDS] = { 0 }, best = 0, pseg[VMT_WHY_MAXPARTS] = { 0 };
	uint64_t at = t0;
	int culprit = -1;
	unsigned int i;

	for (i = 0; i < VMT_WHY_NKINDS; i++)
		sum += w->ticks[i];
	if (sum != lat || w->nparts > VMT_WHY_MAXPARTS)
		abort();
	sum = 0;
	for (i = 0; i < w->nparts; i++) {
		const struct vmt_whypart *p = &w->parts[i];

		if (!p->ticks || p->kind >= VMT_WHY_NKINDS || !memchr(p->name, 0, VMT_WHY_NAME_LEN))
			abort();
		sum += p->ticks;
		kind[p->kind] += p->ticks;
		if (p->kind != VMT_WHY_KVM && p->pid != VMT_WHY_PID_OTHER && p->ticks > best) {
			best = p->ticks;
			culprit = (int)i;
		}
	}
	if (sum != lat || culprit != w->culprit)
		abort();
	for (i = 0; i < VMT_WHY_NKINDS; i++)
		if (kind[i] != w->ticks[i])
			abort();
	if (!segs)
		return;
	for (i = 0; i < n; i++) {
		if (segs[i].start != at || segs[i].end <= at || segs[i].part >= w->nparts ||
		    segs[i].kind != w->parts[segs[i].part].kind)
			abort();
		pseg[segs[i].part] += segs[i].end - segs[i].start;
		at = segs[i].end;
	}
	if (at != t0 + lat)
		abort();
	for (i = 0; i < w->nparts; i++)
		if (pseg[i] != w->parts[i].ticks)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c = { data, data + size };
	struct vmt_event begins[NPID];
	struct vmt_attrib_opts o;
	struct vmt_ctxbind b;
	struct vmt_attrib *a;
	struct vmt_whywin ww;
	struct vmt_window vw;
	struct vmt_culprits *cul;
	struct vmt_whysum sum;
	uint64_t ts = 1000;
	uint8_t flags;
	unsigned int i;

	if (size < 1)
		return 0;
	flags = byte(&c);
	vmt_ctxbind_init(&b);
	for (i = 0; i < NFMT; i++) {
		struct vmt_evformat *f;

		if (vmt_evformat_parse(formats[i][1], strlen(formats[i][1]), formats[i][0], &f,
				       NULL))
			abort();
		if (vmt_ctxbind_add(&b, f))
			abort();
		vmt_evformat_free(f);
	}
	vmt_attrib_opts_default(&o);
	o.segments = flags & 1;
	if (flags & 2)
		o.recorded = vmt_attrib_recorded(&b) & ~(1u << VMT_WHY_WAKEUP);
	o.tick_mul = flags >> 4;
	o.tick_div = (flags >> 2) & 3;
	a = vmt_attrib_new(&o);
	cul = vmt_culprits_new(8);
	if (!a || !cul || vmt_whywin_init(&ww, 1 + (flags >> 3) * 97) ||
	    vmt_window_init(&vw, ww.window))
		abort();
	memset(&sum, 0, sizeof(sum));
	memset(begins, 0, sizeof(begins));
	while (c.p < c.end) {
		uint8_t op = byte(&c), arg = byte(&c);
		uint32_t cpu = arg & 3;
		/* mostly a few tasks, now and then many */
		uint8_t slot = (uint8_t)((op & 0x20 ? arg >> 2 : (arg >> 2) & 7) % NPID);
		int32_t pid = pid_of(slot);
		struct vmt_ctxev ev;

		if (arg == 0xff)
			cpu = VMT_ATTRIB_MAX_CPUS + byte(&c);
		/* time mostly moves forward; now and then a little backwards */
		if ((op & 0xc0) == 0xc0 && ts > 3)
			ts -= byte(&c) & 3;
		else
			ts += byte(&c) & 0x1f;
		switch (op & 7) {
		case 0: {
			/* a decoded event with fields from the input */
			memset(&ev, 0, sizeof(ev));
			ev.ts = ts;
			ev.cpu = cpu;
			ev.pid = pid_of(byte(&c));
			ev.type = (uint8_t)(1 + byte(&c) % (VMT_CTX_NTYPES - 1));
			ev.flags = byte(&c);
			switch (ev.type) {
			case VMT_CTX_SWITCH:
				ev.u.sw.prev_pid = pid;
				ev.u.sw.next_pid = op & 0x10 ? 1000 + byte(&c) : pid_of(byte(&c));
				ev.u.sw.prev_state = byte(&c) & 3;
				ev.u.sw.prev_runnable = ev.u.sw.prev_state == 0;
				snprintf(ev.u.sw.next_comm, 16, "n%u", byte(&c));
				break;
			case VMT_CTX_WAKEUP:
				ev.u.wake.pid = pid;
				ev.u.wake.target_cpu = (int8_t)byte(&c) % 5;
				break;
			case VMT_CTX_NMI:
				ev.u.nmi.delta_ns = (int8_t)byte(&c);
				break;
			default:
				ev.u.irq.id = byte(&c) & (op & 0x10 ? 63 : 3);
				snprintf(ev.u.irq.name, sizeof(ev.u.irq.name), "i%d", ev.u.irq.id);
				break;
			}
			if (vmt_attrib_context(a, &ev))
				abort();
			break;
		}
		case 1:
		case 2: {
			/* a raw record of up to 64 bytes through the decoder */
			struct vmt_rbrecord r;
			uint8_t rec[64];
			uint8_t len = byte(&c) % 65, k;

			for (k = 0; k < len; k++)
				rec[k] = byte(&c);
			if (len >= 2) {
				/* one of the bound ids */
				rec[0] = (uint8_t)(1 + rec[0] % NFMT);
				rec[1] = 0;
			}
			r.ts = ts;
			r.len = len;
			r.data = rec;
			if (vmt_ctxbind_decode(&b, &r, cpu, &ev) == 1 && vmt_attrib_context(a, &ev))
				abort();
			break;
		}
		case 3:
		case 4: {
			struct vmt_event *e = &begins[slot];

			memset(e, 0, sizeof(*e));
			e->kind = VMT_EV_BEGIN;
			e->ts = ts;
			e->cpu = cpu;
			e->pid = pid;
			if (vmt_attrib_begin(a, e))
				abort();
			break;
		}
		case 5:
		case 6: {
			struct vmt_event *bg = &begins[slot], e = *bg;
			const struct vmt_whyseg *segs;
			struct vmt_why w;
			uint32_t n;

			if (bg->kind != VMT_EV_BEGIN || ts < bg->ts)
				break;
			e.kind = VMT_EV_END;
			e.ts = ts;
			e.cpu = cpu;
			if (op & 8) {
				vmt_attrib_drop(a, &e);
				break;
			}
			if (vmt_attrib_end(a, bg, &e, &w))
				abort();
			segs = vmt_attrib_segments(a, &n);
			check(&w, ts - bg->ts, o.segments ? segs : NULL, n, bg->ts);
			vmt_whysum_add(&sum, &w);
			vmt_culprits_add(cul, &w);
			if (pid == 100) {
				if (vmt_whywin_add(&ww, bg->ts, ts, &w, segs, o.segments ? n : 0) ||
				    vmt_window_add(&vw, bg->ts, ts))
					abort();
				if (ww.max_sum != vw.max_sum || ww.max_at != vw.max_at)
					abort();
				check(&ww.max_why, ww.max_sum, NULL, 0, 0);
			}
			bg->kind = 0;
			break;
		}
		default:
			if (vmt_attrib_gap(a, cpu))
				abort();
			break;
		}
	}
	{
		const struct vmt_culprit *rows;
		size_t n = vmt_culprits_rows(cul, &rows);
		uint64_t total = 0;

		for (i = 0; i < n; i++)
			total += rows[i].total;
		for (i = VMT_WHY_USERSPACE; i < VMT_WHY_NKINDS; i++)
			total -= sum.ticks[i];
		if (total)
			abort();
	}
	vmt_culprits_free(cul);
	vmt_whywin_free(&ww);
	vmt_window_free(&vw);
	vmt_attrib_free(a);
	return 0;
}
