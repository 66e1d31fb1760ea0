#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-record --on-threshold --trigger-reason on this machine's tracefs (the syscall pair
# on CPU 1, --vm on tests/helpers/why_load spikes, as record_flight.sh): the load sleeps
# 300 ms in clock_nanosleep, then blocks 1.2 s in read(), both over the 200 ms threshold.
# Without the option the nanosleep triggers; with -clock_nanosleep, and with read, the read
# does, and the file still holds the nanosleep over the threshold before it (left out by
# the option, not missed). Checked against each file's per-exit CSV (the triggering row's
# reason) and the report's JSON (trigger.reasons). A list that triggers on nothing says so
# with the list; unknown names, an empty list, and the option without --on-threshold exit
# 64 before anything is traced.
. "$(dirname "$0")/lib.sh"
need_tracefs
record_prio=20

taskset -pc 0 $$ >/dev/null || skip "taskset"
THR_NS=200000000
WAIT_LINE=$(printf '\n')

# flight NAME [ARGS...]: one round of the load recorded into NAME.vmt with ARGS; sets
# $lat, $pid (the trigger the recorder named) and $reason (its row's in the CSV).
flight() {
	name=$1
	shift
	start_why_load 1 1200000 100 300000
	start_record -p 1 -c 0 --vm "$reader" -e "$SYSCALL_EVENTS" --context none -s 30 \
		--on-threshold 200ms --keep 5s --after 200ms -o "$name.vmt" "$@"
	echo "$WAIT_LINE" >&3
	exec 3>&-
	wait "$rec_pid"
	rc=$?
	kill "$load" 2>/dev/null
	wait "$load"
	[ "$rc" = 0 ] || { cat rec.err; fail "$name: vmtrace-record exited $rc"; }
	line=$(grep "triggered" rec.err) || { cat rec.err; fail "$name: no trigger named"; }
	lat=$(echo "$line" | sed -n 's/.*: a pair of \([0-9]*\) ns (pid \([0-9-]*\),.*/\1/p')
	pid=$(echo "$line" | sed -n 's/.*: a pair of \([0-9]*\) ns (pid \([0-9-]*\),.*/\2/p')
	[ -n "$lat" ] && [ "$pid" = "$reader" ] || fail "$name: cannot read the trigger from: $line"
	[ "$lat" -ge $THR_NS ] || fail "$name: the trigger's $lat ns is under the threshold"
	run vmtrace-convert --csv -o "$name.csv" "$name.vmt"
	expect_rc 0 "$name: convert"
	reason=$(python3 - "$name.csv" "$lat" "$pid" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["latency_ns"] == sys.argv[2] and r["task"] == sys.argv[3]]
print(rows[0]["reason"] if len(rows) == 1 else "%d rows" % len(rows))
PY
)
	run vmtrace-report --json "$name.vmt"
	expect_rc 0 "$name: report"
	mv out.txt "$name.json"
}

# nanosleep_before NAME: the file's clock_nanosleep rows over the threshold that began
# before the trigger's start (the read's), which the option left out
nanosleep_before() {
	python3 - "$1.csv" "$lat" "$pid" "$THR_NS" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
lat, pid, thr = int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
trig = [r for r in rows if int(r["latency_ns"]) == lat and r["task"] == pid][0]
print(sum(1 for r in rows if r["reason"] == "clock_nanosleep" and r["task"] == pid and
          int(r["latency_ns"]) >= thr and int(r["start_ns"]) < int(trig["start_ns"])))
PY
}

# the control: without the option the first nanosleep triggers
flight all
[ "$reason" = clock_nanosleep ] || fail "without --trigger-reason: $reason triggered, not clock_nanosleep"
[ "$(json all.json 'd["trigger"]["reasons"]')" = None ] || fail "trigger.reasons without the option"

flight minus --trigger-reason=-clock_nanosleep
[ "$reason" = read ] || fail "--trigger-reason=-clock_nanosleep: $reason triggered, not read"
[ "$lat" -ge 1200000000 ] || fail "the read that triggered took $lat ns, not the 1.2 s block"
[ "$(nanosleep_before minus)" -ge 1 ] || fail "no clock_nanosleep over the threshold before the read"
[ "$(json minus.json 'd["trigger"]["reasons"]')" = -clock_nanosleep ] || fail "trigger.reasons"
vmtrace-report minus.vmt >minus.txt || fail "report minus.vmt"
grep -A1 "^Triggered by the pair at" minus.txt | tail -n 1 |
	grep -qx "      only pairs of --trigger-reason -clock_nanosleep could trigger" ||
	{ cat minus.txt; fail "the report's trigger lines do not name the list"; }
# the closing summary says it as the report does
grep -q -- "--trigger-reason -clock_nanosleep" rec.out || { cat rec.out; fail "closing summary"; }

flight plus --trigger-reason "read, write"
[ "$reason" = read ] || fail "--trigger-reason read: $reason triggered, not read"
[ "$(nanosleep_before plus)" -ge 1 ] || fail "no clock_nanosleep over the threshold before the read"

# nothing of the list: said with the list, a long one cut on the lines (within 120
# columns), whole in the file
LONG=getppid,getpid,getuid,geteuid,getgid,getegid,gettid,getpgrp,getpgid,getsid,getcwd
LONG=$LONG,getrlimit,getrusage,getpriority,getitimer,getdents64,getsockname,getpeername
LONG=$LONG,getsockopt,getxattr,getcpu,getgroups,getresuid,getresgid
# pairs must come for the list to be what kept them from triggering: a quiet CPU 1 (as on
# the CI's machine) gives none, and the recorder then says "not one pair came" instead
taskset -c 1 sh -c 'while :; do cat /dev/null; done' &
busy=$!
cleanup_hooks="$cleanup_hooks; kill $busy 2>/dev/null"
run vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" --context none -s 1 --on-threshold 200ms \
	--trigger-reason "$LONG" -o none.vmt
kill "$busy"
wait "$busy" 2>/dev/null
expect_rc 0 "a list that never triggers"
mv err.txt none.err
unfold none.err | grep -qF "nothing triggered: no pair of --trigger-reason $(printf %.60s "$LONG")... reached --on-threshold 200 ms" ||
	{ cat none.err; fail "the untriggered line does not name the list"; }
python3 "$top_srcdir/tests/helpers/vmtmeta.py" none.vmt >none.meta || fail "vmtmeta none.vmt"
[ "$(json none.meta 'd["meta"]["trigger.reasons"]')" = "$LONG" ] || fail "META trigger.reasons"
vmtrace-report none.vmt >none.txt || fail "report none.vmt"
grep -A1 "^Flight recording (threshold 200.0 ms): nothing triggered" none.txt | tail -n 1 |
	grep -q "^      only pairs of --trigger-reason getppid,.*\.\.\. could trigger$" ||
	{ cat none.txt; fail "the report's lines do not name the list, cut"; }
widths_ok none.err none.txt rec.out || fail "lines wider than 120 columns"

# bad command lines: exit 64, before anything is traced (no file)
run vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" --on-threshold 1ms --trigger-reason nosuch -o bad.vmt
expect_rc 64 "an unknown name"
expect_one_line_error vmtrace-record "--trigger-reason: unknown system call 'nosuch'"
run vmtrace-record -p 1 -c 0 --on-threshold 1ms --trigger-reason hltt -o bad.vmt
expect_rc 64 "an unknown exit reason"
expect_one_line_error vmtrace-record "--trigger-reason: unknown exit reason 'hltt'"
# the other vendor's name would match no exit on this host: refused, naming this one's
case $(grep -m1 '^vendor_id' /proc/cpuinfo) in
*AuthenticAMD*) other=EPT_VIOLATION ours=npf ;;
*GenuineIntel*) other=npf ours=EPT_VIOLATION ;;
*) other= ;;
esac
if [ -n "$other" ]; then
	run vmtrace-record -p 1 -c 0 --on-threshold 1ms --trigger-reason "-$other" -o bad.vmt
	expect_rc 64 "the other vendor's name"
	expect_one_line_error vmtrace-record "--trigger-reason: $other is an .* exit reason; .* whose name is $ours"
fi
for l in ' , ' 'read,' ',read' 'read,-' '- ,read'; do
	run vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" --on-threshold 1ms --trigger-reason "$l" -o bad.vmt
	expect_rc 64 "the list '$l'"
	expect_one_line_error vmtrace-record "invalid --trigger-reason list '$l': a"
done
run vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" --on-threshold 1ms --trigger-reason read,-read -o bad.vmt
expect_rc 64 "a list that leaves out what it lists"
expect_one_line_error vmtrace-record "--trigger-reason: 'read,-read' leaves out every reason it lists"
run vmtrace-record -p 1 -c 0 -e irq:softirq_entry,irq:softirq_exit --on-threshold 1ms \
	--trigger-reason 3 -o bad.vmt
expect_rc 64 "a pair without reasons"
expect_one_line_error vmtrace-record "--trigger-reason: irq:softirq_entry events carry no reason"
run vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" --trigger-reason read -o bad.vmt
expect_rc 64 "without --on-threshold"
expect_one_line_error vmtrace-record "--trigger-reason need --on-threshold"
[ ! -e bad.vmt ] || fail "a bad command line left bad.vmt"
ls bad.vmt.* >/dev/null 2>&1 && fail "a bad command line left a part file"
exit 0
