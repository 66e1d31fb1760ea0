/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timefmt: trace-clock values as text for people: a latency in readable units
 * ("12.3 us", or raw ticks when the clock's rate is unknown) and a time since the
 * recording's start with nanosecond digits ("1.234567890"). Stateless, thread-safe.
 */
#ifndef VMT_TIMEFMT_H
#define VMT_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

#include "tclock.h"

char *vmt_fmt_lat(const struct vmt_clock *c, uint64_t ticks, char *buf, size_t size);
char *vmt_fmt_time(const struct vmt_clock *c, uint64_t start_ts, uint64_t ts, char *buf,
		   size_t size);
/* "ns", or "ticks" when the clock's rate is unknown. */
const char *vmt_fmt_unit(const struct vmt_clock *c);

#endif
