// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "ctxevent.h"
#include "textwidth.h"

const struct vmt_ctxdefault vmt_ctx_default_events[] = {
	{ "sched", "sched_switch", NULL },
	/* emitted by the waker itself, before sched_wakeup (which may run on the target) */
	{ "sched", "sched_waking", NULL },
	{ "irq", "irq_handler_entry", NULL },
	{ "irq", "irq_handler_exit", NULL },
	{ "irq", "softirq_entry", NULL },
	{ "irq", "softirq_exit", NULL },
	/* x86 only; a recorder skips those its kernel lacks */
	{ "irq_vectors", "local_timer_entry", NULL },
	{ "irq_vectors", "local_timer_exit", NULL },
	{ "irq_vectors", "reschedule_entry", NULL },
	{ "irq_vectors", "reschedule_exit", NULL },
	{ "irq_vectors", "call_function_entry", NULL },
	{ "irq_vectors", "call_function_exit", NULL },
	{ "irq_vectors", "call_function_single_entry", NULL },
	{ "irq_vectors", "call_function_single_exit", NULL },
	{ "irq_vectors", "irq_work_entry", NULL },
	{ "irq_vectors", "irq_work_exit", NULL },
	{ "irq_vectors", "x86_platform_ipi_entry", NULL },
	{ "irq_vectors", "x86_platform_ipi_exit", NULL },
	{ "irq_vectors", "thermal_apic_entry", NULL },
	{ "irq_vectors", "thermal_apic_exit", NULL },
	{ "irq_vectors", "threshold_apic_entry", NULL },
	{ "irq_vectors", "threshold_apic_exit", NULL },
	{ "irq_vectors", "deferred_error_apic_entry", NULL },
	{ "irq_vectors", "deferred_error_apic_exit", NULL },
	{ "irq_vectors", "error_apic_entry", NULL },
	{ "irq_vectors", "error_apic_exit", NULL },
	{ "irq_vectors", "spurious_apic_entry", NULL },
	{ "irq_vectors", "spurious_apic_exit", NULL },
	{ "irq_vectors", "reboot_entry", NULL },
	{ "irq_vectors", "reboot_exit", NULL },
	{ "nmi", "nmi_handler", NULL },
	{ "kvm", "kvm_userspace_exit", NULL },
	{ "kvm", "kvm_vcpu_wakeup", NULL },
	/* every process's ioctls would be recorded otherwise */
	{ "syscalls", "sys_enter_ioctl", "cmd == 0xae80" },
};
const unsigned int vmt_ctx_default_nevents =
	sizeof(vmt_ctx_default_events) / sizeof(vmt_ctx_default_events[0]);

/* include/uapi/linux/kvm.h */
static const char *const userexit_names[] = {
	"UNKNOWN", "EXCEPTION", "IO", "HYPERCALL", "DEBUG", "HLT", "MMIO", "IRQ_WINDOW_OPEN",
	"SHUTDOWN", "FAIL_ENTRY", "INTR", "SET_TPR", "TPR_ACCESS", "S390_SIEIC", "S390_RESET",
	"DCR", "NMI", "INTERNAL_ERROR", "OSI", "PAPR_HCALL", "S390_UCONTROL", "WATCHDOG",
	"S390_TSCH", "EPR", "SYSTEM_EVENT", "S390_STSI", "IOAPIC_EOI", "HYPERV", "ARM_NISV",
	"X86_RDMSR", "X86_WRMSR", "DIRTY_RING_FULL", "AP_RESET_HOLD", "X86_BUS_LOCK", "XEN",
	"RISCV_SBI", "RISCV_CSR", "NOTIFY", "LOONGARCH_IOCSR", "MEMORY_FAULT", "TDX",
};

const char *vmt_ctx_userexit_name(uint32_t reason, int32_t err)
{
	if (err < 0)
		return err == -EINTR ? "restart" : "error";
	if (reason < sizeof(userexit_names) / sizeof(userexit_names[0]))
		return userexit_names[reason];
	return NULL;
}

const char *vmt_ctx_userexit_text(uint32_t reason, int32_t err, char *buf, size_t size)
{
	const char *name = vmt_ctx_userexit_name(reason, err);

	if (name)
		return name;
	snprintf(buf, size, "reason %" PRIu32, reason);
	return buf;
}

/* include/linux/interrupt.h, the order of softirq_to_name[] */
static const char *const softirq_names[] = {
	"hi", "timer", "net_tx", "net_rx", "block", "irq_poll", "tasklet", "sched", "hrtimer",
	"rcu",
};

const char *vmt_ctx_softirq_name(uint32_t vec)
{
	if (vec < sizeof(softirq_names) / sizeof(softirq_names[0]))
		return softirq_names[vec];
	return NULL;
}

void vmt_ctxbind_init(struct vmt_ctxbind *b)
{
	memset(b, 0, sizeof(*b));
	b->runnable_mask = 0xff;	/* TASK_REPORT_MAX - 1 since Linux 4.14 */
}

/*
 * The preempted bit of prev_state is twice the largest state flag in the print fmt's
 * __print_flags(REC->prev_state ...) list (TASK_REPORT_MAX since Linux 4.14, where
 * the list ends with 0x80 "I"; TASK_STATE_MAX before, 2048 after 1024 "N"). Every state
 * bit below it means asleep, stopped or dead; none set means runnable.
 */
static int64_t runnable_mask(const char *pf, int64_t fallback)
{
	const char *p = pf ? strstr(pf, "__print_flags(REC->prev_state") : NULL;
	unsigned long long max = 0;
	int depth = 0;

	if (!p)
		return fallback;
	p = strchr(p, '(');
	for (; p && *p; p++) {
		if (*p == '(') {
			depth++;
		} else if (*p == ')') {
			if (--depth == 0)
				break;
		} else if (*p == '{' && depth == 1) {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(p + 1, &end, 0);
			if (errno || end == p + 1)
				return fallback;
			if (v > max)
				max = v;
		}
	}
	if (!max || max >= 1ULL << 40 || (max & (max - 1)))
		return fallback;
	return (int64_t)(max * 2 - 1);
}

static struct vmt_ctxslot *slot_for(struct vmt_ctxbind *b, uint32_t id, bool create)
{
	uint32_t i, n;

	for (i = id & (VMT_CTXBIND_SLOTS - 1), n = 0; n < VMT_CTXBIND_SLOTS;
	     i = (i + 1) & (VMT_CTXBIND_SLOTS - 1), n++) {
		if (!b->slot[i].used)
			return create ? &b->slot[i] : NULL;
		if (b->slot[i].id == id)
			return &b->slot[i];
	}
	return NULL;
}

static const struct vmt_ctxslot *lookup(const struct vmt_ctxbind *b, uint32_t id)
{
	uint32_t i, n;

	for (i = id & (VMT_CTXBIND_SLOTS - 1), n = 0; n < VMT_CTXBIND_SLOTS;
	     i = (i + 1) & (VMT_CTXBIND_SLOTS - 1), n++) {
		if (!b->slot[i].used)
			return NULL;
		if (b->slot[i].id == id)
			return &b->slot[i];
	}
	return NULL;
}

enum { F_INT, F_COMM, F_STR };

/* A field of the layout as kind k; 0, or -EINVAL when it is absent or unusable. */
static int field(const struct vmt_evformat *fmt, const char *name, int k, struct vmt_ctxfield *out)
{
	const struct vmt_evfield *f = vmt_evformat_field(fmt, name);

	memset(out, 0, sizeof(*out));
	if (!f || f->offset > 0xffff || f->size > 0xffff)
		return -EINVAL;
	switch (k) {
	case F_INT:
		if (f->is_array || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
			return -EINVAL;
		break;
	case F_COMM:
		if (!f->is_array || strstr(f->type, "__data_loc") || strstr(f->type, "__rel_loc"))
			return -EINVAL;
		break;
	case F_STR:
		if (f->size != 4)
			return -EINVAL;
		if (strstr(f->type, "__data_loc"))
			out->loc = 1;
		else if (strstr(f->type, "__rel_loc"))
			out->loc = 2;
		else
			return -EINVAL;
		break;
	}
	out->offset = (uint16_t)f->offset;
	out->size = (uint16_t)f->size;
	out->sign = f->is_signed;
	return 0;
}

/* An optional integer field: absent (size 0) unless the layout has a usable one. */
static void opt_field(const struct vmt_evformat *fmt, const char *name, struct vmt_ctxfield *out)
{
	if (field(fmt, name, F_INT, out))
		memset(out, 0, sizeof(*out));
}

static bool ends_with(const char *s, const char *suffix, size_t *stem)
{
	size_t n = strlen(s), m = strlen(suffix);

	if (n <= m || strcmp(s + n - m, suffix) != 0)
		return false;
	*stem = n - m;
	return true;
}

static bool is_sys(const struct vmt_evformat *fmt, const char *sys)
{
	return !fmt->system || strcmp(fmt->system, sys) == 0;
}

/* The index of an irq_vectors stem (allocated at first sight), or -1 when the table is full. */
static int vec_stem(struct vmt_ctxbind *b, const char *name, size_t len)
{
	uint32_t i;

	if (len >= VMT_CTX_NAME_LEN)
		len = VMT_CTX_NAME_LEN - 1;
	for (i = 0; i < b->nvec; i++) {
		if (strlen(b->vecname[i]) == len && memcmp(b->vecname[i], name, len) == 0)
			return (int)i;
	}
	if (b->nvec >= VMT_CTXBIND_MAXVEC)
		return -1;
	memcpy(b->vecname[b->nvec], name, len);
	b->vecname[b->nvec][len] = '\0';
	return (int)b->nvec++;
}

int vmt_ctxbind_add(struct vmt_ctxbind *b, const struct vmt_evformat *fmt)
{
	struct vmt_ctxslot s, *dst;
	struct vmt_ctxfield ct, cp, cf;
	const char *n = fmt->name;
	size_t stem = 0;
	int ret = 0, vec = -1;

	memset(&s, 0, sizeof(s));
	if (strcmp(n, "sched_switch") == 0 && is_sys(fmt, "sched")) {
		s.type = VMT_CTX_SWITCH;
		ret = field(fmt, "prev_comm", F_COMM, &s.f[0]) ?:
		      field(fmt, "prev_pid", F_INT, &s.f[1]) ?:
		      field(fmt, "prev_state", F_INT, &s.f[2]) ?:
		      field(fmt, "next_comm", F_COMM, &s.f[3]) ?:
		      field(fmt, "next_pid", F_INT, &s.f[4]);
	} else if ((strcmp(n, "sched_waking") == 0 || strcmp(n, "sched_wakeup") == 0) &&
		   is_sys(fmt, "sched")) {
		s.type = VMT_CTX_WAKEUP;
		s.waking = strcmp(n, "sched_waking") == 0;
		ret = field(fmt, "comm", F_COMM, &s.f[0]) ?: field(fmt, "pid", F_INT, &s.f[1]);
		opt_field(fmt, "target_cpu", &s.f[2]);
	} else if (strcmp(n, "irq_handler_entry") == 0 && is_sys(fmt, "irq")) {
		s.type = VMT_CTX_IRQ_ENTRY;
		ret = field(fmt, "irq", F_INT, &s.f[0]) ?: field(fmt, "name", F_STR, &s.f[1]);
	} else if (strcmp(n, "irq_handler_exit") == 0 && is_sys(fmt, "irq")) {
		s.type = VMT_CTX_IRQ_EXIT;
		ret = field(fmt, "irq", F_INT, &s.f[0]);
		opt_field(fmt, "ret", &s.f[1]);
	} else if ((strcmp(n, "softirq_entry") == 0 || strcmp(n, "softirq_exit") == 0) &&
		   is_sys(fmt, "irq")) {
		s.type = strcmp(n, "softirq_entry") == 0 ? VMT_CTX_SOFTIRQ_ENTRY :
							 VMT_CTX_SOFTIRQ_EXIT;
		ret = field(fmt, "vec", F_INT, &s.f[0]);
	} else if ((ends_with(n, "_entry", &stem) || ends_with(n, "_exit", &stem)) &&
		   is_sys(fmt, "irq_vectors") && vmt_evformat_field(fmt, "vector")) {
		s.type = n[stem + 2] == 'n' ? VMT_CTX_VEC_ENTRY : VMT_CTX_VEC_EXIT;
		ret = field(fmt, "vector", F_INT, &s.f[0]);
		if (!ret) {
			vec = vec_stem(b, n, stem);
			if (vec < 0)
				return -ENOSPC;
			s.stem = (uint8_t)vec;
		}
	} else if (strcmp(n, "nmi_handler") == 0 && is_sys(fmt, "nmi")) {
		s.type = VMT_CTX_NMI;
		ret = field(fmt, "delta_ns", F_INT, &s.f[1]);
		opt_field(fmt, "handler", &s.f[0]);
		opt_field(fmt, "handled", &s.f[2]);
	} else if (strcmp(n, "kvm_userspace_exit") == 0 && is_sys(fmt, "kvm")) {
		s.type = VMT_CTX_USEREXIT;
		ret = field(fmt, "reason", F_INT, &s.f[0]);
		opt_field(fmt, "errno", &s.f[1]);
	} else if (strcmp(n, "sys_enter_ioctl") == 0 && is_sys(fmt, "syscalls")) {
		s.type = VMT_CTX_KVM_RUN;
		ret = field(fmt, "cmd", F_INT, &s.f[1]);
		opt_field(fmt, "fd", &s.f[0]);
	} else if (strcmp(n, "kvm_vcpu_wakeup") == 0 && is_sys(fmt, "kvm")) {
		s.type = VMT_CTX_VCPU_WAKEUP;
		ret = field(fmt, "ns", F_INT, &s.f[0]);
		opt_field(fmt, "waited", &s.f[1]);
		opt_field(fmt, "valid", &s.f[2]);
	} else if (strcmp(n, "kvm_inj_virq") == 0 && is_sys(fmt, "kvm")) {
		s.type = VMT_CTX_INJ_VIRQ;
		/* "vector" since Linux 6.7 (and its stable backports), "irq" before */
		ret = field(fmt, "vector", F_INT, &s.f[0]);
		if (ret)
			ret = field(fmt, "irq", F_INT, &s.f[0]);
		opt_field(fmt, "soft", &s.f[1]);
		opt_field(fmt, "reinjected", &s.f[2]);
	} else {
		return 0;
	}
	if (ret)
		return ret;

	/* Every context event shares the common header: refuse layouts that disagree on it. */
	if (field(fmt, "common_type", F_INT, &ct) || ct.size != 2 ||
	    field(fmt, "common_pid", F_INT, &cp) || cp.size != 4)
		return -EINVAL;
	if (field(fmt, "common_flags", F_INT, &cf))
		memset(&cf, 0, sizeof(cf));
	if (b->have_common && (memcmp(&ct, &b->common_type, sizeof(ct)) ||
			       memcmp(&cp, &b->common_pid, sizeof(cp)) ||
			       memcmp(&cf, &b->common_flags, sizeof(cf))))
		return -EINVAL;
	dst = slot_for(b, fmt->id, true);
	if (!dst)
		return -ENOSPC;
	if (dst->used)
		return -EEXIST;
	if (!b->have_common) {
		b->common_type = ct;
		b->common_pid = cp;
		b->common_flags = cf;
		b->have_common = true;
	}
	if (s.type == VMT_CTX_SWITCH)
		b->runnable_mask = runnable_mask(fmt->print_fmt, b->runnable_mask);
	if (vec >= 0)
		b->vec_sides[vec] |= s.type == VMT_CTX_VEC_ENTRY ? 1 : 2;
	s.id = (uint16_t)fmt->id;
	s.used = 1;
	*dst = s;
	b->types |= 1u << s.type;
	return 0;
}

/* An integer field, sign-extended when the layout says signed. */
static inline int get_int(const struct vmt_rbrecord *rec, const struct vmt_ctxfield *f,
			  int64_t *out)
{
	uint64_t v;

	if ((uint32_t)f->offset + f->size > rec->len)
		return -EBADMSG;
	v = get_le_n(rec->data + f->offset, f->size);
	if (f->sign && f->size < 8 && (v >> (f->size * 8 - 1)) & 1)
		v |= ~0ULL << (f->size * 8);
	*out = (int64_t)v;
	return 0;
}

/* An optional field: 0 with *out = dflt when the layout lacks it. */
static inline int get_opt(const struct vmt_rbrecord *rec, const struct vmt_ctxfield *f,
			  int64_t dflt, int64_t *out)
{
	if (!f->size) {
		*out = dflt;
		return 0;
	}
	return get_int(rec, f, out);
}

/*
 * Up to n bytes of p, cut at the first NUL, and a NUL. A plain loop: the names are a few
 * bytes, and memchr() plus memcpy() cost two library calls per context event.
 */
static inline void copy_str(char *out, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && p[i]; i++)
		out[i] = (char)p[i];
	out[i] = '\0';
}

/*
 * A fixed char array (a comm): up to cap - 1 bytes, cut at the first NUL. A task names
 * itself (prctl PR_SET_NAME) with any bytes: control characters become '?', C0 and DEL as
 * C1 (U+0080..U+009F: a terminal may take 0xc2 0x9b as CSI, as it does a bare 0x9b) and
 * each byte that is no part of a valid UTF-8 sequence, so that a newline or an escape
 * sequence in a name cannot break a table's rows or drive the terminal, and every output
 * holds the same name.
 */
static int get_comm(const struct vmt_rbrecord *rec, const struct vmt_ctxfield *f, char *out,
		    size_t cap)
{
	size_t n = f->size < cap - 1 ? f->size : cap - 1, left, len;
	const uint8_t *p;
	char *r, *w;

	if ((uint32_t)f->offset + f->size > rec->len)
		return -EBADMSG;
	p = rec->data + f->offset;
	copy_str(out, p, n);
	left = strlen(out);
	for (r = w = out; left; r += len, left -= len) {
		unsigned char c = (unsigned char)*r;

		len = c < 0x80 ? 1 : vmt_textwidth_seq(r, left);
		if (!len || c < 0x20 || c == 0x7f || (c == 0xc2 && (unsigned char)r[1] < 0xa0)) {
			*w++ = '?';
			len = len ? len : 1;
		} else {
			memmove(w, r, len);
			w += len;
		}
	}
	*w = '\0';
	return 0;
}

/*
 * A __data_loc string: the u32 holds the offset (low 16 bits; from the record's start, or
 * for __rel_loc from the end of the field) and the length with the NUL (high 16 bits).
 */
static int get_str(const struct vmt_rbrecord *rec, const struct vmt_ctxfield *f, char *out,
		   size_t cap)
{
	uint32_t v, off, len;
	size_t n;

	if ((uint32_t)f->offset + 4 > rec->len)
		return -EBADMSG;
	v = get_le32(rec->data + f->offset);
	off = v & 0xffff;
	len = v >> 16;
	if (f->loc == 2)
		off += (uint32_t)f->offset + 4;
	if (off > rec->len || len > rec->len - off)
		return -EBADMSG;
	n = len < cap - 1 ? len : cap - 1;
	copy_str(out, rec->data + off, n);
	return 0;
}

int vmt_ctxbind_decode(const struct vmt_ctxbind *b, const struct vmt_rbrecord *rec, uint32_t cpu,
		       struct vmt_ctxev *out)
{
	const struct vmt_ctxslot *s;
	int64_t v[VMT_CTXBIND_NFIELDS];
	int64_t pid, flags;
	int ret;

	if (!b->have_common || (uint32_t)b->common_type.offset + 2 > rec->len)
		return b->have_common ? -EBADMSG : 0;
	s = lookup(b, get_le16(rec->data + b->common_type.offset));
	if (!s)
		return 0;
	if (get_int(rec, &b->common_pid, &pid) || get_opt(rec, &b->common_flags, 0, &flags))
		return -EBADMSG;
	out->ts = rec->ts;
	out->cpu = cpu;
	out->pid = (int32_t)pid;
	out->flags = (uint8_t)flags;
	out->type = s->type;
	switch (s->type) {
	case VMT_CTX_SWITCH:
		ret = get_comm(rec, &s->f[0], out->u.sw.prev_comm, VMT_CTX_COMM_LEN) ?:
		      get_int(rec, &s->f[1], &v[1]) ?: get_int(rec, &s->f[2], &v[2]) ?:
		      get_comm(rec, &s->f[3], out->u.sw.next_comm, VMT_CTX_COMM_LEN) ?:
		      get_int(rec, &s->f[4], &v[4]);
		if (ret)
			return ret;
		out->u.sw.prev_pid = (int32_t)v[1];
		out->u.sw.prev_state = v[2];
		out->u.sw.prev_runnable = (v[2] & b->runnable_mask) == 0;
		out->u.sw.next_pid = (int32_t)v[4];
		return 1;
	case VMT_CTX_WAKEUP:
		ret = get_comm(rec, &s->f[0], out->u.wake.comm, VMT_CTX_COMM_LEN) ?:
		      get_int(rec, &s->f[1], &v[1]) ?: get_opt(rec, &s->f[2], -1, &v[2]);
		if (ret)
			return ret;
		out->u.wake.pid = (int32_t)v[1];
		out->u.wake.target_cpu = (int32_t)v[2];
		out->u.wake.waking = s->waking;
		return 1;
	case VMT_CTX_IRQ_ENTRY:
	case VMT_CTX_IRQ_EXIT:
		if (!(b->types & 1u << VMT_CTX_IRQ_ENTRY) || !(b->types & 1u << VMT_CTX_IRQ_EXIT))
			return 0;
		ret = get_int(rec, &s->f[0], &v[0]);
		if (ret)
			return ret;
		out->u.irq.id = (int32_t)v[0];
		out->u.irq.vector = -1;
		out->u.irq.ret = 0;
		out->u.irq.name[0] = '\0';
		if (s->type == VMT_CTX_IRQ_ENTRY)
			return get_str(rec, &s->f[1], out->u.irq.name, VMT_CTX_NAME_LEN) ?: 1;
		if (get_opt(rec, &s->f[1], 0, &v[1]))
			return -EBADMSG;
		out->u.irq.ret = (int32_t)v[1];
		return 1;
	case VMT_CTX_SOFTIRQ_ENTRY:
	case VMT_CTX_SOFTIRQ_EXIT: {
		const char *name;

		if (!(b->types & 1u << VMT_CTX_SOFTIRQ_ENTRY) ||
		    !(b->types & 1u << VMT_CTX_SOFTIRQ_EXIT))
			return 0;
		if (get_int(rec, &s->f[0], &v[0]))
			return -EBADMSG;
		out->u.irq.id = (int32_t)v[0];
		out->u.irq.vector = -1;
		out->u.irq.ret = 0;
		name = vmt_ctx_softirq_name((uint32_t)v[0]);
		if (name)
			snprintf(out->u.irq.name, VMT_CTX_NAME_LEN, "%s", name);
		else
			snprintf(out->u.irq.name, VMT_CTX_NAME_LEN, "softirq%u",
				 (unsigned int)v[0]);
		return 1;
	}
	case VMT_CTX_VEC_ENTRY:
	case VMT_CTX_VEC_EXIT:
		if (s->stem >= b->nvec || b->vec_sides[s->stem] != 3)
			return 0;
		if (get_int(rec, &s->f[0], &v[0]))
			return -EBADMSG;
		out->u.irq.id = s->stem;
		out->u.irq.vector = (int32_t)v[0];
		out->u.irq.ret = 0;
		memcpy(out->u.irq.name, b->vecname[s->stem], VMT_CTX_NAME_LEN);
		return 1;
	case VMT_CTX_NMI:
		ret = get_opt(rec, &s->f[0], 0, &v[0]) ?: get_int(rec, &s->f[1], &v[1]) ?:
		      get_opt(rec, &s->f[2], 0, &v[2]);
		if (ret)
			return ret;
		out->u.nmi.handler = (uint64_t)v[0];
		out->u.nmi.delta_ns = v[1];
		out->u.nmi.handled = (int32_t)v[2];
		return 1;
	case VMT_CTX_USEREXIT:
		ret = get_int(rec, &s->f[0], &v[0]) ?: get_opt(rec, &s->f[1], 0, &v[1]);
		if (ret)
			return ret;
		out->u.uexit.reason = (uint32_t)v[0];
		out->u.uexit.err = (int32_t)v[1];
		return 1;
	case VMT_CTX_KVM_RUN:
		ret = get_opt(rec, &s->f[0], 0, &v[0]) ?: get_int(rec, &s->f[1], &v[1]);
		if (ret)
			return ret;
		/* the kernel's ioctl cmd is an unsigned int: upper bits of the slot are noise */
		if ((uint32_t)v[1] != VMT_CTX_KVM_RUN_CMD)
			return 0;
		out->u.run.fd = (uint64_t)v[0];
		return 1;
	case VMT_CTX_VCPU_WAKEUP:
		ret = get_int(rec, &s->f[0], &v[0]) ?: get_opt(rec, &s->f[1], 0, &v[1]) ?:
		      get_opt(rec, &s->f[2], 0, &v[2]);
		if (ret)
			return ret;
		out->u.vwake.ns = (uint64_t)v[0];
		out->u.vwake.waited = v[1] != 0;
		out->u.vwake.valid = v[2] != 0;
		return 1;
	case VMT_CTX_INJ_VIRQ:
		ret = get_int(rec, &s->f[0], &v[0]) ?: get_opt(rec, &s->f[1], 0, &v[1]) ?:
		      get_opt(rec, &s->f[2], 0, &v[2]);
		if (ret)
			return ret;
		out->u.virq.vector = (uint32_t)v[0];
		out->u.virq.soft = v[1] != 0;
		out->u.virq.reinjected = v[2] != 0;
		return 1;
	}
	return 0;
}
