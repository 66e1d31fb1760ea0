// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "lists.h"
#include "reportjson.h"

static int open_tmp(struct report_list *l, bool json)
{
	l->tmp = tmpfile();
	if (!l->tmp)
		return -errno;
	l->json = json;
	if (json) {
		if (vmt_outbuf_init(&l->ob, fileno(l->tmp)))
			return -ENOMEM;
		vmt_jsonw_init(&l->jw, &l->ob);
		vmt_jsonw_array_open(&l->jw, NULL);
	}
	return 0;
}

static int thr_start(void *state, const struct vmt_iter *it)
{
	struct report_list *l = state;

	l->threshold = vmt_clock_ticks(it->clock, l->threshold_ns);
	return 0;
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
		vmt_report_exit_row(l->tmp, l->r, l->s, l->st, p->begin, p->lat, p->why);
		return 0;
	}
	vmt_jsonw_object_open(&l->jw, NULL);
	vmt_report_json_exit(&l->jw, l->r, l->s, p->begin, p->lat, p->why);
	vmt_jsonw_object_close(&l->jw);
	return l->ob.err;
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
	int ret = open_tmp(l, json);

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
		struct vmt_consumer *c)
{
	struct vmt_evdump_opts d = { 0 };
	int ret = open_tmp(l, json);

	if (ret)
		return ret;
	d.out = json ? NULL : l->tmp;
	d.json = json ? &l->jw : NULL;
	d.window = true;
	d.from_ns = from_ns;
	d.to_ns = to_ns;
	d.why = why;
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

/* The bytes written so far, from the start of the temporary file. */
static void copy_tmp(struct report_list *l, struct vmt_outbuf *to, FILE *to_file)
{
	char buf[65536];
	ssize_t n;
	off_t off = 0;

	fflush(l->tmp);
	while ((n = pread(fileno(l->tmp), buf, sizeof(buf), off)) > 0) {
		if (to)
			vmt_outbuf_mem(to, buf, (size_t)n);
		else
			fwrite(buf, 1, (size_t)n, to_file);
		off += n;
	}
}

void list_print_text(struct report_list *l, FILE *out)
{
	if (l->tmp)
		copy_tmp(l, NULL, out);
}

void list_print_json(struct report_list *l, struct vmt_jsonw *w, const char *name,
		     const char *count_name)
{
	if (!l->tmp)
		return;
	vmt_jsonw_array_close(&l->jw);
	vmt_outbuf_flush(&l->ob);
	vmt_jsonw_member(w, name);
	copy_tmp(l, w->o, NULL);
	if (count_name)
		vmt_jsonw_u64(w, count_name, l->count ? l->count : l->dump.lines);
}

void list_free(struct report_list *l)
{
	if (l->json && l->ob.buf)
		vmt_outbuf_finish(&l->ob);
	if (l->tmp)
		fclose(l->tmp);
	vmt_evdump_free(&l->dump);
	l->tmp = NULL;
}
