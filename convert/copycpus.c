// SPDX-License-Identifier: GPL-2.0-or-later
/* The CPUs of vmtrace-convert's copies of whole chunks (copycpus.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "copycpus.h"
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

void convert_say_copied(const struct convert_opts *o, const struct vmt_source *src,
			const struct vmt_cpulist *asked, size_t copied)
{
	struct vmt_iter_ids have;
	char a[256], b[256];

	if (copied || !asked->n)
		return;
	convert_chunk_cpus(src, &have);
	vmt_info("%s: nothing selected: no data on CPU%s %s; the recording has data on CPU%s %s",
		 o->input, asked->n > 1 ? "s" : "", vmt_cpulist_format(asked, a, sizeof(a)),
		 vmt_iter_ids_count(&have) == 1 ? "" : "s",
		 vmt_iter_ids_format(&have, b, sizeof(b)));
}
