#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-record --live on this machine's tracefs with the syscall pair: a loop pinned to
# CPU 1 makes system calls for 1.2 s while the recorder traces CPU 1 with --live=300ms, its
# standard output a file (one line per interval, folded at 120 columns). Checked against
# the recorded file, recounted independently from vmtrace-convert --events (every entry
# that completed a pair, by its time since the recording's start): each interval's count and
# longest exit are those of the file's pairs that ended in that interval, the counts add up
# to vmtrace-report's pairs, nothing was late or lost; the last line ends when tracing went
# off, after the idle tail. On a pseudo-terminal (script) the
# table is redrawn in place, in the neutral words of a pair other than KVM's (pairs/s,
# tasks, ids; no exit, vCPU or guest); --no-output writes no file; bad command lines get
# one line and exit 64.
. "$(dirname "$0")/lib.sh"
need_tracefs
record_prio=20
command -v script >/dev/null || skip "no script(1) for the terminal part"
# the test's own commands (sleep, kill) stay off the traced CPU: its tail is idle
taskset -pc 0 $$ >/dev/null || skip "taskset"

# The loop runs 1.2 s (several 300 ms intervals, however fast the machine), then says how
# many calls it made.
start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" --context none --live=300ms -o run.vmt
"$HELPERS/syscall_loop" -r 1 0 1.2 >loop.txt || fail "syscall_loop"
N=$(awk '{print $4}' loop.txt)
# in its clock_nanosleep on the traced CPU when the recording stops: an exit still open
taskset -c 1 sleep 30 &
sleeper=$!
cleanup_hooks="$cleanup_hooks; kill $sleeper 2>/dev/null"
sleep 0.5	# an interval or two of the idle CPU after the loop
kill -INT "$rec_pid"
wait "$rec_pid"
rc=$?
[ "$rc" = 0 ] || { cat rec.err; fail "vmtrace-record --live exited $rc"; }
# the lines are folded at 120 columns between their pairs: joined again to be read
widths_ok rec.out || fail "live lines wider than 120 columns"
unfold rec.out | grep '^live ' >live.txt || { cat rec.out rec.err; fail "no live lines"; }
[ "$(wc -l <live.txt)" -ge 3 ] || { cat live.txt; fail "fewer than 3 intervals"; }
! grep -q 'came too late' rec.err || { cat rec.err; fail "records came late"; }

run vmtrace-report --json run.vmt
expect_rc 0 "report on the recording"
mv out.txt r.json
pairs=$(json r.json 'd["pairs"]')
[ "$pairs" -ge $N ] || fail "only $pairs pairs in the file"
run vmtrace-convert --events --csv run.vmt
expect_rc 0 "convert --events"
mv out.txt events.csv

python3 - live.txt events.csv "$pairs" 300000000 <<'PY' || fail "live lines differ from the file"
import csv, sys
lines = [dict(kv.split("=", 1) for kv in l.split()[1:]) for l in open(sys.argv[1])]
pairs, iv = int(sys.argv[3]), int(sys.argv[4])
rows = list(csv.DictReader(open(sys.argv[2])))
count, longest = {}, {}
for r in rows:
    if r["kind"] == "end" and r["latency_ns"] != "":
        k = int(r["time_ns"]) // iv	# intervals from the recording's start, as a report's
        lat = int(r["latency_ns"])
        count[k] = count.get(k, 0) + 1
        longest[k] = max(longest.get(k, 0), lat)
bad = 0
total = 0
for l in lines:
    k = int(l["interval"])
    total += int(l["exits"])
    if int(l["exits"]) != count.get(k, 0) or int(l["max_ns"]) != longest.get(k, 0):
        print("interval %d: live %s exits, max %s ns; file %d, %d ns" %
              (k, l["exits"], l["max_ns"], count.get(k, 0), longest.get(k, 0)))
        bad += 1
    if l["late"] != "0" or l["lost"] != "0":
        print("interval %d: late %s, lost %s" % (k, l["late"], l["lost"]))
        bad += 1
    if not 0 <= float(l["out_pct"]) <= 100:
        print("interval %d: out_pct %s" % (k, l["out_pct"]))
        bad += 1
missing = sorted(set(count) - set(int(l["interval"]) for l in lines))
if missing:
    print("intervals with pairs but no line:", missing)
    bad += 1
if total != pairs:
    print("live lines count %d pairs, the report %d" % (total, pairs))
    bad += 1
sys.exit(1 if bad else 0)
PY

# The last line ends when tracing went off (the report's open_until_ns: the file's
# trace.stop_ts), not at the last event: the idle CPU after the loop (the sleep above) is
# in the live lines, as it is in the report's time; and the sleeper, in its system call
# then, is in that interval's task lines, open up to the stop.
until=$(json r.json 'd["open_until_ns"]')
unfold rec.out | grep '^live-task ' >tasks.txt
python3 - live.txt tasks.txt "$until" "$sleeper" <<'PY' || fail "the live lines do not run to the stop"
import sys
kv = lambda l: dict(x.split("=", 1) for x in l.split()[1:])
last = [kv(l) for l in open(sys.argv[1])][-1]
end, until = float(last["start_s"]) + float(last["len_s"]), int(sys.argv[3]) / 1e9
print("the last live interval ends at %.3f s, tracing went off at %.6f s" % (end, until))
ok = abs(end - until) <= 0.0015
t = [kv(l) for l in open(sys.argv[2])]
t = [x for x in t if x["interval"] == last["interval"] and x["pid"] == sys.argv[4]]
if len(t) != 1 or not t[0].get("open_reason", "").startswith("clock_nanosleep"):
    print("the sleeper in the last interval:", t)
    ok = False
else:
    open_end = float(t[0]["open_since_s"]) + int(t[0]["open_ns"]) / 1e9
    print("the sleeper: open from %s s to %.4f s" % (t[0]["open_since_s"], open_end))
    ok = ok and abs(open_end - until) <= 0.0015
sys.exit(0 if ok else 1)
PY

# A terminal: the table, redrawn in place (cursor home and clear before each), while the
# loop keeps CPU 1's pages coming (an idle CPU's pages come only when full).
"$HELPERS/syscall_loop" 1 0 2.5 >/dev/null &
loop=$!
script -qefc "vmtrace-record -p 1 -c 0 -s 1500ms -e $SYSCALL_EVENTS --context none \
	--live=200ms --no-output" tty.txt >/dev/null 2>&1 </dev/null || fail "--live on a terminal"
wait $loop
redraws=$(grep -o "$(printf '\033\\[H\033\\[2J')" tty.txt | wc -l)
[ "$redraws" -ge 3 ] || fail "the table was drawn $redraws times, not redrawn in place"
# A syscall pair's table is in the text report's neutral words (pairs, tasks, ids), in
# every frame: the header, the "all" row and the two sections' titles, and no word of KVM's
# (exit, entry, vCPU, guest) in the table; only the event names may say sys_exit, and the
# recorder's own messages (stderr, on the same terminal) and script's last line are not the
# table.
python3 - tty.txt <<'PY' || fail "the table's words"
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read().replace("\r", "")
frames = [f for f in text.split("\033[H\033[2J")[1:]]
assert len(frames) >= 3, len(frames)
for i, f in enumerate(frames):
    lines = [l for l in f.split("\n")
             if not l.startswith("vmtrace-record: ") and not l.startswith("Script done")]
    # the event names and the ids' labels (a system call's, e.g. exit_group(0xe7)) are data
    t = re.sub(r"\b\w+\(0x[0-9a-f]+\)", "", "\n".join(lines).replace("raw_syscalls:sys_exit", ""))
    head = [l for l in lines if "p99" in l]
    assert head and head[0].split() == ["pairs/s", "in", "pairs", "p99", "max"], (i, head)
    m = re.search(r"^  all \((\d+) tasks?\) ", t, re.M)
    assert m and m.group(0).endswith("task) " if m.group(1) == "1" else "tasks) "), (i, t)
    assert "\ntask\n" in t and "\nid\n" in t, (i, t)
    bad = re.findall(r"exit|entr|vcpu|guest|\bvm\b", t, re.I)
    assert not bad, (i, bad, t)
print(len(frames), "frames in neutral words")
PY
grep -q '^live interval=' tty.txt && fail "key=value lines on a terminal"
[ ! -e trace.vmt ] || fail "--no-output wrote trace.vmt"

# --no-output says what it does, not that it wrote a file (/dev/null, where the pages go):
# "watching ... nothing kept" at the start, "read N chunks, P KiB of pages; no recording
# written" at the end. P against what the live lines saw: every pair is two records of 16
# bytes or more (a 4-byte header, the 8 bytes of common fields, the id), and a chunk holds
# 1 MiB of pages at most.
run vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" --context none --live=300ms --no-output \
	-- "$HELPERS/syscall_loop" -r 1 0 1
expect_rc 0 "--live --no-output"
unfold err.txt >msgs.txt
[ "$(head -1 msgs.txt)" = "vmtrace-record: watching $(echo "$SYSCALL_EVENTS" | sed 's/,/ -> /') and 0 \
context events on CPU 1 (collector CPU 0, clock local; --no-output: nothing kept); Ctrl-C to stop" ] ||
	{ cat err.txt; fail "--no-output: the start line"; }
grep -q '/dev/null\|wrote' msgs.txt && { cat err.txt; fail "--no-output: a file named"; }
end=$(sed -n 's/^vmtrace-record: read \([0-9]*\) chunks\{0,1\}, \([0-9]*\) KiB of pages; no recording written (--no-output), stopped by command$/\1 \2/p' msgs.txt)
[ -n "$end" ] || { cat err.txt; fail "--no-output: the closing line"; }
seen=$(unfold out.txt | sed -n 's/^live interval=.* exits=\([0-9]*\) .*/\1/p' | awk '{n += $1} END {print n + 0}')
# shellcheck disable=SC2086
set -- $end
[ "$seen" -gt 0 ] || { cat out.txt; fail "--no-output: the live lines saw no pair"; }
[ "$2" -ge $((seen * 32 / 1024)) ] && [ "$2" -le $(($1 * 1024)) ] && [ "$1" -ge 1 ] ||
	fail "--no-output: $1 chunks, $2 KiB of pages for $seen pairs"
[ ! -e trace.vmt ] || fail "--no-output wrote trace.vmt"

# Bad command lines: one line, exit 64.
run vmtrace-record -p 1 --live=1ms -e "$SYSCALL_EVENTS"
expect_rc 64 "--live=1ms"
expect_one_line_error vmtrace-record "invalid --live interval"
run vmtrace-record -p 1 --live -C x86-tsc -e "$SYSCALL_EVENTS"
expect_rc 64 "--live -C x86-tsc"
expect_one_line_error vmtrace-record "needs a nanosecond trace clock"
run vmtrace-record -p 1 --live -o - -e "$SYSCALL_EVENTS"
expect_rc 64 "--live -o -"
expect_one_line_error vmtrace-record "not with -o -"
run vmtrace-record -p 1 --no-output -e "$SYSCALL_EVENTS"
expect_rc 64 "--no-output alone"
expect_one_line_error vmtrace-record "no-output needs --live"
finish
