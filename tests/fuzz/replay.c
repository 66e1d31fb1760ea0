// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Runs a fuzz target's LLVMFuzzerTestOneInput on files, without libFuzzer, so make check
 * replays every crash ever found (tests/data/bad/) and the seed corpora with gcc builds
 * and sanitizers. Usage: replay_<target> FILE...
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		char *buf;
		size_t len;

		if (vmt_io_read_file(argv[i], 64u << 20, &buf, &len)) {
			fprintf(stderr, "replay: %s: cannot read\n", argv[i]);
			return 1;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
		free(buf);
	}
	printf("replayed %d inputs\n", argc - 1);
	return 0;
}
