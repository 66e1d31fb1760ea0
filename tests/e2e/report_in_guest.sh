#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A vCPU task's time in the guest is measured from its first exit to its last entry, so a
# task of one exit (in the recording or in what the filters keep) has no time in the guest
# to measure: "-" in the text and the HTML page, null in the JSON, left out of the
# availability line's average and worst, and said. It read 0.000 %, the worst possible
# figure, for a quiet vCPU (found by a new user with --to on the bundled sample). The
# figures of the other tasks are checked against the script's own arithmetic.
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"
command -v python3 >/dev/null || skip "python3 missing"

# task 500: one exit of 600 ns; task 600: four exits; task 700: two exits
cat >g.txt <<'EOF'
cpus 0-2
exit 0 1000 500 30 0
entry 0 1600 500 0
exit 1 1000 600 30 1
entry 1 1300 600 1
exit 1 3000 600 30 1
entry 1 3500 600 1
exit 1 7000 600 30 1
entry 1 7100 600 1
exit 1 9000 600 30 1
entry 1 9900 600 1
exit 2 2000 700 30 2
entry 2 2200 700 2
exit 2 12000 700 30 2
entry 2 12800 700 2
EOF
"$HELPERS/mkvmt" "$F618" g.vmt <g.txt || fail "mkvmt g.vmt"

# the oracle: per task, 100 * (1 - out / (last entry - first exit)), for two exits or more
python3 - g.txt <<'PY' >want.txt || fail "the oracle"
import sys
ex, out, first, last = {}, {}, {}, {}
for line in open(sys.argv[1]):
    w = line.split()
    if w[0] == "exit":
        pid, ts = int(w[3]), int(w[2])
        ex[pid] = ts
        first.setdefault(pid, ts)
    elif w[0] == "entry":
        pid, ts = int(w[3]), int(w[2])
        out.setdefault(pid, []).append(ts - ex[pid])
        last[pid] = ts
for pid in sorted(out):
    if len(out[pid]) < 2:
        print(pid, "-")
    else:
        print(pid, "%.4f" % (100 * (1 - sum(out[pid]) / (last[pid] - first[pid]))))
PY

vmtrace-report --json g.vmt >g.json || fail "report --json g.vmt"
python3 - g.json want.txt <<'PY' || fail "in_guest_percent differs from the oracle"
import json, sys
got = {v["pid"]: v["in_guest_percent"] for v in json.load(open(sys.argv[1]))["vcpus"]}
for line in open(sys.argv[2]):
    pid, want = line.split()
    g = got[int(pid)]
    if want == "-":
        assert g is None, (pid, g)
    else:
        assert g is not None and abs(g - float(want)) < 0.00011, (pid, g, want)
PY

# the text: "-" for task 500, the others as the oracle has them (3 decimals, cut)
vmtrace-report g.vmt >g.out || fail "report g.vmt"
row() { sed -n "s/^  [0-9]* ($1) *\([-0-9.%]*\) .*/\1/p" g.out | tail -1; }
[ "$(row 500)" = "-" ] || fail "task 500 (one exit): '$(row 500)' in guest, not -"
for pid in 600 700; do
	want=$(awk -v p=$pid '$1 == p { printf "%.3f%%", int($2 * 1000) / 1000 }' want.txt)
	[ "$(row $pid)" = "$want" ] || fail "task $pid: '$(row $pid)' in guest, not $want"
done
# the line: the average and the worst of tasks 600 and 700 alone, and the task left out
avg=$(awk '$2 != "-" { s += $2; n++ } END { printf "%.3f", int(s / n * 1000) / 1000 }' want.txt)
worst=$(awk '$2 != "-" && (w == "" || $2 < w) { w = $2 } END { printf "%.3f", int(w * 1000) / 1000 }' \
	want.txt)
grep -q "^Guest availability: $avg % on average over 2 vCPU task(s), $worst % at worst" g.out ||
	{ grep "availability" g.out >&2; fail "the availability line is not $avg / $worst over 2 tasks"; }
grep -q "^  not counting 1 vCPU task(s) of one exit" g.out || fail "the task left out is not said"

# the HTML page: the in-guest cell (after the task, its worst window and where it starts)
vmtrace-report --html g.html g.vmt >/dev/null || fail "report --html"
python3 - g.html want.txt <<'PY' || fail "the HTML page's in-guest cells"
import re, sys
page = open(sys.argv[1]).read()
for line in open(sys.argv[2]):
    pid, want = line.split()
    row = re.search(r'<tr data-pid="%s"[^>]*>(.*?)</tr>' % pid, page).group(1)
    cell = re.findall(r"<td[^>]*>(.*?)</td>", row)[3]
    if want != "-":
        want = "%.3f %%" % (int(float(want) * 1000) / 1000)
    assert cell == want, (pid, cell, want)
PY

# filters that leave every task one exit: not known, said so (within 120 columns)
vmtrace-report --to 1.5us g.vmt >f.out || fail "report --to"
grep -q "^Guest availability (selected exits only): not known: each vCPU task has one exit" f.out ||
	{ cat f.out >&2; fail "--to 1.5us: the line does not say not known"; }
awk 'length > 120 { exit 1 }' f.out g.out || fail "a line over 120 columns"
exit 0
