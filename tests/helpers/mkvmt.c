// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkvmt (tests only): writes a .vmt recording with known contents from a small script,
 * through the real container writer and the test page builder, so end-to-end tests can
 * check the report against answers computed by hand.
 *
 *   mkvmt FORMAT_DIR OUT.vmt < script
 *
 * FORMAT_DIR holds header_page and <system>/<event>/format files. Script lines:
 *   events SYS:BEGIN SYS:END      (default kvm:kvm_exit kvm:kvm_entry)
 *   clock NAME                    (default local)
 *   isa N                         (the isa field of exits: 1 VMX, 2 SVM, the default; the
 *                                  last one before the events, then each for the exits
 *                                  after it)
 *   cpus LIST                     (traced CPUs written to the metadata)
 *   stats CPU START_LOST END_LOST [END_ENTRIES]
 *                                 (per-CPU overrun at start and end, and the entries
 *                                  still in the buffer at the end: with "endmeta drain
 *                                  aborted" those a recorder left unread)
 *   page CPU [missed [COUNT]]     (start a new page; flag lost events before it)
 *   chunk CPU                     (close the CPU's chunk: later pages go to a new one)
 *   firstts CPU TS                (the CPU's current chunk's header says it begins at TS,
 *                                  whatever its pages hold, as a damaged header would)
 *   exit CPU TS PID REASON [VCPU] (a begin event; TS in ns)
 *   entry CPU TS PID [VCPU]       (an end event)
 *   other CPU TS                  (a record of some other event)
 *   short CPU TS                  (a record of 4 bytes, too short for the common header
 *                                  every event starts with: a broken writer's)
 *   context SYS:EV,SYS:EV,...     (context events the file says it recorded, with formats)
 *   ctx CPU TS SYS:EV FLAGS PID [FIELD=VALUE ...]
 *                                 (a record of a context event: numbers, or text for
 *                                  char arrays and __data_loc strings)
 *   endmeta KEY VALUE             (a key of the END block, as a recorder writes at its
 *                                  end: clock.ns_per_tick 8.5)
 *   meta KEY VALUE                (a key of the metadata at the start: the VM map of
 *                                  vmtrace-record --vm, "vm.count 1", "vm.0.name web1",
 *                                  "vm.0.pid 900", "vm.0.vcpus 1000:0,1001:1")
 *   unfinished                    (leave out the END block)
 * Generated mode: mkvmt --random EXITS CPUS FORMAT_DIR OUT.vmt (pseudo-random, seeded).
 * With --context before --random, the file also declares context events and about one
 * exit in 16 holds an interrupt (irq_handler_entry/exit), one in 64 a switch to another
 * task and back (sched_switch), for measuring the attribution's cost.
 * With --legacy first, OUT is written as the original tool's trace.bin instead: the
 * 8-byte header (signature, kvm_entry id, kvm_exit id) and CPU 0's 4 KiB pages.
 * Chunks hold vmt_chunk_pages() of the CPUs (as vmtrace-record writes them); --chunk-pages N,
 * before everything, sets their size (1 MiB chunks on many CPUs: earlier recorders').
 * --meta KEY=VALUE, first and as often as needed, adds a key as the script's meta line does
 * (for --random files, which read no script).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes.h"
#include "container.h"
#include "evformat.h"
#include "io.h"
#include "kv.h"
#include "legacyfmt.h"
#include "metakeys.h"
#include "pagebuilder.h"
#include "rbpage.h"

#define MAX_CPUS 64
/* pages per chunk: vmt_chunk_pages() of the CPUs, as vmtrace-record writes them */
static uint32_t chunk_pages;

struct cpu_out {
	uint8_t *pages;		/* chunk_pages sub-buffers */
	uint32_t npages;
	struct pb pb;
	bool open;
	bool missed, stored;
	uint64_t missed_count;
	bool first_ts_set;	/* firstts: the chunk header's first time given */
	uint64_t first_ts;
	struct vmt_chunk_info info;
};

static struct vmt_header_page hp;
static uint32_t page_size;
static struct vmt_evformat *fbegin, *fend;
static struct cpu_out cpus[MAX_CPUS];
static struct vmt_writer *w;
static int legacy_fd = -1;
static unsigned int isa_value = 2;

static void die(const char *what)
{
	fprintf(stderr, "mkvmt: %s\n", what);
	exit(1);
}

static char *slurp(const char *dir, const char *rel, size_t *len)
{
	char path[4096], *text;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (vmt_io_read_file(path, 1u << 20, &text, len))
		die(path);
	return text;
}

static struct vmt_evformat *load_format(const char *dir, const char *event, struct vmt_kvbuf *kb,
					const char *key)
{
	char rel[512], sys[128];
	const char *colon = strchr(event, ':');
	struct vmt_evformat *f;
	size_t len;
	char *text;

	if (!colon)
		die("event without system");
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - event), event);
	snprintf(rel, sizeof(rel), "%s/%s/format", sys, colon + 1);
	text = slurp(dir, rel, &len);
	if (vmt_evformat_parse(text, len, sys, &f, NULL))
		die("bad format file");
	vmt_kv_add(kb, key, text, len);
	free(text);
	return f;
}

static void close_page(struct cpu_out *c)
{
	if (!c->open)
		return;
	pb_finish(&c->pb, c->missed, c->stored, c->missed_count);
	if (c->missed) {
		c->info.missed_pages++;
		c->info.missed_count += c->missed_count;
	}
	c->missed = c->stored = false;
	c->missed_count = 0;
	c->open = false;
	c->npages++;
}

static void flush_chunk(unsigned int cpu)
{
	struct cpu_out *c = &cpus[cpu];

	close_page(c);
	if (!c->npages)
		return;
	c->info.cpu = cpu;
	if (c->first_ts_set)
		c->info.first_ts = c->first_ts;
	c->first_ts_set = false;
	if (legacy_fd >= 0) {
		if (cpu == 0 && vmt_io_write_full(legacy_fd, c->pages, (size_t)c->npages * page_size))
			die("write trace.bin");
	} else if (vmt_writer_chunk(w, c->pages, c->npages, page_size, &c->info)) {
		die("write chunk");
	}
	memset(&c->info, 0, sizeof(c->info));
	c->npages = 0;
}

static void open_page(unsigned int cpu, uint64_t ts)
{
	struct cpu_out *c = &cpus[cpu];

	close_page(c);
	if (c->npages == chunk_pages)
		flush_chunk(cpu);
	if (!c->pages && !(c->pages = malloc((size_t)chunk_pages * page_size)))
		die("out of memory");
	if (c->npages == 0)
		c->info.first_ts = ts;
	pb_init(&c->pb, c->pages + (size_t)c->npages * page_size, &hp, ts);
	c->open = true;
}

static void put_field(uint8_t *rec, const struct vmt_evformat *f, const char *name, uint64_t v)
{
	const struct vmt_evfield *fl = vmt_evformat_field(f, name);

	if (!fl)
		return;
	switch (fl->size) {
	case 1:
		rec[fl->offset] = (uint8_t)v;
		break;
	case 2:
		put_le16(rec + fl->offset, (uint16_t)v);
		break;
	case 4:
		put_le32(rec + fl->offset, (uint32_t)v);
		break;
	case 8:
		put_le64(rec + fl->offset, v);
		break;
	}
}

static uint32_t record_size(const struct vmt_evformat *f)
{
	uint32_t size = 0, i;

	for (i = 0; i < f->nfields; i++) {
		if (f->fields[i].offset + f->fields[i].size > size)
			size = f->fields[i].offset + f->fields[i].size;
	}
	return (size + 3) & ~3u;
}

static void add_event(unsigned int cpu, uint64_t ts, const struct vmt_evformat *f, int32_t pid,
		      uint64_t reason, int64_t vcpu)
{
	struct cpu_out *c = &cpus[cpu];
	uint8_t rec[512] = { 0 };
	uint32_t len = record_size(f);

	if (cpu >= MAX_CPUS || len > sizeof(rec))
		die("bad cpu or record");
	put_field(rec, f, "common_type", f->id);
	put_field(rec, f, "common_pid", (uint32_t)pid);
	if (f == fbegin) {
		put_field(rec, f, "exit_reason", reason);
		put_field(rec, f, "esr_ec", reason);
		put_field(rec, f, "id", reason);
		put_field(rec, f, "isa", isa_value);
		put_field(rec, f, "guest_rip", 0xfff0 + ts % 4096);
		put_field(rec, f, "info1", ts);
		put_field(rec, f, "info2", (uint64_t)pid);
	} else {
		put_field(rec, f, "rip", 0xfff0 + ts % 4096);
	}
	if (vcpu >= 0)
		put_field(rec, f, "vcpu_id", (uint64_t)vcpu);
	if (!c->open)
		open_page(cpu, ts);
	if (pb_data(&c->pb, ts, rec, len, false) == -ENOSPC) {
		open_page(cpu, ts);
		if (pb_data(&c->pb, ts, rec, len, false))
			die("record does not fit a page");
	}
	c->info.last_ts = ts;
}

/* A record of some other event (len 16), or of none (len 4: shorter than any event's). */
static void add_other(unsigned int cpu, uint64_t ts, uint32_t len)
{
	struct cpu_out *c = &cpus[cpu];
	uint8_t rec[16] = { 0 };

	put_le16(rec, 0xfffe);
	if (!c->open)
		open_page(cpu, ts);
	if (pb_data(&c->pb, ts, rec, len, false) == -ENOSPC) {
		open_page(cpu, ts);
		pb_data(&c->pb, ts, rec, len, false);
	}
}

/* Context events: formats loaded once by the "context" line. */
#define MAX_CTX 64
static struct vmt_evformat *ctx_fmt[MAX_CTX];
static char *ctx_name[MAX_CTX];
static unsigned int nctx;

static void load_context(const char *dir, const char *list, struct vmt_kvbuf *kb)
{
	char *copy = strdup(list), *tok, *save = NULL;

	if (!copy)
		die("out of memory");
	vmt_kv_add_str(kb, "context.events", list);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char key[256];

		if (nctx == MAX_CTX)
			die("too many context events");
		snprintf(key, sizeof(key), "format.ctx.%s", tok);
		ctx_fmt[nctx] = load_format(dir, tok, kb, key);
		ctx_name[nctx++] = strdup(tok);
	}
	free(copy);
}

static void add_ctx(unsigned int cpu, uint64_t ts, const char *event, unsigned int flags,
		    int32_t pid, char *fields)
{
	struct cpu_out *c = &cpus[cpu];
	const struct vmt_evformat *f = NULL;
	uint8_t rec[512] = { 0 };
	uint32_t len, i;
	char *tok, *save = NULL;

	for (i = 0; i < nctx; i++) {
		if (strcmp(ctx_name[i], event) == 0)
			f = ctx_fmt[i];
	}
	if (!f || cpu >= MAX_CPUS)
		die("ctx: unknown event (declare it with a context line) or bad cpu");
	len = record_size(f);
	put_field(rec, f, "common_type", f->id);
	put_field(rec, f, "common_flags", flags);
	put_field(rec, f, "common_pid", (uint32_t)pid);
	for (tok = strtok_r(fields, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		char *eq = strchr(tok, '=');
		const struct vmt_evfield *fl;

		if (!eq)
			die("ctx: FIELD=VALUE expected");
		*eq = '\0';
		fl = vmt_evformat_field(f, tok);
		if (!fl)
			die("ctx: no such field");
		if (strstr(fl->type, "__data_loc")) {
			size_t n = strlen(eq + 1) + 1;

			if (len + n > sizeof(rec))
				die("ctx: string too long");
			memcpy(rec + len, eq + 1, n);
			put_le32(rec + fl->offset, (uint32_t)(n << 16 | len));
			len = (uint32_t)((len + n + 3) & ~3u);
		} else if (fl->is_array) {
			strncpy((char *)rec + fl->offset, eq + 1, fl->size - 1);
		} else {
			put_field(rec, f, tok, strtoull(eq + 1, NULL, 0));
		}
	}
	if (!c->open)
		open_page(cpu, ts);
	if (pb_data(&c->pb, ts, rec, len, false) == -ENOSPC) {
		open_page(cpu, ts);
		if (pb_data(&c->pb, ts, rec, len, false))
			die("record does not fit a page");
	}
	c->info.last_ts = ts;
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void random_events(uint64_t exits, unsigned int ncpus, bool with_ctx)
{
	/* SVM reasons with a realistic mix: mostly cheap exits, a long tail. */
	static const uint64_t reasons[] = { 0x072, 0x07b, 0x400, 0x060, 0x078, 0x07c };
	uint64_t ts[MAX_CPUS], i;
	unsigned int c;

	for (c = 0; c < ncpus; c++)
		ts[c] = 1000000000ULL + c * 17;
	for (i = 0; i < exits; i++) {
		uint64_t r = rnd(), lat, gap;

		c = (unsigned int)(i % ncpus);
		lat = 300 + r % 1500;
		if ((r >> 20) % 1000 == 0)
			lat += (r >> 32) % 200000;	/* a long exit now and then */
		gap = 200 + (r >> 40) % 3000;
		ts[c] += gap;
		add_event(c, ts[c], fbegin, 1000 + (int32_t)c, reasons[(r >> 12) % 6], c);
		if (with_ctx && (r >> 52) % 16 == 0) {
			char f[] = "irq=24 name=eth0", g[] = "irq=24 ret=1";

			add_ctx(c, ts[c] + lat / 4, "irq:irq_handler_entry", 8, 1000 + (int32_t)c, f);
			add_ctx(c, ts[c] + lat / 2, "irq:irq_handler_exit", 8, 1000 + (int32_t)c, g);
		} else if (with_ctx && (r >> 52) % 64 == 1) {
			char f[96], g[96];

			snprintf(f, sizeof(f), "prev_comm=vcpu prev_pid=%d prev_state=1 "
				 "next_comm=worker next_pid=77", 1000 + (int)c);
			snprintf(g, sizeof(g), "prev_comm=worker prev_pid=77 prev_state=1 "
				 "next_comm=vcpu next_pid=%d", 1000 + (int)c);
			add_ctx(c, ts[c] + lat / 4, "sched:sched_switch", 0, 1000 + (int32_t)c, f);
			add_ctx(c, ts[c] + lat / 2, "sched:sched_switch", 0, 77, g);
		}
		ts[c] += lat;
		add_event(c, ts[c], fend, 1000 + (int32_t)c, 0, c);
	}
}

int main(int argc, char **argv)
{
	const char *dir, *out;
	char begin[128] = "kvm:kvm_exit", end[128] = "kvm:kvm_entry";
	char line[512], clock[64] = "local", cpulist[256] = "", context[256] = "";
	uint64_t stats_start[MAX_CPUS] = { 0 }, stats_end[MAX_CPUS] = { 0 };
	uint64_t entries_end[MAX_CPUS] = { 0 };
	uint64_t rand_exits = 0;
	unsigned int rand_cpus = 0, i;
	bool finished = true, have_stats = false;
	struct vmt_kvbuf meta, endkv;
	char *text, **lines = NULL, *metas[64];
	size_t len, nlines = 0, nalloc = 0, nmetas = 0;
	int fd;

	while (argc > 2 && strcmp(argv[1], "--meta") == 0) {
		if (!strchr(argv[2], '=') || nmetas == sizeof(metas) / sizeof(metas[0]))
			die("--meta KEY=VALUE, at most 64 of them");
		metas[nmetas++] = argv[2];
		argv += 2;
		argc -= 2;
	}

	if (argc > 2 && strcmp(argv[1], "--chunk-pages") == 0) {
		char *rest;
		unsigned long n = strtoul(argv[2], &rest, 10);

		/* the reader refuses chunks over VMT_MAX_CHUNK_RAW: 64 KiB pages at most here */
		if (!n || *rest || n > VMT_MAX_CHUNK_RAW / 65536)
			die("--chunk-pages: a page count from 1 to 4096");
		chunk_pages = (uint32_t)n;
		argv += 2;
		argc -= 2;
	}
	bool legacy = argc > 1 && strcmp(argv[1], "--legacy") == 0;

	if (legacy) {
		argv++;
		argc--;
	}
	bool rand_ctx = argc > 1 && strcmp(argv[1], "--context") == 0;

	if (rand_ctx) {
		argv++;
		argc--;
	}
	if (argc == 6 && strcmp(argv[1], "--random") == 0) {
		rand_exits = strtoull(argv[2], NULL, 10);
		rand_cpus = (unsigned int)strtoul(argv[3], NULL, 10);
		if (!rand_cpus || rand_cpus > MAX_CPUS)
			die("bad CPU count");
		argv += 3;
		argc -= 3;
		if (rand_cpus == 1)	/* as vmt_cpulist_format() writes them */
			snprintf(cpulist, sizeof(cpulist), "0");
		else
			snprintf(cpulist, sizeof(cpulist), "0-%u", rand_cpus - 1);
	}
	if (argc != 3)
		die("usage: mkvmt [--meta KEY=VALUE]... [--chunk-pages N] [--legacy] [--context] "
		    "[--random EXITS CPUS] FORMAT_DIR OUT.vmt < script");
	dir = argv[1];
	out = argv[2];

	/* The script's header lines first: they decide the metadata. */
	while (!rand_cpus && fgets(line, sizeof(line), stdin)) {
		char a[128], b[128];

		/* doubling: one realloc per line is quadratic where realloc copies (ASan) */
		if (nlines == nalloc) {
			nalloc = nalloc ? nalloc * 2 : 1024;
			lines = realloc(lines, nalloc * sizeof(*lines));
		}
		if (!lines || !(lines[nlines++] = strdup(line)))
			die("out of memory");
		if (sscanf(line, "events %127s %127s", a, b) == 2) {
			memcpy(begin, a, sizeof(begin));
			memcpy(end, b, sizeof(end));
		}
		sscanf(line, "clock %63s", clock);
		sscanf(line, "isa %u", &isa_value);
		sscanf(line, "cpus %255s", cpulist);
		sscanf(line, "context %255s", context);
	}

	text = slurp(dir, "header_page", &len);
	if (vmt_header_page_parse(text, len, &hp))
		die("bad header_page");
	page_size = vmt_header_page_subbuf_size(&hp);
	if (!chunk_pages)	/* a script's CPUs are known only as it runs: as for one CPU */
		chunk_pages = vmt_chunk_pages(rand_cpus ? rand_cpus : 1, page_size);
	vmt_kv_init(&meta);
	vmt_kv_add(&meta, VMT_META_HEADER_PAGE, text, len);
	free(text);
	vmt_kv_add_str(&meta, VMT_META_EVENT_BEGIN, begin);
	vmt_kv_add_str(&meta, VMT_META_EVENT_END, end);
	fbegin = load_format(dir, begin, &meta, VMT_META_FORMAT_BEGIN);
	fend = load_format(dir, end, &meta, VMT_META_FORMAT_END);
	vmt_kv_add_str(&meta, VMT_META_CLOCK, clock);
	vmt_kv_add_str(&meta, VMT_META_ENDIAN, "little");
	vmt_kv_add_str(&meta, "hostname", "mkvmt");
	for (i = 0; i < nmetas; i++) {
		char *eq = strchr(metas[i], '=');

		*eq = '\0';
		vmt_kv_add_str(&meta, metas[i], eq + 1);
	}
	for (i = 0; i < nlines; i++) {
		char key[128];
		int n;

		if (sscanf(lines[i], "meta %127s %n", key, &n) == 1) {
			lines[i][strcspn(lines[i], "\n")] = '\0';
			vmt_kv_add_str(&meta, key, lines[i] + n);
		}
	}
	if (*cpulist)
		vmt_kv_add_str(&meta, VMT_META_CPUS, cpulist);
	if (rand_ctx)
		snprintf(context, sizeof(context), "sched:sched_switch,irq:irq_handler_entry,"
			 "irq:irq_handler_exit");
	if (*context)
		load_context(dir, context, &meta);

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(out);
	if (legacy) {
		uint8_t hdr[8];

		put_le32(hdr, VMT_LEGACY_SIGNATURE);
		put_le16(hdr + 4, (uint16_t)fend->id);
		put_le16(hdr + 6, (uint16_t)fbegin->id);
		if (vmt_io_write_full(fd, hdr, sizeof(hdr)))
			die(out);
		legacy_fd = fd;
	} else if (vmt_writer_open(fd, &meta, VMT_DEFAULT_LEVEL, &w)) {
		die(out);
	}

	vmt_kv_init(&endkv);
	if (rand_cpus)
		random_events(rand_exits, rand_cpus, rand_ctx);
	for (i = 0; i < nlines; i++) {
		unsigned int cpu;
		uint64_t ts, reason, a, b, c;
		int32_t pid;
		long vcpu;
		char word[32], ev[256];
		int n;

		if (sscanf(lines[i], "exit %u %" SCNu64 " %" SCNd32 " %" SCNi64 " %ld", &cpu, &ts,
			   &pid, &reason, &vcpu) >= 4) {
			n = sscanf(lines[i], "exit %u %" SCNu64 " %" SCNd32 " %" SCNi64 " %ld", &cpu,
				   &ts, &pid, &reason, &vcpu);
			add_event(cpu, ts, fbegin, pid, reason, n == 5 ? vcpu : -1);
		} else if ((n = sscanf(lines[i], "entry %u %" SCNu64 " %" SCNd32 " %ld", &cpu, &ts,
				       &pid, &vcpu)) >= 3) {
			add_event(cpu, ts, fend, pid, 0, n == 4 ? vcpu : -1);
		} else if (sscanf(lines[i], "other %u %" SCNu64, &cpu, &ts) == 2) {
			add_other(cpu, ts, 16);
		} else if (sscanf(lines[i], "short %u %" SCNu64, &cpu, &ts) == 2) {
			add_other(cpu, ts, 4);
		} else if (sscanf(lines[i], "ctx %u %" SCNu64 " %255s %" SCNi64 " %" SCNd32 " %n",
				  &cpu, &ts, ev, &a, &pid, &n) == 5) {
			add_ctx(cpu, ts, ev, (unsigned int)a, pid, lines[i] + n);
		} else if ((n = sscanf(lines[i], "page %u %31s %" SCNu64, &cpu, word, &a)) >= 1) {

			if (cpu >= MAX_CPUS)
				die("bad cpu");
			/* The new page starts at the time of its first record. */
			close_page(&cpus[cpu]);
			cpus[cpu].open = false;
			if (n >= 2 && strcmp(word, "missed") == 0) {
				/* Remembered for the next page opened on this CPU. */
				cpus[cpu].missed = true;
				cpus[cpu].stored = n == 3;
				cpus[cpu].missed_count = n == 3 ? a : 0;
			}
		} else if (sscanf(lines[i], "isa %u", &isa_value) == 1) {
			/* mixed ISAs: the exits from here on (a hostile recording) */
		} else if (sscanf(lines[i], "firstts %u %" SCNu64, &cpu, &ts) == 2) {
			if (cpu >= MAX_CPUS)
				die("bad cpu");
			cpus[cpu].first_ts_set = true;
			cpus[cpu].first_ts = ts;
		} else if (sscanf(lines[i], "chunk %u", &cpu) == 1) {
			if (cpu < MAX_CPUS)
				flush_chunk(cpu);
		} else if ((n = sscanf(lines[i], "stats %u %" SCNu64 " %" SCNu64 " %" SCNu64, &cpu,
				       &a, &b, &c)) >= 3) {
			if (cpu < MAX_CPUS) {
				stats_start[cpu] = a;
				stats_end[cpu] = b;
				entries_end[cpu] = n == 4 ? c : 0;
				have_stats = true;
			}
		} else if (sscanf(lines[i], "endmeta %255s %n", ev, &n) == 1) {
			lines[i][strcspn(lines[i], "\n")] = '\0';	/* as meta's value */
			vmt_kv_add_str(&endkv, ev, lines[i] + n);
		} else if (strncmp(lines[i], "unfinished", 10) == 0) {
			finished = false;
		}
		free(lines[i]);
	}
	free(lines);
	for (i = 0; i < MAX_CPUS; i++) {
		flush_chunk(i);
		free(cpus[i].pages);
	}
	if (have_stats) {
		for (i = 0; i < MAX_CPUS; i++) {
			char key[64];

			snprintf(key, sizeof(key), "stats.start.cpu%u", i);
			vmt_kv_addf(&endkv, key, "entries: 0\noverrun: %" PRIu64 "\n", stats_start[i]);
			snprintf(key, sizeof(key), "stats.end.cpu%u", i);
			vmt_kv_addf(&endkv, key, "entries: %" PRIu64 "\noverrun: %" PRIu64 "\n",
				    entries_end[i], stats_end[i]);
		}
	}
	if (legacy_fd < 0 && finished && vmt_writer_finish(w, &endkv))
		die("finish");
	vmt_writer_free(w);
	if (close(fd) < 0)
		die(out);
	vmt_kv_free(&meta);
	vmt_kv_free(&endkv);
	vmt_evformat_free(fbegin);
	vmt_evformat_free(fend);
	for (i = 0; i < nctx; i++) {
		vmt_evformat_free(ctx_fmt[i]);
		free(ctx_name[i]);
	}
	return 0;
}
