#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-record --live with a vCPU stuck in its exit at the stop and nothing else traced:
# tests/helpers/why_load stuck (a process named like a VMM's vCPU thread, --vm on it alone)
# blocks in read() on CPU 1 from the go on, so the CPU's only records sit in a page that is
# never full, read only when tracing goes off. The live view must still show the last
# interval, up to the stop (the report's open_until_ns), with that task in its read since
# the time the file dates its begin, and say one task is in an exit; it showed nothing.
# Stuck for 6 s: the view once ended with the last event when the stop came more than 5 s
# after what it had seen, and printed nothing for such a vCPU.
. "$(dirname "$0")/lib.sh"
need_tracefs
record_prio=20

taskset -pc 0 $$ >/dev/null || skip "taskset"
start_why_stuck 1
pid=$stuck
start_record -p 1 -c 0 --vm "$pid" -e "$SYSCALL_EVENTS" --context none --live=300ms -o run.vmt
printf '\n' >&3
sleep 6
kill -INT "$rec_pid"
wait "$rec_pid"
rc=$?
[ "$rc" = 0 ] || { cat rec.err; fail "vmtrace-record --live exited $rc"; }
kill "$load" 2>/dev/null

run vmtrace-report --json run.vmt
expect_rc 0 "report"
mv out.txt r.json
[ "$(json r.json 'd["pairs"]')" = 0 ] || fail "pairs in the file: not the case this test is for"
until=$(json r.json 'd["open_until_ns"]')
run vmtrace-convert --events --csv run.vmt
expect_rc 0 "convert --events"
mv out.txt events.csv
unfold rec.out >live.txt
python3 - live.txt events.csv "$until" "$pid" <<'PY' || { cat rec.out; fail "the stuck task is not in the live view"; }
import csv, sys
kv = lambda l: dict(x.split("=", 1) for x in l.split()[1:])
lines = [l for l in open(sys.argv[1])]
live = [kv(l) for l in lines if l.startswith("live ")]
tasks = [kv(l) for l in lines if l.startswith("live-task ")]
until, pid = int(sys.argv[3]) / 1e9, sys.argv[4]
begin = [r for r in csv.DictReader(open(sys.argv[2])) if r["kind"] == "begin" and r["task"] == pid]
assert len(begin) == 1, begin
since = int(begin[0]["time_ns"]) / 1e9
assert live, "no live line"
last = live[-1]
end = float(last["start_s"]) + float(last["len_s"])
print("last live interval ends at %.3f s, tracing went off at %.6f s; open=%s" %
      (end, until, last["open"]))
assert abs(end - until) <= 0.0015, "the last interval does not end at the stop"
assert last["open"] == "1" and last["open_max_pid"] == pid, last
t = [x for x in tasks if x["interval"] == last["interval"] and x["pid"] == pid]
assert len(t) == 1 and t[0]["open_reason"].startswith("read"), t
assert abs(float(t[0]["open_since_s"]) - since) <= 0.0015, (t[0]["open_since_s"], since)
assert abs(int(t[0]["open_ns"]) / 1e9 - (until - since)) <= 0.0015, t[0]
assert until - since > 5.5, "stuck for %.3f s only: not the case this test is for" % (until - since)
print("the stuck task: in read since %.4f s, %s ns at the stop" % (since, t[0]["open_ns"]))
PY
widths_ok rec.out || fail "live lines wider than 120 columns"
exit 0
