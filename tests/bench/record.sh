#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench: vmtrace-record on the syscall source at full rate (a loop pinned to CPU 1,
# collector on CPU 0): the default (zstd level 1, context events), the pair only
# (--context none), level 3 with context, and the default with --live=1s (the live view's
# tap decoding every page on the collector thread, its lines to /dev/null), side by side in
# one run, three runs each, medians printed.
# Figures: pair events/s recorded, context records/s, lost events, collector CPU time per
# second, bytes written per pair and versus the raw pages, and IWI (irq_work) interrupts
# on the traced CPU.
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

run_vmtrace() {	# run_vmtrace LEVEL CONTEXT [OPTION]
	rm -f "$work/b.vmt"
	vmtrace-record -q -l "$1" --context "$2" ${3:-} -p 1 -c 0 -s "$SECS" \
		-e raw_syscalls:sys_enter,raw_syscalls:sys_exit -o "$work/b.vmt" \
		>/dev/null 2>"$work/err" &
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
ev, span = d["events"], d["span_ns"] / 1e9
print("%d %d %d %.3f %.2f %.4f %d" % (ev / span if span else 0,
      d["other_records"] / span if span else 0, max(d["lost_events"], d["lost_events_stats"]),
      ticks / hz / secs, size / d["pairs"], size / (d["pages"] * 4096), iwi))
PY
}

echo "vmtrace-record, syscall loop on CPU 1, collector CPU 0, ${SECS}s, $RUNS runs (medians)"
: >"$work/c1"; : >"$work/n1"; : >"$work/c3"; : >"$work/lv"
i=0
while [ $i -lt "$RUNS" ]; do
	run_vmtrace 1 default >>"$work/c1"
	run_vmtrace 1 none >>"$work/n1"
	run_vmtrace 3 default >>"$work/c3"
	run_vmtrace 1 default --live=1s >>"$work/lv"
	i=$((i + 1))
done
col() { awk -v c="$2" '{ print $c }' "$1" | median; }
row() {	# row LABEL COLUMN
	printf '%-30s %14s %14s %14s %14s\n' "$1" "$(col "$work/c1" "$2")" "$(col "$work/n1" "$2")" \
		"$(col "$work/c3" "$2")" "$(col "$work/lv" "$2")"
}
printf '%-30s %14s %14s %14s %14s\n' "" "l1, context" "l1, none" "l3, context" "l1, --live"
row "pair events/s recorded" 1
row "context records/s" 2
row "lost events" 3
row "collector CPU seconds per s" 4
row "bytes written per pair" 5
row "file size / raw pages" 6
row "IWI interrupts on CPU 1" 7
