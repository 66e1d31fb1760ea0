#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --hist-format cyclictest prints what cyclictest's histogram readers parse, and nothing
# else: every line a '#' comment or a row "NNNNNN COUNT[\tCOUNT...]" (cyclictest -h's
# layout), one column per pCPU. The rows' counts are checked against the latencies
# vmtrace-convert writes (bucketed here) and their sum against --json's pairs; the other
# views that print are refused.
. "$(dirname "$0")/lib.sh"

check() {	# check FILE [OPTIONS...]: the layout and the counts
	f=$1
	shift
	run vmtrace-report --hist-format cyclictest "$@" "$f"
	expect_rc 0 "$f $*"
	mv out.txt cyc.txt
	run vmtrace-report --json "$f"
	expect_rc 0 "$f --json"
	mv out.txt report.json
	run vmtrace-convert --csv -o - "$f"
	expect_rc 0 "convert $f"
	python3 - cyc.txt report.json out.txt "$@" <<'PY' || fail "$f $*: the histogram"
import csv, json, re, sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[-1] == "", "no newline at the end"
lines = lines[:-1]
d = json.load(open(sys.argv[2]))
opts = sys.argv[4:]
def opt(name, default):
    return opts[opts.index(name) + 1] if name in opts else default
units = {"ns": 1, "us": 1000, "ms": 10**6}
m = re.fullmatch(r"(\d+)(ns|us|ms)", opt("--bucket", "1us"))
width = int(m.group(1)) * units[m.group(2)]
log = "--log" in opts
nbuckets = int(opt("--buckets", "40" if log else "100"))

# the layout: comments, or the bucket index and one count per column, as cyclictest -h
rows = []
for l in lines:
    if l.startswith("#"):
        continue
    assert re.fullmatch(r"\d{6} \d{6,}(\t\d{6,})*", l), "not a histogram row: %r" % l
    idx, counts = l.split(" ", 1)
    rows.append((int(idx), [int(c) for c in counts.split("\t")]))
assert [i for i, _ in rows] == list(range(nbuckets)), "the rows' indices"
# the recording's line (its path on '#' lines of its own when the line would pass 120
# columns), the rows' line, then "# Histogram"
rows_at = next(i for i, l in enumerate(lines) if l.startswith("# Rows: "))
assert lines[0].startswith("# vmtrace-report:") and lines[rows_at + 1] == "# Histogram", lines[:5]
assert all(l.startswith("#   ") for l in lines[1:rows_at]), lines[:rows_at]
assert "# Histogram" in lines and lines.index("# Histogram") < \
    min(i for i, l in enumerate(lines) if not l.startswith("#")), "rows before # Histogram"

# the latencies, bucketed per pCPU of the begin event, from vmtrace-convert's rows
pairs = list(csv.DictReader(open(sys.argv[3])))
cpus = sorted({int(p["pcpu"]) for p in pairs})
want = {c: [0] * nbuckets for c in cpus}
over = {c: 0 for c in cpus}
for p in pairs:
    ns, c = int(p["latency_ns"]), int(p["pcpu"])
    b = max(ns, 1).bit_length() - 1 if log else ns // width
    if b < nbuckets:
        want[c][b] += 1
    else:
        over[c] += 1
assert all(len(r) == len(cpus) for _, r in rows), "one column per pCPU"
assert lines[rows_at].endswith("columns: pCPU " + " ".join(map(str, cpus))), lines[rows_at]
for k, c in enumerate(cpus):
    assert [r[k] for _, r in rows] == want[c], "pCPU %d's counts differ" % c
tail = dict(l[2:].split(":", 1) for l in lines if l.startswith("# ") and ":" in l)
assert [int(x) for x in tail["Histogram Overflows"].split()] == [over[c] for c in cpus]
# the Total is the rows' sum, without the overflows (as cyclictest's)
assert [int(x) for x in tail["Total"].split()] == [sum(want[c]) for c in cpus], tail["Total"]
# every pair the JSON report counts is in a row or an overflow
total = sum(sum(r) for _, r in rows)
assert total + sum(over.values()) == d["pairs"] == len(pairs), (total, over, d["pairs"])
if "--buckets" in opts and not sum(over.values()):
    assert total == d["pairs"]
print("%s: %d rows, %d pairs" % (sys.argv[1], len(rows), total))
PY
}

for f in "$DATA/sample-kvm.vmt" "$DATA/sample-syscalls.vmt" "$DATA/why/sample/kvm.vmt"; do
	check "$f"
	check "$f" --bucket 250ns --buckets 50
	check "$f" --log
done
# enough buckets for every latency (3.647 ms, 1 us wide): all pairs in the rows
check "$DATA/sample-kvm.vmt" --buckets 4000

# nothing else on standard output; the views that would print are refused
for args in "-v" "--around 1s" "--threshold 1ms" "--top 5" "--wide" "--interval 1s" \
	    "--html -" "--json" "--legacy" "-v --why"; do
	# shellcheck disable=SC2086 # the options are words
	run vmtrace-report --hist-format cyclictest $args "$DATA/sample-kvm.vmt"
	[ "$rc" = 64 ] || fail "--hist-format cyclictest $args: exit $rc, want 64"
	[ ! -s out.txt ] || fail "--hist-format cyclictest $args: wrote to standard output"
done
# filters that select nothing: no row without counts, the comments still there
run vmtrace-report --hist-format cyclictest --cpu 7 "$DATA/sample-kvm.vmt"
expect_rc 0 "--cpu 7"
grep -v '^#' out.txt && fail "a row without a column"
grep -qx '# Histogram' out.txt || fail "--cpu 7: no # Histogram"
# --html with a file writes its page as well
run vmtrace-report --hist-format cyclictest --html page.html "$DATA/sample-kvm.vmt"
expect_rc 0 "--html page.html"
[ -s page.html ] && grep -qx '# Histogram' out.txt && ! grep -q '^[A-Z]' out.txt ||
	fail "--html page.html with the histogram"
exit 0
