#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-record --on-threshold (the flight recorder) on this machine's tracefs with the
# syscall pair on CPU 1. The workload is tests/helpers/why_load spikes: a process named like
# a VMM (its thread "CPU 0/KVM"), so that --vm PID filters on it in the kernel and no other
# task's system call can trigger; it makes getppid() bursts and, between them, read()s
# that a waker answers after 1.2 s, over the 1 s threshold. Checked against the files
# (vmtrace-convert --events): each holds the read that triggered, with the latency the
# recorder named, and nothing from more than --keep before it (a page's worth of margin),
# and, when older chunks were dropped, the whole --keep; vmtrace-report names the exit
# (a line, a JSON object) and --around trigger lists it. With --continue 2 and three
# reads: two numbered files, one trigger each, distinct, then the recorder stops; a stop
# signal finishes the file in progress (a trigger's --after still running) and leaves no
# empty file after a finished one. Memory stays bounded (--ring-size 64M) with the loop flat
# out and no trigger; bad command lines get exit 64.
. "$(dirname "$0")/lib.sh"
need_tracefs
record_prio=20

# The test's own commands (sleep, grep) stay off the traced CPU.
taskset -pc 0 $$ >/dev/null || skip "taskset"
LAT_NS=1000000000
KEEP_NS=500000000
WAIT_LINE=$(printf '\n')

# start_load ROUNDS BURST_MS PAUSE_US: why_load spikes on CPU 1 (start_why_load, lib.sh),
# the reader blocked 1.2 s a round.
start_load() {
	start_why_load "$1" 1200000 "$2" "$3"
}
go_load() {
	echo "$WAIT_LINE" >&3
	exec 3>&-
}
# flight ARGS...: record the load's syscalls on CPU 1 with --vm, plus ARGS.
flight() {
	start_record -p 1 -c 0 --vm "$reader" -e "$SYSCALL_EVENTS" --context none "$@"
}

start_load 1 1500 1000
flight -s 30 --on-threshold 1s --keep 500ms --after 500ms -o fr.vmt
go_load
wait "$rec_pid"
rc=$?
wait "$load" || fail "why_load"
[ "$rc" = 0 ] || { cat rec.err; fail "vmtrace-record --on-threshold exited $rc"; }
grep -q "stopped by threshold" rec.err || { cat rec.err; fail "not stopped by the trigger"; }
line=$(grep "triggered" rec.err) || { cat rec.err; fail "no trigger named"; }
# a syscall pair: the recorder names a pair, not an exit
lat=$(echo "$line" | sed -n 's/.*: a pair of \([0-9]*\) ns (pid \([0-9-]*\),.*/\1/p')
pid=$(echo "$line" | sed -n 's/.*: a pair of \([0-9]*\) ns (pid \([0-9-]*\),.*/\2/p')
[ -n "$lat" ] && [ -n "$pid" ] || fail "cannot read the trigger from: $line"
[ "$lat" -ge $LAT_NS ] || fail "the trigger's latency $lat ns is under the threshold"
[ "$pid" = "$reader" ] || fail "pid $pid triggered, not the reader $reader (the filter)"
dropped=$(echo "$line" | sed -n 's/.* \([0-9]*\) dropped before.*/\1/p')
cat rec.err
! grep -q "larger --ring-size" rec.err || fail "a --ring-size warning with the default ring"
# the closing summary on standard output names the trigger as the report does
trig_line=$(vmtrace-report fr.vmt | grep "^Triggered by the pair at ") ||
	fail "the report names no trigger"
[ "$(grep "^Triggered by" rec.out)" = "$trig_line" ] && echo "$trig_line" | grep -q "(task $pid," ||
	{ cat rec.out; fail "the recorder's summary does not name the trigger as the report does"; }
# its time ends with its window: no trace.stop_ts, whose exits open ran to the stop
python3 "$top_srcdir/tests/helpers/vmtmeta.py" fr.vmt >fr.meta || fail "vmtmeta fr.vmt"
[ "$(json fr.meta '"trace.stop_ts" in d["end"]')" = False ] || fail "a flight file with trace.stop_ts"

run vmtrace-convert --events --csv fr.vmt
expect_rc 0 "convert --events"
mv out.txt events.csv
python3 - events.csv "$lat" "$pid" "$KEEP_NS" "$dropped" <<'PY' ||
import csv, sys
lat, pid, keep, dropped = int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rows = list(csv.DictReader(open(sys.argv[1])))
trig = [r for r in rows if r["kind"] == "end" and r["latency_ns"] == str(lat) and
        r["task"] == pid]
if len(trig) != 1:
    print("the triggering exit (%d ns, pid %s) is %d times in the file" % (lat, pid, len(trig)))
    sys.exit(1)
exit_ts = int(trig[0]["ts_ns"]) - lat
first = min(int(r["ts_ns"]) for r in rows)
# the kept part starts on a page boundary: at most one page of events (4 KiB, 8 bytes an
# event at the least) before --keep. Counted, not timed: a starved loop fills a page slowly.
early = sum(1 for r in rows if int(r["ts_ns"]) < exit_ts - keep)
if early > 4096 // 8:
    print("the file starts %.3f s before the trigger, %d events before --keep: more than a "
          "page" % ((exit_ts - first) / 1e9, early))
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
grep -q "^Triggered by the pair at .* (task $pid, pCPU 1): " out.txt || fail "no Triggered line"
run vmtrace-report --json --around trigger,1us fr.vmt
expect_rc 0 "report --around trigger"
mv out.txt t.json
[ "$(json t.json 'd["trigger"]["latency_ns"]')" = "$lat" ] || fail "JSON trigger latency"
# the summary counts the file's own chunks and pages, not all the collector read
check_summary() { # FILE JSON RECERR
	local psz want got c
	psz=$(getconf PAGESIZE)
	c=$(json "$2" 'd["chunks"]')
	[ "$c" = 1 ] && want="1 chunk" || want="$c chunks"	# and "0 chunks"
	want="$want, $(($(json "$2" 'd["pages"]') * psz / 1024)) KiB"
	got=$(sed -n "s/.*wrote $1: \([0-9]* chunks\?, [0-9]* KiB\) of pages.*/\1/p" "$3")
	[ "$got" = "$want" ] || fail "$1: the summary says '$got' of pages, the file holds '$want'"
}
check_summary fr.vmt t.json rec.err
[ "$(json t.json 'd["trigger"]["pid"]')" = "$pid" ] || fail "JSON trigger pid"
[ "$(json t.json '[e["pid"] for e in d["around"] if e["kind"] == "begin" and
	e["time_ns"] == d["trigger"]["at_ns"]]')" = "[$pid]" ] ||
	fail "--around trigger does not list the exit that triggered"
# the read itself (system call 0 on x86-64) began the exit that triggered; its vcpu cell is
# the --vm map's (the reader is the fake VMM's vCPU 0)
grep -q "^[0-9]*,[0-9]*,1,$reader,[^,]*,begin,0,0," events.csv ||
	fail "the reader's read() is not in the file"

# --continue 2 with three reads 3.2 s apart (2 s bursts): fr-001.vmt and fr-002.vmt, a
# read each, then the recorder stops by itself; the third read makes no third file.
start_load 3 2000 1000
flight -s 60 --on-threshold 1s --keep 500ms --after 300ms --continue 2 -o fr.vmt
go_load
wait "$rec_pid"
rc=$?
wait "$load" || fail "why_load"
cat rec.err
[ "$rc" = 0 ] || fail "vmtrace-record --continue exited $rc"
grep -q "stopped by threshold" rec.err || fail "--continue 2 did not stop after 2 triggers"
[ "$(awk '{print $4}' load.txt | tail -1)" = 3 ] || fail "the load made no 3 reads"
[ "$(ls fr-*.vmt | tr '\n' ' ')" = "fr-001.vmt fr-002.vmt " ] ||
	fail "files: $(ls fr-*.vmt | tr '\n' ' '), not fr-001.vmt fr-002.vmt"
grep "triggered" rec.err | sed -n 's/.*: a pair of \([0-9]*\) ns (pid \([0-9-]*\),.*/\1 \2/p' \
	>named.txt
[ "$(wc -l <named.txt)" = 2 ] || fail "not two triggers named"
for i in 1 2; do
	f=fr-00$i.vmt
	run vmtrace-convert --events --csv "$f"
	expect_rc 0 "convert --events $f"
	mv out.txt "ev$i.csv"
	run vmtrace-report --json --around trigger,1us "$f"
	expect_rc 0 "report on $f"
	mv out.txt "t$i.json"
	[ "$(json "t$i.json" 'd["trigger"]["latency_ns"], d["trigger"]["pid"]' | tr -d '(),')" = \
	  "$(sed -n "${i}p" named.txt)" ] || fail "$f: the report's trigger is not the one named"
	[ "$(json "t$i.json" '[e["pid"] for e in d["around"] if e["kind"] == "begin" and
		e["time_ns"] == d["trigger"]["at_ns"]]')" = "[$reader]" ] ||
		fail "$f: --around trigger does not list the exit that triggered"
done
python3 - ev1.csv ev2.csv named.txt "$reader" "$LAT_NS" "$KEEP_NS" <<'PY' ||
import csv, sys
reader, lat_min, keep = sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
named = [l.split() for l in open(sys.argv[3])]
spans, exits = [], []
for f, (lat, pid) in zip(sys.argv[1:3], named):
    rows = list(csv.DictReader(open(f)))
    ts = [int(r["ts_ns"]) for r in rows]
    trig = [r for r in rows if r["kind"] == "end" and r["latency_ns"] == lat and
            r["task"] == pid]
    if pid != reader or int(lat) < lat_min or len(trig) != 1:
        sys.exit("%s: trigger %s ns pid %s: not the reader's, under the threshold or not "
                 "once in the file" % (f, lat, pid))
    exit_ts = int(trig[0]["ts_ns"]) - int(lat)
    # the read (system call 0) that began it is in the same file
    if not [r for r in rows if r["kind"] == "begin" and int(r["ts_ns"]) == exit_ts and
            r["reason_code"] == "0" and r["task"] == reader]:
        sys.exit("%s: the read that began the trigger is not in the file" % f)
    # at most a page of events before --keep (as above: counted, not timed)
    if sum(1 for t in ts if t < exit_ts - keep) > 4096 // 8:
        sys.exit("%s: starts %.3f s before its trigger, more than a page before --keep" %
                 (f, (exit_ts - min(ts)) / 1e9))
    spans.append((min(ts), max(ts)))
    exits.append(exit_ts)
    print("%s: %d events, trigger %.3f s after its first, %.3f s before its last" %
          (f, len(rows), (exit_ts - min(ts)) / 1e9, (max(ts) - exit_ts) / 1e9))
# two reads, 3.2 s apart; the files do not overlap
if not 3.0e9 < exits[1] - exits[0] < 3.5e9:
    sys.exit("the triggers are %.3f s apart, not one read apart" % ((exits[1] - exits[0]) / 1e9))
if spans[1][0] <= spans[0][1]:
    sys.exit("fr-002.vmt starts before fr-001.vmt ends")
# the second file keeps what came before its read: the burst's last --keep
if spans[1][0] > exits[1] - keep + 200000000:
    sys.exit("fr-002.vmt starts only %.3f s before its trigger" % ((exits[1] - spans[1][0]) / 1e9))
PY
	fail "the --continue files do not hold what they should"
check_summary fr-002.vmt t2.json rec.err
# vmtrace-report takes the numbered files as any recordings
run vmtrace-report fr-001.vmt fr-002.vmt
expect_rc 0 "report on both files"
grep -q "fr-002.vmt" out.txt || fail "the report does not list fr-002.vmt"

# A stop signal while the trigger's --after runs finishes that file: the whole file, with
# its trigger, and no second one.
rm -f fr-*.vmt
start_load 1 1500 1000
flight -s 60 --on-threshold 1s --keep 500ms --after 1h --continue 3 -o fr.vmt
go_load
wait "$load" || fail "why_load"
sleep 2
kill -INT "$rec_pid"
wait "$rec_pid" || { cat rec.err; fail "SIGINT during --after: not exit 0"; }
grep -q "stopped by SIGINT" rec.err || { cat rec.err; fail "not stopped by SIGINT"; }
[ "$(ls fr-*.vmt | tr '\n' ' ')" = "fr-001.vmt " ] || fail "not fr-001.vmt alone"
run vmtrace-report --json fr-001.vmt
expect_rc 0 "report on the file a signal finished"
[ "$(json out.txt 'd["trigger"]["pid"]')" = "$reader" ] || fail "the file in progress lost its trigger"
# After a finished file, a stop signal while none is triggered leaves no empty file.
rm -f fr-*.vmt
start_load 1 1500 1000
flight -s 60 --on-threshold 1s --keep 500ms --after 300ms --continue 3 -o fr.vmt
go_load
wait "$load" || fail "why_load"
for _ in $(seq 200); do
	grep -q "wrote fr-001.vmt" rec.err && break
	sleep 0.05
done
kill -INT "$rec_pid"
wait "$rec_pid" || { cat rec.err; fail "SIGINT after a file: not exit 0"; }
grep -q "stopped by SIGINT: 1 file written, no trigger since" rec.err ||
	{ cat rec.err; fail "no 'no trigger since'"; }
[ "$(ls fr-*.vmt fr-*.part 2>/dev/null | tr '\n' ' ')" = "fr-001.vmt " ] ||
	fail "not fr-001.vmt alone: $(ls fr-* | tr '\n' ' ')"

# --ring-size too small for --keep at this rate: the loop flat out fills 4 MiB in some 50 ms,
# and the trigger is seen up to a second after the read ended, with the last burst running:
# the pages of the read's start are gone. The recorder says so, naming --ring-size.
start_load 1 1500 0
flight -s 30 --on-threshold 1s --keep 500ms --after 300ms --ring-size 4M -o small.vmt
go_load
wait "$rec_pid"
rc=$?
wait "$load" || fail "why_load"
cat rec.err
[ "$rc" = 0 ] || fail "vmtrace-record --ring-size 4M exited $rc"
grep -q "stopped by threshold" rec.err || fail "--ring-size 4M: not stopped by the trigger"
[ "$(grep -c "try a larger --ring-size" rec.err)" = 1 ] ||
	fail "--ring-size 4M: no warning (or more than one) that the kept pages fall short"

# (the time --continue's files cover, their durations and rates: record_flight_span.sh)

# The messages name the file the user asked for, and a directory as one.
run vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" --context none --on-threshold 1s \
	--continue 2 -s 1 -o /nonexistent/x.vmt
expect_rc 1 "--continue into a missing directory"
expect_one_line_error vmtrace-record "/nonexistent/x-001.vmt: cannot create: No such file"
mkdir -p outdir
run vmtrace-record -p 1 -e "$SYSCALL_EVENTS" --on-threshold 1s --continue 2 -o outdir/
expect_rc 64 "--continue into a directory"
expect_one_line_error vmtrace-record "-o outdir/ is a directory"

# --continue and no trigger at all: no file (no empty numbered one), a line that says so
# (pairs there were: a loop makes them on CPU 1, which may otherwise be idle).
rm -f z*.vmt
"$HELPERS/syscall_loop" 1 0 3 >/dev/null &
loop=$!
run vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" --context none --on-threshold 1h --continue 2 \
	-s 1 -o z.vmt
kill $loop 2>/dev/null
wait $loop 2>/dev/null
expect_rc 0 "--continue without a trigger"
grep -q "stopped by duration: no pair reached --on-threshold 3600 s, no file written" err.txt ||
	{ cat err.txt; fail "--continue without a trigger: no line saying so"; }
[ -z "$(ls z*.vmt* 2>/dev/null)" ] || fail "--continue without a trigger left $(ls z*.vmt*)"
# Without --continue: the file, without pages by design; the recorder and the report say
# "nothing triggered" once each, never that the event does not fire.
"$HELPERS/syscall_loop" 1 0 3 >/dev/null &
loop=$!
run vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" --context none --on-threshold 10s -s 1 \
	-o z.vmt
kill $loop 2>/dev/null
wait $loop 2>/dev/null
expect_rc 0 "a flight recording without a trigger"
unfold err.txt >err1.txt
cat err1.txt
want="nothing triggered: no pair reached --on-threshold 10 s; z.vmt holds the recording's"
[ "$(grep -c "nothing triggered" err1.txt)" = 1 ] && grep -q "$want metadata, no pages" err1.txt ||
	fail "no trigger: the recorder does not say 'nothing triggered' once"
! grep -q "not one .* event\|does not fire" err1.txt out.txt ||
	fail "no trigger: the recorder warns that the event does not fire"
# its closing summary on standard output ends with the report's line (it ended at "No
# begin-end pairs")
[ "$(grep -c "nothing triggered" out.txt)" = 1 ] &&
	[ "$(tail -1 out.txt)" = "Flight recording (threshold 10.00 s): nothing triggered" ] ||
	{ cat out.txt; fail "no trigger: the recorder's summary does not say 'nothing triggered'"; }
# Not one exit at all (KVM's pair, which never fires on this machine): said as that, not
# as exits that were all short; the same for a live view without a file (--no-output).
run vmtrace-record -p 1 -c 0 --context none --on-threshold 1ms -s 1 -o k.vmt
expect_rc 0 "a flight recording of KVM's pair without an exit"
unfold err.txt >err2.txt
grep -q "^vmtrace-record: warning: not one kvm:kvm_exit event on the traced CPUs (1) while it ran: no guest ran on those CPUs" err2.txt &&
	grep -q "nothing triggered: not one exit came; k.vmt holds the recording's metadata" err2.txt ||
	{ cat err2.txt; fail "no exit at all: the flight recorder's words"; }
! grep -q "reached --on-threshold" err2.txt || fail "no exit at all: said to be short ones"
run vmtrace-record -p 1 -c 0 --context none --live=1s --no-output -s 1
expect_rc 0 "--live --no-output of KVM's pair without an exit"
unfold err.txt | grep -q "^vmtrace-record: warning: not one kvm:kvm_exit event on the traced CPUs (1) while it ran" ||
	{ cat err.txt; fail "--live --no-output without an exit: no word of it"; }
run vmtrace-report z.vmt
expect_rc 0 "report on a flight recording without a trigger"
cat out.txt err.txt
[ "$(cat out.txt err.txt | grep -c "nothing triggered")" = 1 ] &&
	grep -q "^Flight recording (threshold 10.00 s): nothing triggered$" out.txt ||
	fail "no trigger: the report does not say 'nothing triggered' once"
! grep -q "not one .* event\|does not fire" out.txt err.txt ||
	fail "no trigger: the report warns that the event does not fire"
run vmtrace-report --json z.vmt
expect_rc 0 "report --json on a flight recording without a trigger"
[ "$(json out.txt 'd["pairs"], d["trigger"]')" = "(0, None)" ] &&
	! grep -q "not one .* event\|does not fire" err.txt ||
	fail "no trigger: the JSON's pairs or trigger, or a warning"

# Memory stays bounded: the loop flat out (some 80 MB/s of pages here) for 12 s, no exit
# of an hour: the ring would hold two hours, so --ring-size 64M holds it (full within a
# second); from 8 s on RSS stands still, under 64 MiB of ring, the tap's 64 MiB and the
# writer queue's pool of 64 chunks of 1 MiB.
start_load 0 12000 0
flight -s 13 --on-threshold 1h --keep 10s --ring-size 64M -o none.vmt
go_load
sleep 8
rss1=$(awk '/^VmRSS/ {print $2}' "/proc/$rec_pid/status")
sleep 3
rss2=$(awk '/^VmRSS/ {print $2}' "/proc/$rec_pid/status")
wait "$rec_pid" || { cat rec.err; fail "the bounded recording failed"; }
wait "$load"
echo "RSS after 8 s: $rss1 KiB, after 11 s: $rss2 KiB"
if grep -q "stopped by threshold" rec.err; then
	fail "an exit of an hour triggered"
else
	# AddressSanitizer's shadow and quarantine add to every allocation: the fixed bound
	# is for the plain build; that RSS stands still holds in both
	if ldd "$(command -v vmtrace-record)" | grep -q libasan; then
		skip_part "the RSS bound (built with AddressSanitizer)"
	else
		[ "$rss2" -lt 250000 ] ||
			fail "RSS $rss2 KiB over the bound (64 MiB ring, 64 MiB tap, 64 MiB pool)"
	fi
	[ "$rss2" -le $((rss1 + 32768)) ] || fail "RSS grew from $rss1 to $rss2 KiB"
	run vmtrace-report --json none.vmt
	expect_rc 0 "report on an untriggered recording"
	[ "$(json out.txt 'd["pairs"]')" = 0 ] || fail "an untriggered recording holds pairs"
fi

run vmtrace-report --around trigger "$DATA/sample-kvm.vmt"
expect_rc 64 "--around trigger on a recording that is no flight recording"
expect_one_line_error vmtrace-report "no exit triggered"
run vmtrace-record -p 1 --keep 5s -e "$SYSCALL_EVENTS"
expect_rc 64 "--keep without --on-threshold"
expect_one_line_error vmtrace-record "need --on-threshold"
run vmtrace-record -p 1 --on-threshold 0 -e "$SYSCALL_EVENTS"
expect_rc 64 "--on-threshold 0"
expect_one_line_error vmtrace-record "invalid --on-threshold"
run vmtrace-record -p 1 --continue 3 -e "$SYSCALL_EVENTS"
expect_rc 64 "--continue without --on-threshold"
expect_one_line_error vmtrace-record "need --on-threshold"
run vmtrace-record -p 1 --on-threshold 1s --continue 0 -e "$SYSCALL_EVENTS"
expect_rc 64 "--continue 0"
expect_one_line_error vmtrace-record "invalid --continue"
run vmtrace-record -p 1 --on-threshold 1s --continue 2 -o - -e "$SYSCALL_EVENTS"
expect_rc 64 "--continue to standard output"
expect_one_line_error vmtrace-record "not with -o -"
run vmtrace-record -p 1 --on-threshold 1s --continue 2 -o /dev/null -e "$SYSCALL_EVENTS"
expect_rc 64 "--continue to a device"
expect_one_line_error vmtrace-record "not with -o -, a device"
# /dev/stdout on a file is standard output's descriptor, not a name to number
run vmtrace-record -p 1 --on-threshold 1s --continue 2 -o /dev/stdout -e "$SYSCALL_EVENTS"
expect_rc 64 "--continue to /dev/stdout"
expect_one_line_error vmtrace-record "not with -o -, a device"
[ -L /dev/stdout ] && [ ! -e /dev/stdout-001 ] || fail "--continue -o /dev/stdout: /dev touched"
run vmtrace-record -p 1 --on-threshold 1s --ring-size 10K -e "$SYSCALL_EVENTS"
expect_rc 64 "--ring-size 10K"
expect_one_line_error vmtrace-record "invalid --ring-size"
finish
