#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The committed x86-64 system call table (common/syscall_table.h) against the kernel's
# own numbers in the installed headers: every number the headers have, under the same
# name, and nothing else. Regenerate with scripts/gen-syscall-table.sh when this fails.
. "$(dirname "$0")/lib.sh"
hdr=/usr/include/x86_64-linux-gnu/asm/unistd_64.h
[ -r "$hdr" ] || skip "no $hdr (linux-libc-dev for x86-64)"
sed -n 's/^#define __NR_\([a-z0-9_]*\)[ \t][ \t]*\([0-9][0-9]*\)$/\2 \1/p' "$hdr" | sort -n >kernel.txt
[ -s kernel.txt ] || fail "no system call numbers read from $hdr"
sed -n 's/^\tX(\([0-9]*\), "\([a-z0-9_]*\)") \\$/\1 \2/p' "$top_srcdir/common/syscall_table.h" \
	>table.txt
diff -u kernel.txt table.txt || fail "common/syscall_table.h differs from $hdr"
# A number the header names, looked up the way a report does (a recording's id field).
[ "$(grep -c '' table.txt)" -gt 300 ] || fail "only $(grep -c '' table.txt) system calls"
finish
