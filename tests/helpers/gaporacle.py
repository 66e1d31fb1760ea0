#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The report's per-vCPU figures around lost events, computed again from an mkvmt script
(tests/helpers/mkvmt.c), for the end-to-end tests to compare with vmtrace-report --json.

Usage: gaporacle.py SCRIPT [--damaged CPU K]...
       gaporacle.py --check REPORT.json ORACLE.json: the report's vCPUs against the oracle's

--damaged CPU K: the K-th chunk (from 0) of CPU was damaged in the file: its events are
lost, and it is a hole of that CPU from its last record before the chunk to the chunk's
last record, where its gap is (the chunk's first time). A "page CPU missed" line is a hole
from the CPU's last record before it to the first record of the page it starts.

The rules, as man/vmtrace-report.1 states them: an exit pairs with the task's next entry
unless a gap came on the CPU of either between them; between two consecutive events of a
task with a gap on the CPU of either between them, the part of that span inside the holes
(the latest on each CPU; several with no record of the CPU between them make one) is not
known, and the time not known between a task's first and last pair is left out of the
span (first exit to last entry) its time in the guest is a share of.

Prints one JSON list of {"pid", "cpu" (the task's first exit's, for idle tasks), "pairs",
"total_ns", "gap_ns", "in_guest_percent"}, sorted by pid, cpu.
"""
import json
import sys


def parse(path, damaged):
    items = []  # (ts, kind: 0 gap 1 record, cpu, seq, what)
    nchunk = {}
    last_rec = {}
    pending = {}  # cpu -> a "page missed" waiting for its page's first record
    dropped = {}  # cpu -> [from, last record in the damaged chunk, its first record]
    seq = 0
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if f[0] == "chunk":
            cpu = int(f[1])
            if (cpu, nchunk.get(cpu, 0)) in damaged and cpu in dropped:
                start, end, first = dropped.pop(cpu)
                items.append((first, 0, cpu, seq, ("gap", start, end)))
                seq += 1
            nchunk[cpu] = nchunk.get(cpu, 0) + 1
            continue
        if f[0] == "page" and len(f) > 2 and f[2] == "missed":
            pending[int(f[1])] = True
            continue
        if f[0] not in ("exit", "entry", "other"):
            continue
        cpu, ts = int(f[1]), int(f[2])
        if (cpu, nchunk.get(cpu, 0)) in damaged:
            d = dropped.setdefault(cpu, [last_rec.get(cpu, 0), ts, ts])
            d[1] = ts
            continue
        if pending.pop(cpu, False):
            items.append((ts, 0, cpu, seq, ("gap", last_rec.get(cpu, 0), ts)))
            seq += 1
        last_rec[cpu] = ts
        if f[0] != "other":
            items.append((ts, 1, cpu, seq, (f[0], int(f[3]))))
        seq += 1
    for cpu, (start, end, first) in dropped.items():  # a damaged last chunk
        items.append((first, 0, cpu, seq, ("gap", start, end)))
        seq += 1
    # the reader's merge: by time, a gap before the records of its time, then by CPU
    items.sort(key=lambda x: (x[0], x[1], x[2], x[3]))
    return items


def check(got_path, want_path):
    """The report's vcpus against the oracle's: the same tasks and figures, and the time in
    the guest cut to four decimals (never rounded up). Exits non-zero on a difference."""
    got = json.load(open(got_path))["vcpus"]
    want = json.load(open(want_path))
    key = lambda v: (v["pid"], v["pairs"], v["total_ns"], v["gap_ns"])
    got, want = sorted(got, key=key), sorted(want, key=key)
    assert [key(v) for v in got] == [key(v) for v in want], \
        ([key(v) for v in got], [key(v) for v in want])
    for g, w in zip(got, want):
        assert -1e-9 <= w["in_guest_percent"] - g["in_guest_percent"] < 0.0001 + 1e-9, (g, w)


def main():
    args = sys.argv[1:]
    if args[0] == "--check":
        check(args[1], args[2])
        return
    path = args.pop(0)
    damaged = set()
    while args:
        assert args.pop(0) == "--damaged"
        damaged.add((int(args.pop(0)), int(args.pop(0))))
    epoch, gap_epoch, hole = 0, {}, {}
    task = {}  # key -> state
    for ts, kind, cpu, _, what in parse(path, damaged):
        if what[0] == "gap":
            start, end = what[1], what[2]
            if cpu in hole and start < hole[cpu][1]:  # no record between: one hole
                hole[cpu] = (hole[cpu][0], max(end, hole[cpu][1]))
            else:
                hole[cpu] = (start, end)
            epoch += 1
            gap_epoch[cpu] = epoch
            continue
        ev, pid = what
        key = ("idle", cpu) if pid == 0 else pid
        t = task.setdefault(key, {"seen": epoch, "last": None, "unknown": 0, "open": None,
                                  "pairs": [], "pid": pid, "cpu": None})
        if t["last"] is not None:
            lts, lcpu = t["last"]
            parts = []
            for c in {lcpu, cpu}:
                if gap_epoch.get(c, 0) > t["seen"]:
                    s, e = max(lts, hole[c][0]), min(ts, hole[c][1])
                    if s < e:
                        parts.append((s, e))
            if len(parts) == 2 and max(parts[0][0], parts[1][0]) < min(parts[0][1], parts[1][1]):
                parts = [(min(parts[0][0], parts[1][0]), max(parts[0][1], parts[1][1]))]
            t["unknown"] += sum(e - s for s, e in parts)
        t["seen"] = epoch
        t["last"] = (ts, cpu)
        if ev == "exit":
            t["open"] = (ts, cpu, epoch)
            continue
        if t["open"] is None:
            continue
        bts, bcpu, be = t["open"]
        t["open"] = None
        if gap_epoch.get(bcpu, 0) > be or gap_epoch.get(cpu, 0) > be or ts < bts:
            continue
        if t["cpu"] is None:
            t["cpu"] = bcpu
        t["pairs"].append((bts, ts, t["unknown"]))
    out = []
    for t in task.values():
        p = t["pairs"]
        if not p:
            continue
        total = sum(e - b for b, e, _ in p)
        span = max(e for _, e, _ in p) - min(b for b, _, _ in p)
        gap = max(u for _, _, u in p) - min(u for _, _, u in p)
        known = span - gap
        pct = 100.0 * (1 - total / known) if known > 0 else (0.0 if total else 100.0)
        out.append({"pid": t["pid"], "cpu": t["cpu"], "pairs": len(p), "total_ns": total,
                    "gap_ns": gap, "in_guest_percent": pct})
    out.sort(key=lambda x: (x["pid"], x["cpu"]))
    print(json.dumps(out))


main()
