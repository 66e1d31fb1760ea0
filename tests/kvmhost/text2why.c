// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * text2why (tests only, a debugging aid): the kernel's text trace of the harness's
 * evidence instance (run.sh with VMTRACE_KVMHOST_EVIDENCE=1: evidence.txt) through the
 * attribution engine (common/attrib), for looking at what "why" says about a real KVM host
 * before the recorder stores context events. Text timestamps are microseconds: so are the
 * results' (printed in ns). One CPU's trace; comms with spaces ("CPU 0/KVM") are fine.
 * Prints, tab-separated:
 *     X start_ns task reason latency_ns kvm_ns ... nmi_ns incomplete culprit_kind
 *       culprit culprit_pid parts      (one per exit; parts "kind/pid/name/ns;...")
 *     W pid max_window_sum_ns kvm_ns ... nmi_ns   (each task's worst 1 ms window)
 *     C kind pid name count total_ns max_ns       (the culprit table)
 * Build from the build directory:
 *     gcc -O2 -I. -Icommon -o text2why tests/kvmhost/text2why.c common/libvmtrace.a -lm
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "ctxevent.h"
#include "latstat.h"

#define MAXTASK 64
#define WINDOW_NS 1000000

struct task {
	int32_t pid;
	int open;
	struct vmt_event begin;
	char reason[32];
	struct vmt_whywin ww;
	struct vmt_window vw;
};

static struct task tasks[MAXTASK];
static unsigned int ntasks;
static char stems[VMT_CTXBIND_MAXVEC][VMT_CTX_NAME_LEN];
static unsigned int nstems;

static struct task *task_of(int32_t pid)
{
	unsigned int i;

	for (i = 0; i < ntasks; i++)
		if (tasks[i].pid == pid)
			return &tasks[i];
	if (ntasks == MAXTASK) {
		fprintf(stderr, "text2why: too many vCPU threads\n");
		exit(1);
	}
	tasks[ntasks].pid = pid;
	if (vmt_whywin_init(&tasks[ntasks].ww, WINDOW_NS) ||
	    vmt_window_init(&tasks[ntasks].vw, WINDOW_NS)) {
		fprintf(stderr, "text2why: out of memory\n");
		exit(1);
	}
	return &tasks[ntasks++];
}

static int stem_of(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < nstems; i++)
		if (strlen(stems[i]) == len && !strncmp(stems[i], name, len))
			return (int)i;
	if (nstems == VMT_CTXBIND_MAXVEC || len >= VMT_CTX_NAME_LEN)
		return -1;
	memcpy(stems[nstems], name, len);
	stems[nstems][len] = 0;
	return (int)nstems++;
}

/* The context column ("d.h1."): irqs-off, need-resched, hardirq/softirq/NMI, depth, ... */
static uint8_t flags_of(const char *f)
{
	switch (f[2]) {
	case 'h':
		return VMT_CTX_FLAG_HARDIRQ;
	case 's':
		return VMT_CTX_FLAG_SOFTIRQ;
	case 'H':
		return VMT_CTX_FLAG_HARDIRQ | VMT_CTX_FLAG_SOFTIRQ;
	case 'z':
	case 'Z':
		return VMT_CTX_FLAG_NMI;
	default:
		return 0;
	}
}

static void copy_field(char *dst, size_t size, const char *rest, const char *key, char stop)
{
	const char *p = strstr(rest, key);
	size_t n = 0;

	dst[0] = 0;
	if (!p)
		return;
	p += strlen(key);
	while (p[n] && p[n] != stop && p[n] != '\n' && n + 1 < size)
		n++;
	memcpy(dst, p, n);
	dst[n] = 0;
}

/* A comm as the kernel keeps it: at most TASK_COMM_LEN - 1 bytes. */
static void set_comm(char *dst, const char *src)
{
	size_t n = strnlen(src, VMT_CTX_COMM_LEN - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

static long num_field(const char *rest, const char *key)
{
	const char *p = strstr(rest, key);

	return p ? strtol(p + strlen(key), NULL, 0) : -1;
}

static void print_why(const char *tag, const struct vmt_why *w)
{
	unsigned int k;

	fputs(tag, stdout);
	for (k = 0; k < VMT_WHY_NKINDS; k++)
		printf("\t%llu", (unsigned long long)w->ticks[k]);
}

static void on_exit_entry(struct task *t, const struct vmt_event *end, struct vmt_attrib *a,
			  struct vmt_culprits *cul)
{
	const struct vmt_whypart *c;
	const struct vmt_whyseg *segs;
	struct vmt_why w;
	uint32_t nsegs;
	unsigned int i;

	if (vmt_attrib_end(a, &t->begin, end, &w)) {
		fprintf(stderr, "text2why: attrib: out of memory\n");
		exit(1);
	}
	segs = vmt_attrib_segments(a, &nsegs);
	vmt_whywin_add(&t->ww, t->begin.ts, end->ts, &w, segs, nsegs);
	vmt_window_add(&t->vw, t->begin.ts, end->ts);
	vmt_culprits_add(cul, &w);
	printf("X\t%llu\t%d\t%s\t%llu", (unsigned long long)t->begin.ts, t->pid, t->reason,
	       (unsigned long long)(end->ts - t->begin.ts));
	print_why("", &w);
	c = vmt_why_culprit(&w);
	printf("\t%d\t%s\t%s\t", w.incomplete, c ? vmt_why_kind_names[c->kind] : "",
	       c ? c->name : "");
	if (c && c->pid > 0)
		printf("%d", c->pid);
	putchar('\t');
	for (i = 0; i < w.nparts; i++)
		printf("%s%s/%d/%s/%llu", i ? ";" : "", vmt_why_kind_names[w.parts[i].kind],
		       w.parts[i].pid, w.parts[i].name, (unsigned long long)w.parts[i].ticks);
	putchar('\n');
	t->open = 0;
}

int main(int argc, char **argv)
{
	struct vmt_attrib_opts o;
	struct vmt_culprits *cul;
	const struct vmt_culprit *rows;
	struct vmt_attrib *a;
	char line[1024];
	unsigned int i;
	size_t n;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: text2why EVIDENCE.TXT\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	vmt_attrib_opts_default(&o);
	o.segments = true;
	a = vmt_attrib_new(&o);
	cul = vmt_culprits_new(64);
	if (!a || !cul)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		char *cpu_at, *p, *name, *rest, *colon;
		struct vmt_ctxev ev;
		struct vmt_event e;
		unsigned long sec, usec;
		long pid;
		char flags[8], buf[256];

		if (line[0] == '#')
			continue;
		/* "<comm>-<pid> [<cpu>] <flags> <sec>.<usec>: <event>: <rest>" */
		cpu_at = strstr(line, " [");
		if (!cpu_at)
			continue;
		for (p = cpu_at; p > line && p[-1] != '-'; p--)
			;
		pid = strtol(p, NULL, 10);
		if (sscanf(cpu_at, " [%*u] %7s %lu.%lu:", flags, &sec, &usec) != 3)
			continue;
		name = strchr(cpu_at, ':');
		name = name ? strchr(name + 1, ' ') : NULL;
		if (!name)
			continue;
		name++;
		colon = strpbrk(name, ":(");
		if (!colon)
			continue;
		rest = colon + 1;
		memset(&ev, 0, sizeof(ev));
		ev.ts = (uint64_t)sec * 1000000000ull + usec * 1000ull;
		ev.cpu = (uint32_t)strtoul(cpu_at + 2, NULL, 10);
		ev.pid = (int32_t)pid;
		ev.flags = flags_of(flags);
		n = (size_t)(colon - name);
		if (!strncmp(name, "kvm_exit:", 9) || !strncmp(name, "kvm_entry:", 10)) {
			struct task *t = task_of(ev.pid);

			memset(&e, 0, sizeof(e));
			e.ts = ev.ts;
			e.cpu = ev.cpu;
			e.pid = ev.pid;
			e.flags = ev.flags;
			if (name[5] == 'x') {
				e.kind = VMT_EV_BEGIN;
				copy_field(t->reason, sizeof(t->reason), rest, "reason ", ' ');
				if (t->open)	/* an exit without its entry: start again */
					vmt_attrib_drop(a, &e);
				t->begin = e;
				t->open = 1;
				vmt_attrib_begin(a, &e);
			} else {
				e.kind = VMT_EV_END;
				if (t->open)
					on_exit_entry(t, &e, a, cul);
			}
			continue;
		}
		if (n == 12 && !strncmp(name, "sched_switch", n)) {
			char state[8];

			ev.type = VMT_CTX_SWITCH;
			ev.u.sw.prev_pid = (int32_t)num_field(rest, "prev_pid=");
			ev.u.sw.next_pid = (int32_t)num_field(rest, "next_pid=");
			copy_field(state, sizeof(state), rest, "prev_state=", ' ');
			ev.u.sw.prev_runnable = state[0] == 'R';
			/* a comm runs up to " prev_pid=" / " next_pid=" (it may hold spaces) */
			copy_field(buf, sizeof(buf), rest, "prev_comm=", 0);
			p = strstr(buf, " prev_pid=");
			if (p)
				*p = 0;
			set_comm(ev.u.sw.prev_comm, buf);
			copy_field(buf, sizeof(buf), rest, "next_comm=", 0);
			p = strstr(buf, " next_pid=");
			if (p)
				*p = 0;
			set_comm(ev.u.sw.next_comm, buf);
		} else if ((n == 12 && !strncmp(name, "sched_wakeup", n)) ||
			   (n == 12 && !strncmp(name, "sched_waking", n))) {
			ev.type = VMT_CTX_WAKEUP;
			ev.u.wake.waking = name[10] == 'n';
			ev.u.wake.pid = (int32_t)num_field(rest, " pid=");
			ev.u.wake.target_cpu = (int32_t)num_field(rest, "target_cpu=");
			copy_field(buf, sizeof(buf), rest, "comm=", 0);
			p = strstr(buf, " pid=");
			if (p)
				*p = 0;
			set_comm(ev.u.wake.comm, buf);
		} else if (n == 17 && !strncmp(name, "irq_handler_entry", n)) {
			ev.type = VMT_CTX_IRQ_ENTRY;
			ev.u.irq.id = (int32_t)num_field(rest, "irq=");
			copy_field(ev.u.irq.name, VMT_CTX_NAME_LEN, rest, "name=", ' ');
		} else if (n == 16 && !strncmp(name, "irq_handler_exit", n)) {
			ev.type = VMT_CTX_IRQ_EXIT;
			ev.u.irq.id = (int32_t)num_field(rest, "irq=");
		} else if (n == 13 && !strncmp(name, "softirq_entry", n)) {
			char act[VMT_CTX_NAME_LEN];

			ev.type = VMT_CTX_SOFTIRQ_ENTRY;
			ev.u.irq.id = (int32_t)num_field(rest, "vec=");
			copy_field(act, sizeof(act), rest, "action=", ']');
			for (i = 0; act[i]; i++)
				ev.u.irq.name[i] = (char)(act[i] | 0x20);
		} else if (n == 12 && !strncmp(name, "softirq_exit", n)) {
			ev.type = VMT_CTX_SOFTIRQ_EXIT;
			ev.u.irq.id = (int32_t)num_field(rest, "vec=");
		} else if (n > 6 && !strncmp(name + n - 6, "_entry", 6)) {
			int s = stem_of(name, n - 6);

			if (s < 0)
				continue;
			ev.type = VMT_CTX_VEC_ENTRY;
			ev.u.irq.id = s;
			ev.u.irq.vector = (int32_t)num_field(rest, "vector=");
			snprintf(ev.u.irq.name, VMT_CTX_NAME_LEN, "%s", stems[s]);
		} else if (n > 5 && !strncmp(name + n - 5, "_exit", 5) &&
			   strncmp(name, "kvm_", 4)) {
			int s = stem_of(name, n - 5);

			if (s < 0)
				continue;
			ev.type = VMT_CTX_VEC_EXIT;
			ev.u.irq.id = s;
			ev.u.irq.vector = (int32_t)num_field(rest, "vector=");
		} else if (n == 18 && !strncmp(name, "kvm_userspace_exit", n)) {
			long r = num_field(rest, "(");

			ev.type = VMT_CTX_USEREXIT;
			ev.u.uexit.reason = r < 0 ? 0 : (uint32_t)r;
		} else if (n == 9 && !strncmp(name, "sys_ioctl", n)) {
			if (!strstr(rest, "cmd: ae80,"))
				continue;
			ev.type = VMT_CTX_KVM_RUN;
			ev.u.run.fd = (uint64_t)num_field(rest, "fd: ");
		} else if (n == 15 && !strncmp(name, "kvm_vcpu_wakeup", n)) {
			ev.type = VMT_CTX_VCPU_WAKEUP;
			ev.u.vwake.ns = (uint64_t)num_field(rest, "time ");
			ev.u.vwake.waited = strstr(rest, "wait time") != NULL;
			ev.u.vwake.valid = strstr(rest, "invalid") == NULL;
		} else if (n == 11 && !strncmp(name, "nmi_handler", n)) {
			ev.type = VMT_CTX_NMI;
			ev.u.nmi.delta_ns = num_field(rest, "delta_ns=");
		} else {
			continue;
		}
		if (vmt_attrib_context(a, &ev)) {
			fprintf(stderr, "text2why: attrib: out of memory\n");
			return 1;
		}
	}
	fclose(f);
	for (i = 0; i < ntasks; i++) {
		printf("W\t%d\t%llu", tasks[i].pid, (unsigned long long)tasks[i].ww.max_sum);
		print_why("", &tasks[i].ww.max_why);
		putchar('\n');
	}
	n = vmt_culprits_rows(cul, &rows);
	for (i = 0; i < n; i++)
		printf("C\t%s\t%d\t%s\t%llu\t%llu\t%llu\n", vmt_why_kind_names[rows[i].kind],
		       rows[i].pid, rows[i].name, (unsigned long long)rows[i].count,
		       (unsigned long long)rows[i].total, (unsigned long long)rows[i].max);
	return 0;
}
