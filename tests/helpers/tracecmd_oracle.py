#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare `trace-cmd report -t` with `vmtrace-convert --csv --events`, event by event.

usage: tracecmd_oracle.py TRACE_CMD_REPORT.txt[.gz] EVENTS.csv BEGIN END [BUFFER]

Each side becomes a sorted list of (timestamp ns, cpu, pid, event name); trace-cmd prints
seconds with nine decimals under -t (with tsc2nsec it prints converted nanoseconds, as
vmtrace-convert's ts_ns column does). With BUFFER, only trace-cmd's lines of that buffer
count (its lines start "BUFFER:"; "" is the top buffer, whose lines have no such prefix):
vmtrace reads one buffer of a file, trace-cmd prints them all. Exits 0 when both lists are
equal and not empty, 1 with the first differences otherwise.
"""
import csv
import gzip
import re
import sys

LINE = re.compile(r"^\s*(?:(\S+):\s+)?(.*)-(\d+)\s+\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d{9}):\s+(\w+):")


def tracecmd(path, buffer=None):
    out = []
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            m = LINE.match(line)
            if m and (buffer is None or (m.group(1) or "") == buffer):
                ns = int(m.group(5)) * 1000000000 + int(m.group(6))
                out.append((ns, int(m.group(4)), int(m.group(3)), m.group(7)))
    return sorted(out)


def ours(path, begin, end):
    out = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            # KVM's events are exits and entries, another pair's begins and ends
            kinds = ("exit", "entry") if begin == "kvm_exit" else ("begin", "end")
            name = {kinds[0]: begin, kinds[1]: end}[row["kind"]]
            out.append((int(row["ts_ns"]), int(row["pcpu"]), int(row["task"]), name))
    return sorted(out)


def main():
    a = tracecmd(sys.argv[1], sys.argv[5] if len(sys.argv) > 5 else None)
    b = ours(sys.argv[2], sys.argv[3], sys.argv[4])
    if a == b and a:
        print(f"oracle: {len(a)} events equal")
        return 0
    print(f"oracle: trace-cmd {len(a)} events, vmtrace {len(b)} events")
    shown = 0
    for x, y in zip(a, b):
        if x != y:
            print(f"  trace-cmd {x} vs vmtrace {y}")
            shown += 1
            if shown == 5:
                break
    return 1


if __name__ == "__main__":
    sys.exit(main())
