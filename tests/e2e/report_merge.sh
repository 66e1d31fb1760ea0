#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-report A B C (mixed formats, one event pair): one population. Python concatenates the files' exit
# rows (vmtrace-convert --csv, same filters) and recounts per reason and overall the counts,
# the nearest-rank percentiles (exact up to 1024 exits, else within the histogram's bucket),
# the max and mean, the rate over the summed durations; each file's row against its own rows
# and single report (its worst window); the merged worst window is the largest of the
# files'. Then the options merging refuses.
. "$(dirname "$0")/lib.sh"

cat >recount.py <<'PY'
import csv, json, math, sys
from fractions import Fraction   # exact ranks: 99.9 / 100 * 1000 is not 999 in floats
m = json.load(open(sys.argv[1]))
n = (len(sys.argv) - 2) // 2
csvs, reps = sys.argv[2:2 + n], [json.load(open(f)) for f in sys.argv[2 + n:]]

def bucket(v):                      # common/latstat.h, written again
    if v < 128:
        return v
    e = v.bit_length() - 1
    return ((e - 6) << 7) + ((v >> (e - 7)) & 127)

def bucket_low(i):
    if i < 128:
        return i
    e = (i >> 7) + 6
    return (128 + (i & 127)) << (e - 7)

def pct(s, p):
    rank = min(max(math.ceil(Fraction(str(p)) / 100 * len(s)), 1), len(s))
    return s[rank - 1]

def check(f, vals, span, what):
    s = sorted(vals)
    assert f["count"] == len(s), (what, f["count"], len(s))
    exact = len(s) * 1e9 / span     # cut to the thousandth: never above it
    assert -1e-9 * exact <= exact - f["rate_per_s"] < 0.001 + 1e-9 * exact, (what, f["rate_per_s"], exact)
    if not s:
        return
    assert f["max_ns"] == s[-1] and f["mean_ns"] == sum(s) // len(s), what
    for key, p in (("p50_ns", 50), ("p90_ns", 90), ("p99_ns", 99), ("p99_9_ns", 99.9),
                   ("p99_99_ns", 99.99)):
        want = pct(s, p)
        if len(s) <= 1024 or p == 100:
            ok = f[key] == want
        else:
            b = bucket(want)
            ok = abs(f[key] - want) <= max(bucket_low(b + 1) - bucket_low(b), 1)
        assert ok, (what, key, f[key], want)

per_file, merged = [], {}
for i, path in enumerate(csvs):
    rows = list(csv.DictReader(open(path, newline="")))
    per_file.append([int(r["latency_ns"]) for r in rows])
    for r in rows:
        merged.setdefault(int(r["reason_code"]), []).append(int(r["latency_ns"]))
# the rates' span: the duration (a trace.dat's events' span), less what --from leaves out;
# with files of both kinds, every file's events' span (a .vmt's duration would halve its
# rate against the same exits converted)
import os
skip = int(os.environ.get("FROM_NS", "0"))
mixed = len({r["duration_ns"] is None for r in reps}) == 2
spans = [max((r["span_ns"] if mixed else r["duration_ns"] or r["span_ns"]) - skip, 0)
         for r in reps]
assert [f["duration_ns"] for f in m["files"]] == spans, (m["files"], spans)
assert m["merged"]["duration_ns"] == sum(spans)
for i, f in enumerate(m["files"]):
    check(f, per_file[i], spans[i], f["file"])
    assert f["max_window_ns"] == reps[i]["max_window_sum_ns"], f["file"]
groups = {g["reason_code"]: g for g in m["merged"]["groups"]}
assert len(groups) == len(m["merged"]["groups"]) == len(merged) + 1
check(groups[None], sum(per_file, []), sum(spans), "all")
assert groups[None]["max_window_ns"] == max(r["max_window_sum_ns"] for r in reps)
for code, vals in merged.items():
    check(groups[code], vals, sum(spans), "reason %d" % code)
print(f"{len(csvs)} files, {len(merged)} reasons, {len(sum(per_file, []))} exits recounted")
PY

# merge NAME [FILTERS...] -- FILES...
merge() {
	name=$1
	shift
	filters=
	while [ "$1" != -- ]; do
		filters="$filters $1"
		shift
	done
	shift
	vmtrace-report --json $filters "$@" >"$name.json" 2>"$name.err" || fail "$name: merged report"
	csvs= reps=
	i=0
	for f in "$@"; do
		i=$((i + 1))
		vmtrace-convert --csv $filters "$f" >"$name.$i.csv" || fail "$name: csv $f"
		vmtrace-report --json $filters "$f" >"$name.$i.rep" || fail "$name: report $f"
		csvs="$csvs $name.$i.csv"
		reps="$reps $name.$i.rep"
	done
	FROM_NS=${FROM_NS:-0} python3 recount.py "$name.json" $csvs $reps >r.out 2>&1 || fail "$name: $(cat r.out)"
	echo "$name: $(cat r.out)"
}

merge mixed -- "$DATA/sample-kvm.vmt" "$DATA/tracedat/kvm.v7zstd.dat" "$DATA/why/sample/kvm.vmt"
vmtrace-report "$DATA/sample-kvm.vmt" "$DATA/tracedat/kvm.v7zstd.dat" >mixed.txt 2>/dev/null
grep -q "rates over the recordings' summed spans less gaps:$" mixed.txt ||
	fail "mixed: the heading does not say the rates are over events' spans"
unfold mixed.err | grep -qF "kvm.v7zstd.dat has no recorded duration (a trace.bin, a trace.dat, a .vmt made of one or an unfinished one): the rates of all are over their events' span" ||
	fail "mixed: the spans' kind not said: $(cat mixed.err)"
# one recording twice (a copy too) is refused (report_samefile.sh): its CPUs' copies instead
# two CPUs' exits, with the start keys of a recorder's file (a copy's check reads them)
python3 - <<'PY' >two.txt || fail "writing the script"
print("cpus 0-1")
print("meta time.start 2026-12-07T01:02:03.000000004Z")
print("meta monotonic.start_ns 5000000")
for cpu in (0, 1):
    for i in range(300 + 200 * cpu):
        t = 1000000 + i * 3000
        print(f"exit {cpu} {t} {500 + cpu} {30 + i % 3} {cpu}")
        print(f"entry {cpu} {t + 700 + (i * 37) % 900} {500 + cpu} {cpu}")
PY
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" two.vmt <two.txt || fail mkvmt
vmtrace-convert --to-vmt --cpu 0 -o two-cpu0.vmt two.vmt || fail "--cpu 0 copy"
vmtrace-convert --to-vmt --cpu 1 -o two-cpu1.vmt two.vmt || fail "--cpu 1 copy"
merge cpus -- two-cpu0.vmt two-cpu1.vmt
[ ! -s cpus.err ] || fail "cpus: $(cat cpus.err)"
FROM_NS=10000000 merge filtered --reason hlt,io --from 10ms -- "$DATA/sample-kvm.vmt" \
	"$DATA/tracedat/kvm.v7zstd.dat"
FROM_NS=0
merge big -- "$DATA/sample-syscalls.vmt" "$DATA/small-syscalls.vmt"

# The text: the files listed, one table for all, one row per file.
run vmtrace-report "$DATA/sample-kvm.vmt" "$DATA/why/sample/kvm.vmt"
expect_rc 0 "text"
grep -q "^  \[2\] $DATA/why/sample/kvm.vmt$" out.txt || fail "the files' list"
n1=$(vmtrace-report --json "$DATA/sample-kvm.vmt" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pairs"])')
n2=$(vmtrace-report --json "$DATA/why/sample/kvm.vmt" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pairs"])')
grep -q "^  all  *$((n1 + n2)) " out.txt || fail "the merged count of all exits"
grep -q "^  \[1\]  *$n1 " out.txt && grep -q "^  \[2\]  *$n2 " out.txt || fail "a row per file"

# Recordings of different event pairs are not one population: refused, naming both pairs,
# before anything is printed; the same for --compare.
for mode in "" --compare; do
	run vmtrace-report $mode "$DATA/sample-kvm.vmt" "$DATA/small-syscalls.vmt"
	expect_rc 1 "kvm and syscalls${mode:+ with $mode}"
	expect_one_line_error vmtrace-report \
		"small-syscalls.vmt: records raw_syscalls:sys_enter -> raw_syscalls:sys_exit, not kvm:kvm_exit -> kvm:kvm_entry"
	[ "$(unfold err.txt | wc -l)" = 1 ] && [ ! -s out.txt ] || fail "kvm and syscalls: more than the one line"
done
widths_ok out.txt || fail "lines over 120 columns"

# Options the merged figures have no use for are refused, in a line that names the views
# given; a missing file is an error.
refused() {	# refused VIEWS: the merge's refusal naming them
	echo "vmtrace-report: several recordings are merged into figures per exit reason and per file: they take --json, --window, --no-causes and the filters; no other view ($1 given)"
}
for opt in --legacy --histogram -v '--threshold 1ms' '--interval 1s' '--html x.html' \
	'--top 3' '-v --why --wide' '--histogram --buckets 5 --log' '--verbose --legacy' \
	'--openmetrics=m.prom' '--around 1s --why'; do
	run vmtrace-report $opt "$DATA/sample-kvm.vmt" "$DATA/why/sample/kvm.vmt"
	expect_rc 64 "$opt with two recordings"
	# the options as given, values dropped, --verbose by its short name, in the order the
	# line lists them (--legacy before -v, the histogram's options last)
	case $opt in
	'--verbose --legacy') want="--legacy, -v" ;;
	'--around 1s --why') want="--why, --around" ;;
	*) want=$(echo "$opt" | sed 's/ [0-9][^ ]*//g; s/=[^ ]*//; s/ x\.html//; s/ /, /g') ;;
	esac
	[ "$(unfold err.txt | head -1)" = "$(refused "$want")" ] || fail "$opt: $(head -1 err.txt)"
	[ ! -e x.html ] && [ ! -e m.prom ] || fail "$opt: a file was written"
done
# The man page lists exactly the views refused (SEVERAL RECORDINGS): every option of
# --help's Output and Histogram groups, given with two recordings, is refused (exit 64, the
# merge's line) when the list names it and accepted (exit 0) when not.
python3 - "$top_srcdir/man/vmtrace-report.1" >listed.txt <<'PY' || fail "no list in the man page"
import re, sys
t = open(sys.argv[1]).read()
t = t[t.index(".SH SEVERAL RECORDINGS"):t.index(".SH COMPARISON")]
t = t[t.index("every other view is\nrefused (status 64):"):]
t = t[t.index(":\n"):]
lines = []
for l in t.split("\n")[1:]:
    if l.startswith(".\\\""):
        continue
    if not l.startswith(".BR"):
        break
    lines.append(l)
opts = re.findall(r"\\-(?:\\-)?[a-z][a-z\\-]*", " ".join(lines))
assert opts, "no options listed"
print("\n".join(sorted(o.replace("\\-", "-") for o in opts)))
PY
vmtrace-report --help | sed -n '/^ Output:$/,/^ Comparison:$/p' |
	sed -n 's/^ *\(-[a-zA-Z], \)\{0,1\}\(--[a-z-]*\)\(\[*=[^ ]*\)\{0,1\} .*/\1 \2 \3/p' >help.txt
[ "$(wc -l <help.txt)" -ge 15 ] || fail "the help's view options: $(cat help.txt)"
while read -r a b c; do
	case $a in
	-?,) short=${a%,} long=$b arg=$c ;;	# "-v, --verbose"
	*) short= long=$a arg=$b ;;
	esac
	case $arg in
	=TIME) val=1ms ;; =N) val=3 ;; =FILE) val=page.html ;; "=TS[,SPAN]") val=1s ;;
	=FORMAT) val=text ;; =NAME=VALUE) val=a=b ;; "" | "[=FILE]") val= ;;
	*) fail "$long: no value for $arg" ;;
	esac
	# shellcheck disable=SC2086 # the option and its value
	run vmtrace-report $long ${val:+"$val"} "$DATA/sample-kvm.vmt" "$DATA/why/sample/kvm.vmt"
	if grep -qx -- "$long" listed.txt || { [ -n "$short" ] && grep -qx -- "$short" listed.txt; }; then
		[ "$rc" = 64 ] && unfold err.txt | grep -q "^vmtrace-report: several recordings are merged" ||
			fail "$long $val: listed as refused with several recordings, exit $rc: $(cat err.txt)"
		# the line names the view given (-v by its short name), nothing else
		[ "$(unfold err.txt | head -1)" = "$(refused "${short:-$long}")" ] ||
			fail "$long $val: the refusal does not name it: $(head -1 err.txt)"
	else
		[ "$rc" = 0 ] || fail "$long $val: not in the man page's list, but exit $rc: $(head -1 err.txt)"
	fi
	echo "$long" >>tried.txt
done <help.txt
for o in $(cat listed.txt); do
	grep -qx -- "$o" tried.txt || [ "$o" = -v ] || fail "the man page lists $o, which --help's views lack"
done
echo "several recordings: $(wc -l <listed.txt) views refused as listed, $(($(wc -l <help.txt) - $(wc -l <listed.txt))) accepted"
run vmtrace-report "$DATA/sample-kvm.vmt" nosuch.vmt
expect_rc 1 "a missing file"
expect_one_line_error vmtrace-report "nosuch.vmt"
