#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The report's lists (--threshold, --around) go through a temporary file in $TMPDIR
# (report/lists.c): one that cannot be made or fills up is an error (exit 1, one line naming
# the directory), never a list cut short or a JSON cut in two with exit 0 (the review: a 4k
# /tmp gave "Exits of at least 950.0 us: 51" over 46 rows, and invalid JSON, both exit 0).
. "$(dirname "$0")/lib.sh"
F="$DATA/formats/linux-6.18-x86_64"

# 1000 exits of 1..1000 us: 51 of at least 950 us, 31 of at least 970 us
python3 - >p.txt <<'PY'
print("cpus 0")
ts = 1000
for k in range(1, 1001):
    print(f"exit 0 {ts} 100 0x72 0")
    ts += k * 1000
    print(f"entry 0 {ts} 100 0")
    ts += 500
PY
"$HELPERS/mkvmt" "$F" p1000.vmt <p.txt || fail mkvmt

# the whole lists, in a $TMPDIR of our own
mkdir own
TMPDIR="$scratch/own" run vmtrace-report --threshold 950us p1000.vmt
expect_rc 0 "--threshold"
grep -q "^Exits of at least 950.0 us: 51$" out.txt || fail "--threshold: not 51 exits"
[ "$(sed -n '/^Exits of at least/,$p' out.txt | grep -c ' cpuid(0x72) ')" = 51 ] ||
	fail "--threshold: not 51 rows"
TMPDIR="$scratch/own" run vmtrace-report --json --threshold 970us p1000.vmt
expect_rc 0 "--json --threshold"
python3 -c 'import json, sys
d = json.load(open("out.txt"))
assert d["over_threshold_count"] == 31 and len(d["over_threshold"]) == 31, d["over_threshold_count"]
assert sorted(e["latency_ns"] for e in d["over_threshold"]) == [k * 1000 for k in range(970, 1001)]
' || fail "--json --threshold: not the 31 exits"
[ -z "$(ls -A own)" ] || fail "a list's temporary file left in TMPDIR"

# a TMPDIR that is not there: the directory named
TMPDIR="$scratch/none" run vmtrace-report --threshold 950us p1000.vmt
expect_rc 1 "a missing TMPDIR"
expect_one_line_error vmtrace-report "cannot make a temporary file in $scratch/none for the exits over --threshold: No such file"
[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt; fail "a missing TMPDIR: not one line"; }

# a TMPDIR of 4 KiB: filled at the end (the rows' last flush), in the middle of the pass
# (10us: 991 rows), by the JSON arrays, by the events --around
mkdir tiny
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	unshare -m sh -c 'mount -t tmpfs -o size=4k tmpfs "$1"' sh "$scratch/tiny" 2>/dev/null; then
	n=0
	for args in "--threshold 950us" "--threshold 10us" "--json --threshold 970us" \
		"--json --threshold 10us" "--around 250ms,100ms" "--json --around 250ms,100ms"; do
		n=$((n + 1))
		# shellcheck disable=SC2086 # the options are words
		unshare -m sh -c 'mount -t tmpfs -o size=4k tmpfs "$1" && d=$1 && shift &&
			TMPDIR="$d" vmtrace-report "$@" >out.txt 2>err.txt; echo $? >rc.txt' \
			sh "$scratch/tiny" $args p1000.vmt
		rc=$(cat rc.txt)
		expect_rc 1 "a full TMPDIR ($args)"
		case $args in *around*) what="the events --around" ;; *) what="the exits over --threshold" ;; esac
		expect_one_line_error vmtrace-report "$scratch/tiny: cannot write $what to a temporary file: No space left on device (set TMPDIR)"
		[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt; fail "a full TMPDIR ($args): not one line"; }
	done
else
	skip_part "no root or mount namespace: a full TMPDIR"
fi
finish
