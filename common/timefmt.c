// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "timefmt.h"

char *vmt_fmt_lat(const struct vmt_clock *c, uint64_t ticks, char *buf, size_t size)
{
	if (!vmt_clock_in_ns(c)) {
		snprintf(buf, size, "%" PRIu64 " ticks", ticks);
		return buf;
	}
	return vmt_format_ns(vmt_clock_ns(c, ticks), buf, size);
}

char *vmt_fmt_time(const struct vmt_clock *c, uint64_t start_ts, uint64_t ts, char *buf,
		   size_t size)
{
	uint64_t ns = vmt_clock_ns(c, ts > start_ts ? ts - start_ts : 0);

	snprintf(buf, size, "%" PRIu64 ".%09" PRIu64, ns / UINT64_C(1000000000),
		 ns % UINT64_C(1000000000));
	return buf;
}

const char *vmt_fmt_unit(const struct vmt_clock *c)
{
	return vmt_clock_in_ns(c) ? "ns" : "ticks";
}
