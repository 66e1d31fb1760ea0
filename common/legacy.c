// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evformat.h"
#include "io.h"
#include "legacy.h"
#include "reader.h"

/* The sub-buffer header of 64-bit kernels with 4 KiB pages: what the original tool assumed. */
static const char header_page_4k[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

/* The original tool's target (FACTS.md): 8 more common bytes, exit_reason at 16. */
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

/* Read DIR/kvm/kvm_exit/format and kvm_entry's; 1 when both ids match the header's. */
static int load_dir(const char *dir, const struct vmt_container *c, char **fx, size_t *lx,
		    char **fe, size_t *le)
{
	struct vmt_evformat *a = NULL, *b = NULL;
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/kvm/kvm_exit/format", dir);
	ret = vmt_io_read_file(path, 1u << 20, fx, lx);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/kvm/kvm_entry/format", dir);
	ret = vmt_io_read_file(path, 1u << 20, fe, le);
	if (ret) {
		free(*fx);
		return ret;
	}
	ret = vmt_evformat_parse(*fx, *lx, "kvm", &a, NULL) ? -EBADMSG :
	      vmt_evformat_parse(*fe, *le, "kvm", &b, NULL) ? -EBADMSG :
	      a->id == c->legacy_exit_id && b->id == c->legacy_entry_id;
	vmt_evformat_free(a);
	vmt_evformat_free(b);
	if (ret != 1) {
		free(*fx);
		free(*fe);
	}
	return ret;
}

int vmt_legacy_meta(const struct vmt_container *c, const char *format_dir, struct vmt_kvbuf *kb,
		    char *source, size_t source_size, const char **why)
{
	char *fx = NULL, *fe = NULL, *hp = NULL, path[4096];
	size_t lx = 0, le = 0, lh = 0;
	const char *tracefs = getenv("VMTRACE_TRACEFS");
	int ret;

	if (format_dir) {
		ret = load_dir(format_dir, c, &fx, &lx, &fe, &le);
		if (ret != 1) {
			*why = ret == 0 ? "the --format-dir event ids differ from the trace.bin "
					  "header's" : "cannot read kvm/kvm_exit/format and "
					  "kvm/kvm_entry/format under --format-dir";
			return -EINVAL;
		}
		snprintf(path, sizeof(path), "%s/header_page", format_dir);
		if (vmt_io_read_file(path, 1u << 20, &hp, &lh))
			hp = NULL;
		snprintf(source, source_size, "formats from %s", format_dir);
	} else {
		snprintf(path, sizeof(path), "%s/events", tracefs && *tracefs ? tracefs :
			 "/sys/kernel/tracing");
		if (load_dir(path, c, &fx, &lx, &fe, &le) == 1) {
			snprintf(source, source_size, "formats from this host's %s (the ids match)",
				 path);
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
			n = snprintf(fx, sizeof(rt2015_exit) + 16, rt2015_exit, c->legacy_exit_id);
			lx = n > 0 ? (size_t)n : 0;
			n = snprintf(fe, sizeof(rt2015_entry) + 16, rt2015_entry, c->legacy_entry_id);
			le = n > 0 ? (size_t)n : 0;
			snprintf(source, source_size, "the original tool's layout (2015 PREEMPT_RT; "
				 "give --format-dir for another kernel)");
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
