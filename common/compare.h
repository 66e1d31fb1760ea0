/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compare: two recordings side by side (before, after). A consumer of the pass (iterate.h),
 * run once over each, fills per exit reason and overall a latency distribution in ns (so two
 * clocks compare) and the worst sliding window; then the two-sample Kolmogorov-Smirnov test
 * on each pair of distributions, and --fail-if conditions (parsed, checked). Memory grows with
 * reasons, tasks and lost-events gaps, never with events. A struct vmt_compare belongs to
 * one thread.
 */
#ifndef VMT_COMPARE_H
#define VMT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iterate.h"
#include "latstat.h"

#define VMT_CMP_BEFORE 0
#define VMT_CMP_AFTER 1
#define VMT_CMP_NAME_LEN 64
/* A change is beyond noise when the test's p-value is below this. */
#define VMT_CMP_ALPHA 0.01

/* One group's figures in one recording. */
struct vmt_cmp_side {
	struct vmt_latdist d;		/* ns */
	uint64_t max_window_ns;		/* the largest out-of-guest time in any window */
	/*
	 * Where its exits' time went (a recording with context events, vmt_compare.why):
	 * ns per kind (enum vmt_why_kind), of why_exits exits, why_incomplete of them with
	 * time of unknown cause (counted as kvm, as the report does)
	 */
	uint64_t why_ns[VMT_WHY_NKINDS];
	uint64_t why_exits, why_incomplete;
	/*
	 * The exits still open at the stop the filters keep (with vmt_compare.open): how many,
	 * and the longest time open of them (ns, 0 when none)
	 */
	uint64_t open_exits, open_max_ns;
};

/* One group (overall, or one exit reason) in both recordings. */
struct vmt_cmp_group {
	bool all;			/* every exit the filters keep */
	uint32_t isa;
	uint64_t key;
	char name[VMT_CMP_NAME_LEN];	/* "all", "hlt", "0x7b" */
	struct vmt_cmp_side side[2];
	double ks_d, ks_p;		/* filled by vmt_compare_test(); p 1 when a side is empty */
};

struct cmp_pass;

struct vmt_compare {
	uint64_t window_ns;
	uint64_t span_ns[2];		/* the span the filters select */
	/* of its events alone, and whether span_ns is of a recorded duration (.vmt) */
	uint64_t events_span_ns[2];
	bool recorded[2];
	/* a merge of recordings with and without a duration: span_ns are the events' spans */
	bool events_spans;
	bool why[2];			/* the side's exits carry their causes */
	uint32_t why_recorded[2];	/* the kinds it can tell (vmt_attrib_recorded) */
	/* a recording with context events whose causes were not asked for (--no-causes) */
	bool why_off;
	/*
	 * Of that span, the time lost events hid (vmt_compare_consumer): the rates are over
	 * span_ns less this, as a vCPU's time in the guest leaves out its gaps
	 */
	uint64_t gap_ns[2];
	/*
	 * The events each side lost, as the report's lost_events counts them (--fail-if's
	 * lost), and whether that is all of them (not a lower bound): vmt_compare_lost()
	 */
	uint64_t lost[2];
	bool lost_inexact[2];
	struct vmt_cmp_group *groups;	/* [0] all, then reasons by after's total time */
	size_t ngroups, cap;
	struct cmp_pass **passes;	/* one per consumer made */
	size_t npasses;
	bool neutral;			/* another pair than KVM's: the caller sets it, the
					 * renderers then say pairs and ids, not exits, reasons */
	/*
	 * The caller sets it to count the exits open at the stop (open_exits, open_max_ns):
	 * a reason with only such exits then has a group, without pairs
	 */
	bool open;
	/* each side's exits still open at the stop, all of them (the pairing's unfinished) */
	uint64_t open_at_stop[2];
};

/* Prepare c (zeroed here) for sliding windows of window_ns. Returns 0 or -ENOMEM. */
int vmt_compare_init(struct vmt_compare *c, uint64_t window_ns);
void vmt_compare_free(struct vmt_compare *c);
/*
 * The consumer for one pass that adds to side (several passes may add to one side: their
 * exits are then one population, each task's windows its own). Returns 0 or -ENOMEM. The
 * caller sets span_ns[side] (vmt_compare_selected_ns() of each pass) after the pass; the
 * pass adds to gap_ns[side] the time inside that span its CPUs' lost-events holes hid,
 * averaged over the CPUs whose exits count (the filter's of the traced ones, else those
 * traced, else those seen): exits were counted on the others meanwhile.
 */
int vmt_compare_consumer(struct vmt_compare *c, int side, struct vmt_consumer *out);
/*
 * The part of a recording the rates are over: its duration (its events' span when the
 * file does not say, as a trace.dat), or the part --from/--to select, in ns since its
 * start: from *start_ns, this long.
 */
uint64_t vmt_compare_selected_ns(const struct vmt_filter *f, const struct vmt_reader *r,
				 const struct vmt_iter *it, uint64_t *start_ns);
/*
 * After a pass of r into side (f: its filter, bound by the pass): add the events r lost to
 * c->lost[side] as the single report's lost_events counts them (summary.c: the larger of
 * the pages' counts and the ring buffers' statistics, plus those left unread at the stop,
 * only before --to when it is given), and whether some were not counted.
 */
void vmt_compare_lost(struct vmt_compare *c, int side, const struct vmt_reader *r,
		      const struct vmt_filter *f);
/* After both passes: the tests, and the reasons in order. */
void vmt_compare_test(struct vmt_compare *c);

/*
 * The two-sample Kolmogorov-Smirnov test of two distributions: D, the largest distance of
 * their cumulative distributions, exact over the histograms' buckets (over the values while
 * both hold their values), and its asymptotic p-value (Kolmogorov's distribution with
 * Stephens' small-sample correction). p is 1 when either is empty. Returns 0 or -ENOMEM.
 */
int vmt_compare_ks(const struct vmt_latdist *a, const struct vmt_latdist *b, double *d,
		   double *p);
/* Q_KS(lambda) = 2 sum_{j>=1} (-1)^(j-1) exp(-2 j^2 lambda^2), in [0, 1]. */
double vmt_compare_ks_q(double lambda);

/* --fail-if: the figures a condition may name. */
enum vmt_cmp_metric {
	VMT_CMP_COUNT, VMT_CMP_RATE, VMT_CMP_MEAN, VMT_CMP_P50, VMT_CMP_P90, VMT_CMP_P99,
	VMT_CMP_P999, VMT_CMP_P9999, VMT_CMP_MAX, VMT_CMP_WINDOW, VMT_CMP_KS_P, VMT_CMP_KS_D,
	VMT_CMP_LOST,	/* the recording's lost events (all exits only): vmt_compare_lost() */
	VMT_CMP_OPEN,	/* the longest time open of the exits open at the stop (0: none) */
	VMT_CMP_NMETRICS
};

enum vmt_cmp_op { VMT_CMP_GT, VMT_CMP_GE, VMT_CMP_LT, VMT_CMP_LE };

/* "[REASON:]METRIC OP VALUE" */
struct vmt_cmp_cond {
	char reason[VMT_CMP_NAME_LEN];	/* "" for all */
	enum vmt_cmp_metric metric;
	enum vmt_cmp_op op;
	bool relative;			/* value is a change in % of before's figure */
	double value;			/* %, ns, a count, a rate or a p-value */
	char text[96];			/* as written */
};


/*
 * Parse "p99>+10%,max>2ms,hlt:count>+50%" into at most max conditions. Returns how many,
 * or -EINVAL with msg saying what is wrong; with single (one recording, no --compare) its
 * hints name only what one recording takes (no change, no test's figure).
 */
int vmt_compare_parse_conds(const char *s, struct vmt_cmp_cond *conds, unsigned int max,
			    bool single, char *msg, size_t size);
/* A group's figure in one side (NAN when it has none: p99 of no exits). */
/*
 * ns of a side's time per second of the span its rates are over (as VMT_CMP_RATE's), NAN
 * when that span is empty: causes compare across recordings of other lengths.
 */
double vmt_compare_per_s(const struct vmt_compare *c, int side, uint64_t ns);
/*
 * The kinds of time (1 << enum vmt_why_kind) one recording tells and the other cannot that
 * matter to group g's causes: those with time on the side that tells them. Such a kind
 * stops every kind's change from comparing (the other side counts its time in others); one
 * without time where it is told (no nmi row: no NMI) has none to count elsewhere and no
 * row. 0: the changes compare.
 */
uint32_t vmt_compare_why_differ(const struct vmt_compare *c, const struct vmt_cmp_group *g);
double vmt_compare_value(const struct vmt_compare *c, const struct vmt_cmp_group *g, int side,
			 enum vmt_cmp_metric m);
/*
 * Whether the condition holds; msg says what was compared either way ("p99>+10%: all p99
 * 51200 -> 60100 (+17.38 %) > +10 %"). Returns 1 (holds), 0 (does not), 2 (cannot be told:
 * a recording has none of these exits, "none" in msg; a gate counts it as holding), or
 * -ENOENT when neither recording has exits of the reason it names (msg says so): the
 * caller tells a misspelt name, which must not pass a gate, from a reason of theirs
 * without exits (vmt_compare_check_none()).
 */
int vmt_compare_check(const struct vmt_compare *c, const struct vmt_cmp_cond *cond, char *msg,
		      size_t size);
/*
 * A condition on a reason neither recording has an exit of, where the name is one of their
 * reasons (the caller resolved it; not misspelt): checked on the figures of no exits, as a
 * group without exits has them (count and rate 0, open 0: nothing stuck); a latency of
 * none is longer than no bound (">" does not hold, no change between two recordings), the
 * others cannot be told: 2. Returns and says as vmt_compare_check().
 */
int vmt_compare_check_none(const struct vmt_compare *c, const struct vmt_cmp_cond *cond,
			   char *msg, size_t size);
/* The group of a reason name or code ("hlt", "HLT", "0x78", "120"), or NULL. */
const struct vmt_cmp_group *vmt_compare_find(const struct vmt_compare *c, const char *reason);

#endif
