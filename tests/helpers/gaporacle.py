#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The report's per-vCPU figures around lost events, computed again from an mkvmt script
(tests/helpers/mkvmt.c), for the end-to-end tests to compare with vmtrace-report --json.

Usage: gaporacle.py [--holes] SCRIPT [--damaged CPU K]...
       gaporacle.py --check REPORT.json ORACLE.json: the report's vCPUs against the oracle's

--damaged CPU K: the K-th chunk (from 0) of CPU was damaged in the file: its events are
lost, and it is a hole of that CPU from its last record before the chunk to the chunk's
last record, where its gap is (the chunk's first time). A "page CPU missed" line is a hole
from the CPU's last record before it to the first record of the page it starts.

The rules, as man/vmtrace-report.1 states them, applied here to the whole list of events
and holes at once (no running state): an exit pairs with the task's next event when that
is an entry, unless the gap of a hole of the CPU of either came between them, or the pair
meets a hole of either CPU whose gap came before its entry. Between two consecutive events
of a task, the part of that span inside the holes of those two CPUs whose gaps came
between the events (every such hole, counted once where they overlap) is not known; that
time between the task's first pair's exit and its last pair's entry is left out of the
span its time in the guest is a share of.

Prints one JSON list of {"pid", "cpu" (the task's first exit's, for idle tasks), "pairs",
"total_ns", "gap_ns", "in_guest_percent"}, sorted by pid, cpu. With --holes instead: an
object of each CPU's time inside its holes (overlapping ones once), from the recording's
first record on, for the rates of merged and compared reports.
"""
import bisect
import json
import sys


def read_script(path, damaged):
    """The recording as the reader hands it over: ("rec", ts, cpu, kind, pid) for each kept
    record and ("gap", ts, cpu, hole_from, hole_until) for each hole, in the reader's
    merged order (by time; a gap before the records of its time; then by CPU; then as
    written)."""
    out = []  # (ts, rank: gaps first, cpu, line number, item)
    chunk_no = {}
    last = {}  # cpu -> its last kept record's time
    flagged = set()  # CPUs whose next page was flagged with lost events
    lost = {}  # cpu -> the damaged chunk being read: [hole from, first time, last time]

    def close_damaged(cpu, n):
        if cpu in lost:
            start, first, end = lost.pop(cpu)
            out.append((first, 0, cpu, n, ("gap", first, cpu, start, end)))

    for n, line in enumerate(open(path)):
        f = line.split()
        if not f:
            continue
        if f[0] == "chunk":
            cpu = int(f[1])
            close_damaged(cpu, n)
            chunk_no[cpu] = chunk_no.get(cpu, 0) + 1
        elif f[0] == "page" and f[2:3] == ["missed"]:
            flagged.add(int(f[1]))
        elif f[0] in ("exit", "entry", "other"):
            cpu, ts = int(f[1]), int(f[2])
            if (cpu, chunk_no.get(cpu, 0)) in damaged:
                hole = lost.setdefault(cpu, [last.get(cpu, 0), ts, ts])
                hole[2] = ts
                continue
            if cpu in flagged:
                flagged.discard(cpu)
                out.append((ts, 0, cpu, n, ("gap", ts, cpu, last.get(cpu, 0), ts)))
            last[cpu] = ts
            if f[0] != "other":
                out.append((ts, 1, cpu, n, ("rec", ts, cpu, f[0], int(f[3]))))
    for cpu in list(lost):  # a damaged last chunk
        close_damaged(cpu, 1 << 60)
    out.sort(key=lambda x: x[:4])
    return [x[4] for x in out]


def union_length(parts):
    """The length of the union of [s, e) intervals."""
    total, reach = 0, None
    for s, e in sorted(parts):
        if reach is None or s > reach:
            total += e - s
            reach = e
        elif e > reach:
            total += e - reach
            reach = e
    return total


def figures(items):
    events = {}  # task -> [(position, ts, cpu, kind)]
    holes = {}  # cpu -> [(position, from, until)]
    for pos, it in enumerate(items):
        if it[0] == "gap":
            holes.setdefault(it[2], []).append((pos, it[3], it[4]))
        else:
            _, ts, cpu, kind, pid = it
            events.setdefault(("idle", cpu) if pid == 0 else pid, []).append(
                (pos, ts, cpu, kind))
    at = {c: [h[0] for h in hs] for c, hs in holes.items()}  # positions, ascending
    ends = {c: [h[2] for h in hs] for c, hs in holes.items()}
    assert all(e == sorted(e) for e in ends.values()), "a CPU's holes out of time order"

    def holes_in(cpu, p1, p2):
        """CPU's holes whose gaps lie between positions p1 and p2."""
        hs = holes.get(cpu, [])
        return hs[bisect.bisect_right(at.get(cpu, []), p1):bisect.bisect_left(at.get(cpu, []), p2)]

    out = []
    for key, evs in events.items():
        pairs = []  # (exit index in evs, its entry's)
        for i in range(len(evs) - 1):
            (p1, b, c1, k1), (p2, e, c2, k2) = evs[i], evs[i + 1]
            if (k1, k2) != ("exit", "entry") or e < b:
                continue
            if any(holes_in(c, p1, p2) for c in {c1, c2}):
                continue  # a gap between the two
            if any(lo < e for c in {c1, c2} for _, lo, _ in
                   holes.get(c, [])[bisect.bisect_right(ends.get(c, []), b):
                                    bisect.bisect_left(at.get(c, []), p2)]):
                continue  # the pair meets an earlier gap's hole (one ending after b)
            pairs.append((i, i + 1))
        if not pairs:
            continue
        first, last = pairs[0][0], pairs[-1][1]
        unknown = 0
        for i in range(first, last):
            (p1, lo, c1, _), (p2, hi, c2, _) = evs[i], evs[i + 1]
            parts = [(max(lo, f), min(hi, u)) for c in {c1, c2} for _, f, u in
                     holes_in(c, p1, p2)]
            unknown += union_length([(s, e) for s, e in parts if s < e])
        total = sum(evs[j][1] - evs[i][1] for i, j in pairs)
        known = evs[last][1] - evs[first][1] - unknown
        # one pair, or a span all unknown: no time in the guest to measure (null)
        pct = 100.0 * (1 - total / known) if known > 0 and len(pairs) > 1 else None
        out.append({"pid": 0 if isinstance(key, tuple) else key, "cpu": evs[first][2],
                    "pairs": len(pairs), "total_ns": total, "gap_ns": unknown,
                    "in_guest_percent": pct})
    out.sort(key=lambda x: (x["pid"], x["cpu"]))
    return out


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
        if w["in_guest_percent"] is None or g["in_guest_percent"] is None:
            assert w["in_guest_percent"] is g["in_guest_percent"], (g, w)
            continue
        assert -1e-9 <= w["in_guest_percent"] - g["in_guest_percent"] < 0.0001 + 1e-9, (g, w)


def main():
    args = sys.argv[1:]
    if args[0] == "--check":
        check(args[1], args[2])
        return
    holes = args[0] == "--holes"
    path = args.pop(1 if holes else 0)
    args = args[1:] if holes else args
    damaged = set()
    while args:
        assert args.pop(0) == "--damaged"
        damaged.add((int(args.pop(0)), int(args.pop(0))))
    items = read_script(path, damaged)
    if not holes:
        print(json.dumps(figures(items)))
        return
    start = min(it[1] for it in items if it[0] == "rec")
    per_cpu = {}
    for it in items:
        if it[0] == "gap":
            per_cpu.setdefault(it[2], []).append((max(it[3], start), it[4]))
    print(json.dumps({c: union_length(h) for c, h in per_cpu.items()}))


main()
