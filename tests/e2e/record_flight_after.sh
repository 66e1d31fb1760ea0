#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-record --on-threshold ... --after: the file ends --after past the end of the exit
# that triggered, to the record (man/vmtrace-record.1: the pages are cut there), however
# long the recorder takes to see the exit (about a second: the tap's look-behind) and
# however far a chunk reaches. The workload is tests/helpers/why_load spikes on CPU 1,
# filtered in the kernel with --vm: getppid() bursts, a read() that a waker answers after
# 100 ms (over the 50 ms threshold), then 1.5 s more of bursts, so that there are events
# long after the window. Checked on the file with an independent computation: the
# triggering exit (vmtrace-report --json's trigger: at_ns, latency_ns) against every event
# vmtrace-convert --events lists (time_ns): none after at + latency + --after, and the
# exit's end itself is there. Nothing here depends on how fast the recorder runs: only
# what the design guarantees (what is written) is checked, not when it stopped.
. "$(dirname "$0")/lib.sh"
need_tracefs
record_prio=20

taskset -pc 0 $$ >/dev/null || skip "taskset"
WAIT_LINE=$(printf '\n')

# flight AFTER_NS AFTER: one recording; retried while another recorder has CPU 1 (other
# test runs on this machine).
flight() {
	for try in $(seq 20); do
		rm -f fa.vmt
		start_why_load 1 100000 1500 1000
		rm -f rec.out rec.err
		${record_prio:+chrt -f "$record_prio"} vmtrace-record -p 1 -c 0 --vm "$reader" \
			-e "$SYSCALL_EVENTS" --context none -s 30 --on-threshold 50ms --keep 300ms \
			--after "$2" -o fa.vmt >rec.out 2>rec.err &
		rec_pid=$!
		cleanup_hooks="$cleanup_hooks; kill -9 $rec_pid 2>/dev/null"
		for _ in $(seq 200); do
			grep -q "recording" rec.err 2>/dev/null && break
			kill -0 "$rec_pid" 2>/dev/null || break
			sleep 0.05
		done
		echo "$WAIT_LINE" >&3
		exec 3>&-
		wait "$rec_pid"
		rc=$?
		wait "$load" || fail "why_load"
		grep -q "another recorder traces the same CPUs" rec.err || break
		echo "CPU 1 busy with another recorder: again in 3 s (try $try)"
		sleep 3
	done
	cat rec.err
	[ "$rc" = 0 ] || fail "--after $2: vmtrace-record exited $rc"
	grep -q "stopped by threshold" rec.err || fail "--after $2: not stopped by the trigger"
	run vmtrace-convert --events --csv fa.vmt
	expect_rc 0 "convert --events"
	mv out.txt events.csv
	run vmtrace-report --json fa.vmt
	expect_rc 0 "report --json"
	mv out.txt fa.json
	python3 - events.csv fa.json "$1" "$reader" <<'PY' || fail "--after $2: the file reaches past the window"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = json.load(open(sys.argv[2]))["trigger"]
after, reader = int(sys.argv[3]), sys.argv[4]
if t is None or not t["in_file"] or t["pid"] != int(reader):
    sys.exit("the trigger is not the reader's exit in the file: %s" % t)
end = t["at_ns"] + t["latency_ns"]
times = [int(r["time_ns"]) for r in rows]
# the exit's end (its entry row, with the named latency) is in the file
if not [r for r in rows if r["kind"] == "end" and int(r["time_ns"]) == end and
        r["latency_ns"] == str(t["latency_ns"])]:
    sys.exit("the end of the exit that triggered is not in the file")
late = [x for x in times if x > end + after]
print("%d events; the last %.3f ms past the trigger's end (--after %.3f ms); %d later" %
      (len(times), (max(times) - end) / 1e6, after / 1e6, len(late)))
if late:
    sys.exit("%d events after the window, the last %.3f ms past the trigger's end" %
             (len(late), (max(late) - end) / 1e6))
PY
}

flight 10000000 10ms
flight 200000000 200ms
finish
