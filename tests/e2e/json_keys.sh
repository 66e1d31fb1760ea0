#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every JSON key the programs print is documented: the keys of vmtrace-report --json (one
# recording of each kind, each view that adds keys, merged files, a comparison) must each
# appear in bold in vmtrace-report(1), and those of vmtrace-convert --jsonl (rows, events,
# causes, series) in vmtrace-convert(1). Scripts depend on these names: an undocumented key
# is a key nobody promised to keep.
. "$(dirname "$0")/lib.sh"

kvm="$DATA/sample-kvm.vmt"
why="$DATA/why/sample/kvm.vmt"
sys="$DATA/sample-syscalls.vmt"

# report ARGS...: one more JSON object of vmtrace-report, exit 0 or 1 (--fail-if holding)
n=0
report() {
	n=$((n + 1))
	vmtrace-report --json "$@" >"r$n.json" 2>err.txt
	rc=$?
	[ "$rc" -le 2 ] || { cat err.txt; fail "vmtrace-report --json $*: exit $rc"; }
	[ -s "r$n.json" ] || fail "vmtrace-report --json $*: no JSON"
}
report "$kvm"
report "$why"
report "$sys"
report "$DATA/flight/dropped.vmt"
report "$DATA/tracedat/context.dat"
report --histogram "$why"
report --histogram --log "$sys"
report --threshold 1ms "$why"
report --around 1s,5ms "$why"
report --threshold 15ms --around 0.5s,20us "$why"
report --interval 100ms "$why"
report "$kvm" "$why"
report --compare --fail-if 'max>1ms,hlt:count>+50%' "$kvm" "$why"
report --compare "$why" "$why"

m=0
convert() {
	m=$((m + 1))
	vmtrace-convert --jsonl -o "c$m.jsonl" "$@" 2>err.txt ||
		{ [ $? = 2 ] || { cat err.txt; fail "vmtrace-convert --jsonl $*"; }; }
	[ -s "c$m.jsonl" ] || fail "vmtrace-convert --jsonl $*: no rows"
}
convert "$why"
convert --why "$why"
convert --events "$why"
convert --series=100ms "$why"
convert "$sys"

check() {
	python3 - "$@" <<'EOF'
import json, re, shlex, sys

def bold_words(path):
    """The words a man page sets in bold: .B, the bold halves of .BR/.RB/.BI/.IB, \\fB...\\fR."""
    out = set()
    for line in open(path):
        line = line.rstrip("\n").replace("\\-", "-").replace("\\&", "").replace("\\(dq", '"')
        m = re.match(r"^\.(B|BR|RB|BI|IB)\s+(.*)$", line)
        if m:
            try:
                args = shlex.split(m.group(2).replace("\\\"", "'"))
            except ValueError:
                args = m.group(2).split()
            kind = m.group(1)
            if kind == "B":
                picked = args
            else:
                first = 0 if kind[0] == "B" else 1
                picked = args[first::2]
            for a in picked:
                out.update(re.findall(r"[A-Za-z0-9_.]+", a))
        for b in re.findall(r"\\fB(.*?)\\f[RIP]", line):
            out.update(re.findall(r"[A-Za-z0-9_.]+", b))
    return out

def keys(o, out):
    if isinstance(o, dict):
        for k, v in o.items():
            out.add(k)
            keys(v, out)
    elif isinstance(o, list):
        for v in o:
            keys(v, out)

man, files = sys.argv[1], sys.argv[2:]
found = set()
for f in files:
    text = open(f).read()
    if f.endswith(".jsonl"):
        for line in text.splitlines():
            keys(json.loads(line), found)
    else:
        keys(json.loads(text), found)
documented = bold_words(man)
missing = sorted(found - documented)
print("%s: %d keys in %d outputs" % (man, len(found), len(files)))
if len(found) < 20:
    sys.exit("%s: only %d keys found: the outputs were not read" % (man, len(found)))
if missing:
    sys.exit("%s: keys not documented in bold: %s" % (man, ", ".join(missing)))
EOF
}
check "$top_srcdir/man/vmtrace-report.1" r*.json || fail "vmtrace-report --json keys"
check "$top_srcdir/man/vmtrace-convert.1" c*.jsonl || fail "vmtrace-convert --jsonl keys"
exit 0
