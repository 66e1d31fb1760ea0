// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <signal.h>

#include "procinit.h"

void vmt_proc_init(void)
{
	signal(SIGXFSZ, SIG_IGN);
}
