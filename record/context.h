/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * context: which context events (scheduler, interrupts, KVM's user-space exits: what
 * explains a long exit) the recorder enables next to its pair. Owns the --context list's
 * grammar and its resolution against this kernel's tracefs: the events that exist, each
 * with its format text and filter, and the defaults the kernel lacks. Main thread; a
 * struct rec_context is filled once and read-only afterwards, until rec_context_free().
 */
#ifndef REC_CONTEXT_H
#define REC_CONTEXT_H

#include <stddef.h>

#include "kv.h"

/* More than any kernel's context events; bounds a hostile or mistyped list. */
#define REC_CONTEXT_MAX 256

struct rec_ctxevent {
	char *name;		/* "sched:sched_switch" */
	const char *filter;	/* its tracefs filter (vmt_ctx_default_events[]), or NULL */
	char *format;		/* events/<system>/<event>/format, verbatim */
	size_t format_len;
};

struct rec_context {
	struct rec_ctxevent *ev;	/* in the order asked for */
	unsigned int n;
	char *missing;		/* defaults this kernel lacks, "a:b,c:d", or NULL */
};

/*
 * Check the syntax of a --context LIST (NULL: the default set). 0, or -EINVAL with why
 * (why_size bytes) saying what is wrong; -ENOMEM.
 */
int rec_context_check(const char *list, char *why, size_t why_size);
/*
 * Resolve list (NULL: the default set) against tracefs at root: every event of the set
 * but the pair's begin and end. A default the kernel lacks goes to c->missing; an event
 * named in the list that the kernel lacks is an error. Returns 0, -ENOENT (why names the
 * event), -EINVAL (syntax, why says what), -ENOMEM or the -errno of reading a format.
 */
int rec_context_resolve(struct rec_context *c, const char *list, const char *root,
			const char *begin, const char *end, char *why, size_t why_size);
/* rec_context_resolve(), printing its error (one line). */
int rec_context_setup(struct rec_context *c, const char *list, const char *root,
		      const char *begin, const char *end);
/*
 * The defaults this kernel lacks, when some are missing: a note, said once the output is
 * open, so that an error before it (a bad output path) is the only line.
 */
void rec_context_say_missing(const struct rec_context *c);
void rec_context_free(struct rec_context *c);

/*
 * The metadata keys (metakeys.h, vmtrace-file(5)): context.events and each event's
 * format.ctx.<name> (and filter.ctx.<name>) when any is enabled, context.missing when a
 * default is missing. Nothing for an empty set without missing ones.
 */
void rec_context_meta(const struct rec_context *c, struct vmt_kvbuf *kb);

#endif
