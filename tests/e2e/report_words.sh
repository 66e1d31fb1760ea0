#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The HTML pages and the comparison speak of a recording's own pair: KVM's words (exits,
# entries, vCPU tasks, out of guest, exit reasons) for kvm:kvm_exit -> kvm:kvm_entry, the
# text report's neutral ones (pairs, tasks, time in pairs, ids) for any other pair.
# - the syscall sample's page (--interval, so every section is there): its visible text
#   (no script or style; the facts that are data, such as the event names and the host
#   "vm", left out) has no exit, entry, vCPU, guest or VM, and its summary card, first
#   histogram's title, count axis, tables' headers and heatmap word are the neutral ones,
#   with the counts of the JSON report of the same run;
# - the KVM sample's page has the KVM words in the same places, with its counts;
# - --compare --html and the comparison's and merge's text, both ways;
# - --threshold's list title and the note on a selection that is empty, both ways;
# - vmtrace-convert --perfetto's process of tasks, both ways;
# - --openmetrics: the same HELP lines for both (node_exporter needs them equal).
. "$(dirname "$0")/lib.sh"

cat >words.py <<'PY'
# words.py PAGE JSON kvm|neutral: the page's words against the JSON report's counts.
import json, re, sys

from htmltree import Build

DATA_FACTS = {"file", "host", "kernel", "cpu_model", "started", "events"}
KVM_WORDS = re.compile(r"exit|entr(y|ies)|vcpu|guest|\bvms?\b", re.I)


def visible(n):
    """The text a reader sees: no script, style or data facts; attributes read aloud."""
    if n.tag in ("script", "style") or (n.tag == "dd" and n.a.get("data-key") in DATA_FACTS):
        return ""
    out = [n.text] + [n.a[k] for k in ("aria-label", "title", "alt") if k in n.a]
    return " ".join(out + [visible(k) for k in n.kids])


def by_id(root, i):
    found = [n for n in root.walk() if n.a.get("id") == i]
    assert len(found) == 1, (i, len(found))
    return found[0]


def heads(table):
    return [" ".join(n.alltext().split()) for n in table.walk() if n.tag == "th"]


page, report, mode = sys.argv[1:4]
kvm = mode == "kvm"
b = Build(sep=" ")
b.feed(open(page, encoding="utf-8").read())
root, r = b.root, json.load(open(report))
# an id's label is data too: a system call's name such as exit_group(0xe7) is no KVM word
text = re.sub(r"\b\w+\(0x[0-9a-f]+\)", "", " ".join(visible(root).split()))
bad = sorted({m.group(0).lower() for m in KVM_WORDS.finditer(text)})
if kvm:
    for w in ("exit-entry pairs", "Longest exits", "out of guest", "Per vCPU task",
              "per exit reason"):
        assert w in text, f"the KVM page lacks {w!r}"
else:
    assert not bad, f"KVM words in a {mode} page: {bad}"
# the script's hover tip takes its word from the heatmap, not from the script
script = [n for n in root.walk() if n.tag == "script"][-1].alltext()
assert "exit" not in script, "the hover script says exit"
assert by_id(root, "heat").a.get("data-what") == ("exits" if kvm else "pairs")

one, many = ("exit", "exits") if kvm else ("pair", "pairs")
card = [n for n in by_id(root, "figures").walk() if n.a.get("data-key") == "pairs"][0]
assert int(card.a["data-v"]) == r["pairs"], (card.a, r["pairs"])
label = " ".join(card.kids[1].alltext().split())
assert label == ("exit-entry pairs" if kvm else "begin-end pairs"), label
hist = by_id(root, "hist-0")
title = [" ".join(n.alltext().split()) for n in hist.walk() if n.a.get("class") == "title"]
assert title == [f"all {many}: {r['pairs']} {many}"], title
labels = [" ".join(n.alltext().split()) for n in hist.walk() if n.a.get("class") == "label"]
assert f"{many} (log)" in labels, labels
h2 = [" ".join(n.alltext().split()) for n in by_id(root, "longest-exits").walk()
      if n.tag == "h2"]
assert h2 == [f"Longest {many}"], h2
want = ["time (s)", "latency", "reason", "pcpu", "vcpu", "pid", "fields"] if kvm else \
       ["time (s)", "latency", "id", "pcpu", "pid", "fields"]
longest = by_id(root, "longest")
assert heads(longest) == want, heads(longest)
rows = [n for n in longest.walk() if n.tag == "tr" and "data-lat-ns" in n.a]
assert len(rows) == len(r["top"]) and all(
    len([c for c in x.kids if c.tag == "td"]) == len(want) for x in rows), "longest: cells"
want = ["task", "worst window", "starts at (s)"] + (["in guest"] if kvm else []) + \
       [many, "max"]
assert heads(by_id(root, "worst-windows")) == want, heads(by_id(root, "worst-windows"))
want = ["interval start (s)"] + (["vcpu"] if kvm else []) + \
       ["pid", "worst window", many, "out of guest" if kvm else "time in pairs", "max"]
assert heads(by_id(root, "worst-intervals")) == want, heads(by_id(root, "worst-intervals"))
print(f"{mode}: {len(text)} characters of text, KVM words {bad}")
PY

for f in kvm syscalls; do
	vmtrace-report --html "$f.html" --json --interval 10ms "$DATA/sample-$f.vmt" >"$f.json" ||
		fail "$f: vmtrace-report --html"
done
PYTHONPATH="$top_srcdir/tests/helpers" python3 words.py kvm.html kvm.json kvm >w.out 2>&1 ||
	fail "kvm page: $(cat w.out)"
cat w.out
PYTHONPATH="$top_srcdir/tests/helpers" python3 words.py syscalls.html syscalls.json neutral \
	>w.out 2>&1 ||
	fail "syscalls page: $(cat w.out)"
cat w.out

# --compare --html: the figures' group column and the distributions' axis.
cmp_page() { # NAME A B WANT_GROUP WANT_AXIS
	vmtrace-report --compare --html "$1.html" "$2" "$3" >/dev/null || fail "$1: --compare --html"
	python3 - "$1.html" "$4" "$5" <<'PY' || fail "$1: the comparison page's words"
import re, sys
from html.parser import HTMLParser

class P(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skip, self.cur, self.ths, self.labels, self.text = 0, None, [], [], []
    def handle_starttag(self, tag, attrs):
        self.skip += tag in ("script", "style", "b")	# <b>: the files' names
        self.cur = (tag, dict(attrs).get("class"))
    def handle_endtag(self, tag):
        self.skip -= tag in ("script", "style", "b")
        self.cur = None
    def handle_data(self, d):
        if self.cur and self.cur[0] == "th":
            self.ths.append(d.strip())
        if self.cur == ("text", "label"):
            self.labels.append(d.strip())
        if not self.skip:
            self.text.append(d)

p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
group, axis = sys.argv[2:4]
assert p.ths[0] == group, p.ths[:3]
assert axis in p.labels, p.labels
bad = re.findall(r"exit|entr(?:y|ies)|vcpu|guest|\bvm\b",
                 re.sub(r"\b\w+\(0x[0-9a-f]+\)", "", " ".join(p.text)), re.I)
assert (group == "reason") == bool(bad), bad
PY
}
cmp_page kvmcmp "$DATA/sample-kvm.vmt" "$DATA/tracedat/kvm.v7zstd.dat" reason \
	"share of exits (log)"
cmp_page syscmp "$DATA/sample-syscalls.vmt" "$DATA/small-syscalls.vmt" id "share of pairs (log)"

# The comparison's and the merge's text: the group column's title, the recordings' line.
run vmtrace-report --compare "$DATA/sample-syscalls.vmt" "$DATA/small-syscalls.vmt"
expect_rc 0 "--compare of two syscall recordings"
grep -q '^  id  *count  *rate/s ' out.txt || { cat out.txt; fail "--compare: no id column"; }
run vmtrace-report --compare "$DATA/sample-kvm.vmt" "$DATA/tracedat/kvm.v7zstd.dat"
expect_rc 0 "--compare of two KVM recordings"
grep -q '^  reason  *count  *rate/s ' out.txt || fail "--compare: no reason column for KVM"
run vmtrace-report "$DATA/sample-syscalls.vmt" "$DATA/small-syscalls.vmt"
expect_rc 0 "merge of two syscall recordings"
grep -q '^  id  *count  *rate/s ' out.txt && grep -q '^Each recording, all pairs;' out.txt ||
	{ cat out.txt; fail "merge: not in a syscall pair's words"; }
run vmtrace-report "$DATA/sample-kvm.vmt" "$DATA/tracedat/kvm.v7zstd.dat"
expect_rc 0 "merge of two KVM recordings"
grep -q '^  reason  *count  *rate/s ' out.txt && grep -q '^Each recording, all exits;' out.txt ||
	fail "merge: not in KVM's words"

# --threshold's list title and the note on an empty selection: pairs and begins for the
# syscall pair, exits for KVM's; the counts and times recounted from the rows.
thr_title() { # FILE THRESHOLD_NS: the title the list should have, from the pair rows
	vmtrace-convert --csv "$1" | python3 -c '
import csv, sys
n = sum(1 for r in csv.DictReader(sys.stdin) if int(r["latency_ns"]) >= int(sys.argv[1]))
print(n)' "$2"
}
run vmtrace-report --threshold 40us "$DATA/sample-syscalls.vmt"
grep -qx "Pairs of at least 40.00 us: $(thr_title "$DATA/sample-syscalls.vmt" 40000)" out.txt ||
	{ grep "of at least" out.txt; fail "the syscall pair's threshold title"; }
run vmtrace-report --threshold 1ms "$DATA/sample-kvm.vmt"
grep -qx "Exits of at least 1.000 ms: $(thr_title "$DATA/sample-kvm.vmt" 1000000)" out.txt ||
	{ grep "of at least" out.txt; fail "KVM's threshold title"; }
span=$(vmtrace-convert --csv --events "$DATA/sample-syscalls.vmt" | python3 -c '
import csv, sys
t = [int(r["time_ns"]) for r in csv.DictReader(sys.stdin) if r["kind"] == "begin"]
print("from %d.%09d s to %d.%09d s" % (divmod(min(t), 10**9) + divmod(max(t), 10**9)))')
has="the recording has begins on CPU 1, $span"
for args in "--cpu 5|no begin on CPU 5" \
	    "--from 10s|--from 10.000000000 s is after the last begin" \
	    "--reason 0x999|no begin has the id given (the report without --reason lists those it has)"
do
	run vmtrace-convert --csv ${args%%|*} "$DATA/sample-syscalls.vmt"
	want="vmtrace-convert: $DATA/sample-syscalls.vmt: nothing selected: ${args#*|}; $has"
	[ "$(unfold err.txt)" = "$want" ] || fail "${args%%|*}: '$(cat err.txt)', not '$want'"
done

# vmtrace-convert --perfetto: the tasks' process is "tasks" for the syscall pair, its
# tracks "task PID", one per task of the JSON report; KVM's "vCPU tasks". The slices'
# "cat" stays "exit" (a key), one per pair.
for f in syscalls kvm; do
	vmtrace-convert --perfetto -o "$f.pf.json" "$DATA/sample-$f.vmt" || fail "$f: --perfetto"
	python3 - "$f.pf.json" "$f.json" "$f" <<'PY' || fail "$f: the timeline's names"
import json, sys
ev, r, kvm = json.load(open(sys.argv[1]))["traceEvents"], json.load(open(sys.argv[2])), \
    sys.argv[3] == "kvm"
names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"] in ("process_name", "thread_name")}
want = "vCPU tasks" if kvm else "tasks"
assert names[(2, None)] == want, names[(2, None)]
tracks = {t: n for (p, t), n in names.items() if p == 2 and t is not None}
assert set(tracks) == {v["pid"] for v in r["vcpus"]}, (tracks, r["vcpus"])
if not kvm:
    assert all(n == "task %d" % t for t, n in tracks.items()), tracks
assert sum(1 for e in ev if e["ph"] == "X" and e["cat"] == "exit") == r["pairs"]
PY
done

# --openmetrics: the same families, labels and HELP lines for any pair (node_exporter
# refuses a family whose HELP differs between two files of its textfile directory), and a
# sample per id.
help_lines() { # FILE
	vmtrace-report --openmetrics "$1" | grep '^# HELP '
}
help_lines "$DATA/sample-syscalls.vmt" >sys.help || fail "--openmetrics of the syscall sample"
help_lines "$DATA/sample-kvm.vmt" >kvm.help || fail "--openmetrics of the KVM sample"
[ "$(wc -l <sys.help)" = 11 ] && cmp -s sys.help kvm.help ||
	{ diff sys.help kvm.help; fail "the HELP lines differ between the pairs"; }
vmtrace-report --openmetrics "$DATA/sample-syscalls.vmt" | grep -c '^vmtrace_exits_total{' \
	>n.txt
[ "$(cat n.txt)" = "$(json syscalls.json 'len(d["reasons"])')" ] ||
	fail "$(cat n.txt) vmtrace_exits_total samples, $(json syscalls.json 'len(d["reasons"])') ids"
exit 0
