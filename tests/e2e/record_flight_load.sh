#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The flight recorder at a high event rate: a trigger hands on hundreds of MiB of kept
# pages at once, and the collector must go on reading the ring buffers meanwhile. The load
# (tests/helpers/why_load spikes on CPU 1) calls getppid() flat out for 6 s, then blocks
# in a read() for 1.2 s (the trigger, over --on-threshold 1s), then calls getppid() again
# through --after; the recorder runs at real-time priority, as on a host that must not
# lose events. Before ring.c lent its room to the writer queue, the collector waited for
# the writer to compress the kept pages beyond the queue's 256 MiB; and the writer thread,
# at the collector's own SCHED_FIFO priority, kept the collector CPU for as long as it
# compressed: the kernel overwrote 8 820 to 271 992 events in each of 4 runs on this
# machine. Checked: the writer thread runs one priority below the others, and the file
# (kernel ring statistics and page flags, not the recorder's word) lost nothing.
. "$(dirname "$0")/lib.sh"
need_tracefs
record_prio=20

taskset -pc 0 $$ >/dev/null || skip "taskset"
WAIT_LINE=$(printf '\n')

start_why_load 1 1200000 6000 0
start_record -p 1 -c 0 --vm "$reader" -e "$SYSCALL_EVENTS" --context none -s 60 \
	--on-threshold 1s --keep 5s --after 2s -o fr.vmt
# the threads' scheduling while recording: main and the collector at 20, the writer at 19
ps -L -o rtprio= -p "$rec_pid" | sort -n | uniq -c >prio.txt
echo "$WAIT_LINE" >&3
exec 3>&-
wait "$rec_pid"
rc=$?
wait "$load" || fail "why_load"
cat rec.err prio.txt
[ "$rc" = 0 ] || fail "vmtrace-record --on-threshold exited $rc"
grep -q "stopped by threshold" rec.err || fail "not stopped by the trigger"
[ "$(awk '$2 == 19 {print $1}' prio.txt)" = 1 ] || fail "no writer thread at priority 19"
[ "$(awk '$2 == 20 {n += $1} END {print n}' prio.txt)" -ge 2 ] ||
	fail "main and the collector are not at priority 20"
[ "$(awk '$2 != 19 && $2 != 20' prio.txt)" = "" ] || fail "a thread at another priority"

run vmtrace-report --json fr.vmt
expect_rc 0 "report on the flight recording"
mv out.txt fr.json
kib=$(sed -n 's/.*wrote fr.vmt: [0-9]* chunks\?, \([0-9]*\) KiB of pages.*/\1/p' rec.err)
[ -n "$kib" ] || fail "no summary line"
lost=$(json fr.json 'd["lost_events"]')
echo "$kib KiB of pages written, $lost events lost"
[ "$lost" = 0 ] ||
	fail "$lost events lost while the kept pages were handed on (ring statistics $(json \
		fr.json 'd["lost_events_stats"]'), page flags $(json fr.json 'd["lost_events_pages"]'))"
# the kept part passed the writer queue's bound (record.c: 256 MiB), else the collector
# would not have waited before the fix either
[ "$kib" -gt $((256 * 1024)) ] ||
	skip_part "the load made $kib KiB of pages, under the writer queue's 256 MiB"
finish
