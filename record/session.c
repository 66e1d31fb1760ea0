// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "log.h"
#include "session.h"
#include "tclock.h"

int rec_session_find(struct rec_session *s)
{
	int ret;

	memset(s, 0, sizeof(*s));
	ret = vmt_tracefs_find(s->root, sizeof(s->root));
	if (ret)
		vmt_err("/sys/kernel/tracing: tracefs not found or not mountable: %s%s",
			strerror(-ret), geteuid() ? " (run as root)" : "");
	return ret;
}

int rec_session_cleanup(struct rec_session *s)
{
	unsigned int removed;
	char stale[512];
	int ret;

	ret = vmt_tracefs_remove_stale(s->root, &removed, stale, sizeof(stale));
	if (ret) {
		vmt_err("%s/instances: %s", s->root, strerror(-ret));
		return ret;
	}
	printf("removed %u stale instance(s)%s%s\n", removed, removed ? ": " : "", stale);
	return 0;
}

/*
 * One recorder at a time goes from here until its CPU mask is set, so two recorders
 * started together cannot both miss each other. Returns the lock fd or -1 (no lock file:
 * go on without it).
 */
static int take_lock(void)
{
	int lock = open("/run/lock/vmtrace.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (lock < 0)
		lock = open("/tmp/vmtrace.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lock >= 0)
		flock(lock, LOCK_EX);
	return lock;
}

/* "clock 'x' not available; this kernel offers local, global, ..." (from trace_clock) */
static void clock_error(struct rec_session *s, const char *clock, int err)
{
	char *text = NULL, offer[512] = "", *name, *save = NULL;
	size_t n = 0;

	if (vmt_tracefs_read(&s->inst, "trace_clock", &text) == 0) {
		for (name = strtok_r(text, " []\n", &save); name && n < sizeof(offer);
		     name = strtok_r(NULL, " []\n", &save))
			n += (size_t)snprintf(offer + n, sizeof(offer) - n, "%s%s", n ? ", " : "",
					      name);
		free(text);
	}
	if (offer[0])
		vmt_err("%s/trace_clock: clock '%s' not available; this kernel offers %s",
			s->inst.dir, clock, offer);
	else
		vmt_err("%s/trace_clock: clock '%s' not available: %s", s->inst.dir, clock,
			strerror(-err));
}

/* Everything up to the CPU mask, under the lock. */
static int create_instance(struct rec_session *s, const struct record_opts *o)
{
	const char *dir = s->inst.dir;
	char name[64], val[64], stale[512], who[512];
	unsigned int removed;
	int ret;

	if (vmt_tracefs_remove_stale(s->root, &removed, stale, sizeof(stale)) == 0 && removed)
		vmt_warn("removed %u ftrace instance(s) left by recorders that died: %s", removed,
			 stale);
	snprintf(name, sizeof(name), VMT_INSTANCE_PREFIX "%ld", (long)getpid());
	ret = vmt_tracefs_find_conflict(s->root, name, &o->cpus, who, sizeof(who));
	if (ret > 0) {
		/* exactly the CPUs held: of -p 0-1, "CPU 1" says that CPU 0 is free */
		vmt_err("%s/instances: another recorder traces %s; one recorder per CPU",
			s->root, who);
		return -EBUSY;
	}
	ret = vmt_tracefs_instance_create(s->root, name, &s->inst);
	if (ret) {
		vmt_err("%s/instances/%s: cannot create ftrace instance: %s%s", s->root, name,
			strerror(-ret), ret == -EACCES || ret == -EPERM ? " (run as root)" : "");
		return ret;
	}
	s->created = true;
	snprintf(val, sizeof(val), "%" PRIu64, (o->buffer_bytes + 1023) / 1024);
	ret = vmt_tracefs_write(&s->inst, "buffer_size_kb", val);
	if (ret) {
		vmt_err("%s/buffer_size_kb: cannot set %s KiB: %s", dir, val, strerror(-ret));
		return ret;
	}
	if (o->clock) {
		ret = vmt_tracefs_write(&s->inst, "trace_clock", o->clock);
		if (ret) {
			clock_error(s, o->clock, ret);
			return ret;
		}
	}
	ret = vmt_tracefs_current_clock(&s->inst, s->clock, sizeof(s->clock));
	if (ret) {
		vmt_err("%s/trace_clock: cannot read: %s", dir, strerror(-ret));
		return ret;
	}
	/* Overwrite mode: the kernel then flags and counts every loss on the pages. */
	vmt_tracefs_write(&s->inst, "options/overwrite", "1");
	ret = vmt_tracefs_set_cpumask(&s->inst, &o->cpus);
	if (ret)
		vmt_err("%s/tracing_cpumask: %s", dir, strerror(-ret));
	return ret;
}

static int read_layout(struct rec_session *s)
{
	char *hp;
	size_t hplen;
	int ret;

	ret = vmt_tracefs_events_file(s->root, "header_page", &hp, &hplen);
	if (ret || vmt_header_page_parse(hp, hplen, &s->hp)) {
		vmt_err("%s/events/header_page: %s", s->root,
			ret ? strerror(-ret) : "cannot parse");
		if (!ret)
			free(hp);
		return ret ? ret : -EBADMSG;
	}
	free(hp);
	s->page_size = vmt_header_page_subbuf_size(&s->hp);
	return 0;
}

/* Each context event, after its filter (an event recorded unfiltered would be worse). */
static int enable_context(struct rec_session *s, const struct rec_context *ctx)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ctx->n; i++) {
		const struct rec_ctxevent *ev = &ctx->ev[i];
		char rel[PATH_MAX] = "events/";

		if (ev->filter) {
			ret = vmt_tracefs_event_path(ev->name, "filter", rel + 7, sizeof(rel) - 7);
			if (!ret)
				ret = vmt_tracefs_write(&s->inst, rel, ev->filter);
			if (ret) {
				vmt_err("%s/%s: cannot set the filter '%s': %s", s->inst.dir, rel,
					ev->filter, strerror(-ret));
				return ret;
			}
		}
		ret = vmt_tracefs_event_enable(&s->inst, ev->name, true);
		if (ret) {
			vmt_err("%s: cannot enable context event %s: %s", s->inst.dir, ev->name,
				strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int rec_session_check_pair(const struct rec_session *s, const struct record_opts *o)
{
	const char *const names[2] = { o->begin, o->end };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		char rel[PATH_MAX], *format = NULL;
		size_t len;
		int ret = vmt_tracefs_event_path(names[i], "format", rel, sizeof(rel));

		if (!ret)
			ret = vmt_tracefs_events_file(s->root, rel, &format, &len);
		free(format);
		if (ret == -ENOENT || ret == -ENOTDIR) {
			/* the default pair missing is this host's state, not the command line's */
			bool given = strcmp(o->begin, REC_DEFAULT_BEGIN) != 0 ||
				     strcmp(o->end, REC_DEFAULT_END) != 0;

			vmt_err("%s%s is not an event on this kernel (no %s/events/%s)%s",
				given ? "--events: " : "", names[i], s->root, rel,
				strncmp(names[i], "kvm:", 4) == 0 ?
				"; is the kvm module loaded?" : "");
			return given ? 64 : 1;
		}
		if (ret) {
			vmt_err("%s/events/%s: %s%s", s->root, rel, strerror(-ret),
				ret == -EACCES || ret == -EPERM ? " (run as root)" : "");
			return 1;
		}
	}
	return 0;
}

int rec_session_check_clock(const struct rec_session *s, const char *clock)
{
	char path[PATH_MAX + 16], text[1024], offer[1024] = "", *name, *save = NULL;
	size_t n = 0, len;
	FILE *f;

	if (!clock)
		return 0;
	snprintf(path, sizeof(path), "%s/trace_clock", s->root);
	f = fopen(path, "re");
	if (!f)
		return 0;	/* the instance's own write says what is wrong */
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	for (name = strtok_r(text, " []\n", &save); name; name = strtok_r(NULL, " []\n", &save)) {
		/*
		 * counter and uptime are accepted (the file is still exact in ticks), but the
		 * user learns now, not from the report, that no figure will be in ns.
		 */
		if (strcmp(name, clock) == 0) {
			if (!vmt_clock_is_ns(clock) && !vmt_clock_has_rate(clock))
				vmt_info_folded("clock %s counts ticks of no known length: the "
						"figures will be in raw ticks, not ns", clock);
			return 0;
		}
		if (n < sizeof(offer))
			n += (size_t)snprintf(offer + n, sizeof(offer) - n, "%s%s", n ? ", " : "",
					      name);
	}
	vmt_err("--clock: clock '%s' not available; this kernel offers %s", clock, offer);
	return 64;
}

int rec_session_setup(struct rec_session *s, const struct record_opts *o,
		      const struct rec_context *ctx)
{
	int lock, ret;

	lock = take_lock();
	ret = create_instance(s, o);
	if (lock >= 0)
		close(lock);	/* our CPU mask is visible to the next recorder now */
	if (ret)
		return ret;
	ret = vmt_tracefs_event_enable(&s->inst, o->begin, true);
	if (ret) {
		vmt_err("%s: cannot enable event %s: %s", s->inst.dir, o->begin, strerror(-ret));
		return ret;
	}
	ret = vmt_tracefs_event_enable(&s->inst, o->end, true);
	if (ret) {
		vmt_err("%s: cannot enable event %s: %s", s->inst.dir, o->end, strerror(-ret));
		return ret;
	}
	ret = enable_context(s, ctx);
	return ret ? ret : read_layout(s);
}

int rec_session_open_raw(struct rec_session *s, unsigned int cpu)
{
	int fd = vmt_tracefs_open_raw(&s->inst, cpu);

	if (fd < 0)
		vmt_err("%s/per_cpu/cpu%u/trace_pipe_raw: %s", s->inst.dir, cpu, strerror(-fd));
	return fd;
}

int rec_session_tracing(struct rec_session *s, bool on)
{
	return vmt_tracefs_write(&s->inst, "tracing_on", on ? "1" : "0");
}

unsigned int rec_session_add_stats(struct rec_session *s, const struct vmt_cpulist *cpus,
				   const char *when, struct vmt_kvbuf *kb,
				   struct vmt_cpustats *first, uint64_t *lost, uint64_t *entries)
{
	struct vmt_cpustats st;
	unsigned int i, n = 0;

	if (lost)
		*lost = 0;
	if (entries)
		*entries = 0;
	for (i = 0; i < cpus->n; i++) {
		char rel[64], key[64], *text;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%u/stats", cpus->cpu[i]);
		if (vmt_tracefs_read(&s->inst, rel, &text))
			continue;
		snprintf(key, sizeof(key), "stats.%s.cpu%u", when, cpus->cpu[i]);
		vmt_kv_add_str(kb, key, text);
		if (i == 0 && first)
			vmt_tracefs_parse_stats(text, first);
		if (vmt_tracefs_parse_stats(text, &st) == 0) {
			n++;
			if (lost)
				*lost += vmt_cpustats_lost(&st);
			if (entries)
				*entries += st.entries;
		}
		free(text);
	}
	return n;
}

int rec_session_remove(struct rec_session *s)
{
	int ret;

	if (!s->created)
		return 0;
	ret = vmt_tracefs_instance_remove(&s->inst);
	if (ret) {
		vmt_err("%s: cannot remove the ftrace instance: %s (vmtrace-record --cleanup "
			"removes it later)", s->inst.dir, strerror(-ret));
		return ret;
	}
	s->created = false;
	return 0;
}
