/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kvmevent: raw tracepoint records of a begin/end pair (kvm:kvm_exit/kvm:kvm_entry by
 * default, any pair such as raw_syscalls:sys_enter/sys_exit) -> struct vmt_event, using
 * field offsets from the recording's own format files. A struct vmt_evbind is filled once
 * and then read-only (safe to share between threads). Fields a layout lacks stay absent.
 */
#ifndef VMT_KVMEVENT_H
#define VMT_KVMEVENT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "bytes.h"
#include "evformat.h"
#include "rbpage.h"

enum vmt_event_kind {
	VMT_EV_BEGIN = 1,	/* kvm_exit: the guest stops running */
	VMT_EV_END = 2,		/* kvm_entry: the guest runs again */
};

/* Which optional fields an event carried. */
enum {
	VMT_EVF_VCPU = 1 << 0,
	VMT_EVF_REASON = 1 << 1,
	VMT_EVF_ISA = 1 << 2,
	VMT_EVF_RIP = 1 << 3,
	VMT_EVF_INFO1 = 1 << 4,
	VMT_EVF_INFO2 = 1 << 5,
	VMT_EVF_INTR_INFO = 1 << 6,
	VMT_EVF_ERROR_CODE = 1 << 7,
	/*
	 * A record's detail, which only dumps, rows and timelines show; a pass whose views
	 * never look at an entry's detail decodes entries without it (vmt_evside.detail)
	 */
	VMT_EVF_DETAIL = VMT_EVF_RIP | VMT_EVF_INFO1 | VMT_EVF_INFO2 | VMT_EVF_INTR_INFO |
			 VMT_EVF_ERROR_CODE,
};

struct vmt_event {
	uint64_t ts;		/* trace clock units */
	uint32_t cpu;
	int32_t pid;
	uint8_t kind;		/* enum vmt_event_kind */
	uint8_t flags;		/* common_flags of the record */
	uint16_t has;		/* VMT_EVF_* */
	uint32_t vcpu;
	uint32_t isa;		/* kvm_exit: 1 VMX, 2 SVM */
	uint64_t reason;	/* exit_reason (or esr_ec on arm64, or the syscall id) */
	uint64_t rip;
	uint64_t info1, info2;
	uint32_t intr_info, error_code;
};

/* Where one field lives in a record; size 0 when the layout lacks it. */
struct vmt_fieldloc {
	uint16_t offset;
	uint16_t size;
};

struct vmt_evside {
	uint32_t id;
	struct vmt_fieldloc vcpu, reason, isa, rip, info1, info2, intr_info, error_code;
	/*
	 * The fast path: when every field the layout has is of the usual size (32-bit
	 * vcpu, reason, isa, intr_info, error_code; 64-bit rip, info1, info2) and the
	 * record holds min_len bytes, fields load without per-field checks.
	 */
	uint16_t has;		/* VMT_EVF_* of the fields the layout has */
	uint16_t min_len;
	bool usual;
	uint8_t kind;		/* enum vmt_event_kind of this side */
	/*
	 * Whether the fast path reads rip, info1, info2, intr_info and error_code (true
	 * after vmt_evbind_init). A pass whose consumers never look at an entry's clears it
	 * in its own copy for the end side: five loads fewer per entry.
	 */
	bool detail;
	uint32_t fast_len;	/* min_len when usual, else more than any record: one test */
	/*
	 * The fast path without a branch per field: every field loads from off[] and is
	 * masked with mask[] (0 for a field the layout lacks, read at offset 0), in the
	 * order vcpu, reason, isa, rip, info1, info2, intr_info, error_code, then
	 * common_flags. min_len covers all of them.
	 */
	uint16_t off[9];
	uint64_t mask[9];
};

/*
 * Whether a pair whose begin event is SYSTEM:EVENT is KVM's (kvm:kvm_exit, or another kvm
 * event as the begin): what is shown then speaks of exits, entries and vCPUs; any other
 * pair's outputs speak of begins, ends and pairs. One test for every program.
 */
static inline bool vmt_evpair_is_kvm(const char *begin_name)
{
	return begin_name && strncmp(begin_name, "kvm:", 4) == 0;
}

struct vmt_evbind {
	struct vmt_fieldloc common_type, common_pid, common_flags;
	uint32_t common_len;	/* a record shorter than this cannot hold the common header */
	struct vmt_evside begin, end;
};

/*
 * Bind the two formats. Returns 0, or -EINVAL when common_type/common_pid are missing or
 * unusable, or both events have the same id.
 */
int vmt_evbind_init(struct vmt_evbind *b, const struct vmt_evformat *begin,
		    const struct vmt_evformat *end);

/*
 * Decode one record. Returns 1 (a begin or end event, *ev filled), 0 (another event: the
 * caller skips it), or -EBADMSG (too short to hold the common header).
 */
int vmt_evbind_decode(const struct vmt_evbind *b, const struct vmt_rbrecord *rec, uint32_t cpu,
		      struct vmt_event *ev);

/*
 * The same, with the fast path (a begin or end event of the usual layout) inline, for the
 * pass's loop that decodes every record: a call and its register saves cost as much as the
 * loads. Another event returns 0 here; anything else goes to vmt_evbind_decode(). One
 * difference: on a side whose detail is off, the fast path clears the detail and its has
 * bits, while vmt_evbind_decode() (unusual layouts, short records) still fills them.
 */
static inline __attribute__((always_inline)) int
vmt_evbind_decode_inline(const struct vmt_evbind *b, const struct vmt_rbrecord *rec, uint32_t cpu,
			 struct vmt_event *ev)
{
	const struct vmt_evside *s;
	const uint8_t *d = rec->data;
	uint16_t id;

	if (rec->len < b->common_len)
		return vmt_evbind_decode(b, rec, cpu, ev);
	id = get_le16(d + b->common_type.offset);
	s = id == b->begin.id ? &b->begin : id == b->end.id ? &b->end : NULL;
	/* another event (a context event): what vmt_evbind_decode() says, without the call */
	if (!s)
		return 0;
	if (rec->len < s->fast_len)
		return vmt_evbind_decode(b, rec, cpu, ev);
	ev->kind = s->kind;
	ev->ts = rec->ts;
	ev->cpu = cpu;
	ev->pid = (int32_t)get_le32(d + b->common_pid.offset);
	ev->vcpu = get_le32(d + s->off[0]) & (uint32_t)s->mask[0];
	ev->reason = get_le32(d + s->off[1]) & (uint32_t)s->mask[1];
	ev->isa = get_le32(d + s->off[2]) & (uint32_t)s->mask[2];
	ev->flags = d[s->off[8]] & (uint8_t)s->mask[8];
	if (s->detail) {
		ev->has = s->has;
		ev->rip = get_le64(d + s->off[3]) & s->mask[3];
		ev->info1 = get_le64(d + s->off[4]) & s->mask[4];
		ev->info2 = get_le64(d + s->off[5]) & s->mask[5];
		ev->intr_info = get_le32(d + s->off[6]) & (uint32_t)s->mask[6];
		ev->error_code = get_le32(d + s->off[7]) & (uint32_t)s->mask[7];
	} else {
		ev->has = s->has & ~VMT_EVF_DETAIL;
		ev->rip = ev->info1 = ev->info2 = 0;
		ev->intr_info = ev->error_code = 0;
	}
	return 1;
}

#endif
