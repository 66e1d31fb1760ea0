#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The flight recorder at a high event rate: a trigger hands on hundreds of MiB of kept
# pages at once, and the collector must go on reading the ring buffers meanwhile. The load
# (tests/helpers/why_load spikes on CPU 1), twice: getppid() flat out for 6 s, then a
# read() blocked for 1.2 s (a trigger, over --on-threshold 1s); then getppid() again
# through --after. The recorder runs at real-time priority, as on a host that must not
# lose events, with --continue 2: two files. Before ring.c lent its room to the writer
# queue, the collector waited for the writer to compress the kept pages beyond the queue's
# 256 MiB; and the writer thread, at the collector's own SCHED_FIFO priority, kept the
# collector CPU for as long as it compressed: the kernel overwrote 8 820 to 385 476 events
# in each of 6 runs on this machine. Then main, also at that priority, read the first file
# back (its summary) while the second's pages came: the second file lost 132 552 to
# 342 804 events in 3 of 3 runs. Checked: the collector alone runs at the recorder's
# priority, main and the writer under SCHED_OTHER, and the files (kernel ring statistics and page
# flags, not the recorder's word) lost nothing. Real-time writer and main also used up
# the collector CPU's real-time share (sched_rt_runtime_us): the kernel then throttled
# every real-time task there, the collector too (5 292 events lost in the second file).
# Then the collector's own long rounds, one run in three: it walked every record of the
# 750 MiB a trigger handed on to learn that each chunk lay before the window's end (30 to
# 50 ms), and fed the pass half a second of records at once when the chunk after the
# blocked read came (20 to 35 ms); the kernel overwrote 924 to 22 764 events meanwhile.
. "$(dirname "$0")/lib.sh"
need_tracefs
record_prio=20
# Built with AddressSanitizer the collector decodes pages (for the trigger) some times slower
# than it would: it cannot keep up with the loop's rate there, whatever the priorities
ldd "$(command -v vmtrace-record)" | grep -q libasan &&
	skip "keeping up with a flat-out loop (built with AddressSanitizer)"

taskset -pc 0 $$ >/dev/null || skip "taskset"
WAIT_LINE=$(printf '\n')

start_why_load 2 1200000 6000 0
start_record -p 1 -c 0 --vm "$reader" -e "$SYSCALL_EVENTS" --context none -s 90 \
	--on-threshold 1s --keep 5s --after 2s --continue 2 -o fr.vmt
echo "$WAIT_LINE" >&3
exec 3>&-
# the threads' scheduling once the first trigger came: the collector at 20, the rest not RT
for _ in $(seq 600); do
	grep -q "triggered" rec.err && break
	sleep 0.05
done
ps -L -o rtprio= -p "$rec_pid" | sort -n | uniq -c >prio.txt
wait "$rec_pid"
rc=$?
wait "$load" || fail "why_load"
cat rec.err prio.txt
[ "$rc" = 0 ] || fail "vmtrace-record --on-threshold exited $rc"
grep -q "stopped by threshold" rec.err || fail "not stopped by the triggers"
[ "$(awk '$2 == 20 {print $1}' prio.txt)" = 1 ] || fail "not the collector alone at priority 20"
[ "$(awk '$2 == "-" {n += $1} END {print n + 0}' prio.txt)" -ge 2 ] ||
	fail "main and the writer are not under SCHED_OTHER"
[ "$(awk '$2 != "-" && $2 != 20' prio.txt)" = "" ] || fail "a thread at another priority"

for f in fr-001.vmt fr-002.vmt; do
	[ -s "$f" ] || fail "no $f"
	run vmtrace-report --json "$f"
	expect_rc 0 "report on $f"
	mv out.txt "$f.json"
	kib=$(($(json "$f.json" 'd["pages"]') * $(getconf PAGESIZE) / 1024))
	lost=$(json "$f.json" 'd["lost_events"]')
	echo "$f: $kib KiB of pages written, $lost events lost"
	[ "$lost" = 0 ] || fail "$f: $lost events lost while kept pages were handed on (ring \
statistics $(json "$f.json" 'd["lost_events_stats"]'), page flags $(json "$f.json" 'd["lost_events_pages"]'))"
done
# the first file's kept part passed the writer queue's bound (record.c: 256 MiB), else the
# collector would not have waited before the fix either
kib=$(($(json fr-001.vmt.json 'd["pages"]') * $(getconf PAGESIZE) / 1024))
[ "$kib" -gt $((256 * 1024)) ] ||
	skip_part "the load made $kib KiB of pages, under the writer queue's 256 MiB"
finish
