#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-record --on-threshold (the flight recorder) on this machine's tracefs with the
# syscall pair on CPU 1: a fast system call loop runs flat out from the start and, 1.5 s
# in, tests/helpers/why_load's reader blocks in read() 1.2 s per round (block mode), over
# the 1 s threshold. The recorder keeps 500 ms and writes 500 ms after the trigger, then
# stops by itself. Checked against the file (vmtrace-convert --events): it holds the
# exit that triggered, with the latency the recorder named (>= the threshold), and
# nothing from more than --keep before that exit (a page's worth of margin), and, when
# older chunks were dropped, the whole --keep. Any task's system call on CPU 1 counts, so another
# task's long call may come first: then the read part is skipped, said so. vmtrace-report
# names the exit (a line, a JSON object) and --around trigger lists it. Memory stays
# bounded with the loop flat out and no trigger; bad command lines get exit 64.
. "$(dirname "$0")/lib.sh"
need_tracefs
record_prio=20

# The test's own commands (sleep, grep) stay off the traced CPU: their calls would count.
taskset -pc 0 $$ >/dev/null || skip "taskset"
LAT_NS=1000000000
KEEP_NS=500000000
"$HELPERS/syscall_loop" 1 0 8 >loop.txt &
loop=$!
cleanup_hooks="$cleanup_hooks; kill $loop 2>/dev/null"
start_record -p 1 -c 0 -s 20 -e "$SYSCALL_EVENTS" --context none --on-threshold 1s \
	--keep 500ms --after 500ms -o fr.vmt
sleep 1.5
"$HELPERS/why_load" block 1 2 1200000 >why.txt || fail "why_load"
reader=$(awk '{print $2}' why.txt)
wait "$rec_pid"
rc=$?
kill "$loop" 2>/dev/null
[ "$rc" = 0 ] || { cat rec.err; fail "vmtrace-record --on-threshold exited $rc"; }
grep -q "stopped by threshold" rec.err || { cat rec.err; fail "not stopped by the trigger"; }
line=$(grep "triggered" rec.err) || { cat rec.err; fail "no trigger named"; }
lat=$(echo "$line" | sed -n 's/.*an exit of \([0-9]*\) ns (pid \([0-9-]*\),.*/\1/p')
pid=$(echo "$line" | sed -n 's/.*an exit of \([0-9]*\) ns (pid \([0-9-]*\),.*/\2/p')
[ -n "$lat" ] && [ -n "$pid" ] || fail "cannot read the trigger from: $line"
[ "$lat" -ge $LAT_NS ] || fail "the trigger's latency $lat ns is under the threshold"
dropped=$(echo "$line" | sed -n 's/.* \([0-9]*\) dropped before.*/\1/p')
cat rec.err

run vmtrace-convert --events --csv fr.vmt
expect_rc 0 "convert --events"
mv out.txt events.csv
python3 - events.csv "$lat" "$pid" "$KEEP_NS" "$dropped" <<'PY' ||
import csv, sys
lat, pid, keep, dropped = int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rows = list(csv.DictReader(open(sys.argv[1])))
trig = [r for r in rows if r["kind"] == "entry" and r["latency_ns"] == str(lat) and
        r["task"] == pid]
if len(trig) != 1:
    print("the triggering exit (%d ns, pid %s) is %d times in the file" % (lat, pid, len(trig)))
    sys.exit(1)
exit_ts = int(trig[0]["ts_ns"]) - lat
first = min(int(r["ts_ns"]) for r in rows)
# the kept part starts on a page boundary: a page of the loop's is well under 50 ms
if first < exit_ts - keep - 50000000:
    print("the file starts %.3f s before the trigger, more than --keep" % ((exit_ts - first) / 1e9))
    sys.exit(1)
# when older chunks were dropped, the loop's pages of the whole --keep are there
if dropped and first > exit_ts - keep + 200000000:
    print("the file starts only %.3f s before the trigger: the loop's --keep is not there" %
          ((exit_ts - first) / 1e9))
    sys.exit(1)
print("trigger %d ns after the file's first event; %d chunks dropped" % (exit_ts - first, dropped))
PY
	fail "the file does not hold what it should"
[ "$dropped" -gt 0 ] || skip_part "--keep's cut (the trigger came before --keep had passed)"
# vmtrace-report points at it: a line, a JSON object, and --around trigger.
run vmtrace-report fr.vmt
expect_rc 0 "report on the flight recording"
grep -q "^Triggered by the exit at .* (task $pid, pCPU 1): " out.txt || fail "no Triggered line"
run vmtrace-report --json --around trigger,1us fr.vmt
expect_rc 0 "report --around trigger"
mv out.txt t.json
[ "$(json t.json 'd["trigger"]["latency_ns"]')" = "$lat" ] || fail "JSON trigger latency"
[ "$(json t.json 'd["trigger"]["pid"]')" = "$pid" ] || fail "JSON trigger pid"
[ "$(json t.json '[e["pid"] for e in d["around"] if e["kind"] == "exit" and
	e["time_ns"] == d["trigger"]["at_ns"]]')" = "[$pid]" ] ||
	fail "--around trigger does not list the exit that triggered"
if [ "$pid" = "$reader" ]; then
	# the read itself: system call 0 on x86-64
	grep -q "^[0-9]*,[0-9]*,1,$reader,exit,,0," events.csv ||
		fail "the reader's read() is not in the file"
else
	skip_part "the read as the trigger (pid $pid's system call of $lat ns came first)"
fi

# Memory stays bounded: the loop flat out for 12 s, no exit of an hour: the ring would
# hold two hours, so its bound of 512 MiB holds it (some 80 MB/s of pages here: full
# from 7 s on); from 8 s on RSS stands still, under 512 MiB and the tap's 64 MiB.
"$HELPERS/syscall_loop" 1 0 12 >loop.txt &
loop=$!
start_record -p 1 -c 0 -s 13 -e "$SYSCALL_EVENTS" --context none --on-threshold 1h \
	--keep 10s -o none.vmt
sleep 8
rss1=$(awk '/^VmRSS/ {print $2}' "/proc/$rec_pid/status")
sleep 3
rss2=$(awk '/^VmRSS/ {print $2}' "/proc/$rec_pid/status")
wait "$rec_pid" || { cat rec.err; fail "the second recording failed"; }
kill "$loop" 2>/dev/null
echo "RSS after 8 s: $rss1 KiB, after 11 s: $rss2 KiB"
if grep -q "stopped by threshold" rec.err; then
	fail "an exit of an hour triggered"
else
	# AddressSanitizer's shadow and quarantine add to every allocation: the fixed bound
	# is for the plain build; that RSS stands still holds in both
	if ldd "$(command -v vmtrace-record)" | grep -q libasan; then
		skip_part "the RSS bound (built with AddressSanitizer)"
	else
		[ "$rss2" -lt 750000 ] ||
			fail "RSS $rss2 KiB over the bound (512 MiB ring, 64 MiB tap)"
	fi
	[ "$rss2" -le $((rss1 + 65536)) ] || fail "RSS grew from $rss1 to $rss2 KiB"
	run vmtrace-report --json none.vmt
	expect_rc 0 "report on an untriggered recording"
	[ "$(json out.txt 'd["pairs"]')" = 0 ] || fail "an untriggered recording holds pairs"
fi

run vmtrace-report --around trigger "$DATA/sample-kvm.vmt"
expect_rc 1 "--around trigger on a recording that is no flight recording"
expect_one_line_error vmtrace-report "no exit triggered"
run vmtrace-record -p 1 --keep 5s -e "$SYSCALL_EVENTS"
expect_rc 64 "--keep without --on-threshold"
expect_one_line_error vmtrace-record "need --on-threshold"
run vmtrace-record -p 1 --on-threshold 0 -e "$SYSCALL_EVENTS"
expect_rc 64 "--on-threshold 0"
expect_one_line_error vmtrace-record "invalid --on-threshold"
finish
