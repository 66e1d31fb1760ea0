#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The per-pCPU and overall figures when tasks keep to one pCPU, move now and then, and
# enter on another pCPU than they exited on: the summary defers a task's pairs to its
# pCPU's distribution while the task stays there, and must give the figures an
# independent computation from the script gives (count, total, min, max, nearest-rank
# p50 and p90 of the exits of each pCPU, and of all of them).
. "$(dirname "$0")/lib.sh"

python3 - >script.txt <<'PY'
import random
random.seed(11)
print("cpus 0-3")
ts = [1000 + c for c in range(4)]
last = [0] * 5	# a task's events stay in time order across pCPUs
for i in range(2000):	# at most 1024 exits per pCPU: exact percentiles
    task = random.randrange(5)
    # task 0 never moves, the others stay on their pCPU but now and then move
    c = task % 4 if task == 0 or random.random() > 0.08 else random.randrange(4)
    t = max(ts[c], last[task]) + random.randrange(50, 500)
    lat = random.randrange(100, 3000) if random.random() > 0.02 else random.randrange(10**5, 10**6)
    ec = c if random.random() > 0.03 else (c + 1) % 4
    e = max(t + lat, ts[ec] + 1)
    print("exit %d %d %d 0x72 %d" % (c, t, 100 + task, task))
    print("entry %d %d %d %d" % (ec, e, 100 + task, task))
    ts[c] = max(ts[c], t)
    ts[ec] = max(ts[ec], e)
    last[task] = e
PY
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" m.vmt <script.txt || fail mkvmt
run vmtrace-report --json m.vmt
expect_rc 0
mv out.txt m.json
python3 - m.json script.txt <<'PY' || fail "per-pCPU figures differ from the script's"
import json, math, sys
from fractions import Fraction   # exact ranks: 99.9 / 100 * 1000 is not 999 in floats
d = json.load(open(sys.argv[1]))
open_exit, lat = {}, {}
for line in open(sys.argv[2]):
    w = line.split()
    if w[0] == "exit":
        open_exit[w[3]] = (int(w[1]), int(w[2]))
    elif w[0] == "entry":
        cpu, ts = open_exit.pop(w[3])
        lat.setdefault(cpu, []).append(int(w[2]) - ts)
def rank(v, p):
    v = sorted(v)
    return v[max(1, math.ceil(Fraction(str(p)) / 100 * len(v))) - 1]
ok = True
for row in d["cpus_detail"]:
    v = lat[row["cpu"]]
    want = {"count": len(v), "total_ns": sum(v), "min_ns": min(v), "max_ns": max(v),
            "p50": rank(v, 50), "p90": rank(v, 90)}
    got = {"count": row["count"], "total_ns": int(row["total_ns"]), "min_ns": row["min_ns"],
           "max_ns": int(row["max_ns"]), "p50": row["percentiles_ns"]["p50"],
           "p90": row["percentiles_ns"]["p90"]}
    if got != want:
        print("cpu", row["cpu"], "got", got, "want", want)
        ok = False
allv = [x for v in lat.values() for x in v]
if sorted(r["cpu"] for r in d["cpus_detail"]) != sorted(lat) or d["pairs"] != len(allv) \
        or d["total_ns"] != sum(allv) or d["latency_ns"]["max"] != max(allv) \
        or d["latency_ns"]["min"] != min(allv):
    print("overall", d["pairs"], d["total_ns"], d["latency_ns"], len(allv), sum(allv))
    ok = False
sys.exit(0 if ok else 1)
PY
finish
