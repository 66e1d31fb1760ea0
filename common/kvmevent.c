// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <string.h>

#include "bytes.h"
#include "kvmevent.h"

/* The first field of names that the layout has, as an integer of 1..8 bytes. */
static struct vmt_fieldloc find(const struct vmt_evformat *fmt, const char *const *names)
{
	struct vmt_fieldloc loc = { 0, 0 };

	for (; *names; names++) {
		const struct vmt_evfield *f = vmt_evformat_field(fmt, *names);

		if (f && !f->is_array && (f->size == 1 || f->size == 2 || f->size == 4 ||
					  f->size == 8)) {
			loc.offset = (uint16_t)f->offset;
			loc.size = (uint16_t)f->size;
			break;
		}
	}
	return loc;
}

static void bind_side(struct vmt_evside *s, const struct vmt_evformat *fmt)
{
	static const char *const vcpu[] = { "vcpu_id", NULL };
	/* exit_reason (x86), esr_ec (arm64 exception class), id (raw_syscalls). */
	static const char *const reason[] = { "exit_reason", "esr_ec", "id", NULL };
	static const char *const isa[] = { "isa", NULL };
	static const char *const rip[] = { "guest_rip", "rip", "vcpu_pc", NULL };
	static const char *const info1[] = { "info1", NULL };
	static const char *const info2[] = { "info2", NULL };
	static const char *const intr_info[] = { "intr_info", NULL };
	static const char *const error_code[] = { "error_code", NULL };

	s->id = fmt->id;
	s->vcpu = find(fmt, vcpu);
	s->reason = find(fmt, reason);
	s->isa = find(fmt, isa);
	s->rip = find(fmt, rip);
	s->info1 = find(fmt, info1);
	s->info2 = find(fmt, info2);
	s->intr_info = find(fmt, intr_info);
	s->error_code = find(fmt, error_code);
	{
		const struct { struct vmt_fieldloc loc; uint16_t bit, size; } f[] = {
			{ s->vcpu, VMT_EVF_VCPU, 4 }, { s->reason, VMT_EVF_REASON, 4 },
			{ s->isa, VMT_EVF_ISA, 4 }, { s->rip, VMT_EVF_RIP, 8 },
			{ s->info1, VMT_EVF_INFO1, 8 }, { s->info2, VMT_EVF_INFO2, 8 },
			{ s->intr_info, VMT_EVF_INTR_INFO, 4 },
			{ s->error_code, VMT_EVF_ERROR_CODE, 4 },
		};
		unsigned int i;

		s->has = 0;
		s->min_len = 0;
		s->usual = true;
		for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			if (!f[i].loc.size)
				continue;
			s->has |= f[i].bit;
			if (f[i].loc.size != f[i].size)
				s->usual = false;
			if (f[i].loc.offset + f[i].loc.size > s->min_len)
				s->min_len = (uint16_t)(f[i].loc.offset + f[i].loc.size);
		}
		for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			s->off[i] = f[i].loc.size ? f[i].loc.offset : 0;
			s->mask[i] = !f[i].loc.size ? 0 : f[i].size == 8 ? UINT64_MAX : UINT32_MAX;
		}
	}
}

/* common_flags for the fast path: a byte, or nothing; absent fields read offset 0. */
static void bind_flags(struct vmt_evside *s, struct vmt_fieldloc flags)
{
	s->off[8] = flags.size == 1 ? flags.offset : 0;
	s->mask[8] = flags.size == 1 ? 0xff : 0;
	if (flags.size && flags.size != 1)
		s->usual = false;
	if (flags.size == 1 && flags.offset + 1 > s->min_len)
		s->min_len = (uint16_t)(flags.offset + 1);
	/* every field loads 8 bytes at most from offset 0 when absent */
	if (s->min_len < 8)
		s->min_len = 8;
}

int vmt_evbind_init(struct vmt_evbind *b, const struct vmt_evformat *begin,
		    const struct vmt_evformat *end)
{
	static const char *const type[] = { "common_type", NULL };
	static const char *const pid[] = { "common_pid", NULL };
	static const char *const flags[] = { "common_flags", NULL };
	struct vmt_fieldloc t2;

	memset(b, 0, sizeof(*b));
	if (begin->id == end->id)
		return -EINVAL;
	b->common_type = find(begin, type);
	b->common_pid = find(begin, pid);
	b->common_flags = find(begin, flags);
	t2 = find(end, type);
	/* Both events share the common header; refuse layouts that disagree on it. */
	if (b->common_type.size != 2 || b->common_pid.size != 4 ||
	    t2.offset != b->common_type.offset || t2.size != b->common_type.size)
		return -EINVAL;
	b->common_len = b->common_pid.offset + 4 > b->common_type.offset + 2 ?
			b->common_pid.offset + 4 : b->common_type.offset + 2;
	bind_side(&b->begin, begin);
	bind_side(&b->end, end);
	bind_flags(&b->begin, b->common_flags);
	bind_flags(&b->end, b->common_flags);
	b->begin.detail = b->end.detail = true;
	b->begin.kind = VMT_EV_BEGIN;
	b->end.kind = VMT_EV_END;
	b->begin.fast_len = b->begin.usual ? b->begin.min_len : UINT32_MAX;
	b->end.fast_len = b->end.usual ? b->end.min_len : UINT32_MAX;
	return 0;
}

static inline int get(const struct vmt_rbrecord *rec, struct vmt_fieldloc loc, uint64_t *out)
{
	if (!loc.size || (uint32_t)loc.offset + loc.size > rec->len)
		return 0;
	*out = get_le_n(rec->data + loc.offset, loc.size);
	return 1;
}

int vmt_evbind_decode(const struct vmt_evbind *b, const struct vmt_rbrecord *rec, uint32_t cpu,
		      struct vmt_event *ev)
{
	const struct vmt_evside *s;
	uint64_t v = 0;
	uint32_t id;

	if ((uint32_t)b->common_pid.offset + 4 > rec->len ||
	    (uint32_t)b->common_type.offset + 2 > rec->len)
		return -EBADMSG;
	id = get_le16(rec->data + b->common_type.offset);
	if (id == b->begin.id) {
		s = &b->begin;
		ev->kind = VMT_EV_BEGIN;
	} else if (id == b->end.id) {
		s = &b->end;
		ev->kind = VMT_EV_END;
	} else {
		return 0;
	}
	ev->ts = rec->ts;
	ev->cpu = cpu;
	ev->pid = (int32_t)get_le32(rec->data + b->common_pid.offset);
	if (s->usual && rec->len >= s->min_len) {
		/* every field in bounds and of its usual size: plain masked loads */
		const uint8_t *d = rec->data;

		ev->has = s->has;
		ev->vcpu = get_le32(d + s->off[0]) & (uint32_t)s->mask[0];
		ev->reason = get_le32(d + s->off[1]) & (uint32_t)s->mask[1];
		ev->isa = get_le32(d + s->off[2]) & (uint32_t)s->mask[2];
		ev->rip = get_le64(d + s->off[3]) & s->mask[3];
		ev->info1 = get_le64(d + s->off[4]) & s->mask[4];
		ev->info2 = get_le64(d + s->off[5]) & s->mask[5];
		ev->intr_info = get_le32(d + s->off[6]) & (uint32_t)s->mask[6];
		ev->error_code = get_le32(d + s->off[7]) & (uint32_t)s->mask[7];
		ev->flags = d[s->off[8]] & (uint8_t)s->mask[8];
		return 1;
	}
	ev->flags = get(rec, b->common_flags, &v) ? (uint8_t)v : 0;
	ev->has = 0;
	ev->vcpu = 0;
	ev->isa = 0;
	ev->reason = 0;
	ev->rip = ev->info1 = ev->info2 = 0;
	ev->intr_info = ev->error_code = 0;
	if (get(rec, s->vcpu, &v)) {
		ev->vcpu = (uint32_t)v;
		ev->has |= VMT_EVF_VCPU;
	}
	if (get(rec, s->reason, &ev->reason))
		ev->has |= VMT_EVF_REASON;
	if (get(rec, s->isa, &v)) {
		ev->isa = (uint32_t)v;
		ev->has |= VMT_EVF_ISA;
	}
	if (get(rec, s->rip, &ev->rip))
		ev->has |= VMT_EVF_RIP;
	if (get(rec, s->info1, &ev->info1))
		ev->has |= VMT_EVF_INFO1;
	if (get(rec, s->info2, &ev->info2))
		ev->has |= VMT_EVF_INFO2;
	if (get(rec, s->intr_info, &v)) {
		ev->intr_info = (uint32_t)v;
		ev->has |= VMT_EVF_INTR_INFO;
	}
	if (get(rec, s->error_code, &v)) {
		ev->error_code = (uint32_t)v;
		ev->has |= VMT_EVF_ERROR_CODE;
	}
	return 1;
}
