#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes an mkvmt script (tests/helpers/mkvmt.c) of a recording whose time slices have
hard edges: vCPU tasks on several CPUs that migrate between an exit and its entry, exits
long enough to span many chunks, dense exits whose 1 ms windows cross slice edges, equal
latencies (ties in the longest exits), lost-events gaps while exits are open, orphan exits
and entries, idle-task exits, other records, and small chunks (so that a small file has
many). Usage: mkslices.py SEED [TASKS CPUS ROUNDS]"""
import random
import sys


def main():
    seed = int(sys.argv[1])
    ntasks = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    ncpus = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3000
    rnd = random.Random(seed)
    ev = []  # (ts, order, line)
    seq = 0

    def add(ts, line):
        nonlocal seq
        ev.append((ts, seq, line))
        seq += 1

    for t in range(ntasks):
        pid = 2000 + t
        cpu = t % ncpus
        ts = rnd.randrange(0, 50000)
        for _ in range(rounds):
            ts += rnd.choice((300, 800, 2000, 20000, 150000))
            r = rnd.random()
            if r < 0.6:
                lat = rnd.randrange(500, 6000)
            elif r < 0.8:
                lat = 7000  # ties
            elif r < 0.97:
                lat = rnd.randrange(20000, 400000)
            else:
                lat = rnd.randrange(1000000, 30000000)  # across many chunks
            reason = rnd.choice((0x1e, 0x30, 0x0c, 0x01, 0x20))
            kind = rnd.random()
            if kind < 0.01:  # an orphan entry
                add(ts, f"entry {cpu} {ts} {pid} {t}")
                ts += 100
                continue
            add(ts, f"exit {cpu} {ts} {pid} {reason:#x} {t}")
            if kind < 0.02:  # an orphan exit: the next one comes first
                ts += 50
                continue
            if rnd.random() < 0.05:  # migrated before its entry
                cpu = rnd.randrange(ncpus)
            ts += lat
            add(ts, f"entry {cpu} {ts} {pid} {t}")
    end = max(e[0] for e in ev) if ev else 0
    for _ in range(ncpus * 20):  # idle tasks and other events
        c = rnd.randrange(ncpus)
        ts = rnd.randrange(0, end)
        if rnd.random() < 0.5:
            add(ts, f"exit {c} {ts} 0 0x1e")
            add(ts + 900, f"entry {c} {ts + 900} 0")
        else:
            add(ts, f"other {c} {ts}")
    ev.sort()
    out = [f"cpus 0-{ncpus - 1}"]
    per_cpu = [0] * ncpus
    for ts, _, line in ev:
        c = int(line.split()[1])
        per_cpu[c] += 1
        if per_cpu[c] % 50 == 0:
            out.append(f"chunk {c}")
        elif per_cpu[c] % 83 == 0:
            out.append(f"page {c} missed {rnd.randrange(0, 9)}")
        elif per_cpu[c] % 17 == 0:
            out.append(f"page {c}")
        out.append(line)
    print("\n".join(out))


main()
