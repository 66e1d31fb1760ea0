#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench-soak (not in CI): SOAK_SECONDS (default 600) of the syscall source at full rate
# on CPU 1, recorded from CPU 0. Prints lost events, the recorder's resident memory sampled
# every 10 s (it must stay flat), the file size, and the loop's own call count against the
# pairs the report finds for it. Needs root and tracefs.
set -eu
top_builddir=${top_builddir:-$(pwd)}
PATH="$top_builddir:$PATH"
LOOP="$top_builddir/tests/helpers/syscall_loop"
SECS=${SOAK_SECONDS:-600}
[ "$(id -u)" = 0 ] || { echo "soak: needs root" >&2; exit 77; }
[ -e /sys/kernel/tracing/trace_clock ] || mount -t tracefs nodev /sys/kernel/tracing
work=${SOAK_DIR:-$(mktemp -d)}
vmtrace-record -q -p 1 -c 0 -s $((SECS + 3)) -e raw_syscalls:sys_enter,raw_syscalls:sys_exit \
	-o "$work/soak.vmt" 2>"$work/err" &
pid=$!
sleep 1
"$LOOP" 1 0 "$SECS" >"$work/loop.txt" &
loop=$!
: >"$work/rss"
while kill -0 $loop 2>/dev/null; do
	awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" >>"$work/rss" 2>/dev/null || true
	sleep 10
done
wait $pid
calls=$(awk '{ print $4 }' "$work/loop.txt")
lpid=$(awk '{ print $2 }' "$work/loop.txt")
start=$(date +%s)
vmtrace-report --json "$work/soak.vmt" >"$work/r.json"
took=$(( $(date +%s) - start ))
python3 - "$work/r.json" "$calls" "$lpid" "$work/rss" "$(stat -c %s "$work/soak.vmt")" "$SECS" "$took" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
calls, lpid, size, secs, took = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
rss = [int(x) for x in open(sys.argv[4]) if x.strip()]
pairs = sum(t["pairs"] for t in d["vcpus"] if t["pid"] == lpid)
print("soak: %d s of the syscall loop on CPU 1" % secs)
print("  loop calls              %d" % calls)
print("  pairs of the loop task  %d (%+d)" % (pairs, pairs - calls))
print("  events recorded         %d (%.0f/s)" % (d["events"], d["events"] / secs))
print("  lost events             %d (stats %s, pages %d)" % (d["lost_events"], d["lost_events_stats"], d["lost_events_pages"]))
print("  recorder RSS KiB        min %d, max %d over %d samples" % (min(rss), max(rss), len(rss)))
print("  file                    %.1f MB, %.2f bytes/event" % (size / 1e6, size / max(d["events"], 1)))
print("  report of the whole file %d s" % took)
PY
[ -n "${SOAK_DIR:-}" ] || rm -rf "$work"
