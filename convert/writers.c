// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <string.h>

#include "bytes.h"
#include "container.h"
#include "io.h"
#include "kv.h"
#include "legacyfmt.h"
#include "log.h"
#include "rbpage.h"
#include "rows.h"
#include "seriesfmt.h"
#include "writers.h"

int convert_rows(const struct convert_opts *o, struct vmt_reader *r, int fd)
{
	struct vmt_rows_opts ro = { o->format == CONVERT_CSV ? VMT_ROWS_CSV : VMT_ROWS_JSONL,
				    o->events != 0, fd };
	struct vmt_iter_opts io = { .filter = (struct vmt_filter *)&o->fo.filter };
	struct vmt_consumer c;
	struct vmt_rows *w;
	struct vmt_iter it;
	int ret, werr;

	ret = vmt_rows_consumer(&ro, &w, &c);
	if (ret) {
		vmt_err("%s", strerror(-ret));
		return ret;
	}
	ret = vmt_iterate(r, &io, &c, 1, &it);
	werr = vmt_rows_finish(w);
	if (werr) {
		vmt_err("%s: %s", convert_output_name(o), strerror(-werr));
		return werr;
	}
	if (ret)
		vmt_err("%s: %s", o->input, strerror(-ret));
	return ret;
}

/* --series: the time series consumer (common/series.h), its rows written after the pass. */
int convert_series(const struct convert_opts *o, struct vmt_reader *r, int fd)
{
	struct vmt_series_opts so = { o->series_ns, VMT_DEFAULT_WINDOW_NS, false };
	struct vmt_iter_opts io = { .filter = (struct vmt_filter *)&o->fo.filter };
	struct vmt_series se;
	struct vmt_consumer c;
	struct vmt_iter it;
	int ret;

	if (!so.interval_ns)
		so.interval_ns = vmt_series_auto_interval(r);
	ret = vmt_series_consumer(&se, &so, &c);
	if (!ret)
		ret = vmt_iterate(r, &io, &c, 1, &it);
	if (ret) {
		vmt_err("%s: %s", o->input, ret == -E2BIG ? "too many rows: choose a longer "
			"--series interval" : strerror(-ret));
	} else {
		ret = vmt_series_write_rows(fd, &se, o->format == CONVERT_CSV);
		if (ret)
			vmt_err("%s: %s", convert_output_name(o), strerror(-ret));
	}
	vmt_series_free(&se);
	return ret;
}

/* What --legacy can take from this input: one CPU's 64-bit 4 KiB sub-buffers. */
static int legacy_cpu(const struct convert_opts *o, struct vmt_reader *r, uint32_t *cpu)
{
	const struct vmt_header_page *hp = vmt_reader_header_page(r);
	const struct vmt_source *src = vmt_reader_source(r);
	const struct vmt_filter *f = &o->fo.filter;
	size_t i, n = vmt_source_nchunks(src);
	bool several = false;

	if (vmt_header_page_subbuf_size(hp) != VMT_LEGACY_PAGE_SIZE || hp->commit_size != 8) {
		vmt_err("%s: the original trace.bin holds 64-bit 4 KiB sub-buffers only", o->input);
		return -EINVAL;
	}
	if (f->vcpus.n || f->nreasons || f->has_from || f->has_to || f->cpus.n > 1) {
		vmt_err("%s: --legacy copies whole pages: only --cpu (one CPU) applies", o->input);
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

/* The original tool's trace.bin: its 8-byte header, then one CPU's 4 KiB pages as they are. */
int convert_legacy(const struct convert_opts *o, struct vmt_reader *r, int fd)
{
	const struct vmt_source *src = vmt_reader_source(r);
	struct vmt_chunkbuf cb = { 0 };
	uint8_t hdr[VMT_LEGACY_HEADER_SIZE];
	const char *why;
	uint32_t cpu;
	size_t i;
	int ret;

	ret = legacy_cpu(o, r, &cpu);
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
		if (vmt_source_read_chunk(src, i, &cb, &why)) {
			vmt_warn("%s: chunk %zu skipped: %s", o->input, i, why);
			continue;
		}
		ret = vmt_io_write_full(fd, cb.raw, ci->raw_size);
	}
	vmt_chunkbuf_free(&cb);
	if (ret)
		vmt_err("%s: %s", convert_output_name(o), strerror(-ret));
	return ret;
}

/* A trace.bin has no chunk headers: the figures come from the pages themselves. */
static void chunk_figures(const struct vmt_header_page *hp, const uint8_t *raw,
			  struct vmt_chunk_info *ci)
{
	const uint8_t *last = raw + (size_t)(ci->page_count - 1) * ci->page_size;
	struct vmt_rbrecord rec;
	struct vmt_rbpage pg;
	uint32_t p;

	ci->missed_pages = 0;
	ci->missed_count = 0;
	for (p = 0; p < ci->page_count; p++) {
		if (vmt_rbpage_init(&pg, hp, raw + (size_t)p * ci->page_size, ci->page_size))
			continue;
		if (p == 0)
			ci->first_ts = pg.page_ts;
		if (pg.missed) {
			ci->missed_pages++;
			ci->missed_count += pg.missed_count;
		}
	}
	if (vmt_rbpage_init(&pg, hp, last, ci->page_size) == 0) {
		ci->last_ts = pg.page_ts;
		while (vmt_rbpage_next(&pg, &rec) > 0)
			ci->last_ts = rec.ts;
	}
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

/* The input's metadata, and its end figures without its old chunk index. */
static void copy_meta(const struct convert_opts *o, const struct vmt_source *src,
		      struct vmt_kvbuf *meta, struct vmt_kvbuf *end)
{
	const uint8_t *buf;
	struct vmt_kv kv;
	size_t len, pos = 0;

	buf = vmt_source_meta(src, &len);
	while (buf && vmt_kv_next(buf, len, &pos, &kv) > 0)
		add_entry(meta, &kv);
	vmt_kv_add_str(meta, "converted_from", o->input);
	if (vmt_source_description(src)[0])
		vmt_kv_add_str(meta, "format_source", vmt_source_description(src));
	buf = vmt_source_end(src, &len);
	pos = 0;
	while (buf && vmt_kv_next(buf, len, &pos, &kv) > 0) {
		if (kv.key_len < 6 || memcmp(kv.key, "chunk.", 6) != 0)
			add_entry(end, &kv);
	}
}

/* Any input into a .vmt: its metadata, and its pages in compressed chunks. */
int convert_vmt(const struct convert_opts *o, struct vmt_reader *r, int fd)
{
	const struct vmt_source *src = vmt_reader_source(r);
	struct vmt_chunkbuf cb = { 0 };
	struct vmt_kvbuf meta, end;
	struct vmt_writer *w = NULL;
	const char *why;
	size_t i;
	int ret;

	vmt_kv_init(&meta);
	vmt_kv_init(&end);
	copy_meta(o, src, &meta, &end);
	ret = vmt_writer_open(fd, &meta, VMT_DEFAULT_LEVEL, &w);
	for (i = 0; !ret && i < vmt_source_nchunks(src); i++) {
		struct vmt_chunk_info ci = *vmt_source_chunk(src, i);

		if (vmt_source_read_chunk(src, i, &cb, &why)) {
			vmt_warn("%s: chunk %zu skipped: %s", o->input, i, why);
			continue;
		}
		chunk_figures(vmt_reader_header_page(r), cb.raw, &ci);
		ret = vmt_writer_chunk(w, cb.raw, ci.page_count, ci.page_size, &ci);
	}
	if (!ret)
		ret = vmt_writer_finish(w, &end);
	vmt_writer_free(w);
	vmt_chunkbuf_free(&cb);
	vmt_kv_free(&meta);
	vmt_kv_free(&end);
	if (ret)
		vmt_err("%s: %s", convert_output_name(o), strerror(-ret));
	return ret;
}
