#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-convert --perfetto: the Chrome trace-event JSON parses (Python's json, numbers as
# decimals so nothing is rounded), its exit slices are exactly the pairs of vmtrace-report
# --json (their count) and the exit rows of vmtrace-convert --csv (each slice's task, start
# and duration against its row's start_ns and latency_ns), with and without a filter; the
# context slices of a recording with a hand-worked truth (tests/data/why/four-exits.txt) are
# the preemptions and interrupts the script holds; and headless Chromium's JSON.parse reads
# the file (exit 77 for that part without chromium).
. "$(dirname "$0")/lib.sh"

cat >check.py <<'PY'
import csv, json, sys
from decimal import Decimal
trace, report, rows = sys.argv[1:4]
d = json.load(open(trace), parse_float=Decimal)
r = json.load(open(report))
assert d["displayTimeUnit"] == "ns", d.get("displayTimeUnit")
ev = d["traceEvents"]
exits = [e for e in ev if e["ph"] == "X" and e["cat"] == "exit"]
# the pairs the filter kept
assert len(exits) == r["pairs"] - r["filtered_out"], (len(exits), r["pairs"], r["filtered_out"])
want = {}
for row in csv.DictReader(open(rows, newline="")):
    want[(int(row["task"]), int(row["start_ns"]))] = (int(row["latency_ns"]), row["reason"],
                                                     int(row["pcpu"]))
assert len(want) == len(exits), (len(want), len(exits))
names = {}
for e in ev:
    if e["ph"] == "M" and e["name"] == "thread_name":
        names[(e["pid"], e["tid"])] = e["args"]["name"]
for e in exits:
    ts_ns, dur_ns = e["ts"] * 1000, e["dur"] * 1000
    assert ts_ns == int(ts_ns) and dur_ns == int(dur_ns), e
    key = (e["tid"], int(ts_ns))
    assert key in want, ("no row for", e)
    lat, reason, pcpu = want.pop(key)
    assert int(dur_ns) == lat == e["args"]["latency_ns"], (e, lat)
    assert e["name"] == (reason or e["name"]) and e["args"]["pcpu"] == pcpu, (e, reason, pcpu)
    assert e["pid"] == 2 and (2, e["tid"]) in names, e
assert not want
print(f"{len(exits)} exit slices = pairs = rows; {len(ev)} events")
PY

conv() {
	name=$1
	shift
	vmtrace-convert --perfetto -o "$name.trace.json" "$@" || fail "$name: --perfetto"
	vmtrace-report --json "$@" >"$name.report.json" || fail "$name: report"
	vmtrace-convert --csv "$@" >"$name.csv" || fail "$name: --csv"
	python3 check.py "$name.trace.json" "$name.report.json" "$name.csv" >c.out 2>&1 ||
		fail "$name: $(cat c.out)"
	echo "$name: $(cat c.out)"
}

conv kvm "$DATA/sample-kvm.vmt"
conv syscalls "$DATA/sample-syscalls.vmt"
conv filtered --reason hlt,io --cpu 1 "$DATA/sample-kvm.vmt"
conv tracedat "$DATA/tracedat/kvm.v7zstd.dat"

# Context events: the truth worked out from the script by hand.
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" w.vmt <"$DATA/why/four-exits.txt" ||
	fail mkvmt
conv why w.vmt
python3 - why.trace.json <<'PY' || fail "context slices differ from the script"
import json, sys
from decimal import Decimal
ev = json.load(open(sys.argv[1]), parse_float=Decimal)["traceEvents"]
ctx = sorted((e["name"], int(e["ts"] * 1000), int(e["dur"] * 1000), e["pid"], e["tid"])
             for e in ev if e["ph"] == "X" and e["cat"] == "context")
# times from the recording's start (1000 in the script); all on pCPU 1's track
want = sorted([
    ("worker (vCPU task asleep)", 2100, 2100, 1, 1),   # 3100 -> 5200: vcpu slept
    ("preempted by hog", 5100, 2000, 1, 1),           # 6100 -> 8100, runnable
    ("irq 24 eth0", 5500, 100, 1, 1),
    ("irq 25 virtio0-input", 7200, 100, 1, 1),
])
assert ctx == want, ctx
ex = {int(e["ts"] * 1000): e for e in ev if e["ph"] == "X" and e["cat"] == "exit"}
assert ex[5000]["args"]["preempted_ns"] == 2000 and ex[5000]["args"]["irq_ns"] == 100, ex[5000]
names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"].endswith("_name")}
assert names[(1, None)] == "pCPUs" and names[(1, 1)] == "CPU 1", names
assert names[(2, None)] == "vCPU tasks" and names[(2, 100)] == "vCPU 0 (task 100)", names
print("context slices as worked out:", len(ctx))
PY

# The bundled real KVM sample with context events (two VMs sharing a CPU): preemptions of
# the vCPU tasks (whose exits have tracks) and interrupts on the pCPU tracks.
conv kvmwhy "$DATA/why/sample/kvm.vmt"
python3 - kvmwhy.trace.json <<'PY' || fail "the real sample's context slices"
import json, sys
from decimal import Decimal
ev = json.load(open(sys.argv[1]), parse_float=Decimal)["traceEvents"]
tasks = {e["tid"] for e in ev if e["ph"] == "X" and e["cat"] == "exit"}
ctx = [e for e in ev if e["ph"] == "X" and e["cat"] == "context"]
pre = [e for e in ctx if e["name"].startswith("preempted by ")]
assert pre and all(e["args"]["vcpu_task"] in tasks and e["args"]["preempted"] for e in pre)
assert any(e["name"].startswith(("irq ", "vector ", "softirq ")) for e in ctx)
assert all(e["pid"] == 1 and e["ts"] >= 0 and e["dur"] >= 0 for e in ctx)
print(len(pre), "preemptions,", len(ctx), "context slices")
PY

# Refused: --events with it; to standard output works.
vmtrace-convert --perfetto --events "$DATA/small-syscalls.vmt" >/dev/null 2>&1 &&
	fail "--perfetto --events accepted"
vmtrace-convert --perfetto "$DATA/small-syscalls.vmt" | python3 -c 'import json,sys; json.load(sys.stdin)' ||
	fail "--perfetto to standard output"

# Headless Chromium's own JSON.parse over the file, read by a page next to it.
# A recording made with --vm names each vCPU thread's track by its VM, as the text report
# labels its rows ("web1/vcpu0 (pid 1000)"; it was "vCPU 0 (task 1000)" whatever the VM)
printf '%s\n' "cpus 0" "meta vm.count 2" "meta vm.0.name web1" "meta vm.0.pid 900" \
	"meta vm.0.vcpus 1000:0,1001:1" "meta vm.1.name db" "meta vm.1.pid 901" \
	"meta vm.1.vcpus 2000:0" "page 0" \
	"exit 0 1000 1000 30 0" "entry 0 2000 1000 0" "exit 0 3000 1001 30 1" "entry 0 4000 1001 1" \
	"exit 0 5000 2000 30 0" "entry 0 6000 2000 0" "exit 0 7000 3000 30 0" "entry 0 8000 3000 0" |
	"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" vms.vmt || fail "mkvmt vms.vmt"
vmtrace-convert --perfetto -o vms.json vms.vmt || fail "--perfetto vms.vmt"
vmtrace-report vms.vmt >vms.txt || fail "report vms.vmt"
python3 - vms.json vms.txt <<'PY' || fail "the tracks of a recording made with --vm"
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
names = sorted(e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name")
want = ["db/vcpu0 (pid 2000)", "vCPU 0 (task 3000)", "web1/vcpu0 (pid 1000)", "web1/vcpu1 (pid 1001)"]
assert names == want, names
text = open(sys.argv[2]).read()
assert all(n in text for n in want if n.startswith(("web1", "db"))), text
print("tracks:", names)
PY
# a VM name of 100 "é" (200 bytes): each track keeps its "/vcpuN (pid N)", the JSON stays
# UTF-8 (a fixed buffer cut it inside a character, and both tracks read the same)
python3 -c 'print("\n".join(["meta vm.count 1", "meta vm.0.name " + "\u00e9" * 100, "meta vm.0.pid 900",
	"meta vm.0.vcpus 1000:0,1001:1", "page 0", "exit 0 1000 1000 30 0", "entry 0 2000 1000 0",
	"exit 0 3000 1001 30 1", "entry 0 4000 1001 1"]))' |
	"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" utf.vmt || fail "mkvmt utf.vmt"
vmtrace-convert --perfetto -o utf.json utf.vmt || fail "--perfetto utf.vmt"
vmtrace-report --html utf.html utf.vmt >/dev/null || fail "--html utf.vmt"
python3 - utf.json utf.html <<'PY' || fail "a long UTF-8 VM name"
import json, sys
ev = json.load(open(sys.argv[1], encoding="utf-8"))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
names = sorted(e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name")
assert [n[-17:] for n in names] == ["/vcpu0 (pid 1000)", "/vcpu1 (pid 1001)"], names
assert all(n.startswith("\u00e9") for n in names), names
page = open(sys.argv[2], "rb").read().decode("utf-8")	# raises on a cut character
assert "/vcpu0 (pid 1000)" in page and "/vcpu1 (pid 1001)" in page
print("tracks:", [n[-24:] for n in names])
PY
if command -v chromium >/dev/null; then
	cat >load.html <<'HTML'
<!DOCTYPE html>
<html><body><pre id="out">not run</pre><script>
var out = document.getElementById("out");
try {
	var x = new XMLHttpRequest();
	x.open("GET", "kvm.trace.json", false);
	x.send();
	var d = JSON.parse(x.responseText), n = 0;
	d.traceEvents.forEach(function (e) { if (e.ph === "X" && e.cat === "exit") n++; });
	out.textContent = "exits=" + n;
} catch (e) {
	out.textContent = "error " + e;
}
</script></body></html>
HTML
	profile=$(mktemp -d "$scratch/profile.XXXXXX")
	net=""
	unshare -n true 2>/dev/null && net="unshare -n"
	$net timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --allow-file-access-from-files --user-data-dir="$profile" \
		--dump-dom "file://$scratch/load.html" >load.dom 2>load.log ||
		{ tail -5 load.log >&2; fail "chromium --dump-dom"; }
	pairs=$(python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(r["pairs"] - r["filtered_out"])' kvm.report.json)
	grep -q "id=\"out\">exits=$pairs<" load.dom ||
		fail "chromium's JSON.parse: $(grep -o 'id="out">[^<]*' load.dom)"
	echo "chromium: JSON.parse read $pairs exit slices"
else
	skip_part "no chromium (Debian's chromium package)"
fi
finish
