#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Names with any bytes: a task names itself (prctl PR_SET_NAME) with what it likes, a VM's
# name in a recording's map holds what the VMM was given. Every JSON output is valid UTF-8
# (a byte of no valid sequence written as U+FFFD, common/jsonw.c), and a comm's control
# characters (C0, DEL, C1 such as 0xc2 0x9b, a terminal's CSI) and bytes of no valid
# sequence are '?' in every output (common/ctxevent.c), so no text output carries a raw C1
# control (the review: "ev\xffil" went into the JSON as it was, which Python refused).
. "$(dirname "$0")/lib.sh"
F="$DATA/formats/linux-6.18-x86_64"

# four-exits.txt (tests/e2e/report_why.sh): the hog that preempts the vCPU renamed with a
# 0xff, a C1 CSI, a stray continuation byte and a valid "é"; the vCPU's VM named with a 0xff
python3 - "$DATA/why/four-exits.txt" >w.txt <<'PY'
import sys
s = open(sys.argv[1], "rb").read()
assert s.count(b"=hog ") + s.count(b"=hog\n") == 2
s = s.replace(b"=hog", b"=ev\xffil\xc2\x9bx\x9b\xc3\xa9")
sys.stdout.buffer.write(b"meta vm.count 1\nmeta vm.0.name web\xff1\nmeta vm.0.pid 99\n"
                        b"meta vm.0.vcpus 100:0\n" + s)
PY
"$HELPERS/mkvmt" "$F" w.vmt <w.txt || fail mkvmt

# The names as the outputs must give them, worked out here: the comm's control characters
# and stray bytes '?' (the C1 character one '?', the "é" kept), the VM's 0xff U+FFFD in JSON.
COMM='ev?il?x?é'
VM='web�1'

run vmtrace-report --json --top 4 --threshold 1ns --around 6us,3us --why w.vmt
expect_rc 0 "report --json"
cp out.txt report.json
vmtrace-convert --jsonl --why w.vmt >why.jsonl || fail "convert --jsonl --why"
vmtrace-convert --jsonl --events w.vmt >events.jsonl || fail "convert --jsonl --events"
vmtrace-convert --perfetto w.vmt >perfetto.json || fail "convert --perfetto"
vmtrace-convert --jsonl --series w.vmt >series.jsonl || fail "convert --jsonl --series"
python3 - "$COMM" "$VM" <<'PY' || fail "a JSON output: not valid UTF-8 or not the names"
import json, sys
comm, vm = sys.argv[1], sys.argv[2]
def load(path, lines=False):
    text = open(path, "rb").read().decode("utf-8", "strict")     # strict: no invalid byte
    return [json.loads(l) for l in text.splitlines()] if lines else json.loads(text)
def strings(v):
    if isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)
    elif isinstance(v, str):
        yield v
r = load("report.json")
assert [(c["kind"], c["name"], c["pid"]) for c in r["culprits"] if c["kind"] == "preempted"] \
    == [("preempted", comm, 300)], r["culprits"]
assert {v["vm"] for v in r["vcpus"]} == {vm}, r["vcpus"]
assert [t["why"]["culprit"]["name"] for t in r["top"] if t["time_ns"] == 5000] == [comm]
assert len(r["over_threshold"]) == 4 and r["around"], r.keys()
assert any(comm in s for s in strings(r["around"])), "no comm in --around"
rows = load("why.jsonl", True)
assert [x["culprit"] for x in rows if x["culprit_kind"] == "preempted"] == [comm], rows
assert {x["vm"] for x in rows} == {vm}, rows
assert {x["vm"] for x in load("events.jsonl", True)} == {vm}
assert load("series.jsonl", True)
p = load("perfetto.json")
names = set(strings(p))
assert "preempted by " + comm in names, sorted(names)
assert not any("\ufffd" in s and comm not in s and vm not in s for s in names)
PY

# the text outputs: the same names, and not one raw C1 control (a terminal's 8-bit codes)
vmtrace-report --top 4 --threshold 1ns --around 6us,3us --why w.vmt >report.txt ||
	fail "report text"
vmtrace-report -v --why w.vmt >verbose.txt || fail "report -v --why"
vmtrace-convert --csv --why w.vmt >why.csv || fail "convert --csv --why"
python3 - "$COMM" report.txt verbose.txt why.csv <<'PY' || fail "a text output: a raw C1 control"
import re, sys
comm = sys.argv[1].encode()
for path in sys.argv[2:]:
    b = open(path, "rb").read()
    text = b.decode("utf-8", "surrogateescape")
    c1 = [c for c in text if 0x80 <= ord(c) <= 0x9f or 0xdc80 <= ord(c) <= 0xdc9f]
    assert not c1, (path, c1)
    assert comm in b, (path, "no " + sys.argv[1])
    assert b"ev\xff" not in b, path
PY
finish
