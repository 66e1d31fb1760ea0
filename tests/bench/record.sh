#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench: vmtrace-record on the syscall source at full rate (a loop pinned to CPU 1,
# collector on CPU 0), zstd level 1 and the default level 3 side by side in one run,
# three runs each, medians printed.
# Figures: events/s recorded, lost events, collector CPU time per second, bytes written
# per event and versus the raw pages, and IWI (irq_work) interrupts on the traced CPU.
# Timings, never pass/fail. Needs root and tracefs.
set -eu
top_builddir=${top_builddir:-$(pwd)}
PATH="$top_builddir:$PATH"
LOOP="$top_builddir/tests/helpers/syscall_loop"
SECS=${BENCH_SECONDS:-4}
RUNS=${BENCH_RUNS:-3}
T=/sys/kernel/tracing
[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 77; }
[ -e $T/trace_clock ] || mount -t tracefs nodev $T
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

iwi_cpu1() { awk '$1 == "IWI:" { print $3 }' /proc/interrupts; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }	# utime + stime
hz=$(getconf CLK_TCK)

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

run_vmtrace() {	# run_vmtrace LEVEL
	rm -f "$work/b.vmt"
	vmtrace-record -q -l "$1" -p 1 -c 0 -s "$SECS" -e raw_syscalls:sys_enter,raw_syscalls:sys_exit \
		-o "$work/b.vmt" 2>"$work/err" &
	pid=$!
	sleep 0.3
	iwi0=$(iwi_cpu1)
	t0=$(cpu_ticks $pid)
	"$LOOP" 1 0 "$((SECS - 1))" >/dev/null
	t1=$(cpu_ticks $pid)
	iwi1=$(iwi_cpu1)
	wait $pid
	vmtrace-report --json "$work/b.vmt" >"$work/r.json"
	python3 - "$work/r.json" "$(stat -c %s "$work/b.vmt")" "$((t1 - t0))" "$hz" "$((SECS - 1))" \
		"$((iwi1 - iwi0))" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
size, ticks, hz, secs, iwi = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
ev = d["events"]
print("%d %d %.3f %.2f %.4f %d" % (ev / d["span_ns"] * 1e9 if d["span_ns"] else 0, d["lost_events"],
      ticks / hz / secs, size / ev, size / (d["pages"] * 4096), iwi))
PY
}

echo "vmtrace-record, syscall loop on CPU 1, collector CPU 0, ${SECS}s, $RUNS runs (medians)"
: >"$work/l1"; : >"$work/l3"
i=0
while [ $i -lt "$RUNS" ]; do
	run_vmtrace 1 >>"$work/l1"
	run_vmtrace 3 >>"$work/l3"
	i=$((i + 1))
done
col() { awk -v c="$2" '{ print $c }' "$1" | median; }
printf '%-30s %12s %12s\n' "" "level 1" "level 3"
printf '%-30s %12s %12s\n' "events/s recorded" "$(col "$work/l1" 1)" "$(col "$work/l3" 1)"
printf '%-30s %12s %12s\n' "lost events" "$(col "$work/l1" 2)" "$(col "$work/l3" 2)"
printf '%-30s %12s %12s\n' "collector CPU seconds per s" "$(col "$work/l1" 3)" "$(col "$work/l3" 3)"
printf '%-30s %12s %12s\n' "bytes written per event" "$(col "$work/l1" 4)" "$(col "$work/l3" 4)"
printf '%-30s %12s %12s\n' "file size / raw pages" "$(col "$work/l1" 5)" "$(col "$work/l3" 5)"
printf '%-30s %12s %12s\n' "IWI interrupts on CPU 1" "$(col "$work/l1" 6)" "$(col "$work/l3" 6)"
