#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-report --compare with causes: two recordings with context events (the bundled
# real one and a generated one of 4 CPUs) side by side. Python recounts each side's time
# per kind from vmtrace-convert --csv --why's rows, overall and per reason, and checks the
# JSON "causes" to the ns; then the text's table (each kind's total, share, and the change
# of its time per second over the durations the JSON gives), the same with a filter, and a
# side without context events: null in JSON, one line in the text, no table. And several
# recordings merged: each one's causes and all together (those with context events).
. "$(dirname "$0")/lib.sh"

A=$DATA/why/sample/kvm.vmt
"$HELPERS/mkvmt" --context --random 20000 4 "$top_srcdir/tests/data/formats/linux-6.1-kvmhost" \
	b.vmt || fail "mkvmt"

cat >recount.py <<'PY'
import csv, json, sys
from fractions import Fraction
cmp_json, csv_a, csv_b, text = sys.argv[1:5]
c = json.load(open(cmp_json))["compare"]
KINDS = ["kvm", "userspace", "preempted", "blocked", "wakeup", "irq", "softirq", "nmi"]

untold = [set(), set()]              # kinds a recording cannot tell: empty cells, null

def sums(path, side):
    out = {}
    for r in csv.DictReader(open(path, newline="")):
        for key in ("all", r["reason"]):
            s = out.setdefault(key, {"exits": 0, "incomplete": 0, **{k: 0 for k in KINDS}})
            s["exits"] += 1
            s["incomplete"] += int(r["incomplete"])
            for k in KINDS:
                if r[k + "_ns"] == "":
                    untold[side].add(k)
                else:
                    s[k] += int(r[k + "_ns"])
    return out

sides = [sums(csv_a, 0), sums(csv_b, 1)]
for i in (0, 1):
    for g in sides[i].values():
        for k in untold[i]:
            g[k] = None
bad = 0
for g in c["groups"]:
    for i, name in enumerate(("before", "after")):
        got, want = g["causes"][name], sides[i].get(g["reason"])
        if want is None:            # no exit of that reason on this side
            want = {"exits": 0, "incomplete": 0,
                    **{k: None if k in untold[i] else 0 for k in KINDS}}
        for k in ["exits", "incomplete"] + KINDS:
            key = k if k in ("exits", "incomplete") else k + "_ns"
            if got[key] != want[k]:
                print("%s %s %s: %s, recounted %s" % (g["reason"], name, key, got[key], want[k]))
                bad += 1

# the text: one row per kind with time on either side, for all exits
def cut(x, d):                     # figures are cut toward zero, never rounded up
    q = Fraction(10) ** d
    return float(int(x * q) / q)

# the kinds one side tells and the other cannot, with time where told: they stop the
# changes and the note names them; one no side has time of (no row) is not named
differ = {k for i in (0, 1) for k in untold[1 - i] - untold[i] if sides[i]["all"][k]}
span = [Fraction(c[s]["duration_ns"] - c[s]["gap_ns"]) for s in ("before", "after")]
tot = [sum(sides[i]["all"][k] or 0 for k in KINDS) for i in (0, 1)]
lines = open(text).read().split("\n")
start = [n for n, l in enumerate(lines) if l.startswith("  kind ")][0] + 1
rows = {}
for l in lines[start:]:
    f = l.split()
    if len(f) != 6:
        break
    rows[f[0]] = f
for k in KINDS:
    a, b = sides[0]["all"][k], sides[1]["all"][k]
    if not a and not b:             # no time (or not told) on either side: no row
        if k in rows:
            print("a row for %s, without time" % k)
            bad += 1
        continue
    f = rows.get(k)
    if not f:
        print("no row for %s" % k)
        bad += 1
        continue
    for j, (v, t) in enumerate(((a, tot[0]), (b, tot[1]))):
        share = "-" if v is None else "%.1f%%" % cut(Fraction(100 * v, t), 1)
        if f[2 + 2 * j] != share:
            print("%s share %d: %s, recounted %s" % (k, j, f[2 + 2 * j], share))
            bad += 1
    if differ:                      # kinds told differ: no change is compared
        if f[5] != "-":
            print("%s change/s: %s, not - (the sides tell different kinds)" % (k, f[5]))
            bad += 1
    elif a:
        ch = (Fraction(b) / span[1]) / (Fraction(a) / span[0]) * 100 - 100
        want = "%+.1f%%" % cut(ch, 1)
        if f[5] != want:
            print("%s change/s: %s, recounted %s" % (k, f[5], want))
            bad += 1
    elif f[5] != "new":
        print("%s change/s: %s, not new" % (k, f[5]))
        bad += 1
note = [l for l in lines if l.startswith("  no change compared:") or l.startswith("  told by")]
if differ:
    names = lambda ks: ", ".join(k for k in KINDS if k in ks & differ) or "none"
    want = ["  no change compared: the recordings tell different kinds (a kind one cannot tell is "
            "counted in blocked or kvm):",
            "  told by before only: %s; by after only: %s" % (names(untold[1] - untold[0]),
                                                              names(untold[0] - untold[1]))]
    if note != want:
        print("note %s, expected %s" % (note, want))
        bad += 1
elif note:
    print("a note where the sides tell the same kinds: %s" % note)
    bad += 1
sys.exit(1 if bad else 0)
PY

# compare_check NAME BEFORE AFTER [FILTERS...]: the JSON and the text of --compare against
# the rows
compare_check() {
	local name=$1 before=$2 after=$3
	shift 3
	run vmtrace-report --compare "$@" --json "$before" "$after"
	expect_rc 0 "--compare --json $*"
	mv out.txt "$name.json"
	run vmtrace-report --compare "$@" "$before" "$after"
	expect_rc 0 "--compare $*"
	mv out.txt "$name.txt"
	grep -q "^Causes (context events)" "$name.txt" || fail "$name: no causes in the text"
	run vmtrace-convert --csv --why "$@" -o "$name.before.csv" "$before"
	expect_rc 0 "convert --csv --why $* $before"
	run vmtrace-convert --csv --why "$@" -o "$name.after.csv" "$after"
	expect_rc 0 "convert --csv --why $* $after"
	python3 recount.py "$name.json" "$name.before.csv" "$name.after.csv" "$name.txt" ||
		fail "$name: the causes are not the rows' sums"
}
compare_check all "$A" b.vmt
# the page's table: totals as the text views print them (tests/helpers/latfmt.py) from the
# JSON's ns, shares and changes as the text's rows (checked above)
cat >page_check.py <<'PY'
import json, sys
from html.parser import HTMLParser
sys.path.insert(0, sys.argv[4])
from latfmt import lat
class P(HTMLParser):
    rows, row, cell = {}, None, None
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "tr" and "data-kind" in a:
            self.row = self.rows.setdefault(a["data-kind"], [])
        elif tag == "td" and self.row is not None:
            self.cell = ""
    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.row.append(self.cell)
            self.cell = None
        elif tag == "tr":
            self.row = None
p = P()
p.feed(open(sys.argv[1]).read())
c = json.load(open(sys.argv[2]))["compare"]["groups"][0]["causes"]
text = {l.split()[0]: l.split() for l in open(sys.argv[3]) if l.startswith("  ") and
        len(l.split()) == 6}
bad = []
if not p.rows:
    bad.append("no causes table in the page")
for kind, cells in p.rows.items():
    want = [kind]
    for side, (share) in (("before", 2), ("after", 4)):
        ns = c[side][kind + "_ns"]
        want += ["-", "-"] if ns is None else [lat(ns), text[kind][share]]
    want.append(text[kind][5])
    if cells != want:
        bad.append("%s: %s, expected %s" % (kind, cells, want))
if set(p.rows) != {k for k in text if k != "kind"}:
    bad.append("kinds %s, the text's %s" % (sorted(p.rows), sorted(text)))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
vmtrace-report --compare --html page.html "$A" b.vmt >/dev/null || fail "--compare --html"
python3 page_check.py page.html all.json all.txt "$top_srcdir/tests/helpers" ||
	fail "the page's causes"
compare_check cpu1 "$A" b.vmt --cpu 1
# two recordings that tell the same kinds: the changes per second
"$HELPERS/mkvmt" --context --random 30000 4 "$top_srcdir/tests/data/formats/linux-6.1-kvmhost" \
	b2.vmt || fail "mkvmt b2"
compare_check same b.vmt b2.vmt
vmtrace-report --compare --html page2.html b.vmt b2.vmt >/dev/null || fail "--compare --html (same)"
python3 page_check.py page2.html same.json same.txt "$top_srcdir/tests/helpers" ||
	fail "the page's causes (same kinds)"
compare_check same_cpu2 b.vmt b2.vmt --cpu 2
compare_check later "$A" b.vmt --from 5ms

# a side without context events: no table, a line saying why, null in JSON
run vmtrace-report --compare "$DATA/sample-kvm.vmt" b.vmt
expect_rc 0 "--compare without context on one side"
grep -q "^Causes: only the after recording holds context events, nothing to compare them with.$" \
	out.txt || fail "no line saying the before side has no causes"
! grep -q "^  kind " out.txt || fail "a causes table with one side"
run vmtrace-report --compare --json "$DATA/sample-kvm.vmt" b.vmt
expect_rc 0 "--compare --json without context on one side"
[ "$(json out.txt '[g["causes"]["before"] for g in d["compare"]["groups"]][0]')" = None ] ||
	fail "the before side's causes are not null"
[ "$(json out.txt 'd["compare"]["groups"][0]["causes"]["after"]["exits"]')" = \
  "$(json out.txt 'd["compare"]["groups"][0]["after"]["count"]')" ] ||
	fail "the after side's causes do not count its exits"
# several recordings merged: each file's causes and those of all that hold context events,
# against the rows (a kind one of them cannot tell is null in the merged figures), and the
# text's shares
run vmtrace-report --json "$A" b.vmt "$DATA/sample-kvm.vmt"
expect_rc 0 "merge --json"
mv out.txt merge.json
run vmtrace-report "$A" b.vmt "$DATA/sample-kvm.vmt"
expect_rc 0 "merge"
mv out.txt merge.txt
python3 - merge.json all.before.csv all.after.csv merge.txt <<'PY' ||
import csv, json, sys
from fractions import Fraction
d = json.load(open(sys.argv[1]))
KINDS = ["kvm", "userspace", "preempted", "blocked", "wakeup", "irq", "softirq", "nmi"]
def sums(path):
    s, untold = {"exits": 0, "incomplete": 0, **{k: 0 for k in KINDS}}, set()
    for r in csv.DictReader(open(path, newline="")):
        s["exits"] += 1
        s["incomplete"] += int(r["incomplete"])
        for k in KINDS:
            if r[k + "_ns"] == "":
                untold.add(k)
            else:
                s[k] += int(r[k + "_ns"])
    return {key: (None if key in untold else v) for key, v in s.items()}
files = [sums(sys.argv[2]), sums(sys.argv[3])]
bad = []
for i, want in enumerate(files + [None]):
    got = d["files"][i]["causes"]
    if want is None:
        if got is not None:
            bad.append("file %d: causes without context events" % (i + 1))
        continue
    for k in ["exits", "incomplete"] + KINDS:
        key = k if k in ("exits", "incomplete") else k + "_ns"
        if got[key] != want[k]:
            bad.append("file %d %s: %s, recounted %s" % (i + 1, key, got[key], want[k]))
merged = {k: None if files[0][k] is None or files[1][k] is None else files[0][k] + files[1][k]
          for k in ["exits", "incomplete"] + KINDS}
got = d["merged"]["groups"][0]["causes"]
for k in ["exits", "incomplete"] + KINDS:
    key = k if k in ("exits", "incomplete") else k + "_ns"
    if got[key] != merged[k]:
        bad.append("merged %s: %s, recounted %s" % (key, got[key], merged[k]))
def cut(x):
    return float(int(x * 10) / Fraction(10))
rows = {l.split()[0]: l.split() for l in open(sys.argv[4]) if l.startswith("  ")}
# the total of the merged time is each file's sum of all its parts, told or not
def total(v, f):
    return sum(f[k] or 0 for k in KINDS)
for label, f, tot in (("all", merged, total(None, files[0]) + total(None, files[1])),
                      ("[1]", files[0], total(None, files[0])),
                      ("[2]", files[1], total(None, files[1]))):
    want = ["-" if f[k] is None else "%.1f%%" % cut(Fraction(100 * f[k], tot)) for k in KINDS]
    if rows[label][2:] != want:
        bad.append("%s shares %s, recounted %s" % (label, rows[label][2:], want))
if rows["[3]"][1:] != ["no", "context", "events"]:
    bad.append("[3]: %s" % rows["[3]"])
# the two tell different kinds: the "all" row says why its shares do not add up
told = [{k for k in KINDS if f[k] is not None} for f in files]
note = '  all: "-" where not every recording tells the kind (one that cannot counts its time in'
if (told[0] != told[1]) != (note in open(sys.argv[4]).read().split("\n")):
    bad.append("the note on the all row: %s, the kinds told differ: %s" %
               (note in open(sys.argv[4]).read(), told[0] != told[1]))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
	fail "the merged causes are not the rows' sums"

# Kinds told differ only by one neither side has time of: an nmi event recorded before, not
# after, and no NMI. Its difference changes no figure: each kind's change is compared (the
# irq handlers' time, 600 ns and 300 ns an exit, and the rest kvm, from the scripts), and
# no note names nmi; the JSON still says after cannot tell it (null).
gen_irq() {	# gen_irq CONTEXT IRQ_NS: 40 exits of 2 us on CPU 1, each with an interrupt
	printf 'cpus 1\nstats 1 0 0\ncontext %s\n' "$1"
	i=0
	while [ $i -lt 40 ]; do
		t=$((100000 + i * 10000))
		echo "exit 1 $t 100 0x78 0"
		echo "ctx 1 $((t + 100)) irq:irq_handler_entry 8 100 irq=24 name=eth0"
		echo "ctx 1 $((t + 100 + $2)) irq:irq_handler_exit 8 100 irq=24 ret=1"
		echo "entry 1 $((t + 2000)) 100 0"
		i=$((i + 1))
	done
}
IRQ=irq:irq_handler_entry,irq:irq_handler_exit
gen_irq "$IRQ,nmi:nmi_handler" 600 | "$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" nmi.vmt ||
	fail mkvmt
gen_irq "$IRQ" 300 | "$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" nonmi.vmt || fail mkvmt
run vmtrace-report --compare --json nmi.vmt nonmi.vmt
expect_rc 0 "--compare --json nmi.vmt nonmi.vmt"
mv out.txt nmi.json
run vmtrace-report --compare nmi.vmt nonmi.vmt
expect_rc 0 "--compare nmi.vmt nonmi.vmt"
python3 - nmi.json out.txt <<'PY' || fail "kinds told differ by one without time: the changes"
import json, sys
from fractions import Fraction
c = json.load(open(sys.argv[1]))["compare"]
lines = open(sys.argv[2]).read().split("\n")
cz = c["groups"][0]["causes"]
assert cz["before"]["nmi_ns"] == 0 and cz["after"]["nmi_ns"] is None, cz
want = {"irq": (40 * 600, 40 * 300), "kvm": (40 * 1400, 40 * 1700)}
span = [Fraction(c[s]["duration_ns"] - c[s]["gap_ns"]) for s in ("before", "after")]
start = [n for n, l in enumerate(lines) if l.startswith("  kind ")][0] + 1
rows = {l.split()[0]: l.split() for l in lines[start:start + 2]}
for k, (a, b) in want.items():
    assert (cz["before"][k + "_ns"], cz["after"][k + "_ns"]) == (a, b), (k, cz)
    ch = (Fraction(b) / span[1]) / (Fraction(a) / span[0]) * 100 - 100
    got = rows[k][5]
    assert got == "%+.1f%%" % (float(int(ch * 10) / Fraction(10))), (k, got, ch)
assert not any("no change compared" in l or "told by" in l for l in lines), lines
PY

# neither side: causes null, no line
run vmtrace-report --compare --json "$DATA/sample-kvm.vmt" "$DATA/sample-kvm.vmt"
[ "$(json out.txt 'd["compare"]["groups"][0]["causes"]')" = None ] || fail "causes not null"
finish
