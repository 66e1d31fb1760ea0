// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputopt.h"
#include "timefmt.h"

enum {
	OPT_FORMAT_DIR = 0x1100,
	OPT_PAIR,
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Input:", 40 },
	{ "format-dir", OPT_FORMAT_DIR, "DIR", 0, "event formats for a trace.bin: a copy of "
	  "the recording host's tracefs events/ directory", 40 },
	{ "pair", OPT_PAIR, "BEGIN,END", 0, "the event pair of a trace.dat: the time from "
	  "BEGIN to END is measured (default " VMT_TRACEDAT_DEFAULT_PAIR ")", 40 },
	{ 0 }
};

/* Whether s..s+len is SYSTEM:NAME: one colon with a name on each side of it. */
static bool event_name_ok(const char *s, size_t len)
{
	const char *colon = memchr(s, ':', len);

	return colon && colon > s && colon < s + len - 1 &&
	       !memchr(colon + 1, ':', len - (size_t)(colon + 1 - s));
}

/*
 * A pair that cannot measure what the report says it does, refused before any file is read,
 * as any bad command line is: one not of the form SYSTEM:BEGIN,SYSTEM:END, the same event
 * twice (it pairs nothing: each one would end the one before), and KVM's pair the wrong
 * way round (each vCPU's time in the guest, which every figure would present as time out
 * of it). Whether the file has those events is the trace.dat loader's to say.
 */
static void check_pair(struct argp_state *state, const char *arg)
{
	const char *comma = strchr(arg, ',');
	size_t len;

	if (!comma || strchr(comma + 1, ',') || !event_name_ok(arg, (size_t)(comma - arg)) ||
	    !event_name_ok(comma + 1, strlen(comma + 1)))
		argp_error(state, "invalid --pair '%s': the form is SYSTEM:BEGIN,SYSTEM:END, e.g. "
			   VMT_TRACEDAT_DEFAULT_PAIR, arg);
	len = (size_t)(comma - arg);
	if (len && strlen(comma + 1) == len && strncmp(arg, comma + 1, len) == 0)
		argp_error(state, "invalid --pair '%s': BEGIN and END are the same event", arg);
	if (strcmp(arg, "kvm:kvm_entry,kvm:kvm_exit") == 0)
		argp_error(state, "--pair %s measures the time in the guest (from each entry to "
			   "the next exit); the out-of-guest pair is " VMT_TRACEDAT_DEFAULT_PAIR,
			   arg);
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct vmt_input_opts *o = state->input;

	switch (key) {
	case OPT_FORMAT_DIR:
		if (!*arg)
			argp_error(state, "empty --format-dir");
		o->format_dir = arg;
		break;
	case OPT_PAIR:
		check_pair(state, arg);
		o->pair = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp vmt_input_argp = { options, parse_opt, NULL, NULL, NULL, NULL, NULL };

int vmt_input_open(const char *path, const struct vmt_input_opts *o, struct vmt_reader **r,
		   char *msg, size_t msg_size, char *warn, size_t warn_size)
{
	struct vmt_input_opts strict = *o;
	int ret;

	if (warn_size)
		warn[0] = '\0';
	msg[0] = '\0';
	/* an option the file does not use is refused by the source, once it knows the format */
	strict.refuse_unused = true;
	ret = vmt_reader_open(path, &strict, r, msg, msg_size);
	if (ret) {
		*r = NULL;
		if (!msg[0])
			snprintf(msg, msg_size, "%s", strerror(-ret));
		return ret;
	}
	return 0;
}

static int stat_input(const char *path, struct stat *st)
{
	return strcmp(path, "-") ? stat(path, st) : fstat(STDIN_FILENO, st);
}

int vmt_input_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat_input(a, &sa) < 0 || stat_input(b, &sb) < 0)
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* "2 chunks, 1 page": the counts that are not 0, into buf. */
static void count_words(char *buf, size_t size, uint64_t blocks, uint64_t chunks, uint64_t pages)
{
	const uint64_t n[3] = { blocks, chunks, pages };
	static const char *const what[3] = { "block", "chunk", "page" };
	size_t len = 0;
	unsigned int k;

	buf[0] = '\0';
	for (k = 0; k < 3; k++) {
		if (n[k] && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%llu %s%s",
						len ? ", " : "", (unsigned long long)n[k], what[k],
						n[k] == 1 ? "" : "s");
	}
}

/*
 * Where the first damage is, for a user to look there: "(why): the chunk at offset N, CPU
 * c, P pages, T0 s to T1 s", with its header's CPU, pages and times (from the recording's
 * first page, as the report's times are); or the first damaged block's offset.
 */
static void damage_place(char *buf, size_t size, const struct vmt_reader *r,
			 const struct vmt_damage *d, const struct vmt_source_status *st)
{
	const struct vmt_clock *clk = vmt_reader_clock(r);
	uint64_t start = vmt_reader_start_ts(r);
	char page[48] = "", times[112] = "", a[48], b[48];

	if (!d || !d->why || !d->located) {
		snprintf(buf, size, "(%s): the block at offset %llu",
			 d && d->why ? d->why : st->bad_block_why[0] ? st->bad_block_why :
			 "a block that fails its checks",
			 (unsigned long long)st->bad_block_at);
		return;
	}
	if (d->page != UINT32_MAX)
		snprintf(page, sizeof(page), "page %u of ", d->page);
	if (d->first_ts != UINT64_MAX && d->first_ts >= start && d->last_ts >= d->first_ts)
		snprintf(times, sizeof(times), ", %s %s to %s %s",
			 vmt_fmt_time(clk, start, d->first_ts, a, sizeof(a)), vmt_fmt_time_unit(clk),
			 vmt_fmt_time(clk, start, d->last_ts, b, sizeof(b)), vmt_fmt_time_unit(clk));
	snprintf(buf, size, "(%s): %sthe chunk at offset %llu, CPU %u, %u page%s%s", d->why,
		 page, (unsigned long long)d->offset, d->cpu, d->pages, d->pages == 1 ? "" : "s",
		 times);
}

/* One more note, past the last: dropped rather than written out of the array. */
static __attribute__((format(printf, 2, 3))) void add_note(struct vmt_input_notes *out,
							   const char *fmt, ...)
{
	va_list ap;

	if (out->n >= VMT_INPUT_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(out->note[out->n++], VMT_INPUT_NOTE_SIZE, fmt, ap);
	va_end(ap);
}

void vmt_input_notes(const struct vmt_reader *r, const struct vmt_reader_stats *rd,
		     const struct vmt_damage *damage, bool with_lost,
		     struct vmt_input_notes *out)
{
	const struct vmt_source *src = vmt_reader_source(r);
	const struct vmt_source_status *st = vmt_source_status(src);
	unsigned int nbad;

	memset(out, 0, sizeof(*out));
	/* nothing was lost with it: a note, not damage that changes the exit status */
	if (st->meta_damaged_at)
		add_note(out,
			 "damaged metadata block at offset %llu: its copy was read instead",
			 (unsigned long long)st->meta_damaged_at);
	if (st->after_end_at) {
		/* the recording is whole: a note, not damage */
		uint64_t n = st->file_size - st->after_end_at;

		add_note(out,
			 "%llu byte%s after the recording's end record (offset %llu) %s not read: %s",
			 (unsigned long long)n, n == 1 ? "" : "s",
			 (unsigned long long)st->after_end_at, n == 1 ? "was" : "were",
			 st->after_end_recording ? "another recording's file header starts there "
			 "(files joined); report it on its own" : "not part of this recording");
	}
	if (st->joined_at) {
		/* cat of a cut recording and another: the second is not this recording's */
		add_note(out,
			 "the recording was not finished, and another recording's file header "
			 "follows it at offset %llu (files joined): that one is not read; figures "
			 "cover the first one's %zu complete chunk%s",
			 (unsigned long long)st->joined_at, vmt_source_nchunks(src),
			 vmt_source_nchunks(src) == 1 ? "" : "s");
		out->damaged = true;
	} else if (!st->finished && st->trunc_why) {
		add_note(out,
			 "the recording was not finished (%s at offset %llu); figures cover the "
			 "%zu complete chunk%s", st->trunc_why,
			 (unsigned long long)st->truncated_at, vmt_source_nchunks_counted(src),
			 vmt_source_nchunks_counted(src) == 1 ? "" : "s");
		out->damaged = true;
	} else if (!st->finished && st->bad_end_at) {
		add_note(out,
			 "damaged end record at offset %llu: lost events and stop reason "
			 "unknown", (unsigned long long)st->bad_end_at);
		out->damaged = true;
	} else if (!st->finished && st->end_counts && st->end_chunks > vmt_source_nchunks(src)) {
		/* its end is there: the recorder finished it, damage took chunks (a run of them
		 * counts as one damaged place) */
		uint64_t lost = st->end_chunks - vmt_source_nchunks(src);

		add_note(out,
			 "damaged file: its end record counts %llu chunks, %zu were found: "
			 "%llu chunk%s lost with the damaged data", (unsigned long long)st->end_chunks,
			 vmt_source_nchunks(src), (unsigned long long)lost, lost == 1 ? "" : "s");
		out->damaged = true;
	} else if (!st->finished && st->end_at && !st->end_counts) {
		add_note(out,
			 "damaged end record at offset %llu: its chunk count (chunk.count) is "
			 "missing or not a number; whether chunks are missing is not known",
			 (unsigned long long)st->end_at);
		out->damaged = true;
	} else if (!st->finished && st->end_at) {
		/* more chunks than the recorder wrote: added to the file, or a wrong count */
		uint64_t held = vmt_source_nchunks(src) + st->bad_blocks;
		uint64_t more = held - st->end_chunks;

		add_note(out,
			 "damaged file: its end record counts %llu chunk%s, the file holds %llu: "
			 "%llu more than its recorder wrote (all of them read)",
			 (unsigned long long)st->end_chunks, st->end_chunks == 1 ? "" : "s",
			 (unsigned long long)held, (unsigned long long)more);
		out->damaged = true;
	} else if (!st->finished) {
		/* whole blocks up to the end: still being written, or its recorder died */
		add_note(out,
			 "the recording was not finished (no end record after its last block); "
			 "figures cover its %zu chunk%s", vmt_source_nchunks_counted(src),
			 vmt_source_nchunks_counted(src) == 1 ? "" : "s");
		out->damaged = true;
	}
	if (st->bad_first_ts) {
		char more[48] = "";

		if (st->bad_first_ts > 1)
			snprintf(more, sizeof(more), " (and %llu more)",
				 (unsigned long long)(st->bad_first_ts - 1));
		add_note(out,
			 "damaged file: the chunk at offset %llu (CPU %u) says it begins at another "
			 "time than its pages do%s: its pages' time taken, for the recording's start "
			 "too",
			 (unsigned long long)st->bad_first_ts_at, st->bad_first_ts_cpu, more);
		out->damaged = true;
	}
	if (vmt_reader_bad_value(r, &nbad)) {
		char more[48] = "";

		if (nbad > 1)
			snprintf(more, sizeof(more), " (and %u more)", nbad - 1);
		add_note(out,
			 "damaged file: an impossible value of %s%s: taken as not known",
			 vmt_reader_bad_value(r, &nbad), more);
		out->damaged = true;
	}
	if (st->dup_chunks) {
		char more[48] = "";

		if (st->dup_chunks > 1)
			snprintf(more, sizeof(more), " (and %llu more)",
				 (unsigned long long)(st->dup_chunks - 1));
		add_note(out,
			 "damaged file: the chunk at offset %llu repeats the one at offset %llu "
			 "(CPU, times, pages)%s: skipped, its events counted once",
			 (unsigned long long)st->dup_at, (unsigned long long)st->dup_of, more);
		out->damaged = true;
	}
	if (st->extra_meta) {
		char more[48] = "";

		if (st->extra_meta > 1)
			snprintf(more, sizeof(more), " (and %llu more)",
				 (unsigned long long)(st->extra_meta - 1));
		add_note(out,
			 "damaged file: a second metadata block at offset %llu%s, where a file has "
			 "one: skipped (it held no events), the first one's keys kept",
			 (unsigned long long)st->extra_meta_at, more);
		out->damaged = true;
	}
	if (st->bad_blocks || rd->bad_chunks || rd->bad_pages) {
		uint64_t n = st->bad_blocks + rd->bad_chunks + rd->bad_pages;
		char counts[96], place[224];

		count_words(counts, sizeof(counts), st->bad_blocks, rd->bad_chunks, rd->bad_pages);
		/* blocks are met while opening, before any chunk is read */
		damage_place(place, sizeof(place), r, st->bad_blocks ? NULL : damage, st);
		add_note(out, "damaged data skipped: %s%s %s",
			 counts, n > 1 ? "; the first" : "", place);
		out->damaged = true;
	}
	if (rd->bad_records) {
		/* in pages whose checksum held, or in a file without checksums (trace.bin) */
		add_note(out,
			 "damaged data skipped: %llu record%s too short to be any event's (shorter "
			 "than the header every event starts with), left out of every figure",
			 (unsigned long long)rd->bad_records, rd->bad_records == 1 ? "" : "s");
		out->damaged = true;
	}
	if (rd->time_back) {
		/*
		 * Each CPU's records are in time order in any file a recorder wrote: figures
		 * from a stream whose time goes back (chunks swapped, a page's time changed) pair
		 * and window what never followed one another.
		 */
		const struct vmt_clock *clk = vmt_reader_clock(r);
		uint64_t start = vmt_reader_start_ts(r);
		char a[48], b[48];

		add_note(out,
			 "damaged file: time goes back on CPU %u, from %s to %s %s (%llu time%s in "
			 "all): chunks out of order or a page's time wrong; figures may be wrong",
			 rd->time_back_cpu,
			 vmt_fmt_time(clk, start, rd->time_back_prev, a, sizeof(a)),
			 vmt_fmt_time(clk, start, rd->time_back_ts, b, sizeof(b)),
			 vmt_fmt_time_unit(clk), (unsigned long long)rd->time_back,
			 rd->time_back == 1 ? "" : "s");
		out->damaged = true;
	}
	if (!with_lost && (st->bad_blocks || rd->bad_chunks || rd->bad_pages)) {
		/* without the events read, what is lost is the damaged data's at least */
		add_note(out,
			 "events were lost with the damaged data, how many is not known; figures "
			 "may be incomplete");
	} else if (with_lost) {
		struct vmt_lost lost;
		const char *where, *more;
		char unread[128] = "";

		vmt_reader_lost(r, rd, &lost);
		if (!st->finished)	/* the note that the file is not finished says it */
			lost.end_unknown = false;
		/* damaged data lost its events as much as the kernel's flagged pages did */
		where = lost.damaged && lost.uncounted ?
			"while recording and with the damaged data" :
			lost.damaged ? "with the damaged data" : "while recording";
		more = lost.damaged ? "with the damaged data" : lost.uncounted ?
		       "before pages flagged without their count" :
		       "left unread in the ring buffer (no end statistics)";
		/* never read out of the ring buffer: the recorder stopped reading first */
		if (lost.unread)
			snprintf(unread, sizeof(unread), ", %llu of them unread (%s)",
				 (unsigned long long)lost.unread, lost.drain_cut ?
				 "the drain was cut short" : "left at the stop");
		else if (lost.drain_cut && lost.end_unknown)
			where = "while recording: the final drain was cut short";
		if (vmt_lost_exact(&lost) && lost.counted)
			add_note(out,
				 "%llu events were lost%s%s; figures may be incomplete",
				 (unsigned long long)lost.counted, *unread ? "" : " while recording",
				 unread);
		else if (!vmt_lost_exact(&lost) && lost.counted)
			add_note(out,
				 "%llu events were lost while recording%s, and an unknown number "
				 "more %s; figures may be incomplete", (unsigned long long)lost.counted,
				 unread, more);
		else if (!vmt_lost_exact(&lost))
			add_note(out,
				 "events were lost %s, how many is not known; figures may be "
				 "incomplete", where);
	}
}

bool vmt_input_damaged(const struct vmt_reader *r, const struct vmt_reader_stats *rd)
{
	struct vmt_input_notes notes;

	vmt_input_notes(r, rd, NULL, true, &notes);
	return notes.damaged;
}
