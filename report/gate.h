/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gate: vmtrace-report --fail-if, its conditions (common/compare.h parses and checks them)
 * and their verdict lines, for --compare BEFORE AFTER and for one recording, whose
 * figures a compare consumer (common/compare.h) collects as the AFTER side of a comparison
 * without a BEFORE. Main thread; the caller owns struct report_gate.
 */
#ifndef REPORT_GATE_H
#define REPORT_GATE_H

#include <stdbool.h>

#include "compare.h"
#include "filteropt.h"
#include "reader.h"

#define REPORT_GATE_MAX 32

struct report_gate {
	struct vmt_cmp_cond conds[REPORT_GATE_MAX];
	unsigned int n;
	bool left_out[REPORT_GATE_MAX];	/* names a reason the --reason filter leaves out */
	bool known[REPORT_GATE_MAX];	/* names a reason of a recording's table, or all */
	bool refused[REPORT_GATE_MAX];	/* else one --reason refuses (not an unnamed number) */
	char unknown[REPORT_GATE_MAX][320];	/* else why not: "FILE: unknown exit reason..." */
	bool none[REPORT_GATE_MAX];	/* a known reason without exits: checked on none */
	const char *filters;		/* the first filter option given ("--from"), or NULL */
	int verdicts[REPORT_GATE_MAX];
	char details[REPORT_GATE_MAX][256];
	struct vmt_compare one;		/* one recording's figures (report_gate_one) */
	bool one_set;
	bool single;			/* parsed for one recording */
};

/*
 * Parse expr (--fail-if's) into g (zeroed here). compare: for --compare; else for one
 * recording, whose conditions are absolute (a change or the test's figures need two
 * recordings). 0, or the exit status 64 with the line said.
 */
int report_gate_parse(struct report_gate *g, const char *expr, bool compare);
/*
 * Mark the conditions on a reason that fo's --reason leaves out in r, and those whose
 * reason r's table knows (resolved as --reason resolves it; else why not, with r's path).
 */
void report_gate_left_out(struct report_gate *g, const struct vmt_filter_opts *fo,
			  const struct vmt_reader *r);
/*
 * Check every condition against c: the number that hold (a "cannot tell" counts as
 * holding), or -1 when one names a reason no recording's table has, or one --reason
 * leaves out (said, exit 64). A known reason without exits is checked on no exits.
 */
int report_gate_check(struct report_gate *g, const struct vmt_compare *c, const char *reasons);
/* The verdict lines on standard error: "--fail-if holds: ..." for each that holds. */
void report_gate_say(const struct report_gate *g);

/*
 * One recording: the consumer that collects its figures (window_ns: the report's) into
 * g->one, once the conditions' reasons are known in r with fo's filter. Returns 0,
 * -ENOMEM, or -ENOENT (said) for a reason name r's table lacks.
 */
int report_gate_one(struct report_gate *g, const struct vmt_filter_opts *fo,
		    const struct vmt_reader *r, uint64_t window_ns, struct vmt_consumer *out);
/*
 * After its pass: the conditions checked on g->one (the span its rates are over from f,
 * r, it), their verdict lines said. Returns the number that hold, or -1 (said, exit 64).
 */
int report_gate_one_check(struct report_gate *g, const struct vmt_filter_opts *fo,
			  const struct vmt_reader *r, const struct vmt_iter *it);
void report_gate_free(struct report_gate *g);

#endif
