#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A recording's duration is the time it traced: from its start to the moment tracing went
# off, not to the end of the final drain (which took 100 ms or more: every rate per
# second of a 1 s recording read 9 % low, and a --from/--to part at its end half). With
# the trace clock "mono" (CLOCK_MONOTONIC, the clock of monotonic.start_ns/end_ns), a loop
# making system calls on CPU 1 from before the recorder starts until after it stops, and
# -s 1, the file is read by an independent reader (tests/helpers/vmtmeta.py):
#  - every event lies within [monotonic.start_ns, monotonic.end_ns];
#  - monotonic.end_ns is no later than the end stats' "now ts" (stats.end.cpu1), which the
#    recorder reads after the drain: the end was taken when tracing went off, before it;
#  - vmtrace-report's recorded duration is that span;
#  - END's trace.stop_ts (tracing off, the trace clock) lies between the last event and the
#    end stats, and the exits open at the stop run to it (open_until_ns).
. "$(dirname "$0")/lib.sh"
need_tracefs
record_prio=20

taskset -pc 0 $$ >/dev/null || skip "taskset"
"$HELPERS/syscall_loop" 1 0 6 >loop.txt &
loop=$!
cleanup_hooks="$cleanup_hooks; kill $loop 2>/dev/null"
start_record -p 1 -c 0 -C mono -s 1 -e "$SYSCALL_EVENTS" --context none -o d.vmt
wait "$rec_pid"
rc=$?
cat rec.err
[ "$rc" = 0 ] || fail "vmtrace-record exited $rc"
kill -0 "$loop" 2>/dev/null || skip "the loop ended before the recorder (a machine too slow)"

python3 "$top_srcdir/tests/helpers/vmtmeta.py" d.vmt >meta.json || fail "cannot read d.vmt's keys"
run vmtrace-convert --events --csv -o ev.csv d.vmt
expect_rc 0 "convert --events"
run vmtrace-report --json d.vmt
expect_rc 0 "report"
mv out.txt d.json
python3 - meta.json ev.csv d.json <<'PY' || fail "the recorded time is not the time traced"
import csv, json, re, sys
m = json.load(open(sys.argv[1]))
meta, end = m["meta"], m["end"]
t0, t1 = int(meta["monotonic.start_ns"]), int(end["monotonic.end_ns"])
# "now ts: 6700.832293": microseconds, cut
sec, frac = re.search(r"now ts: *([0-9]+)\.([0-9]+)", end["stats.end.cpu1"]).groups()
now = int(sec) * 10**9 + int(frac.ljust(9, "0"))
ts = [int(r["ts_ns"]) for r in csv.DictReader(open(sys.argv[2]))]
rep = json.load(open(sys.argv[3]))
print("start %d, first event +%.6f s, last +%.6f s, end +%.6f s, end stats +%.6f s" %
      (t0, (min(ts) - t0) / 1e9, (max(ts) - t0) / 1e9, (t1 - t0) / 1e9, (now - t0) / 1e9))
bad = []
if min(ts) < t0 or max(ts) > t1:
    bad.append("events outside [start, end]")
if t1 > now + 1000:                 # now ts is cut to the microsecond
    bad.append("the end (%d) after the end stats read after the drain (%d)" % (t1, now))
if rep["duration_ns"] != t1 - t0:
    bad.append("report duration %d, not end - start %d" % (rep["duration_ns"], t1 - t0))
# trace.stop_ts: tracing off in the trace clock (here mono, the monotonic clock): after the
# last event, no later than the end stats, within a microsecond (cut) of monotonic.end_ns;
# the report's open exits run to it
stop = int(end.get("trace.stop_ts", 0))
if not max(ts) <= stop <= now + 1000 or abs(stop - t1) > 2000000:
    bad.append("trace.stop_ts %d not between the last event %d and the end stats %d, "
               "near monotonic.end_ns %d" % (stop, max(ts), now, t1))
start = rep["top"][0]["ts"] - rep["top"][0]["time_ns"]     # times count from there
if rep["open_until_ns"] != max(stop, max(ts)) - start:
    bad.append("open_until_ns %d, not the stop %d" % (rep["open_until_ns"], stop - start))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
finish
