#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A real recording on this machine's tracefs: a loop pinned to CPU 1 makes N system calls
# while vmtrace-record traces CPU 1 from CPU 0; the report must find at least N pairs from
# that task, with no lost events at default settings, and nothing left in tracefs.
#
# On a loaded machine (make -j4 check, other work) the loop runs at SCHED_FIFO priority, so
# that no other task shares CPU 1 while it runs, and counts CPU 1's irq_work interrupts
# itself, just around its calls: those are then the recorder's alone. The recorder runs at
# SCHED_FIFO priority too: "no loss at default settings" is about the recorder keeping up
# with the loop's full rate (some 100 MB/s of events) when it gets its CPU, which a busy
# CPU 0 otherwise takes away for longer than the 8 MiB buffer lasts. The recording is
# stopped (SIGINT) as soon as the loop is done, so that it holds the loop's events rather
# than seconds of whatever else ran on CPU 1, and its size measures how the loop's pages
# compress.
. "$(dirname "$0")/lib.sh"
need_tracefs
record_prio=20

N=200000
ls /sys/kernel/tracing/instances >instances.before
top_events=$(cat /sys/kernel/tracing/set_event)
start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" -o run.vmt
"$HELPERS/syscall_loop" -r 1 $N >loop.txt || fail "syscall_loop"
kill -INT "$rec_pid"
loop_pid=$(awk '{print $2}' loop.txt)
iwi=$(awk '{print $6}' loop.txt)
wait "$rec_pid"
rc=$?
[ "$rc" = 0 ] || { cat rec.err; fail "vmtrace-record exited $rc"; }
no_instance_left "$rec_pid"
ls /sys/kernel/tracing/instances | diff instances.before - || fail "instances changed"
[ "$(cat /sys/kernel/tracing/set_event)" = "$top_events" ] || fail "top-level events touched"

# The collector polls with non-blocking reads: no wake-up interrupt on the traced CPU.
if [ "$iwi" = - ]; then
	skip_part "the irq_work check (no IWI row in /proc/interrupts)"
else
	[ "$iwi" = 0 ] || fail "$iwi IWI interrupts on CPU 1 during the loop"
fi
[ -f run.vmt ] || fail "no output file"
[ "$(stat -c %a run.vmt)" = 644 ] || fail "output mode $(stat -c %a run.vmt)"
ls ./*.part 2>/dev/null && fail "temporary file left behind"
grep -q "^Begin-end pairs = " rec.out || fail "vmtrace-record printed no summary"

run vmtrace-report --json run.vmt
expect_rc 0 "report on the recording"
mv out.txt r.json
[ "$(json r.json 'd["finished"]')" = True ] || fail "recording not finished"
[ "$(json r.json 'd["lost_events"]')" = 0 ] || fail "lost events at default settings"
[ "$(json r.json 'd["lost_events_stats"]')" = 0 ] || fail "ring buffer stats show losses"
[ "$(json r.json 'd["cpus"]')" = "[1]" ] || fail "traced CPUs"
pairs=$(json r.json "sum(t['pairs'] for t in d['vcpus'] if t['pid'] == $loop_pid)")
[ "$pairs" -ge $N ] || fail "only $pairs pairs from the loop (pid $loop_pid), expected >= $N"
[ "$(json r.json 'd["bad_pages"] + d["bad_chunks"] + d["bad_records"]')" = 0 ] ||
	fail "damage in a fresh recording"
# compressed well: less than a tenth of the raw pages
pages=$(json r.json 'd["pages"]')
size=$(stat -c %s run.vmt)
[ "$size" -lt $((pages * 4096 / 10)) ] ||
	fail "$size bytes for $pages pages ($(json r.json 'd["pairs"]') pairs, $pairs of them the loop's)"

# The ids are named after the system calls (x86-64 here): the loop calls getppid(), so the
# reason holding its calls must be named so, and --reason takes the name.
if [ "$(uname -m)" = x86_64 ]; then
	named=$(json r.json "[r['count'] for r in d['reasons'] if r['name'] == 'getppid'][0]")
	[ "$named" -ge $N ] || fail "getppid: $named pairs, the loop made $N"
	run vmtrace-report --json --reason getppid run.vmt
	expect_rc 0 "--reason getppid"
	[ "$(json out.txt 'd["pairs"] - d["filtered_out"]')" = "$named" ] ||
		fail "--reason getppid selected other pairs"
else
	skip_part "system call names (x86-64 only)"
fi

# The record's own summary agrees with the report's.
grep -q "^Begin-end pairs = $(json r.json 'd["pairs"]')\$" rec.out ||
	fail "record and report summaries differ"
# its task table: no vCPU column for system calls; the tasks named by the context events
# (recorded by default) as "comm (pid)", the loop's as the report names it (and as it is
# called), its row with the report's count
grep -Eq '^  task +pairs +avg +max +max/window$' rec.out ||
	fail "task table header: $(grep -A1 '^Tasks' rec.out | tail -1)"
comm=$(json r.json "[t['comm'] for t in d['vcpus'] if t['pid'] == $loop_pid][0]")
[ "$comm" = syscall_loop ] || fail "the report names the loop '$comm'"
[ "$(awk -v t="$comm ($loop_pid)" 'substr($0, 3, length(t) + 1) == t " " { print $3 }' rec.out)" = "$pairs" ] ||
	fail "the loop's row in the task table: $(grep -A11 '^Tasks' rec.out)"

# Metadata: the file describes itself.
grep -a -q "raw_syscalls:sys_enter" run.vmt || fail "event name not in the file"
grep -a -q "field:long id;" run.vmt || fail "format file not in the file"

# A second run keeps the first file as run.vmt.old.
cp run.vmt first.vmt
run vmtrace-record -q -p 1 -c 0 -s 200ms -e "$SYSCALL_EVENTS" -o run.vmt
expect_rc 0 "second recording"
cmp -s first.vmt run.vmt.old || fail "the previous file was not kept as run.vmt.old"
[ ! -s out.txt ] || fail "-q printed a summary"

# Other clocks: ns clocks as they are; x86-tsc counts cycles and the recorder measures its
# rate, so figures are still in ns and the loop's mean latency stays plausible.
for clock in mono global x86-tsc; do
	grep -qw "$clock" /sys/kernel/tracing/trace_clock ||
		{ skip_part "-C $clock (not a clock of this kernel)"; continue; }
	start_record -p 1 -c 0 -s 1500ms -C "$clock" -e "$SYSCALL_EVENTS" -o "$clock.vmt"
	"$HELPERS/syscall_loop" -r 1 50000 >loop.txt
	wait "$rec_pid" || fail "-C $clock: exit status"
	run vmtrace-report --json "$clock.vmt"
	expect_rc 0 "-C $clock"
	[ "$(json out.txt 'd["clock"]')" = "$clock" ] || fail "-C $clock: clock not recorded"
	[ "$(json out.txt 'd["unit"]')" = ns ] || fail "-C $clock: figures not in ns"
	loop_pid=$(awk '{print $2}' loop.txt)
	avg=$(json out.txt "[t['avg_ns'] for t in d['vcpus'] if t['pid'] == $loop_pid][0]")
	[ "$avg" -gt 10 ] && [ "$avg" -lt 100000 ] || fail "-C $clock: implausible mean ${avg} ns"
done
# A clock the kernel lacks: a bad command line (64), said first and alone (with the
# default context events too), naming the clocks the kernel offers as trace_clock lists them
offer=$(sed 's/[][]//g; s/ *$//; s/ /, /g' /sys/kernel/tracing/trace_clock)
for ctx in "--context none" ""; do
	# shellcheck disable=SC2086
	run vmtrace-record -p 1 -s 1 -C no-such-clock -e "$SYSCALL_EVENTS" $ctx -o clk.vmt
	expect_one_line_error vmtrace-record "--clock: clock 'no-such-clock' not available"
	[ "$rc" = 64 ] || fail "-C no-such-clock $ctx: exit $rc, not 64"
	unfold err.txt | grep -q "; this kernel offers $offer\$" || { cat err.txt; fail "clocks not listed: $offer"; }
	[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt; fail "-C no-such-clock $ctx: not one line"; }
	[ ! -e clk.vmt ] || fail "-C no-such-clock: a file was left"
done

# Every online CPU traced: the collector runs unpinned, and says so in words.
run vmtrace-record -p "$(cat /sys/devices/system/cpu/online)" -s 200ms -e "$SYSCALL_EVENTS" \
	--context none -o all.vmt
expect_rc 0 "every CPU traced"
unfold err.txt | grep -q "collector unpinned" || { cat err.txt; fail "no 'collector unpinned'"; }
unfold err.txt | grep -q "warning: every online CPU is traced: the collector runs unpinned" ||
	{ cat err.txt; fail "no warning that the collector runs unpinned"; }
# The collector on a traced CPU: a warning that its work shows in the latencies.
run vmtrace-record -p 1 -c 1 -s 100ms -e "$SYSCALL_EVENTS" --context none -o col.vmt
expect_rc 0 "collector on the traced CPU"
unfold err.txt | grep -q "warning: collector CPU 1 is also traced" ||
	{ cat err.txt; fail "no warning that the collector CPU is traced"; }
! { unfold err.txt; cat out.txt; } | grep -q "CPU -1" || fail "a message says CPU -1"

# The original tool's command line (one CPU, -c, -s in seconds) with the default output name.
run vmtrace-record -q -p 1 -c 0 -s 1 -e "$SYSCALL_EVENTS"
expect_rc 0 "original command line"
[ -f trace.vmt ] || fail "no default trace.vmt"
finish
