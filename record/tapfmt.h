/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tapfmt: what a pass over the recording's own pages needs from its META block, for the
 * tap (tap.h) while the file is being written: the pair's formats bound together, the
 * context events' formats (the live view names tasks by them), kernel.machine (it names
 * a system call pair's ids).
 */
#ifndef REC_TAPFMT_H
#define REC_TAPFMT_H

#include <stddef.h>
#include <stdint.h>

#include "evformat.h"
#include "iterate.h"
#include "kvmevent.h"

struct rec_tapfmt {
	struct vmt_evformat *fbegin, *fend;
	struct vmt_evbind bind;
	struct vmt_evformat **ctx;	/* none with --context none */
	unsigned int nctx;
	char *machine;			/* or NULL */
};

/*
 * Parse them from meta and point in's bind, begin format, machine and context formats at
 * them. Returns 0, -EINVAL (the pair's formats missing or unusable) or -ENOMEM; f is to
 * be freed either way.
 */
int rec_tapfmt_load(struct rec_tapfmt *f, const uint8_t *meta, size_t len,
		    struct vmt_pass_input *in);
void rec_tapfmt_free(struct rec_tapfmt *f);

#endif
