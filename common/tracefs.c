// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"
#include "tracefs.h"

#define MAX_CONTROL_FILE (1u << 20)

static bool is_tracefs(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/trace_clock", dir);
	return access(path, F_OK) == 0;
}

int vmt_tracefs_find(char *root, size_t size)
{
	const char *env = getenv("VMTRACE_TRACEFS");

	if (env && *env) {
		if (!is_tracefs(env))
			return -ENOENT;
		snprintf(root, size, "%s", env);
		return 0;
	}
	if (is_tracefs("/sys/kernel/tracing")) {
		snprintf(root, size, "/sys/kernel/tracing");
		return 0;
	}
	/* Not mounted: mount it where the kernel expects it (needs root). */
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0 &&
	    is_tracefs("/sys/kernel/tracing")) {
		snprintf(root, size, "/sys/kernel/tracing");
		return 0;
	}
	if (is_tracefs("/sys/kernel/debug/tracing")) {
		snprintf(root, size, "/sys/kernel/debug/tracing");
		return 0;
	}
	return access("/sys/kernel/tracing", F_OK) == 0 && geteuid() != 0 ? -EACCES : -ENOENT;
}

static int inst_path(const struct vmt_tracefs_instance *inst, const char *rel, char *buf,
		     size_t size)
{
	int n = snprintf(buf, size, "%s/%s", inst->dir, rel);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int vmt_tracefs_write(const struct vmt_tracefs_instance *inst, const char *rel,
		      const char *value)
{
	char path[PATH_MAX];
	int ret = inst_path(inst, rel, path, sizeof(path));

	return ret ? ret : vmt_io_write_str(path, value);
}

int vmt_tracefs_read(const struct vmt_tracefs_instance *inst, const char *rel, char **out)
{
	char path[PATH_MAX];
	int ret = inst_path(inst, rel, path, sizeof(path));

	return ret ? ret : vmt_io_read_file(path, MAX_CONTROL_FILE, out, NULL);
}

int vmt_tracefs_instance_create(const char *root, const char *name,
				struct vmt_tracefs_instance *inst)
{
	int n;

	memset(inst, 0, sizeof(*inst));
	snprintf(inst->root, sizeof(inst->root), "%s", root);
	snprintf(inst->name, sizeof(inst->name), "%s", name);
	n = snprintf(inst->dir, sizeof(inst->dir), "%s/instances/%s", root, name);
	if (n < 0 || (size_t)n >= sizeof(inst->dir))
		return -ENAMETOOLONG;
	if (mkdir(inst->dir, 0755) < 0)
		return -errno;
	/* A new instance starts with tracing on; nothing may be recorded before we say so. */
	return vmt_tracefs_write(inst, "tracing_on", "0");
}

int vmt_tracefs_event_path(const char *event, const char *file, char *buf, size_t size)
{
	const char *colon = strchr(event, ':');
	int n;

	if (!colon || colon == event || !colon[1] || strchr(colon + 1, ':') ||
	    strchr(event, '/') || strstr(event, ".."))
		return -EINVAL;
	n = snprintf(buf, size, "%.*s/%s%s%s", (int)(colon - event), event, colon + 1,
		     file ? "/" : "", file ? file : "");
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int vmt_tracefs_event_enable(const struct vmt_tracefs_instance *inst, const char *event, bool on)
{
	char rel[PATH_MAX], path[PATH_MAX];
	int ret;

	ret = vmt_tracefs_event_path(event, "enable", rel, sizeof(rel));
	if (ret)
		return ret;
	if (snprintf(path, sizeof(path), "events/%s", rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return vmt_tracefs_write(inst, path, on ? "1" : "0");
}

int vmt_tracefs_events_file(const char *root, const char *rel, char **out, size_t *len)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/events/%s", root, rel);

	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return vmt_io_read_file(path, MAX_CONTROL_FILE, out, len);
}

int vmt_tracefs_set_cpumask(const struct vmt_tracefs_instance *inst,
			    const struct vmt_cpulist *list)
{
	/* Comma-separated 32-bit hex words, most significant first, as the kernel prints. */
	unsigned int words, w, i;
	uint32_t *mask;
	char *buf, *p;
	int ret;

	if (!list->n)
		return -EINVAL;
	words = list->cpu[list->n - 1] / 32 + 1;
	mask = calloc(words, sizeof(*mask));
	buf = malloc((size_t)words * 9 + 2);
	if (!mask || !buf) {
		free(mask);
		free(buf);
		return -ENOMEM;
	}
	for (i = 0; i < list->n; i++)
		mask[list->cpu[i] / 32] |= 1u << (list->cpu[i] % 32);
	p = buf;
	for (w = words; w-- > 0;)
		p += sprintf(p, "%08x%s", mask[w], w ? "," : "");
	ret = vmt_tracefs_write(inst, "tracing_cpumask", buf);
	free(mask);
	free(buf);
	return ret;
}

int vmt_tracefs_open_raw(const struct vmt_tracefs_instance *inst, unsigned int cpu)
{
	char rel[64], path[PATH_MAX];
	int fd, ret;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%u/trace_pipe_raw", cpu);
	ret = inst_path(inst, rel, path, sizeof(path));
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int vmt_tracefs_current_clock(const struct vmt_tracefs_instance *inst, char *buf, size_t size)
{
	char *text, *open_br, *close_br;
	int ret;

	ret = vmt_tracefs_read(inst, "trace_clock", &text);
	if (ret)
		return ret;
	open_br = strchr(text, '[');
	close_br = open_br ? strchr(open_br, ']') : NULL;
	if (!close_br) {
		free(text);
		return -EBADMSG;
	}
	snprintf(buf, size, "%.*s", (int)(close_br - open_br - 1), open_br + 1);
	free(text);
	return 0;
}

int vmt_tracefs_instance_remove(struct vmt_tracefs_instance *inst)
{
	/*
	 * Best effort before rmdir: the kernel refuses to remove an instance whose files are
	 * open, and clearing the events first keeps a failed rmdir harmless.
	 */
	vmt_tracefs_write(inst, "tracing_on", "0");
	vmt_tracefs_write(inst, "events/enable", "0");
	if (rmdir(inst->dir) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int vmt_tracefs_remove_stale(const char *root, unsigned int *removed, char *report,
			     size_t report_size)
{
	char path[PATH_MAX];
	struct dirent *de;
	size_t used = 0;
	DIR *d;
	int ret = 0;

	*removed = 0;
	if (report && report_size)
		report[0] = '\0';
	snprintf(path, sizeof(path), "%s/instances", root);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		const char *num = de->d_name + strlen(VMT_INSTANCE_PREFIX);
		struct vmt_tracefs_instance inst;
		char *end;
		long pid;

		if (strncmp(de->d_name, VMT_INSTANCE_PREFIX, strlen(VMT_INSTANCE_PREFIX)) != 0 ||
		    !isdigit((unsigned char)*num))
			continue;
		pid = strtol(num, &end, 10);
		if (*end || pid <= 0 || pid > INT32_MAX)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
			continue;	/* its recorder is still alive */
		memset(&inst, 0, sizeof(inst));
		if (snprintf(inst.root, sizeof(inst.root), "%s", root) >= (int)sizeof(inst.root) ||
		    snprintf(inst.name, sizeof(inst.name), "%s", de->d_name) >=
			    (int)sizeof(inst.name) ||
		    snprintf(inst.dir, sizeof(inst.dir), "%s/%s", path, de->d_name) >=
			    (int)sizeof(inst.dir))
			continue;
		if (vmt_tracefs_instance_remove(&inst)) {
			ret = -errno;
			continue;
		}
		(*removed)++;
		if (report && used < report_size) {
			int n = snprintf(report + used, report_size - used, "%s%s",
					 used ? ", " : "", de->d_name);

			if (n > 0)
				used += (size_t)n;
		}
	}
	closedir(d);
	return ret;
}

/*
 * The CPUs of list whose bit the hex mask ("00000000,00000002") sets, into out (at most
 * list->n, ascending: the mask is read from its least significant digit). A mask that is
 * not hex has none.
 */
static void mask_overlap(const char *mask, const struct vmt_cpulist *list, unsigned int *out,
			 unsigned int *n)
{
	size_t len = strlen(mask), i;
	unsigned int bit = 0;

	*n = 0;
	for (i = len; i-- > 0;) {
		int v, k;

		if (mask[i] == ',' || mask[i] == '\n' || mask[i] == ' ')
			continue;
		if (!isxdigit((unsigned char)mask[i])) {
			*n = 0;
			return;
		}
		v = isdigit((unsigned char)mask[i]) ? mask[i] - '0' : (tolower(mask[i]) - 'a' + 10);
		for (k = 0; k < 4; k++, bit++) {
			if ((v >> k & 1) && vmt_cpulist_has(list, bit) && *n < list->n)
				out[(*n)++] = bit;
		}
	}
}

/* ", CPUs 0-1 (vmtrace-42, pid 42)" appended to who */
static void add_who(char *who, size_t size, const char *name, long pid, unsigned int *cpu,
		    unsigned int n)
{
	struct vmt_cpulist l = { n, cpu };
	size_t len = strlen(who);
	char cpus[256];

	if (len < size)
		snprintf(who + len, size - len, "%sCPU%s %s (%s, pid %ld)", len ? ", " : "",
			 n == 1 ? "" : "s", vmt_cpulist_format(&l, cpus, sizeof(cpus)), name, pid);
}

int vmt_tracefs_find_conflict(const char *root, const char *self_name,
			      const struct vmt_cpulist *cpus, char *who, size_t who_size)
{
	char path[PATH_MAX];
	struct dirent *de;
	unsigned int *cpu;
	int found = 0;
	DIR *d;

	if (who_size)
		who[0] = '\0';
	snprintf(path, sizeof(path), "%s/instances", root);
	cpu = malloc((cpus->n ? cpus->n : 1) * sizeof(*cpu));
	if (!cpu)
		return -ENOMEM;
	d = opendir(path);
	if (!d) {
		free(cpu);
		return -errno;
	}
	/* every other recorder: the user learns all that holds the CPUs at once */
	while ((de = readdir(d))) {
		const char *num = de->d_name + strlen(VMT_INSTANCE_PREFIX);
		char file[PATH_MAX], *mask;
		unsigned int n;
		long pid;

		if (strncmp(de->d_name, VMT_INSTANCE_PREFIX, strlen(VMT_INSTANCE_PREFIX)) != 0 ||
		    !isdigit((unsigned char)*num) || strcmp(de->d_name, self_name) == 0)
			continue;
		pid = strtol(num, NULL, 10);
		if (pid <= 0 || (kill((pid_t)pid, 0) < 0 && errno != EPERM))
			continue;	/* stale: not a recorder any more */
		if (snprintf(file, sizeof(file), "%s/%s/tracing_cpumask", path, de->d_name) >=
		    (int)sizeof(file))
			continue;
		if (vmt_io_read_file(file, 65536, &mask, NULL))
			continue;
		mask_overlap(mask, cpus, cpu, &n);
		if (n) {
			add_who(who, who_size, de->d_name, pid, cpu, n);
			found = 1;
		}
		free(mask);
	}
	closedir(d);
	free(cpu);
	return found;
}

static int stat_value(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
			const char *v = p + klen + 1;
			uint64_t n = 0;

			while (*v == ' ' || *v == '\t')
				v++;
			if (!isdigit((unsigned char)*v))
				return -EBADMSG;
			/* past 2^64 saturates: a value no reader takes (reader.c: impossible) */
			for (; isdigit((unsigned char)*v); v++) {
				if (__builtin_mul_overflow(n, 10, &n) ||
				    __builtin_add_overflow(n, (uint64_t)(*v - '0'), &n))
					n = UINT64_MAX;
			}
			/* "now ts:  3589.586933": seconds.microseconds for ns clocks. */
			if (*v == '.') {
				uint64_t us = 0;
				int digits = 0;

				for (v++; isdigit((unsigned char)*v) && digits < 9; v++, digits++)
					us = us * 10 + (uint64_t)(*v - '0');
				while (digits++ < 9)
					us *= 10;
				if (__builtin_mul_overflow(n, 1000000000ULL, &n) ||
				    __builtin_add_overflow(n, us, &n))
					n = UINT64_MAX;
			}
			*out = n;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

int vmt_tracefs_parse_stats(const char *text, struct vmt_cpustats *st)
{
	/* the lines older kernels lack may be missing, not malformed */
	static const struct {
		const char *key;
		size_t off;
	} optional[] = {
		{ "commit overrun", offsetof(struct vmt_cpustats, commit_overrun) },
		{ "bytes", offsetof(struct vmt_cpustats, bytes) },
		{ "dropped events", offsetof(struct vmt_cpustats, dropped) },
		{ "read events", offsetof(struct vmt_cpustats, read) },
		{ "now ts", offsetof(struct vmt_cpustats, now_ts) },
	};
	size_t i;

	memset(st, 0, sizeof(*st));
	if (stat_value(text, "entries", &st->entries) || stat_value(text, "overrun", &st->overrun))
		return -EBADMSG;
	for (i = 0; i < sizeof(optional) / sizeof(optional[0]); i++) {
		if (stat_value(text, optional[i].key,
			       (uint64_t *)((char *)st + optional[i].off)) == -EBADMSG)
			return -EBADMSG;
	}
	return 0;
}
