#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Tick mode from files built with known contents: an x86-tsc recording without its end
# (so without its measured rate) and a counter recording of an earlier recorder (which
# stored an invented rate, clock.ns_per_tick). Their ticks have no known length: every
# time and duration must be in ticks and say so, never ticks / 1e9 under "s" or a rate
# made up from the recording's duration. The values are worked out by hand from the script.
. "$(dirname "$0")/lib.sh"

FMT="$DATA/formats/linux-6.18-x86_64"

# Two exits of task 100: 1000000 ticks at tick 13780619 (the first event: tick 0 of the
# report) and 500 ticks at 20000000, 6219381 ticks later.
cat >tsc.txt <<'EOF'
clock x86-tsc
cpus 0
page 0
exit 0 13780619 100 30 0
entry 0 14780619 100 0
exit 0 20000000 100 12 0
entry 0 20000500 100 0
unfinished
EOF
"$HELPERS/mkvmt" "$FMT" tsc.vmt <tsc.txt || fail mkvmt

# No figure of a tick file may carry a time unit; only "recorded" (the recorder's
# CLOCK_MONOTONIC) is a time, and an unfinished file has none.
no_time_units() {
	if grep -v '^Duration: .* recorded' "$1" | grep -En '[0-9] (ns|us|ms|s)([^a-z]|$)| \((ns|us|ms|s)\)'
	then
		fail "$2: a tick figure with a time unit"
	fi
}

run vmtrace-report tsc.vmt
expect_rc 2 "unfinished x86-tsc file"
no_time_units out.txt "x86-tsc without its end"
widths_ok out.txt || fail "x86-tsc without its end: lines over 120 columns"
grep -q "clock x86-tsc (ticks)" out.txt || fail "the clock line does not say ticks"
# the default window (1 ms) is 1000000 ticks, said so, and when it starts is a tick count
grep -qx "Maximum cumulative latency within 1000000 ticks = 1000000 ticks (task 100, window starting at 0 ticks)" \
	out.txt || { cat out.txt; fail "window line"; }
grep -q "^  (clock x86-tsc: the length of its ticks is not known, so the window is --window's" out.txt ||
	fail "the window's meaning in ticks is not said"
grep -qx "Percentiles in ticks: p50 500 p90 1000000 p99 1000000 p99.9 1000000 p99.99 1000000; stddev 706753" \
	out.txt || { cat out.txt; fail "percentile line"; }
# the longest exits: their time since the start in ticks under a ticks title
awk '/^Longest exits:/ { on = 1; next } on' out.txt >longest.txt
head -1 longest.txt | grep -q "time (ticks)" || { cat longest.txt; fail "longest list's title"; }
awk 'NR > 1 { print $1, $6, $7 }' longest.txt >got.txt
printf '0 1000000 ticks\n6219381 500 ticks\n' | diff - got.txt || fail "longest list's times"
grep -Eq "^  0 \(100\) +[0-9.]+% +1000000 ticks +0 ticks$" out.txt ||
	{ cat out.txt; fail "per-task window row"; }

# a window given: its number of ns taken as ticks (7000000 ticks reach both exits)
run vmtrace-report --window=7ms tsc.vmt
grep -q "within 7000000 ticks = 1000500 ticks" out.txt || { cat out.txt; fail "--window=7ms"; }

# the other options in time units: their number taken as ticks, said so; the histogram too
run vmtrace-report --threshold=600ns --histogram tsc.vmt
no_time_units out.txt "--threshold, --histogram"
widths_ok out.txt || fail "--threshold, --histogram: lines over 120 columns"
grep -qx "Exits of at least 600 ticks: 1" out.txt || { cat out.txt; fail "--threshold in ticks"; }
grep -Eq "^0 ticks +1 +1 #+$" out.txt || { cat out.txt; fail "histogram rows in ticks"; }

# -v: each line's time is "N ticks"
run vmtrace-report -v tsc.vmt
head -n 4 out.txt | awk '{ print $1, $2 }' >got.txt
printf '0 ticks\n1000000 ticks\n6219381 ticks\n6219881 ticks\n' | diff - got.txt ||
	fail "-v times"
no_time_units out.txt "-v"

# JSON: unit ticks, and the _ns keys hold the ticks
run vmtrace-report --json tsc.vmt
[ "$(json out.txt 'd["unit"]')" = ticks ] || fail "JSON unit"
[ "$(json out.txt '[(t["time_ns"], t["latency_ns"]) for t in d["top"]]')" = \
	"[(0, 1000000), (6219381, 500)]" ] || fail "JSON top"
[ "$(json out.txt '(d["window_ns"], d["max_window_sum_ns"], d["max_window_start_ns"])')" = \
	"(1000000, 1000000, 0)" ] || fail "JSON window"
# -v takes no --json (the man page says so); the events of --around in JSON say their unit
run vmtrace-report -v --json tsc.vmt
expect_rc 64 "-v --json"
expect_one_line_error vmtrace-report "--json, --legacy and --verbose exclude each other"
run vmtrace-report --json --around 0,7000000 tsc.vmt
python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["around"]
got = [(e["unit"], e["time_ns"], e["kind"]) for e in ev]
want = [("ticks", 0, "exit"), ("ticks", 1000000, "entry"), ("ticks", 6219381, "exit"),
        ("ticks", 6219881, "entry")]
sys.exit(0 if got == want else "--around --json events: %r" % got)' out.txt ||
	fail "--around --json unit"

# CSV: the columns name their unit; JSON lines keep their keys and say the unit
run vmtrace-convert --csv -o - tsc.vmt
head -1 out.txt | grep -q "^start_ticks,start_ts_ticks,.*,latency_ticks," ||
	{ head -1 out.txt; fail "CSV header in tick mode"; }
head -1 out.txt | grep -q "_ns" && fail "CSV header: an _ns column holds ticks"
python3 -c '
import csv, sys
rows = [(int(r["start_ticks"]), int(r["latency_ticks"])) for r in csv.DictReader(open(sys.argv[1]))]
sys.exit(0 if rows == [(0, 1000000), (6219381, 500)] else "CSV rows: %r" % rows)' out.txt ||
	fail "CSV values"
run vmtrace-convert --events --csv -o - tsc.vmt
head -1 out.txt | grep -q "^time_ticks,ts_ticks,.*latency_ticks" || fail "events CSV header"
run vmtrace-convert --jsonl -o - tsc.vmt
python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ok = [(r["unit"], r["start_ns"], r["latency_ns"]) for r in rows] == \
    [("ticks", 0, 1000000), ("ticks", 6219381, 500)]
sys.exit(0 if ok else "JSON lines: %r" % rows)' out.txt || fail "JSON lines"

# Outputs in seconds or ns by their format refuse ticks rather than pass them off as ns
for args in "--openmetrics=-" "--html=t.html" "--interval=1ms" "--legacy"; do
	run vmtrace-report $args tsc.vmt
	expect_one_line_error vmtrace-report "tsc.vmt: --[a-z]* needs times in ns; clock x86-tsc counts ticks"
	[ "$rc" = 64 ] || fail "$args on a tick file: exit $rc, not 64"
	[ ! -s out.txt ] && [ ! -e t.html ] || fail "$args on a tick file: output written"
done
cp tsc.vmt tsc2.vmt
for args in "" "--compare"; do
	run vmtrace-report $args tsc.vmt tsc2.vmt
	expect_one_line_error vmtrace-report "tsc.vmt: several recordings need times in ns; clock x86-tsc"
	[ "$rc" = 64 ] || fail "${args:-merge} of tick files: exit $rc, not 64"
done
for args in "--perfetto" "--series --csv"; do
	run vmtrace-convert $args -o conv.out tsc.vmt
	expect_one_line_error vmtrace-convert "tsc.vmt: --[a-z]* needs times in ns; clock x86-tsc counts ticks"
	[ "$rc" = 64 ] || fail "convert $args on a tick file: exit $rc, not 64"
	[ ! -e conv.out ] || fail "convert $args on a tick file: output left"
done

# An earlier recorder's counter file: clock.ns_per_tick was its duration over its ticks,
# no rate of a counter of events. It must not turn the ticks into ns.
cat >oldc.txt <<'EOF'
clock counter
cpus 0
page 0
exit 0 100 100 30 0
entry 0 103 100 0
exit 0 200 100 30 0
entry 0 207 100 0
endmeta clock.ns_per_tick 8.5
EOF
"$HELPERS/mkvmt" "$FMT" oldc.vmt <oldc.txt || fail "mkvmt counter"
run vmtrace-report oldc.vmt
expect_rc 0 "counter file with a stored rate"
no_time_units out.txt "counter file with a stored rate"
grep -qx "Minimum VM Exit-Entry latency = 3 ticks" out.txt || { cat out.txt; fail "counter min"; }
grep -qx "Maximum VM Exit-Entry latency = 7 ticks" out.txt || fail "counter max"
run vmtrace-report --json oldc.vmt
[ "$(json out.txt '(d["unit"], d["total_ns"], d["span_ns"])')" = "('ticks', 10, 107)" ] ||
	fail "counter JSON: $(json out.txt '(d["unit"], d["total_ns"], d["span_ns"])')"
# Every pair 0 ticks long (a coarse counter): no window holds any time, so none is the
# worst; the trial read "task -1" here, a pid no task has.
cat >zero.txt <<'EOF'
clock counter
page 0
exit 0 100 7 1 0
entry 0 100 7 0
exit 0 200 8 1 0
entry 0 200 8 0
EOF
"$HELPERS/mkvmt" "$FMT" zero.vmt <zero.txt || fail mkvmt
run vmtrace-report zero.vmt
expect_rc 0 "all-zero latencies"
grep -qx "Maximum cumulative latency within 1000000 ticks = 0 ticks (no pair took any time)" out.txt ||
	fail "all-zero window: $(grep cumulative out.txt)"
! grep -q -- "-1" out.txt || fail "a pid -1 in the report of all-zero latencies"
run vmtrace-report --json zero.vmt
[ "$(json out.txt '(d["pairs"], d["max_window_sum_ns"], d["max_window_pid"])')" = "(2, 0, None)" ] ||
	fail "all-zero JSON window: $(json out.txt '(d["pairs"], d["max_window_sum_ns"], d["max_window_pid"])')"
finish
