#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A recording cut at many offsets reads back its complete chunks with a warning (exit 2),
# or fails with one clear line when the cut is inside the metadata; never a crash.
. "$(dirname "$0")/lib.sh"

src="$DATA/sample-syscalls.vmt"
size=$(stat -c %s "$src")
full=$(vmtrace-report --json "$src" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
prev=0
step=$((size / 97 + 1))
off=0
while [ "$off" -lt "$size" ]; do
	head -c "$off" "$src" >cut.vmt
	run vmtrace-report --json cut.vmt
	case $rc in
	1)	grep -q "^vmtrace-report: cut.vmt: " err.txt || fail "cut at $off: no error line"
		[ "$(wc -l <err.txt)" = 1 ] || fail "cut at $off: more than one error line" ;;
	2)	grep -q "not finished" err.txt || fail "cut at $off: no warning"
		n=$(json out.txt 'd["events"]')
		[ "$n" -ge "$prev" ] || fail "cut at $off: fewer events ($n) than a shorter cut ($prev)"
		[ "$n" -le "$full" ] || fail "cut at $off: more events than the whole file"
		prev=$n ;;
	*)	cat err.txt; fail "cut at $off: exit $rc" ;;
	esac
	off=$((off + step))
done
[ "$prev" -gt 0 ] || fail "no cut read back any events"

# Flipped bytes across the whole file: a clean outcome every time.
i=0
while [ $i -lt 60 ]; do
	off=$(( (i * 7919 * 13) % size ))
	cp "$src" flip.vmt
	printf '\377' | dd of=flip.vmt bs=1 seek="$off" conv=notrunc status=none
	run vmtrace-report flip.vmt
	case $rc in
	0|1|2) ;;
	*) fail "byte flip at $off: exit $rc" ;;
	esac
	i=$((i + 1))
done
exit 0
