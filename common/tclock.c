// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <string.h>

#include "tclock.h"

bool vmt_clock_is_ns(const char *clock)
{
	static const char *const ns[] = { "local", "global", "perf", "mono", "mono_raw", "boot",
					  "tai", NULL };
	const char *const *p;

	for (p = ns; *p; p++) {
		if (strcmp(clock, *p) == 0)
			return true;
	}
	return false;
}

/*
 * Whether a clock that does not count ns counts a hardware counter at a constant rate, so
 * that a rate measured against CLOCK_MONOTONIC (or trace-cmd's tsc2nsec) turns it into
 * ns. counter is a count of events and uptime is jiffies in USER_HZ: neither is a time at
 * a rate one can measure over a recording, so they stay in ticks.
 */
bool vmt_clock_has_rate(const char *clock)
{
	return strcmp(clock, "x86-tsc") == 0 || strcmp(clock, "ppc-tb") == 0;
}
