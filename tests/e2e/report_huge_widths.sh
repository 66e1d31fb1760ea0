#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Latencies of days to centuries (damaged page headers) in every text view: each line fits
# 120 columns, each table row ends where its header ends, and the figures (seconds, or
# "1.8446e10" where even seconds have too many digits), read back, are the true values cut:
# never above them, less than one unit of their last digit below (values computed here).
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"
# one exit per CPU and task at 1000 ns, its entry on a page of its own at 1000 + LAT
LATS="10**15 2**64-1001 123456789012345678 5*10**12 999"
mk() {
	out=$1
	{
		[ -z "${2:-}" ] || echo "clock $2"
		cpu=0
		for lat in $LATS; do
			printf 'exit %d 1000 %d 0x72\npage %d\nentry %d %s %d\n' $cpu $((100 + cpu)) \
				$cpu $cpu "$(python3 -c "print(1000 + $lat)")" $((100 + cpu))
			cpu=$((cpu + 1))
		done
	} | "$HELPERS/mkvmt" "$F618" "$out" || fail "mkvmt $out"
}
mk huge.vmt
mk huge2.vmt
mk ticks.vmt counter

cat >cells.py <<'PY'
import re, sys
from fractions import Fraction as Fr
text = open(sys.argv[1]).read().splitlines()
lats = [eval(x) for x in sys.argv[2].split()]
UNITS = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9, "ticks": 1}

def cut_of(cell, unit, true):
    """cell read back in unit is true cut: at most true, above it by less than its last digit"""
    m, _, e = cell.partition("e")
    dec = len(m.split(".")[1]) if "." in m else 0
    shown = Fr(m) * 10 ** int(e or 0) * UNITS[unit]
    step = Fr(1, 10 ** dec) * 10 ** int(e or 0) * UNITS[unit]
    return shown <= true < shown + step

def readable(s):	# "1.844e10 s", "5000.0 s", "999 ns" (common/cli.c's vmt_format_ns)
    v, u = s.split()
    return v, u

checked = 0
unit = None
for i, l in enumerate(text):
    m = re.search(r"latencies in (\w+),", l)
    if m:
        unit = m.group(1)
    f = l.split()
    if f[:2] == ["reason", "count"] or f[:2] == ["cpu", "count"]:
        head = l
        heads = f
        continue
    if f[:2] == ["reason", "count"] or f[:2] == ["cpu", "count"]:
        pass
    elif unit and re.match(r"  \S", l) and f and f[0] in ("cpuid(0x72)", "all", "cpuid", "0",
                                                      "1", "2", "3", "4") and len(f) >= 8:
        # each figure ends where a name of the header ends: no column pushed right
        ends = lambda t: {m.end() for m in re.finditer(r"\S+", t) if m.end() > 30}
        assert ends(l) <= ends(head), ("a figure out of its column", head, l)
    if unit and re.match(r"  [0-4] ", l) and len(f) == len(heads) and heads[0] == "cpu":
        lat = lats[int(f[0])]
        cells = dict(zip(heads[1:], f[1:]))
        for k in ("min", "avg", "p50", "p99", "max"):
            assert cut_of(cells[k], unit, lat), (l, k, cells[k], unit, lat)
            checked += 1
for l in text:
    m = re.match(r"(Minimum|Average|Maximum) VM Exit-Entry latency = (.*)$", l)
    if m and m.group(2).endswith((" s", " ns", " us", " ms")):
        v, u = readable(m.group(2))
        want = {"Minimum": min(lats), "Maximum": max(lats),
                "Average": sum(lats) // len(lats)}[m.group(1)]
        assert cut_of(v, u, want), (l, want)
        checked += 1
    if l.startswith("Percentiles:"):
        p = dict(re.findall(r"(p[0-9.]+) ([^ ;]+ \w+)", l))
        s = sorted(lats)
        assert cut_of(*readable(p["p50"]), s[2]) and cut_of(*readable(p["p99"]), s[4]), l
        checked += 1
print(checked)
PY

# (--interval 1e6 s: the five tasks' intervals over 2^64 ns stay within the series' 262144
# rows, its bound since it kept 4 M in 298 MB)
for f in huge ticks; do
	for v in "" -v --top=5 --threshold=1 --histogram "--histogram --log" \
		 --hist-format=cyclictest --interval=1000000s --wide \
		 "--compare $f.vmt"; do
		[ "$f$v" != "ticks--interval=1000000s" ] || continue
		[ "$f$v" != "ticks--compare $f.vmt" ] || continue
		# shellcheck disable=SC2086
		run vmtrace-report $v $f.vmt
		expect_rc 0 "$f $v"
		[ "$v" = --wide ] || widths_ok out.txt err.txt || fail "$f $v: lines over 120 columns"
		python3 cells.py out.txt "$LATS" >n.txt || fail "$f $v: figures or columns"
	done
done
# several recordings merged, as one report
run vmtrace-report huge.vmt huge2.vmt
expect_rc 0 "merged"
widths_ok out.txt err.txt || fail "merged: lines over 120 columns"

# the values themselves: the single report's figures in s, the pCPU rows every one
vmtrace-report huge.vmt >huge.txt || fail "report"
[ "$(python3 cells.py huge.txt "$LATS")" -ge 28 ] || fail "not every figure was checked"
grep -q "^Exit reasons.*; latencies in s, totals in s:$" huge.txt || fail "latencies not in s"
grep -q "^Maximum VM Exit-Entry latency = 1.844e10 s$" huge.txt || fail "2^64 ns: not 1.844e10 s"

# --compare: the max column holds the longest (2^64 - 1001 ns, a double of 2^64), not 0
run vmtrace-report --compare huge.vmt huge2.vmt
awk '$1 == "all" || $1 == "after" { print $NF == "1000" ? $(NF - 1) : $(NF - 2) }' out.txt \
	>max.txt
python3 - "$LATS" max.txt <<'PY' || fail "--compare: max is not the longest exit, cut"
import sys
from fractions import Fraction as Fr
want = max(eval(x) for x in sys.argv[1].split())
for c in open(sys.argv[2]).read().split():
    m, e = c.split("e")
    step = Fr(1, 10 ** len(m.split(".")[1])) * 10 ** int(e) * 10**9
    shown = Fr(m) * 10 ** int(e) * 10**9
    assert shown <= want < shown + step, (c, want)
PY
exit 0
