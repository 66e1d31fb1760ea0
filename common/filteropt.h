/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filteropt: the filter options every view shares (--cpu, --vcpu, --vm, --reason, --from,
 * --to),
 * as an argp child for vmtrace-report and vmtrace-convert, and their resolution against a
 * recording's own exit-reason names. The caller owns struct vmt_filter_opts.
 */
#ifndef VMT_FILTEROPT_H
#define VMT_FILTEROPT_H

#include <argp.h>

#include "filter.h"
#include "reader.h"

struct vmt_filter_opts {
	struct vmt_filter filter;
	const char *reasons;	/* as given; resolved by vmt_filter_resolve() */
	const char *vms;	/* --vm NAME|PID,... as given; resolved likewise */
};

/* The argp child: set child.input to a struct vmt_filter_opts. */
extern const struct argp vmt_filter_argp;

/*
 * Turn --reason names and numbers into the filter. Names match the recording's own table
 * for its ISA (found from its first exits' isa field, else its CPU model), ignoring case.
 * Returns 0, or -EINVAL with msg (size bytes) saying which name is wrong and why (another
 * ISA's name, an unknown one with the names there are, names for a pair that has none).
 * --vm names (or VMM pids) become the tids of those VMs' vCPU threads from the recording's
 * map (vmtrace-record --vm); -EINVAL with msg for a VM it lacks, listing those it has.
 * --vcpu on a pair whose begin event has no vCPU id selects by the index the recording's VM
 * map gives the threads (-EINVAL with msg for an index it lacks), and without a map is
 * -EINVAL with msg too. The programs
 * exit 64 on -EINVAL: each is an option that does not fit the input.
 */
int vmt_filter_resolve(struct vmt_filter_opts *fo, const struct vmt_reader *r, char *msg,
		       size_t size);
/*
 * Whether fo's resolved --reason filter keeps the exit reason named reason (a name or a
 * number, as --reason takes it) in recording r: 1 (it does, or there is no --reason), 0 (it
 * leaves that reason out), or -EINVAL when r has no such reason name.
 */
int vmt_filter_keeps_reason(const struct vmt_filter_opts *fo, const struct vmt_reader *r,
			    const char *reason);

/* What a list of exit reasons (--reason's, vmtrace-record --trigger-reason's) names. */
struct vmt_reason_names {
	const char *option;		/* the list's option, for the messages ("--reason") */
	const struct vmt_evformat *begin;	/* the begin event's format: its names */
	const char *begin_name;		/* "kvm:kvm_exit" */
	const char *machine;		/* uname -m of the recording's kernel, or NULL */
	const char *whose;		/* the messages' "this recording" (NULL), "this host" */
	/* the exits' ISA, asked at the first name (NULL: VMT_ISA_ANY, either ISA's names) */
	uint32_t (*isa)(const void *arg);
	const void *arg;
};

/* (isa, key) pairs; an isa of VMT_ISA_ANY matches either. */
struct vmt_reason_set {
	unsigned int n;
	uint32_t isa[VMT_MAX_FILTER_REASONS];
	uint64_t key[VMT_MAX_FILTER_REASONS];
};

/*
 * The reasons of list (names or numbers, comma-separated, spaces around an item ignored),
 * as --reason resolves them, appended to set; with out, items after a '-' ("-hlt") go to
 * out instead. Returns 0, -ENOMEM, or -EINVAL with msg (size bytes) naming in->option and
 * the item that is wrong and why.
 */
int vmt_reason_list_resolve(const struct vmt_reason_names *in, const char *list,
			    struct vmt_reason_set *set, struct vmt_reason_set *out, char *msg,
			    size_t size);
/* Whether set holds the reason key of an exit of isa (VMT_ISA_ANY: not known). */
bool vmt_reason_set_has(const struct vmt_reason_set *set, uint32_t isa, uint64_t key);
void vmt_filter_opts_free(struct vmt_filter_opts *fo);
/*
 * Whether reason (a name or a number, as --reason takes it) is one of r's: 1, a name its
 * table resolves or a number (of KVM's exits, one the table names); 0, a KVM number no
 * table names (not refused by --reason, but with no exits of it likely mistyped); -1,
 * what --reason refuses. msg (size bytes) says why not.
 */
int vmt_reason_known(const struct vmt_reader *r, const char *reason, char *msg, size_t size);
/* The first filter option given ("--cpu", "--reason", ...), or NULL when there is none. */
const char *vmt_filter_opts_given(const struct vmt_filter_opts *fo);
/*
 * A comma-separated list of names as given (arg), or argp_error() for an empty one or an
 * empty item ("invalid OPT list 'a,': an empty item (expected e.g. EXAMPLE)").
 */
const char *vmt_argp_name_list(struct argp_state *state, const char *opt, const char *example,
			       const char *arg);
/* A TIME option value in ns ("1ms", "2"), or argp_error() naming what and the value. */
uint64_t vmt_argp_time(struct argp_state *state, const char *what, const char *arg);

#endif
