#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Many tasks: the text's per-task tables keep the 32 with the most time out, in their usual
# order, and sum up the rest in one line; --wide and JSON keep every one. The figures are
# recounted from the script the recording was made of.
. "$(dirname "$0")/lib.sh"

# 40 vCPU tasks on one CPU: task k (pid 1000 + k, vCPU k) has k + 1 exits of
# 100 * (k % 7 + 1) ns each, so totals differ and ties between equal totals exist
python3 - >script.txt <<'PY'
print("cpus 0")   # the CPU its events are on (a chunk of a CPU not traced is damage)
ts = 1000
for k in range(40):
    for _ in range(k + 1):
        print(f"exit 0 {ts} {1000 + k} 0x72 {k}")
        ts += 100 * (k % 7 + 1)
        print(f"entry 0 {ts} {1000 + k} {k}")
        ts += 1000
PY
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" many.vmt <script.txt || fail "mkvmt"
run vmtrace-report many.vmt
expect_rc 0 "text report"
mv out.txt text.txt
run vmtrace-report --wide many.vmt
expect_rc 0 "wide report"
mv out.txt wide.txt
run vmtrace-report --json many.vmt
expect_rc 0 "json report"
python3 - text.txt wide.txt out.txt <<'PY' || fail "task tables"
import json, re, sys
text, wide = open(sys.argv[1]).read(), open(sys.argv[2]).read()
d = json.load(open(sys.argv[3]))
tot = {k: (k + 1) * 100 * (k % 7 + 1) for k in range(40)}
assert len(d["vcpus"]) == 40, len(d["vcpus"])
for v in d["vcpus"]:
    k = v["pid"] - 1000
    assert v["total_ns"] == tot[k] and v["pairs"] == k + 1, v
# the 32 largest totals, earliest task first among equals
top = sorted(tot, key=lambda k: (-tot[k], k))[:32]
rest = [k for k in tot if k not in top]
def rows(t):
    table = t.split("Per vCPU task", 1)[1].split("\n\n", 1)[0]
    return [int(m) for m in re.findall(r"^  \d+ \((\d+)\) ", table, re.M)]
got = rows(text)
order = [v["pid"] for v in d["vcpus"]]   # the usual order: the JSON's
want = [p for p in order if p - 1000 in top]
assert got[:32] == want, (got, want)
assert len(got) == 64, len(got)           # the rows, then the window table's
assert got[32:] == want, got[32:]
m = re.search(r"^  \((\d+) more vCPU tasks, (\d+) exits, ([\d.]+) % of the time: --wide", text, re.M)
assert m, "no line for the rest"
all_ns = sum(tot.values())
pct = sum(tot[k] for k in rest) * 10000 // all_ns
assert m.groups() == (str(len(rest)), str(sum(k + 1 for k in rest)),
                      "%d.%02d" % (pct // 100, pct % 100)), (m.groups(), pct)
assert "the 32 with the most time (most exits first)" in text
counts = {v["pid"]: v["pairs"] for v in d["vcpus"]}
assert [counts[p] for p in got[:32]] == sorted((counts[p] for p in got[:32]), reverse=True)
w = rows(wide)
assert w == order * 2, w
assert "more vCPU tasks" not in wide
print("32 of 40 tasks shown,", len(rest), "summed")
PY
