// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "exitreason.h"
#include "filteropt.h"

enum {
	OPT_CPU = 0x1000,
	OPT_VCPU,
	OPT_REASON,
	OPT_FROM,
	OPT_TO,
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Filters (every view honours them):", 50 },
	{ "cpu", OPT_CPU, "LIST", 0, "exits on these pCPUs only", 50 },
	{ "vcpu", OPT_VCPU, "LIST", 0, "exits of these vCPUs only", 50 },
	{ "reason", OPT_REASON, "NAME|CODE,...", 0, "exits of these reasons only (names as the "
	  "kernel spells them, or numbers)", 50 },
	{ "from", OPT_FROM, "TIME", 0, "exits from TIME on (since the recording's start)", 50 },
	{ "to", OPT_TO, "TIME", 0, "exits up to TIME", 50 },
	{ 0 }
};

uint64_t vmt_argp_time(struct argp_state *state, const char *what, const char *arg)
{
	uint64_t v;

	if (vmt_cli_parse_duration_ns(arg, &v))
		argp_error(state, "invalid %s '%s' (expected e.g. 1ms, 500us, 2s)", what, arg);
	return v;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct vmt_filter_opts *fo = state->input;
	struct vmt_filter *f = &fo->filter;

	switch (key) {
	case OPT_CPU:
	case OPT_VCPU: {
		struct vmt_cpulist *l = key == OPT_CPU ? &f->cpus : &f->vcpus;

		vmt_cpulist_free(l);
		if (vmt_cli_parse_cpulist(arg, l))
			argp_error(state, "invalid %s list '%s' (expected e.g. 2 or 2,4-7)",
				   key == OPT_CPU ? "CPU" : "vCPU", arg);
		break;
	}
	case OPT_REASON:
		if (!*arg)
			argp_error(state, "empty --reason");
		fo->reasons = arg;
		break;
	case OPT_FROM:
		f->from_ns = vmt_argp_time(state, "--from time", arg);
		f->has_from = true;
		break;
	case OPT_TO:
		f->to_ns = vmt_argp_time(state, "--to time", arg);
		f->has_to = true;
		break;
	case ARGP_KEY_END:
		if (f->has_from && f->has_to && f->to_ns < f->from_ns)
			argp_error(state, "--to is before --from");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp vmt_filter_argp = { options, parse_opt, NULL, NULL, NULL, NULL, NULL };

int vmt_filter_resolve(struct vmt_filter_opts *fo, const struct vmt_reader *r, char *msg,
		       size_t size)
{
	struct vmt_filter *f = &fo->filter;
	struct vmt_exitreasons *t;
	char *list, *tok, *save = NULL;
	int ret = 0;

	if (!fo->reasons)
		return 0;
	if (vmt_exitreasons_new(vmt_reader_begin_format(r), &t))
		return -ENOMEM;
	list = strdup(fo->reasons);
	if (!list) {
		vmt_exitreasons_free(t);
		return -ENOMEM;
	}
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned int room = VMT_MAX_FILTER_REASONS - f->nreasons, n;

		if (isdigit((unsigned char)*tok)) {
			char *end;
			unsigned long long v = strtoull(tok, &end, 0);

			if (*end || !room) {
				snprintf(msg, size, "invalid exit reason '%s'", tok);
				ret = -EINVAL;
				break;
			}
			f->reason_isa[f->nreasons] = VMT_ISA_ANY;
			f->reason_key[f->nreasons++] = v;
			continue;
		}
		n = vmt_exitreason_find(t, tok, f->reason_isa + f->nreasons,
					f->reason_key + f->nreasons, room);
		if (!n) {
			snprintf(msg, size, "unknown exit reason '%s' (names as in the kernel's "
				 "kvm_exit format, e.g. hlt, io, EXTERNAL_INTERRUPT; or a number)", tok);
			ret = -EINVAL;
			break;
		}
		f->nreasons += n;
	}
	free(list);
	vmt_exitreasons_free(t);
	return ret;
}

void vmt_filter_opts_free(struct vmt_filter_opts *fo)
{
	vmt_cpulist_free(&fo->filter.cpus);
	vmt_cpulist_free(&fo->filter.vcpus);
}
