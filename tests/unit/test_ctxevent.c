// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctxevent: records laid out at the offsets written in the real format files of Linux 6.1
 * (the KVM host guest) and 6.18 (this machine), decoded field by field; the same records
 * through a built page and rbpage; every truncation of every record refused, __data_loc
 * strings pointing outside refused (each record in a buffer of its exact size, so ASan sees
 * any read past it); unknown events ignored; layouts lacking a field refused.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "attrib.h"
#include "bytes.h"
#include "ctxevent.h"
#include "evformat.h"
#include "io.h"
#include "pagebuilder.h"
#include "rbpage.h"

static const char *const kernels[] = { "linux-6.1-kvmhost", "linux-6.18-x86_64" };

static const char *const events[] = {
	"sched/sched_switch", "sched/sched_wakeup", "sched/sched_waking",
	"irq/irq_handler_entry", "irq/irq_handler_exit", "irq/softirq_entry", "irq/softirq_exit",
	"irq_vectors/local_timer_entry", "irq_vectors/local_timer_exit",
	"irq_vectors/reschedule_entry", "irq_vectors/reschedule_exit",
	"irq_vectors/call_function_single_entry", "irq_vectors/call_function_single_exit",
	"nmi/nmi_handler", "kvm/kvm_userspace_exit", "syscalls/sys_enter_ioctl",
	"kvm/kvm_vcpu_wakeup", "kvm/kvm_inj_virq", "kvm/kvm_exit", "kvm/kvm_entry",
};
#define NEV (sizeof(events) / sizeof(events[0]))

static struct vmt_evformat *load(const char *kernel, const char *ev)
{
	char path[512], sys[64], *text;
	struct vmt_evformat *f = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/tests/data/formats/%s/%s/format", TOP_SRCDIR, kernel, ev);
	snprintf(sys, sizeof(sys), "%.*s", (int)(strchr(ev, '/') - ev), ev);
	assert_int_equal(vmt_io_read_file(path, 1 << 20, &text, &len), 0);
	assert_int_equal(vmt_evformat_parse(text, len, sys, &f, NULL), 0);
	free(text);
	return f;
}

struct kbind {
	struct vmt_ctxbind b;
	struct vmt_evformat *f[NEV];
};

static void bind_kernel(struct kbind *k, const char *kernel)
{
	unsigned int i;

	vmt_ctxbind_init(&k->b);
	for (i = 0; i < NEV; i++) {
		k->f[i] = load(kernel, events[i]);
		assert_int_equal(vmt_ctxbind_add(&k->b, k->f[i]), 0);
	}
}

static void unbind(struct kbind *k)
{
	unsigned int i;

	for (i = 0; i < NEV; i++)
		vmt_evformat_free(k->f[i]);
}

static uint16_t id_of(const struct kbind *k, const char *ev)
{
	unsigned int i;

	for (i = 0; i < NEV; i++) {
		if (strcmp(events[i], ev) == 0)
			return (uint16_t)k->f[i]->id;
	}
	fail();
	return 0;
}

/*
 * A record written at the offsets read off the format files by eye (they are the same in
 * 6.1 and 6.18 for these events): common_type @0, common_flags @2, common_pid @4.
 */
struct rec {
	uint8_t b[128];
	uint32_t len;
};

static void rec_init(struct rec *r, uint16_t id, uint8_t flags, int32_t pid, uint32_t len)
{
	memset(r, 0, sizeof(*r));
	put_le16(r->b, id);
	r->b[2] = flags;
	r->b[3] = 1;	/* preempt count */
	put_le32(r->b + 4, (uint32_t)pid);
	r->len = len;
}

static int decode(const struct vmt_ctxbind *b, const struct rec *r, uint32_t len,
		  struct vmt_ctxev *ev)
{
	/* an exact-size copy: a read past len is a heap overflow ASan reports */
	uint8_t *copy = malloc(len ? len : 1);
	struct vmt_rbrecord rr;
	int ret;

	memcpy(copy, r->b, len);
	rr.ts = 12345;
	rr.data = copy;
	rr.len = len;
	memset(ev, 0xa5, sizeof(*ev));
	ret = vmt_ctxbind_decode(b, &rr, 3, ev);
	free(copy);
	return ret;
}

/* Every shorter record is refused (or, below the common_type, not recognised). */
static void truncations(const struct vmt_ctxbind *b, const struct rec *r, uint32_t need)
{
	struct vmt_ctxev ev;
	uint32_t l;

	for (l = 0; l < need; l++)
		assert_int_equal(decode(b, r, l, &ev), -EBADMSG);
}

static void test_switch(void **state)
{
	unsigned int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		static const struct {
			int64_t st;
			bool runnable;
		} states[] = {
			{ 0, true }, { 0x100, true }, { 1, false }, { 2, false }, { 0x80, false },
			{ 0x101, false }, { 0x40, false },
		};
		struct kbind kb;
		struct vmt_ctxev ev;
		struct rec r;
		unsigned int i;

		bind_kernel(&kb, kernels[k]);
		for (i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
			rec_init(&r, id_of(&kb, "sched/sched_switch"), 0x01, 4242, 64);
			memcpy(r.b + 8, "qemu-kvm:vcpu0", 15);
			put_le32(r.b + 24, 4242);
			put_le32(r.b + 28, 120);
			put_le64(r.b + 32, (uint64_t)states[i].st);
			/* 16 bytes without a NUL: cut to 15 */
			memcpy(r.b + 40, "kworker/1:2H-kbl", 16);
			put_le32(r.b + 56, (uint32_t)-7);
			assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
			assert_int_equal(ev.type, VMT_CTX_SWITCH);
			assert_int_equal(ev.ts, 12345);
			assert_int_equal(ev.cpu, 3);
			assert_int_equal(ev.pid, 4242);
			assert_int_equal(ev.flags, 0x01);
			assert_string_equal(ev.u.sw.prev_comm, "qemu-kvm:vcpu0");
			assert_int_equal(ev.u.sw.prev_pid, 4242);
			assert_int_equal(ev.u.sw.prev_state, states[i].st);
			assert_int_equal(ev.u.sw.prev_runnable, states[i].runnable);
			assert_string_equal(ev.u.sw.next_comm, "kworker/1:2H-kb");
			assert_int_equal(ev.u.sw.next_pid, -7);
		}
		truncations(&kb.b, &r, 60);
		unbind(&kb);
	}
}

static void test_wakeup(void **state)
{
	unsigned int k, w;

	(void)state;
	for (k = 0; k < 2; k++) {
		struct kbind kb;

		bind_kernel(&kb, kernels[k]);
		for (w = 0; w < 2; w++) {
			struct vmt_ctxev ev;
			struct rec r;

			rec_init(&r, id_of(&kb, w ? "sched/sched_waking" : "sched/sched_wakeup"),
				 VMT_CTX_FLAG_HARDIRQ, 0, 36);
			memcpy(r.b + 8, "CPU 0/KVM", 10);
			put_le32(r.b + 24, 777);
			put_le32(r.b + 28, 120);
			put_le32(r.b + 32, 1);
			assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
			assert_int_equal(ev.type, VMT_CTX_WAKEUP);
			assert_int_equal(ev.pid, 0);
			assert_int_equal(ev.flags, VMT_CTX_FLAG_HARDIRQ);
			assert_string_equal(ev.u.wake.comm, "CPU 0/KVM");
			assert_int_equal(ev.u.wake.pid, 777);
			assert_int_equal(ev.u.wake.target_cpu, 1);
			assert_int_equal(ev.u.wake.waking, w == 1);
			truncations(&kb.b, &r, 36);
			/* a name a task gave itself with a newline and an escape: not passed on */
			memcpy(r.b + 8, "ev\nil\x1b[2J\x7f", 11);
			assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
			assert_string_equal(ev.u.wake.comm, "ev?il?[2J?");
		}
		unbind(&kb);
	}
}

static void test_irq(void **state)
{
	unsigned int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		struct kbind kb;
		struct vmt_ctxev ev;
		struct rec r;

		bind_kernel(&kb, kernels[k]);
		/* irq_handler_entry: irq @8, __data_loc name @12 -> "virtio0-input.0" */
		rec_init(&r, id_of(&kb, "irq/irq_handler_entry"), VMT_CTX_FLAG_HARDIRQ, 55, 32);
		put_le32(r.b + 8, 24);
		put_le32(r.b + 12, 16u | 16u << 16);
		memcpy(r.b + 16, "virtio0-input.0", 16);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		assert_int_equal(ev.type, VMT_CTX_IRQ_ENTRY);
		assert_int_equal(ev.u.irq.id, 24);
		assert_string_equal(ev.u.irq.name, "virtio0-input.0");
		truncations(&kb.b, &r, 32);
		/* the string starts inside but runs past the end */
		put_le32(r.b + 12, 16u | 17u << 16);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), -EBADMSG);
		/* starts past the end */
		put_le32(r.b + 12, 33u | 0u << 16);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), -EBADMSG);
		put_le32(r.b + 12, 0xffffu | 0xffffu << 16);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), -EBADMSG);
		/* an empty string right at the end is fine */
		put_le32(r.b + 12, 32u);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		assert_string_equal(ev.u.irq.name, "");
		/* a name longer than we keep is cut, and without a NUL too */
		r.len = 16 + 40;
		memset(r.b + 16, 'x', 40);
		put_le32(r.b + 12, 16u | 40u << 16);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		assert_int_equal(strlen(ev.u.irq.name), VMT_CTX_NAME_LEN - 1);

		rec_init(&r, id_of(&kb, "irq/irq_handler_exit"), VMT_CTX_FLAG_HARDIRQ, 55, 16);
		put_le32(r.b + 8, 24);
		put_le32(r.b + 12, 1);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		assert_int_equal(ev.type, VMT_CTX_IRQ_EXIT);
		assert_int_equal(ev.u.irq.id, 24);
		assert_int_equal(ev.u.irq.ret, 1);
		truncations(&kb.b, &r, 16);

		rec_init(&r, id_of(&kb, "irq/softirq_entry"), VMT_CTX_FLAG_SOFTIRQ, 0, 12);
		put_le32(r.b + 8, 3);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		assert_int_equal(ev.type, VMT_CTX_SOFTIRQ_ENTRY);
		assert_int_equal(ev.u.irq.id, 3);
		assert_string_equal(ev.u.irq.name, "net_rx");
		truncations(&kb.b, &r, 12);
		rec_init(&r, id_of(&kb, "irq/softirq_exit"), VMT_CTX_FLAG_SOFTIRQ, 0, 12);
		put_le32(r.b + 8, 12);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		assert_int_equal(ev.type, VMT_CTX_SOFTIRQ_EXIT);
		assert_string_equal(ev.u.irq.name, "softirq12");

		/* vectors: named from the event, the same id for entry and exit */
		rec_init(&r, id_of(&kb, "irq_vectors/local_timer_entry"), VMT_CTX_FLAG_HARDIRQ, 9,
			 12);
		put_le32(r.b + 8, 0xec);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		assert_int_equal(ev.type, VMT_CTX_VEC_ENTRY);
		assert_int_equal(ev.u.irq.vector, 0xec);
		assert_string_equal(ev.u.irq.name, "local_timer");
		{
			int32_t id = ev.u.irq.id;

			rec_init(&r, id_of(&kb, "irq_vectors/local_timer_exit"),
				 VMT_CTX_FLAG_HARDIRQ, 9, 12);
			put_le32(r.b + 8, 0xec);
			assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
			assert_int_equal(ev.type, VMT_CTX_VEC_EXIT);
			assert_int_equal(ev.u.irq.id, id);
			assert_string_equal(ev.u.irq.name, "local_timer");
			rec_init(&r, id_of(&kb, "irq_vectors/call_function_single_exit"),
				 VMT_CTX_FLAG_HARDIRQ, 9, 12);
			put_le32(r.b + 8, 0xfb);
			assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
			assert_int_not_equal(ev.u.irq.id, id);
			assert_string_equal(ev.u.irq.name, "call_function_single");
			truncations(&kb.b, &r, 12);
		}
		unbind(&kb);
	}
}

static void test_kvm_nmi(void **state)
{
	unsigned int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		struct kbind kb;
		struct vmt_ctxev ev;
		struct rec r;

		bind_kernel(&kb, kernels[k]);
		/* nmi_handler: handler @8 (8), delta_ns s64 @16, handled int @24 */
		rec_init(&r, id_of(&kb, "nmi/nmi_handler"), VMT_CTX_FLAG_NMI | 0x08, 4242, 28);
		put_le64(r.b + 8, 0xffffffff81012340ULL);
		put_le64(r.b + 16, 15000);
		put_le32(r.b + 24, 1);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		assert_int_equal(ev.type, VMT_CTX_NMI);
		assert_int_equal(ev.u.nmi.handler, 0xffffffff81012340ULL);
		assert_int_equal(ev.u.nmi.delta_ns, 15000);
		assert_int_equal(ev.u.nmi.handled, 1);
		put_le64(r.b + 16, (uint64_t)-3);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		assert_int_equal(ev.u.nmi.delta_ns, -3);
		truncations(&kb.b, &r, 28);

		/* kvm_userspace_exit: reason u32 @8, errno int @12 */
		rec_init(&r, id_of(&kb, "kvm/kvm_userspace_exit"), 0, 4242, 16);
		put_le32(r.b + 8, 6);
		put_le32(r.b + 12, 0);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		assert_int_equal(ev.type, VMT_CTX_USEREXIT);
		assert_int_equal(ev.u.uexit.reason, 6);
		assert_int_equal(ev.u.uexit.err, 0);
		assert_string_equal(vmt_ctx_userexit_name(ev.u.uexit.reason, ev.u.uexit.err),
				    "MMIO");
		put_le32(r.b + 12, (uint32_t)-4);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		assert_int_equal(ev.u.uexit.err, -4);
		assert_string_equal(vmt_ctx_userexit_name(ev.u.uexit.reason, ev.u.uexit.err),
				    "restart");
		truncations(&kb.b, &r, 16);

		/* sys_enter_ioctl: fd @16, cmd @24 (8 bytes each) */
		rec_init(&r, id_of(&kb, "syscalls/sys_enter_ioctl"), 0, 4242, 40);
		put_le32(r.b + 8, 16);
		put_le64(r.b + 16, 12);
		put_le64(r.b + 24, 0xae80);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		assert_int_equal(ev.type, VMT_CTX_KVM_RUN);
		assert_int_equal(ev.u.run.fd, 12);
		truncations(&kb.b, &r, 32);
		put_le64(r.b + 24, 0xdead00000000ae80ULL);	/* an int in a long slot */
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		put_le64(r.b + 24, 0xae86);			/* KVM_GET_MSRS */
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 0);

		/* kvm_vcpu_wakeup: ns u64 @8, waited @16, valid @17 */
		rec_init(&r, id_of(&kb, "kvm/kvm_vcpu_wakeup"), 0, 4242, 24);
		put_le64(r.b + 8, 987654);
		r.b[16] = 1;
		r.b[17] = 0;
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		assert_int_equal(ev.type, VMT_CTX_VCPU_WAKEUP);
		assert_int_equal(ev.u.vwake.ns, 987654);
		assert_true(ev.u.vwake.waited);
		assert_false(ev.u.vwake.valid);
		truncations(&kb.b, &r, 18);

		/* kvm_inj_virq: vector @8, soft @12, reinjected @13 */
		rec_init(&r, id_of(&kb, "kvm/kvm_inj_virq"), 0, 4242, 16);
		put_le32(r.b + 8, 0x30);
		r.b[13] = 1;
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 1);
		assert_int_equal(ev.type, VMT_CTX_INJ_VIRQ);
		assert_int_equal(ev.u.virq.vector, 0x30);
		assert_false(ev.u.virq.soft);
		assert_true(ev.u.virq.reinjected);
		truncations(&kb.b, &r, 14);

		/* the pair's own events are not context events */
		rec_init(&r, id_of(&kb, "kvm/kvm_exit"), 0, 4242, 64);
		assert_int_equal(decode(&kb.b, &r, r.len, &ev), 0);
		unbind(&kb);
	}
}

/* The same records through a built sub-buffer and rbpage, as a recording hands them out. */
static void test_through_page(void **state)
{
	struct vmt_header_page hp;
	struct vmt_rbpage pg;
	struct vmt_rbrecord rr;
	struct kbind kb;
	struct rec r[3];
	struct vmt_ctxev ev;
	uint8_t page[4096];
	struct pb pb;
	int types[3] = { 0 }, n = 0, ret;

	(void)state;
	bind_kernel(&kb, "linux-6.18-x86_64");
	vmt_header_page_default(&hp);
	pb_init(&pb, page, &hp, 1000);
	rec_init(&r[0], id_of(&kb, "irq_vectors/reschedule_entry"), VMT_CTX_FLAG_HARDIRQ, 0, 12);
	put_le32(r[0].b + 8, 0xfd);
	rec_init(&r[1], id_of(&kb, "irq/irq_handler_entry"), VMT_CTX_FLAG_HARDIRQ, 0, 20);
	put_le32(r[1].b + 12, 16u | 4u << 16);
	memcpy(r[1].b + 16, "ahci", 4);	/* the kernel pads to 4 bytes: here no NUL */
	rec_init(&r[2], id_of(&kb, "sched/sched_switch"), 0, 10, 64);
	put_le32(r[2].b + 24, 10);
	put_le32(r[2].b + 56, 11);
	assert_int_equal(pb_data(&pb, 1000, r[0].b, r[0].len, false), 0);
	assert_int_equal(pb_data(&pb, 1500, r[1].b, r[1].len, true), 0);
	assert_int_equal(pb_data(&pb, 1500 + (1ULL << 28), r[2].b, r[2].len, false), 0);
	pb_finish(&pb, false, false, 0);
	assert_int_equal(vmt_rbpage_init(&pg, &hp, page, sizeof(page)), 0);
	while ((ret = vmt_rbpage_next(&pg, &rr)) == 1) {
		assert_int_equal(vmt_ctxbind_decode(&kb.b, &rr, 1, &ev), 1);
		assert_int_equal(ev.ts, n == 0 ? 1000 : n == 1 ? 1500 : 1500 + (1ULL << 28));
		types[n++] = ev.type;
		if (ev.type == VMT_CTX_IRQ_ENTRY)
			assert_string_equal(ev.u.irq.name, "ahci");
		if (ev.type == VMT_CTX_SWITCH)
			assert_int_equal(ev.u.sw.next_pid, 11);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(n, 3);
	assert_int_equal(types[0], VMT_CTX_VEC_ENTRY);
	assert_int_equal(types[1], VMT_CTX_IRQ_ENTRY);
	assert_int_equal(types[2], VMT_CTX_SWITCH);
	unbind(&kb);
}

static struct vmt_evformat *parse(const char *text, const char *sys)
{
	struct vmt_evformat *f = NULL;

	assert_int_equal(vmt_evformat_parse(text, strlen(text), sys, &f, NULL), 0);
	return f;
}

#define COMMON "format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static void test_bind_rules(void **state)
{
	struct vmt_ctxbind b;
	struct vmt_evformat *f;
	struct vmt_ctxev ev;
	struct rec r;
	struct kbind kb;
	uint32_t all;

	(void)state;
	/*
	 * the recorded kinds: everything with the full set (and the handlers before an exit),
	 * nothing but kvm with none
	 */
	bind_kernel(&kb, "linux-6.1-kvmhost");
	all = vmt_attrib_recorded(&kb.b);
	assert_int_equal(all, ((1u << VMT_WHY_NKINDS) - 1) | VMT_WHY_REC_BEFORE);
	unbind(&kb);
	vmt_ctxbind_init(&b);
	assert_int_equal(vmt_attrib_recorded(&b), 1u << VMT_WHY_KVM);

	/* a vector with only its entry bound tells nothing, and its records are not decoded */
	f = load("linux-6.18-x86_64", "irq_vectors/local_timer_entry");
	assert_int_equal(vmt_ctxbind_add(&b, f), 0);
	assert_int_equal(vmt_attrib_recorded(&b) & 1u << VMT_WHY_IRQ, 0);
	rec_init(&r, (uint16_t)f->id, 0, 0, 12);
	assert_int_equal(decode(&b, &r, r.len, &ev), 0);
	assert_int_equal(vmt_ctxbind_add(&b, f), -EEXIST);
	vmt_evformat_free(f);
	f = load("linux-6.18-x86_64", "irq_vectors/local_timer_exit");
	assert_int_equal(vmt_ctxbind_add(&b, f), 0);
	vmt_evformat_free(f);
	assert_true(vmt_attrib_recorded(&b) & 1u << VMT_WHY_IRQ);
	assert_int_equal(decode(&b, &r, r.len, &ev), 1);

	/*
	 * sched_switch alone: preempted and blocked, but no wake-up latency (the vector's
	 * handler pair also tells the handlers before an exit)
	 */
	f = load("linux-6.18-x86_64", "sched/sched_switch");
	assert_int_equal(vmt_ctxbind_add(&b, f), 0);
	vmt_evformat_free(f);
	assert_int_equal(vmt_attrib_recorded(&b),
			 1u << VMT_WHY_KVM | 1u << VMT_WHY_PREEMPTED | 1u << VMT_WHY_BLOCKED |
			 1u << VMT_WHY_IRQ | VMT_WHY_REC_BEFORE);

	/* not ours: ignored; irq_vectors events that are not handler pairs too */
	f = parse("name: vector_alloc\nID: 600\n" COMMON
		  "\tfield:unsigned int irq;\toffset:8;\tsize:4;\tsigned:0;\n"
		  "\tfield:unsigned int vector;\toffset:12;\tsize:4;\tsigned:0;\n", "irq_vectors");
	assert_int_equal(vmt_ctxbind_add(&b, f), 0);
	rec_init(&r, 600, 0, 0, 16);
	assert_int_equal(decode(&b, &r, r.len, &ev), 0);
	vmt_evformat_free(f);
	/* a same-named event of another system is not ours either */
	f = parse("name: sched_switch\nID: 601\n" COMMON
		  "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n", "other");
	assert_int_equal(vmt_ctxbind_add(&b, f), 0);
	vmt_evformat_free(f);
	/* a layout lacking a needed field */
	f = parse("name: sched_waking\nID: 602\n" COMMON
		  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n", "sched");
	assert_int_equal(vmt_ctxbind_add(&b, f), -EINVAL);
	vmt_evformat_free(f);
	/* a comm that is not an array, a name that is not a __data_loc */
	f = parse("name: sched_waking\nID: 603\n" COMMON
		  "\tfield:long comm;\toffset:8;\tsize:8;\tsigned:0;\n"
		  "\tfield:int pid;\toffset:16;\tsize:4;\tsigned:1;\n", "sched");
	assert_int_equal(vmt_ctxbind_add(&b, f), -EINVAL);
	vmt_evformat_free(f);
	f = parse("name: irq_handler_entry\nID: 604\n" COMMON
		  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
		  "\tfield:int name;\toffset:12;\tsize:4;\tsigned:0;\n", "irq");
	assert_int_equal(vmt_ctxbind_add(&b, f), -EINVAL);
	vmt_evformat_free(f);
	/* a common header that disagrees with the events bound before */
	f = parse("name: softirq_entry\nID: 605\nformat:\n"
		  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		  "\tfield:int common_pid;\toffset:8;\tsize:4;\tsigned:1;\n"
		  "\tfield:unsigned int vec;\toffset:12;\tsize:4;\tsigned:0;\n", "irq");
	assert_int_equal(vmt_ctxbind_add(&b, f), -EINVAL);
	vmt_evformat_free(f);
	/* older kernels: kvm_inj_virq(irq); without a system name the name decides */
	f = parse("name: kvm_inj_virq\nID: 606\n" COMMON
		  "\tfield:unsigned int irq;\toffset:8;\tsize:4;\tsigned:0;\n", NULL);
	assert_int_equal(vmt_ctxbind_add(&b, f), 0);
	vmt_evformat_free(f);
	rec_init(&r, 606, 0, 1, 12);
	put_le32(r.b + 8, 0xef);
	assert_int_equal(decode(&b, &r, r.len, &ev), 1);
	assert_int_equal(ev.u.virq.vector, 0xef);
	/* __rel_loc: the offset counts from the end of the field */
	f = parse("name: irq_handler_entry\nID: 607\n" COMMON
		  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
		  "\tfield:__rel_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n", "irq");
	assert_int_equal(vmt_ctxbind_add(&b, f), 0);
	vmt_evformat_free(f);
	f = parse("name: irq_handler_exit\nID: 608\n" COMMON
		  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n", "irq");
	assert_int_equal(vmt_ctxbind_add(&b, f), 0);
	vmt_evformat_free(f);
	rec_init(&r, 607, 0, 0, 24);
	put_le32(r.b + 12, 4u | 4u << 16);
	memcpy(r.b + 20, "eth0", 4);
	assert_int_equal(decode(&b, &r, r.len, &ev), 1);
	assert_string_equal(ev.u.irq.name, "eth0");
	put_le32(r.b + 12, 5u | 4u << 16);
	assert_int_equal(decode(&b, &r, r.len, &ev), -EBADMSG);
	/* an id nobody bound */
	rec_init(&r, 9999, 0, 0, 64);
	assert_int_equal(decode(&b, &r, r.len, &ev), 0);
	/* an empty bind decodes nothing, even a 1-byte record */
	vmt_ctxbind_init(&b);
	assert_int_equal(decode(&b, &r, 1, &ev), 0);
}

/* The preempted bit read from the print fmt: a pre-4.14 layout uses 2048 (TASK_STATE_MAX). */
static void test_prev_state_encodings(void **state)
{
	static const char old[] = "name: sched_switch\nID: 700\n" COMMON
		"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
		"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
		"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
		"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
		"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
		"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"prev_state=%s%s\", REC->prev_state & (2048-1) ? "
		"__print_flags(REC->prev_state & (2048-1), \"|\", { 1, \"S\"} , { 2, \"D\" }, "
		"{ 4, \"T\" }, { 8, \"t\" }, { 16, \"Z\" }, { 32, \"X\" }, { 64, \"x\" }, "
		"{ 128, \"K\" }, { 256, \"W\" }, { 512, \"P\" }, { 1024, \"N\" }) : \"R\", "
		"REC->prev_state & 2048 ? \"+\" : \"\"\n";
	static const struct {
		int64_t st;
		bool runnable;
	} cases[] = {
		{ 0, true }, { 2048, true }, { 0x100, false }, { 1024, false }, { 1, false },
	};
	struct vmt_evformat *f = parse(old, "sched");
	struct vmt_ctxbind b;
	struct vmt_ctxev ev;
	struct rec r;
	unsigned int i;

	(void)state;
	vmt_ctxbind_init(&b);
	assert_int_equal(vmt_ctxbind_add(&b, f), 0);
	vmt_evformat_free(f);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rec_init(&r, 700, 0, 1, 64);
		put_le64(r.b + 32, (uint64_t)cases[i].st);
		assert_int_equal(decode(&b, &r, r.len, &ev), 1);
		assert_int_equal(ev.u.sw.prev_runnable, cases[i].runnable);
	}
}

static void test_tables(void **state)
{
	unsigned int i, n = 0;
	char buf[24];

	(void)state;
	assert_string_equal(vmt_ctx_softirq_name(0), "hi");
	assert_string_equal(vmt_ctx_softirq_name(9), "rcu");
	assert_null(vmt_ctx_softirq_name(10));
	assert_string_equal(vmt_ctx_userexit_name(2, 0), "IO");
	assert_string_equal(vmt_ctx_userexit_name(5, 0), "HLT");
	assert_null(vmt_ctx_userexit_name(1000, 0));
	/* past the names: its number, never "other" (the merged parts' name) */
	assert_string_equal(vmt_ctx_userexit_text(1000, 0, buf, sizeof(buf)), "reason 1000");
	assert_string_equal(vmt_ctx_userexit_text(6, 0, buf, sizeof(buf)), "MMIO");
	assert_string_equal(vmt_ctx_userexit_name(2, -14), "error");
	/* every default event this machine's kernel has is bindable from its format file */
	for (i = 0; i < vmt_ctx_default_nevents; i++) {
		char path[512], *text;
		struct vmt_evformat *f;
		struct vmt_ctxbind b;
		size_t len;

		snprintf(path, sizeof(path), "%s/tests/data/formats/linux-6.18-x86_64/%s/%s/format",
			 TOP_SRCDIR, vmt_ctx_default_events[i].system,
			 vmt_ctx_default_events[i].name);
		if (vmt_io_read_file(path, 1 << 20, &text, &len))
			continue;
		assert_int_equal(vmt_evformat_parse(text, len, vmt_ctx_default_events[i].system, &f,
						    NULL), 0);
		free(text);
		vmt_ctxbind_init(&b);
		assert_int_equal(vmt_ctxbind_add(&b, f), 0);
		assert_int_not_equal(b.types, 0);
		vmt_evformat_free(f);
		n++;
	}
	assert_true(n >= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch),
		cmocka_unit_test(test_wakeup),
		cmocka_unit_test(test_irq),
		cmocka_unit_test(test_kvm_nmi),
		cmocka_unit_test(test_through_page),
		cmocka_unit_test(test_bind_rules),
		cmocka_unit_test(test_prev_state_encodings),
		cmocka_unit_test(test_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
