// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The .vmt loader (man/vmtrace-file.5). Open scans the block headers once (memory grows
 * with the number of chunks, never with events): META, every CHNK header, END. A damaged
 * header is skipped by searching for the next valid one; a file cut anywhere gives every
 * whole chunk before the cut. Chunks are read, checked (CRC32C) and decompressed on demand.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* for ZSTD_d_forceIgnoreChecksum (an experimental parameter of the stable API) */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "bytes.h"
#include "chunk.h"
#include "cli.h"
#include "container.h"
#include "crc32c.h"
#include "evformat.h"
#include "io.h"
#include "kv.h"
#include "metakeys.h"
#include "source_impl.h"

static bool vmt_probe(const uint8_t *head, size_t n)
{
	return n >= VMT_FILE_HEADER_SIZE && memcmp(head, VMT_FILE_MAGIC, 8) == 0;
}

static bool known_type(uint32_t t)
{
	return t == VMT_BLOCK_META || t == VMT_BLOCK_META_COPY || t == VMT_BLOCK_CHUNK ||
	       t == VMT_BLOCK_END;
}

/*
 * Read and check the block header at off. Returns 1 when whole and valid, 0 when the file
 * ends inside it, -EBADMSG when its checksum or sizes are wrong.
 */
static int read_block_header(const struct vmt_source *s, uint64_t off, uint8_t *hdr,
			     uint32_t *hsize, uint64_t *psize)
{
	uint64_t file_size = s->status.file_size;
	/* a chunk's whole header in one read: the scan is a system call per block */
	uint64_t first = file_size - off < VMT_CHUNK_HEADER_SIZE ? file_size - off :
			 VMT_CHUNK_HEADER_SIZE;
	ssize_t n;

	if (file_size - off < VMT_BLOCK_HEADER_SIZE)
		return 0;
	n = vmt_io_pread_full(s->fd, hdr, first, (off_t)off);
	if (n < VMT_BLOCK_HEADER_SIZE)
		return n < 0 ? (int)n : 0;
	*hsize = get_le32(hdr + VMT_BH_HEADER_SIZE);
	*psize = get_le64(hdr + VMT_BH_PAYLOAD_SIZE);
	if (*hsize < VMT_BLOCK_HEADER_SIZE || *hsize > VMT_MAX_BLOCK_HEADER || (*hsize & 7))
		return -EBADMSG;
	if (file_size - off < *hsize)
		return 0;
	if (*hsize > (uint64_t)n) {
		ssize_t more = vmt_io_pread_full(s->fd, hdr + n, *hsize - (uint64_t)n,
						 (off_t)(off + (uint64_t)n));

		if (more != (ssize_t)(*hsize - (uint64_t)n))
			return more < 0 ? (int)more : 0;
	}
	if (vmt_container_header_crc(hdr, *hsize) != get_le32(hdr + VMT_BH_HEADER_CRC))
		return -EBADMSG;
	return 1;
}

/* After a damaged header: find the next offset holding a valid block header, or 0. */
static uint64_t resync(const struct vmt_source *s, uint64_t from)
{
	uint8_t window[65536 + 4], hdr[VMT_MAX_BLOCK_HEADER];
	uint64_t off = from;

	while (off < s->status.file_size) {
		ssize_t n = vmt_io_pread_full(s->fd, window, sizeof(window), (off_t)off);
		ssize_t i;

		if (n < 4)
			return 0;
		for (i = 0; i + 4 <= n; i++) {
			uint32_t hsize;
			uint64_t psize;

			if (!known_type(get_le32(window + i)))
				continue;
			if (read_block_header(s, off + (uint64_t)i, hdr, &hsize, &psize) == 1)
				return off + (uint64_t)i;
		}
		off += (uint64_t)n - 3;
	}
	return 0;
}

/* A META or END payload: read, checked against its CRC and as key/values, into kb. */
static int read_payload(const struct vmt_source *s, uint64_t off, const uint8_t *hdr,
			uint64_t psize, struct vmt_kvbuf *kb)
{
	uint8_t *buf;
	ssize_t n;

	buf = malloc(psize ? psize : 1);
	if (!buf)
		return -ENOMEM;
	n = vmt_io_pread_full(s->fd, buf, psize, (off_t)off);
	if (n < 0 || (uint64_t)n != psize) {
		free(buf);
		return n < 0 ? (int)n : -EBADMSG;
	}
	if (vmt_crc32c(0, buf, psize) != get_le32(hdr + VMT_BH_PAYLOAD_CRC) ||
	    vmt_kv_validate(buf, psize)) {
		free(buf);
		return -EBADMSG;
	}
	kb->buf = buf;
	kb->len = kb->cap = psize;
	return 0;
}

static int add_chunk(struct vmt_source *s, uint64_t off, const uint8_t *hdr, uint32_t hsize,
		     uint64_t psize)
{
	struct vmt_chunk_info ci = { 0 };

	if (hsize < VMT_CHUNK_HEADER_SIZE)
		return -EBADMSG;
	ci.offset = off;
	ci.payload_size = psize;
	ci.header_size = hsize;
	ci.cpu = get_le32(hdr + VMT_CH_CPU);
	ci.page_count = get_le32(hdr + VMT_CH_PAGE_COUNT);
	ci.page_size = get_le32(hdr + VMT_CH_PAGE_SIZE);
	ci.flags = get_le32(hdr + VMT_CH_FLAGS);
	ci.raw_size = get_le64(hdr + VMT_CH_RAW_SIZE);
	ci.first_ts = get_le64(hdr + VMT_CH_FIRST_TS);
	ci.last_ts = get_le64(hdr + VMT_CH_LAST_TS);
	ci.missed_pages = get_le32(hdr + VMT_CH_MISSED_PAGES);
	ci.missed_count = get_le64(hdr + VMT_CH_MISSED_COUNT);
	ci.payload_crc = get_le32(hdr + VMT_BH_PAYLOAD_CRC);
	ci.holes_before = s->holes;
	if (ci.page_count == 0 || ci.page_size < 32 || ci.page_size > (16u << 20) ||
	    ci.raw_size != (uint64_t)ci.page_count * ci.page_size ||
	    ci.raw_size > VMT_MAX_CHUNK_RAW || (ci.flags & ~VMT_CHUNK_ZSTD) ||
	    ci.cpu >= 1u << 20 ||
	    ((ci.flags & VMT_CHUNK_ZSTD) ? psize > ZSTD_compressBound(ci.raw_size) :
					   psize != ci.raw_size))
		return -EBADMSG;	/* pages stored raw are the payload, byte for byte */
	return vmt_source_push_chunk(s, &ci);
}

/*
 * Whether the block at off, whose header is damaged, is the metadata's copy: right after
 * META, and either holding META's payload or followed by a valid block (next) just where a
 * copy of META's size ends. Its loss loses no event, so it is not counted as damage.
 */
static bool is_meta_copy(const struct vmt_source *s, uint64_t off, uint64_t meta_end,
			 uint64_t next)
{
	uint8_t *buf;
	bool same;

	if (!s->meta.buf || off != meta_end || !s->meta.len)
		return false;
	if (next == off + VMT_BLOCK_HEADER_SIZE + s->meta.len)
		return true;
	buf = malloc(s->meta.len);
	if (!buf)
		return false;
	same = vmt_io_pread_full(s->fd, buf, s->meta.len, (off_t)(off + VMT_BLOCK_HEADER_SIZE)) ==
	       (ssize_t)s->meta.len && memcmp(buf, s->meta.buf, s->meta.len) == 0;
	free(buf);
	return same;
}

/* A block skipped while opening, counted; the first one's place kept for the warning. */
static void bad_block(struct vmt_source_status *st, uint64_t off)
{
	if (!st->bad_blocks++)
		st->bad_block_at = off;
}

/* What check_chunks() finds wrong with a chunk header. */
enum bad_header { HEADER_OK, BAD_UNTRACED, BAD_CPU_RANGE, BAD_INDEX, BAD_PAGE_SIZE };

/* The first damaged block in the file's order, and what was wrong with it when known. */
static void bad_chunk(struct vmt_source_status *st, const struct vmt_chunk_info *ci,
		      enum bad_header what, uint32_t subbuf)
{
	char *why = st->bad_block_why;
	size_t size = sizeof(st->bad_block_why);

	if (st->bad_blocks++ && ci->offset >= st->bad_block_at)
		return;
	st->bad_block_at = ci->offset;
	if (what == BAD_UNTRACED)
		snprintf(why, size, "a chunk of CPU %u, which the recording did not trace", ci->cpu);
	else if (what == BAD_CPU_RANGE)
		snprintf(why, size, "a chunk of CPU %u, above any Linux CPU number (%u)", ci->cpu,
			 VMT_CLI_MAX_CPUS - 1);
	else if (what == BAD_INDEX)
		snprintf(why, size, "a chunk header (CPU %u) that differs from the end record's index",
			 ci->cpu);
	else
		snprintf(why, size, "a chunk of %u-byte pages, where the recording's are %u bytes",
			 ci->page_size, subbuf);
}

/* The index entry END's chunk.index holds for the block at off, or NULL (16 bytes each). */
static const uint8_t *index_entry(const uint8_t *index, uint32_t len, uint64_t off)
{
	uint32_t lo = 0, hi = len / 16;

	/* the writer appends an entry per chunk, so offsets ascend */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint64_t at = get_le64(index + (size_t)mid * 16);

		if (at == off)
			return index + (size_t)mid * 16;
		if (at < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The chunks' order by what a copy of a chunk repeats, then by place in the file. */
static int cmp_copy(const void *pa, const void *pb)
{
	const struct vmt_chunk_info *a = *(const struct vmt_chunk_info *const *)pa;
	const struct vmt_chunk_info *b = *(const struct vmt_chunk_info *const *)pb;

#define CMP(f) if (a->f != b->f) return a->f < b->f ? -1 : 1
	CMP(cpu);
	CMP(first_ts);
	CMP(last_ts);
	CMP(page_count);
	CMP(payload_size);
	CMP(payload_crc);
	CMP(offset);
#undef CMP
	return 0;
}

static bool same_chunk(const struct vmt_chunk_info *a, const struct vmt_chunk_info *b)
{
	return a->cpu == b->cpu && a->first_ts == b->first_ts && a->last_ts == b->last_ts &&
	       a->page_count == b->page_count && a->payload_size == b->payload_size &&
	       a->payload_crc == b->payload_crc;
}

/*
 * Chunks that repeat one before them in the file (a block copied twice): every event of
 * theirs would count twice, and no writer writes one, so the later copies are counted and
 * marked in copy[] for check_chunks() to skip. Memory: a pointer per chunk, for the call.
 */
static int find_copies(struct vmt_source *s, bool *copy)
{
	struct vmt_source_status *st = &s->status;
	const struct vmt_chunk_info **by, *orig;
	size_t i;

	if (s->nchunks < 2)
		return 0;
	by = malloc(s->nchunks * sizeof(*by));
	if (!by)
		return -ENOMEM;
	for (i = 0; i < s->nchunks; i++)
		by[i] = &s->chunks[i];
	qsort(by, s->nchunks, sizeof(*by), cmp_copy);
	/* equal chunks sort together, the first in the file first: the others copy it */
	orig = by[0];
	for (i = 1; i < s->nchunks; i++) {
		if (!same_chunk(orig, by[i])) {
			orig = by[i];
			continue;
		}
		if (!st->dup_chunks++ || by[i]->offset < st->dup_at) {
			st->dup_at = by[i]->offset;
			st->dup_of = orig->offset;
		}
		copy[by[i] - s->chunks] = true;
	}
	free(by);
	return 0;
}

/*
 * Chunk headers that contradict the rest of the file, found once META and END are read: a
 * CPU that cpus.traced does not list (every figure per pCPU, and the memory a CPU's tables
 * take, would follow a number no recorder wrote) or, without that list, one above any
 * Linux CPU number, or a CPU or page count other than END's
 * chunk.index says for the block at that offset (when each chunk has an entry), or pages
 * of another size than header_page's sub-buffers (a reader would hold chunks of pages of
 * up to 16 MiB each for a recording of 4 KiB ones). Such a chunk is damage: skipped, counted
 * as a damaged block, and, as its CPU field is no surer than the rest, a hole for every CPU.
 * Copies of a chunk (find_copies) are skipped too, with no hole: nothing is lost with them.
 */
static int check_chunks(struct vmt_source *s)
{
	struct vmt_source_status *st = &s->status;
	struct vmt_cpulist cpus = { 0 };
	const uint8_t *index = NULL, *v;
	uint32_t len = 0, extra = 0, subbuf = 0;
	struct vmt_header_page hp;
	size_t i, kept = 0;
	bool *copy;
	char *list;

	v = vmt_kv_get(s->meta.buf, s->meta.len, VMT_META_CPUS, &len);
	if (v) {
		list = strndup((const char *)v, len);
		if (!list)
			return -ENOMEM;
		/* a list that does not parse is the reader's to refuse */
		if (vmt_cli_parse_cpulist(list, &cpus))
			cpus.n = 0;
		free(list);
	}
	/* a header_page that does not parse is the reader's to refuse */
	v = vmt_kv_get(s->meta.buf, s->meta.len, VMT_META_HEADER_PAGE, &len);
	if (v && vmt_header_page_parse((const char *)v, len, &hp) == 0)
		subbuf = vmt_header_page_subbuf_size(&hp);
	if (s->end_present) {
		index = vmt_kv_get(s->end.buf, s->end.len, "chunk.index", &len);
		if (index && len % 16)
			index = NULL;
	}
	/*
	 * Blocks added or moved (a chunk copied into the file) shift the offsets after them:
	 * the index then describes other blocks there, and is not a check of them.
	 */
	for (i = 0; index && i < s->nchunks; i++) {
		if (!index_entry(index, len, s->chunks[i].offset))
			index = NULL;
	}
	copy = calloc(s->nchunks ? s->nchunks : 1, sizeof(*copy));
	if (!copy || find_copies(s, copy)) {
		free(copy);
		vmt_cpulist_free(&cpus);
		return -ENOMEM;
	}
	for (i = 0; i < s->nchunks; i++) {
		struct vmt_chunk_info *ci = &s->chunks[i];
		const uint8_t *e = index ? index_entry(index, len, ci->offset) : NULL;
		enum bad_header what = HEADER_OK;

		if (copy[i])
			continue;	/* its events are the original's: no hole */
		if (cpus.n && !vmt_cpulist_has(&cpus, ci->cpu))
			what = BAD_UNTRACED;
		else if (!cpus.n && ci->cpu >= VMT_CLI_MAX_CPUS)
			what = BAD_CPU_RANGE;
		else if (subbuf && ci->page_size != subbuf)
			what = BAD_PAGE_SIZE;
		else if (e && (get_le32(e + 8) != ci->cpu || get_le32(e + 12) != ci->page_count))
			what = BAD_INDEX;
		if (what != HEADER_OK) {
			bad_chunk(st, ci, what, subbuf);
			extra++;
			continue;
		}
		ci->holes_before += extra;
		s->chunks[kept++] = *ci;
	}
	s->nchunks = kept;
	s->holes += extra;
	/* what END counts is what the recorder wrote: neither the copies nor less */
	st->finished = st->end_counts && st->end_chunks == s->nchunks + st->bad_blocks;
	free(copy);
	vmt_cpulist_free(&cpus);
	return 0;
}

/*
 * Where another recording's file header (magic, version, header size) starts, or 0: a cut
 * recording with another joined after it (cat a.vmt b.vmt, where a.vmt was cut), whose
 * blocks the scan would otherwise take for the first's after a damaged block, END
 * included. A whole read of the file, only for files without END or with damage; a zstd
 * payload that holds those 16 bytes by chance is as likely as a checksum that matches by
 * chance.
 */
static uint64_t find_joined(const struct vmt_source *s)
{
	uint8_t window[65536 + VMT_FILE_HEADER_SIZE], head[VMT_FILE_HEADER_SIZE];
	uint64_t off = VMT_FILE_HEADER_SIZE;

	memcpy(head, VMT_FILE_MAGIC, 8);
	put_le32(head + 8, VMT_FILE_VERSION);
	put_le32(head + 12, VMT_FILE_HEADER_SIZE);
	while (off < s->status.file_size) {
		ssize_t n = vmt_io_pread_full(s->fd, window, sizeof(window), (off_t)off);
		const uint8_t *at;

		if (n < VMT_FILE_HEADER_SIZE)
			return 0;
		at = memmem(window, (size_t)n, head, sizeof(head));
		if (at)
			return off + (uint64_t)(at - window);
		off += (uint64_t)n - (VMT_FILE_HEADER_SIZE - 1);
	}
	return 0;
}

#define DAMAGED_META_NO_COPY \
	"damaged metadata block, and no copy of it (written before recorders made one)"

static int vmt_open(struct vmt_source *s, const struct vmt_input_opts *opts, char *why,
		    size_t why_size)
{
	uint8_t fh[VMT_FILE_HEADER_SIZE], hdr[VMT_MAX_BLOCK_HEADER];
	struct vmt_source_status *st = &s->status;
	const char *msg = NULL;
	uint64_t off, meta_end = 0;	/* where a sound META block ends: its copy's place */
	uint64_t joined = 0;		/* where another recording's file header is */
	uint32_t hsize;
	ssize_t n;
	int ret;

	(void)opts;	/* a .vmt describes itself */
	s->order = VMT_ORDER_FIRST_TS;
	n = vmt_io_pread_full(s->fd, fh, sizeof(fh), 0);
	if (n != (ssize_t)sizeof(fh))
		return n < 0 ? (int)n : -EIO;
	if (get_le32(fh + 8) != VMT_FILE_VERSION) {
		msg = "unsupported file version";
		ret = -EPROTONOSUPPORT;
		goto out_why;
	}
	off = get_le32(fh + 12);
	if (off < VMT_FILE_HEADER_SIZE || off > st->file_size || (off & 7)) {
		msg = "bad file header size";
		ret = -EBADMSG;
		goto out_why;
	}

scan:
	while (off < st->file_size) {
		uint64_t psize = 0;
		uint32_t type;

		ret = read_block_header(s, off, hdr, &hsize, &psize);
		if (ret == -EBADMSG) {
			uint64_t next = resync(s, off + 8);

			if (!s->meta.buf && st->meta_damaged_at) {
				msg = "damaged metadata block, and its copy";
				ret = -EBADMSG;
				goto out_why;
			} else if (!s->meta.buf) {
				/* the first block is the metadata: its copy may follow */
				st->meta_damaged_at = off;
			} else if (!is_meta_copy(s, off, meta_end, next)) {
				bad_block(st, off);
				s->holes++;	/* it could have been any CPU's chunk */
			} else if (next && next != off + VMT_BLOCK_HEADER_SIZE + s->meta.len) {
				/* the copy, and a damaged block after it that the search passed */
				bad_block(st, off + VMT_BLOCK_HEADER_SIZE + s->meta.len);
				s->holes++;
			}
			if (!next) {
				st->truncated_at = off;
				st->trunc_why = "damaged block header, nothing valid after it";
				break;
			}
			off = next;
			continue;
		}
		if (ret < 0)
			return ret;
		if (ret == 0 || psize > st->file_size - off - hsize) {
			st->truncated_at = off;
			st->trunc_why = "the file ends inside a block";
			/*
			 * Cut before the metadata was whole: nothing can be read, and the file is
			 * not damaged but short (a recorder killed, a copy stopped, a full disk).
			 */
			if (!s->meta.buf && st->meta_damaged_at) {
				snprintf(why, why_size, "damaged metadata block, and the file is cut "
					 "at byte %llu, before the end of its copy",
					 (unsigned long long)st->file_size);
				return -EBADMSG;
			}
			if (!s->meta.buf && ret == 0) {
				snprintf(why, why_size, "truncated: the file is cut at byte %llu, "
					 "inside the header of its first block (the metadata)",
					 (unsigned long long)st->file_size);
				return -EBADMSG;
			}
			if (!s->meta.buf && get_le32(hdr + VMT_BH_TYPE) == VMT_BLOCK_META) {
				snprintf(why, why_size, "truncated: the file is cut at byte %llu, "
					 "inside its metadata block (which ends at byte %llu)",
					 (unsigned long long)st->file_size,
					 (unsigned long long)(off + hsize + psize));
				return -EBADMSG;
			}
			break;
		}
		type = get_le32(hdr + VMT_BH_TYPE);
		if (type == VMT_BLOCK_META || type == VMT_BLOCK_META_COPY) {
			bool copy = type == VMT_BLOCK_META_COPY;

			if (s->meta.buf) {
				/* a sound META's copy is not read again; a META has no pages */
				if (!copy && !st->extra_meta++)
					st->extra_meta_at = off;
			} else if (copy != (st->meta_damaged_at != 0)) {
				/*
				 * A copy stands in only for a damaged META before it (a copy first is
				 * skipped, as no writer puts it there), and only a copy does: a META
				 * after a damaged one is not what a writer writes.
				 */
				if (!copy) {
					msg = "damaged metadata block";
					ret = -EBADMSG;
					goto out_why;
				}
			} else if (psize > VMT_MAX_META_SIZE ||
				   read_payload(s, off + hsize, hdr, psize, &s->meta)) {
				if (copy) {
					msg = "damaged metadata block, and its copy";
					ret = -EBADMSG;
					goto out_why;
				}
				st->meta_damaged_at = off;	/* its copy follows, if written */
			} else if (!copy) {
				meta_end = off + hsize + psize;
			}
		} else if (!s->meta.buf) {
			/*
			 * Every recorder since the copy writes it right after META: another block
			 * there means the file was written before, and nothing stands in for it.
			 */
			msg = st->meta_damaged_at ? DAMAGED_META_NO_COPY :
			      "no metadata block at the start";
			ret = -EBADMSG;
			goto out_why;
		} else if (type == VMT_BLOCK_CHUNK) {
			ret = add_chunk(s, off, hdr, hsize, psize);
			if (ret == -ENOMEM)
				return ret;
			if (ret) {
				/* fields no writer writes: its CPU field is no surer than they are */
				bad_block(st, off);
				s->holes++;
			}
		} else if (type == VMT_BLOCK_END) {
			uint64_t count;

			if (psize > VMT_MAX_META_SIZE + (uint64_t)s->nchunks * 16 ||
			    read_payload(s, off + hsize, hdr, psize, &s->end)) {
				st->bad_end_at = off;
			} else {
				s->end_present = true;
				st->end_at = off;
				st->end_counts = vmt_kv_get_u64(s->end.buf, s->end.len,
								"chunk.count", &count) == 0;
				st->end_chunks = st->end_counts ? count : 0;
				st->finished = st->end_counts &&
					       count == s->nchunks + st->bad_blocks;
			}
			off += hsize + psize;
			break;	/* nothing after END belongs to the recording */
		}
		/* Unknown block types with a valid header are skipped (newer writers). */
		off += hsize + psize;
	}
	/* bytes past a sound END: not the recording's (a file appended), said, not read */
	if (s->end_present && off < st->file_size) {
		uint8_t head[VMT_FILE_HEADER_SIZE];

		st->after_end_at = off;
		st->after_end_recording =
			vmt_io_pread_full(s->fd, head, sizeof(head), (off_t)off) == sizeof(head) &&
			memcmp(head, VMT_FILE_MAGIC, 8) == 0;
	}
	if ((!s->end_present || st->bad_blocks || st->truncated_at) && !joined) {
		joined = find_joined(s);
		/* a header after a sound END is after the recording (after_end_at), not in it */
		if (s->end_present && joined > st->end_at)
			joined = 0;
		if (joined) {
			/* read again up to there, as if the file ended there: a cut recording */
			uint64_t at = joined;

			vmt_kv_free(&s->meta);
			vmt_kv_free(&s->end);
			s->end_present = false;
			s->nchunks = 0;
			s->holes = 0;
			memset(st, 0, sizeof(*st));
			st->file_size = at;
			meta_end = 0;
			off = get_le32(fh + 12);
			goto scan;
		}
	}
	if (joined) {
		st->joined_at = joined;
		if (!st->truncated_at) {
			st->truncated_at = joined;
			st->trunc_why = "the file ends inside a block";
		}
	}
	if (!s->meta.buf) {
		/*
		 * The recorder writes its metadata block right after the header: cut there. A
		 * damaged one that ends the file may be an old file's, or the copy was cut off.
		 */
		msg = st->file_size <= VMT_FILE_HEADER_SIZE ?
		      "truncated: the file is cut after its header, before its metadata block" :
		      "damaged metadata block, and the file ends after it: no copy of it";
		ret = -EBADMSG;
		goto out_why;
	}
	return check_chunks(s);

out_why:
	snprintf(why, why_size, "%s", msg);
	return ret;
}

/*
 * Read chunk idx's payload into cb->comp and check it: the checksum, and a zstd frame's
 * stated size against the chunk header, with a context ready in cb->dctx.
 */
static int load_payload(const struct vmt_source *s, size_t idx, struct vmt_chunkbuf *cb,
			const char **why)
{
	const struct vmt_chunk_info *ci = &s->chunks[idx];
	uint64_t hsize = VMT_CHUNK_HEADER_SIZE;
	uint8_t hdr[8];
	ssize_t n;

	/* The header size of this block, to find its payload (known since the scan). */
	if (ci->header_size) {
		hsize = ci->header_size;
	} else {
		n = vmt_io_pread_full(s->fd, hdr, 8, (off_t)ci->offset);
		if (n != 8) {
			*why = "cannot read the chunk header";
			return n < 0 ? (int)n : -EIO;
		}
		hsize = get_le32(hdr + VMT_BH_HEADER_SIZE);
	}
	if (vmt_chunkbuf_grow(&cb->comp, &cb->comp_cap, ci->payload_size ? ci->payload_size : 1)) {
		*why = "out of memory";
		return -ENOMEM;
	}
	n = vmt_io_pread_full(s->fd, cb->comp, ci->payload_size, (off_t)(ci->offset + hsize));
	if (n < 0 || (uint64_t)n != ci->payload_size) {
		*why = "cannot read the chunk payload";
		return n < 0 ? (int)n : -EIO;
	}
	if (vmt_crc32c(0, cb->comp, ci->payload_size) != ci->payload_crc) {
		*why = "chunk checksum mismatch";
		return -EBADMSG;
	}
	if (!(ci->flags & VMT_CHUNK_ZSTD))
		return 0;
	if (ZSTD_getFrameContentSize(cb->comp, ci->payload_size) != ci->raw_size) {
		*why = "zstd frame size differs from the chunk header";
		return -EBADMSG;
	}
	if (!cb->dctx) {
		cb->dctx = ZSTD_createDCtx();
		if (!cb->dctx) {
			*why = "out of memory";
			return -ENOMEM;
		}
		/*
		 * A frame may declare any window (up to VMT_MAX_CHUNK_RAW bytes when it is
		 * all of a chunk's content, more when it is not a single segment): decoded as
		 * a stream (a part), zstd would refuse windows over 2^27 by default, where
		 * decoding it whole does not. Its buffer is the smaller of the window and the
		 * content size, which load_payload() checked against the chunk's.
		 */
		ZSTD_DCtx_setParameter(cb->dctx, ZSTD_d_windowLogMax,
				       ZSTD_dParam_getBounds(ZSTD_d_windowLogMax).upperBound);
#ifdef ZSTD_d_forceIgnoreChecksum
		/*
		 * The CRC32C above already proved these compressed bytes are the ones written,
		 * and decompression is deterministic: the frame's own XXH64 of the output
		 * would be a second pass over every byte for nothing.
		 */
		ZSTD_DCtx_setParameter(cb->dctx, ZSTD_d_forceIgnoreChecksum,
				       ZSTD_d_ignoreChecksum);
#endif
	}
	return 0;
}

static int vmt_read_chunk(const struct vmt_source *s, size_t idx, struct vmt_chunkbuf *cb,
			  const char **why)
{
	const struct vmt_chunk_info *ci = &s->chunks[idx];
	size_t got;
	int ret;

	ret = load_payload(s, idx, cb, why);
	if (ret)
		return ret;
	if (vmt_chunkbuf_grow(&cb->raw, &cb->raw_cap, ci->raw_size)) {
		*why = "out of memory";
		return -ENOMEM;
	}
	if (!(ci->flags & VMT_CHUNK_ZSTD)) {
		memcpy(cb->raw, cb->comp, ci->raw_size);
		return 0;
	}
	got = ZSTD_decompressDCtx(cb->dctx, cb->raw, ci->raw_size, cb->comp, ci->payload_size);
	if (ZSTD_isError(got) || got != ci->raw_size) {
		*why = "zstd frame does not decompress";
		return -EBADMSG;
	}
	return 0;
}

_Static_assert(VMT_MAX_CHUNK_RAW == 1u << 28, "the zstd window a chunk may need");

/* The bytes a part's decoding drops go through this much of cb->whole at a time. */
#define SINK_BYTES (128u << 10)

/*
 * A part of the chunk: the frame decoded as a stream from its start, the bytes outside the
 * part dropped, so that zstd keeps one window of the frame (at most the chunk's size) in
 * its context, which is one per thread, where the whole chunk would take a buffer per
 * CPU. The first part (off 0) decodes the frame to its end and checks the payload as the
 * whole chunk's reading does (its size; after the frame, only what decodes to nothing,
 * such as skippable frames, tried into no room at all, as the whole read leaves it none):
 * a frame damaged past the first part then fails before any of its records is used, and
 * the chunk is skipped whole either way.
 * The later parts stop once they are out.
 */
static int vmt_read_part(const struct vmt_source *s, size_t idx, uint64_t off, uint64_t len,
			 struct vmt_chunkbuf *cb, const char **why)
{
	const struct vmt_chunk_info *ci = &s->chunks[idx];
	bool check = off == 0;
	uint64_t pos = 0, sink;
	size_t left = 1;
	ZSTD_inBuffer in;
	int ret;

	ret = load_payload(s, idx, cb, why);
	if (ret)
		return ret;
	sink = ci->raw_size < SINK_BYTES ? ci->raw_size : SINK_BYTES;
	if (vmt_chunkbuf_grow(&cb->raw, &cb->raw_cap, len ? len : 1) ||
	    vmt_chunkbuf_grow(&cb->whole, &cb->whole_cap, sink ? sink : 1)) {
		*why = "out of memory";
		return -ENOMEM;
	}
	if (!(ci->flags & VMT_CHUNK_ZSTD)) {
		memcpy(cb->raw, cb->comp + off, len);
		return 0;
	}
	ZSTD_DCtx_reset(cb->dctx, ZSTD_reset_session_only);
	in = (ZSTD_inBuffer){ cb->comp, ci->payload_size, 0 };
	while (check ? left != 0 : pos < off + len) {
		ZSTD_outBuffer out = { cb->whole, sink, 0 };
		size_t in_before = in.pos;

		if (pos >= off && pos < off + len)
			out = (ZSTD_outBuffer){ cb->raw + (pos - off), off + len - pos, 0 };
		else if (pos < off && off - pos < sink)
			out.size = off - pos;
		left = ZSTD_decompressStream(cb->dctx, &out, &in);
		if (ZSTD_isError(left) || (out.pos == 0 && in.pos == in_before)) {
			*why = "zstd frame does not decompress";
			return -EBADMSG;
		}
		pos += out.pos;
	}
	if (check && (pos != ci->raw_size ||
		      (in.pos < in.size &&
		       ZSTD_decompressDCtx(cb->dctx, cb->whole, 0, cb->comp + in.pos,
					   in.size - in.pos) != 0))) {
		*why = "zstd frame does not decompress";
		return -EBADMSG;
	}
	return 0;
}

const struct vmt_source_ops vmt_source_vmt_ops = {
	.name = "vmt",
	.what = "a vmtrace recording",
	.magic = VMT_FILE_MAGIC,
	.magic_len = 8,
	.no_pair = "--pair does not apply: a .vmt file names its own event pair",
	.no_format_dir = "--format-dir does not apply: a .vmt file carries its own event formats",
	.probe = vmt_probe,
	.open = vmt_open,
	.read_chunk = vmt_read_chunk,
	.read_part = vmt_read_part,
	.close = NULL,
};
