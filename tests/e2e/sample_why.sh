#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The causes in the bundled real KVM sample with a known truth (tests/data/why/sample/,
# made by tests/data/make-kvm-why-sample.sh on the KVM host harness): two VMs whose vCPU
# threads share one CPU, each workload's own counts beside the file. The same checks as
# tests/e2e/kvmhost_why.sh (tests/kvmhost/whycheck.py: exact exit counts per reason and
# vCPU thread; every exit's parts add up; every I/O exit has its user-space part; HLTs
# sleep and are woken; long exits are preempted by the other VM's vCPU thread; the JSON
# and the CSV agree), on every machine, without QEMU; and the text report's lines say
# the same as the JSON.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
S="$DATA/why/sample"
K="$top_srcdir/tests/kvmhost"

vmtrace-convert --csv -o exits.csv "$S/kvm.vmt" || fail "convert"
python3 "$K/whycheck.py" counts exits.csv "$S/kvmload-a.txt" "$S/kvmload-b.txt" ||
	fail "exit counts differ from the workloads' own"
tick_ns=$((1000000000 / $(cat "$S/hz")))
vmtrace-convert --csv --why -o why.csv "$S/kvm.vmt" || fail "convert --csv --why"
run vmtrace-report --json --threshold "${tick_ns}ns" "$S/kvm.vmt"
expect_rc 0 "report --json --threshold"
mv out.txt why.json
python3 "$K/whycheck.py" why --csv why.csv --json why.json --tick-ns $tick_ns \
	--halt-poll-ns "$(cat "$S/halt_poll_ns")" --require-context \
	"$S/kvmload-a.txt" "$S/kvmload-b.txt" || fail "the causes in the sample are wrong"

# The text report: each longest exit's why line is the JSON's breakdown of that exit, and
# the culprits table's first row is the JSON's first culprit.
run vmtrace-report --top 5 "$S/kvm.vmt"
expect_rc 0 "text report"
mv out.txt why.txt
run vmtrace-report --json --top 5 "$S/kvm.vmt"
python3 - why.txt out.txt <<'PY' || fail "the text's causes differ from the JSON's"
import json, re, sys
text = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
lines = re.findall(r"^\s*why: (.*)$", text, re.M)
assert len(lines) == len(d["top"]) == 5, (len(lines), len(d["top"]))
for line, t in zip(lines, d["top"]):
    c = t["why"]["culprit"]
    if c:
        assert c["kind"] in line and (c["name"] in line), (line, c)
        if c["pid"] is not None:
            assert "(pid %d)" % c["pid"] in line, (line, c)
top = d["culprits"][0]
assert re.search(r"^\s*%s\s+%s\s+%s\s" % (top["kind"], re.escape(top["name"]), top["pid"]),
                 text, re.M), top
PY
exit 0
