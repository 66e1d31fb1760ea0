// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtrace-record: record a begin/end tracepoint pair (kvm_exit/kvm_entry by default) on
 * the traced CPUs into a .vmt file. main() is the list of phases; struct recorder holds
 * what they share. Threads: main (set-up, signals, finalisation), collector (collector.c)
 * and writer (chunkq.c: zstd and write(), so reading never waits for compression). Signals
 * are blocked everywhere and taken by main with sigtimedwait(): no handler runs in a thread.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "chunk.h"
#include "chunkq.h"
#include "collector.h"
#include "command.h"
#include "container.h"
#include "context.h"
#include "log.h"
#include "losses.h"
#include "output.h"
#include "procinit.h"
#include "readback.h"
#include "recopt.h"
#include "recvm.h"
#include "session.h"
#include "sysinfo.h"
#include "watch.h"

#define PIPE_BYTES		(1u << 20)	/* each traced CPU's splice pipe */
#define CHUNK_MAX_AGE_NS	500000000ULL	/* a chunk reaches the file within ~1 s */
#define SYNC_INTERVAL_NS	1000000000ULL
#define MAX_QUEUED_BYTES	(256u << 20)

struct recorder {
	struct record_opts o;
	struct rec_session ses;
	struct rec_context ctx;		/* the context events recorded besides the pair */
	struct rec_command cmd;		/* -- COMMAND: what the recording runs around */
	struct rec_vm vm;		/* --vm: the VMs whose vCPU threads are recorded */
	struct vmt_cpulist online;
	sigset_t stop_sigs;
	struct rec_output op;		/* the file (or --continue's files) */
	struct rec_chunkq *q;
	struct rec_collector *col;
	struct rec_watch *watch;	/* --live, --metrics, --on-threshold, or NULL */
	struct vmt_kvbuf meta;		/* what every file's META starts with */
	bool recording;			/* tracing was on: the file is to be published */
	bool drain_cut;			/* a second stop signal cut the final drain short */
	const char *stop_reason;	/* "duration", "SIGINT", ...; NULL: stopped by an error */
	int read_err, write_err;	/* the collector's, the writer's (END included) */
	int collector_choice, exit_code;	/* enum rec_collector_choice; the status */
};

static void init_tool(struct recorder *rec, const char *argv0)
{
	memset(rec, 0, sizeof(*rec));
	rec->exit_code = 1;
	vmt_log_init(argv0);
	vmt_proc_init();
	vmt_kv_init(&rec->meta);
	/* Block the stop signals first, so none can arrive between set-up and cleanup. */
	sigemptyset(&rec->stop_sigs);
	sigaddset(&rec->stop_sigs, SIGINT);
	sigaddset(&rec->stop_sigs, SIGTERM);
	sigaddset(&rec->stop_sigs, SIGHUP);
	sigaddset(&rec->stop_sigs, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &rec->stop_sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* tracefs, the online CPUs and the collector CPU, which main moves to at once. */
static int probe(struct recorder *rec)
{
	struct record_opts *o = &rec->o;
	int ret, col;

	/* its CPUs: before we pin ourselves; a command not found: before all else */
	if (rec_command_init(&rec->cmd, o->command, &rec->exit_code) || rec_session_find(&rec->ses))
		return -1;
	if (o->cleanup_only)
		return 0;
	if (rec_vm_find(&rec->vm, o, &rec->exit_code))	/* the CPUs to trace, without -p */
		return -1;
	/* a CPU the command line named that is not online: said before all else */
	col = rec_sysinfo_check_cpus(&o->cpus, rec->vm.cpus_derived, &rec->online, &o->collector);
	if (col < 0) {
		rec->exit_code = -col;
		return -1;
	}
	ret = rec_session_check_pair(&rec->ses, o) ?: rec_session_check_clock(&rec->ses, o->clock) ?:
	      rec_trigsel_resolve(&o->trigsel, o->trigger_reasons, rec->ses.root, o->begin);
	if (ret) {
		rec->exit_code = ret;
		return -1;
	}
	ret = rec_context_setup(&rec->ctx, o->context, rec->ses.root, o->begin, o->end);
	if (ret) {
		rec->exit_code = ret == -ENOENT || ret == -EINVAL ? 64 : 1;	/* a bad name */
		return -1;
	}
	rec->collector_choice = col;	/* said once the instance is ours (no conflict) */
	/* Main too (the threads inherit it): our system calls never run on a traced CPU. */
	if (rec_sysinfo_pin_self(o->collector))
		vmt_warn("cannot pin to collector CPU %d", o->collector);
	return 0;
}

/* The metadata first (reading tracefs), then FILE.PID.part with the file header and META. */
static int open_output(struct recorder *rec)
{
	int ret;

	ret = rec_sysinfo_meta(&rec->meta, &rec->o, &rec->ctx, rec->ses.root, rec->ses.clock,
			       rec->ses.page_size);
	rec_vm_meta(&rec->vm, &rec->meta);
	if (ret) {
		vmt_err("%s/events: cannot read the event formats of %s, %s: %s", rec->ses.root,
			rec->o.begin, rec->o.end, strerror(-ret));
		return ret;
	}
	rec->op.path = rec->o.output;
	rec->op.max_files = rec->o.continue_n;
	rec->op.level = rec->o.level;
	rec->op.ses = &rec->ses;
	rec->op.cpus = &rec->o.cpus;
	rec->op.base = &rec->meta;
	ret = rec_output_open(&rec->op);
	if (!ret)
		rec_context_say_missing(&rec->ctx);
	return ret;
}

/* The writer queue, the collector and each traced CPU's trace_pipe_raw. */
static int setup_collection(struct recorder *rec)
{
	struct rec_chunkq_config qc = {
		.writer = rec->op.writer, .page_size = rec->ses.page_size,
		.chunk_pages = vmt_chunk_pages(rec->o.cpus.n, rec->ses.page_size),
		.max_queued_bytes = MAX_QUEUED_BYTES,
		.sync_ns = SYNC_INTERVAL_NS, .cpu = rec->o.collector,
	};
	struct rec_collector_config cc = {
		.hp = rec->ses.hp, .poll_ns = rec->o.poll_ns, .chunk_max_age_ns = CHUNK_MAX_AGE_NS,
		.pipe_bytes = PIPE_BYTES, .cpu = rec->o.collector,
	};
	unsigned int i;
	int ret;

	ret = rec_chunkq_new(&qc, &rec->q);
	if (!ret) {
		cc.sink = rec_chunkq_sink(rec->q);
		if (rec_watch_attach(&rec->watch, &rec->o, &rec->ses, &rec->meta, rec->q, &cc))
			return -1;
		ret = rec_collector_new(&cc, &rec->col);
	}
	if (ret) {
		vmt_err("cannot set up the collector: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; i < rec->o.cpus.n; i++) {
		int fd = rec_session_open_raw(&rec->ses, rec->o.cpus.cpu[i]);

		if (fd < 0)
			return fd;
		ret = rec_collector_add_cpu(rec->col, rec->o.cpus.cpu[i], fd);
		if (ret) {
			vmt_err("pipe: %s", strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static int start(struct recorder *rec)
{
	char cpus[512], col[32] = "collector unpinned";
	int ret;

	if (rec_chunkq_start(rec->q) || rec_collector_start(rec->col)) {
		vmt_err("cannot start the collector threads");
		return -1;
	}
	ret = rec_session_tracing(&rec->ses, true);
	if (ret) {
		vmt_err("%s/tracing_on: %s", rec->ses.inst.dir, strerror(-ret));
		return ret;
	}
	rec->recording = true;
	if (rec->o.collector >= 0)
		snprintf(col, sizeof(col), "collector CPU %d", rec->o.collector);
	/* --no-output: the pages go to /dev/null, which is no file to name */
	vmt_info_folded("%s %s -> %s and %u context events on CPU %s (%s, clock %s%s)%s%s%s",
			rec->o.no_output ? "watching" : "recording", rec->o.begin, rec->o.end,
			rec->ctx.n, vmt_cpulist_format(&rec->o.cpus, cpus, sizeof(cpus)), col,
			rec->ses.clock, rec->o.no_output ? "; --no-output: nothing kept" : "",
			rec->o.no_output ? "" : " into ", rec->o.no_output ? "" : rec->op.name,
			rec->o.duration_ns ? "" : "; Ctrl-C to stop");
	return rec_command_start(&rec->cmd, rec->o.collector, &rec->stop_reason);
}

/* Until the duration ends, a stop signal comes or a thread fails (stop_reason NULL). */
static void run_until_stop(struct recorder *rec)
{
	uint64_t deadline = rec->o.duration_ns ? rec_sysinfo_now_ns() + rec->o.duration_ns : 0;

	rec_sysinfo_below_collector();	/* read-backs, views: threads and command started */
	for (;;) {
		struct timespec to = { 0, 100000000L };
		uint64_t now = rec_sysinfo_now_ns();
		siginfo_t si;
		int sig;

		if (deadline && now >= deadline) {
			rec->stop_reason = "duration";
			return;
		}
		if (deadline && deadline - now < 100000000ULL)
			to.tv_nsec = (long)(deadline - now);
		sig = sigtimedwait(&rec->stop_sigs, &si, &to);
		if (sig > 0 && !rec_command_on_signal(&rec->cmd, &si)) {
			rec->stop_reason = rec_command_signame(sig);
			vmt_info("%s: stopping", rec->stop_reason);
			return;
		}
		if (rec_command_exited(&rec->cmd, &rec->stop_reason) || rec_chunkq_error(rec->q) ||
		    rec_collector_error(rec->col))
			return;
		rec_vm_check_gone(&rec->vm);
		if (!rec_watch_done(rec->watch, &rec->stop_reason))
			continue;
		if (rec->op.files >= rec->o.continue_n)	/* the last file: stop */
			return;
		rec->stop_reason = NULL;	/* a rotation that fails stops as an error */
		if (rec_output_rotate(&rec->op, rec->q, rec->watch, rec->ses.clock, rec->o.quiet))
			return;
	}
}

static void stop_and_drain(struct recorder *rec)
{
	/* Tracing off first: the drain then sees a fixed amount of data. */
	rec_session_tracing(&rec->ses, false);
	rec_output_tracing_off(&rec->op);
	rec_watch_tracing_off(rec->watch, rec->op.ts_off);
	rec_collector_stop(rec->col);
	while (!rec_collector_done(rec->col)) {
		struct timespec to = { 0, 100000000L };
		int sig = sigtimedwait(&rec->stop_sigs, NULL, &to);

		if (sig > 0 && !rec->drain_cut) {
			vmt_warn("%s during the final drain: finishing with what is read",
				 rec_command_signame(sig));
			rec_collector_abort_drain(rec->col);
			rec_chunkq_unblock(rec->q);
			rec->drain_cut = true;
		}
	}
	rec->read_err = rec_collector_join(rec->col);
	rec_chunkq_close(rec->q);	/* when the collector never ran to close it */
	rec->write_err = rec_chunkq_join(rec->q);
	/* after the collector stopped reading: their entries are the events it left unread */
	rec_output_stats_end(&rec->op);
	rec_output_watch_end(&rec->op, rec->watch, false);
}

/*
 * --continue: the file in progress has no trigger (the first, or one after others were
 * written): it goes, so that no numbered file is ever empty.
 */
static bool untriggered_tail(const struct recorder *rec)
{
	return rec->o.continue_n && !rec_watch_triggered(rec->watch);
}

/*
 * The END block (final stats, page counts, how it stopped) only after a planned stop
 * (duration, signal) with every chunk taken in the file. After an error the file is still
 * published (nothing recorded is lost) without END: readers say "not finished" (exit 2).
 */
static void finish_file(struct recorder *rec)
{
	struct rec_end_info e = {
		.stop_reason = rec->stop_reason, .clock = rec->ses.clock,
		.mono_start_ns = rec->op.mono0, .mono_end_ns = rec->op.mono1,
		.ts_start = rec->op.st0.now_ts, .ts_end = rec_output_end_ts(&rec->op), .col = rec->col,
		.drain = rec->o.threshold_ns ? NULL : rec->drain_cut ? "aborted" : "complete",
	};

	if (!rec->stop_reason || rec->read_err || rec->write_err || !rec->op.out ||
	    untriggered_tail(rec))
		return;
	rec->write_err = rec_output_finish(&rec->op, &e);
}

/*
 * Rename into place (FILE.old kept); nothing recorded, or not one chunk of an unfinished
 * file (a full disk): no file left behind, a previous FILE left as it was.
 */
static void publish(struct recorder *rec)
{
	bool empty = !rec->op.finished && rec_chunkq_written(rec->q) == rec->op.chunks0 &&
		     strcmp(rec->op.tmp, rec->op.name) != 0;	/* not a device or a pipe */

	rec_output_publish(&rec->op, rec->recording && !untriggered_tail(rec) && !empty);
}

/* The error and what it kept, what was written, the losses, the summary; the exit code. */
static void report(struct recorder *rec)
{
	uint64_t chunks = rec_chunkq_written(rec->q) - rec->op.chunks0, pages;
	struct rec_losses ls;
	char note[512];

	if (!rec->recording)
		return;
	if (untriggered_tail(rec) && !rec->read_err && !rec->write_err && rec->stop_reason) {
		rec_watch_untriggered(rec->watch, rec->stop_reason, NULL, rec->op.published_files);
		rec->exit_code = 0;
		return;
	}
	/* the file and its problem, then what was kept, or that nothing was */
	if (rec->read_err || rec->write_err || rec->op.discarded)
		rec_output_say_unfinished(&rec->op, rec->read_err ? rec->ses.inst.dir : rec->op.tmp,
			rec->read_err ? "reading the ring buffer failed" : "write failed",
			rec->read_err ?: rec->write_err, chunks, rec->read_err ? "read" : "written");
	if (rec->op.discarded)
		return;	/* no summary of a file that is not there */
	/* the file's own pages: with --on-threshold most of those read were never kept */
	pages = rec_chunkq_written_pages(rec->q) - rec->op.pages0;
	rec_output_say_written(&rec->op, rec->o.no_output, chunks, pages * rec->ses.page_size / 1024,
			       rec->write_err ? "write error" : rec->stop_reason ?: "error");
	if (!rec->o.continue_n && rec->op.published)
		rec_watch_untriggered(rec->watch, rec->stop_reason, rec->op.name, 0);
	rec_losses_sum(rec->col, &ls);
	ls.stats = rec->op.lost1 - rec->op.lost0;	/* every traced CPU's */
	ls.unread = rec->op.unread;
	ls.unread_known = rec->op.unread_known;
	ls.drain_cut = rec->drain_cut;
	if (rec_losses_note(&ls, note, sizeof(note)))
		vmt_warn_folded("%s", note);
	/* Only a file renamed into place can be read back (not a device or a pipe). */
	if (!rec->o.quiet && rec->op.published && strcmp(rec->op.tmp, rec->op.name) != 0)
		rec_readback_summary(rec->op.name);
	if (rec->op.finished && rec->op.published)
		rec->exit_code = 0;
}

static void teardown(struct recorder *rec)
{
	/* The trace_pipe_raw fds go first: the instance cannot be removed while open. */
	rec_collector_free(rec->col);
	rec_watch_free(rec->watch);
	rec_chunkq_free(rec->q);
	rec_output_free(&rec->op);
	if (rec_session_remove(&rec->ses))
		rec->exit_code = 1;
}

static void free_tool(struct recorder *rec)
{
	vmt_kv_free(&rec->meta);
	vmt_cpulist_free(&rec->online);
	rec_context_free(&rec->ctx);
	rec_vm_free(&rec->vm);
	rec_opts_free(&rec->o);
}

int main(int argc, char **argv)
{
	struct recorder rec;

	init_tool(&rec, argv[0]);
	if (rec_opts_parse(argc, argv, &rec.o) || probe(&rec))
		goto out;
	if (rec.o.cleanup_only) {
		rec.exit_code = rec_session_cleanup(&rec.ses) ? 1 : 0;
		goto out;
	}
	if (rec_session_setup(&rec.ses, &rec.o, &rec.ctx) ||
	    rec_sysinfo_warn_collector(rec.collector_choice, rec.o.collector) ||
	    rec_vm_apply(&rec.vm, &rec.ses, &rec.o) || open_output(&rec) || setup_collection(&rec))
		goto out_teardown;
	if (start(&rec) == 0)
		run_until_stop(&rec);
	stop_and_drain(&rec);
	finish_file(&rec);
	publish(&rec);
	report(&rec);
out_teardown:
	teardown(&rec);
	rec_command_finish(&rec.cmd, &rec.stop_sigs, &rec.exit_code);	/* waits for it */
out:
	free_tool(&rec);
	return rec.exit_code;
}
