// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source: format sniffing (each magic, an empty file, a directory, short files, a bad
 * magic, a missing file; a pipe judged as its bytes arrive, an endless one refused), the error text in the caller's buffer (never a shared one), the
 * trace.bin loader's three ways to its formats, and the same real pages (17 recorded KVM
 * pages, repeated later in time) written here by hand as .vmt, trace.bin and trace.dat v6:
 * every loader must give back the same pages, parts of chunks, and the reader the same
 * records, also read in windows.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "bytes.h"
#include "container.h"
#include "evformat.h"
#include "io.h"
#include "kv.h"
#include "legacyfmt.h"
#include "metakeys.h"
#include "reader.h"
#include "source.h"

#define PAGE 4096
#define REPEAT 16		/* 17 pages x 16: more than one 256-page slice */
#define VMT_CHUNK_PAGES 100
#define TRACEDAT_MAGIC "\x17\x08\x44tracing"

struct fixture {
	char dir[64];
	char path[3][128];	/* .vmt, trace.bin, trace.dat */
	uint8_t *pages;
	size_t npages;
	char *hp, *fx, *fe;	/* header_page and the kvm formats of the recording host */
	size_t lhp, lfx, lfe;
	uint16_t exit_id, entry_id;
};

/* what vmt_source_open says of a file no loader takes, before what the file is */
#define NOT_READ "not a vmtrace recording, a trace.dat or a trace.bin "

static const char *data(const char *rel)
{
	static char p[512];

	snprintf(p, sizeof(p), "%s/tests/data/%s", TOP_SRCDIR, rel);
	return p;
}

#define KVMHOST "formats/linux-6.1-kvmhost"

static void write_bytes(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(vmt_io_write_full(fd, buf, len), 0);
	close(fd);
}

static uint16_t format_id(const char *text, size_t len)
{
	struct vmt_evformat *f;
	uint16_t id;

	assert_int_equal(vmt_evformat_parse(text, len, "kvm", &f, NULL), 0);
	id = (uint16_t)f->id;
	vmt_evformat_free(f);
	return id;
}

static void write_vmt(struct fixture *fx)
{
	struct vmt_kvbuf meta, end;
	struct vmt_writer *w;
	size_t p;
	int fd;

	vmt_kv_init(&meta);
	vmt_kv_add(&meta, VMT_META_HEADER_PAGE, fx->hp, fx->lhp);
	vmt_kv_add_str(&meta, VMT_META_EVENT_BEGIN, "kvm:kvm_exit");
	vmt_kv_add_str(&meta, VMT_META_EVENT_END, "kvm:kvm_entry");
	vmt_kv_add(&meta, VMT_META_FORMAT_BEGIN, fx->fx, fx->lfx);
	vmt_kv_add(&meta, VMT_META_FORMAT_END, fx->fe, fx->lfe);
	vmt_kv_add_str(&meta, VMT_META_CLOCK, "local");
	vmt_kv_init(&end);
	fd = open(fx->path[0], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(vmt_writer_open(fd, &meta, VMT_DEFAULT_LEVEL, &w), 0);
	for (p = 0; p < fx->npages; p += VMT_CHUNK_PAGES) {
		struct vmt_chunk_info ci = { .cpu = 0 };
		uint32_t n = fx->npages - p < VMT_CHUNK_PAGES ? (uint32_t)(fx->npages - p) :
								 VMT_CHUNK_PAGES;

		assert_int_equal(vmt_writer_chunk(w, fx->pages + p * PAGE, n, PAGE, &ci), 0);
	}
	assert_int_equal(vmt_writer_finish(w, &end), 0);
	vmt_writer_free(w);
	assert_int_equal(close(fd), 0);
	vmt_kv_free(&meta);
	vmt_kv_free(&end);
}

static void write_legacy(const struct fixture *fx, const char *path, uint16_t entry,
			 uint16_t exit)
{
	size_t len = VMT_LEGACY_HEADER_SIZE + fx->npages * PAGE;
	uint8_t *b = malloc(len);

	put_le32(b, VMT_LEGACY_SIGNATURE);
	put_le16(b + 4, entry);
	put_le16(b + 6, exit);
	memcpy(b + VMT_LEGACY_HEADER_SIZE, fx->pages, fx->npages * PAGE);
	write_bytes(path, b, len);
	free(b);
}

struct buf {
	uint8_t *b;
	size_t len;
};

static void put(struct buf *o, const void *p, size_t n)
{
	o->b = realloc(o->b, o->len + n);
	assert_non_null(o->b);
	memcpy(o->b + o->len, p, n);
	o->len += n;
}

static void put32(struct buf *o, uint32_t v)
{
	uint8_t b[4];

	put_le32(b, v);
	put(o, b, 4);
}

static void put64(struct buf *o, uint64_t v)
{
	uint8_t b[8];

	put_le64(b, v);
	put(o, b, 8);
}

/* trace-cmd.dat.v6(5): headers, one system of two formats, one CPU's pages, no options. */
static void write_tracedat(const struct fixture *fx)
{
	struct buf o = { NULL, 0 };
	size_t table;

	put(&o, TRACEDAT_MAGIC, 10);
	put(&o, "6", 2);
	put(&o, "\0\x08", 2);			/* little-endian, 8-byte longs */
	put32(&o, PAGE);
	put(&o, "header_page", 12);
	put64(&o, fx->lhp);
	put(&o, fx->hp, fx->lhp);
	put(&o, "header_event", 13);
	put64(&o, 0);
	put32(&o, 0);				/* ftrace formats */
	put32(&o, 1);				/* event systems */
	put(&o, "kvm", 4);
	put32(&o, 2);
	put64(&o, fx->lfx);
	put(&o, fx->fx, fx->lfx);
	put64(&o, fx->lfe);
	put(&o, fx->fe, fx->lfe);
	put32(&o, 0);				/* kallsyms */
	put32(&o, 0);				/* printk formats */
	put64(&o, 0);				/* saved command lines */
	put32(&o, 1);				/* CPUs */
	put(&o, "flyrecord", 10);
	table = o.len;
	put64(&o, 0);
	put64(&o, (uint64_t)fx->npages * PAGE);
	while (o.len % PAGE)
		put(&o, "", 1);
	put_le64(o.b + table, o.len);
	put(&o, fx->pages, fx->npages * PAGE);
	write_bytes(fx->path[2], o.b, o.len);
	free(o.b);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char *real;
	size_t len, r;

	snprintf(fx->dir, sizeof(fx->dir), "/tmp/vmt-source-XXXXXX");
	if (!fx || !mkdtemp(fx->dir))
		return -1;
	snprintf(fx->path[0], sizeof(fx->path[0]), "%s/t.vmt", fx->dir);
	snprintf(fx->path[1], sizeof(fx->path[1]), "%s/trace.bin", fx->dir);
	snprintf(fx->path[2], sizeof(fx->path[2]), "%s/trace.dat", fx->dir);
	assert_int_equal(vmt_io_read_file(data("pages/kvm-svm-cpu1.pages"), 1 << 20, &real, &len),
			 0);
	assert_int_equal(len % PAGE, 0);
	fx->npages = len / PAGE * REPEAT;
	fx->pages = malloc(fx->npages * PAGE);
	for (r = 0; r < REPEAT; r++) {
		size_t q;

		memcpy(fx->pages + r * len, real, len);
		/*
		 * each copy later than the one before, as a CPU's pages are (the trace.dat loader
		 * leaves out a page stamped before the page before it): its pages' times (their
		 * first 8 bytes) moved by the copies' span and a millisecond
		 */
		for (q = 0; r && q < len; q += PAGE)
			put_le64(fx->pages + r * len + q, get_le64(real + q) +
				 r * (get_le64(real + len - PAGE) - get_le64(real) + 1000000));
	}
	free(real);
	assert_int_equal(vmt_io_read_file(data(KVMHOST "/header_page"), 1 << 20, &fx->hp,
					  &fx->lhp), 0);
	assert_int_equal(vmt_io_read_file(data(KVMHOST "/kvm/kvm_exit/format"), 1 << 20, &fx->fx,
					  &fx->lfx), 0);
	assert_int_equal(vmt_io_read_file(data(KVMHOST "/kvm/kvm_entry/format"), 1 << 20, &fx->fe,
					  &fx->lfe), 0);
	fx->exit_id = format_id(fx->fx, fx->lfx);
	fx->entry_id = format_id(fx->fe, fx->lfe);
	write_vmt(fx);
	write_legacy(fx, fx->path[1], fx->entry_id, fx->exit_id);
	write_tracedat(fx);
	/* no host formats: the trace.bin loader must not look at this machine's tracefs */
	setenv("VMTRACE_TRACEFS", fx->dir, 1);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char p[200];
	unsigned int i;

	for (i = 0; i < 3; i++)
		unlink(fx->path[i]);
	snprintf(p, sizeof(p), "%s/x", fx->dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/events", fx->dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/d", fx->dir);
	rmdir(p);
	rmdir(fx->dir);
	unsetenv("VMTRACE_TRACEFS");
	free(fx->pages);
	free(fx->hp);
	free(fx->fx);
	free(fx->fe);
	free(fx);
	return 0;
}

/* Open bytes written to DIR/x; returns the status, why filled. */
static int open_bytes(const struct fixture *fx, const void *b, size_t n, char *why,
		      size_t why_size, const char **format)
{
	struct vmt_source *s = NULL;
	char p[200];
	int ret;

	snprintf(p, sizeof(p), "%s/x", fx->dir);
	write_bytes(p, b, n);
	ret = vmt_source_open(p, NULL, &s, why, why_size);
	if (format)
		*format = ret ? NULL : vmt_source_format(s);
	if (!ret)
		assert_non_null(s);
	vmt_source_close(s);
	return ret;
}

static void test_sniffing(void **state)
{
	static const char *const names[] = { "vmt", "trace.bin", "trace.dat" };
	struct fixture *fx = *state;
	uint8_t junk[64];
	struct vmt_source *s;
	struct vmt_reader *r;
	char why[128], p[200];
	unsigned int i;

	/* each magic goes to its loader (the trace.bin's real 6.1 pages with their formats) */
	for (i = 0; i < 3; i++) {
		struct vmt_input_opts in = { .format_dir = i == 1 ? data(KVMHOST) : NULL };

		assert_int_equal(vmt_source_open(fx->path[i], &in, &s, why, sizeof(why)), 0);
		assert_string_equal(vmt_source_format(s), names[i]);
		vmt_source_close(s);
	}
	/* what a file is not, and what it starts with: its first line, up to 12 bytes */
	assert_int_equal(open_bytes(fx, "", 0, why, sizeof(why), NULL), -EBADMSG);
	assert_string_equal(why, NOT_READ "(it is empty)");
	memset(junk, 'x', sizeof(junk));
	assert_int_equal(open_bytes(fx, junk, sizeof(junk), why, sizeof(why), NULL), -EBADMSG);
	assert_string_equal(why, NOT_READ "(it starts with 'xxxxxxxxxxxx')");
	assert_int_equal(open_bytes(fx, "a'b\\\nc", 5, why, sizeof(why), NULL), -EBADMSG);
	assert_string_equal(why, NOT_READ "(it starts with 'a\\x27b\\x5c')");
	/* past 4 bytes, up to the first one that is not printable */
	assert_int_equal(open_bytes(fx, "\x7f" "ELF\x02\x01", 6, why, sizeof(why), NULL), -EBADMSG);
	assert_string_equal(why, NOT_READ "(it starts with '\\x7fELF')");
	assert_int_equal(open_bytes(fx, "\x1f\x8b\x08", 3, why, sizeof(why), NULL), -EBADMSG);
	assert_string_equal(why, NOT_READ "(it is gzip-compressed)");
	/* a format's magic (or 4 bytes of it) in a file shorter than its header: cut */
	assert_int_equal(open_bytes(fx, "VMTRA", 5, why, sizeof(why), NULL), -EBADMSG);
	assert_string_equal(why, "truncated: the file is cut inside the header of a vmtrace "
			    "recording (5 bytes)");
	assert_int_equal(open_bytes(fx, VMT_FILE_MAGIC "1234567", 15, why, sizeof(why), NULL),
			 -EBADMSG);
	assert_string_equal(why, "truncated: the file is cut inside the header of a vmtrace "
			    "recording (15 bytes)");
	assert_int_equal(open_bytes(fx, TRACEDAT_MAGIC, 9, why, sizeof(why), NULL), -EBADMSG);
	assert_string_equal(why, "truncated: the file is cut inside the header of a trace.dat "
			    "(9 bytes)");
	put_le32(junk, VMT_LEGACY_SIGNATURE);
	assert_int_equal(open_bytes(fx, junk, 7, why, sizeof(why), NULL), -EBADMSG);
	assert_string_equal(why, "truncated: the file is cut inside the header of a trace.bin "
			    "(7 bytes)");
	assert_int_equal(open_bytes(fx, "VMT", 3, why, sizeof(why), NULL), -EBADMSG);
	assert_string_equal(why, NOT_READ "(it starts with 'VMT')");
	/* a trace.bin header and no page: a whole, empty recording */
	put_le16(junk + 4, fx->entry_id);
	put_le16(junk + 6, fx->exit_id);
	assert_int_equal(open_bytes(fx, junk, 8, why, sizeof(why), NULL), 0);
	/* the magic decides, not the name */
	assert_int_equal(open_bytes(fx, TRACEDAT_MAGIC "9", 11, why, sizeof(why), NULL),
			 -EBADMSG);
	assert_string_equal(why, "truncated: the file is cut at byte 11, inside its first header");
	/* not a file */
	snprintf(p, sizeof(p), "%s/d", fx->dir);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(vmt_source_open(p, NULL, &s, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "not a regular file");
	/* no file: the error's own words */
	snprintf(p, sizeof(p), "%s/none", fx->dir);
	assert_int_equal(vmt_source_open(p, NULL, &s, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, strerror(ENOENT));
	/* the reader says the same */
	assert_int_equal(vmt_reader_open(p, NULL, &r, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, strerror(ENOENT));
}

/*
 * A child writes into a pipe: a stream without end for a reader that reads on (1: "y\n" as
 * yes(1) does, up to 64 MiB: the child's exit status 2), or file's bytes,
 * the first 16 one at a time (0). Returns the read end's /dev/fd/N in name; *pid the child.
 */
static int pipe_from_child(int endless, const char *file, char *name, size_t size, pid_t *pid)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	*pid = fork();
	assert_true(*pid >= 0);
	if (*pid == 0) {
		char *buf = NULL;
		size_t len = 0, i;

		close(p[0]);
		if (endless) {
			/* EPIPE once the reader gave up; 2 when it read on and on (64 MiB) */
			signal(SIGPIPE, SIG_IGN);
			for (i = 0; i < (64u << 20) / 8; i++) {
				if (write(p[1], "y\ny\ny\ny\n", 8) < 0)
					_exit(errno == EPIPE ? 0 : 1);
			}
			_exit(2);
		}
		if (vmt_io_read_file(file, 64 << 20, &buf, &len))
			_exit(1);
		for (i = 0; i < 16 && i < len; i++) {
			if (write(p[1], buf + i, 1) != 1)
				_exit(1);
			usleep(1000);
		}
		_exit(vmt_io_write_full(p[1], buf + i, len - i) ? 1 : 0);
	}
	close(p[1]);
	snprintf(name, size, "/dev/fd/%d", p[0]);
	return p[0];
}

/*
 * A pipe is judged as its bytes arrive: an endless stream no loader takes is refused (not
 * copied until the disk is full: the test would not end), a recording that arrives a byte at
 * a time is still taken whole.
 */
static void test_pipe_probe(void **state)
{
	struct fixture *fx = *state;
	struct vmt_source *s;
	char why[160], name[32];
	int status, rd;
	pid_t pid;

	rd = pipe_from_child(1, NULL, name, sizeof(name), &pid);
	assert_int_equal(vmt_source_open(name, NULL, &s, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, NOT_READ "(it starts with 'y')");
	close(rd);	/* the writer gets EPIPE and ends */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	rd = pipe_from_child(0, fx->path[0], name, sizeof(name), &pid);
	assert_int_equal(vmt_source_open(name, NULL, &s, why, sizeof(why)), 0);
	assert_string_equal(vmt_source_format(s), "vmt");
	assert_true(vmt_source_nchunks(s) > 0);
	vmt_source_close(s);
	close(rd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* a character device: the same words, at once (/dev/zero never ends) */
	assert_int_equal(vmt_source_open("/dev/zero", NULL, &s, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, NOT_READ "(it starts with '\\x00\\x00\\x00\\x00')");
}

/* The caller's buffer holds the words, cut to its size; no buffer at all is fine too. */
static void test_why_buffer(void **state)
{
	struct vmt_input_opts a = { .pair = "kvm:kvm_exit,kvm:nope" };
	struct vmt_input_opts b = { .pair = "kvm:other,kvm:kvm_entry" };
	struct fixture *fx = *state;
	char small[6], why_a[320], why_b[320];
	struct vmt_source *s;
	struct vmt_reader *r;

	assert_int_equal(open_bytes(fx, "", 0, small, sizeof(small), NULL), -EBADMSG);
	assert_string_equal(small, "not a");
	assert_int_equal(open_bytes(fx, "", 0, NULL, 0, NULL), -EBADMSG);
	/* two formatted messages at once: each in its own buffer */
	assert_int_equal(vmt_source_open(data("tracedat/kvm.v6.dat"), &a, &s, why_a,
					 sizeof(why_a)), -ENOENT);
	assert_int_equal(vmt_source_open(data("tracedat/kvm.v6.dat"), &b, &s, why_b,
					 sizeof(why_b)), -ENOENT);
	assert_string_equal(why_a, "no kvm:nope event format in the file (the pair "
			    "kvm:kvm_exit,kvm:nope); it holds records of kvm:kvm_exit (624) and "
			    "kvm:kvm_entry (624): choose the pair with --pair BEGIN,END");
	assert_string_equal(why_b, "no kvm:other event format in the file (the pair "
			    "kvm:other,kvm:kvm_entry); it holds records of kvm:kvm_exit (624) and "
			    "kvm:kvm_entry (624): choose the pair with --pair BEGIN,END");
	/* the reader passes the source's words through */
	assert_int_equal(vmt_reader_open(data("tracedat/kvm.v6.dat"), &a, &r, why_b,
					 sizeof(why_b)), -ENOENT);
	assert_string_equal(why_b, why_a);
}

/* Where a trace.bin's formats come from, in the loader's own words. */
static void test_legacy_formats(void **state)
{
	struct fixture *fx = *state;
	struct vmt_input_opts in = { 0 };
	struct vmt_source *s;
	char why[320], want[640], events[200];
	const uint8_t *meta;
	size_t len;
	char *text;

	/* --format-dir */
	in.format_dir = data(KVMHOST);
	assert_int_equal(vmt_source_open(fx->path[1], &in, &s, why, sizeof(why)), 0);
	snprintf(want, sizeof(want), "formats from %s", data(KVMHOST));
	assert_string_equal(vmt_source_description(s), want);
	assert_true(vmt_source_uses_format_dir(s));
	assert_false(vmt_source_uses_pair(s));
	meta = vmt_source_meta(s, &len);
	text = vmt_kv_get_str(meta, len, VMT_META_FORMAT_BEGIN);
	assert_string_equal(text, fx->fx);
	free(text);
	text = vmt_kv_get_str(meta, len, VMT_META_HEADER_PAGE);
	assert_string_equal(text, fx->hp);
	free(text);
	assert_null(vmt_source_end(s, &len));
	vmt_source_close(s);
	/* a directory of another kernel: its ids differ from the header's */
	in.format_dir = data("formats/linux-6.18-x86_64");
	assert_int_equal(vmt_source_open(fx->path[1], &in, &s, why, sizeof(why)), -EINVAL);
	snprintf(want, sizeof(want), "--format-dir %s: its event ids differ from the trace.bin "
		 "header's", in.format_dir);
	assert_string_equal(why, want);
	in.format_dir = fx->dir;
	assert_int_equal(vmt_source_open(fx->path[1], &in, &s, why, sizeof(why)), -EINVAL);
	snprintf(want, sizeof(want), "--format-dir %s: cannot read %s/kvm/kvm_exit/format: %s",
		 fx->dir, fx->dir, strerror(ENOENT));
	assert_string_equal(why, want);
	/*
	 * This host's tracefs (VMTRACE_TRACEFS) has no formats: the original tool's layout is
	 * tried, and the 6.1 pages do not decode with it (isa lands in info1).
	 */
	assert_int_equal(vmt_source_open(fx->path[1], NULL, &s, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "the events do not decode with the original tool's 2015 "
			       "layout ("));
	assert_non_null(strstr(why, "exits have an isa other than 1 or 2); give --format-dir DIR"));
	/* ... and when its ids match, this host's */
	snprintf(events, sizeof(events), "%s/events", fx->dir);
	assert_int_equal(symlink(data(KVMHOST), events), 0);
	assert_int_equal(vmt_source_open(fx->path[1], NULL, &s, why, sizeof(why)), 0);
	snprintf(want, sizeof(want), "formats from this host's %s (the ids match)", events);
	assert_string_equal(vmt_source_description(s), want);
	vmt_source_close(s);
	unlink(events);
	/* one id twice */
	write_legacy(fx, events, fx->exit_id, fx->exit_id);
	assert_int_equal(vmt_source_open(events, NULL, &s, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "trace.bin header names the same event twice");
	unlink(events);
}

/*
 * Options a format has no use for: ignored by default, refused with refuse_unused as soon
 * as the format is known: --pair on a trace.bin says so, not that no layout fits (the
 * fixture's trace.bin does not decode with the guessed one: test_legacy_formats).
 */
static void test_unused_options(void **state)
{
	struct fixture *fx = *state;
	static const struct {
		unsigned int path;
		bool pair, dir;
		const char *why;
	} cases[] = {
		{ 1, true, false, "--pair does not apply: a trace.bin holds kvm_exit and "
				  "kvm_entry" },
		{ 0, true, false, "--pair does not apply: a .vmt file names its own event pair" },
		{ 0, false, true, "--format-dir does not apply: a .vmt file carries its own event "
				  "formats" },
		{ 2, false, true, "--format-dir does not apply: a trace.dat carries its own event "
				  "formats" },
	};
	struct vmt_input_opts in;
	struct vmt_source *s;
	char why[320];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&in, 0, sizeof(in));
		in.pair = cases[i].pair ? "kvm:kvm_exit,kvm:kvm_entry" : NULL;
		in.format_dir = cases[i].dir ? data(KVMHOST) : NULL;
		in.refuse_unused = true;
		assert_int_equal(vmt_source_open(fx->path[cases[i].path], &in, &s, why,
						 sizeof(why)), VMT_SOURCE_EOPTION);
		assert_string_equal(why, cases[i].why);
	}
	/* without refuse_unused the option is ignored (the trace.bin with its formats) */
	memset(&in, 0, sizeof(in));
	in.pair = "kvm:kvm_exit,kvm:kvm_entry";
	in.format_dir = data(KVMHOST);
	for (i = 0; i < 3; i++) {
		assert_int_equal(vmt_source_open(fx->path[i], &in, &s, why, sizeof(why)), 0);
		assert_int_equal(vmt_source_uses_pair(s), i == 2);
		assert_int_equal(vmt_source_uses_format_dir(s), i == 1);
		vmt_source_close(s);
	}
}

/* The pages of all chunks of a source, in order (one CPU: 0). */
static uint8_t *all_pages(const char *path, const struct vmt_input_opts *in, size_t *len,
			  size_t *nchunks)
{
	struct vmt_chunkbuf cb = { 0 };
	struct vmt_source *s;
	uint8_t *out = NULL;
	size_t i;

	*len = 0;
	assert_int_equal(vmt_source_open(path, in, &s, NULL, 0), 0);
	assert_true(vmt_source_status(s)->finished);
	*nchunks = vmt_source_nchunks(s);
	for (i = 0; i < *nchunks; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(s, i);
		const char *why = NULL;

		assert_int_equal(ci->cpu, 0);
		assert_int_equal(ci->page_size, PAGE);
		assert_int_equal(ci->raw_size, (uint64_t)ci->page_count * PAGE);
		assert_int_equal(vmt_source_read_chunk(s, i, &cb, &why), 0);
		out = realloc(out, *len + ci->raw_size);
		memcpy(out + *len, cb.raw, ci->raw_size);
		*len += ci->raw_size;
		vmt_source_advise(s, i + 1);	/* a hint, past the end too */
	}
	vmt_chunkbuf_free(&cb);
	vmt_source_close(s);
	return out;
}

static void test_same_pages(void **state)
{
	struct fixture *fx = *state;
	struct vmt_input_opts in = { .format_dir = data(KVMHOST) };
	size_t expect[3] = { (fx->npages + VMT_CHUNK_PAGES - 1) / VMT_CHUNK_PAGES,
			     (fx->npages + 255) / 256, (fx->npages + 255) / 256 };
	unsigned int f;

	assert_true(fx->npages > 256);
	for (f = 0; f < 3; f++) {
		size_t len, n;
		uint8_t *p = all_pages(fx->path[f], &in, &len, &n);

		assert_int_equal(n, expect[f]);
		assert_int_equal(len, fx->npages * PAGE);
		assert_memory_equal(p, fx->pages, len);
		free(p);
	}
}

/* The same records from every format: time, CPU and bytes, in the same order. */
static void test_same_records(void **state)
{
	struct fixture *fx = *state;
	struct vmt_input_opts in = { .format_dir = data(KVMHOST) };
	struct vmt_reader *r[3];
	char why[320];
	uint64_t exits = 0, entries = 0;
	unsigned int f;

	for (f = 0; f < 3; f++) {
		assert_int_equal(vmt_reader_open(fx->path[f], &in, &r[f], why, sizeof(why)), 0);
		assert_int_equal(vmt_reader_begin_format(r[f])->id, fx->exit_id);
		assert_int_equal(vmt_reader_end_format(r[f])->id, fx->entry_id);
		/* none of the three holds context events: "not recorded", for trace.bin too */
		assert_null(vmt_reader_context_names(r[f]));
	}
	for (;;) {
		struct vmt_item it[3];
		int got[3];
		struct vmt_event ev;

		for (f = 0; f < 3; f++)
			got[f] = vmt_reader_next(r[f], &it[f]);
		assert_int_equal(got[1], got[0]);
		assert_int_equal(got[2], got[0]);
		if (!got[0])
			break;
		for (f = 1; f < 3; f++) {
			assert_int_equal(it[f].kind, it[0].kind);
			assert_int_equal(it[f].ts, it[0].ts);
			assert_int_equal(it[f].cpu, it[0].cpu);
			if (it[0].kind != VMT_ITEM_RECORD)
				continue;
			assert_int_equal(it[f].rec.len, it[0].rec.len);
			assert_memory_equal(it[f].rec.data, it[0].rec.data, it[0].rec.len);
		}
		if (it[0].kind == VMT_ITEM_RECORD &&
		    vmt_evbind_decode(vmt_reader_bind(r[0]), &it[0].rec, 0, &ev) == 1) {
			exits += ev.kind == VMT_EV_BEGIN;
			entries += ev.kind == VMT_EV_END;
		}
	}
	assert_int_equal(vmt_reader_stats(r[0])->pages, fx->npages);
	/* the recording is KVM exits and entries: both decode */
	assert_true(exits > 0);
	assert_true(entries > 0);
	for (f = 0; f < 3; f++) {
		assert_int_equal(vmt_reader_stats(r[f])->records, vmt_reader_stats(r[0])->records);
		assert_int_equal(vmt_reader_stats(r[f])->bad_pages, 0);
	}
	for (f = 0; f < 3; f++)
		vmt_reader_close(r[f]);
}

/*
 * Parts of every chunk (vmt_source_read_chunk_part) are the bytes of the whole chunk: the
 * .vmt's zstd frame decoded as a stream and stopped, the trace.bin's and trace.dat's
 * stored pages read whole and copied; at page edges and between them, empty, to the end,
 * in any order with one buffer; beyond the chunk refused.
 */
static void test_parts(void **state)
{
	struct fixture *fx = *state;
	struct vmt_input_opts in = { .format_dir = data(KVMHOST) };
	unsigned int f;

	for (f = 0; f < 3; f++) {
		struct vmt_chunkbuf whole = { 0 }, part = { 0 };
		struct vmt_source *s;
		size_t i;

		assert_int_equal(vmt_source_open(fx->path[f], &in, &s, NULL, 0), 0);
		for (i = 0; i < vmt_source_nchunks(s); i++) {
			const struct vmt_chunk_info *ci = vmt_source_chunk(s, i);
			uint64_t raw = ci->raw_size;
			const uint64_t cut[][2] = {
				{ 0, raw }, { raw - PAGE, PAGE }, { 0, PAGE }, { PAGE, 3 * PAGE },
				{ 3 * PAGE + 17, 5 * PAGE - 40 }, { raw - 1, 1 }, { raw, 0 },
				{ raw / 2, raw - raw / 2 }, { 1, 0 },
			};
			const char *why = NULL;
			unsigned int k;

			assert_true(raw >= 8 * PAGE);
			assert_int_equal(vmt_source_read_chunk(s, i, &whole, &why), 0);
			for (k = 0; k < sizeof(cut) / sizeof(cut[0]); k++) {
				assert_int_equal(vmt_source_read_chunk_part(s, i, cut[k][0], cut[k][1],
									    &part, &why), 0);
				assert_memory_equal(part.raw, whole.raw + cut[k][0], cut[k][1]);
			}
			assert_int_equal(vmt_source_read_chunk_part(s, i, raw - PAGE, PAGE + 1, &part,
								    &why), -EINVAL);
			assert_int_equal(vmt_source_read_chunk_part(s, i, raw + 1, 0, &part, &why),
					 -EINVAL);
			assert_int_equal(vmt_source_read_chunk_part(s, i, 1, UINT64_MAX, &part, &why),
					 -EINVAL);
		}
		vmt_chunkbuf_free(&whole);
		vmt_chunkbuf_free(&part);
		vmt_source_close(s);
	}
}

/*
 * Each format walked in windows of 3 pages (VMTRACE_TEST_WINDOW, as the reader does for
 * recordings of many CPUs in large chunks) gives the records of the .vmt walked whole.
 */
static void test_windows(void **state)
{
	struct fixture *fx = *state;
	struct vmt_input_opts in = { .format_dir = data(KVMHOST) };
	struct vmt_reader *r[4];
	uint64_t n = 0;
	unsigned int f;

	assert_int_equal(vmt_reader_open(fx->path[0], &in, &r[0], NULL, 0), 0);
	setenv("VMTRACE_TEST_WINDOW", "12288", 1);
	for (f = 0; f < 3; f++)
		assert_int_equal(vmt_reader_open(fx->path[f], &in, &r[f + 1], NULL, 0), 0);
	unsetenv("VMTRACE_TEST_WINDOW");
	for (;;) {
		struct vmt_item it[4];
		int got[4];

		for (f = 0; f < 4; f++)
			got[f] = vmt_reader_next(r[f], &it[f]);
		for (f = 1; f < 4; f++)
			assert_int_equal(got[f], got[0]);
		if (!got[0])
			break;
		n += it[0].kind == VMT_ITEM_RECORD;
		for (f = 1; f < 4; f++) {
			assert_int_equal(it[f].kind, it[0].kind);
			assert_int_equal(it[f].ts, it[0].ts);
			if (it[0].kind != VMT_ITEM_RECORD)
				continue;
			assert_int_equal(it[f].rec.len, it[0].rec.len);
			assert_memory_equal(it[f].rec.data, it[0].rec.data, it[0].rec.len);
		}
	}
	assert_true(n > 0);
	for (f = 0; f < 4; f++) {
		assert_int_equal(vmt_reader_stats(r[f])->records, n);
		assert_int_equal(vmt_reader_stats(r[f])->pages, fx->npages);
		assert_int_equal(vmt_reader_stats(r[f])->bad_chunks, 0);
		vmt_reader_close(r[f]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sniffing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_probe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_why_buffer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_legacy_formats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unused_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_windows, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
