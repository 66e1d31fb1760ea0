#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Where exits' time went, on a recording with a known truth (tests/data/why/four-exits.txt,
# written by mkvmt with real 6.18 context-event layouts): the causes of each exit were
# worked out by hand from the script and are written below; the report's JSON, text and
# -v --why must give exactly those. Then the invariants on every exit (parts add up to the
# latency), an incomplete exit across lost events, and a recording without context events.
. "$(dirname "$0")/lib.sh"
F="$DATA/formats/linux-6.18-x86_64"

"$HELPERS/mkvmt" "$F" w.vmt <"$DATA/why/four-exits.txt" || fail mkvmt
run vmtrace-report --json --top 4 w.vmt
expect_rc 0 "report"
python3 - out.txt <<'PY' || fail "JSON causes differ from the hand-worked truth"
import json, sys
d = json.load(open(sys.argv[1]))
kinds = ["kvm", "userspace", "preempted", "blocked", "wakeup", "irq", "softirq", "nmi"]
def why(**ns):
    return {k + "_ns": ns.get(k, 0) for k in kinds}
# exit at ->  (latency, per-kind ns, culprit (kind, name, pid))
truth = {
    0:    (500,  why(kvm=500), None),
    1000: (700,  why(kvm=200, userspace=500), ("userspace", "IO", None)),
    2000: (2300, why(kvm=200, blocked=1900, wakeup=200), ("blocked", "worker", 200)),
    5000: (2400, why(kvm=300, preempted=2000, irq=100), ("preempted", "hog", 300)),
}
assert d["why_recorded"] == ["kvm", "userspace", "preempted", "blocked", "wakeup", "irq",
                             "softirq", "nmi"], d["why_recorded"]
assert len(d["context_events"]) == 9 and "why_note" not in d
assert len(d["top"]) == 4
for t in d["top"]:
    lat, ns, cul = truth[t["time_ns"]]
    w = t["why"]
    assert t["latency_ns"] == lat, t
    assert {k: w[k] for k in ns} == ns, (t["time_ns"], w)
    assert sum(w[k] for k in ns) == lat
    assert sum(p["ns"] for p in w["parts"]) == lat
    assert w["incomplete"] is False
    c = w["culprit"]
    assert (c and (c["kind"], c["name"], c["pid"])) == (cul and cul), (c, cul)
    if cul:
        assert c["ns"] == max(p["ns"] for p in w["parts"] if p["kind"] != "kvm")
# per reason: cpuid = exits at 0 and 5000, io, hlt
byr = {r["name"]: r for r in d["why_by_reason"]}
assert byr["cpuid"]["kvm_ns"] == 800 and byr["cpuid"]["preempted_ns"] == 2000
assert byr["cpuid"]["irq_ns"] == 100 and byr["cpuid"]["count"] == 2
assert byr["io"]["userspace_ns"] == 500 and byr["hlt"]["blocked_ns"] == 1900
cul = {(c["kind"], c["name"]): c for c in d["culprits"]}
assert cul[("preempted", "hog")]["total_ns"] == 2000 and cul[("preempted", "hog")]["pid"] == 300
assert cul[("irq", "virtio0-input")]["total_ns"] == 100
assert ("irq", "eth0") not in cul        # it interrupted the hog, not the vCPU
assert d["culprits"][0]["name"] == "hog"
# the one vCPU's worst 1 ms window holds all four exits
v = d["vcpus"][0]["worst_window_why"]
assert v["kvm_ns"] == 1200 and v["preempted_ns"] == 2000 and v["blocked_ns"] == 1900
assert sum(v[k + "_ns"] for k in kinds) == d["vcpus"][0]["max_window_sum_ns"] == 5900
PY

# convert --why: the per-exit rows carry the same hand-worked causes, CSV and JSON lines
vmtrace-convert --csv --why w.vmt >w.csv || fail "convert --csv --why"
vmtrace-convert --jsonl --why w.vmt >w.jsonl || fail "convert --jsonl --why"
python3 - w.csv w.jsonl <<'PY' || fail "convert --why rows differ from the hand-worked truth"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
lines = [json.loads(l) for l in open(sys.argv[2])]
kinds = ["kvm", "userspace", "preempted", "blocked", "wakeup", "irq", "softirq", "nmi"]
truth = {  # exit at -> per-kind ns, culprit (kind, name, pid)
    0:    ({"kvm": 500}, None),
    1000: ({"kvm": 200, "userspace": 500}, ("userspace", "IO", None)),
    2000: ({"kvm": 200, "blocked": 1900, "wakeup": 200}, ("blocked", "worker", 200)),
    5000: ({"kvm": 300, "preempted": 2000, "irq": 100}, ("preempted", "hog", 300)),
}
assert len(rows) == len(lines) == 4, (len(rows), len(lines))
for r, j in zip(rows, lines):
    ns, cul = truth[int(r["start_ns"])]
    for k in kinds:
        assert int(r[k + "_ns"]) == ns.get(k, 0) == j[k + "_ns"], (r, k)
    assert sum(int(r[k + "_ns"]) for k in kinds) == int(r["latency_ns"])
    assert r["incomplete"] == "0" and j["incomplete"] is False
    got = (r["culprit_kind"], r["culprit"], int(r["culprit_pid"]) if r["culprit_pid"] else None)
    assert (got if r["culprit_kind"] else None) == cul, (got, cul)
    assert (j["culprit_kind"], j["culprit"], j["culprit_pid"]) == (cul or (None, None, None))
PY
# without context events: empty cells and a warning that says why, not zeros
vmtrace-convert --csv --why "$DATA/sample-kvm.vmt" >k.csv 2>k.err || fail "convert --why, no context"
unfold k.err | grep -q "no context events in this recording: the why columns are empty" ||
	fail "no warning for empty why columns"
python3 - k.csv <<'PY' || fail "why cells filled without context events"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows and all(r["kvm_ns"] == "" and r["culprit"] == "" and r["incomplete"] == ""
                    for r in rows)
PY
for bad in "--why --events" "--why --series" "--why --legacy -o x.bin"; do
	# shellcheck disable=SC2086 # the options' words
	run vmtrace-convert --csv $bad w.vmt
	[ "$rc" = 64 ] || fail "convert $bad: exit $rc, expected 64"
done

# text: the why line under each longest exit, the per-reason table, the culprits
run vmtrace-report w.vmt
expect_rc 0 "text report"
grep -q "why: 2.400 us = preempted 2.000 us by hog (pid 300) + kvm 300 ns + irq 100 ns (virtio0-input)" out.txt ||
	fail "no why line for the preempted exit"
grep -q "why: 700 ns = userspace 500 ns (IO) + kvm 200 ns" out.txt || fail "no why line for io"
grep -q "^  preempted  hog  *300 " out.txt || fail "culprits table"
# -v --why: one why line per entry, the context events in their place
run vmtrace-report -v --why w.vmt
[ "$(grep -c '^ *why: ' out.txt)" = 8 ] || fail "-v --why: 4 entry lines + 4 longest exits"
grep -q "CTX   switch hog/300 (runnable) -> vcpu/100" out.txt || fail "-v shows context events"

# lost events on the vCPU's CPU inside an exit: that exit is incomplete, its sum still exact
sed 's/^ctx 1 6500 irq:irq_handler_entry.*/page 1 missed 3\n&/' "$DATA/why/four-exits.txt" |
	"$HELPERS/mkvmt" "$F" lost.vmt || fail mkvmt
run vmtrace-report --json lost.vmt
python3 - out.txt <<'PY' || fail "lost events inside an exit"
import json, sys
d = json.load(open(sys.argv[1]))
# a pair never spans a gap: the exit at 5000 is dropped, the others are complete
assert d["gap_dropped"] == 1 and d["pairs"] == 3, d
assert all(not t["why"]["incomplete"] for t in d["top"])
PY
# an interrupt entry whose exit is missing when the vCPU enters the guest again: that exit
# is incomplete (the unknown time goes to kvm), its parts still add up
sed 's/^ctx 1 8300 irq:irq_handler_exit.*//' "$DATA/why/four-exits.txt" |
	"$HELPERS/mkvmt" "$F" open.vmt || fail mkvmt
run vmtrace-report --json open.vmt
python3 - out.txt <<'PY' || fail "an impossible order inside an exit"
import json, sys
d = json.load(open(sys.argv[1]))
t = {t["time_ns"]: t for t in d["top"]}
w = t[5000]["why"]
assert w["incomplete"] is True, w
assert sum(w[k] for k in w if k.endswith("_ns")) == t[5000]["latency_ns"] == 2400
assert not t[2000]["why"]["incomplete"]
assert d["why_by_reason"][0]["incomplete"] + sum(r["incomplete"] for r in d["why_by_reason"][1:]) == 1
PY
# its unknown time, from the interrupt's entry left open to the vCPU's entry, is given its
# size where the kinds are summed: JSON, the text's table and note, the HTML page
python3 - "$DATA/why/four-exits.txt" <<'PY' >unknown.txt || fail "the open interrupt"
import sys
ev = [l.split() for l in open(sys.argv[1])]
irq = [int(e[2]) for e in ev if e[0] == "ctx" and e[3] == "irq:irq_handler_entry" and
       "name=virtio0-input" in e]
ent = [int(e[2]) for e in ev if e[0] == "entry" and int(e[2]) > irq[0]]
print(ent[0] - irq[0])
PY
unknown=$(cat unknown.txt)
run vmtrace-report --json open.vmt
python3 - out.txt "$unknown" <<'PY' || fail "unknown_ns"
import json, sys
d, unknown = json.load(open(sys.argv[1])), int(sys.argv[2])
byr = {r["name"]: r for r in d["why_by_reason"]}
assert byr["cpuid"]["unknown_ns"] == unknown and byr["cpuid"]["incomplete"] == 1, byr["cpuid"]
assert byr["cpuid"]["unknown_ns"] <= byr["cpuid"]["kvm_ns"]
assert all(r["unknown_ns"] == 0 for n, r in byr.items() if n != "cpuid"), byr
PY
run vmtrace-report open.vmt
python3 - out.txt "$unknown" "$top_srcdir/tests/helpers" <<'PY' || fail "the text's unknown column"
import re, sys
sys.path.insert(0, sys.argv[3])
from latfmt import lat
text, unknown = open(sys.argv[1]).read(), int(sys.argv[2])
sec = text[text.index("\nWhere the out-of-guest time went"):].split("\n\n")[0].split("\n")
assert sec[2].split()[-2:] == ["incompl.", "unknown"], sec[2]
rows = {l.split()[0]: l.split() for l in sec[3:] if l.startswith("  ")}
# total 5900 ns over all exits (see the first check); the unknown share of it, cut
assert rows["all"][-2:] == ["1", "%.1f%%" % (int(1000 * unknown / 5900) / 10)], rows["all"]
assert rows["hlt(0x78)"][-2:] == ["0", "0.0%"], rows["hlt(0x78)"]
assert "unknown: the part of kvm that incomplete exits could not tell (%s)" % lat(unknown) \
    in sec, sec
PY
vmtrace-report --html open.html open.vmt >/dev/null || fail "--html open.vmt"
grep -q "id=\"why-unknown\" data-unknown-ns=\"$unknown\" data-incomplete=\"1\"" open.html ||
	fail "the page's unknown note"
grep -q "data-incomplete=\"1\" data-unknown-ns=\"$unknown\" data-count=\"4\" data-reason=\"all exits\"" open.html ||
	fail "the page's all exits bar"
# convert --why counts the rows it wrote with incomplete = 1, not the exits its filters left
# out, and names the open interrupt among the reasons
for f in "" "--reason hlt" "--reason cpuid" "--from 0.000006s"; do
	# shellcheck disable=SC2086
	run vmtrace-convert --csv --why $f open.vmt
	expect_rc 0 "convert --why $f"
	n=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "incomplete") c = i }
		NR > 1 && $c == 1 { n++ } END { print n + 0 }' out.txt)
	case "$f:$n" in ":1" | "--reason hlt:0" | "--reason cpuid:1" | "--from 0.000006s:0") ;;
	*) fail "convert --why $f: $n incomplete rows" ;;
	esac
	if [ "$n" = 0 ]; then
		! unfold err.txt | grep -q incomplete || fail "convert --why $f: $(cat err.txt)"
	else
		unfold err.txt | grep -q "^vmtrace-convert: open.vmt: $n rows\{0,1\} with incomplete causes (.*an interrupt still open at the entry)" || fail "convert --why $f: $(cat err.txt)"
	fi
done

# a task renamed between two exits (hog, then hog2, pid 300): the culprits name it as the
# exits' causes do, a row per name, each row the sum of the exits' parts of that name
python3 - <<'PY'
lines = ["cpus 1", "stats 1 0 0", "context sched:sched_switch,sched:sched_waking",
         "ctx 1 5000 sched:sched_switch 0 0 prev_comm=swapper/1 prev_pid=0 prev_state=0 "
         "next_comm=vcpu next_pid=100"]
def hog(t0, name, ns):
    return ["ctx 1 %d sched:sched_switch 0 100 prev_comm=vcpu prev_pid=100 prev_state=0 "
            "next_comm=%s next_pid=300" % (t0, name),
            "ctx 1 %d sched:sched_switch 0 300 prev_comm=%s prev_pid=300 prev_state=0 "
            "next_comm=vcpu next_pid=100" % (t0 + ns, name)]
lines += ["exit 1 10000 100 0x72 0"] + hog(10100, "hog", 300) + hog(10500, "hog", 400)
lines += ["entry 1 11000 100 0", "exit 1 12000 100 0x72 0"] + hog(12100, "hog2", 200)
lines += ["entry 1 12400 100 0", "other 1 20000"]
open("rename.txt", "w").write("\n".join(lines) + "\n")
PY
"$HELPERS/mkvmt" "$F" rename.vmt <rename.txt || fail mkvmt
run vmtrace-report --json --top 10 rename.vmt
python3 - out.txt <<'PY' || fail "a renamed culprit"
import json, sys
d = json.load(open(sys.argv[1]))
want = {}
for t in d["top"]:
    for p in t["why"]["parts"]:
        if p["kind"] != "kvm":
            k = (p["kind"], p["name"], p["pid"])
            n, tot, mx = want.get(k, (0, 0, 0))
            want[k] = (n + 1, tot + p["ns"], max(mx, p["ns"]))
got = {(c["kind"], c["name"], c["pid"]): (c["count"], c["total_ns"], c["max_ns"])
       for c in d["culprits"]}
assert got == want, (got, want)
assert got[("preempted", "hog", 300)] == (1, 700, 700) and \
    got[("preempted", "hog2", 300)] == (1, 200, 200), got
PY

# no context events recorded: null causes and a note, never zeros
run vmtrace-report --json "$DATA/sample-kvm.vmt"
python3 - out.txt <<'PY' || fail "a recording without context events"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["context_events"] == [] and d["why_recorded"] == [] and "why_note" in d
assert d["why_by_reason"] is None and d["culprits"] is None
assert all(t["why"] is None for t in d["top"])
assert all(v["worst_window_why"] is None for v in d["vcpus"])
PY
run vmtrace-report "$DATA/sample-kvm.vmt"
grep -q "^Causes: this recording has no context events" out.txt || fail "no-context note"
# --why on it (-v, --around, text or JSON): no causes to show, an option the file has no
# use for (README: 64), as --vcpu on events without a vCPU id: one line, nothing printed
for v in "-v" "--around 0.1s,1ms" "--json --around 0.1s,1ms" "--threshold 1ms -v"; do
	# shellcheck disable=SC2086 # the view's words
	run vmtrace-report $v --why "$DATA/sample-kvm.vmt"
	expect_rc 64 "$v --why without context events"
	[ "$(unfold err.txt)" = "vmtrace-report: $DATA/sample-kvm.vmt: --why: the recording has no context events, so no causes to show (vmtrace-record records them unless given --context none)" ] ||
		fail "$v --why without context events: $(cat err.txt)"
	[ ! -s out.txt ] || fail "$v --why without context events: wrote to standard output"
done
# without --why, the same views still take it
run vmtrace-report -v "$DATA/sample-kvm.vmt"
expect_rc 0 "-v without context events"
run vmtrace-report --threshold 1ms -v --why "$DATA/why/sample/kvm.vmt"
unfold err.txt | grep -q 'no context events' && fail "the note on a recording with context events"
grep -q ' why: ' out.txt || fail "no why lines on the why sample"
exit 0
