#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A .vmt whose blocks are sound (their checksums fixed) but whose chunk headers, chunk
# order or end record contradict the file: each is read as damage (a warning that names
# the file and the problem, exit status 2), and the figures are those of what is left,
# counted here from the pages themselves (tests/helpers/vmtedit.py decodes them).
. "$(dirname "$0")/lib.sh"

edit="python3 $top_srcdir/tests/helpers/vmtedit.py"
"$HELPERS/mkvmt" --chunk-pages 4 --context --random 20000 4 "$DATA/formats/linux-6.1-kvmhost" \
	r.vmt || fail mkvmt
$edit r.vmt records >records.txt || fail "vmtedit records"
total=$(awk '{ n += $3 } END { print n }' records.txt)
[ "$total" = 40000 ] || fail "the pages hold $total pair events, not 40000"

# events (the JSON's count) of FILE, reported with exit status 2 and a one-line warning
# that names the file and contains PATTERN
damaged() {
	run vmtrace-report --json "$1"
	expect_rc 2 "$1"
	grep -q "^vmtrace-report: warning: $1: .*$2" err.txt || { cat err.txt; fail "$1: no '$2'"; }
	python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])' <out.txt
}

# 1. A chunk of a CPU that cpus.traced (0-3) does not list is skipped as damage, whatever
# its number; so is one whose CPU differs from the end record's chunk index.
n5=$(awk '$1 == 5 { print $3 }' records.txt)
cpu5=$(awk '$1 == 5 { print $2 }' records.txt)
other=$(( (cpu5 + 1) % 4 ))
for cpu in 7 65535 1048575; do
	$edit r.vmt cpu$cpu.vmt chunk:5:cpu=$cpu || fail vmtedit
	got=$(damaged cpu$cpu.vmt "a chunk of CPU $cpu, which the recording did not trace") || exit 1
	[ "$got" = $((total - n5)) ] || fail "CPU $cpu: $got events, expected $((total - n5))"
	run vmtrace-report cpu$cpu.vmt
	grep -q "^  $cpu " out.txt && fail "CPU $cpu is in the per-pCPU table"
done
$edit r.vmt index.vmt chunk:5:cpu=$other || fail vmtedit
got=$(damaged index.vmt "differs from the end record's index") || exit 1
[ "$got" = $((total - n5)) ] || fail "index: $got events, expected $((total - n5))"

finish
