// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "evformat.h"
#include "filteropt.h"
#include "log.h"
#include "tracefs.h"
#include "trigsel.h"

struct rec_trigsel {
	struct vmt_reason_set in;	/* the reasons listed (none: every reason) */
	struct vmt_reason_set out;	/* the "-NAME" ones, which never trigger */
};

/* The begin event's format on this kernel, or NULL after saying why. */
static struct vmt_evformat *begin_format(const char *root, const char *begin)
{
	char rel[PATH_MAX], *text = NULL;
	struct vmt_evformat *fmt = NULL;
	size_t len;
	int ret = vmt_tracefs_event_path(begin, "format", rel, sizeof(rel));

	if (!ret)
		ret = vmt_tracefs_events_file(root, rel, &text, &len);
	if (!ret)
		ret = vmt_evformat_parse(text, len, NULL, &fmt, NULL);
	free(text);
	if (ret)
		vmt_err("%s/events/%s: %s", root, rel, strerror(-ret));
	return ret ? NULL : fmt;
}

int rec_trigsel_resolve(struct rec_trigsel **out, const char *list, const char *root,
			const char *begin)
{
	struct vmt_reason_names in = { .option = "--trigger-reason", .begin_name = begin };
	struct rec_trigsel *s;
	struct utsname u;
	char msg[1024];
	int ret;

	*out = NULL;
	if (!list)
		return 0;
	in.begin = begin_format(root, begin);
	if (!in.begin)
		return 1;
	/* a system call's number names a different call on each architecture */
	in.machine = uname(&u) == 0 ? u.machine : NULL;
	s = calloc(1, sizeof(*s));
	ret = s ? vmt_reason_list_resolve(&in, list, &s->in, &s->out, msg, sizeof(msg)) : -ENOMEM;
	vmt_evformat_free((struct vmt_evformat *)in.begin);
	/* some messages name the option already ("--trigger-reason 0x1f: out of range") */
	if (ret == -EINVAL)
		vmt_err_folded("%s%s", strncmp(msg, in.option, strlen(in.option)) ?
			       "--trigger-reason: " : "", msg);
	else if (ret)
		vmt_err("--trigger-reason: %s", strerror(-ret));
	if (!ret && !s->in.n && !s->out.n) {
		vmt_err("--trigger-reason: no exit reason in '%s'", list);
		ret = -EINVAL;
	}
	if (ret) {
		free(s);
		return ret == -EINVAL ? 64 : 1;
	}
	*out = s;
	return 0;
}

bool rec_trigsel_keeps(const struct rec_trigsel *s, const struct vmt_event *begin)
{
	uint32_t isa;
	uint64_t key;

	if (!s)
		return true;
	if (!(begin->has & VMT_EVF_REASON))
		return !s->in.n;	/* a list of reasons holds none it cannot tell */
	isa = (begin->has & VMT_EVF_ISA) ? begin->isa : VMT_ISA_ANY;
	key = vmt_exitreason_key(isa, begin->reason);
	if (s->in.n && !vmt_reason_set_has(&s->in, isa, key))
		return false;
	return !vmt_reason_set_has(&s->out, isa, key);
}

void rec_trigsel_free(struct rec_trigsel *s)
{
	free(s);
}
