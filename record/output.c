// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "outfile.h"
#include "output.h"
#include "readback.h"

int rec_output_name(const char *path, unsigned int index, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	int n;

	/* a leading dot names a hidden file, not an extension */
	if (!dot || dot == base)
		dot = base + strlen(base);
	n = snprintf(buf, size, "%.*s-%03u%s", (int)(dot - path), path, index, dot);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int rec_output_stdout_clash(const char *output, const char *metrics, bool live, bool quiet,
			    char *msg, size_t size)
{
	char tmp[PATH_MAX];
	bool renamed = output && vmt_outfile_tmp_name(output, tmp, sizeof(tmp)) == 0;
	const char *what = live ? "standard output (--live's view)" :
			   "standard output (the summary)";

	/* metrics text never replaces a recording (another run's .vmt), as the report's */
	if (metrics && vmt_outfile_over_recording(metrics, "the metrics", msg, size))
		return 1;
	if (!live && (quiet || !renamed))
		return 0;
	return (output && strcmp(output, "-") != 0 &&
		vmt_outfile_clash(output, "the recording's output (-o)", "-", what, msg, size)) ||
	       (metrics && vmt_outfile_clash(metrics, "the --metrics file", "-", what, msg, size));
}

/* The shared metadata, copied: each file adds its own start to it. */
static void kv_copy(struct vmt_kvbuf *dst, const struct vmt_kvbuf *src)
{
	vmt_kv_init(dst);
	dst->error = src->error;
	if (!src->len)
		return;
	dst->buf = malloc(src->len);
	if (!dst->buf) {
		dst->error = -ENOMEM;
		return;
	}
	memcpy(dst->buf, src->buf, src->len);
	dst->len = dst->cap = src->len;
}

int rec_output_open(struct rec_output *op)
{
	char msg[VMT_OUTFILE_MSG_SIZE];
	int ret;

	op->files++;
	op->finished = op->published = false;
	op->held_end_ns = 0;
	vmt_writer_free(op->writer);	/* the queue is idle: the previous file is finished */
	op->writer = NULL;
	if (!op->max_files)
		ret = snprintf(op->name, sizeof(op->name), "%s", op->path) >= (int)sizeof(op->name) ?
		      -ENAMETOOLONG : 0;
	else
		ret = rec_output_name(op->path, op->files, op->name, sizeof(op->name));
	msg[0] = '\0';
	if (!ret)
		ret = vmt_outfile_open(op->name, VMT_OUTFILE_KEEP_OLD | VMT_OUTFILE_KEEP_PARTIAL,
				       &op->out, msg, sizeof(msg));
	if (ret) {
		/* the file the user asks for (FILE, or FILE-NNN), then what failed */
		snprintf(op->tmp, sizeof(op->tmp), "%s", op->name);
		if (msg[0])
			vmt_err("%s", msg);
		else
			vmt_err("%s: cannot create: %s", op->name, strerror(-ret));
		return ret;
	}
	snprintf(op->tmp, sizeof(op->tmp), "%s", vmt_outfile_tmp_path(op->out));
	if (*vmt_outfile_note(op->out))
		vmt_warn_folded("%s: %s", op->name, vmt_outfile_note(op->out));
	vmt_kv_free(&op->meta);
	vmt_kv_free(&op->end);
	kv_copy(&op->meta, op->base);
	vmt_kv_init(&op->end);
	/* each --continue file its own start, by the wall clock and then the monotonic one */
	rec_sysinfo_add_time(&op->meta, "time.start");
	rec_session_add_stats(op->ses, op->cpus, "start", &op->meta, &op->st0, &op->lost0, NULL);
	op->mono0 = rec_sysinfo_now_ns();
	vmt_kv_addf(&op->meta, "monotonic.start_ns", "%" PRIu64, op->mono0);
	ret = vmt_writer_open(vmt_outfile_fd(op->out), &op->meta, op->level, &op->writer);
	if (ret)
		vmt_err("%s: cannot write: %s", op->tmp, strerror(-ret));
	return ret;
}

void rec_output_tracing_off(struct rec_output *op)
{
	struct vmt_cpustats st;
	char rel[64], *text;

	op->mono_off = rec_sysinfo_now_ns();
	op->off = true;
	op->ts_off = 0;
	if (!op->cpus->n)
		return;
	snprintf(rel, sizeof(rel), "per_cpu/cpu%u/stats", op->cpus->cpu[0]);
	if (vmt_tracefs_read(&op->ses->inst, rel, &text))
		return;
	if (vmt_tracefs_parse_stats(text, &st) == 0)
		op->ts_off = st.now_ts;
	free(text);
}

uint64_t rec_output_end_ts(const struct rec_output *op)
{
	return op->off && op->ts_off ? op->ts_off : op->st1.now_ts;
}

void rec_output_stats_end(struct rec_output *op)
{
	op->unread_known = rec_session_add_stats(op->ses, op->cpus, "end", &op->end, &op->st1,
						 &op->lost1, &op->unread) == op->cpus->n;
	/* after the final drain: the file's time ended when tracing went off */
	op->mono1 = op->off ? op->mono_off : rec_sysinfo_now_ns();
}

void rec_output_watch_end(struct rec_output *op, const struct rec_watch *w, bool done)
{
	struct rec_file_start fs = { op->mono0, op->st0.now_ts, op->prev_end_ns };

	op->held_end_ns = done ? rec_watch_end_done(w, &fs, &op->end) :
			  rec_watch_end(w, &fs, &op->end);
}

int rec_output_finish(struct rec_output *op, const struct rec_end_info *e)
{
	struct rec_end_info fe = *e;
	int ret;

	fe.mono_held_end_ns = op->held_end_ns;
	/* the files whose pages run to the stop (drain said): not a flight file, nor a rotation */
	fe.ts_stop = e->drain && op->off ? op->ts_off : 0;
	rec_sysinfo_end(&op->end, &fe);
	ret = vmt_writer_finish(op->writer, &op->end);
	op->finished = !ret;
	/* the next file's time begins where this one's ends (what END says) */
	op->prev_end_ns = fe.mono_held_end_ns && fe.mono_held_end_ns < fe.mono_end_ns ?
			  fe.mono_held_end_ns : fe.mono_end_ns;
	return ret;
}

int rec_output_publish(struct rec_output *op, bool keep)
{
	char target[sizeof(op->name)];
	bool kept_old, old_failed;
	int ret;

	if (!op->out)
		return 0;
	/* where FILE.old goes: next to what a link at FILE leads to */
	snprintf(target, sizeof(target), "%s", vmt_outfile_target(op->out));
	if (!keep) {
		vmt_outfile_discard(op->out);
		op->out = NULL;
		op->discarded = true;
		return 0;
	}
	ret = vmt_outfile_commit_keeping(op->out, &kept_old, &old_failed);
	op->out = NULL;
	if (ret && old_failed) {
		vmt_err("%s.old: cannot move the previous %s there: %s; the recording stays in %s",
			target, target, strerror(-ret), op->tmp);
		return ret;
	}
	if (ret) {
		vmt_err("%s: cannot rename to %s: %s; the recording stays in %s", op->tmp,
			target, strerror(-ret), op->tmp);
		return ret;
	}
	op->published = true;
	op->published_files++;
	if (kept_old)
		vmt_info("the previous %s is kept as %s.old", target, target);
	return 0;
}

void rec_output_say_unfinished(const struct rec_output *op, const char *who, const char *what,
			       int err, uint64_t chunks, const char *done)
{
	const char *cs = chunks == 1 ? "" : "s";	/* "1 chunk", "0 chunks" */
	char fail[PATH_MAX + 128] = "", fate[2 * PATH_MAX + 64], out[sizeof(fate) + 64];

	if (err)
		snprintf(fail, sizeof(fail), "%s: %s: %s;", who, what, strerror(-err));
	if (op->discarded) {
		/* nothing to keep: the previous file is not replaced by nothing, one line */
		if (access(op->name, F_OK) == 0)
			snprintf(fate, sizeof(fate), "%s%snothing %s, %s unchanged", fail,
				 *fail ? " " : "", done, op->name);
		else
			snprintf(fate, sizeof(fate), "%s%snothing %s, no %s made", fail,
				 *fail ? " " : "", done, op->name);
		vmt_err("%s", vmt_log_fold(fate, (unsigned int)strlen(vmt_log_progname()) + 2,
					   VMT_LOG_WIDTH, 2, out, sizeof(out)));
		return;
	}
	/* the file and its problem, then what was kept on a line of its own (one was 149) */
	snprintf(fate, sizeof(fate), "the %" PRIu64 " chunk%s %s before %s kept in %s, not "
		 "finished", chunks, cs, done, *cs ? "are" : "is",
		 op->published ? op->name : op->tmp);
	vmt_log_fold(fate, 2, VMT_LOG_WIDTH, 2, out, sizeof(out));
	vmt_err("%s\n  %s", fail, out);
}

void rec_output_say_written(const struct rec_output *op, bool no_output, uint64_t chunks,
			    uint64_t pages_kib, const char *stop)
{
	const char *cs = chunks == 1 ? "" : "s";	/* "1 chunk", "0 chunks" */
	uint64_t bytes = op->writer ? vmt_writer_bytes(op->writer) : 0;

	if (no_output)
		vmt_info_folded("read %" PRIu64 " chunk%s, %" PRIu64 " KiB of pages; no "
				"recording written (--no-output), stopped by %s", chunks, cs, pages_kib,
				stop);
	else
		vmt_info_folded("wrote %s: %" PRIu64 " chunk%s, %" PRIu64 " KiB of pages -> %"
				PRIu64 " KiB, stopped by %s", op->published ? op->name : op->tmp,
				chunks, cs, pages_kib, bytes / 1024, stop);
}

int rec_output_rotate(struct rec_output *op, struct rec_chunkq *q, struct rec_watch *w,
		      const char *clock, bool quiet)
{
	struct rec_end_info e = { .stop_reason = "threshold", .clock = clock };
	uint64_t chunks;
	int ret;

	/* the ring holds what comes meanwhile: once the queue is empty, the file is whole */
	ret = rec_chunkq_wait_idle(q);
	if (ret)
		return ret;	/* a write error: the caller's final report names it */
	rec_output_stats_end(op);
	rec_output_watch_end(op, w, true);
	e.mono_start_ns = op->mono0;
	e.mono_end_ns = op->mono1;
	e.ts_start = op->st0.now_ts;
	e.ts_end = op->st1.now_ts;
	/* no page counts: they are the collector's, which runs on */
	ret = rec_output_finish(op, &e);
	if (ret) {
		vmt_err("%s: write failed: %s", op->tmp, strerror(-ret));
		return ret;
	}
	ret = rec_output_publish(op, true);
	if (ret)
		return ret;
	chunks = rec_chunkq_written(q) - op->chunks0;
	vmt_info("wrote %s: %" PRIu64 " chunk%s -> %" PRIu64 " KiB, file %u of at most %u",
		 op->name, chunks, chunks == 1 ? "" : "s", vmt_writer_bytes(op->writer) / 1024,
		 op->files, op->max_files);
	if (!quiet)
		rec_readback_summary(op->name);
	ret = rec_output_open(op);
	if (ret)
		return ret;
	op->chunks0 = rec_chunkq_written(q);
	op->pages0 = rec_chunkq_written_pages(q);
	rec_chunkq_set_writer(q, op->writer);
	rec_watch_rearm(w);
	return 0;
}

void rec_output_free(struct rec_output *op)
{
	vmt_writer_free(op->writer);
	op->writer = NULL;
	vmt_outfile_discard(op->out);	/* still open: set-up failed, nothing recorded */
	op->out = NULL;
	vmt_kv_free(&op->meta);
	vmt_kv_free(&op->end);
}
