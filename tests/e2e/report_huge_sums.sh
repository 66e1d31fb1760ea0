#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Latencies near 2^64 ns (damaged page headers: an entry's page says it starts 146 years on)
# must not wrap the sums: four exits of 2^62 ns each (a total of 2^64 ns, one past 64 bits)
# and three of 2^63, 2^63 and 2^62 ns. The average, the standard deviation and the total are
# computed here in Python's integers and fractions, and the text's lines agree with the JSON.
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"
# one exit per CPU and task at 1000 ns, its entry on a page of its own at 1000 + LAT
mk() {
	out=$1
	shift
	cpu=0
	for lat in "$@"; do
		printf 'exit %d 1000 %d 0x72\npage %d\nentry %d %s %d\n' $cpu $((100 + cpu)) $cpu \
			$cpu "$(python3 -c "print(1000 + $lat)")" $((100 + cpu))
		cpu=$((cpu + 1))
	done | "$HELPERS/mkvmt" "$F618" "$out" || fail "mkvmt $out"
}
mk four.vmt '2**62' '2**62' '2**62' '2**62'
mk three.vmt '2**63' '2**63' '2**62'

cat >check.py <<'PY'
import json, math, os, sys
from fractions import Fraction
sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "tests", "helpers"))
from latfmt import lat as text_lat	# as the text views print a latency
d = json.load(open(sys.argv[1]))
lats = [eval(x) for x in sys.argv[2:]]
n = len(lats)
mean = Fraction(sum(lats), n)
sd = math.sqrt(sum((x - mean) ** 2 for x in lats) / (n - 1))
total = min(sum(lats), 2**64 - 1)	# the documented saturation: 2^64 - 1 ns at most
num = lambda v: int(v)			# integers above 2^53 are strings
lat = d["latency_ns"]
assert num(lat["min"]) == min(lats) and num(lat["max"]) == max(lats), lat
assert num(lat["avg"]) == sum(lats) // n, (lat["avg"], sum(lats) // n)
assert num(d["total_ns"]) == total, (d["total_ns"], total)
got = float(num(d["stddev_ns"]))
assert abs(got - sd) <= max(1.0, sd * 1e-6), (got, sd)
assert got <= max(lats) - min(lats)
r = d["reasons"][0]
assert num(r["total_ns"]) == total and num(r["avg_ns"]) == sum(lats) // n, r
for t in d["vcpus"]:
    assert num(t["total_ns"]) == num(t["max_ns"]), t
print(text_lat(sum(lats) // n))
PY

for f in four three; do
	case $f in
	four) lats="2**62 2**62 2**62 2**62" ;;
	three) lats="2**63 2**63 2**62" ;;
	esac
	vmtrace-report --json $f.vmt >$f.json || fail "$f: --json"
	# shellcheck disable=SC2086
	avg=$(top_srcdir=$top_srcdir python3 check.py $f.json $lats) || fail "$f: JSON figures disagree with the values"
	vmtrace-report $f.vmt >$f.txt || fail "$f: report"
	grep -qx "Average VM Exit-Entry latency = $avg" $f.txt ||
		{ cat $f.txt >&2; fail "$f: text average is not $avg"; }
done
# all four equal: nothing varies, and the table's time% is the whole
grep -q "; stddev 0 ns$" four.txt || fail "four equal exits: a standard deviation above 0"
grep -Eq "^  cpuid\(0x72\) +4 100\.00 +[^ ]+ 100\.00 " four.txt ||
	{ cat four.txt >&2; fail "four: the reason's row does not hold all the time"; }
exit 0
