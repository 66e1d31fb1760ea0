/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctxevent: raw records of the context events (scheduler switches and wake-ups, hard and
 * soft interrupts, x86 vector handlers, NMIs, KVM's user-space exits and KVM_RUN) ->
 * struct vmt_ctxev, with offsets from the recording's own format files. A struct
 * vmt_ctxbind is filled once and then read-only (threads may share it); records are
 * hostile: every field is checked against the record length.
 */
#ifndef VMT_CTXEVENT_H
#define VMT_CTXEVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "evformat.h"
#include "rbpage.h"

/* What a decoded context event is. */
enum vmt_ctxtype {
	VMT_CTX_SWITCH = 1,	/* sched:sched_switch */
	VMT_CTX_WAKEUP,		/* sched:sched_waking or sched:sched_wakeup */
	VMT_CTX_IRQ_ENTRY,	/* irq:irq_handler_entry */
	VMT_CTX_IRQ_EXIT,	/* irq:irq_handler_exit */
	VMT_CTX_SOFTIRQ_ENTRY,	/* irq:softirq_entry */
	VMT_CTX_SOFTIRQ_EXIT,	/* irq:softirq_exit */
	VMT_CTX_VEC_ENTRY,	/* irq_vectors:<name>_entry */
	VMT_CTX_VEC_EXIT,	/* irq_vectors:<name>_exit */
	VMT_CTX_NMI,		/* nmi:nmi_handler, stamped at the END of the handler */
	VMT_CTX_USEREXIT,	/* kvm:kvm_userspace_exit */
	VMT_CTX_KVM_RUN,	/* syscalls:sys_enter_ioctl with cmd KVM_RUN */
	VMT_CTX_VCPU_WAKEUP,	/* kvm:kvm_vcpu_wakeup */
	VMT_CTX_INJ_VIRQ,	/* kvm:kvm_inj_virq */
	VMT_CTX_NTYPES
};

/* common_flags bits (the kernel's TRACE_FLAG_*): the context the event was emitted in. */
#define VMT_CTX_FLAG_HARDIRQ	0x08
#define VMT_CTX_FLAG_SOFTIRQ	0x10
#define VMT_CTX_FLAG_NMI	0x40

#define VMT_CTX_KVM_RUN_CMD	0xae80u	/* _IO(KVMIO, 0x80) */

/* TASK_COMM_LEN is 16 with the NUL; names of interrupts are cut to fit VMT_CTX_NAME_LEN. */
#define VMT_CTX_COMM_LEN	16
#define VMT_CTX_NAME_LEN	32

struct vmt_ctxev {
	uint64_t ts;		/* trace clock units */
	uint32_t cpu;
	int32_t pid;		/* common_pid: the task the event was emitted from */
	uint8_t type;		/* enum vmt_ctxtype */
	uint8_t flags;		/* common_flags (VMT_CTX_FLAG_*) */
	union {
		struct {
			int32_t prev_pid, next_pid;
			int64_t prev_state;
			bool prev_runnable;	/* R or R+ (preempted): still wants the CPU */
			char prev_comm[VMT_CTX_COMM_LEN], next_comm[VMT_CTX_COMM_LEN];
		} sw;
		struct {
			int32_t pid;
			int32_t target_cpu;	/* -1 when the layout lacks it */
			bool waking;		/* sched_waking (else sched_wakeup) */
			char comm[VMT_CTX_COMM_LEN];
		} wake;
		/*
		 * IRQ_*: id is the irq number, name its handler's (entry only; "" on exit).
		 * SOFTIRQ_*: id is vec, name "timer", "net_rx", ... VEC_*: id is the vector
		 * event (its pair index in the bind, the same for entry and exit), vector the
		 * field's value, name the event's stem ("local_timer").
		 */
		struct {
			int32_t id;
			int32_t vector;
			int32_t ret;		/* irq_handler_exit */
			char name[VMT_CTX_NAME_LEN];
		} irq;
		struct {
			uint64_t handler;
			int64_t delta_ns;	/* ns whatever the trace clock */
			int32_t handled;
		} nmi;
		struct {
			uint32_t reason;	/* KVM_EXIT_* */
			int32_t err;		/* errno field: < 0 means an error return */
		} uexit;
		struct {
			uint64_t fd;
		} run;
		struct {
			uint64_t ns;
			bool waited, valid;
		} vwake;
		struct {
			uint32_t vector;
			bool soft, reinjected;
		} virq;
	} u;
};

/* One field of a bound event: where it lives, its size and signedness. */
struct vmt_ctxfield {
	uint16_t offset, size;
	uint8_t sign;
	uint8_t loc;		/* 0 plain, 1 __data_loc (from the record's start), 2 __rel_loc */
};

#define VMT_CTXBIND_SLOTS 128	/* power of two, above the ~45 events a kernel has */
#define VMT_CTXBIND_NFIELDS 5
#define VMT_CTXBIND_MAXVEC 32	/* distinct irq_vectors stems */

struct vmt_ctxslot {
	uint16_t id;
	uint8_t used;
	uint8_t type;		/* enum vmt_ctxtype */
	uint8_t waking;		/* VMT_CTX_WAKEUP: sched_waking */
	uint8_t stem;		/* VMT_CTX_VEC_*: index into vecname */
	struct vmt_ctxfield f[VMT_CTXBIND_NFIELDS];
};

struct vmt_ctxbind {
	struct vmt_ctxfield common_type, common_pid, common_flags;
	bool have_common;
	int64_t runnable_mask;	/* prev_state & mask == 0: runnable (R, or R+ preempted) */
	uint32_t types;		/* 1 << enum vmt_ctxtype of every bound event */
	uint32_t nvec;
	uint8_t vec_sides[VMT_CTXBIND_MAXVEC];	/* bit 0 entry bound, bit 1 exit bound */
	char vecname[VMT_CTXBIND_MAXVEC][VMT_CTX_NAME_LEN];
	struct vmt_ctxslot slot[VMT_CTXBIND_SLOTS];
};

void vmt_ctxbind_init(struct vmt_ctxbind *b);
/*
 * Bind one event's format (fmt->system may be NULL; the name then decides alone). Returns
 * 0 (bound, or ignored when the event is not one of ours), -EINVAL when its layout lacks a
 * needed field or disagrees with the common header of the events bound before, -ENOSPC
 * when the table is full, -EEXIST when its id is bound already.
 */
int vmt_ctxbind_add(struct vmt_ctxbind *b, const struct vmt_evformat *fmt);
/*
 * Decode one record. Returns 1 (*out filled), 0 (not a context event, or a sys_enter_ioctl
 * other than KVM_RUN, or one side of an entry/exit pair whose other side is not bound), or
 * -EBADMSG (a field or a string outside the record).
 */
int vmt_ctxbind_decode(const struct vmt_ctxbind *b, const struct vmt_rbrecord *rec, uint32_t cpu,
		       struct vmt_ctxev *out);

/* The context events a recorder enables by default ("--context"), with tracefs filters. */
struct vmt_ctxdefault {
	const char *system, *name;
	const char *filter;	/* NULL: none */
};
extern const struct vmt_ctxdefault vmt_ctx_default_events[];
extern const unsigned int vmt_ctx_default_nevents;

/* "IO", "MMIO", "HLT", ... for kvm_userspace_exit (err < 0: "restart" or "error"); NULL
 * past the table. */
const char *vmt_ctx_userexit_name(uint32_t reason, int32_t err);
/*
 * The same, or "reason N" in buf past the table (never "other", the name of merged parts).
 * Returns the name or buf.
 */
const char *vmt_ctx_userexit_text(uint32_t reason, int32_t err, char *buf, size_t size);
/* "hi", "timer", ... "rcu"; NULL past the table. */
const char *vmt_ctx_softirq_name(uint32_t vec);

#endif
