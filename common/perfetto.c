// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "ctxevent.h"
#include "exitreason.h"
#include "jsonw.h"
#include "outbuf.h"
#include "perfetto.h"
#include "reader.h"
#include "vmfind.h"

/* An interrupt handler running on a CPU, from its entry to its exit. */
struct open_irq {
	bool open;
	uint64_t ts;
	int32_t id;
	char name[VMT_CTX_NAME_LEN];
};

/* What one pCPU's track has open. */
struct cpu_state {
	bool named;
	struct open_irq irq, softirq, vec;
	/* a vCPU task switched out: what runs instead, until the next switch */
	bool off;
	bool preempted;
	uint64_t off_ts;
	int32_t prev_pid, next_pid;
	char next_comm[VMT_CTX_COMM_LEN];
};

/* The tasks that exit to the host (vCPU threads): open addressing, grows at half full. */
struct pidset {
	int32_t *slot;		/* 0: empty (pid 0 is the idle task, never a vCPU thread) */
	uint32_t cap, n;
};

struct vmt_perfetto {
	struct vmt_outbuf out;
	struct vmt_jsonw w;
	const struct vmt_clock *clock;
	uint64_t start_ts;
	struct vmt_exitreasons *names;
	struct cpu_state *cpus;
	uint32_t ncpus;
	struct pidset tasks;
	struct vmt_perfetto_counts counts;
	bool neutral;		/* another pair than KVM's: names a person reads say task */
	int err;
};

static bool pidset_has(const struct pidset *s, int32_t pid)
{
	uint32_t i;

	if (!s->cap)
		return false;
	for (i = (uint32_t)pid * 2654435761u & (s->cap - 1); s->slot[i]; i = (i + 1) & (s->cap - 1)) {
		if (s->slot[i] == pid)
			return true;
	}
	return false;
}

static void pidset_put(struct pidset *s, int32_t pid)
{
	uint32_t i = (uint32_t)pid * 2654435761u & (s->cap - 1);

	while (s->slot[i] && s->slot[i] != pid)
		i = (i + 1) & (s->cap - 1);
	if (!s->slot[i]) {
		s->slot[i] = pid;
		s->n++;
	}
}

/* Returns 0 or -ENOMEM. */
static int pidset_add(struct pidset *s, int32_t pid)
{
	if (!pid || pidset_has(s, pid))
		return 0;
	if ((s->n + 1) * 2 > s->cap) {
		struct pidset g = { NULL, s->cap ? s->cap * 2 : 64, 0 };
		uint32_t i;

		g.slot = calloc(g.cap, sizeof(*g.slot));
		if (!g.slot)
			return -ENOMEM;
		for (i = 0; i < s->cap; i++) {
			if (s->slot[i])
				pidset_put(&g, s->slot[i]);
		}
		free(s->slot);
		*s = g;
	}
	pidset_put(s, pid);
	return 0;
}

/* Microseconds with the nanoseconds after the point: the format's unit, exactly. */
static void put_us(struct vmt_perfetto *p, const char *name, uint64_t ns)
{
	char frac[4];

	vmt_jsonw_member(&p->w, name);
	vmt_outbuf_u64(&p->out, ns / 1000);
	snprintf(frac, sizeof(frac), "%03u", (unsigned int)(ns % 1000));
	vmt_outbuf_ch(&p->out, '.');
	vmt_outbuf_str(&p->out, frac);
}

static uint64_t rel_ns(const struct vmt_perfetto *p, uint64_t ts)
{
	return vmt_clock_ns(p->clock, ts > p->start_ts ? ts - p->start_ts : 0);
}

static void meta(struct vmt_perfetto *p, const char *what, int pid, int64_t tid,
		 const char *key, const char *name, int64_t sort)
{
	vmt_jsonw_object_open(&p->w, NULL);
	vmt_jsonw_str(&p->w, "ph", "M");
	vmt_jsonw_str(&p->w, "name", what);
	vmt_jsonw_i64(&p->w, "pid", pid);
	if (tid >= 0)
		vmt_jsonw_i64(&p->w, "tid", tid);
	vmt_jsonw_object_open(&p->w, "args");
	if (name)
		vmt_jsonw_str(&p->w, key, name);
	else
		vmt_jsonw_i64(&p->w, key, sort);
	vmt_jsonw_object_close(&p->w);
	vmt_jsonw_object_close(&p->w);
}

/* A complete slice's opening members; the caller adds args and closes it. */
static void slice_open(struct vmt_perfetto *p, const char *cat, const char *name, int pid,
		       int64_t tid, uint64_t start_ns, uint64_t dur_ns)
{
	vmt_jsonw_object_open(&p->w, NULL);
	vmt_jsonw_str(&p->w, "ph", "X");
	vmt_jsonw_str(&p->w, "cat", cat);
	vmt_jsonw_str(&p->w, "name", name);
	vmt_jsonw_i64(&p->w, "pid", pid);
	vmt_jsonw_i64(&p->w, "tid", tid);
	put_us(p, "ts", start_ns);
	put_us(p, "dur", dur_ns);
}

/* A CPU's state (its track named the first time), or NULL beyond VMT_ITER_IDS. */
static struct cpu_state *cpu_get(struct vmt_perfetto *p, uint32_t cpu)
{
	char name[32];

	if (cpu >= VMT_ITER_IDS)
		return NULL;
	if (cpu >= p->ncpus) {
		uint32_t n = cpu < 64 ? 64 : VMT_ITER_IDS;
		struct cpu_state *c = realloc(p->cpus, n * sizeof(*c));

		if (!c) {
			p->err = -ENOMEM;
			return NULL;
		}
		memset(c + p->ncpus, 0, (n - p->ncpus) * sizeof(*c));
		p->cpus = c;
		p->ncpus = n;
	}
	if (!p->cpus[cpu].named) {
		p->cpus[cpu].named = true;
		snprintf(name, sizeof(name), "CPU %u", cpu);
		meta(p, "thread_name", VMT_PERFETTO_PID_PCPU, cpu, "name", name, 0);
		meta(p, "thread_sort_index", VMT_PERFETTO_PID_PCPU, cpu, "sort_index", NULL, cpu);
	}
	return &p->cpus[cpu];
}

static int pf_start(void *state, const struct vmt_iter *it)
{
	struct vmt_perfetto *p = state;
	int ret;

	p->clock = it->clock;
	p->start_ts = it->start_ts;
	ret = vmt_exitreasons_new(it->begin_format, it->machine, &p->names);
	if (ret)
		return ret;
	meta(p, "process_name", VMT_PERFETTO_PID_PCPU, -1, "name", "pCPUs", 0);
	meta(p, "process_sort_index", VMT_PERFETTO_PID_PCPU, -1, "sort_index", NULL, 1);
	/* the slices' "cat" stays "exit" for any pair (a key scripts filter on); names change */
	p->neutral = it->r && !vmt_reader_pairs_kvm(it->r);
	meta(p, "process_name", VMT_PERFETTO_PID_TASKS, -1, "name",
	     p->neutral ? "tasks" : "vCPU tasks", 0);
	meta(p, "process_sort_index", VMT_PERFETTO_PID_TASKS, -1, "sort_index", NULL, 2);
	return 0;
}

/* Every begin event: its task exits to the host, so its switches matter on the pCPU. */
static int pf_event(void *state, const struct vmt_iter *it, const struct vmt_iter_event *e)
{
	struct vmt_perfetto *p = state;

	(void)it;
	if (e->ev->kind != VMT_EV_BEGIN)
		return 0;
	return pidset_add(&p->tasks, e->ev->pid);
}

static void hex_arg(struct vmt_perfetto *p, const struct vmt_event *ex, uint16_t has,
		    const char *name, uint64_t v)
{
	if (ex->has & has)
		vmt_jsonw_hex(&p->w, name, v);
}

/* A task's track: "web1/vcpu0 (pid 1234)" in a recording made with --vm, else its vCPU. */
static const char *track_name(const struct vmt_iter *it, const struct vmt_pair *pr, char *buf,
			      size_t size)
{
	const struct vmt_vmmap *m = it->r ? vmt_reader_vmmap(it->r) : NULL;
	int32_t pid = pr->begin->pid;

	if (m && vmt_vmmap_label(m, pid, buf, size))
		return buf;
	if (pr->end->has & VMT_EVF_VCPU)
		snprintf(buf, size, "vCPU %u (task %d)", pr->end->vcpu, pid);
	else
		snprintf(buf, size, "task %d", pid);
	return buf;
}

/* Task pid's vCPU index in the recording's --vm map, if it is one of its vCPU threads. */
static bool map_vcpu(const struct vmt_iter *it, int32_t pid, unsigned int *vcpu)
{
	const struct vmt_vmmap *m = it->r ? vmt_reader_vmmap(it->r) : NULL;
	unsigned int vm;

	return m && vmt_vmmap_lookup(m, pid, &vm, vcpu) == 0;
}

static int pf_pair(void *state, const struct vmt_iter *it, const struct vmt_pair *pr,
		   void **task)
{
	struct vmt_perfetto *p = state;
	const struct vmt_event *ex = pr->begin;
	uint64_t key = vmt_exitreason_key(ex->isa, ex->reason);
	const char *name = NULL;
	char label[64], tname[160];
	unsigned int k, vcpu;

	if (!*task) {
		/* the task's track, named once */
		*task = p;
		meta(p, "thread_name", VMT_PERFETTO_PID_TASKS, ex->pid, "name",
		     track_name(it, pr, tname, sizeof(tname)), 0);
	}
	if (ex->has & VMT_EVF_REASON) {
		name = vmt_exitreason_name(p->names, ex->isa, key);
		if (!name)
			name = vmt_exitreason_label(p->names, ex->isa, key, label, sizeof(label));
	}
	slice_open(p, "exit", name ? name : p->neutral ? "pair" : "exit", VMT_PERFETTO_PID_TASKS,
		   ex->pid, rel_ns(p, ex->ts), vmt_clock_ns(p->clock, pr->lat));
	vmt_jsonw_object_open(&p->w, "args");
	vmt_jsonw_u64(&p->w, "latency_ns", vmt_clock_ns(p->clock, pr->lat));
	vmt_jsonw_u64(&p->w, "pcpu", ex->cpu);
	vmt_jsonw_u64(&p->w, "entry_pcpu", pr->end->cpu);
	if (pr->end->has & VMT_EVF_VCPU)
		vmt_jsonw_u64(&p->w, "vcpu", pr->end->vcpu);
	else if (ex->has & VMT_EVF_VCPU)
		vmt_jsonw_u64(&p->w, "vcpu", ex->vcpu);
	else if (map_vcpu(it, ex->pid, &vcpu))
		vmt_jsonw_u64(&p->w, "vcpu", vcpu);	/* the --vm map's index, as in the CSV */
	if (ex->has & VMT_EVF_REASON)
		vmt_jsonw_u64(&p->w, "reason_code", key);
	hex_arg(p, ex, VMT_EVF_RIP, "guest_rip", ex->rip);
	hex_arg(p, ex, VMT_EVF_INFO1, "info1", ex->info1);
	hex_arg(p, ex, VMT_EVF_INFO2, "info2", ex->info2);
	hex_arg(p, ex, VMT_EVF_INTR_INFO, "intr_info", ex->intr_info);
	hex_arg(p, ex, VMT_EVF_ERROR_CODE, "error_code", ex->error_code);
	/* where the time went, when the recording can tell: only the kinds that took some */
	for (k = 0; pr->why && k < VMT_WHY_NKINDS; k++) {
		char key_name[40];

		if (!pr->why->ticks[k])
			continue;
		snprintf(key_name, sizeof(key_name), "%s_ns", vmt_why_kind_names[k]);
		vmt_jsonw_u64(&p->w, key_name, vmt_clock_ns(p->clock, pr->why->ticks[k]));
	}
	vmt_jsonw_object_close(&p->w);
	vmt_jsonw_object_close(&p->w);
	p->counts.exits++;
	return p->err;
}

static void task_free(void *state, void *task)
{
	(void)state;
	(void)task;	/* a marker, never allocated */
}

static void ctx_slice(struct vmt_perfetto *p, uint32_t cpu, const char *name,
		      uint64_t start_ns, uint64_t end_ns)
{
	slice_open(p, "context", name, VMT_PERFETTO_PID_PCPU, cpu, start_ns,
		   end_ns > start_ns ? end_ns - start_ns : 0);
	vmt_jsonw_object_close(&p->w);
	p->counts.context++;
}

static void irq_open(struct open_irq *o, const struct vmt_ctxev *ev)
{
	o->open = true;
	o->ts = ev->ts;
	o->id = ev->u.irq.id;
	memcpy(o->name, ev->u.irq.name, sizeof(o->name));
	o->name[sizeof(o->name) - 1] = '\0';
}

static void irq_close(struct vmt_perfetto *p, struct open_irq *o, const struct vmt_ctxev *ev,
		      const char *what)
{
	char name[VMT_CTX_NAME_LEN + 48];

	if (!o->open || ev->ts < o->ts)
		return;
	o->open = false;
	if (!strcmp(what, "irq"))
		snprintf(name, sizeof(name), "irq %d %s", o->id, o->name);
	else
		snprintf(name, sizeof(name), "%s %s", what, o->name);
	ctx_slice(p, ev->cpu, name, rel_ns(p, o->ts), rel_ns(p, ev->ts));
}

/* A switch ends what ran instead of a vCPU task, and may start the next such stretch. */
static void on_switch(struct vmt_perfetto *p, struct cpu_state *c, const struct vmt_ctxev *ev)
{
	char name[VMT_CTX_COMM_LEN + 48];

	if (c->off && ev->ts >= c->off_ts) {
		if (c->preempted)
			snprintf(name, sizeof(name), "preempted by %s", c->next_comm);
		else
			snprintf(name, sizeof(name), "%s (%s asleep)", c->next_comm,
				 p->neutral ? "task" : "vCPU task");
		slice_open(p, "context", name, VMT_PERFETTO_PID_PCPU, ev->cpu,
			   rel_ns(p, c->off_ts), vmt_clock_ns(p->clock, ev->ts - c->off_ts));
		vmt_jsonw_object_open(&p->w, "args");
		vmt_jsonw_i64(&p->w, "vcpu_task", c->prev_pid);
		vmt_jsonw_i64(&p->w, "next_pid", c->next_pid);
		vmt_jsonw_bool(&p->w, "preempted", c->preempted);
		vmt_jsonw_object_close(&p->w);
		vmt_jsonw_object_close(&p->w);
		p->counts.context++;
	}
	c->off = pidset_has(&p->tasks, ev->u.sw.prev_pid) && ev->u.sw.next_pid != ev->u.sw.prev_pid;
	if (c->off) {
		c->off_ts = ev->ts;
		c->preempted = ev->u.sw.prev_runnable;
		c->prev_pid = ev->u.sw.prev_pid;
		c->next_pid = ev->u.sw.next_pid;
		memcpy(c->next_comm, ev->u.sw.next_comm, sizeof(c->next_comm));
		c->next_comm[sizeof(c->next_comm) - 1] = '\0';
	}
}

static int pf_context(void *state, const struct vmt_iter *it, const struct vmt_ctxev *ev)
{
	struct vmt_perfetto *p = state;
	struct cpu_state *c;
	uint64_t end_ns, delta_ns;

	(void)it;
	c = cpu_get(p, ev->cpu);
	if (!c)
		return p->err;
	switch (ev->type) {
	case VMT_CTX_SWITCH:
		on_switch(p, c, ev);
		break;
	case VMT_CTX_IRQ_ENTRY:
		irq_open(&c->irq, ev);
		break;
	case VMT_CTX_IRQ_EXIT:
		irq_close(p, &c->irq, ev, "irq");
		break;
	case VMT_CTX_SOFTIRQ_ENTRY:
		irq_open(&c->softirq, ev);
		break;
	case VMT_CTX_SOFTIRQ_EXIT:
		irq_close(p, &c->softirq, ev, "softirq");
		break;
	case VMT_CTX_VEC_ENTRY:
		irq_open(&c->vec, ev);
		break;
	case VMT_CTX_VEC_EXIT:
		irq_close(p, &c->vec, ev, "vector");
		break;
	case VMT_CTX_NMI:
		/* stamped at the handler's end, with its length in ns */
		end_ns = rel_ns(p, ev->ts);
		delta_ns = ev->u.nmi.delta_ns > 0 ? (uint64_t)ev->u.nmi.delta_ns : 0;
		ctx_slice(p, ev->cpu, "nmi", delta_ns < end_ns ? end_ns - delta_ns : 0, end_ns);
		break;
	default:
		break;
	}
	return p->err;
}

static const struct vmt_consumer_ops perfetto_ops = {
	.name = "perfetto",
	.start = pf_start,
	.event = pf_event,
	.pair = pf_pair,
	.context = pf_context,
	.task_free = task_free,
};

int vmt_perfetto_consumer(int fd, struct vmt_perfetto **out, struct vmt_consumer *c)
{
	struct vmt_perfetto *p = calloc(1, sizeof(*p));
	int ret;

	if (!p)
		return -ENOMEM;
	ret = vmt_outbuf_init(&p->out, fd);
	if (ret) {
		free(p);
		return ret;
	}
	vmt_jsonw_init(&p->w, &p->out);
	vmt_jsonw_object_open(&p->w, NULL);
	/* the viewers show nanoseconds rather than rounding to microseconds */
	vmt_jsonw_str(&p->w, "displayTimeUnit", "ns");
	vmt_jsonw_array_open(&p->w, "traceEvents");
	c->ops = &perfetto_ops;
	c->state = p;
	*out = p;
	return 0;
}

const struct vmt_perfetto_counts *vmt_perfetto_counts(const struct vmt_perfetto *p)
{
	return &p->counts;
}

int vmt_perfetto_finish(struct vmt_perfetto *p)
{
	int ret;

	vmt_jsonw_array_close(&p->w);
	vmt_jsonw_object_close(&p->w);
	vmt_outbuf_ch(&p->out, '\n');
	ret = vmt_outbuf_finish(&p->out);
	vmt_exitreasons_free(p->names);
	free(p->cpus);
	free(p->tasks.slot);
	free(p);
	return ret;
}
