// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The loader of the original vm-trace's trace.bin (legacyfmt.h). Its header only names the
 * two event ids, so the metadata is made here at open: the formats come from (in order) a
 * directory laid out like tracefs's events/ (--format-dir), this host's tracefs when its
 * ids match the header's, or the original tool's own target layout (a 2015 PREEMPT_RT
 * kernel, exit_reason at 16). A layout that was guessed (not given) is tried on the first
 * events and refused when they do not decode with it. The pages are presented in runs of
 * 256 (1 MiB) as chunks stored as they are, each with its first page's time, so that times
 * count from the first page as in a .vmt.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes.h"
#include "chunk.h"
#include "evformat.h"
#include "exitreason.h"
#include "io.h"
#include "kv.h"
#include "kvmevent.h"
#include "legacyfmt.h"
#include "metakeys.h"
#include "source_impl.h"

#define PAGES_PER_CHUNK 256
/* How many events of the file's start judge a guessed layout. */
#define SAMPLE_EVENTS 4096
/* KVM_MAX_VCPU_IDS on x86 (4096 vCPUs, 4 ids each): a larger vcpu_id is some other field. */
#define MAX_VCPU_ID 16384
/* Tasks followed for the exit/entry alternation (more are not followed). */
#define SAMPLE_TASKS 64

/* The sub-buffer header of 64-bit kernels with 4 KiB pages: what the original tool assumed. */
static const char header_page_4k[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

/*
 * The original tool's target, a 2015-era PREEMPT_RT kernel: its common header has 8 more
 * bytes than today's (common_migrate_disable and padding), putting exit_reason at 16
 * (tests/data/formats/rt-2015-x86_64 holds the same layout).
 */
static const char rt2015_exit[] =
	"name: kvm_exit\nID: %u\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned short common_migrate_disable;\toffset:8;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned short common_padding;\toffset:10;\tsize:2;\tsigned:0;\n\n"
	"\tfield:unsigned int exit_reason;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 isa;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 info1;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 info2;\toffset:48;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"reason %%s rip 0x%%lx info %%llx %%llx\", REC->exit_reason\n";
static const char rt2015_entry[] =
	"name: kvm_entry\nID: %u\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned short common_migrate_disable;\toffset:8;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned short common_padding;\toffset:10;\tsize:2;\tsigned:0;\n\n"
	"\tfield:unsigned int vcpu_id;\toffset:16;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vcpu %%u\", REC->vcpu_id\n";

/* The two event ids of the file's header. */
struct ids {
	uint16_t entry, exit;
};

static bool legacy_probe(const uint8_t *head, size_t n)
{
	return n >= VMT_LEGACY_HEADER_SIZE && get_le32(head) == VMT_LEGACY_SIGNATURE;
}

/* Where the formats came from, for the report; a long path is cut. */
static void describe(struct vmt_source *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void describe(struct vmt_source *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->description, sizeof(s->description), fmt, ap);
	va_end(ap);
}

/*
 * Read DIR/kvm/kvm_exit/format and kvm_entry's; 1 when both ids match the header's. path
 * is left naming the file that could not be read or parsed, for the message.
 */
static int load_dir(const char *dir, const struct ids *ids, char **fx, size_t *lx, char **fe,
		    size_t *le, char path[static 4096])
{
	struct vmt_evformat *a = NULL, *b = NULL;
	int ret;

	snprintf(path, 4096, "%s/kvm/kvm_exit/format", dir);
	ret = vmt_io_read_file(path, 1u << 20, fx, lx);
	if (ret)
		return ret;
	if (vmt_evformat_parse(*fx, *lx, "kvm", &a, NULL)) {
		free(*fx);
		return -EBADMSG;
	}
	snprintf(path, 4096, "%s/kvm/kvm_entry/format", dir);
	ret = vmt_io_read_file(path, 1u << 20, fe, le);
	if (ret) {
		vmt_evformat_free(a);
		free(*fx);
		return ret;
	}
	ret = vmt_evformat_parse(*fe, *le, "kvm", &b, NULL) ? -EBADMSG :
	      a->id == ids->exit && b->id == ids->entry;
	vmt_evformat_free(a);
	vmt_evformat_free(b);
	if (ret != 1) {
		free(*fx);
		free(*fe);
	}
	return ret;
}

/*
 * Why --format-dir gave no formats, naming the directory (and the file, when the directory
 * is there): missing, not a directory, unreadable, or not a format; ret is load_dir()'s.
 */
static void format_dir_why(const char *dir, const char *file, int ret, char *why,
			   size_t why_size)
{
	struct stat st;

	if (ret == 0)
		snprintf(why, why_size, "--format-dir %s: its event ids differ from the "
			 "trace.bin header's", dir);
	else if (stat(dir, &st) < 0)
		snprintf(why, why_size, "--format-dir %s: %s", dir,
			 errno == ENOENT ? "no such directory" : strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		snprintf(why, why_size, "--format-dir %s: not a directory", dir);
	else if (ret == -EBADMSG)
		snprintf(why, why_size, "--format-dir %s: %s is not an event format", dir, file);
	else
		snprintf(why, why_size, "--format-dir %s: cannot read %s: %s", dir, file,
			 strerror(-ret));
}

/* The metadata keys the reader needs; s->description says where the formats came from. */
static int build_meta(struct vmt_source *s, const struct ids *ids, const char *format_dir,
		      char *why, size_t why_size)
{
	char *fx = NULL, *fe = NULL, *hp = NULL, path[4096], bad[4096];
	size_t lx = 0, le = 0, lh = 0;
	const char *tracefs = getenv("VMTRACE_TRACEFS");
	struct vmt_kvbuf *kb = &s->meta;
	int ret;

	if (format_dir) {
		ret = load_dir(format_dir, ids, &fx, &lx, &fe, &le, path);
		if (ret != 1) {
			format_dir_why(format_dir, path, ret, why, why_size);
			return -EINVAL;
		}
		snprintf(path, sizeof(path), "%s/header_page", format_dir);
		if (vmt_io_read_file(path, 1u << 20, &hp, &lh))
			hp = NULL;
		describe(s, "formats from %s", format_dir);
	} else {
		snprintf(path, sizeof(path), "%s/events", tracefs && *tracefs ? tracefs :
			 "/sys/kernel/tracing");
		if (load_dir(path, ids, &fx, &lx, &fe, &le, bad) == 1) {
			describe(s, "formats from this host's %s (the ids match)", path);
		} else {
			/* the original tool's own layout, ids from the header */
			int n;

			fx = malloc(sizeof(rt2015_exit) + 16);
			fe = malloc(sizeof(rt2015_entry) + 16);
			if (!fx || !fe) {
				free(fx);
				free(fe);
				return -ENOMEM;
			}
			n = snprintf(fx, sizeof(rt2015_exit) + 16, rt2015_exit, ids->exit);
			lx = n > 0 ? (size_t)n : 0;
			n = snprintf(fe, sizeof(rt2015_entry) + 16, rt2015_entry, ids->entry);
			le = n > 0 ? (size_t)n : 0;
			describe(s, "the original tool's layout (2015 PREEMPT_RT; give "
				 "--format-dir for another kernel)");
		}
	}
	vmt_kv_add_str(kb, VMT_META_EVENT_BEGIN, "kvm:kvm_exit");
	vmt_kv_add_str(kb, VMT_META_EVENT_END, "kvm:kvm_entry");
	vmt_kv_add(kb, VMT_META_FORMAT_BEGIN, fx, lx);
	vmt_kv_add(kb, VMT_META_FORMAT_END, fe, le);
	if (hp)
		vmt_kv_add(kb, VMT_META_HEADER_PAGE, hp, lh);
	else
		vmt_kv_add_str(kb, VMT_META_HEADER_PAGE, header_page_4k);
	/* the original tool used the instance's default clock */
	vmt_kv_add_str(kb, VMT_META_CLOCK, "local");
	vmt_kv_add_str(kb, VMT_META_ENDIAN, "little");
	free(fx);
	free(fe);
	free(hp);
	return kb->error;
}

/* The header_page layout the metadata names (always present: build_meta() puts it there). */
static int meta_header_page(const struct vmt_source *s, struct vmt_header_page *hp)
{
	const uint8_t *text;
	uint32_t len;

	text = vmt_kv_get(s->meta.buf, s->meta.len, VMT_META_HEADER_PAGE, &len);
	return text && !vmt_header_page_parse((const char *)text, len, hp) ? 0 : -EBADMSG;
}

/*
 * Each chunk's first_ts from its first page's header, as a .vmt's chunks carry it: the
 * reader's time 0 (the earliest page) is then the same for the same pages in any format.
 * An empty page (commit 0) says nothing: that chunk's time stays unknown.
 */
static int chunk_times(struct vmt_source *s)
{
	struct vmt_header_page hp;
	size_t i;

	if (meta_header_page(s, &hp) || hp.ts_offset + 8 > VMT_LEGACY_PAGE_SIZE ||
	    hp.commit_offset + hp.commit_size > VMT_LEGACY_PAGE_SIZE)
		return -EBADMSG;
	for (i = 0; i < s->nchunks; i++) {
		struct vmt_chunk_info *ci = &s->chunks[i];
		uint8_t head[64];
		uint32_t n = hp.commit_offset + hp.commit_size;
		uint64_t commit;

		if (n < hp.ts_offset + 8)
			n = hp.ts_offset + 8;
		ci->first_ts = UINT64_MAX;
		if (n > sizeof(head) || vmt_io_pread_full(s->fd, head, n, (off_t)ci->offset) != n)
			continue;
		commit = hp.commit_size == 8 ? get_le64(head + hp.commit_offset) :
					       get_le32(head + hp.commit_offset);
		if (commit & VMT_RB_COMMIT_MASK)
			ci->first_ts = get_le64(head + hp.ts_offset);
	}
	return 0;
}

/* What the first events look like under a layout: the counts check_layout() judges. */
struct sample {
	unsigned int events, exits, bad_isa, unknown_reason, with_vcpu, wild_vcpu;
	unsigned int out_of_turn;	/* an exit after an exit, an entry after an entry */
	unsigned int ntasks;
	int32_t task[SAMPLE_TASKS];
	uint8_t last[SAMPLE_TASKS];	/* the kind of the task's latest event */
};

static void sample_event(struct sample *sm, const struct vmt_event *ev,
			 const struct vmt_exitreasons *names)
{
	unsigned int i;

	sm->events++;
	if (ev->has & VMT_EVF_VCPU) {
		sm->with_vcpu++;
		sm->wild_vcpu += ev->vcpu >= MAX_VCPU_ID;
	}
	if (ev->kind == VMT_EV_BEGIN) {
		uint32_t isa = VMT_ISA_ANY;

		sm->exits++;
		/* the kernel writes 1 or 2, never 0 */
		if ((ev->has & VMT_EVF_ISA) && ev->isa != VMT_ISA_VMX && ev->isa != VMT_ISA_SVM)
			sm->bad_isa++;
		else if (ev->has & VMT_EVF_ISA)
			isa = ev->isa;
		if ((ev->has & VMT_EVF_REASON) &&
		    !vmt_exitreason_name(names, isa, vmt_exitreason_key(isa, ev->reason)))
			sm->unknown_reason++;
	}
	for (i = 0; i < sm->ntasks && sm->task[i] != ev->pid; i++)
		;
	if (i == sm->ntasks) {
		if (i == SAMPLE_TASKS)
			return;
		sm->task[sm->ntasks++] = ev->pid;
	} else if (sm->last[i] == ev->kind) {
		sm->out_of_turn++;
	}
	sm->last[i] = ev->kind;
}

/* Decode the start of the first chunk with the metadata's formats. */
static int take_sample(const struct vmt_source *s, struct sample *sm)
{
	const uint8_t *fx, *fe, *hp_text;
	struct vmt_evformat *begin = NULL, *end = NULL;
	struct vmt_exitreasons *names = NULL;
	struct vmt_chunkbuf cb = { 0 };
	struct vmt_header_page hp;
	struct vmt_evbind bind;
	uint32_t lx, le, lh, p;
	int ret = -EBADMSG;

	memset(sm, 0, sizeof(*sm));
	fx = vmt_kv_get(s->meta.buf, s->meta.len, VMT_META_FORMAT_BEGIN, &lx);
	fe = vmt_kv_get(s->meta.buf, s->meta.len, VMT_META_FORMAT_END, &le);
	hp_text = vmt_kv_get(s->meta.buf, s->meta.len, VMT_META_HEADER_PAGE, &lh);
	if (!fx || !fe || !hp_text || vmt_header_page_parse((const char *)hp_text, lh, &hp) ||
	    vmt_evformat_parse((const char *)fx, lx, "kvm", &begin, NULL) ||
	    vmt_evformat_parse((const char *)fe, le, "kvm", &end, NULL) ||
	    vmt_evbind_init(&bind, begin, end))
		goto out;
	ret = vmt_exitreasons_new(begin, NULL, &names);
	if (ret || !s->nchunks)
		goto out;
	ret = vmt_source_read_stored(s, 0, &cb, &(const char *){ NULL });
	for (p = 0; !ret && p < s->chunks[0].page_count && sm->events < SAMPLE_EVENTS; p++) {
		struct vmt_rbpage pg;
		struct vmt_rbrecord rec;
		struct vmt_event ev;

		if (vmt_rbpage_init(&pg, &hp, cb.raw + (size_t)p * VMT_LEGACY_PAGE_SIZE,
				    VMT_LEGACY_PAGE_SIZE))
			continue;
		while (sm->events < SAMPLE_EVENTS && vmt_rbpage_next(&pg, &rec) == 1) {
			if (vmt_evbind_decode(&bind, &rec, 0, &ev) == 1)
				sample_event(sm, &ev, names);
		}
	}
out:
	vmt_chunkbuf_free(&cb);
	vmt_exitreasons_free(names);
	vmt_evformat_free(begin);
	vmt_evformat_free(end);
	return ret;
}

/*
 * A layout that was guessed (the 2015 one, or this host's because the ids match) decodes
 * any bytes, so it is tried on the file's first events: with the wrong one, guest RIPs
 * become exit reasons and vCPU ids. Most of the sample must look like KVM exits and entries
 * (an isa of 1 or 2, reasons the tables know, vCPU ids below KVM's limit, exits and entries
 * taking turns per task); a few odd ones are allowed (a reason newer than the tables).
 */
static int check_layout(struct vmt_source *s, char *why, size_t why_size)
{
	const char *layout = strstr(s->description, "this host") ? "this host's" :
			     "the original tool's 2015";
	struct sample sm;
	char what[128];
	int ret = take_sample(s, &sm);

	if (ret == -ENOMEM)
		return ret;
	if (ret)	/* nothing to judge by (no formats the reader could use either) */
		return 0;
	what[0] = '\0';
	if (sm.bad_isa * 2 > sm.exits)
		snprintf(what, sizeof(what), "%u of %u exits have an isa other than 1 or 2",
			 sm.bad_isa, sm.exits);
	else if (sm.unknown_reason * 2 > sm.exits)
		snprintf(what, sizeof(what), "%u of %u exit reasons are in no table",
			 sm.unknown_reason, sm.exits);
	else if (sm.wild_vcpu * 2 > sm.with_vcpu)
		snprintf(what, sizeof(what), "%u of %u vCPU ids are above %u", sm.wild_vcpu,
			 sm.with_vcpu, MAX_VCPU_ID);
	else if (sm.events >= 4 && sm.out_of_turn * 2 > sm.events)
		snprintf(what, sizeof(what), "%u of %u events do not take turns per task",
			 sm.out_of_turn, sm.events);
	if (!what[0])
		return 0;
	snprintf(why, why_size, "the events do not decode with %s layout (%s); give --format-dir "
		 "DIR, a copy of the recording host's tracefs events/", layout, what);
	return -EBADMSG;
}

static int legacy_open(struct vmt_source *s, const struct vmt_input_opts *opts, char *why,
		       size_t why_size)
{
	struct vmt_source_status *st = &s->status;
	uint64_t pages = (st->file_size - VMT_LEGACY_HEADER_SIZE) / VMT_LEGACY_PAGE_SIZE, p;
	uint8_t fh[VMT_LEGACY_HEADER_SIZE];
	struct ids ids;
	ssize_t n;
	int ret;

	s->order = VMT_ORDER_FIRST_TS;
	n = vmt_io_pread_full(s->fd, fh, sizeof(fh), 0);
	if (n != (ssize_t)sizeof(fh))
		return n < 0 ? (int)n : -EIO;
	ids.entry = get_le16(fh + 4);
	ids.exit = get_le16(fh + 6);
	if (ids.entry == ids.exit) {
		snprintf(why, why_size, "trace.bin header names the same event twice");
		return -EBADMSG;
	}
	for (p = 0; p < pages; p += PAGES_PER_CHUNK) {
		struct vmt_chunk_info ci = { 0 };
		uint32_t npages = pages - p < PAGES_PER_CHUNK ? (uint32_t)(pages - p) :
							        PAGES_PER_CHUNK;

		/* the pages do not name their CPU (one CPU, 0); chunk_times() adds the times */
		ci.offset = VMT_LEGACY_HEADER_SIZE + p * VMT_LEGACY_PAGE_SIZE;
		ci.page_count = npages;
		ci.page_size = VMT_LEGACY_PAGE_SIZE;
		ci.raw_size = ci.payload_size = (uint64_t)npages * VMT_LEGACY_PAGE_SIZE;
		if (vmt_source_push_chunk(s, &ci))
			return -ENOMEM;
	}
	/* the original tool stopped by closing the file: whole pages are a whole file */
	st->finished = (st->file_size - VMT_LEGACY_HEADER_SIZE) % VMT_LEGACY_PAGE_SIZE == 0;
	if (!st->finished) {
		st->truncated_at = VMT_LEGACY_HEADER_SIZE + pages * VMT_LEGACY_PAGE_SIZE;
		st->trunc_why = "trace.bin ends inside a page";
	}
	ret = build_meta(s, &ids, opts->format_dir, why, why_size);
	if (ret)
		return ret;
	ret = chunk_times(s);
	if (ret || opts->format_dir)
		return ret;
	/* a layout given with --format-dir is the user's word; a guessed one is tried */
	return check_layout(s, why, why_size);
}

const struct vmt_source_ops vmt_source_legacy_ops = {
	.name = "trace.bin",
	.what = "a trace.bin",
	.magic = "\x01\x6d\xe9\xcc",	/* VMT_LEGACY_SIGNATURE, little-endian */
	.magic_len = 4,
	.no_pair = "--pair does not apply: a trace.bin holds kvm_exit and kvm_entry",
	.probe = legacy_probe,
	.open = legacy_open,
	.read_chunk = vmt_source_read_stored,
	.close = NULL,
};
