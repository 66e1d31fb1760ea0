#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-record --live on a pseudo-terminal of a set size (python3's pty: TIOCSWINSZ before
# the recorder starts) fits each frame to it, on a real recording of this machine's syscall
# pair: 40 threads pinned to CPU 1 sleep 1 ms in a loop, between system calls of 20 kinds,
# while the recorder traces CPU 1 with --live=300ms. On 80x24 every frame line fits 80
# columns and every frame 23 lines (the last stays for the cursor); the lists are cut to fit
# and say "... and N more". Checked against the recorded file, recounted independently from
# vmtrace-convert --events: each frame's "all (N tasks)" is the number of tasks with a pair
# ending in the interval or inside one at its end (as man/vmtrace-record.1 defines them), its
# task rows plus its "N more" are that number, and its id rows plus theirs the number of ids
# of those pairs. A window resized while the recorder runs (100x30 to 70x14, no signal
# needed) gets frames of its new size from the next interval on. With context events the
# tasks are named "comm (pid)", as in the report's tables.
. "$(dirname "$0")/lib.sh"
need_tracefs

cat >load.py <<'PY'
import os, sys, threading, time
os.sched_setaffinity(0, {1})
calls = [os.getppid, os.getpid, os.getuid, os.getgid, os.geteuid, os.getegid, os.getpgrp,
         lambda: os.getsid(0), os.sched_yield, os.times, os.getcwd, os.uname,
         lambda: os.umask(0o22), lambda: os.stat("/"), lambda: os.access("/", os.R_OK),
         os.getresuid, os.getresgid, lambda: os.getpriority(os.PRIO_PROCESS, 0),
         lambda: os.sched_getaffinity(0), os.getgroups]
def work(i):
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end:
        calls[i % len(calls)]()
        time.sleep(0.001)
threads = [threading.Thread(target=work, args=(i,)) for i in range(40)]
for t in threads:
    t.start()
for t in threads:
    t.join()
PY

# ttyrun OUT COLS ROWS [AFTER_S COLS2 ROWS2] -- COMMAND...: COMMAND on a pseudo-terminal
# of COLS x ROWS (resized to COLS2 x ROWS2 AFTER_S seconds in), all it writes into OUT.
ttyrun() {
	python3 "$top_srcdir/tests/helpers/ptyrun.py" "$@"
}

# tty_record OUT COLS ROWS [...] -- vmtrace-record ARGS...: ttyrun, tried again while another
# session's recorder holds the CPUs; the status in $rc.
tty_record() {
	for _ in 1 2 3 4 5 6; do
		ttyrun "$@"
		rc=$?
		grep -q 'another recorder' "$1" || return 0
		sleep 2
	done
}

# The frames of a run: the recorder's messages before the first are not one, and the last
# is left out (the recorder's closing messages and summary follow it on the terminal).
cat >frames.py <<'PY'
import sys
def frames(path):
    text = open(path, encoding="utf-8", errors="replace").read().replace("\r", "")
    return [f.split("\n")[:-1] for f in text.split("\033[H\033[2J")[1:-1]]
PY

# A run with a recorder held by another session is tried again; so is one whose view lost
# events or took records late (its figures then differ from the file's by design).
clean=
for _ in 1 2 3 4 5 6; do
	rm -f run.vmt tty.txt
	ttyrun tty.txt 80 24 -- vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" \
		--context none --live=300ms -o run.vmt -- python3 load.py 2
	rc=$?
	if grep -q 'another recorder' tty.txt; then
		sleep 2
		continue
	fi
	[ "$rc" = 0 ] || { cat tty.txt; fail "--live on an 80x24 terminal exited $rc"; }
	run vmtrace-report --json run.vmt
	expect_rc 0 "report on the recording"
	if [ "$(json out.txt 'd["lost_events"]')" = 0 ] &&
		! grep -q 'lost [1-9]\|late [1-9]\|came too late' tty.txt; then
		clean=1
		break
	fi
done
[ -n "$clean" ] || skip "every run was held by another recorder, lost events or was late"
run vmtrace-convert --events --csv run.vmt
expect_rc 0 "convert --events"
mv out.txt events.csv

python3 - tty.txt events.csv 300000000 <<'PY' || fail "the frames on 80x24"
import csv, re, sys
sys.path.insert(0, ".")
from frames import frames
fs, iv = frames(sys.argv[1]), int(sys.argv[3])
# Every pair (task, begin, end) and every exit, from the file.
rows = [r for r in csv.DictReader(open(sys.argv[2]))]
by_task = {}
for r in rows:
    by_task.setdefault(r["task"], []).append(r)
pairs, spans = [], []	# spans: (task, id, begin, end or None) while an exit is open
for task, ev in by_task.items():
    for i, r in enumerate(ev):
        if r["kind"] == "end" and r["latency_ns"]:
            end = int(r["time_ns"])
            begin = end - int(r["latency_ns"])
            rid = next((e["reason"] for e in reversed(ev[:i])
                        if e["kind"] == "begin" and int(e["time_ns"]) == begin), None)
            pairs.append((task, rid, end))
        if r["kind"] == "begin" and r["reason"] not in ("exit", "exit_group"):
            # open until the task's next event (its entry, or an exit that orphans it)
            nxt = ev[i + 1] if i + 1 < len(ev) else None
            spans.append((task, r["reason"], int(r["time_ns"]),
                          int(nxt["time_ns"]) if nxt else None))
bad = []
if len(fs) < 3:
    bad.append("%d frames" % len(fs))
more_seen = 0
for f in fs:
    if len(f) > 23:
        bad.append("a frame of %d lines: %s" % (len(f), f))
    for l in f:
        if len(l) > 80:
            bad.append("%d columns: %s" % (len(l), l))
    k = int(re.match(r"vmtrace-record --live: interval (\d+),", f[0]).group(1))
    edge = (k + 1) * iv
    tasks = {t for t, _, e in pairs if e // iv == k}
    ids = {i for _, i, e in pairs if e // iv == k}
    for t, i, b, e in spans:
        if b < edge and (e is None or e >= edge):
            tasks.add(t)
            ids.add(i)
    n = int(re.search(r"^  all \((\d+) tasks?\) ", "\n".join(f), re.M).group(1))
    if n != len(tasks):
        bad.append("interval %d: all (%d tasks), the file %d" % (k, n, len(tasks)))
    ti, ii = f.index("task"), f.index("id")
    for name, part, want in (("task", f[ti + 1:ii], len(tasks)), ("id", f[ii + 1:], len(ids))):
        part = [l for l in part if l]
        shown = sum(1 for l in part if re.match(r"  (pid \d+|\w+\(0x[0-9a-f]+\)) ", l))
        more = [int(m.group(1)) for l in part for m in [re.match(r"  \.\.\. and (\d+) more$", l)] if m]
        more_seen += bool(more)
        if shown + sum(more) != want:
            bad.append("interval %d: %d %s rows and %s more, the file %d" % (k, shown, name, more, want))
if not more_seen:
    bad.append("no list was cut: nothing checked of '... and N more'")
for m in bad:
    print(m)
print(len(fs), "frames checked")
sys.exit(1 if bad else 0)
PY

# A window resized while it runs: the frames fit the size they were drawn for, and those
# drawn after the resize the new. The first frame comes 1.2 s in (the view is 1 s behind),
# the resize at 2.5 s, the load stops at 4 s: the last three frames come after the resize.
tty_record tty2.txt 100 30 2.5 70 14 -- vmtrace-record -p 1 -c 0 \
	-e "$SYSCALL_EVENTS" --context none --live=200ms --no-output -- python3 load.py 4
[ "$rc" = 0 ] || { cat tty2.txt; fail "--live on a resized terminal exited $rc"; }
python3 - tty2.txt <<'PY' || fail "the frames on a resized terminal"
import sys
sys.path.insert(0, ".")
from frames import frames
fs = frames(sys.argv[1])
bad = [] if len(fs) >= 6 else ["%d frames" % len(fs)]
for i, f in enumerate(fs):
    cols, rows = (70, 14) if i >= len(fs) - 3 else (100, 30)
    if len(f) > rows - 1 or max(map(len, f)) > cols:
        bad.append("frame %d: %d lines, %d columns, not %dx%d:\n%s" %
                   (i, len(f), max(map(len, f)), cols, rows, "\n".join(f)))
if not any(len(f) > 13 for f in fs):
    bad.append("no frame was larger before the resize")
for m in bad:
    print(m)
sys.exit(1 if bad else 0)
PY

# With the context events (recorded by default) the tasks are named as in the report's
# tables, "comm (pid)": the loop, at real-time priority on CPU 1, is "syscall_loop (PID)",
# its pid as it says itself, in every frame that shows it once one has named it.
tty_record tty3.txt 100 40 -- vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" \
	--live=300ms --no-output -- "$HELPERS/syscall_loop" -r 1 0 2
[ "$rc" = 0 ] || { cat tty3.txt; fail "--live with context events exited $rc"; }
loop_pid=$(tr -d '\r' <tty3.txt | sed -n 's/^pid \([0-9]*\) calls .*/\1/p')
[ -n "$loop_pid" ] || { cat tty3.txt; fail "the loop said no pid"; }
python3 - tty3.txt "$loop_pid" <<'PY' || fail "the tasks' names on the terminal"
import sys
sys.path.insert(0, ".")
from frames import frames
fs, pid = frames(sys.argv[1]), int(sys.argv[2])
named = False
for i, f in enumerate(fs):
    f = [l for l in f if not l.startswith("pid %d calls " % pid)]	# the loop's own line
    assert len(f) <= 39 and max(map(len, f)) <= 100, (i, f)
    for l in f:
        if l.startswith("  syscall_loop (%d) " % pid):
            named = True
        elif named and (l.startswith("  pid %d " % pid) or "(%d) " % pid in l):
            sys.exit("frame %d: the loop not named after it was: %s" % (i, l))
assert named, "no frame named the loop 'syscall_loop (%d)'" % pid
print(len(fs), "frames, the loop named")
PY
# On a narrow terminal (72 columns) the label column is narrower than "syscall_loop (PID)":
# the name is cut with '~' before "(PID)", which stays, as in the report's tables.
tty_record tty4.txt 72 24 -- vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" \
	--live=300ms --no-output -- "$HELPERS/syscall_loop" -r 1 0 2
[ "$rc" = 0 ] || { cat tty4.txt; fail "--live on 72 columns exited $rc"; }
loop_pid=$(tr -d '\r' <tty4.txt | sed -n 's/^pid \([0-9]*\) calls .*/\1/p')
python3 - tty4.txt "$loop_pid" <<'PY' || fail "the loop's cut name on 72 columns"
import re, sys
sys.path.insert(0, ".")
from frames import frames
fs, pid = frames(sys.argv[1]), int(sys.argv[2])
rows = [l for f in fs for l in f if re.match(r"  sys\S*~ \(%d\) " % pid, l)]
assert rows, "no row 'sys...~ (%d)' in %d frames:\n%s" % (pid, len(fs), "\n".join(l for f in fs for l in f if str(pid) in l))
assert all(max(map(len, f)) <= 72 for f in fs)
print(len(rows), "rows of the loop cut to:", rows[0].split(")")[0] + ")")
PY
finish
