#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-report --fail-if on one recording: absolute conditions gate one run (exit 1 when
# one holds, with its verdict line; 0 when none does), judged on the figures recounted
# here from vmtrace-convert --csv's rows (count, max, per reason) and on the report's own
# percentiles (--json): a condition at the figure itself (>=) holds, just past it (>) does
# not. The report itself is printed as without --fail-if. A change ('+10%') or the test's
# figures (ks_p), which need two recordings, a reason name the recording's table lacks (or
# the other vendor's) and --fail-if on a merge of several are refused in one line, exit 64;
# a reason it names but has no exit of (pause here, or io in a window without any, as the
# CSV of that window says) is checked on no exits: count and open 0, max cannot be told. lost: the events lost, as the
# report's lost_events, against the counts the test's own script flags. A damaged input
# is status 2 even when a condition holds (1), an error 1 without a verdict line.
. "$(dirname "$0")/lib.sh"
f="$DATA/sample-kvm.vmt"

vmtrace-convert --csv "$f" >rows.csv || fail "convert --csv"
vmtrace-report --json "$f" >r.json || fail "--json"
vmtrace-report "$f" >plain.txt || fail "the report"
# count, max, and hlt's max recounted from the rows
set -- $(python3 - rows.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
lat = [int(r["latency_ns"]) for r in rows]
hlt = [int(r["latency_ns"]) for r in rows if r["reason"] == "hlt"]
print(len(lat), max(lat), max(hlt))
PY
)
count=$1 max=$2 hlt_max=$3
p99=$(json r.json 'd["percentiles_ns"]["p99"]')
[ "$count" = "$(json r.json 'd["pairs"]')" ] || fail "the rows are not the report's pairs"

# gate EXPR STATUS: --fail-if EXPR exits STATUS; the report on stdout is the plain one, and
# each condition that holds has its line on stderr
gate() {
	run vmtrace-report --fail-if "$1" "$f"
	expect_rc "$2" "--fail-if '$1'"
	cmp -s out.txt plain.txt || fail "--fail-if '$1': the report differs from the plain one"
	[ "$2" = 1 ] && ! unfold err.txt | grep -q "^vmtrace-report: warning: --fail-if holds: " &&
		fail "--fail-if '$1': no verdict line"
	[ "$2" = 0 ] && [ -s err.txt ] && { cat err.txt >&2; fail "--fail-if '$1': said something"; }
	return 0
}
gate "count>=$count" 1
gate "count>$count" 0
gate "count<$((count + 1))" 1
gate "max>=${max}ns" 1
gate "max>${max}ns" 0
gate "max>$((max - 1))ns,count>$count" 1
unfold err.txt | grep -q "holds: max>$((max - 1))ns: all max " || fail "the line of the condition that held"
[ "$(unfold err.txt | grep -c 'fail-if holds')" = 1 ] || fail "a line for the condition that did not hold"
gate "hlt:max>=${hlt_max}ns" 1
gate "HLT:max>${hlt_max}ns" 0
gate "p99>=${p99}ns" 1
gate "p99>${p99}ns" 0
gate "max > 1h , p99 < 1ns" 0

# Exact figures: the mean is the rows' sum over their count (not the whole ns the table
# shows), the rate the pairs over the recorded duration (the sample lost nothing); just
# under them a condition holds, and the verdict line prints digits enough for the
# relation it states to read true (not "rate 11812.4 > 11812.4")
set -- $(python3 - rows.csv r.json <<'PY'
import csv, json, math, sys
lat = [int(r["latency_ns"]) for r in csv.DictReader(open(sys.argv[1]))]
d = json.load(open(sys.argv[2]))
mean = sum(lat) / len(lat)
rate = d["pairs"] * 1e9 / d["duration_ns"]
assert d["lost_events"] == 0 and mean != math.floor(mean)
print(math.floor(mean), repr(mean), "%.1f" % (math.floor(rate * 10) / 10), repr(rate))
PY
)
mean_floor=$1 mean=$2 rate_cut=$3 rate=$4
# exact EXPR STATUS FIGURE: the verdict line (or the figures) of EXPR read as it says
exact() {
	run vmtrace-report --fail-if "$1" "$f"
	expect_rc "$2" "--fail-if '$1'"
	[ "$2" = 1 ] || return 0
	python3 - err.txt "$1" "$3" <<'PY' || fail "--fail-if '$1': the verdict line"
import re, sys
line = open(sys.argv[1]).read()
m = re.search(r"holds: .*: all \w+ ([0-9.]+)( ns)? (>=|<=|>|<) ([0-9.]+)( ns)?$", line.strip())
assert m, line
x, op, y = float(m.group(1)), m.group(3), float(m.group(4))
assert {">": x > y, ">=": x >= y, "<": x < y, "<=": x <= y}[op], ("reads false", line)
digits = len(m.group(1).split(".")[1]) if "." in m.group(1) else 0
assert abs(x - float(sys.argv[3])) <= 0.5 * 10 ** -digits + 1e-9, (x, sys.argv[3], line)
print(line.strip())
PY
}
exact "mean>${mean_floor}ns" 1 "$mean"
exact "mean<=${mean_floor}ns" 0 "$mean"
exact "rate>$rate_cut" 1 "$rate"
exact "rate<=$rate_cut" 0 "$rate"
# the same in --compare (the recording with itself: AFTER's figures are its own)
run vmtrace-report --compare --fail-if "mean>${mean_floor}ns,rate>$rate_cut" "$f" "$f"
expect_rc 1 "--compare mean and rate just under them"
[ "$(unfold err.txt | grep -c -e "holds: mean>${mean_floor}ns: all mean [0-9.]* ns > ${mean_floor}.0 ns" \
	-e "holds: rate>$rate_cut: all rate [0-9.]* > ${rate_cut}0*$")" = 2 ] ||
	{ cat err.txt >&2; fail "--compare: the exact figures' lines"; }
unfold err.txt | grep -F "all rate $rate_cut > " && fail "--compare: the rate line reads false"

# Exit statuses a script can tell apart: a damaged or unfinished recording is 2 whether a
# condition holds (its line still said) or not, for one recording and for --compare; an
# error is 1 with its line and no verdict
(echo "exit 0 1000 100 1"; echo "entry 0 2000 100"; echo "unfinished") |
	"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" unf.vmt || fail "mkvmt"
for cmd in "unf.vmt" "--compare $f unf.vmt"; do
	run vmtrace-report --fail-if "max>1ns" $cmd
	expect_rc 2 "--fail-if max>1ns (holds) $cmd"
	grep -qF -- "--fail-if holds: max>1ns: all max 1.000 us > 1 ns" err.txt ||
		fail "$cmd: no verdict line"
	run vmtrace-report --fail-if "max>1ms" $cmd
	expect_rc 2 "--fail-if max>1ms (does not hold) $cmd"
done
run vmtrace-report --fail-if "max>1ns" nosuch.vmt
expect_rc 1 "--fail-if on a file that is not there"
expect_one_line_error vmtrace-report "nosuch.vmt: "
unfold err.txt | grep -q "fail-if holds" && fail "an error said as a verdict"

# refused: one line, exit 64, before reading anything
for bad in "p99>+10%:a change needs --compare BEFORE AFTER" \
	   "ks_p<0.01:the test compares two recordings" \
	   "nosuch:max>1ms:sample-kvm.vmt. unknown exit reason 'nosuch' in this AMD SVM recording" \
	   "EPT_VIOLATION:open>1s:EPT_VIOLATION is an Intel VMX exit reason; this recording is AMD SVM, whose name is npf" \
	   "max>2:a time needs its unit" \
	   "max>2ms;p99>1us:conditions run together. separate them with ','" \
	   "max>2ms p99>1us:conditions run together. separate them with ','" \
	   "max>2ms;io:p99>1us:conditions run together. separate them with ','"; do
	run vmtrace-report --fail-if "${bad%:*}" "$f"
	expect_rc 64 "--fail-if '${bad%:*}'"
	[ ! -s out.txt ] || fail "--fail-if '${bad%:*}': refused after the report was printed"
	expect_one_line_error vmtrace-report "${bad##*:}"
	[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt >&2; fail "--fail-if '${bad%:*}': not one line"; }
done
# A condition that does not parse: the hint names what works where it is given. On one
# recording every form and figure it names is taken (exit 0 or 1, a verdict): no change
# (+10%) and no test's figure (ks_p, ks_d), which one recording refuses; --compare's hint
# names those too, and they work there.
run vmtrace-report --fail-if 'p99>abc' "$f"
expect_rc 64 "--fail-if 'p99>abc'"
case $(unfold err.txt) in *%*) { cat err.txt; fail "one recording: the hint names a change"; } ;; esac
times=$(unfold err.txt | sed -n "s/.*: a bad time (\([^)]*\))$/\1/p" | tr -d ,)
[ "$(echo $times | wc -w)" = 2 ] || { cat err.txt; fail "one recording: the hint's times '$times'"; }
for t in $times; do
	run vmtrace-report --fail-if "p99>$t" "$f"
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat err.txt; fail "one recording: the hint's p99>$t: exit $rc"; }
done
run vmtrace-report --compare --fail-if 'p99>abc' "$f" "$f"
expect_rc 64 "--compare --fail-if 'p99>abc'"
change=$(unfold err.txt | sed -n "s/.* or change (\([^)]*\))$/\1/p")
[ -n "$change" ] || { cat err.txt; fail "--compare: the hint names no change"; }
run vmtrace-report --compare --fail-if "p99>$change" "$f" "$f"
[ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat err.txt; fail "--compare: the hint's p99>$change: exit $rc"; }
# an unknown figure: each one the list names is taken (a time with its unit, else a number)
for mode in one compare; do
	files="$f"
	[ $mode = compare ] && files="--compare $f $f"
	# shellcheck disable=SC2086 # the option and the files
	run vmtrace-report --fail-if 'p98>1ms' $files
	expect_rc 64 "$mode: --fail-if 'p98>1ms'"
	figs=$(unfold err.txt | sed -n "s/.*unknown figure 'p98' (\([^)]*\))$/\1/p" | tr -d ,)
	[ "$(echo $figs | wc -w)" -ge 10 ] || { cat err.txt; fail "$mode: the figures listed: '$figs'"; }
	for fig in $figs; do
		# shellcheck disable=SC2086
		run vmtrace-report --fail-if "$fig>1ms" $files
		# shellcheck disable=SC2086
		[ "$rc" = 64 ] && run vmtrace-report --fail-if "$fig>1" $files
		[ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat err.txt; fail "$mode: the listed $fig: exit $rc"; }
	done
	case "$mode $figs" in
	"one "*ks_*) fail "one recording: the list names the test's figures: $figs" ;;
	compare*ks_p*ks_d*) ;;
	compare*) fail "--compare: the list lacks ks_p, ks_d: $figs" ;;
	esac
done
run vmtrace-report --fail-if "max>1ms" "$f" "$DATA/sample-syscalls.vmt"
expect_rc 64 "--fail-if on a merge"
expect_one_line_error vmtrace-report "--fail-if goes with one recording or --compare"
# lost: the events the recording lost, as the report's lost_events (the "missed N" of the
# script's pages: 5 + 3); a page flagged without its count makes that a lower bound, which
# decides "more than" when it holds and "less than" when it does not, else cannot tell
# (counted as holding). The same in --compare, absolute and as a change.
script() {	# script N: two CPUs' exits, pages flagged lost 5 and 3 (and one without a count)
	echo "exit 0 1000 100 1"; echo "entry 0 2000 100"; echo "page 0 missed 5"
	echo "exit 0 3000 100 1"; echo "entry 0 4000 100"
	echo "exit 1 1500 200 1"; echo "entry 1 2500 200"; echo "page 1 missed 3"
	echo "exit 1 3500 200 1"; echo "entry 1 4500 200"
	[ "$1" = uncounted ] && echo "page 1 missed"
	echo "exit 1 5500 200 1"; echo "entry 1 6500 200"
}
script counted | "$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" lost.vmt || fail "mkvmt"
script uncounted | "$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" lostu.vmt || fail "mkvmt"
[ "$(json "$(vmtrace-report --json lost.vmt >l.json; echo l.json)" 'd["lost_events"]')" = 8 ] ||
	fail "the report's lost_events is not the script's 8"
# lostgate FILE EXPR STATUS [VERDICT]: exit status, and the verdict line's words
lostgate() {
	run vmtrace-report --fail-if "$2" "$1"
	expect_rc "$3" "--fail-if '$2' $1"
	[ -z "${4:-}" ] || unfold err.txt | grep -qF -- "--fail-if $4" ||
		{ cat err.txt >&2; fail "--fail-if '$2' $1: no '$4'"; }
}
lostgate lost.vmt "lost>=8" 1 "holds: lost>=8: all lost 8 >= 8"
lostgate lost.vmt "lost>8" 0
lostgate lost.vmt "lost<9" 1 "holds: lost<9: all lost 8 < 9"
lostgate lost.vmt "lost<8" 0
lostgate lost.vmt "ALL:lost>7,max>1h" 1
lostgate lostu.vmt "lost>7" 1 "holds: lost>7: all lost 8 and an unknown number more > 7"
lostgate lostu.vmt "lost<8" 0
lostgate lostu.vmt "lost>8" 1 "cannot tell, counted as holding: lost>8: all lost 8 and an unknown"
lostgate lostu.vmt "lost<=9" 1 "cannot tell, counted as holding: lost<=9"
run vmtrace-report --fail-if "hlt:lost>0" lost.vmt
expect_rc 64 "hlt:lost"
expect_one_line_error vmtrace-report "lost events are the recording's, not a reason's"
# --compare: 0 lost (the sample) -> 8: from nothing to something is an infinite rise
run vmtrace-report --compare --fail-if "lost>7" "$f" lost.vmt
expect_rc 1 "--compare lost>7"
grep -qF -- "--fail-if holds: lost>7: all lost 8 > 7" err.txt || fail "--compare lost>7: the line"
run vmtrace-report --compare --fail-if "lost>+1000%" "$f" lost.vmt
expect_rc 1 "--compare lost>+1000%"
run vmtrace-report --compare --fail-if "lost>+0%" lost.vmt lost.vmt
expect_rc 0 "--compare lost>+0% of a file with itself"
run vmtrace-report --compare --fail-if "lost<+1%" lost.vmt lostu.vmt
expect_rc 1 "--compare lost<+1% with a lower bound"
unfold err.txt | grep -q "cannot tell, counted as holding: lost<+1%" || fail "--compare lost: cannot tell"
# a figure no exit gives (none selected): the verdict line says "none", in the text and in
# --compare's JSON (it printed a stack buffer never written)
run vmtrace-report --from 0 --to 1ns --fail-if 'max>1us' "$DATA/sample-kvm.vmt"
expect_rc 1 "--fail-if max>1us with no exit selected"
unfold err.txt | grep -qx "vmtrace-report: warning: --fail-if cannot tell, counted as holding: max>1us: all max none > 1.000 us" || { cat err.txt; fail "--fail-if on no exit: the verdict line"; }
run vmtrace-report --compare --json --from 0 --to 1ns --fail-if 'max>1us' "$DATA/sample-kvm.vmt" \
	"$DATA/why/sample/kvm.vmt"
[ "$(json out.txt 'd["compare"]["fail_if"][0]["detail"]')" = "max>1us: all max none > 1.000 us" ] ||
	fail "--compare JSON detail: $(json out.txt 'd["compare"]["fail_if"][0]["detail"]')"

# A reason the table names but the recording has no exit of: checked on no exits (it
# was refused as if misspelt, "the recording has no exits of reason 'pause'", exit 64)
python3 - rows.csv <<'PY' || fail "$f has pause exits: not the case tested"
import csv, sys
sys.exit(any(r["reason"] == "pause" for r in csv.DictReader(open(sys.argv[1]))))
PY
# a latency of no exits: none longer than anything ("more than" does not hold: a gate on
# a reason's worst case passes a run without it), "less than" cannot be told
for c in "pause:count>0:0:pause count 0 not > 0" "pause:open>1s:0:pause open 0 ns not > 1.000 s" \
	 "pause:max>1ms:0:pause max none, no exit longer: not > 1.000 ms" \
	 "pause:p99>=0us:0:pause p99 none, no exit longer: not >= 0 ns" \
	 "pause:window>1us:0:pause window none, no exit longer: not > 1.000 us" \
	 "pause:p50<1ms:1:pause p50 none < 1.000 ms"; do
	cond=${c%%:[0-9]:*} rest=${c#*:*:} want=${rest%%:*} said=${rest#*:}
	run vmtrace-report --fail-if "$cond" "$f"
	expect_rc "$want" "--fail-if $cond on a recording without pause exits"
	unfold err.txt | grep -qxF "vmtrace-report: $( [ "$want" = 1 ] &&
		echo "warning: --fail-if cannot tell, counted as holding" ||
		echo "--fail-if does not hold"): $cond: $said (no exits of reason 'pause' in the recording)" ||
		{ cat err.txt; fail "--fail-if $cond: the verdict line"; }
	cmp -s out.txt plain.txt || fail "--fail-if $cond: the report is not printed as without it"
done
# io in a window that holds none of its exits (the window's CSV says so): the line names
# the filter, not the recording
vmtrace-convert --csv --from 0.5s --to 0.5001s "$f" >win.csv || fail "convert the window"
[ "$(grep -c ',io,' win.csv)" = 0 ] || fail "the window has io exits: not the case tested"
[ "$(grep -c ',io,' rows.csv)" -gt 0 ] || fail "$f has no io exits"
run vmtrace-report --fail-if 'io:mean<1ms,io:count>0,io:max>1ms' --from 0.5s --to 0.5001s "$f"
expect_rc 1 "io in a window without io exits"
unfold err.txt | grep -qF "io:mean<1ms: io mean none < 1.000 ms (no exits of reason 'io' in the exits --from keeps)" ||
	{ cat err.txt; fail "the window's io: the verdict line does not name the filter"; }
unfold err.txt | grep -qF "does not hold: io:max>1ms: io max none, no exit longer: not > 1.000 ms" ||
	{ cat err.txt; fail "the window's io max"; }
unfold err.txt | grep -qF "does not hold: io:count>0: io count 0 not > 0" ||
	{ cat err.txt; fail "the window's io count"; }
# the refusal names the file
run vmtrace-report --fail-if 'nosuch:max>1ms' "$f"
expect_one_line_error vmtrace-report "--fail-if nosuch:max>1ms: $f: unknown exit reason 'nosuch'"
# a number: one the table names (0x7c, SVM's msr) is a reason without exits here; one no
# table names and no exit has is refused as likely mistyped (after the pass: a number may
# have exits no table names)
run vmtrace-report --fail-if '0x7c:count>0' "$f"
expect_rc 0 "--fail-if 0x7c:count>0 (msr, no exits)"
unfold err.txt | grep -qF "0x7c count 0 not > 0 (no exits of reason '0x7c' in the recording)" ||
	{ cat err.txt; fail "0x7c: the verdict"; }
run vmtrace-report --fail-if '99999:open>1s' "$f"
expect_rc 64 "--fail-if 99999:open>1s"
expect_one_line_error vmtrace-report "--fail-if 99999:open>1s: $f: no exits of reason 99999, a code the recording's table does not name either"
# what --reason refuses is refused before the report too, numbers included
for c in '1abc:count>0' '0x:count>0' '4294967296:count>0'; do
	run vmtrace-report --fail-if "$c" "$f"
	expect_rc 64 "--fail-if $c"
	[ ! -s out.txt ] || fail "--fail-if $c: refused after the report was printed"
done
# a system call's number is any: the built-in table stops at Linux 6.1's calls (mseal, 462,
# came later), and a gate on a call that was not made does not hold
run vmtrace-report --fail-if '462:count>0' "$DATA/sample-syscalls.vmt"
expect_rc 0 "--fail-if 462:count>0 on system calls"
unfold err.txt | grep -qF "462 count 0 not > 0 (no pairs of id '462' in the recording)" ||
	{ cat err.txt; fail "462: the verdict"; }
# VMX codes with their flag bits (0x80000021: a VM entry that failed) count by the basic
# reason, as the exits and --reason do: two such exits, and one HLT
printf 'isa 1\nexit 0 1000 7 0x80000021 0\nentry 0 1500 7 0\nexit 0 2000 7 0x80000021 0\nentry 0 2600 7 0\nexit 0 3000 7 12 0\nentry 0 3100 7 0\n' |
	"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" vmx.vmt || fail "mkvmt vmx.vmt"
for c in '0x80000021:count>1:1' '33:count>1:1' 'INVALID_STATE:count>1:1' '0x80000021:count>2:0'; do
	run vmtrace-report --fail-if "${c%:*}" vmx.vmt
	expect_rc "${c##*:}" "vmx.vmt --fail-if ${c%:*}"
done
for c in '--reason 33 --fail-if 0x80000021:count>1=1' '--reason INVALID_STATE --fail-if 0x80000021:count<1=0'; do
	# shellcheck disable=SC2086
	run vmtrace-report ${c%=*} vmx.vmt
	[ "$rc" = "${c##*=}" ] || { cat err.txt; fail "vmx.vmt ${c%=*}: exit $rc (the filter keeps those exits)"; }
done
finish
