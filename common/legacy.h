/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * legacy: the metadata a trace.bin of the original vm-trace lacks. Its header only names
 * the two event ids, so the formats come from (in order) a directory laid out like
 * tracefs's events/ (--format-dir), this host's tracefs when its ids match the header's,
 * or the original tool's own target layout (a 2015 PREEMPT_RT kernel, exit_reason at 16).
 * Stateless; returns 0 or -errno with *why set.
 */
#ifndef VMT_LEGACY_H
#define VMT_LEGACY_H

#include "container.h"
#include "kv.h"

/*
 * Fill kb with the metadata keys the reader needs for c (a legacy container).
 * *source describes where the formats came from, for the report to say.
 */
int vmt_legacy_meta(const struct vmt_container *c, const char *format_dir, struct vmt_kvbuf *kb,
		    char *source, size_t source_size, const char **why);

#endif
