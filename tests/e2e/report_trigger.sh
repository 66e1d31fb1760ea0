#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What vmtrace-report says of a flight recording's trigger when the file cannot show it:
# - the exit began before the file's pages (tests/data/flight/dropped.vmt: a real
#   recording whose --ring-size was too small): the line says so instead of placing the
#   exit at 0 ns, the JSON has "in_file": false and no at_ns, its latency, pid and CPU
#   are the recorder's own (dropped-record.txt), no exit of the file is that one (a
#   recount of vmtrace-convert --csv), and --around trigger is a one-line error;
# - the file was not finished (the trigger's keys are in END): "unknown", in the text and
#   as "known": false, never "nothing triggered"; --around trigger is a one-line error;
# - in a syscall recording's words: the trigger is a pair, never an exit;
# - several recordings as one (vmtrace-report A B C): a line per flight recording named by
#   its file, and a "triggers" array of the same objects; none for other recordings.
. "$(dirname "$0")/lib.sh"
F="$DATA/flight/dropped.vmt"

# (the line an older recorder printed: "an exit of", now "a pair of" for this syscall pair)
re='.* of \([0-9]*\) ns (pid \([0-9]*\), CPU \([0-9]*\)) triggered.*'
set -- $(sed -n "s/$re/\1 \2 \3/p" "$DATA/flight/dropped-record.txt")
[ $# = 3 ] || fail "the recorder's trigger line"
lat=$1 pid=$2 cpu=$3

run vmtrace-report "$F"
expect_rc 0 "report of dropped.vmt"
line="Triggered by a pair of 1.200 s (task $pid, pCPU $cpu), threshold 1.100 s, that began"
grep -q "^$line before this file's pages" out.txt ||
	{ cat out.txt; fail "the text does not say the trigger began before the file"; }
! grep -q "pair at 0 ns\|see --around trigger" out.txt || fail "the text places the trigger"
run vmtrace-report --json "$F"
expect_rc 0 "report --json of dropped.vmt"
want="[('cpu', $cpu), ('in_file', False), ('known', True), ('latency_ns', $lat), ('pid', $pid),"
want="$want ('threshold_ns', 1100000000)]"
[ "$(json out.txt 'sorted(d["trigger"].items())')" = "$want" ] ||
	fail "trigger object: $(json out.txt 'd["trigger"]')"
vmtrace-convert --csv -o exits.csv "$F" || fail "convert"
python3 - exits.csv "$lat" "$pid" <<'PY' || fail "the trigger is in the file after all"
import csv, sys
lat, pid = int(sys.argv[2]), sys.argv[3]
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows, "no exits"
assert all(int(r["latency_ns"]) < lat for r in rows), max(int(r["latency_ns"]) for r in rows)
PY
run vmtrace-report --around trigger "$F"
expect_one_line_error vmtrace-report \
	"dropped.vmt: --around trigger: the triggering pair began before this file's pages"
[ "$(wc -l <err.txt)" = 1 ] || fail "--around trigger: more than one line"

# Unfinished: the same file without its END block (the last bytes).
size=$(wc -c <"$F")
head -c $((size - 64)) "$F" >unf.vmt
run vmtrace-report unf.vmt
line="Flight recording (threshold 1.100 s): not finished, so which pair triggered it"
grep -q "^$line (if any) is unknown" out.txt ||
	{ cat out.txt err.txt; fail "unfinished: the trigger is not said unknown"; }
! grep -q "nothing triggered" out.txt || fail "unfinished: 'nothing triggered'"
run vmtrace-report --json unf.vmt
want="[('known', False), ('threshold_ns', 1100000000)]"
[ "$(json out.txt 'sorted(d["trigger"].items())')" = "$want" ] ||
	fail "unfinished: trigger object $(json out.txt 'd["trigger"]')"
run vmtrace-report --around trigger unf.vmt
expect_one_line_error vmtrace-report \
	"unf.vmt: --around trigger: the recording was not finished, so its trigger is unknown"

# Several recordings (of one pair, the flight recorder's): each flight recording's trigger as
# when reported alone.
cp "$F" dropped.vmt
run vmtrace-report dropped.vmt "$DATA/small-syscalls.vmt" unf.vmt
[ "$rc" = 0 ] || [ "$rc" = 2 ] || { cat err.txt; fail "merged report exited $rc"; }
sed -n '/^Flight recordings:$/,$p' out.txt >lines.txt
l2="dropped.vmt: Triggered by a pair of 1.200 s (task $pid, pCPU $cpu), threshold 1.100 s,"
l2="$l2 that began before this file's pages:"
l4="unf.vmt: Flight recording (threshold 1.100 s): not finished, so which pair triggered it"
l4="$l4 (if any) is unknown"
[ "$(sed -n 2p lines.txt)" = "$l2" ] && [ "$(sed -n 4p lines.txt)" = "$l4" ] &&
	[ "$(wc -l <lines.txt)" = 4 ] || { cat out.txt; fail "merged: the flight recordings' lines"; }
run vmtrace-report --json dropped.vmt "$DATA/small-syscalls.vmt" unf.vmt
want="[('dropped.vmt', True, False, $lat), ('unf.vmt', False, None, None)]"
[ "$(json out.txt '[(t["file"], t["trigger"]["known"], t["trigger"].get("in_file"),
	t["trigger"].get("latency_ns")) for t in d["triggers"]]')" = "$want" ] ||
	fail "merged JSON triggers: $(json out.txt 'd["triggers"]')"

# No flight recording: --around trigger says so in the recording's words, a pair for the
# syscall pair and an exit for KVM's.
run vmtrace-report --around trigger "$DATA/sample-syscalls.vmt"
expect_rc 1 "--around trigger on a syscall recording that is no flight recording"
expect_one_line_error vmtrace-report "sample-syscalls.vmt: --around trigger: no pair triggered this"
run vmtrace-report --around trigger "$DATA/sample-kvm.vmt"
expect_rc 1 "--around trigger on a KVM recording that is no flight recording"
expect_one_line_error vmtrace-report "sample-kvm.vmt: --around trigger: no exit triggered this"
exit 0
