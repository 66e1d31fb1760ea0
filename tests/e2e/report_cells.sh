#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The tables' cells keep their 9 columns whatever the unit: a recording with totals of
# seconds and of nanoseconds (mkvmt) and the samples, in the single report's views, merged
# and compared. Every line fits 120 columns, every row's figures end where the header's
# names end, and the huge/tiny recording's totals and latencies, read back in the table's
# unit, are the JSON's nanoseconds cut (never more than they are), or "<X" above them.
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"
# cpuid: 11 s and 1 s (latencies in ms, totals in s); io 12345 ns; hlt 94 ns; interrupt 1 ns
"$HELPERS/mkvmt" "$F618" huge.vmt <<'S' || fail "mkvmt"
exit 0 1000 100 0x72
entry 0 11000001000 100
exit 0 12000000000 100 0x72
entry 0 13000000000 100
exit 0 14000000000 100 0x78
entry 0 14000000094 100
exit 0 15000000000 100 0x60
entry 0 15000000001 100
exit 0 16000000000 100 0x7b
entry 0 16000012345 100
S

cat >cells.py <<'PY'
import json, re, sys
text = open(sys.argv[1]).read().splitlines()
js = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else None
UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
bad = [l for l in text if len(l) > 120]
assert not bad, bad
heads = ("count", "rate/s")
tables = 0
unit = None
for i, l in enumerate(text):
    m = re.search(r"latencies in (\w+), (?:totals|worst sliding windows|windows) in (\w+)", l)
    if m:
        unit = (m.group(1), m.group(2))
    f = l.split()
    if "count" not in f or not l.startswith("  ") or f[0] == "count":
        continue
    names = f[f.index("count"):]
    ends = [m.end() for m in re.finditer(r"\S+", l)][-len(names):]
    tables += 1
    for row in text[i + 1:]:
        if not row.startswith("  ") or row.startswith("  (") or not row.strip():
            break
        if row.split()[0] == f[0]:      # the next table's header (vCPUs' availability)
            break
        spans = [m.end() for m in re.finditer(r"\S+", row)]
        if len(row.split()) == 1:       # a --compare name on a line of its own
            continue
        k = len(names)
        if "KS" in names:
            # --compare: the before/after rows stop before the test's columns, the change
            # row has three of its own (D, p, beyond) after the figures
            k = names.index("KS")
            got = spans[-k - 3:-3] if "change" in row.split()[:2] else spans[-k:]
        else:
            got = spans[-k:]
        assert got == ends[:k], (l, row, ends, got)
        if js and "total" in names and unit:
            # the single report's reason rows: figures against the JSON's ns
            label = row.split()[0]
            r = [x for x in js["reasons"] if "%s(0x%x)" % (x["name"], x["code"]) == label]
            if r:
                cells = dict(zip(names, row.split()[-len(names):]))
                for key, ns, u in (("total", r[0]["total_ns"], unit[1]),
                                   ("min", r[0]["min_ns"], unit[0]),
                                   ("max", r[0]["max_ns"], unit[0])):
                    c = cells[key]
                    if c.startswith("<"):
                        assert 0 < ns < float(c[1:]) * UNITS[u], (row, key, ns)
                        continue
                    dec = len(c.split(".")[1]) if "." in c else 0
                    v = float(c) * UNITS[u]
                    step = 10 ** -dec * UNITS[u]
                    assert v <= ns * (1 + 1e-12) and ns < v + step * (1 + 1e-9), (row, key, ns)
assert tables, "no table"
print(sys.argv[1], tables, "tables aligned")
PY

check() {	# check NAME ARGS...: the text of a view, against the JSON when it has one
	name=$1
	shift
	run vmtrace-report "$@"
	expect_rc 0 "$name"
	mv out.txt "$name.txt"
	python3 cells.py "$name.txt" ${json:+"$json"} || { cat "$name.txt"; fail "$name"; }
}

run vmtrace-report --json huge.vmt
mv out.txt huge.json
json=huge.json check huge huge.vmt
grep -q '^  hlt(0x78) .* <0.000001 ' huge.txt || fail "94 ns in seconds: not <0.000001"
json= check huge-merge huge.vmt "$DATA/sample-kvm.vmt"
json= check huge-compare --compare huge.vmt "$DATA/sample-kvm.vmt"
for f in sample-kvm.vmt sample-syscalls.vmt small-syscalls.vmt why/sample/kvm.vmt; do
	for v in "" --top=30 --interval=100ms; do
		json= check "$(echo "$f$v" | tr / _)" $v "$DATA/$f"
	done
done
json= check tracedat --pair raw_syscalls:sys_enter,raw_syscalls:sys_exit \
	"$DATA/tracedat/syscalls-extract.dat"
json= check sys-compare --compare "$DATA/sample-syscalls.vmt" "$DATA/small-syscalls.vmt"
finish
