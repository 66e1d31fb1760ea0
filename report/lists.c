// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "lists.h"
#include "log.h"
#include "reportjson.h"

/*
 * The text list's FILE writes and reads the file through these, which keep the first
 * error's errno: a FILE says only that one happened, and a flush later can lose it.
 */
static ssize_t tmp_read(void *cookie, char *buf, size_t n)
{
	struct report_list *l = cookie;
	ssize_t got = vmt_io_read_full(l->fd, buf, n);

	if (got < 0 && !l->err)
		l->err = (int)got;
	return got < 0 ? -1 : got;
}

static ssize_t tmp_write(void *cookie, const char *buf, size_t n)
{
	struct report_list *l = cookie;
	int ret = vmt_io_write_full(l->fd, buf, n);

	if (ret && !l->err)
		l->err = ret;
	return ret ? 0 : (ssize_t)n;
}

static int tmp_seek(void *cookie, off64_t *off, int whence)
{
	struct report_list *l = cookie;
	off_t to = lseek(l->fd, (off_t)*off, whence);

	if (to < 0)
		return -1;
	*off = to;
	return 0;
}

/*
 * In $TMPDIR as a piped recording's copy (common/source.c): where the user said, named in
 * the messages. Returns 0, or -errno once said.
 */
static int open_tmp(struct report_list *l, bool json, const char *what)
{
	static const cookie_io_functions_t io = { tmp_read, tmp_write, tmp_seek, NULL };

	l->dir = vmt_io_tmpdir();
	l->what = what;
	l->fd = vmt_io_tmpfile(l->dir, "vmtrace-list");
	if (l->fd < 0) {
		vmt_err("cannot make a temporary file in %s for %s: %s", l->dir, what,
			strerror(-l->fd));
		return l->fd;
	}
	l->json = json;
	l->tmp = fopencookie(l, "w+", io);
	if (!l->tmp || (json && vmt_outbuf_init(&l->ob, l->fd))) {
		vmt_err("cannot set up the report: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (json) {
		vmt_jsonw_init(&l->jw, &l->ob);
		vmt_jsonw_array_open(&l->jw, NULL);
	}
	return 0;
}

/* The first error of the file so far: -errno, or 0. */
static int tmp_error(const struct report_list *l)
{
	if (l->err)
		return l->err;
	if (l->json && l->ob.err)
		return l->ob.err;
	return l->tmp && ferror(l->tmp) ? -EIO : 0;
}

static int say_error(const struct report_list *l, int ret, bool reading)
{
	/* the directory first, as a file is named: the line then fits 120 columns with /tmp */
	vmt_err("%s: cannot %s %s %s a temporary file: %s%s", l->dir,
		reading ? "read back" : "write", l->what, reading ? "from" : "to", strerror(-ret),
		ret == -ENOSPC ? " (set TMPDIR)" : "");
	return ret;
}

int list_check(const struct report_list *l)
{
	int ret = tmp_error(l);

	return ret ? say_error(l, ret, false) : 0;
}

int list_finish(struct report_list *l)
{
	if (!l->tmp)
		return 0;
	if (l->json) {
		vmt_jsonw_array_close(&l->jw);
		vmt_outbuf_flush(&l->ob);
	} else {
		fflush(l->tmp);
	}
	return list_check(l);
}

static int thr_start(void *state, const struct vmt_iter *it)
{
	struct report_list *l = state;

	l->threshold = vmt_clock_ticks(it->clock, l->threshold_ns);
	return 0;
}

/*
 * An exit of the text list, kept as it is until the list is printed: the reason column is
 * as wide as the list's longest reason, known only then. The why follows when there is
 * one, its parts but the unused ones (a file of private records, read back by list_print_exits).
 */
struct exit_rec {
	struct vmt_event e;
	uint64_t lat;
	bool has_why;
};

#define WHY_HEAD offsetof(struct vmt_why, parts)

/*
 * rec and why field by field onto zeroed ones: their padding (and a name's bytes after its
 * end) would be bytes never written, which the file need not hold.
 */
_Static_assert(sizeof(struct vmt_event) == 72 && sizeof(struct vmt_whypart) == 48 &&
	       sizeof(struct vmt_why) == 88 + VMT_WHY_MAXPARTS * 48,
	       "exit_rec_write copies every member: a new one is to be copied too");

static int exit_rec_write(FILE *f, const struct vmt_pair *p)
{
	const struct vmt_event *e = p->begin;
	struct exit_rec rec;
	struct vmt_why w;
	unsigned int i;

	memset(&rec, 0, sizeof(rec));
	rec.e.ts = e->ts;
	rec.e.cpu = e->cpu;
	rec.e.pid = e->pid;
	rec.e.kind = e->kind;
	rec.e.flags = e->flags;
	rec.e.has = e->has;
	rec.e.vcpu = e->vcpu;
	rec.e.isa = e->isa;
	rec.e.reason = e->reason;
	rec.e.rip = e->rip;
	rec.e.info1 = e->info1;
	rec.e.info2 = e->info2;
	rec.e.intr_info = e->intr_info;
	rec.e.error_code = e->error_code;
	rec.lat = p->lat;
	rec.has_why = p->why != NULL;
	if (fwrite(&rec, sizeof(rec), 1, f) != 1)
		return -EIO;
	if (!p->why)
		return 0;
	memset(&w, 0, sizeof(w));
	memcpy(w.ticks, p->why->ticks, sizeof(w.ticks));
	w.incomplete = p->why->incomplete;
	w.unknown = p->why->unknown;
	w.before = p->why->before;
	w.plain = p->why->plain;
	w.nparts = p->why->nparts < VMT_WHY_MAXPARTS ? p->why->nparts : VMT_WHY_MAXPARTS;
	w.culprit = p->why->culprit;
	for (i = 0; i < w.nparts; i++) {
		w.parts[i].ticks = p->why->parts[i].ticks;
		w.parts[i].pid = p->why->parts[i].pid;
		w.parts[i].kind = p->why->parts[i].kind;
		snprintf(w.parts[i].name, sizeof(w.parts[i].name), "%s", p->why->parts[i].name);
	}
	if (fwrite(&w, WHY_HEAD + w.nparts * sizeof(w.parts[0]), 1, f) != 1)
		return -EIO;
	return 0;
}

/* The next record of f into rec and why: 1, or 0 at the end (or on a short read). */
static int exit_rec_read(FILE *f, struct exit_rec *rec, struct vmt_why *why)
{
	if (fread(rec, sizeof(*rec), 1, f) != 1)
		return 0;
	if (!rec->has_why)
		return 1;
	if (fread(why, WHY_HEAD, 1, f) != 1 || why->nparts > VMT_WHY_MAXPARTS)
		return 0;
	return !why->nparts || fread(why->parts, why->nparts * sizeof(why->parts[0]), 1, f) == 1;
}

static int thr_pair(void *state, const struct vmt_iter *it, const struct vmt_pair *p,
		    void **task)
{
	struct report_list *l = state;

	(void)it, (void)task;
	if (p->lat < l->threshold)
		return 0;
	l->count++;
	if (!l->json) {
		exit_rec_write(l->tmp, p);
	} else {
		vmt_jsonw_object_open(&l->jw, NULL);
		vmt_report_json_exit(&l->jw, l->r, l->s, p->begin, p->lat, p->why);
		vmt_jsonw_object_close(&l->jw);
	}
	/* the pass stops at once: a list cut short would pass for the whole list */
	return tmp_error(l);
}

static const struct vmt_consumer_ops threshold_ops = {
	.name = "threshold",
	.start = thr_start,
	.pair = thr_pair,
};

int list_threshold(struct report_list *l, bool json, uint64_t threshold_ns,
		   const struct vmt_reader *r, const struct vmt_summary *s,
		   const struct vmt_report_style *st, struct vmt_consumer *c)
{
	int ret = open_tmp(l, json, "the exits over --threshold");

	if (ret)
		return ret;
	l->r = r;
	l->s = s;
	l->st = st;
	l->threshold_ns = threshold_ns;
	c->ops = &threshold_ops;
	c->state = l;
	return 0;
}

int list_around(struct report_list *l, bool json, uint64_t from_ns, uint64_t to_ns, bool why,
		bool wide, struct vmt_consumer *c)
{
	struct vmt_evdump_opts d = { 0 };
	int ret = open_tmp(l, json, "the events --around");

	if (ret)
		return ret;
	d.out = json ? NULL : l->tmp;
	d.json = json ? &l->jw : NULL;
	d.window = true;
	d.from_ns = from_ns;
	d.to_ns = to_ns;
	d.why = why;
	d.wide = wide;	/* every field and every part of a why, as -v --wide gives them */
	return vmt_evdump_consumer(&l->dump, &d, c);
}

void list_around_none(const struct report_list *l, FILE *f, uint64_t at_ns, uint64_t span_ns,
		      uint64_t lasted_ns, bool filtered)
{
	char a[32];

	if (l->dump.lines)
		return;
	if (at_ns > lasted_ns + span_ns)
		fprintf(f, "  none: the recording lasted %s\n", vmt_format_ns(lasted_ns, a, sizeof(a)));
	else
		fprintf(f, filtered ? "  none: no event the filters select then\n" :
			"  none: no event was recorded then\n");
}

/* The bytes written, from the start of the temporary file. Returns 0 or -errno (said). */
static int copy_tmp(struct report_list *l, struct vmt_outbuf *to, FILE *to_file)
{
	char buf[65536];
	ssize_t n;
	off_t off = 0;

	while ((n = vmt_io_pread_full(l->fd, buf, sizeof(buf), off)) > 0) {
		if (to)
			vmt_outbuf_mem(to, buf, (size_t)n);
		else
			fwrite(buf, 1, (size_t)n, to_file);
		off += n;
	}
	return n < 0 ? say_error(l, (int)n, true) : 0;
}

int list_print_text(struct report_list *l, FILE *out)
{
	return l->tmp ? copy_tmp(l, NULL, out) : 0;
}

/* From the first record: fewer than were written is an error (the file lost some). */
static int read_exits(struct report_list *l, FILE *out, unsigned int cols, size_t *longest)
{
	struct vmt_why why;
	struct exit_rec rec;
	uint64_t n = 0;

	if (fseeko(l->tmp, 0, SEEK_SET))
		return say_error(l, -errno, true);
	for (; exit_rec_read(l->tmp, &rec, &why); n++) {
		if (out) {
			vmt_report_exit_row(out, l->r, l->s, l->st, cols, &rec.e, rec.lat,
					    rec.has_why ? &why : NULL);
		} else {
			size_t len = vmt_report_exit_reason_len(l->s, &rec.e);

			*longest = len > *longest ? len : *longest;
		}
	}
	if (n == l->count)
		return 0;
	return say_error(l, l->err ? l->err : ferror(l->tmp) ? -EIO : -ENODATA, true);
}

int list_print_exits(struct report_list *l, FILE *out)
{
	size_t longest = 0;
	unsigned int cols;
	int ret;

	if (!l->tmp || !l->count)
		return 0;
	ret = read_exits(l, NULL, 0, &longest);
	if (ret)
		return ret;
	cols = vmt_report_exit_reason_cols(longest, l->st);
	vmt_report_exit_header(out, l->r, cols);
	return read_exits(l, out, cols, NULL);
}

int list_print_json(struct report_list *l, struct vmt_jsonw *w, const char *name,
		    const char *count_name)
{
	int ret;

	if (!l->tmp)
		return 0;
	vmt_jsonw_member(w, name);
	ret = copy_tmp(l, w->o, NULL);
	if (count_name)
		vmt_jsonw_u64(w, count_name, l->count ? l->count : l->dump.lines);
	return ret;
}

void list_free(struct report_list *l)
{
	if (l->json && l->ob.buf)
		vmt_outbuf_finish(&l->ob);
	if (l->tmp)
		fclose(l->tmp);
	if (l->tmp || l->fd > 0)
		close(l->fd);
	vmt_evdump_free(&l->dump);
	l->tmp = NULL;
}
