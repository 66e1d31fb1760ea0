#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-report --fail-if on one recording: absolute conditions gate one run (exit 1 when
# one holds, with its verdict line; 0 when none does), judged on the figures recounted
# here from vmtrace-convert --csv's rows (count, max, per reason) and on the report's own
# percentiles (--json): a condition at the figure itself (>=) holds, just past it (>) does
# not. The report itself is printed as without --fail-if. A change ('+10%') or the test's
# figures (ks_p), which need two recordings, a reason the recording lacks and --fail-if on
# a merge of several are refused in one line, exit 64.
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
	[ "$2" = 1 ] && ! grep -q "^vmtrace-report: warning: --fail-if holds: " err.txt &&
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
grep -q "holds: max>$((max - 1))ns: all max " err.txt || fail "the line of the condition that held"
[ "$(grep -c 'fail-if holds' err.txt)" = 1 ] || fail "a line for the condition that did not hold"
gate "hlt:max>=${hlt_max}ns" 1
gate "HLT:max>${hlt_max}ns" 0
gate "p99>=${p99}ns" 1
gate "p99>${p99}ns" 0
gate "max > 1h , p99 < 1ns" 0

# refused: one line, exit 64, before reading anything
for bad in "p99>+10%:a change needs --compare BEFORE AFTER" \
	   "ks_p<0.01:the test compares two recordings" \
	   "nosuch:max>1ms:the recording has no exits of reason 'nosuch'" \
	   "max>2:a time needs its unit"; do
	run vmtrace-report --fail-if "${bad%:*}" "$f"
	expect_rc 64 "--fail-if '${bad%:*}'"
	expect_one_line_error vmtrace-report "${bad##*:}"
	[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt >&2; fail "--fail-if '${bad%:*}': not one line"; }
done
run vmtrace-report --fail-if "max>1ms" "$f" "$DATA/sample-syscalls.vmt"
expect_rc 64 "--fail-if on a merge"
expect_one_line_error vmtrace-report "--fail-if goes with one recording or --compare"
finish
