#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# CSV names whole, whatever their length or bytes: VM names (the --vm map) long and with a
# comma or a quote, a quote before a 2-byte character at byte 127, exit reason names of the
# recording's own format as long, and comms with a comma and a quote as culprits. Python's
# csv module reads every name of the CSV per exit, per event and with --why back exactly as
# the script gave it, as the JSON lines do, with the rows formatted here and by the workers
# (the review: a name past 128 bytes needing quotes was cut at 128 bytes, inside a character).
. "$(dirname "$0")/lib.sh"

# the format's reason names: cpuid 200 bytes with a comma, hlt with a comma at byte 127
cp -r "$DATA/formats/linux-6.18-x86_64" fmt || fail "copy the formats"
python3 - fmt/kvm/kvm_exit/format >names.txt <<'PY' || fail "rename the reasons"
import sys
cpuid = "c" * 197 + ",id"
hlt = "h" * 126 + ",\u00e9"      # a print format's name holds no quote: a comma
s = open(sys.argv[1], encoding="utf-8").read()
for a, b in (('"cpuid" }', '"%s" }' % cpuid), ('"hlt" }', '"%s" }' % hlt)):
    assert s.count(a) == 1, a
    s = s.replace(a, b)
open(sys.argv[1], "w", encoding="utf-8").write(s)
PY
python3 - >w.txt <<'PY'
vms = ["w" * 150 + ",x", "v" * 126 + '"' + "\u00e9", "plain-vm", 'a"b,c' * 40]
print("cpus 0-1")
print("meta vm.count %d" % len(vms))
for i, n in enumerate(vms):
    print("meta vm.%d.name %s" % (i, n))
    print("meta vm.%d.pid %d" % (i, 900 + i))
    print("meta vm.%d.vcpus %d:0" % (i, 100 + i))
ctx = ["sched:sched_switch", "sched:sched_waking", "irq:irq_handler_entry",
       "irq:irq_handler_exit"]
print("context " + ",".join(ctx))
hogs = ['a,b"c', 'plain', '"q"', 'x,' * 7]
ts = 1000
for k in range(40):
    pid, hog = 100 + k % 4, hogs[k % 4]
    for reason in (0x72, 0x78, 0x7b):          # cpuid, hlt, io (SVM)
        print("exit 0 %d %d %#x 0" % (ts, pid, reason))
        print("ctx 0 %d sched:sched_switch 0 %d prev_comm=vcpu prev_pid=%d prev_state=0 "
              "next_comm=%s next_pid=%d" % (ts + 10, pid, pid, hog, 300 + k % 4))
        print("ctx 0 %d sched:sched_switch 0 %d prev_comm=%s prev_pid=%d prev_state=0 "
              "next_comm=vcpu next_pid=%d" % (ts + 400, 300 + k % 4, hog, 300 + k % 4, pid))
        print("entry 0 %d %d 0" % (ts + 500, pid))
        ts += 1000
PY
"$HELPERS/mkvmt" fmt w.vmt <w.txt || fail mkvmt

# the rows formatted by the workers (on more than one CPU), then by the pass itself
for nothreads in "" 1; do
	if [ -n "$nothreads" ]; then export VMTRACE_NO_THREADS=1; else unset VMTRACE_NO_THREADS; fi
	for view in "" "--events" "--why"; do
		# shellcheck disable=SC2086 # the view is one option or none
		vmtrace-convert --csv $view w.vmt >"rows$view.csv" || fail "--csv $view"
		# shellcheck disable=SC2086
		vmtrace-convert --jsonl $view w.vmt >"rows$view.jsonl" || fail "--jsonl $view"
	done
	python3 - w.txt names.txt <<'PY' || fail "CSV names${nothreads:+ (VMTRACE_NO_THREADS)}"
import csv, json, sys
vms = {}
for l in open(sys.argv[1], encoding="utf-8"):
    w = l.rstrip("\n").split(" ", 2)
    if w[0] == "meta" and w[1].endswith(".name"):
        vms[int(w[1].split(".")[1])] = w[2]
vmpid = {100 + i: n for i, n in vms.items()}
reasons = {"c" * 197 + ",id", "h" * 126 + ",\u00e9", "io"}
hogs = {'a,b"c', 'plain', '"q"', 'x,' * 7}
for view in ("", "--events", "--why"):
    raw = open("rows%s.csv" % view, "rb").read()
    rows = list(csv.DictReader(raw.decode("utf-8", "strict").splitlines(), strict=True))
    js = [json.loads(l) for l in open("rows%s.jsonl" % view, encoding="utf-8")]
    assert len(rows) == len(js) == (240 if view == "--events" else 120), (view, len(rows))
    for r, j in zip(rows, js):
        assert r["vm"] == vmpid[int(r["task"])] == j["vm"], (view, r["vm"], j["vm"])
        if r["reason"] or r.get("kind") == "exit":
            assert r["reason"] in reasons and r["reason"] == j["reason"], (view, r["reason"])
        if view == "--why":
            assert r["culprit"] in hogs and r["culprit"] == j["culprit"], r["culprit"]
    assert {r["vm"] for r in rows} == set(vms.values()), view
    assert {r["reason"] for r in rows if r["reason"]} == reasons, view
PY
done

# A name too long for any row (300000 bytes, past a quarter of the output's 1 MiB buffer):
# one line that says so, exit 1, not "Argument list too long"; the text report reads it.
cp -r "$DATA/formats/linux-6.18-x86_64" huge || fail "copy the formats"
python3 -c 'import sys; p = sys.argv[1]; s = open(p).read()
open(p, "w").write(s.replace("\"cpuid\" }", "\"%s\" }" % ("c" * 300000)))' huge/kvm/kvm_exit/format
printf 'exit 0 1000 100 0x72 0\nentry 0 2000 100 0\n' | "$HELPERS/mkvmt" huge huge.vmt ||
	fail "mkvmt huge"
run vmtrace-convert --csv huge.vmt
expect_rc 1 "a 300000-byte reason name"
expect_one_line_error vmtrace-convert "huge.vmt: a name in the recording (an exit reason or a VM) is too long for a CSV row: the row would pass 256 KiB"
run vmtrace-report --json huge.vmt
expect_rc 0 "the report on a 300000-byte reason name"
finish
