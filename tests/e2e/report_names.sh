#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Long reason names in the merged and --compare tables (VMX and SVM names from mkvmt, the
# syscall samples): each name as the table shows it is the JSON's name, whole, in the
# order of the JSON's groups, and every line fits 120 columns.
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"

gen() {	# gen NAME ISA REASON...: three exits of 100, 200, 300 ns per reason
	n=$1 isa=$2
	shift 2
	{
		echo "isa $isa"
		t=1000
		for r in "$@"; do
			for i in 1 2 3; do
				echo "exit 0 $t 100 $r"
				t=$((t + 100 * i))
				echo "entry 0 $t 100"
				t=$((t + 1000))
			done
		done
	} | "$HELPERS/mkvmt" "$F618" "$n.vmt" || fail "mkvmt $n"
}
# EXTERNAL_INTERRUPT (18), TPR_BELOW_THRESHOLD (19), vmgexit_hypervisor_feature (26)
gen vmx1 1 1 43 48
gen vmx2 1 1 43 30
gen svm1 2 0x402 0x8000fffd 0x60
gen svm2 2 0x402 0x8000fffd

cat >names.py <<'PY'
import json, sys
mode, text, js = sys.argv[1], open(sys.argv[2]).read().splitlines(), json.load(open(sys.argv[3]))
assert all(len(l) <= 120 for l in text), [l for l in text if len(l) > 120]
if mode == "merge":
    want = [g["reason"] for g in js["merged"]["groups"]]
    start = next(i for i, l in enumerate(text) if l.split()[:1] in (["reason"], ["id"]))
    got = []
    for l in text[start + 1:]:
        if not l.strip():
            break
        # the name is what comes before the count, whole, never cut
        got.append(l[2:].rsplit(None, 9)[0].rstrip())
else:
    want = [g["reason"] for g in js["compare"]["groups"]]
    start = next(i for i, l in enumerate(text) if l.split()[:1] in (["reason"], ["id"]))
    got, pending = [], None
    for l in text[start + 1:]:
        f = l.split()
        if not f or l.startswith("--fail-if"):
            break
        if len(f) == 1:                 # a name too long for the column: its own line
            pending = f[0]
        elif f[0] == "before":
            got.append(pending)
            pending = None
        elif f[0] not in ("after", "change"):
            assert f[1] == "before", l
            got.append(f[0])
assert got == want, (got, want)
print(mode, len(want), "names whole")
PY

check() {	# check MODE FILES...
	mode=$1
	shift
	if [ "$mode" = compare ]; then set -- --compare "$@"; fi
	run vmtrace-report "$@"
	expect_rc 0 "$*"
	mv out.txt t.txt
	run vmtrace-report --json "$@"
	expect_rc 0 "$* --json"
	python3 names.py "$mode" t.txt out.txt || { cat t.txt; fail "$mode $*: names"; }
}

for mode in merge compare; do
	check $mode vmx1.vmt vmx2.vmt
	check $mode svm1.vmt svm2.vmt
	check $mode "$DATA/sample-syscalls.vmt" "$DATA/small-syscalls.vmt"
done
# a name the table shows is one --fail-if takes
run vmtrace-report --compare vmx1.vmt vmx2.vmt --fail-if 'TPR_BELOW_THRESHOLD:count > 100'
grep -q "TPR_BELOW_THRESHOLD" out.txt || fail "--fail-if with a long name"
finish
