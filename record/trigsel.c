// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
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

const char *rec_trigsel_check_list(struct argp_state *state, const char *arg)
{
	const char *p = arg;

	vmt_argp_name_list(state, "--trigger-reason", "-hlt or cpuid,hlt", arg);
	if (strlen(arg) > REC_TRIGSEL_MAX_LIST)
		argp_error(state, "--trigger-reason: a list of more than %u characters",
			   REC_TRIGSEL_MAX_LIST);
	for (; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		p += strspn(p, " \t");
		if (*p == '-' && strspn(p + 1, " \t") == strcspn(p + 1, ","))
			argp_error(state, "invalid --trigger-reason list '%s': a '-' without a name "
				   "(expected e.g. -hlt)", arg);
	}
	return arg;
}

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

/* KVM's exits on this host: Intel's VMX or AMD's SVM, from /proc/cpuinfo (else either). */
static uint32_t host_isa(void)
{
	char line[256];
	uint32_t isa = VMT_ISA_ANY;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && isa == VMT_ISA_ANY && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "vendor_id", 9) != 0)
			continue;
		/* Zhaoxin ("  Shanghai  ") and Centaur CPUs have Intel's VMX */
		if (strstr(line, "GenuineIntel") || strstr(line, "CentaurHauls") ||
		    strstr(line, "Shanghai"))
			isa = VMT_ISA_VMX;
		else if (strstr(line, "AuthenticAMD") || strstr(line, "HygonGenuine"))
			isa = VMT_ISA_SVM;
		break;
	}
	if (f)
		fclose(f);
	return isa;
}

static uint32_t isa_given(const void *arg)
{
	return *(const uint32_t *)arg;
}

/* 0, or -EINVAL with msg: a begin event without a reason, which no list can select. */
static int check_reason(const struct vmt_evformat *fmt, const char *begin, char *msg,
			size_t size)
{
	static const char *const field[] = { "exit_reason", "esr_ec", "id" };
	unsigned int i;

	for (i = 0; i < sizeof(field) / sizeof(field[0]); i++)
		if (vmt_evformat_field(fmt, field[i]))
			return 0;
	snprintf(msg, size, "%s events carry no reason (their format has none of the fields "
		 "exit_reason, esr_ec, id): no list can select them", begin);
	return -EINVAL;
}

/*
 * 0, or -EINVAL with msg: a list whose reasons left out are all those it lists (numbers as
 * the host's exits count: 33 and -0x80000021 are one VMX reason).
 */
static int check_useful(const struct rec_trigsel *s, const char *list, uint32_t host,
			char *msg, size_t size)
{
	unsigned int i, left = 0;

	for (i = 0; i < s->in.n; i++) {
		uint32_t isa = s->in.isa[i] != VMT_ISA_ANY ? s->in.isa[i] : host;

		left += !vmt_reason_set_has(&s->out, isa, vmt_exitreason_key(isa, s->in.key[i]));
	}
	if (s->in.n && !left) {
		snprintf(msg, size, "'%s' leaves out every reason it lists: nothing could "
			 "trigger", list);
		return -EINVAL;
	}
	return 0;
}

int rec_trigsel_resolve_isa(struct rec_trigsel **out, const char *list, const char *root,
			    const char *begin, uint32_t isa)
{
	struct vmt_reason_names in = {
		.option = "--trigger-reason", .begin_name = begin, .isa = isa_given, .arg = &isa,
		.whose = "this host",	/* its vendor's names, from /proc/cpuinfo: no recording yet */
	};
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
	ret = s ? check_reason(in.begin, begin, msg, sizeof(msg)) : -ENOMEM;
	if (!ret)
		ret = vmt_reason_list_resolve(&in, list, &s->in, &s->out, msg, sizeof(msg));
	if (!ret)
		ret = check_useful(s, list, isa, msg, sizeof(msg));
	vmt_evformat_free((struct vmt_evformat *)in.begin);
	/* some messages name the option already ("--trigger-reason 0x1f: out of range") */
	if (ret == -EINVAL)
		vmt_err_folded("%s%s", strncmp(msg, in.option, strlen(in.option)) ?
			       "--trigger-reason: " : "", msg);
	else if (ret)
		vmt_err("--trigger-reason: %s", strerror(-ret));
	if (ret) {
		free(s);
		return ret == -EINVAL ? 64 : 1;
	}
	*out = s;
	return 0;
}

int rec_trigsel_resolve(struct rec_trigsel **out, const char *list, const char *root,
			const char *begin)
{
	/* a name of the other vendor's would match no exit here: refused, naming this one's */
	return rec_trigsel_resolve_isa(out, list, root, begin,
				       vmt_evpair_is_kvm(begin) ? host_isa() : VMT_ISA_ANY);
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
