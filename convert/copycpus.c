// SPDX-License-Identifier: GPL-2.0-or-later
/* The CPUs of vmtrace-convert's copies of whole chunks (copycpus.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "copycpus.h"
#include "legacyfmt.h"
#include "log.h"
#include "metakeys.h"

void convert_chunk_cpus(const struct vmt_source *src, struct vmt_iter_ids *cpus)
{
	size_t i;

	memset(cpus, 0, sizeof(*cpus));
	for (i = 0; i < vmt_source_nchunks(src); i++) {
		uint32_t cpu = vmt_source_chunk(src, i)->cpu;

		if (cpu < VMT_ITER_IDS)
			cpus->bits[cpu / 64] |= 1ULL << (cpu % 64);
		else
			cpus->beyond++;
	}
}

/* The CPUs a recording has: those it traced (its metadata), and those with chunks. */
static void recording_cpus(const struct vmt_reader *r, struct vmt_iter_ids *have)
{
	struct vmt_cpulist traced = { 0 };
	char *text = vmt_reader_meta(r, VMT_META_CPUS);
	unsigned int i;

	convert_chunk_cpus(vmt_reader_source(r), have);
	if (text && vmt_cli_parse_cpulist(text, &traced) == 0) {
		for (i = 0; i < traced.n; i++) {
			if (traced.cpu[i] < VMT_ITER_IDS)
				have->bits[traced.cpu[i] / 64] |= 1ULL << (traced.cpu[i] % 64);
		}
	}
	vmt_cpulist_free(&traced);
	free(text);
}

int convert_check_cpus(const struct convert_opts *o, const struct vmt_reader *r)
{
	const struct vmt_cpulist *asked = &o->fo.filter.cpus;
	struct vmt_iter_ids have;
	char a[256], b[256];
	unsigned int i;

	if (!asked->n || (o->format != CONVERT_VMT && o->format != CONVERT_LEGACY))
		return 0;
	recording_cpus(r, &have);
	for (i = 0; i < asked->n; i++) {
		/* CPUs past the bitmap are not told apart: one of them may be it */
		if (asked->cpu[i] >= VMT_ITER_IDS ? have.beyond != 0 :
		    vmt_iter_ids_has(&have, asked->cpu[i]))
			return 0;
	}
	vmt_err("%s: no CPU%s %s in the recording: it has CPU%s %s (--cpu chooses among them)",
		o->input, asked->n > 1 ? "s" : "", vmt_cpulist_format(asked, a, sizeof(a)),
		vmt_iter_ids_count(&have) == 1 ? "" : "s",
		vmt_iter_ids_count(&have) ? vmt_iter_ids_format(&have, b, sizeof(b)) : "none");
	return -EINVAL;
}

int convert_legacy_cpu(const struct convert_opts *o, const struct vmt_reader *r, uint32_t *cpu)
{
	const struct vmt_header_page *hp = vmt_reader_header_page(r);
	const struct vmt_source *src = vmt_reader_source(r);
	const struct vmt_filter *f = &o->fo.filter;	/* convertopt.c: one CPU at most */
	size_t i, n = vmt_source_nchunks(src);
	bool several = false;

	/*
	 * The original tool, and a trace.bin's reader, know its two ids as these events only.
	 * What to do instead depends on the input: a .vmt is read as it is, another file
	 * (a trace.dat) becomes one with --to-vmt.
	 */
	if (strcmp(vmt_reader_begin_name(r), "kvm:kvm_exit") ||
	    strcmp(vmt_reader_end_name(r), "kvm:kvm_entry")) {
		vmt_err("%s: a trace.bin holds kvm_exit/kvm_entry pairs only, not %s/%s%s", o->input,
			vmt_reader_begin_name(r), vmt_reader_end_name(r),
			strcmp(vmt_source_format(src), "vmt") == 0 ?
			" (vmtrace-report reads this .vmt as it is)" : ": use --to-vmt for a .vmt");
		return -EINVAL;
	}
	if (vmt_header_page_subbuf_size(hp) != VMT_LEGACY_PAGE_SIZE || hp->commit_size != 8) {
		vmt_err("%s: the original trace.bin holds 64-bit 4 KiB sub-buffers only", o->input);
		return -EINVAL;
	}
	for (i = 1; i < n; i++) {
		if (vmt_source_chunk(src, i)->cpu != vmt_source_chunk(src, 0)->cpu)
			several = true;
	}
	if (f->cpus.n) {
		*cpu = f->cpus.cpu[0];
	} else if (several) {
		vmt_err("%s: the recording has several CPUs and trace.bin holds one: choose with "
			"--cpu", o->input);
		return -EINVAL;
	} else {
		*cpu = n ? vmt_source_chunk(src, 0)->cpu : 0;
	}
	return 0;
}

void convert_say_copied(const struct convert_opts *o, const struct vmt_source *src,
			const struct vmt_cpulist *asked, size_t copied)
{
	struct vmt_iter_ids have;
	char a[256], b[256];
	unsigned int i;

	if (copied || !asked->n)
		return;
	convert_chunk_cpus(src, &have);
	for (i = 0; i < asked->n; i++) {
		/* chunks there, none copied: all damaged, which the input's warnings say */
		if (asked->cpu[i] >= VMT_ITER_IDS ? have.beyond != 0 :
		    vmt_iter_ids_has(&have, asked->cpu[i]))
			return;
	}
	vmt_info("%s: nothing selected: no data on CPU%s %s; the recording has data on CPU%s %s",
		 o->input, asked->n > 1 ? "s" : "", vmt_cpulist_format(asked, a, sizeof(a)),
		 vmt_iter_ids_count(&have) == 1 ? "" : "s",
		 vmt_iter_ids_format(&have, b, sizeof(b)));
}
