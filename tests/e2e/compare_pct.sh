#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --compare's changes in % are cut toward zero, as the man page says of every figure, in the
# text table, in --fail-if's verdicts and on the --html page: from recordings built by hand
# whose changes are known (a fall of 99.976 % reads -99.9 %, never -100.0 %; a rise of
# 66.666... % +66.6 %; one of 420386.666... % loses its decimal, +420386 %). Python computes
# every change exactly (fractions) from the JSON's figures and cuts it.
. "$(dirname "$0")/lib.sh"

FMT="$DATA/formats/linux-6.18-x86_64"

# before: three exits of 1 ms; after: five of 240 ns; later: two of 1009168 ns
{
	echo "cpus 0"
	echo "page 0"
	for t in 1000 2000000 4000000; do
		echo "exit 0 $t 100 30 0"
		echo "entry 0 $((t + 1000000)) 100 0"
	done
} >a.txt
{
	echo "cpus 0"
	echo "page 0"
	for t in 1000 2000000 3000000 4000000 5000000; do
		echo "exit 0 $t 100 30 0"
		echo "entry 0 $((t + 240)) 100 0"
	done
} >b.txt
{
	echo "cpus 0"
	echo "page 0"
	for t in 1000 2000000; do
		echo "exit 0 $t 100 30 0"
		echo "entry 0 $((t + 1009168)) 100 0"
	done
} >c.txt
for f in a b c; do
	"$HELPERS/mkvmt" "$FMT" $f.vmt <$f.txt || fail "mkvmt $f"
done

cat >cut.py <<'PY'
import json, re, sys
from fractions import Fraction
js, text, decimals = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = json.load(open(js))["compare"]
g = [g for g in c["groups"] if g["reason_code"] is None][0]
dur = [c["before"]["duration_ns"], c["after"]["duration_ns"]]

def change(key):
    b, a = g["before"][key], g["after"][key]
    if key == "rate_per_s":     # the JSON's rate is rounded: from the counts and durations
        b, a = Fraction(g["before"]["count"], dur[0]), Fraction(g["after"]["count"], dur[1])
    return (Fraction(a) - Fraction(b)) / Fraction(b) * 100

def cut(x, d):                  # toward zero, d decimals
    k = 10 ** d
    v = int(x * k)              # int() of a Fraction truncates toward zero
    return "%+.*f" % (d, Fraction(v, k)) if d else "%+d" % v

keys = ["count", "rate_per_s", "p50_ns", "p99_ns", "p99_9_ns", "max_ns", "max_window_ns"]
if decimals == 1:               # the text table: one decimal, none from 100000 %
    row = [l for l in open(text) if re.match(r"^ +change ", l)][0].split()[1:8]
    want = []
    for k in keys:
        x = change(k)
        want.append((cut(x, 1) if abs(int(x * 10)) < 1000000 else cut(x, 0)) + "%")
else:                           # --fail-if's verdict lines: two decimals
    row = re.findall(r"\(([-+][0-9.]+) %\)", open(text).read())
    want = [cut(change(k), 2) for k in ("max_ns", "count")]
if row != want:
    sys.exit("got %s, want %s" % (row, want))
print(" ".join(row))
PY

# check BEFORE AFTER WANT_MAX WANT_COUNT [PAGE_MAX]: the table and the verdicts against the
# recount, and the two changes the scripts make known, as written (the page's max keeps its
# decimal: it has no 9-column cell)
check() {
	vmtrace-report --compare --json "$1" "$2" >cmp.json || fail "$1 $2: --compare --json"
	vmtrace-report --compare "$1" "$2" >cmp.txt || fail "$1 $2: --compare"
	python3 cut.py cmp.json cmp.txt 1 >r.out 2>&1 || fail "$1 $2: the table: $(cat r.out)"
	echo "$1 -> $2: $(cat r.out)"
	awk '/^  all/ { on = 1 } on && /change/ { print $7, $2; exit }' cmp.txt >got.txt
	echo "$3% $4%" | diff - got.txt || fail "$1 $2: max and count changes"
	run vmtrace-report --compare --fail-if 'max>-1000%,count>-1000%' "$1" "$2"
	expect_rc 1 "$1 $2: --fail-if"
	python3 cut.py cmp.json out.txt 2 >r.out 2>&1 || fail "$1 $2: --fail-if: $(cat r.out)"
	echo "  --fail-if: $(cat r.out)"
	# the page's change row says the same as the text's
	vmtrace-report --compare --html page.html "$1" "$2" >/dev/null || fail "$1 $2: --html"
	grep -q ">${5:-$3}%<" page.html && grep -q ">$4%<" page.html ||
		fail "$1 $2: the page's changes are not ${5:-$3}% and $4%"
}
check a.vmt b.vmt -99.9 +66.6
check b.vmt c.vmt +420386 -60.0 +420386.6
# the headline case, in the words of the report: never rounded to -100.0 %
vmtrace-report --compare a.vmt b.vmt | grep -q -- '-100.0%' && fail "-99.976 % read -100.0 %"
vmtrace-report --compare --fail-if 'max<-50%' a.vmt b.vmt 2>/dev/null |
	grep -q '^--fail-if: holds: max<-50%: all max 1.000 ms -> 240 ns (-99.97 %) < -50 %$' ||
	fail "the --fail-if line"
# A recording without exits (two exits, no entry: no pair) has no figure to compare: a gate
# on it cannot tell, and fails closed (it "did not hold" and exited 0); the side is named
printf 'page 0\nexit 0 1000 100 30 0\nexit 0 2000 100 30 0\n' |
	"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" none.vmt || fail "mkvmt none.vmt"
run vmtrace-report --compare --json --fail-if 'p99>+10%,max>2ms' a.vmt none.vmt
expect_rc 1 "--fail-if on a recording without pairs"
grep -qx "vmtrace-report: warning: none.vmt: no exit-entry pairs: no latency figures" err.txt ||
	fail "the empty side not named: $(cat err.txt)"
[ "$(grep -c '^vmtrace-report: warning: --fail-if cannot tell, counted as holding: ' err.txt)" = 2 ] ||
	fail "the conditions that cannot be told: $(cat err.txt)"
[ "$(json out.txt '[(f["holds"], f["evaluated"]) for f in d["compare"]["fail_if"]]')" = \
  "[(True, False), (True, False)]" ] || fail "JSON fail_if: $(json out.txt 'd["compare"]["fail_if"]')"
widths_ok err.txt || fail "--fail-if's warnings over 120 columns"
# nor is there a Kolmogorov-Smirnov test without exits on both sides (it read p = 1)
run vmtrace-report --compare --json --fail-if 'ks_p<0.01,ks_d>0.5' a.vmt none.vmt
expect_rc 1 "--fail-if ks_p, ks_d on a recording without pairs"
[ "$(json out.txt '[(f["holds"], f["evaluated"]) for f in d["compare"]["fail_if"]]')" = \
  "[(True, False), (True, False)]" ] || fail "JSON fail_if ks: $(json out.txt 'd["compare"]["fail_if"]')"
# one that can be told still is: a and b both have pairs
run vmtrace-report --compare --json --fail-if 'p99>+10%' a.vmt b.vmt
[ "$(json out.txt '[(f["holds"], f["evaluated"]) for f in d["compare"]["fail_if"]]')" = "[(False, True)]" ] ||
	fail "JSON fail_if, both sides: $(json out.txt 'd["compare"]["fail_if"]')"
expect_rc 0 "--fail-if that does not hold"
exit 0
