#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Generated recordings with answers computed by hand: latencies, windows that straddle
# events, lost-event gaps, orphans, zero-ns pairs, no pairs, several CPUs and layouts.
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"

gen() {	# gen NAME FORMAT_DIR < script
	"$HELPERS/mkvmt" "$2" "$1.vmt" || fail "mkvmt $1"
	run vmtrace-report --json "$1.vmt"
	mv out.txt "$1.json"
	python3 -m json.tool "$1.json" >/dev/null || fail "$1: JSON does not parse"
}

check() {	# check NAME EXPR: the Python expression must be True for d
	[ "$(json "$1.json" "$2")" = True ] || { cat "$1.json"; fail "$1: $2"; }
}

# Two exits on one CPU: 100 ns and 300 ns; window of both fits in 1 ms.
gen simple "$F618" <<'S'
cpus 0
exit 0 1000 7 0x72 0
entry 0 1100 7 0
exit 0 5000 7 0x7b 0
entry 0 5300 7 0
S
expect_rc 0 simple
check simple 'd["events"] == 4 and d["pairs"] == 2 and d["orphans"] == 0'
check simple 'd["latency_ns"] == {"min": 100, "avg": 200, "max": 300}'
check simple 'd["max_window_sum_ns"] == 400 and d["total_ns"] == 400'
check simple 'd["cpus"] == [0] and d["lost_events"] == 0 and d["finished"] is True'
check simple 'd["vcpus"][0]["vcpu"] == 0 and d["vcpus"][0]["pairs"] == 2'

# Exits of 600 us at t=0 and 500 us at t=1.2 ms: no 1 ms window holds parts of both
# (the gap is 600 us), so the best is the longer exit alone.
gen straddle "$F618" <<'S'
exit 0 0 9 0x400 1
entry 0 600000 9 1
exit 0 1200000 9 0x400 1
entry 0 1700000 9 1
S
check straddle 'd["max_window_sum_ns"] == 600000'
# Exits [0, 800us] and [850us, 1150us]: every best window cuts one of them. [150us, 1150us)
# holds 650 + 300 us, [0, 1000us) holds 800 + 150 us: 950 us, the window less the 50 us gap.
gen cut "$F618" <<'S'
exit 0 0 9 0x400 1
entry 0 800000 9 1
exit 0 850000 9 0x400 1
entry 0 1150000 9 1
S
check cut 'd["max_window_sum_ns"] == 950000'
run vmtrace-report --json --window 2ms cut.vmt
mv out.txt cut2.json
check cut2 'd["max_window_sum_ns"] == 1100000 and d["window_ns"] == 2000000'
# A single exit longer than the window counts the window only.
gen long "$F618" <<'S'
exit 0 0 9 0x78 1
entry 0 5000000 9 1
S
check long 'd["max_window_sum_ns"] == 1000000 and d["latency_ns"]["max"] == 5000000'

# Zero-ns pairs (the global clock can stamp exit and entry alike) and no pairs at all.
gen zero "$F618" <<'S'
exit 0 100 3 0x72 0
entry 0 100 3 0
S
check zero 'd["pairs"] == 1 and d["latency_ns"]["max"] == 0 and d["max_window_sum_ns"] == 0'
gen nopairs "$F618" <<'S'
exit 0 100 3 0x72 0
exit 0 200 3 0x72 0
entry 1 300 4 0
S
check nopairs 'd["pairs"] == 0 and d["latency_ns"]["avg"] is None'
check nopairs 'd["orphan_exits"] == 1 and d["open_at_stop"] == 1 and d["orphan_entries"] == 1'
check nopairs 'd["orphans"] == 3'
run vmtrace-report nopairs.vmt
grep -q "No exit-entry pairs" out.txt || fail "text report without pairs"

# A lost-events gap on CPU 0 between an exit and its entry: never paired across it; the
# page's stored count and the per-CPU stats are both reported.
gen gap "$F618" <<'S'
cpus 0,1
stats 0 0 40
exit 0 1000 5 0x72 0
entry 0 1100 5 0
exit 0 2000 5 0x72 0
page 0 missed 40
entry 0 9000 5 0
exit 0 9500 5 0x72 0
entry 0 9600 5 0
exit 1 3000 6 0x72 1
entry 1 3200 6 1
S
check gap 'd["pairs"] == 3 and d["gap_dropped"] == 1'
check gap 'd["lost_events"] == 40 and d["lost_events_pages"] == 40 and d["missed_pages"] == 1'
check gap 'd["lost_events_stats"] == 40 and d["latency_ns"]["max"] == 200'
run vmtrace-report gap.vmt
grep -q "^Lost events = 40" out.txt || fail "text report: lost events"
unfold err.txt | grep -q "events were lost" || fail "no lost-events warning"

# A final drain cut short by a second signal (END: drain aborted): the entries of the end
# stats, 25 on CPU 0 and 4 on CPU 1, never reached the file: lost, exactly, besides the
# 10 overwritten on CPU 1; the exit whose entry stayed in the buffer is open at the stop.
unread_script() {
	cat <<S
cpus 0,1
stats 0 0 0 25
stats 1 0 10 4
$1
exit 0 1000 5 0x72 0
entry 0 1100 5 0
exit 0 2000 5 0x72 0
exit 1 3000 6 0x72 1
entry 1 3200 6 1
S
}
unread_script "endmeta drain aborted" | gen unread "$F618"
check unread 'd["lost_events"] == 39 and d["lost_events_unread"] == 29 and d["lost_events_exact"]'
check unread 'd["lost_events_stats"] == 10 and d["drain_cut"] and d["open_at_stop"] == 1'
unfold err.txt | grep -qx "vmtrace-report: warning: unread.vmt: 39 events were lost, 29 of them unread (the drain was cut short); figures may be incomplete" ||
	{ cat err.txt; fail "unread: the warning"; }
run vmtrace-report unread.vmt
grep -q "^Lost events = 39 (29 unread: drain cut short; up to 20 exits may be missing; " out.txt ||
	{ cat out.txt; fail "unread: the text report"; }
# a copy keeps them; a copy of CPU 1 only, CPU 1's
vmtrace-convert --to-vmt -o unread-copy.vmt unread.vmt 2>/dev/null || fail "unread: --to-vmt"
vmtrace-convert --to-vmt --cpu 1 -o unread-1.vmt unread.vmt 2>/dev/null || fail "unread: --cpu 1"
run vmtrace-report --json unread-copy.vmt
mv out.txt unread-copy.json
check unread-copy 'd["lost_events"] == 39 and d["lost_events_unread"] == 29'
run vmtrace-report --json unread-1.vmt
mv out.txt unread-1.json
check unread-1 'd["lost_events"] == 14 and d["lost_events_unread"] == 4'
# a complete drain that still left some (more than its rounds read): lost all the same
unread_script "endmeta drain complete" | gen complete "$F618"
check complete 'd["lost_events_unread"] == 29 and not d["drain_cut"]'
unfold err.txt | grep -q "29 of them unread (left at the stop)" || { cat err.txt; fail "complete: warning"; }
# no drain key (earlier recorders, a --continue file closed while reading went on): the
# entries are still to be read, not lost
unread_script "" | gen nodrain "$F618"
check nodrain 'd["lost_events"] == 10 and d["lost_events_unread"] is None and not d["drain_cut"]'
# a drain cut short without end statistics: how many it left is not known
printf 'cpus 0\nendmeta drain aborted\nexit 0 1000 5 0x72 0\nentry 0 1100 5 0\n' |
	gen nostats "$F618"
check nostats 'not d["lost_events_exact"] and d["lost_events_unread"] is None'
unfold err.txt | grep -q "how many is not known" || { cat err.txt; fail "nostats: no warning"; }

# A --from/--to window counts the losses that can lie inside it. Unread events came after
# their CPU's last record read (CPU 0's at 2400 ns, CPU 1's at 3200 ns): a --to before
# that leaves that CPU's out. The statistics' count beyond the flagged page's (10 - 7) has
# no time: kept, and said. Recounted here from the script, --to counted from the first
# page (1000 ns).
{ unread_script "endmeta drain aborted"; echo "page 0 missed 7"; echo "exit 0 2400 5 0x72 0"; } |
	sed '/^exit 0 2000/d' >win.txt
"$HELPERS/mkvmt" "$F618" win.vmt <win.txt || fail "mkvmt win"
recount() {	# recount SCRIPT TO_NS: "lost kept_unknown left_out" as the window must count them
	python3 - "$1" "$2" <<'EOF2'
import sys
stats, entries, last, pages = 0, {}, {}, 0
for w in (l.split() for l in open(sys.argv[1])):
    if w and w[0] == "stats":
        stats += int(w[3]) - int(w[2]); entries[int(w[1])] = int(w[4])
    elif w and w[0] in ("exit", "entry"):
        last[int(w[1])] = max(last.get(int(w[1]), 0), int(w[2]))
    elif w and w[0] == "page" and len(w) > 3 and w[2] == "missed":
        pages += int(w[3])
start = min(int(w[2]) for w in (l.split() for l in open(sys.argv[1])) if w and w[0] in ("exit", "entry"))
to = start + int(sys.argv[2]) if sys.argv[2] != "-" else None
kept = sum(n for c, n in entries.items() if to is None or last[c] <= to)
print(max(stats, pages) + kept, kept + max(stats - pages, 0), sum(entries.values()) - kept)
EOF2
}
for to in 500 1500 2200 5000 -; do
	set -- $(recount win.txt $to)
	if [ $to = - ]; then
		run vmtrace-report --json --from=0 win.vmt
	else
		run vmtrace-report --json --to=${to}ns win.vmt
	fi
	expect_rc 0 "window $to"
	mv out.txt win$to.json
	check win$to "d['lost_events'] == $1 and d['lost_events_unknown_time_kept'] == $2 and \
d['lost_events_left_out'] == $3 and d['lost_events_unread'] == $1 - 10 and d['lost_events_exact']"
	check win$to "d['exits_maybe_missing'] == ($1 + 1) // 2"
done
# the sums the recount gave: --to=500ns (1500 ns) leaves all 29 unread out, --to=1500ns
# (2500 ns) CPU 1's 4, --to=2200ns (3200 ns, CPU 1's last record) none
check win500 'd["lost_events"] == 10 and d["lost_events_left_out"] == 29'
check win1500 'd["lost_events"] == 35 and d["lost_events_left_out"] == 4'
check win2200 'd["lost_events"] == 39 and d["lost_events_left_out"] == 0'
# without a window: every loss, nothing said of kept or left out
run vmtrace-report --json win.vmt
mv out.txt winall.json
check winall 'd["lost_events"] == 39 and d["lost_events_unknown_time_kept"] is None'
check winall 'd["lost_events_left_out"] is None'
run vmtrace-report --to=1500ns win.vmt
grep -qx "Lost events = 35 (25 unread: drain cut short; up to 18 exits may be missing; pairs never span a gap)" out.txt &&
	grep -qx "  (in the window: 4 unread after its end left out, 28 lost at unknown times kept)" out.txt ||
	{ cat out.txt; fail "window: the text's lost events"; }
widths_ok out.txt || fail "window: lines over 120 columns"
run vmtrace-report --to=500ns win.vmt
grep -qx "  (in the window: 29 unread after its end left out, 3 lost at unknown times kept)" out.txt ||
	{ cat out.txt; fail "window 500 ns: the text's lost events"; }
run vmtrace-report win.vmt
grep -q "in the window" out.txt && fail "no window: the window's line"
# every unread left out and nothing else lost: 0, saying what was left out
printf 'cpus 0\nstats 0 0 0 6\nendmeta drain aborted\nexit 0 1000 5 0x72 0\nentry 0 1100 5 0\nexit 0 9000 5 0x72 0\nentry 0 9100 5 0\n' |
	"$HELPERS/mkvmt" "$F618" win0.vmt || fail "mkvmt win0"
run vmtrace-report --to=1us win0.vmt
grep -qx "Lost events = 0" out.txt && grep -qx "  (in the window: 6 unread after its end left out)" out.txt ||
	{ cat out.txt; fail "win0: text"; }

# A task migrating from CPU 0 to CPU 1 between exit and entry, merged by timestamp, and
# records of other events in between.
gen migrate "$F618" <<'S'
exit 0 1000 5 0x72 0
other 0 1500
other 1 1600
entry 1 2500 5 0
S
check migrate 'd["pairs"] == 1 and d["latency_ns"]["max"] == 1500 and d["other_records"] == 2'

# Older and other layouts: 2015 PREEMPT_RT (exit_reason at 16), Linux 6.1, arm64.
for l in rt-2015-x86_64 linux-6.1-x86_64 arm64; do
	gen "$l" "$DATA/formats/$l" <<'S'
exit 0 1000 11 0x1 0
entry 0 1250 11 0
S
	check "$l" 'd["pairs"] == 1 and d["latency_ns"]["max"] == 250'
done

# Many pages, many chunks, several CPUs: counts add up exactly.
"$HELPERS/mkvmt" --random 200000 3 "$F618" big.vmt || fail "mkvmt --random"
run vmtrace-report --json big.vmt
mv out.txt big.json
check big 'd["pairs"] == 200000 and d["events"] == 400000 and d["orphans"] == 0'
check big 'd["chunks"] > 10 and d["bad_pages"] == 0 and len(d["vcpus"]) == 3'
# Decompression threads change nothing but the speed.
VMTRACE_NO_THREADS=1 vmtrace-report --json big.vmt >single.json
cmp -s big.json single.json || fail "threaded and single-threaded reports differ"
# Nor do they for conversions: the same bytes, in the same order.
for m in "--csv" "--csv --events" "--jsonl"; do
	vmtrace-convert $m big.vmt >threaded.out || fail "convert $m"
	VMTRACE_NO_THREADS=1 vmtrace-convert $m big.vmt >single.out || fail "convert $m, one thread"
	cmp -s threaded.out single.out || fail "convert $m: threaded and single-threaded differ"
	[ "$(wc -l <threaded.out)" -ge 200000 ] || fail "convert $m: rows missing"
done

# A large file shows a progress line on a terminal's stderr, and only there.
if command -v script >/dev/null; then
	"$HELPERS/mkvmt" --random 2500000 1 "$F618" large.vmt || fail "mkvmt large"
	script -qec "vmtrace-report --legacy large.vmt" /dev/null >tty.txt 2>&1 ||
		fail "report on a terminal"
	tr '\r' '\n' <tty.txt | grep -q "large.vmt: *[0-9]*% ([0-9]* of [0-9]* chunks)" ||
		fail "no progress line on a terminal"
	vmtrace-report --legacy large.vmt >plain.txt 2>plain.err || fail "report to a file"
	[ ! -s plain.err ] || fail "progress printed when stderr is not a terminal"
else
	skip_part "the progress line on a terminal (no script(1))"
fi

# An unfinished recording: its chunks are reported, with a warning and exit status 2.
gen unfinished "$F618" <<'S'
exit 0 1000 7 0x72 0
entry 0 1100 7 0
unfinished
S
[ "$rc" = 2 ] || fail "unfinished recording: exit $rc, expected 2"
check unfinished 'd["pairs"] == 1 and d["finished"] is False'
unfold err.txt | grep -q "not finished" || fail "no warning for an unfinished recording"
finish
