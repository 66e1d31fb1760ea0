#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The exit lists (--threshold and the longest exits) fit 120 columns: an exit's field that
# would end past them continues on an indented line of its own, under "fields", and
# --wide keeps one line. Each row, joined back, is checked against the exit computed here
# from vmtrace-convert --json --events (another path: rows.c and jsonw.c): its time, pCPU,
# vCPU, pid, latency and every field the list shows (the RIP always, the others when not
# 0, all of them with --wide), and the list holds every exit at or over the threshold.
. "$(dirname "$0")/lib.sh"

check() {	# check FILE THRESHOLD [--wide]
	run vmtrace-report --top 40 --threshold "$2" ${3:-} "$1"
	expect_rc 0 "--threshold $2 ${3:-} $1"
	mv out.txt list.txt
	run vmtrace-convert --json --events -o - "$1"
	expect_rc 0 "convert $1"
	case $1 in *syscalls*) pair=other ;; *) pair=kvm ;; esac
	PYTHONPATH="$top_srcdir/tests/helpers" python3 - list.txt out.txt "$2" "${3:-}" "$pair" <<'PY' || fail "$1 --threshold $2 ${3:-}: the lists"
import json, re, sys
wide = sys.argv[4] == "--wide"
# KVM's lists show "-" for an exit without a vCPU id; another pair's have no vCPU column
no_vcpu = "-" if sys.argv[5] == "kvm" else ""
units = {"ns": 1, "us": 1000, "ms": 10**6, "s": 10**9}
m = re.fullmatch(r"(\d+)(ns|us|ms|s)", sys.argv[3])
threshold = int(m.group(1)) * units[m.group(2)]

from latfmt import lat  # tests/helpers: as the text views print it

# the exits, by time and task, with the latency of their pair's entry
exits, pairs = {}, []
for line in open(sys.argv[2]):
    e = json.loads(line)
    # another pair's events are begins and ends (man vmtrace-convert)
    assert e["kind"] in (("exit", "entry") if sys.argv[5] == "kvm" else ("begin", "end")), e
    e["kind"] = {"begin": "exit", "end": "entry"}.get(e["kind"], e["kind"])
    if e["kind"] == "exit":
        exits[(e["time_ns"], e["task"])] = e
    elif e["kind"] == "entry" and e["latency_ns"] is not None:
        pairs.append((e["time_ns"] - e["latency_ns"], e["task"], e["latency_ns"]))

def row(t, task, ns):
    x = exits[(t, task)]
    r = x["reason"]
    reason = "%s(0x%x)" % (r, x["reason_code"]) if r else "0x%x" % x["reason_code"]
    s = "%d.%09d %d %s %d %s %s" % (t // 10**9, t % 10**9, x["pcpu"],
                                    no_vcpu if x["vcpu"] is None else x["vcpu"], task, reason,
                                    lat(ns))
    s = s.replace("  ", " ")
    for f in ("rip", "info1", "info2", "intr_info", "error_code"):
        v = x.get(f)
        if v is not None and (wide or f == "rip" or int(v, 16)):
            s += " %s %s" % (f, v)
    return s

# the two lists of the report, continuation lines joined back to their row
lists, cur = {}, None
for l in open(sys.argv[1]):
    l = l.rstrip("\n")
    assert wide or len(l) <= 120, "%d columns: %s" % (len(l), l)
    if l.startswith(("Longest ", "Exits of at least", "Pairs of at least")):
        cur = lists.setdefault(l.split()[0], [])
    elif cur is None or not l or l.lstrip().startswith(("time (s)", "why: ")) or \
            " of host interrupts before the exit's trace point " in l:
        continue
    elif re.match(r" {72}(info1|info2|intr_info|error_code) ", l):
        assert not wide and cur, "a continuation line without its row: " + l
        cur[-1] += " " + l.lstrip()
    else:
        cur.append(" ".join(l.split()))

want = sorted(row(t, task, ns) for t, task, ns in pairs if ns >= threshold)
# another pair's threshold list is titled "Pairs of at least", KVM's "Exits of at least"
got = lists.get("Exits" if sys.argv[5] == "kvm" else "Pairs", [])
assert sorted(got) == want, "threshold list: %d rows, expected %d; first difference:\n%s" % (
    len(got), len(want), "\n".join(next(((g, w) for g, w in zip(sorted(got), want) if g != w),
                                        ("", ""))))
# the longest exits: the 40 largest latencies, each row its exit's
top = sorted(pairs, key=lambda p: -p[2])[:40]
got = lists.get("Longest", [])
at = 5 if no_vcpu else 4           # the latency's place: after the vCPU column, if any
assert [g.split()[at:at + 2] for g in got] == [lat(ns).split() for _, _, ns in top], \
    "longest exits"
assert set(got) <= {row(*p) for p in pairs}, "a longest exit's row"
PY
}

for f in "$DATA/sample-kvm.vmt" "$DATA/sample-syscalls.vmt" "$DATA/why/sample/kvm.vmt"; do
	for t in 1us 20us 500us; do
		check "$f" $t
	done
	check "$f" 20us --wide
done
# the why sample's npf exits with an interrupt pending reach 128 columns: wrapped
run vmtrace-report --threshold 20us "$DATA/why/sample/kvm.vmt"
grep -q "^ \{72\}intr_info 0x" out.txt || fail "the why sample's intr_info fields not wrapped"
run vmtrace-report --wide --threshold 20us "$DATA/why/sample/kvm.vmt"
grep -q " info2 0xfee000b0 intr_info 0x40 error_code 0x0$" out.txt || fail "--wide: one line"
exit 0
