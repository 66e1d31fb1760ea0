// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "ctxevent.h"
#include "log.h"
#include "metakeys.h"
#include "tracefs.h"

/* Longest "system:event" taken: format.ctx.<name> must stay within VMT_KV_MAX_KEY. */
#define NAME_MAX_LEN 200

/* The set a list asks for, in order. */
struct item {
	char *name;
	bool asked;		/* named in the list: it must exist */
};

struct set {
	struct item *it;	/* REC_CONTEXT_MAX of them */
	unsigned int n;
};

static void set_free(struct set *s)
{
	unsigned int i;

	for (i = 0; s->it && i < s->n; i++)
		free(s->it[i].name);
	free(s->it);
	s->it = NULL;
	s->n = 0;
}

static int set_find(const struct set *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->it[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Add name (or mark it asked when it is in the set already). 0, -E2BIG or -ENOMEM. */
static int set_add(struct set *s, const char *name, bool asked)
{
	int i = set_find(s, name);

	if (i >= 0) {
		s->it[i].asked |= asked;
		return 0;
	}
	if (s->n >= REC_CONTEXT_MAX)
		return -E2BIG;
	s->it[s->n].name = strdup(name);
	if (!s->it[s->n].name)
		return -ENOMEM;
	s->it[s->n++].asked = asked;
	return 0;
}

static void set_remove(struct set *s, const char *name)
{
	int i = set_find(s, name);

	if (i < 0)
		return;
	free(s->it[i].name);
	memmove(&s->it[i], &s->it[i + 1], (s->n - (unsigned int)i - 1) * sizeof(s->it[0]));
	s->n--;
}

static int add_defaults(struct set *s)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < vmt_ctx_default_nevents && !ret; i++) {
		char name[NAME_MAX_LEN + 1];

		snprintf(name, sizeof(name), "%s:%s", vmt_ctx_default_events[i].system,
			 vmt_ctx_default_events[i].name);
		ret = set_add(s, name, false);
	}
	return ret;
}

/* The filter of an event of the default list, whether asked for by name or not. */
static const char *default_filter(const char *name)
{
	unsigned int i;

	for (i = 0; i < vmt_ctx_default_nevents; i++) {
		const struct vmt_ctxdefault *d = &vmt_ctx_default_events[i];
		size_t sl = strlen(d->system);

		if (strncmp(name, d->system, sl) == 0 && name[sl] == ':' &&
		    strcmp(name + sl + 1, d->name) == 0)
			return d->filter;
	}
	return NULL;
}

/*
 * LIST: "none" alone, or comma-separated items: "default" (the default list), "SYS:EVENT"
 * or "+SYS:EVENT" (add), "-SYS:EVENT" (leave out), applied in order. A list that begins
 * with a removal starts from the default list: removing from nothing would leave nothing,
 * silently, where "-sched:sched_switch" can only mean the defaults but that one.
 */
static int parse(const char *list, struct set *s, char *why, size_t why_size)
{
	const char *p, *comma;
	int ret = 0;

	s->n = 0;
	s->it = calloc(REC_CONTEXT_MAX, sizeof(*s->it));
	if (!s->it)
		return -ENOMEM;
	if (!list)
		list = "default";
	if (strcmp(list, "none") == 0)
		return 0;
	if (list[0] == '-')
		ret = add_defaults(s);
	for (p = list; !ret; p = comma + 1) {
		char item[NAME_MAX_LEN + 2], path[PATH_MAX];
		size_t len;
		const char *name = item;

		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len >= sizeof(item)) {
			snprintf(why, why_size, "%s name in the list '%s'", len ? "too long a" :
				 "an empty", list);
			return -EINVAL;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		if (item[0] == '+' || item[0] == '-')
			name++;
		if (strcmp(item, "default") == 0) {
			ret = add_defaults(s);
		} else if (strcmp(item, "none") == 0) {
			snprintf(why, why_size, "'none' stands alone (records no context event)");
			return -EINVAL;
		} else if (vmt_tracefs_event_path(name, "format", path, sizeof(path))) {
			snprintf(why, why_size,
				 "'%s' is not SYSTEM:EVENT (e.g. sched:sched_switch)", name);
			return -EINVAL;
		} else if (item[0] == '-') {
			set_remove(s, name);
		} else {
			ret = set_add(s, name, true);
		}
		if (ret == -E2BIG) {
			snprintf(why, why_size, "more than %d context events", REC_CONTEXT_MAX);
			return -EINVAL;
		}
		if (!comma)
			break;
	}
	return ret;
}

int rec_context_check(const char *list, char *why, size_t why_size)
{
	struct set s = { NULL, 0 };
	int ret;

	if (why_size)
		why[0] = '\0';
	ret = parse(list, &s, why, why_size);
	set_free(&s);
	return ret;
}

static int add_missing(struct rec_context *c, const char *name)
{
	size_t had = c->missing ? strlen(c->missing) : 0;
	char *bigger = realloc(c->missing, had + strlen(name) + 2);

	if (!bigger)
		return -ENOMEM;
	c->missing = bigger;
	sprintf(bigger + had, "%s%s", had ? "," : "", name);
	return 0;
}

int rec_context_resolve(struct rec_context *c, const char *list, const char *root,
			const char *begin, const char *end, char *why, size_t why_size)
{
	struct set s = { NULL, 0 };
	unsigned int i;
	int ret;

	memset(c, 0, sizeof(*c));
	if (why_size)
		why[0] = '\0';
	ret = parse(list, &s, why, why_size);
	if (ret)
		goto out;
	c->ev = calloc(s.n ? s.n : 1, sizeof(*c->ev));
	if (!c->ev) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < s.n; i++) {
		struct item *it = &s.it[i];
		struct rec_ctxevent *ev = &c->ev[c->n];
		char rel[PATH_MAX];

		/* recorded as the pair already: the pass sees those as begin and end */
		if (strcmp(it->name, begin) == 0 || strcmp(it->name, end) == 0)
			continue;
		vmt_tracefs_event_path(it->name, "format", rel, sizeof(rel));
		ret = vmt_tracefs_events_file(root, rel, &ev->format, &ev->format_len);
		/* ENOTDIR: "sched:enable" names a file of the system's directory */
		if ((ret == -ENOENT || ret == -ENOTDIR) && !it->asked) {
			ret = add_missing(c, it->name);
			if (ret)
				goto out;
			continue;
		}
		if (ret == -ENOENT || ret == -ENOTDIR) {
			snprintf(why, why_size,
				 "%s is not an event on this kernel (no %s/events/%s)", it->name,
				 root, rel);
			ret = -ENOENT;
			goto out;
		}
		if (ret) {
			snprintf(why, why_size, "%s/events/%s: %s", root, rel, strerror(-ret));
			goto out;
		}
		ev->name = it->name;
		it->name = NULL;
		ev->filter = default_filter(ev->name);
		c->n++;
	}
out:
	set_free(&s);
	if (ret)
		rec_context_free(c);
	return ret;
}

int rec_context_setup(struct rec_context *c, const char *list, const char *root,
		      const char *begin, const char *end)
{
	char why[PATH_MAX + 256];
	int ret = rec_context_resolve(c, list, root, begin, end, why, sizeof(why));

	if (ret) {
		vmt_err("--context: %s%s", why[0] ? why : strerror(-ret),
			ret == -EACCES || ret == -EPERM ? " (run as root)" : "");
		return ret;
	}
	return 0;
}

void rec_context_say_missing(const struct rec_context *c)
{
	char *spaced, *q;
	const char *p;

	if (!c->missing)
		return;
	spaced = malloc(strlen(c->missing) * 2 + 1);
	for (p = c->missing, q = spaced; spaced && *p; p++) {
		*q++ = *p;
		if (*p == ',')
			*q++ = ' ';
	}
	if (spaced)
		*q = '\0';
	/* a kernel without a whole subsystem misses many: folded to the width */
	vmt_info_folded("context events not on this kernel: %s", spaced ? spaced : c->missing);
	free(spaced);
}

void rec_context_free(struct rec_context *c)
{
	unsigned int i;

	for (i = 0; c->ev && i < c->n; i++) {
		free(c->ev[i].name);
		free(c->ev[i].format);
	}
	free(c->ev);
	free(c->missing);
	memset(c, 0, sizeof(*c));
}

void rec_context_meta(const struct rec_context *c, struct vmt_kvbuf *kb)
{
	char key[VMT_KV_MAX_KEY + 1], *list;
	size_t len = 0;
	unsigned int i;

	if (c->n) {
		for (i = 0; i < c->n; i++)
			len += strlen(c->ev[i].name) + 1;
		list = malloc(len);
		if (!list) {
			if (!kb->error)
				kb->error = -ENOMEM;
			return;
		}
		for (i = 0, len = 0; i < c->n; i++)
			len += (size_t)sprintf(list + len, "%s%s", i ? "," : "", c->ev[i].name);
		vmt_kv_add_str(kb, VMT_META_CONTEXT_EVENTS, list);
		free(list);
	}
	if (c->missing)
		vmt_kv_add_str(kb, VMT_META_CONTEXT_MISSING, c->missing);
	for (i = 0; i < c->n; i++) {
		snprintf(key, sizeof(key), VMT_META_FORMAT_CTX "%s", c->ev[i].name);
		vmt_kv_add(kb, key, c->ev[i].format, c->ev[i].format_len);
	}
	for (i = 0; i < c->n; i++) {
		if (!c->ev[i].filter)
			continue;
		snprintf(key, sizeof(key), VMT_META_FILTER_CTX "%s", c->ev[i].name);
		vmt_kv_add_str(kb, key, c->ev[i].filter);
	}
}
