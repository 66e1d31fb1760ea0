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
