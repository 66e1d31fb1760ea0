// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtrace-convert's copies of whole chunks (writers.h): the original tool's trace.bin (one
 * CPU's pages as recorded) and .vmt (any input's pages, recompressed).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "chunkcut.h"
#include "container.h"
#include "copycpus.h"
#include "evcensus.h"
#include "io.h"
#include "kv.h"
#include "iterate.h"
#include "legacyfmt.h"
#include "log.h"
#include "metakeys.h"
#include "nomatch.h"
#include "rbpage.h"
#include "writers.h"

/*
 * A copy of every chunk without one begin event: what --csv says of the same file (a
 * trace.dat of other events: what it holds, and --pair), for a file that can say it.
 */
static void say_no_begin(const struct convert_opts *o, const struct vmt_reader *r)
{
	char msg[1024];

	if (vmt_nomatch_held_instead(r, msg, sizeof(msg)))
		vmt_info("%s: %s", o->input, msg);
}

/* Read chunk i for a copy; a damaged one is counted and skipped, as the reader does. */
static int copy_read(const struct vmt_source *src, size_t i, struct vmt_chunkbuf *cb,
		     struct convert_found *found)
{
	const char *why = NULL;

	found->rd.chunks++;
	if (vmt_source_read_chunk(src, i, cb, &why) == 0)
		return 0;
	found->rd.bad_chunks++;
	vmt_damage_note(&found->damage, vmt_source_chunk(src, i), UINT32_MAX, why);
	return -1;
}

/*
 * A copied chunk's pages that the reader would skip as damaged: counted, as the reader
 * counts them, so that the copy's exit status is the report's on the input (the copy
 * carries them as they are, and a reader of it skips them too).
 */
static void copy_check_pages(const struct vmt_header_page *hp, const struct vmt_chunk_info *ci,
			     const uint8_t *raw, struct convert_found *found)
{
	struct vmt_rbrecord rec;
	struct vmt_rbpage pg;
	uint64_t off;
	int ret;

	for (off = 0; ci->page_size && ci->raw_size - off >= ci->page_size; off += ci->page_size) {
		const char *why = "page commit beyond the page size";

		ret = vmt_rbpage_init(&pg, hp, raw + off, ci->page_size) ? -1 : 1;
		while (ret == 1) {
			ret = vmt_rbpage_next(&pg, &rec);
			why = "record header points outside its page";
		}
		if (ret == 0)
			continue;
		found->rd.bad_pages++;
		vmt_damage_note(&found->damage, ci, (uint32_t)(off / ci->page_size), why);
	}
}

/*
 * A trace.bin holds no event formats: a reader guesses the original tool's 2015 layout
 * (exit_reason at 16, isa at 32), which the original itself needs only for its ids and
 * times. When the recording's layout is another, say how to read the file back.
 */
static void say_layout(const struct convert_opts *o, const struct vmt_evformat *exit_fmt)
{
	const struct vmt_evfield *reason = vmt_evformat_field(exit_fmt, "exit_reason");
	const struct vmt_evfield *isa = vmt_evformat_field(exit_fmt, "isa");

	if (reason && reason->offset == 16 && (!isa || isa->offset == 32))
		return;
	vmt_info("%s: written in its recording's event layout, not the original tool's (2015): "
		 "vm-trace -f reads it; vmtrace-report reads it back with --format-dir DIR, a copy of the "
		 "recording host's tracefs events/", convert_output_name(o));
}

/* The original tool's trace.bin: its 8-byte header, then one CPU's 4 KiB pages as they are. */
int convert_legacy(const struct convert_opts *o, struct vmt_reader *r, int fd,
		   struct convert_found *found)
{
	const struct vmt_source *src = vmt_reader_source(r);
	struct vmt_chunkbuf cb = { 0 };
	uint8_t hdr[VMT_LEGACY_HEADER_SIZE];
	size_t i, copied = 0;
	bool skipped = false;
	uint32_t cpu;
	int ret;

	ret = convert_legacy_cpu(o, r, &cpu);
	if (ret)
		return ret;
	put_le32(hdr, VMT_LEGACY_SIGNATURE);
	put_le16(hdr + 4, (uint16_t)vmt_reader_end_format(r)->id);
	put_le16(hdr + 6, (uint16_t)vmt_reader_begin_format(r)->id);
	ret = vmt_io_write_full(fd, hdr, sizeof(hdr));
	for (i = 0; !ret && i < vmt_source_nchunks(src); i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(src, i);

		if (ci->cpu != cpu)
			continue;
		if (copy_read(src, i, &cb, found)) {
			skipped = true;
			continue;
		}
		/* a damaged chunk before, or blocks skipped that may have been: flagged, as .vmt's */
		if (skipped || vmt_source_hole_before(src, i))
			vmt_chunk_mark_missed(vmt_reader_header_page(r), cb.raw, ci->page_size);
		skipped = false;
		copy_check_pages(vmt_reader_header_page(r), ci, cb.raw, found);
		ret = vmt_io_write_full(fd, cb.raw, ci->raw_size);
		copied++;
	}
	vmt_chunkbuf_free(&cb);
	if (ret) {
		vmt_err("%s: %s", convert_output_name(o), strerror(-ret));
		return ret;
	}
	convert_say_copied(o, src, &o->fo.filter.cpus, copied);
	if (copied)	/* an empty trace.bin needs no reading back */
		say_layout(o, vmt_reader_begin_format(r));
	return 0;
}

static void add_entry(struct vmt_kvbuf *kb, const struct vmt_kv *kv)
{
	char key[VMT_KV_MAX_KEY + 1];

	if (kv->key_len > VMT_KV_MAX_KEY)
		return;		/* a validated buffer has none */
	memcpy(key, kv->key, kv->key_len);
	key[kv->key_len] = '\0';
	vmt_kv_add(kb, key, kv->val, kv->val_len);
}

/*
 * Whether --cpu leaves out this metadata entry: the per-CPU statistics of the CPUs not
 * copied (the copy's losses are its own CPUs').
 */
static bool other_cpu_entry(const struct vmt_cpulist *cpus, const struct vmt_kv *kv)
{
	static const char *const prefix[] = { VMT_META_STATS_START, VMT_META_STATS_END };
	char num[16];
	unsigned int i;
	size_t n;

	for (i = 0; cpus->n && i < 2; i++) {
		n = strlen(prefix[i]);
		if (kv->key_len <= n || kv->key_len - n >= sizeof(num) ||
		    memcmp(kv->key, prefix[i], n) != 0)
			continue;
		memcpy(num, kv->key + n, kv->key_len - n);
		num[kv->key_len - n] = '\0';
		return !vmt_cpulist_has(cpus, (unsigned int)strtoul(num, NULL, 10));
	}
	return false;
}

/*
 * The traced CPUs of a copy made with --cpu: those asked for that the recording traced or
 * has chunks of (never none: convert_check_cpus() refused that, and the reader refuses an
 * empty list).
 */
static void add_traced(struct vmt_kvbuf *meta, const struct vmt_source *src,
		       const struct vmt_cpulist *cpus, const struct vmt_kv *kv)
{
	struct vmt_cpulist traced = { 0 }, kept = { 0 };
	char text[256], list[1024];
	struct vmt_iter_ids have;
	unsigned int i;

	snprintf(text, sizeof(text), "%.*s", (int)kv->val_len, (const char *)kv->val);
	convert_chunk_cpus(src, &have);
	kept.cpu = calloc(cpus->n, sizeof(*kept.cpu));
	if (kept.cpu && vmt_cli_parse_cpulist(text, &traced) == 0) {
		for (i = 0; i < cpus->n; i++) {
			if (vmt_cpulist_has(&traced, cpus->cpu[i]) ||
			    vmt_iter_ids_has(&have, cpus->cpu[i]))
				kept.cpu[kept.n++] = cpus->cpu[i];
		}
	}
	if (kept.n)
		vmt_kv_add_str(meta, VMT_META_CPUS, vmt_cpulist_format(&kept, list, sizeof(list)));
	else
		add_entry(meta, kv);
	vmt_cpulist_free(&traced);
	free(kept.cpu);
}

/*
 * The input's metadata, and its end figures without its old chunk index; with --cpu, the
 * traced CPUs and per-CPU statistics of those CPUs only.
 */
static void copy_meta(const struct convert_opts *o, const struct vmt_source *src,
		      struct vmt_kvbuf *meta, struct vmt_kvbuf *end)
{
	const struct vmt_cpulist *cpus = &o->fo.filter.cpus;
	const uint8_t *buf;
	struct vmt_kv kv;
	size_t len, pos = 0;

	buf = vmt_source_meta(src, &len);
	while (buf && vmt_kv_next(buf, len, &pos, &kv) > 0) {
		if (cpus->n && kv.key_len == strlen(VMT_META_CPUS) &&
		    memcmp(kv.key, VMT_META_CPUS, kv.key_len) == 0)
			add_traced(meta, src, cpus, &kv);
		else if (!other_cpu_entry(cpus, &kv))
			add_entry(meta, &kv);
	}
	vmt_kv_add_str(meta, "converted_from", o->input);
	if (vmt_source_description(src)[0])
		vmt_kv_add_str(meta, "format_source", vmt_source_description(src));
	buf = vmt_source_end(src, &len);
	pos = 0;
	while (buf && vmt_kv_next(buf, len, &pos, &kv) > 0) {
		if ((kv.key_len < 6 || memcmp(kv.key, "chunk.", 6) != 0) &&
		    !(kv.key_len == strlen(VMT_META_COPY_MARKED) &&
		      memcmp(kv.key, VMT_META_COPY_MARKED, kv.key_len) == 0) &&
		    !other_cpu_entry(cpus, &kv))
			add_entry(end, &kv);
	}
}


/* How many CPUs of the input have chunks that the copy takes (--cpu). */
static unsigned int copied_cpus(const struct vmt_source *src, const struct vmt_cpulist *cpus)
{
	struct vmt_iter_ids have;
	unsigned int n = 0, cpu;

	convert_chunk_cpus(src, &have);
	for (cpu = 0; cpu < VMT_ITER_IDS; cpu++)
		if ((have.bits[cpu / 64] >> (cpu % 64) & 1) &&
		    (!cpus->n || vmt_cpulist_has(cpus, cpu)))
			n++;
	/* CPUs past the bitmap, not told apart: their chunks (at most VMT_ITER_IDS) instead */
	return n + (unsigned int)(have.beyond < VMT_ITER_IDS ? have.beyond : VMT_ITER_IDS);
}

/* Any input into a .vmt: its metadata, and its pages (of the --cpu CPUs) in compressed chunks. */
int convert_vmt(const struct convert_opts *o, struct vmt_reader *r, int fd,
		struct convert_found *found)
{
	const struct vmt_cpulist *cpus = &o->fo.filter.cpus;
	const struct vmt_source *src = vmt_reader_source(r);
	unsigned int ncpus = copied_cpus(src, cpus);
	struct vmt_chunkbuf cb = { 0 };
	uint64_t hole[VMT_ITER_IDS / 64 + 1] = { 0 };	/* CPUs whose last chunk was damaged */
	struct vmt_kvbuf meta, end;
	struct vmt_writer *w = NULL;
	uint32_t begin_id = vmt_reader_begin_format(r)->id;
	uint64_t begins = 0, marked = 0;
	size_t i, copied = 0;
	bool left_out = false;
	int ret;

	vmt_kv_init(&meta);
	vmt_kv_init(&end);
	copy_meta(o, src, &meta, &end);
	ret = vmt_writer_open(fd, &meta, VMT_DEFAULT_LEVEL, &w);
	for (i = 0; !ret && i < vmt_source_nchunks(src); i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(src, i);

		uint64_t *skipped = &hole[ci->cpu < VMT_ITER_IDS ? ci->cpu / 64 : VMT_ITER_IDS / 64];
		uint64_t bit = 1ull << (ci->cpu % 64);	/* CPUs past the bitmap share a word */

		if (cpus->n && !vmt_cpulist_has(cpus, ci->cpu)) {
			left_out = true;
			continue;
		}
		if (copy_read(src, i, &cb, found)) {
			*skipped |= bit;
			continue;
		}
		begins += vmt_evcensus_records_of(vmt_reader_header_page(r), cb.raw, ci->raw_size,
						  ci->page_size, begin_id);
		copy_check_pages(vmt_reader_header_page(r), ci, cb.raw, found);
		/* a damaged chunk of this CPU before, or blocks skipped that may have been */
		if ((*skipped & bit) || vmt_source_hole_before(src, i)) {
			vmt_chunk_mark_missed(vmt_reader_header_page(r), cb.raw, ci->page_size);
			marked++;
		}
		*skipped &= ~bit;
		ret = vmt_chunk_write_cut(w, vmt_reader_header_page(r), cb.raw, ci,
					  vmt_chunk_pages(ncpus, ci->page_size));
		copied++;
	}
	/*
	 * Chunks the copy could not carry (damaged, and blocks of any CPU whose header failed)
	 * stay lost in it: its END counts them, and a reader reports the copy damaged as it
	 * does the input (the marked pages alone read as a loss while recording).
	 */
	if (w)
		vmt_writer_count_lost(w, found->rd.bad_chunks + vmt_source_status(src)->bad_blocks);
	/* and which flagged pages are those marks (an input's own count is not carried) */
	if (marked)
		vmt_kv_addf(&end, VMT_META_COPY_MARKED, "%" PRIu64, marked);
	if (!ret)	/* the copy of an unfinished recording stays unfinished */
		ret = vmt_source_status(src)->finished ? vmt_writer_finish(w, &end) : vmt_writer_sync(w);
	vmt_writer_free(w);
	vmt_chunkbuf_free(&cb);
	vmt_kv_free(&meta);
	vmt_kv_free(&end);
	if (ret) {
		vmt_err("%s: %s", convert_output_name(o), strerror(-ret));
		return ret;
	}
	convert_say_copied(o, src, cpus, copied);
	/* with chunks left out by --cpu, the begin events may be in those: nothing to say */
	if (!begins && !left_out)
		say_no_begin(o, r);
	return 0;
}
