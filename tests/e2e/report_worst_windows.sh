#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# "Worst window of each vCPU task, broken down" lists the tasks of the per-task tables above
# it, in their order (once it listed the first ten by pairs, whatever the tables showed):
# past 32 tasks the 32 with the most time, and a line counting the others; --wide every one.
# Checked against --json: which tasks (the most total_ns, recounted), each window's start
# and sum, and how many are left out.
. "$(dirname "$0")/lib.sh"

FMT="$DATA/formats/linux-6.18-x86_64"
# one vCPU task per CPU, with context events: 40 tasks, 4 tasks
"$HELPERS/mkvmt" --context --random 40000 40 "$FMT" t40.vmt >/dev/null || fail "mkvmt 40"
"$HELPERS/mkvmt" --context --random 4000 4 "$FMT" t4.vmt >/dev/null || fail "mkvmt 4"

cat >check.py <<'PY'
import json, re, sys
sys.path.insert(0, sys.argv[4])
from latfmt import lat
text, js, wide = open(sys.argv[1]).read().split("\n"), json.load(open(sys.argv[2])), sys.argv[3]
tasks = js["vcpus"]
# the tables' tasks: all, or past 32 the 32 with the most time, in the JSON's (table) order
if wide == "wide" or len(tasks) <= 32:
    want = tasks
else:
    top = sorted(range(len(tasks)), key=lambda i: (-tasks[i]["total_ns"], i))[:32]
    want = [tasks[i] for i in sorted(top)]
left = len(tasks) - len(want)

def section(title):
    i = [k for k, l in enumerate(text) if l.startswith(title)][0]
    out = []
    for l in text[i + 1:]:
        if not l:
            break
        out.append(l)
    return text[i], out

_, rows = section("Per vCPU task")
rows = rows[:[k for k, l in enumerate(rows) if "in guest" in l][0]]   # the latency table
table = [int(m.group(1)) for m in (re.match(r"^  \d+ \((\d+)\) ", l) for l in rows) if m]
assert table == [t["pid"] for t in want], ("the table's tasks", table)
title, lines = section("Worst window of each vCPU task")
above = " in the tables above" if left else ""
assert title == "Worst window of each vCPU task%s, broken down:" % above, title
got = []
for l in lines:
    m = re.match(r"^  pid (\d+) at (\d+\.\d{9}) s: (\S+ \S+) = ", l)
    if m:
        got.append((int(m.group(1)), m.group(2), m.group(3)))
    else:
        assert left and l == "  (%d more vCPU tasks not shown, as in the tables above: " \
            "--wide or --json lists every one)" % left, ("not the count", l)
        assert l is lines[-1], "the count is not last"
assert len(lines) == len(got) + (1 if left else 0), lines
exp = [(t["pid"], "%d.%09d" % divmod(t["max_window_start_ns"], 10**9),
        lat(t["max_window_sum_ns"])) for t in want]
assert got == exp, ("the windows", got, exp)
print("%d tasks, %d windows listed, %d left out" % (len(tasks), len(got), left))
PY

for f in t40 t4; do
	vmtrace-report --json $f.vmt >$f.json || fail "$f: --json"
	for mode in plain wide; do
		opt=
		[ $mode = wide ] && opt=--wide
		vmtrace-report $opt $f.vmt >$f.$mode.txt || fail "$f: report $opt"
		# --wide keeps a longest exit's fields on one line, past 120 columns
		[ $mode = wide ] || widths_ok $f.$mode.txt || fail "$f: lines over 120 columns"
		python3 check.py $f.$mode.txt $f.json $mode "$top_srcdir/tests/helpers" >r.out 2>&1 ||
			fail "$f $opt: $(cat r.out)"
		echo "$f $opt: $(cat r.out)"
	done
done
# the case that was wrong: 40 tasks, 8 left out, and the 32 listed are not the first ten
grep -q "^  (8 more vCPU tasks not shown" t40.plain.txt || fail "no count of the 8 left out"
[ "$(grep -c '^  pid [0-9]* at ' t40.plain.txt)" = 32 ] || fail "not 32 windows"

# Where the worst window is when several windows tie (man page: windows end where exits
# end; per task the first to reach the maximum; across tasks the earliest, then the lowest
# pid), in one pass and in time slices. pid 300: one exit of 24.79 ms from 10 ms, so every
# 1 ms window inside it holds 1 ms and the one reported is its last ms. pid 200: two exits
# of 1 ms, at 40 ms and 60 ms: the first. pid 100: one of 1 ms at 80 ms, later than 300's.
cat >tie.s <<'S'
exit 0 10000000 300 0x72
entry 0 34790000 300
exit 1 40000000 200 0x72
entry 1 41000000 200
exit 1 60000000 200 0x72
entry 1 61000000 200
exit 2 80000000 100 0x72
entry 2 81000000 100
S
"$HELPERS/mkvmt" "$FMT" tie.vmt <tie.s || fail "mkvmt tie"
for jobs in 1 4; do
	vmtrace-report --jobs $jobs --json tie.vmt >tie.json || fail "tie: --json"
	python3 - tie.json <<'PY' || fail "tie, --jobs $jobs: not the documented windows"
import json, sys
d = json.load(open(sys.argv[1]))
W = 10**6
# the exits' ends relative to the first event (10 ms), less the window
want = {300: 34790000 - W, 200: 41000000 - W, 100: 81000000 - W}
got = {v["pid"]: (v["max_window_sum_ns"], v["max_window_start_ns"]) for v in d["vcpus"]}
for pid, at in want.items():
    assert got[pid] == (W, at - 10000000), (pid, got[pid], at - 10000000)
assert (d["max_window_sum_ns"], d["max_window_pid"]) == (W, 300), d
assert d["max_window_start_ns"] == want[300] - 10000000, d["max_window_start_ns"]
PY
done
exit 0
