// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtrace-record: record a begin/end tracepoint pair (kvm_exit/kvm_entry by default) on
 * the traced CPUs into a .vmt file, from threads on the collector CPU.
 *
 * Threads: main (options, tracefs set-up, signals, finalisation), collector (non-blocking
 * splice of every traced CPU's trace_pipe_raw on a timer, pinned to the collector CPU, so
 * no reader ever sleeps on the ring buffer and no wake-up interrupt hits a traced CPU) and
 * writer (zstd and write(), so reading never waits for compression). Signals are blocked
 * everywhere and taken by main with sigtimedwait(): no handler runs inside a thread.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "cli.h"
#include "container.h"
#include "io.h"
#include "kv.h"
#include "log.h"
#include "metakeys.h"
#include "rbpage.h"
#include "reader.h"
#include "tclock.h"
#include "tracefs.h"

#define DEFAULT_EVENTS		"kvm:kvm_exit,kvm:kvm_entry"
#define DEFAULT_OUTPUT		"trace.vmt"
#define DEFAULT_BUFFER_KB	8192
#define DEFAULT_POLL_NS		10000000ULL	/* 10 ms */
#define DEFAULT_LEVEL		VMT_DEFAULT_LEVEL
#define CHUNK_BYTES		(1u << 20)	/* pages per chunk: 1 MiB worth */
#define CHUNK_MAX_AGE_NS	500000000ULL	/* a chunk reaches the file within ~1 s */
#define SYNC_INTERVAL_NS	1000000000ULL
#define MAX_QUEUED_BYTES	(256u << 20)

enum {
	OPT_CLEANUP = 256,
	OPT_POLL,
};

struct record_opts {
	struct vmt_cpulist cpus;
	int collector;			/* -1: choose */
	uint64_t duration_ns;		/* 0: until a signal */
	const char *output;
	uint64_t buffer_bytes;
	char *begin, *end;
	const char *clock;
	int level;
	int quiet;
	int cleanup_only;
	uint64_t poll_ns;
	char cmdline[1024];
};

struct cpu_state {
	unsigned int cpu;
	int fd;
	int pipe[2];
	uint8_t *buf;			/* the chunk being filled */
	uint32_t npages;
	struct vmt_chunk_info info;
	uint64_t chunk_started_ns;
	uint64_t pages, missed_pages, missed_count;
};

struct job {
	struct job *next;
	uint8_t *buf;
	uint32_t npages;
	struct vmt_chunk_info info;
};

struct recorder {
	struct record_opts *o;
	struct vmt_tracefs_instance inst;
	bool have_inst;
	struct vmt_writer *writer;
	struct vmt_header_page hp;
	uint32_t page_size;
	uint32_t chunk_pages;
	struct cpu_state *cs;
	unsigned int ncs;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct job *head, *tail;
	uint8_t **pool;			/* spare chunk buffers */
	unsigned int npool, pool_cap;
	size_t queued_bytes;
	bool collector_done;
	int write_error;
	uint64_t chunks_written;

	atomic_int stop;		/* main -> collector: tracing is off, drain and finish */
	atomic_int abort_drain;		/* second signal: finish with what is held */
	atomic_int failed;		/* collector or writer -> main: stop now */
	int collector_error;
};

const char *argp_program_version = PACKAGE_NAME " " PACKAGE_VERSION;

static const char doc[] =
	"Record KVM exit/entry tracepoints (or any begin/end tracepoint pair) on the given "
	"CPUs into a compressed, self-describing .vmt file, then print the summary."
	"\v"
	"Examples:\n"
	"  vmtrace-record -p 2,3 -c 0 -s 10 -o run1.vmt  # pCPUs 2, 3 for 10 s\n"
	"  vmtrace-record -p 5 -c 1 -s 30    # the original vm-trace command line\n"
	"  vmtrace-record -p 4-7 -c 0        # until Ctrl-C or SIGTERM\n"
	"  vmtrace-record -p 1 -s 2 \\\n"
	"      -e raw_syscalls:sys_enter,raw_syscalls:sys_exit   # no KVM needed\n"
	"\n"
	"TIME takes ns, us, ms, s, m or h (a bare number is seconds); SIZE takes K, M or G "
	"(a bare number is KiB). Needs root. An existing output file is kept as FILE.old.";

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "What to record:", 1 },
	{ "cpu", 'p', "LIST", 0, "CPUs to trace, e.g. 2 or 2,4-7 (required)", 1 },
	{ "events", 'e', "BEGIN,END", 0, "tracepoint pair (default " DEFAULT_EVENTS ")", 1 },
	{ "duration", 's', "TIME", 0, "stop after TIME (default: at Ctrl-C or SIGTERM)", 1 },
	{ NULL, 0, NULL, 0, "How to record:", 2 },
	{ "collector-cpu", 'c', "CPU", 0,
	  "CPU for the collecting threads (default: the first CPU not traced)", 2 },
	{ "buffer-size", 'b', "SIZE", 0, "ring buffer per traced CPU (default 8M)", 2 },
	{ "clock", 'C', "NAME", 0, "trace clock (local, global, mono, x86-tsc, ...; default: "
	  "the kernel's current one)", 2 },
	{ "poll-interval", OPT_POLL, "TIME", 0, "how often the collector reads (default 10ms)", 2 },
	{ NULL, 0, NULL, 0, "Output:", 3 },
	{ "output", 'o', "FILE", 0, "output file (default " DEFAULT_OUTPUT ")", 3 },
	{ "level", 'l', "N", 0, "zstd level, 1-19, 0 stores uncompressed (default 1)", 3 },
	{ "quiet", 'q', NULL, 0, "no progress and no summary", 3 },
	{ NULL, 0, NULL, 0, "Maintenance:", 4 },
	{ "cleanup", OPT_CLEANUP, NULL, 0,
	  "only remove ftrace instances left by recorders that died, then exit", 4 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;
	uint64_t v;
	char *comma;

	switch (key) {
	case 'p':
		vmt_cpulist_free(&o->cpus);
		if (vmt_cli_parse_cpulist(arg, &o->cpus))
			argp_error(state, "invalid CPU list '%s' (expected e.g. 2 or 2,4-7)", arg);
		break;
	case 'c':
		if (vmt_cli_parse_u64(arg, &v) || v >= VMT_CLI_MAX_CPUS)
			argp_error(state, "invalid collector CPU '%s'", arg);
		o->collector = (int)v;
		break;
	case 's':
		if (vmt_cli_parse_duration_ns(arg, &v) || v == 0)
			argp_error(state, "invalid duration '%s' (expected e.g. 10, 500ms, 2m)", arg);
		o->duration_ns = v;
		break;
	case 'o':
		if (!*arg)
			argp_error(state, "empty output file name");
		o->output = arg;
		break;
	case 'b':
		if (vmt_cli_parse_size(arg, 1024, &v) || v < 4096 || v > (64ULL << 30))
			argp_error(state, "invalid buffer size '%s' (expected 4K to 64G)", arg);
		o->buffer_bytes = v;
		break;
	case 'e':
		comma = strchr(arg, ',');
		if (!comma || strchr(comma + 1, ','))
			argp_error(state, "--events takes BEGIN,END, e.g. " DEFAULT_EVENTS);
		free(o->begin);
		free(o->end);
		o->begin = strndup(arg, (size_t)(comma - arg));
		o->end = strdup(comma + 1);
		if (!o->begin || !o->end)
			argp_failure(state, 1, ENOMEM, "options");
		{
			char tmp[PATH_MAX];

			if (vmt_tracefs_event_path(o->begin, NULL, tmp, sizeof(tmp)) ||
			    vmt_tracefs_event_path(o->end, NULL, tmp, sizeof(tmp)) ||
			    strcmp(o->begin, o->end) == 0)
				argp_error(state, "invalid event pair '%s' (expected two different "
					   "system:event names)", arg);
		}
		break;
	case 'C':
		if (!*arg || strchr(arg, '/') || strlen(arg) > 32)
			argp_error(state, "invalid clock name '%s'", arg);
		o->clock = arg;
		break;
	case 'l':
		if (vmt_cli_parse_u64(arg, &v) || v > 19)
			argp_error(state, "invalid zstd level '%s' (0-19)", arg);
		o->level = (int)v;
		break;
	case 'q':
		o->quiet = 1;
		break;
	case OPT_CLEANUP:
		o->cleanup_only = 1;
		break;
	case OPT_POLL:
		if (vmt_cli_parse_duration_ns(arg, &v) || v < 100000 || v > 1000000000ULL)
			argp_error(state, "invalid poll interval '%s' (100us to 1s)", arg);
		o->poll_ns = v;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (!o->cleanup_only && !o->cpus.n)
			argp_error(state, "no CPU to trace: give -p LIST");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET((unsigned int)cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* Chunk buffers. */

static uint8_t *buf_get(struct recorder *rec)
{
	uint8_t *b = NULL;

	pthread_mutex_lock(&rec->lock);
	if (rec->npool)
		b = rec->pool[--rec->npool];
	pthread_mutex_unlock(&rec->lock);
	return b ? b : malloc((size_t)rec->chunk_pages * rec->page_size);
}

/* Called with the lock held. */
static void buf_put_locked(struct recorder *rec, uint8_t *b)
{
	if (rec->npool < rec->pool_cap)
		rec->pool[rec->npool++] = b;
	else
		free(b);
}

/* Collector. */

static void chunk_last_ts(struct recorder *rec, struct cpu_state *cs)
{
	const uint8_t *last = cs->buf + (size_t)(cs->npages - 1) * rec->page_size;
	struct vmt_rbrecord r;
	struct vmt_rbpage pg;

	cs->info.last_ts = cs->info.first_ts;
	if (vmt_rbpage_init(&pg, &rec->hp, last, rec->page_size))
		return;
	cs->info.last_ts = pg.page_ts;
	while (vmt_rbpage_next(&pg, &r) > 0)
		cs->info.last_ts = r.ts;
}

/* Hand the filled chunk to the writer. Waits (never drops) when the writer is behind. */
static int flush_chunk(struct recorder *rec, struct cpu_state *cs)
{
	struct job *j;

	if (!cs->npages)
		return 0;
	j = malloc(sizeof(*j));
	if (!j)
		return -ENOMEM;
	chunk_last_ts(rec, cs);
	j->next = NULL;
	j->buf = cs->buf;
	j->npages = cs->npages;
	j->info = cs->info;
	j->info.cpu = cs->cpu;
	pthread_mutex_lock(&rec->lock);
	/*
	 * Waiting here lets the kernel overwrite and count what we cannot take; dropping a
	 * chunk ourselves would leave a gap that no page flag marks.
	 */
	while (rec->queued_bytes > MAX_QUEUED_BYTES && !rec->write_error &&
	       !atomic_load(&rec->abort_drain))
		pthread_cond_wait(&rec->cond, &rec->lock);
	if (rec->tail)
		rec->tail->next = j;
	else
		rec->head = j;
	rec->tail = j;
	rec->queued_bytes += (size_t)j->npages * rec->page_size;
	pthread_cond_broadcast(&rec->cond);
	pthread_mutex_unlock(&rec->lock);

	cs->buf = NULL;
	cs->npages = 0;
	memset(&cs->info, 0, sizeof(cs->info));
	return 0;
}

/* Account the page just placed at the end of the chunk; drop it when it holds nothing. */
static void add_page(struct recorder *rec, struct cpu_state *cs)
{
	const uint8_t *page = cs->buf + (size_t)cs->npages * rec->page_size;
	struct vmt_rbpage pg;

	if (vmt_rbpage_init(&pg, &rec->hp, page, rec->page_size) == 0 && pg.commit == 0 &&
	    !pg.missed)
		return;
	if (cs->npages == 0) {
		cs->info.first_ts = pg.page_ts;
		cs->chunk_started_ns = now_ns(CLOCK_MONOTONIC);
	}
	if (pg.missed) {
		cs->info.missed_pages++;
		cs->info.missed_count += pg.missed_count;
		cs->missed_pages++;
		cs->missed_count += pg.missed_count;
	}
	cs->npages++;
	cs->pages++;
}

static int ensure_buf(struct recorder *rec, struct cpu_state *cs)
{
	int ret;

	if (cs->buf && cs->npages == rec->chunk_pages) {
		ret = flush_chunk(rec, cs);
		if (ret)
			return ret;
	}
	if (!cs->buf) {
		cs->buf = buf_get(rec);
		if (!cs->buf)
			return -ENOMEM;
	}
	return 0;
}

/* Move every full page the kernel has for this CPU into chunks. */
static int pull_splice(struct recorder *rec, struct cpu_state *cs)
{
	unsigned int rounds;

	/* Bounded, so one busy CPU cannot starve the others within a tick. */
	for (rounds = 0; rounds < 64; rounds++) {
		uint32_t room;
		ssize_t n, got;
		int ret;

		ret = ensure_buf(rec, cs);
		if (ret)
			return ret;
		room = rec->chunk_pages - cs->npages;
		n = splice(cs->fd, NULL, cs->pipe[1], NULL, (size_t)room * rec->page_size,
			   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -errno;
		}
		if (n == 0)
			return 0;
		got = vmt_io_read_full(cs->pipe[0], cs->buf + (size_t)cs->npages * rec->page_size,
				       (size_t)n);
		if (got != n)
			return got < 0 ? (int)got : -EIO;
		/* splice() moves whole pages; a tail would be a kernel oddity: zero-pad it. */
		if (n % rec->page_size) {
			memset(cs->buf + (size_t)cs->npages * rec->page_size + n, 0,
			       rec->page_size - (size_t)n % rec->page_size);
			n += rec->page_size - n % rec->page_size;
		}
		while (n > 0) {
			add_page(rec, cs);
			n -= rec->page_size;
		}
	}
	return 0;
}

/*
 * After tracing is off: splice hands out only full pages, so the last, partly filled page
 * must come through read() (a non-blocking read of trace_pipe_raw hands out a page that is
 * not full; splice never does). Each read() returns one page.
 */
static int pull_read(struct recorder *rec, struct cpu_state *cs)
{
	unsigned int rounds;

	for (rounds = 0; rounds < 1024; rounds++) {
		uint8_t *dst;
		ssize_t n;
		int ret;

		ret = ensure_buf(rec, cs);
		if (ret)
			return ret;
		dst = cs->buf + (size_t)cs->npages * rec->page_size;
		n = read(cs->fd, dst, rec->page_size);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -errno;
		}
		if (n == 0)
			return 0;
		if ((size_t)n < rec->page_size)
			memset(dst + n, 0, rec->page_size - (size_t)n);
		add_page(rec, cs);
	}
	return 0;
}

static void *collector_main(void *arg)
{
	struct recorder *rec = arg;
	struct timespec next;
	unsigned int i;
	int ret = 0;

	pin_to(rec->o->collector);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&rec->stop)) {
		uint64_t now = now_ns(CLOCK_MONOTONIC);

		for (i = 0; i < rec->ncs && !ret; i++) {
			struct cpu_state *cs = &rec->cs[i];

			ret = pull_splice(rec, cs);
			if (!ret && cs->npages && now - cs->chunk_started_ns >= CHUNK_MAX_AGE_NS)
				ret = flush_chunk(rec, cs);
		}
		if (ret)
			break;
		next.tv_nsec += (long)rec->o->poll_ns;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		/* When a round took longer than the period, start the next one at once. */
		if ((uint64_t)next.tv_sec * 1000000000ULL + (uint64_t)next.tv_nsec < now)
			clock_gettime(CLOCK_MONOTONIC, &next);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	/* Final drain: full pages, then the partial ones, unless a second signal says stop. */
	for (i = 0; i < rec->ncs && !ret; i++) {
		if (!atomic_load(&rec->abort_drain))
			ret = pull_splice(rec, &rec->cs[i]);
		if (!ret && !atomic_load(&rec->abort_drain))
			ret = pull_read(rec, &rec->cs[i]);
	}
	for (i = 0; i < rec->ncs; i++) {
		int r2 = flush_chunk(rec, &rec->cs[i]);

		if (!ret)
			ret = r2;
	}
	pthread_mutex_lock(&rec->lock);
	rec->collector_error = ret;
	rec->collector_done = true;
	pthread_cond_broadcast(&rec->cond);
	pthread_mutex_unlock(&rec->lock);
	if (ret)
		atomic_store(&rec->failed, 1);
	return NULL;
}

static void *writer_main(void *arg)
{
	struct recorder *rec = arg;
	uint64_t last_sync = now_ns(CLOCK_MONOTONIC);

	pin_to(rec->o->collector);
	for (;;) {
		struct job *j;
		int ret = 0;

		pthread_mutex_lock(&rec->lock);
		while (!rec->head && !rec->collector_done)
			pthread_cond_wait(&rec->cond, &rec->lock);
		j = rec->head;
		if (!j) {
			pthread_mutex_unlock(&rec->lock);
			break;
		}
		rec->head = j->next;
		if (!rec->head)
			rec->tail = NULL;
		pthread_mutex_unlock(&rec->lock);

		if (!rec->write_error) {
			ret = vmt_writer_chunk(rec->writer, j->buf, j->npages, rec->page_size,
					       &j->info);
			if (!ret && now_ns(CLOCK_MONOTONIC) - last_sync >= SYNC_INTERVAL_NS) {
				ret = vmt_writer_sync(rec->writer);
				last_sync = now_ns(CLOCK_MONOTONIC);
			}
		}
		pthread_mutex_lock(&rec->lock);
		rec->queued_bytes -= (size_t)j->npages * rec->page_size;
		if (ret && !rec->write_error)
			rec->write_error = ret;
		if (!ret && !rec->write_error)
			rec->chunks_written++;
		buf_put_locked(rec, j->buf);
		pthread_cond_broadcast(&rec->cond);
		pthread_mutex_unlock(&rec->lock);
		free(j);
		if (ret)
			atomic_store(&rec->failed, 1);
	}
	return NULL;
}

/* Set-up helpers. */

static int read_online_cpus(struct vmt_cpulist *online)
{
	char *text;
	size_t len;
	int ret;

	ret = vmt_io_read_file("/sys/devices/system/cpu/online", 65536, &text, &len);
	if (ret)
		return ret;
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = '\0';
	ret = vmt_cli_parse_cpulist(text, online);
	free(text);
	return ret;
}

static void add_file(struct vmt_kvbuf *kb, const char *key, const char *path)
{
	char *text;
	size_t len;

	if (vmt_io_read_file(path, 1u << 20, &text, &len) == 0) {
		while (len && text[len - 1] == '\n')
			len--;
		vmt_kv_add(kb, key, text, len);
		free(text);
	}
}

static void add_cpu_model(struct vmt_kvbuf *kb)
{
	char *text, *p;

	if (vmt_io_read_file("/proc/cpuinfo", 8u << 20, &text, NULL))
		return;
	p = strstr(text, "model name");
	if (p && (p = strchr(p, ':'))) {
		char *nl = strchr(p, '\n');

		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		vmt_kv_add(kb, "cpu.model", p, nl ? (size_t)(nl - p) : strlen(p));
	}
	free(text);
}

static void add_time(struct vmt_kvbuf *kb, const char *key)
{
	struct timespec ts;
	char buf[64];
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	vmt_kv_addf(kb, key, "%s.%09ldZ", buf, ts.tv_nsec);
}

static void add_stats(struct recorder *rec, struct vmt_kvbuf *kb, const char *when,
		      struct vmt_cpustats *first)
{
	unsigned int i;

	for (i = 0; i < rec->ncs; i++) {
		char rel[64], key[64], *text;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%u/stats", rec->cs[i].cpu);
		if (vmt_tracefs_read(&rec->inst, rel, &text))
			continue;
		snprintf(key, sizeof(key), "stats.%s.cpu%u", when, rec->cs[i].cpu);
		vmt_kv_add_str(kb, key, text);
		if (i == 0 && first)
			vmt_tracefs_parse_stats(text, first);
		free(text);
	}
}

static int build_meta(struct recorder *rec, const char *root, const char *clock,
		      struct vmt_kvbuf *kb)
{
	char rel[PATH_MAX], cpus[512], *text;
	const char *names[2] = { rec->o->begin, rec->o->end };
	const char *fkeys[2] = { VMT_META_FORMAT_BEGIN, VMT_META_FORMAT_END };
	struct utsname u;
	size_t len;
	int i, ret;

	vmt_kv_add_str(kb, "vmtrace.version", PACKAGE_VERSION);
	vmt_kv_add_str(kb, VMT_META_EVENT_BEGIN, rec->o->begin);
	vmt_kv_add_str(kb, VMT_META_EVENT_END, rec->o->end);
	for (i = 0; i < 2; i++) {
		ret = vmt_tracefs_event_path(names[i], "format", rel, sizeof(rel));
		if (!ret)
			ret = vmt_tracefs_events_file(root, rel, &text, &len);
		if (ret)
			return ret;
		vmt_kv_add(kb, fkeys[i], text, len);
		free(text);
	}
	if (vmt_tracefs_events_file(root, "header_page", &text, &len) == 0) {
		vmt_kv_add(kb, VMT_META_HEADER_PAGE, text, len);
		free(text);
	}
	if (vmt_tracefs_events_file(root, "header_event", &text, &len) == 0) {
		vmt_kv_add(kb, VMT_META_HEADER_EVENT, text, len);
		free(text);
	}
	if (uname(&u) == 0) {
		vmt_kv_add_str(kb, "kernel.release", u.release);
		vmt_kv_add_str(kb, "kernel.version", u.version);
		vmt_kv_add_str(kb, "kernel.machine", u.machine);
		vmt_kv_add_str(kb, "hostname", u.nodename);
	}
	add_file(kb, "cmdline", "/proc/cmdline");
	add_cpu_model(kb);
	vmt_kv_add_str(kb, VMT_META_ENDIAN, "little");
	vmt_kv_addf(kb, "long_size", "%zu", sizeof(long));
	vmt_kv_add_str(kb, VMT_META_CLOCK, clock);
	vmt_kv_addf(kb, "subbuf_size", "%u", rec->page_size);
	vmt_kv_addf(kb, "buffer_size_kb", "%" PRIu64, rec->o->buffer_bytes / 1024);
	vmt_kv_add_str(kb, VMT_META_CPUS, vmt_cpulist_format(&rec->o->cpus, cpus, sizeof(cpus)));
	vmt_kv_addf(kb, "cpu.collector", "%d", rec->o->collector);
	vmt_kv_add_str(kb, "options", rec->o->cmdline);
	vmt_kv_addf(kb, "poll_interval_ns", "%" PRIu64, rec->o->poll_ns);
	vmt_kv_addf(kb, "zstd_level", "%d", rec->o->level);
	add_time(kb, "time.start");
	return kb->error;
}

/* Output: a temporary name in the target directory, renamed into place at the end. */
static int open_output(const char *final, char *tmp, size_t size)
{
	int fd, n;

	n = snprintf(tmp, size, "%s.%ld.part", final, (long)getpid());
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	/* O_EXCL|O_NOFOLLOW: never write through a link someone placed there. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	return fd < 0 ? -errno : fd;
}

static int publish_output(const char *tmp, const char *final, bool *kept_old)
{
	char old[PATH_MAX];
	struct stat st;

	*kept_old = false;
	if (lstat(final, &st) == 0) {
		if (snprintf(old, sizeof(old), "%s.old", final) >= (int)sizeof(old))
			return -ENAMETOOLONG;
		if (rename(final, old) < 0)
			return -errno;
		*kept_old = true;
	}
	return rename(tmp, final) < 0 ? -errno : 0;
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	default:
		return "signal";
	}
}

static void describe_err(int err, char *buf, size_t size)
{
	snprintf(buf, size, "%s", strerror(-err));
}

static int choose_collector(struct record_opts *o, const struct vmt_cpulist *online)
{
	unsigned int i;

	if (o->collector >= 0) {
		if (!vmt_cpulist_has(online, (unsigned int)o->collector)) {
			vmt_err("collector CPU %d is not online", o->collector);
			return -1;
		}
		if (vmt_cpulist_has(&o->cpus, (unsigned int)o->collector))
			vmt_warn("collector CPU %d is also traced: the collector's own work will "
				 "show in its latencies", o->collector);
		return 0;
	}
	for (i = 0; i < online->n; i++) {
		if (!vmt_cpulist_has(&o->cpus, online->cpu[i])) {
			o->collector = (int)online->cpu[i];
			return 0;
		}
	}
	vmt_warn("every online CPU is traced: the collector runs unpinned");
	return 0;
}

static int setup_instance(struct recorder *rec, const char *root, char *clock, size_t clock_size)
{
	struct record_opts *o = rec->o;
	char name[64], val[64];
	unsigned int removed;
	char stale[512];
	int ret;

	char who[128];
	int lock;

	/*
	 * One recorder at a time gets here (a lock held until its CPU mask is set), so two
	 * recorders started together cannot both miss each other.
	 */
	lock = open("/run/lock/vmtrace.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lock < 0)
		lock = open("/tmp/vmtrace.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lock >= 0)
		flock(lock, LOCK_EX);
	if (vmt_tracefs_remove_stale(root, &removed, stale, sizeof(stale)) == 0 && removed)
		vmt_warn("removed %u ftrace instance(s) left by recorders that died: %s", removed,
			 stale);
	snprintf(name, sizeof(name), VMT_INSTANCE_PREFIX "%ld", (long)getpid());
	ret = vmt_tracefs_find_conflict(root, name, &o->cpus, who, sizeof(who));
	if (ret > 0) {
		vmt_err("%s/instances: another recorder traces the same CPUs (%s); one recorder "
			"per CPU", root, who);
		ret = -EBUSY;
		goto out_unlock;
	}
	ret = vmt_tracefs_instance_create(root, name, &rec->inst);
	if (ret) {
		vmt_err("%s/instances/%s: cannot create ftrace instance: %s%s", root, name,
			strerror(-ret), ret == -EACCES || ret == -EPERM ? " (run as root)" : "");
		goto out_unlock;
	}
	rec->have_inst = true;
	snprintf(val, sizeof(val), "%" PRIu64, (o->buffer_bytes + 1023) / 1024);
	ret = vmt_tracefs_write(&rec->inst, "buffer_size_kb", val);
	if (ret) {
		vmt_err("%s/buffer_size_kb: cannot set %s KiB: %s", rec->inst.dir, val,
			strerror(-ret));
		goto out_unlock;
	}
	if (o->clock) {
		ret = vmt_tracefs_write(&rec->inst, "trace_clock", o->clock);
		if (ret) {
			vmt_err("%s/trace_clock: clock '%s' not available: %s", rec->inst.dir,
				o->clock, strerror(-ret));
			goto out_unlock;
		}
	}
	ret = vmt_tracefs_current_clock(&rec->inst, clock, clock_size);
	if (ret) {
		vmt_err("%s/trace_clock: cannot read: %s", rec->inst.dir, strerror(-ret));
		goto out_unlock;
	}
	/* Overwrite mode: the kernel then flags and counts every loss on the pages. */
	vmt_tracefs_write(&rec->inst, "options/overwrite", "1");
	ret = vmt_tracefs_set_cpumask(&rec->inst, &o->cpus);
	if (ret) {
		vmt_err("%s/tracing_cpumask: %s", rec->inst.dir, strerror(-ret));
		goto out_unlock;
	}
	if (lock >= 0) {
		close(lock);	/* our CPU mask is visible to the next recorder now */
		lock = -1;
	}
	ret = vmt_tracefs_event_enable(&rec->inst, o->begin, true);
	if (!ret)
		ret = vmt_tracefs_event_enable(&rec->inst, o->end, true);
	if (ret) {
		vmt_err("%s: cannot enable event %s/%s: %s%s", rec->inst.dir, o->begin, o->end,
			strerror(-ret), ret == -ENOENT ? " (no such tracepoint on this kernel; "
			"is the kvm module loaded?)" : "");
		return ret;
	}
	return 0;

out_unlock:
	if (lock >= 0)
		close(lock);
	return ret;
}

static int setup_cpus(struct recorder *rec)
{
	unsigned int i;

	rec->ncs = rec->o->cpus.n;
	rec->cs = calloc(rec->ncs, sizeof(*rec->cs));
	if (!rec->cs)
		return -ENOMEM;
	for (i = 0; i < rec->ncs; i++) {
		rec->cs[i].fd = -1;
		rec->cs[i].pipe[0] = rec->cs[i].pipe[1] = -1;
	}
	for (i = 0; i < rec->ncs; i++) {
		struct cpu_state *cs = &rec->cs[i];

		cs->cpu = rec->o->cpus.cpu[i];
		cs->fd = vmt_tracefs_open_raw(&rec->inst, cs->cpu);
		if (cs->fd < 0) {
			vmt_err("%s/per_cpu/cpu%u/trace_pipe_raw: %s", rec->inst.dir, cs->cpu,
				strerror(-cs->fd));
			return cs->fd;
		}
		if (pipe2(cs->pipe, O_CLOEXEC) < 0) {
			vmt_err("pipe: %s", strerror(errno));
			return -errno;
		}
		/* A bigger pipe moves a whole chunk per splice() where the system allows. */
		fcntl(cs->pipe[1], F_SETPIPE_SZ, (int)CHUNK_BYTES);
	}
	return 0;
}

static void close_cpus(struct recorder *rec)
{
	unsigned int i;

	for (i = 0; rec->cs && i < rec->ncs; i++) {
		if (rec->cs[i].fd >= 0)
			close(rec->cs[i].fd);
		if (rec->cs[i].pipe[0] >= 0)
			close(rec->cs[i].pipe[0]);
		if (rec->cs[i].pipe[1] >= 0)
			close(rec->cs[i].pipe[1]);
		free(rec->cs[i].buf);
		rec->cs[i].fd = rec->cs[i].pipe[0] = rec->cs[i].pipe[1] = -1;
		rec->cs[i].buf = NULL;
	}
}

static void print_summary(const char *path)
{
	struct vmt_analysis_opts ao = { .window_ns = VMT_DEFAULT_WINDOW_NS };
	struct vmt_reader *r;
	struct vmt_summary s;
	char why[320];
	int ret;

	ret = vmt_reader_open(path, NULL, &r, why, sizeof(why));
	if (ret) {
		vmt_err("%s: cannot read back: %s", path, why[0] ? why : strerror(-ret));
		return;
	}
	if (vmt_analyze(r, &ao, &s) == 0)
		vmt_summary_print_text(stdout, r, &s);
	vmt_summary_free(&s);
	vmt_reader_close(r);
}

int main(int argc, char **argv)
{
	struct record_opts o = { .collector = -1, .output = DEFAULT_OUTPUT,
				 .buffer_bytes = DEFAULT_BUFFER_KB * 1024ULL,
				 .level = DEFAULT_LEVEL, .poll_ns = DEFAULT_POLL_NS };
	struct argp argp = { options, parse_opt, NULL, doc, NULL, NULL, NULL };
	struct recorder rec = { .o = &o };
	struct vmt_cpulist online = { 0, NULL };
	struct vmt_cpustats st0 = { 0 }, st1 = { 0 };
	char root[PATH_MAX], tmp[PATH_MAX], clock[64], cpus[512], errbuf[128];
	const char *stop_reason = "error";
	pthread_t collector, writer;
	bool collector_started = false, writer_started = false, kept_old = false;
	bool have_tmp = false;
	struct vmt_kvbuf meta, end;
	uint64_t mono0 = 0, mono1, deadline = 0;
	sigset_t sigs;
	int exit_code = 1, ret, fd, i, len = 0;
	unsigned int c;

	vmt_log_init(argv[0]);
	vmt_kv_init(&meta);
	vmt_kv_init(&end);
	/* Block the stop signals first, so none can arrive between set-up and cleanup. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	for (i = 0; i < argc && len < (int)sizeof(o.cmdline) - 1; i++)
		len += snprintf(o.cmdline + len, sizeof(o.cmdline) - (size_t)len, "%s%s",
				i ? " " : "", argv[i]);
	argp_parse(&argp, argc, argv, 0, NULL, &o);
	vmt_log_set_quiet(o.quiet);
	if (!o.begin) {
		o.begin = strdup("kvm:kvm_exit");
		o.end = strdup("kvm:kvm_entry");
		if (!o.begin || !o.end)
			goto out;
	}

	ret = vmt_tracefs_find(root, sizeof(root));
	if (ret) {
		vmt_err("/sys/kernel/tracing: tracefs not found or not mountable: %s%s",
			strerror(-ret), geteuid() ? " (run as root)" : "");
		goto out;
	}
	if (o.cleanup_only) {
		unsigned int removed;
		char stale[512];

		ret = vmt_tracefs_remove_stale(root, &removed, stale, sizeof(stale));
		if (ret) {
			vmt_err("%s/instances: %s", root, strerror(-ret));
			goto out;
		}
		printf("removed %u stale instance(s)%s%s\n", removed, removed ? ": " : "",
		       stale);
		exit_code = 0;
		goto out;
	}
	if (read_online_cpus(&online)) {
		vmt_err("/sys/devices/system/cpu/online: cannot read the online CPUs");
		goto out;
	}
	for (c = 0; c < o.cpus.n; c++) {
		if (!vmt_cpulist_has(&online, o.cpus.cpu[c])) {
			vmt_err("CPU %u is not online (online: %s)", o.cpus.cpu[c],
				vmt_cpulist_format(&online, cpus, sizeof(cpus)));
			goto out;
		}
	}
	if (choose_collector(&o, &online))
		goto out;
	/*
	 * Main thread too (the others inherit it): our own system calls and wake-ups then
	 * never run on a traced CPU.
	 */
	if (pin_to(o.collector))
		vmt_warn("cannot pin to collector CPU %d", o.collector);

	ret = setup_instance(&rec, root, clock, sizeof(clock));
	if (ret)
		goto out_instance;
	{
		char *hp;
		size_t hplen;

		ret = vmt_tracefs_events_file(root, "header_page", &hp, &hplen);
		if (ret || vmt_header_page_parse(hp, hplen, &rec.hp)) {
			vmt_err("%s/events/header_page: %s", root,
				ret ? strerror(-ret) : "cannot parse");
			if (!ret)
				free(hp);
			goto out_instance;
		}
		free(hp);
	}
	rec.page_size = vmt_header_page_subbuf_size(&rec.hp);
	rec.chunk_pages = CHUNK_BYTES / rec.page_size ? CHUNK_BYTES / rec.page_size : 1;
	rec.pool_cap = 64;
	rec.pool = calloc(rec.pool_cap, sizeof(*rec.pool));
	if (!rec.pool)
		goto out_instance;
	pthread_mutex_init(&rec.lock, NULL);
	pthread_cond_init(&rec.cond, NULL);

	ret = setup_cpus(&rec);
	if (ret)
		goto out_instance;

	fd = open_output(o.output, tmp, sizeof(tmp));
	if (fd < 0) {
		vmt_err("%s: cannot create: %s", fd == -ENAMETOOLONG ? o.output : tmp,
			strerror(-fd));
		goto out_instance;
	}
	have_tmp = true;
	ret = build_meta(&rec, root, clock, &meta);
	if (ret) {
		vmt_err("%s/events: cannot read the event formats of %s, %s: %s", root, o.begin,
			o.end, strerror(-ret));
		close(fd);
		goto out_instance;
	}
	add_stats(&rec, &meta, "start", &st0);
	mono0 = now_ns(CLOCK_MONOTONIC);
	vmt_kv_addf(&meta, "monotonic.start_ns", "%" PRIu64, mono0);
	ret = vmt_writer_open(fd, &meta, o.level, &rec.writer);
	if (ret) {
		vmt_err("%s: cannot write: %s", tmp, strerror(-ret));
		close(fd);
		goto out_instance;
	}

	if (pthread_create(&writer, NULL, writer_main, &rec) == 0)
		writer_started = true;
	if (writer_started && pthread_create(&collector, NULL, collector_main, &rec) == 0)
		collector_started = true;
	if (!collector_started) {
		vmt_err("cannot start the collector threads");
		goto out_threads;
	}
	ret = vmt_tracefs_write(&rec.inst, "tracing_on", "1");
	if (ret) {
		vmt_err("%s/tracing_on: %s", rec.inst.dir, strerror(-ret));
		goto out_threads;
	}
	vmt_info("recording %s -> %s on CPU %s (collector CPU %d, clock %s) into %s%s",
		 o.begin, o.end, vmt_cpulist_format(&o.cpus, cpus, sizeof(cpus)), o.collector,
		 clock, o.output, o.duration_ns ? "" : "; Ctrl-C to stop");
	if (o.duration_ns)
		deadline = now_ns(CLOCK_MONOTONIC) + o.duration_ns;

	for (;;) {
		struct timespec to = { 0, 100000000L };
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		int sig;

		if (deadline && now >= deadline) {
			stop_reason = "duration";
			break;
		}
		if (deadline && deadline - now < 100000000ULL)
			to.tv_nsec = (long)(deadline - now);
		sig = sigtimedwait(&sigs, NULL, &to);
		if (sig > 0) {
			stop_reason = signame(sig);
			vmt_info("%s: stopping", stop_reason);
			break;
		}
		if (atomic_load(&rec.failed)) {
			stop_reason = "error";
			break;
		}
	}
	exit_code = 0;

out_threads:
	/* Tracing off first: the drain then sees a fixed amount of data. */
	vmt_tracefs_write(&rec.inst, "tracing_on", "0");
	atomic_store(&rec.stop, 1);
	if (collector_started) {
		struct timespec to = { 0, 100000000L };
		bool done = false;

		while (!done) {
			int sig = sigtimedwait(&sigs, NULL, &to);

			if (sig > 0 && !atomic_load(&rec.abort_drain)) {
				vmt_warn("%s during the final drain: finishing with what is read",
					 signame(sig));
				atomic_store(&rec.abort_drain, 1);
				pthread_mutex_lock(&rec.lock);
				pthread_cond_broadcast(&rec.cond);
				pthread_mutex_unlock(&rec.lock);
			}
			pthread_mutex_lock(&rec.lock);
			done = rec.collector_done;
			pthread_mutex_unlock(&rec.lock);
		}
		pthread_join(collector, NULL);
	} else {
		pthread_mutex_lock(&rec.lock);
		rec.collector_done = true;
		pthread_cond_broadcast(&rec.cond);
		pthread_mutex_unlock(&rec.lock);
	}
	if (writer_started)
		pthread_join(writer, NULL);

	if (rec.collector_error) {
		describe_err(rec.collector_error, errbuf, sizeof(errbuf));
		vmt_err("%s: reading the ring buffer failed: %s", rec.inst.dir, errbuf);
		exit_code = 1;
	}
	if (rec.write_error) {
		describe_err(rec.write_error, errbuf, sizeof(errbuf));
		vmt_err("%s: write failed: %s; the chunks written before are kept", tmp, errbuf);
		exit_code = 1;
	}

	/* The END block: final stats, loss counts, how it stopped. */
	add_stats(&rec, &end, "end", &st1);
	mono1 = now_ns(CLOCK_MONOTONIC);
	add_time(&end, "time.end");
	vmt_kv_addf(&end, "monotonic.end_ns", "%" PRIu64, mono1);
	vmt_kv_add_str(&end, "stop_reason", rec.write_error ? "write error" : stop_reason);
	if (!vmt_clock_is_ns(clock) && st1.now_ts > st0.now_ts && mono1 > mono0)
		vmt_kv_addf(&end, VMT_META_NS_PER_TICK, "%.9g",
			    (double)(mono1 - mono0) / (double)(st1.now_ts - st0.now_ts));
	for (c = 0; c < rec.ncs; c++) {
		char key[64];

		snprintf(key, sizeof(key), "pages.cpu%u", rec.cs[c].cpu);
		vmt_kv_addf(&end, key, "%" PRIu64, rec.cs[c].pages);
		snprintf(key, sizeof(key), "missed_pages.cpu%u", rec.cs[c].cpu);
		vmt_kv_addf(&end, key, "%" PRIu64, rec.cs[c].missed_pages);
	}
	if (rec.writer && !rec.write_error) {
		ret = vmt_writer_finish(rec.writer, &end);
		if (ret) {
			vmt_err("%s: cannot finish the file: %s; the chunks written before are kept",
				tmp, strerror(-ret));
			exit_code = 1;
		}
	}
	if (rec.writer) {
		uint64_t bytes = vmt_writer_bytes(rec.writer), raw = 0, lost = 0;

		for (c = 0; c < rec.ncs; c++)
			raw += rec.cs[c].pages * rec.page_size;
		vmt_writer_close(rec.writer);
		rec.writer = NULL;
		ret = publish_output(tmp, o.output, &kept_old);
		if (ret) {
			vmt_err("%s: cannot rename to %s: %s; the recording stays in %s", tmp,
				o.output, strerror(-ret), tmp);
			exit_code = 1;
		} else {
			have_tmp = false;
			if (kept_old)
				vmt_info("the previous %s is kept as %s.old", o.output, o.output);
		}
		for (c = 0; c < rec.ncs; c++)
			lost += rec.cs[c].missed_count;
		vmt_info("wrote %s: %" PRIu64 " chunks, %" PRIu64 " KiB of pages -> %" PRIu64
			 " KiB, stopped by %s", ret ? tmp : o.output, rec.chunks_written, raw / 1024,
			 bytes / 1024, rec.write_error ? "write error" : stop_reason);
		if (st1.overrun + st1.commit_overrun + st1.dropped > 0 || lost)
			vmt_warn("events were lost: %" PRIu64 " (ring buffer stats), %" PRIu64
				 " (page flags); try a larger --buffer-size or a shorter "
				 "--poll-interval", vmt_cpustats_lost(&st1) - vmt_cpustats_lost(&st0),
				 lost);
		if (!o.quiet && !ret)
			print_summary(o.output);
	}

out_instance:
	close_cpus(&rec);
	if (rec.writer)
		vmt_writer_close(rec.writer);
	if (have_tmp && rec.chunks_written == 0 && exit_code)
		unlink(tmp);	/* nothing recorded: no empty file left behind */
	if (rec.have_inst) {
		ret = vmt_tracefs_instance_remove(&rec.inst);
		if (ret) {
			vmt_err("%s: cannot remove the ftrace instance: %s (vmtrace-record "
				"--cleanup removes it later)", rec.inst.dir, strerror(-ret));
			exit_code = 1;
		}
	}
	if (rec.pool) {
		for (c = 0; c < rec.npool; c++)
			free(rec.pool[c]);
		free(rec.pool);
	}
	free(rec.cs);
out:
	vmt_kv_free(&meta);
	vmt_kv_free(&end);
	vmt_cpulist_free(&online);
	vmt_cpulist_free(&o.cpus);
	free(o.begin);
	free(o.end);
	return exit_code;
}
