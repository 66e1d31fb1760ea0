#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare `trace-cmd report -t` with `vmtrace-convert --csv --events`, event by event.

usage: tracecmd_oracle.py TRACE_CMD_REPORT.txt[.gz] EVENTS.csv BEGIN END

Each side becomes a sorted list of (timestamp ns, cpu, pid, event name); trace-cmd prints
seconds with nine decimals under -t (with tsc2nsec it prints converted nanoseconds, as
vmtrace-convert's ts_ns column does). Exits 0 when both lists are equal and not empty,
1 with the first differences otherwise.
"""
import csv
import gzip
import re
import sys

LINE = re.compile(r"^\s*(?:\S+:\s+)?(.*)-(\d+)\s+\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d{9}):\s+(\w+):")


def tracecmd(path):
    out = []
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                ns = int(m.group(4)) * 1000000000 + int(m.group(5))
                out.append((ns, int(m.group(3)), int(m.group(2)), m.group(6)))
    return sorted(out)


def ours(path, begin, end):
    out = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            name = begin if row["kind"] == "exit" else end
            out.append((int(row["ts_ns"]), int(row["pcpu"]), int(row["task"]), name))
    return sorted(out)


def main():
    a = tracecmd(sys.argv[1])
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
