/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output: the recording's file, or with --continue its numbered files (FILE-001.vmt, ...),
 * one after the other: the name, FILE.PID.part until published, the header and META
 * (the shared metadata plus the file's own start), END, the rename into place, and the
 * rotation from one trigger's file to the next while the collector goes on. Main thread
 * only; the writer it opens is written by the writer queue's thread meanwhile. Messages are
 * printed here.
 */
#ifndef REC_OUTPUT_H
#define REC_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "chunkq.h"
#include "container.h"
#include "kv.h"
#include "session.h"
#include "sysinfo.h"
#include "tracefs.h"
#include "watch.h"

struct rec_output {
	/* set by the caller before rec_output_open() */
	const char *path;		/* -o as given */
	unsigned int max_files;		/* --continue N; 0: one file named path */
	int level;			/* zstd level */
	struct rec_session *ses;	/* for the per-CPU stats at start and end */
	const struct vmt_cpulist *cpus;
	const struct vmt_kvbuf *base;	/* the metadata every file starts with */
	/* the file in progress */
	unsigned int files;		/* opened so far, this one included */
	unsigned int published_files;
	struct vmt_kvbuf meta, end;
	struct vmt_cpustats st0, st1;	/* the first traced CPU's stats at start and end */
	uint64_t lost0, lost1;		/* events lost by every traced CPU's stats, the same */
	/* the entries of the stats at the end: after the final drain, events left unread */
	uint64_t unread;
	bool unread_known;		/* every traced CPU's stats read */
	uint64_t mono0, mono1;
	/*
	 * When tracing was switched off for good (rec_output_tracing_off), the file's end:
	 * its recorded duration ends there, not after the drain (some 100 ms later)
	 */
	bool off;
	uint64_t mono_off, ts_off;
	/* --on-threshold: the end of the time the file holds (0: none), the previous file's */
	uint64_t held_end_ns, prev_end_ns;
	uint64_t chunks0, pages0;	/* the writer queue's chunks, pages before this file */
	char name[PATH_MAX];		/* its final name */
	char tmp[PATH_MAX];		/* where its bytes go until published */
	struct vmt_outfile *out;	/* until published or discarded */
	struct vmt_writer *writer;
	bool finished;			/* END written */
	bool published;			/* renamed to name */
	bool discarded;			/* removed unpublished, name left as it was */
};

/* Tracing was just switched off: the file's time ends now (its trace clock too). */
void rec_output_tracing_off(struct rec_output *op);
/* The trace clock at the file's end: when tracing went off, else the end stats'. */
uint64_t rec_output_end_ts(const struct rec_output *op);

/*
 * File number index (from 1) of path with --continue: "-NNN" (at least 3 digits) before
 * the extension of the last path component, or at the end when it has none
 * (run.vmt -> run-001.vmt, out/trace -> out/trace-001). 0 or -ENAMETOOLONG.
 */
int rec_output_name(const char *path, unsigned int index, char *buf, size_t size);
/*
 * Whether an output (-o's output, NULL with --no-output; --metrics' metrics, or NULL) is
 * the same file as standard output while the recorder writes there too: --live's view, or
 * the summary read back from a file renamed into place (not with quiet), which would go
 * into the file it replaces; or the metrics would replace a recording (a .vmt, trace.bin
 * or trace.dat already there). Then 1, with msg the line that refuses it; else 0.
 */
int rec_output_stdout_clash(const char *output, const char *metrics, bool live, bool quiet,
			    char *msg, size_t size);/*
 * Open the next file (the first, or the next numbered one): its temporary name, the
 * per-CPU stats at start, META, the file header. 0 or -errno (printed).
 */
int rec_output_open(struct rec_output *op);
/* The per-CPU stats and the time at the end into op->end (before the trigger's keys). */
void rec_output_stats_end(struct rec_output *op);
/*
 * After rec_output_stats_end(): the watchers' keys into op->end (the trigger that is done
 * with --continue's rotation, done true; else the last one) and the end of the time the
 * file holds.
 */
void rec_output_watch_end(struct rec_output *op, const struct rec_watch *w, bool done);
/*
 * END (e: how it stopped; e->col may be NULL while the collector runs; its held end is
 * op's) into the file.
 * 0 or -errno (the caller says what failed: it knows how many chunks came before).
 */
int rec_output_finish(struct rec_output *op, const struct rec_end_info *e);
/* Rename the file into place (FILE.old kept), or remove it when !keep. 0 or -errno. */
int rec_output_publish(struct rec_output *op, bool keep);
/*
 * A file left unfinished, in one message: what failed (who: the file or directory, what
 * failed, err; err 0: said before), then where the chunks done ("read", "written") before
 * are kept, or, when the file was discarded for holding none, that the file at its name
 * is as it was (or that none was made).
 */
void rec_output_say_unfinished(const struct rec_output *op, const char *who, const char *what,
			       int err, uint64_t chunks, const char *done);
/*
 * The closing line: "wrote FILE: N chunks, P KiB of pages -> B KiB, stopped by STOP" (the
 * file's bytes), or with no_output (the pages went to /dev/null, stored: no file to speak
 * of, and more bytes than pages) "read N chunks, P KiB of pages; no recording written
 * (--no-output), stopped by STOP" (--metrics' file is written all the same).
 */
void rec_output_say_written(const struct rec_output *op, bool no_output, uint64_t chunks,
			    uint64_t pages_kib, const char *stop);
/*
 * --continue, once the trigger of the file in progress is done (rec_watch_done()): wait
 * until the writer queue wrote its chunks, finish the file with the trigger's keys
 * (stopped by "threshold"), publish it, open the next one, hand the queue its writer and
 * re-arm the trigger. 0 or -errno (printed).
 */
int rec_output_rotate(struct rec_output *op, struct rec_chunkq *q, struct rec_watch *w,
		      const char *clock, bool quiet);
/* The file still open goes (set-up failed, nothing recorded); the buffers. */
void rec_output_free(struct rec_output *op);

#endif
