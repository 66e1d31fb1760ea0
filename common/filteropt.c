// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunk.h"
#include "cli.h"
#include "exitreason.h"
#include "filteropt.h"
#include "kvmevent.h"
#include "rbpage.h"
#include "source.h"
#include "vmfind.h"

enum {
	OPT_CPU = 0x1000,
	OPT_VCPU,
	OPT_REASON,
	OPT_FROM,
	OPT_TO,
	OPT_VM,
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Filters (every view honours them):", 50 },
	{ "cpu", OPT_CPU, "LIST", 0, "exits on these pCPUs only", 50 },
	{ "vcpu", OPT_VCPU, "LIST", 0, "exits of these vCPUs only", 50 },
	{ "vm", OPT_VM, "VM[,VM...]", 0, "exits of these VMs' vCPU threads only (a recording "
	  "made with vmtrace-record --vm; its VM names or VMM pids)", 50 },
	{ "reason", OPT_REASON, "NAME|CODE,...", 0, "exits of these reasons only: names of the "
	  "recording's ISA in any case (hlt, CPUID), or numbers", 50 },
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

/* A list item without the spaces around it ("hlt, io" as "hlt,io"), in place. */
static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return s;
}

/*
 * A list of names, as --reason and --vm take: an empty one, or an empty item (a ',' at
 * either end, two together, or only spaces between), would be skipped by the split and
 * select more than was meant (all exits for "--reason ,"), so it is refused as the CPU
 * lists' are.
 */
const char *vmt_argp_name_list(struct argp_state *state, const char *opt, const char *example,
			       const char *arg)
{
	const char *p = arg, *comma;

	if (!*arg)
		argp_error(state, "empty %s", opt);
	for (;; p = comma + 1) {
		comma = strchr(p, ',');
		if (strspn(p, " \t") == (comma ? (size_t)(comma - p) : strlen(p)))
			argp_error(state, "invalid %s list '%s': an empty item (expected e.g. %s)",
				   opt, arg, example);
		if (!comma)
			return arg;
	}
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
		if (vmt_cli_parse_idlist(arg, key == OPT_CPU ? VMT_CLI_MAX_CPUS : VMT_CLI_MAX_VCPUS,
					 l))
			argp_error(state, "invalid %s list '%s' (expected e.g. 2 or 2,4-7)",
				   key == OPT_CPU ? "CPU" : "vCPU", arg);
		break;
	}
	case OPT_REASON:
		fo->reasons = vmt_argp_name_list(state, "--reason", "hlt or hlt,io", arg);
		break;
	case OPT_VM:
		fo->vms = vmt_argp_name_list(state, "--vm", "web1 or web1,web2", arg);
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

/* How many chunks to search for the first exit that says its ISA. */
#define ISA_SCAN_CHUNKS 16

/* The ISA of the first exit in chunk idx that carries one, or VMT_ISA_ANY. */
static uint32_t chunk_isa(const struct vmt_reader *r, size_t idx, struct vmt_chunkbuf *cb)
{
	const struct vmt_source *src = vmt_reader_source(r);
	const struct vmt_chunk_info *ci = vmt_source_chunk(src, idx);
	uint32_t p;

	if (vmt_source_read_chunk(src, idx, cb, NULL))
		return VMT_ISA_ANY;
	vmt_source_check_pages(src, idx, 0, ci->page_count, cb->raw);
	for (p = 0; p < ci->page_count; p++) {
		struct vmt_rbpage pg;
		struct vmt_rbrecord rec;
		struct vmt_event ev;

		if (vmt_source_page_left_out(src, idx, p) ||
		    vmt_rbpage_init(&pg, vmt_reader_header_page(r),
				    cb->raw + (size_t)p * ci->page_size, ci->page_size))
			continue;
		while (vmt_rbpage_next(&pg, &rec) == 1) {
			if (vmt_evbind_decode(vmt_reader_bind(r), &rec, ci->cpu, &ev) == 1 &&
			    ev.kind == VMT_EV_BEGIN && (ev.has & VMT_EVF_ISA) &&
			    (ev.isa == VMT_ISA_VMX || ev.isa == VMT_ISA_SVM))
				return ev.isa;
		}
	}
	return VMT_ISA_ANY;
}

/*
 * The recording's ISA: the isa field of its first exits (read here from the source's chunks,
 * so the reader's own walk is untouched and standard input works), else the CPU model in
 * the metadata; VMT_ISA_ANY when neither says.
 */
static uint32_t recording_isa(const struct vmt_reader *r)
{
	const struct vmt_source *src = vmt_reader_source(r);
	size_t i, n = vmt_source_nchunks(src);
	struct vmt_chunkbuf cb = { 0 };
	uint32_t isa = VMT_ISA_ANY;
	char *model;

	if (vmt_reader_bind(r)->begin.isa.size) {
		for (i = 0; i < n && i < ISA_SCAN_CHUNKS && isa == VMT_ISA_ANY; i++)
			isa = chunk_isa(r, i, &cb);
		vmt_chunkbuf_free(&cb);
		if (isa != VMT_ISA_ANY)
			return isa;
	}
	if (!vmt_reader_pairs_kvm(r))
		return isa;	/* a system call's names are the same on Intel and AMD */
	model = vmt_reader_meta(r, "cpu.model");
	if (model && (strstr(model, "Intel") || strstr(model, "intel")))
		isa = VMT_ISA_VMX;
	else if (model && (strstr(model, "AMD") || strstr(model, "Hygon")))
		isa = VMT_ISA_SVM;
	free(model);
	return isa;
}

static int cmp_tid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* The VMs the map has, "web1 (pid 1234), web2 (pid 1240)", for the error message. */
static void list_vms(const struct vmt_vmmap *m, char *buf, size_t size)
{
	size_t len = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < vmt_vmmap_count(m) && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s (pid %d)", i ? ", " : "",
					vmt_vmmap_name(m, i), (int)vmt_vmmap_pid(m, i));
}

static int resolve_vms(struct vmt_filter_opts *fo, const struct vmt_reader *r, char *msg,
		       size_t size)
{
	const struct vmt_vmmap *m = vmt_reader_vmmap(r);
	struct vmt_filter *f = &fo->filter;
	char *list, *tok, *save = NULL, have[512];
	int ret = 0, vm;

	if (!m) {
		snprintf(msg, size, "--vm %s: this recording has no VM map (it was not made with "
			 "vmtrace-record --vm)", fo->vms);
		return -EINVAL;
	}
	list = strdup(fo->vms);
	if (!list)
		return -ENOMEM;
	for (tok = strtok_r(list, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		tok = trim(tok);
		vm = vmt_vmmap_find(m, tok);
		if (vm < 0) {
			list_vms(m, have, sizeof(have));
			snprintf(msg, size, "--vm: no VM '%s' in this recording; it has %s", tok,
				 have);
			ret = -EINVAL;
			break;
		}
		ret = vmt_vmmap_vm_tids(m, (unsigned int)vm, &f->tids, &f->ntids);
	}
	free(list);
	if (!ret && f->tids)
		qsort(f->tids, f->ntids, sizeof(*f->tids), cmp_tid);
	return ret;
}

/*
 * --vcpu on events without a vCPU id, in a recording with a VM map: the threads the map
 * gives those indices (the index every view shows for such a thread), so that --vcpu
 * selects what the tables and rows call that vCPU. An index no thread has would select
 * nothing: refused, naming the indices there are.
 */
static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

static int resolve_vcpus_by_map(struct vmt_filter *f, const struct vmt_vmmap *m, char *msg,
				size_t size)
{
	struct vmt_cpulist have = { 0, NULL };
	unsigned int vm, i, n = 0, idx;
	char want[128], got[128];
	int32_t *tids = NULL;
	int ret = 0;

	for (vm = 0; vm < vmt_vmmap_count(m) && !ret; vm++)
		ret = vmt_vmmap_vm_tids(m, vm, &tids, &n);
	have.cpu = ret ? NULL : malloc(((size_t)n + 1) * sizeof(*have.cpu));
	if (!have.cpu) {
		free(tids);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (vmt_vmmap_lookup(m, tids[i], &vm, &idx))
			continue;
		if (vmt_cpulist_has(&f->vcpus, idx))
			tids[f->nvcpu_tids++] = tids[i];	/* kept, in place */
		have.cpu[have.n++] = idx;
	}
	qsort(have.cpu, have.n, sizeof(*have.cpu), cmp_uint);
	for (i = n = 0; i < have.n; i++)
		if (!n || have.cpu[n - 1] != have.cpu[i])
			have.cpu[n++] = have.cpu[i];
	have.n = n;
	if (!f->nvcpu_tids) {
		snprintf(msg, size, "--vcpu %s: no vCPU of that index in the recording's VM map "
			 "(its vCPUs: %s)",
			 vmt_cpulist_format(&f->vcpus, want, sizeof(want)),
			 have.n ? vmt_cpulist_format(&have, got, sizeof(got)) : "none");
		free(tids);
		free(have.cpu);
		return -EINVAL;
	}
	free(have.cpu);
	qsort(tids, f->nvcpu_tids, sizeof(*tids), cmp_tid);
	f->vcpu_tids = tids;
	f->vcpus_by_map = true;
	return 0;
}

/*
 * A reason given by number: decimal, or hexadecimal after 0x, as the reports show them; a
 * leading 0 is no octal prefix (--cpu reads 010 as 10, and "0170" read as 120 selected
 * hlt). A number the begin event's reason field cannot hold would select nothing, silently:
 * refused, as an unknown name is.
 */
static int reason_number(const char *tok, const struct vmt_reason_names *in, uint64_t *out,
			 char *msg, size_t size)
{
	static const char *const field[] = { "exit_reason", "esr_ec", "id" };
	const struct vmt_evfield *f = NULL;
	bool hex = tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X');
	unsigned long long v;
	unsigned int i;
	char *end;

	errno = 0;
	v = strtoull(hex ? tok + 2 : tok, &end, hex ? 16 : 10);
	if (*end || end == (hex ? tok + 2 : tok) || !isxdigit((unsigned char)tok[hex ? 2 : 0])) {
		snprintf(msg, size, "invalid exit reason '%s'", tok);
		return -EINVAL;
	}
	for (i = 0; !f && i < sizeof(field) / sizeof(field[0]); i++)
		f = vmt_evformat_field(in->begin, field[i]);
	if (errno == ERANGE || (f && f->size < 8 && v >> (f->size * 8))) {
		snprintf(msg, size, "%s %s: out of range: the %s field of %s holds %u bits "
			 "(at most %llu)", in->option, tok, f ? f->name : "reason", in->begin_name,
			 f && f->size < 8 ? f->size * 8 : 64,
			 f && f->size < 8 ? (1ULL << (f->size * 8)) - 1 : ~0ULL);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* One item: a number, or a name of the table t (for in->isa()'s exits, asked once). */
static int resolve_item(const struct vmt_reason_names *in, const struct vmt_exitreasons *t,
			const char *tok, struct vmt_reason_set *set, bool *isa_known, uint32_t *isa,
			char *msg, size_t size)
{
	unsigned int room = VMT_MAX_FILTER_REASONS - set->n;
	uint64_t v;
	int n, ret;

	if (isdigit((unsigned char)*tok)) {
		ret = reason_number(tok, in, &v, msg, size);
		if (ret)
			return ret;
		if (!room) {
			snprintf(msg, size, "too many exit reasons (at most %u)",
				 VMT_MAX_FILTER_REASONS);
			return -EINVAL;
		}
		set->isa[set->n] = VMT_ISA_ANY;
		set->key[set->n++] = v;
		return 0;
	}
	if (vmt_exitreasons_empty(t)) {
		snprintf(msg, size, "%s '%s': %s events have numbers, not names (their format has "
			 "no table of them); give numbers, e.g. %s 0,1", in->option, tok,
			 in->begin_name, in->option);
		return -EINVAL;
	}
	if (!*isa_known) {
		*isa = in->isa ? in->isa(in->arg) : VMT_ISA_ANY;
		*isa_known = true;
	}
	n = vmt_exitreason_resolve(t, *isa, tok, set->isa + set->n, set->key + set->n, room, msg,
				   size);
	if (n == -ENOSPC)	/* it said the room left, not the limit */
		snprintf(msg, size, "too many exit reasons (at most %u)", VMT_MAX_FILTER_REASONS);
	if (n < 0)
		return -EINVAL;
	set->n += (unsigned int)n;
	return 0;
}

int vmt_reason_list_resolve(const struct vmt_reason_names *in, const char *list,
			    struct vmt_reason_set *set, struct vmt_reason_set *out, char *msg,
			    size_t size)
{
	struct vmt_exitreasons *t;
	char *copy, *tok, *save = NULL;
	uint32_t isa = VMT_ISA_ANY;
	bool isa_known = false;
	int ret = 0;

	if (vmt_exitreasons_new(in->begin, in->machine, &t))
		return -ENOMEM;
	if (in->whose)
		vmt_exitreasons_set_whose(t, in->whose);
	copy = strdup(list);
	if (!copy) {
		vmt_exitreasons_free(t);
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		tok = trim(tok);
		if (out && *tok == '-')
			ret = resolve_item(in, t, trim(tok + 1), out, &isa_known, &isa, msg, size);
		else
			ret = resolve_item(in, t, tok, set, &isa_known, &isa, msg, size);
	}
	free(copy);
	vmt_exitreasons_free(t);
	return ret;
}

static uint32_t isa_of_reader(const void *r)
{
	return recording_isa(r);
}

int vmt_filter_resolve(struct vmt_filter_opts *fo, const struct vmt_reader *r, char *msg,
		       size_t size)
{
	struct vmt_filter *f = &fo->filter;
	struct vmt_reason_names in = {
		.option = "--reason", .begin = vmt_reader_begin_format(r),
		.begin_name = vmt_reader_begin_name(r), .machine = vmt_reader_machine(r),
		.isa = isa_of_reader, .arg = r,
	};
	struct vmt_reason_set set = { 0 };
	int ret = 0;

	/*
	 * --vcpu on events without a vCPU id would select nothing, whatever the list: an
	 * option the recording has no use for, said before the pass rather than after it,
	 * unless the recording's VM map gives its threads the index the views show.
	 */
	if (f->vcpus.n && !vmt_reader_bind(r)->begin.vcpu.size && vmt_reader_vmmap(r)) {
		ret = resolve_vcpus_by_map(f, vmt_reader_vmmap(r), msg, size);
		if (ret)
			return ret;
	} else if (f->vcpus.n && !vmt_reader_bind(r)->begin.vcpu.size) {
		char ids[128];

		snprintf(msg, size, "--vcpu %s: %s events carry no vCPU id (their format has no "
			 "vcpu_id field); --cpu selects by CPU", vmt_cpulist_format(&f->vcpus,
			 ids, sizeof(ids)), vmt_reader_begin_name(r));
		return -EINVAL;
	}
	if (fo->vms) {
		ret = resolve_vms(fo, r, msg, size);
		if (ret)
			return ret;
	}
	if (!fo->reasons)
		return 0;
	ret = vmt_reason_list_resolve(&in, fo->reasons, &set, NULL, msg, size);
	memcpy(f->reason_isa, set.isa, set.n * sizeof(*set.isa));
	memcpy(f->reason_key, set.key, set.n * sizeof(*set.key));
	f->nreasons = set.n;
	return ret;
}

bool vmt_reason_set_has(const struct vmt_reason_set *set, uint32_t isa, uint64_t key)
{
	unsigned int i;

	for (i = 0; i < set->n; i++) {
		/* a number given counts as the exit's does: a VMX one by its basic reason */
		if (vmt_exitreason_key(isa, set->key[i]) == key &&
		    (set->isa[i] == isa || set->isa[i] == VMT_ISA_ANY || isa == VMT_ISA_ANY))
			return true;
	}
	return false;
}

int vmt_filter_keeps_reason(const struct vmt_filter_opts *fo, const struct vmt_reader *r,
			    const char *reason)
{
	const struct vmt_filter *f = &fo->filter;
	struct vmt_filter_opts one = { .reasons = reason };
	uint32_t risa = UINT32_MAX;
	unsigned int i, k;
	char msg[256];
	int ret;

	if (!f->nreasons)
		return 1;
	/* the name resolved as --reason would resolve it, then looked for in the filter */
	ret = vmt_filter_resolve(&one, r, msg, sizeof(msg));
	if (ret)
		return ret;
	for (i = 0; i < one.filter.nreasons; i++) {
		for (k = 0; k < f->nreasons; k++) {
			/* numbers as the exits count (VMX: the basic reason) */
			uint32_t isa = f->reason_isa[k] != VMT_ISA_ANY ? f->reason_isa[k] :
				       one.filter.reason_isa[i];

			/* two numbers: the recording's ISA (read from its chunks, once) */
			if (isa == VMT_ISA_ANY && risa == UINT32_MAX)
				risa = recording_isa(r);
			if (isa == VMT_ISA_ANY)
				isa = risa;

			if (vmt_exitreason_key(isa, one.filter.reason_key[i]) ==
			    vmt_exitreason_key(isa, f->reason_key[k]) &&
			    (one.filter.reason_isa[i] == f->reason_isa[k] ||
			     one.filter.reason_isa[i] == VMT_ISA_ANY ||
			     f->reason_isa[k] == VMT_ISA_ANY))
				return 1;
		}
	}
	return 0;
}

int vmt_reason_known(const struct vmt_reader *r, const char *reason, char *msg, size_t size)
{
	struct vmt_filter_opts one = { .reasons = reason };
	struct vmt_exitreasons *t = NULL;
	bool known;
	unsigned int i;
	int ret = vmt_filter_resolve(&one, r, msg, size);

	if (ret && ret != -EINVAL)
		snprintf(msg, size, "%s", strerror(-ret));
	if (ret) {
		vmt_filter_opts_free(&one);
		return -1;
	}
	known = true;
	/*
	 * A KVM exit's number: one the table names (the recording's, else the built-in VMX
	 * and SVM ones). A system call's is any: the built-in table stops at Linux 6.1's calls.
	 */
	if (vmt_reader_pairs_kvm(r) && isdigit((unsigned char)*reason) &&
	    vmt_exitreasons_new(vmt_reader_begin_format(r), vmt_reader_machine(r), &t) == 0 &&
	    !vmt_exitreasons_empty(t)) {
		uint32_t risa = recording_isa(r);

		known = false;
		for (i = 0; !known && i < one.filter.nreasons; i++) {
			uint32_t isa = one.filter.reason_isa[i] != VMT_ISA_ANY ?
				       one.filter.reason_isa[i] : risa;

			known = vmt_exitreason_name(t, isa, vmt_exitreason_key(isa,
						    one.filter.reason_key[i])) != NULL;
		}
		if (!known)
			snprintf(msg, size, "no exits of reason %s, a code the recording's table does "
				 "not name either (a mistyped number?)", reason);
	}
	vmt_exitreasons_free(t);
	vmt_filter_opts_free(&one);
	return known;
}

const char *vmt_filter_opts_given(const struct vmt_filter_opts *fo)
{
	const struct vmt_filter *f = &fo->filter;

	return f->cpus.n ? "--cpu" : f->vcpus.n ? "--vcpu" : fo->vms ? "--vm" :
	       fo->reasons ? "--reason" : f->has_from ? "--from" : f->has_to ? "--to" : NULL;
}

void vmt_filter_opts_free(struct vmt_filter_opts *fo)
{
	vmt_filter_free(&fo->filter);
}
