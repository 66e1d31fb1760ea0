// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The loader table and what every source shares: the file opened once (standard input
 * copied to an unlinked temporary file first), its first bytes read once and shown to each
 * loader's probe, the accessors, and the chunk array.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"
#include "procinit.h"
#include "source_impl.h"

#define HEAD_SIZE 64

/* Every format read; the magics are distinct, so the order does not matter. */
static const struct vmt_source_ops *const loaders[] = {
	&vmt_source_vmt_ops,
	&vmt_source_tracedat_ops,
	&vmt_source_legacy_ops,
};

#define NLOADERS (sizeof(loaders) / sizeof(loaders[0]))

static void say(char *why, size_t why_size, const char *text)
{
	if (why_size)
		snprintf(why, why_size, "%s", text);
}

/* Compressed files, given by mistake for what they hold: their first bytes say nothing. */
static const struct {
	const char *magic;
	size_t len;
	const char *name;
} compressed[] = {
	{ "\x1f\x8b", 2, "gzip" },
	{ "\x28\xb5\x2f\xfd", 4, "zstd" },
	{ "\xfd" "7zXZ\0", 6, "xz" },
	{ "BZh", 3, "bzip2" },
};

/*
 * "it starts with '\x7fELF'": the first bytes, printable ones as they are, up to 12, the
 * first line only (a newline ends it, but a file's first byte is shown: "'\x0a...'"), and
 * after 4 up to the next byte that is not printable (an ELF's class and version bytes
 * would tell a user nothing more).
 */
static void first_bytes(const uint8_t *head, size_t n, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n && i < 12 && (head[i] != '\n' || i == 0); i++) {
		bool plain = head[i] >= 0x20 && head[i] < 0x7f && head[i] != '\'' &&
			     head[i] != '\\';

		if (i >= 4 && !plain)
			break;
		if (len + 5 > size)
			break;
		len += (size_t)snprintf(buf + len, size - len, plain ? "%c" : "\\x%02x", head[i]);
	}
}

/*
 * The words for a file no loader takes. Its format's magic in a file too short for the
 * format's header: that format, cut. Else what it is not, naming every format the table
 * reads, and what it is when compressed, or the bytes it starts with: a text, an ELF or a
 * gzip given by mistake is told at once.
 */
static void say_unknown(const uint8_t *head, size_t n, char *why, size_t why_size)
{
	char formats[128], start[64];
	size_t i, len = 0;

	for (i = 0; i < NLOADERS; i++) {
		const struct vmt_source_ops *l = loaders[i];
		size_t m = n < l->magic_len ? n : l->magic_len;

		if (n && m >= (l->magic_len < 4 ? l->magic_len : 4) && !memcmp(head, l->magic, m)) {
			if (why_size)
				snprintf(why, why_size, "truncated: the file is cut inside the "
					 "header of %s (%zu bytes)", l->what, n);
			return;
		}
	}
	/* "a vmtrace recording, a trace.dat or a trace.bin" */
	for (i = 0; i < NLOADERS && len < sizeof(formats); i++)
		len += (size_t)snprintf(formats + len, sizeof(formats) - len, "%s%s",
					i == 0 ? "" : i + 1 < NLOADERS ? ", " : " or ",
					loaders[i]->what);
	for (i = 0; i < sizeof(compressed) / sizeof(compressed[0]); i++) {
		if (n >= compressed[i].len && !memcmp(head, compressed[i].magic, compressed[i].len))
			break;
	}
	if (!why_size)
		return;
	first_bytes(head, n, start, sizeof(start));
	if (!n)
		snprintf(why, why_size, "not %s (it is empty)", formats);
	else if (i < sizeof(compressed) / sizeof(compressed[0]))
		snprintf(why, why_size, "not %s (it is %s-compressed)",
			 formats, compressed[i].name);
	else
		snprintf(why, why_size, "not %s (it starts with '%s')", formats, start);
}

/*
 * Whether a loader can take a file that starts with head (n bytes as they arrive, the file
 * possibly longer): 1 when one's probe does, 0 when a loader's magic still may (its first
 * bytes so far), -1 when none can. A pipe is judged by this before it is copied whole.
 */
static int head_verdict(const uint8_t *head, size_t n)
{
	bool maybe = false;
	size_t i;

	for (i = 0; i < NLOADERS; i++) {
		const struct vmt_source_ops *l = loaders[i];

		if (l->probe(head, n))
			return 1;
		if (!memcmp(head, l->magic, n < l->magic_len ? n : l->magic_len))
			maybe = true;
	}
	/* every probe reads at most HEAD_SIZE bytes: more will not change its mind */
	return maybe && n < HEAD_SIZE ? 0 : -1;
}

/*
 * A pipe (standard input "-", a FIFO, /dev/fd/N of a shell's <(...)) cannot be read at
 * offsets (pread), as every loader does: it is copied first to an unlinked file in $TMPDIR
 * (else /tmp), and in closes. Its first bytes are shown to the loaders' probes as they
 * arrive: a stream no loader takes is refused before more of it is copied. what names the input in messages ("standard input", "the
 * pipe"): the caller adds the path.
 */
static int copy_pipe(int in, const char *what, char *why, size_t why_size)
{
	const char *dir = vmt_io_tmpdir();
	uint8_t buf[1 << 16], head[HEAD_SIZE];
	size_t head_n = 0;
	int fd, ret, verdict = 0;

	fd = vmt_io_tmpfile(dir, "vmtrace-stdin");
	if (fd < 0) {
		if (why_size)
			snprintf(why, why_size, "cannot make a temporary file in %s for %s: %s",
				 dir, what, strerror(-fd));
		return fd;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : 0;
			if (ret && why_size)
				snprintf(why, why_size, "cannot read %s: %s", what, strerror(-ret));
			break;
		}
		/*
		 * Judged as the bytes arrive: what no loader takes (`yes |`, /dev/zero) is refused
		 * at once, not copied until the disk is full.
		 */
		if (!verdict) {
			size_t take = HEAD_SIZE - head_n < (size_t)n ? HEAD_SIZE - head_n : (size_t)n;

			memcpy(head + head_n, buf, take);
			head_n += take;
			verdict = head_verdict(head, head_n);
			if (verdict < 0) {
				say_unknown(head, head_n, why, why_size);
				ret = -EBADMSG;
				break;
			}
		}
		ret = vmt_io_write_full(fd, buf, (size_t)n);
		if (ret) {
			if (why_size)
				snprintf(why, why_size, "cannot copy %s to a temporary file in %s: %s%s",
					 what, dir, strerror(-ret), ret == -ENOSPC ? " (TMPDIR "
					 "chooses another directory)" : "");
			break;
		}
	}
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* "-": standard input; a regular file there is read in place, a pipe copied. */
static int open_stdin(char *why, size_t why_size)
{
	struct stat st;
	int fd;

	if (vmt_proc_std_closed(STDIN_FILENO)) {	/* its number is held on /dev/null */
		say(why, why_size, "standard input is closed");
		return -EBADF;
	}
	if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
		fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
		return fd < 0 ? -errno : fd;
	}
	return copy_pipe(STDIN_FILENO, "standard input", why, why_size);
}

/* A path: a regular file read in place; a FIFO, socket or character device copied. */
static int open_path(const char *path, char *why, size_t why_size)
{
	struct stat st;
	int fd, copy;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
				    S_ISCHR(st.st_mode)))
		return fd;	/* anything else is checked as a file by the caller */
	copy = copy_pipe(fd, S_ISCHR(st.st_mode) ? "the device" : "the pipe", why, why_size);
	close(fd);
	return copy;
}

int vmt_source_open(const char *path, const struct vmt_input_opts *opts,
		    struct vmt_source **out, char *why, size_t why_size)
{
	static const struct vmt_input_opts none;
	uint8_t head[HEAD_SIZE];
	struct vmt_source *s;
	struct stat st;
	size_t i;
	ssize_t n;
	int ret;

	if (why_size)
		why[0] = '\0';
	if (!opts)
		opts = &none;
	s = calloc(1, sizeof(*s));
	if (!s) {
		ret = -ENOMEM;
		goto out_why;
	}
	if (strcmp(path, "-") == 0) {
		s->fd = open_stdin(why, why_size);
		ret = s->fd;
	} else {
		s->fd = open_path(path, why, why_size);
		ret = s->fd;
	}
	if (s->fd < 0)
		goto out_free;
	if (fstat(s->fd, &st) < 0) {
		ret = -errno;
		goto out_free;
	}
	if (!S_ISREG(st.st_mode)) {
		say(why, why_size, "not a regular file");
		ret = -EINVAL;
		goto out_free;
	}
	s->status.file_size = (uint64_t)st.st_size;
	n = vmt_io_pread_full(s->fd, head, sizeof(head), 0);
	if (n < 0) {
		ret = (int)n;
		goto out_free;
	}
	for (i = 0; i < sizeof(loaders) / sizeof(loaders[0]); i++) {
		if (loaders[i]->probe(head, (size_t)n)) {
			s->ops = loaders[i];
			break;
		}
	}
	if (!s->ops) {
		say_unknown(head, (size_t)n, why, why_size);
		ret = -EBADMSG;
		goto out_free;
	}
	s->uses_pair = !s->ops->no_pair;
	s->uses_format_dir = !s->ops->no_format_dir;
	/*
	 * An option this format has no use for would be dropped: refused, and before the
	 * loader tries the file (a trace.bin's guessed layouts, a trace.dat's pair), whose
	 * failure would hide that the option was the mistake.
	 */
	if (opts->refuse_unused && ((opts->pair && s->ops->no_pair) ||
				    (opts->format_dir && s->ops->no_format_dir))) {
		say(why, why_size, opts->pair && s->ops->no_pair ? s->ops->no_pair :
		    s->ops->no_format_dir);
		ret = VMT_SOURCE_EOPTION;
		goto out_free;
	}
	ret = s->ops->open(s, opts, why, why_size);
	if (ret)
		goto out_free;
	*out = s;
	return 0;

out_free:
	vmt_source_close(s);
out_why:
	/* every failure has its words: the loader's, or the error's own */
	if (why_size && !why[0])
		say(why, why_size, strerror(-ret));
	return ret;
}

int vmt_source_held_events(const struct vmt_source *s, char *buf, size_t size)
{
	if (size)
		buf[0] = '\0';
	return s->ops->held_events ? s->ops->held_events(s, buf, size) : -EOPNOTSUPP;
}

void vmt_source_close(struct vmt_source *s)
{
	if (!s)
		return;
	if (s->ops && s->ops->close)
		s->ops->close(s);
	if (s->fd >= 0)
		close(s->fd);
	vmt_kv_free(&s->meta);
	vmt_kv_free(&s->end);
	free(s->chunks);
	free(s);
}

bool vmt_source_hole_before(const struct vmt_source *s, size_t idx)
{
	const struct vmt_chunk_info *ci = &s->chunks[idx];

	if (!ci->holes_before)
		return false;	/* the common case: nothing skipped before it */
	while (idx-- > 0) {
		if (s->chunks[idx].cpu == ci->cpu)
			return s->chunks[idx].holes_before != ci->holes_before;
	}
	return true;	/* its CPU's first chunk: the holes may have held earlier ones */
}

int vmt_source_push_chunk(struct vmt_source *s, const struct vmt_chunk_info *ci)
{
	if (s->nchunks == s->chunks_cap) {
		size_t ncap = s->chunks_cap ? s->chunks_cap * 2 : 64;
		struct vmt_chunk_info *bigger = realloc(s->chunks, ncap * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		s->chunks = bigger;
		s->chunks_cap = ncap;
	}
	s->chunks[s->nchunks++] = *ci;
	return 0;
}

int vmt_source_read_stored(const struct vmt_source *s, size_t idx, struct vmt_chunkbuf *cb,
			   const char **why)
{
	const struct vmt_chunk_info *ci = &s->chunks[idx];
	ssize_t n;

	/* raw pages, nothing to check but that they are all there */
	if (vmt_chunkbuf_grow(&cb->raw, &cb->raw_cap, ci->raw_size)) {
		*why = "out of memory";
		return -ENOMEM;
	}
	n = vmt_io_pread_full(s->fd, cb->raw, ci->raw_size, (off_t)ci->offset);
	if (n < 0 || (uint64_t)n != ci->raw_size) {
		*why = "cannot read the pages";
		return n < 0 ? (int)n : -EIO;
	}
	return 0;
}

const char *vmt_source_probe_fd(int fd)
{
	uint8_t head[HEAD_SIZE];
	struct stat st;
	ssize_t n;
	size_t i;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	n = vmt_io_pread_full(fd, head, sizeof(head), 0);
	for (i = 0; n > 0 && i < NLOADERS; i++) {
		if (loaders[i]->probe(head, (size_t)n))
			/* the loader's name, but a .vmt as its users name it */
			return strcmp(loaders[i]->name, "vmt") ? loaders[i]->name : ".vmt";
	}
	return NULL;
}

const char *vmt_source_format(const struct vmt_source *s)
{
	return s->ops->name;
}

const char *vmt_source_description(const struct vmt_source *s)
{
	return s->description;
}

bool vmt_source_uses_pair(const struct vmt_source *s)
{
	return s->uses_pair;
}

bool vmt_source_uses_format_dir(const struct vmt_source *s)
{
	return s->uses_format_dir;
}

const uint8_t *vmt_source_meta(const struct vmt_source *s, size_t *len)
{
	*len = s->meta.len;
	/* never NULL: an empty META is still a META */
	return s->meta.buf ? s->meta.buf : (const uint8_t *)"";
}

const uint8_t *vmt_source_end(const struct vmt_source *s, size_t *len)
{
	if (!s->end_present) {
		*len = 0;
		return NULL;
	}
	*len = s->end.len;
	return s->end.buf ? s->end.buf : (const uint8_t *)"";
}

const char *vmt_source_state(const struct vmt_source *s, bool damaged)
{
	const struct vmt_source_status *st = &s->status;

	if (!st->finished && !st->end_at)
		return "not finished";
	return !st->finished || damaged ? "damaged" : NULL;
}

const struct vmt_source_status *vmt_source_status(const struct vmt_source *s)
{
	return &s->status;
}

size_t vmt_source_nchunks(const struct vmt_source *s)
{
	return s->nchunks;
}

const struct vmt_chunk_info *vmt_source_chunk(const struct vmt_source *s, size_t idx)
{
	return &s->chunks[idx];
}

void vmt_source_fix_first_ts(struct vmt_source *s, size_t idx, uint64_t ts)
{
	struct vmt_chunk_info *ci = &s->chunks[idx];

	if (!s->status.bad_first_ts++) {
		s->status.bad_first_ts_at = ci->offset;
		s->status.bad_first_ts_cpu = ci->cpu;
	}
	ci->first_ts = ts;
	if (ci->last_ts < ts)
		ci->last_ts = ts;
}

enum vmt_chunk_order vmt_source_order(const struct vmt_source *s)
{
	return s->order;
}

int vmt_source_read_chunk(const struct vmt_source *s, size_t idx, struct vmt_chunkbuf *cb,
			  const char **why)
{
	const char *dummy;

	if (!why)
		why = &dummy;
	return s->ops->read_chunk(s, idx, cb, why);
}

int vmt_source_read_chunk_part(const struct vmt_source *s, size_t idx, uint64_t off,
			       uint64_t len, struct vmt_chunkbuf *cb, const char **why)
{
	const struct vmt_chunk_info *ci = &s->chunks[idx];
	struct vmt_chunkbuf whole;
	const char *dummy;
	int ret;

	if (!why)
		why = &dummy;
	if (off > ci->raw_size || len > ci->raw_size - off) {
		*why = "part beyond the chunk";
		return -EINVAL;
	}
	if (s->ops->read_part)
		return s->ops->read_part(s, idx, off, len, cb, why);
	if (vmt_chunkbuf_grow(&cb->raw, &cb->raw_cap, len ? len : 1)) {
		*why = "out of memory";
		return -ENOMEM;
	}
	/* the thread's context and compressed buffer, its whole-chunk buffer as the pages */
	whole = *cb;
	whole.raw = cb->whole;
	whole.raw_cap = cb->whole_cap;
	ret = s->ops->read_chunk(s, idx, &whole, why);
	cb->dctx = whole.dctx;
	cb->comp = whole.comp;
	cb->comp_cap = whole.comp_cap;
	cb->whole = whole.raw;
	cb->whole_cap = whole.raw_cap;
	if (!ret)
		memcpy(cb->raw, cb->whole + off, len);
	return ret;
}

/*
 * Ask the kernel to read a chunk the walk will want soon: decompression then rarely waits
 * for the disk (the default read-ahead window is far smaller than a chunk).
 */
void vmt_source_advise(const struct vmt_source *s, size_t idx)
{
	const struct vmt_chunk_info *ci;

	if (idx >= s->nchunks)
		return;
	ci = &s->chunks[idx];
	posix_fadvise(s->fd, (off_t)ci->offset, (off_t)(ci->header_size + ci->payload_size),
		      POSIX_FADV_WILLNEED);
}

bool vmt_source_pages_late(const struct vmt_source *s)
{
	return s->pages_late;
}

uint32_t vmt_source_check_pages(const struct vmt_source *s, size_t idx, uint32_t first,
				uint32_t n, const uint8_t *raw)
{
	if (!s->pages_late)
		return first ? 0 : 1;
	return s->ops->check_pages(s, idx, first, n, raw);
}

bool vmt_source_page_left_out(const struct vmt_source *s, size_t idx, uint32_t page)
{
	return s->pages_late && s->ops->left_out(s, idx, page);
}

size_t vmt_source_nchunks_counted(const struct vmt_source *s)
{
	return s->pages_late ? s->ops->nchunks_counted(s) : s->nchunks;
}
