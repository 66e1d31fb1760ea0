#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Causes of long pairs on this machine's real scheduler, with a known truth: the system
# call pair (raw_syscalls) recorded with the default context events on CPU 1 while
# tests/helpers/why_load makes system calls take long for known reasons.
#  - block: the reader's read() sleeps while the writer, on the same CPU, spins a known
#    time, then writes the byte that wakes it: blocked for about that time, named by the
#    writer, then a wake-up; the parts add up to each latency exactly.
#  - zero + hog: long reads of /dev/zero with a busy loop on the same CPU: the reads that
#    lost the CPU inside the system call show the hog as the task that preempted them.
#  - the HTML page's causes section speaks of pairs, not exits.
. "$(dirname "$0")/lib.sh"
need_tracefs
L="$HELPERS/why_load"

start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" -o block.vmt
"$L" block 1 30 3000 >load.txt || fail "why_load block"
kill -INT "$rec_pid"
wait "$rec_pid" || { cat rec.err; fail "recording"; }
read -r _ reader _ writer _ rounds _ spin <load.txt
run vmtrace-report --json --threshold 2ms --top 0 block.vmt
expect_rc 0 "report of the block recording"
python3 - out.txt "$reader" "$writer" "$rounds" "$spin" <<'PY' || fail "block: causes differ"
import json, sys
d = json.load(open(sys.argv[1]))
reader, writer, rounds, spin = (int(x) for x in sys.argv[2:])
assert "sched:sched_switch" in d["context_events"], d["context_events"]
assert {"blocked", "wakeup", "preempted"} <= set(d["why_recorded"]), d["why_recorded"]
# the reader's read() (x86-64 system call 0) of every round
reads = [t for t in d["over_threshold"] if t["pid"] == reader and t["code"] == 0]
assert len(reads) >= rounds - 1, (len(reads), rounds)
for t in reads:
    w = t["why"]
    kinds = [k for k in w if k.endswith("_ns") and w[k] is not None]
    assert sum(w[k] for k in kinds) == t["latency_ns"], t
    assert sum(p["ns"] for p in w["parts"]) == t["latency_ns"], t
    blocked = [p for p in w["parts"] if p["kind"] == "blocked"]
    assert blocked and all(p["pid"] == writer for p in blocked), w
    # the writer spun `spin` us of wall time while the reader slept
    assert w["blocked_ns"] >= 0.95 * spin * 1000, (w["blocked_ns"], spin)
    # the culprit: the writer, as the task it slept on; or, when the loaded machine made
    # the woken reader wait longer than it slept, a wait behind the task that held the
    # CPU then (any task: the writer, or another test's)
    c = w["culprit"]
    if c["kind"] == "blocked":
        assert c["pid"] == writer, w
    else:
        assert c["kind"] == "wakeup" and c["ns"] >= max(p["ns"] for p in blocked), w
print(len(reads), "reads, blocked by", writer)
PY

start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" -o hog.vmt
"$L" hog 1 3 >hog.txt &
hog=$!
"$L" zero 1 2 1024 >zero.txt || fail "why_load zero"
wait $hog
kill -INT "$rec_pid"
wait "$rec_pid" || { cat rec.err; fail "recording"; }
read -r _ hogpid <hog.txt
read -r _ zreader _ <zero.txt
run vmtrace-report --json --threshold 1ms --top 0 hog.vmt
expect_rc 0 "report of the hog recording"
python3 - out.txt "$zreader" "$hogpid" <<'PY' || fail "hog: causes differ"
import json, sys
d = json.load(open(sys.argv[1]))
reader, hog = int(sys.argv[2]), int(sys.argv[3])
reads = [t for t in d["over_threshold"] if t["pid"] == reader]
assert reads, "no long read"
for t in reads:
    w = t["why"]
    assert sum(p["ns"] for p in w["parts"]) == t["latency_ns"]
preempted = [t for t in reads if t["why"]["preempted_ns"]]
assert preempted, "no read was preempted"
for t in preempted:
    for p in t["why"]["parts"]:
        if p["kind"] == "preempted":
            assert p["pid"] in (hog, -2) or p["pid"] is None or p["name"], p
assert any(p["kind"] == "preempted" and p["pid"] == hog
           for t in preempted for p in t["why"]["parts"]), "the hog never named"
# the culprits table names the hog too
assert any(c["kind"] == "preempted" and c["pid"] == hog for c in d["culprits"])
print(len(preempted), "of", len(reads), "long reads preempted by the hog", hog)
PY

# convert --why: every row's parts add up to its latency; the long ones equal the report's
# (rows of many tasks interleave here: the held rows keep their causes too)
vmtrace-convert --csv --why hog.vmt >hog.csv || fail "convert --why"
python3 - hog.csv out.txt <<'PY' || fail "convert --why differs from the report"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
d = json.load(open(sys.argv[2]))
kinds = ["kvm", "userspace", "preempted", "blocked", "wakeup", "irq", "softirq", "nmi"]
assert len(rows) == d["pairs"], (len(rows), d["pairs"])
for r in rows:
    assert sum(int(r[k + "_ns"] or 0) for k in kinds) == int(r["latency_ns"]), r
at = {(int(r["start_ns"]), int(r["task"])): r for r in rows}
for t in d["over_threshold"]:
    r = at[(t["time_ns"], t["pid"])]
    for k in kinds:
        v = t["why"][k + "_ns"]
        assert (r[k + "_ns"] == "") if v is None else int(r[k + "_ns"]) == v, (k, r, t)
    c = t["why"]["culprit"]
    assert (r["culprit_kind"] or None) == (c and c["kind"]), (r, c)
    if c:
        assert r["culprit"] == c["name"] and (int(r["culprit_pid"]) if r["culprit_pid"]
                                                  else None) == c["pid"], (r, c)
print(len(rows), "rows add up;", len(d["over_threshold"]), "long ones equal the report's")
PY

# --html: the page's causes are in a syscall pair's words, its bars the JSON's: an "all
# pairs" bar last, the culprits counting pairs, no exit, vCPU or guest in the section's text.
vmtrace-report --html hog.html hog.vmt >/dev/null || fail "report --html"
python3 - hog.html out.txt <<'PY' || fail "the causes section's words"
import json, re, sys
page, d = open(sys.argv[1], encoding="utf-8").read(), json.load(open(sys.argv[2]))
sec = re.search(r'<section id="causes">(.*?)</section>', page, re.S).group(1)
bars = re.findall(r'<g class="row"[^>]* data-count="(\d+)" data-reason="([^"]*)"', sec)
assert bars[-1] == (str(d["pairs"] - d["filtered_out"]), "all pairs"), bars[-1]
heads = re.findall(r"<th[^>]*>([^<]*)</th>", sec)
assert heads == ["kind", "name", "pid", "pairs", "total", "max"], heads
text = re.sub(r"<[^>]*>", " ", sec) + " ".join(re.findall(r'aria-label="([^"]*)"', sec))
text = re.sub(r"\b\w+\(0x[0-9a-f]+\)", "", text)	# ids' labels: exit_group(0xe7) is data
bad = re.findall(r"exit|entr(?:y|ies)|vcpu|guest|\bvm\b", text, re.I)
assert not bad, bad
print(len(bars), "cause bars in a syscall pair's words")
PY
exit 0
