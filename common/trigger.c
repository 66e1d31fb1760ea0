// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "metakeys.h"
#include "tclock.h"
#include "trigger.h"

/* A decimal key of the metadata; false when missing or not a number. */
static bool meta_u64(struct vmt_reader *r, const char *key, uint64_t *v)
{
	char *s = vmt_reader_meta(r, key);
	bool ok = s && vmt_cli_parse_u64(s, v) == 0;

	free(s);
	return ok;
}

static bool meta_i64(struct vmt_reader *r, const char *key, int64_t *v)
{
	char *s = vmt_reader_meta(r, key), *end;
	bool ok = false;

	if (s && *s) {
		*v = strtoll(s, &end, 10);
		ok = *end == '\0';
	}
	free(s);
	return ok;
}

/*
 * The earliest page time of CPU cpu's chunks (UINT64_MAX when it has none): an exit that
 * began before it lost its start to the flight ring (a --ring-size too small for --keep).
 */
static uint64_t cpu_start_ts(struct vmt_reader *r, uint32_t cpu)
{
	const struct vmt_source *src = vmt_reader_source(r);
	size_t i, n = vmt_source_nchunks(src);
	uint64_t start = UINT64_MAX;

	for (i = 0; i < n; i++) {
		const struct vmt_chunk_info *ci = vmt_source_chunk(src, i);

		if (ci->cpu == cpu && ci->first_ts < start)
			start = ci->first_ts;
	}
	return start;
}

/* --trigger-reason's list, at most what t->reasons holds (a longer one ends in "..."). */
static void reasons_read(struct vmt_reader *r, struct vmt_trigger *t)
{
	char *s = vmt_reader_meta(r, VMT_META_TRIGGER_REASONS);
	size_t n = sizeof(t->reasons);

	if (s && strlen(s) >= n)
		snprintf(t->reasons, n, "%.*s...", (int)(n - 4), s);
	else if (s)
		snprintf(t->reasons, n, "%s", s);
	free(s);
}

/*
 * After a flight recording's line: which exits could trigger, when --trigger-reason said,
 * the list cut to keep the line within 120 columns.
 */
static void reasons_line(FILE *f, const char *prefix, const struct vmt_trigger *t)
{
	const char *what = t->kvm ? "exits" : "pairs";
	int room = 120 - (int)strlen(prefix) - 6 - (int)strlen("only  of --trigger-reason ") -
		   (int)strlen(what) - (int)strlen(" could trigger");
	int len = (int)strlen(t->reasons);

	if (!*t->reasons)
		return;
	if (room < 8)
		room = 8;
	fprintf(f, "%*s      only %s of --trigger-reason %.*s%s could trigger\n",
		(int)strlen(prefix), "", what, len > room ? room - 3 : len, t->reasons,
		len > room ? "..." : "");
}

void vmt_trigger_read(struct vmt_reader *r, struct vmt_trigger *t)
{
	const struct vmt_clock *c = vmt_reader_clock(r);
	uint64_t ts, lat, cpu, start = vmt_reader_start_ts(r);
	int64_t pid;

	memset(t, 0, sizeof(*t));
	t->kvm = vmt_reader_pairs_kvm(r);
	t->flight = meta_u64(r, VMT_META_TRIGGER_THRESHOLD, &t->threshold_ns);
	meta_u64(r, VMT_META_TRIGGER_KEEP, &t->keep_ns);
	t->has_after = meta_u64(r, VMT_META_TRIGGER_AFTER, &t->after_ns);
	reasons_read(r, t);
	/* the trigger's keys are in END: an unfinished file cannot say */
	t->unknown = t->flight && !vmt_source_status(vmt_reader_source(r))->finished;
	if (!t->flight || !meta_u64(r, VMT_META_TRIGGER_TS, &ts) ||
	    !meta_u64(r, VMT_META_TRIGGER_LAT, &lat) || !meta_u64(r, VMT_META_TRIGGER_CPU, &cpu) ||
	    !meta_i64(r, VMT_META_TRIGGER_PID, &pid) || cpu > UINT32_MAX || pid < INT32_MIN ||
	    pid > INT32_MAX)
		return;
	t->has = true;
	t->unknown = false;
	t->in_file = ts >= cpu_start_ts(r, (uint32_t)cpu);
	t->at_ns = ts > start ? vmt_clock_ns(c, ts - start) : 0;
	t->lat_ns = vmt_clock_ns(c, lat);
	t->cpu = (uint32_t)cpu;
	t->pid = (int32_t)pid;
}

/* The trigger's line, without its leading blank line; nothing for other recordings. */
static void trigger_head(FILE *f, const char *prefix, const struct vmt_trigger *t)
{
	const char *what = t->kvm ? "exit" : "pair";
	char at[32], lat[32], thr[32];

	vmt_format_ns(t->threshold_ns, thr, sizeof(thr));
	if (t->unknown) {
		fprintf(f, "%sFlight recording (threshold %s): not finished, so which %s "
			"triggered it (if any) is unknown\n", prefix, thr, what);
		return;
	}
	if (!t->has) {
		fprintf(f, "%sFlight recording (threshold %s): nothing triggered\n", prefix, thr);
		return;
	}
	vmt_format_ns(t->lat_ns, lat, sizeof(lat));
	if (!t->in_file) {
		/* after a list's "  [N] ", the line breaks earlier to stay within 120 columns */
		fprintf(f, "%sTriggered by %s %s of %s (task %" PRId32 ", pCPU %" PRIu32 "), "
			"threshold %s,%sthat began before this file's pages:%sthe flight ring "
			"dropped them (a larger --ring-size keeps --keep)\n", prefix,
			t->kvm ? "an" : "a", what, lat, t->pid, t->cpu, thr,
			*prefix ? "\n      " : " ", *prefix ? " " : "\n  ");
		return;
	}
	{
		char line[192], tail[64];
		int n = snprintf(line, sizeof(line), "%sTriggered by the %s at %s (task %" PRId32
				 ", pCPU %" PRIu32 "): %s,", prefix, what,
				 vmt_format_ns(t->at_ns, at, sizeof(at)), t->pid, t->cpu, lat);
		int m = snprintf(tail, sizeof(tail), "threshold %s; see --around trigger", thr);

		/* a late trigger, a large pid and a list's "[N] " can pass 120 columns: break */
		fprintf(f, "%s%s%s\n", line, n + 1 + m > 120 ? "\n      " : " ", tail);
	}
}

static void trigger_line(FILE *f, const char *prefix, const struct vmt_trigger *t)
{
	trigger_head(f, prefix, t);
	reasons_line(f, prefix, t);
}

const char *vmt_trigger_missing(const struct vmt_trigger *t, char *buf, size_t size)
{
	const char *what = t->kvm ? "exit" : "pair";

	if (t->unknown)
		snprintf(buf, size, "the recording was not finished, so its trigger is unknown");
	else if (t->has)
		snprintf(buf, size, "the triggering %s began before this file's pages", what);
	else
		snprintf(buf, size, "no %s triggered this recording", what);
	return buf;
}

void vmt_trigger_text(FILE *f, const struct vmt_trigger *t)
{
	if (!t->flight)
		return;
	fputc('\n', f);
	trigger_line(f, "", t);
}

void vmt_trigger_text_files(FILE *f, const struct vmt_trigger *t, unsigned int n)
{
	unsigned int i, flights = 0;

	for (i = 0; i < n; i++)
		flights += t[i].flight;
	if (!flights)
		return;
	fputs("\nFlight recordings:\n", f);
	for (i = 0; i < n; i++) {
		char prefix[24];

		if (!t[i].flight)
			continue;
		/* numbered as the list of recordings at the top: a path may be any length */
		snprintf(prefix, sizeof(prefix), "  [%u] ", i + 1);
		trigger_line(f, prefix, &t[i]);
	}
}

void vmt_trigger_json(struct vmt_jsonw *w, const struct vmt_trigger *t)
{
	if (!t->flight)
		return;
	/* how it was armed, whatever came of it: "trigger" is null when nothing triggered */
	vmt_jsonw_object_open(w, "flight");
	vmt_jsonw_u64(w, "threshold_ns", t->threshold_ns);
	vmt_jsonw_u64(w, "keep_ns", t->keep_ns);
	vmt_jsonw_opt_u64(w, "after_ns", t->has_after, t->after_ns);
	vmt_jsonw_str(w, "reasons", *t->reasons ? t->reasons : NULL);
	if (t->unknown)
		vmt_jsonw_null(w, "triggered");
	else
		vmt_jsonw_bool(w, "triggered", t->has);
	vmt_jsonw_object_close(w);
	if (t->unknown) {
		vmt_jsonw_object_open(w, "trigger");
		vmt_jsonw_bool(w, "known", false);
		vmt_jsonw_u64(w, "threshold_ns", t->threshold_ns);
		vmt_jsonw_str(w, "reasons", *t->reasons ? t->reasons : NULL);
		vmt_jsonw_object_close(w);
		return;
	}
	if (!t->has) {
		vmt_jsonw_null(w, "trigger");
		return;
	}
	vmt_jsonw_object_open(w, "trigger");
	vmt_jsonw_bool(w, "known", true);
	vmt_jsonw_bool(w, "in_file", t->in_file);
	if (t->in_file)	/* else it began before the file's start: no time in it */
		vmt_jsonw_u64(w, "at_ns", t->at_ns);
	vmt_jsonw_u64(w, "latency_ns", t->lat_ns);
	vmt_jsonw_i64(w, "pid", t->pid);
	vmt_jsonw_u64(w, "cpu", t->cpu);
	vmt_jsonw_u64(w, "threshold_ns", t->threshold_ns);
	vmt_jsonw_str(w, "reasons", *t->reasons ? t->reasons : NULL);
	vmt_jsonw_object_close(w);
}

void vmt_trigger_json_files(struct vmt_jsonw *w, const struct vmt_trigger *t,
			       const char *const *files, unsigned int n)
{
	unsigned int i, flights = 0;

	for (i = 0; i < n; i++)
		flights += t[i].flight;
	if (!flights)
		return;
	vmt_jsonw_array_open(w, "triggers");
	for (i = 0; i < n; i++) {
		if (!t[i].flight)
			continue;
		vmt_jsonw_object_open(w, NULL);
		vmt_jsonw_str(w, "file", files[i]);
		vmt_trigger_json(w, &t[i]);
		vmt_jsonw_object_close(w);
	}
	vmt_jsonw_array_close(w);
}
