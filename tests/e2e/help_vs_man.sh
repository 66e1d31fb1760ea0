#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every long option that --help lists is documented in the program's man page.
. "$(dirname "$0")/lib.sh"

for p in vmtrace-record vmtrace-report vmtrace-convert; do
	man="$top_srcdir/man/$p.1"
	[ -s "$man" ] || fail "$man is missing"
	$p --help | grep -o -- '--[a-z][a-z-]*' | sort -u >opts.txt
	[ -s opts.txt ] || fail "$p --help lists no options"
	while read -r opt; do
		# groff escapes dashes: --cpu is written \-\-cpu
		esc=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
		grep -q -- "$esc" "$man" || fail "$p: $opt is in --help but not in $man"
	done <opts.txt
done
exit 0
