#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The time a flight recording's files cover (vmtrace-record --on-threshold --continue): each
# file's recorded duration is the span it keeps, from its kept start to --after past the end
# of the exit that triggered, not up to when the recorder finished the file (the settling
# wait after the window, the next file's wait). Every pair triggers (1 ns) with the syscall
# loop flat out on CPU 1: one file after the other. Checked on the files' own metadata read
# by an independent reader (tests/helpers/vmtmeta.py): each file's [kept start, end] lies
# within the run (CLOCK_MONOTONIC read before and after it), the files' intervals follow one
# another without overlap (their durations add up to at most the run), vmtrace-report's
# duration_ns is end - kept start and covers the file's events (span_ns), and the merged
# report's rates are its pairs over its duration less gaps, per file and merged, computed
# here from the numbers of the single reports.
. "$(dirname "$0")/lib.sh"
need_tracefs

taskset -pc 0 $$ >/dev/null || skip "taskset"
mono() { python3 -c 'import time; print(time.monotonic_ns())'; }

"$HELPERS/why_load" spikes 1 0 1 8000 1000 </dev/null >/dev/null 2>&1 &
loop=$!
cleanup_hooks="$cleanup_hooks; kill $loop 2>/dev/null"
before=$(mono)
run vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" --context none --on-threshold 1ns \
	--keep 200ms --after 200ms --continue 4 -s 6 -q -o c.vmt
after=$(mono)
kill "$loop" 2>/dev/null
wait "$loop"
expect_rc 0 "--continue with every pair a trigger"
[ "$(ls c-*.vmt | wc -l)" -ge 3 ] || { cat err.txt; fail "--continue 4 -s 6: under 3 files"; }
for f in c-*.vmt; do
	python3 "$top_srcdir/tests/helpers/vmtmeta.py" "$f" >"$f.meta" || fail "$f: cannot read its metadata"
	run vmtrace-report --json "$f"
	expect_rc 0 "report on $f"
	mv out.txt "$f.json"
done
run vmtrace-report --json c-*.vmt
expect_rc 0 "merged report"
mv out.txt merged.json
python3 - "$before" "$after" merged.json c-*.vmt <<'PY' || fail "the files' times or rates"
import json, math, sys
before, after, merged = int(sys.argv[1]), int(sys.argv[2]), json.load(open(sys.argv[3]))
files = sys.argv[4:]
def cut3(x):	# the report cuts rates to the thousandth, never above
    return math.floor(x * 1000 + 1e-6) / 1000
spans, total_pairs, total_ns, total_gap = [], 0, 0, 0
for i, f in enumerate(files):
    m = json.load(open(f + ".meta"))
    rep = json.load(open(f + ".json"))
    end = m["end"]
    start = int(end.get("monotonic.kept_start_ns", m["meta"]["monotonic.start_ns"]))
    stop = int(end["monotonic.end_ns"])
    print("%s: [%d, %d] ns since the run's start: %.1f ms, %d pairs, events span %.1f ms" %
          (f, start - before, stop - before, (stop - start) / 1e6, rep["pairs"],
           rep["span_ns"] / 1e6))
    if not before <= start <= stop <= after:
        sys.exit("%s: [%d, %d] is not within the run [%d, %d]" % (f, start, stop, before, after))
    if rep["duration_ns"] != stop - start:
        sys.exit("%s: the report's duration %d ns, the file's end - kept start %d ns" %
                 (f, rep["duration_ns"], stop - start))
    # A continued file's time starts at the previous file's end, but pages are not split:
    # the page that straddles that end comes whole, its first events a little before it
    # (1.1 us seen; a page of these rates holds well under 2 ms).
    if rep["duration_ns"] + (2000000 if i else 0) < rep["span_ns"]:
        sys.exit("%s: recorded %d ns, less than its events' span %d ns" %
                 (f, rep["duration_ns"], rep["span_ns"]))
    if spans and start < spans[-1][1]:
        sys.exit("%s starts %d ns before the previous file's end" % (f, spans[-1][1] - start))
    # each file's own wall-clock start (every one had the first file's)
    wall = m["meta"]["time.start"]
    if spans and wall <= last_wall:
        sys.exit("%s: time.start %s, not after the previous file's %s" % (f, wall, last_wall))
    last_wall = wall
    spans.append((start, stop))
    per = merged["files"][i]
    if per["file"] != f or per["duration_ns"] != rep["duration_ns"] or per["count"] != rep["pairs"]:
        sys.exit("%s: the merged report's file %s" % (f, per))
    want = cut3(rep["pairs"] * 1e9 / (per["duration_ns"] - per["gap_ns"]))
    if abs(per["rate_per_s"] - want) > 0.0015:
        sys.exit("%s: rate %s/s, %d pairs over %d ns less %d ns of gaps is %s/s" %
                 (f, per["rate_per_s"], rep["pairs"], per["duration_ns"], per["gap_ns"], want))
    total_pairs += rep["pairs"]
    total_ns += per["duration_ns"]
    total_gap += per["gap_ns"]
if sum(b - a for a, b in spans) > after - before:
    sys.exit("the files' durations add up to more than the run")
allrow = [g for g in merged["merged"]["groups"] if g["reason_code"] is None][0]
want = cut3(total_pairs * 1e9 / (total_ns - total_gap))
if merged["merged"]["duration_ns"] != total_ns or allrow["count"] != total_pairs or \
        abs(allrow["rate_per_s"] - want) > 0.0015:
    sys.exit("merged: %d pairs over %d ns, rate %s/s; the files: %d pairs over %d ns, %s/s" %
             (allrow["count"], merged["merged"]["duration_ns"], allrow["rate_per_s"],
              total_pairs, total_ns, want))
PY
finish
