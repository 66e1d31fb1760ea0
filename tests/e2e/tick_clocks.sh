#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Real recordings with the counter and uptime trace clocks, whose ticks have no known
# length (counter counts events, uptime is jiffies): the recorder says at the start that
# the figures will be in ticks, and the report, the JSON and the CSV give raw ticks and say
# so. The latencies must be the raw tick differences, recomputed here from the events'
# raw timestamps (vmtrace-convert --events), not a rate spread over the recording's
# duration (which made every system call 7.124 us). No timing is asserted: only units and
# equalities, so a loaded machine changes nothing.
. "$(dirname "$0")/lib.sh"
need_tracefs

# Record the loop's N system calls on CPU 1 with clock $1 into $1.vmt. Another session's
# recorder may hold the CPUs for a while ("another recorder traces the same CPUs"): retried.
record_clock() {
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		vmtrace-record -p 1 -c 0 --context none -C "$1" -e "$SYSCALL_EVENTS" -o "$1.vmt" \
			-- "$HELPERS/syscall_loop" 1 3000 >rec.out 2>rec.err && return 0
		grep -q "another recorder traces the same CPUs" rec.err || break
		sleep 3
	done
	cat rec.err >&2
	fail "-C $1: vmtrace-record failed"
}

# Tick figures must carry no time unit; only "recorded" (CLOCK_MONOTONIC) is a time.
no_time_units() {
	if grep -v '^Duration: .* recorded' "$1" | grep -En '[0-9] (ns|us|ms|s)([^a-z]|$)| \((ns|us|ms|s)\)'
	then
		fail "$2: a tick figure with a time unit"
	fi
}

for clock in counter uptime; do
	grep -qw "$clock" /sys/kernel/tracing/trace_clock ||
		{ skip_part "-C $clock (not a clock of this kernel)"; continue; }
	record_clock "$clock"
	unfold rec.err >rec1.err
	grep -qx "vmtrace-record: clock $clock counts ticks of no known length: the figures will be in raw ticks, not ns" \
		rec1.err || { cat rec.err; fail "-C $clock: no note that figures are in ticks"; }
	widths_ok rec.err || fail "-C $clock: recorder's notes over 120 columns"

	run vmtrace-report "$clock.vmt"
	expect_rc 0 "-C $clock report"
	cp out.txt "$clock.txt"
	grep -q ", clock $clock (ticks)$" out.txt || { cat out.txt; fail "-C $clock: clock line"; }
	no_time_units out.txt "-C $clock report"
	widths_ok out.txt || fail "-C $clock: report lines over 120 columns"
	run vmtrace-report -v "$clock.vmt"
	no_time_units out.txt "-C $clock -v"

	# The independent oracle: pair each task's begin with its next end from the raw
	# timestamps, as the events CSV gives them (its columns named in ticks).
	run vmtrace-convert --events --csv -o - "$clock.vmt"
	expect_rc 0 "-C $clock convert --events"
	mv out.txt events.csv
	run vmtrace-convert --csv -o - "$clock.vmt"
	expect_rc 0 "-C $clock convert"
	mv out.txt pairs.csv
	run vmtrace-report --json "$clock.vmt"
	mv out.txt report.json
	python3 - "$clock" "$clock.txt" <<'EOF' || fail "-C $clock: latencies are not the tick differences"
import csv, json, re, sys
clock, text = sys.argv[1], open(sys.argv[2]).read()
open_at, lats = {}, []
for r in csv.DictReader(open("events.csv")):
    ts, task = int(r["ts_ticks"]), r["task"]
    if r["kind"] in ("exit", "begin"):	# KVM's pair, or another's (system calls)
        open_at[task] = ts
    elif task in open_at:
        lats.append(ts - open_at.pop(task))
rep = json.load(open("report.json"))
errs = []
if rep["unit"] != "ticks":
    errs.append("JSON unit %r" % rep["unit"])
if rep["lost_events"]:
    errs.append("%d events lost: the oracle cannot pair across them" % rep["lost_events"])
if not lats or rep["pairs"] != len(lats):
    errs.append("pairs: report %d, recomputed %d" % (rep["pairs"], len(lats)))
if rep["total_ns"] != sum(lats):
    errs.append("total: report %d, recomputed %d" % (rep["total_ns"], sum(lats)))
lat = rep["latency_ns"]
if (lat["min"], lat["max"]) != (min(lats), max(lats)):
    errs.append("min/max: report %r, recomputed %r" % ((lat["min"], lat["max"]), (min(lats), max(lats))))
for word, want in (("Minimum", min(lats)), ("Maximum", max(lats))):
    if not re.search(r"^%s latency = %d ticks$" % (word, want), text, re.M):
        errs.append("text: no '%s latency = %d ticks'" % (word, want))
# The window line: "no pair took any time" exactly when every latency is 0 ticks, as uptime
# gives when the loop fits in one jiffy (how often depends on the machine's load).
win = r"^Maximum cumulative latency within 1000000 ticks = "
if max(lats) == 0:
    win += r"0 ticks \(no pair took any time\)$"
else:
    win += r"[1-9][0-9]* ticks \(task [0-9]+, window starting at [0-9]+ ticks\)$"
if not re.search(win, text, re.M):
    errs.append("text: no window line matching %r" % win)
rows = list(csv.DictReader(open("pairs.csv")))
if not rows or "latency_ticks" not in rows[0]:
    errs.append("CSV: no latency_ticks column")
elif sorted(int(r["latency_ticks"]) for r in rows) != sorted(lats):
    errs.append("CSV latencies differ from the tick differences")
if clock == "counter" and min(lats) < 1:
    errs.append("counter: two events with one count")
for e in errs:
    print("%s: %s" % (clock, e), file=sys.stderr)
sys.exit(1 if errs else 0)
EOF
done
finish
