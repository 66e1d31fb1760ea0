#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-record --live shows a task held in a long exit while it is held, not only when it
# returns: a task pinned to CPU 1 makes system calls, sleeps 1.5 s inside clock_nanosleep,
# makes more, while the recorder traces CPU 1 with --live=200ms (standard output a file:
# key=value lines). Checked against the recorded file: every interval that ends inside the
# sleep (found in the file: the task's longest pair) has the task's live-task line with the
# sleep open since its start; and in every interval the task's out-of-guest time is the
# out_ns that vmtrace-report --interval=200ms computes for it from the file (the same
# split of an exit at the intervals' edges, the same time 0).
. "$(dirname "$0")/lib.sh"
need_tracefs
IV=200000000

# The command's pid goes to a file: its standard output is the recorder's (the live lines).
prog='import os, time
open("pid.txt", "w").write("%d\n" % os.getpid())
[os.getppid() for _ in range(2000)]
time.sleep(1.5)
[os.getppid() for _ in range(2000)]'
# Another session's recorder may hold CPU 1 for a moment: then try again. So too when the
# live view lost events or took records after their interval had closed (a loaded machine
# starves the collector): its figures then differ from the file's by design, and those
# runs prove nothing either way.
clean=
for _ in 1 2 3 4 5 6; do
	rm -f run.vmt pid.txt
	vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" --context none --live=200ms -o run.vmt \
		-- taskset -c 1 python3 -c "$prog" >rec.out 2>rec.err
	rc=$?
	if grep -q 'another recorder' rec.err; then
		sleep 2
		continue
	fi
	[ "$rc" = 0 ] || { cat rec.err; fail "vmtrace-record --live exited $rc"; }
	unfold rec.out | grep '^live ' | grep -qv ' lost=0 .*late=0\b' || { clean=1; break; }
done
[ "$rc" = 0 ] || { cat rec.err; fail "vmtrace-record --live exited $rc"; }
[ -n "$clean" ] || skip "every run lost events or was late in its live view (a loaded machine)"
pid=$(cat pid.txt) || fail "the command wrote no pid"
grep -q "^live-task " rec.out || { head -5 rec.out; fail "no live-task lines"; }
widths_ok rec.err rec.out || fail "messages or live lines wider than 120 columns"
# the live lines are folded between their pairs: each read whole again
unfold rec.out >live.txt

run vmtrace-report --json --interval=200ms run.vmt
expect_rc 0 "report --interval"
mv out.txt r.json
run vmtrace-convert --events --csv run.vmt
expect_rc 0 "convert --events"
mv out.txt events.csv

python3 - live.txt r.json events.csv "$pid" "$IV" <<'PY' || fail "live view differs from the file"
import csv, json, sys
out, rjson, ecsv, pid, iv = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
def kv(line):
    return dict(w.split("=", 1) for w in line.split()[1:])
ivs, task = {}, {}
for line in open(out):
    if line.startswith("live "):
        d = kv(line)
        ivs[int(d["interval"])] = d
    elif line.startswith("live-task "):
        d = kv(line)
        if int(d["pid"]) == pid:
            task[int(d["interval"])] = d
bad = []
if not ivs:
    bad.append("no live lines")
for k, d in ivs.items():
    if d["lost"] != "0" or d["late"] != "0":
        bad.append("interval %d: lost %s, late %s" % (k, d["lost"], d["late"]))
# The report's out_ns of the task per interval: its own split, from the file.
series = {r["start_ns"] // iv: r["out_ns"] for r in json.load(open(rjson))["series"]
          if r["pid"] == pid}
# The sleep: the task's longest pair, in ns since the recording's start.
longest = None
for r in csv.DictReader(open(ecsv)):
    if r["kind"] == "end" and r["latency_ns"] and int(r["task"]) == pid:
        lat, end = int(r["latency_ns"]), int(r["time_ns"])
        if not longest or lat > longest[1] - longest[0]:
            longest = (end - lat, end, r)
if not longest:
    bad.append("no pair of pid %d in the file" % pid)
else:
    b, e, _ = longest
    inside = [k for k in ivs if b < (k + 1) * iv < e]
    # 1.5 s against 200 ms intervals; a loaded machine makes the sleep only longer
    if len(inside) < 2:
        bad.append("the sleep (%d to %d ns) spans %d interval ends" % (b, e, len(inside)))
    for k in inside:
        t = task.get(k)
        if not t:
            bad.append("interval %d: pid %d, in its sleep, not shown" % (k, pid))
            continue
        want = (k + 1) * iv - b
        if int(t.get("open_ns", -1)) != want:
            bad.append("interval %d: open_ns %s, the file says %d" % (k, t.get("open_ns"), want))
        if not t.get("open_reason", "").startswith("clock_nanosleep"):
            bad.append("interval %d: open_reason %s" % (k, t.get("open_reason")))
        if abs(float(t["open_since_s"]) - b / 1e9) > 0.0006:
            bad.append("interval %d: open_since_s %s, the file %.6f" % (k, t["open_since_s"], b / 1e9))
        if int(ivs[k]["open"]) < 1:
            bad.append("interval %d: open=%s" % (k, ivs[k]["open"]))
# Every interval: the live time out of the guest is the report's (0 where neither has it).
for k in sorted(ivs):
    live = int(task[k]["out_ns"]) if k in task else 0
    if live != series.get(k, 0):
        bad.append("interval %d: live out_ns %d, report %d" % (k, live, series.get(k, 0)))
    if k in task and not 0 <= float(task[k]["out_pct"]) <= 100:
        bad.append("interval %d: out_pct %s" % (k, task[k]["out_pct"]))
if sum(series.values()) == 0 or sum(1 for k in task) < 3:
    bad.append("too little of pid %d: %d live intervals" % (pid, len(task)))
for m in bad:
    print(m)
sys.exit(1 if bad else 0)
PY

# On a terminal the table marks a task inside its pair (under its row). Which pair is open
# at an interval's end depends on when the idle CPU's last page is read (an idle CPU leaves
# the sleep's begin in a page not yet full): the marker's form is checked, and a run that
# shows none is tried again, as one another recorder held up.
command -v script >/dev/null || { skip_part "no script(1) for the terminal part"; finish; }
marked=
for _ in 1 2 3 4 5 6; do
	script -qefc "vmtrace-record -p 1 -c 0 -e $SYSCALL_EVENTS --context none --live=200ms \
		--no-output -- taskset -c 1 python3 -c '$prog'" \
		tty.txt >/dev/null 2>&1 </dev/null
	rc=$?
	if grep -q 'another recorder' tty.txt; then
		sleep 2
		continue
	fi
	[ "$rc" = 0 ] || { cat tty.txt; fail "--live on a terminal exited $rc"; }
	# (in the words of a pair other than KVM's)
	if tr -d '\r' <tty.txt |
		grep -Eq '^    in a pair for [0-9.]+ (ns|us|ms|s) \(since [0-9.]+ s, id [a-z0-9_]+\(0x[0-9a-f]+\)\)$'
	then
		marked=1
		break
	fi
done
[ -n "$marked" ] || skip "no task was inside a pair at an interval's end on the terminal in 6 runs"
# script(1)'s own lines and the screen's escapes are not the table's
tr -d '\r' <tty.txt | sed -e '/^Script /d' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' >table.txt
widths_ok table.txt || fail "the table is wider than 120 columns"
finish
